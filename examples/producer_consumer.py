"""The classic TF1 input pattern: a queue runner thread fills a queue, the main loop
dequeues from it, and a coordinator stops the runner and joins its thread.

Run: python examples/producer_consumer.py
"""

import flowrt as fr


def main(steps=20):
    # The producer: every run of `enqueue` computes the next square and enqueues it.
    counter = fr.Variable(0, name="counter")
    next_value = fr.assign_add(counter, 1)
    queue = fr.FIFOQueue(capacity=4, dtypes=fr.int32, shapes=[])
    enqueue = queue.enqueue(next_value * next_value)
    fr.train.add_queue_runner(fr.train.QueueRunner(queue, [enqueue]))

    # The consumer: batches of three.
    batch = queue.dequeue_many(3)
    total = 0
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess=sess, coord=coord)
        try:
            for step in range(steps):
                values = sess.run(batch)
                total += int(values.sum())
                if step % 5 == 0:
                    print("step %2d: %s" % (step, values))
        finally:
            # The runner is blocked on the full queue: the stop request closes the queue
            # (cancelling the pending enqueue), so its thread ends and join returns.
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    expected = sum(k * k for k in range(1, 3 * steps + 1))
    print("sum of %d squares: %d" % (3 * steps, total))
    assert total == expected, (total, expected)
    return total


if __name__ == "__main__":
    main()
