"""fr.linalg: TF1's names, and tf.norm's ord/axis rules (recorded from TF 2.21)."""

import numpy as np
import pytest

import flowrt as fr

X = np.arange(24.0).reshape(2, 3, 4) - 10


def test_linalg_names_are_the_same_functions():
    assert fr.linalg.norm is fr.norm and fr.linalg.einsum is fr.einsum
    assert fr.linalg.matmul is fr.matmul and fr.linalg.band_part is fr.matrix_band_part
    assert fr.linalg.diag is fr.matrix_diag and fr.linalg.diag_part is fr.matrix_diag_part
    assert fr.linalg.set_diag is fr.matrix_set_diag and fr.linalg.transpose is fr.matrix_transpose
    assert "norm" in fr.linalg.__all__ and "linalg" in fr.__all__


@pytest.mark.parametrize(
    "ord, axis, name, keep_shape, values",
    [
        ("euclidean", None, "norm/Sqrt:0", [1, 1, 1], [34.6987]),
        (1, None, "norm/Sum:0", [1, 1, 1], [146.0]),
        (np.inf, None, "norm/Max:0", [1, 1, 1], [13.0]),
        (1, -1, "norm/Sum:0", [2, 3, 1], [34, 18, 4, 14, 30, 46]),
        (np.inf, 2, "norm/Max:0", [2, 3, 1], [10, 6, 2, 5, 9, 13]),
        ("fro", [1, 2], "norm/Sqrt:0", [2, 1, 1], [19.64688, 28.6007]),
        (1, (1, 2), "norm/Max:0", [2, 1, 1], [18, 27]),
        (np.inf, [1, 2], "norm/Max:0", [2, 1, 1], [34, 46]),
        ("euclidean", (0, 2), "norm/Sqrt:0", [1, 3, 1], [18.65476, 17.77639, 23.2379]),
    ],
)
def test_norm_values_names_and_shapes_are_tfs(ord, axis, name, keep_shape, values):
    with fr.Graph().as_default():
        n = fr.linalg.norm(fr.constant(X), ord=ord, axis=axis, keepdims=True)
        n2 = fr.norm(fr.constant(X), ord=ord, axis=axis)
        assert n.name == name and n.shape.as_list() == keep_shape
        assert n2.shape.as_list() == [d for i, d in enumerate(keep_shape) if _kept(i, axis)]
        with fr.Session() as s:
            a, b = s.run([n, n2])
    np.testing.assert_allclose(a.ravel(), values, rtol=1e-5)
    np.testing.assert_allclose(b.ravel(), values, rtol=1e-5)


def _kept(i, axis):
    if axis is None:
        return False
    axes = [axis] if isinstance(axis, int) else list(axis)
    return i not in [a % 3 for a in axes]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ord": "fro", "axis": 1}, "'ord' must be a supported vector norm, got fro"),
        ({"ord": "fro"}, "'ord' must be a supported vector norm, got fro"),
        ({"ord": 0}, "'ord' must be a supported vector norm, got 0"),
        (
            {"axis": [1, 1]},
            "'axis' must be None, an integer, or a tuple of 2 unique integers, got (1, 1)",
        ),
    ],
)
def test_norm_errors_are_tfs(kwargs, message):
    with fr.Graph().as_default(), pytest.raises(ValueError) as info:
        fr.norm(fr.constant(X), **kwargs)
    assert str(info.value) == message
