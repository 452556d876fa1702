"""The structures of a run's feeds and fetches: flattening a nest of fetches to graph
elements and rebuilding it with the results (as TF1's fetch mappers), and converting a
fed value to its tensor's dtype and shape with TF1's errors; resolving a ``feed_dict``'s
keys to tensors."""

from __future__ import annotations

import collections
import collections.abc
import functools
import reprlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from . import dtypes as _dt
from . import nest as _nest
from ._core import graph as _graph
from ._core.graph import Graph, Operation, Tensor

__all__ = [
    "Fetches",
    "fetch_key",
    "fetch_value",
    "feed_value",
    "mapping_constructor",
    "resolve_feeds",
]


class Fetches:
    """Flattens a nest of fetches to unique graph elements and rebuilds the results."""

    __slots__ = ("tensors", "targets", "build")

    def __init__(self, graph: Graph, fetches: Any) -> None:
        self.tensors: list[Tensor] = []
        self.targets: list[Operation] = []
        index: dict = {}

        def elem(x):
            try:
                e = graph.as_graph_element(x)
            except KeyError as err:
                raise ValueError(
                    "Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (x, err.args[0])
                ) from None
            except TypeError:
                raise TypeError(
                    "Fetch argument %r has invalid type %r, must be a string or "
                    "Tensor. (Can not convert a %s into a Tensor or Operation.)"
                    % (x, type(x), type(x).__name__)
                ) from None
            except ValueError as err:
                raise ValueError(
                    "Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (x, err)
                ) from None
            if isinstance(e, Operation):
                if e not in index:
                    index[e] = None
                    self.targets.append(e)
                return lambda vals: None
            if e not in index:
                index[e] = len(self.tensors)
                self.tensors.append(e)
            i = index[e]
            return lambda vals: vals[i]

        def walk(x):
            if x is None:
                raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
            comps = getattr(x, "_fetch_components", None)
            if comps is not None and not isinstance(x, type):
                parts = [walk(c) for c in comps()]
                rebuild = x._fetch_rebuild
                return lambda vals: rebuild([p(vals) for p in parts])
            if isinstance(x, (Tensor, Operation, str)) or hasattr(x, "_as_tensor"):
                return elem(x)
            if isinstance(x, Mapping):
                keys = list(x)
                parts = [walk(x[k]) for k in keys]
                make = mapping_constructor(x)
                return lambda vals: make(zip(keys, (p(vals) for p in parts)))
            if isinstance(x, tuple) and hasattr(x, "_fields"):
                parts = [walk(v) for v in x]
                cls = type(x)
                return lambda vals: cls(*[p(vals) for p in parts])
            if isinstance(x, (list, tuple)):
                parts = [walk(v) for v in x]
                cls = type(x)
                return lambda vals: cls([p(vals) for p in parts])
            return elem(x)

        self.build = walk(fetches)


_CONTAINERS = (list, tuple, dict)


def fetch_key(fetches: Any) -> Any:
    """A hashable key for fetch structures whose flattening can be cached: a single
    element, or a flat list/tuple of elements; None for anything else."""
    t = type(fetches)
    if t is list or t is tuple:
        for x in fetches:
            if isinstance(x, _CONTAINERS) or getattr(x, "__hash__", None) is None:
                return None
        return (t,) + tuple(fetches)
    if isinstance(fetches, _CONTAINERS) or getattr(fetches, "__hash__", None) is None:
        return None
    return fetches


def fetch_value(v: Any) -> Any:
    """TF1 hands back fresh numpy values: scalars as numpy scalars, strings as bytes."""
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return v[()]
        if not v.flags.writeable:
            return v.copy()
    return v


def mapping_constructor(fetches: Mapping) -> Callable:
    """The callable that rebuilds ``fetches``' type from ``(key, value)`` pairs.

    A ``defaultdict`` keeps its ``default_factory``; any other ``Mapping`` type is called
    with the pairs (TF1's rule, so a custom ``Mapping`` must accept an iterable of pairs).
    """
    if isinstance(fetches, collections.defaultdict):
        return functools.partial(collections.defaultdict, fetches.default_factory)
    return type(fetches)


def _short(value: Any) -> str:
    """A repr bounded in depth and length: a fed list nested thousands deep must give
    its error, not a RecursionError from printing it."""
    return reprlib.repr(value)


def _incompatible(t: Tensor, value, type_name: str) -> str:
    return (
        "Type of feed value %s with type %s is not compatible with Tensor type <class "
        "'%s'> of Tensor %r. Try explicitly setting the type of the feed tensor to a "
        "larger type (e.g. int64)." % (_short(value), type(value), type_name, t.name)
    )


def feed_value(t: Tensor, value: Any) -> Any:
    """Converts a fed value to the tensor's dtype and checks its static shape."""
    dt = t.dtype
    if isinstance(value, Tensor):
        raise TypeError(
            "The value of a feed cannot be a fr.Tensor object. Acceptable feed "
            "values include Python scalars, strings, lists, numpy ndarrays, or "
            "TensorHandles. For reference, the tensor object was %s which was "
            "passed to the argument `feed_dict` with key %s." % (value, t)
        )
    if dt is _dt.string:
        try:
            arr = _graph._string_array(value)
        except TypeError:
            raise TypeError(_incompatible(t, value, "object")) from None
    else:
        try:
            with np.errstate(invalid="ignore"):  # as TF1: a float out of range or NaN casts
                arr = np.asarray(value, dtype=dt.np)
        except (OverflowError, TypeError, ValueError) as e:
            arr = _cast_floats(t, value, e)
    shape = t.shape
    if shape.ndims is not None and not shape.is_compatible_with(arr.shape):
        raise ValueError(
            "Cannot feed value of shape %r for Tensor %r, which has shape %r"
            % (arr.shape, t.name, str(shape))
        )
    return arr


def _cast_floats(t: Tensor, value: Any, error: Exception) -> np.ndarray:
    """A fed list of Python floats that ``np.asarray`` refuses for an integer dtype (one
    out of range, or NaN) cast as TF1 casts them; any other refusal as TF's error."""
    dt = t.dtype
    try:
        raw = np.asarray(value)
    except ValueError:
        raw = None
    if raw is not None and raw.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            return raw.astype(dt.np)
    if isinstance(error, OverflowError):
        raise TypeError(_incompatible(t, value, "numpy." + np.dtype(dt.np).name)) from None
    raise ValueError(
        "Cannot feed value %s for Tensor %r of dtype %s: %s"
        % (_short(value), t.name, dt.name, error)
    ) from None


def _flatten_nested_keys(feed_dict: Mapping) -> Any:
    """TF's ``nest.flatten_dict_items``: a nested key (a tuple such as an
    ``LSTMStateTuple``) feeds its leaves from the leaves of its value, paired in order."""
    if not any(_nest.is_nested(k) for k in feed_dict):
        return feed_dict.items()
    items: dict = {}
    for key, value in feed_dict.items():
        pairs = [(key, value)]
        if _nest.is_nested(key):
            keys, vals = _nest.flatten(key), _nest.flatten(value)
            if len(keys) != len(vals):
                raise ValueError(
                    "Could not flatten dictionary. Key had %d elements, but value had %d "
                    "elements. Key: %s, value: %s." % (len(keys), len(vals), keys, vals)
                )
            pairs = list(zip(keys, vals, strict=True))
        for k, v in pairs:
            if k in items:
                raise ValueError("Cannot flatten dict because this key is not unique: %s" % k)
            items[k] = v
    return items.items()


def resolve_feeds(graph: Graph, feed_dict: Any) -> tuple[tuple, list]:
    """A run's ``feed_dict`` as ``(tensors, values)``: each key resolved to a tensor of
    ``graph`` (a Tensor, a name, a structure with ``_feed_components`` such as a
    SparseTensor, or a nest of these fed from a nest of values), each value converted by
    ``feed_value``."""
    if not isinstance(feed_dict, collections.abc.Mapping):
        raise TypeError(
            "feed_dict must be a dictionary or collections.abc.Mapping "
            "from tensors to values, got %s" % type(feed_dict).__name__
        )
    tensors, values = [], []
    for key, value in _flatten_nested_keys(feed_dict):
        if type(key) is Tensor and key.op.graph is graph:
            tensors.append(key)
            values.append(feed_value(key, value))
            continue
        comps = getattr(key, "_feed_components", None)
        pairs = comps(value) if comps is not None else [(key, value)]
        for k, v in pairs:
            try:
                t = graph.as_graph_element(k, allow_tensor=True, allow_operation=False)
                assert isinstance(t, Tensor)  # allow_operation=False
            except (KeyError, ValueError, TypeError) as e:
                raise TypeError(
                    "Cannot interpret feed_dict key as Tensor: %s" % (e.args[0] if e.args else e)
                ) from None
            tensors.append(t)
            values.append(feed_value(t, v))
    return tuple(tensors), values
