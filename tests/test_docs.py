"""The docs: the generated reference covers every public name, the not-supported list
holds, and nothing in the repository points outside it."""

import importlib
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest

import flowrt as fr
from flowrt._unsupported import UNSUPPORTED

ROOT = Path(__file__).resolve().parent.parent


def _load_generator():
    path = ROOT / "docs" / "gen_ref_pages.py"
    spec = importlib.util.spec_from_file_location("gen_ref_pages", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _load_generator()


def _public_modules():
    return [m for m, _ in gen.modules()]


def test_every_public_module_has_a_page():
    pages = set(_public_modules())
    subs = {"flowrt." + n for n in fr.__all__ if isinstance(getattr(fr, n), types.ModuleType)}
    assert subs <= pages
    assert {
        "flowrt.nn",
        "flowrt.train",
        "flowrt.summary",
        "flowrt.errors",
        "flowrt.test",
        "flowrt.testing",
    } <= pages
    assert all(gen.page_path(m) in gen.pages() for m in pages)


@pytest.mark.parametrize("module", _public_modules())
def test_every_name_of_all_has_a_reference_entry(module):
    mod = importlib.import_module(module)
    title = dict(gen.modules())[module]
    page = gen.pages()[gen.page_path(module)]
    missing = []
    for name in gen.public_names(module) + list(getattr(mod, "__all__", [])):
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            assert gen.page_path("%s.%s" % (module, name)) in gen.pages()
        elif 'heading: "%s.%s"' % (title, name) not in page and "| `%s` |" % name not in page:
            missing.append(name)
    assert missing == []


def test_flowrt_all_is_the_public_namespace():
    public = {
        n
        for n in dir(fr)
        if not n.startswith("_") and not isinstance(getattr(fr, n), types.ModuleType)
    }
    assert public <= set(fr.__all__)
    assert "matmul" in fr.__all__ and "Session" in fr.__all__ and "nn" in fr.__all__


@pytest.mark.parametrize("module", _public_modules())
def test_documented_objects_are_reachable_where_they_say_they_are_defined(module):
    # mkdocstrings finds an object by __module__ + __qualname__; a factory-made function
    # must carry its public name there, not "<locals>".
    mod = importlib.import_module(module)
    local = [n for n in mod.__all__ if "<" in getattr(getattr(mod, n), "__qualname__", "")]
    assert local == []


@pytest.mark.parametrize("entry", UNSUPPORTED, ids=lambda u: u.tf_name)
def test_each_not_supported_entry_is_really_absent(entry):
    if entry.path is None:
        assert fr.test.is_gpu_available() is False
        return
    obj = fr
    *parents, last = entry.path.split(".")
    for part in parents:
        obj = getattr(obj, part)
    assert not hasattr(obj, last), (
        "%s is now supported: remove it from flowrt/_unsupported.py" % entry.tf_name
    )


def test_a_not_supported_name_says_so_and_what_to_use():
    with pytest.raises(
        AttributeError,
        match=r"module 'flowrt' has no attribute 'estimator': "
        r"tf.estimator is not supported by flowrt; instead, write",
    ):
        fr.estimator  # noqa: B018
    with pytest.raises(
        AttributeError,
        match=r"^module 'flowrt' has no attribute 'nope': flowrt does not support tf.nope "
        r"\(see docs/porting.md\)",
    ):
        fr.nope  # noqa: B018


def test_every_missing_tf1_name_in_every_namespace_says_so():
    # A bare AttributeError left a porter guessing whether a name is misspelled or absent.
    with pytest.raises(
        AttributeError,
        match=r"^module 'flowrt.nn' has no attribute 'reluu': flowrt does not support "
        r"tf.nn.reluu \(see docs/porting.md\); close names: relu, relu6",
    ):
        fr.nn.reluu  # noqa: B018
    for expr, tf_name in [
        (lambda: fr.train.SyncReplicasOptimizerV3, "tf.train.SyncReplicasOptimizerV3"),
        (lambda: fr.keras.layers.ConvLSTM3D, "tf.keras.layers.ConvLSTM3D"),
        (lambda: fr.data.experimental.nope, "tf.data.experimental.nope"),
        (lambda: fr.compat.v1.nope, "tf.nope"),
        (lambda: fr.compat.v2, "tf.compat.v2"),
    ]:
        with pytest.raises(AttributeError, match="flowrt does not support %s " % tf_name):
            expr()
    # The lazy imports and protocol probes are untouched.
    assert fr.compat.v1.Session is fr.Session and fr.app.run
    assert not hasattr(fr.nn, "__wrapped__")


def test_the_unsupported_page_lists_every_entry():
    page = gen.pages()["reference/unsupported.md"]
    assert all("| `%s` | %s |" % (u.tf_name, u.instead) in page for u in UNSUPPORTED)


def _text_files():
    yield ROOT / "README.md"
    for folder in ("docs", "flowrt", "examples", "pipelines", "benchmarks", "tests"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".md", ".py", ".yml", ".toml") and ".venv" not in path.parts:
                yield path
    yield ROOT / "mkdocs.yml"
    yield ROOT / "pyproject.toml"


def test_nothing_points_outside_the_repository():
    outside = re.compile(r"\.\./shared|/work/|shared/(API|conformance|STYLE)")
    offenders = [
        str(p.relative_to(ROOT))
        for p in _text_files()
        if outside.search(p.read_text(encoding="utf-8")) and p.name != "test_docs.py"
    ]
    assert offenders == []


def test_markdown_links_resolve_inside_the_repository():
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    broken = []
    for md in [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "examples" / "README.md"]:
        for target in link.findall(md.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                broken.append("%s: external link %s" % (md.name, target))
            elif not (md.parent / target).resolve().exists() and not target.startswith(
                "reference/"
            ):
                broken.append("%s: %s" % (md.name, target))
    assert broken == []


def test_every_docs_page_is_in_the_site_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    missing = [p for p in pages if not re.search(r":\s*%s\s*$" % re.escape(p), nav, re.M)]
    assert missing == [], "add these pages to the nav in mkdocs.yml: %s" % missing


def _nav_pages(entries):
    for entry in entries:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            if isinstance(value, list):
                yield from _nav_pages(value)
            else:
                yield value


def test_every_reference_page_is_in_the_site_navigation():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert "docs/gen_ref_pages.py" in config["hooks"]
    in_nav = list(_nav_pages(gen.on_config(config)["nav"]))
    assert sorted(set(gen.pages()) - set(in_nav)) == []
    assert len(in_nav) == len(set(in_nav))


def test_a_module_of_submodules_links_them():
    for module, subs in [
        ("flowrt.client", ["debug", "explain", "step_stats", "timeline"]),
        ("flowrt.contrib", ["layers", "lookup", "rnn", "training"]),
    ]:
        page = gen.pages()[gen.page_path(module)]
        for sub in subs:
            link = "- [fr.%s.%s](flowrt_%s_%s.md): " % (module[7:], sub, module[7:], sub)
            assert link in page
    index = gen.pages()["reference/index.md"]
    assert "- [fr.client](flowrt_client.md): 4 submodules\n" in index
    assert "- [fr.data](flowrt_data.md): 12 names, 1 submodule\n" in index
    assert " 0 names" not in index


def test_the_testing_page_documents_the_plugins_fixtures_and_marks():
    plugin = pytest.importorskip("flowrt.testing.plugin")
    page = gen.pages()[gen.page_path("flowrt.testing")]
    for name in ("fr_graph", "fr_session", "fr_asession", "fr_tmp_logdir", "fr_seed"):
        doc = inspect.getdoc(getattr(plugin, name))
        assert "### `%s`\n\n*Fixture" % name in page and doc in page
    assert "*Fixture, uses `fr_graph`.*" in page
    for mark, doc in plugin.MARKERS.items():
        assert "| `@pytest.mark.%s` | %s |" % (mark, doc) in page
    assert set(plugin.MARKERS) == {"fr_timeout(seconds)", "fr_seed(seed)"}


def test_the_readmes_docs_command_prints_no_banner():
    # MkDocs plugins and themes print notices when run as `mkdocs` (a switch to ProperDocs,
    # the theme's end of life): loading the site's config, as the README's command does,
    # with the README's environment, must print none.
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"pip install -e '\.\[docs\]' && ((?:\w+=\S+ )*)mkdocs build", readme)
    assert command is not None
    env = dict(os.environ, **dict(a.split("=", 1) for a in command.group(1).split()))
    for name in ("DISABLE_MKDOCS_2_WARNING", "NO_MKDOCS_2_WARNING"):
        if name not in command.group(1):
            env.pop(name, None)
    env["PYTHONPATH"] = str(ROOT)
    script = (
        "import sys; sys.argv[0] = 'mkdocs'; from mkdocs.config import load_config; "
        "load_config('mkdocs.yml')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "ProperDocs" not in done.stderr and "end of life" not in done.stderr


def test_the_docs_extra_formats_signatures():
    # mkdocstrings lays a signature out on lines of its own with Black or Ruff; without
    # either it leaves a long one on a single line in a scroll box.
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    docs_extra = pyproject["project"]["optional-dependencies"]["docs"]
    assert any(re.match(r"(ruff|black)\b", d) for d in docs_extra)
    assert re.search(r"^\s+separate_signature: true$", (ROOT / "mkdocs.yml").read_text(), re.M)
