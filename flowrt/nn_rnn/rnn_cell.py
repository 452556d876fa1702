"""TF1's RNN cells (``fr.nn.rnn_cell``): layers called as ``cell(inputs, state)``.

Each cell is a ``fr.layers.Layer``: its first call opens its variable scope (the
snake-case class name under the caller's scope, so ``rnn/basic_lstm_cell/kernel`` under
``dynamic_rnn``) and creates its variables, later calls reuse them. Variable names,
shapes, default initializers and the math are TF1's, so a checkpoint's weights give the
same outputs.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .. import nest
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.shape import TensorShape
from ..init_ops import constant_initializer, zeros_initializer
from ..layers.base import Layer
from ..ops import array_ops, linalg_ops, math_ops, nn_ops, slicing_ops
from ..ops.math_ops import clip_by_value
from ..var_scope import variable_scope

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, InitializerLike, TensorLike

__all__ = [
    "RNNCell",
    "BasicRNNCell",
    "BasicLSTMCell",
    "LSTMCell",
    "GRUCell",
    "MultiRNNCell",
    "DropoutWrapper",
    "LSTMStateTuple",
]


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM state: the cell state ``c`` and the output ``h`` (TF1's tuple)."""

    __slots__ = ()

    @property
    def dtype(self) -> _dt.DType:
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (str(c.dtype), str(h.dtype)))
        return c.dtype


def _concat(inputs: Tensor, state: Tensor) -> Tensor:
    return slicing_ops.concat([inputs, state], 1)


def _input_depth(cell: Layer, inputs_shape: TensorShape) -> int:
    depth = inputs_shape[-1] if inputs_shape.ndims else None
    if depth is None:
        raise ValueError(
            "Expected inputs.shape[-1] to be known, saw shape: %s" % (TensorShape(inputs_shape),)
        )
    return depth


class RNNCell(Layer):
    """The abstract RNN cell: ``output, new_state = cell(inputs, state)``.

    Subclasses define ``state_size``, ``output_size``, ``build`` and ``call``.
    """

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        """Runs the cell on ``inputs`` (a batch) from ``state``.

        Args:
          inputs: a ``[batch, input_size]`` tensor.
          state: a tensor or a nest of tensors matching ``state_size``.
          scope: on the first call, the variable scope to create the variables in
            (default: the cell's name under the current scope).

        Returns:
          ``(output, new_state)``.
        """
        if scope is not None and self._scope is None:
            with variable_scope(scope) as vs:
                self._scope = vs
        return super().__call__(inputs, state)

    @property
    def state_size(self) -> Any:
        """The size(s) of the state: an int, or a nest of ints (``LSTMStateTuple``)."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        """The size of the output."""
        raise NotImplementedError("Abstract method")

    def zero_state(self, batch_size: TensorLike, dtype: DTypeLike) -> Any:
        """Zeros shaped like the state for a batch of ``batch_size``, in ``state_size``'s nest."""
        g = get_default_graph()
        with g.name_scope(type(self).__name__ + "ZeroState"):
            sizes = nest.flatten(self.state_size)
            zeros = [_zeros(batch_size, s, dtype) for s in sizes]
            return nest.pack_leaves(self.state_size, zeros)

    def get_initial_state(
        self, inputs: Any = None, batch_size: Any = None, dtype: DTypeLike | None = None
    ) -> Any:
        """The zero state for ``inputs`` (or ``batch_size`` and ``dtype``)."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs)
            batch_size = inputs.shape[0]
            if batch_size is None:
                batch_size = array_ops.shape(inputs)[0]
            dtype = dtype or inputs.dtype
        return self.zero_state(batch_size, dtype or _dt.float32)


def _zeros(batch_size: TensorLike, size: Any, dtype: DTypeLike) -> Tensor:
    dims = list(size) if isinstance(size, (list, tuple, TensorShape)) else [size]
    if isinstance(batch_size, Tensor):
        shape = slicing_ops.concat(
            [array_ops.reshape(batch_size, [1]), array_ops.constant(dims, _dt.int32)], 0
        )
        z = array_ops.fill(shape, math_ops.cast(0, dtype))
        return z
    return array_ops.zeros([batch_size] + dims, dtype)


class BasicRNNCell(RNNCell):
    """The basic RNN cell: ``output = new_state = act(W [inputs, state] + b)``.

    Args:
      num_units: the number of units.
      activation: the nonlinearity (default ``tanh``).
      reuse: whether to reuse the variables of an existing scope.
      name: the layer (variable scope) name (default ``basic_rnn_cell``).
      dtype: the variables' dtype.
    """

    def __init__(
        self,
        num_units: int,
        activation: Callable[[Tensor], Tensor] | None = None,
        reuse: bool | None = None,
        name: str | None = None,
        dtype: DTypeLike | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_weight("kernel", [depth + self._num_units, self._num_units])
        self._bias = self.add_weight("bias", [self._num_units], initializer=zeros_initializer())
        self.built = True

    def call(self, inputs: Tensor, state: Tensor) -> tuple[Tensor, Tensor]:
        out = nn_ops.bias_add(linalg_ops.matmul(_concat(inputs, state), self._kernel), self._bias)
        out = self._activation(out)
        return out, out


class GRUCell(RNNCell):
    """The gated recurrent unit cell (Cho et al. 2014), as TF1's ``GRUCell``.

    Args:
      num_units: the number of units.
      activation: the candidate's nonlinearity (default ``tanh``).
      reuse: whether to reuse the variables of an existing scope.
      kernel_initializer: the initializer of both kernels (default glorot uniform).
      bias_initializer: the initializer of both biases (default: gates 1.0,
        candidate 0.0).
      name: the layer (variable scope) name (default ``gru_cell``).
      dtype: the variables' dtype.
    """

    def __init__(
        self,
        num_units: int,
        activation: Callable[[Tensor], Tensor] | None = None,
        reuse: bool | None = None,
        kernel_initializer: InitializerLike = None,
        bias_initializer: InitializerLike = None,
        name: str | None = None,
        dtype: DTypeLike | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._gate_kernel = self.add_weight(
            "gates/kernel", [depth + n, 2 * n], initializer=self._kernel_initializer
        )
        self._gate_bias = self.add_weight(
            "gates/bias",
            [2 * n],
            initializer=self._bias_initializer
            if self._bias_initializer is not None
            else constant_initializer(1.0),
        )
        self._candidate_kernel = self.add_weight(
            "candidate/kernel", [depth + n, n], initializer=self._kernel_initializer
        )
        self._candidate_bias = self.add_weight(
            "candidate/bias",
            [n],
            initializer=self._bias_initializer
            if self._bias_initializer is not None
            else zeros_initializer(),
        )
        self.built = True

    def call(self, inputs: Tensor, state: Tensor) -> tuple[Tensor, Tensor]:
        gates = nn_ops.bias_add(
            linalg_ops.matmul(_concat(inputs, state), self._gate_kernel), self._gate_bias
        )
        r, u = slicing_ops.split(math_ops.sigmoid(gates), 2, axis=1)
        cand = nn_ops.bias_add(
            linalg_ops.matmul(_concat(inputs, r * state), self._candidate_kernel),
            self._candidate_bias,
        )
        c = self._activation(cand)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(RNNCell):
    """The basic LSTM cell (no peepholes, no projection), as TF1's ``BasicLSTMCell``.

    Args:
      num_units: the number of units.
      forget_bias: added to the forget gate's pre-activation (default 1.0).
      state_is_tuple: if True (default) the state is an ``LSTMStateTuple(c, h)``, else
        ``c`` and ``h`` concatenated along axis 1.
      activation: the nonlinearity (default ``tanh``).
      reuse: whether to reuse the variables of an existing scope.
      name: the layer (variable scope) name (default ``basic_lstm_cell``).
      dtype: the variables' dtype.
    """

    def __init__(
        self,
        num_units: int,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Callable[[Tensor], Tensor] | None = None,
        reuse: bool | None = None,
        name: str | None = None,
        dtype: DTypeLike | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self) -> Any:
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight("kernel", [depth + n, 4 * n])
        self._bias = self.add_weight("bias", [4 * n], initializer=zeros_initializer())
        self.built = True

    def call(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = slicing_ops.split(state, 2, axis=1)
        gates = nn_ops.bias_add(linalg_ops.matmul(_concat(inputs, h), self._kernel), self._bias)
        i, j, f, o = slicing_ops.split(gates, 4, axis=1)
        fb = array_ops.constant(self._forget_bias, dtype=f.dtype)
        sig, act = math_ops.sigmoid, self._activation
        new_c = c * sig(f + fb) + sig(i) * act(j)
        new_h = act(new_c) * sig(o)
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, slicing_ops.concat([new_c, new_h], 1)


class LSTMCell(RNNCell):
    """The LSTM cell with optional peepholes, cell clipping and projection (TF1's).

    Args:
      num_units: the number of units.
      use_peepholes: if True, diagonal peephole connections (``w_f_diag``, ...).
      cell_clip: if set, the cell state is clipped to ``[-cell_clip, cell_clip]``.
      initializer: the initializer of the kernels and peepholes.
      num_proj: if set, the output is projected to this size (``projection/kernel``).
      proj_clip: if set, the projection is clipped to ``[-proj_clip, proj_clip]``.
      num_unit_shards: not supported (must be None).
      num_proj_shards: not supported (must be None).
      forget_bias: added to the forget gate's pre-activation (default 1.0).
      state_is_tuple: if True (default) the state is an ``LSTMStateTuple(c, h)``.
      activation: the nonlinearity (default ``tanh``).
      reuse: whether to reuse the variables of an existing scope.
      name: the layer (variable scope) name (default ``lstm_cell``).
      dtype: the variables' dtype.
    """

    def __init__(
        self,
        num_units: int,
        use_peepholes: bool = False,
        cell_clip: float | None = None,
        initializer: InitializerLike = None,
        num_proj: int | None = None,
        proj_clip: float | None = None,
        num_unit_shards: int | None = None,
        num_proj_shards: int | None = None,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Callable[[Tensor], Tensor] | None = None,
        reuse: bool | None = None,
        name: str | None = None,
        dtype: DTypeLike | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise ValueError("num_unit_shards and num_proj_shards are not supported by flowrt")
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self) -> Any:
        n, p = self._num_units, self._num_proj or self._num_units
        return LSTMStateTuple(n, p) if self._state_is_tuple else n + p

    @property
    def output_size(self) -> int:
        return self._num_proj or self._num_units

    def build(self, inputs_shape: Any) -> None:
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        h_depth = self._num_proj or n
        init = self._initializer
        self._kernel = self.add_weight("kernel", [depth + h_depth, 4 * n], initializer=init)
        self._bias = self.add_weight("bias", [4 * n], initializer=zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", [n], initializer=init)
            self._w_i_diag = self.add_weight("w_i_diag", [n], initializer=init)
            self._w_o_diag = self.add_weight("w_o_diag", [n], initializer=init)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight(
                "projection/kernel", [n, self._num_proj], initializer=init
            )
        self.built = True

    def call(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        n, p = self._num_units, self._num_proj or self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = slicing_ops.slice(state, [0, 0], [-1, n])
            m_prev = slicing_ops.slice(state, [0, n], [-1, p])
        gates = nn_ops.bias_add(
            linalg_ops.matmul(_concat(inputs, m_prev), self._kernel), self._bias
        )
        i, j, f, o = slicing_ops.split(gates, 4, axis=1)
        sig, act, fb = math_ops.sigmoid, self._activation, self._forget_bias
        if self._use_peepholes:
            c = sig(f + fb + self._w_f_diag * c_prev) * c_prev + sig(
                i + self._w_i_diag * c_prev
            ) * act(j)
        else:
            c = sig(f + fb) * c_prev + sig(i) * act(j)
        if self._cell_clip is not None:
            c = clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sig(o + self._w_o_diag * c) * act(c)
        else:
            m = sig(o) * act(c)
        if self._num_proj is not None:
            m = linalg_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_by_value(m, -self._proj_clip, self._proj_clip)
        if self._state_is_tuple:
            return m, LSTMStateTuple(c, m)
        return m, slicing_ops.concat([c, m], 1)


class MultiRNNCell(RNNCell):
    """Cells stacked: each one's output is the next one's input (TF1's ``MultiRNNCell``).

    Args:
      cells: the cells, bottom first; their variables go under ``cell_0``, ``cell_1``...
      state_is_tuple: if True (default) the state is a tuple of the cells' states.
    """

    def __init__(self, cells: Sequence[RNNCell], state_is_tuple: bool = True) -> None:
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not isinstance(cells, (list, tuple)):
            raise TypeError("cells must be a list or tuple, but saw: %s." % (cells,))
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(isinstance(c.state_size, (list, tuple)) for c in self._cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set. "
                "State sizes are: %s" % str([c.state_size for c in self._cells])
            )

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return tuple(c.state_size for c in self._cells)
        return sum(c.state_size for c in self._cells)

    @property
    def output_size(self) -> Any:
        return self._cells[-1].output_size

    def zero_state(self, batch_size: TensorLike, dtype: DTypeLike) -> Any:
        """The cells' zero states (a tuple, or concatenated when not ``state_is_tuple``)."""
        if self._state_is_tuple:
            with get_default_graph().name_scope("MultiRNNCellZeroState"):
                return tuple(c.zero_state(batch_size, dtype) for c in self._cells)
        return super().zero_state(batch_size, dtype)

    def call(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        cur, new_states, start = inputs, [], 0
        for k, cell in enumerate(self._cells):
            with variable_scope("cell_%d" % k):
                if self._state_is_tuple:
                    cur_state = state[k]
                else:
                    size = cell.state_size
                    cur_state = slicing_ops.slice(state, [0, start], [-1, size])
                    start += size
                cur, new = cell(cur, cur_state)
                new_states.append(new)
        if self._state_is_tuple:
            return cur, tuple(new_states)
        return cur, slicing_ops.concat(new_states, 1)


class DropoutWrapper(RNNCell):
    """Dropout on a cell's inputs, outputs and state (TF1's ``DropoutWrapper``).

    Args:
      cell: the wrapped cell (its variables keep their names: no scope is added).
      input_keep_prob: keep probability of the inputs (float or scalar tensor).
      output_keep_prob: keep probability of the outputs.
      state_keep_prob: keep probability of the new state.
      variational_recurrent: not supported (must be False).
      input_size: unused unless ``variational_recurrent``.
      dtype: unused unless ``variational_recurrent``.
      seed: the op seed of the dropout masks.
      dropout_state_filter_visitor: not supported (must be None).

    Note (flowrt): ``variational_recurrent=True`` is not supported.
    """

    def __init__(
        self,
        cell: RNNCell,
        input_keep_prob: Any = 1.0,
        output_keep_prob: Any = 1.0,
        state_keep_prob: Any = 1.0,
        variational_recurrent: bool = False,
        input_size: Any = None,
        dtype: DTypeLike | None = None,
        seed: int | None = None,
        dropout_state_filter_visitor: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if variational_recurrent or dropout_state_filter_visitor is not None:
            raise ValueError(
                "DropoutWrapper: variational_recurrent and dropout_state_filter_visitor are "
                "not supported by flowrt"
            )
        for name, p in (
            ("input_keep_prob", input_keep_prob),
            ("output_keep_prob", output_keep_prob),
            ("state_keep_prob", state_keep_prob),
        ):
            if isinstance(p, (int, float)) and not 0.0 < p <= 1.0:
                raise ValueError("Parameter %s must be between 0 and 1: %s" % (name, p))
        self._cell = cell
        self._input_keep_prob = input_keep_prob
        self._output_keep_prob = output_keep_prob
        self._state_keep_prob = state_keep_prob
        self._seed = seed

    @property
    def wrapped_cell(self) -> RNNCell:
        return self._cell

    @property
    def state_size(self) -> Any:
        return self._cell.state_size

    @property
    def output_size(self) -> Any:
        return self._cell.output_size

    def zero_state(self, batch_size: TensorLike, dtype: DTypeLike) -> Any:
        """The wrapped cell's zero state."""
        with get_default_graph().name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)

    def _dropout(self, x: Any, keep: Any, salt: int) -> Any:
        if isinstance(keep, (int, float)) and keep == 1.0:
            return x
        seed = None if self._seed is None else self._seed + salt
        flat = [nn_ops.dropout(t, keep_prob=keep, seed=seed) for t in nest.flatten(x)]
        return nest.pack_leaves(x, flat)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        inputs = self._dropout(inputs, self._input_keep_prob, 0)
        output, new_state = self._cell(inputs, state, scope=scope)
        new_state = self._dropout(new_state, self._state_keep_prob, 1)
        output = self._dropout(output, self._output_keep_prob, 2)
        return output, new_state
