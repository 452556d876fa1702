"""``SparseTensor`` and the sparse ops TF1 programs reach for.

A ``SparseTensor`` is three dense tensors: ``indices`` (int64 ``[N, rank]``), ``values``
(``[N]``) and ``dense_shape`` (int64 ``[rank]``). It is no graph element itself:
``Session.run`` fetches it as a ``SparseTensorValue`` and feeds it from one (or from any
``(indices, values, dense_shape)`` triple) through its three components.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import OPERATORS, Graph, Operation, Tensor, constant_value, session_for
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from . import array_ops as _array
from . import slicing_ops as _slicing
from .array_ops import placeholder, placeholder_with_default, reshape, size, stack
from .common import TensorShape, as_shape, in_graph_of, make, make_op, to_tensor
from .indexed_slices import unsorted_segment_sum
from .math_ops import add_n, cast, reduce_prod, reduce_sum, where
from .slicing_ops import gather

if TYPE_CHECKING:
    from .._core.typing import AxisLike, DTypeLike, ShapeLike, TensorLike

__all__ = [
    "SparseTensor",
    "SparseTensorValue",
    "sparse_placeholder",
    "sparse_tensor_to_dense",
    "sparse_to_dense",
    "sparse_reorder",
    "sparse_reduce_sum",
    "sparse_retain",
    "sparse_tensor_dense_matmul",
    "sparse_concat",
    "sparse_fill_empty_rows",
    "string_split",
    "convert_to_tensor_or_sparse_tensor",
]


class SparseTensorValue(
    collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
):
    """The value of a ``SparseTensor``: numpy ``indices``, ``values`` and ``dense_shape``."""


def _shape_from(dense_shape: Tensor, indices: Tensor) -> TensorShape:
    known = constant_value(dense_shape)
    if known is not None:
        return TensorShape([None if d < 0 else int(d) for d in np.asarray(known).reshape(-1)])
    rank = dense_shape.shape.as_list()[0] if dense_shape.shape.ndims == 1 else None
    if rank is None and indices.shape.ndims == 2:
        rank = indices.shape.as_list()[1]
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


class SparseTensor:
    """A sparse tensor: ``values[i]`` at coordinate ``indices[i]`` of a ``dense_shape``
    tensor, zero (or the default) elsewhere.

    Args:
      indices: int64 ``[N, rank]`` coordinates, in row-major order for most ops.
      values: ``[N]`` values of any dtype.
      dense_shape: int64 ``[rank]``: the shape of the dense tensor represented.

    Raises:
      ValueError: components of the wrong rank, or of sizes that disagree (rows of
        ``indices`` against ``values``, columns against ``dense_shape``).
    """

    def __init__(self, indices: TensorLike, values: TensorLike, dense_shape: TensorLike) -> None:
        self._indices = to_tensor(indices, _dt.int64, name="indices")
        self._values = to_tensor(values, name="values")
        self._dense_shape = to_tensor(dense_shape, _dt.int64, name="dense_shape")
        if self._indices.shape.ndims not in (None, 2):
            raise ValueError(
                "SparseTensor indices must be a matrix, got shape %s" % self._indices.shape
            )
        if self._values.shape.ndims not in (None, 1):
            raise ValueError(
                "SparseTensor values must be a vector, got shape %s" % self._values.shape
            )
        if self._dense_shape.shape.ndims not in (None, 1):
            raise ValueError(
                "SparseTensor dense_shape must be a vector, got shape %s" % self._dense_shape.shape
            )
        # As TF: one row of indices per value, one column per dimension of dense_shape.
        rows, cols = (self._indices.shape.dims or [None, None])[:2]
        for a, b in (
            (rows, (self._values.shape.dims or [None])[0]),
            (cols, (self._dense_shape.shape.dims or [None])[0]),
        ):
            if a is not None and b is not None and a != b:
                raise ValueError("Dimensions %d and %d are not compatible" % (a, b))
        self._shape = _shape_from(self._dense_shape, self._indices)

    @classmethod
    def from_value(cls, sparse_tensor_value: SparseTensorValue | SparseTensor) -> SparseTensor:
        """A ``SparseTensor`` of constants from a ``SparseTensorValue`` (or returns a
        ``SparseTensor`` unchanged)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(
            np.asarray(sparse_tensor_value.indices, np.int64),
            sparse_tensor_value.values,
            np.asarray(sparse_tensor_value.dense_shape, np.int64),
        )

    @property
    def indices(self) -> Tensor:
        """int64 ``[N, rank]`` coordinates."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """``[N]`` values."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """int64 ``[rank]`` shape."""
        return self._dense_shape

    @property
    def dtype(self) -> _dt.DType:
        return self._values.dtype

    @property
    def op(self) -> Operation:
        """The op producing ``values``."""
        return self._values.op

    @property
    def graph(self) -> Graph:
        return self._indices.graph

    @property
    def shape(self) -> TensorShape:
        """The static shape of the dense tensor represented (partially known)."""
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: ShapeLike) -> None:
        """Refines the static dense shape; ValueError if incompatible."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def eval(
        self, feed_dict: dict[Any, Any] | None = None, session: Any = None
    ) -> SparseTensorValue:
        """Runs the graph to compute this value in ``session`` or the default session."""
        return session_for(self.graph, session).run(self, feed_dict)

    def consumers(self) -> list:
        seen = []
        for t in (self._indices, self._values, self._dense_shape):
            for op in t.consumers():
                if op not in seen:
                    seen.append(op)
        return seen

    def with_values(self, new_values: TensorLike) -> SparseTensor:
        """This sparse tensor with ``new_values`` (one per entry, any dtype) in place of
        its values: same indices, dense shape and static shape.

        Raises:
          ValueError: ``new_values`` is not a vector of one value per entry.
        """
        sp = SparseTensor(self._indices, new_values, self._dense_shape)
        sp._shape = self._shape
        return sp

    def __mul__(self, y: TensorLike) -> SparseTensor:
        """Each value times the entry of the dense ``y`` (broadcast to the dense shape) at
        its coordinate: TF's ``SparseDenseCwiseMul``; the result keeps the indices."""
        from .math_ops import multiply

        return _sparse_dense_cwise(self, y, multiply, "SparseDenseCwiseMul")

    def __truediv__(self, y: TensorLike) -> SparseTensor:
        """Each value divided by the dense ``y``'s entry at its coordinate (as ``__mul__``;
        integers are divided as ``fr.truediv`` divides them, in floating point)."""
        from .math_ops import truediv

        return _sparse_dense_cwise(self, y, truediv, "truediv")

    def __div__(self, y: TensorLike) -> SparseTensor:
        """TF1's ``div`` of the values by the dense ``y`` (see ``__mul__``)."""
        from .math_ops import div

        return _sparse_dense_cwise(self, y, div, "SparseDenseCwiseDiv")

    def _as_tensor(self):
        raise TypeError(
            "Failed to convert %r to Tensor: a SparseTensor is not a dense "
            "tensor; use fr.sparse.to_dense(sp) (fr.sparse_tensor_to_dense) or "
            "a sparse op" % (self,)
        )

    # -- Session.run hooks: fetched and fed through the three components --------------

    def _fetch_components(self):
        return [self._indices, self._values, self._dense_shape]

    @staticmethod
    def _fetch_rebuild(vals):
        return SparseTensorValue(*vals)

    def _feed_components(self, value):
        if (
            isinstance(value, SparseTensor)
            or not isinstance(value, (SparseTensorValue, tuple, list))
            or len(value) != 3
        ):
            raise TypeError(
                "The value fed for a SparseTensor must be a "
                "fr.SparseTensorValue or an (indices, values, dense_shape) "
                "triple, got %r" % (type(value).__name__,)
            )
        return list(zip((self._indices, self._values, self._dense_shape), value))

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices,
            self._values,
            self._dense_shape,
        )


def _sparse_dense_cwise(sp: SparseTensor, y: Any, fn: Any, name: str) -> SparseTensor:
    """``fn`` of ``sp``'s values and the entries of the dense ``y`` (converted to
    ``sp``'s dtype, as TF does) at their coordinates.

    Note (flowrt): a dense ``y`` of rank > 0 is broadcast to the whole dense shape before
    its entries are gathered (TF's kernel reads them in place); a scalar is not.
    """
    from .indexing_ops import gather_nd
    from .math_ops import broadcast_to

    with in_graph_of([sp, y]), sp.graph.name_scope(name):
        d = to_tensor(y, sp.dtype, name="y")
        at = d if d.shape.ndims == 0 else gather_nd(broadcast_to(d, sp.dense_shape), sp.indices)
        return sp.with_values(fn(sp.values, at))


_dense_mul = OPERATORS["mul"]


def _mul_dispatch(x: Any, y: Any) -> Any:
    """``x * y`` for a dense ``x``: a SparseTensor ``y`` gives ``y * x``, a SparseTensor
    (TF's ``_mul_dispatch``); division and sums of dense and sparse stay TypeErrors."""
    if isinstance(y, SparseTensor):
        return y * x
    return _dense_mul(x, y)


OPERATORS["mul"] = _mul_dispatch


SparseInput = SparseTensor | SparseTensorValue
"""A sparse argument: a ``SparseTensor``, or a ``SparseTensorValue`` made a constant one."""


def is_sparse(x) -> bool:
    return isinstance(x, (SparseTensor, SparseTensorValue))


def sparse_input(x, arg="sp_input") -> SparseTensor:
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    if not isinstance(x, SparseTensor):
        raise TypeError("Input must be a SparseTensor, got %s for %s" % (type(x).__name__, arg))
    return x


def convert_to_tensor_or_sparse_tensor(
    value: TensorLike | SparseTensor | SparseTensorValue,
    dtype: DTypeLike | None = None,
    name: str | None = None,
) -> Tensor | SparseTensor:
    """``value`` as a ``SparseTensor`` when it is sparse, else as a ``Tensor``."""
    if is_sparse(value):
        sp = sparse_input(value)
        if dtype is not None and sp.dtype is not _dt.as_dtype(dtype):
            raise ValueError(
                "Sparse dtype: requested = %s, actual = %s"
                % (_dt.as_dtype(dtype).name, sp.dtype.name)
            )
        return sp
    return to_tensor(value, dtype, name=name)


def sparse_placeholder(
    dtype: DTypeLike, shape: ShapeLike | Tensor = None, name: str | None = None
) -> SparseTensor:
    """A ``SparseTensor`` whose components must be fed (as a ``SparseTensorValue``).

    Args:
      dtype: the values' dtype.
      shape: the dense shape, or None for any; ``None``/``-1`` entries are unknown.
      name: a prefix for the component placeholders (``name/values``,
        ``name/indices``, ``name/shape``).
    """
    sub = (lambda s: name + "/" + s) if name is not None else (lambda s: None)
    if shape is None:
        rank = None
        dense_shape = placeholder(_dt.int64, [None], name=sub("shape"))
        static = TensorShape(None)
    else:
        if isinstance(shape, Tensor):
            rank = shape.shape.as_list()[0] if shape.shape.ndims == 1 else None
            static = TensorShape(None) if rank is None else TensorShape([None] * rank)
            default = shape
        else:
            dims = as_shape(shape).as_list()
            rank = len(dims)
            static = TensorShape([None if d is None or d == -1 else d for d in dims])
            default = to_tensor(
                np.array([-1 if d is None else d for d in dims], np.int64),
                name=sub("shape_default"),
            )
        dense_shape = placeholder_with_default(default, [rank], name=sub("shape"))
    sp = SparseTensor(
        placeholder(_dt.int64, [None, rank], name=sub("indices")),
        placeholder(dtype, [None], name=sub("values")),
        dense_shape,
    )
    sp._shape = static
    return sp


# --------------------------------------------------------------------------------------
# SparseToDense
# --------------------------------------------------------------------------------------


def sparse_to_dense(
    sparse_indices: TensorLike,
    output_shape: TensorLike,
    sparse_values: TensorLike,
    default_value: TensorLike = 0,
    validate_indices: bool = True,
    name: str | None = None,
) -> Tensor:
    """A dense tensor of ``output_shape``: ``sparse_values`` at ``sparse_indices``,
    ``default_value`` elsewhere.

    Args:
      sparse_indices: int32/int64, 0-D, 1-D (``[N]``) or 2-D (``[N, rank]``) coordinates.
      output_shape: 1-D shape of the output.
      sparse_values: 0-D (the same value everywhere) or ``[N]`` values.
      default_value: a scalar for the other positions.
      validate_indices: if True, indices must be in range, sorted row-major and unique.
      name: a name for the op.

    Raises (at run time):
      InvalidArgumentError: an index out of range, out of order or repeated.
    """
    with in_graph_of([sparse_indices, output_shape, sparse_values, default_value]):
        values = to_tensor(sparse_values)
        indices = to_tensor(sparse_indices)
        if indices.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(
                "Value passed to parameter 'sparse_indices' has DataType %s not in "
                "list of allowed values: int32, int64" % indices.dtype.name
            )
        shape = to_tensor(output_shape, indices.dtype)
        default = to_tensor(default_value, values.dtype)
        return make(
            "SparseToDense",
            [indices, shape, values, default],
            {"validate_indices": bool(validate_indices)},
            name,
            "SparseToDense",
        )


def _std_infer(op):
    idx, shape, values, default = op.inputs
    if idx.shape.ndims is not None and idx.shape.ndims > 2:
        raise ValueError(
            "sparse_indices should be a scalar, vector, or matrix, got shape %s" % idx.shape
        )
    if default.shape.ndims not in (None, 0):
        raise ValueError("default_value should be a scalar, got shape %s" % default.shape)
    known = constant_value(shape)
    if known is not None:
        out = TensorShape([int(d) for d in np.asarray(known).reshape(-1)])
    elif shape.shape.ndims == 1 and shape.shape.as_list()[0] is not None:
        out = TensorShape([None] * shape.shape.as_list()[0])
    else:
        out = TensorShape(None)
    return [(values.dtype, out)]


def _coords(op, idx, shape):
    """``idx`` as an int64 ``[N, rank]`` matrix, checked against ``shape``."""
    idx = np.asarray(idx, np.int64)
    rank = shape.size
    if idx.ndim == 0:
        idx = idx.reshape(1, 1)
    elif idx.ndim == 1:
        idx = idx.reshape(-1, 1)
    if idx.shape[1] != rank:
        raise errors.InvalidArgumentError(
            None,
            op,
            "sparse_indices has %d columns but output_shape has rank %d" % (idx.shape[1], rank),
        )
    return idx


def check_sparse_indices(op, idx: np.ndarray, shape: np.ndarray, ordered=True):
    """InvalidArgumentError for the first index out of bounds, out of order or repeated
    (TF's wording)."""
    if idx.size == 0:
        return
    bad = np.nonzero(((idx < 0) | (idx >= shape)).any(axis=1))[0]
    if bad.size:
        i = int(bad[0])
        raise errors.InvalidArgumentError(
            None,
            op,
            "indices[%d] = [%s] is out of bounds: need 0 <= index < [%s]"
            % (i, ",".join(map(str, idx[i])), ",".join(map(str, shape))),
        )
    if not ordered or len(idx) < 2:
        return
    a, b = idx[:-1], idx[1:]
    diff = b != a
    first = np.where(diff.any(axis=1), diff.argmax(axis=1), 0)
    rows = np.arange(len(a))
    later = b[rows, first] > a[rows, first]
    same = ~diff.any(axis=1)
    if same.any() or not later[~same].all():
        i = int(np.nonzero(same | ~later)[0][0]) + 1
        what = (
            "repeated"
            if same[i - 1]
            else "out of order. Many sparse ops require "
            "sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy."
        )
        raise errors.InvalidArgumentError(
            None, op, "indices[%d] = [%s] is %s" % (i, ",".join(map(str, idx[i])), what)
        )


def _std_kernel(ctx, op, idx, shape, values, default):
    shape = np.asarray(shape, np.int64).reshape(-1)
    if (shape < 0).any():
        raise errors.InvalidArgumentError(
            None, op, "output_shape has negative entries: [%s]" % ",".join(map(str, shape))
        )
    idx = _coords(op, idx, shape)
    values = np.asarray(values)
    if values.ndim != 0 and values.shape != (len(idx),):
        raise errors.InvalidArgumentError(
            None,
            op,
            "sparse_values has incorrect shape %s, should be [] or [%d]"
            % (list(values.shape), len(idx)),
        )
    if op.attrs["validate_indices"]:
        check_sparse_indices(op, idx, shape)
    else:
        check_sparse_indices(op, idx, shape, ordered=False)
    out = np.full(tuple(shape), np.asarray(default)[()], dtype=values.dtype)
    if idx.size:
        out[tuple(idx.T)] = values
    return (out,)


def _linear(indices, shape, rank: int, keep=None):
    """Row-major positions of int64 ``[N, rank]`` ``indices`` in a dense ``shape``
    (dimensions not in ``keep`` count as size 1, their index as 0)."""
    shape = cast(shape, _dt.int64)
    dims = [shape[i] if keep is None or i in keep else to_tensor(1, _dt.int64) for i in range(rank)]
    strides = stack(
        [
            reduce_prod(stack(dims[i + 1 :])) if i + 1 < rank else to_tensor(1, _dt.int64)
            for i in range(rank)
        ]
    )
    if keep is not None:
        strides = strides * to_tensor([1 if i in keep else 0 for i in range(rank)], _dt.int64)
    return reduce_sum(cast(indices, _dt.int64) * strides, 1)


def _static_rank(t: Tensor, what: str) -> int:
    n = t.shape.as_list()[0] if t.shape.ndims == 1 else None
    if n is None:
        raise LookupError("the gradient of %s needs a statically known rank" % what)
    return n


def _std_grad(op, grad):
    idx, shape, values, default = op.inputs
    rank = _static_rank(shape, "SparseToDense")
    gv = gather(reshape(grad, [-1]), _linear(reshape(idx, [-1, rank]), shape, rank))
    if values.shape.ndims == 0:
        gv = reduce_sum(gv)
    return [None, None, gv, reduce_sum(grad) - reduce_sum(gv)]


register_op("SparseToDense", infer=_std_infer, kernel=_std_kernel, grad=_std_grad)


def sparse_tensor_to_dense(
    sp_input: SparseInput,
    default_value: TensorLike | None = None,
    validate_indices: bool = True,
    name: str | None = None,
) -> Tensor:
    """The dense tensor that ``sp_input`` represents, ``default_value`` (0 or ``b""``)
    where it has no value.

    Raises (at run time):
      InvalidArgumentError: with ``validate_indices``, indices out of range, out of
        row-major order or repeated (``sparse_reorder`` sorts them).
    """
    with in_graph_of([sp_input, default_value]):
        sp = sparse_input(sp_input)
        if default_value is None:
            default_value = b"" if sp.dtype is _dt.string else 0
        out = sparse_to_dense(
            sp.indices, sp.dense_shape, sp.values, default_value, validate_indices, name
        )
        if sp.shape.ndims is not None:
            out.set_shape(sp.shape)
        return out


# --------------------------------------------------------------------------------------
# SparseReorder, SparseReduceSum, retain, concat, fill_empty_rows
# --------------------------------------------------------------------------------------


def sparse_reorder(sp_input: SparseInput, name: str | None = None) -> SparseTensor:
    """``sp_input`` with its entries sorted in row-major order of ``indices``."""
    sp = sparse_input(sp_input)
    op = make_op(
        "SparseReorder", [sp.indices, sp.values, sp.dense_shape], {}, name, "SparseReorder"
    )
    out = SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)
    out._shape = sp.shape
    return out


def row_major(idx: np.ndarray) -> np.ndarray:
    return np.lexsort(idx.T[::-1]) if idx.size else np.arange(len(idx))


def _reorder_kernel(ctx, op, idx, values, shape):
    order = row_major(np.asarray(idx))
    return (np.asarray(idx)[order], np.asarray(values)[order])


def _reorder_grad(op, _grad_indices, grad_values):
    idx, values, shape = op.inputs
    n = size(values, out_type=_dt.int64)
    # Where each input entry went: reorder the entries' own positions.
    perm = make_op(
        "SparseReorder", [idx, _array.range(n), shape], {}, None, "SparseReorder"
    ).outputs[1]
    return [None, unsorted_segment_sum(grad_values, perm, n), None]


register_op(
    "SparseReorder",
    infer=lambda op: [(_dt.int64, op.inputs[0].shape), (op.inputs[1].dtype, op.inputs[1].shape)],
    kernel=_reorder_kernel,
    grad=_reorder_grad,
)


def sparse_reduce_sum(
    sp_input: SparseInput,
    axis: AxisLike = None,
    keepdims: bool | None = None,
    reduction_axes: AxisLike = None,
    keep_dims: bool | None = None,
    name: str | None = None,
) -> Tensor:
    """The sum of ``sp_input``'s values over ``axis`` (all axes if None), as a dense
    tensor; ``keepdims`` keeps reduced axes with size 1."""
    with in_graph_of([sp_input, axis, reduction_axes]):
        sp = sparse_input(sp_input)
        if axis is None:
            axis = reduction_axes
        keepdims = bool(keepdims if keepdims is not None else keep_dims)
        axes = to_tensor(np.zeros([0], np.int32) if axis is None else axis, _dt.int32)
        return make(
            "SparseReduceSum",
            [sp.indices, sp.values, sp.dense_shape, axes],
            {"keep_dims": keepdims, "all": axis is None},
            name,
            "SparseReduceSum",
        )


def reduce_axes(op, axes, rank):
    if op.attrs["all"]:
        return list(range(rank))
    out = []
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(
                "Invalid reduction dimension %d, for input with %d dimensions." % (a, rank)
            )
        out.append(a % rank)
    return sorted(set(out))


def sparse_reduce_infer(op):
    idx, values, shape, axes = op.inputs
    dims = constant_value(shape)
    ax = constant_value(axes)
    if dims is None or (ax is None and not op.attrs["all"]):
        return [(values.dtype, TensorShape(None))]
    dims = [int(d) for d in np.asarray(dims).reshape(-1)]
    red = reduce_axes(op, ax, len(dims))
    keep = op.attrs["keep_dims"]
    out = [1 if i in red else d for i, d in enumerate(dims) if keep or i not in red]
    return [(values.dtype, TensorShape(out))]


def _srs_kernel(ctx, op, idx, values, shape, axes):
    shape = np.asarray(shape, np.int64)
    idx, values = np.asarray(idx, np.int64), np.asarray(values)
    try:
        red = reduce_axes(op, axes, shape.size)
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, str(e)) from None
    kept = [i for i in range(shape.size) if i not in red]
    if kept:
        out = np.zeros(tuple(shape[kept]), values.dtype)
        np.add.at(out, tuple(idx[:, kept].T), values)
    else:
        out = np.asarray(values.sum(dtype=values.dtype))
    if op.attrs["keep_dims"]:
        out = out.reshape([1 if i in red else int(d) for i, d in enumerate(shape)])
    return (out,)


def _srs_grad(op, grad):
    idx, values, shape, axes = op.inputs
    rank = _static_rank(shape, "SparseReduceSum")
    ax = constant_value(axes)
    if ax is None and not op.attrs["all"]:
        raise LookupError("the gradient of SparseReduceSum needs constant axes")
    keep = [i for i in range(rank) if i not in reduce_axes(op, ax, rank)]
    return [None, gather(reshape(grad, [-1]), _linear(idx, shape, rank, keep)), None, None]


register_op("SparseReduceSum", infer=sparse_reduce_infer, kernel=_srs_kernel, grad=_srs_grad)


def sparse_retain(sp_input: SparseInput, to_retain: TensorLike) -> SparseTensor:
    """The entries of ``sp_input`` where the bool vector ``to_retain`` is True."""
    with in_graph_of([sp_input, to_retain]):
        sp = sparse_input(sp_input)
        keep = reshape(where(to_tensor(to_retain, _dt.bool)), [-1])
        out = SparseTensor(gather(sp.indices, keep), gather(sp.values, keep), sp.dense_shape)
        out._shape = sp.shape
        return out


def sparse_concat(
    axis: int,
    sp_inputs: Sequence[SparseInput],
    name: str | None = None,
    expand_nonconcat_dim: bool = False,
    concat_dim: int | None = None,
    expand_nonconcat_dims: bool | None = None,
) -> SparseTensor:
    """Concatenates SparseTensors along ``axis`` (their other dimensions must agree
    unless ``expand_nonconcat_dim``); the result is in row-major order."""
    if concat_dim is not None:
        axis = concat_dim
    expand = bool(
        expand_nonconcat_dims if expand_nonconcat_dims is not None else expand_nonconcat_dim
    )
    sps = [sparse_input(s, "sp_inputs") for s in sp_inputs]
    if not sps:
        raise ValueError("sp_inputs must not be empty")
    inputs = [s.indices for s in sps] + [s.values for s in sps] + [s.dense_shape for s in sps]
    op = make_op(
        "SparseConcat",
        inputs,
        {"concat_dim": int(axis), "N": len(sps), "expand": expand},
        name,
        "SparseConcat",
    )
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


def _concat_kernel(ctx, op, *args):
    n = op.attrs["N"]
    idxs = [np.asarray(a, np.int64) for a in args[:n]]
    vals = [np.asarray(a) for a in args[n : 2 * n]]
    shapes = [np.asarray(a, np.int64) for a in args[2 * n :]]
    rank = shapes[0].size
    ax = op.attrs["concat_dim"]
    if not -rank <= ax < rank:
        raise errors.InvalidArgumentError(
            None, op, "Concat dimension out of range: %d, rank %d" % (ax, rank)
        )
    ax %= rank
    out_shape = shapes[0].copy()
    if op.attrs["expand"]:
        out_shape = np.max(shapes, axis=0)
    for i, s in enumerate(shapes[1:], 1):
        if s.size != rank or (
            not op.attrs["expand"] and (np.delete(s, ax) != np.delete(shapes[0], ax)).any()
        ):
            raise errors.InvalidArgumentError(
                None,
                op,
                "Input shapes must match: expected [%s] for input %d but got [%s]"
                % (",".join(map(str, shapes[0])), i, ",".join(map(str, s))),
            )
    offset, parts = 0, []
    for idx, s in zip(idxs, shapes):
        idx = idx.copy()
        idx[:, ax] += offset
        offset += s[ax]
        parts.append(idx)
    out_shape[ax] = offset
    idx = np.concatenate(parts) if parts else np.zeros([0, rank], np.int64)
    v = np.concatenate(vals)
    order = row_major(idx)
    return (idx[order], v[order], out_shape)


def _concat_grad(op, _gi, grad_values, _gs):
    n = op.attrs["N"]
    idxs, vals, shapes = op.inputs[:n], op.inputs[n : 2 * n], op.inputs[2 * n :]
    sizes = [size(v, out_type=_dt.int64) for v in vals]
    total = add_n(sizes) if n > 1 else sizes[0]
    # Concatenate the entries' own positions to learn where each one went, then send
    # each output gradient back to its entry and cut the result per input.
    positions = make_op(
        "SparseConcat",
        list(idxs) + _split_positions(total, sizes) + list(shapes),
        dict(op.attrs),
        None,
        "SparseConcat",
    ).outputs[1]
    in_order = unsorted_segment_sum(grad_values, positions, total)
    return [None] * n + _split_positions(total, sizes, in_order) + [None] * n


def _split_positions(total, sizes, vector=None):
    """``vector`` (default ``range(total)``) cut into consecutive pieces of ``sizes``."""
    every = _array.range(total) if vector is None else vector
    out, start = [], to_tensor(0, _dt.int64)
    for sz in sizes:
        out.append(_slicing.slice(every, stack([start]), stack([sz])))
        start = start + sz
    return out


register_op(
    "SparseConcat",
    infer=lambda op: [
        (_dt.int64, TensorShape([None, None])),
        (op.inputs[op.attrs["N"]].dtype, TensorShape([None])),
        (_dt.int64, TensorShape([None])),
    ],
    kernel=_concat_kernel,
    grad=_concat_grad,
)


def sparse_fill_empty_rows(
    sp_input: SparseInput, default_value: TensorLike, name: str | None = None
) -> tuple[SparseTensor, Tensor]:
    """``(filled, empty_row_indicator)``: ``sp_input`` (2-D) with ``default_value`` put
    at column 0 of every row that has no entry, and a bool vector of those rows. The
    entries are grouped by row; within a row they keep their order (as TF)."""
    with in_graph_of([sp_input, default_value]):
        sp = sparse_input(sp_input)
        op = make_op(
            "SparseFillEmptyRows",
            [sp.indices, sp.values, sp.dense_shape, to_tensor(default_value, sp.dtype)],
            {},
            name,
            "SparseFillEmptyRows",
        )
        out = SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)
        out._shape = sp.shape
        return out, op.outputs[2]  # outputs[3]: where each input entry went (for gradients)


def _fill_kernel(ctx, op, idx, values, shape, default):
    idx, values, shape = np.asarray(idx, np.int64), np.asarray(values), np.asarray(shape)
    if shape.size != 2:
        raise errors.InvalidArgumentError(
            None, op, "sp_input must be 2-D, got dense_shape [%s]" % ",".join(map(str, shape))
        )
    empty = np.ones(int(shape[0]), bool)
    empty[idx[:, 0]] = False
    rows = np.nonzero(empty)[0]
    add = np.stack([rows, np.zeros_like(rows)], axis=1).astype(np.int64)
    idx = np.concatenate([idx, add])
    values = np.concatenate([values, np.full(len(rows), np.asarray(default)[()], values.dtype)])
    # TF groups the entries by row (a stable sort): within a row they keep their order.
    order = np.argsort(idx[:, 0], kind="stable")
    where_now = np.empty(len(order), np.int64)
    where_now[order] = np.arange(len(order))
    n_in = len(idx) - len(rows)
    return (idx[order], values[order], empty, where_now[:n_in])


def _fill_grad(op, _gi, grad_values, _ge, _gr):
    reverse = op.outputs[3]
    gv = gather(grad_values, reverse)
    return [None, gv, None, reduce_sum(grad_values) - reduce_sum(gv)]


register_op(
    "SparseFillEmptyRows",
    infer=lambda op: [
        (_dt.int64, TensorShape([None, 2])),
        (op.inputs[1].dtype, TensorShape([None])),
        (_dt.bool, TensorShape([None])),
        (_dt.int64, TensorShape([None])),
    ],
    kernel=_fill_kernel,
    grad=_fill_grad,
)


# --------------------------------------------------------------------------------------
# SparseTensorDenseMatMul
# --------------------------------------------------------------------------------------


def sparse_tensor_dense_matmul(
    sp_a: SparseInput,
    b: TensorLike,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    name: str | None = None,
) -> Tensor:
    """``sp_a @ b`` for a 2-D SparseTensor ``sp_a`` and a dense matrix ``b`` (with
    ``adjoint_a``/``adjoint_b`` transposing them first); duplicates add up."""
    with in_graph_of([sp_a, b]):
        sp = sparse_input(sp_a, "sp_a")
        b = to_tensor(b, sp.dtype)
        return make(
            "SparseTensorDenseMatMul",
            [sp.indices, sp.values, sp.dense_shape, b],
            {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)},
            name,
            "SparseTensorDenseMatMul",
        )


def _stdmm_infer(op):
    idx, values, shape, b = op.inputs
    if b.shape.ndims not in (None, 2):
        raise ValueError("Shape must be rank 2 but is rank %d for b" % b.shape.ndims)
    dims = constant_value(shape)
    rows = None
    if dims is not None:
        d = [int(v) for v in np.asarray(dims).reshape(-1)]
        rows = d[1] if op.attrs["adjoint_a"] else d[0]
    cols = None
    if b.shape.ndims == 2:
        cols = b.shape.as_list()[0 if op.attrs["adjoint_b"] else 1]
    return [(values.dtype, TensorShape([rows, cols]))]


def _stdmm_kernel(ctx, op, idx, values, shape, b):
    idx, values, shape, b = (
        np.asarray(idx, np.int64),
        np.asarray(values),
        np.asarray(shape, np.int64),
        np.asarray(b),
    )
    if shape.size != 2:
        raise errors.InvalidArgumentError(None, op, "Tensor 'a_shape' is not a vector of length 2")
    rows, inner = (shape[1], shape[0]) if op.attrs["adjoint_a"] else (shape[0], shape[1])
    r, c = (idx[:, 1], idx[:, 0]) if op.attrs["adjoint_a"] else (idx[:, 0], idx[:, 1])
    if op.attrs["adjoint_b"]:
        b = b.T
    if b.shape[0] != inner:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Cannot multiply A and B because inner dimension does not match: "
            "%d vs. %d" % (inner, b.shape[0]),
        )
    check_sparse_indices(op, idx, shape, ordered=False)
    out = np.zeros((int(rows), b.shape[1]), dtype=np.result_type(values, b))
    np.add.at(out, r, values[:, None] * b[c])
    return (out,)


def _stdmm_grad(op, grad):
    idx, values, shape, b = op.inputs
    adj_a, adj_b = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    sp = SparseTensor(idx, values, shape)
    # d(b): A^T grad (transposed back when b was used transposed).
    gb = sparse_tensor_dense_matmul(sp, grad, adjoint_a=not adj_a)
    if adj_b:
        gb = make("Transpose", [gb, to_tensor([1, 0], _dt.int32)], None, None, "Transpose")
    # d(values[k]) = sum_j grad[row_k, j] * b_used[col_k, j]
    rows = gather(
        make("Transpose", [idx, to_tensor([1, 0], _dt.int32)], None, None, "Transpose"),
        1 if adj_a else 0,
    )
    cols = gather(
        make("Transpose", [idx, to_tensor([1, 0], _dt.int32)], None, None, "Transpose"),
        0 if adj_a else 1,
    )
    b_used = (
        make("Transpose", [b, to_tensor([1, 0], _dt.int32)], None, None, "Transpose")
        if adj_b
        else b
    )
    gv = make(
        "Sum",
        [gather(grad, rows) * gather(b_used, cols), to_tensor(1, _dt.int32)],
        {"keep_dims": False},
        None,
        "Sum",
    )
    return [None, gv, None, gb]


register_op("SparseTensorDenseMatMul", infer=_stdmm_infer, kernel=_stdmm_kernel, grad=_stdmm_grad)


# --------------------------------------------------------------------------------------
# string_split
# --------------------------------------------------------------------------------------


def string_split(
    source: TensorLike,
    sep: str | None = None,
    skip_empty: bool = True,
    delimiter: str | None = None,
    result_type: str = "SparseTensor",
    name: str | None = None,
) -> SparseTensor:
    """Splits each string of the vector ``source`` into tokens: a ``SparseTensor`` with
    ``indices[i] = [row, position]`` and ``dense_shape = [rows, most tokens]``.

    Args:
      source: a 1-D string tensor.
      sep: the delimiter characters (each one splits); ``""`` splits into single bytes.
        Default ``" "``.
      skip_empty: drop empty tokens.
      delimiter: the deprecated name of ``sep``.
      result_type: ``"SparseTensor"``.
      name: a name for the op.

    Raises:
      NotImplementedError: for ``result_type="RaggedTensor"`` (flowrt has no
        RaggedTensor).
    """
    with in_graph_of([source, delimiter]):
        if sep is not None and delimiter is not None:
            raise ValueError("Cannot specify both 'sep' and 'delimiter'")
        sep = sep if sep is not None else (delimiter if delimiter is not None else " ")
        if result_type == "RaggedTensor":
            raise NotImplementedError(
                "string_split: result_type='RaggedTensor' is not supported (flowrt has no "
                "RaggedTensor); use result_type='SparseTensor'"
            )
        if result_type != "SparseTensor":
            raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
        src = to_tensor(source, _dt.string)
        if src.shape.ndims not in (None, 1):
            raise ValueError("Shape must be rank 1 but is rank %d for 'source'" % src.shape.ndims)
        op = make_op(
            "StringSplit",
            [src, to_tensor(sep, _dt.string)],
            {"skip_empty": bool(skip_empty)},
            name,
            "StringSplit",
        )
        return SparseTensor(*op.outputs)


def _split_one(s: bytes, delims: bytes, skip_empty: bool) -> list:
    if not s:
        return []  # TF: an empty string has no tokens, even with skip_empty=False
    if not delims:
        return [s[i : i + 1] for i in range(len(s))]
    if len(delims) == 1:
        toks = s.split(delims)
    else:
        toks, start = [], 0
        for i, ch in enumerate(s):
            if ch in delims:
                toks.append(s[start:i])
                start = i + 1
        toks.append(s[start:])
    return [t for t in toks if t] if skip_empty else toks


def _string_split_kernel(ctx, op, src, sep):
    src = np.asarray(src, dtype=object)
    if src.ndim != 1:
        raise errors.InvalidArgumentError(
            None, op, "input must be a vector, got shape: %s" % list(src.shape)
        )
    delims = bytes(np.asarray(sep, dtype=object)[()])
    rows, cols, vals, width = [], [], [], 0
    for r, s in enumerate(src):
        toks = _split_one(bytes(s), delims, op.attrs["skip_empty"])
        width = max(width, len(toks))
        rows.extend([r] * len(toks))
        cols.extend(range(len(toks)))
        vals.extend(toks)
    idx = (
        np.stack([np.array(rows, np.int64), np.array(cols, np.int64)], axis=1)
        if rows
        else np.zeros([0, 2], np.int64)
    )
    values = np.empty(len(vals), dtype=object)
    values[:] = vals
    return (idx, values, np.array([len(src), width], np.int64))


register_op(
    "StringSplit",
    infer=lambda op: [
        (_dt.int64, TensorShape([None, 2])),
        (_dt.string, TensorShape([None])),
        (_dt.int64, TensorShape([2])),
    ],
    kernel=_string_split_kernel,
    grad=NOT_DIFFERENTIABLE,
)
