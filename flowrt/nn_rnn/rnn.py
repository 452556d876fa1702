"""TF1's RNN drivers: ``static_rnn``, ``dynamic_rnn``, ``bidirectional_dynamic_rnn``.

``static_rnn`` unrolls the cell once per input in Python; ``dynamic_rnn`` runs it in a
``while_loop`` over TensorArrays of the (time-major) inputs and outputs, as TF1 builds
it. With ``sequence_length``, steps at or past a row's length give zero outputs and
leave that row's state as it was (TF1's ``_rnn_step``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .. import nest
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.shape import TensorShape
from ..ops import array_ops, indexing_ops, math_ops, slicing_ops
from ..ops.control_flow_ops import structure_error
from ..ops.tensor_array_ops import TensorArray
from ..ops.while_ops import while_loop
from ..var_scope import variable_scope
from .rnn_cell import RNNCell, _zeros

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "static_rnn",
    "static_bidirectional_rnn",
    "dynamic_rnn",
    "bidirectional_dynamic_rnn",
]


def _check_cell(cell: Any, name: str = "cell") -> None:
    if not isinstance(cell, RNNCell) and not (
        hasattr(cell, "state_size") and hasattr(cell, "output_size") and callable(cell)
    ):
        raise TypeError("%s must be an instance of RNNCell" % name)


def _batch_size(flat: list[Tensor], axis: int) -> Any:
    for t in flat:
        if t.shape.ndims is not None and t.shape.ndims > axis and t.shape[axis] is not None:
            return t.shape[axis]
    return array_ops.shape(flat[0])[axis]


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    return cell.zero_state(batch_size, dtype)


def _zero_output(cell, batch_size, dtype):
    sizes = nest.flatten(cell.output_size)
    return nest.pack_leaves(cell.output_size, [_zeros(batch_size, s, dtype) for s in sizes])


def _rnn_step(time, sequence_length, zero_output, state, call_cell):
    """One masked step: rows with ``time >= sequence_length`` keep zeros and old state."""
    new_output, new_state = call_cell()
    for a, b, what in ((zero_output, new_output, "output"), (state, new_state, "state")):
        err = structure_error(a, b, check_types=False)
        if err:
            raise ValueError("The cell's %s does not match its size: %s" % (what, err))
    copy = math_ops.greater_equal(time, sequence_length)

    def through(old, new):
        if new.shape.ndims == 0:
            return new
        return math_ops.where(copy, old, new)

    out = [through(o, n) for o, n in zip(nest.flatten(zero_output), nest.flatten(new_output))]
    st = [through(o, n) for o, n in zip(nest.flatten(state), nest.flatten(new_state))]
    return nest.pack_leaves(new_output, out), nest.pack_leaves(new_state, st)


def _sequence_length(sequence_length):
    if sequence_length is None:
        return None
    s = math_ops.cast(convert_to_tensor(sequence_length), _dt.int32)
    if s.shape.ndims not in (None, 1):
        raise ValueError(
            "sequence_length must be a vector of length batch_size, but saw shape: %s" % s.shape
        )
    return array_ops.identity(s, name="sequence_length")


def static_rnn(
    cell: RNNCell,
    inputs: Sequence[TensorLike],
    initial_state: Any = None,
    dtype: DTypeLike | None = None,
    sequence_length: TensorLike | None = None,
    scope: Any = None,
) -> tuple[list[Tensor], Any]:
    """Runs ``cell`` over a Python list of inputs, unrolled (TF1 ``tf.nn.static_rnn``).

    Args:
      cell: an ``RNNCell``.
      inputs: a list of ``[batch, input_size]`` tensors, one per time step.
      initial_state: the first state (default: ``cell.zero_state``, needing ``dtype``).
      dtype: the state's dtype when no ``initial_state`` is given.
      sequence_length: an int vector ``[batch]``: past a row's length its outputs are
        zero and its state is frozen.
      scope: the variable scope (default ``rnn``).

    Returns:
      ``(outputs, state)``: the list of outputs and the final state.
    """
    _check_cell(cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        first = [convert_to_tensor(t) for t in nest.flatten(inputs[0])]
        if first[0].shape.ndims is not None and first[0].shape.ndims < 2:
            raise ValueError("Expected input to have rank at least 2")
        batch_size = _batch_size(first, 0)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        seq = _sequence_length(sequence_length)
        zero_output = None
        if seq is not None:
            zero_output = _zero_output(cell, batch_size, nest.flatten(state)[0].dtype)
        for time, inp in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(inp=inp, state=state):
                return cell(inp, state)

            if seq is not None:
                output, state = _rnn_step(time, seq, zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
    return outputs, state


def static_bidirectional_rnn(
    cell_fw: RNNCell,
    cell_bw: RNNCell,
    inputs: Sequence[TensorLike],
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: DTypeLike | None = None,
    sequence_length: TensorLike | None = None,
    scope: Any = None,
) -> tuple[list[Any], Any, Any]:
    """A forward and a backward ``static_rnn`` over a list of inputs (TF1's).

    Args:
      cell_fw: the forward cell (variables under ``bidirectional_rnn/fw``).
      cell_bw: the backward cell (variables under ``bidirectional_rnn/bw``).
      inputs: a list of ``[batch, input_size]`` tensors, one per time step.
      initial_state_fw: the forward cell's first state.
      initial_state_bw: the backward cell's first state.
      dtype: the states' dtype when no initial states are given.
      sequence_length: an int vector ``[batch]``; the backward pass reverses each row's
        first ``sequence_length`` steps only.
      scope: the variable scope (default ``bidirectional_rnn``).

    Returns:
      ``(outputs, state_fw, state_bw)``: per step, the forward and (reversed back)
      backward outputs concatenated along axis 1.
    """
    _check_cell(cell_fw, "cell_fw")
    _check_cell(cell_bw, "cell_bw")
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a list")
    if not inputs:
        raise ValueError("inputs must not be empty")
    seq = None if sequence_length is None else _sequence_length(sequence_length)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, state_fw = static_rnn(
                cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope=fw_scope
            )
        with variable_scope("bw") as bw_scope:
            rev = _reverse_list(inputs, seq)
            tmp, state_bw = static_rnn(
                cell_bw, rev, initial_state_bw, dtype, sequence_length, scope=bw_scope
            )
    out_bw = _reverse_list(tmp, seq)
    outputs = [
        nest.pack_leaves(
            f, [slicing_ops.concat([a, b], 1) for a, b in zip(nest.flatten(f), nest.flatten(b))]
        )
        for f, b in zip(out_fw, out_bw)
    ]
    return outputs, state_fw, state_bw


def _reverse_list(xs: Sequence[Any], seq) -> list[Any]:
    """A list of steps reversed (within each row's length when ``seq`` is given)."""
    if seq is None:
        return list(xs)[::-1]
    flat = [[convert_to_tensor(t) for t in nest.flatten(x)] for x in xs]
    out = []
    for k in range(len(flat[0])):
        r = _reverse(array_ops.stack([f[k] for f in flat]), seq, 0, 1)
        out.append(slicing_ops.unstack(r))
    return [nest.pack_leaves(x, [col[i] for col in out]) for i, x in enumerate(xs)]


def dynamic_rnn(
    cell: RNNCell,
    inputs: Any,
    sequence_length: TensorLike | None = None,
    initial_state: Any = None,
    dtype: DTypeLike | None = None,
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[Any, Any]:
    """Runs ``cell`` over the time axis of ``inputs`` in a while loop (TF1's).

    Args:
      cell: an ``RNNCell``.
      inputs: a ``[batch, time, ...]`` tensor (``[time, batch, ...]`` when
        ``time_major``), or a nest of them.
      sequence_length: an int vector ``[batch]``: past a row's length its outputs are
        zero and its state is frozen; the loop stops at the longest.
      initial_state: the first state (default: ``cell.zero_state``, needing ``dtype``).
      dtype: the state's dtype when no ``initial_state`` is given.
      parallel_iterations: accepted for compatibility.
      swap_memory: accepted for compatibility.
      time_major: whether inputs and outputs are ``[time, batch, ...]``.
      scope: the variable scope (default ``rnn``).

    Returns:
      ``(outputs, state)``: outputs in the layout of ``inputs`` (nested as
      ``cell.output_size``) and the final state.

    Note (flowrt): the time steps run one after another (``parallel_iterations`` and
    ``swap_memory`` have no effect); the cell's variables, made on its first call
    inside the loop, are created once outside it, as TF1's ``init_scope`` does.
    """
    _check_cell(cell)
    with variable_scope(scope or "rnn"):
        flat = [convert_to_tensor(t) for t in nest.flatten(inputs)]
        if not time_major:
            flat = [_swap_batch_time(t) for t in flat]
        seq = _sequence_length(sequence_length)
        batch_size = _batch_size(flat, 1)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        outputs, final_state = _dynamic_rnn_loop(
            cell, nest.pack_leaves(inputs, flat), state, parallel_iterations or 32, swap_memory, seq
        )
        if not time_major:
            outputs = nest.pack_leaves(
                outputs, [_swap_batch_time(t) for t in nest.flatten(outputs)]
            )
        return outputs, final_state


def _swap_batch_time(t: Tensor) -> Tensor:
    r = t.shape.ndims
    if r is None:
        raise ValueError("dynamic_rnn needs inputs of known rank, got %s" % t)
    if r < 2:
        raise ValueError("Expected input tensor %s to have rank at least 2" % t)
    return array_ops.transpose(t, [1, 0] + list(range(2, r)))


def _dynamic_rnn_loop(cell, inputs, state, parallel_iterations, swap_memory, seq):
    flat = nest.flatten(inputs)
    time_steps = array_ops.shape(flat[0])[0]
    batch_size = _batch_size(flat, 1)
    got = [t.shape for t in flat]
    const_time, const_batch = got[0][0], got[0][1]
    state_dtype = nest.flatten(state)[0].dtype
    out_sizes = nest.flatten(cell.output_size)
    zero_output = _zero_output(cell, batch_size, state_dtype) if seq is not None else None
    if seq is not None:
        max_len = math_ops.reduce_max(seq)
    time = array_ops.constant(0, _dt.int32, name="time")
    with get_default_graph().name_scope("dynamic_rnn") as base:
        out_tas = [
            TensorArray(
                state_dtype,
                size=time_steps,
                element_shape=TensorShape([const_batch]).concatenate(_dims(size)),
                tensor_array_name=base + "output_%d" % k,
            )
            for k, size in enumerate(out_sizes)
        ]
        in_tas = [
            TensorArray(
                t.dtype,
                size=time_steps,
                element_shape=t.shape[1:],
                tensor_array_name=base + "input_%d" % k,
            ).unstack(t)
            for k, t in enumerate(flat)
        ]

    def step(time, out_tas, state):
        xs = [ta.read(time) for ta in in_tas]
        for x, shape in zip(xs, got):
            x.set_shape(shape[1:])
        x = nest.pack_leaves(inputs, xs)

        def call_cell():
            return cell(x, state)

        if seq is not None:
            output, new_state = _rnn_step(time, seq, zero_output, state, call_cell)
        else:
            output, new_state = call_cell()
        out_tas = [ta.write(time, o) for ta, o in zip(out_tas, nest.flatten(output))]
        return time + 1, out_tas, new_state

    if seq is not None:
        bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_len))
    else:
        bound = time_steps
    _, final_tas, final_state = while_loop(
        lambda time, *_: time < bound,
        step,
        (time, out_tas, state),
        parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps,
        swap_memory=swap_memory,
    )
    outs = []
    for ta, size in zip(final_tas, out_sizes):
        o = ta.stack()
        o.set_shape(TensorShape([const_time, const_batch]).concatenate(_dims(size)))
        outs.append(o)
    return nest.pack_leaves(cell.output_size, outs), final_state


def _dims(size: Any) -> TensorShape:
    return TensorShape(list(size) if isinstance(size, (list, tuple, TensorShape)) else [size])


def _reverse(x: Tensor, seq, time_axis: int, batch_axis: int) -> Tensor:
    """TF1's ``reverse_sequence`` (the first ``seq[b]`` steps of row b reversed), or a
    reverse of the time axis without lengths."""
    if seq is None:
        return array_ops.reverse(x, [time_axis])
    tm = x if time_axis == 0 else _swap_batch_time(x)
    shape = array_ops.shape(tm)
    t = array_ops.range(0, shape[0])[:, None]
    b = array_ops.range(0, shape[1])[None, :]
    lens = seq[None, :]
    src = math_ops.where(t < lens, lens - 1 - t + b * 0, t + b * 0)
    idx = array_ops.stack([src, b + t * 0], axis=-1)
    out = indexing_ops.gather_nd(tm, idx)
    return out if time_axis == 0 else _swap_batch_time(out)


def bidirectional_dynamic_rnn(
    cell_fw: RNNCell,
    cell_bw: RNNCell,
    inputs: Any,
    sequence_length: TensorLike | None = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: DTypeLike | None = None,
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """A forward and a backward ``dynamic_rnn`` over ``inputs`` (TF1's).

    Args:
      cell_fw: the forward cell (variables under ``bidirectional_rnn/fw``).
      cell_bw: the backward cell (variables under ``bidirectional_rnn/bw``).
      inputs: as ``dynamic_rnn``'s.
      sequence_length: an int vector ``[batch]``; the backward pass reverses each row's
        first ``sequence_length`` steps only.
      initial_state_fw: the forward cell's first state.
      initial_state_bw: the backward cell's first state.
      dtype: the states' dtype when no initial states are given.
      parallel_iterations: accepted for compatibility.
      swap_memory: accepted for compatibility.
      time_major: whether inputs and outputs are ``[time, batch, ...]``.
      scope: the variable scope (default ``bidirectional_rnn``).

    Returns:
      ``((output_fw, output_bw), (state_fw, state_bw))``, the backward outputs
      reversed back into input order.
    """
    _check_cell(cell_fw, "cell_fw")
    _check_cell(cell_bw, "cell_bw")
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, state_fw = dynamic_rnn(
                cell_fw,
                inputs,
                sequence_length,
                initial_state_fw,
                dtype,
                parallel_iterations,
                swap_memory,
                time_major,
                scope=fw_scope,
            )
        with variable_scope("bw") as bw_scope:
            seq = None if sequence_length is None else _sequence_length(sequence_length)
            rev = nest.pack_leaves(
                inputs,
                [
                    _reverse(convert_to_tensor(t), seq, time_axis, batch_axis)
                    for t in nest.flatten(inputs)
                ],
            )
            tmp, state_bw = dynamic_rnn(
                cell_bw,
                rev,
                sequence_length,
                initial_state_bw,
                dtype,
                parallel_iterations,
                swap_memory,
                time_major,
                scope=bw_scope,
            )
    out_bw = nest.pack_leaves(
        tmp, [_reverse(t, seq, time_axis, batch_axis) for t in nest.flatten(tmp)]
    )
    return (out_fw, out_bw), (state_fw, state_bw)
