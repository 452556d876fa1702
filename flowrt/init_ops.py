"""Variable initializers (TF1 ``tf.*_initializer``): callables ``init(shape, dtype)``
returning the tensor a variable starts from.

Random initializers use ``fr.random_uniform`` / ``fr.random_normal`` /
``fr.truncated_normal`` (graph seed + op seed, redrawn each time the initializer runs).

Note (flowrt): until the random ops are registered, random initializers fall back to a
constant drawn with numpy at graph construction (reproducible with a graph or op seed).
"""

from __future__ import annotations

import math
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core.graph import Tensor, constant_op, get_default_graph
from .ops.lookup_ops import tables_initializer

if TYPE_CHECKING:
    from ._core.typing import DTypeLike, ShapeLike, TensorLike
    from .partitioned_variables import PartitionInfo

__all__ = [
    "Initializer",
    "Zeros",
    "Ones",
    "Constant",
    "RandomUniform",
    "RandomNormal",
    "TruncatedNormal",
    "VarianceScaling",
    "GlorotUniform",
    "GlorotNormal",
    "zeros_initializer",
    "ones_initializer",
    "constant_initializer",
    "random_uniform_initializer",
    "random_normal_initializer",
    "truncated_normal_initializer",
    "variance_scaling_initializer",
    "glorot_uniform_initializer",
    "glorot_normal_initializer",
    "initializers",
]

_DEFAULT_GRAPH_SEED = 87654321


class Initializer:
    """Base class: ``init(shape, dtype=None, partition_info=None) -> Tensor``."""

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


def _shape_list(shape: Any) -> list[int]:
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    return [int(d) for d in shape]


def _float_dtype(dtype: DTypeLike) -> _dt.DType:
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype.name)
    return dtype


class Zeros(Initializer):
    """Initializes to 0."""

    def __init__(self, dtype: DTypeLike = _dt.float32) -> None:
        self.dtype = _dt.as_dtype(dtype)

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        from .ops.array_ops import zeros

        return zeros(_shape_list(shape), _dt.as_dtype(dtype or self.dtype))

    def get_config(self) -> dict[str, Any]:
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """Initializes to 1."""

    def __init__(self, dtype: DTypeLike = _dt.float32) -> None:
        self.dtype = _dt.as_dtype(dtype)

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        from .ops.array_ops import ones

        return ones(_shape_list(shape), _dt.as_dtype(dtype or self.dtype))

    def get_config(self) -> dict[str, Any]:
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """Initializes to ``value``: a scalar (filled), or a list/array; a value with fewer
    elements than the shape is padded with its last element (TF1 graph mode)."""

    def __init__(
        self, value: TensorLike = 0, dtype: DTypeLike = _dt.float32, verify_shape: bool = False
    ) -> None:
        if not np.isscalar(value) and not isinstance(value, (list, tuple, np.ndarray)):
            raise TypeError(
                "Invalid type for initial value: %s (expected Python scalar, "
                "list or tuple of values, or numpy.ndarray)." % type(value)
            )
        self.value = value
        self.dtype = _dt.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
        verify_shape: bool | None = None,
    ) -> Tensor:
        dtype = _dt.as_dtype(dtype or self.dtype)
        shape = _shape_list(shape)
        arr = np.asarray(self.value)
        n = int(np.prod(shape))
        verify = self._verify_shape if verify_shape is None else verify_shape
        if arr.size not in (1, n):
            if verify or arr.size > n or arr.size == 0:
                raise TypeError(
                    "Expected Tensor's shape: %s, got %s (constant_initializer "
                    "value has %d elements for a shape with %d)."
                    % (tuple(shape), arr.shape, arr.size, n)
                )
            flat = arr.reshape(-1)
            arr = np.concatenate([flat, np.repeat(flat[-1:], n - flat.size)])
        return constant_op(arr, dtype, shape, name="Const")

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value, "dtype": self.dtype.name}


def _seeds(op_seed):
    """TF1's get_seed: the (graph seed, op seed) pair, or (None, None)."""
    g = get_default_graph()
    gseed = g.seed
    if gseed is not None:
        if op_seed is None:
            op_seed = len(g.get_operations())
        return gseed, op_seed
    if op_seed is not None:
        return _DEFAULT_GRAPH_SEED, op_seed
    return None, None


def _sample(kind, shape, dtype, seed, name, **p):
    """A random tensor from the random ops, else (see module note) a numpy constant."""
    from .ops import random_ops

    fn = getattr(random_ops, kind, None)
    if fn is not None:
        return fn(shape, dtype=dtype, seed=seed, **p)
    gs, os_ = _seeds(seed)
    rng = np.random.default_rng(None if gs is None else [gs, os_])
    if kind == "random_uniform":
        x = rng.uniform(p["minval"], p["maxval"], shape)
    elif kind == "random_normal":
        x = rng.normal(p["mean"], p["stddev"], shape)
    else:
        x = rng.standard_normal(shape)
        bad = np.abs(x) > 2.0
        while bad.any():
            x[bad] = rng.standard_normal(int(bad.sum()))
            bad = np.abs(x) > 2.0
        x = x * p["stddev"] + p["mean"]
    return constant_op(x.astype(dtype.np), dtype, name=name)


class RandomUniform(Initializer):
    """Uniform in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats)."""

    def __init__(
        self,
        minval: TensorLike = 0,
        maxval: TensorLike | None = None,
        seed: int | None = None,
        dtype: DTypeLike = _dt.float32,
    ) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = _dt.as_dtype(dtype)

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        dtype = _dt.as_dtype(dtype or self.dtype)
        maxval = self.maxval
        if maxval is None:
            if not dtype.is_floating:
                raise ValueError("Must specify maxval for integer dtype %s" % dtype.name)
            maxval = 1
        return _sample(
            "random_uniform",
            _shape_list(shape),
            dtype,
            self.seed,
            "random_uniform",
            minval=self.minval,
            maxval=maxval,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "minval": self.minval,
            "maxval": self.maxval,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class RandomNormal(Initializer):
    """Normal with ``mean`` and ``stddev``."""

    def __init__(
        self,
        mean: float = 0.0,
        stddev: float = 1.0,
        seed: int | None = None,
        dtype: DTypeLike = _dt.float32,
    ) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _float_dtype(dtype)

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        return _sample(
            "random_normal",
            _shape_list(shape),
            _float_dtype(dtype or self.dtype),
            self.seed,
            "random_normal",
            mean=self.mean,
            stddev=self.stddev,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "stddev": self.stddev,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class TruncatedNormal(RandomNormal):
    """Normal with ``mean`` and ``stddev``, redrawn beyond two standard deviations."""

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        return _sample(
            "truncated_normal",
            _shape_list(shape),
            _float_dtype(dtype or self.dtype),
            self.seed,
            "truncated_normal",
            mean=self.mean,
            stddev=self.stddev,
        )


def _fans(shape: Sequence[int]) -> tuple[float, float]:
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = float(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n`` where n is fan_in, fan_out or their mean."""

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
        dtype: DTypeLike = _dt.float32,
    ) -> None:
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(
                "Invalid `mode` argument: %r (use 'fan_in', 'fan_out' or 'fan_avg')" % (mode,)
            )
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(
                "Invalid `distribution` argument: %r (use 'truncated_normal', "
                "'untruncated_normal' or 'uniform')" % (distribution,)
            )
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _float_dtype(dtype)

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        dtype = _float_dtype(dtype or self.dtype)
        shape = _shape_list(shape)
        # TF: a part of a partitioned variable is scaled by the whole variable's fans.
        fan_in, fan_out = _fans(
            _shape_list(partition_info.full_shape) if partition_info is not None else shape
        )
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, n[self.mode])
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / 0.87962566103423978
            return _sample(
                "truncated_normal",
                shape,
                dtype,
                self.seed,
                "truncated_normal",
                mean=0.0,
                stddev=stddev,
            )
        if self.distribution == "untruncated_normal":
            return _sample(
                "random_normal",
                shape,
                dtype,
                self.seed,
                "random_normal",
                mean=0.0,
                stddev=math.sqrt(scale),
            )
        limit = math.sqrt(3.0 * scale)
        return _sample(
            "random_uniform", shape, dtype, self.seed, "random_uniform", minval=-limit, maxval=limit
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class GlorotUniform(VarianceScaling):
    """Uniform in ``[-l, l]``, ``l = sqrt(6 / (fan_in + fan_out))`` (get_variable's default)."""

    def __init__(self, seed: int | None = None, dtype: DTypeLike = _dt.float32) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with ``stddev = sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, seed: int | None = None, dtype: DTypeLike = _dt.float32) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal


def _he_normal(seed: int | None = None) -> VarianceScaling:
    """He et al.: truncated normal with ``stddev = sqrt(2 / fan_in)`` (``tf.initializers``)."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def _he_uniform(seed: int | None = None) -> VarianceScaling:
    """He et al.: uniform in ``[-l, l]``, ``l = sqrt(6 / fan_in)`` (``tf.initializers``)."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def _lecun_normal(seed: int | None = None) -> VarianceScaling:
    """LeCun: truncated normal with ``stddev = sqrt(1 / fan_in)`` (``tf.initializers``)."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def _lecun_uniform(seed: int | None = None) -> VarianceScaling:
    """LeCun: uniform in ``[-l, l]``, ``l = sqrt(3 / fan_in)`` (``tf.initializers``)."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


initializers = types.SimpleNamespace(
    zeros=Zeros,
    ones=Ones,
    constant=Constant,
    random_uniform=RandomUniform,
    random_normal=RandomNormal,
    truncated_normal=TruncatedNormal,
    variance_scaling=VarianceScaling,
    glorot_uniform=GlorotUniform,
    glorot_normal=GlorotNormal,
    he_normal=_he_normal,
    he_uniform=_he_uniform,
    lecun_normal=_lecun_normal,
    lecun_uniform=_lecun_uniform,
    tables_initializer=tables_initializer,
)
