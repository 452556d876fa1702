"""What installing flowrt puts into site-packages, and what it registers."""

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import flowrt


def test_only_flowrt_is_installed_as_a_top_level_package():
    dist = importlib.metadata.distribution("flowrt")
    assert dist.read_text("top_level.txt").split() == ["flowrt"]


def test_the_pytest_plugin_is_registered_through_pytest11():
    eps = importlib.metadata.distribution("flowrt").entry_points
    assert [(e.group, e.name, e.value) for e in eps if e.group == "pytest11"] == [
        ("pytest11", "flowrt", "flowrt.testing.plugin")
    ]


def test_the_package_is_marked_typed():
    assert (Path(flowrt.__file__).parent / "py.typed").is_file()


def test_the_main_job_runs_from_the_clone_without_being_installed():
    # pipelines/ is not installed (no top-level package of that name in site-packages);
    # the README's first command runs it from the repository root.
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [sys.executable, "-m", "pipelines.digits_mlp", "--help"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "--runners" in proc.stdout
