"""TF's random streams bit for bit: values recorded from TensorFlow 2.21's CPU kernels
(``tf.compat.v1``, graph mode) for the same programs, as literals (TF is never imported)."""

import threading

import numpy as np
import pytest
import trio

import flowrt as fr
from flowrt._core.resources import PhiloxState
from flowrt.ops import philox
from tests.libm import assert_tfs_normals

# name: (first run, second run) of a session, each new session starting again.
TF_VALUES = {
    "uniform_f32": (
        [
            0.38692939281463623,
            0.3600262403488159,
            0.9768795967102051,
            0.0865163803100586,
            0.5038012266159058,
        ],
        [
            0.4796433448791504,
            0.2927204370498657,
            0.9550446271896362,
            0.20956695079803467,
            0.37514734268188477,
        ],
    ),
    "uniform_f64": (
        [0.0954352046549809, 0.8150370178493045, 0.030410284844230695],
        [0.5373593020813838, 0.9136903450324854, 0.9388836826390048],
    ),
    "uniform_f16": (
        [0.7255859375, 0.3349609375, 0.59765625, 0.7421875, 0.1396484375],
        [0.23828125, 0.9658203125, 0.7255859375, 0.7724609375, 0.20703125],
    ),
    "uniform_range_f32": (
        [
            -0.06535303592681885,
            -0.1998687982559204,
            2.8843979835510254,
            -1.567418098449707,
            0.5190062522888184,
        ],
        [
            0.39821672439575195,
            -0.5363978147506714,
            2.7752232551574707,
            -0.9521652460098267,
            -0.12426328659057617,
        ],
    ),
    "normal_f32": (
        [
            1.0616620779037476,
            -0.8785783052444458,
            0.11187215894460678,
            0.18511717021465302,
            0.9092256426811218,
        ],
        [
            1.1687908172607422,
            -0.32148557901382446,
            0.2935705780982971,
            0.07622814178466797,
            -0.5622797608375549,
        ],
    ),
    "normal_f64": (
        [-1.9891512607565875, 0.8613319661711827, -2.3519238994697904],
        [-0.5752165992211525, 0.9546216515522019, 0.29120229819109733],
    ),
    "normal_f16": (
        [1.0615234375, -0.87841796875, 0.11187744140625, 0.18505859375, 0.9091796875],
        [1.1689453125, -0.321533203125, 0.29345703125, 0.07623291015625, -0.5625],
    ),
    "normal_scaled_f32": (
        [
            5.184986114501953,
            -0.635735034942627,
            2.3356165885925293,
            2.555351495742798,
            4.727676868438721,
        ],
        [
            5.506372451782227,
            1.0355432033538818,
            2.880711793899536,
            2.228684425354004,
            0.31316065788269043,
        ],
    ),
    "truncated_f32": (
        [
            1.0616620779037476,
            -0.8785783052444458,
            0.11187215894460678,
            0.18511717021465302,
            -0.16233478486537933,
        ],
        [
            1.1687908172607422,
            -0.32148557901382446,
            0.2935705780982971,
            0.07622814178466797,
            -1.2204426527023315,
        ],
    ),
    "truncated_f64": (
        [-1.9891512607565875, 0.8613319661711827, 0.5001542461196736],
        [-0.5752165992211525, 0.9546216515522019, 0.600407454455961],
    ),
    "truncated_f16": (
        [1.0615234375, -0.87841796875, 0.11187744140625, 0.18505859375, -0.162353515625],
        [1.1689453125, -0.321533203125, 0.29345703125, 0.07623291015625, -1.220703125],
    ),
    "uniform_i32": ([821, 890, 767, 470, 424], [653, 612, 198, 171, 289]),
    "uniform_i64": (
        [377197004519, -33470739868, 431530998927],
        [266606254342, -957757874567, 883172509098],
    ),
    "uniform_i32_full": (
        [1387366119, -1867639465, -1258485148, -1047850248, -113214321],
        [155018484, 807761885, -1107673369, 899339031, -919599916],
    ),
}

BUILDERS = {
    "uniform_f32": lambda: fr.random_uniform([5], seed=3),
    "uniform_f64": lambda: fr.random_uniform([3], dtype=fr.float64, seed=3),
    "uniform_f16": lambda: fr.random_uniform([5], dtype=fr.float16, seed=3),
    "uniform_range_f32": lambda: fr.random_uniform([5], -2.0, 3.0, seed=3),
    "normal_f32": lambda: fr.random_normal([5], seed=3),
    "normal_f64": lambda: fr.random_normal([3], dtype=fr.float64, seed=3),
    "normal_f16": lambda: fr.random_normal([5], dtype=fr.float16, seed=3),
    "normal_scaled_f32": lambda: fr.random_normal([5], 2.0, 3.0, seed=3),
    "truncated_f32": lambda: fr.truncated_normal([5], seed=3),
    "truncated_f64": lambda: fr.truncated_normal([3], dtype=fr.float64, seed=3),
    "truncated_f16": lambda: fr.truncated_normal([5], dtype=fr.float16, seed=3),
    "uniform_i32": lambda: fr.random_uniform([5], -7, 1000, dtype=fr.int32, seed=3),
    "uniform_i64": lambda: fr.random_uniform([3], -(2**40), 2**40, dtype=fr.int64, seed=3),
    "uniform_i32_full": lambda: fr.random_uniform([5], -(2**31), 2**31 - 1, dtype=fr.int32, seed=3),
}


def _runs(build, runs=2, sessions=2, init=False):
    """``runs`` successive values of ``build()`` in each of ``sessions`` sessions."""
    with fr.Graph().as_default():
        t = build()
        out = []
        for _ in range(sessions):
            with fr.Session() as sess:
                if init:
                    sess.run(fr.global_variables_initializer())
                out.append([sess.run(t) for _ in range(runs)])
    return out


@pytest.mark.parametrize("name", list(TF_VALUES))
def test_values_are_tfs_in_two_runs_and_a_second_session(name):
    first, second = TF_VALUES[name]
    dtype = _DTYPES[name.split("_")[1] if name.endswith("full") else name.split("_")[-1]]
    # Uniform draws are integer and exact float arithmetic: TF's bit for bit anywhere.
    normal = name.startswith(("normal", "truncated"))
    scale = 2.0 + 3.0 * 4 if name.startswith("normal_scaled") else 4.0
    for a1, a2 in _runs(BUILDERS[name]):
        assert a1.dtype == a2.dtype == dtype
        for got, want in ((a1, first), (a2, second)):
            if normal:
                assert_tfs_normals(got, np.array(want, dtype), scale)
            else:
                np.testing.assert_array_equal(got, np.array(want, dtype))


_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i32": np.int32}
_DTYPES["i64"] = np.int64


def test_graph_seed_alone_numbers_the_ops_as_tf():
    def build():
        fr.set_random_seed(1)
        return [fr.random_uniform([2]), fr.random_normal([2]), fr.random_uniform([2], seed=0)]

    ((u, n, u0),), _ = _runs(build, runs=1)
    expected = [
        [0.8126964569091797, 0.07857465744018555],
        [0.2818339467048645, 2.3878283500671387],
        [0.8126964569091797, 0.07857465744018555],
    ]
    np.testing.assert_array_equal(u, np.array(expected[0], np.float32))
    assert_tfs_normals(n, np.array(expected[1], np.float32))
    np.testing.assert_array_equal(u0, np.array(expected[2], np.float32))


def test_initializers_give_tfs_values():
    def build():
        fr.set_random_seed(5)
        return [
            fr.get_variable("a", [2, 3], initializer=fr.glorot_uniform_initializer()),
            fr.get_variable(
                "b", [3], initializer=fr.truncated_normal_initializer(0.0, 0.1, seed=3)
            ),
            fr.get_variable("c", [3], initializer=fr.random_normal_initializer(1.0, 2.0, seed=4)),
        ]

    for ((a, b, c),) in _runs(build, runs=1, init=True):
        glorot = [
            -0.6948084831237793,
            0.41624629497528076,
            0.3795166015625,
            -0.10467249155044556,
            0.6073455810546875,
            0.9991683959960938,
        ]
        np.testing.assert_array_equal(a.reshape(-1), np.array(glorot, np.float32))
        truncated = [-0.14616988599300385, -0.05901871994137764, 0.04928329959511757]
        assert_tfs_normals(b, np.array(truncated, np.float32), scale=0.1 * 2)
        normal = [0.7297521233558655, 2.1502251625061035, 3.6577539443969727]
        assert_tfs_normals(c, np.array(normal, np.float32), scale=1.0 + 2.0 * 4)


def test_dropout_keeps_tfs_elements():
    for (got,) in _runs(lambda: fr.nn.dropout(fr.ones([2, 5]), rate=0.4, seed=5), runs=1):
        np.testing.assert_array_equal(
            got.reshape(-1),
            np.array(
                [
                    0.0,
                    1.6666666269302368,
                    0.0,
                    1.6666666269302368,
                    1.6666666269302368,
                    0.0,
                    1.6666666269302368,
                    1.6666666269302368,
                    0.0,
                    1.6666666269302368,
                ],
                np.float32,
            ),
        )


# Large draws: the kind, five values (first two, middle, last two) and the float64 sum of
# each of two runs.
TF_LARGE = [
    (
        "normal",
        lambda: fr.truncated_normal([1001], seed=9),
        np.float32,
        [
            (
                [
                    1.155072808265686,
                    -0.49105730652809143,
                    -0.6416743993759155,
                    1.1695349216461182,
                    0.3860709071159363,
                ],
                9.143328297766857,
            ),
            (
                [
                    -1.429044246673584,
                    1.9917525053024292,
                    1.3815760612487793,
                    -0.6136733889579773,
                    -0.33126044273376465,
                ],
                39.32646374637261,
            ),
        ],
    ),
    (
        "uniform",
        lambda: fr.random_uniform([100003], seed=9),
        np.float32,
        [
            (
                [
                    0.45490562915802,
                    0.31397736072540283,
                    0.5912059545516968,
                    0.7776695489883423,
                    0.48558151721954346,
                ],
                50062.76589143276,
            ),
            (
                [
                    0.919536828994751,
                    0.2608405351638794,
                    0.08107006549835205,
                    0.9159730672836304,
                    0.10708487033843994,
                ],
                50126.57562446594,
            ),
        ],
    ),
    (
        "normal",
        lambda: fr.random_normal([10001], dtype=fr.float64, seed=9),
        np.float64,
        [
            (
                [
                    0.686410295800296,
                    -0.6509792409832237,
                    -0.050646148549839155,
                    -1.1481317579311807,
                    0.16756534025219097,
                ],
                25.13123692715522,
            ),
            (
                [
                    -0.268969559785204,
                    0.1484588769320026,
                    -1.1297222371103837,
                    1.3984856045145797,
                    1.4104325395177115,
                ],
                -21.636575689154938,
            ),
        ],
    ),
]


@pytest.mark.parametrize("case", range(len(TF_LARGE)))
def test_large_draws_are_tfs(case):
    kind, build, dtype, expected = TF_LARGE[case]
    ((r1, r2),) = _runs(build, sessions=1)
    normal = kind == "normal"
    for got, (picks, total) in zip((r1, r2), expected):
        assert got.dtype == dtype
        some = got[[0, 1, len(got) // 2, -2, -1]]
        if not normal:
            np.testing.assert_array_equal(some, np.array(picks, dtype))
            assert float(np.sum(got, dtype=np.float64)) == total
            continue
        assert_tfs_normals(some, np.array(picks, dtype))
        # Each value within a few of its ulps: the sum within as many of the sum of |values|.
        eps = float(np.finfo(dtype).eps)
        err = 4 * eps * float(np.sum(np.abs(got), dtype=np.float64))
        assert float(np.sum(got, dtype=np.float64)) == pytest.approx(total, rel=0, abs=err)


def test_sizes_not_a_multiple_of_the_group_are_prefixes_of_tfs_groups():
    # TF fills a partial last group with the first values of a whole group, so a draw of
    # n values is the first n of a draw of the next multiple of 4 from the same counter.
    for kind in (philox.UNIFORM, philox.NORMAL, philox.TRUNCATED):
        for dtype in (np.float16, np.float32, np.float64):
            whole = np.empty(8, dtype)
            philox.fill_float(whole, kind, 7, 5 << 64)
            for n in range(0, 8):
                part = np.empty(n, dtype)
                philox.fill_float(part, kind, 7, 5 << 64)
                np.testing.assert_array_equal(part, whole[:n])


def test_truncated_groups_start_256_calls_apart():
    # Group g of a float32 truncated normal draws from counter start + 256 * g (a float64
    # group of two, from start + 128 * g): a draw's second group is the first group of a
    # draw that many calls later.
    a, b = np.empty(8, np.float32), np.empty(4, np.float32)
    philox.fill_float(a, philox.TRUNCATED, 3, 0)
    philox.fill_float(b, philox.TRUNCATED, 3, 256)
    np.testing.assert_array_equal(a[4:], b)
    c, d = np.empty(4), np.empty(2)
    philox.fill_float(c, philox.TRUNCATED, 3, 0)
    philox.fill_float(d, philox.TRUNCATED, 3, 128)
    np.testing.assert_array_equal(c[2:], d)


def test_the_counter_carries_across_64_bits():
    # Counters 2**64 - 1 and 2**64: the 128-bit counter carries into its upper half.
    a = np.empty(8, np.float32)
    philox.fill_float(a, philox.UNIFORM, 1, (1 << 64) - 1)
    b = np.empty(4, np.float32)
    philox.fill_float(b, philox.UNIFORM, 1, 1 << 64)
    np.testing.assert_array_equal(a[4:], b)


def test_a_run_reserves_256_calls_per_element():
    with fr.Graph().as_default():
        t = fr.random_uniform([3], seed=2)
        with fr.Session() as sess:
            sess.run(t)
            state = sess.resources.philox(t.op)
            assert state.key == 87654321
            assert state.counter == (2 << 64) + 3 * 256


def test_reservations_of_concurrent_threads_are_disjoint():
    state = PhiloxState(1, 2)
    start = threading.Barrier(4, timeout=10)
    got: list = []

    def reserve():
        start.wait()
        for _ in range(200):
            got.append(state.reserve(7)[1])

    threads = [threading.Thread(target=reserve) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(got) == [(2 << 64) + 7 * i for i in range(800)]


async def test_two_threads_running_one_op_draw_disjoint_consecutive_blocks():
    with fr.Graph().as_default():
        t = fr.random_normal([1000], seed=4)
        with fr.Session() as sess:
            serial = [(await sess.arun(t)).tobytes() for _ in range(20)]
        sess = fr.Session()
        got: list = []

        def run():
            for _ in range(10):
                got.append(sess.run(t).tobytes())

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.to_thread.run_sync, run)
                nursery.start_soon(trio.to_thread.run_sync, run)
        sess.close()
    # Every run took its own reservation: the 20 draws are the first 20, none twice.
    assert sorted(got) == sorted(serial)


def test_unseeded_ops_differ_between_sessions_and_ops():
    with fr.Graph().as_default():
        a, b = fr.random_uniform([50]), fr.random_uniform([50])
        with fr.Session() as s1:
            a1, b1 = s1.run([a, b])
        with fr.Session() as s2:
            a2 = s2.run(a)
    assert not np.array_equal(a1, b1)
    assert not np.array_equal(a1, a2)
    x, y = PhiloxState(0, 0), PhiloxState(0, 0)
    assert (x.key, x.counter) != (y.key, y.counter)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_large_draw_statistics(dtype):
    n = 200_000
    u, z, t = (np.empty(n, dtype) for _ in range(3))
    philox.fill_float(u, philox.UNIFORM, 11, 0)
    philox.fill_float(z, philox.NORMAL, 11, 0)
    philox.fill_float(t, philox.TRUNCATED, 11, 0)
    u64, z64, t64 = (v.astype(np.float64) for v in (u, z, t))
    assert 0.0 <= u64.min() and u64.max() < 1.0
    assert abs(u64.mean() - 0.5) < 0.005 and abs(u64.std() - np.sqrt(1 / 12)) < 0.005
    assert abs(z64.mean()) < 0.01 and abs(z64.std() - 1.0) < 0.01
    assert np.abs(t64).max() <= 2.0
    # The standard normal truncated to (-2, 2) has std 0.8796.
    assert abs(t64.mean()) < 0.01 and abs(t64.std() - 0.8796) < 0.01
    assert len(np.unique(u)) > (1000 if dtype == np.float16 else n // 2)


def test_large_int_draws_cover_the_range_evenly():
    for dtype, lo, hi in ((np.int32, -5, 5), (np.int64, 2**40, 2**40 + 10)):
        v = np.empty(100_000, dtype)
        philox.fill_int(v, lo, hi, 3, 0)
        counts = np.bincount((v - lo).astype(np.int64), minlength=hi - lo)
        assert counts.size == hi - lo
        np.testing.assert_allclose(counts / v.size, 1 / (hi - lo), atol=0.005)


def test_errors_keep_tfs_classes_and_messages():
    p = fr.placeholder(fr.int32, [None])
    hi = fr.placeholder(fr.int32, [])
    normal, ints = fr.truncated_normal(p), fr.random_uniform(p, 0, hi, dtype=fr.int32)
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError, match=r"Dimension -2 must be >= 0"):
            sess.run(normal, {p: [2, -2]})
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="Need minval < maxval, got 0 >= -1"
        ):
            sess.run(ints, {p: [3], hi: -1})
        # As TF: an empty draw never checks the range.
        assert sess.run(ints, {p: [0], hi: -1}).shape == (0,)
