"""``fr.nest``: TF's nested structures: lists, tuples, namedtuples and dicts (any
``Mapping``) of leaves, walked in TF's order (a dict's values by sorted key).

Unlike a ``tf.data`` element (``flowrt/data/structure.py``), where a list is one leaf,
here a list is a nest, as in ``tf.nest``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def is_nested(seq: Any) -> bool:
    """Whether ``seq`` is a nest (a list, tuple or mapping), not a leaf."""
    return isinstance(seq, (list, tuple, Mapping))


def children(x: Any) -> list:
    """The direct children of nest ``x`` in TF's order (a mapping's values by sorted key).

    Note (flowrt): not in TF's ``tf.nest``; control flow and RNNs walk structures with it.
    """
    if isinstance(x, Mapping):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(structure: Any, expand_composites: bool = False) -> list:
    """The leaves of ``structure`` in TF's order; a leaf (``None`` too) is ``[leaf]``.

    Raises:
      TypeError: a dict's keys cannot be sorted.
    """
    _no_composites(expand_composites)
    if not is_nested(structure):
        return [structure]
    out: list = []
    for c in children(structure):
        out.extend(flatten(c))
    return out


def _no_composites(expand_composites: bool) -> None:
    if expand_composites:
        raise ValueError(
            "expand_composites=True is not supported by flowrt's fr.nest (a SparseTensor is a leaf)"
        )


def _sequence_like(instance: Any, args: list) -> Any:
    if isinstance(instance, Mapping):
        by_key = dict(zip(sorted(instance), args, strict=True))
        return type(instance)((k, by_key[k]) for k in instance)  # type: ignore[call-arg]
    if hasattr(instance, "_fields"):
        return type(instance)(*args)
    return type(instance)(args)


def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """``flat_sequence`` put in the nest of ``structure`` (the inverse of ``flatten``);
    dicts keep ``structure``'s key order and type.

    Raises:
      TypeError: ``flat_sequence`` is not a sequence.
      ValueError: the number of leaves differs.
    """
    _no_composites(expand_composites)
    if not is_nested(flat_sequence):
        raise TypeError(
            "Attempted to pack value:\n  %s\ninto a structure, but found incompatible type "
            "`%s` instead." % (flat_sequence, type(flat_sequence))
        )
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(
                "The target structure is of type `%s`\n  %s\nHowever the input is a sequence "
                "(%s) of length %d.\n  %s\nnest cannot guarantee that it is safe to map one to "
                "the other." % (type(structure), structure, type(flat_sequence), len(flat), flat)
            )
        return flat[0]
    count = len(flatten(structure))
    if count != len(flat):
        raise ValueError(
            "Could not pack sequence. Structure had %d atoms, but flat_sequence had %d "
            "items.  Structure: %s, flat_sequence: %s." % (count, len(flat), structure, flat)
        )
    return pack_leaves(structure, flat)


def pack_leaves(structure: Any, leaves: Any) -> Any:
    """``pack_sequence_as`` without its checks: the first leaves of the iterable
    ``leaves`` put in the nest of ``structure``.

    Note (flowrt): not in TF's ``tf.nest``; control flow and RNNs pack with it.
    """
    it = iter(leaves)

    def build(s: Any) -> Any:
        if not is_nested(s):
            return next(it)
        return _sequence_like(s, [build(c) for c in children(s)])

    return build(structure)


class _Dot:
    def __repr__(self) -> str:
        return "."


def _describe(x: Any) -> str:
    return "type=%s str=%s" % (type(x).__name__, x)


def _same_type(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return True
    if hasattr(a, "_fields") and hasattr(b, "_fields"):
        return type(a).__name__ == type(b).__name__ and a._fields == b._fields
    return type(a) is type(b)


def _mismatch(a: Any, b: Any, check_types: bool) -> tuple[type[Exception], str] | None:
    """The first difference of structure between ``a`` and ``b``, as TF words it."""
    if is_nested(a) != is_nested(b):
        seq, leaf = (a, b) if is_nested(a) else (b, a)
        return ValueError, 'Substructure "%s" is a sequence, while substructure "%s" is not' % (
            _describe(seq),
            _describe(leaf),
        )
    if not is_nested(a):
        return None
    if check_types and not _same_type(a, b):
        return TypeError, (
            "The two namedtuples don't have the same sequence type. First structure %s has "
            "type %s, while second structure %s has type %s"
            % (_describe(a), type(a).__name__, _describe(b), type(b).__name__)
        )
    if isinstance(a, Mapping) and isinstance(b, Mapping) and set(a) != set(b):
        return ValueError, (
            "The two dictionaries don't have the same set of keys. First structure has keys "
            "%s, while second structure has keys %s" % (_describe(list(a)), _describe(list(b)))
        )
    if len(a) != len(b):
        return ValueError, (
            "The two structures don't have the same number of elements. First structure: %s. "
            "Second structure: %s" % (_describe(a), _describe(b))
        )
    for x, y in zip(children(a), children(b), strict=True):
        found = _mismatch(x, y, check_types)
        if found is not None:
            return found
    return None


def assert_same_structure(
    nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False
) -> None:
    """Checks that two nests have the same structure (and, with ``check_types``, the
    same sequence types: a list is not a tuple; any two mappings match; namedtuples
    match by name and fields).

    Raises:
      ValueError: the nesting, lengths or dict keys differ.
      TypeError: the sequence types differ.
    """
    _no_composites(expand_composites)
    found = _mismatch(nest1, nest2, check_types)
    if found is None:
        return
    cls, detail = found
    raise cls(
        "The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
        "Second structure: %s\n\nMore specifically: %s\nEntire first structure:\n%s\n"
        "Entire second structure:\n%s"
        % (
            _describe(nest1),
            _describe(nest2),
            detail,
            _dots(nest1),
            _dots(nest2),
        )
    )


def _dots(x: Any) -> str:
    return repr(pack_sequence_as(x, [_Dot()] * len(flatten(x)))) if is_nested(x) else "."


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: Any) -> Any:
    """``func`` applied to the leaves of the structures (at the same positions), packed
    in the first structure's nest.

    Args:
      func: called with one leaf of each structure.
      *structure: nests of the same structure.
      **kwargs: ``check_types`` (default True, as ``assert_same_structure``'s) and
        ``expand_composites``.

    Raises:
      TypeError: ``func`` is not callable, or the structures' types differ.
      ValueError: no structure is given, the structures differ, or a keyword is unknown.
    """
    if not callable(func):
        raise TypeError("func must be callable, got: %s" % (func,))
    if not structure:
        raise ValueError("Must provide at least one structure")
    unknown = [k for k in kwargs if k not in ("check_types", "expand_composites")]
    if unknown:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: `%s`"
            % "`, `".join(unknown)
        )
    check_types = kwargs.get("check_types", True)
    _no_composites(kwargs.get("expand_composites", False))
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flat = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flat, strict=True)])
