"""Gradient specs for control flow: the If op family (While has no gradient yet).

Two test-only identity ops make the other If types: one stateful (``If``) and one with
an async kernel (``AsyncIf``).
"""

import numpy as np
import trio

import flowrt as fr
from flowrt._core.registry import register_op
from flowrt.ops.common import make, same_as
from tests.gradcheck import GradSpec


def _async_identity(ctx, op, x):
    # A blocking kernel that never has to wait (a generator that returns at once).
    return (x,)
    yield


register_op("GradSpecAsyncIdentity", infer=same_as(0), kernel=_async_identity, blocking=True,
            grad=lambda op, g: [g])
register_op("GradSpecStatefulIdentity", infer=same_as(0), kernel=lambda ctx, op, x: (x,),
            grad=lambda op, g: [g], stateful=True)

_r = np.random.default_rng(7)
A = _r.standard_normal((2, 3))
B = _r.standard_normal((2, 3))
C = _r.standard_normal((3,))


def _cond(taken):
    return lambda x, y: fr.cond(fr.constant(taken), lambda: fr.sin(x) * y,
                                lambda: x * x + y)


def _nested(x, y):
    inner = lambda: fr.cond(fr.constant(False), lambda: x, lambda: fr.exp(x) * y)
    return fr.cond(fr.constant(True), inner, lambda: y)


def _second_order(x):
    y = fr.cond(fr.constant(True), lambda: x * x * x, lambda: x)
    (dy,) = fr.gradients(y, x)
    return dy


def _stateful(x, y):
    return fr.cond(fr.constant(True), lambda: make("GradSpecStatefulIdentity", [x]) * y,
                   lambda: y)


def _async(x, y):
    return fr.cond(fr.constant(False), lambda: x,
                   lambda: make("GradSpecAsyncIdentity", [x]) * y)


SPECS = [
    GradSpec("StatelessIf", _cond(True), [A, B], id="StatelessIf-true"),
    GradSpec("StatelessIf", _cond(False), [A, B], id="StatelessIf-false"),
    GradSpec("StatelessIf", lambda x, y: fr.cond(fr.constant(True), lambda: (x, x * y),
                                                 lambda: (y, x))[1] + x, [A, B],
             id="StatelessIf-tuple-and-outer-use"),
    GradSpec("StatelessIf", lambda x, c: fr.cond(fr.constant(True), lambda: x + c,
                                                 lambda: x), [A, C],
             id="StatelessIf-broadcast"),
    GradSpec("StatelessIf", _nested, [A, B], id="StatelessIf-nested"),
    GradSpec("StatelessIf", _second_order, [A], id="StatelessIf-second-order"),
    GradSpec("If", _stateful, [A, B]),
    GradSpec("GradSpecStatefulIdentity", _stateful, [A, B]),
    GradSpec("AsyncIf", _async, [A, B]),
    GradSpec("GradSpecAsyncIdentity", _async, [A, B]),
]
