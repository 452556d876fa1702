"""TF1 queue surface details: shared queues opened with different settings, from_list,
PaddingFIFOQueue's shapes rule, the container attr (TF's own queue tests find these)."""

import numpy as np
import pytest

import flowrt as fr


def _open_both(a, b):
    with fr.Session() as sess:
        sess.run(a().queue_ref)
        sess.run(b().queue_ref)


@pytest.mark.parametrize(
    "a,b,message",
    [
        (
            lambda: fr.FIFOQueue(10, fr.float32, shared_name="s"),
            lambda: fr.FIFOQueue(20, fr.float32, shared_name="s"),
            "Shared queue 's' has capacity 10 but requested capacity was 20",
        ),
        (
            lambda: fr.FIFOQueue(10, [fr.float32, fr.int64], shared_name="s"),
            lambda: fr.FIFOQueue(10, [fr.float32], shared_name="s"),
            "Shared queue 's' has component types float, int64 but requested component types "
            "were float",
        ),
        (
            lambda: fr.FIFOQueue(10, fr.float32, shapes=[[2]], shared_name="s"),
            lambda: fr.FIFOQueue(10, fr.float32, shapes=[[3]], shared_name="s"),
            r"Shared queue 's' has component shapes \[\[2\]\] but requested component shapes "
            r"were \[\[3\]\]",
        ),
        (
            lambda: fr.FIFOQueue(10, fr.float32, shared_name="s"),
            lambda: fr.FIFOQueue(10, fr.float32, shapes=[[2]], shared_name="s"),
            r"has component shapes \[\] but requested component shapes were \[\[2\]\]",
        ),
        (
            lambda: fr.PaddingFIFOQueue(10, fr.float32, shapes=[[None]], shared_name="s"),
            lambda: fr.PaddingFIFOQueue(10, fr.float32, shapes=[[None, 2]], shared_name="s"),
            r"has component shapes \[\[\?\]\] but requested component shapes were \[\[\?,2\]\]",
        ),
        (
            lambda: fr.RandomShuffleQueue(10, 5, fr.float32, shared_name="s", seed=1),
            lambda: fr.RandomShuffleQueue(10, 6, fr.float32, shared_name="s", seed=1),
            "Shared queue 's' has min_after_dequeue 5 but requested min_after_dequeue was 6.",
        ),
        (
            lambda: fr.RandomShuffleQueue(10, 5, fr.float32, shared_name="s", seed=1),
            lambda: fr.RandomShuffleQueue(10, 5, fr.float32, shared_name="s", seed=2),
            r"Shared queue 's' has random seeds \(87654321, 1\) but requested seeds are "
            r"\(87654321, 2\).",
        ),
        (
            lambda: fr.PriorityQueue(10, [fr.float32], shapes=[[]], shared_name="s"),
            lambda: fr.PriorityQueue(10, [fr.int32], shapes=[[]], shared_name="s"),
            "has component types int64, float but requested component types were int64, int32",
        ),
        (
            lambda: fr.FIFOQueue(10, fr.float32, shared_name="s"),
            lambda: fr.RandomShuffleQueue(10, 5, fr.float32, shared_name="s"),
            "Shared queue 's' has type 'FIFOQueueV2' that does not match type of Node "
            "'random_shuffle_queue': RandomShuffleQueueV2",
        ),
    ],
)
def test_shared_queue_opened_differently_is_rejected_naming_the_mismatch(a, b, message):
    with pytest.raises(fr.errors.InvalidArgumentError, match=message) as ei:
        _open_both(a, b)
    assert ei.value.op.type.endswith("QueueV2")


def test_shared_queue_opened_alike_is_one_queue():
    a = fr.RandomShuffleQueue(10, 2, fr.int32, shapes=[[]], shared_name="s", seed=3)
    b = fr.RandomShuffleQueue(10, 2, fr.int32, shapes=[[]], shared_name="s", seed=3)
    with fr.Session() as sess:
        sess.run(a.enqueue_many([[1, 2, 3]]))
        assert sess.run(b.size()) == 3


def test_padding_fifo_queue_needs_a_list_of_shapes():
    for shapes in (None, [], [None], [2, None], fr.TensorShape([None])):
        with pytest.raises(
            ValueError, match="When providing partial shapes, a list of shapes must be provided."
        ):
            fr.PaddingFIFOQueue(10, fr.float32, shapes=shapes)
    q = fr.PaddingFIFOQueue(10, fr.float32, shapes=[[None]])
    assert q.shapes[0].as_list() == [None]


def test_container_and_shared_name_attrs_are_bytes_as_in_tf():
    q = fr.FIFOQueue(10, fr.float32, shared_name="s")
    assert q.queue_ref.op.get_attr("container") == b""
    assert q.queue_ref.op.get_attr("shared_name") == b"s"
    assert q.queue_ref.op.get_attr("capacity") == 10
    v = fr.Variable(1.0, name="w")
    assert v.handle.op.get_attr("container") == b""
    assert v.handle.op.get_attr("shared_name") == b"w"


def test_from_list_selects_a_queue_at_run_time():
    q1 = fr.FIFOQueue(10, fr.float32, shapes=[[2]])
    q2 = fr.FIFOQueue(10, fr.float32)
    i = fr.placeholder(fr.int32, [])
    q = fr.QueueBase.from_list(i, [q1, q2])
    assert q.dtypes == [fr.float32] and q.shapes[0].ndims is None
    assert fr.QueueBase.from_list(0, [q1, q1]).shapes[0].as_list() == [2]
    enq = q.enqueue(fr.placeholder_with_default(np.float32([1, 2]), [2]))
    with fr.Session() as sess:
        sess.run(enq, {i: 1})
        sess.run(enq, {i: 1})
        sess.run(enq, {i: 0})
        assert sess.run([q1.size(), q2.size()]) == [1, 2]
        np.testing.assert_array_equal(sess.run(q.dequeue(), {i: 1}), [1, 2])
        assert sess.run(q2.size()) == 1


def test_from_list_rejects_what_tf_rejects():
    a = fr.FIFOQueue(10, fr.float32)
    with pytest.raises(TypeError, match="A list of queues expected"):
        fr.QueueBase.from_list(0, [])
    with pytest.raises(TypeError, match="A list of queues expected"):
        fr.QueueBase.from_list(0, (a,))
    with pytest.raises(TypeError, match="matching component dtypes"):
        fr.QueueBase.from_list(0, [a, fr.FIFOQueue(10, fr.int32)])
    with pytest.raises(TypeError, match="matching component names"):
        fr.QueueBase.from_list(
            0,
            [
                fr.FIFOQueue(10, [fr.float32], names=["x"]),
                fr.FIFOQueue(10, [fr.float32], names=["y"]),
            ],
        )


def test_tensor_shape_of_one_dimension():
    assert fr.TensorShape(2).as_list() == [2]
    assert fr.TensorShape(2) == fr.TensorShape([2])
    assert fr.TensorShape(np.int64(3)).as_list() == [3]
    assert fr.TensorShape(None).ndims is None
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        fr.TensorShape(-1)
    with pytest.raises(TypeError, match="Dimension value must be integer"):
        fr.TensorShape(2.5)
    with pytest.raises(TypeError, match="Failed to convert 'ab' to a shape"):
        fr.TensorShape("ab")
