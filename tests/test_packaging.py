"""What installing flowrt puts into site-packages, and what it registers."""

import ast
import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

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


# Each optional dependency (pyproject.toml's extras): its module, its extra, and a line
# of code needing it.
_EXTRAS = {
    "ray": ("distributed", "fr.train.Server({'worker': ['localhost:2222']})"),
    "re2": ("text", "sess.run(fr.strings.regex_full_match(fr.constant('ab'), 'a.'))"),
    "farmhash": ("text", "sess.run(fr.strings.to_hash_bucket_fast(fr.constant('ab'), 5))"),
    "PIL": ("image", "sess.run(fr.image.encode_png(fr.zeros([1, 1, 1], fr.uint8)))"),
    "scipy": ("special", "sess.run(fr.math.erf(fr.constant(0.5)))"),
    "absl": ("app", "fr.flags.DEFINE_string('name', 'x', 'help')"),
}
_ROOT = Path(__file__).resolve().parent.parent
# Not in the core install: the extras' modules, and pyarrow (no longer a dependency).
_NOT_CORE = [*_EXTRAS, "tqdm", "pyarrow"]


def _run_without(modules, code):
    """Runs ``code`` in a new interpreter (from the repository root) where importing any
    of ``modules`` fails, as in an install without their extras."""
    block = "import sys\nfor m in %r:\n    sys.modules[m] = None\n" % (list(modules),)
    return subprocess.run(
        [sys.executable, "-c", block + code],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_core_runs_the_main_jobs_ops_without_any_extra(tmp_path):
    # The core install: import flowrt, build and run the main job's input pipeline
    # (string_input_producer -> TextLineReader -> decode_csv -> shuffle_batch, run by
    # queue runners) and an Adam step, none of the extras importable; and nothing of
    # them is imported (a None entry would have made their import fail).
    csv = tmp_path / "data.csv"
    csv.write_text("".join("%d,%d.5,%d\n" % (i % 3, i, i) for i in range(40)))
    code = """
import flowrt as fr
files = fr.train.string_input_producer([%r], num_epochs=2)
_, line = fr.TextLineReader().read(files)
label, x, y = fr.decode_csv(line, record_defaults=[[0], [0.0], [0.0]])
lb, xb, yb = fr.train.shuffle_batch([label, x, y], 8, capacity=40, min_after_dequeue=8)
w = fr.get_variable("w", [], initializer=fr.zeros_initializer())
loss = fr.reduce_mean(fr.square(w * xb - yb))
train = fr.train.AdamOptimizer(0.1).minimize(loss)
with fr.train.MonitoredTrainingSession() as sess:
    while not sess.should_stop():
        sess.run(train)
print(sorted(m for m in %r if sys.modules.get(m) is not None))
""" % (str(csv), _NOT_CORE)
    proc = _run_without(_NOT_CORE, code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"


@pytest.mark.parametrize("module", sorted(_EXTRAS))
def test_a_missing_extra_is_named_with_the_command_that_installs_it(module):
    extra, use = _EXTRAS[module]
    code = "import flowrt as fr\nsess = fr.Session()\n" + use
    proc = _run_without([module], code)
    assert proc.returncode != 0
    assert "not in flowrt's core install: pip install 'flowrt[%s]'" % extra in proc.stderr


def test_the_jobs_name_their_extra_when_tqdm_is_missing():
    proc = _run_without(["tqdm"], "import pipelines.digits_mlp")
    assert "The jobs' progress bar needs the tqdm package" in proc.stderr
    assert "pip install 'flowrt[jobs]'" in proc.stderr


def test_all_installs_every_extra_and_the_extras_leave_the_core():
    project = tomllib.loads((_ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    (everything,) = extras["all"]
    listed = set(everything.removeprefix("flowrt[").removesuffix("]").split(","))
    assert listed == set(extras) - {"all", "test", "docs", "dev"}
    core = {re.split(r"[<>=\[;]", d)[0] for d in project["dependencies"]}
    for name in listed:
        for dep in extras[name]:
            assert re.split(r"[<>=\[;]", dep)[0] not in core


def test_every_package_import_flowrt_imports_is_a_declared_dependency():
    # What a module imports when it is imported (not inside a function, not under
    # TYPE_CHECKING) must be installed by ``pip install flowrt`` itself: declared in
    # [project].dependencies, not only present as some dependency's dependency.
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, flowrt; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=_ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    loaded = [m for m in proc.stdout.split() if m == "flowrt" or m.startswith("flowrt.")]
    imported = set()
    for name in loaded:
        path = Path(importlib.util.find_spec(name).origin)
        if path.suffix != ".py":
            continue
        tree = ast.parse(path.read_text())
        nodes = list(tree.body)
        while nodes:
            node = nodes.pop()
            if isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                nodes.extend(node.body + node.orelse)
            elif isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    # ``google`` is a namespace that several distributions share (the declared protobuf
    # and google-crc32c, an extra's google-re2): it names no one distribution.
    third_party = {
        m for m in imported if m not in sys.stdlib_module_names and m not in ("flowrt", "google")
    }
    dists = importlib.metadata.packages_distributions()

    def norm(requirement: str) -> str:
        return re.sub(r"[-_.]+", "-", re.split(r"[<>=\[;]", requirement)[0]).lower()

    needed = {norm(d) for m in third_party for d in dists.get(m, [m])}
    project = tomllib.loads((_ROOT / "pyproject.toml").read_text())["project"]
    core = {norm(d) for d in project["dependencies"]}
    assert sorted(needed - core) == []
