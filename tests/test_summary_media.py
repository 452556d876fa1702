"""fr.summary.image, audio, text and tensor_summary: TF1's ops, tags, pixel scaling and
WAV bytes, and TensorBoard reading the event files (the MNIST summaries tutorial's use)."""

import io
import sys
import types

import numpy as np
import pytest

import flowrt as fr
from flowrt.summary.protos import Summary

PIL = pytest.importorskip("PIL.Image")


def _values(serialized):
    return list(Summary.FromString(serialized).value)


def _pixels(value):
    return np.asarray(PIL.open(io.BytesIO(value.image.encoded_image_string))).tolist()


@pytest.fixture
def tensorboard(monkeypatch):
    pytest.importorskip("tensorboard")
    # Have tensorboard.compat use its TF stub rather than import TensorFlow.
    monkeypatch.setitem(
        sys.modules, "tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf")
    )
    from tensorboard.backend.event_processing import event_accumulator

    return event_accumulator


def test_mnist_tutorials_input_images_reach_tensorboard(tmp_path, tensorboard):
    # mnist_with_summaries.py: tf.summary.image('input', image_shaped_input, 10)
    x = fr.placeholder(fr.float32, [None, 784], name="x-input")
    with fr.name_scope("input_reshape"):
        image_shaped_input = fr.reshape(x, [-1, 28, 28, 1])
        fr.summary.image("input", image_shaped_input, 10)
    merged = fr.summary.merge_all()
    batch = np.zeros((12, 784), np.float32)
    batch[:, 0] = 0.5
    batch[:, 1] = 1.0
    with fr.Session() as sess, fr.summary.FileWriter(tmp_path, sess.graph) as writer:
        writer.add_summary(sess.run(merged, {x: batch}), 0)
    ea = tensorboard
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.IMAGES: 0})
    acc.Reload()
    tags = acc.Tags()["images"]
    assert tags == ["input_reshape/input/image/%d" % i for i in range(10)]
    img = acc.Images("input_reshape/input/image/3")[0]
    assert (img.step, img.width, img.height) == (0, 28, 28)
    pixels = np.asarray(PIL.open(io.BytesIO(img.encoded_image_string)))
    assert pixels.shape == (28, 28) and pixels[0, :3].tolist() == [127, 255, 0]


@pytest.mark.parametrize(
    "image, expected",
    [
        # No negative value: scaled by 255 / max, truncated.
        ([[0.0, 0.5], [1.0, 0.25]], [[0, 127], [255, 63]]),
        ([[0.3, 0.5], [1e-7, 2.0]], [[38, 63], [0, 255]]),
        # A negative value: 0 goes to 128, scaled by 127 / max(|min|, |max|); NaN is red.
        ([[-1.0, 0.5], [1.0, np.nan]], [[1, 191], [255, 255]]),
        # Nothing above TF's 1e-6 threshold: all black.
        ([[0.0, 1e-7], [0.0, 0.0]], [[0, 0], [0, 0]]),
    ],
)
def test_float_images_are_scaled_as_tfs_kernel(image, expected):
    x = fr.constant(np.asarray(image, np.float32)[None, :, :, None])
    with fr.Session() as sess:
        (value,) = _values(sess.run(fr.summary.image("img", x)))
    assert value.tag == "img/image/0"
    assert (value.image.height, value.image.width, value.image.colorspace) == (2, 2, 1)
    assert _pixels(value) == expected


def test_a_pixel_with_a_non_finite_channel_gets_the_bad_color():
    rgb = fr.constant([[[[np.nan, 0, 0], [1, 1, 1]]]], fr.float64)
    rgba = fr.constant([[[[1, np.inf, 0, 1], [1, 1, 1, 1]]]], fr.float16)
    with fr.Session() as sess:
        (v3,) = _values(sess.run(fr.summary.image("rgb", rgb)))
        (v4,) = _values(sess.run(fr.summary.image("rgba", rgba)))
    assert _pixels(v3) == [[[255, 0, 0], [255, 255, 255]]]
    assert _pixels(v4) == [[[255, 0, 0, 255], [255, 255, 255, 255]]]


def test_uint8_images_are_kept_and_max_outputs_names_the_tags():
    x = fr.placeholder(fr.uint8, [None, 1, 2, 1])
    one = fr.summary.image("one", x, max_outputs=1)
    two = fr.summary.image("two", x, max_outputs=2, family="fam")
    batch = np.array([[[[7], [200]]]] * 3, np.uint8)
    with fr.Session() as sess:
        ones, twos = (_values(s) for s in sess.run([one, two], {x: batch}))
    assert [v.tag for v in ones] == ["one/image"] and _pixels(ones[0]) == [[7, 200]]
    assert two.op.name == "fam/two" and two.op.get_attr("bad_color").tolist() == [255, 0, 0, 255]
    assert [v.tag for v in twos] == ["fam/fam/two/image/0", "fam/fam/two/image/1"]
    with fr.Session() as sess:
        assert _values(sess.run(one, {x: batch[:0]})) == []


def test_image_summary_errors_are_tfs():
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: uint8"):
        fr.summary.image("i", fr.zeros([1, 2, 2, 1], fr.int32))
    with pytest.raises(
        ValueError, match=r"Attr 'max_images' of 'ImageSummary' Op passed 0 less than minimum 1"
    ):
        fr.summary.image("i", fr.zeros([1, 2, 2, 1]), max_outputs=0)
    y = fr.placeholder(fr.float32)
    s = fr.summary.image("b", y)
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match=r"Tensor must be 4-D with last dim 1, 3, or 4, not \[1,2,2,2\]",
        ):
            sess.run(s, {y: np.zeros((1, 2, 2, 2))})
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match=r"input tensor must have non-zero dims. Found: \[1, 0, 2, 1\]",
        ):
            sess.run(s, {y: np.zeros((1, 0, 2, 1))})


def test_audio_is_tfs_16_bit_wav():
    clip = fr.constant([[0.0, 0.5, -1.0, 1.2, 0.00002, -0.3]])
    s = fr.summary.audio("snd", clip, 8000, max_outputs=1)
    with fr.Session() as sess:
        (v,) = _values(sess.run(s))
    assert v.tag == "snd/audio"
    a = v.audio
    assert (a.sample_rate, a.num_channels, a.length_frames, a.content_type) == (
        8000.0,
        1,
        6,
        "audio/wav",
    )
    # TF 2.21's bytes for the same clip.
    assert a.encoded_audio_string == (
        b"RIFF0\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00"
        b"\x02\x00\x10\x00data\x0c\x00\x00\x00\x00\x00\x00@\x00\x80\xff\x7f\x01\x00\x9a\xd9"
    )


def test_audio_rounds_half_samples_away_from_zero():
    # 2**-16 * 32768 = 0.5: C's roundf gives 1 (numpy's round would give 0).
    s = fr.summary.audio("h", fr.constant([[2.0**-16, -(2.0**-16)]]), 1.0)
    with fr.Session() as sess:
        (v,) = _values(sess.run(s))
    assert v.audio.encoded_audio_string[-4:] == np.array([1, -1], "<i2").tobytes()


def test_audio_of_a_stereo_batch_and_its_errors(tmp_path, tensorboard):
    clips = fr.placeholder(fr.float32)
    rate = fr.placeholder(fr.float32)
    s = fr.summary.audio("st", clips, rate)
    with fr.Session() as sess, fr.summary.FileWriter(tmp_path) as writer:
        writer.add_summary(sess.run(s, {clips: np.zeros((4, 3, 2)), rate: 16000.0}), 1)
        for value, r, message in [
            (np.zeros(2), 1.0, r"Tensor must be 3-D or 2-D, got: \[2\]"),
            (np.zeros((1, 2)), [1.0, 2.0], "sample_rate must be rank-0 or contain a single"),
            (np.zeros((1, 2)), -1.0, "sample_rate must be > 0"),
        ]:
            with pytest.raises(fr.errors.InvalidArgumentError, match=message):
                sess.run(s, {clips: value, rate: r})
    with pytest.raises(TypeError, match="has type float64 that does not match expected type"):
        fr.summary.audio("d", fr.zeros([1, 2], fr.float64), 1.0)
    ea = tensorboard
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.AUDIO: 0})
    acc.Reload()
    assert acc.Tags()["audio"] == ["st/audio/%d" % i for i in range(3)]
    a = acc.Audio("st/audio/2")[0]
    assert (a.sample_rate, a.length_frames, a.content_type) == (16000.0, 3, "audio/wav")


def test_text_summary_is_read_by_tensorboards_text_plugin(tmp_path, tensorboard):
    t = fr.summary.text("notes", fr.constant(["a", "b"]))
    assert [x.op.type for x in t.op.inputs] == ["Const", "Const", "Const"]
    assert t.op.type == "TensorSummaryV2" and t in fr.get_collection(fr.GraphKeys.SUMMARIES)
    with fr.Session() as sess, fr.summary.FileWriter(tmp_path) as writer:
        writer.add_summary(sess.run(t), 2)
    ea = tensorboard
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    assert acc.PluginTagToContent("text") == {"notes": b""}
    (event,) = acc.Tensors("notes")
    assert event.step == 2 and list(event.tensor_proto.string_val) == [b"a", b"b"]
    with pytest.raises(ValueError, match="Expected tensor .* to have dtype string, got"):
        fr.summary.text("n", fr.constant([1]))


def test_tensor_summary_carries_its_metadata():
    s = fr.summary.tensor_summary(
        "t", fr.constant([[1.5, 2.0]]), summary_description="desc", display_name="shown"
    )
    with fr.Session() as sess:
        (v,) = _values(sess.run(s))
    assert v.tag == "t" and (v.metadata.display_name, v.metadata.summary_description) == (
        "shown",
        "desc",
    )
    assert fr.make_ndarray(v.tensor).tolist() == [[1.5, 2.0]]
