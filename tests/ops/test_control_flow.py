"""fr.cond, fr.case and fr.while_loop: only the taken branch runs, nests, captures,
static shapes, errors, blocking branches and the If gradient."""

import numpy as np
import pytest

import flowrt as fr
from flowrt._core.registry import NOT_DIFFERENTIABLE, is_blocking, register_op
from flowrt.graph_export import graph_def_proto
from flowrt.ops.common import make, same_as

# --- test-only ops: a counter (side effects without variables) and a blocking identity


def _count_kernel(ctx, op, x):
    box = ctx.resources.get_or_create(("test_counter", op.attrs["key"]), lambda: [0])
    box[0] += 1
    return (x,)


register_op(
    "CFTestCount", infer=same_as(0), kernel=_count_kernel, stateful=True, grad=NOT_DIFFERENTIABLE
)


def _async_identity(ctx, op, x):
    # A blocking kernel that never has to wait (a generator that returns at once).
    return (x,)
    yield


register_op("CFTestAsyncIdentity", infer=same_as(0), kernel=_async_identity, blocking=True)


def counted(x, key):
    return make("CFTestCount", [x], {"key": key})


def count(sess, key):
    return sess.resources.get(("test_counter", key), [0])[0]


# --- cond ----------------------------------------------------------------------------


def test_only_the_taken_branch_runs_variable():
    v = fr.Variable(0, name="v")
    pred = fr.placeholder(fr.bool, [])
    out = fr.cond(pred, lambda: fr.assign_add(v, 1), lambda: fr.assign_add(v, 10))
    assert out.op.type == "Identity" and out.op.inputs[0].op.type == "If"
    assert out.name == "cond/Identity:0"
    assert out.shape.as_list() == [] and out.dtype is fr.int32
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        r = [sess.run(out, {pred: p}) for p in (True, True, False, True)]
        assert r == [1, 2, 12, 13]
        assert sess.run(v) == 13
        with pytest.raises(fr.errors.InvalidArgumentError, match="must feed a value"):
            sess.run(out)


def test_only_the_taken_branch_runs_counter():
    pred = fr.placeholder(fr.bool, [])
    x = fr.constant(1.0)
    out = fr.cond(pred, lambda: counted(x, "t") * 2.0, lambda: counted(x, "f") * 3.0)
    with fr.Session() as sess:
        assert sess.run(out, {pred: True}) == 2.0
        assert sess.run(out, {pred: False}) == 3.0
        assert sess.run(out, {pred: False}) == 3.0
        assert (count(sess, "t"), count(sess, "f")) == (1, 2)


def test_side_effect_runs_only_as_an_ancestor_or_control_dependency():
    pred = fr.placeholder(fr.bool, [])
    x = fr.constant(1.0)

    def loose():
        counted(x, "loose")  # not an ancestor of the result: never runs (as in TF1)
        return x + 1.0

    def tied():
        c = counted(x, "tied")
        with fr.control_dependencies([c.op]):
            return x + 2.0

    out = fr.cond(pred, loose, tied)
    with fr.Session() as sess:
        assert sess.run(out, {pred: True}) == 2.0
        assert sess.run(out, {pred: False}) == 3.0
        assert (count(sess, "loose"), count(sess, "tied")) == (0, 1)


def test_branch_ops_are_not_run_by_the_outer_plan():
    pred = fr.placeholder(fr.bool, [])
    x = fr.placeholder(fr.float32, [None])
    out = fr.cond(pred, lambda: fr.reduce_sum(counted(x, "a")), lambda: fr.constant(0.0))
    other = x * 2.0
    with fr.Session() as sess:
        assert sess.run(other, {x: [1.0]}).tolist() == [2.0]
        assert sess.run(out, {pred: False, x: [1.0, 2.0]}) == 0.0
        assert count(sess, "a") == 0
        assert sess.run(out, {pred: True, x: [1.0, 2.0]}) == 3.0
        assert count(sess, "a") == 1


def test_captures_and_outer_control_dependencies():
    pred = fr.placeholder(fr.bool, [])
    a = fr.placeholder(fr.float32, [])
    b = a * 10.0
    before = counted(fr.constant(0.0), "before")
    with fr.control_dependencies([before.op]):
        out = fr.cond(pred, lambda: a + b, lambda: b)
    if_op = out.op.inputs[0].op
    assert before.op in if_op.control_inputs
    assert {a, b} <= set(if_op.inputs)
    with fr.Session() as sess:
        assert sess.run(out, {pred: True, a: 1.0}) == 11.0
        assert sess.run(out, {pred: False, a: 2.0}) == 20.0
        assert count(sess, "before") == 2


def test_control_dependency_inside_branch_on_outer_op_moves_to_the_if():
    pred = fr.placeholder(fr.bool, [])
    outer = counted(fr.constant(0.0), "outer")

    def branch():
        with fr.control_dependencies([outer.op]):
            return fr.constant(1.0) + 1.0

    out = fr.cond(pred, branch, lambda: fr.constant(5.0))
    assert outer.op in out.op.inputs[0].op.control_inputs
    with fr.Session() as sess:
        assert sess.run(out, {pred: True}) == 2.0
        assert sess.run(out, {pred: False}) == 5.0
        assert count(sess, "outer") == 2  # runs before the If, once per run


def test_control_dependencies_on_a_loop_variable_and_a_fed_placeholder():
    # TF replaces a fed placeholder by its feed, control edges included.
    p = fr.placeholder(fr.float32, [], name="p")
    with fr.control_dependencies([p]):
        outside = fr.constant(1.0) + 1.0

    def body(i, x):
        with fr.control_dependencies([x, p]):
            return i + 1, fr.identity(x) + 1.0

    loop = fr.while_loop(lambda i, x: i < 3, body, [fr.constant(0), fr.constant(0.0)])
    pred = fr.placeholder(fr.bool, [])

    def branch():
        with fr.control_dependencies([p]):
            return fr.constant(1.0)

    out = fr.cond(pred, branch, lambda: fr.constant(2.0))
    with fr.Session() as sess:
        assert sess.run(outside, {p: 0.0}) == 2.0
        assert sess.run(loop, {p: 0.0}) == [3, 3.0]
        assert sess.run(out, {p: 0.0, pred: True}) == 1.0
        assert sess.run(out, {p: 0.0, pred: False}) == 2.0
        # Unfed, the placeholder a branch depends on fails the run, as in TF.
        with pytest.raises(fr.errors.InvalidArgumentError, match="must feed a value for .*'p'"):
            sess.run(out, {pred: False})


def test_structures_and_static_shapes():
    pred = fr.placeholder(fr.bool, [])
    x = fr.placeholder(fr.float32, [2, 3])
    out = fr.cond(
        pred,
        lambda: (x, [x * 2.0], {"k": fr.zeros([2, 3])}),
        lambda: (x + 1.0, [x], {"k": fr.zeros([4, 3])}),
    )
    assert isinstance(out, tuple) and isinstance(out[1], list) and isinstance(out[2], dict)
    assert out[0].shape.as_list() == [2, 3]
    assert out[2]["k"].shape.as_list() == [None, 3]
    ranks = fr.cond(pred, lambda: fr.zeros([2]), lambda: fr.zeros([2, 2]))
    assert ranks.shape.ndims is None
    single = fr.cond(pred, lambda: [x], lambda: [x], strict=True)
    assert isinstance(single, list) and len(single) == 1  # TF 2.x keeps singleton lists
    none = fr.cond(pred, lambda: None, lambda: None)
    assert none is None
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    with fr.Session() as sess:
        r = sess.run(out, {pred: False, x: v})
        np.testing.assert_array_equal(r[0], v + 1)
        np.testing.assert_array_equal(r[1][0], v)
        assert r[2]["k"].shape == (4, 3)


def test_python_values_and_ops_as_branch_results():
    pred = fr.placeholder(fr.bool, [])
    out = fr.cond(pred, lambda: 1, lambda: 2)
    assert out.dtype is fr.int32
    op_result = fr.cond(pred, lambda: fr.no_op(), lambda: fr.no_op())
    assert op_result.dtype is fr.bool  # TF: an op stands for pred, run after it
    with fr.Session() as sess:
        assert sess.run(out, {pred: False}) == 2
        assert sess.run(op_result, {pred: False}) is np.False_


def test_cond_errors():
    pred = fr.placeholder(fr.bool, [])
    x = fr.constant(1.0)
    with pytest.raises(TypeError, match="same number, type, and overall structure"):
        fr.cond(pred, lambda: (x, x), lambda: x)
    with pytest.raises(TypeError, match="same number, type, and overall structure"):
        fr.cond(pred, lambda: [x, x], lambda: (x, x))
    with pytest.raises(TypeError, match="have different types"):
        fr.cond(pred, lambda: fr.constant(1), lambda: x)
    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        fr.cond(True, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="pred must be a bool tensor"):
        fr.cond(x, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="'true_fn' must be callable"):
        fr.cond(pred, 1, lambda: x)
    with pytest.raises(TypeError, match="'false_fn' argument required"):
        fr.cond(pred, lambda: x)


def test_error_inside_the_taken_branch_names_the_inner_op():
    pred = fr.placeholder(fr.bool, [])
    inner = []

    def branch():
        p = fr.placeholder(fr.float32, [], name="inner_ph")
        inner.append(p)
        return p + 1.0

    out = fr.cond(pred, branch, lambda: fr.constant(0.0))
    with fr.Session() as sess:
        assert sess.run(out, {pred: False}) == 0.0
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            sess.run(out, {pred: True})
        assert info.value.op is inner[0].op


def test_nested_cond():
    p = fr.placeholder(fr.bool, [])
    q = fr.placeholder(fr.bool, [])
    x = fr.constant(3)
    out = fr.cond(p, lambda: fr.cond(q, lambda: x * 2, lambda: x * 3), lambda: x)
    with fr.Session() as sess:
        assert [
            sess.run(out, {p: a, q: b}) for a, b in [(True, True), (True, False), (False, True)]
        ] == [6, 9, 3]


def test_case():
    x = fr.placeholder(fr.int32, [])
    out = fr.case(
        [(fr.less(x, 0), lambda: fr.constant(-1)), (fr.equal(x, 0), lambda: fr.constant(0))],
        default=lambda: fr.constant(1),
    )
    ex = fr.case(
        [(fr.less(x, 5), lambda: fr.constant(1)), (fr.less(x, 10), lambda: fr.constant(2))],
        exclusive=True,
    )
    with fr.Session() as sess:
        assert [sess.run(out, {x: v}) for v in (-3, 0, 4)] == [-1, 0, 1]
        assert sess.run(ex, {x: 7}) == 2
        with pytest.raises(fr.errors.InvalidArgumentError, match="exclusive"):
            sess.run(ex, {x: 1})
        with pytest.raises(fr.errors.InvalidArgumentError, match="None of conditions"):
            sess.run(ex, {x: 20})


# --- while_loop -------------------------------------------------------------------------


def test_while_loop_structures():
    total = fr.while_loop(
        lambda i, s: i < 10, lambda i, s: (i + 1, s + i), [fr.constant(0), fr.constant(0)]
    )
    fib = fr.while_loop(
        lambda n, a, b: n < 10,
        lambda n, a, b: (n + 1, b, a + b),
        (fr.constant(0), fr.constant(0), fr.constant(1)),
    )
    single = fr.while_loop(lambda i: i < 3, lambda i: i + 1, [fr.constant(0)])
    same = fr.while_loop(lambda i: i < 3, lambda i: i + 1, [0], return_same_structure=True)
    nested = fr.while_loop(
        lambda i, ab: i < 4,
        lambda i, ab: (i + 1, (ab[1], ab[0] + 1.0)),
        [0, (fr.constant(0.0), fr.constant(10.0))],
    )
    assert isinstance(total, list) and isinstance(fib, tuple) and isinstance(same, list)
    assert single.name == "while_2/Identity_2:0"
    with fr.Session() as sess:
        assert sess.run(total) == [10, 45]
        assert sess.run(fib) == (10, 55, 89)
        assert sess.run(single) == 3 and sess.run(same) == [3]
        assert sess.run(nested) == [4, (2.0, 12.0)]


def test_while_loop_captures_and_maximum_iterations():
    p = fr.placeholder(fr.int32, [])
    x = fr.constant([1.0, 2.0])
    count_to_p = fr.while_loop(lambda i: i < p, lambda i: i + 2, [fr.constant(0)])
    capped = fr.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=5)
    capped_p = fr.while_loop(
        lambda i, m: True, lambda i, m: (i + 1, m * x), [0, fr.ones([2])], maximum_iterations=p
    )
    with fr.Session() as sess:
        assert sess.run(count_to_p, {p: 7}) == 8
        assert sess.run(count_to_p, {p: 0}) == 0
        assert sess.run(capped) == 5
        i, m = sess.run(capped_p, {p: 3})
        assert i == 3 and m.tolist() == [1.0, 8.0]
    with pytest.raises(ValueError, match="must be a scalar"):
        fr.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=[2])


def test_while_loop_shape_invariants():
    grow = lambda x: fr.concat([x, x], 0)
    with pytest.raises(ValueError, match="enters the loop with shape"):
        fr.while_loop(lambda x: fr.size(x) < 8, grow, [fr.constant([1])])
    out = fr.while_loop(
        lambda x: fr.size(x) < 8,
        grow,
        [fr.constant([1])],
        shape_invariants=[fr.TensorShape([None])],
    )
    assert out.shape.as_list() == [None]
    with pytest.raises(ValueError, match="not compatible with the initial shape"):
        fr.while_loop(
            lambda x: x[0] < 3,
            lambda x: x + 1,
            [fr.constant([1])],
            shape_invariants=[fr.TensorShape([2])],
        )
    with fr.Session() as sess:
        assert sess.run(out).tolist() == [1] * 8


def test_while_loop_errors():
    i0 = fr.constant(0)
    with pytest.raises(TypeError, match="enters the loop with type"):
        fr.while_loop(lambda x: x < 3, lambda x: fr.cast(x, fr.float32), [i0])
    with pytest.raises(ValueError, match="same nested structure"):
        fr.while_loop(lambda x, y: x < 3, lambda x, y: (x,), [i0, i0])
    with pytest.raises(TypeError, match="cond must return a bool"):
        fr.while_loop(lambda x: x, lambda x: x - 1, [i0])
    with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer"):
        fr.while_loop(lambda x: x < 3, lambda x: x + 1, [i0], parallel_iterations=0)
    with pytest.raises(TypeError, match="'cond' must be callable"):
        fr.while_loop(1, lambda x: x + 1, [i0])


def test_while_body_state_runs_each_iteration():
    v = fr.Variable(0, name="acc")
    out = fr.while_loop(lambda i: i < 4, lambda i: i + fr.assign_add(v, 1) * 0 + 1, [0])
    assert out.op.inputs[0].op.type == "While"
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        assert sess.run(out) == 4
        assert sess.run(v) == 4


def test_cond_inside_while_and_while_inside_cond():
    w = fr.while_loop(
        lambda i, s: i < 5,
        lambda i, s: (i + 1, fr.cond(fr.equal(i % 2, 0), lambda: s + i, lambda: s - i)),
        [0, 0],
    )
    p = fr.placeholder(fr.bool, [])
    q = fr.placeholder(fr.int32, [])
    wc = fr.cond(p, lambda: fr.while_loop(lambda i: i < q, lambda i: i + 1, [0]), lambda: q * 10)
    with fr.Session() as sess:
        assert sess.run(w) == [5, 2]  # 0 - 1 + 2 - 3 + 4
        assert sess.run(wc, {p: True, q: 4}) == 4
        assert sess.run(wc, {p: False, q: 4}) == 40


def test_while_gradient_flows_to_initial_value_and_captures():
    x = fr.constant(2.0)
    y = fr.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])
    (g,) = fr.gradients(y[1], x)  # y = x**4
    y2 = fr.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x], back_prop=False)
    assert fr.gradients(y2[1], x) == [None]
    with fr.Session() as sess:
        assert sess.run(g) == pytest.approx(32.0)


def test_while_gradient_of_zero_iterations_passes_the_gradient_through():
    x = fr.placeholder(fr.float32, [])
    n = fr.placeholder(fr.int32, [])
    y = fr.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x), [0, x])[1]
    (g,) = fr.gradients(y, x)
    with fr.Session() as sess:
        assert sess.run(g, {x: 3.0, n: 0}) == pytest.approx(1.0)
        assert sess.run(g, {x: 3.0, n: 2}) == pytest.approx(27.0)  # d(x**3)/dx


def test_while_second_order_is_not_defined_yet():
    x = fr.constant(2.0)
    y = fr.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * x), [0, x])[1]
    (g,) = fr.gradients(y, x)
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        fr.gradients(g, x)


def test_while_body_state_runs_once_per_iteration_when_differentiated():
    v = fr.Variable(0.0)
    x = fr.constant(2.0)

    def body(i, a):
        with fr.control_dependencies([v.assign_add(1.0)]):
            return i + 1, a * x

    y = fr.while_loop(lambda i, a: i < 3, body, [0, x])[1]
    (g,) = fr.gradients(y, x)
    with fr.Session() as sess:
        sess.run(v.initializer)
        assert sess.run([y, g]) == [pytest.approx(16.0), pytest.approx(32.0)]
        assert sess.run(v) == 3.0  # the backward replay never re-runs the body


# --- blocking branches --------------------------------------------------------------------


def _blocking_graph():
    pred = fr.placeholder(fr.bool, [])
    x = fr.placeholder(fr.float32, [])
    out = fr.cond(pred, lambda: make("CFTestAsyncIdentity", [x]) * 2.0, lambda: x)
    loop = fr.while_loop(
        lambda i, s: i < 3, lambda i, s: (i + 1, make("CFTestAsyncIdentity", [s]) + x), [0, x]
    )
    return pred, x, out, loop


def test_a_blocking_branch_makes_a_blocking_if_and_while_of_tfs_types():
    pred, x, out, loop = _blocking_graph()
    if_op, while_op = out.op.inputs[0].op, loop[1].op.inputs[0].op
    assert (if_op.type, while_op.type) == ("If", "While")  # TF has no Async* ops
    assert is_blocking(if_op) and is_blocking(while_op)
    # Written for TensorBoard (the test's blocking op has no TF counterpart).
    assert [
        n.op
        for n in graph_def_proto(fr.get_default_graph(), display=True).node
        if n.name in (if_op.name, while_op.name)
    ] == ["If", "While"]
    with fr.Session() as sess:
        assert sess.run(out, {pred: True, x: 3.0}) == 6.0
        assert sess.run(out, {pred: False, x: 3.0}) == 3.0
        assert sess.run(loop, {x: 1.0}) == [3, 4.0]


async def test_blocking_branch_with_arun():
    pred, x, out, loop = _blocking_graph()
    async with fr.Session() as sess:
        assert await sess.arun(out, {pred: True, x: 3.0}) == 6.0
        assert await sess.arun(loop, {x: 1.0}) == [3, 4.0]


async def test_non_blocking_cond_with_arun():
    pred = fr.placeholder(fr.bool, [])
    out = fr.cond(pred, lambda: fr.constant(1), lambda: fr.constant(2))
    async with fr.Session() as sess:
        assert await sess.arun(out, {pred: False}) == 2


# --- gradients ----------------------------------------------------------------------------


def test_cond_gradient_values():
    p = fr.placeholder(fr.bool, [])
    x = fr.constant(2.0)
    y = fr.constant(5.0)
    c = fr.cond(p, lambda: x * x, lambda: x * 3.0 + y)
    gx, gy = fr.gradients(c, [x, y])
    assert gx.name == "gradients/cond_grad/Identity:0"
    (gxx,) = fr.gradients(gx, x)
    with fr.Session() as sess:
        assert sess.run([gx, gy, gxx], {p: True}) == [4.0, 0.0, 2.0]
        assert sess.run([gx, gy, gxx], {p: False}) == [3.0, 1.0, 0.0]


def test_cond_gradient_only_runs_the_taken_branch():
    p = fr.placeholder(fr.bool, [])
    x = fr.constant(2.0)
    c = fr.cond(p, lambda: counted(x, "gt") * x, lambda: counted(x, "gf") * 2.0)
    (g,) = fr.gradients(c, x)
    with fr.Session() as sess:
        assert sess.run(g, {p: True}) == 2.0  # the counter op is not differentiable
        assert (count(sess, "gt"), count(sess, "gf")) == (1, 0)


def test_gradient_reaches_a_variable_whose_handle_a_loop_body_uses():
    v = fr.Variable(2.0)
    n = fr.Variable(0.0)
    x = fr.constant(1.0)

    def body(i, a):
        with fr.control_dependencies([n.assign_add(1.0)]):  # the body takes n's handle
            return i + 1, a * v + n.read_value()

    y = fr.while_loop(lambda i, a: i < 2, body, [0, x])[1]
    gv, gn = fr.gradients(y, [v, n])
    with fr.Session() as sess:
        sess.run([v.initializer, n.initializer])
        # y = (x v + n1) v + n2 with n1 = 1, n2 = 2 read after each increment
        assert sess.run([y, gv, gn]) == [pytest.approx(8.0), pytest.approx(5.0), pytest.approx(3.0)]


def test_a_loop_condition_reads_the_variable_its_body_updates():
    # The condition's read of v happens on each iteration (as TF's resource variables
    # read afresh), so the loop stops at v == 5, not at maximum_iterations.
    v = fr.Variable(0, use_resource=True)

    def body(i):
        with fr.control_dependencies([fr.assign_add(v, 1)]):
            return i + 1

    out = fr.while_loop(lambda i: v < 5, body, [0], maximum_iterations=20)
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        assert s.run(out) == 5
        assert s.run(v) == 5


def test_fetching_one_output_of_cond_runs_only_what_it_needs():
    # TF's testCondPruning: the branch ops of the other outputs do not run.
    v1, v2, v3 = fr.Variable(7), fr.Variable(7), fr.Variable(7)
    pred = fr.greater(fr.constant(3), fr.constant(2))
    r = fr.cond(
        pred,
        lambda: [fr.assign(v1, 1).op, fr.assign(v2, 2).op],
        lambda: [fr.assign(v3, 3).op, fr.constant(10).op],
    )
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        assert s.run(r[1])
        assert s.run([v1, v2, v3]) == [7, 2, 7]
        s.run(r[0].op.inputs[0].op)  # the If op as a target runs the whole branch
        assert s.run([v1, v2, v3]) == [1, 2, 7]
