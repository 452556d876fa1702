"""fr.nn: values against numpy, TF1 names and errors, samplers, sampled losses."""

import numpy as np
import pytest

import flowrt as fr

_r = np.random.default_rng(11)
A = _r.standard_normal((3, 5)).astype(np.float32)
LAB = _r.uniform(0, 1, (3, 5)).astype(np.float32)
LAB /= LAB.sum(axis=1, keepdims=True)


def run(*ts, feed=None):
    with fr.Session() as sess:
        out = sess.run(list(ts), feed)
    return out[0] if len(out) == 1 else out


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize(
    "fn,ref",
    [
        (fr.nn.relu, lambda x: np.maximum(x, 0)),
        (lambda x: fr.nn.relu6(x * 4.0), lambda x: np.clip(x * 4, 0, 6)),
        (lambda x: fr.nn.leaky_relu(x, alpha=0.3), lambda x: np.where(x > 0, x, 0.3 * x)),
        (fr.nn.elu, lambda x: np.where(x < 0, np.expm1(x), x)),
        (fr.nn.softplus, lambda x: np.log1p(np.exp(x))),
        (fr.nn.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
        (fr.nn.tanh, np.tanh),
        (fr.nn.softmax, np_softmax),
        (lambda x: fr.nn.softmax(x, axis=0), lambda x: np_softmax(x, 0)),
        (fr.nn.log_softmax, lambda x: np.log(np_softmax(x))),
        (lambda x: fr.nn.log_softmax(x, axis=0), lambda x: np.log(np_softmax(x, 0))),
        (fr.nn.l2_loss, lambda x: np.sum(x * x) / 2),
    ],
    ids=[
        "relu",
        "relu6",
        "leaky_relu",
        "elu",
        "softplus",
        "sigmoid",
        "tanh",
        "softmax",
        "softmax0",
        "log_softmax",
        "log_softmax0",
        "l2_loss",
    ],
)
def test_forward_values(fn, ref):
    y = fn(fr.constant(A))
    out = run(y)
    assert out.dtype == np.float32
    assert y.shape == np.shape(out)
    np.testing.assert_allclose(out, ref(A), rtol=1e-5, atol=1e-6)


def test_default_op_names_and_types():
    x = fr.constant(A)
    assert fr.nn.relu(x).name == "Relu:0"
    assert fr.nn.relu(x, name="act").name == "act:0"
    assert fr.nn.softmax(x).op.type == "Softmax"
    assert fr.nn.bias_add(x, np.zeros(5, np.float32)).name == "BiasAdd:0"
    assert fr.nn.l2_loss(x).op.type == "L2Loss"
    t = fr.nn.softmax_cross_entropy_with_logits_v2(labels=LAB, logits=x)
    assert t.name == "softmax_cross_entropy_with_logits:0"
    assert t.op.type == "SoftmaxCrossEntropyWithLogits"
    t = fr.nn.softmax_cross_entropy_with_logits_v2(labels=LAB, logits=x)
    assert t.name == "softmax_cross_entropy_with_logits_1:0"
    t = fr.nn.softmax_cross_entropy_with_logits(labels=LAB, logits=x)
    assert t.name == "softmax_cross_entropy_with_logits_sg:0"
    assert t.op.inputs[1].op.name == "softmax_cross_entropy_with_logits_sg/labels_stop_gradient"
    t = fr.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2], logits=x)
    assert t.name == ("SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0")
    assert fr.nn.sigmoid_cross_entropy_with_logits(labels=LAB, logits=x).name == "logistic_loss:0"
    e = fr.nn.embedding_lookup(fr.constant(A), [0, 2])
    assert e.name == "embedding_lookup/Identity:0"
    assert e.op.inputs[0].op.name == "embedding_lookup"


def test_bias_add_formats_and_errors():
    img = _r.standard_normal((2, 3, 4, 4)).astype(np.float32)
    b = np.array([1.0, 2.0, 3.0], np.float32)
    nchw = run(fr.nn.bias_add(img, b, data_format="NCHW"))
    np.testing.assert_allclose(nchw, img + b.reshape(3, 1, 1))
    nhwc = run(fr.nn.bias_add(img.transpose(0, 2, 3, 1), b))
    np.testing.assert_allclose(nhwc, img.transpose(0, 2, 3, 1) + b)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 3"):
        fr.nn.bias_add(fr.constant(A), b)
    with pytest.raises(ValueError, match="must be rank 1"):
        fr.nn.bias_add(fr.constant(A), np.zeros((1, 5), np.float32))
    p = fr.placeholder(fr.float32, [None, None])
    with pytest.raises(fr.errors.InvalidArgumentError, match="Must provide as many biases"):
        run(fr.nn.bias_add(p, b), feed={p: A})


def test_softmax_cross_entropy_v2_values_and_label_gradient():
    x, lab = fr.constant(A), fr.constant(LAB)
    loss = fr.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x)
    gx, glab = fr.gradients(loss, [x, lab])
    v1 = fr.nn.softmax_cross_entropy_with_logits(labels=lab, logits=x)
    assert fr.gradients(v1, lab) == [None]
    out, gxv, glv, v1v = run(loss, gx, glab, v1)
    ref = -(LAB * np.log(np_softmax(A))).sum(axis=1)
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    np.testing.assert_allclose(v1v, ref, rtol=1e-5)
    np.testing.assert_allclose(gxv, np_softmax(A) - LAB, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(glv, -np.log(np_softmax(A)), rtol=1e-5)
    # other axis; large logits stay finite
    big = fr.nn.softmax_cross_entropy_with_logits_v2(labels=LAB.T, logits=A.T * 1e4, axis=0)
    assert np.all(np.isfinite(run(big)))


def test_xent_requires_named_arguments():
    with pytest.raises(
        ValueError, match="Only call `softmax_cross_entropy_with_logits` with named arguments"
    ):
        fr.nn.softmax_cross_entropy_with_logits(LAB, A)
    with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided"):
        fr.nn.sigmoid_cross_entropy_with_logits(labels=LAB)


def test_sparse_softmax_cross_entropy():
    for dt in (np.int32, np.int64):
        labels = np.array([4, 0, 2], dt)
        out = run(fr.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=A))
        np.testing.assert_allclose(out, -np.log(np_softmax(A))[[0, 1, 2], labels], rtol=1e-5)
    p = fr.placeholder(fr.int32, [3])
    loss = fr.nn.sparse_softmax_cross_entropy_with_logits(labels=p, logits=A)
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match=r"Received a label value of 5 which is outside the valid range "
        r"of \[0, 5\)",
    ):
        run(loss, feed={p: [0, 5, 1]})
    with pytest.raises(ValueError, match="`labels.shape.rank` must equal"):
        fr.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0]], logits=A)
    with pytest.raises(TypeError):
        fr.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 1.0, 2.0], logits=A)


def test_sigmoid_cross_entropy_is_stable():
    x = np.array([-1000.0, -20.0, -1.0, 0.0, 2.0, 1000.0], np.float32)
    z = np.array([0.0, 1.0, 0.5, 1.0, 0.0, 1.0], np.float32)
    xt, zt = fr.constant(x), fr.constant(z)
    loss = fr.nn.sigmoid_cross_entropy_with_logits(labels=zt, logits=xt)
    gx, gz = fr.gradients(loss, [xt, zt])
    out, gxv, gzv = run(loss, gx, gz)
    xd, zd = x.astype(np.float64), z.astype(np.float64)
    ref = np.maximum(xd, 0) - xd * zd + np.log1p(np.exp(-np.abs(xd)))
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    sig = np.where(xd >= 0, 1 / (1 + np.exp(-np.abs(xd))), 1 - 1 / (1 + np.exp(-np.abs(xd))))
    np.testing.assert_allclose(gxv, sig - zd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gzv, -xd)
    with pytest.raises(ValueError, match="`logits` and `labels` must have the same shape"):
        fr.nn.sigmoid_cross_entropy_with_logits(labels=z[:3], logits=x)


def test_weighted_cross_entropy():
    out = run(fr.nn.weighted_cross_entropy_with_logits(labels=LAB, logits=A, pos_weight=2.0))
    a, z = A.astype(np.float64), LAB.astype(np.float64)
    ref = z * -np.log(1 / (1 + np.exp(-a))) * 2.0 + (1 - z) * -np.log(1 - 1 / (1 + np.exp(-a)))
    np.testing.assert_allclose(out, ref, rtol=1e-5)


# --------------------------------------------------------------------------------------
# dropout
# --------------------------------------------------------------------------------------


def test_dropout_keeps_and_scales():
    x = np.ones((200, 50), np.float32)
    y = fr.nn.dropout(x, keep_prob=0.25)
    assert y.shape == (200, 50)
    out = run(y)
    assert set(np.unique(out)) <= {0.0, 4.0}
    assert 0.2 < (out > 0).mean() < 0.3
    y2 = fr.nn.dropout(x, rate=0.5, noise_shape=[200, 1])
    out2 = run(y2)
    assert np.all((out2 == out2[:, :1]))


def test_dropout_arguments():
    x = fr.constant(A)
    with pytest.raises(ValueError, match="Cannot specify both 'rate' and 'keep_prob'"):
        fr.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError, match="`rate` must be provided"):
        fr.nn.dropout(x)
    with pytest.raises(ValueError, match=r"in the range \[0, 1\)"):
        fr.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="must be a floating point tensor"):
        fr.nn.dropout(fr.constant([1, 2]), rate=0.5)
    np.testing.assert_array_equal(run(fr.nn.dropout(x, keep_prob=1.0)), A)
    rate = fr.placeholder(fr.float32, [])
    out = run(fr.nn.dropout(x, rate=rate), feed={rate: 0.0})
    np.testing.assert_allclose(out, A)


def test_dropout_seeded_is_reproducible_across_sessions():
    fr.set_random_seed(5)
    y = fr.nn.dropout(np.ones((10, 10), np.float32), rate=0.5, seed=3)
    np.testing.assert_array_equal(run(y), run(y))


# --------------------------------------------------------------------------------------
# embedding_lookup
# --------------------------------------------------------------------------------------

P = _r.standard_normal((10, 4)).astype(np.float32)
IDS = np.array([[3, 0], [9, 3], [5, 7]])


def test_embedding_lookup_values_and_sparse_gradient():
    p = fr.constant(P)
    e = fr.nn.embedding_lookup(p, IDS)
    e1 = fr.nn.embedding_lookup([p], IDS)
    assert e.shape == (3, 2, 4)
    (g,) = fr.gradients(fr.reduce_sum(e * 2.0), [p])
    assert isinstance(g, fr.IndexedSlices)
    ev, e1v, gv = run(e, e1, g)
    np.testing.assert_array_equal(ev, P[IDS])
    np.testing.assert_array_equal(e1v, P[IDS])
    dense = np.zeros_like(P)
    np.add.at(dense, np.asarray(gv.indices), np.asarray(gv.values))
    expect = np.zeros_like(P)
    np.add.at(expect, IDS.reshape(-1), 2.0)
    np.testing.assert_allclose(dense, expect)


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_embedding_lookup_sharded(strategy):
    n = 3
    if strategy == "mod":
        shards = [P[i::n] for i in range(n)]
    else:
        shards = [P[0:4], P[4:7], P[7:10]]
    e = fr.nn.embedding_lookup([fr.constant(s) for s in shards], IDS, partition_strategy=strategy)
    np.testing.assert_array_equal(run(e), P[IDS])


def test_embedding_lookup_max_norm():
    e = fr.nn.embedding_lookup(fr.constant(P), [1, 2], max_norm=0.5)
    out = run(e)
    norms = np.linalg.norm(P[[1, 2]], axis=1, keepdims=True)
    np.testing.assert_allclose(out, P[[1, 2]] * np.minimum(1.0, 0.5 / norms), rtol=1e-5)
    with pytest.raises(ValueError, match="Need at least one param"):
        fr.nn.embedding_lookup([], [0])


def test_embedding_lookup_on_variable_trains_rows():
    v = fr.Variable(P, name="emb")
    loss = fr.reduce_sum(fr.nn.embedding_lookup(v, [2, 2, 4]))
    train = fr.train.GradientDescentOptimizer(0.5).minimize(loss)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run(train)
        out = sess.run(v)
    expect = P.copy()
    expect[2] -= 1.0
    expect[4] -= 0.5
    np.testing.assert_allclose(out, expect, rtol=1e-6)


# --------------------------------------------------------------------------------------
# candidate samplers and sampled losses
# --------------------------------------------------------------------------------------

TRUE = np.array([[1], [7], [0], [3]], np.int64)


@pytest.mark.parametrize("sampler", ["log_uniform_candidate_sampler", "uniform_candidate_sampler"])
def test_sampler_outputs(sampler):
    s = getattr(fr.nn, sampler)(TRUE, 1, 20, True, 50, seed=4)
    assert (
        s.sampled_candidates.op.type
        == {
            "log_uniform_candidate_sampler": "LogUniformCandidateSampler",
            "uniform_candidate_sampler": "UniformCandidateSampler",
        }[sampler]
    )
    assert s.sampled_candidates.dtype == fr.int64 and s.sampled_candidates.shape == (20,)
    assert s.true_expected_count.dtype == fr.float32
    assert s.true_expected_count.shape == (4, 1)
    with fr.Session() as sess:
        a = sess.run(s)
        b = sess.run(s)
    with fr.Session() as sess:
        a2 = sess.run(s)
    ids = a.sampled_candidates if hasattr(a, "sampled_candidates") else a[0]
    assert len(set(ids.tolist())) == 20 and ids.min() >= 0 and ids.max() < 50
    np.testing.assert_array_equal(a[0], a2[0])  # seeded: same stream per session
    assert not np.array_equal(a[0], b[0])
    assert np.all((a[1] > 0) & (a[1] <= 1)) and np.all((a[2] > 0) & (a[2] <= 1))


def test_log_uniform_expected_counts_without_unique():
    s = fr.nn.log_uniform_candidate_sampler(TRUE, 1, 10, False, 50, seed=1)
    ids, te, se = run(*s)
    p = lambda k: np.log((k + 2.0) / (k + 1.0)) / np.log(51.0)
    np.testing.assert_allclose(te[:, 0], p(TRUE[:, 0]) * 10, rtol=1e-6)
    np.testing.assert_allclose(se, p(ids) * 10, rtol=1e-6)


def test_unique_sampling_keeps_first_appearances_and_counts_every_try():
    # TF's unique sampler draws one value at a time until num_sampled distinct ones came
    # up: the result is their order of first appearance, num_tries every draw made.
    from flowrt.ops.candidate_sampling_ops import _unique_draws

    stream = iter([3, 3, 1, 3, 2, 1, 4, 0, 0] + [5] * 200)
    calls = []

    def sample(rng, n):
        calls.append(n)
        return np.array([next(stream) for _ in range(n)], np.int64)

    ids, tries = _unique_draws(sample, None, 3)
    assert ids.tolist() == [3, 1, 2] and tries == 5 and ids.dtype == np.int64
    # Few distinct values: the stream is extended (doubled), never redrawn.
    stream = iter([7] * 40 + [8] + [9] * 500)
    calls.clear()
    ids, tries = _unique_draws(sample, None, 2)
    assert ids.tolist() == [7, 8] and tries == 41 and calls == [20, 20, 40]


def test_unique_expected_counts_follow_the_tries():
    # 1 - (1 - p) ** num_tries for every class, one num_tries per run (TF's rule).
    s = fr.nn.log_uniform_candidate_sampler(TRUE, 1, 20, True, 50, seed=3)
    ids, te, se = run(*s)
    p = lambda k: np.log((k + 2.0) / (k + 1.0)) / np.log(51.0)
    tries = np.log1p(-se.astype(np.float64)) / np.log1p(-p(ids))
    assert tries.min() >= 20 and np.ptp(tries) < 1e-3 * tries.max()
    n = np.round(tries.mean())
    np.testing.assert_allclose(te[:, 0], -np.expm1(n * np.log1p(-p(TRUE[:, 0]))), rtol=1e-5)


def test_sampler_range_too_small():
    s = fr.nn.uniform_candidate_sampler(TRUE, 1, 60, True, 50)
    with pytest.raises(fr.errors.InvalidArgumentError, match="range is too small"):
        run(s[0])


def test_compute_accidental_hits():
    idx, ids, w = run(
        *fr.nn.compute_accidental_hits(
            fr.constant([[1, 2], [3, 4]], fr.int64), fr.constant([2, 3, 9], fr.int64), 2
        )
    )
    np.testing.assert_array_equal(idx, [0, 1])
    np.testing.assert_array_equal(ids, [0, 1])
    assert idx.dtype == np.int32 and ids.dtype == np.int64
    np.testing.assert_array_equal(w, [-np.finfo(np.float32).max] * 2)


def _np_sampled_logits(x, w, b, labels, sampled, te, se, hits):
    true_logits = (x * w[labels[:, 0]]).sum(1, keepdims=True) + b[labels]
    sampled_logits = x @ w[sampled].T + b[sampled]
    if hits:
        sampled_logits = sampled_logits + np.where(
            labels == sampled[None, :], -np.finfo(np.float32).max, 0.0
        )
    return np.concatenate([true_logits - np.log(te), sampled_logits - np.log(se)], 1)


def test_nce_and_sampled_softmax_values():
    x = _r.standard_normal((4, 6))
    w = _r.standard_normal((10, 6))
    b = _r.standard_normal(10)
    labels = np.array([[1], [2], [3], [9]])
    sampled = np.array([2, 5, 8])
    te = np.full((4, 1), 0.4)
    se = np.array([0.1, 0.2, 0.3])
    sv = (fr.constant(sampled, fr.int64), fr.constant(te), fr.constant(se))
    nce = fr.nn.nce_loss(
        fr.constant(w), fr.constant(b), labels, fr.constant(x), 3, 10, sampled_values=sv
    )
    ssm = fr.nn.sampled_softmax_loss(
        fr.constant(w), fr.constant(b), labels, fr.constant(x), 3, 10, sampled_values=sv
    )
    assert nce.shape == (4,) and ssm.shape == (4,)
    nv, sv_ = run(nce, ssm)
    logits = _np_sampled_logits(x, w, b, labels, sampled, te, se, False)
    z = np.zeros_like(logits)
    z[:, 0] = 1
    ref = (np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))).sum(1)
    np.testing.assert_allclose(nv, ref, rtol=1e-6)
    logits = _np_sampled_logits(x, w, b, labels, sampled, te, se, True)
    ref = -np.log(np_softmax(logits)[:, 0])
    np.testing.assert_allclose(sv_, ref, rtol=1e-6)


def test_skipgram_nce_training_decreases_loss():
    vocab, dim = 40, 8
    fr.set_random_seed(1)
    emb = fr.Variable(np.random.default_rng(0).uniform(-1, 1, (vocab, dim)).astype(np.float32))
    nw = fr.Variable(np.zeros((vocab, dim), np.float32))
    nb = fr.Variable(np.zeros(vocab, np.float32))
    c = fr.placeholder(fr.int32, [16])
    ctx = fr.placeholder(fr.int64, [16, 1])
    loss = fr.reduce_mean(fr.nn.nce_loss(nw, nb, ctx, fr.nn.embedding_lookup(emb, c), 5, vocab))
    train = fr.train.GradientDescentOptimizer(0.5).minimize(loss)
    centers = (np.arange(16) * 3) % vocab
    feed = {c: centers, ctx: ((centers * 7 + 3) % vocab).reshape(16, 1)}
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        first = np.mean([sess.run(loss, feed) for _ in range(5)])
        for _ in range(200):
            sess.run(train, feed)
        last = np.mean([sess.run(loss, feed) for _ in range(5)])
    assert last < first * 0.5


def test_moments():
    mean, var = fr.nn.moments(fr.constant(A), axes=[0])
    assert mean.shape == (5,)
    m, v = run(mean, var)
    np.testing.assert_allclose(m, A.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, A.var(0), rtol=1e-5)


@pytest.mark.parametrize(
    "name", ["relu", "softmax", "log_softmax", "l2_loss", "xent", "sparse_xent", "sigmoid_xent"]
)
def test_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    ids = np.array([4, 0, 2])

    def build(m):
        x = m.constant(A * 3)
        return {
            "relu": lambda: m.nn.relu(x),
            "softmax": lambda: m.nn.softmax(x, axis=0),
            "log_softmax": lambda: m.nn.log_softmax(x),
            "l2_loss": lambda: m.nn.l2_loss(x),
            "xent": lambda: m.nn.softmax_cross_entropy_with_logits_v2(labels=LAB, logits=x),
            "sparse_xent": lambda: m.nn.sparse_softmax_cross_entropy_with_logits(
                labels=ids, logits=x
            ),
            "sigmoid_xent": lambda: m.nn.sigmoid_cross_entropy_with_logits(labels=LAB, logits=x),
        }[name]()

    with tf.Graph().as_default():
        y = build(tf)
        with tf.Session() as sess:
            ref = sess.run(y)
    with fr.Graph().as_default():
        out = run(build(fr))
    assert out.dtype == ref.dtype and out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_dropout_gradient_is_the_kept_mask_scaled():
    x = fr.constant(np.full((30, 20), 3.0, np.float32))
    y = fr.nn.dropout(x, rate=0.4, seed=2)
    (g,) = fr.gradients(y, [x])
    yv, gv = run(y, g)
    np.testing.assert_allclose(gv, yv / 3.0, rtol=1e-6)


def test_small_composites():
    w = _r.standard_normal((5, 2)).astype(np.float32)
    b = np.array([0.5, -0.5], np.float32)
    y = fr.nn.xw_plus_b(A, w, b)
    z = fr.nn.relu_layer(A, w, b)
    assert (y.name, y.op.type, z.name) == ("xw_plus_b:0", "BiasAdd", "relu_layer:0")
    yv, zv, fv, nv = run(y, z, fr.nn.zero_fraction(z), fr.nn.l2_normalize(A, axis=1))
    np.testing.assert_allclose(yv, A @ w + b, rtol=1e-5)
    np.testing.assert_allclose(zv, np.maximum(A @ w + b, 0), rtol=1e-5)
    np.testing.assert_allclose(fv, np.mean(zv == 0), rtol=1e-6)
    np.testing.assert_allclose(nv, A / np.linalg.norm(A, axis=1, keepdims=True), rtol=1e-5)


def test_sparse_softmax_cross_entropy_loss_and_gradient_match_a_float64_reference():
    rng = np.random.default_rng(3)
    logits = (rng.standard_normal((4, 6, 7)) * 30).astype(np.float32)  # large: needs the shift
    labels = rng.integers(0, 7, (4, 6)).astype(np.int64)
    lt = fr.constant(logits)
    loss = fr.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=lt)
    (g,) = fr.gradients(fr.reduce_sum(loss), [lt])
    out, gv = run(loss, g)
    x = logits.astype(np.float64)
    sm = np.exp(x - x.max(-1, keepdims=True))
    sm /= sm.sum(-1, keepdims=True)
    onehot = np.eye(7)[labels]
    ref = -np.log(np.take_along_axis(sm, labels[..., None], -1))[..., 0]
    assert out.dtype == np.float32 and out.shape == (4, 6) and gv.shape == (4, 6, 7)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gv, sm - onehot, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 65535, 65536, 65537, 200_003])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_relu_matches_maximum_across_zero_blocks(n, dtype):
    # Contiguous inputs meet a block of zeros, block by block: every block boundary,
    # NaN, infinities and signed zeros must come out as np.maximum(x, 0) gives them.
    x = (np.random.default_rng(n).standard_normal(n) * 10).astype(dtype)
    if dtype != np.int32 and n >= 7:
        x[:5] = [np.nan, -np.inf, np.inf, -0.0, 0.0]
    p = fr.placeholder(dtype)
    fused = fr.nn.relu(p * 2 + 1)  # a chain: Relu writes its result in place
    plain, chain = run(fr.nn.relu(p), fused, feed={p: x})
    np.testing.assert_array_equal(plain, np.maximum(x, dtype(0)))
    assert plain.dtype == dtype
    np.testing.assert_array_equal(chain, np.maximum(x * dtype(2) + dtype(1), dtype(0)))


def test_relu_of_a_transposed_view():
    x = np.random.default_rng(0).standard_normal((70, 50)).astype(np.float32)
    got = run(fr.nn.relu(fr.transpose(fr.constant(x))))
    np.testing.assert_array_equal(got, np.maximum(x.T, 0))
