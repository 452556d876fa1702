"""Stateless random ops (TF's ``tf.random.stateless_*``): the output is a function of
the ``shape`` and a ``seed`` tensor of two integers alone, the same in every run and
every session, with no op state.

``StatelessRandomUniform``, ``StatelessRandomNormal``, ``StatelessTruncatedNormal``,
``StatelessRandomUniformInt`` and ``StatelessRandomUniformFullInt`` give TensorFlow's
values bit for bit: the seed is scrambled into a Philox key and counter as TF's
``GenerateKey`` does (``philox.stateless_key``) and the output filled from there as
TF's CPU kernels fill it (``philox.fill_float``, ``philox.fill_int``).

Note (flowrt): ``StatelessMultinomial`` draws from a numpy generator seeded with the
seed pair: the same seed gives the same classes in every run, but not TF's classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from . import philox
from .common import FLOATS, check_dtype, in_graph_of, int_list, make
from .random_ops import gumbel_max, out_dims, shape_infer, shape_tensor

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "stateless_random_uniform",
    "stateless_random_normal",
    "stateless_truncated_normal",
    "stateless_categorical",
    "stateless_multinomial",
]

_INTS = (_dt.int32, _dt.int64)
_ALGS = ("auto_select", "philox", 1, 3)  # TF's Algorithm.PHILOX = 1, AUTO_SELECT = 3


def _seed_tensor(seed, alg) -> Tensor:
    if alg not in _ALGS and getattr(alg, "value", None) not in (1, 3):
        raise ValueError(
            "Argument `alg` got unsupported value %r: flowrt's stateless ops draw Philox "
            "only ('auto_select' or 'philox')" % (alg,)
        )
    if isinstance(seed, (list, tuple)) and not any(hasattr(s, "_as_tensor") for s in seed):
        seed = np.asarray(seed, np.int64 if any(abs(int(s)) >= 2**31 for s in seed) else None)
    return convert_to_tensor(seed, name="seed")


def _check_seed(t) -> None:
    check_dtype(t, _INTS, "seed")
    if t.shape.ndims is not None and t.shape.as_list() not in ([2], [None]):
        raise ValueError(
            "Dimension must be 2 but is %s for seed of shape %s"
            % (t.shape[-1] if t.shape.ndims else "a scalar", t.shape)
        )


def _stateless_infer(allowed):
    base = shape_infer(allowed)

    def infer(op):
        _check_seed(op.inputs[1])
        return base(op)

    return infer


def _key(seed) -> tuple[int, int]:
    s = np.asarray(seed).reshape(-1)
    if s.shape != (2,):
        raise ValueError("seed must have shape [2], got %s" % list(np.shape(seed)))
    return philox.stateless_key(int(s[0]), int(s[1]))


def _float_kernel(kind):
    def kernel(ctx, op, shape, seed):
        out = np.empty(out_dims(shape), op.outputs[0].dtype.np)
        philox.fill_float(out.reshape(-1), kind, *_key(seed))
        return (out,)

    return kernel


def _uniform_int_kernel(ctx, op, shape, seed, minval, maxval):
    for v, what in ((minval, "minval"), (maxval, "maxval")):
        if np.ndim(v) != 0:
            raise ValueError("%s must be 0-D, got shape %s" % (what, list(np.shape(v))))
    out = np.empty(out_dims(shape), op.outputs[0].dtype.np)
    key = _key(seed)
    if out.size == 0:
        return (out,)
    lo, hi = int(minval), int(maxval)
    if not lo < hi:
        raise ValueError("Need minval < maxval, got %d >= %d" % (lo, hi))
    philox.fill_int(out.reshape(-1), lo, hi, *key)
    return (out,)


def _full_int_kernel(ctx, op, shape, seed):
    out = np.empty(out_dims(shape), op.outputs[0].dtype.np)
    philox.fill_int(out.reshape(-1), 0, 1 << (8 * out.itemsize), *_key(seed))
    return (out,)


def _uniform_int_infer(op):
    for t, what in ((op.inputs[2], "minval"), (op.inputs[3], "maxval")):
        if t.shape.ndims not in (None, 0):
            raise ValueError("%s must be a scalar, got shape %s" % (what, t.shape))
    return _stateless_infer(_INTS)(op)


for _t, _kind in [
    ("StatelessRandomUniform", philox.UNIFORM),
    ("StatelessRandomNormal", philox.NORMAL),
    ("StatelessTruncatedNormal", philox.TRUNCATED),
]:
    register_op(
        _t, infer=_stateless_infer(FLOATS), kernel=_float_kernel(_kind), grad=NOT_DIFFERENTIABLE
    )
register_op(
    "StatelessRandomUniformInt",
    infer=_uniform_int_infer,
    kernel=_uniform_int_kernel,
    grad=NOT_DIFFERENTIABLE,
)
register_op(
    "StatelessRandomUniformFullInt",
    infer=_stateless_infer(_INTS),
    kernel=_full_int_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def stateless_random_uniform(
    shape: TensorLike,
    seed: TensorLike,
    minval: TensorLike | None = 0,
    maxval: TensorLike | None = None,
    dtype: DTypeLike = _dt.float32,
    name: str | None = None,
    alg: str | int = "auto_select",
) -> Tensor:
    """Deterministic uniform values in ``[minval, maxval)`` for ``seed`` (TF's
    ``tf.random.stateless_uniform``, bit for bit).

    Args:
      shape: the output shape (a 1-D int tensor or a list).
      seed: a shape ``[2]`` int32 or int64 tensor; the output depends on it alone.
      minval: the lower bound (default 0). For integer ``dtype``, ``minval`` and
        ``maxval`` both ``None`` draws the whole range of the dtype.
      maxval: the upper bound (default 1 for floats; required for ints unless both
        bounds are ``None``).
      dtype: float16, float32, float64, int32 or int64.
      name: the name scope (default ``stateless_random_uniform``).
      alg: ``"auto_select"`` or ``"philox"`` (Philox is what TF selects on CPU).

    Raises:
      ValueError: for another dtype or ``alg``, or one integer bound ``None``.
    """
    from .math_ops import add, multiply, subtract

    dtype = _dt.as_dtype(dtype)
    accepted = FLOATS + _INTS
    if dtype not in accepted:
        raise ValueError(
            "Argument `dtype` got invalid value %s. Accepted dtypes are %s."
            % (dtype.name, ", ".join(d.name for d in accepted))
        )
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(
                "For integer `dtype` argument %s, argument `minval` and `maxval` must be "
                "both None or not None. Got `minval`=%r and `maxval`=%r."
                % (dtype.name, minval, maxval)
            )
    elif maxval is None:
        maxval = 1
    with in_graph_of([shape, seed, minval, maxval]):
        with get_default_graph().name_scope(name or "stateless_random_uniform") as scope:
            s = shape_tensor(shape)
            attrs = {"dtype": dtype}
            if dtype.is_integer and minval is None:
                seed_t = _seed_tensor(seed, alg)
                return make("StatelessRandomUniformFullInt", [s, seed_t], attrs, scope)
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
            seed_t = _seed_tensor(seed, alg)
            if dtype.is_integer:
                return make("StatelessRandomUniformInt", [s, seed_t, lo, hi], attrs, scope)
            rnd = make("StatelessRandomUniform", [s, seed_t], attrs, "StatelessRandomUniform")
            scaled = multiply(rnd, subtract(hi, lo, name="sub"), name="mul")
        return add(scaled, lo, name=scope)


def _scaled(op_type, default, shape, seed, mean, stddev, dtype, name, alg):
    from .math_ops import add, multiply

    dtype = _dt.as_dtype(dtype)
    with in_graph_of([shape, seed, mean, stddev]):
        with get_default_graph().name_scope(name or default) as scope:
            s = shape_tensor(shape)
            mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
            std_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = make(op_type, [s, _seed_tensor(seed, alg)], {"dtype": dtype}, op_type)
            mul = multiply(rnd, std_t, name="mul")
        return add(mul, mean_t, name=scope)


def stateless_random_normal(
    shape: TensorLike,
    seed: TensorLike,
    mean: TensorLike = 0.0,
    stddev: TensorLike = 1.0,
    dtype: DTypeLike = _dt.float32,
    name: str | None = None,
    alg: str | int = "auto_select",
) -> Tensor:
    """Deterministic normal values for ``seed`` (TF's ``tf.random.stateless_normal``,
    bit for bit): ``StatelessRandomNormal(shape, seed) * stddev + mean``.

    Args:
      shape: the output shape.
      seed: a shape ``[2]`` int32 or int64 tensor.
      mean: the mean.
      stddev: the standard deviation.
      dtype: float16, float32 or float64.
      name: the name scope (default ``stateless_random_normal``).
      alg: ``"auto_select"`` or ``"philox"``.
    """
    return _scaled(
        "StatelessRandomNormal", "stateless_random_normal", shape, seed, mean, stddev, dtype,
        name, alg,
    )  # fmt: skip


def stateless_truncated_normal(
    shape: TensorLike,
    seed: TensorLike,
    mean: TensorLike = 0.0,
    stddev: TensorLike = 1.0,
    dtype: DTypeLike = _dt.float32,
    name: str | None = None,
    alg: str | int = "auto_select",
) -> Tensor:
    """Deterministic normal values within two standard deviations of ``mean`` for
    ``seed`` (TF's ``tf.random.stateless_truncated_normal``, bit for bit).

    Args:
      shape: the output shape.
      seed: a shape ``[2]`` int32 or int64 tensor.
      mean: the mean.
      stddev: the standard deviation before truncation.
      dtype: float16, float32 or float64.
      name: the name scope (default ``stateless_truncated_normal``).
      alg: ``"auto_select"`` or ``"philox"``.
    """
    return _scaled(
        "StatelessTruncatedNormal", "stateless_truncated_normal", shape, seed, mean, stddev,
        dtype, name, alg,
    )  # fmt: skip


def stateless_multinomial(
    logits: TensorLike,
    num_samples: TensorLike,
    seed: TensorLike,
    output_dtype: DTypeLike = _dt.int64,
    name: str | None = None,
) -> Tensor:
    """Deterministic class draws for ``seed``: ``num_samples`` indices per row of the
    unnormalized log-probabilities ``logits`` (``[batch, classes]``), as a
    ``[batch, num_samples]`` tensor (TF's ``tf.random.stateless_multinomial``).

    Args:
      logits: a 2-D float tensor.
      num_samples: the number of samples per row.
      seed: a shape ``[2]`` int32 or int64 tensor.
      output_dtype: int32 or int64.
      name: the name scope (default ``stateless_multinomial``).

    Note (flowrt): the draws are a function of the seed, as TF's, but not TF's draws.
    """
    return _multinomial(logits, num_samples, seed, output_dtype, name or "stateless_multinomial")


def stateless_categorical(
    logits: TensorLike,
    num_samples: TensorLike,
    seed: TensorLike,
    dtype: DTypeLike = _dt.int64,
    name: str | None = None,
) -> Tensor:
    """Deterministic class draws for ``seed`` (TF's ``tf.random.stateless_categorical``,
    the newer name of ``stateless_multinomial``; see there).

    Args:
      logits: a 2-D float tensor.
      num_samples: the number of samples per row.
      seed: a shape ``[2]`` int32 or int64 tensor.
      dtype: int32 or int64.
      name: the name scope (default ``stateless_categorical``).
    """
    return _multinomial(logits, num_samples, seed, dtype, name or "stateless_categorical")


def _multinomial(logits, num_samples, seed, dtype, name):
    dt = _dt.as_dtype(dtype)
    with in_graph_of([logits, num_samples, seed]):
        with get_default_graph().name_scope(name) as scope:
            logits_t = convert_to_tensor(logits, name="logits")
            n = convert_to_tensor(num_samples, dtype=_dt.int32, name="num_samples")
            seed_t = _seed_tensor(seed, "auto_select")
            return make("StatelessMultinomial", [logits_t, n, seed_t], {"output_dtype": dt}, scope)


def _multinomial_infer(op):
    logits, n, seed = op.inputs
    check_dtype(logits, FLOATS, "logits")
    _check_seed(seed)
    if logits.shape.ndims not in (None, 2):
        raise ValueError("logits should be a matrix, got shape %s" % logits.shape)
    if n.shape.ndims not in (None, 0):
        raise ValueError("num_samples should be a scalar, got shape %s" % n.shape)
    k = int_list(n)
    batch = logits.shape[0] if logits.shape.ndims == 2 else None
    return [(op.attrs["output_dtype"], TensorShape([batch, k[0] if k else None]))]


def _multinomial_kernel(ctx, op, logits, n, seed):
    key, counter = _key(seed)
    rng = np.random.Generator(np.random.Philox(key=key, counter=counter >> 64))
    return (gumbel_max(rng, logits, n, op.attrs["output_dtype"]),)


register_op(
    "StatelessMultinomial",
    infer=_multinomial_infer,
    kernel=_multinomial_kernel,
    grad=NOT_DIFFERENTIABLE,
)
