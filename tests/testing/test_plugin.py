"""The flowrt pytest plugin, exercised on user test files run by pytester.

The hung tests run in a subprocess bounded by pytester's timeout (the guard sends a
signal to the main thread, which must not reach this process); the others in process.
"""

import re
import textwrap

import pytest

INI = """
[pytest]
trio_mode = true
filterwarnings = error
addopts = -p no:cacheprovider
"""


def run(
    pytester: pytest.Pytester, source: str, *args: str, subprocess: bool = False
) -> pytest.RunResult:
    pytester.makeini(INI)
    pytester.makepyfile(test_user=textwrap.dedent(source))
    if subprocess:
        return pytester.runpytest_subprocess("-rA", *args, timeout=120)
    return pytester.runpytest_inprocess("-rA", *args)


def test_each_fixture_in_a_user_test_file(pytester):
    result = run(
        pytester,
        """
        import numpy as np
        import pytest
        import trio
        import flowrt as fr
        from flowrt.testing import assert_all_close, assert_all_equal

        def test_graph_is_fresh_and_default(fr_graph, fr_seed):
            assert fr.get_default_graph() is fr_graph
            assert fr_graph.get_operations() == []
            assert fr_graph.seed == fr_seed

        def test_session(fr_session):
            x = fr.placeholder(fr.float32, [2])
            y = x * 2.0
            assert fr.get_default_session() is fr_session
            assert_all_close(fr_session.run(y, {x: [1.0, 2.5]}), [2.0, 5.0])
            assert_all_equal(y.eval({x: [0.0, 1.0]}), [0.0, 2.0])

        def test_logdir(fr_tmp_logdir, fr_session):
            assert list(fr_tmp_logdir.iterdir()) == []
            fr.summary.FileWriter(str(fr_tmp_logdir), fr_session.graph).close()
            assert len(list(fr_tmp_logdir.iterdir())) == 1

        def test_runners_stopped_in_time_pass(fr_session):
            q = fr.FIFOQueue(4, fr.int32, shapes=[])
            fr.train.add_queue_runner(fr.train.QueueRunner(q, [q.enqueue(1)]))
            coord = fr.train.Coordinator()
            threads = fr.train.start_queue_runners(fr_session, coord)
            assert fr_session.run(q.dequeue()) == 1
            coord.request_stop()
            coord.join(threads)

        async def test_producer_consumer(fr_asession):
            q = fr.FIFOQueue(2, fr.int32, shapes=[])
            v = fr.placeholder(fr.int32, [])
            enqueue, dequeue = q.enqueue(v), q.dequeue()
            got = []
            async def produce():
                for i in range(10):
                    await fr_asession.arun(enqueue, {v: i})
            with trio.fail_after(10):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(produce)
                    for _ in range(10):
                        got.append(int(await fr_asession.arun(dequeue)))
            assert got == list(range(10))

        @pytest.fixture
        async def counter(fr_asession):
            v = fr.Variable(0, name="counter")
            await fr_asession.arun(v.initializer)
            yield fr_asession, v

        async def test_async_fixture_built_on_fr_asession(counter):
            sess, v = counter
            await sess.arun(fr.assign_add(v, 2))
            assert await sess.arun(v) == 2
    """,
    )
    result.assert_outcomes(passed=6)


HUNG = """
    import threading

    import pytest
    import flowrt as fr

    @pytest.mark.fr_timeout(1)
    def test_sync_dequeue_hangs(fr_session):
        starved = fr.FIFOQueue(2, fr.float32, shapes=[], name="starved")
        fed = fr.FIFOQueue(3, fr.float32, shapes=[], name="fed")
        fr.train.add_queue_runner(fr.train.QueueRunner(fed, [fed.enqueue(1.0)]))
        coord = fr.train.Coordinator()
        fr.train.start_queue_runners(fr_session, coord)
        fr_session.run(starved.dequeue())  # nothing ever enqueues to 'starved'

    @pytest.mark.fr_timeout(1)
    async def test_async_enqueue_hangs(fr_asession):
        full = fr.FIFOQueue(1, fr.int32, shapes=[], name="full")
        await fr_asession.arun(full.enqueue(1))
        await fr_asession.arun(full.enqueue(2))  # no one dequeues

    @pytest.mark.fr_timeout(1)
    async def test_async_test_blocking_its_own_loop(fr_session):
        q = fr.FIFOQueue(1, fr.int32, shapes=[], name="never_fed")
        dequeue = q.dequeue()

        def consume():
            try:
                fr_session.run(dequeue)
            except fr.errors.CancelledError:
                pass  # the session closed after the stall

        t = threading.Thread(target=consume, daemon=True)
        t.start()
        t.join()  # a blocking join inside an async test: its trio loop is stuck too

    def test_after_the_hung_ones_still_runs(fr_session):
        assert fr_session.run(fr.constant(3)) == 3
"""


def test_hung_tests_fail_within_their_guard_with_the_dump(pytester):
    result = run(pytester, HUNG, subprocess=True)
    result.assert_outcomes(passed=1, failed=3)
    assert result.duration < 60  # each hung test ends at its 1 s guard, not at CI's limit
    out = result.stdout.str()
    assert "test_sync_dequeue_hangs ran longer than fr_timeout=1s" in out
    assert "_on_sigalrm" not in out  # the guard's signal handler is not the test's line
    assert "FIFOQueue 'starved' (size 0, capacity 2)" in out
    assert "blocked: QueueDequeueV2 op 'starved_Dequeue' waits to dequeue 1 element(s)" in out
    assert "fed by: no live queue runner" in out
    assert re.search(
        r"run \d+: waits on QueueDequeueV2 op 'starved_Dequeue': dequeue of 1 "
        r"element\(s\) from FIFOQueue 'starved' \(size 0, capacity 2\)",
        out,
    )
    assert "FIFOQueue 'fed' (size 3, capacity 3)" in out
    assert (
        "fed by: thread QueueRunnerThread-fed-fed_enqueue: runs 'fed_enqueue' to fill "
        "queue 'fed'" in out
    )
    assert "test_async_enqueue_hangs ran longer than fr_timeout=1s" in out
    assert "FIFOQueue 'full' (size 1, capacity 1)" in out
    assert "blocked: QueueEnqueueV2 op 'full_enqueue_1' waits to enqueue 1 element(s)" in out
    # Cancelling cannot reach a trio test whose loop is blocked: the signal does.
    assert "test_async_test_blocking_its_own_loop ran longer than fr_timeout=1s" in out
    assert "blocked: QueueDequeueV2 op 'never_fed_Dequeue' waits to dequeue 1" in out


ASYNC_STALLS = """
    import pytest
    import trio
    import flowrt as fr

    @pytest.mark.fr_timeout(1)
    async def test_async_enqueue_hangs(fr_asession):
        full = fr.FIFOQueue(1, fr.int32, shapes=[], name="full")
        await fr_asession.arun(full.enqueue(1))
        await fr_asession.arun(full.enqueue(2))  # no one dequeues

    @pytest.mark.fr_timeout(1)
    async def test_a_task_of_the_test_hangs(fr_asession):
        q = fr.FIFOQueue(1, fr.int32, shapes=[], name="empty")

        async def consume():
            await fr_asession.arun(q.dequeue())  # nothing is enqueued

        async with trio.open_nursery() as nursery:
            nursery.start_soon(consume)
"""


def test_an_async_stall_shows_the_report_at_the_tests_own_line(pytester):
    result = run(pytester, ASYNC_STALLS, subprocess=True)
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    # Not buried in the exception group of pytest-trio's nursery, nor below trio's frames.
    assert "Exception Group" not in out and "trio/_core" not in out
    result.stdout.fnmatch_lines(
        [
            "*_ test_async_enqueue_hangs _*",
            ">       await fr_asession.arun(full.enqueue(2))  # no one dequeues",
            "E       *: flowrt stall guard: test_user.py::test_async_enqueue_hangs ran "
            "longer than fr_timeout=1s and was stopped.",
            "E         FIFOQueue 'full' (size 1, capacity 1)",
            "test_user.py:9: _Stalled",
            "*_ test_a_task_of_the_test_hangs _*",
            ">       async with trio.open_nursery() as nursery:",
            ">       await fr_asession.arun(q.dequeue())  # nothing is enqueued",
            "E       *: flowrt stall guard: test_user.py::test_a_task_of_the_test_hangs ran *",
        ]
    )


NO_TRIO_MODE = """
    import pytest
    import flowrt as fr

    async def test_first(fr_asession):
        assert await fr_asession.arun(fr.constant(1)) == 1

    @pytest.fixture
    async def doubled(fr_asession):
        yield fr_asession, fr.constant(2) * 2

    async def test_through_a_fixture_of_the_user(doubled):
        sess, y = doubled
        assert await sess.arun(y) == 4

    @pytest.mark.trio
    async def test_marked(fr_asession):
        assert await fr_asession.arun(fr.constant(3)) == 3

    def test_sync_by_mistake(fr_asession):
        pass

    def test_sync(fr_session):
        assert fr_session.run(fr.constant(5)) == 5
"""


def test_async_tests_without_a_trio_runner_fail_with_what_to_add(pytester):
    pytester.makeini("[pytest]\nfilterwarnings = error\naddopts = -p no:cacheprovider\n")
    pytester.makepyfile(test_user=textwrap.dedent(NO_TRIO_MODE))
    result = pytester.runpytest_inprocess("-rA")
    result.assert_outcomes(passed=2, errors=3)
    out = result.stdout.str()
    for test in ("test_first", "test_through_a_fixture_of_the_user"):
        section = out[out.index("ERROR at setup of %s " % test) :]
        assert section.split("\n")[1:4] == [
            "test_user.py::%s is an `async def` test using fr_asession, but no trio "
            "runner runs it. Add" % test,
            "    trio_mode = true",
            "under [tool.pytest.ini_options] in pyproject.toml (or under [pytest] in "
            "pytest.ini) to run every `async def` test under trio, or mark this test "
            "@pytest.mark.trio.",
        ]
    assert (
        "test_user.py::test_sync_by_mistake uses fr_asession, which is for `async def` "
        "tests; a sync test uses fr_session." in out
    )
    # Nothing from pytest-trio or pytest's insides: one message per test.
    assert "Trio fixtures" not in out and "AssertionError" not in out and "Traceback" not in out


def test_a_leaked_runner_thread_fails_the_test(pytester):
    result = run(
        pytester,
        """
        import flowrt as fr

        def test_leaks(fr_session):
            q = fr.FIFOQueue(2, fr.int32, shapes=[], name="leaky")
            fr.train.add_queue_runner(fr.train.QueueRunner(q, [q.enqueue(7)]))
            fr.train.start_queue_runners(fr_session)
            assert fr_session.run(q.dequeue()) == 7
    """,
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*fr_session was still in use when the test ended:*",
            "*live queue runner: thread QueueRunnerThread-leaky-leaky_enqueue: runs "
            "'leaky_enqueue' to fill queue 'leaky'*",
        ]
    )


SEEDED = """
    import pytest
    import flowrt as fr

    @pytest.mark.parametrize("case", ["a", "b"])
    def test_draw(fr_session, fr_seed, case):
        x = fr_session.run(fr.random_uniform([3]))
        print("DRAW", case, fr_seed, list(x))

    @pytest.mark.fr_seed(1234)
    def test_fixed(fr_session, fr_seed):
        print("DRAW fixed", fr_seed, list(fr_session.run(fr.random_uniform([3]))))
"""


def _draws(result):
    return sorted(line[line.index("DRAW") :] for line in result.stdout.lines if "DRAW" in line)


def test_seeds_repeat_per_test_id_and_can_be_overridden(pytester):
    first = run(pytester, SEEDED, "-s")
    second = run(pytester, SEEDED, "-s")
    first.assert_outcomes(passed=3)
    draws = _draws(first)
    assert draws == _draws(second)
    assert len(draws) == 3
    a, b = (d for d in draws if d.startswith("DRAW a") or d.startswith("DRAW b"))
    assert a.split()[2] != b.split()[2]  # distinct test ids, distinct seeds
    assert any(d.startswith("DRAW fixed 1234 ") for d in draws)
    forced = run(pytester, SEEDED, "-s", "--fr-seed", "99")
    assert [d.split()[2] for d in _draws(forced)] == ["99", "99", "1234"]
