"""Partially known static shapes (``fr.TensorShape``) and broadcasting of them."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Iterable, Optional, cast, overload

if TYPE_CHECKING:
    from .typing import ShapeLike

Dim = Optional[int]


class TensorShape:
    """A static shape: unknown rank (``dims is None``) or a list of ints / None.

    Indexing gives an int or None (TF2-style ``TensorShape`` semantics, which is what
    ``tensorflow.compat.v1`` shows by default).
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
    def dims(self) -> list[int | None] | None:
        return None if self._dims is None else list(self._dims)

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

    def __iter__(self) -> Iterator[int | None]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    @overload
    def __getitem__(self, key: int) -> int | None: ...

    @overload
    def __getitem__(self, key: slice) -> TensorShape: ...

    def __getitem__(self, key: int | slice) -> int | None | TensorShape:
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

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
        return "TensorShape(%s)" % (None if self._dims is None else list(self._dims))

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join(str(d) for d in self._dims)  # TF 2.x prints None, not ?
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
            "method, got value %r with type %r" % (d, type(d))
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
