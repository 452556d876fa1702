"""A producer and a consumer as two trio tasks sharing one session: the producer awaits
``sess.arun(enqueue)``, the consumer ``sess.arun(dequeue)``; a full or empty queue
blocks only the task waiting on it. Then the same with the queue runner as a task.

Run: python examples/async_producer_consumer.py
"""

import trio

import flowrt as fr

N = 50


async def by_hand(sess, enqueue, value, dequeue, close):
    got = []

    async def producer():
        for k in range(N):
            await sess.arun(enqueue, {value: k})
        await sess.arun(close)  # consumers drain what is left, then get OutOfRangeError

    async def consumer():
        try:
            while True:
                got.append(int(await sess.arun(dequeue)))
        except fr.errors.OutOfRangeError:
            pass

    async with trio.open_nursery() as nursery:
        nursery.start_soon(producer)
        nursery.start_soon(consumer)
    assert got == list(range(N)), got
    print("by hand: consumed %d values in order" % len(got))


async def with_queue_runners(sess, batch):
    # The graph's queue runners run as tasks for the block; leaving it closes the
    # queues (cancelling pending enqueues) and ends them.
    async with fr.train.queue_runners(sess) as runners:
        batches = [await sess.arun(batch) for _ in range(5)]
        print(
            "queue runner tasks: %d running; batches %s"
            % (runners.running, [b.tolist() for b in batches])
        )
    assert runners.running == 0


async def main():
    value = fr.placeholder(fr.int32, [])
    q = fr.FIFOQueue(capacity=3, dtypes=fr.int32, shapes=[])
    enqueue, dequeue, close = q.enqueue(value), q.dequeue(), q.close()

    counter = fr.Variable(0, name="counter")
    q2 = fr.FIFOQueue(capacity=4, dtypes=fr.int32, shapes=[])
    fr.train.add_queue_runner(fr.train.QueueRunner(q2, [q2.enqueue(fr.assign_add(counter, 1))]))
    batch = q2.dequeue_many(2)

    with trio.fail_after(10):
        async with fr.Session() as sess:
            await sess.arun(fr.global_variables_initializer())
            await by_hand(sess, enqueue, value, dequeue, close)
            await with_queue_runners(sess, batch)


if __name__ == "__main__":
    trio.run(main)
