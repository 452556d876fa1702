"""Readers on cluster tasks: a read op and its filename queue run on the reader's task."""

import pytest

import flowrt as fr


def test_a_reader_on_a_ps_task_reads_its_files_through_a_worker_session(make_cluster, tmp_path):
    paths = []
    for i in range(2):
        path = tmp_path / ("part%d.csv" % i)
        path.write_text("".join("%d,%d\n" % (i, j) for j in range(3)))
        paths.append(str(path))
    cluster = make_cluster(ps=1, worker=1)
    fr.train.Server(cluster, "ps", 0)
    worker = fr.train.Server(cluster, "worker", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            files = fr.FIFOQueue(4, [fr.string], shapes=[[]])
            reader = fr.TextLineReader()
        fill = files.enqueue_many([paths])
        close = files.close()
        _, lines = reader.read_up_to(files, 2)
        a, b = fr.decode_csv(lines, [[0], [0]])  # in the worker's client, after the read
        pairs = fr.stack([a, b], axis=1)
        with fr.Session(worker.target) as sess:
            sess.run([fill, close])
            got = []
            try:
                while True:
                    got.extend(map(tuple, sess.run(pairs).tolist()))
            except fr.errors.OutOfRangeError:
                pass
    assert got == [(i, j) for i in range(2) for j in range(3)]


def test_a_reader_takes_its_queue_handle_as_an_input_as_in_tf():
    files = fr.FIFOQueue(4, [fr.string], shapes=[[]])
    reader = fr.TextLineReader()
    key, _ = reader.read(files)
    _, values = reader.read_up_to(files.queue_ref, 3)
    assert [t.op.type for t in key.op.inputs] == ["TextLineReaderV2", "FIFOQueueV2"]
    assert [t.op.type for t in values.op.inputs[:2]] == ["TextLineReaderV2", "FIFOQueueV2"]
    assert "dequeue" not in key.op.attrs
    ints = fr.FIFOQueue(4, [fr.int32], shapes=[[]])
    with pytest.raises(TypeError, match=r"must hold scalar strings \(file names\), got int32"):
        reader.read(ints)
    with pytest.raises(TypeError, match="must hold scalar strings"):
        reader.read(ints.queue_ref)
    with pytest.raises(TypeError, match="must be a queue object"):
        reader.read("files.txt")
