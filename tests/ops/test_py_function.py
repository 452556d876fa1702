"""fr.py_function: the py_func mechanism with TF's eager-tensor view of the inputs
(values and names recorded from TF 2.21's tf.compat.v1)."""

import numpy as np
import pytest
import trio

import flowrt as fr


def test_inputs_have_numpy_and_results_match_tf():
    def f(x, y):
        return x.numpy() * 2 + y, np.float32(y.numpy())

    with fr.Graph().as_default():
        x, y = fr.constant([1.0, 2.0]), fr.constant(3.0)
        a, b = fr.py_function(f, [x, y], [fr.float32, fr.float32])
        c = fr.py_function(lambda x: x * 3, [x], fr.float32, name="tri")
        assert (a.name, a.op.type, c.name) == ("EagerPyFunc:0", "EagerPyFunc", "tri:0")
        assert a.shape.ndims is None and c.shape.ndims is None
        with fr.Session() as s:
            av, bv, cv = s.run([a, b, c])
    np.testing.assert_array_equal(av, [5.0, 7.0])
    assert bv == np.float32(3.0)
    np.testing.assert_array_equal(cv, [3.0, 6.0])
    assert type(cv) is np.ndarray


def test_errors_map_as_py_func():
    def bad(x):
        raise ValueError("no good")

    with fr.Graph().as_default():
        y = fr.py_function(bad, [fr.constant(1.0)], fr.float32)
        with fr.Session() as s, pytest.raises(fr.errors.InvalidArgumentError, match="no good"):
            s.run(y)


def test_no_gradient_is_said_plainly():
    with fr.Graph().as_default():
        x = fr.constant([1.0])
        y = fr.py_function(lambda v: v * 3, [x], fr.float32, name="tri")
        with pytest.raises(LookupError, match="No gradient defined for operation 'tri'"):
            fr.gradients(y, x)


async def test_arun_runs_it():
    with fr.Graph().as_default():
        y = fr.py_function(lambda v: v.numpy() + 1, [fr.constant([1.0])], fr.float32)
        assert fr.get_default_graph().get_operations()[-1].type == "EagerPyFunc"
        with fr.Session() as s, trio.fail_after(10):
            np.testing.assert_array_equal(await s.arun(y), [2.0])
