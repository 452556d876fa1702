"""fr.hessians against TF 2.21's (tensorflow.compat.v1, graph mode) results."""

import numpy as np
import pytest

import flowrt as fr


def test_hessians_of_each_x_with_itself():
    with fr.Graph().as_default():
        v = fr.constant([1.0, 2.0, 3.0], fr.float64)
        w = fr.constant([[1.0, 2.0], [3.0, 4.0]], fr.float64)
        f = fr.reduce_sum(v**3) + fr.reduce_sum(fr.matmul(w, w) * w)
        hv, hw = fr.hessians(f, [v, w])
        assert hv.shape.as_list() == [3, 3] and hw.shape.as_list() == [2, 2, 2, 2]
        got_v, got_w = fr.Session().run([hv, hw])
    np.testing.assert_allclose(got_v, np.diag([6.0, 12.0, 18.0]))
    # TF 2.21's
    want_w = [
        [[[6.0, 7.0], [8.0, 0.0]], [[7.0, 10.0], [5.0, 7.0]]],
        [[[8.0, 5.0], [10.0, 8.0]], [[0.0, 7.0], [8.0, 24.0]]],
    ]
    np.testing.assert_allclose(got_w, want_w)


def test_hessian_with_a_fed_input_of_unknown_size():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [None])
        (h,) = fr.hessians(fr.reduce_sum(fr.exp(x)) * fr.reduce_sum(x), x)
        xv = np.array([0.5, -1.0, 2.0])
        got = fr.Session().run(h, {x: xv})
    e = np.exp(xv)
    want = np.diag(e * xv.sum()) + e[:, None] + e[None, :]
    np.testing.assert_allclose(got, want)


def test_an_x_that_ys_do_not_depend_on_is_an_error():
    with fr.Graph().as_default():
        x = fr.constant(1.0)
        with pytest.raises(ValueError, match="not connected"):
            fr.hessians(fr.constant(2.0) * 3.0, x)
