"""How a session and its runs are configured and what a traced run reports.

TF1's ``ConfigProto``, ``GPUOptions``, ``RunOptions`` and ``RunMetadata`` (protobufs in
TF), as plain classes holding the fields flowrt acts on and accepting the rest.
"""

from __future__ import annotations

from typing import Any

from .client import step_stats as _step_stats

__all__ = [
    "RunOptions",
    "RunMetadata",
    "ConfigProto",
    "GPUOptions",
    "GraphOptions",
    "OptimizerOptions",
    "RewriterConfig",
    "CallableOptions",
    "fuses",
]


class RunOptions:
    """Per-run options: ``timeout_in_ms``, ``trace_level`` (FULL_TRACE records stats) and
    ``output_partition_graphs`` (the run's ``RunMetadata.partition_graphs``).

    ``timeout_in_ms`` of 0 or less means no timeout (as in TF1), unless the session's
    ``ConfigProto(operation_timeout_in_ms=...)`` sets one.
    """

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3

    def __init__(
        self,
        timeout_in_ms: int = 0,
        trace_level: int = 0,
        output_partition_graphs: bool = False,
        **_ignored: Any,
    ) -> None:
        self.timeout_in_ms = timeout_in_ms
        self.trace_level = trace_level
        self.output_partition_graphs = bool(output_partition_graphs)


class RunMetadata:
    """Filled by a run with ``trace_level=FULL_TRACE``: ``step_stats`` as TF1's
    (``dev_stats[].node_stats[]``, see ``fr.client.step_stats``); with
    ``output_partition_graphs=True``: ``partition_graphs``.

    Note (flowrt): a run has one partition (the process's CPU): ``partition_graphs`` is one
    ``GraphDef`` of the ops the run executes, pruned to its fetches and feeds; a fed
    tensor stays an input of its consumers (TF rewrites feeds and fetches into ``_Arg``
    and ``_Retval`` nodes).
    """

    def __init__(self):
        self._step_stats = _step_stats.StepStats()
        self._raw = None  # a traced run's executor records, converted when first read
        self._partition_graphs: list = []
        self._partition_ops: Any = None  # (graph, op names) of a run, converted when read

    @property
    def partition_graphs(self) -> list:
        """The ``GraphDef`` of each partition of the run (one: see the class note)."""
        if self._partition_ops is not None:
            from .graph_export import graph_def_proto

            graph, names = self._partition_ops
            full = graph_def_proto(graph, display=True)
            part = type(full)()
            part.versions.CopyFrom(full.versions)
            part.node.extend(n for n in full.node if n.name in names)
            self._partition_graphs, self._partition_ops = [part], None
        return self._partition_graphs

    @property
    def step_stats(self) -> _step_stats.StepStats:
        if self._raw is not None:
            self._step_stats, self._raw = _step_stats.step_stats_from(self._raw), None
        return self._step_stats

    @step_stats.setter
    def step_stats(self, value: _step_stats.StepStats) -> None:
        self._step_stats, self._raw = value, None

    def chrome_trace(self) -> str:
        """The step stats as Chrome trace JSON (``fr.client.timeline.Timeline``)."""
        from .client.timeline import Timeline

        return Timeline(self.step_stats).generate_chrome_trace_format()


class GPUOptions:
    def __init__(self, **kwargs: Any) -> None:
        self.__dict__.update(kwargs)


class RewriterConfig:
    """Graph rewrites at plan time (TF1's grappler ``rewriter_config_pb2.RewriterConfig``).

    flowrt acts on two fields: ``remapping`` (TF's op-fusion pass) switches flowrt's
    elementwise fusion (``docs/fusion.md``): ``OFF`` plans without it, ``DEFAULT``,
    ``ON`` and ``AGGRESSIVE`` fuse; ``disable_meta_optimizer=True`` turns every rewrite
    off, fusion included. The other TF fields are accepted and ignored.
    """

    DEFAULT, ON, OFF, AGGRESSIVE = 0, 1, 2, 3

    def __init__(
        self, remapping: int = 0, disable_meta_optimizer: bool = False, **kwargs: Any
    ) -> None:
        if remapping not in (0, 1, 2, 3):
            raise ValueError(
                "RewriterConfig.remapping must be DEFAULT, ON, OFF or AGGRESSIVE (0-3), "
                "got %r" % (remapping,)
            )
        self.remapping = remapping
        self.disable_meta_optimizer = bool(disable_meta_optimizer)
        self.__dict__.update(kwargs)


class OptimizerOptions:
    """TF1's graph optimizer options (``opt_level``, ``do_constant_folding``, ...):
    accepted and ignored (flowrt folds constants and prunes every plan)."""

    L1, L0 = 0, -1
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2  # GlobalJitLevel

    def __init__(self, **kwargs: Any) -> None:
        self.__dict__.update(kwargs)


class GraphOptions:
    """TF1's ``GraphOptions``: ``optimizer_options`` and ``rewrite_options`` (acted on:
    see ``RewriterConfig``); other fields accepted and ignored."""

    def __init__(
        self,
        optimizer_options: OptimizerOptions | None = None,
        rewrite_options: RewriterConfig | None = None,
        **kwargs: Any,
    ) -> None:
        self.optimizer_options = optimizer_options or OptimizerOptions()
        self.rewrite_options = rewrite_options or RewriterConfig()
        self.__dict__.update(kwargs)


def fuses(config: ConfigProto | None) -> bool:
    """Whether a session with ``config`` fuses elementwise chains (``RewriterConfig``)."""
    rw = getattr(getattr(config, "graph_options", None), "rewrite_options", None)
    if rw is None:
        return True
    return not rw.disable_meta_optimizer and rw.remapping != RewriterConfig.OFF


class ConfigProto:
    """Session configuration. flowrt acts on ``intra_op_parallelism_threads``,
    ``operation_timeout_in_ms`` and ``graph_options.rewrite_options`` (``RewriterConfig``:
    elementwise fusion); the other TF1 fields are accepted and ignored (there are no
    devices to configure).

    Args:
      intra_op_parallelism_threads: threads one op may use (numpy's BLAS pool). Note
        (flowrt): 0 (TF: "the system picks") means one BLAS thread per kernel, unless
        the environment sets one (``OPENBLAS_NUM_THREADS``, ...): OpenBLAS's spinning
        workers slow small and mid-size products by 10-400x on busy cores, and
        parallelism comes from concurrent runs (``_core/blas.py``). The BLAS pool is
        process-wide: the last session created sets it for all.
      inter_op_parallelism_threads: ignored (independent ops overlap on trio).
      operation_timeout_in_ms: the timeout of every run of the session whose
        ``RunOptions`` set none; 0 or less means none.
      graph_options: a ``GraphOptions``.
    """

    def __init__(
        self,
        intra_op_parallelism_threads: int = 0,
        inter_op_parallelism_threads: int = 0,
        operation_timeout_in_ms: int = 0,
        **kwargs: Any,
    ) -> None:
        self.intra_op_parallelism_threads = int(intra_op_parallelism_threads or 0)
        self.inter_op_parallelism_threads = int(inter_op_parallelism_threads or 0)
        self.operation_timeout_in_ms = int(operation_timeout_in_ms or 0)
        self.__dict__.update(kwargs)
        self.gpu_options = kwargs.get("gpu_options", GPUOptions())
        self.graph_options = kwargs.get("graph_options", GraphOptions())


class CallableOptions:
    """What a callable of ``Session._make_callable_from_options`` runs (TF1's
    ``config_pb2.CallableOptions``): tensor names to ``feed`` (its positional arguments)
    and ``fetch`` (its results, a list), op names to run as ``target``, and the
    ``run_options`` of each call. Other TF fields are accepted and ignored.
    """

    def __init__(
        self,
        feed: list[str] | None = None,
        fetch: list[str] | None = None,
        target: list[str] | None = None,
        run_options: RunOptions | None = None,
        **_ignored: Any,
    ) -> None:
        self.feed = list(feed or [])
        self.fetch = list(fetch or [])
        self.target = list(target or [])
        self.run_options = run_options if run_options is not None else RunOptions()
