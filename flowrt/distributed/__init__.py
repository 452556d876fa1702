"""flowrt on a cluster: tasks as Ray actors, runs partitioned by task.

``fr.train.ClusterSpec`` and ``fr.train.Server`` are the public surface; this package
holds the machinery: ``partition`` (placing and staging a run's ops), ``task`` (a
task's actor: its state and the parts it runs), ``client`` (a session's side) and
``ray_cluster`` (reaching Ray). ``docs/distributed.md`` tells the whole story.
"""
