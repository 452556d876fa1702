"""Summary ops of images, audio and tensors: ``ImageSummary``, ``AudioSummaryV2`` and
``TensorSummaryV2`` (behind ``image``, ``audio``, ``text`` and ``tensor_summary``).

Each op outputs a scalar string holding a serialized ``Summary``, with TF's tags
(``name/image/0``), pixel scaling and WAV encoding, so TensorBoard's image, audio and
text dashboards read them. PNGs are Pillow's bytes (the pixels are TF's).
"""

from __future__ import annotations

import io
import struct
from typing import TYPE_CHECKING

import numpy as np
from google.protobuf.message import DecodeError

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from ..graph_export import fill_tensor_proto
from ..ops.common import check_dtype, to_tensor
from .protos import Summary, SummaryMetadata
from .summary_ops import _register_summary, _scalar_tag, _serialized, _summary_op

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["image", "audio", "text", "tensor_summary"]

_IMAGE_TYPES = (_dt.uint8, _dt.float32, _dt.float16, _dt.float64)

# TF's default ``bad_color``: opaque red, for pixels with a non-finite channel.
_BAD_COLOR = np.array([255, 0, 0, 255], dtype=np.uint8)


def _check_max(value: int, attr: str, op_type: str) -> int:
    if value < 1:
        raise ValueError(
            "Attr '%s' of '%s' Op passed %d less than minimum 1." % (attr, op_type, value)
        )
    return value


def _value_tag(tag: str, kind: str, i: int, max_outputs: int) -> str:
    """TF's tags: ``tag/image`` when one output is asked for, else ``tag/image/<i>``."""
    return "%s/%s" % (tag, kind) if max_outputs == 1 else "%s/%s/%d" % (tag, kind, i)


# --------------------------------------------------------------------------------------
# ImageSummary
# --------------------------------------------------------------------------------------


def image(
    name: str,
    tensor: TensorLike,
    max_outputs: int = 3,
    collections: list[str] | None = None,
    family: str | None = None,
) -> Tensor:
    """A summary of up to ``max_outputs`` images of a batch, PNG-encoded.

    Args:
      name: the tag's last part; the tag is the name under the current name scope, with
        ``/image`` appended when ``max_outputs`` is 1 and ``/image/<i>`` otherwise.
      tensor: uint8 or float images ``[batch, height, width, channels]``, channels 1
        (grey), 3 (RGB) or 4 (RGBA). uint8 is kept; a float image is scaled to [0, 255]
        on its own: by ``255 / max`` when it has no negative value, else around 128 by
        ``127 / max(|min|, |max|)``; a pixel with a non-finite channel is drawn red.
      max_outputs: how many images of the batch to write (at least 1).
      collections: graph collections to add the summary to (default ``[SUMMARIES]``).
      family: an optional prefix for the tag and the op name (a TensorBoard section).

    Returns:
      A scalar string tensor holding a serialized ``Summary``.
    """
    _check_max(max_outputs, "max_images", "ImageSummary")

    def build():
        images = to_tensor(tensor)
        check_dtype(images, _IMAGE_TYPES, "tensor")
        return [images], {
            "max_images": max_outputs,
            "bad_color": _BAD_COLOR,
            "T": images.dtype,
        }

    return _summary_op("ImageSummary", name, family, [tensor], collections, build)


def _to_uint8(x: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """TF's ``NormalizeFloatImage`` of one image ``[h, w, depth]``."""
    depth = x.shape[-1]
    x = x.astype(np.float32)
    finite = np.isfinite(x).all(axis=-1)
    good = x[finite]
    lo = float(good.min()) if good.size else np.inf
    hi = float(good.max()) if good.size else -np.inf
    if lo < 0:
        top = max(abs(lo), abs(hi))
        scale, offset = (0.0 if top < 1e-6 else 127.0 / top), 128.0
    else:
        scale, offset = (0.0 if hi < 1e-6 else 255.0 / hi), 0.0
    with np.errstate(invalid="ignore"):
        out = (x * np.float32(scale) + np.float32(offset)).astype(np.uint8)
    out[~finite] = bad_color[:depth]
    return out


def _png(pixels: np.ndarray) -> bytes:
    from PIL import Image

    depth = pixels.shape[-1]
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[depth]
    im = Image.fromarray(pixels if depth > 1 else pixels[..., 0], mode)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def _image_summary_kernel(ctx, op, tag, tensor):
    x = np.asarray(tensor)
    if x.ndim != 4 or x.shape[3] not in (1, 3, 4):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Tensor must be 4-D with last dim 1, 3, or 4, not [%s]" % ",".join(map(str, x.shape)),
        )
    if x.shape[1] * x.shape[2] == 0:
        raise errors.InvalidArgumentError(
            None, op, "input tensor must have non-zero dims. Found: %s." % list(x.shape)
        )
    bad_color = np.asarray(op.attrs["bad_color"])
    if x.dtype != np.uint8 and bad_color.size < x.shape[3]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "bad_color must have at least %d elements, got %s" % (x.shape[3], bad_color),
        )
    max_images = op.attrs["max_images"]
    tag_s = _scalar_tag(tag)
    s = Summary()
    for i in range(min(x.shape[0], max_images)):
        pixels = x[i] if x.dtype == np.uint8 else _to_uint8(x[i], bad_color)
        h, w, depth = pixels.shape
        s.value.add(
            tag=_value_tag(tag_s, "image", i, max_images),
            image=Summary.Image(
                height=h, width=w, colorspace=depth, encoded_image_string=_png(pixels)
            ),
        )
    return _serialized(s)


_register_summary("ImageSummary", _image_summary_kernel)

# --------------------------------------------------------------------------------------
# AudioSummaryV2
# --------------------------------------------------------------------------------------


def audio(
    name: str,
    tensor: TensorLike,
    sample_rate: TensorLike,
    max_outputs: int = 3,
    collections: list[str] | None = None,
    family: str | None = None,
) -> Tensor:
    """A summary of up to ``max_outputs`` clips of a batch, as 16-bit PCM WAV files.

    Args:
      name: the tag's last part; ``/audio`` or ``/audio/<i>`` is appended as for
        ``image``.
      tensor: float32 samples in [-1, 1] (others are clipped), ``[batch, frames]`` or
        ``[batch, frames, channels]``.
      sample_rate: a positive float32 scalar, in Hz.
      max_outputs: how many clips of the batch to write (at least 1).
      collections: graph collections to add the summary to (default ``[SUMMARIES]``).
      family: an optional prefix for the tag and the op name (a TensorBoard section).

    Returns:
      A scalar string tensor holding a serialized ``Summary``.
    """
    _check_max(max_outputs, "max_outputs", "AudioSummaryV2")

    def build():
        clips = to_tensor(tensor)
        if clips.dtype != _dt.float32:
            raise TypeError(
                "Input 'tensor' of 'AudioSummaryV2' Op has type %s that does not match "
                "expected type of float32." % clips.dtype.name
            )
        rate = to_tensor(sample_rate, _dt.float32, name="sample_rate")
        return [clips, rate], {"max_outputs": max_outputs}

    return _summary_op("AudioSummaryV2", name, family, [tensor], collections, build)


def _wav(samples: np.ndarray, rate: float) -> bytes:
    """TF's ``EncodeAudioAsS16LEWav``: samples ``[frames, channels]`` rounded from
    ``x * 32768`` and clipped to int16."""
    frames, channels = samples.shape
    v = samples.astype(np.float32) * np.float32(32768)
    pcm = np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), -32768, 32767)  # C's roundf
    data = pcm.astype("<i2").tobytes()
    rate_i = int(rate)
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(data),
        b"WAVE",
        b"fmt ",
        16,
        1,  # PCM
        channels,
        rate_i,
        rate_i * channels * 2,
        channels * 2,
        16,
        b"data",
        len(data),
    )
    return header + data


def _audio_summary_kernel(ctx, op, tag, tensor, sample_rate):
    x, rate = np.asarray(tensor), np.asarray(sample_rate)
    if rate.size != 1:
        raise errors.InvalidArgumentError(
            None, op, "sample_rate must be rank-0 or contain a single value"
        )
    rate_f = float(rate.reshape(-1)[0])
    if not rate_f > 0:
        raise errors.InvalidArgumentError(None, op, "sample_rate must be > 0")
    if x.ndim not in (2, 3):
        raise errors.InvalidArgumentError(
            None, op, "Tensor must be 3-D or 2-D, got: [%s]" % ",".join(map(str, x.shape))
        )
    if x.ndim == 2:
        x = x[..., None]
    max_outputs = op.attrs["max_outputs"]
    tag_s = _scalar_tag(tag)
    s = Summary()
    for i in range(min(x.shape[0], max_outputs)):
        if x.shape[2] == 0:
            raise errors.InvalidArgumentError(None, op, "audio is null")
        s.value.add(
            tag=_value_tag(tag_s, "audio", i, max_outputs),
            audio=Summary.Audio(
                sample_rate=rate_f,
                num_channels=x.shape[2],
                length_frames=x.shape[1],
                encoded_audio_string=_wav(x[i], rate_f),
                content_type="audio/wav",
            ),
        )
    return _serialized(s)


_register_summary("AudioSummaryV2", _audio_summary_kernel)

# --------------------------------------------------------------------------------------
# TensorSummaryV2 (tensor_summary, text)
# --------------------------------------------------------------------------------------


def tensor_summary(
    name: str,
    tensor: TensorLike,
    summary_description: str | None = None,
    collections: list[str] | None = None,
    summary_metadata: SummaryMetadata | None = None,
    family: str | None = None,
    display_name: str | None = None,
) -> Tensor:
    """A summary holding a whole tensor, for the TensorBoard plugin its metadata names.

    Args:
      name: the tag's last part; the tag is the name under the current name scope.
      tensor: a tensor of any dtype and shape.
      summary_description: set as the metadata's ``summary_description``.
      collections: graph collections to add the summary to (default ``[SUMMARIES]``).
      summary_metadata: a ``SummaryMetadata`` (plugin name and content).
      family: an optional prefix for the tag and the op name (a TensorBoard section).
      display_name: set as the metadata's ``display_name``.

    Returns:
      A scalar string tensor holding a serialized ``Summary``.
    """
    metadata = SummaryMetadata()
    if summary_metadata is not None:
        metadata.CopyFrom(summary_metadata)
    if display_name:
        metadata.display_name = display_name
    if summary_description:
        metadata.summary_description = summary_description

    def build():
        value = to_tensor(tensor)
        meta_t = to_tensor(
            metadata.SerializeToString(), _dt.string, name="serialized_summary_metadata"
        )
        return [value, meta_t], {"T": value.dtype}

    return _summary_op("TensorSummaryV2", name, family, [tensor], collections, build)


def text(name: str, tensor: TensorLike, collections: list[str] | None = None) -> Tensor:
    """A summary of a string tensor for TensorBoard's text dashboard (Markdown).

    Args:
      name: the tag; the op's name under the current name scope.
      tensor: a string tensor of any shape (another dtype is a ``ValueError``).
      collections: graph collections to add the summary to (default ``[SUMMARIES]``).

    Returns:
      A scalar string tensor holding a serialized ``Summary``.
    """
    tensor = to_tensor(tensor)
    if tensor.dtype != _dt.string:
        raise ValueError(
            "Expected tensor %s to have dtype string, got %s" % (tensor.name, tensor.dtype)
        )
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name, tensor, collections=collections, summary_metadata=metadata)


def _tensor_summary_kernel(ctx, op, tag, tensor, serialized_summary_metadata):
    try:
        metadata = SummaryMetadata.FromString(
            bytes(np.asarray(serialized_summary_metadata, dtype=object)[()])
        )
    except DecodeError:
        raise errors.InvalidArgumentError(
            None, op, "Could not parse serialized_summary_metadata"
        ) from None
    s = Summary()
    v = s.value.add(tag=_scalar_tag(tag), metadata=metadata)
    arr = np.asarray(tensor)
    fill_tensor_proto(v.tensor, arr)
    return _serialized(s)


_register_summary("TensorSummaryV2", _tensor_summary_kernel)
