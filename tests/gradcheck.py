"""The random-direction inner-product gradient check (float64), as in jax's check_vjp.

For ``y = f(x1..xn)`` and random directions ``u`` (output) and ``v_i`` (inputs):
    analytic  = sum_i <d(sum(u * y))/dx_i, v_i>      (from fr.gradients)
    numerical = <u, (f(x + eps v) - f(x - eps v)) / (2 eps)>
must agree. A failure prints op, inputs, shapes, both values and tolerances.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

import flowrt as fr


@dataclasses.dataclass
class GradSpec:
    """One row of the gradient table.

    Attributes:
      op_type: the registered op type this row exercises (must appear in the graph).
      fn: builds the output from float64 input tensors: ``fn(*xs) -> Tensor``.
      inputs: the float64 input values (numpy arrays) at which to check.
      eps, rtol, atol: finite-difference step and tolerances.
      wrt: indices of the inputs to differentiate (default: all).
    """

    op_type: str
    fn: Callable
    inputs: Sequence
    eps: float = 1e-6
    rtol: float = 1e-5
    atol: float = 1e-7
    wrt: Sequence[int] | None = None
    id: str | None = None

    def __post_init__(self):
        self.inputs = [np.asarray(x, dtype=np.float64) for x in self.inputs]
        if self.id is None:
            self.id = self.op_type


def check_gradient(spec: GradSpec, seed: int = 0):
    rng = np.random.default_rng(seed)
    wrt = list(range(len(spec.inputs))) if spec.wrt is None else list(spec.wrt)
    with fr.Graph().as_default() as g:
        phs = [fr.placeholder(fr.float64, x.shape) for x in spec.inputs]
        y = spec.fn(*phs)
        types = {op.type for op in g.get_operations()}
        assert spec.op_type in types, (
            "gradient spec %r does not create an op of type %s (graph has %s)"
            % (spec.id, spec.op_type, sorted(types))
        )
        u_ph = fr.placeholder(fr.float64, y.shape)
        grads = fr.gradients(fr.reduce_sum(y * u_ph), [phs[i] for i in wrt])
        with fr.Session() as sess:
            feed = dict(zip(phs, spec.inputs))
            y0 = np.asarray(sess.run(y, feed))
            u = rng.standard_normal(y0.shape)
            vs = {i: rng.standard_normal(spec.inputs[i].shape) for i in wrt}
            fetch = [gr for gr in grads if gr is not None]
            gvals = iter(sess.run(fetch, {**feed, u_ph: u}))
            analytic = 0.0
            for i, gr in zip(wrt, grads):
                if gr is None:
                    continue
                gv = next(gvals)
                if hasattr(gv, "indices"):
                    dense = np.zeros(spec.inputs[i].shape)
                    np.add.at(dense, np.asarray(gv.indices), np.asarray(gv.values))
                    gv = dense
                analytic += float(np.sum(np.asarray(gv) * vs[i]))

            def f(sign):
                xs = [
                    x + sign * spec.eps * vs[i] if i in vs else x for i, x in enumerate(spec.inputs)
                ]
                return np.asarray(sess.run(y, dict(zip(phs, xs))))

            numerical = float(np.sum(u * (f(1.0) - f(-1.0)) / (2 * spec.eps)))
    tol = spec.atol + spec.rtol * max(abs(numerical), abs(analytic))
    assert abs(analytic - numerical) <= tol, (
        "gradient check failed for %s (%s): inputs shapes %s, analytic %.10g, numerical "
        "%.10g, |diff| %.3g > tol %.3g (rtol=%g, atol=%g, eps=%g)"
        % (
            spec.id,
            spec.op_type,
            [list(x.shape) for x in spec.inputs],
            analytic,
            numerical,
            abs(analytic - numerical),
            tol,
            spec.rtol,
            spec.atol,
            spec.eps,
        )
    )
