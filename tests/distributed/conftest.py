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
    """``make_cluster(ps=1, worker=1)`` -> a ``ClusterSpec`` with unique addresses.

    After the test, the tasks' mailboxes (a Ray worker process each) are ended and the
    tasks this process hosts stopped: no later test uses them, and a whole run would
    otherwise keep dozens of idle processes.
    """
    import flowrt as fr
    from flowrt.train import server

    made = []

    def make(**jobs):
        tag = uuid.uuid4().hex[:8]
        cluster = fr.train.ClusterSpec(
            {job: ["%s%d-%s" % (job, i, tag) for i in range(n)] for job, n in jobs.items()}
        )
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        for job in cluster.jobs:
            for i in cluster.task_indices(job):
                address = cluster.task_address(job, i)
                try:
                    box = ray_session.get_actor(
                        ray_cluster.actor_name(address), namespace=ray_cluster.NAMESPACE
                    )
                    ray_session.kill(box)
                except ValueError:  # never started, or gone already
                    pass
                runtime = server.HOSTED.pop(address, None)
                if runtime is not None:
                    runtime.stop()


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
