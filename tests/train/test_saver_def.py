"""Saver.saver_def and Saver(saver_def=...) as TF1's."""

import flowrt as fr


def test_saver_def_property_and_a_saver_made_from_it(tmp_path):
    v = fr.Variable(1.0, name="v")
    saver = fr.train.Saver(max_to_keep=3)
    sd = saver.saver_def
    # TF 2.21: restore_op_name "save/restore_all", max_to_keep as given, version V2.
    assert sd.restore_op_name == "save/restore_all"
    assert sd.max_to_keep == 3 and sd.version == sd.V2
    other = fr.train.Saver(saver_def=sd)
    assert other.saver_def is sd  # TF 2.21: the SaverDef given
    with fr.Session() as sess:
        sess.run(v.initializer)
        path = saver.save(sess, str(tmp_path / "m"))
        sess.run(v.assign(5.0))
        other.restore(sess, path)
        assert sess.run(v) == 1.0
