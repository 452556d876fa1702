"""py_func / numpy_function: values, dtypes, TF's error mapping, threads and trio."""

import threading

import numpy as np
import pytest
import trio

import flowrt as fr


def test_values_outputs_and_types():
    x = fr.constant([1.0, 2.0])
    one = fr.py_func(lambda v: v * 2, [x], fr.float32)
    two = fr.py_func(
        lambda v: (v, v.astype(np.int64)), [x], [fr.float32, fr.int64], stateful=False, name="two"
    )
    listed = fr.py_func(lambda v: v, [x], [fr.float32])
    none = fr.py_func(lambda: None, [], [])
    nf = fr.numpy_function(lambda v: v + 1, [x], fr.float32)
    assert isinstance(none, fr.Operation) and none.type == "PyFunc"
    assert one.op.type == "PyFunc" and two[0].op.type == "PyFuncStateless"
    assert nf.op.type == "PyFunc" and nf.op.name == "PyFunc_3"
    assert [t.name for t in two] == ["two:0", "two:1"] and isinstance(listed, list)
    assert one.shape.ndims is None and two[1].dtype == fr.int64
    with fr.Session() as sess:
        a, (b, c), (d,), e, f = sess.run([one, two, listed, none, nf])
    np.testing.assert_array_equal(a, [2.0, 4.0])
    assert c.dtype == np.int64 and e is None
    np.testing.assert_array_equal(f, [2.0, 3.0])
    assert fr.gradients(one, x) == [None]


def test_strings_and_set_shape():
    s = fr.py_func(lambda v: v + b"!", [fr.constant(b"hi")], fr.string)
    u = fr.py_func(lambda: np.array(["a", "bc"]), [], fr.string)  # str -> UTF-8 bytes
    y = fr.py_func(lambda v: np.sort(v) * 2, [fr.constant([3.0, 1.0, 2.0])], fr.float32)
    y.set_shape([3])
    z = y + 1.0
    assert z.shape.as_list() == [3]
    with fr.Session() as sess:
        assert sess.run(s) == b"hi!"
        assert sess.run(u).tolist() == [b"a", b"bc"]
        np.testing.assert_array_equal(sess.run(z), [3.0, 5.0, 7.0])


def test_an_object_array_of_str_comes_back_as_bytes():
    # TF's py_func kernel encodes each str of an object array as UTF-8, as of a "U" array.
    o = fr.py_func(lambda: np.array(["ab", b"c", "é"], dtype=object), [], fr.string)
    with fr.Session() as sess:
        assert sess.run(o).tolist() == [b"ab", b"c", "é".encode()]


def test_the_function_gets_its_own_arrays():
    x = fr.constant([1.0, 2.0])

    def mutate(v):
        v += 100.0  # must not change the value other consumers of x see
        return v

    y = fr.py_func(mutate, [x], fr.float32)
    with fr.Session() as sess:
        got_y, got_x = sess.run([y, x * 1.0])
    np.testing.assert_array_equal(got_y, [101.0, 102.0])
    np.testing.assert_array_equal(got_x, [1.0, 2.0])


def _raiser(exc):
    def f(v):
        raise exc("boom")

    return f


@pytest.mark.parametrize(
    "exc,error",
    [
        (ValueError, fr.errors.InvalidArgumentError),
        (TypeError, fr.errors.InvalidArgumentError),
        (StopIteration, fr.errors.OutOfRangeError),
        (MemoryError, fr.errors.ResourceExhaustedError),
        (NotImplementedError, fr.errors.UnimplementedError),
        (RuntimeError, fr.errors.UnknownError),
        (KeyError, fr.errors.UnknownError),
    ],
)
def test_exceptions_map_to_tf_errors_naming_the_op(exc, error):
    t = fr.py_func(_raiser(exc), [fr.constant(1.0)], fr.float32, name="bad")
    with fr.Session() as sess:
        with pytest.raises(
            error,
            match=r"(?s)PyFunc op 'bad' \(created at test_script_ops"
            r".py:\d+\): %s: .*boom.*Traceback" % exc.__name__,
        ) as info:
            sess.run(t)
    assert info.value.op is t.op
    assert type(info.value) is error


@pytest.mark.parametrize(
    "func,tout,message",
    [
        (
            lambda v: v.astype(np.float64),
            fr.float32,
            r"0-th value returned by pyfunc_\d+ is double, but expects float",
        ),
        (lambda v: 3, fr.int32, r"0-th value returned by pyfunc_\d+ is int64, but expects int32"),
        (lambda v: (v, v), fr.float32, r"pyfunc_\d+ returns 2 values, but expects to see 1"),
        (lambda v: None, fr.float32, r"pyfunc_\d+ returns 0 values, but expects to see 1"),
    ],
)
def test_wrong_results_are_invalid_argument(func, tout, message):
    t = fr.py_func(func, [fr.constant([1.0])], tout)
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError, match=message):
            sess.run(t)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Expected func to be callable. Received func=42"):
        fr.py_func(42, [], fr.float32)
    with pytest.raises(TypeError, match="Cannot convert 'notatype'"):
        fr.py_func(lambda: 1, [], "notatype")


def test_stateless_is_not_folded_at_graph_construction():
    calls = []
    y = fr.py_func(lambda: calls.append(1) or np.int32(4), [], fr.int32, stateful=False)
    z = fr.zeros([y, 2])
    assert z.shape.as_list() == [None, 2] and not calls
    with fr.Session() as sess:
        assert sess.run(z).shape == (4, 2)
    assert calls == [1]


def test_a_stateless_function_without_inputs_is_folded_like_tf():
    # TF's constant folding computes a stateless py_func of constants (none at all
    # included) once; a stateful one runs every time.
    stateless, stateful = iter(range(10)), iter(range(10))
    x = fr.py_func(lambda: next(stateless), [], fr.int64, stateful=False)
    y = fr.py_func(lambda: next(stateful), [], fr.int64)
    with fr.Session() as sess:
        assert [sess.run(x) for _ in range(3)] == [0, 0, 0]
        assert [sess.run(y) for _ in range(3)] == [0, 1, 2]


def _meeting_pair():
    """Two py_funcs of no data dependency that each wait for the other to be called."""
    both_inside = threading.Barrier(2, timeout=10)  # a broken barrier fails, never hangs

    def f(v):
        both_inside.wait()
        return v * 2

    return [fr.py_func(f, [fr.constant(float(k))], fr.float32) for k in (1, 2)]


def test_independent_functions_of_one_run_are_called_at_once():
    # TF's executor runs independent py_funcs on its inter-op threads at once.
    pair = _meeting_pair()
    with fr.Session() as sess:
        assert sess.run(pair) == [2.0, 4.0]


async def test_independent_functions_of_one_arun_are_called_at_once():
    pair = _meeting_pair()
    async with fr.Session() as sess:
        with trio.fail_after(20):
            assert await sess.arun(pair) == [2.0, 4.0]


async def test_two_runner_threads_call_it_at_once():
    both_inside = threading.Barrier(2, timeout=10)

    def f(v):
        both_inside.wait()  # returns only when the other thread's call is inside too
        return v * 2

    x = fr.placeholder(fr.float32, [2])
    y = fr.py_func(f, [x], fr.float32)
    sess = fr.Session()
    results = {}

    def run(k):
        results[k] = sess.run(y, {x: [k, k]})

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            for k in (1.0, 2.0):
                nursery.start_soon(trio.to_thread.run_sync, run, k)
    sess.close()
    np.testing.assert_array_equal(results[1.0], [2.0, 2.0])
    np.testing.assert_array_equal(results[2.0], [4.0, 4.0])


async def test_arun_does_not_block_the_trio_loop():
    loop_ran = threading.Event()
    y = fr.py_func(lambda: np.bool_(loop_ran.wait(10)), [], fr.bool)
    sess = fr.Session()
    out = {}

    async def call():
        out["v"] = await sess.arun(y)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            await trio.testing.wait_all_tasks_blocked()
            loop_ran.set()  # reached only if the py_func is not holding the loop
    sess.close()
    assert out["v"]


async def test_arun_with_a_queue_op_does_not_block_the_loop_either():
    loop_ran = threading.Event()
    q = fr.FIFOQueue(2, [fr.float32], shapes=[[]])
    y = fr.py_func(
        lambda v: np.float32(v * 2) if loop_ran.wait(10) else np.float32(-1),
        [q.dequeue()],
        fr.float32,
    )
    sess = fr.Session()
    await sess.arun(q.enqueue([3.0]))
    out = {}

    async def call():
        out["v"] = await sess.arun(y)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            await trio.testing.wait_all_tasks_blocked()
            loop_ran.set()
    sess.close()
    assert out["v"] == 6.0
