"""A local Ray cluster for the distributed tests, started once per test session.

Ray is started here by the tests themselves (CI runs no other service). Each test
builds a cluster of its own with unique task addresses (``make_cluster``), so tests
never share a task's state.
"""

import uuid

import pytest

from flowrt.distributed import ray_cluster
from flowrt.distributed.process import process_class


@pytest.fixture(scope="session")
def ray_session():
    """A Ray instance of this test session's own: never one that another process (a
    concurrent test run, another venv's job) started, whose workers would run another
    environment's code and which would end with that process."""
    ray = ray_cluster.ray_module()
    started_here = not ray.is_initialized()
    if started_here:
        ray_cluster.connect("local")
    yield ray
    if started_here:
        ray.shutdown()


@pytest.fixture
def make_cluster(ray_session):
    """``make_cluster(ps=1, worker=1)`` -> a ``ClusterSpec`` with unique addresses."""
    import flowrt as fr

    def make(**jobs):
        tag = uuid.uuid4().hex[:8]
        return fr.train.ClusterSpec(
            {job: ["%s%d-%s" % (job, i, tag) for i in range(n)] for job, n in jobs.items()}
        )

    return make


@pytest.fixture(scope="session")
def hosts(ray_session):
    """Two worker processes shared by the tests that never kill them (starting a
    process costs seconds): each test starts servers of its own cluster in them."""
    from . import programs

    ray = ray_session
    ray.cloudpickle.register_pickle_by_value(programs)
    procs = [process_class().remote() for _ in range(2)]
    ray.get([p.call.remote(programs.ready) for p in procs])
    yield procs
    for p in procs:
        ray.kill(p)


@pytest.fixture
def processes(ray_session):
    """``processes(n)`` -> n fresh worker processes (Ray actors) that run functions of
    ``tests/distributed/programs.py``; killed after the test."""
    from . import programs

    ray = ray_session
    ray.cloudpickle.register_pickle_by_value(programs)
    made = []

    def spawn(n):
        procs = [process_class().remote() for _ in range(n)]
        ray.get([p.call.remote(programs.ready) for p in procs])
        made.extend(procs)
        return procs

    yield spawn
    for p in made:
        ray.kill(p)
