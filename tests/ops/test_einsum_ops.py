"""fr.einsum: values against numpy, static shapes, names and error messages as TF 2.21's
tf.compat.v1 (recorded)."""

import numpy as np
import pytest

import flowrt as fr

_r = np.random.default_rng(5)
A = _r.standard_normal((2, 3, 4)).astype(np.float32)
B = _r.standard_normal((4, 5)).astype(np.float32)
D = _r.standard_normal((3, 3)).astype(np.float32)


@pytest.mark.parametrize(
    "equation, arrays, shape",
    [
        ("bij,jk->bik", [A, B], [2, 3, 5]),
        ("...ij,jk", [A, B], [2, 3, 5]),
        ("ii->i", [D], [3]),
        ("ii", [D], []),
        ("ij->", [B], []),
        ("ba", [B], [5, 4]),
        ("i,j", [B[0], B[1]], [5, 5]),
        ("...j,...j->...", [A, B[:, :1].T], [2, 3]),
        ("ij,jk,kl->il", [D, D, D], [3, 3]),
        ("i...j,j->i...", [np.ones((2, 3, 1, 4), np.float32), B[:, 0]], [2, 3, 1]),
        ("ij->...", [B], []),
        (" ij , jk -> ik ", [D, D], [3, 3]),
    ],
)
def test_values_and_static_shapes_match_numpy(equation, arrays, shape):
    with fr.Graph().as_default():
        y = fr.einsum(equation, *[fr.constant(a) for a in arrays])
        assert y.shape.as_list() == shape
        with fr.Session() as s:
            got = s.run(y)
    want = np.einsum(equation.replace(" ", ""), *arrays)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert got.dtype == np.float32 and list(got.shape) == shape


def test_names_and_the_stored_equation_are_tfs():
    with fr.Graph().as_default():
        a = fr.placeholder(fr.float32, [None, 2, 3])
        y = fr.einsum("...ij,jk", a, fr.ones([3, 4]))
        assert y.name == "einsum/Einsum:0" and y.op.type == "Einsum"
        assert y.op.get_attr("equation") == b"...ij,jk->...ik"
        assert y.shape.as_list() == [None, 2, 4]
        y2 = fr.einsum("ij->ji", fr.ones([3, 4]), name="t")
        assert y2.name == "t/Einsum:0"


def test_integer_inputs():
    with fr.Graph().as_default(), fr.Session() as s:
        y = fr.einsum("ij,jk->ik", fr.constant([[1, 2]]), fr.constant([[3], [4]]))
        assert y.dtype == fr.int32
        assert s.run(y).tolist() == [[11]]


@pytest.mark.parametrize(
    "equation, shapes, cls, message",
    [
        ("ij,jk->ik", [[3, 4]], ValueError, 'Got 1 inputs for equation "ij,jk->ik", expecting 2'),
        ("ij,jk->ik", [[3, 4], [3, 4]], ValueError, "Dimensions must be equal, but are 4 and 3"),
        (
            "ij->ik",
            [[3, 4]],
            ValueError,
            "Output subscripts contain the label k not present in the input subscripts.",
        ),
        (
            "ijk->ij",
            [[3, 4]],
            ValueError,
            "Shape must be rank 3 but is rank 2\n\t for 0th input and equation: ijk->ij",
        ),
        (
            "abc...->a",
            [[3, 4]],
            ValueError,
            "Shape must be at least rank 3 but is rank 2\n\t for 0th input and equation: abc...->a",
        ),
        ("i-j", [[3, 4]], ValueError, "Subscripts have incorrect format: i-j"),
        (
            "ij->ii",
            [[3, 4]],
            ValueError,
            "Output subscripts contain a label appearing more than once: ij->ii",
        ),
    ],
)
def test_construction_errors_are_tfs(equation, shapes, cls, message):
    with fr.Graph().as_default():
        with pytest.raises(cls) as info:
            fr.einsum(equation, *[fr.placeholder(fr.float32, s) for s in shapes])
        assert message in str(info.value)


def test_mixed_dtypes_are_a_type_error():
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match="have types \\[float32, int32\\] that don't all match"):
            fr.einsum("ij,jk->ik", fr.ones([2, 2]), fr.constant([[1]]))


def test_run_time_dimension_mismatch_is_invalid_argument():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [None, None])
        y = fr.einsum("ij,jk->ik", x, fr.ones([3, 2]))
        with fr.Session() as s:
            with pytest.raises(fr.errors.InvalidArgumentError) as info:
                s.run(y, {x: np.ones((2, 4))})
    assert "Expected dimension 4 at axis 0 of the input shaped [3, 2] but got dimension 3" in (
        info.value.message
    )
    assert info.value.op.name == "einsum/Einsum"


def test_gradient_sums_broadcast_axes_back_tf_values():
    # Recorded from TF: sum of squares of each gradient for y = einsum('...j,...j->...').
    r = np.random.default_rng(0)
    a = r.standard_normal((2, 3, 4))
    r.standard_normal((4, 5))
    r.standard_normal((3, 3))
    v = r.standard_normal((1, 4))
    with fr.Graph().as_default():
        ta, tv = fr.constant(a), fr.constant(v)
        y = fr.einsum("...j,...j->...", ta, tv)
        u = np.random.default_rng(1).standard_normal((2, 3))
        ga, gv = fr.gradients(fr.reduce_sum(y * u), [ta, tv])
        assert ga.shape.as_list() == [2, 3, 4] and gv.shape.as_list() == [1, 4]
        with fr.Session() as s:
            gav, gvv = s.run([ga, gv])
    np.testing.assert_allclose(gav, u[..., None] * v, rtol=1e-12)
    np.testing.assert_allclose(gvv, np.einsum("bi,bij->j", u, a)[None], rtol=1e-12)


def test_gradient_needs_known_ranks_with_an_ellipsis():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32)
        y = fr.einsum("...i->...", x)
        with pytest.raises(ValueError, match="needs the rank of input 0, which is unknown"):
            fr.gradients(y, x)
