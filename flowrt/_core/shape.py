"""Partially known static shapes (``fr.TensorShape``, ``fr.Dimension``) and broadcasting
of them.

A shape holds ints and None. What a program sees when it indexes or iterates a shape
follows TF's tensor-shape switch: ints and None by default (TF2's form, which
``tensorflow.compat.v1`` shows), ``Dimension`` objects after
``fr.disable_v2_behavior()`` or ``fr.disable_v2_tensorshape()`` (TF1's form, so
``x.get_shape()[1].value`` works). flowrt's own modules always see ints and None: the
view is chosen by the calling module, so no internal ``shape[i] is None`` depends on
the switch.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Iterable, Optional, cast, overload

if TYPE_CHECKING:
    from .typing import ShapeLike

Dim = Optional[int]

# TF's ``tensor_shape._TENSORSHAPE_V2_OVERRIDE``: False after disable_v2_tensorshape().
_v2_tensorshape = True


def set_v2_tensorshape(enabled: bool) -> None:
    """Selects what programs see in a shape: ints (True, TF2) or ``Dimension`` (TF1)."""
    global _v2_tensorshape
    _v2_tensorshape = bool(enabled)


def v2_tensorshape() -> bool:
    """Whether programs see ints (True) or ``Dimension`` objects in a shape."""
    return _v2_tensorshape


def _called_from_program(depth: int) -> bool:
    """Whether the frame ``depth`` levels above the caller is outside flowrt."""
    name = sys._getframe(depth + 1).f_globals.get("__name__", "")
    return not (name == "flowrt" or name.startswith("flowrt."))


class Dimension:
    """TF1's value of one dimension of a ``TensorShape``: ``value`` is an int or None.

    Arithmetic and comparisons with an unknown dimension give an unknown result
    (``Dimension(None)``, or None for a comparison), as TF1's. Shapes index to
    ``Dimension`` under TF1 behaviour (``fr.disable_v2_behavior()``).
    """

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        self._value = _as_dim(value)

    @property
    def value(self) -> int | None:
        """The value of this dimension, or None if it is unknown."""
        return self._value

    def __repr__(self) -> str:
        return "Dimension(%r)" % (self._value,)

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __eq__(self, other: object) -> Any:
        try:
            o = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or o._value is None:
            return None
        return self._value == o._value

    def __ne__(self, other: object) -> Any:
        try:
            o = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or o._value is None:
            return None
        return self._value != o._value

    __hash__ = None  # type: ignore[assignment]  # equal to ints, so unhashable, as TF's

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return self._value  # type: ignore[return-value]  # TF's: TypeError when unknown

    def __index__(self) -> int:
        return self._value  # type: ignore[return-value]

    def is_compatible_with(self, other: Any) -> bool:
        """True unless both values are known and differ."""
        o = as_dimension(other)
        return self._value is None or o._value is None or self._value == o._value

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises ``ValueError`` unless ``other`` is compatible."""
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other: Any) -> Dimension:
        """The known one of two compatible dimensions; ``ValueError`` if they differ."""
        o = as_dimension(other)
        self.assert_is_compatible_with(o)
        return Dimension(o._value if self._value is None else self._value)

    def _arith(self, other: Any, fn: Any, reflected: bool = False) -> Any:
        try:
            o = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or o._value is None:
            return Dimension(None)
        a, b = (o._value, self._value) if reflected else (self._value, o._value)
        return Dimension(fn(a, b))

    def __add__(self, other: Any) -> Any:
        return self._arith(other, operator.add)

    def __radd__(self, other: Any) -> Any:
        return self._arith(other, operator.add, True)

    def __sub__(self, other: Any) -> Any:
        return self._arith(other, operator.sub)

    def __rsub__(self, other: Any) -> Any:
        return self._arith(other, operator.sub, True)

    def __mul__(self, other: Any) -> Any:
        return self._arith(other, operator.mul)

    def __rmul__(self, other: Any) -> Any:
        return self._arith(other, operator.mul, True)

    def __floordiv__(self, other: Any) -> Any:
        return self._arith(other, operator.floordiv)

    def __rfloordiv__(self, other: Any) -> Any:
        return self._arith(other, operator.floordiv, True)

    def __mod__(self, other: Any) -> Any:
        return self._arith(other, operator.mod)

    def __rmod__(self, other: Any) -> Any:
        return self._arith(other, operator.mod, True)

    def __truediv__(self, other: Any) -> Any:
        raise TypeError(
            "unsupported operand type(s) for /: 'Dimension' and '%s', please use // "
            "instead" % type(other).__name__
        )

    def __rtruediv__(self, other: Any) -> Any:
        raise TypeError(
            "unsupported operand type(s) for /: '%s' and 'Dimension', please use // "
            "instead" % type(other).__name__
        )

    def _compare(self, other: Any, fn: Any) -> Any:
        o = as_dimension(other)
        if self._value is None or o._value is None:
            return None
        return fn(self._value, o._value)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, operator.lt)

    def __le__(self, other: Any) -> Any:
        return self._compare(other, operator.le)

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, operator.gt)

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, operator.ge)

    def __reduce__(self) -> tuple[Any, ...]:
        return Dimension, (self._value,)


def as_dimension(value: Any) -> Dimension:
    """``value`` as a ``Dimension`` (itself if it is one)."""
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension: Any) -> int | None:
    """The int of a static dimension, or None if unknown: ``x.shape[i]`` as a value under
    either behaviour (an int, None, or a ``Dimension``)."""
    if isinstance(dimension, Dimension):
        return dimension.value
    return None if dimension is None else operator.index(dimension)


def dimension_at_index(shape: ShapeLike, index: int) -> Dimension:
    """Dimension ``index`` of ``shape`` as a ``Dimension`` (unknown when the rank is)."""
    s = as_shape(shape)
    if s._dims is None:
        return Dimension(None)
    return Dimension(s._dims[index])


class TensorShape:
    """A static shape: unknown rank (``ndims is None``) or a sequence of ints / None.

    Indexing and iterating give ints and None (TF2's ``TensorShape``, what
    ``tensorflow.compat.v1`` shows by default), or ``Dimension`` objects to a program
    under TF1 behaviour (see the module docstring); ``as_list()`` gives ints either way
    and ``dims`` gives ``Dimension`` objects either way, as TF's.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: ShapeLike) -> None:
        self._dims: tuple[Any, ...] | None
        if type(dims) is tuple and all(type(d) is int for d in dims):
            self._dims = dims
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        else:
            if isinstance(dims, (str, bytes)):
                raise TypeError(
                    "Failed to convert %r to a shape: a shape is a single "
                    "dimension (e.g. 10) or an iterable of dimensions (e.g. "
                    "[1, 10, None])." % (dims,)
                )
            it: Iterable[Any]
            try:
                it = iter(cast(Iterable[Any], dims))  # an int raises: one dimension
            except TypeError:
                it = (dims,)  # one dimension: TensorShape(2) is [2], as in TF
            self._dims = tuple(_as_dim(d) for d in it)

    @property
    def dims(self) -> list[Any] | None:
        if self._dims is None:
            return None
        if _called_from_program(1):
            return [Dimension(d) for d in self._dims]
        return list(self._dims)

    @property
    def ndims(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self) -> tuple[int | None, ...] | None:
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> int | None:
        if self._dims is None or not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other: ShapeLike) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other: ShapeLike) -> TensorShape:
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def assert_is_compatible_with(self, other: ShapeLike) -> None:
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def with_rank(self, rank: int) -> TensorShape:
        if self._dims is None:
            return unknown_shape(rank)
        if len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """This shape, checked to have at least ``rank`` dimensions (or unknown rank)."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        """This shape, checked to have at most ``rank`` dimensions (or unknown rank)."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError("Shape %s must have rank at most %d" % (self, rank))
        return self

    def assert_has_rank(self, rank: int) -> None:
        """Raises ValueError unless the rank is unknown or ``rank``."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def assert_same_rank(self, other: ShapeLike) -> None:
        """Raises ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None:
            if len(self._dims) != len(other._dims):
                raise ValueError("Shapes %s and %s must have the same rank" % (self, other))

    def assert_is_fully_defined(self) -> None:
        """Raises ValueError unless every dimension is known."""
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % (self,))

    def concatenate(self, other: ShapeLike) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[Any]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        if not _v2_tensorshape and _called_from_program(1):
            return iter([Dimension(d) for d in self._dims])
        return iter(self._dims)

    @overload
    def __getitem__(self, key: int) -> Any: ...

    @overload
    def __getitem__(self, key: slice) -> TensorShape: ...

    def __getitem__(self, key: int | slice) -> Any:
        if isinstance(key, slice):
            return TensorShape(None if self._dims is None else self._dims[key])
        d = None if self._dims is None else self._dims[key]
        if not _v2_tensorshape and _called_from_program(1):
            return Dimension(d)
        return d

    def __eq__(self, other: object) -> bool:
        try:
            shape = as_shape(cast(Any, other))  # anything else is not equal: TypeError
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == shape._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        if _v2_tensorshape:
            return "TensorShape(%s)" % list(self._dims)
        return "TensorShape([%s])" % ", ".join("Dimension(%r)" % (d,) for d in self._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        unknown = "None" if _v2_tensorshape else "?"  # TF2 prints None, TF1 ?
        inner = ", ".join(unknown if d is None else str(d) for d in self._dims)
        return "(%s,)" % inner if len(self._dims) == 1 else "(%s)" % inner


def _dim_value(d: Any) -> Any:
    return getattr(d, "value", d)


def _as_dim(d: Any) -> int | None:
    """A dimension as an int >= 0 or None, with TF's errors for anything else."""
    d = _dim_value(d)
    if d is None:
        return None
    try:
        v = operator.index(d)
    except TypeError:
        raise TypeError(
            "Dimension value must be integer or None or have an __index__ "
            "method, got value '%r' with type '%r'" % (d, type(d))
        ) from None
    if v < 0:
        raise ValueError("Dimension %d must be >= 0" % v)
    return v


def as_shape(shape: ShapeLike) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    return TensorShape(())


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """Static numpy-style broadcast of two shapes; raises ValueError when incompatible."""
    if a._dims == b._dims and (a._dims is None or None not in a._dims):
        return a
    if a._dims is None or b._dims is None:
        return TensorShape(None)
    x, y = a._dims, b._dims
    n = max(len(x), len(y))
    x = (1,) * (n - len(x)) + x
    y = (1,) * (n - len(y)) + y
    out = []
    for p, q in zip(x, y):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None:
            out.append(q)
        elif q is None or p == q:
            out.append(p)
        else:
            raise ValueError(
                "Dimensions must be equal, but are %d and %d for shapes %s and %s"
                % (p, q, list(a._dims), list(b._dims))
            )
    return TensorShape(out)
