"""fr.train.ExponentialMovingAverage: names, collections and values as TF 2.21's
compat.v1 gives them (written into the expectations), and the evaluation round trip
through variables_to_restore."""

import numpy as np
import pytest

import flowrt as fr


def test_apply_names_collections_and_values():
    w = fr.Variable([1.0, 2.0], name="w")
    b = fr.Variable(0.0, name="b")
    gs = fr.Variable(0, trainable=False, name="gs")
    ema = fr.train.ExponentialMovingAverage(0.9)
    op = ema.apply([w, b])
    assert (op.name, op.type) == ("ExponentialMovingAverage", "NoOp")
    assert ema.average(w).name == "w/ExponentialMovingAverage:0"
    assert ema.average_name(w) == "w/ExponentialMovingAverage"
    assert [v.name for v in fr.global_variables()] == [
        "w:0",
        "b:0",
        "gs:0",
        "w/ExponentialMovingAverage:0",
        "b/ExponentialMovingAverage:0",
    ]
    assert [v.name for v in fr.trainable_variables()] == ["w:0", "b:0"]
    assert [v.name for v in fr.moving_average_variables()] == ["w:0", "b:0"]
    assert sorted((k, v.name) for k, v in ema.variables_to_restore().items()) == [
        ("b/ExponentialMovingAverage", "b:0"),
        ("gs", "gs:0"),
        ("w/ExponentialMovingAverage", "w:0"),
    ]
    ema2 = fr.train.ExponentialMovingAverage(0.99, num_updates=gs, name="E2")
    op2 = ema2.apply([w])
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(s.run(ema.average(w)), [1.0, 2.0])  # the initial value
        s.run([w.assign([3.0, 4.0]), b.assign(1.0)])
        s.run(op)
        np.testing.assert_allclose(s.run(ema.average(w)), [1.2, 2.2], rtol=1e-6)
        s.run(op)
        np.testing.assert_allclose(s.run(ema.average(w)), [1.38, 2.38], rtol=1e-6)
        np.testing.assert_allclose(s.run(ema.average(b)), 0.19, rtol=1e-6)
        s.run(op2)  # num_updates 0: decay min(0.99, 1/10)
        np.testing.assert_allclose(s.run(ema2.average(w)), [2.8, 3.8], rtol=1e-6)
        s.run(gs.assign(100))
        s.run(op2)  # decay min(0.99, 101/110)
        np.testing.assert_allclose(
            s.run(ema2.average(w)), np.array([3.0, 4.0]) - 0.2 * 101 / 110, rtol=1e-6
        )


def test_apply_errors_are_tfs():
    w = fr.Variable([1.0], name="w")
    gs = fr.Variable(0, trainable=False)
    ema = fr.train.ExponentialMovingAverage(0.9)
    ema.apply([w])
    with pytest.raises(ValueError, match="Moving average already computed for: w:0"):
        ema.apply([w])
    with pytest.raises(TypeError, match="must be half, float, or double"):
        ema.apply([gs])
    with pytest.raises(TypeError, match="must be half, float, or double: Const"):
        ema.apply([fr.constant(1)])


def test_cifar10_averages_its_losses():
    # cifar10.py's _add_loss_summaries: ExponentialMovingAverage(0.9, name='avg') applied
    # to loss tensors; the shadows start at zero (TF 2.21's names and values).
    x = fr.placeholder(fr.float32, [])
    loss = fr.identity(x * 2, name="loss")
    loss_averages = fr.train.ExponentialMovingAverage(0.9, name="avg")
    loss_averages_op = loss_averages.apply([loss])
    shadow = loss_averages.average(loss)
    assert shadow.op.name == "loss/avg" and loss_averages.average_name(loss) == "loss/avg"
    assert shadow not in fr.trainable_variables()
    assert fr.get_collection(fr.GraphKeys.MOVING_AVERAGE_VARIABLES) == []
    fr.summary.scalar(loss.op.name, shadow)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        seen = []
        for i in range(3):
            sess.run(loss_averages_op, {x: float(i + 1)})
            seen.append(sess.run(shadow))
    np.testing.assert_allclose(seen, [0.2, 0.58, 1.122], rtol=1e-6)  # float32 sums


def test_zero_debiased_averages_of_tensors_and_assign_moving_average():
    from flowrt.train.moving_averages import assign_moving_average

    v = fr.Variable([1.0, 2.0], name="v")
    t = fr.identity(v * 1.0, name="t")
    ema = fr.train.ExponentialMovingAverage(0.5, zero_debias=True)
    op = ema.apply([t])
    w = fr.Variable(0.0, name="w")
    debiased = assign_moving_average(w, fr.constant(4.0), 0.5)
    plain = assign_moving_average(w, fr.constant(2.0), 0.5, zero_debias=False)
    names = [g.op.name for g in fr.global_variables()]
    assert names == [
        "v",
        "t/ExponentialMovingAverage",
        "t/ExponentialMovingAverage/biased",
        "t/ExponentialMovingAverage/local_step",
        "w",
        "w/biased",
        "w/local_step",
    ]
    assert debiased.op.name == "AssignMovingAvg" and plain.op.name == "AssignMovingAvg_1"
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for _ in range(2):
            sess.run(op)
            # Debiased: the average of a constant is the constant from the first step.
            assert sess.run(ema.average(t)).tolist() == [1.0, 2.0]
        assert sess.run(debiased) == 4.0 and sess.run(debiased) == 4.0
        assert sess.run(plain) == 3.0


def test_evaluate_with_the_averages(tmp_path):
    with fr.Graph().as_default():
        w = fr.Variable([1.0, 2.0], name="w")
        ema = fr.train.ExponentialMovingAverage(0.5)
        op = ema.apply()
        saver = fr.train.Saver()
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            s.run(w.assign([3.0, 6.0]))
            s.run(op)  # shadow: [2, 4]
            path = saver.save(s, str(tmp_path / "m"))
    with fr.Graph().as_default():
        w = fr.Variable([0.0, 0.0], name="w")
        ema = fr.train.ExponentialMovingAverage(0.5)
        with fr.Session() as s:
            fr.train.Saver(ema.variables_to_restore()).restore(s, path)
            np.testing.assert_array_equal(s.run(w), [2.0, 4.0])
