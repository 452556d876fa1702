"""String hashing into buckets: ``to_hash_bucket_fast`` (FarmHash's Fingerprint64),
``to_hash_bucket_strong`` (keyed SipHash-2-4) and the legacy ``string_to_hash_bucket``
(TF's own 64-bit MurmurHash variant), each equal bit for bit to TF's.

Fingerprint64 comes from ``pyfarmhash`` (FarmHash's C++, the ``flowrt[text]`` extra);
SipHash and TF's Hash64 are short enough to write here, one Python loop over 8-byte
words per string.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core import extras
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import in_graph_of, make, to_tensor
from .string_ops import as_bytes_list

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["string_to_hash_bucket_fast", "string_to_hash_bucket_strong", "string_to_hash_bucket"]

_M64 = (1 << 64) - 1


def _tf_hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's ``Hash64`` (tensorflow/core/lib/hash/hash.cc): MurmurHash64A."""
    m, r = 0xC6A4A7935BD1E995, 47
    h = (seed ^ (len(s) * m)) & _M64
    whole = len(s) // 8 * 8
    for (k,) in struct.iter_unpack("<Q", s[:whole]):
        k = (k * m) & _M64
        k ^= k >> r
        h ^= (k * m) & _M64
        h = (h * m) & _M64
    if whole < len(s):
        h ^= int.from_bytes(s[whole:], "little")
        h = (h * m) & _M64
    h ^= h >> r
    h = (h * m) & _M64
    return h ^ (h >> r)


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _M64


def _sip_rounds(v0, v1, v2, v3, n):
    for _ in range(n):
        v0 = (v0 + v1) & _M64
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _M64
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _M64
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _M64
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def _siphash24(k0: int, k1: int, s: bytes) -> int:
    """SipHash-2-4 of ``s`` under the 128-bit key ``(k0, k1)`` (TF's StrongKeyedHash)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    whole = len(s) // 8 * 8
    last = ((len(s) & 0xFF) << 56) | int.from_bytes(s[whole:], "little")
    for m in [k for (k,) in struct.iter_unpack("<Q", s[:whole])] + [last]:
        v3 ^= m
        v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2 ^ 0xFF, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _check_buckets(op_type: str, num_buckets) -> int:
    n = int(num_buckets)
    if n < 1:
        raise ValueError(
            "Attr 'num_buckets' of '%s' Op passed %d less than minimum 1." % (op_type, n)
        )
    return n


def _bucket_op(op_type: str, arg: str, x, num_buckets, name, attrs=None) -> Tensor:
    n = _check_buckets(op_type, num_buckets)
    with in_graph_of([x]):
        t = to_tensor(x, _dt.string if not isinstance(x, Tensor) else None, name=arg)
        if t.dtype is not _dt.string:
            raise TypeError(
                "Value passed to parameter '%s' has DataType %s not in list of allowed "
                "values: string" % (arg, t.dtype.name)
            )
        return make(op_type, [t], {"num_buckets": n, **(attrs or {})}, name, op_type)


def string_to_hash_bucket_fast(
    input: TensorLike, num_buckets: int, name: str | None = None
) -> Tensor:
    """Hashes each string to a bucket in ``[0, num_buckets)`` with FarmHash's
    Fingerprint64 (op ``StringToHashBucketFast``): stable across runs and machines,
    equal to TF's, not resistant to chosen inputs.

    Returns:
      An int64 tensor of ``input``'s shape.

    Raises:
      ValueError: for ``num_buckets`` below 1.
    """
    return _bucket_op("StringToHashBucketFast", "input", input, num_buckets, name)


def string_to_hash_bucket_strong(
    input: TensorLike, num_buckets: int, key: Sequence[int], name: str | None = None
) -> Tensor:
    """Hashes each string to a bucket in ``[0, num_buckets)`` with SipHash-2-4 under
    ``key`` (op ``StringToHashBucketStrong``): an adversary who does not know the key
    cannot choose strings that collide.

    Args:
      input: a string tensor.
      num_buckets: the number of buckets, at least 1.
      key: two non-negative integers below 2**63, the 128-bit SipHash key.
      name: a name for the op.

    Returns:
      An int64 tensor of ``input``'s shape.

    Raises:
      ValueError: for ``num_buckets`` below 1.
      InvalidArgumentError: (at run time, as TF) for a ``key`` of another length.
    """
    key = [int(k) for k in key]
    for k in key:
        if not 0 <= k < 2**63:
            raise ValueError("Value out of range: %d" % k)
    return _bucket_op("StringToHashBucketStrong", "input", input, num_buckets, name, {"key": key})


def string_to_hash_bucket(
    string_tensor: TensorLike | None = None,
    num_buckets: int | None = None,
    name: str | None = None,
    input: TensorLike | None = None,
) -> Tensor:
    """Hashes each string to a bucket in ``[0, num_buckets)`` with TF's legacy Hash64
    (op ``StringToHashBucket``); new code uses ``string_to_hash_bucket_fast``.

    Args:
      string_tensor: a string tensor.
      num_buckets: the number of buckets, at least 1.
      name: a name for the op.
      input: TF1's alias of ``string_tensor``.

    Returns:
      An int64 tensor of the input's shape.
    """
    if string_tensor is None:
        string_tensor = input
    if num_buckets is None:
        raise TypeError("string_to_hash_bucket() missing required argument 'num_buckets'")
    return _bucket_op("StringToHashBucket", "string_tensor", string_tensor, num_buckets, name)


def _farmhash():
    """``pyfarmhash``, imported when a fast hash bucket first runs (``flowrt[text]``)."""
    return extras.require("farmhash", "text", "fr.strings.to_hash_bucket_fast")


def _bucket_kernel(hash_of):
    def kernel(ctx, op, x):
        h = hash_of(op)
        n = op.attrs["num_buckets"]
        vals = np.fromiter((h(s) % n for s in as_bytes_list(x)), np.int64, count=np.size(x))
        return (vals.reshape(np.shape(x)),)

    return kernel


def _strong_hash(op):
    key = op.attrs["key"]
    if len(key) != 2:
        raise errors.InvalidArgumentError(None, op, "Key must have 2 elements, got %d" % len(key))
    k0, k1 = key
    return lambda s: _siphash24(k0, k1, s)


for _type, _hash in [
    ("StringToHashBucketFast", lambda op: _farmhash().fingerprint64),
    ("StringToHashBucketStrong", _strong_hash),
    ("StringToHashBucket", lambda op: _tf_hash64),
]:
    register_op(
        _type,
        infer=lambda op: [(_dt.int64, op.inputs[0].shape)],
        kernel=_bucket_kernel(_hash),
        grad=NOT_DIFFERENTIABLE,
        quiet=True,
    )
