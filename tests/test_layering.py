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


def _module_name(f: pathlib.Path) -> str:
    parts = list(f.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private_uses(f: pathlib.Path, me: str):
    """(line, module, name) for every private name of another flowrt module that ``f``
    (module ``me``) imports or reaches through an imported module (``math_ops._x``)."""
    pkg = me if f.name == "__init__.py" else me.rsplit(".", 1)[0]
    tree = ast.parse(f.read_text(), str(f))
    modules = {}  # local name -> flowrt module it names
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.rsplit(".", node.level - 1)[0] if node.level > 1 else pkg
                src = base + ("." + node.module if node.module else "")
            else:
                src = node.module or ""
            if not src.startswith("flowrt"):
                continue
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__") and src != me:
                    yield node.lineno, src, a.name
                modules[a.asname or a.name] = src + "." + a.name
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("flowrt"):
                    modules[a.asname or a.name] = a.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and modules.get(node.value.id, me) != me
        ):
            yield node.lineno, modules[node.value.id], node.attr


def test_op_modules_share_no_private_names():
    """An op module's private names stay in it, and op modules use no other module's:
    what op families share is public (``ops/common.py``, or the owning module)."""
    bad = []
    for f in sorted(PKG.rglob("*.py")):
        if "protos" in f.parts:
            continue
        me = _module_name(f)
        for line, src, name in _private_uses(f, me):
            if me.startswith("flowrt.ops.") or src.startswith("flowrt.ops."):
                bad.append("%s:%d uses %s.%s" % (f.relative_to(PKG.parent), line, src, name))
    assert bad == [], "private names shared across modules:\n" + "\n".join(bad)


def test_private_name_checker_sees_imports_and_attributes(tmp_path):
    f = tmp_path / "probe.py"
    f.write_text("from .math_ops import _x, add\nfrom . import array_ops as a\ny = a._gen\n")
    found = sorted((src, name) for _, src, name in _private_uses(f, "flowrt.ops.probe"))
    assert found == [("flowrt.ops.array_ops", "_gen"), ("flowrt.ops.math_ops", "_x")]
