"""fr.image codecs (``image_codecs.py``) against TF 2.21: JPEG pixels compared by the
SHA-256 of TF 2.21's decoded array (the JPEGs embedded below), PNG round trips exact,
static shapes, attributes and errors as TF's."""

import base64
import hashlib
import io
import struct
import zlib

import numpy as np
import pytest

import flowrt as fr
from tests.memory_limit import run_capped

# 23x17 RGB JPEGs (quality 85), chroma 4:4:4 and 4:2:0.
JPEG_444 = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0dHx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh7/wAARCAARABcDAREAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD520Twv5m393+lZYOH1oyy7N+W2p2+leD41QPKiqvqa9+eQ4WjR9vipKEe766Xsurdk7JXb6I++yzO5NpRZ1WmeFrcqRHbPIccHbgH+v6V5NXD5XJSWGoyqtWs7csXtfV+8ra/Y3XbU/RctzidlzSsXfDXhtVi814/lUZPFcvDGMo0cLLFV37sFd7fcr2V29Er6tpH8XYLNW5KKZ12k+G84uLiPc7cKoH6D0Fc8sXz/wDCjmPvVJaQgtL22jHe0VfV62vd3k9f0TLM02hB6HV6f4aZvkkiLsVGY04UfX+dedjsVWrTdGunObiv3cG4wSVmubV6v4ldSe20eU/RMrzVJXT+fU53Q/8AkGt/wH/0IVjgP+Sdq/8Abn/pcT+UMv8A40f66HYaX/x+Q/8AXMfzNOr/AMjjD/8AXuP/AKVM/Qss/hv1Oi0f/kEyfQfzFfFYb/kma/pH/wBLifpWX/xV/XQ//9k="
)
JPEG_420 = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0dHx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh7/wAARCAARABcDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD520Twv5m393+ldvpXg+NUDyoqr6mu38NeG1WLzXj+VRk8V12k+G84uLiPc7cKoH6D0FGFxGFhhYVKkVKUlfXZLu+ru9Elq3fU5OG+K5OSSkcJpnha3KkR2zyHHB24B/r+lFezaf4aZvkkiLsVGY04UfX+dFeVicwg6j5KaXpHz/691Lejlfurn7jgOKv3C978f+CjndD/AOQa3/Af/QhXYaX/AMfkP/XMfzNFFcH/AC6w3+Gn/wClzP5A4Z3/AK8jotH/AOQTJ9B/MUUUV+V578OF/wCvS/8ASpH73lv8H5n/2Q=="
)
# TF 2.21's decode_jpeg(dct_method=...): SHA-256 of the uint8 array, pixel [5, 7], sum.
TF_JPEG = {
    ("444", "INTEGER_ACCURATE"): (
        "8233e28d9db23b00fcddbd15b2f77dd54980119644d8fb7fc3559f6e89d6819b",
        [77, 65, 103],
        128172,
    ),
    ("420", "INTEGER_ACCURATE"): (
        "5d7178ca8ac2e095a7b91bacff647db6405fa6d5d43cd9297d6c02e9fa3fba0d",
        [76, 65, 108],
        128184,
    ),
}
# TF 2.21's default (the fast DCT): sums of the decoded arrays; flowrt's differ by a few.
TF_FAST_SUM = {"444": 127221, "420": 127214}


def run(t, feed=None):
    with fr.Session(graph=t.graph) as s:
        return s.run(t, feed)


def img(h=6, w=7, c=3, dtype=np.uint8, seed=0):
    hi = np.iinfo(dtype).max + 1
    return np.random.RandomState(seed).randint(0, hi, (h, w, c)).astype(dtype)


@pytest.mark.parametrize("sub", ["444", "420"])
def test_decode_jpeg_accurate_dct_equals_tf(sub):
    data = JPEG_444 if sub == "444" else JPEG_420
    with fr.Graph().as_default():
        out = run(fr.image.decode_jpeg(data, dct_method="INTEGER_ACCURATE"))
    digest, pixel, total = TF_JPEG[sub, "INTEGER_ACCURATE"]
    assert out.shape == (17, 23, 3) and out.dtype == np.uint8
    assert out[5, 7].tolist() == pixel and int(out.sum(dtype=np.int64)) == total
    assert hashlib.sha256(out.tobytes()).hexdigest() == digest


@pytest.mark.parametrize("sub", ["444", "420"])
def test_decode_jpeg_default_is_near_tf(sub):
    data = JPEG_444 if sub == "444" else JPEG_420
    with fr.Graph().as_default():
        out = run(fr.image.decode_jpeg(data))
    # The accurate DCT's pixels, within a few levels of TF's fast DCT.
    assert abs(int(out.sum(dtype=np.int64)) - TF_FAST_SUM[sub]) < out.size
    assert int(out.sum(dtype=np.int64)) == TF_JPEG[sub, "INTEGER_ACCURATE"][2]


def test_decode_jpeg_channels_crop_and_shape():
    with fr.Graph().as_default():
        gray = fr.image.decode_jpeg(JPEG_420, channels=1)
        rgb = fr.image.decode_jpeg(JPEG_420, channels=3)
        unknown = fr.image.decode_jpeg(JPEG_420)
        full = fr.image.decode_jpeg(JPEG_420, dct_method="INTEGER_ACCURATE")
        crop = fr.image.decode_and_crop_jpeg(JPEG_420, [3, 5, 10, 12])
        shape = fr.image.extract_jpeg_shape(JPEG_420, output_type=fr.int64)
        half = fr.image.decode_jpeg(JPEG_444, ratio=2)
        assert gray.shape.as_list() == [None, None, 1]
        assert rgb.shape.as_list() == [None, None, 3]
        assert unknown.shape.as_list() == [None, None, None]
        assert shape.shape.as_list() == [3] and shape.dtype == fr.int64
        with fr.Session() as s:
            g, f, c, sh, h = s.run([gray, full, crop, shape, half])
    assert g.shape == (17, 23, 1)
    np.testing.assert_array_equal(c, f[3:13, 5:17])
    assert sh.tolist() == [17, 23, 3]
    assert h.shape == (9, 12, 3)  # libjpeg's ceil(size / ratio)


def test_decode_png_round_trip_is_exact_for_every_channel_count():
    with fr.Graph().as_default():
        for c in (1, 2, 3, 4):
            x = img(c=c, seed=c)
            out = run(fr.image.decode_png(fr.image.encode_png(x, compression=9)))
            np.testing.assert_array_equal(out, x)


def test_decode_png_channels_and_uint16():
    x = img(c=4)
    with fr.Graph().as_default():
        data = run(fr.image.encode_png(x))
        rgb = fr.image.decode_png(data, channels=3)
        wide = fr.image.decode_png(data, dtype=fr.uint16)
        assert rgb.shape.as_list() == [None, None, 3]
        assert wide.dtype == fr.uint16
        with fr.Session() as s:
            r, w = s.run([rgb, wide])
    np.testing.assert_array_equal(r, x[..., :3])
    np.testing.assert_array_equal(w, x.astype(np.uint16) * 257)  # TF's 8 to 16 bit scale


def test_uint16_grayscale_png_round_trip():
    x = img(c=1, dtype=np.uint16)
    with fr.Graph().as_default():
        out = run(fr.image.decode_png(fr.image.encode_png(x), dtype=fr.uint16))
    np.testing.assert_array_equal(out, x)


def test_decode_image_recognizes_formats_and_gif_frames():
    pil = pytest.importorskip("PIL.Image")
    x = img(h=5, w=4)
    frames = [pil.fromarray(np.roll(x, k, 0)) for k in range(3)]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:])
    gif = buf.getvalue()
    buf = io.BytesIO()
    pil.fromarray(x).save(buf, "BMP")
    bmp = buf.getvalue()
    with fr.Graph().as_default():
        anim = fr.image.decode_image(gif)
        first = fr.image.decode_image(gif, channels=3, expand_animations=False)
        dg = fr.image.decode_gif(gif)
        db = fr.io.decode_bmp(bmp)
        f32 = fr.image.decode_image(bmp, dtype=fr.float32)
        assert anim.shape.ndims is None
        assert first.shape.as_list() == [None, None, 3]
        assert dg.shape.as_list() == [None, None, None, 3]
        with fr.Session() as s:
            a, f, g, b, fl = s.run([anim, first, dg, db, f32])
    assert a.shape == (3, 5, 4, 3) and f.shape == (5, 4, 3)
    np.testing.assert_array_equal(a, g)
    np.testing.assert_array_equal(f, g[0])
    np.testing.assert_array_equal(b, x)
    np.testing.assert_allclose(fl, x / np.float32(255), rtol=1e-6)


def test_encode_jpeg_round_trip_and_attributes():
    x = np.tile(np.linspace(0, 255, 16, dtype=np.uint8)[None, :, None], (16, 1, 3))
    with fr.Graph().as_default():
        hi = fr.image.encode_jpeg(x, quality=100, chroma_downsampling=False)
        lo = fr.image.encode_jpeg(x, quality=10, progressive=True, optimize_size=True)
        gray = fr.image.encode_jpeg(x[..., :1], format="grayscale")
        assert hi.shape.as_list() == [] and hi.dtype == fr.string
        with fr.Session() as s:
            h, lw, g = s.run([hi, lo, gray])
            dh, dg = s.run([fr.image.decode_jpeg(h), fr.image.decode_jpeg(g)])
            j = s.run([fr.image.is_jpeg(h), fr.image.is_jpeg(s.run(fr.image.encode_png(x)))])
    assert np.abs(dh.astype(int) - x).max() <= 2
    assert dg.shape == (16, 16, 1)
    assert len(lw) < len(h)
    assert j == [True, False]


def test_decode_errors_name_the_op():
    with fr.Graph().as_default():
        with pytest.raises(fr.errors.InvalidArgumentError, match="Unknown image file format"):
            run(fr.image.decode_png(b"garbage", name="dec"))
        truncated = JPEG_420[:300]
        with pytest.raises(fr.errors.InvalidArgumentError, match="Invalid JPEG data") as e:
            run(fr.image.decode_jpeg(truncated))
        assert e.value.op.type == "DecodeJpeg"
        with pytest.raises(fr.errors.InvalidArgumentError, match="Invalid JPEG data, size 7"):
            run(fr.image.extract_jpeg_shape(b"garbage"))
        with pytest.raises(fr.errors.InvalidArgumentError, match="crop window"):
            run(fr.image.decode_and_crop_jpeg(JPEG_420, [10, 10, 10, 10]))
        with pytest.raises(fr.errors.InvalidArgumentError, match="1, 2, 3, or 4 channels, got 5"):
            run(fr.image.encode_png(fr.placeholder_with_default(img(c=5), None)))


def test_construction_errors_name_the_argument():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="channels"):
            fr.image.decode_png(b"", channels=2)
        with pytest.raises(ValueError, match="ratio must be 1, 2, 4, or 8, got 3"):
            fr.image.decode_jpeg(b"", ratio=3)
        with pytest.raises(ValueError, match="dct_method"):
            fr.image.decode_jpeg(b"", dct_method="X")
        with pytest.raises(ValueError, match="fancy_upscaling"):
            fr.image.decode_jpeg(b"", fancy_upscaling=False)
        with pytest.raises(ValueError, match="try_recover_truncated"):
            fr.image.decode_jpeg(b"", try_recover_truncated=True)
        with pytest.raises(ValueError, match="density_unit"):
            fr.image.encode_jpeg(img(), density_unit="cm")
        with pytest.raises(ValueError, match="Shape must be rank 0"):
            fr.image.decode_png([b"a", b"b"])


def test_adjust_and_random_jpeg_quality():
    x = np.tile(np.linspace(0, 1, 16, dtype=np.float32)[None, :, None], (16, 1, 3))
    with fr.Graph().as_default():
        hi = fr.image.adjust_jpeg_quality(x, 95)
        lo = fr.image.adjust_jpeg_quality(x, fr.constant(1))
        rnd = fr.image.random_jpeg_quality((x * 255).astype(np.uint8), 10, 20, seed=3)
        assert hi.dtype == fr.float32 and rnd.dtype == fr.uint8
        h, lw, r = run_all([hi, lo, rnd])
        with pytest.raises(fr.errors.InvalidArgumentError, match=r"quality must be in \[0,100\]"):
            run(fr.image.adjust_jpeg_quality(x, fr.constant(101)))
        with pytest.raises(ValueError, match="must be less than"):
            fr.image.random_jpeg_quality(x, 50, 50)
    assert np.abs(h - x).max() < 0.02 < np.abs(lw - x).max()
    assert r.shape == (16, 16, 3)


def run_all(ts):
    with fr.Session(graph=ts[0].graph) as s:
        return s.run(ts)


def _gif(screen, boxes):
    """A GIF with a 2-color global table, whose frames are the given (left, top, width,
    height) boxes filled with color 0 (red)."""
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", *screen, 0x80, 1, 0))
    out += b"\xff\x00\x00\x00\x00\x00"
    for left, top, w, h in boxes:
        codes = [4, 0] * (w * h) + [5]  # clear, pixel 0, ...; end (3-bit codes)
        acc = sum(c << (3 * i) for i, c in enumerate(codes))
        lzw = acc.to_bytes((3 * len(codes) + 7) // 8, "little")
        out += b"\x2c" + struct.pack("<HHHHB", left, top, w, h, 0) + b"\x02"
        for i in range(0, len(lzw), 255):
            out += bytes([len(lzw[i : i + 255])]) + lzw[i : i + 255]
        out += b"\x00"
    return bytes(out + b"\x3b")


def test_gif_canvas_is_the_largest_frame_not_the_declared_screen():
    # TF 2.21: a GIF decodes on a canvas as large as its largest frame; each frame sits
    # at its offset, clipped to the canvas (the 3rd frame lies outside it).
    pytest.importorskip("PIL.Image")
    data = _gif((10, 10), [(0, 0, 2, 3), (1, 1, 3, 2), (5, 5, 1, 1)])
    with fr.Graph().as_default():
        out = run(fr.image.decode_gif(data))
    assert out.shape == (3, 3, 3, 3)
    np.testing.assert_array_equal(out[1, 1:, 1:, 0], 255)
    np.testing.assert_array_equal(out[2], out[1])


def test_gif_declaring_a_huge_screen_decodes_in_memory_of_its_frames():
    # 40 frames of 1x1 on a declared 8000x8000 screen: [40, 1, 1, 3] as TF, and the
    # decode fits far below the 40 x 192 MB the declared screen would take.
    pytest.importorskip("PIL.Image")
    data = _gif((8000, 8000), [(0, 0, 1, 1)] * 40)
    out = run_capped(
        """
        import flowrt as fr
        data = %r
        with fr.Session() as s:
            print(s.run(fr.image.decode_image(data)).shape)
        """
        % data
    )
    assert out.strip() == "(40, 1, 1, 3)"


def _png_header_only(w, h):
    """An 8-bit RGB PNG declaring ``w`` x ``h`` whose compressed pixels are 11 bytes."""

    def chunk(kind, body):
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 100))
        + chunk(b"IEND", b"")
    )


def test_png_whose_pixels_cannot_inflate_to_its_declared_size_fails_before_allocating():
    # 12000x12000 RGB (432 MB) from 67 bytes: deflate inflates a byte to at most 1032,
    # so the file cannot hold that image; refused before the pixels are allocated (the
    # decoder allocated them all, then found the data truncated).
    pytest.importorskip("PIL.Image")
    data = _png_header_only(12000, 12000)
    out = run_capped(
        """
        import warnings
        import flowrt as fr
        warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning
        with fr.Session() as s:
            try:
                s.run(fr.image.decode_png(%r))
            except fr.errors.InvalidArgumentError as e:
                print(e.message)
        """
        % data,
        limit_mb=640,
    )
    assert out.startswith("Invalid PNG data, size %d: " % len(data))
    assert "12000x12000" in out


def _bmp(w, h, pixels=b""):
    """A 24-bit uncompressed BMP declaring ``w`` x ``h`` followed by ``pixels``."""
    row = (w * 3 + 3) & ~3
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, row * abs(h), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) + info + pixels


def test_bmp_whose_file_is_not_its_declared_rows_fails_before_allocating():
    # TF 2.21's rule and message: the file is exactly its header and rows. A 54-byte
    # header declaring 12000x12000 (432 MB) is refused before the pixels are
    # allocated (the decoder allocated them, then found the data short), and so is
    # a file with bytes past its rows (flowrt decoded it).
    pytest.importorskip("PIL.Image")
    out = run_capped(
        """
        import warnings
        import flowrt as fr
        from tests.ops.test_image_codecs import _bmp
        warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning
        with fr.Session() as s:
            for data in (_bmp(12000, 12000), _bmp(3, 2, bytes(30))):
                try:
                    s.run(fr.image.decode_bmp(data))
                except fr.errors.InvalidArgumentError as e:
                    print(e.message)
            print(s.run(fr.image.decode_bmp(_bmp(3, -2, bytes(24)))).shape)
        """,
        limit_mb=640,
    )
    assert out.splitlines() == [
        "Input size should match (header_size + row_size * abs_height) but they differ by "
        "-432000000",
        "Input size should match (header_size + row_size * abs_height) but they differ by 6",
        "(2, 3, 3)",
    ]
