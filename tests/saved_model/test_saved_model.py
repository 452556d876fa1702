"""fr.saved_model: write a SavedModel, load it into a fresh graph, run its signature;
TF's messages and constants; a SavedModel written by TF 2.21 parses."""

import os
from pathlib import Path

import numpy as np
import pytest

import flowrt as fr
from flowrt.protos.saved_model_pb2 import SavedModel

sm = fr.saved_model
TF_MODEL = Path(__file__).resolve().parent.parent / "data" / "saved_model_tf"


def _model():
    x = fr.placeholder(fr.float32, [None, 2], name="x")
    w = fr.Variable([[1.0], [2.0]], name="w")
    y = fr.matmul(x, w, name="y")
    return x, w, y


def _tensors(sess, meta, key="serving_default", scope=None):
    sig = meta.signature_def[key]
    get = sm.get_tensor_from_tensor_info
    return (
        {k: get(v, sess.graph, scope) for k, v in sig.inputs.items()},
        {k: get(v, sess.graph, scope) for k, v in sig.outputs.items()},
    )


def test_simple_save_then_load_in_a_fresh_graph_runs_the_signature(tmp_path):
    export = str(tmp_path / "m")
    with fr.Graph().as_default():
        x, w, y = _model()
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            s.run(w.assign([[3.0], [4.0]]))
            sm.simple_save(s, export, {"x": x}, {"y": y})
            want = s.run(y, {x: [[1.0, 2.0], [0.5, -1.0]]})
    assert sorted(os.listdir(export)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(export, "variables"))) == [
        "variables.data-00000-of-00001",
        "variables.index",
    ]
    assert sm.contains_saved_model(export) and sm.loader.maybe_saved_model_directory(export)
    with fr.Session(graph=fr.Graph()) as s:
        meta = sm.load(s, [sm.SERVING], export)
        assert list(meta.meta_info_def.tags) == ["serve"]
        assert meta.signature_def["serving_default"].method_name == sm.PREDICT_METHOD_NAME
        ins, outs = _tensors(s, meta)
        got = s.run(outs["y"], {ins["x"]: [[1.0, 2.0], [0.5, -1.0]]})
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, [[11.0], [-2.5]])


def test_builder_two_tag_sets_main_op_assets_and_text_format(tmp_path):
    export = str(tmp_path / "m")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    with fr.Graph().as_default():
        x, w, y = _model()
        counter = fr.Variable(0, name="counter", collections=[fr.GraphKeys.LOCAL_VARIABLES])
        asset = fr.constant(str(vocab), name="vocab_path")
        seen = fr.Variable(b"", name="seen", collections=[fr.GraphKeys.LOCAL_VARIABLES])
        main = fr.group(fr.local_variables_initializer(), counter.initializer, name="my_main")
        with fr.control_dependencies([main]):
            main = fr.group(counter.assign(7), seen.assign(asset), name="main_then")
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            b = sm.Builder(export)
            sig = sm.predict_signature_def({"x": x}, {"y": y})
            b.add_meta_graph_and_variables(
                s,
                [sm.SERVING],
                signature_def_map={"pred": sig},
                assets_collection=[asset],
                main_op=main,
            )
            with pytest.raises(AssertionError, match="already been saved"):
                b.add_meta_graph_and_variables(s, ["x"])
        with pytest.raises(ValueError, match="already contains one or more main ops"):
            b.add_meta_graph([sm.TRAINING], main_op=main)
        b.add_meta_graph([sm.TRAINING, "extra"])
        path = b.save(as_text=True)
    assert path == os.path.join(export, "saved_model.pbtxt").encode()
    assert (Path(export) / "assets" / "vocab.txt").read_text() == "a\nb\n"
    vocab.unlink()  # the loader must feed the copy under assets/
    with fr.Session(graph=fr.Graph()) as s:
        meta = sm.load(s, ["serve"], export, import_scope="imp")
        assert meta.asset_file_def[0].filename == "vocab.txt"
        ins, outs = _tensors(s, meta, "pred", "imp")
        assert outs["y"].name == "imp/y:0"
        np.testing.assert_array_equal(s.run(outs["y"], {ins["x"]: [[1.0, 1.0]]}), [[3.0]])
        local = {v.op.name: v for v in s.graph.get_collection(fr.GraphKeys.LOCAL_VARIABLES)}
        assert s.run(local["imp/counter"]) == 7
        assert s.run(local["imp/seen"]) == os.path.join(export, "assets", "vocab.txt").encode()
    with fr.Session(graph=fr.Graph()) as s:
        meta = sm.load(s, ["extra", "train"], export)
        assert meta.signature_def == {} or len(meta.signature_def) == 0
        (w,) = fr.global_variables()
        assert s.run(w).tolist() == [[1.0], [2.0]]
    with fr.Session(graph=fr.Graph()) as s:
        with pytest.raises(RuntimeError, match="MetaGraphDef associated with tags 'gpu'"):
            sm.load(s, ["gpu"], export)


def test_builder_refuses_a_non_empty_directory_and_loader_a_missing_model(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        sm.builder.SavedModelBuilder(str(tmp_path))
    b = sm.Builder(str(tmp_path / "new"))
    with pytest.raises(AssertionError, match="has not been saved yet"):
        b.add_meta_graph(["serve"])
    assert not sm.contains_saved_model(str(tmp_path))
    with fr.Session(graph=fr.Graph()) as s:
        with pytest.raises(OSError, match=r"SavedModel file does not exist at: .*saved_model"):
            sm.load(s, ["serve"], str(tmp_path))


def test_signature_def_utils_and_validity():
    with fr.Graph().as_default():
        ex = fr.placeholder(fr.string, [None], name="ex")
        scores = fr.placeholder(fr.float32, [None, 3], name="scores")
        classes = fr.placeholder(fr.string, [None, 3], name="classes")
        ints = fr.placeholder(fr.int32, [None], name="ints")
        sp = fr.sparse_placeholder(fr.float32, [None, 4], name="sp")
        c = sm.classification_signature_def(ex, classes, scores)
        assert c.method_name == "tensorflow/serving/classify"
        assert sorted(c.outputs) == ["classes", "scores"] and c.inputs["inputs"].name == "ex:0"
        assert sm.is_valid_signature(c)
        r = sm.regression_signature_def(ex, scores)
        assert sm.is_valid_signature(r) and list(r.outputs) == ["outputs"]
        p = sm.predict_signature_def({"sp": sp}, {"o": ints})
        assert sm.is_valid_signature(p)
        info = p.inputs["sp"]
        assert info.WhichOneof("encoding") == "coo_sparse"
        assert info.coo_sparse.indices_tensor_name == "sp/indices:0"
        got = sm.get_tensor_from_tensor_info(info)
        assert isinstance(got, fr.SparseTensor) and got.values.name == sp.values.name
        assert not sm.is_valid_signature(sm.build_signature_def(c.inputs, c.outputs, "x/y"))
        bad = sm.build_signature_def(
            {"inputs": sm.build_tensor_info(ints)}, c.outputs, c.method_name
        )
        assert not sm.is_valid_signature(bad) and not sm.is_valid_signature(None)
        d = sm.build_signature_def(p.inputs, p.outputs, "m", defaults={"k": [1.5, 2.5]})
        assert fr.make_ndarray(d.defaults["k"]).tolist() == [1.5, 2.5]
        with pytest.raises(ValueError, match="Prediction `inputs` cannot be None or empty."):
            sm.predict_signature_def({}, {"o": ints})
        with pytest.raises(ValueError, match="Classification `classes` and `scores` cannot"):
            sm.classification_signature_def(ex, None, None)
        with pytest.raises(ValueError, match="Classification input tensors must be of type str"):
            sm.classification_signature_def(ints, classes, None)
        with pytest.raises(TypeError, match="Regression `examples` must be a string Tensor"):
            sm.regression_signature_def("ex", scores)
        with pytest.raises(ValueError, match="Regression output tensors must be of type float32"):
            sm.regression_signature_def(ex, ints)
        with pytest.raises(ValueError, match="Invalid TensorInfo.encoding: None"):
            sm.get_tensor_from_tensor_info(sm.utils.build_tensor_info(ints).__class__())


def test_main_op_initializes_and_runs_the_restore_op():
    with fr.Graph().as_default():
        v = fr.Variable(5.0, name="v")
        loc = fr.Variable(2.0, name="loc", collections=[fr.GraphKeys.LOCAL_VARIABLES])
        bump = fr.assign_add(v, 1.0, name="bump").op
        table = fr.lookup.StaticHashTable(
            fr.lookup.KeyValueTensorInitializer(["a"], [1], fr.string, fr.int64), -1
        )
        with fr.Session() as s:
            s.run(sm.main_op.main_op())
            assert s.run([v, loc]) == [5.0, 2.0]
            assert s.run(table.lookup(fr.constant(["a", "b"]))).tolist() == [1, -1]
            s.run(sm.main_op_with_restore("bump"))
            assert s.run(v) == 6.0
        assert bump.name == "bump"


def test_constants_are_tfs():
    # TF 2.21's values.
    assert (sm.SERVING, sm.TRAINING, sm.GPU, sm.TPU) == ("serve", "train", "gpu", "tpu")
    assert sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert sm.REGRESS_METHOD_NAME == "tensorflow/serving/regress"
    assert sm.CLASSIFY_OUTPUT_SCORES == "scores" and sm.PREDICT_OUTPUTS == "outputs"
    assert sm.constants.MAIN_OP_KEY == "saved_model_main_op"
    assert sm.LEGACY_INIT_OP_KEY == "legacy_init_op" and sm.ASSETS_KEY == "saved_model_assets"
    assert sm.SAVED_MODEL_FILENAME_PB == "saved_model.pb" and sm.VARIABLES_FILENAME == "variables"


def test_a_saved_model_written_by_tf_parses_and_its_signature_is_read():
    # tests/data/saved_model_tf/saved_model.pb: TF 2.21 compat.v1 Builder, y = x @ w,
    # predict signature "serving_default" {"x": x} -> {"y": y}, tag "serve".
    saved = SavedModel.FromString((TF_MODEL / "saved_model.pb").read_bytes())
    assert saved.saved_model_schema_version == 1
    (meta,) = saved.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    sig = meta.signature_def["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert sig.inputs["x"].name == "x:0" and sig.outputs["y"].name == "y:0"
    assert sig.inputs["x"].dtype == fr.float32.as_datatype_enum
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 2]
    assert meta.saver_def.restore_op_name == "save/restore_all"
    # Its graph (TF's ref variables and checkpoint ops) imports; only its variables/
    # checkpoint is not committed with it (tests/fixtures/tf_graphs/saved_model has one).
    with fr.Session(graph=fr.Graph()) as s:
        with pytest.raises(ValueError, match="not a valid checkpoint: .*variables/variables$"):
            sm.load(s, ["serve"], str(TF_MODEL))
        assert s.graph.get_operation_by_name("w").type == "VarHandleOp"


def test_unused_huge_constants_of_a_saved_model_load_without_memory(tmp_path):
    # A SavedModel whose graph also holds Consts declaring [60000, 60000] float32 and
    # [10**9] strings (13.4 GiB and 8 GB decoded) from a few values: it loads and its
    # signature runs in a child whose address space could hold neither (numpy's
    # MemoryError at load before), as TF loads it with no growth.
    from tests.memory_limit import run_capped
    from tests.test_graph_import import _const_def

    export = str(tmp_path / "m")
    with fr.Graph().as_default():
        x, w, y = _model()
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            sm.simple_save(s, export, {"x": x}, {"y": y})
    path = os.path.join(export, "saved_model.pb")
    model = SavedModel.FromString(Path(path).read_bytes())
    graph = model.meta_graphs[0].graph_def
    graph.node.extend(_const_def("big", [60000, 60000], values=[1.0, 2.0]).node)
    graph.node.extend(_const_def("strs", [10**9], 7, [b"a", b"b"]).node)
    Path(path).write_bytes(model.SerializeToString())
    out = run_capped(
        """
        import flowrt as fr
        with fr.Graph().as_default(), fr.Session() as s:
            meta = fr.saved_model.load(s, ["serve"], %r)
            sig = meta.signature_def["serving_default"]
            print(s.run(sig.outputs["y"].name, {sig.inputs["x"].name: [[1.0, 1.0]]}).tolist())
        """
        % export
    )
    assert out.strip() == "[[3.0]]"
