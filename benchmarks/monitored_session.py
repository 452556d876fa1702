"""Per-step cost of a training loop under ``MonitoredTrainingSession``, flowrt vs TF1.

Run: ``python benchmarks/monitored_session.py``. A small linear-regression step is run
(a) with a plain ``Session.run``, (b) under ``MonitoredTrainingSession`` with
``StopAtStepHook`` and a ``LoggingTensorHook`` (the hooks' fetches join each run), and,
for flowrt, (c) the same in the trio form (``await sess.arun``, plain hooks on a worker
thread). With tensorflow importable, TF1's figures are printed side by side with the
ratio flowrt/TF. Figures are medians of steps per second over a few repeats.
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np

import flowrt as fr

STEPS = 400
REPEATS = 3


def _model(m):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 16)).astype(np.float32)
    y = rng.standard_normal((32, 1)).astype(np.float32)
    gs = m.train.get_or_create_global_step()
    w = m.get_variable("w", [16, 1], initializer=m.zeros_initializer())
    loss = m.reduce_mean(m.square(m.matmul(m.constant(x), w) - m.constant(y)))
    train = m.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=gs)
    return loss, train


def _plain(m):
    with m.Graph().as_default():
        loss, train = _model(m)
        with m.Session() as sess:
            sess.run(m.global_variables_initializer())
            sess.run(train)
            t0 = time.perf_counter()
            for _ in range(STEPS):
                sess.run(train)
            return STEPS / (time.perf_counter() - t0)


def _hooks(m, loss):
    return [
        m.train.StopAtStepHook(last_step=STEPS + 1),
        m.train.LoggingTensorHook({"loss": loss}, every_n_iter=100),
    ]


def _monitored(m):
    with m.Graph().as_default():
        loss, train = _model(m)
        with m.train.MonitoredTrainingSession(hooks=_hooks(m, loss)) as sess:
            sess.run(train)
            t0 = time.perf_counter()
            while not sess.should_stop():
                sess.run(train)
            return STEPS / (time.perf_counter() - t0)


def _monitored_async(m):
    import trio

    async def main():
        with m.Graph().as_default():
            loss, train = _model(m)
            async with m.train.MonitoredTrainingSession(hooks=_hooks(m, loss)) as sess:
                await sess.arun(train)
                t0 = time.perf_counter()
                while not sess.should_stop():
                    await sess.arun(train)
                return STEPS / (time.perf_counter() - t0)

    return trio.run(main)


def _median(fn, m):
    return statistics.median(fn(m) for _ in range(REPEATS))


def main():
    logging.getLogger("flowrt.train").setLevel(logging.WARNING)
    rows = [("plain Session.run", _plain), ("MonitoredTrainingSession + 2 hooks", _monitored)]
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        tf.logging.set_verbosity(tf.logging.WARN)
    except ImportError:
        tf = None
    print(
        "%-40s %12s %12s %8s"
        % ("steps/s (median of %d x %d steps)" % (REPEATS, STEPS), "flowrt", "TF 1.x API", "fr/TF")
    )
    for label, fn in rows:
        a = _median(fn, fr)
        b = _median(fn, tf) if tf is not None else float("nan")
        print("%-40s %12.0f %12.0f %8.2f" % (label, a, b, a / b))
    a = _median(_monitored_async, fr)
    print("%-40s %12.0f %12s %8s" % ("MonitoredTrainingSession, trio form", a, "-", "-"))


if __name__ == "__main__":
    main()
