"""Every public function and every public method of a public class is annotated: each
parameter (but ``self``/``cls``) and the return (but ``__init__``'s).

"Public" is what the API reference documents: the names of ``flowrt.__all__`` and of
each public submodule's ``__all__`` (``fr.nn``, ``fr.train``, ``fr.keras.layers``, ...),
the same walk as docs/gen_ref_pages.py. A class's public methods are the names without a
leading underscore that it has (defined by it or by a flowrt base class), its
properties' getters, ``__init__`` and ``__call__``.

mypy checks the annotations themselves (config in pyproject.toml); this test checks
that they are there, so a new public function cannot slip in untyped.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import flowrt as fr

ROOT = Path(__file__).resolve().parent.parent


def _load_generator() -> types.ModuleType:
    path = ROOT / "docs" / "gen_ref_pages.py"
    spec = importlib.util.spec_from_file_location("gen_ref_pages", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _load_generator()


def _is_flowrt(obj: object) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == "flowrt" or module.startswith("flowrt.")


def _methods(cls: type) -> Iterator[tuple[str, Callable[..., object], bool]]:
    """``(name, function, bound)`` of the public methods of ``cls`` that flowrt defines
    (itself or a flowrt base class); ``bound`` when the first parameter is self/cls."""
    for name in sorted(dir(cls)):
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not _is_flowrt(owner):
            continue
        attr = vars(owner)[name]
        if isinstance(attr, property):
            if attr.fget is not None:
                yield name, attr.fget, True
        elif isinstance(attr, functools.cached_property):
            yield name, attr.func, True
        elif isinstance(attr, staticmethod):
            yield name, attr.__func__, False
        elif isinstance(attr, classmethod):
            yield name, attr.__func__, True
        elif inspect.isfunction(attr):
            yield name, attr, True


def public_callables() -> dict[str, tuple[Callable[..., object], bool, bool]]:
    """Every public function and method, once: ``qualified name -> (function, bound,
    is __init__)``, the name being where it is defined."""
    out: dict[str, tuple[Callable[..., object], bool, bool]] = {}
    seen: set[int] = set()

    def add(fn: Callable[..., object], bound: bool, init: bool = False) -> None:
        fn = inspect.unwrap(fn)
        if id(fn) in seen or not inspect.isfunction(fn) or not _is_flowrt(fn):
            return
        seen.add(id(fn))
        out["%s.%s" % (fn.__module__, fn.__qualname__)] = (fn, bound, init)

    for module, _ in gen.modules():
        mod = importlib.import_module(module)
        for name in gen.public_names(module):
            obj = getattr(mod, name)
            if inspect.isclass(obj):
                if _is_flowrt(obj) and id(obj) not in seen:
                    seen.add(id(obj))
                    for meth_name, fn, bound in _methods(obj):
                        add(fn, bound, meth_name == "__init__")
            elif callable(obj):
                add(obj, False)
    return out


def missing_annotations(fn: Callable[..., object], bound: bool, init: bool) -> list[str]:
    """The parameters of ``fn`` without an annotation, and ``return`` when its return
    type is missing (``__init__`` needs none)."""
    annotations = fn.__annotations__
    params = list(inspect.signature(fn).parameters)
    if bound and params:
        params = params[1:]
    missing = [p for p in params if p not in annotations]
    if not init and "return" not in annotations:
        missing.append("return")
    return missing


def unannotated() -> dict[str, tuple[str, list[str]]]:
    """``qualified name -> (defining module, what is missing)`` for every public callable
    that lacks an annotation, the not-yet-annotated modules included."""
    out = {}
    for qualname, (fn, bound, init) in public_callables().items():
        missing = missing_annotations(fn, bound, init)
        if missing:
            out[qualname] = (fn.__module__, missing)
    return out


def test_every_public_callable_is_annotated() -> None:
    bad = {q: m for q, (_mod, m) in unannotated().items()}
    assert not bad, "public callables without annotations (parameter names, or 'return'):\n" + (
        "\n".join("  %s: %s" % (q, ", ".join(m)) for q, m in sorted(bad.items()))
    )


def test_the_walk_reaches_functions_methods_and_properties() -> None:
    found = public_callables()
    assert "flowrt.train.saver.Saver.save" in found  # a method, via fr.train
    assert "flowrt.train.saver.Saver.last_checkpoints" in found  # a property's getter
    assert "flowrt.train.saver.latest_checkpoint" in found  # a function
    assert "flowrt.layers.base.Layer.__call__" in found  # inherited by fr.layers.Dense
    assert "flowrt.testing.asserts.assert_all_close" in found  # flowrt.testing


def _unannotated_fn(x, y: int = 1):  # unannotated on purpose
    return x


def test_an_unannotated_function_added_to_an_annotated_module_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_unannotated_fn, "__module__", "flowrt.train.saver")
    monkeypatch.setattr(_unannotated_fn, "__qualname__", "new_helper")
    monkeypatch.setattr(fr.train, "new_helper", _unannotated_fn, raising=False)
    monkeypatch.setattr(fr.train, "__all__", [*fr.train.__all__, "new_helper"])
    assert unannotated()["flowrt.train.saver.new_helper"] == ("flowrt.train.saver", ["x", "return"])
    with pytest.raises(AssertionError, match=r"flowrt\.train\.saver\.new_helper: x, return"):
        test_every_public_callable_is_annotated()


def test_missing_annotations_reads_each_kind_of_signature() -> None:
    class C:
        def __init__(self, a: int, *args: int, b, **kwargs) -> None: ...

        def method(self, a: int) -> int:
            return a

        @staticmethod
        def static(a: int): ...

    assert missing_annotations(C.__init__, True, True) == ["b", "kwargs"]
    assert missing_annotations(C.method, True, False) == []
    assert missing_annotations(C.static, False, False) == ["return"]
