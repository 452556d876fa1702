"""``fr.test.create_local_cluster``: a whole cluster in this process, for tests."""

from __future__ import annotations

import uuid
from typing import Any

__all__ = ["create_local_cluster"]


def create_local_cluster(
    num_workers: int,
    num_ps: int,
    protocol: str = "grpc",
    worker_config: Any = None,
    ps_config: Any = None,
) -> tuple[list[Any], list[Any]]:
    """Starts ``num_workers`` worker and ``num_ps`` ps tasks of a new cluster.

    Returns:
      ``(workers, ps_servers)``: lists of ``fr.train.Server``; a session on a worker
      runs the graph over the whole cluster (``fr.Session(workers[0].target)``).

    Note (flowrt): every task is hosted by this process, as TF1's local cluster runs
    its servers in-process (``docs/distributed.md``); other processes reach them
    through their Ray mailboxes. Their addresses are unique names, not ports.
    """
    from ..train.cluster import ClusterSpec
    from ..train.server import Server

    if num_workers < 1:
        raise ValueError("num_workers must be at least 1, got %d" % num_workers)
    tag = uuid.uuid4().hex[:12]
    cluster = ClusterSpec(
        {
            "worker": ["localhost:worker%d-%s" % (i, tag) for i in range(num_workers)],
            "ps": ["localhost:ps%d-%s" % (i, tag) for i in range(num_ps)],
        }
    )
    workers = [Server(cluster, "worker", i) for i in range(num_workers)]
    ps_servers = [Server(cluster, "ps", i) for i in range(num_ps)]
    return workers, ps_servers
