"""flowrt/_core never imports the layers above it (docs/architecture.md)."""

import ast
import pathlib

import flowrt

PKG = pathlib.Path(flowrt.__file__).parent
# What _core may import from flowrt: itself and the leaf modules below it.
ALLOWED = {"flowrt._core", "flowrt.errors", "flowrt.dtypes"}


def _imports(path: pathlib.Path, pkg: str = "flowrt._core"):
    """(line, absolute module) for every import in a module of package ``pkg``."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.rsplit(".", node.level - 1)[0] if node.level > 1 else pkg
                mod = base + ("." + node.module if node.module else "")
                if node.module is None:  # "from .. import x": x is a module of base
                    for alias in node.names:
                        yield node.lineno, base + "." + alias.name
                    continue
                yield node.lineno, mod
            else:
                yield node.lineno, node.module


def _package_of(f: pathlib.Path) -> str:
    return ".".join(f.parent.relative_to(PKG.parent).parts)


def _allowed(mod: str) -> bool:
    if mod != "flowrt" and not mod.startswith("flowrt."):
        return True
    return any(mod == a or mod.startswith(a + ".") for a in ALLOWED)


def test_core_imports_no_layer_above_it():
    files = sorted((PKG / "_core").rglob("*.py"))
    assert files
    bad = [
        "%s:%d imports %s" % (f.relative_to(PKG.parent), line, mod)
        for f in files
        for line, mod in _imports(f, _package_of(f))
        if not _allowed(mod)
    ]
    assert bad == [], "flowrt._core must not import the layers above it:\n" + "\n".join(bad)


def test_checker_catches_upward_imports(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(
        "from ..ops import math_ops\nfrom .. import session\nimport flowrt.train\n"
        "from ..errors import OpError\nfrom . import shape\nimport numpy\n"
    )
    got = [mod for _, mod in _imports(f) if not _allowed(mod)]
    assert got == ["flowrt.ops", "flowrt.session", "flowrt.train"]
