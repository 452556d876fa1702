"""Optimizers: trajectories vs numpy references, slots, sparse row updates, global
step, concurrency, errors (and optionally vs TensorFlow)."""

import threading

import numpy as np
import pytest

import flowrt as fr

STEPS = 8
_r = np.random.default_rng(3)
X = _r.standard_normal((12, 3))
Y = X @ np.array([[2.0], [-1.0], [0.5]]) + 0.3
W0 = _r.standard_normal((3, 1)) * 0.1
B0 = np.array([0.05])


def _linreg(opt, steps=STEPS, dtype=fr.float64):
    w = fr.Variable(W0.astype(dtype.np), name="w")
    b = fr.Variable(B0.astype(dtype.np), name="b")
    loss = fr.reduce_mean(
        fr.square(fr.matmul(fr.constant(X.astype(dtype.np)), w) + b - Y.astype(dtype.np))
    )
    train = opt.minimize(loss)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
        return sess.run([w, b])


def _np_grads(w, b):
    r = X @ w + b - Y
    return 2.0 / len(X) * X.T @ r, 2.0 / len(X) * r.sum(axis=0)


def _np_train(update, state_init):
    params = [W0.copy(), B0.copy()]
    states = [state_init(p) for p in params]
    for t in range(1, STEPS + 1):
        grads = _np_grads(*params)
        for i, (p, g) in enumerate(zip(params, grads, strict=True)):
            params[i], states[i] = update(p, g, states[i], t)
    return params


def _sgd(p, g, s, t):
    return p - 0.1 * g, s


def _momentum(nesterov):
    def update(p, g, acc, t):
        acc = 0.9 * acc + g
        if nesterov:
            return p - (0.05 * g + 0.05 * 0.9 * acc), acc
        return p - 0.05 * acc, acc

    return update


def _f32(x):
    return float(np.float32(x))


def _adam(p, g, s, t):
    # Hyperparameters are float32 tensors and beta1_power/beta2_power float32 variables
    # (as in TF), cast to the variable's dtype.
    m, v = s
    lr, b1, b2, eps = _f32(0.05), _f32(0.9), _f32(0.999), _f32(1e-8)
    b1p, b2p = np.float32(0.9), np.float32(0.999)
    for _ in range(t - 1):
        b1p, b2p = b1p * np.float32(0.9), b2p * np.float32(0.999)
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    alpha = lr * np.sqrt(1 - float(b2p)) / (1 - float(b1p))
    return p - alpha * m / (np.sqrt(v) + eps), (m, v)


def _adagrad(p, g, acc, t):
    acc = acc + g * g
    return p - 0.3 * g / np.sqrt(acc), acc


def _rmsprop(momentum, centered):
    def update(p, g, s, t):
        ms, mom, mg = s
        ms = ms + (g * g - ms) * (1 - 0.9)
        if centered:
            mg = mg + (g - mg) * (1 - 0.9)
            denom = ms - mg * mg + 1e-10
        else:
            denom = ms + 1e-10
        mom = mom * momentum + 0.01 * g / np.sqrt(denom)
        return p - mom, (ms, mom, mg)

    return update


CASES = [
    ("sgd", lambda: fr.train.GradientDescentOptimizer(0.1), _sgd, lambda p: None),
    ("momentum", lambda: fr.train.MomentumOptimizer(0.05, 0.9), _momentum(False), np.zeros_like),
    (
        "nesterov",
        lambda: fr.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
        _momentum(True),
        np.zeros_like,
    ),
    (
        "adam",
        lambda: fr.train.AdamOptimizer(0.05),
        _adam,
        lambda p: (np.zeros_like(p), np.zeros_like(p)),
    ),
    ("adagrad", lambda: fr.train.AdagradOptimizer(0.3), _adagrad, lambda p: np.full_like(p, 0.1)),
    (
        "rmsprop",
        lambda: fr.train.RMSPropOptimizer(0.01),
        _rmsprop(0.0, False),
        lambda p: (np.ones_like(p), np.zeros_like(p), np.zeros_like(p)),
    ),
    (
        "rmsprop-momentum-centered",
        lambda: fr.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
        _rmsprop(0.5, True),
        lambda p: (np.ones_like(p), np.zeros_like(p), np.zeros_like(p)),
    ),
]


@pytest.mark.parametrize("name,make,update,init", CASES, ids=[c[0] for c in CASES])
def test_trajectory_matches_numpy_reference(name, make, update, init):
    w, b = _linreg(make())
    rw, rb = _np_train(update, init)
    np.testing.assert_allclose(w, rw, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b, rb, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("blocks", ["whole", "blocks", "threads"])
@pytest.mark.parametrize("name,make,update,init", CASES, ids=[c[0] for c in CASES])
def test_large_float32_variable_uses_the_same_rule(name, make, update, init, blocks, monkeypatch):
    # One rule run on whole arrays, on blocks, and on blocks shared between threads,
    # against the float64 reference.
    from flowrt._core import elementwise

    if blocks == "whole":
        monkeypatch.setattr(elementwise, "BLOCK", 1 << 40)
    else:
        monkeypatch.setattr(elementwise, "BLOCK", 3000)  # and a ragged last block
        monkeypatch.setattr(elementwise, "PARALLEL_MIN_SIZE", 0 if blocks == "threads" else 1 << 40)
    n = 200_000
    c = np.linspace(-1.0, 1.0, n)
    w = fr.Variable(np.full(n, 0.5, np.float32), name="w")
    loss = fr.reduce_sum(fr.square(w - fr.constant(c.astype(np.float32))))
    train = make().minimize(loss)
    p, s = np.full(n, 0.5), init(np.zeros(n))
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for t in range(1, 4):
            sess.run(train)
            p, s = update(p, 2 * (p - c), s, t)
        np.testing.assert_allclose(sess.run(w), p, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name,make,update,init", CASES, ids=[c[0] for c in CASES])
def test_in_place_rule_leaves_a_value_fetched_in_the_same_run_unchanged(
    name, make, update, init, monkeypatch
):
    # The update runs in place on blocks shared between threads, except where a read of
    # the old value escapes to the caller in the same run: then it must copy.
    from flowrt._core import elementwise

    monkeypatch.setattr(elementwise, "BLOCK", 3000)
    monkeypatch.setattr(elementwise, "PARALLEL_MIN_SIZE", 0)
    n = 50_000
    c = np.random.default_rng(7).standard_normal(n)
    w = fr.Variable(np.full(n, 0.5, np.float32), name="w")
    loss = fr.reduce_sum(fr.square(w - fr.constant(c.astype(np.float32))))
    seen = w.read_value()
    with fr.control_dependencies([seen]):
        train = make().minimize(loss)
    p, s = np.full(n, 0.5), init(np.zeros(n))
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for t in range(1, 4):
            before = sess.run(w).copy()
            old, _ = sess.run([seen, train])
            np.testing.assert_array_equal(old, before)
            p, s = update(p, 2 * (p - c), s, t)
            np.testing.assert_allclose(sess.run(w), p, rtol=2e-4, atol=2e-5)
        np.testing.assert_array_equal(old, before)  # still, after later updates


@pytest.mark.parametrize(
    "op_type", ["GradientDescent", "Momentum", "Adam", "Adagrad", "RMSProp", "CenteredRMSProp"]
)
@pytest.mark.parametrize("size", [2560, 784 * 256])
def test_dense_rules_allocate_no_temporaries(op_type, size):
    # A dense rule is one compiled pass over the arrays themselves: after a first call
    # (which compiles it), a call allocates no array (a temporary would be >= 10 KB
    # here), on one thread or, for the large size, on blocks shared with helpers.
    import tracemalloc

    from flowrt.train import apply_ops

    rule = {t: r for t, _, _, r in apply_ops._APPLY}["ResourceApply" + op_type]
    nh = {t: k for t, _, k, _ in apply_ops._APPLY}["ResourceApply" + op_type]
    r = np.random.default_rng(0)
    arrs = [r.uniform(1, 2, size).astype(np.float32) for _ in range(nh + 1)]
    arrs[0] = r.standard_normal(size).astype(np.float32)  # the gradient
    if op_type == "CenteredRMSProp":
        arrs[2] *= 0.1  # mg: keeps ms - mg^2 positive
    s = {
        k: np.float32(v)
        for k, v in dict(
            alpha=0.1,
            lr=0.1,
            momentum=0.9,
            beta1=0.9,
            beta2=0.999,
            epsilon=1e-7,
            beta1_power=0.9,
            beta2_power=0.999,
            rho=0.9,
        ).items()
    }
    s["use_nesterov"] = True
    ref = [a.astype(np.float64) for a in arrs]

    def call():
        rule(arrs[1:], s, arrs[0])

    call()
    # tracemalloc sees every thread: a stray thread of an earlier test allocating in
    # the window is not this rule's temporary, so the least of three peaks counts.
    peaks = []
    for _ in range(3):
        tracemalloc.start()
        try:
            call()
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert min(peaks) < 10_000
    # The same rule on float64 arrays (the reference), as often.
    for _ in range(4):
        rule(ref[1:], s, ref[0])
    for got, want in zip(arrs[1:], ref[1:], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_adam_slots_and_non_slot_variables():
    with fr.variable_scope("layer"):
        w = fr.get_variable("w", [2, 3], initializer=fr.ones_initializer())
    v = fr.Variable([1.0, 2.0], name="v")
    opt = fr.train.AdamOptimizer()
    train = opt.minimize(fr.reduce_sum(fr.matmul(fr.ones([1, 2]), w)) + fr.reduce_sum(v * v))
    assert train.name == "Adam" and train.type == "NoOp"
    assert opt.get_slot_names() == ["m", "v"]
    assert opt.get_slot(w, "m").name == "layer/w/Adam:0"
    assert opt.get_slot(w, "v").name == "layer/w/Adam_1:0"
    assert opt.get_slot(v, "m").name == "v/Adam:0"
    assert opt.get_slot(w, "nope") is None
    assert [x.name for x in opt.variables()] == [
        "beta1_power:0",
        "beta2_power:0",
        "layer/w/Adam:0",
        "layer/w/Adam_1:0",
        "v/Adam:0",
        "v/Adam_1:0",
    ]
    assert not opt.get_slot(w, "m").trainable
    assert set(opt.variables()) <= set(fr.global_variables())
    assert (
        fr.get_default_graph().get_operation_by_name("Adam/update_layer/w/ResourceApplyAdam").type
        == "ResourceApplyAdam"
    )
    assert train in fr.get_collection(fr.GraphKeys.TRAIN_OP)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        b1, b2, m = sess.run([opt.variables()[0], opt.variables()[1], opt.get_slot(w, "m")])
        assert (np.float32(b1), np.float32(b2)) == (np.float32(0.9), np.float32(0.999))
        np.testing.assert_array_equal(m, np.zeros((2, 3), np.float32))
        sess.run(train)
        b1, b2 = sess.run(opt.variables()[:2])
        np.testing.assert_allclose([b1, b2], [0.81, 0.999**2], rtol=1e-6)


@pytest.mark.parametrize(
    "make,slots",
    [
        (lambda: fr.train.MomentumOptimizer(0.1, 0.9), {"momentum": ("Momentum", 0.0)}),
        (lambda: fr.train.AdagradOptimizer(0.1), {"accumulator": ("Adagrad", 0.1)}),
        (
            lambda: fr.train.AdagradOptimizer(0.1, initial_accumulator_value=0.5),
            {"accumulator": ("Adagrad", 0.5)},
        ),
        (
            lambda: fr.train.RMSPropOptimizer(0.1),
            {"rms": ("RMSProp", 1.0), "momentum": ("RMSProp_1", 0.0)},
        ),
        (
            lambda: fr.train.RMSPropOptimizer(0.1, centered=True),
            {"rms": ("RMSProp", 1.0), "mg": ("RMSProp_1", 0.0), "momentum": ("RMSProp_2", 0.0)},
        ),
        (lambda: fr.train.GradientDescentOptimizer(0.1), {}),
    ],
)
def test_slot_names_and_initial_values(make, slots):
    w = fr.Variable(np.zeros((2, 2), np.float32), name="w")
    opt = make()
    opt.minimize(fr.reduce_sum(w * 3.0))
    assert opt.get_slot_names() == sorted(slots)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for slot, (suffix, init) in slots.items():
            s = opt.get_slot(w, slot)
            assert s.name == "w/%s:0" % suffix
            np.testing.assert_array_equal(sess.run(s), np.full((2, 2), init, np.float32))


def test_adagrad_rejects_nonpositive_accumulator():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive: 0.0"):
        fr.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_global_step_incremented_after_updates():
    w = fr.Variable(1.0, name="w")
    gs = fr.train.get_or_create_global_step()
    train = fr.train.GradientDescentOptimizer(0.5).minimize(w * w, global_step=gs)
    assert train.name == "GradientDescent"
    assert train.type == "AssignAddVariableOp"
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        assert sess.run(gs) == 3
        assert sess.run(w) == 0.0


def test_var_list_and_compute_apply_split():
    a = fr.Variable(1.0, name="a")
    b = fr.Variable(2.0, name="b")
    c = fr.Variable(3.0, name="c", trainable=False)
    loss = a * b + 1.0
    opt = fr.train.GradientDescentOptimizer(0.1)
    gv = opt.compute_gradients(loss)
    assert [v for _, v in gv] == [a, b]
    gv = opt.compute_gradients(loss, var_list=[a, c, b])
    assert gv[1][0] is None
    train = opt.apply_gradients([(g * 2.0, v) for g, v in gv if g is not None])
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run([a, b, c]), [1.0 - 0.4, 2.0 - 0.2, 3.0], rtol=1e-6)


def test_gradient_through_read_value_counts():
    w = fr.Variable(2.0, name="w")
    loss = w * 3.0 + w.read_value() * 5.0
    ((g, v),) = fr.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        assert sess.run(g) == 8.0


def test_no_gradients_errors():
    w = fr.Variable(1.0, name="w")
    x = fr.constant(2.0)
    opt = fr.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.minimize(x * 3.0, var_list=[w])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables provided."):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="Invalid type"):
        opt.compute_gradients(fr.constant(1), var_list=[w])


# --------------------------------------------------------------------------------------
# Sparse (IndexedSlices) gradients
# --------------------------------------------------------------------------------------

IDS = [1, 3, 1]
E0 = np.arange(18, dtype=np.float64).reshape(6, 3) / 10.0
C = np.array([[1.0, -2.0, 0.5], [0.3, 0.2, -0.1], [2.0, 1.0, 1.0]])


def _sparse_grad_np():
    g = np.zeros_like(E0)
    np.add.at(g, IDS, C)
    return g


def _sparse_run(opt, steps=3):
    e = fr.Variable(E0, name="emb")
    loss = fr.reduce_sum(fr.nn.embedding_lookup(e, IDS) * C)
    ((grad, _),) = opt.compute_gradients(loss)
    assert isinstance(grad, fr.IndexedSlices)
    train = opt.apply_gradients([(grad, e)])
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
        return sess.run(e), opt, sess


@pytest.mark.parametrize(
    "make",
    [
        lambda: fr.train.GradientDescentOptimizer(0.1),
        lambda: fr.train.MomentumOptimizer(0.1, 0.9),
        lambda: fr.train.AdagradOptimizer(0.1),
        lambda: fr.train.RMSPropOptimizer(0.1, momentum=0.5),
    ],
    ids=["sgd", "momentum", "adagrad", "rmsprop"],
)
def test_sparse_updates_touch_only_gathered_rows(make):
    final, _, _ = _sparse_run(make())
    untouched = [0, 2, 4, 5]
    np.testing.assert_array_equal(final[untouched], E0[untouched])
    assert not np.allclose(final[[1, 3]], E0[[1, 3]])


@pytest.mark.parametrize(
    "name,make,update,init",
    [c for c in CASES if c[0] not in ("rmsprop-momentum-centered",)],
    ids=[c[0] for c in CASES if c[0] != ("rmsprop-momentum-centered")],
)
def test_sparse_matches_dense_reference_on_touched_rows(name, make, update, init):
    # Duplicate ids are summed first, as TF deduplicates IndexedSlices.
    g = _sparse_grad_np()
    rows = np.array([1, 3])
    p, s = E0.copy(), init(E0)
    for t in range(1, 4):
        if name == "adam":
            p, s = update(p, g, s, t)  # TF1's Adam sparse path is dense in m and v
        else:
            sub_s = (
                None
                if s is None
                else (tuple(x[rows] for x in s) if isinstance(s, tuple) else s[rows])
            )
            new_p, new_s = update(p[rows], g[rows], sub_s, t)
            p = p.copy()
            p[rows] = new_p
            if s is not None:
                if isinstance(s, tuple):
                    for full, part in zip(s, new_s, strict=True):
                        full[rows] = part
                else:
                    s[rows] = new_s
    final, _, _ = _sparse_run(make())
    np.testing.assert_allclose(final, p, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize(
    "ids",
    [
        [4, 0, 4, 2],  # one pair
        [3, 1, 3, 3, 0, 3, 1, 3],  # runs of 5 and 2, interleaved
        [2] * 12 + [0, 5, 2],  # a run of 13 (the long-run path)
    ],
    ids=["pair", "runs", "long-run"],
)
def test_sparse_duplicates_are_summed_in_order_of_occurrence(ids):
    # TF deduplicates IndexedSlices with unsorted_segment_sum: each row's gradients
    # are added in the order they occur, so the update is bit-for-bit that sum.
    r = np.random.default_rng(len(ids))
    e0 = r.standard_normal((6, 5)).astype(np.float32)
    c = r.standard_normal((len(ids), 5)).astype(np.float32)
    e = fr.Variable(e0, name="emb")
    loss = fr.reduce_sum(fr.nn.embedding_lookup(e, ids) * c)
    train = fr.train.GradientDescentOptimizer(1.0).minimize(loss)
    expect = e0.copy()
    sums: dict = {}
    for i, row in zip(ids, c, strict=True):
        sums[i] = row.copy() if i not in sums else sums[i] + row
    for i, total in sums.items():
        expect[i] -= np.float32(1.0) * total
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run(train)
        np.testing.assert_array_equal(sess.run(e), expect)


class _NoRowAddAt:
    """numpy, whose ``add.at`` fails on arrays of rows (a flat array is allowed)."""

    class _Add:
        def __getattr__(self, name):
            return getattr(np.add, name)

        def at(self, a, *args):
            assert np.ndim(a) == 1, "np.add.at on rows"
            return np.add.at(a, *args)

    add = _Add()

    def __getattr__(self, name):
        return getattr(np, name)


def test_zipf_duplicates_are_summed_without_add_at_on_rows(monkeypatch):
    # A skip-gram batch of Zipf-distributed word ids repeats its frequent words tens of
    # times; np.add.at on those rows cost a third of the step. The sums stay TF's
    # (in order of occurrence), for the rows of the embedding and the scalars of a bias.
    from flowrt.train import apply_ops

    monkeypatch.setattr(apply_ops, "np", _NoRowAddAt())
    r = np.random.default_rng(7)
    ids = np.minimum(r.zipf(1.3, 128), 40) - 1
    assert np.bincount(ids).max() > 8
    e0 = r.standard_normal((40, 16)).astype(np.float32)
    c = r.standard_normal((128, 16)).astype(np.float32)
    cb = r.standard_normal(128).astype(np.float32)
    e, b = fr.Variable(e0, name="emb"), fr.Variable(np.zeros(40, np.float32), name="bias")
    loss = fr.reduce_sum(fr.nn.embedding_lookup(e, ids) * c)
    loss += fr.reduce_sum(fr.gather(b, ids) * cb)
    train = fr.train.GradientDescentOptimizer(1.0).minimize(loss)
    expect, expect_b = e0.copy(), np.zeros(40, np.float32)
    sums: dict = {}
    for i, row, x in zip(ids, c, cb, strict=True):
        sums[i] = (row.copy(), x) if i not in sums else (sums[i][0] + row, sums[i][1] + x)
    for i, (total, total_b) in sums.items():
        expect[i] -= total
        expect_b[i] -= total_b
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run(train)
        np.testing.assert_array_equal(sess.run(e), expect)
        np.testing.assert_array_equal(sess.run(b), expect_b)


def test_sparse_adam_decays_all_of_m_and_v():
    final, opt, sess = _sparse_run(fr.train.AdamOptimizer(0.1), steps=2)
    # Rows never gathered keep m == v == 0 and are therefore unchanged.
    np.testing.assert_array_equal(final[[0, 2, 4, 5]], E0[[0, 2, 4, 5]])


# --------------------------------------------------------------------------------------
# Concurrency
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: fr.train.GradientDescentOptimizer(0.001),
        lambda: fr.train.MomentumOptimizer(0.001, 0.0),
    ],
    ids=["sgd", "momentum"],
)
def test_concurrent_minimize_from_two_threads_loses_no_update(make):
    n = 200
    c = np.linspace(1.0, 2.0, 1000)
    w = fr.Variable(np.zeros(1000), name="w")
    gs = fr.train.get_or_create_global_step()
    train = make().minimize(fr.reduce_sum(w * c), global_step=gs)  # constant gradient c
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        errors = []

        def worker():
            try:
                for _ in range(n):
                    sess.run(train)
            except Exception as e:  # pragma: no cover - surfaced below
                errors.append(e)

        threads = [threading.Thread(target=worker) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert sess.run(gs) == 2 * n
        np.testing.assert_allclose(sess.run(w), -0.001 * 2 * n * c, rtol=1e-6)


async def test_concurrent_arun_adam_steps():
    import trio

    w = fr.Variable(np.ones(10), name="w")
    opt = fr.train.AdamOptimizer(0.01)
    train = opt.minimize(fr.reduce_sum(w * w))
    async with fr.Session() as sess:
        await sess.arun(fr.global_variables_initializer())
        async with trio.open_nursery() as nursery:
            for _ in range(4):
                nursery.start_soon(sess.arun, train)
        b1 = await sess.arun(opt.variables()[0])
        np.testing.assert_allclose(b1, 0.9**5, rtol=1e-6)


# --------------------------------------------------------------------------------------
# Optional cross-check against TensorFlow
# --------------------------------------------------------------------------------------

TF_OPTS = {
    "sgd": ("GradientDescentOptimizer", (0.3,), {}),
    "momentum": ("MomentumOptimizer", (0.1, 0.9), {"use_nesterov": True}),
    "adam": ("AdamOptimizer", (0.05,), {}),
    "adagrad": ("AdagradOptimizer", (0.3,), {}),
    "rmsprop": ("RMSPropOptimizer", (0.01,), {"momentum": 0.5, "centered": True}),
}


def _mlp_run(tf, opt_name, steps=10):
    name, args, kwargs = TF_OPTS[opt_name]
    r = np.random.default_rng(0)
    xv = r.standard_normal((16, 5)).astype(np.float32)
    labels = r.integers(0, 3, 16)
    ids = r.integers(0, 7, 16)
    with tf.Graph().as_default():
        emb = tf.Variable(r.standard_normal((7, 5)).astype(np.float32) * 0.3, name="emb")
        w1 = tf.Variable(r.standard_normal((5, 8)).astype(np.float32) * 0.3, name="w1")
        b1 = tf.Variable(np.zeros(8, np.float32), name="b1")
        w2 = tf.Variable(r.standard_normal((8, 3)).astype(np.float32) * 0.3, name="w2")
        x = tf.constant(xv) + tf.nn.embedding_lookup(emb, tf.constant(ids))
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.constant(labels), logits=tf.matmul(h, w2)
            )
        )
        train = getattr(tf.train, name)(*args, **kwargs).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            traj = [sess.run([loss, train])[0] for _ in range(steps)]
            return np.array(traj), sess.run([emb, w1, b1, w2])


@pytest.mark.parametrize("opt_name", sorted(TF_OPTS))
def test_matches_tensorflow(opt_name):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    ref_loss, ref_vars = _mlp_run(tf, opt_name)
    loss, vs = _mlp_run(fr, opt_name)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-4, atol=1e-5)
    for a, b in zip(vs, ref_vars, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bad", [6, -1])
def test_sparse_update_with_out_of_range_index_names_it(bad):
    e = fr.Variable(np.zeros((6, 2), np.float32), name="emb")
    grad = fr.IndexedSlices(
        fr.constant(np.ones((3, 2), np.float32)),
        fr.constant(np.array([1, bad, 2], np.int64)),
        fr.constant([6, 2]),
    )
    train = fr.train.GradientDescentOptimizer(1.0).apply_gradients([(grad, e)])
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="outside \\[0, 6\\): got %d" % bad
        ):
            sess.run(train)
        np.testing.assert_array_equal(sess.run(e), np.zeros((6, 2), np.float32))


@pytest.mark.parametrize("use_resource", [False, True])
def test_minimize_applies_the_variables_constraint_after_each_update(use_resource):
    # TF1's optimizer assigns constraint(var) after the variable's update (values from TF).
    v0 = fr.Variable(
        [1.0, 2.0], constraint=lambda x: fr.clip_by_value(x, -0.1, 0.0), use_resource=use_resource
    )
    v1 = fr.Variable(
        [3.0, 4.0], constraint=lambda x: fr.clip_by_value(x, 0.0, 1.0), use_resource=use_resource
    )
    op = fr.train.GradientDescentOptimizer(3.0).minimize(fr.reduce_sum(5 * v0 + 3 * v1))
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        s.run(op)
        np.testing.assert_array_equal(s.run(v0), np.float32([-0.1, -0.1]))
        np.testing.assert_array_equal(s.run(v1), [0.0, 0.0])


def test_a_constraint_on_a_sparsely_updated_variable_is_refused():
    v = fr.Variable([[1.0], [2.0]], constraint=lambda x: x)
    loss = fr.reduce_sum(fr.gather(v, [0]))
    with pytest.raises(RuntimeError, match="Cannot use a constraint function on a sparse"):
        fr.train.GradientDescentOptimizer(1.0).minimize(loss)
