"""TensorBoard's profile view of a traced run: the graph tab colours each node by its
compute time from the ``RunMetadata`` of a traced step. Checked three ways: every field
TensorBoard's front end reads is there (a port of its reader), the structure matches
what TF 2.21 writes (skipped without TensorFlow), and the graph tab itself, rendered in
headless Chromium (skipped without the browser)."""

import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import flowrt as fr
from flowrt.graph_export import graph_def_proto
from flowrt.summary.run_metadata import run_metadata_proto

FULL = fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE)


def _model():
    """A step with what trips TensorBoard's reader: scalar outputs, a resource variable's
    handle, a queue handle and a dequeue."""
    x = fr.placeholder(fr.float32, [None, 3], name="x")
    v = fr.get_variable("v", shape=[], initializer=fr.zeros_initializer())
    q = fr.FIFOQueue(4, [fr.float32], shapes=[[3]], name="q")
    enqueue = q.enqueue([fr.ones([3])], name="enqueue")
    relu = fr.nn.relu(fr.matmul(x * 2.0 + q.dequeue(name="dequeue"), fr.ones([3, 8])), name="relu")
    total = fr.add(fr.reduce_sum(relu, name="sum"), v, name="total")
    return x, enqueue, total


def _traced_steps(sess, n=2):
    """Runs ``n`` traced steps of ``_model`` in ``sess``; returns their RunMetadata."""
    x, enqueue, total = _model()
    sess.run(fr.global_variables_initializer())
    metas = []
    for _ in range(n):
        sess.run(enqueue)
        md = fr.RunMetadata()
        sess.run(total, {x: np.ones((4, 3), np.float32)}, options=FULL, run_metadata=md)
        metas.append(run_metadata_proto(md))
    return metas


def tensorboard_node_stats(meta, graph_def) -> dict:
    """TensorBoard's graph tab reading a step's stats (``joinStatsInfoWithGraph`` in its
    tf-graph-common, ported field by field): for each graph node, its device, output
    sizes, bytes allocated and [start, end] in microseconds. Raises where the browser
    code raises (an output without a ``shape``: "Cannot read properties of undefined
    (reading 'dim')") and on what it would silently take for garbage."""
    nodes = {n.name for n in graph_def.node}
    got: dict = {}
    for dev in meta.step_stats.dev_stats:
        assert dev.device, "a dev_stats without a device"
        for ns in dev.node_stats:
            name = ns.node_name
            if name not in nodes:
                continue  # TensorBoard ignores nodes not in the graph
            total = 0
            for m in ns.memory:
                assert m.total_bytes >= 0, "%s: negative memory allocation" % name
                total += m.total_bytes
            sizes = []
            for out in ns.output:
                if not out.HasField("tensor_description"):
                    raise TypeError("%s: output without tensor_description" % name)
                if not out.tensor_description.HasField("shape"):
                    raise TypeError(
                        "%s: Cannot read properties of undefined (reading 'dim')" % name
                    )
                sizes.append([d.size for d in out.tensor_description.shape.dim])
            stats = got.setdefault(
                name, {"device": dev.device, "outputs": sizes, "bytes": 0, "time": None}
            )
            stats["bytes"] = max(stats["bytes"], total)
            if ns.all_end_rel_micros:
                assert ns.all_end_rel_micros > 0, "%s: negative runtime" % name
                assert ns.all_start_micros > 10**15, "%s: start not in epoch micros" % name
                end = ns.all_start_micros + ns.all_end_rel_micros
                t = stats["time"]
                stats["time"] = (
                    (ns.all_start_micros, end)
                    if t is None
                    else (min(t[0], ns.all_start_micros), max(t[1], end))
                )
    return got


def test_every_output_has_a_shape_and_a_dtype_as_tensorboard_reads_them():
    with fr.Session() as sess:
        (meta,) = _traced_steps(sess, 1)
    graph_def = graph_def_proto(fr.get_default_graph())
    by_name = {n.node_name: n for d in meta.step_stats.dev_stats for n in d.node_stats}
    for n in by_name.values():
        for out in n.output:
            desc = out.tensor_description
            assert desc.HasField("shape"), n.node_name  # ``shape {}`` for a scalar
            assert desc.dtype != 0, n.node_name  # DT_INVALID
    assert list(by_name["sum"].output[0].tensor_description.shape.dim) == []
    assert [d.size for d in by_name["relu"].output[0].tensor_description.shape.dim] == [4, 8]
    resource = fr.resource.as_datatype_enum
    assert by_name["v"].output[0].tensor_description.dtype == resource  # VarHandleOp
    assert by_name["q"].output[0].tensor_description.dtype == resource  # FIFOQueueV2
    assert by_name["relu"].memory[0].total_bytes == 4 * 8 * 4
    stats = tensorboard_node_stats(meta, graph_def)
    assert {"v", "q", "dequeue", "relu", "sum", "total"} <= set(stats)
    assert stats["sum"]["outputs"] == [[]] and stats["relu"]["outputs"] == [[4, 8]]


def test_step_stats_records_carry_tensor_shape_protos():
    with fr.Session() as sess:
        x, enqueue, total = _model()
        sess.run(fr.global_variables_initializer())
        sess.run(enqueue)
        md = fr.RunMetadata()
        sess.run(total, {x: np.ones((4, 3), np.float32)}, options=FULL, run_metadata=md)
    by_name = {n.node_name: n for n in md.step_stats.dev_stats[0].node_stats if not n.wait_for}
    desc = by_name["relu"].output[0].tensor_description
    assert [d.size for d in desc.shape.dim] == [4, 8] and desc.dtype == fr.float32
    assert list(by_name["total"].output[0].tensor_description.shape.dim) == []
    assert by_name["v"].output[0].tensor_description.dtype == fr.resource


def test_run_metadata_structure_matches_tensorflows():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        v = tf.get_variable("v", shape=[], initializer=tf.zeros_initializer(), use_resource=True)
        q = tf.FIFOQueue(4, [tf.float32], shapes=[[3]], name="q")
        enqueue = q.enqueue([tf.ones([3])], name="enqueue")
        deq = q.dequeue(name="dequeue")
        relu = tf.nn.relu(tf.matmul(x * 2.0 + deq, tf.ones([3, 8])), name="relu")
        total = tf.add(tf.reduce_sum(relu, name="sum"), v, name="total")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(enqueue)
            theirs = tf.RunMetadata()
            sess.run(
                total,
                {x: np.ones((4, 3), np.float32)},
                options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                run_metadata=theirs,
            )
    with fr.Graph().as_default(), fr.Session() as sess:
        (ours,) = _traced_steps(sess, 1)

    def outputs(meta):
        """node -> [(dtype, dims, shape present)] per output, for the nodes of the model."""
        got = {}
        for d in meta.step_stats.dev_stats:
            for n in d.node_stats:
                if n.node_name in {"v", "q", "dequeue", "relu", "sum", "total"} and n.output:
                    got[n.node_name] = [
                        (
                            o.tensor_description.dtype,
                            [s.size for s in o.tensor_description.shape.dim],
                            o.tensor_description.HasField("shape"),
                        )
                        for o in n.output
                    ]
        return got

    mine, tfs = outputs(ours), outputs(theirs)
    assert set(tfs) <= set(mine)
    for name, outs in tfs.items():
        assert mine[name] == outs, name
    # The fields TensorBoard reads are set on the ops that ran, as TF sets them.
    for meta in (ours, theirs):
        by_name = {n.node_name: n for d in meta.step_stats.dev_stats for n in d.node_stats}
        matmul = by_name["MatMul"]
        assert matmul.all_start_micros > 10**15
        assert matmul.all_end_rel_micros >= matmul.op_end_rel_micros >= 0
        assert [m.total_bytes for m in matmul.memory] == [4 * 8 * 4]


# --------------------------------------------------------------------------------------
# The graph tab in a real browser
# --------------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

# TensorBoard without TensorFlow's import (seconds): its own stub, as its readers use.
_TENSORBOARD = (
    "import sys, types; "
    "sys.modules['tensorboard.compat.notf'] = types.ModuleType('tensorboard.compat.notf'); "
    "from tensorboard.main import run_main; "
    "sys.argv = ['tensorboard', '--logdir', sys.argv[1], '--host', '127.0.0.1', "
    "'--port', '0', '--load_fast', 'false']; "
    "run_main()"
)

# Finds an element by CSS selector through the open shadow roots of TensorBoard's
# Polymer components.
_FIND = """
function find(root, sel) {
  const hit = root.querySelector(sel);
  if (hit) return hit;
  for (const el of root.querySelectorAll('*')) {
    if (el.shadowRoot) { const f = find(el.shadowRoot, sel); if (f) return f; }
  }
  return null;
}
return find(document, arguments[0]);
"""


def _poll(fn, what, seconds=60.0):
    """``fn()`` once it is truthy; fails naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        got = fn()
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting for %s" % what)
        time.sleep(0.2)


@pytest.fixture
def tensorboard(tmp_path):
    """A TensorBoard on a free localhost port over a logdir with a graph and two traced
    steps (``step1``, ``step2``) of ``_model``; yields (url, {tag: RunMetadata})."""
    pytest.importorskip("tensorboard")
    logdir = tmp_path / "logs"
    with fr.Session() as sess:
        metas = _traced_steps(sess)
        with fr.summary.FileWriter(logdir, sess.graph) as writer:
            for step, meta in enumerate(metas, 1):
                writer.add_run_metadata(meta, "step%d" % step, step)
    log = open(tmp_path / "tensorboard.log", "w+")
    proc = subprocess.Popen(
        [sys.executable, "-c", _TENSORBOARD, str(logdir)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:

        def url():
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail("TensorBoard exited: %s" % log.read()[-2000:])
            log.seek(0)
            m = re.search(r"TensorBoard \S+ at (http://127\.0\.0\.1:\d+/)", log.read())
            return m and m.group(1)

        yield _poll(url, "TensorBoard to serve"), {"step%d" % i: m for i, m in enumerate(metas, 1)}
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


@pytest.fixture
def browser():
    """Headless Chromium driven by Selenium through Debian's chromedriver."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(
            "no chromium/chromedriver on PATH (Debian: apt-get install chromium chromium-driver)"
        )
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def test_graph_tab_colours_nodes_by_compute_time(tensorboard, browser):
    url, metas = tensorboard
    d = browser
    d.get(url + "#graphs")
    controls = _poll(
        lambda: (
            (c := d.execute_script(_FIND, "tf-graph-controls"))
            and d.execute_script("return arguments[0].datasets.length", c)
            and c
        ),
        "the graph tab's controls to list the run",
    )

    def shadow_all(host, sel):
        return d.execute_script(
            "return Array.from(arguments[0].shadowRoot.querySelectorAll(arguments[1]))",
            host,
            sel,
        )

    # Pick the traced step in the "Tag" dropdown, then colour by compute time, as a
    # user clicks them.
    def pick_step2():
        (step2,) = [e for e in shadow_all(controls, "paper-item") if e.text.strip() == "step2"]
        d.execute_script("arguments[0].click()", step2)
        return d.execute_script("return arguments[0]._selectedGraphType", controls) == "profile"

    _poll(pick_step2, "the graph tab to switch to step2's profile")

    def colour_by_compute_time():
        # The radio buttons are enabled once the step's stats are in: click until taken.
        (compute,) = [
            e
            for e in shadow_all(controls, "paper-radio-button")
            if d.execute_script("return arguments[0].innerText.trim()", e) == "Compute time"
        ]
        d.execute_script("arguments[0].click()", compute)
        return d.execute_script("return arguments[0].colorBy", controls) == "compute_time"

    _poll(colour_by_compute_time, "the graph tab to colour by compute time")
    legend = _poll(
        lambda: [
            d.execute_script("return arguments[0].textContent.trim()", e)
            for e in shadow_all(controls, ".domainStart, .domainEnd")
        ],
        "the compute-time legend",
    )
    errors = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    assert len(legend) == 2 and all(re.fullmatch(r"\d+(\.\d+)? [µm]?s", t) for t in legend), legend

    # Each node that ran for a measurable time is filled from the compute-time scale;
    # TensorBoard's grey (#eee) is for nodes without stats.
    timed = {
        n.node_name
        for dev in metas["step2"].step_stats.dev_stats
        for n in dev.node_stats
        if n.all_end_rel_micros > 0
    }
    scene = d.execute_script(_FIND, "tf-graph-scene")

    def fills():
        return d.execute_script(
            "return Object.fromEntries(Array.from("
            "arguments[0].shadowRoot.querySelectorAll('g.node')).map(g => "
            "[g.getAttribute('data-name'), "
            "(g.querySelector('.nodeshape > *') || g).style.fill]))",
            scene,
        )

    got = _poll(lambda: (f := fills()) and timed & set(f) and f, "the graph's nodes")
    grey = "rgb(238, 238, 238)"
    shown = timed & set(got)
    assert shown and all(got[name] not in ("", grey) for name in shown), got
    assert all("NaN" not in got[name] for name in got), got
