"""Lookup tables (fr.lookup, fr.contrib.lookup) against TF 2.21's recorded values
and messages (compat.v1, graph mode)."""

import threading

import numpy as np
import pytest

import flowrt as fr
from flowrt.contrib import lookup as contrib_lookup


def _kv():
    return fr.lookup.KeyValueTensorInitializer([b"a", b"b"], [1, 2])


def _run(*fetches, init=True):
    with fr.Session() as s:
        if init:
            s.run(fr.tables_initializer())
        return s.run(list(fetches))


def test_static_hash_table_lookup_size_and_default():
    t = fr.lookup.StaticHashTable(_kv(), -1)
    found = t.lookup(fr.constant([[b"a"], [b"q"]]))
    assert found.dtype == fr.int32 and found.shape.as_list() == [2, 1]
    got, size = _run(t.lookup(fr.constant([b"a", b"z", b"b"])), t.size())
    assert got.tolist() == [1, -1, 2] and size == 2  # TF 2.21's values
    assert _run(found)[0].tolist() == [[1], [-1]]
    assert t.resource_handle.op.type == "HashTableV2" and t.name == "hash_table"
    assert t.key_dtype == fr.string and t.value_dtype == fr.int32
    graph = fr.get_default_graph()
    assert graph.get_collection(fr.GraphKeys.TABLE_INITIALIZERS) == [t.initializer]
    assert t.initializer.type == "LookupTableImportV2"


def test_integer_keys_string_values_and_sparse_keys():
    init = fr.lookup.KeyValueTensorInitializer([3, 4], [b"x", b"y"], fr.int64, fr.string)
    t = fr.lookup.StaticHashTable(init, "?")
    sp = fr.SparseTensor([[0, 0], [1, 2]], fr.constant([4, 9], fr.int64), [2, 3])
    dense, sparse = _run(t.lookup(fr.constant([4, 5], fr.int64)), t.lookup(sp))
    assert dense.tolist() == [b"y", b"?"]
    assert sparse.values.tolist() == [b"y", b"?"] and sparse.dense_shape.tolist() == [2, 3]


def test_lookup_before_initialization_fails_as_tf():
    t = fr.lookup.StaticHashTable(_kv(), -1)
    with pytest.raises(fr.errors.FailedPreconditionError, match="Table not initialized."):
        _run(t.lookup(fr.constant([b"a"])), init=False)


def test_tables_are_per_session_state():
    t = fr.lookup.StaticHashTable(_kv(), -1)
    found = t.lookup(fr.constant([b"b"]))
    with fr.Session() as s1, fr.Session() as s2:
        s1.run(fr.initializers.tables_initializer())
        assert s1.run(found).tolist() == [2]
        with pytest.raises(fr.errors.FailedPreconditionError):
            s2.run(found)


def test_table_errors():
    t = fr.lookup.StaticHashTable(_kv(), -1)
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be"):
        t.lookup(fr.constant([1]))
    dup = fr.lookup.KeyValueTensorInitializer([b"a", b"a"], [1, 2])
    fr.lookup.StaticHashTable(dup, -1)
    with pytest.raises(
        fr.errors.FailedPreconditionError,
        match="HashTable has different value for same key. Key a has 1 and trying to add value 2",
    ):
        _run()
    with pytest.raises(TypeError, match=r"Invalid `value_dtype`, expected .*int64"):
        fr.lookup.StaticVocabularyTable(_kv(), 4)
    with pytest.raises(NotImplementedError, match="experimental_is_anonymous"):
        fr.lookup.StaticHashTable(_kv(), -1, experimental_is_anonymous=True)


def test_tables_initializer_without_tables_is_a_no_op():
    op = fr.tables_initializer()
    assert op.type == "NoOp" and op.name == "init_all_tables"
    assert fr.initialize_all_tables is fr.tables_initializer
    _run(op, init=False)


def test_index_tables_from_tensor():
    # TF 2.21's values.
    vocab = [b"a", b"b"]
    keys = fr.constant([b"a", b"zz", b"qq", b"b"])
    fast = contrib_lookup.index_table_from_tensor(vocab, num_oov_buckets=3)
    strong = contrib_lookup.index_table_from_tensor(
        vocab, num_oov_buckets=3, hasher_spec=contrib_lookup.StrongHashSpec([1, 2])
    )
    plain = contrib_lookup.index_table_from_tensor(vocab, default_value=-5)
    back = contrib_lookup.index_to_string_table_from_tensor(vocab)
    got = _run(
        fast.lookup(keys),
        strong.lookup(keys),
        plain.lookup(fr.constant([b"a", b"zz"])),
        back.lookup(fr.constant([1, 5, 0], fr.int64)),
        fast.size(),
    )
    assert got[0].tolist() == [0, 3, 2, 1]
    assert got[1].tolist() == [0, 3, 4, 1]
    assert got[2].tolist() == [0, -5]
    assert got[3].tolist() == [b"b", b"UNK", b"a"]
    assert got[4] == 5
    assert got[0].dtype == np.int64


def test_static_vocabulary_table_hashes_oov_keys():
    init = fr.lookup.KeyValueTensorInitializer([b"a", b"b"], fr.constant([0, 1], fr.int64))
    t = fr.lookup.StaticVocabularyTable(init, 3)
    got, size = _run(t.lookup(fr.constant([b"a", b"zz", b"qq", b"b"])), t.size())
    assert got.tolist() == [0, 3, 2, 1] and size == 5


@pytest.fixture
def vocab_file(tmp_path):
    p = tmp_path / "v.txt"
    p.write_text("a\t9\nb\t8\nc\t7\n")
    return str(p)


def test_tables_from_a_text_file(vocab_file):
    # TF 2.21's values.
    TFI = fr.lookup.TextFileIndex
    by_line = contrib_lookup.index_table_from_file(vocab_file, num_oov_buckets=1)
    first_two = contrib_lookup.index_table_from_file(vocab_file, vocab_size=2)
    columns = fr.lookup.StaticHashTable(
        fr.lookup.TextFileInitializer(vocab_file, fr.string, 0, fr.int64, 1, delimiter="\t"), -1
    )
    lines = fr.lookup.StaticHashTable(
        fr.lookup.TextFileInitializer(
            vocab_file, fr.int64, TFI.LINE_NUMBER, fr.string, TFI.WHOLE_LINE
        ),
        "",
    )
    back = contrib_lookup.index_to_string_table_from_file(vocab_file, default_value="UNK")
    got = _run(
        by_line.lookup(fr.constant([b"c", b"a\t9", b"q"])),
        first_two.lookup(fr.constant([b"a\t9", b"c\t7"])),
        columns.lookup(fr.constant([b"b", b"x"])),
        lines.lookup(fr.constant([0, 2, 3], fr.int64)),
        back.lookup(fr.constant([0, 7], fr.int64)),
    )
    assert got[0].tolist() == [3, 0, 3]
    assert got[1].tolist() == [0, -1]
    assert got[2].tolist() == [8, -1]
    assert got[3].tolist() == [b"a\t9", b"c\t7", b""]
    assert got[4].tolist() == [b"a\t9", b"UNK"]


def test_text_file_errors(vocab_file, tmp_path):
    contrib_lookup.index_table_from_file(vocab_file, vocab_size=5)
    with pytest.raises(fr.errors.InvalidArgumentError, match="expected 5 but got 3"):
        _run()
    with pytest.raises(ValueError, match="vocabulary_file must be specified"):
        contrib_lookup.index_table_from_file("")
    with pytest.raises(ValueError, match="Signature mismatch"):
        fr.lookup.TextFileInitializer(vocab_file, fr.string, -1, fr.int64, -2)


def test_concurrent_lookups_share_one_initialized_table():
    t = fr.lookup.StaticHashTable(_kv(), -1)
    found = t.lookup(fr.constant([b"a", b"b"]))
    with fr.Session() as s:
        s.run(fr.tables_initializer())
        out = []
        threads = [threading.Thread(target=lambda: out.append(s.run(found))) for _ in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=30)
        assert not any(th.is_alive() for th in threads)
    assert [o.tolist() for o in out] == [[1, 2]] * 4


def test_monitored_session_initializes_tables_in_its_local_init_op():
    t = contrib_lookup.index_table_from_tensor(["a", "b"], num_oov_buckets=1)
    keys = fr.placeholder(fr.string, [None])
    ids = t.lookup(keys)
    with fr.train.MonitoredSession() as s:
        assert s.run(ids, {keys: ["b", "q", "a"]}).tolist() == [1, 2, 0]
