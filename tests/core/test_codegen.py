"""Generated code (flowrt/_core/codegen.py, plan_body.py): registered source, one way of
naming the failing op, and a plan body that is interpreted, then compiled."""

import traceback

import numpy as np
import pytest

import flowrt as fr
from flowrt._core import codegen, plan_body
from flowrt._core.plan import Plan


def _failing(x):
    raise ValueError("bad value %r" % (x,))


class _Op:
    name = "my_op"

    def describe(self):
        return "Fake op 'my_op'"


def test_a_generated_function_shows_its_lines_and_names_the_op():
    src = codegen.Source("test function", "def f(x):")
    src.bind("g", _failing)
    src.line("y = x + 1")
    src.line("return g(y)", _Op())
    f = src.build()
    with pytest.raises(fr.errors.InvalidArgumentError, match=r"Fake op 'my_op': bad value 3") as ei:
        f(2)
    assert isinstance(ei.value.__cause__, ValueError)
    text = "".join(traceback.format_exception(ei.value.__cause__))
    assert "<flowrt test function #" in text
    assert "return g(y)" in text  # the generated line, from linecache


def test_a_line_that_calls_no_kernel_raises_as_is():
    src = codegen.Source("test function", "def f(x):")
    src.line("y = 1 // x")
    src.line("return y", _Op())
    with pytest.raises(ZeroDivisionError):
        src.build()(0)


def _failing_chain():
    x = fr.placeholder(fr.float32, [None])
    w = fr.placeholder(fr.float32, [None])
    y = fr.add(fr.exp(x), w, name="the_add")
    return x, w, y


@pytest.mark.parametrize("compiled", [False, True])
def test_both_forms_of_a_plan_body_name_the_failing_op_and_show_its_line(compiled):
    x, w, y = _failing_chain()
    plan = Plan([y], [], [x, w], fuse=False)
    body = plan.fn
    if compiled:
        body.compile()
    ok = body(None, [np.ones(2, np.float32), np.ones(2, np.float32)])
    np.testing.assert_allclose(ok[0], np.e + 1, rtol=1e-6)
    with pytest.raises(fr.errors.InvalidArgumentError) as ei:
        body(None, [np.ones(2, np.float32), np.ones(3, np.float32)])
    assert ei.value.op.name == "the_add"
    text = "".join(traceback.format_exception(ei.value))
    if compiled:
        assert "<flowrt plan of 2 steps #" in text
        assert "= k1(ctx, o1, " in text  # the generated line of the_add's call


def test_a_plan_is_compiled_after_it_has_run_often(monkeypatch):
    monkeypatch.setattr(plan_body, "COMPILE_AFTER_RUNS", 3)
    x = fr.placeholder(fr.float32, [])
    y = x
    for _ in range(5):
        y = y + x
    with fr.Session() as sess:
        got = [sess.run(y, {x: 2.0}) for _ in range(4)]
        (plan,) = [p for _, p in sess._plans.plans() if isinstance(p, Plan)]
    assert plan.fn.compiled is not None
    assert got == [12.0] * 4


@pytest.mark.parametrize("compiled", [False, True])
def test_a_fed_scalar_is_computed_on_as_a_scalar_and_fetched_as_fed(compiled):
    x = fr.placeholder(fr.float32, [])
    y = x + x
    plan = Plan([x, y], [], [x])
    if compiled:
        plan.fn.compile()
    fed = np.asarray(2.0, np.float32)
    got_x, got_y = plan.fn(None, [fed])
    assert got_x is fed
    assert type(got_y) is np.float32 and got_y == 4.0
