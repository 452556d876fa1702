"""``fr.TensorArray``: a list of tensors carried by a ``variant`` flow tensor.

Representation: as TF2's graph TensorArray (a TensorList), a TensorArray is its *flow*,
a scalar ``variant`` tensor whose value is an immutable :class:`TensorArrayValue`. A
write or scatter returns a new value (the old one is untouched), so a ``while_loop``
that records an iteration's flow for its gradient never sees a later write, the loop
carries a TensorArray as one more loop variable, and ops over flows prune, cache and
run like any op. TF1's resource semantics are kept on top: writing an index twice,
reading an unwritten index (unless the element shape is fully known: zeros), writing
past a fixed size, and reading again an element cleared by ``clear_after_read`` raise
TF1's errors naming the TensorArray. The read marks live in a set shared by the values
of one TensorArray in one run (TF1 clears the element in its one resource).

Gradients: the gradient of a flow is a flow too, a value holding one gradient per index
(None where zero). Reads, gathers and concats give a gradient value with their
incoming gradients at the indices they read; gradient values add (``AddN``), so several
reads of one TensorArray sum. Writes, scatters and splits take their value's gradient
from the gradient value at the indices they wrote and clear those indices for the
earlier flow. Each rule is one op; the gradient ops have no gradient of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Operation, Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, unknown_shape
from . import array_ops, math_ops
from .common import make, make_op, op_scope
from .const_eval import static_value
from .while_ops import variant

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, ShapeLike, TensorLike

__all__ = ["TensorArray", "TensorArrayValue"]


# --------------------------------------------------------------------------------------
# The value a flow carries
# --------------------------------------------------------------------------------------


class TensorArrayValue:
    """One immutable state of a TensorArray (or of its gradient).

    ``elems`` holds a numpy array per index, None where unwritten (zero in a gradient).
    ``shape`` is the runtime element shape when known (the declared one, else learned
    from the first write when shapes are inferred).
    """

    __slots__ = ("name", "np_dtype", "elems", "dynamic", "clear_after_read", "shape", "reads")

    def __init__(self, name, np_dtype, elems, dynamic, clear_after_read, shape, reads):
        self.name = name
        self.np_dtype = np_dtype
        self.elems = elems
        self.dynamic = dynamic
        self.clear_after_read = clear_after_read
        self.shape = shape
        self.reads = reads

    def replace(self, elems, shape=None) -> TensorArrayValue:
        return TensorArrayValue(
            self.name,
            self.np_dtype,
            tuple(elems),
            self.dynamic,
            self.clear_after_read,
            self.shape if shape is None else shape,
            self.reads,
        )

    def __add__(self, other: Any) -> TensorArrayValue:
        other = as_grad(other)
        if other is None:
            return self
        n = max(len(self.elems), len(other.elems))
        a = self.elems + (None,) * (n - len(self.elems))
        b = other.elems + (None,) * (n - len(other.elems))
        return self.replace(x if y is None else y if x is None else x + y for x, y in zip(a, b))

    __radd__ = __add__

    def __repr__(self) -> str:
        return "<TensorArrayValue %s: %d elements>" % (self.name, len(self.elems))


def as_grad(x: Any) -> TensorArrayValue | None:
    """A gradient flow's value, or None for a zero gradient (``ZerosLike`` of a flow)."""
    if isinstance(x, np.ndarray) and x.dtype == object and x.shape == ():
        x = x.item()
    return x if isinstance(x, TensorArrayValue) else None


def _grad_value(like: TensorArrayValue, elems) -> TensorArrayValue:
    return TensorArrayValue(
        like.name + "/grad", like.np_dtype, tuple(elems), True, False, None, set()
    )


def _fail(op, v: TensorArrayValue, msg: str) -> NoReturn:
    raise errors.InvalidArgumentError(None, op, "TensorArray %s: %s" % (v.name, msg))


def _shape_str(shape) -> str:
    if shape is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape)


def _read_one(op, v: TensorArrayValue, i: int, static_shape) -> np.ndarray:
    n = len(v.elems)
    if i < 0 or i >= n:
        raise errors.InvalidArgumentError(
            None, op, "Tried to read from index %d but array size is: %d" % (i, n)
        )
    if i in v.reads:
        _fail(
            op,
            v,
            "Could not read index %d twice because it was cleared after a previous read "
            "(perhaps try setting clear_after_read = false?)." % i,
        )
    x = v.elems[i]
    if v.clear_after_read:
        v.reads.add(i)
    if x is not None:
        return x
    shape = v.shape if v.shape is not None else static_shape
    if shape is not None and all(d is not None for d in shape):
        return np.zeros(shape, v.np_dtype)
    _fail(
        op,
        v,
        "Could not read from TensorArray index %d.  Furthermore, the element shape is not "
        "fully defined: %s.  It is possible you are working with a resizeable TensorArray "
        "and stop_gradients is not allowing the gradients to be written.  If you set the "
        "full element_shape property on the forward TensorArray, the proper all-zeros "
        "tensor will be returned instead of incurring this error." % (i, _shape_str(shape)),
    )


def _write_many(
    op, v: TensorArrayValue, items, infer_shape: bool, grow: bool = False
) -> TensorArrayValue:
    elems = list(v.elems)
    shape = v.shape
    for i, x in items:
        if i < 0:
            _fail(op, v, "Tried to write to index %d but array size is: %d" % (i, len(elems)))
        if i >= len(elems):
            if not (v.dynamic or grow):
                _fail(
                    op,
                    v,
                    "Tried to write to index %d but array is not resizeable and size is: %d"
                    % (i, len(elems)),
                )
            elems.extend([None] * (i + 1 - len(elems)))
        if i in v.reads:
            msg = "Could not write to TensorArray index %d because it has already been read."
            _fail(op, v, msg % i)
        if elems[i] is not None:
            _fail(
                op,
                v,
                "Could not write to TensorArray index %d because it has already been "
                "written to." % i,
            )
        x = np.asarray(x, v.np_dtype)
        if infer_shape:
            if shape is not None and not _shape_fits(x.shape, shape):
                _fail(
                    op,
                    v,
                    "Could not write to TensorArray index %d because the value shape is %s "
                    "which is incompatible with the TensorArray's inferred element shape: "
                    "%s (consider setting infer_shape=False)."
                    % (i, _shape_str(x.shape), _shape_str(shape)),
                )
            shape = x.shape
        elems[i] = x
    return v.replace(elems, shape)


def _shape_fits(actual, declared) -> bool:
    return len(actual) == len(declared) and all(
        d is None or d == a for a, d in zip(actual, declared)
    )


def _stack(op, v: TensorArrayValue, parts, static_shape) -> np.ndarray:
    if not parts:
        shape = v.shape if v.shape is not None else static_shape
        if shape is None or any(d is None for d in shape):
            raise errors.UnimplementedError(
                None,
                op,
                "TensorArray has size zero, but element shape %s is not fully defined. "
                "Currently only static shapes are supported when packing zero-size "
                "TensorArrays." % _shape_str(shape),
            )
        return np.zeros((0, *shape), v.np_dtype)
    first = parts[0].shape
    for k, p in enumerate(parts):
        if p.shape != first:
            _fail(
                op,
                v,
                "Could not stack elements: index 0 has shape %s but element %d has shape %s"
                % (_shape_str(first), k, _shape_str(p.shape)),
            )
    return np.stack(parts)


def _indices(x) -> list[int]:
    return [int(i) for i in np.asarray(x).reshape(-1)]


# --------------------------------------------------------------------------------------
# Kernels, shape rules and gradients, one block per op
# --------------------------------------------------------------------------------------


def _elem_static(op):
    """The element shape an op was built with, as a tuple with None dims, or None."""
    s = op.attrs["element_shape"]
    return None if s.ndims is None else tuple(s.as_list())


def _flow_spec(op):
    return [(variant, TensorShape([]))]


def _create_kernel(ctx, op, size):
    a = op.attrs
    n = int(size)
    if n < 0:
        raise errors.InvalidArgumentError(None, op, "Size should be >= 0, got %d" % n)
    shape = _elem_static(op)
    if shape is not None and any(d is None for d in shape):
        shape = None
    v = TensorArrayValue(
        a["tensor_array_name"] or op.name,
        a["dtype"].np,
        (None,) * n,
        a["dynamic_size"],
        a["clear_after_read"],
        shape,
        set(),
    )
    return (v,)


register_op(
    "TensorArrayV3",
    infer=_flow_spec,
    kernel=_create_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _write_kernel(ctx, op, flow, index, value):
    # A write past the end grows the array when the array has a dynamic size or the
    # write says so (``_dynamic_size``: an imported TensorList write that resizes).
    grow = op.attrs.get("_dynamic_size", False)
    return (_write_many(op, flow, [(int(index), value)], op.attrs["infer_shape"], grow),)


def _write_grad(op, dflow):
    dflow_in, dvalue = make_op("TensorArrayWriteGrad", [dflow, op.inputs[1], op.inputs[2]]).outputs
    return [dflow_in, None, dvalue]


def _write_grad_kernel(ctx, op, dflow, index, value):
    g = as_grad(dflow)
    i = int(index)
    if g is None or i >= len(g.elems) or g.elems[i] is None:
        return dflow, np.zeros_like(value)
    elems = list(g.elems)
    dv = elems[i]
    elems[i] = None
    return g.replace(elems), dv


register_op(
    "TensorArrayWriteV3", infer=_flow_spec, kernel=_write_kernel, grad=_write_grad, stateful=True
)
register_op(
    "TensorArrayWriteGrad",
    infer=lambda op: [(variant, TensorShape([])), (op.inputs[2].dtype, op.inputs[2].shape)],
    kernel=_write_grad_kernel,
)


def _read_infer(op):
    return [(op.attrs["dtype"], op.attrs["element_shape"])]


def _read_kernel(ctx, op, flow, index):
    return (_read_one(op, flow, int(index), _elem_static(op)),)


def _read_grad(op, dvalue):
    return [make("TensorArrayReadGrad", [op.inputs[0], op.inputs[1], dvalue]), None]


def _read_grad_kernel(ctx, op, flow, index, dvalue):
    elems: list[Any] = [None] * len(flow.elems)
    elems[int(index)] = np.asarray(dvalue)
    return (_grad_value(flow, elems),)


register_op(
    "TensorArrayReadV3", infer=_read_infer, kernel=_read_kernel, grad=_read_grad, stateful=True
)
register_op("TensorArrayReadGrad", infer=_flow_spec, kernel=_read_grad_kernel)


def _gather_infer(op):
    n = op.inputs[1].shape.num_elements() if op.inputs[1].shape.ndims == 1 else None
    if op.attrs.get("_static_size") is not None:
        n = op.attrs["_static_size"]
    return [(op.attrs["dtype"], TensorShape([n]).concatenate(op.attrs["element_shape"]))]


def _gather_kernel(ctx, op, flow, indices):
    static = _elem_static(op)
    return (_stack(op, flow, [_read_one(op, flow, i, static) for i in _indices(indices)], static),)


def _gather_grad(op, dvalue):
    return [make("TensorArrayGatherGrad", [op.inputs[0], op.inputs[1], dvalue]), None]


def _gather_grad_kernel(ctx, op, flow, indices, dvalue):
    elems: list[Any] = [None] * len(flow.elems)
    for k, i in enumerate(_indices(indices)):
        elems[i] = dvalue[k] if elems[i] is None else elems[i] + dvalue[k]
    return (_grad_value(flow, elems),)


register_op(
    "TensorArrayGatherV3",
    infer=_gather_infer,
    kernel=_gather_kernel,
    grad=_gather_grad,
    stateful=True,
)
register_op("TensorArrayGatherGrad", infer=_flow_spec, kernel=_gather_grad_kernel)


def _scatter_kernel(ctx, op, flow, indices, value):
    idx = _indices(indices)
    value = np.asarray(value)
    if value.ndim == 0 or value.shape[0] != len(idx):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected len(indices) == values.shape[0], but saw: %d vs. %s"
            % (len(idx), value.shape[0] if value.ndim else "a scalar"),
        )
    grow = op.attrs.get("_dynamic_size", False)  # TF's TensorListScatterIntoExistingList
    if idx and not (flow.dynamic or grow) and max(idx) >= len(flow.elems):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Max scatter index must be < array size (%d vs. %d)" % (max(idx), len(flow.elems)),
        )
    return (_write_many(op, flow, list(zip(idx, value)), op.attrs["infer_shape"], grow),)


def _scatter_grad(op, dflow):
    dflow_in, dvalue = make_op(
        "TensorArrayScatterGrad", [dflow, op.inputs[1], op.inputs[2]]
    ).outputs
    return [dflow_in, None, dvalue]


def _scatter_grad_kernel(ctx, op, dflow, indices, value):
    g = as_grad(dflow)
    value = np.asarray(value)
    out = np.zeros_like(value)
    if g is None:
        return dflow, out
    elems = list(g.elems)
    for k, i in enumerate(_indices(indices)):
        if i < len(elems) and elems[i] is not None:
            out[k] = elems[i]
            elems[i] = None
    return g.replace(elems), out


register_op(
    "TensorArrayScatterV3",
    infer=_flow_spec,
    kernel=_scatter_kernel,
    grad=_scatter_grad,
    stateful=True,
)
register_op(
    "TensorArrayScatterGrad",
    infer=lambda op: [(variant, TensorShape([])), (op.inputs[2].dtype, op.inputs[2].shape)],
    kernel=_scatter_grad_kernel,
)


def _concat_infer(op):
    s = op.attrs["element_shape"]
    rest = unknown_shape() if s.ndims is None else TensorShape([None]).concatenate(s[1:])
    return [(op.attrs["dtype"], rest), (_dt.int64, TensorShape([None]))]


def _concat_kernel(ctx, op, flow):
    static = _elem_static(op)
    parts = [_read_one(op, flow, i, static) for i in range(len(flow.elems))]
    for k, p in enumerate(parts):
        if p.ndim == 0:
            msg = "Concat saw a scalar shape at index %d but requires at least vectors."
            _fail(op, flow, msg % k)
    lengths = np.array([p.shape[0] for p in parts], np.int64)
    if not parts:
        shape = static if static is not None else (0,)
        return np.zeros((0, *shape[1:]), flow.np_dtype), lengths
    return np.concatenate(parts), lengths


def _concat_grad(op, dvalue, dlengths):
    return [make("TensorArrayConcatGrad", [op.inputs[0], op.outputs[1], dvalue])]


def _concat_grad_kernel(ctx, op, flow, lengths, dvalue):
    cuts = np.cumsum(np.asarray(lengths))[:-1]
    return (_grad_value(flow, np.split(np.asarray(dvalue), cuts)),)


register_op(
    "TensorArrayConcatV3",
    infer=_concat_infer,
    kernel=_concat_kernel,
    grad=_concat_grad,
    stateful=True,
)
register_op("TensorArrayConcatGrad", infer=_flow_spec, kernel=_concat_grad_kernel)


def _split_kernel(ctx, op, flow, value, lengths):
    value = np.asarray(value)
    lens = [int(n) for n in np.asarray(lengths).reshape(-1)]
    if value.ndim == 0 or sum(lens) != value.shape[0]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
            "%d and value's shape is: %s" % (sum(lens), _shape_str(value.shape)),
        )
    if not flow.dynamic and len(lens) != len(flow.elems):
        raise errors.InvalidArgumentError(
            None,
            op,
            "TensorArray's size is not equal to the size of lengths (%d vs. %d), and the "
            "TensorArray is not marked as dynamically resizeable" % (len(flow.elems), len(lens)),
        )
    parts = np.split(value, np.cumsum(lens)[:-1])
    return (_write_many(op, flow, list(enumerate(parts)), op.attrs["infer_shape"]),)


def _split_grad(op, dflow):
    dflow_in, dvalue = make_op("TensorArraySplitGrad", [dflow, op.inputs[1], op.inputs[2]]).outputs
    return [dflow_in, dvalue, None]


def _split_grad_kernel(ctx, op, dflow, value, lengths):
    g = as_grad(dflow)
    value = np.asarray(value)
    lens = [int(n) for n in np.asarray(lengths).reshape(-1)]
    zeros = np.split(np.zeros_like(value), np.cumsum(lens)[:-1])
    if g is None:
        return dflow, np.zeros_like(value)
    elems = list(g.elems)
    parts = []
    for i, z in enumerate(zeros):
        have = i < len(elems) and elems[i] is not None
        parts.append(elems[i] if have else z)
        if have:
            elems[i] = None
    return g.replace(elems), np.concatenate(parts)


register_op(
    "TensorArraySplitV3", infer=_flow_spec, kernel=_split_kernel, grad=_split_grad, stateful=True
)
register_op(
    "TensorArraySplitGrad",
    infer=lambda op: [(variant, TensorShape([])), (op.inputs[1].dtype, op.inputs[1].shape)],
    kernel=_split_grad_kernel,
)

register_op(
    "TensorArraySizeV3",
    infer=lambda op: [(_dt.int32, TensorShape([]))],
    kernel=lambda ctx, op, flow: (np.int32(len(flow.elems)),),
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)
register_op(
    "TensorArrayCloseV3",
    infer=lambda op: [],
    kernel=lambda ctx, op, flow: (),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


# --------------------------------------------------------------------------------------
# The TF1 class
# --------------------------------------------------------------------------------------


class TensorArray:
    """A list of tensors of one dtype, written and read by index (TF1 ``tf.TensorArray``).

    Args:
      dtype: the element dtype.
      size: the number of elements (int32 scalar); required unless ``flow`` is given.
      dynamic_size: if True, writes past the end grow the array.
      clear_after_read: if True (default), reading an element clears it, so a second
        read of it is an error (default True).
      tensor_array_name: the name errors give the array (default: the op's name).
      handle: not supported (TF's resource handle; always None here).
      flow: an existing flow tensor to wrap (what ``while_loop`` does).
      infer_shape: if True (default), all elements must have one shape, learned from
        ``element_shape`` or the first write.
      element_shape: the shape of every element, if known.
      colocate_with_first_write_call: accepted for compatibility.
      name: the name of the creating op (default ``TensorArray``).

    Note (flowrt): a TensorArray is its ``flow``, a ``variant`` scalar tensor holding an
    immutable value, as TF2's graph TensorArray; ``handle`` is None. Writes return a
    new TensorArray and leave this one's value unchanged; use the returned one, as in
    TF1. TF1's resource errors (second write, unwritten read, cleared read, write past a
    fixed size) are kept, naming the array by its op's name.
    """

    def __init__(
        self,
        dtype: DTypeLike,
        size: TensorLike | None = None,
        dynamic_size: bool | None = None,
        clear_after_read: bool | None = None,
        tensor_array_name: str | None = None,
        handle: Any = None,
        flow: Tensor | None = None,
        infer_shape: bool = True,
        element_shape: ShapeLike = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ) -> None:
        if handle is not None:
            raise ValueError(
                "TensorArray 'handle' is not supported: pass 'flow' (a TensorArray's flow)."
            )
        if flow is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both a flow and size at the same time")
        if clear_after_read is None:
            clear_after_read = True
        self._dtype = _dt.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = bool(clear_after_read)
        self._infer_shape = infer_shape
        # Shared by every TensorArray derived from this one (writes, loop bodies), so a
        # shape learned inside a while_loop body is known after the loop (TF1's list).
        self._element_shape = [as_shape(element_shape)]
        self._static_size: int | None = None
        if flow is not None:
            flow = convert_to_tensor(flow)
            if flow.dtype is not variant:
                raise TypeError("TensorArray flow must be a variant tensor, got %s" % flow)
            self._flow = flow
            return
        with op_scope([size], name, "TensorArray") as scope:
            size_t = convert_to_tensor(size, dtype=_dt.int32, name="size")
            attrs = {
                "dtype": self._dtype,
                "element_shape": self._element_shape[0],
                "dynamic_size": self._dynamic_size,
                "clear_after_read": self._clear_after_read,
                "identical_element_shapes": infer_shape,
                "tensor_array_name": tensor_array_name or "",
            }
            self._flow = make_op("TensorArrayV3", [size_t], attrs, scope[:-1] + "/").outputs[0]
        sv = static_value(size_t)
        if sv is not None and not self._dynamic_size:
            self._static_size = int(sv)

    # -- properties --------------------------------------------------------------------

    @property
    def flow(self) -> Tensor:
        """The flow tensor (a scalar ``variant``) carrying this array's value."""
        return self._flow

    @property
    def handle(self) -> None:
        """None: flowrt TensorArrays have no resource handle (see the class Note)."""
        return None

    @property
    def dtype(self) -> _dt.DType:
        """The element dtype."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        """The static shape of every element (as known so far)."""
        return self._element_shape[0]

    def _derive(self, flow: Tensor) -> TensorArray:
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._flow = flow
        return ta

    def _with_flow(self, flow: Tensor) -> TensorArray:
        """This array's static facts around another flow (a while_loop variable)."""
        return self._derive(flow)

    def _merge_element_shape(self, shape: TensorShape) -> None:
        if not self._infer_shape:
            return
        if not shape.is_compatible_with(self._element_shape[0]):
            raise ValueError(
                "Inconsistent shapes: saw %s but expected %s "
                % (_py_shape(shape), _py_shape(self._element_shape[0]))
            )
        self._element_shape[0] = self._element_shape[0].merge_with(shape)

    def _value(self, value: TensorLike, what: str) -> Tensor:
        """``value`` as a tensor of this array's dtype (Python numbers convert)."""
        if not isinstance(value, Tensor) and not hasattr(value, "_as_tensor"):
            try:
                return convert_to_tensor(value, dtype=self._dtype, name="value")
            except (TypeError, ValueError):
                pass
        t = convert_to_tensor(value, name="value")
        if t.dtype is not self._dtype:
            raise TypeError(
                "TensorArray %s: %s value has dtype %s, but the TensorArray holds %s"
                % (self._flow.op.name, what, t.dtype.name, self._dtype.name)
            )
        return t

    def _attrs(self) -> dict:
        return {"dtype": self._dtype, "element_shape": self._element_shape[0]}

    # -- writes ------------------------------------------------------------------------

    def write(self, index: TensorLike, value: TensorLike, name: str | None = None) -> TensorArray:
        """Returns a TensorArray with ``value`` written at ``index``."""
        with op_scope([self._flow, index, value], name, "TensorArrayWrite"):
            value = self._value(value, "write")
            index = convert_to_tensor(index, dtype=_dt.int32, name="index")
            self._merge_element_shape(value.shape)
            # ``_dynamic_size``: TF's list grows on such a write (``TensorListSetItem``).
            attrs = {"infer_shape": self._infer_shape, "_dynamic_size": self._dynamic_size}
            flow = make("TensorArrayWriteV3", [self._flow, index, value], attrs)
        return self._derive(flow)

    def scatter(
        self, indices: TensorLike, value: TensorLike, name: str | None = None
    ) -> TensorArray:
        """Returns a TensorArray with ``value[k]`` written at ``indices[k]``."""
        with op_scope([self._flow, indices, value], name, "TensorArrayScatter"):
            value = self._value(value, "scatter")
            indices = convert_to_tensor(indices, dtype=_dt.int32, name="indices")
            if value.shape.ndims is not None and value.shape.ndims > 0:
                self._merge_element_shape(value.shape[1:])
            attrs = {"infer_shape": self._infer_shape}
            flow = make("TensorArrayScatterV3", [self._flow, indices, value], attrs)
        return self._derive(flow)

    def unstack(self, value: TensorLike, name: str | None = None) -> TensorArray:
        """Returns a TensorArray holding the slices of ``value`` along axis 0."""
        with op_scope([self._flow, value], name, "TensorArrayUnstack"):
            value = self._value(value, "unstack")
            n = array_ops.shape(value)[0]
            return self.scatter(array_ops.range(0, n), value, name="TensorArrayScatter")

    def split(self, value: TensorLike, lengths: TensorLike, name: str | None = None) -> TensorArray:
        """Returns a TensorArray holding ``value`` cut along axis 0 into ``lengths``."""
        with op_scope([self._flow, value, lengths], name, "TensorArraySplit"):
            value = self._value(value, "split")
            lengths = math_ops.cast(convert_to_tensor(lengths, name="lengths"), _dt.int64)
            attrs = {"infer_shape": self._infer_shape}
            flow = make("TensorArraySplitV3", [self._flow, value, lengths], attrs)
        return self._derive(flow)

    # -- reads -------------------------------------------------------------------------

    def read(self, index: TensorLike, name: str | None = None) -> Tensor:
        """The element at ``index``."""
        index = convert_to_tensor(index, dtype=_dt.int32, name="index")
        return make(
            "TensorArrayReadV3", [self._flow, index], self._attrs(), name, "TensorArrayReadV3"
        )

    def gather(self, indices: TensorLike, name: str | None = None) -> Tensor:
        """The elements at ``indices``, stacked."""
        indices = convert_to_tensor(indices, dtype=_dt.int32, name="indices")
        return make(
            "TensorArrayGatherV3",
            [self._flow, indices],
            self._attrs(),
            name,
            "TensorArrayGatherV3",
        )

    def stack(self, name: str | None = None) -> Tensor:
        """All elements stacked along a new axis 0."""
        with op_scope([self._flow], name, "TensorArrayStack"):
            attrs = dict(self._attrs(), _static_size=self._static_size)
            idx = array_ops.range(0, self.size())
            return make("TensorArrayGatherV3", [self._flow, idx], attrs)

    def concat(self, name: str | None = None) -> Tensor:
        """All elements concatenated along axis 0."""
        return make(
            "TensorArrayConcatV3", [self._flow], self._attrs(), name, "TensorArrayConcatV3"
        )[0]

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements (an int32 scalar)."""
        return make("TensorArraySizeV3", [self._flow], None, name, "TensorArraySizeV3")

    def identity(self) -> TensorArray:
        """A TensorArray whose flow is an ``Identity`` of this one's."""
        return self._derive(array_ops.identity(self._flow))

    def close(self, name: str | None = None) -> Operation:
        """An op that closes the array (TF1 frees its resource; here it does nothing)."""
        return make_op("TensorArrayCloseV3", [self._flow], None, name, "TensorArrayCloseV3")

    def grad(self, source: str, flow: Tensor | None = None, name: str | None = None) -> NoReturn:
        """Not supported: flowrt differentiates TensorArrays through ``fr.gradients``."""
        raise NotImplementedError(
            "TensorArray.grad is not supported: take gradients with fr.gradients, which "
            "differentiates reads and writes of a TensorArray."
        )


def _py_shape(s: TensorShape) -> str:
    if s.ndims is None:
        return "<unknown>"
    return str(tuple(s.as_list()))
