"""TF's ``SaveV2`` and ``RestoreV2`` ops: the save and restore subgraph a ``SaverDef``
names, as TF's ``Saver`` builds it and flowrt's GraphDef writer exports it
(``saver_graph.saver_graph_def``), so a meta graph with that subgraph imports and runs
in flowrt as in TF. flowrt's own ``Saver`` reads and writes the bundle directly.

A sharded Saver's save path runs too: ``ShardedFilename`` names each shard's temporary
bundle and ``MergeV2Checkpoints`` merges them into the checkpoint.

Both read and write TF's V2 tensor bundle (``tensor_bundle.py``); a slice spec
(``"10 4 0,5:0,4"``) restores that slice of the saved tensor, and saves it as a whole
tensor only when it spans the whole (flowrt writes a partitioned variable whole).
"""

from __future__ import annotations

import glob
import os

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from .saver import _write_bundle_files
from .tensor_bundle import BundleReader


def _text(v) -> str:
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _slices(op, spec: str) -> tuple[slice, ...] | None:
    """The numpy index of a TF slice spec, or None for the whole tensor."""
    if not spec:
        return None
    try:
        *_full, extents = spec.split(" ")
        index = []
        for e in extents.split(":"):
            if e == "-":
                index.append(slice(None))
            else:
                start, length = (int(x) for x in e.split(","))
                index.append(slice(start, start + length))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, op, "%s '%s': bad slice spec %r" % (op.type, op.name, spec)
        ) from None
    return tuple(index)


def _restore_kernel(ctx, op, prefix, names, specs):
    ckpt = BundleReader(_text(np.asarray(prefix).item()))
    out = []
    for name, spec, dtype in zip(names.flat, specs.flat, op.attrs["dtypes"], strict=True):
        key = _text(name)
        if key not in ckpt:
            raise errors.NotFoundError(
                None, op, "Key %s not found in checkpoint %s" % (key, ckpt.prefix)
            )
        value = ckpt.read(key)
        if value.dtype != dtype.np:
            raise errors.InvalidArgumentError(
                None,
                op,
                "tensor_name = %s; expected dtype %s does not equal original dtype %s"
                % (key, dtype.name, _dt.as_dtype(value.dtype).name),
            )
        index = _slices(op, _text(spec))
        out.append(value if index is None else np.ascontiguousarray(value[index]))
    return tuple(out)


def _save_kernel(ctx, op, prefix, names, specs, *tensors):
    by_name = {}
    for name, spec, value in zip(names.flat, specs.flat, tensors, strict=True):
        if _text(spec):
            raise errors.UnimplementedError(
                None,
                op,
                "%s '%s': saving slice %r of %s: flowrt saves a partitioned variable "
                "whole (use its Saver)" % (op.type, op.name, _text(spec), _text(name)),
            )
        by_name[_text(name)] = np.asarray(value)
    path = _text(np.asarray(prefix).item())
    if os.path.dirname(path):
        # TF's BundleWriter makes the directory (a sharded save's "<prefix>_temp/").
        os.makedirs(os.path.dirname(path), exist_ok=True)
    _write_bundle_files(path, by_name)
    return ()


register_op(
    "RestoreV2",
    infer=lambda op: [(dt, unknown_shape()) for dt in op.attrs["dtypes"]],
    kernel=_restore_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "SaveV2",
    infer=lambda op: [],
    kernel=_save_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _sharded_filename_kernel(ctx, op, basename, shard, num_shards):
    name = "%s-%05d-of-%05d" % (_text(np.asarray(basename).item()), int(shard), int(num_shards))
    return (np.array(name.encode("utf-8"), dtype=object),)


def _merge_kernel(ctx, op, prefixes, destination):
    """TF's ``MergeV2Checkpoints``: the bundles at ``prefixes`` (a sharded Saver's
    per-shard files) as one bundle at ``destination``, the shards' files deleted."""
    merged = {}
    sources = [_text(p) for p in np.asarray(prefixes).flat]
    for prefix in sources:
        ckpt = BundleReader(prefix)
        for name in ckpt.names():
            merged[name] = ckpt.read(name)
    _write_bundle_files(_text(np.asarray(destination).item()), merged)
    for prefix in sources:
        for path in glob.glob(glob.escape(prefix) + ".*"):
            os.remove(path)
        parent = os.path.dirname(prefix)
        if op.attrs.get("delete_old_dirs", True) and parent and not os.listdir(parent):
            os.rmdir(parent)
    return ()


register_op(
    "ShardedFilename",
    infer=lambda op: [(_dt.string, TensorShape([]))],
    kernel=_sharded_filename_kernel,
    grad=NOT_DIFFERENTIABLE,
)
register_op(
    "MergeV2Checkpoints",
    infer=lambda op: [],
    kernel=_merge_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
