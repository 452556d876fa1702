"""Dense linear algebra, forward and gradient: flowrt vs TensorFlow 2.21 side by side.

Run from the project root:  python benchmarks/linalg.py [--quick]

Each row runs one op (or its gradient) on a float64 batch ``[B, N, N]`` fed through a
placeholder, so both runtimes do the same work per step: flowrt through numpy.linalg
(LAPACK), TF through Eigen. Times are the best of several runs, in milliseconds per step;
TF (tf.compat.v1 graph mode) runs in the same process when importable. Figures are noisy
on a shared machine: compare the ratios of one run.
"""

from __future__ import annotations

import sys
import timeit

import numpy as np

import flowrt as fr


def best_ms(fn, repeat):
    fn()
    n = max(1, int(0.2 / max(timeit.timeit(fn, number=1), 1e-6)))
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e3


def cases(m, x):
    sym = 0.5 * (x + m.linalg.adjoint(x))
    spd = m.matmul(x, x, adjoint_b=True) + 64.0 * m.eye(int(x.shape[-1]), dtype=m.float64)
    rhs = x[..., :, :4]
    s, u, v = m.svd(x)
    return {
        "matrix_inverse": m.matrix_inverse(x),
        "matrix_determinant": m.matrix_determinant(x),
        "cholesky": m.cholesky(spd),
        "matrix_solve": m.matrix_solve(x, rhs),
        "triangular_solve": m.matrix_triangular_solve(x, rhs),
        "qr": m.qr(x),
        "svd": (s, u, v),
        "self_adjoint_eig": m.self_adjoint_eig(sym),
        "lstsq (composite)": m.matrix_solve_ls(x, rhs),
        "grad inverse": m.gradients(m.reduce_sum(m.matrix_inverse(x)), x)[0],
        "grad cholesky": m.gradients(m.reduce_sum(m.cholesky(spd)), x)[0],
        "grad svd": m.gradients(m.reduce_sum(s) + m.reduce_sum(u * u[..., ::-1, :]), x)[0],
        "grad eigh": m.gradients(m.reduce_sum(m.self_adjoint_eig(sym)[0] ** 2), x)[0],
    }


def measure(m, shape, repeat):
    r = np.random.default_rng(0)
    value = r.standard_normal(shape) + shape[-1] * np.eye(shape[-1])
    with m.Graph().as_default():
        x = m.placeholder(m.float64, shape)
        built = cases(m, x)
        with m.Session() as sess:
            return {
                k: best_ms(lambda f=f: sess.run(f, {x: value}), repeat) for k, f in built.items()
            }


def main():
    quick = "--quick" in sys.argv
    repeat = 3 if quick else 5
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
    except ImportError:
        tf = None
    for shape in (
        [(64, 8, 8), (4, 128, 128)] if quick else [(256, 8, 8), (16, 64, 64), (2, 256, 256)]
    ):
        ours = measure(fr, shape, repeat)
        theirs = measure(tf, shape, repeat) if tf is not None else {}
        print(
            "\nbatch %s (ms per step; ratio = TF time / flowrt time, > 1: flowrt faster)" % (shape,)
        )
        print("%-22s %10s %10s %8s" % ("case", "flowrt", "TF", "ratio"))
        for k, t in ours.items():
            if k in theirs:
                print("%-22s %10.3f %10.3f %8.2f" % (k, t, theirs[k], theirs[k] / t))
            else:
                print("%-22s %10.3f" % (k, t))


if __name__ == "__main__":
    main()
