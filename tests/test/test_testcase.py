"""fr.test.TestCase: failures say what differs; the module functions; tf.test.main()."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import flowrt as fr


class _Case(fr.test.TestCase):
    def runTest(self):
        pass


@pytest.fixture
def case():
    c = _Case()
    c.setUp()
    yield c
    c.tearDown()
    c.doCleanups()


def test_assert_all_close_names_the_first_mismatch(case):
    with pytest.raises(
        AssertionError,
        match=r"Not equal to tolerance rtol=1e-06, atol=1e-06: "
        r"2 of 4 element\(s\) differ; first at index \[0, 1\]: a=2\.5, b=2\.0",
    ):
        case.assertAllClose([[1.0, 2.5], [3.0, 9.0]], [[1.0, 2.0], [3.0, 4.0]])


def test_assert_all_close_tolerances_follow_dtype(case):
    case.assertAllClose(np.float16([1.0005]), np.float16([1.0]))  # float16: 1e-3
    with pytest.raises(AssertionError):
        case.assertAllClose(np.float32([1.0005]), np.float32([1.0]))
    case.assertAllClose([np.nan, 1.0], [np.nan, 1.0])


def test_assert_all_close_compares_nests_and_shapes(case):
    case.assertAllClose({"a": [1.0], "b": (2.0, [3.0, 4.0])}, {"a": [1.0], "b": (2.0, [3, 4])})
    with pytest.raises(AssertionError, match=r"at \['b'\]\[1\]: 1 of 2"):
        case.assertAllClose({"b": (2.0, [3.0, 4.0])}, {"b": (2.0, [3.0, 5.0])})
    with pytest.raises(AssertionError, match=r"Shape mismatch: expected \(3,\), got \(2,\)"):
        case.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0])


def test_assert_all_close_evaluates_tensors(case):
    with case.cached_session():
        case.assertAllClose(fr.constant([1.0, 2.0]) * 2, [2.0, 4.0])


def test_assert_all_equal(case):
    case.assertAllEqual([b"ab", b"c"], ["ab", "c"])
    with pytest.raises(
        AssertionError,
        match=r"1 of 3 element\(s\) differ; first at index "
        r"\[2\]: a=3, b=4\nextra",
    ):
        case.assertAllEqual([1, 2, 3], [1, 2, 4], msg="extra")
    case.assertNotAllEqual([1, 2], [1, 3])


def test_range_and_near_assertions(case):
    case.assertAllInRange([0.0, 1.0], 0.0, 1.0)
    with pytest.raises(
        AssertionError,
        match=r"outside the range \(0.0, 1.0\]; first at "
        r"index \[0\]: 0.0",
    ):
        case.assertAllInRange([0.0, 1.0], 0.0, 1.0, open_lower_bound=True)
    with pytest.raises(AssertionError, match="does not have an ordered numeric type"):
        case.assertAllInRange(["a"], 0, 1)
    with pytest.raises(AssertionError):
        case.assertArrayNear([1.0, 2.0], [1.0, 2.1], 0.01)
    case.assertAllGreater([2, 3], 1)
    with pytest.raises(AssertionError, match=r"not < 3; first at index \[1\]: 3"):
        case.assertAllLess([2, 3], 3)


def test_assert_shape_equal_checks_types(case):
    t = fr.placeholder(fr.float32, [2, 3])
    case.assertShapeEqual(np.zeros((2, 3)), t)
    with pytest.raises(AssertionError):
        case.assertShapeEqual(np.zeros((3, 2)), t)
    with pytest.raises(TypeError, match="np_array must be a Numpy ndarray"):
        case.assertShapeEqual([1], t)
    with pytest.raises(TypeError, match="tf_tensor must be a Tensor"):
        case.assertShapeEqual(np.zeros(1), [1])


def test_assert_raises_op_error_fails_on_no_or_other_error(case):
    with pytest.raises(AssertionError, match="OpError not raised"):
        with case.assertRaisesOpError("x"):
            pass
    with pytest.raises(AssertionError, match="Exception of type .*ValueError.*: boom"):
        with case.assertRaisesOpError("boom"):
            raise ValueError("boom")
    with pytest.raises(AssertionError, match="Exception of type .*NotFoundError"):
        with case.assertRaisesOpError("elsewhere"):
            raise fr.errors.NotFoundError(None, None, "here")


def test_cached_session_refuses_another_graph(case):
    with case.cached_session():
        pass
    with pytest.raises(ValueError, match="graph used to get the cached session is different"):
        with case.cached_session(graph=fr.Graph()):
            pass


def test_sessions_are_defaults_inside_their_block(case):
    g = fr.Graph()
    with case.session(graph=g) as sess:
        assert fr.get_default_session() is sess
        assert fr.get_default_graph() is g
    assert fr.get_default_session() is None


def test_module_functions():
    assert fr.test.is_gpu_available() is False
    assert fr.test.is_gpu_available(cuda_only=True) is False
    assert fr.test.gpu_device_name() == ""
    assert Path(fr.test.get_temp_dir()).is_dir()


def test_a_ported_file_runs_as_a_script_with_test_main():
    script = Path(__file__).parent / "tf1_style_test.py"
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "Ran 9 tests" in proc.stderr
    assert "OK (skipped=1)" in proc.stderr


@fr.RegisterGradient("TestWrongSquareGrad")
def _wrong_square_grad(op, grad):
    return [grad * op.inputs[0]]  # the factor 2 is missing


def test_compute_gradient_error_is_small_for_a_right_gradient_and_large_for_a_wrong_one():
    x = fr.placeholder(fr.float64, [2, 3])
    right = fr.reduce_sum(fr.tanh(x) * x, axis=1)
    with fr.get_default_graph().gradient_override_map({"Square": "TestWrongSquareGrad"}):
        wrong = fr.square(x)
    with fr.Session() as sess, sess.as_default():
        assert fr.test.compute_gradient_error(x, [2, 3], right, [2]) < 1e-6
        theoretical, numerical = fr.test.compute_gradient(
            x, [2, 3], wrong, [2, 3], x_init_value=np.ones((2, 3))
        )
    assert theoretical.shape == numerical.shape == (6, 6)
    np.testing.assert_allclose(np.diag(theoretical), 1.0)
    np.testing.assert_allclose(np.diag(numerical), 2.0, rtol=1e-6)


def test_compute_gradient_needs_a_default_session():
    x = fr.placeholder(fr.float64, [2])
    with pytest.raises(ValueError, match="compute_gradient needs a default session"):
        fr.test.compute_gradient(x, [2], x * 2.0, [2])


def test_the_ported_file_passes_under_tensorflow_too(tmp_path):
    # Optional cross-check: the same file with TF's import runs under TensorFlow.
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("tensorflow is not installed (an optional cross-check)")
    source = (Path(__file__).parent / "tf1_style_test.py").read_text()
    port = source.replace(
        "import flowrt as tf  # was: import tensorflow.compat.v1 as tf",
        "import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()",
    )
    assert port != source
    script = tmp_path / "tf_original_test.py"
    script.write_text(port)
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Ran 9 tests" in proc.stderr
