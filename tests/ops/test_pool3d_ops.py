"""max_pool3d and avg_pool3d: values against a direct loop and against TF 2.21's
(tensorflow.compat.v1, graph mode) recorded results; shapes, names, ties and errors.
Gradients are checked in tests/grad_specs/pool3d.py."""

import itertools

import numpy as np
import pytest

import flowrt as fr

X = np.random.RandomState(1).randn(2, 5, 6, 4, 3).astype(np.float32)  # TF's figures' input


def _direct(x, ksize, strides, padding, reduce):
    """The pool by its definition: each output reduces the real elements of its window."""
    outs, pads = [], []
    for n, k, s in zip(x.shape[1:4], ksize, strides):
        o = -(-n // s) if padding == "SAME" else (n - k) // s + 1
        outs.append(o)
        pads.append(max((o - 1) * s + k - n, 0) // 2 if padding == "SAME" else 0)
    y = np.zeros((x.shape[0], *outs, x.shape[4]), x.dtype)
    for idx in itertools.product(*map(range, outs)):
        lo = [max(i * s - p, 0) for i, s, p in zip(idx, strides, pads)]
        hi = [
            min(i * s - p + k, n) for i, s, p, k, n in zip(idx, strides, pads, ksize, x.shape[1:4])
        ]
        win = x[:, lo[0] : hi[0], lo[1] : hi[1], lo[2] : hi[2]]
        y[(slice(None),) + idx] = reduce(win, axis=(1, 2, 3))
    return y


# ksize, strides, padding, output shape; TF 2.21's sum(y * cos) and sum(dx * sin) for the
# max pool, then for the average pool
CASES = [
    (
        2,
        2,
        "SAME",
        [2, 3, 3, 2, 3],
        (2.145709276199341, 0.372573855740685),
        (-1.5766785144805908, 0.04522092497001112),
    ),
    (
        [2, 3, 2],
        [1, 2, 1],
        "VALID",
        [2, 4, 2, 3, 3],
        (-1.5612585544586182, 6.794235856915953),
        (-1.0247037410736084, 0.02598957654747274),
    ),
    (
        [1, 3, 3, 2, 1],
        [1, 2, 2, 2, 1],
        "SAME",
        [2, 3, 3, 2, 3],
        (5.712154388427734, -3.4284514101152803),
        (-0.859684944152832, -0.010452602941334321),
    ),
]


def _wave(fn, shape):
    return fn(np.arange(int(np.prod(shape)))).reshape(shape).astype(np.float32)


@pytest.mark.parametrize("ksize, strides, padding, shape, tf_max, tf_avg", CASES)
def test_pools_and_their_gradients_as_tf(ksize, strides, padding, shape, tf_max, tf_avg):
    k3 = [ksize] * 3 if isinstance(ksize, int) else (ksize[1:4] if len(ksize) == 5 else ksize)
    s3 = (
        [strides] * 3
        if isinstance(strides, int)
        else (strides[1:4] if len(strides) == 5 else strides)
    )
    for fn, op_type, reduce, (tf_y, tf_dx) in [
        (fr.nn.max_pool3d, "MaxPool3D", np.max, tf_max),
        (fr.nn.avg_pool3d, "AvgPool3D", np.mean, tf_avg),
    ]:
        with fr.Graph().as_default():
            x = fr.constant(X)
            y = fn(x, ksize, strides, padding)
            assert (y.op.type, y.op.name, y.shape.as_list()) == (op_type, op_type, shape)
            w = _wave(np.cos, shape)
            (dx,) = fr.gradients(fr.reduce_sum(y * w), x)
            assert dx.op.type == op_type + "Grad"
            yv, dxv = fr.Session().run([y, dx])
        np.testing.assert_allclose(yv, _direct(X, k3, s3, padding, reduce), rtol=1e-6, atol=1e-6)
        assert np.sum(yv * w) == pytest.approx(tf_y, rel=1e-5)
        assert np.sum(dxv * _wave(np.sin, X.shape)) == pytest.approx(tf_dx, rel=1e-5)


def test_max_pool3d_grad_goes_to_every_tied_maximum_and_its_gradient_reads_the_first():
    # TF 2.21's CPU kernels: MaxPool3DGrad gives 3 to each of the four 1s;
    # MaxPool3DGradGrad reads the incoming gradient at the first 1 only.
    x = np.array([1, 1, 0, 1, 0, 0, 1, 0], np.float32).reshape(1, 2, 2, 2, 1)
    with fr.Graph().as_default():
        t, g = fr.constant(x), fr.constant(np.full((1, 1, 1, 1, 1), 3.0, np.float32))
        (dx,) = fr.gradients(fr.nn.max_pool3d(t, 2, 2, "VALID"), t, grad_ys=g)
        gg = fr.constant(np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2, 1))
        (ddy,) = fr.gradients(dx, g, grad_ys=gg)
        assert ddy.op.type == "MaxPool3DGradGrad"
        dxv, ddyv = fr.Session().run([dx, ddy])
    np.testing.assert_array_equal(dxv.ravel(), 3 * x.ravel())
    np.testing.assert_array_equal(ddyv.ravel(), [1.0])


def test_unknown_sizes_and_names():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [None, None, 6, None, 3])
        y = fr.nn.avg_pool3d(x, 3, 2, "SAME", name="pooled")
        assert y.op.name == "pooled" and y.shape.as_list() == [None, None, 3, None, 3]
        yv = fr.Session().run(y, {x: X})
    np.testing.assert_allclose(yv, _direct(X, [3] * 3, [2] * 3, "SAME", np.mean), rtol=1e-6)


def test_construction_errors():
    with fr.Graph().as_default():
        x = fr.constant(X)
        with pytest.raises(ValueError, match="batch nor channel"):
            fr.nn.max_pool3d(x, [2, 1, 1, 1, 1], 1, "SAME")
        with pytest.raises(ValueError, match="length 1, 3 or 5"):
            fr.nn.max_pool3d(x, [1, 2], 1, "SAME")
        with pytest.raises(ValueError, match="padding"):
            fr.nn.avg_pool3d(x, 2, 1, "valid")
        with pytest.raises(ValueError, match="NCDHW.*not supported"):
            fr.nn.avg_pool3d(x, 2, 1, "SAME", data_format="NCDHW")
        with pytest.raises(ValueError, match="rank 5"):
            fr.nn.max_pool3d(x[0], 2, 1, "SAME")
        with pytest.raises(ValueError, match="Negative dimension size"):
            fr.nn.max_pool3d(x, 7, 1, "VALID")
        with pytest.raises(TypeError, match="int32 not in list"):
            fr.nn.max_pool3d(fr.constant(np.ones((1, 2, 2, 2, 1), np.int32)), 2, 1, "SAME")
