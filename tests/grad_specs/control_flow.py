"""Gradient specs for control flow: the If and While op families.

Two test-only identity ops make the other If types: one stateful (``If``) and one with
an async kernel (a blocking ``If``).
"""

import numpy as np

import flowrt as fr
from flowrt._core.registry import register_op
from flowrt.ops.common import make, same_as
from tests.gradcheck import GradSpec


def _async_identity(ctx, op, x):
    # A blocking kernel that never has to wait (a generator that returns at once).
    return (x,)
    yield


register_op(
    "GradSpecAsyncIdentity",
    infer=same_as(0),
    kernel=_async_identity,
    blocking=True,
    grad=lambda op, g: [g],
)
register_op(
    "GradSpecStatefulIdentity",
    infer=same_as(0),
    kernel=lambda ctx, op, x: (x,),
    grad=lambda op, g: [g],
    stateful=True,
)

_r = np.random.default_rng(7)
A = _r.standard_normal((2, 3))
B = _r.standard_normal((2, 3))
C = _r.standard_normal((3,))


def _cond(taken):
    return lambda x, y: fr.cond(fr.constant(taken), lambda: fr.sin(x) * y, lambda: x * x + y)


def _nested(x, y):
    inner = lambda: fr.cond(fr.constant(False), lambda: x, lambda: fr.exp(x) * y)
    return fr.cond(fr.constant(True), inner, lambda: y)


def _second_order(x):
    y = fr.cond(fr.constant(True), lambda: x * x * x, lambda: x)
    (dy,) = fr.gradients(y, x)
    return dy


def _stateful(x, y):
    return fr.cond(fr.constant(True), lambda: make("GradSpecStatefulIdentity", [x]) * y, lambda: y)


def _async(x, y):
    return fr.cond(fr.constant(False), lambda: x, lambda: make("GradSpecAsyncIdentity", [x]) * y)


SPECS = [
    GradSpec("StatelessIf", _cond(True), [A, B], id="StatelessIf-true"),
    GradSpec("StatelessIf", _cond(False), [A, B], id="StatelessIf-false"),
    GradSpec(
        "StatelessIf",
        lambda x, y: fr.cond(fr.constant(True), lambda: (x, x * y), lambda: (y, x))[1] + x,
        [A, B],
        id="StatelessIf-tuple-and-outer-use",
    ),
    GradSpec(
        "StatelessIf",
        lambda x, c: fr.cond(fr.constant(True), lambda: x + c, lambda: x),
        [A, C],
        id="StatelessIf-broadcast",
    ),
    GradSpec("StatelessIf", _nested, [A, B], id="StatelessIf-nested"),
    GradSpec("StatelessIf", _second_order, [A], id="StatelessIf-second-order"),
    GradSpec("If", _stateful, [A, B]),
    GradSpec("GradSpecStatefulIdentity", _stateful, [A, B]),
    GradSpec("If", _async, [A, B], id="If-blocking"),
    GradSpec("GradSpecAsyncIdentity", _async, [A, B]),
]


# --- While: forward values recorded and replayed backwards ------------------------------


def _loop(x, w):
    _, y = fr.while_loop(
        lambda i, v: i < 4, lambda i, v: (i + 1, fr.sin(v) * w + v), [fr.constant(0), x]
    )
    return y


def _nested_loops(x, w):
    def outer(i, v):
        _, u = fr.while_loop(
            lambda j, u: j < 2, lambda j, u: (j + 1, u * w + 0.1), [fr.constant(0), v]
        )
        return i + 1, u * v

    return fr.while_loop(lambda i, v: i < 3, outer, [fr.constant(0), x])[1]


def _max_iter(x, w):
    return fr.while_loop(
        lambda i, v: i < 100,
        lambda i, v: (i + 1, v * w + fr.exp(v) * 0.1),
        [fr.constant(0), x],
        maximum_iterations=3,
    )[1]


def _two_vars(x, w):
    # Two float loop variables feeding each other, a cond inside the body.
    def body(i, a, b):
        nb = fr.cond(i < 2, lambda: a * b, lambda: a + b)
        return i + 1, fr.tanh(b), nb

    _, a, b = fr.while_loop(lambda i, a, b: i < 3, body, [fr.constant(0), x, w])
    return a * b


def _stateful_loop(x, w):
    return fr.while_loop(
        lambda i, v: i < 2,
        lambda i, v: (i + 1, make("GradSpecStatefulIdentity", [v]) * w),
        [fr.constant(0), x],
    )[1]


def _async_loop(x, w):
    return fr.while_loop(
        lambda i, v: i < 2,
        lambda i, v: (i + 1, make("GradSpecAsyncIdentity", [v]) * w),
        [fr.constant(0), x],
    )[1]


SPECS += [
    GradSpec("StatelessWhile", _loop, [A, B], id="StatelessWhile-single"),
    GradSpec("StatelessWhile", _nested_loops, [A * 0.3, B * 0.5], id="StatelessWhile-nested"),
    GradSpec("StatelessWhile", _max_iter, [A, B], id="StatelessWhile-maximum_iterations"),
    GradSpec("StatelessWhile", _two_vars, [A * 0.5, B * 0.5], id="StatelessWhile-two-vars"),
    GradSpec("StatelessWhile", lambda x, c: _loop(x, c), [A, C], id="StatelessWhile-broadcast"),
    GradSpec("While", _stateful_loop, [A, B]),
    GradSpec("While", _async_loop, [A, B], id="While-blocking"),
]
