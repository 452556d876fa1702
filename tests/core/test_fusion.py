"""Elementwise fusion (flowrt/_core/fusion.py): grouping, the blocked program, fallback,
errors."""

import numpy as np
import pytest

import flowrt as fr
from flowrt._core import elementwise, fusion
from flowrt._core.fusion import FusedKernel
from flowrt._core.plan import Plan
from flowrt._core.registry import get_op_def
from flowrt.session_options import RewriterConfig


@pytest.fixture
def unfused():
    """A session configuration whose plans are not fused (TF's remapper off)."""
    return fr.ConfigProto(
        graph_options=fr.GraphOptions(rewrite_options=RewriterConfig(remapping=RewriterConfig.OFF))
    )


@pytest.fixture
def always_fused(monkeypatch):
    """The fused program runs at any size (no small-array fallback)."""
    monkeypatch.setattr(fusion, "FUSED_MIN_SIZE", 0)


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 1000 elements (a ragged last one), shared with helper threads."""
    monkeypatch.setattr(elementwise, "BLOCK", 1000)
    monkeypatch.setattr(elementwise, "PARALLEL_MIN_SIZE", 0)


def chain10(x):
    y = x * 1.5
    y = fr.exp(y)
    y = fr.tanh(y)
    y = y + x
    y = fr.sigmoid(y)
    y = fr.maximum(y, 0.1)
    y = fr.square(y)
    y = fr.abs(y)
    y = y - 1.0
    return -y


def fused_steps(plan):
    return [st for st in plan.steps if isinstance(st.kernel, FusedKernel)]


def run_both(fetches, feed, unfused):
    with fr.Session() as sess:
        a = sess.run(fetches, feed)
    with fr.Session(config=unfused) as sess:
        b = sess.run(fetches, feed)
    return a, b


def assert_same(a, b, rtol=1e-6):
    for x, y in zip(
        a if isinstance(a, list) else [a], b if isinstance(b, list) else [b], strict=True
    ):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-6)


def test_chain_of_ten_on_a_million_float32_is_one_step(unfused, always_fused):
    x = fr.placeholder(fr.float32, [1000, 1000])
    y = chain10(x)
    plan = Plan([y], [], [x])
    assert len(plan.steps) == 1
    k = plan.steps[0].kernel
    assert isinstance(k, FusedKernel) and len(k.members) == 10
    assert plan.steps[0].op is y.op  # the root op names the step
    xv = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    a, b = run_both(y, {x: xv}, unfused)
    assert a.dtype == np.float32
    assert_same(a, b)


@pytest.mark.parametrize("dtype", [fr.float32, fr.float64])
@pytest.mark.parametrize("n", [7, 50000])
@pytest.mark.parametrize("forced", [False, True], ids=["shipped", "forced"])
def test_fused_equals_unfused(dtype, n, forced, unfused, monkeypatch, small_blocks):
    if forced:
        monkeypatch.setattr(fusion, "FUSED_MIN_SIZE", 0)
    rng = np.random.default_rng(1)
    x = fr.placeholder(dtype, [None])
    w = fr.placeholder(dtype, [None])
    y = fr.sqrt(fr.abs(x * w - 3.0)) / (fr.exp(-x) + 1.0) + fr.rsqrt(w * w + 1.0)
    y = fr.minimum(fr.log1p(fr.square(y)), fr.cos(w)) - fr.reciprocal(fr.sin(x) + 2.0)
    feed = {x: rng.standard_normal(n).astype(dtype.np), w: rng.standard_normal(n).astype(dtype.np)}
    plan = Plan([y], [], [x, w])
    assert len(fused_steps(plan)) == 1 and len(plan.steps) == 1
    a, b = run_both(y, feed, unfused)
    assert a.dtype == dtype.np
    assert_same(a, b, rtol=1e-5 if dtype is fr.float32 else 1e-12)


def test_program_agrees_at_small_sizes(always_fused, unfused):
    x = fr.placeholder(fr.float32, [None, 3])
    b = fr.constant([1.0, -2.0, 0.5])
    y = fr.tanh(x * b) + fr.sigmoid(x - b)
    xv = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)
    a, u = run_both(y, {x: xv}, unfused)
    assert_same(a, u)


def test_nan_propagation_through_fused_maximum(always_fused, unfused):
    x = fr.placeholder(fr.float64, [None])
    y = fr.maximum(x * 1.0, x - 1.0)
    z = fr.minimum(y + 0.0, 0.5)
    xv = np.array([np.nan, 1.0, -3.0, np.inf])
    a, b = run_both(z, {x: xv}, unfused)
    np.testing.assert_array_equal(a, b)


def test_fetched_intermediate_is_not_fused_away(unfused):
    x = fr.placeholder(fr.float32, [None])
    mid = fr.exp(x * 2.0)
    y = fr.tanh(mid + 1.0) * 3.0
    plan = Plan([mid, y], [], [x])
    fs = fused_steps(plan)
    assert {st.op for st in fs} == {mid.op, y.op}
    assert all(mid.op not in st.kernel.ops[:-1] for st in fs)
    xv = np.linspace(-1, 1, 40000).astype(np.float32)
    a, b = run_both([mid, y], {x: xv}, unfused)
    assert_same(a, b)


def test_intermediate_used_outside_the_group_stays_a_step(unfused):
    x = fr.placeholder(fr.float32, [None])
    mid = fr.exp(x)
    y = fr.tanh(mid) * 2.0
    s = fr.reduce_sum(mid)
    plan = Plan([y, s], [], [x])
    owners = [
        st.kernel.ops if isinstance(st.kernel, FusedKernel) else (st.op,) for st in plan.steps
    ]
    assert (mid.op,) in owners  # Exp is its own step: Sum reads it
    xv = np.linspace(-1, 1, 40000).astype(np.float32)
    a, b = run_both([y, s], {x: xv}, unfused)
    assert_same(a, b, rtol=1e-5)


def test_control_dependency_on_an_intermediate_keeps_it_out(unfused):
    x = fr.placeholder(fr.float32, [None])
    mid = fr.exp(x)
    with fr.control_dependencies([mid.op]):
        side = fr.identity(x)
    y = fr.tanh(mid + side)
    plan = Plan([y], [], [x])
    assert all(mid.op not in st.kernel.ops for st in fused_steps(plan))
    xv = np.linspace(-1, 1, 40000).astype(np.float32)
    a, b = run_both(y, {x: xv}, unfused)
    assert_same(a, b)


def test_integer_and_mixed_dtype_chains_are_not_fused():
    i = fr.placeholder(fr.int32, [None])
    yi = (i * 2 + 1) - i
    h = fr.placeholder(fr.float16, [None])
    yh = fr.exp(h) * h
    c = fr.placeholder(fr.float32, [None])
    yc = fr.cast(fr.exp(c), fr.float64) * 2.0
    plan = Plan([yi, yh, yc], [], [i, h, c])
    assert not fused_steps(plan)


def test_fused_kernel_falls_back_for_other_dtypes(always_fused):
    x = fr.placeholder(fr.float32, [None])
    y = fr.exp(x) + x
    (st,) = Plan([y], [], [x]).steps
    v = np.linspace(0, 1, 50000)  # float64 values into the float32 group
    (out,) = st.kernel(None, st.op, v)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, np.exp(v) + v)


def test_many_operands_fuse_into_one_step(unfused, small_blocks):
    phs = [fr.placeholder(fr.float64, [None]) for _ in range(80)]
    y = phs[0]
    for p in phs[1:]:
        y = y + p
    plan = Plan([y], [], phs)
    (st,) = plan.steps
    assert len(st.ins) == 80 and st.kernel.program.n_regs == 1  # one buffer, reused
    rng = np.random.default_rng(3)
    feed = {p: rng.standard_normal(20000) for p in phs}
    a, b = run_both(y, feed, unfused)
    assert_same(a, b, rtol=1e-12)


def test_buffers_are_reused_by_liveness():
    x = fr.placeholder(fr.float32, [None])
    (st,) = Plan([chain10(x)], [], [x]).steps
    assert st.kernel.program.n_regs == 1  # a chain needs one intermediate buffer
    w = fr.placeholder(fr.float32, [None])
    y = (fr.exp(x) + fr.tanh(w)) * (fr.sin(x) - fr.cos(w))
    (st,) = Plan([y], [], [x, w]).steps
    assert st.kernel.program.n_regs == 3  # exp+tanh live, then sin and cos beside their sum


def test_broadcasting_operands_in_blocks(unfused, always_fused, small_blocks):
    # A bias row and a scalar against a [rows, 300] batch: blocks cut rows only.
    x = fr.placeholder(fr.float32, [None, 300])
    b = fr.placeholder(fr.float32, [300])
    c = fr.placeholder(fr.float32, [1, 1])
    y = fr.nn.relu(x * 2.0 + b) * c - fr.sigmoid(b)
    assert len(fused_steps(Plan([y], [], [x, b, c]))) == 1
    rng = np.random.default_rng(4)
    feed = {
        x: rng.standard_normal((517, 300)).astype(np.float32),
        b: rng.standard_normal(300).astype(np.float32),
        c: np.full((1, 1), 3, np.float32),
    }
    a, u = run_both(y, feed, unfused)
    assert_same(a, u)


def test_threads_see_the_callers_silenced_float_errors(unfused, always_fused, small_blocks):
    # exp overflows and 0/0 in helper threads: no RuntimeWarning (pytest turns warnings
    # into errors), same inf/nan as unfused.
    x = fr.placeholder(fr.float32, [None])
    y = fr.exp(x * 100.0) / (x - x)
    xv = np.linspace(-50, 50, 20000).astype(np.float32)
    a, b = run_both(y, {x: xv}, unfused)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n", [3, 40000])
def test_runtime_error_names_the_member_op(n, always_fused, small_blocks):
    x = fr.placeholder(fr.float32, [None])
    w = fr.placeholder(fr.float32, [None])
    inner = fr.add(x, w, name="inner_add")
    y = fr.exp(inner) * 2.0
    assert len(Plan([y], [], [x, w]).steps) == 1
    with fr.Session() as sess:
        for _ in range(3):  # the first run walks the plan, later ones the compiled form
            sess.run(y, {x: np.ones(n, np.float32), w: np.ones(n, np.float32)})
            with pytest.raises(fr.errors.InvalidArgumentError) as ei:
                sess.run(y, {x: np.ones(n, np.float32), w: np.ones(n + 1, np.float32)})
            assert ei.value.op.name == "inner_add"
            assert "inner_add" in ei.value.message


def test_gradients_still_work_with_fusion(unfused, always_fused):
    x = fr.placeholder(fr.float32, [None])
    y = fr.reduce_sum(chain10(x))
    (g,) = fr.gradients(y, [x])
    xv = np.linspace(-1, 1, 50000).astype(np.float32)
    a, b = run_both([y, g], {x: xv}, unfused)
    assert_same(a, b, rtol=1e-4)


async def test_fused_step_in_arun(unfused, always_fused):
    x = fr.placeholder(fr.float32, [None])
    y = chain10(x)
    xv = np.linspace(-1, 1, 50000).astype(np.float32)
    with fr.Session() as sess:
        a = await sess.arun(y, {x: xv})
    with fr.Session(config=unfused) as sess:
        b = await sess.arun(y, {x: xv})
    assert_same(a, b)


def test_fused_plan_is_a_valid_dag():
    x = fr.placeholder(fr.float32, [None])
    a = fr.exp(x)
    b = fr.tanh(a) + a  # a is read twice inside the group
    c = fr.reduce_sum(b)
    d = fr.sigmoid(c * b)
    plan = Plan([d], [], [x])
    for st in plan.steps:
        assert all(j > st.index for j in st.succ)
    assert plan.npred == [sum(st.index in p.succ for p in plan.steps) for st in plan.steps]


@pytest.mark.parametrize(
    "rewrites, fused",
    [
        (RewriterConfig(), True),
        (RewriterConfig(remapping=RewriterConfig.AGGRESSIVE), True),
        (RewriterConfig(remapping=RewriterConfig.OFF), False),
        (RewriterConfig(disable_meta_optimizer=True), False),
    ],
)
def test_the_sessions_rewriter_config_decides_fusion(rewrites, fused, always_fused):
    x = fr.placeholder(fr.float32, [None])
    y = chain10(x)
    config = fr.ConfigProto(graph_options=fr.GraphOptions(rewrite_options=rewrites))
    with fr.Session(config=config) as sess:
        sess.run(y, {x: np.ones(4, np.float32)})
        (plan,) = [p for _, p in sess._plans.plans() if isinstance(p, Plan)]
    assert bool(fused_steps(plan)) is fused


def test_rewriter_config_rejects_an_unknown_toggle():
    with pytest.raises(ValueError, match=r"remapping must be DEFAULT, ON, OFF or AGGRESSIVE"):
        RewriterConfig(remapping=7)


def test_sigmoid_result_does_not_depend_on_the_array_size():
    # Below about -88 (float32) the logistic function is a denormal, not 0: the fused
    # block (large arrays) and the kernel (small ones) must agree there.
    x = fr.placeholder(fr.float32, [None])
    y = fr.sigmoid(x * 1.0)
    xv = np.array([-100.0, -95.0, -89.0, -20.0, 0.0, 30.0], np.float32)
    big = np.resize(xv, fusion.FUSED_MIN_SIZE)
    with fr.Session() as sess:
        assert fused_steps(Plan([y], [], [x]))
        small_out = sess.run(y, {x: xv})
        big_out = sess.run(y, {x: big})[: len(xv)]
    assert small_out[0] > 0
    # Same formula either way: equal to float32 rounding (atol 0 tells 0 from a denormal).
    np.testing.assert_allclose(big_out, small_out, rtol=1e-6, atol=0)


def test_an_error_in_the_fused_program_surfaces(monkeypatch, always_fused):
    # The fused program must not fall back to the member kernels on an arbitrary error.
    def broken_exp(x, out):
        raise RuntimeError("block form failed")

    monkeypatch.setattr(get_op_def("Exp"), "ufunc", broken_exp)
    x = fr.placeholder(fr.float32, [None])
    y = fr.exp(x * 2.0, name="the_exp") + 1.0
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError, match="block form failed") as ei:
            sess.run(y, {x: np.ones(10, np.float32)})
    assert ei.value.op.name == "the_exp"


@pytest.mark.parametrize("remapping", [RewriterConfig.DEFAULT, RewriterConfig.OFF])
def test_a_cond_branch_follows_the_sessions_fusion_option(remapping, always_fused):
    x = fr.placeholder(fr.float32, [None])
    y = fr.cond(fr.constant(True), lambda: chain10(x), lambda: x)
    rewrites = RewriterConfig(remapping=remapping)
    config = fr.ConfigProto(graph_options=fr.GraphOptions(rewrite_options=rewrites))
    with fr.Session(config=config) as sess:
        sess.run(y, {x: np.ones(4, np.float32)})
    if_op = y.op.inputs[0].op
    assert if_op.type == "StatelessIf"
    plans = [entry[0] for _, entry in if_op.attrs["_plans"].values()]
    assert [bool(fused_steps(p)) for p in plans] == [remapping != RewriterConfig.OFF]
