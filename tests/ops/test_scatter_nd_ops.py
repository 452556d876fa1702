"""Tensor and variable scatters, against TF 2.21's results (recorded here)."""

import numpy as np
import pytest

import flowrt as fr

T = np.arange(8.0).reshape(4, 2)
IX = [[1], [3], [1]]
U = np.array([[10.0, -1], [20, 20], [5, 30]])
W = np.arange(8.0).reshape(4, 2)  # the weights of the summed output

# fn -> (value, d/dtensor, d/dupdates) as TF 2.21 gives them
CASES = {
    "update": (
        fr.tensor_scatter_nd_update,
        [[0, 1], [5, 30], [4, 5], [20, 20]],
        [[0, 1], [0, 0], [4, 5], [0, 0]],
        [[2, 3], [6, 7], [2, 3]],
    ),
    "add": (
        fr.tensor_scatter_nd_add,
        [[0, 1], [17, 32], [4, 5], [26, 27]],
        W,
        [[2, 3], [6, 7], [2, 3]],
    ),
    "sub": (
        fr.tensor_scatter_sub,
        [[0, 1], [-13, -26], [4, 5], [-14, -13]],
        W,
        [[-2, -3], [-6, -7], [-2, -3]],
    ),
    "max": (
        fr.tensor_scatter_nd_max,
        [[0, 1], [10, 30], [4, 5], [20, 20]],
        [[0, 1], [0, 0], [4, 5], [0, 0]],
        [[2, 0], [6, 7], [0, 3]],
    ),
    "min": (
        fr.tensor_scatter_nd_min,
        [[0, 1], [2, -1], [4, 5], [6, 7]],
        [[0, 1], [2, 0], [4, 5], [6, 7]],
        [[0, 3], [0, 0], [0, 0]],
    ),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_tensor_scatter_values_and_gradients_match_tf(kind):
    fn, want, want_gt, want_gu = CASES[kind]
    with fr.Graph().as_default():
        t, u = fr.constant(T), fr.constant(U)
        y = fn(t, IX, u)
        assert y.shape.as_list() == [4, 2]
        gt, gu = fr.gradients(fr.reduce_sum(y * W), [t, u])
        with fr.Session() as s:
            v, a, b = s.run([y, gt, gu])
    np.testing.assert_array_equal(v, want)
    np.testing.assert_array_equal(a, want_gt)
    np.testing.assert_array_equal(b, want_gu)


def test_tf1_names():
    assert fr.tensor_scatter_update is fr.tensor_scatter_nd_update
    assert fr.tensor_scatter_add is fr.tensor_scatter_nd_add


def test_index_out_of_range_names_it():
    with fr.Graph().as_default():
        ix = fr.placeholder(fr.int32, [2, 1])
        y = fr.tensor_scatter_nd_update(fr.zeros([4]), ix, [1.0, 2.0])
        with fr.Session() as s:
            with pytest.raises(
                fr.errors.InvalidArgumentError,
                match=r"indices\[1\] = \[5\] does not index into tensor shape \[4\]",
            ):
                s.run(y, {ix: [[1], [5]]})


def test_updates_shape_is_checked():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="updates must have shape"):
            fr.tensor_scatter_nd_add(fr.zeros([4, 2]), [[1]], fr.zeros([1, 3]))


def test_variable_scatters_match_tf():
    with fr.Graph().as_default():
        v = fr.Variable(T)
        w = fr.Variable([1.0, 2, 3, 4])
        ops = [
            fr.scatter_nd_update(v, [[0, 1], [2, 0]], [100.0, 200.0]),
            fr.scatter_nd_add(v, [[3]], [[1.0, 1.0]]),
            fr.scatter_nd_sub(v, [[3]], [[5.0, 5.0]]),
            fr.scatter_mul(w, [0, 1], [10.0, 10.0]),
            fr.scatter_div(w, [0], [4.0]),
            fr.scatter_max(w, [2], [9.0]),
            fr.scatter_min(w, [3], [-1.0]),
        ]
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            got = [s.run(o).tolist() for o in ops]
            bad = fr.scatter_nd_add(v, fr.constant([[4]]), [[1.0, 1.0]])
            with pytest.raises(fr.errors.InvalidArgumentError, match=r"= \[4\] does not index"):
                s.run(bad)
            np.testing.assert_array_equal(s.run(v), got[2])  # the failed update changed nothing
    assert got == [
        [[0, 100], [2, 3], [200, 5], [6, 7]],
        [[0, 100], [2, 3], [200, 5], [7, 8]],
        [[0, 100], [2, 3], [200, 5], [2, 3]],
        [10, 20, 3, 4],
        [2.5, 20, 3, 4],
        [2.5, 20, 9, 4],
        [2.5, 20, 9, -1],
    ]


def test_variable_scatter_needs_a_variable():
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match="needs a variable"):
            fr.scatter_nd_update(fr.zeros([2]), [[0]], [1.0])
