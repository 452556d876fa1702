"""@fr.function: tracing per signature, captures, side effects, calls from threads and
trio tasks, call ops inside other graphs."""

import io
import threading

import numpy as np
import pytest
import trio

import flowrt as fr
from flowrt.function import RetracingWarning


def test_one_trace_per_signature_and_retrace_on_shape_dtype_and_python_value():
    traces = []

    @fr.function
    def f(x, scale):
        traces.append(1)  # a Python side effect: once per trace
        return x * scale

    f(np.ones(2, np.float32), 2.0)
    f(np.zeros(2, np.float32), 2.0)
    assert len(traces) == 1 == f.experimental_get_tracing_count()
    f(np.ones(3, np.float32), 2.0)  # new shape
    f(np.ones(3, np.float64), 2.0)  # new dtype
    f(np.ones(3, np.float64), 3.0)  # new Python value
    assert len(traces) == 4
    np.testing.assert_array_equal(f(np.ones(3, np.float64), 3.0), [3.0, 3.0, 3.0])
    assert len(traces) == 4


def test_input_signature_traces_once_and_rejects_what_does_not_fit():
    traces = []

    @fr.function(input_signature=[fr.TensorSpec([None], fr.float32, name="v")])
    def double(v):
        traces.append(1)
        return v * 2.0

    np.testing.assert_array_equal(double(np.ones(2, np.float32)), [2.0, 2.0])
    np.testing.assert_array_equal(double(np.ones(5, np.float32)), [2.0] * 5)
    np.testing.assert_array_equal(double([1.0, 2.0]), [2.0, 4.0])  # converted to float32
    assert len(traces) == 1
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        double(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        double(np.ones(2, np.int32))
    cf = double.get_concrete_function()
    assert cf.inputs[0].name == "v:0" and cf.inputs[0].shape.as_list() == [None]
    assert "TensorSpec(shape=(None,), dtype=fr.float32, name='v')" in repr(cf)


def test_concrete_function_exposes_graph_inputs_outputs_variables():
    v = fr.Variable(np.float32(2.0), name="scale")

    @fr.function
    def f(x):
        return {"y": x * v, "x": x}

    cf = f.get_concrete_function(fr.TensorSpec([3], fr.float32))
    assert isinstance(cf.graph, fr.Graph) and cf.graph.building_function
    assert [t.name for t in cf.inputs[:1]] == ["x:0"]
    assert cf.inputs[1].op.type == "VarHandleOp"
    assert cf.variables == [v]
    assert [t.dtype for t in cf.outputs] == [fr.float32, fr.float32]
    assert set(cf.structured_outputs) == {"x", "y"}
    out = f(np.ones(3, np.float32))
    np.testing.assert_array_equal(out["y"], [2.0, 2.0, 2.0])


def test_reduce_retracing_relaxes_shapes_and_many_traces_warn():
    traces = []

    @fr.function(reduce_retracing=True)
    def f(x):
        traces.append(1)
        return fr.reduce_sum(x)

    for n in range(1, 6):
        assert f(np.ones(n, np.float32)) == n
    assert len(traces) == 2  # [1], then relaxed to [None] for every later length
    cf = f.get_concrete_function(np.ones(7, np.float32))
    assert cf.inputs[0].shape.as_list() == [None]

    @fr.function(experimental_relax_shapes=False)
    def g(x):
        return x + 1

    with pytest.warns(RetracingWarning, match="5 calls to fr.function 'g' triggered"):
        for n in range(1, 6):
            g(np.ones(n, np.float32))


def test_variables_are_created_on_the_first_trace_only():
    class Counter:
        def __init__(self):
            self.v = None

        @fr.function
        def __call__(self, x):
            if self.v is None:
                self.v = fr.Variable(0.0, name="count")
            self.v.assign_add(x)
            return self.v.read_value()

    c = Counter()
    assert c(np.float32(1.0)) == 1.0
    assert c(np.float32(2.0)) == 3.0
    assert c.v.numpy() == 3.0
    assert c.v.name == "count:0"

    @fr.function
    def makes_one_each_time(x):
        return fr.Variable(1.0) + x

    makes_one_each_time(np.float32(1.0))
    with pytest.raises(ValueError, match="tried to create a variable on a trace other than"):
        makes_one_each_time(np.float64(1.0))


def test_print_runs_every_call_python_side_effects_once_per_trace():
    out = io.StringIO()
    seen = []

    @fr.function
    def f(x):
        seen.append("traced")
        fr.print("x is", x, output_stream=out)
        return x + 1

    for i in range(3):
        f(np.float32(i))
    assert seen == ["traced"]
    assert out.getvalue() == "x is 0.0\nx is 1.0\nx is 2.0\n"


def test_print_defaults_to_stderr(capsys):
    @fr.function
    def f():
        fr.print("hello", fr.constant([1, 2, 3]))

    f()
    assert capsys.readouterr().err == "hello [1 2 3]\n"


def test_state_ops_run_in_program_order():
    v = fr.Variable(1.0)

    @fr.function
    def f():
        a = v.read_value()
        v.assign(10.0)
        b = v.read_value()
        v.assign_add(5.0)
        return a, b, v.read_value()

    assert f() == (1.0, 10.0, 15.0)


def test_python_bool_of_tensor_is_a_clear_error():
    @fr.function
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(
        fr.errors.OperatorNotAllowedInGraphError,
        match=r"Python `bool` is not allowed while fr.function 'f' is traced.*"
        r"Use fr.cond instead",
    ):
        f(np.float32(1.0))

    @fr.function
    def loop(x):
        for _ in x:
            pass

    with pytest.raises(fr.errors.OperatorNotAllowedInGraphError, match="fr.while_loop"):
        loop(np.ones(2, np.float32))

    @fr.function
    def with_cond(x):
        return fr.cond(x > 0, lambda: x, lambda: -x)

    assert with_cond(np.float32(-2.0)) == 2.0


def test_plain_call_in_a_trio_task_points_to_acall():
    @fr.function
    def f():
        return fr.constant(1.0)

    async def main():
        with pytest.raises(RuntimeError, match=r"await f.acall"):
            f()
        assert await f.acall() == 1.0

    trio.run(main)


async def test_concurrent_calls_from_trio_tasks_and_threads_never_lose_an_update():
    v = fr.Variable(0.0)

    @fr.function
    def inc(x):
        v.assign_add(x)

    inc.get_concrete_function(np.float32(0.0))  # trace up front: this is about running
    n_tasks, n_threads, per = 8, 4, 25

    def worker():
        for _ in range(per):
            inc(np.float32(1.0))

    async def task():
        for _ in range(per):
            await inc.acall(np.float32(1.0))

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            threads = [threading.Thread(target=worker) for _ in range(n_threads)]
            for t in threads:
                t.start()
            for _ in range(n_tasks):
                nursery.start_soon(task)
        for t in threads:
            await trio.to_thread.run_sync(t.join)
    assert v.numpy() == (n_tasks + n_threads) * per


async def test_concurrent_first_calls_trace_once():
    traces = []

    @fr.function
    def f(x):
        traces.append(1)
        return x * 2

    results = []

    def worker():
        results.append(float(f(np.float32(3.0))))

    with trio.fail_after(30):
        threads = [threading.Thread(target=worker) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            await trio.to_thread.run_sync(t.join)
    assert results == [6.0] * 6 and len(traces) == 1


def test_call_op_in_a_graph_prunes_caches_and_differentiates():
    out = io.StringIO()

    @fr.function
    def f(x):
        fr.print("ran", output_stream=out)
        return x * x

    p = fr.placeholder(fr.float32, [])
    y = f(p)
    unused = f(p + 1.0)
    assert y.op.type == "StatefulPartitionedCall" and unused.op is not y.op
    (g,) = fr.gradients(y, p)
    with fr.Session() as sess:
        assert sess.run([y, g], {p: 3.0}) == [9.0, 6.0]
        assert sess.run(y, {p: 2.0}) == 4.0
    assert out.getvalue() == "ran\nran\n"  # the unused call never ran; y ran twice
    assert len(y.op.attrs["_plans"]) == 1  # one cached plan served both runs


def test_function_called_inside_another_function_and_as_default_graph():
    @fr.function
    def inner(x):
        return x + 1.0

    @fr.function
    def outer(x):
        y = inner(x)
        assert y.op.type == "PartitionedCall"
        return y * 2.0

    assert outer(np.float32(1.0)) == 4.0
    with fr.Graph().as_default():
        t = inner(np.float32(1.0))  # inside `as_default`: a call op, not a run
        assert isinstance(t, fr.Tensor)
        with fr.Session() as sess:
            assert sess.run(t) == 2.0


def test_captured_tf1_variable_has_eager_state_separate_from_sessions():
    v = fr.Variable(3.0)

    @fr.function
    def f():
        return v.assign_add(1.0)

    assert f() == 4.0
    with fr.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v) == 3.0  # a session's own value
    assert v.numpy() == 4.0


def test_methods_trace_per_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @fr.function
        def __call__(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    assert a(np.float32(1.0)) == 2.0 and b(np.float32(1.0)) == 3.0


def test_bad_arguments_name_the_function():
    @fr.function
    def f(x):
        return x

    with pytest.raises(TypeError, match="^f: missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match="input_signature must be a possibly nested sequence"):
        fr.function(lambda x: x, input_signature=[[1, 2]])
    with pytest.raises(ValueError, match="may not depend on the function's arguments"):
        fr.function(lambda x: fr.Variable(x))(np.float32(1.0))


def test_newaxis():
    x = fr.constant([1.0, 2.0])
    assert fr.newaxis is None
    assert x[:, fr.newaxis].shape.as_list() == [2, 1]
    assert x[fr.newaxis].shape.as_list() == [1, 2]


def test_call_ops_made_after_a_gradient_still_differentiate():
    @fr.function
    def f(x):
        return fr.sin(x) * x

    p = fr.placeholder(fr.float64, [])
    (g1,) = fr.gradients(f(p), p)
    y2 = f(p * 2.0)  # made after the function's gradient added exports
    (g2,) = fr.gradients(y2, p)
    with fr.Session() as sess:
        a, b, y = sess.run([g1, g2, y2], {p: 0.5})
    assert a == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5))
    assert b == pytest.approx(2 * (np.cos(1.0) * 1.0 + np.sin(1.0)))
    assert y == pytest.approx(np.sin(1.0))


def test_call_op_in_a_tf1_graph_uses_the_sessions_value_of_its_variables():
    v = fr.Variable(1.0)

    @fr.function
    def bump(x):
        v.assign_add(x)
        return v.read_value()

    y = bump(fr.constant(2.0))  # a call op in v's own graph: v's handle is an input
    assert y.op.inputs[1] is v.handle
    with fr.Session() as s1, fr.Session() as s2:
        s1.run(v.initializer)
        s2.run(v.initializer)
        assert s1.run(y) == 3.0 and s1.run(y) == 5.0
        assert s2.run(y) == 3.0  # another session's own state
        assert s1.run(v) == 5.0
    assert v.numpy() == 1.0  # the eager state was never touched
    with fr.Session() as s3:
        with pytest.raises(fr.errors.FailedPreconditionError, match="uninitialized"):
            s3.run(y)


def test_tf1_gradients_and_minimize_reach_variables_used_inside_a_call():
    w = fr.Variable(np.float32(3.0))
    b = fr.Variable(np.float32(1.0))

    @fr.function
    def model(x):
        return x * w + b

    x = fr.constant(2.0)
    loss = model(x) * w  # w is used inside the call and outside it
    gw, gb = fr.gradients(loss, [w, b])
    train = fr.train.GradientDescentOptimizer(0.1).minimize(loss)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        # loss = (2w + b) w: dloss/dw = 4w + b = 13, dloss/db = w = 3
        assert sess.run([gw, gb]) == [13.0, 3.0]
        sess.run(train)
        assert sess.run([w, b]) == [pytest.approx(3.0 - 1.3), pytest.approx(1.0 - 0.3)]


def test_keyword_defaults_and_var_args_bind_like_python():
    traces = []

    @fr.function
    def f(x, *rest, scale=2.0, **extra):
        traces.append(1)
        total = x * scale
        for r in rest:
            total = total + r
        return total + extra.get("bias", 0.0)

    one = np.float32(1.0)
    assert f(one) == 2.0 and f(one, scale=2.0) == 2.0 and f(x=one) == 2.0
    assert len(traces) == 1  # the same bound arguments: one trace
    assert f(one, one, one, scale=1.0, bias=10.0) == 13.0
    cf = f.get_concrete_function(one, one, one, scale=1.0, bias=10.0)
    assert [t.name for t in cf.inputs] == ["x:0", "rest_0:0", "rest_1:0"]


def test_tf1_minimize_inside_a_function_finds_the_variables_it_uses():
    w = fr.Variable(np.float32(3.0))

    @fr.function
    def step():
        loss = w * w
        return fr.train.GradientDescentOptimizer(0.25).minimize(loss)

    step()
    assert w.numpy() == 1.5 and isinstance(w.numpy(), np.float32)


def test_a_failed_first_trace_leaves_variable_creation_to_the_next():
    calls = []

    @fr.function
    def f(x):
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("a bug in the first trace")
        return x + fr.Variable(1.0)

    with pytest.raises(KeyError):
        f(np.float32(1.0))
    assert f(np.float32(1.0)) == 2.0


def test_unconnected_zero_for_a_variable_a_call_takes():
    w = fr.Variable(np.ones((2, 3), np.float32))
    u = fr.Variable(np.float32(1.0))

    @fr.function
    def f(x):
        return x * u + fr.reduce_sum(w) * 0.0

    y = f(fr.constant(2.0))
    (gw,) = fr.gradients(fr.stop_gradient(y), [w], unconnected_gradients="zero")
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(gw), np.zeros((2, 3)))


def test_a_sparse_tensor_argument():
    # TF traces a SparseTensor argument at a SparseTensorSpec: any number of entries.
    @fr.function
    def f(s, scale):
        return fr.sparse.reduce_sum(s) * scale

    sp = fr.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    out = f(sp, 2.0)
    with fr.Session() as sess:
        assert sess.run(out) == 6.0
    three = fr.SparseTensorValue([[0, 0], [0, 1], [1, 1]], np.float32([1, 2, 4]), [2, 3])
    assert f(three, 2.0) == 14.0  # called with values: runs now
    assert f.experimental_get_tracing_count() == 1
