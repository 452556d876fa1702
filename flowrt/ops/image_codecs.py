"""Image codecs: ``decode_png``, ``decode_jpeg``, ``decode_bmp``, ``decode_gif``,
``decode_image``, ``decode_and_crop_jpeg``, ``encode_png``, ``encode_jpeg``,
``extract_jpeg_shape`` and ``is_jpeg``.

The pixels come from Pillow (libpng, libjpeg-turbo, its own GIF and BMP readers),
imported on the first run of a codec op. As in TF 2.x, every decode op recognizes the
format from the data's first bytes, so ``decode_jpeg`` of PNG data decodes it; the ops
differ in which attributes they take and in their static shapes.
"""

from __future__ import annotations

import io
import struct
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core import extras
from .._core.bounds import DEFLATE_RATIO, DeclaredSizeError, declared_bytes
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from . import math_ops, string_ops
from .common import TensorShape, make, op_scope, to_tensor

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "decode_png",
    "decode_jpeg",
    "decode_bmp",
    "decode_gif",
    "decode_image",
    "decode_and_crop_jpeg",
    "encode_png",
    "encode_jpeg",
    "extract_jpeg_shape",
    "is_jpeg",
]

_UNKNOWN_FORMAT = "Unknown image file format. One of JPEG, PNG, GIF, BMP required."
_DCT_METHODS = ("", "INTEGER_FAST", "INTEGER_ACCURATE")


def _pil():
    """Pillow's ``Image`` module, imported when a codec first runs (``flowrt[image]``)."""
    return extras.require("PIL.Image", "image", "An image codec (fr.image.decode_*, encode_*)")


def _contents(x) -> bytes:
    return bytes(np.asarray(x, dtype=object)[()])


def _format(data: bytes) -> str | None:
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:3] == b"GIF":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


# --------------------------------------------------------------------------------------
# Decoding: one kernel for the six decode ops, as TF 2.x's DecodeImageV2Op
# --------------------------------------------------------------------------------------


def _to_channels(im, channels: int, alpha_default: bool) -> np.ndarray:
    """The image as an array of ``channels`` channels (0: as stored)."""
    mode = im.mode
    if channels == 0:
        if mode in ("1", "L", "I;16", "I;16B", "I"):
            channels = 1
        elif mode == "LA":
            channels = 2
        elif mode in ("RGBA", "PA") or (mode == "P" and "transparency" in im.info):
            channels = 4 if alpha_default else 3
        else:
            channels = 3
    if mode.startswith("I"):
        if channels != 1:
            raise ValueError("a 16-bit grayscale image decodes to 1 channel only")
        return np.asarray(im, dtype=np.uint16)[..., None]
    target = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[channels]
    out = np.asarray(im if im.mode == target else im.convert(target))
    return out.reshape(out.shape[:2] + (channels,))


def _png_is_16bit_color(data: bytes) -> bool:
    return len(data) > 25 and data[24] == 16 and data[25] in (2, 6)


# A PNG color type -> samples per pixel.
_PNG_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _check_png_size(op, data: bytes) -> None:
    """InvalidArgumentError if the file's compressed pixels cannot inflate to the image
    its header declares: a few bytes can declare a huge image, which the decoder would
    allocate before finding the data short."""
    if len(data) < 26:
        return  # the decoder names what is missing
    w, h = struct.unpack_from(">II", data, 16)
    bits = w * _PNG_SAMPLES.get(data[25], 4) * data[24]
    try:
        declared_bytes([h, bits // 8], 1, len(data) * DEFLATE_RATIO)
    except DeclaredSizeError as e:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Invalid PNG data, size %d: its compressed pixels cannot inflate to the %dx%d "
            "image it declares (%s)" % (len(data), w, h, e),
        ) from None


def _check_bmp_size(op, data: bytes) -> None:
    """InvalidArgumentError, as TF's, if an uncompressed 24- or 32-bit BMP's file is not
    exactly its header and the rows it declares: a 54-byte file can declare a huge image,
    which the decoder would allocate before finding the data short."""
    if len(data) < 34:
        return  # the decoder names what is missing
    (offset,) = struct.unpack_from("<I", data, 10)
    width, height = struct.unpack_from("<ii", data, 18)
    bpp, compression = struct.unpack_from("<HI", data, 28)
    if compression != 0 or bpp not in (24, 32) or width <= 0:
        return
    row = (width * bpp // 8 + 3) // 4 * 4
    try:
        need = declared_bytes([abs(height), row], 1, max(len(data) - offset, 0))
    except DeclaredSizeError as e:
        need = e.declared if e.declared is not None else abs(height) * row
    if offset + need != len(data):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Input size should match (header_size + row_size * abs_height) but they "
            "differ by %d" % (len(data) - offset - need),
        )


def _decode(op, data: bytes, crop=None) -> np.ndarray:
    a = op.attrs
    fmt = _format(data)
    if fmt is None:
        raise errors.InvalidArgumentError(None, op, _UNKNOWN_FORMAT)
    if op.type == "DecodeAndCropJpeg" and fmt != "jpeg":
        raise errors.InvalidArgumentError(None, op, "Invalid JPEG data, size %d" % len(data))
    if fmt == "png" and _png_is_16bit_color(data):
        raise errors.UnimplementedError(
            None, op, "16-bit color PNGs are not supported (16-bit grayscale is)"
        )
    if fmt == "png":
        _check_png_size(op, data)
    elif fmt == "bmp":
        _check_bmp_size(op, data)
    Image = _pil()
    channels = a.get("channels", 0)
    try:
        if fmt == "gif":
            frames = _gif_frames(data)
            if op.type == "DecodeGif" or a.get("expand_animations", False):
                out = np.stack(frames)
            else:
                out = frames[0]
            return _gif_channels(op, out, channels)
        im = Image.open(io.BytesIO(data))
        if fmt == "jpeg":
            ratio = a.get("ratio", 1)
            if channels == 1:
                im.draft("L", (im.size[0] // ratio, im.size[1] // ratio))
            elif ratio > 1:
                im.draft("RGB", (im.size[0] // ratio, im.size[1] // ratio))
        im.load()
    except (OSError, SyntaxError, ValueError) as e:
        raise errors.InvalidArgumentError(
            None, op, "Invalid %s data, size %d: %s" % (fmt.upper(), len(data), e)
        ) from None
    if crop is not None:
        y, x, h, w = (int(v) for v in crop)
        if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > im.size[1] or x + w > im.size[0]:
            raise errors.InvalidArgumentError(
                None, op, "Invalid JPEG data or crop window, data size %d" % len(data)
            )
        im = im.crop((x, y, x + w, y + h))
    out = _to_channels(im, channels, alpha_default=fmt in ("png", "bmp"))
    if a.get("dtype", _dt.uint8) != _dt.uint8 and out.dtype == np.uint8:
        out = _rescale_from_uint8(out, a["dtype"])
    elif a.get("dtype", _dt.uint8) == _dt.uint8 and out.dtype == np.uint16:
        out = (out.astype(np.uint32) * 255 + 32767) // 65535
        out = out.astype(np.uint8)
    return out


def _rescale_from_uint8(out: np.ndarray, dtype) -> np.ndarray:
    if dtype == _dt.uint16:
        return out.astype(np.uint16) * np.uint16(257)
    return out.astype(dtype.np) / dtype.np.type(255)


def _gif_frame_boxes(data: bytes) -> list[tuple[int, int, int, int, int]]:
    """The (offset, left, top, width, height) of every image descriptor of a GIF, read
    without decoding pixels; stops at the first malformed block (the decoder then
    reports it)."""
    boxes: list[tuple[int, int, int, int, int]] = []
    pos = 13
    if len(data) < pos:
        return boxes
    if data[10] & 0x80:
        pos += 3 << ((data[10] & 7) + 1)
    while pos < len(data):
        kind = data[pos]
        if kind == 0x21:
            pos += 2
        elif kind == 0x2C:
            if pos + 10 > len(data):
                break
            left, top, width, height = (
                int.from_bytes(data[pos + i : pos + i + 2], "little") for i in (1, 3, 5, 7)
            )
            boxes.append((pos, left, top, width, height))
            flags = data[pos + 9]
            pos += 10 + ((3 << ((flags & 7) + 1)) if flags & 0x80 else 0) + 1
        else:
            break
        while pos < len(data) and data[pos]:
            pos += data[pos] + 1
        pos += 1
    return boxes


def _gif_frames(data: bytes) -> list[np.ndarray]:
    """Every frame of a GIF, composited onto the frames before it, on TF's canvas.

    TF's canvas is as large as the largest frame, not the logical screen the header
    declares (a few bytes can declare 65535x65535); a frame is placed at its offset and
    clipped to the canvas. The header's screen is rewritten to that canvas and frames
    starting outside it are moved to its edge, so Pillow never allocates more than four
    canvases; each composited frame is then cropped to the canvas.
    """
    boxes = _gif_frame_boxes(data)
    if boxes:
        w = max(b[3] for b in boxes)
        h = max(b[4] for b in boxes)
        buf = bytearray(data)
        buf[6:10] = w.to_bytes(2, "little") + h.to_bytes(2, "little")
        for pos, left, top, _, _ in boxes:
            buf[pos + 1 : pos + 3] = min(left, w).to_bytes(2, "little")
            buf[pos + 3 : pos + 5] = min(top, h).to_bytes(2, "little")
        data = bytes(buf)
    im = _pil().open(io.BytesIO(data))
    frames = []
    for i in range(getattr(im, "n_frames", 1)):
        im.seek(i)
        frame = np.asarray(im.convert("RGB"))
        frames.append(frame[:h, :w] if boxes else frame)
    return frames


def _gif_channels(op, out: np.ndarray, channels: int) -> np.ndarray:
    if channels not in (0, 3):
        raise errors.InvalidArgumentError(
            None, op, "channels must be 0 or 3 for GIF, got %d" % channels
        )
    dtype = op.attrs.get("dtype", _dt.uint8)
    return out if dtype == _dt.uint8 else _rescale_from_uint8(out, dtype)


def _decode_kernel(ctx, op, contents, *crop):
    return (_decode(op, _contents(contents), crop[0] if crop else None),)


def _decode_infer(op):
    s = op.inputs[0].shape
    if s.ndims not in (None, 0):
        raise ValueError("Shape must be rank 0 but is rank %d for 'contents'" % s.ndims)
    channels = op.attrs.get("channels", 0)
    dtype = op.attrs.get("dtype", _dt.uint8)
    if op.type == "DecodeGif":
        return [(dtype, TensorShape([None, None, None, 3]))]
    if op.type == "DecodeImage":
        if op.attrs["expand_animations"]:
            return [(dtype, TensorShape(None))]
        return [(dtype, TensorShape([None, None, channels or None]))]
    return [(dtype, TensorShape([None, None, channels or None]))]


for _t in ("DecodePng", "DecodeJpeg", "DecodeBmp", "DecodeGif", "DecodeImage", "DecodeAndCropJpeg"):
    register_op(_t, infer=_decode_infer, kernel=_decode_kernel, grad=NOT_DIFFERENTIABLE)


def _check_channels(channels: int, allowed=(0, 1, 3, 4)) -> int:
    if channels not in allowed:
        raise ValueError(
            "`channels` must be %s but got %d"
            % (", ".join(map(str, allowed[:-1])) + " or %d" % allowed[-1], channels)
        )
    return int(channels)


def _jpeg_attrs(
    channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
):
    if ratio not in (1, 2, 4, 8):
        raise ValueError("ratio must be 1, 2, 4, or 8, got %s" % (ratio,))
    if dct_method not in _DCT_METHODS:
        raise ValueError("dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
    if not fancy_upscaling:
        raise ValueError("fancy_upscaling=False is not supported (Pillow always upsamples so)")
    if try_recover_truncated:
        raise ValueError("try_recover_truncated=True is not supported")
    return {
        "channels": _check_channels(channels),
        "ratio": int(ratio),
        "fancy_upscaling": True,
        "try_recover_truncated": False,
        "acceptable_fraction": float(acceptable_fraction),
        "dct_method": dct_method,
    }


_JPEG_NOTE = """
    Note (flowrt): the pixels are libjpeg-turbo's with the accurate integer DCT
    (``dct_method='INTEGER_ACCURATE'``), equal to TF's for that method. TF's default
    (``''``, the fast integer DCT) differs from them by at most a few levels (5 on
    flowrt's test images); ``ratio`` > 1 decodes at reduced scale as libjpeg does.
    ``fancy_upscaling=False`` and ``try_recover_truncated=True`` raise ``ValueError``.
"""


def decode_jpeg(
    contents: TensorLike,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> Tensor:
    """Decodes a JPEG image to a uint8 tensor [height, width, channels] (TF1
    ``tf.image.decode_jpeg``; op ``DecodeJpeg``).

    Args:
      contents: a scalar string, the encoded image.
      channels: 0 (as stored), 1 (grayscale) or 3 (RGB).
      ratio: downscaling ratio, 1, 2, 4 or 8.
      fancy_upscaling: must be True.
      try_recover_truncated: must be False.
      acceptable_fraction: TF's fraction of lines for a truncated image (unused).
      dct_method: '', 'INTEGER_FAST' or 'INTEGER_ACCURATE'.
      name: the op's name.
    """
    attrs = _jpeg_attrs(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
    )
    return make("DecodeJpeg", [to_tensor(contents, _dt.string)], attrs, name, "DecodeJpeg")


decode_jpeg.__doc__ = (decode_jpeg.__doc__ or "") + _JPEG_NOTE


def decode_and_crop_jpeg(
    contents: TensorLike,
    crop_window: TensorLike,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> Tensor:
    """Decodes the window ``crop_window = [y, x, height, width]`` of a JPEG image (TF1
    ``tf.image.decode_and_crop_jpeg``; op ``DecodeAndCropJpeg``); the other arguments
    are ``decode_jpeg``'s.

    Raises:
      InvalidArgumentError: at run time, for a window outside the image.
    """
    attrs = _jpeg_attrs(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
    )
    inputs = [to_tensor(contents, _dt.string), to_tensor(crop_window, _dt.int32)]
    return make("DecodeAndCropJpeg", inputs, attrs, name, "DecodeAndCropJpeg")


decode_and_crop_jpeg.__doc__ = (decode_and_crop_jpeg.__doc__ or "") + _JPEG_NOTE


def decode_png(
    contents: TensorLike,
    channels: int = 0,
    dtype: DTypeLike = _dt.uint8,
    name: str | None = None,
) -> Tensor:
    """Decodes a PNG image to a tensor [height, width, channels] of ``dtype`` (uint8 or
    uint16; TF1 ``tf.image.decode_png``; op ``DecodePng``).

    Args:
      contents: a scalar string, the encoded image.
      channels: 0 (as stored), 1 (grayscale), 3 (RGB) or 4 (RGBA).
      dtype: uint8 or uint16; 8-bit data decodes to uint16 multiplied by 257.
      name: the op's name.

    Note (flowrt): 16-bit color PNGs raise ``UnimplementedError`` (16-bit grayscale
    ones decode); grayscale from color uses Pillow's ITU-R 601 weights.
    """
    dt = _dt.as_dtype(dtype)
    if dt not in (_dt.uint8, _dt.uint16):
        raise TypeError("dtype must be uint8 or uint16, got %s" % dt.name)
    attrs = {"channels": _check_channels(channels), "dtype": dt}
    return make("DecodePng", [to_tensor(contents, _dt.string)], attrs, name, "DecodePng")


def decode_bmp(contents: TensorLike, channels: int = 0, name: str | None = None) -> Tensor:
    """Decodes a BMP image to a uint8 tensor [height, width, channels] (TF1
    ``tf.image.decode_bmp``; op ``DecodeBmp``); ``channels`` is 0, 1, 3 or 4."""
    attrs = {"channels": _check_channels(channels)}
    return make("DecodeBmp", [to_tensor(contents, _dt.string)], attrs, name, "DecodeBmp")


def decode_gif(contents: TensorLike, name: str | None = None) -> Tensor:
    """Decodes every frame of a GIF to a uint8 tensor [frames, height, width, 3] (TF1
    ``tf.image.decode_gif``; op ``DecodeGif``)."""
    return make("DecodeGif", [to_tensor(contents, _dt.string)], {}, name, "DecodeGif")


def decode_image(
    contents: TensorLike,
    channels: int | None = None,
    dtype: DTypeLike = _dt.uint8,
    name: str | None = None,
    expand_animations: bool = True,
) -> Tensor:
    """Decodes a BMP, GIF, JPEG or PNG image, recognized by its first bytes (TF1
    ``tf.image.decode_image``; op ``DecodeImage``).

    Args:
      contents: a scalar string, the encoded image.
      channels: None or 0 (as stored), 1, 3 or 4.
      dtype: uint8, uint16 or float32 (scaled to [0, 1]).
      name: the name scope (default ``decode_image``).
      expand_animations: a GIF decodes to [frames, height, width, 3]; when False, to
        its first frame, and every image has rank 3 (then the static shape is
        [None, None, channels]).
    """
    dt = _dt.as_dtype(dtype)
    if dt not in (_dt.uint8, _dt.uint16, _dt.float32):
        raise TypeError("dtype must be uint8, uint16 or float32, got %s" % dt.name)
    attrs = {
        "channels": _check_channels(channels or 0),
        "dtype": dt,
        "expand_animations": bool(expand_animations),
    }
    with op_scope([contents], name, "decode_image"):
        return make("DecodeImage", [to_tensor(contents, _dt.string)], attrs, None, "DecodeImage")


# --------------------------------------------------------------------------------------
# extract_jpeg_shape, is_jpeg
# --------------------------------------------------------------------------------------


def _jpeg_shape_kernel(ctx, op, contents):
    data = _contents(contents)
    if _format(data) != "jpeg":
        raise errors.InvalidArgumentError(None, op, "Invalid JPEG data, size %d" % len(data))
    try:
        im = _pil().open(io.BytesIO(data))
    except (OSError, SyntaxError) as e:
        raise errors.InvalidArgumentError(
            None, op, "Invalid JPEG data, size %d: %s" % (len(data), e)
        ) from None
    c = len(im.getbands())
    shape = np.array([im.size[1], im.size[0], c], dtype=op.attrs["output_type"].np)
    return (shape,)


def _jpeg_shape_infer(op):
    return [(op.attrs["output_type"], TensorShape([3]))]


register_op(
    "ExtractJpegShape", infer=_jpeg_shape_infer, kernel=_jpeg_shape_kernel, grad=NOT_DIFFERENTIABLE
)


def extract_jpeg_shape(
    contents: TensorLike, output_type: DTypeLike = _dt.int32, name: str | None = None
) -> Tensor:
    """The shape [height, width, channels] of a JPEG image, read from its header (TF1
    ``tf.image.extract_jpeg_shape``; op ``ExtractJpegShape``); ``output_type`` is
    int32 or int64."""
    dt = _dt.as_dtype(output_type)
    if dt not in (_dt.int32, _dt.int64):
        raise TypeError("output_type must be int32 or int64, got %s" % dt.name)
    attrs = {"output_type": dt}
    c = to_tensor(contents, _dt.string)
    return make("ExtractJpegShape", [c], attrs, name, "ExtractJpegShape")


def is_jpeg(contents: TensorLike, name: str | None = None) -> Tensor:
    """Whether ``contents`` starts with JPEG's signature ``\\xff\\xd8\\xff`` (TF1
    ``tf.image.is_jpeg``, composed as TF does from ``substr`` and ``equal``)."""
    with op_scope([contents], name, "is_jpeg"):
        head = string_ops.substr(contents, 0, 3)
        return math_ops.equal(head, b"\xff\xd8\xff", name="is_jpeg")


# --------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------


def _encode_check(op, image: np.ndarray, allowed_channels) -> None:
    if image.ndim != 3:
        raise errors.InvalidArgumentError(
            None, op, "image must be 3-dimensional, got shape %s" % list(image.shape)
        )
    if image.shape[2] not in allowed_channels:
        raise errors.InvalidArgumentError(
            None,
            op,
            "image must have %s channels, got %d"
            % (
                ", ".join(map(str, allowed_channels[:-1])) + ", or %d" % allowed_channels[-1],
                image.shape[2],
            ),
        )


def _encode_png_kernel(ctx, op, image):
    _encode_check(op, image, (1, 2, 3, 4))
    Image = _pil()
    c = image.shape[2]
    if image.dtype == np.uint16:
        if c != 1:
            raise errors.UnimplementedError(
                None, op, "uint16 PNG encoding supports 1 channel only, got %d" % c
            )
        h, w = image.shape[:2]
        im = Image.frombytes("I;16", (w, h), image[..., 0].astype("<u2").tobytes())
    else:
        im = Image.fromarray(
            image if c > 1 else image[..., 0], {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[c]
        )
    level = op.attrs["compression"]
    buf = io.BytesIO()
    im.save(buf, "PNG", compress_level=6 if level < 0 else level)
    return (np.array(buf.getvalue(), dtype=object),)


def _encode_infer(op):
    s = op.inputs[0].shape
    if s.ndims not in (None, 3):
        raise ValueError("Shape must be rank 3 but is rank %d for 'image'" % s.ndims)
    return [(_dt.string, TensorShape([]))]


register_op("EncodePng", infer=_encode_infer, kernel=_encode_png_kernel, grad=NOT_DIFFERENTIABLE)


def encode_png(image: TensorLike, compression: int = -1, name: str | None = None) -> Tensor:
    """Encodes a uint8 or uint16 image [height, width, channels] (1 to 4 channels) as
    PNG (TF1 ``tf.image.encode_png``; op ``EncodePng``).

    Args:
      image: the image.
      compression: zlib level 0 to 9; -1 is the default (6).
      name: the op's name.

    Note (flowrt): the bytes are Pillow's, not TF's (decoding gives the same pixels);
    uint16 images must have one channel.
    """
    x = to_tensor(image)
    if x.dtype not in (_dt.uint8, _dt.uint16):
        raise TypeError("image must be uint8 or uint16, got %s" % x.dtype.name)
    if not -1 <= compression <= 9:
        raise ValueError("compression should be in [-1,9], got %s" % (compression,))
    return make("EncodePng", [x], {"compression": int(compression)}, name, "EncodePng")


_JPEG_DEFAULTS = {
    "format": "",
    "quality": 95,
    "progressive": False,
    "optimize_size": False,
    "chroma_downsampling": True,
    "x_density": 300,
    "y_density": 300,
    "xmp_metadata": "",
}


def _jpeg_bytes(op, image: np.ndarray, a) -> np.ndarray:
    _encode_check(op, image, (1, 3))
    fmt, c = a["format"], image.shape[2]
    if fmt == "grayscale" and c != 1:
        raise errors.InvalidArgumentError(None, op, "Image must have 1 channel, got %d" % c)
    if fmt == "rgb" and c != 3:
        raise errors.InvalidArgumentError(None, op, "Image must have 3 channels, got %d" % c)
    Image = _pil()
    im = Image.fromarray(image[..., 0] if c == 1 else image, "L" if c == 1 else "RGB")
    kw: dict[str, Any] = {
        "quality": a["quality"],
        "progressive": a["progressive"],
        "optimize": a["optimize_size"],
        "subsampling": 2 if a["chroma_downsampling"] else 0,
        "dpi": (a["x_density"], a["y_density"]),
    }
    if a["xmp_metadata"]:
        kw["xmp"] = a["xmp_metadata"].encode()
    buf = io.BytesIO()
    im.save(buf, "JPEG", **kw)
    return np.array(buf.getvalue(), dtype=object)


def _encode_jpeg_kernel(ctx, op, image):
    return (_jpeg_bytes(op, image, op.attrs),)


def _variable_quality_kernel(ctx, op, images, quality):
    q = int(quality)
    if not 0 <= q <= 100:
        raise errors.InvalidArgumentError(None, op, "quality must be in [0,100], got %d" % q)
    return (_jpeg_bytes(op, images, dict(_JPEG_DEFAULTS, quality=q)),)


register_op(
    "EncodeJpegVariableQuality",
    infer=_encode_infer,
    kernel=_variable_quality_kernel,
    grad=NOT_DIFFERENTIABLE,
)


register_op("EncodeJpeg", infer=_encode_infer, kernel=_encode_jpeg_kernel, grad=NOT_DIFFERENTIABLE)


def encode_jpeg(
    image: TensorLike,
    format: str = "",
    quality: int = 95,
    progressive: bool = False,
    optimize_size: bool = False,
    chroma_downsampling: bool = True,
    density_unit: str = "in",
    x_density: int = 300,
    y_density: int = 300,
    xmp_metadata: str = "",
    name: str | None = None,
) -> Tensor:
    """Encodes a uint8 image [height, width, channels] (1 or 3 channels) as JPEG with
    libjpeg's standard tables (TF1 ``tf.image.encode_jpeg``; op ``EncodeJpeg``).

    Args:
      image: the image.
      format: '' (by the channels), 'grayscale' (1 channel) or 'rgb' (3 channels).
      quality: 0 to 100.
      progressive: write a progressive JPEG.
      optimize_size: optimize the Huffman tables.
      chroma_downsampling: subsample chroma 2x2 (4:2:0); else 4:4:4.
      density_unit: 'in' (only; see the note).
      x_density: horizontal pixels per inch.
      y_density: vertical pixels per inch.
      xmp_metadata: XMP metadata to embed, if not empty.
      name: the op's name.

    Note (flowrt): ``density_unit='cm'`` raises ``ValueError``; the bytes are Pillow's
    (libjpeg-turbo's), not necessarily TF's.
    """
    x = to_tensor(image)
    if x.dtype != _dt.uint8:
        raise TypeError("image must be uint8, got %s" % x.dtype.name)
    if format not in ("", "grayscale", "rgb"):
        raise ValueError("format must be one of '', 'grayscale', 'rgb', got %r" % (format,))
    if not 0 <= quality <= 100:
        raise ValueError("quality must be in [0,100], got %s" % (quality,))
    if density_unit == "cm":
        raise ValueError("density_unit='cm' is not supported (only 'in')")
    if density_unit != "in":
        raise ValueError("density_unit must be 'in' or 'cm', got %r" % (density_unit,))
    attrs = {
        "format": format,
        "quality": int(quality),
        "progressive": bool(progressive),
        "optimize_size": bool(optimize_size),
        "chroma_downsampling": bool(chroma_downsampling),
        "density_unit": density_unit,
        "x_density": int(x_density),
        "y_density": int(y_density),
        "xmp_metadata": xmp_metadata,
    }
    return make("EncodeJpeg", [x], attrs, name, "EncodeJpeg")
