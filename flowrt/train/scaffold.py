"""``Scaffold`` (the ops that make a model ready) and the session creators of a
``MonitoredSession``: ``ChiefSessionCreator`` initializes or restores,
``WorkerSessionCreator`` waits for readiness."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._core.graph import GraphKeys, Operation, Tensor, get_default_graph
from ..ops.array_ops import group
from ..summary.summary_ops import merge_all
from ..variables import (
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from .saver import Saver
from .session_manager import SessionManager

if TYPE_CHECKING:
    from .._core.typing import OpOrTensor
    from ..session import Session
    from ..session_options import ConfigProto

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator"]


# --------------------------------------------------------------------------------------
# Scaffold and session creators
# --------------------------------------------------------------------------------------


class Scaffold:
    """The ops that make a model ready: init, ready checks, local init, summary, saver.

    Any argument left None is taken from its graph collection (``INIT_OP``,
    ``READY_OP``, ..., ``SAVERS``) or, if that is empty, built as TF1 does, when
    ``finalize()`` runs (which also finalizes the graph).

    Args:
      init_op: initializes the variables when nothing is restored (default: all global
        variables' initializers).
      init_feed_dict: feeds for ``init_op``.
      init_fn: ``init_fn(scaffold, session)`` called after ``init_op``.
      ready_op: names of uninitialized variables (default: report all).
      ready_for_local_init_op: the same, for the global variables (checked before
        ``local_init_op``).
      local_init_op: run in every new session (default: local variables' initializers).
      summary_op: the summary op (default: ``merge_all()``).
      saver: the ``Saver`` (default: the one in ``SAVERS``, else a new one).
      copy_from_scaffold: take unset arguments from this scaffold.
      local_init_feed_dict: feeds for ``local_init_op``.
    """

    def __init__(
        self,
        init_op: OpOrTensor | None = None,
        init_feed_dict: dict[Any, Any] | None = None,
        init_fn: Callable[[Scaffold, Session], Any] | None = None,
        ready_op: Tensor | None = None,
        ready_for_local_init_op: Tensor | None = None,
        local_init_op: OpOrTensor | None = None,
        summary_op: Tensor | None = None,
        saver: Saver | None = None,
        copy_from_scaffold: Scaffold | None = None,
        local_init_feed_dict: dict[Any, Any] | None = None,
    ) -> None:
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            src = copy_from_scaffold

            def pick(a: Any, b: Any) -> Any:
                return a if a is not None else b

            init_op = pick(init_op, src.init_op)
            init_feed_dict = pick(init_feed_dict, src._init_feed_dict)
            init_fn = pick(init_fn, src._user_init_fn)
            ready_op = pick(ready_op, src.ready_op)
            ready_for_local_init_op = pick(ready_for_local_init_op, src.ready_for_local_init_op)
            local_init_op = pick(local_init_op, src.local_init_op)
            local_init_feed_dict = pick(local_init_feed_dict, src._local_init_feed_dict)
            summary_op = pick(summary_op, src.summary_op)
            saver = pick(saver, src.saver)
        self._user_init_fn: Callable[[Scaffold, Session], Any] | None = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict: dict[Any, Any] | None = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict: dict[Any, Any] | None = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self) -> Scaffold:
        """Builds the missing ops (or takes them from the collections), builds the saver,
        and finalizes the default graph. Returns self."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", GraphKeys.INIT_OP, lambda: group(global_variables_initializer())
            )
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, report_uninitialized_variables
            )
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op",
                GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: report_uninitialized_variables(global_variables()),
            )
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op
            )
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", GraphKeys.SUMMARY_OP, merge_all
            )
        if self._saver is None:
            self._saver = _saver_or_default()
        self._saver.build()
        get_default_graph().finalize()
        return self

    @property
    def init_fn(self) -> Callable[[Session], Any] | None:
        return self._init_fn

    @property
    def init_op(self) -> OpOrTensor | None:
        return self._init_op

    @property
    def ready_op(self) -> Tensor | None:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Tensor | None:
        return self._ready_for_local_init_op

    @property
    def local_init_op(self) -> OpOrTensor | None:
        return self._local_init_op

    @property
    def local_init_feed_dict(self) -> dict[Any, Any] | None:
        return self._local_init_feed_dict

    @property
    def summary_op(self) -> Tensor | None:
        return self._summary_op

    @property
    def saver(self) -> Saver | None:
        return self._saver

    @property
    def init_feed_dict(self) -> dict[Any, Any] | None:
        return self._init_feed_dict

    @staticmethod
    def get_or_default(
        arg_name: str, collection_key: str, default_constructor: Callable[[], Any]
    ) -> Any:
        """The one element of a collection, else ``default_constructor()`` (added to it).

        Raises:
          RuntimeError: the collection has more than one element.
        """
        graph = get_default_graph()
        elements = graph.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    'More than one item in the collection "%s". Please '
                    "indicate which one to use by passing it to the "
                    "fr.train.Scaffold constructor as: "
                    "fr.train.Scaffold(%s=item to use)" % (collection_key, arg_name)
                )
            return elements[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op() -> Operation:
        """Initializes the local variables and the lookup tables."""
        tables = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
        return group(local_variables_initializer(), *tables)


def _saver_or_default() -> Saver:
    savers = get_default_graph().get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(
                "More than one item in collection savers. Please indicate "
                "which one to use by passing it to the constructor."
            )
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    get_default_graph().add_to_collection(GraphKeys.SAVERS, saver)
    return saver


class SessionCreator:
    """Makes sessions for a ``MonitoredSession``: override ``create_session()``."""

    def create_session(self) -> Session:
        raise NotImplementedError("create_session is not implemented for %s." % type(self).__name__)


class ChiefSessionCreator(SessionCreator):
    """Creates a session restored from ``checkpoint_dir``'s latest checkpoint (or
    ``checkpoint_filename_with_path``), else initialized by the scaffold.

    Args:
      scaffold: the ``Scaffold`` (default: a new one).
      master: the session target ('' in-process, or a cluster task's ``server.target``).
      config: the sessions' ``ConfigProto``.
      checkpoint_dir: restore from here when it has a checkpoint.
      checkpoint_filename_with_path: or from this checkpoint.
    """

    def __init__(
        self,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: ConfigProto | None = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
    ) -> None:
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager: SessionManager | None = None
        self._master = master
        self._config = config

    def _get_session_manager(self) -> SessionManager:
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op,
                local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph(),
            )
        return self._session_manager

    def create_session(self) -> Session:
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master,
            saver=self._scaffold.saver,
            checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config,
            init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn,
        )


class WorkerSessionCreator(ChiefSessionCreator):
    """Creates a session and waits (up to ``max_wait_secs``) until its model is ready.

    Note (flowrt): in-process sessions (``master=''``) do not share variables with a
    chief's session, so their model becomes ready only when its ``local_init_op`` makes
    it so; on a cluster (``master=server.target``) the chief's initialization is seen,
    as in TF1.
    """

    def __init__(
        self,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: ConfigProto | None = None,
        max_wait_secs: float = 30 * 60,
    ) -> None:
        super().__init__(scaffold=scaffold, master=master, config=config)
        self._max_wait_secs = max_wait_secs

    def create_session(self) -> Session:
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs
        )
