"""maybe_batch and friends (keep_input), batch names, CountUpTo (issue 12, item 8)."""

import numpy as np
import pytest

import flowrt as fr
from tests.train.test_input import _drain, _Runners


def test_batches_are_named_after_their_scope_as_tf():
    x = fr.constant([1, 2, 3])
    assert fr.train.batch([x[0]], 2).name == "batch:0"
    assert fr.train.shuffle_batch([x[0]], 2, 10, 2).name == "shuffle_batch:0"
    assert fr.train.batch_join([[x[0]], [x[1]]], 2).name == "batch_join:0"
    assert fr.train.batch([x[0]], 2, allow_smaller_final_batch=True, name="mine").name == "mine:0"
    assert fr.get_default_graph().get_tensor_by_name("batch:0").op.type == "QueueDequeueManyV2"


def test_maybe_batch_keeps_the_selected_examples():
    x = fr.constant([1, 2, 3, 4, 5, 6])
    keep = fr.constant([True, False, True, False, True, True])
    mb = fr.train.maybe_batch([x], keep, 2, enqueue_many=True)
    cnt = fr.Variable(0)
    inc = cnt.assign_add(1)
    odd = fr.train.maybe_batch([inc], fr.equal(inc % 2, 0), 2)  # a run-time decision
    with fr.Session() as sess, _Runners(sess):
        assert sess.run(mb).tolist() == [1, 3] and sess.run(mb).tolist() == [5, 6]
        assert sess.run(odd).tolist() == [2, 4]


def test_maybe_batch_join_and_shuffle_variants():
    x = fr.train.limit_epochs(fr.constant([1, 2, 3, 4]), num_epochs=1)
    keep = fr.constant([False, True, True, True])
    msb = fr.train.maybe_shuffle_batch([x], 3, 10, 0, keep, enqueue_many=True, seed=3)
    y = fr.train.limit_epochs(fr.constant([10, 20]), num_epochs=1)
    y1 = fr.train.limit_epochs(fr.constant([11, 21]), num_epochs=1)
    mbj = fr.train.maybe_batch_join(
        [[y], [y1]], fr.constant(True), 2, enqueue_many=True, allow_smaller_final_batch=True
    )
    z = fr.train.limit_epochs(fr.constant([7]), num_epochs=2)
    msbj = fr.train.maybe_shuffle_batch_join(
        [[z]], 1, 4, 0, fr.constant([False]), enqueue_many=True, allow_smaller_final_batch=True
    )
    with fr.Session() as sess, _Runners(sess):
        assert sorted(sess.run(msb).tolist()) == [2, 3, 4]
        got = sorted(v for batch in _drain(sess, mbj) for v in batch.tolist())
        assert got == [10, 11, 20, 21]
        assert _drain(sess, msbj) == []  # nothing kept: the first dequeue is out of range


def test_keep_input_is_checked():
    x = fr.constant([1, 2])
    with pytest.raises(ValueError, match="cannot be a vector when `enqueue_many=False`"):
        fr.train.maybe_batch([x], fr.constant([True, False]), 2)
    with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
        fr.train.maybe_batch([x], [[True]], 2, enqueue_many=True)
    with pytest.raises(ValueError, match="dimensions must be known at graph construction"):
        fr.train.maybe_batch([x], fr.placeholder(fr.bool), 2)
    with pytest.raises(TypeError, match="must be a bool tensor"):
        fr.train.maybe_batch([x], 1, 2)


def test_count_up_to_is_public_with_tf1_op_type():
    v = fr.Variable(0, name="counter")
    c = v.count_up_to(2)
    assert c.op.type == "CountUpTo" and c.dtype == fr.int32 and c.shape.as_list() == []
    c64 = fr.count_up_to(fr.Variable(np.int64(5)), 6)
    assert c64.dtype == fr.int64
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        assert [sess.run(c), sess.run(c)] == [0, 1]
        with pytest.raises(fr.errors.OutOfRangeError, match="Reached limit of 2") as info:
            sess.run(c)
        assert info.value.op is c.op and sess.run(v) == 2
        assert sess.run(c64) == 5
    epochs = fr.train.limit_epochs(fr.constant(1), 1)
    assert epochs.op.control_inputs[0].type == "CountUpTo"


def test_count_up_to_rejects_non_int_scalars():
    with pytest.raises(TypeError, match="DataType float32 not in list of allowed values"):
        fr.Variable(0.0).count_up_to(3)
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        fr.Variable([0, 1]).count_up_to(3)
    with pytest.raises(TypeError, match="needs a variable"):
        fr.count_up_to(fr.constant(1), 3)
