"""fr.Variable, state ops, per-session state, atomic updates, initializers."""

import threading

import numpy as np
import pytest
import trio

import flowrt as fr
from flowrt.ops import state_ops


def test_variable_names_ops_and_properties():
    v = fr.Variable(0, name="counter")
    assert v.name == "counter:0"
    assert v.op.name == "counter" and v.op.type == "VarHandleOp"
    assert v.dtype == fr.int32 and v.shape.as_list() == [] and v.get_shape().as_list() == []
    assert v.initializer.name == "counter/Assign"
    assert v.initial_value.name == "counter/Initializer/initial_value:0"
    assert v.value().name == "counter/Read/ReadVariableOp:0"
    assert fr.convert_to_tensor(v) is v.value() is v._as_tensor()
    assert v.graph is fr.get_default_graph()
    assert all(
        op.op_def.stateful for op in fr.get_default_graph().get_operations() if op.type != "Const"
    )
    assert repr(v) == "<fr.Variable 'counter:0' shape=() dtype=int32>"
    w = fr.Variable(1.0, name="counter")
    assert w.name == "counter_1:0"
    with fr.name_scope("layer"):
        u = fr.Variable([1.0, 2.0])
    assert u.name == "layer/Variable:0" and u.shape.as_list() == [2]


def test_collections_and_initializers():
    a = fr.Variable(1.0, name="a")
    b = fr.Variable(2.0, name="b", trainable=False)
    c = fr.Variable(3.0, name="c", collections=[fr.GraphKeys.LOCAL_VARIABLES])
    assert fr.global_variables() == [a, b]
    assert fr.trainable_variables() == [a, c]
    assert fr.local_variables() == [c]
    assert fr.global_variables("a") == [a]
    init = fr.global_variables_initializer()
    assert init.name == "init" and init.type == "NoOp"
    with fr.Session() as sess:
        sess.run(init)
        assert list(sess.run(fr.report_uninitialized_variables())) == [b"c"]
        assert sess.run(fr.is_variable_initialized(a)) and not sess.run(
            fr.is_variable_initialized(c)
        )
        with pytest.raises(fr.errors.FailedPreconditionError, match="uninitialized value c"):
            sess.run(fr.assert_variables_initialized())
        sess.run(fr.local_variables_initializer())
        assert sess.run([a, b, c]) == [1.0, 2.0, 3.0]
        assert sess.run(fr.report_uninitialized_variables()).shape == (0,)
        sess.run(fr.variables_initializer([]))


def test_uninitialized_read_names_variable():
    v = fr.Variable(3.0, name="myvar")
    y = v * 2.0
    with fr.Session() as sess:
        with pytest.raises(fr.errors.FailedPreconditionError) as info:
            sess.run(y)
        e = info.value
        assert "myvar" in e.message and "fr.global_variables_initializer()" in e.message
        assert e.op is not None and e.op.type == "ReadVariableOp"
        with pytest.raises(fr.errors.FailedPreconditionError, match="myvar"):
            sess.run(v.assign_add(1.0))
        sess.run(v.initializer)
        assert sess.run(y) == 6.0


def test_assign_family_returns_stored_value():
    v = fr.Variable([1.0, 2.0], name="v")
    a = fr.assign(v, [5.0, 6.0])
    add = fr.assign_add(v, [1.0, 1.0])
    sub = v.assign_sub([0.5, 0.5])
    op = v.assign([0.0, 0.0], read_value=False)
    assert a.op.type == "AssignVariableOp" and a.name == "AssignVariableOp:0"
    assert add.op.type == "AssignAddVariableOp" and sub.op.type == "AssignSubVariableOp"
    assert isinstance(op, fr.Operation)
    with fr.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(a), [5.0, 6.0])
        np.testing.assert_array_equal(sess.run(add), [6.0, 7.0])
        np.testing.assert_array_equal(sess.run(sub), [5.5, 6.5])
        np.testing.assert_array_equal(sess.run(a * 2.0), [10.0, 12.0])
        assert sess.run(op) is None
        np.testing.assert_array_equal(sess.run(v.read_value()), [0.0, 0.0])
        np.testing.assert_array_equal(v.eval(sess), [0.0, 0.0])


def test_assign_construction_errors():
    v = fr.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError, match=r"variable shape \(2,\).*value shape \(3,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign_add(1.0)
    with pytest.raises(TypeError, match="dtype int32"):
        fr.Variable(0).assign(1.5)
    with pytest.raises(TypeError, match="needs a variable"):
        fr.assign(fr.constant(1.0), 2.0)
    with pytest.raises(ValueError, match="initial_value must be specified"):
        fr.Variable()


def test_fetched_values_are_private_copies():
    v = fr.Variable(np.zeros(3, np.float32))
    feed = np.ones(3, np.float32)
    ph = fr.placeholder(fr.float32, [3])
    a = v.assign(ph)
    with fr.Session() as sess:
        sess.run(v.initializer)
        out = sess.run(a, {ph: feed})
        assert feed.flags.writeable  # the caller's fed array is left alone
        feed[0] = 42.0
        np.testing.assert_array_equal(sess.run(v), [1.0, 1.0, 1.0])
        out[1] = 7.0  # a fetched value is the caller's to mutate
        got = sess.run(v)
        got[2] = 9.0
        np.testing.assert_array_equal(sess.run(v), [1.0, 1.0, 1.0])


def test_load_feed_and_operators():
    v = fr.Variable([[1.0, 2.0], [3.0, 4.0]], name="m")
    y = (v + 1.0) @ v - v[0, 1]
    with fr.Session() as sess:
        v.load([[0.0, 1.0], [1.0, 0.0]], sess)
        np.testing.assert_array_equal(sess.run(v), [[0.0, 1.0], [1.0, 0.0]])
        np.testing.assert_allclose(sess.run(y), [[1.0, 0.0], [0.0, 1.0]])
        # A variable can be fed like any tensor (its snapshot is replaced).
        np.testing.assert_allclose(
            sess.run(y, {v: np.eye(2, dtype=np.float32)}), [[2.0, 1.0], [1.0, 2.0]]
        )
        with fr.control_dependencies([v]):
            z = fr.identity(fr.constant(1.0))
        assert sess.run(z) == 1.0


def test_gradient_with_respect_to_variable():
    v = fr.Variable([1.0, -2.0, 3.0])
    loss = fr.reduce_sum(v * v) + fr.reduce_sum(3.0 * v)
    (g,) = fr.gradients(loss, v)
    (g2,) = fr.gradients(loss, [v.value()])
    assert g is not None
    with fr.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(g), [5.0, -1.0, 9.0])
        np.testing.assert_allclose(sess.run(g2), [5.0, -1.0, 9.0])


def test_variable_from_tensor_callable_and_other_variable():
    w = fr.Variable(fr.constant([1.0, 2.0]), name="w")
    z = fr.Variable(lambda: fr.zeros([2, 3]), name="z")
    twice = fr.Variable(w.initialized_value() * 2.0, name="twice")
    d = fr.Variable(1, dtype=fr.float64, name="d")
    s = fr.Variable([1, 2], shape=[None], validate_shape=True, name="s")
    assert z.shape.as_list() == [2, 3] and d.dtype == fr.float64
    assert s.shape.as_list() == [None]
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(twice), [2.0, 4.0])
        np.testing.assert_array_equal(sess.run(z), np.zeros((2, 3)))
        assert sess.run(d) == 1.0
        np.testing.assert_array_equal(sess.run(s.assign([4, 5, 6])), [4, 5, 6])


def test_initializer_runs_without_outer_control_dependencies():
    c = fr.constant(1.0)
    with fr.control_dependencies([fr.no_op(name="later")]):
        v = fr.Variable(2.0)
    assert v.initializer.control_inputs == [] and c.op.control_inputs == []


def test_scatter_ops():
    v = fr.Variable([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], name="emb")
    add = fr.scatter_add(v, [0, 0, 2], [[1.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    upd = fr.scatter_update(v, [1], [[9.0, 8.0]])
    sub = fr.scatter_sub(v, fr.constant([2], fr.int64), [[1.0, 1.0]])
    bad = fr.scatter_add(v, [3], [[1.0, 1.0]])
    with fr.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(add), [[3, 3], [2, 2], [8, 8]])
        np.testing.assert_array_equal(sess.run(upd), [[3, 3], [9, 8], [8, 8]])
        np.testing.assert_array_equal(sess.run(sub), [[3, 3], [9, 8], [7, 7]])
        with pytest.raises(fr.errors.InvalidArgumentError, match=r"indices\[0\] = 3"):
            sess.run(bad)


def test_two_sessions_have_separate_state():
    v = fr.Variable(0, name="counter")
    inc = v.assign_add(1)
    with fr.Session() as s1, fr.Session() as s2:
        s1.run(v.initializer)
        with pytest.raises(fr.errors.FailedPreconditionError):
            s2.run(v)
        s2.run(v.initializer)
        for _ in range(3):
            s1.run(inc)
        s2.run(inc)
        assert s1.run(v) == 3 and s2.run(v) == 1
    with fr.Session() as s3:  # a new session starts uninitialized
        with pytest.raises(fr.errors.FailedPreconditionError):
            s3.run(v)


def test_concurrent_assign_add_from_threads_is_exact():
    v = fr.Variable(0, dtype=fr.int64, name="total")
    inc = v.assign_add(fr.constant(1, fr.int64))
    n_threads, n_each = 8, 300
    with fr.Session() as sess:
        sess.run(v.initializer)
        barrier = threading.Barrier(n_threads)
        failures = []

        def work():
            try:
                barrier.wait()
                for _ in range(n_each):
                    sess.run(inc)
            except BaseException as e:  # reported below
                failures.append(e)

        threads = [threading.Thread(target=work) for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not failures
        assert sess.run(v) == n_threads * n_each


async def test_concurrent_assign_add_from_trio_tasks_is_exact():
    v = fr.Variable(np.zeros(4), name="acc")
    inc = v.assign_add(np.ones(4))
    async with fr.Session() as sess:
        await sess.arun(v.initializer)

        async def work():
            for _ in range(50):
                await sess.arun(inc)

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                for _ in range(6):
                    nursery.start_soon(work)
        np.testing.assert_array_equal(await sess.arun(v), np.full(4, 300.0))


def test_update_variable_api_for_fused_kernels():
    from flowrt._core.registry import register_op

    def kernel(ctx, op, handle, g):
        return (state_ops.update_variable(ctx, op, handle, lambda old: old - 0.5 * g),)

    if "TestFusedSgd" not in fr._core.registry.registered_ops():
        register_op(
            "TestFusedSgd",
            infer=lambda op: [(op.inputs[1].dtype, op.inputs[1].shape)],
            kernel=kernel,
            stateful=True,
        )
    v = fr.Variable([1.0, 2.0])
    step = (
        fr.get_default_graph()
        ._create_op("TestFusedSgd", [v.handle, fr.constant([2.0, 2.0])], {}, None)
        .outputs[0]
    )
    with fr.Session() as sess:
        with pytest.raises(fr.errors.FailedPreconditionError, match="Variable"):
            sess.run(step)
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(step), [0.0, 1.0])
        res = sess.resources.get(("var", "Variable"))
        assert not res.value.flags.writeable
        ctx = type("Ctx", (), {"resources": sess.resources})()
        state_ops.scatter_variable(ctx, None, "Variable", [1, 1], [1.0, 1.0], "add")
        np.testing.assert_array_equal(sess.run(v), [0.0, 3.0])
        state_ops.update_variable_rows(ctx, None, "Variable", [0, 0], lambda r: r + 10.0)
        np.testing.assert_array_equal(sess.run(v), [10.0, 3.0])
        a, b = state_ops.update_variables(
            ctx, None, ["Variable", "Variable"], lambda olds: [olds[0] * 2.0, olds[1] * 2.0]
        )
        np.testing.assert_array_equal(sess.run(v), [20.0, 6.0])


# --- initializers -----------------------------------------------------------------------


def _init_value(init, shape, dtype=fr.float32):
    with fr.Graph().as_default():
        t = init(shape, dtype)
        with fr.Session() as sess:
            return sess.run(t)


def test_deterministic_initializers():
    np.testing.assert_array_equal(_init_value(fr.zeros_initializer(), [2, 3]), np.zeros((2, 3)))
    np.testing.assert_array_equal(_init_value(fr.ones_initializer(), [2]), np.ones(2))
    np.testing.assert_array_equal(_init_value(fr.constant_initializer(0.5), [2]), [0.5, 0.5])
    np.testing.assert_array_equal(
        _init_value(fr.constant_initializer([1.0, 2.0]), [4]), [1.0, 2.0, 2.0, 2.0]
    )
    np.testing.assert_array_equal(
        _init_value(fr.constant_initializer(np.arange(6).reshape(2, 3)), [3, 2]),
        np.arange(6).reshape(3, 2),
    )
    assert _init_value(fr.zeros_initializer(), [2], fr.int64).dtype == np.int64
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        _init_value(fr.constant_initializer([1.0, 2.0, 3.0]), [2])


@pytest.mark.parametrize(
    "init,check",
    [
        (
            fr.random_uniform_initializer(-1.0, 2.0, seed=3),
            lambda x: (x >= -1).all() and (x < 2).all(),
        ),
        (fr.random_normal_initializer(1.0, 0.1, seed=3), lambda x: abs(x.mean() - 1.0) < 0.05),
        (fr.truncated_normal_initializer(0.0, 1.0, seed=3), lambda x: (np.abs(x) <= 2.0).all()),
        (
            fr.glorot_uniform_initializer(seed=3),
            lambda x: (np.abs(x) <= np.sqrt(6.0 / (40 + 50))).all() and x.std() > 0.05,
        ),
        (fr.glorot_normal_initializer(seed=3), lambda x: abs(x.std() - np.sqrt(2.0 / 90)) < 0.03),
        (
            fr.variance_scaling_initializer(2.0, "fan_in", "uniform", seed=3),
            lambda x: (np.abs(x) <= np.sqrt(3 * 2.0 / 40)).all(),
        ),
    ],
)
def test_random_initializers(init, check):
    x = _init_value(init, [40, 50])
    assert x.shape == (40, 50) and x.dtype == np.float32
    assert check(x)
    np.testing.assert_array_equal(x, _init_value(init, [40, 50]))  # seeded: reproducible


def test_initializer_argument_errors():
    with pytest.raises(ValueError, match="Expected floating point type"):
        fr.random_normal_initializer(dtype=fr.int32)
    with pytest.raises(ValueError, match="scale"):
        fr.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="mode"):
        fr.variance_scaling_initializer(mode="fan_sideways")
    with pytest.raises(ValueError, match="Must specify maxval"):
        _init_value(fr.random_uniform_initializer(), [2], fr.int32)
    assert fr.glorot_uniform_initializer(seed=1).get_config() == {"seed": 1, "dtype": "float32"}


def test_updates_write_in_place_only_when_nothing_else_holds_the_array():
    """A sparse update of an embedding reuses its array once no step holds it (no copy
    of the whole matrix per step), yet a fetch in the same run sees the old value."""
    from flowrt.ops import state_ops

    emb = fr.Variable(np.zeros((1000, 4), np.float32), name="emb")
    ids = fr.placeholder(fr.int32, [None])
    loss = fr.reduce_sum(fr.nn.embedding_lookup(emb, ids))
    train = fr.train.GradientDescentOptimizer(1.0).minimize(loss)
    with fr.Session() as sess:
        sess.run(emb.initializer)
        res = sess.resources.get(("var", "emb"))
        for _ in range(3):  # the plan is compiled from its second run on
            sess.run(train, {ids: [1, 2]})
        before = id(res.value)  # an id: holding the array itself would force a copy
        sess.run(train, {ids: [1, 2]})
        assert id(res.value) == before  # updated in place
        assert not res.value.flags.writeable
        old, _ = sess.run([emb, train], {ids: [3]})  # fetched: must not be mutated
        assert old[3, 0] == 0.0 and sess.run(emb)[3, 0] == -1.0
        assert state_ops.read_variable is not None


def test_skip_gram_nce_step_updates_all_three_tables_in_place():
    """The NCE training step (embedding_lookup, nce_loss, sparse SGD) reads the
    embedding, NCE weights and biases only into values that die within the run, so
    every step updates the three tables in place: no copy of a vocabulary-sized
    matrix per step."""
    r = np.random.default_rng(0)
    centers = fr.placeholder(fr.int32, [16])
    contexts = fr.placeholder(fr.int64, [16, 1])
    emb = fr.Variable(r.uniform(-1, 1, (500, 8)).astype(np.float32), name="emb")
    nce_w = fr.Variable(r.standard_normal((500, 8)).astype(np.float32), name="nce_w")
    nce_b = fr.Variable(np.zeros(500, np.float32), name="nce_b")
    loss = fr.reduce_mean(
        fr.nn.nce_loss(nce_w, nce_b, contexts, fr.nn.embedding_lookup(emb, centers), 8, 500)
    )
    train = fr.train.GradientDescentOptimizer(1.0).minimize(loss)
    feed = {centers: r.integers(0, 500, 16), contexts: r.integers(0, 500, (16, 1))}
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run(train, feed)
        tables = [sess.resources.get(("var", n)) for n in ("emb", "nce_w", "nce_b")]
        ids = [id(t.value) for t in tables]
        start = [t.value.copy() for t in tables]
        for _ in range(3):
            sess.run(train, feed)
        assert [id(t.value) for t in tables] == ids
        assert all(t.holders == 0 for t in tables)
        assert all(not np.array_equal(t.value, s) for t, s in zip(tables, start, strict=True))


def test_dense_weights_train_in_place_and_a_held_read_forces_a_copy():
    """Ownership is explicit (leases), not guessed from reference counts: reads whose
    values die within the run (through Identity and MatMul) hand them back, so Adam
    updates the weights in place; an outstanding read (another run's, here taken by
    hand) makes the next update copy instead."""
    x, w = _dense_layer()
    loss = fr.reduce_mean(fr.square(fr.matmul(x, w)))
    train = fr.train.AdamOptimizer(0.01).minimize(loss)
    feed = {x: np.ones((8, 20), np.float32)}
    with fr.Session() as sess:
        res = _trains_in_place(sess, train, feed)
        held = res.lease()  # as a concurrent run's read would
        snapshot = held.copy()
        sess.run(train, feed)
        assert res.value is not held and np.array_equal(held, snapshot)
        res.release(held)  # a stale lease: the stored array changed, nothing to do
        assert res.holders == 0


def test_a_concurrent_plan_hands_its_reads_back_as_a_straight_one_does():
    """A plan whose blocking steps are not ordered (an enqueue and a dequeue fetched
    together) runs as a readiness loop; its reads die in the run just the same, so
    the weights still train in place."""
    x, w = _dense_layer()
    train = fr.train.GradientDescentOptimizer(0.01).minimize(fr.reduce_sum(fr.matmul(x, w)))
    q = fr.FIFOQueue(10, fr.float32, shapes=[])
    step = [train, q.enqueue(1.0), q.dequeue()]
    with fr.Session() as sess:
        _trains_in_place(sess, step, {x: np.ones((8, 20), np.float32)})
        assert [p.straight for _, p in sess._plans.plans()][-1] is False


def _dense_layer():
    x = fr.placeholder(fr.float32, [None, 20])
    with fr.variable_scope("dense"):
        w = fr.get_variable("w", [20, 30])
    return x, w


def _trains_in_place(sess, step, feed):
    """Runs ``step`` a few times, checking that ``dense/w`` is updated in place and
    left unheld; returns its resource."""
    sess.run(fr.global_variables_initializer())
    res = sess.resources.get(("var", "dense/w"))
    sess.run(step, feed)
    before = id(res.value)
    for _ in range(3):
        sess.run(step, feed)
    assert id(res.value) == before and res.holders == 0
    return res


def test_in_place_update_never_mutates_an_array_a_run_still_holds():
    v = fr.Variable(np.zeros(3, np.float32), name="v")
    read = v.read_value()
    inc = fr.assign_add(v, np.ones(3, np.float32))
    with fr.Session() as sess:
        sess.run(v.initializer)
        for _ in range(3):
            a, _ = sess.run([read, inc])
        b = sess.run(read)
        assert a.tolist() == [2.0, 2.0, 2.0] and b.tolist() == [3.0, 3.0, 3.0]


def test_reads_never_see_an_in_place_update_half_done():
    """One thread trains (in-place updates of a large variable) while another reads it:
    every value read is uniform, i.e. taken wholly before or after an update."""
    import threading

    v = fr.Variable(np.zeros(200_000, np.float32), name="big")
    train = fr.train.GradientDescentOptimizer(1.0).minimize(fr.reduce_sum(v))
    torn = []
    with fr.Session() as sess:
        sess.run(v.initializer)
        stop = threading.Event()

        def read():
            while not stop.is_set():
                x = sess.run(v)
                if x.min() != x.max():
                    torn.append((x.min(), x.max()))

        t = threading.Thread(target=read)
        t.start()
        try:
            for _ in range(300):
                sess.run(train)
        finally:
            stop.set()
            t.join(10)
        assert not t.is_alive()
        assert sess.run(v)[0] == -300.0
    assert not torn


def test_a_variable_used_under_control_dependencies_is_read_after_them():
    v = fr.Variable(1.0, name="v")
    a = fr.assign_add(v, 2.0)
    with fr.control_dependencies([a]):
        r = fr.identity(v)
    with fr.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r) == 3.0  # TF1 pattern: return identity(var) after an update


def test_gradient_with_respect_to_a_variable_sums_over_all_its_reads():
    v = fr.Variable(2.0, name="v")
    with fr.control_dependencies([fr.no_op()]):
        fresh = v * 1.0  # a second read of v, made under control dependencies
    (g,) = fr.gradients(v * 3.0 + fresh * 4.0 + v.read_value() * 5.0, v)
    with fr.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(g) == 12.0
