"""Random ops with TF1's seed semantics, drawing TensorFlow's own streams.

Seeds: ``fr.set_random_seed`` sets the graph seed; an op's ``seed`` argument is its op
seed. With both unset an op is nondeterministic. With only the graph seed, the op seed
is the graph's count of ops seeded so far (TF 2.x's rule), so rebuilding the same program
gives the same seeds. Each op's stream lives in the session: successive runs of one
session continue it, and a new session restarts it.

TF's streams, bit for bit: ``RandomUniform``, ``RandomStandardNormal``,
``TruncatedNormal`` and ``RandomUniformInt`` (``random_uniform``, ``random_normal``,
``truncated_normal``, and the initializers and ``nn.dropout`` built on them) draw
Philox4x32-10 with the op's ``(seed, seed2)`` as TF's CPU kernels do (``philox.py``,
state in ``ResourceManager.philox``), so a seeded program gives TensorFlow's values.

Note (flowrt): numpy streams, not TF's: ``RandomShuffle``, ``Multinomial`` (and the
candidate samplers of ``candidate_sampling_ops.py``) draw from a numpy generator seeded
with the op's seeds (``ResourceManager.rng``): reproducible by the same rules, but their
values differ from TensorFlow's.
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.jit import warm_up
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from . import philox
from .common import FLOATS, check_dtype, in_graph_of, int_list, make
from .const_eval import partial_shape

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "set_random_seed",
    "get_seed",
    "random_normal",
    "random_uniform",
    "truncated_normal",
    "random_shuffle",
    "multinomial",
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_op_seed_counters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def set_random_seed(seed: int | None) -> None:
    """Sets the graph-level seed of the default graph (TF1 ``tf.set_random_seed``)."""
    get_default_graph().seed = seed


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The ``(seed, seed2)`` pair an op uses, from the graph seed and ``op_seed``
    (TF1's ``random_seed.get_seed``); ``(None, None)`` means nondeterministic."""
    g = get_default_graph()
    seeds: tuple[int | None, int | None]
    if g.seed is not None:
        if op_seed is None:
            op_seed = _op_seed_counters.get(g, 0)
            _op_seed_counters[g] = op_seed + 1
        seeds = int(g.seed) % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def _philox_attrs(seed, dtype):
    """The seed attrs of an op drawing a Philox stream of ``dtype``; its fill is compiled
    in the background meanwhile (``jit.warm_up``)."""
    warm_up(partial(_fill_tiny, dtype.np), ("philox", dtype.name))
    return _seed_attrs(seed)


def _fill_tiny(np_dtype) -> None:
    out = np.empty(1, np_dtype)
    if out.dtype.kind == "i":
        philox.fill_int(out, 0, 1, 1, 0)
    else:
        philox.fill_float(out, philox.UNIFORM, 1, 0)


def _seed_attrs(seed):
    s1, s2 = get_seed(seed)
    pair = None if s1 is None else [s1, s2]
    return {"seed": s1 or 0, "seed2": s2 or 0, "seed2_pair": pair}


def shape_tensor(shape):
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        return convert_to_tensor(shape)
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and any(
        isinstance(d, Tensor) or hasattr(d, "_as_tensor") for d in shape
    ):
        return convert_to_tensor(shape, name="shape")
    return convert_to_tensor(
        np.asarray(shape, dtype=np.int32).reshape(-1)
        if not isinstance(shape, np.ndarray)
        else shape,
        name="shape",
    )


def shape_infer(allowed):
    def infer(op):
        s = op.inputs[0]
        check_dtype(s, (_dt.int32, _dt.int64), "shape")
        if s.shape.ndims not in (None, 1):
            raise ValueError("shape must be a vector, got a tensor of shape %s" % s.shape)
        dt = op.attrs["dtype"]
        if dt not in allowed:
            raise TypeError(
                "Value passed to parameter 'dtype' has DataType %s not in list of "
                "allowed values: %s" % (dt.name, ", ".join(d.name for d in allowed))
            )
        dims = partial_shape(s)
        if dims is None:
            return [(dt, unknown_shape())]
        return [(dt, TensorShape(dims))]

    return infer


def out_dims(shape) -> tuple[int, ...]:
    dims = tuple(int(d) for d in np.reshape(shape, -1))
    for d in dims:
        if d < 0:
            raise ValueError("Dimension %d must be >= 0 (shape %s)" % (d, list(dims)))
    return dims


def _philox_sampler(kind):
    """A kernel filling its output with fill ``kind`` of the op's Philox stream in this
    session, reserving 256 Philox calls per element as TF's kernel does."""

    def kernel(ctx, op, shape):
        dims = out_dims(shape)
        out = np.empty(dims, op.outputs[0].dtype.np)
        key, counter = ctx.resources.philox(op).reserve(out.size * _CALLS_PER_OUTPUT)
        philox.fill_float(out.reshape(-1), kind, key, counter)
        return (out,)

    return kernel


_CALLS_PER_OUTPUT = 256  # TF's ReserveRandomOutputs(n, 256)

_SAMPLERS = [
    ("RandomStandardNormal", philox.NORMAL),
    ("RandomUniform", philox.UNIFORM),
    ("TruncatedNormal", philox.TRUNCATED),
]
for _t, _kind in _SAMPLERS:
    register_op(
        _t,
        infer=shape_infer(FLOATS),
        kernel=_philox_sampler(_kind),
        grad=NOT_DIFFERENTIABLE,
        stateful=True,
    )


def _scaled(op_type, default, shape, mean, stddev, dtype, seed, name):
    """TF1's normal samplers: ``Sampler(shape) * stddev + mean`` under one name scope."""
    from .math_ops import add, multiply

    dtype = _dt.as_dtype(dtype)
    g = get_default_graph()
    with g.name_scope(name or default) as scope:
        s = shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        std_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        attrs = {"dtype": dtype, **_philox_attrs(seed, dtype)}
        rnd = make(op_type, [s], attrs, op_type)
        mul = multiply(rnd, std_t, name="mul")
    return add(mul, mean_t, name=scope)


def random_normal(
    shape: TensorLike,
    mean: TensorLike = 0.0,
    stddev: TensorLike = 1.0,
    dtype: DTypeLike = _dt.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples from a normal distribution (op type RandomStandardNormal, scaled)."""
    with in_graph_of([shape, mean, stddev]):
        return _scaled(
            "RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed, name
        )


def truncated_normal(
    shape: TensorLike,
    mean: TensorLike = 0.0,
    stddev: TensorLike = 1.0,
    dtype: DTypeLike = _dt.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples from a normal distribution, redrawing values more than two standard
    deviations from the mean (op type TruncatedNormal, scaled)."""
    with in_graph_of([shape, mean, stddev]):
        return _scaled(
            "TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed, name
        )


def random_uniform(
    shape: TensorLike,
    minval: TensorLike = 0,
    maxval: TensorLike | None = None,
    dtype: DTypeLike = _dt.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples uniformly from ``[minval, maxval)``; ints need ``maxval``
    (op types RandomUniform and RandomUniformInt)."""
    with in_graph_of([shape, minval, maxval]):
        from .math_ops import add, multiply

        dtype = _dt.as_dtype(dtype)
        accepted = FLOATS + (_dt.int32, _dt.int64)
        if dtype not in accepted:
            raise ValueError(
                "Argument `dtype` got invalid value %s. Accepted dtypes are %s."
                % (dtype.name, ", ".join(d.name for d in accepted))
            )
        if maxval is None:
            if dtype.is_integer:
                raise ValueError("Must specify maxval for integer dtype %s" % dtype.name)
            maxval = 1
        g = get_default_graph()
        with g.name_scope(name or "random_uniform") as scope:
            s = shape_tensor(shape)
            min_zero = isinstance(minval, int) and not isinstance(minval, bool) and minval == 0
            max_one = isinstance(maxval, int) and not isinstance(maxval, bool) and maxval == 1
            lo: Any = minval  # converted below unless the plain [0, 1) case
            hi: Any = maxval
            if not min_zero or not max_one or dtype.is_integer:
                lo = convert_to_tensor(minval, dtype=dtype, name="min")
                hi = convert_to_tensor(maxval, dtype=dtype, name="max")
            attrs = {"dtype": dtype, **_philox_attrs(seed, dtype)}
            if not dtype.is_integer:
                rnd = make("RandomUniform", [s], attrs, "RandomUniform")
                if min_zero:
                    return rnd if max_one else multiply(rnd, hi)
                scaled = rnd * (hi - lo)
        if dtype.is_integer:
            return make("RandomUniformInt", [s, lo, hi], attrs, scope)
        return add(scaled, lo, name=scope)


def _uniform_int_infer(op):
    s, lo, hi = op.inputs
    for t, what in ((lo, "minval"), (hi, "maxval")):
        if t.shape.ndims not in (None, 0):
            raise ValueError("%s must be a scalar, got shape %s" % (what, t.shape))
    return shape_infer((_dt.int32, _dt.int64))(op)


def _uniform_int_kernel(ctx, op, shape, minval, maxval):
    for v, what in ((minval, "minval"), (maxval, "maxval")):
        if np.ndim(v) != 0:
            raise ValueError("%s must be 0-D, got shape %s" % (what, list(np.shape(v))))
    out = np.empty(out_dims(shape), op.outputs[0].dtype.np)
    if out.size == 0:  # before the minval < maxval check, as TF: zero impossible draws
        return (out,)
    lo, hi = int(minval), int(maxval)
    if not lo < hi:
        raise ValueError("Need minval < maxval, got %d >= %d" % (lo, hi))
    key, counter = ctx.resources.philox(op).reserve(out.size * _CALLS_PER_OUTPUT)
    philox.fill_int(out.reshape(-1), lo, hi, key, counter)
    return (out,)


register_op(
    "RandomUniformInt",
    infer=_uniform_int_infer,
    kernel=_uniform_int_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def random_shuffle(value: TensorLike, seed: int | None = None, name: str | None = None) -> Tensor:
    """``value`` with its first dimension shuffled."""
    return make("RandomShuffle", [convert_to_tensor(value)], _seed_attrs(seed), name)


def _shuffle_kernel(ctx, op, x):
    if np.ndim(x) == 0:
        return (x,)
    return (x[ctx.resources.rng(op).permutation(len(x))],)


register_op(
    "RandomShuffle",
    infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)],
    kernel=_shuffle_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def multinomial(
    logits: TensorLike,
    num_samples: TensorLike,
    seed: int | None = None,
    name: str | None = None,
    output_dtype: DTypeLike | None = None,
) -> Tensor:
    """Draws ``num_samples`` class indices per row of unnormalized log-probabilities
    ``logits`` of shape ``[batch, classes]``; returns ``[batch, num_samples]`` int64."""
    with in_graph_of([logits, num_samples]):
        g = get_default_graph()
        dt = _dt.as_dtype(output_dtype or _dt.int64)
        with g.name_scope(name or "multinomial"):
            logits = convert_to_tensor(logits, name="logits")
            with g.name_scope("Multinomial") as scope:
                n = convert_to_tensor(num_samples, dtype=_dt.int32, name="num_samples")
            return make(
                "Multinomial", [logits, n], {"output_dtype": dt, **_seed_attrs(seed)}, scope
            )


def _multinomial_infer(op):
    logits, n = op.inputs
    check_dtype(logits, FLOATS, "logits")
    if logits.shape.ndims not in (None, 2):
        raise ValueError("logits should be a matrix, got shape %s" % logits.shape)
    if n.shape.ndims not in (None, 0):
        raise ValueError("num_samples should be a scalar, got shape %s" % n.shape)
    k = int_list(n)
    batch = logits.shape[0] if logits.shape.ndims == 2 else None
    return [(op.attrs["output_dtype"], TensorShape([batch, k[0] if k else None]))]


def _multinomial_kernel(ctx, op, logits, n):
    return (gumbel_max(ctx.resources.rng(op), logits, n, op.attrs["output_dtype"]),)


def gumbel_max(rng: np.random.Generator, logits, n, dtype) -> np.ndarray:
    """``n`` class draws of ``dtype`` per row of ``logits`` from ``rng``, after checking
    the arguments as TF's multinomial kernels do."""
    n = int(n)
    if n < 0:
        raise ValueError("num_samples should be nonnegative, got %d" % n)
    lg = np.asarray(logits, dtype=np.float64)
    if lg.shape[1] == 0:
        raise ValueError("num_classes should be positive, got 0")
    # argmax(logits + Gumbel noise) samples from softmax(logits); -inf logits never win.
    noise = rng.gumbel(size=(lg.shape[0], n, lg.shape[1]))
    return np.argmax(lg[:, None, :] + noise, axis=-1).astype(dtype.np)


register_op(
    "Multinomial",
    infer=_multinomial_infer,
    kernel=_multinomial_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
