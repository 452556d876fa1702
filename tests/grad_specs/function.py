"""Gradient specs for call ops of ``@fr.function`` (PartitionedCall and friends)."""

import numpy as np

import flowrt as fr
from flowrt.ops.common import make
from tests.gradcheck import GradSpec

from . import control_flow  # noqa: F401  (registers the test-only identity ops)

_r = np.random.default_rng(11)
A = _r.standard_normal((2, 3))
B = _r.standard_normal((2, 3))


@fr.function
def _pure(x, y):
    return fr.sin(x) * y + x * x


_w = fr.Variable(np.float64(1.5), name="grad_spec_w")


@fr.function
def _reads_variable(x, y):
    # Reading a variable makes the call stateful; the gradient uses the value it read.
    return x * _w + fr.exp(y) * x


@fr.function
def _blocking(x, y):
    return make("GradSpecAsyncIdentity", [x]) * y


@fr.function
def _cube(x):
    return x * x * x


def _second_order(x):
    (dx,) = fr.gradients(_cube(x), x)
    return dx


SPECS = [
    GradSpec("PartitionedCall", lambda x, y: _pure(x, y), [A, B]),
    GradSpec("StatefulPartitionedCall", lambda x, y: _reads_variable(x, y), [A, B]),
    GradSpec(
        "StatefulPartitionedCall",
        lambda x, y: _blocking(x, y),
        [A, B],
        id="StatefulPartitionedCall-blocking",
    ),
    GradSpec("PartitionedCall", _second_order, [A], id="PartitionedCall-second-order"),
]
