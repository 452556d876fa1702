"""complex64/complex128: dtypes, the kernels that make sense for them, TF's gradients."""

import numpy as np
import pytest

import flowrt as fr

Z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j])


def _run(fetches, feed=None):
    with fr.Session() as sess:
        return sess.run(fetches, feed)


def test_dtypes():
    assert fr.complex64.is_complex and not fr.float32.is_complex
    assert fr.complex64.real_dtype is fr.float32 and fr.complex128.real_dtype is fr.float64
    assert fr.as_dtype(np.complex64) is fr.complex64
    assert fr.as_dtype("complex128") is fr.complex128 and fr.as_dtype(complex) is fr.complex128
    assert fr.constant(1 + 2j).dtype is fr.complex128
    assert fr.complex64.size == 8
    with pytest.raises(TypeError, match="Cannot find minimum value of complex64"):
        _ = fr.complex64.min


@pytest.mark.parametrize("dtype", [fr.complex64, fr.complex128])
def test_elementwise_and_reductions_match_numpy(dtype):
    z = fr.placeholder(dtype, [3])
    zv = Z.astype(dtype.np)
    outs = _run(
        [
            z + z,
            z - 1,
            z * z,
            z / (z + 1),
            -z,
            fr.square(z),
            fr.exp(z),
            fr.log(z),
            fr.sqrt(z),
            fr.tanh(z),
            fr.sigmoid(z),
            fr.reciprocal(z),
            fr.reduce_sum(z),
            fr.reduce_mean(z),
            fr.equal(z, z),
        ],
        {z: zv},
    )
    with np.errstate(all="ignore"):
        ref = [
            zv + zv,
            zv - 1,
            zv * zv,
            zv / (zv + 1),
            -zv,
            zv * zv,
            np.exp(zv),
            np.log(zv),
            np.sqrt(zv),
            np.tanh(zv),
            1 / (1 + np.exp(-zv)),
            1 / zv,
            zv.sum(),
            zv.mean(),
            np.ones(3, bool),
        ]
    for got, want in zip(outs, ref, strict=True):
        got = np.asarray(got)
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_parts_abs_conj_and_cast():
    re = fr.constant([1.0, -2.0])
    im = fr.constant([0.5, 3.0])
    z = fr.complex(re, im)
    assert z.dtype is fr.complex64
    assert fr.complex(fr.constant(1.0, fr.float64), np.float64(2.0)).dtype is fr.complex128
    a, r, i, c, m, f = _run(
        [fr.abs(z), fr.real(z), fr.imag(z), fr.conj(z), abs(z), fr.cast(z, fr.float32)]
    )
    zv = np.array([1 + 0.5j, -2 + 3j], np.complex64)
    assert a.dtype == np.float32 and fr.abs(z).op.type == "ComplexAbs"
    np.testing.assert_allclose(a, np.abs(zv), rtol=1e-6)
    np.testing.assert_array_equal(m, a)
    np.testing.assert_array_equal(r, [1.0, -2.0])
    np.testing.assert_array_equal(i, [0.5, 3.0])
    np.testing.assert_array_equal(c, np.conj(zv))
    np.testing.assert_array_equal(f, [1.0, -2.0])  # TF's cast keeps the real part
    # On real tensors: real and conj are the tensor itself, imag is zeros (TF1).
    assert fr.real(re) is re and fr.conj(re) is re
    np.testing.assert_array_equal(_run(fr.imag(re)), [0.0, 0.0])


def test_ops_without_complex_kernels_reject_it_naming_the_argument():
    z = fr.constant(Z)
    with pytest.raises(TypeError, match="DataType complex128 not in list of allowed values"):
        fr.maximum(z, z)
    with pytest.raises(TypeError, match="real"):
        fr.complex(z, z)
    with pytest.raises(TypeError, match="DataType float32 not in list of allowed values"):
        fr.get_default_graph().create_op("Real", [fr.constant(1.0)])


def test_gradients_flow_through_complex_values():
    x = fr.placeholder(fr.float64, [3])
    z = fr.complex(x, 2.0 * x)
    loss = fr.reduce_sum(fr.abs(z * z))  # |z|^2 = 5 x^2
    (g,) = fr.gradients(loss, [x])
    xv = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(_run(g, {x: xv}), 10 * xv, rtol=1e-12)


def test_complex_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    zv = Z.astype(np.complex128)
    gv = np.array([0.3 - 1j, 2 + 0.5j, -1 + 1j])

    def grads(lib):
        z = lib.placeholder(lib.complex128, [3])
        gy = lib.placeholder(lib.complex128, [3])
        y = lib.exp(z) * z / (z + 2.0) + lib.tanh(z) * lib.conj(z)
        (g,) = lib.gradients(y, [z], grad_ys=[gy])
        return g, {z: zv, gy: gv}

    with tf.Graph().as_default():
        g, feed = grads(tf)
        with tf.Session() as sess:
            want = sess.run(g, feed)
    with fr.Graph().as_default():
        g, feed = grads(fr)
        got = _run(g, feed)
    np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("dtype", [fr.complex64, fr.complex128])
def test_python_complex_values_convert_to_a_complex_dtype(dtype):
    # As TF: a Python complex is a valid element of a complex tensor, not of a real one.
    c = fr.constant([1 + 2j, 3], dtype)
    q = fr.FIFOQueue(2, dtype, shapes=[])
    with fr.Session() as sess:
        sess.run(q.enqueue(1 - 1j))
        assert sess.run(c).tolist() == [1 + 2j, 3 + 0j]
        assert sess.run(q.dequeue()) == 1 - 1j
    with pytest.raises(TypeError, match="Expected float32, but got"):
        fr.constant(1 + 2j, fr.float32)
