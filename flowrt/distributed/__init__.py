"""flowrt on a cluster: tasks served by the processes that start them, reached through
Ray, runs partitioned by task.

``fr.train.ClusterSpec`` and ``fr.train.Server`` are the public surface; this package
holds the machinery: ``partition`` (placing and staging a run's ops), ``task`` (a
task's state and the parts it runs), ``mailbox`` (how other processes reach it),
``client`` (a session's side) and ``ray_cluster`` (reaching Ray).
``docs/distributed.md`` tells the whole story.
"""
