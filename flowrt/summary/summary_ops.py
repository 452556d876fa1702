"""Summary ops: ``ScalarSummary``, ``HistogramSummary`` and ``MergeSummary``.

Each op outputs a scalar string holding a serialized ``Summary`` protobuf, byte for byte
what TF's kernel outputs. Each op type is registered once below its public wrapper.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np
from google.protobuf.message import DecodeError

from .. import dtypes as _dt
from .. import errors
from .._core.graph import GraphKeys, Tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from ..ops.common import TensorShape, check_dtype, make, to_tensor
from ..scopes import name_scope
from .protos import Summary, histogram_proto

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["scalar", "histogram", "merge", "merge_all"]

# TF's list, less the type flowrt has not got (bfloat16).
_REAL = (
    _dt.float32,
    _dt.float64,
    _dt.int32,
    _dt.uint8,
    _dt.int16,
    _dt.int8,
    _dt.int64,
    _dt.uint16,
    _dt.float16,
    _dt.uint32,
    _dt.uint64,
)

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def _clean_tag(name):
    """TF1's rule: characters other than ``[-/\\w.]`` become ``_``; leading ``/`` dropped."""
    if name is None:
        return None
    return _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")


class _summary_scope:  # noqa: N801 - a context manager, like name_scope
    """TF1's ``summary_scope``: a name scope for the op, yielding ``(tag, scope)``; the tag
    is the scope without its slash, prefixed with ``family/`` when there is a family (so
    TensorBoard shows it in the family's section)."""

    def __init__(self, name, family, default_name, values):
        name, self._family = _clean_tag(name), _clean_tag(family)
        base = name if family is None or name is None else "%s/%s" % (self._family, name)
        self._scope = name_scope(base or None, default_name, values)

    def __enter__(self):
        scope = self._scope.__enter__()
        tag = scope.rstrip("/")
        if self._family is not None:
            tag = "%s/%s" % (self._family, tag)
        return tag, scope

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)


def _collect(value, collections, default):
    g = value.graph
    for key in default if collections is None else collections:
        g.add_to_collection(key, value)


def _shape_str(shape) -> str:
    return "[%s]" % ",".join(str(d) for d in shape)


def _tag_str(t) -> str:
    return t.decode("utf-8", "replace") if isinstance(t, bytes) else str(t)


def _summary_op(
    op_type: str,
    name: str,
    family: str | None,
    values: list,
    collections: list[str] | None,
    build: Callable[[], tuple[list[Tensor], dict]],
    default_name: str | None = None,
    tag_input: str = "tag",
) -> Tensor:
    """The one shape of every summary wrapper: under ``_summary_scope``, the tag becomes
    the op's first input (named ``tag_input``), ``build()`` makes its other inputs and
    its attrs, the op is named for the scope, and it joins ``collections`` (default
    ``[SUMMARIES]``)."""
    with _summary_scope(name, family, default_name, values) as (tag, scope):
        tag_t = to_tensor(tag, _dt.string, name=tag_input)
        inputs, attrs = build()
        val = make(op_type, [tag_t, *inputs], attrs, name=scope)
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def _register_summary(op_type: str, kernel: Callable[..., tuple], infer=None) -> None:
    """Registers a summary op: a scalar string output, no gradient."""
    register_op(
        op_type,
        infer=infer or (lambda op: [(_dt.string, TensorShape([]))]),
        kernel=kernel,
        grad=NOT_DIFFERENTIABLE,
    )


def _serialized(s: Summary) -> tuple[np.ndarray]:
    """A kernel's result: the ``Summary`` serialized, as a scalar string."""
    return (np.array(s.SerializeToString(), dtype=object),)


def _scalar_tag(tag) -> str:
    """The tag string of a kernel's scalar tag input."""
    return _tag_str(np.asarray(tag, dtype=object)[()])


# --------------------------------------------------------------------------------------
# ScalarSummary
# --------------------------------------------------------------------------------------


def scalar(
    name: str,
    tensor: TensorLike,
    collections: list[str] | None = None,
    family: str | None = None,
) -> Tensor:
    """A summary of one real number, shown as a curve by TensorBoard.

    Args:
      name: the tag's last part; the tag is the name under the current name scope.
      tensor: a real numeric scalar.
      collections: graph collections to add the summary to (default ``[SUMMARIES]``).
      family: an optional prefix for the tag and the op name (a TensorBoard section).

    Returns:
      A scalar string tensor holding a serialized ``Summary``.
    """

    def build():
        values = to_tensor(tensor, name="values")
        check_dtype(values, _REAL, "values")
        return [values], {"T": values.dtype}

    return _summary_op(
        "ScalarSummary", name, family, [tensor], collections, build, tag_input="tags"
    )


def _scalar_summary_kernel(ctx, op, tags, values):
    tags, values = np.asarray(tags, dtype=object), np.asarray(values)
    if tags.shape != values.shape:
        single = " (tag '%s')" % _tag_str(tags.reshape(-1)[0]) if tags.size == 1 else ""
        raise errors.InvalidArgumentError(
            None,
            op,
            "tags and values are not the same shape: %s != %s%s"
            % (_shape_str(tags.shape), _shape_str(values.shape), single),
        )
    s = Summary(
        value=[
            Summary.Value(tag=_tag_str(t), simple_value=float(v))
            for t, v in zip(tags.flat, values.flat, strict=True)
        ]
    )
    return _serialized(s)


_register_summary("ScalarSummary", _scalar_summary_kernel)

# --------------------------------------------------------------------------------------
# HistogramSummary
# --------------------------------------------------------------------------------------


def histogram(
    name: str,
    values: TensorLike,
    collections: list[str] | None = None,
    family: str | None = None,
) -> Tensor:
    """A histogram of all elements of ``values`` (TF's exponential default buckets).

    Args:
      name: the tag's last part; the tag is the name under the current name scope.
      values: a real numeric tensor of any shape; NaN or infinity fails the run.
      collections: graph collections to add the summary to (default ``[SUMMARIES]``).
      family: an optional prefix for the tag and the op name (a TensorBoard section).

    Returns:
      A scalar string tensor holding a serialized ``Summary``.
    """

    def build():
        t = to_tensor(values, name="values")
        check_dtype(t, _REAL, "values")
        return [t], {"T": t.dtype}

    return _summary_op(
        "HistogramSummary", name, family, [values], collections, build, "HistogramSummary"
    )


def _histogram_summary_kernel(ctx, op, tag, values):
    tag = np.asarray(tag, dtype=object)
    if tag.shape != ():
        raise errors.InvalidArgumentError(None, op, "tags must be scalar")
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:  # TF stops at the first non-finite value
        what = (
            "Nan in summary histogram for: "
            if np.isnan(x[bad[0]])
            else "Infinity in Histogram for: "
        )
        raise errors.InvalidArgumentError(None, op, what + op.name)
    s = Summary(value=[Summary.Value(tag=_tag_str(tag[()]), histo=histogram_proto(x))])
    return _serialized(s)


_register_summary("HistogramSummary", _histogram_summary_kernel)

# --------------------------------------------------------------------------------------
# MergeSummary
# --------------------------------------------------------------------------------------


def merge(
    inputs: Iterable[TensorLike], collections: list[str] | None = None, name: str | None = None
) -> Tensor:
    """Merges serialized ``Summary`` tensors into one; a tag seen twice fails the run.

    Args:
      inputs: string tensors (any shape) of serialized ``Summary`` protos.
      collections: graph collections to add the result to (default none).
      name: a name for the op.

    Returns:
      A scalar string tensor holding the merged ``Summary``.
    """
    inputs = list(inputs)
    if not inputs:
        raise ValueError(
            "List argument 'inputs' to 'MergeSummary' Op with length 0 shorter "
            "than minimum length 1."
        )
    name = _clean_tag(name)
    with name_scope(name, "Merge", inputs):
        tensors = [to_tensor(x) for x in inputs]
        val = make(
            "MergeSummary", tensors, {"N": len(tensors)}, name=name, default_name="MergeSummary"
        )
        _collect(val, collections, [])
    return val


def merge_all(
    key: str = GraphKeys.SUMMARIES, scope: str | None = None, name: str | None = None
) -> Tensor | None:
    """Merges every summary in collection ``key`` (those whose name matches ``scope``).

    Returns:
      A scalar string tensor, or None when the collection is empty.
    """
    summaries = get_default_graph().get_collection(key, scope=scope)
    return merge(summaries, name=name) if summaries else None


def _merge_infer(op):
    for i, t in enumerate(op.inputs):
        if t.dtype != _dt.string:
            raise TypeError(
                "MergeSummary input %d has dtype %s, expected string" % (i, t.dtype.name)
            )
    return [(_dt.string, TensorShape([]))]


def _merge_summary_kernel(ctx, op, *inputs):
    # Summary has one field, the repeated ``value``: merging is concatenating the values,
    # re-serialized as TF's kernel does.
    out, seen = Summary(), set()
    for x in inputs:
        for serialized in np.asarray(x, dtype=object).flat:
            try:
                values = Summary.FromString(bytes(serialized)).value
            except (DecodeError, TypeError):
                raise errors.InvalidArgumentError(
                    None, op, "Could not parse one of the summary inputs"
                ) from None
            for v in values:
                # Only the new-style ops leave the tag empty; TF checks the others.
                if v.tag and v.tag in seen:
                    raise errors.InvalidArgumentError(
                        None, op, "Duplicate tag %s found in summary inputs " % v.tag
                    )
                seen.add(v.tag)
            out.value.extend(values)
    return _serialized(out)


_register_summary("MergeSummary", _merge_summary_kernel, _merge_infer)
