"""A stuck pipeline, found three ways: a run deadline, a report of what waits on what,
and the fix (starting the queue runner the training step depends on).

Run: python examples/debug_stuck_pipeline.py
"""

import threading

import flowrt as fr
from flowrt.testing import pipeline_report


def main():
    examples = fr.FIFOQueue(8, fr.float32, shapes=[], name="examples")
    fr.train.add_queue_runner(
        fr.train.QueueRunner(examples, [examples.enqueue(fr.random_uniform([]))])
    )
    batch = examples.dequeue_many(4, name="batch")

    with fr.Session() as sess:
        # 1. The bug: no queue runner was started, so this run would wait forever.
        #    A deadline turns the hang into an error naming the op it waited on.
        try:
            sess.run(batch, options=fr.RunOptions(timeout_in_ms=200))
        except fr.errors.DeadlineExceededError as e:
            print("DeadlineExceededError:", e.message)

        # 2. What is blocked on what, asked from another thread while a run waits.
        waiting = threading.Thread(target=sess.run, args=(batch,))
        waiting.start()
        stats = sess.resources.items()
        while not any(
            getattr(q, "statistics", None) and q.statistics().waiting_dequeuers for _, q in stats
        ):
            waiting.join(0.01)
            stats = sess.resources.items()
        print(pipeline_report([sess]))

        # 3. The fix: start the runner that fills the queue; the waiting run completes.
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        waiting.join()
        print("after starting the queue runner:", sess.run(batch).shape)
        coord.request_stop()
        coord.join(threads)


if __name__ == "__main__":
    main()
