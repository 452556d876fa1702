"""Gradient specs for TensorArray ops, outside and inside while_loop."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(11)
A = _r.standard_normal((3, 2))
B = _r.standard_normal((2,))
L = _r.standard_normal((5,))


def _ta(**kw):
    return fr.TensorArray(fr.float64, 3, **kw)


def _write_read(x, b):
    ta = _ta(clear_after_read=False).write(0, fr.sin(b)).write(2, b * b)
    return ta.read(0) * ta.read(2) + ta.read(2)


def _write_stack(x, b):
    return _ta().write(1, b).write(0, fr.exp(b)).stack() * x


def _unstack_read(x):
    ta = _ta(clear_after_read=False).unstack(x)
    return ta.read(1) * ta.read(2) + ta.read(1)


def _gather(x):
    return _ta().unstack(fr.tanh(x)).gather([2, 0]) * 3.0


def _scatter(x):
    return _ta().scatter([2, 0, 1], x * x).stack()


def _split_concat(v):
    ta = fr.TensorArray(fr.float64, 2, infer_shape=False).split(v * v, [2, 3])
    return ta.concat() * fr.sin(v)


def _loop_write(x, b):
    inp = _ta().unstack(x)

    def body(i, h, out):
        h = fr.tanh(inp.read(i) * b + h)
        return i + 1, h, out.write(i, h * h)

    _, h, out = fr.while_loop(lambda i, *a: i < 3, body, [0, fr.zeros_like(b), _ta()])
    return out.stack() + h


def _loop_scatter_read(x):
    # A TensorArray filled by unstack inside the loop and gathered after it.
    def body(i, ta):
        return i + 1, ta.write(i, x[i] * fr.cast(i + 1, fr.float64))

    _, ta = fr.while_loop(lambda i, ta: i < 3, body, [0, _ta()])
    return ta.gather([0, 2]) * 2.0


SPECS = [
    GradSpec("TensorArrayWriteV3", _write_read, [A, B], wrt=[1], id="TensorArrayWriteV3-read"),
    GradSpec("TensorArrayReadV3", _write_read, [A, B], wrt=[1]),
    GradSpec("TensorArrayWriteV3", _write_stack, [A, B], id="TensorArrayWriteV3-stack"),
    GradSpec("TensorArrayScatterV3", _unstack_read, [A], id="TensorArrayScatterV3-unstack"),
    GradSpec("TensorArrayGatherV3", _gather, [A]),
    GradSpec("TensorArrayScatterV3", _scatter, [A]),
    GradSpec("TensorArraySplitV3", _split_concat, [L]),
    GradSpec("TensorArrayConcatV3", _split_concat, [L]),
    GradSpec("TensorArrayWriteV3", _loop_write, [A, B], id="TensorArrayWriteV3-in-while"),
    GradSpec("TensorArrayReadV3", _loop_write, [A, B], id="TensorArrayReadV3-in-while"),
    GradSpec("While", _loop_write, [A, B], id="While-tensor-array-loop-var"),
    GradSpec("TensorArrayGatherV3", _loop_scatter_read, [A], id="TensorArrayGatherV3-after-while"),
]


# --- map_fn, scan, foldl, foldr: While and TensorArray gradients composed ---------------

SPECS += [
    GradSpec(
        "TensorArrayReadV3",
        lambda x, b: fr.map_fn(lambda r: fr.sin(r) * b, x),
        [A, B],
        id="map_fn",
    ),
    GradSpec(
        "TensorArrayReadV3",
        lambda x, b: fr.scan(lambda a, r: fr.tanh(a * b + r), x),
        [A, B],
        id="scan",
    ),
    GradSpec(
        "TensorArrayReadV3",
        lambda x, b: fr.scan(lambda a, r: a * b + r, x, initializer=b, reverse=True),
        [A, B],
        id="scan-reverse-initializer",
    ),
    GradSpec(
        "TensorArrayReadV3", lambda x, b: fr.foldl(lambda a, r: a * b + r, x), [A, B], id="foldl"
    ),
    GradSpec(
        "TensorArrayReadV3",
        lambda x, b: fr.foldr(lambda a, r: fr.sin(a) * b + r, x, initializer=b),
        [A, B],
        id="foldr",
    ),
]


# --- TensorArrays through cond: read inside a branch, returned from a branch ------------


def _cond_reads(x, b):
    ta = _ta(clear_after_read=False).unstack(x * 2.0)
    return fr.cond(fr.constant(True), lambda: ta.read(0) * ta.read(2), lambda: ta.read(1) + b)


def _cond_returns(taken):
    def fn(x, b):
        ta = _ta().write(0, x[0] * 3.0)
        ta = fr.cond(
            fr.constant(taken), lambda: ta.write(1, fr.sin(x[1]) * b), lambda: ta.write(1, b)
        )
        return ta.write(2, x[2]).stack()

    return fn


SPECS += [
    GradSpec("If", _cond_reads, [A, B], id="If-tensor-array-read-in-branch"),
    GradSpec("If", _cond_returns(True), [A, B], id="If-returns-tensor-array-true"),
    GradSpec("If", _cond_returns(False), [A, B], id="If-returns-tensor-array-false"),
]
