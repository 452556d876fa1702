"""``SessionManager``: creates a session whose model is initialized or restored and ready.

The checks are TF1's: ``ready_op`` (names of uninitialized variables; empty = ready) must
be empty after initialization or restore, and the ``local_init_op`` runs once
``ready_for_local_init_op`` is empty (the global variables are set).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import errors
from .._core.graph import get_default_graph
from . import saver as _saver

if TYPE_CHECKING:
    from .._core.graph import Graph, Tensor
    from .._core.typing import OpOrTensor
    from ..session import Session
    from ..session_options import ConfigProto, RunOptions
    from .saver import Saver

__all__ = ["SessionManager"]

_log = logging.getLogger("flowrt.train")


def _maybe_name(obj: object) -> str:
    if obj is None:
        return "None"
    return getattr(obj, "name", None) or "<no name for %s>" % type(obj).__name__


def _ready(op: Tensor | None, sess: Session, what: str) -> tuple[bool, str | None]:
    """(True, None) if ``op`` reports nothing uninitialized, else (False, message)."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            raise
        return False, str(e)
    if value is None or np.asarray(value).dtype == np.int32 or np.size(value) == 0:
        return True, None
    names = ", ".join(
        v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in np.asarray(value).reshape(-1)
    )
    return False, "Variables not initialized: " + names


class SessionManager:
    """Creates sessions that are initialized or restored from a checkpoint, and ready.

    Args:
      local_init_op: run in every new session once the global variables are ready.
      ready_op: a 1-D string tensor of the uninitialized variables' names (empty = ready).
      ready_for_local_init_op: the same, checked before ``local_init_op`` runs.
      graph: the graph (default: the default graph).
      recovery_wait_secs: seconds between readiness checks in ``wait_for_session``.
      local_init_feed_dict: feeds for ``local_init_op``.

    ``master`` is a session target: '' runs in-process (a session's variables are then
    its own, so ``wait_for_session`` only succeeds for a model its ``local_init_op``
    makes ready); a cluster task's target shares variables with the chief's session,
    as in TF1.
    """

    def __init__(
        self,
        local_init_op: OpOrTensor | None = None,
        ready_op: Tensor | None = None,
        ready_for_local_init_op: Tensor | None = None,
        graph: Graph | None = None,
        recovery_wait_secs: float = 30,
        local_init_run_options: RunOptions | None = None,
        local_init_feed_dict: dict[Any, Any] | None = None,
    ) -> None:
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph if graph is not None else get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_feed_dict = local_init_feed_dict

    def _new_session(self, master: str, config: ConfigProto | None) -> Session:
        from ..session import Session

        return Session(master, graph=self._graph, config=config)

    def _restore_checkpoint(
        self,
        master,
        saver,
        checkpoint_dir,
        checkpoint_filename_with_path,
        wait_for_checkpoint,
        max_wait_secs,
        config,
    ):
        sess = self._new_session(master, config)
        try:
            if checkpoint_dir and checkpoint_filename_with_path:
                raise ValueError(
                    "Can not provide both checkpoint_dir and checkpoint_filename_with_path."
                )
            if checkpoint_filename_with_path:
                saver.restore(sess, checkpoint_filename_with_path)
                return sess, True
            if not saver or not checkpoint_dir:
                return sess, False
            waited = 0.0
            state = _saver.get_checkpoint_state(checkpoint_dir)
            while not state or not state.model_checkpoint_path:
                if not wait_for_checkpoint or waited >= max_wait_secs:
                    return sess, False
                _log.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                waited += self._recovery_wait_secs
                state = _saver.get_checkpoint_state(checkpoint_dir)
            saver.restore(sess, state.model_checkpoint_path)
            saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
            return sess, True
        except BaseException:
            sess.close()
            raise

    def _try_local_init(self, sess: Session) -> tuple[bool, str | None]:
        if self._local_init_op is None:
            return True, None
        ok, msg = _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")
        if not ok:
            return False, msg
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict)
        return True, None

    def prepare_session(
        self,
        master: str = "",
        init_op: OpOrTensor | None = None,
        saver: Saver | None = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        config: ConfigProto | None = None,
        init_feed_dict: dict[Any, Any] | None = None,
        init_fn: Callable[[Session], Any] | None = None,
    ) -> Session:
        """A new session, restored from the checkpoint if there is one, else initialized.

        Args:
          master: the session target ('' in-process, or a cluster task's).
          init_op: run when nothing was restored.
          saver: the ``Saver`` restoring the checkpoint.
          checkpoint_dir: restore this directory's latest checkpoint, if any.
          checkpoint_filename_with_path: or this checkpoint.
          wait_for_checkpoint: wait (up to ``max_wait_secs``) for a checkpoint to appear.
          max_wait_secs: see ``wait_for_checkpoint``.
          config: the session's ``ConfigProto``.
          init_feed_dict: feeds for ``init_op``.
          init_fn: ``init_fn(sess)`` called after ``init_op`` when nothing was restored.

        Returns:
          A ``Session`` whose model is ready.

        Raises:
          RuntimeError: the model is not ready after initialization.
        """
        sess, restored = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir,
            checkpoint_filename_with_path,
            wait_for_checkpoint,
            max_wait_secs,
            config,
        )
        try:
            if not restored:
                if init_op is None and not init_fn and self._local_init_op is None:
                    raise RuntimeError(
                        "Model is not initialized and no init_op or init_fn or "
                        "local_init_op was given"
                    )
                if init_op is not None:
                    sess.run(init_op, feed_dict=init_feed_dict)
                if init_fn:
                    init_fn(sess)
            ok, msg = self._try_local_init(sess)
            if not ok:
                raise RuntimeError(
                    "Init operations did not make model ready for local_init. "
                    "Init op: %s, init fn: %s, error: %s" % (_maybe_name(init_op), init_fn, msg)
                )
            ok, msg = _ready(self._ready_op, sess, "Model not ready")
            if not ok:
                raise RuntimeError(
                    "Init operations did not make model ready. Init op: %s, "
                    "init fn: %s, local_init_op: %s, error: %s"
                    % (_maybe_name(init_op), init_fn, _maybe_name(self._local_init_op), msg)
                )
        except BaseException:
            sess.close()
            raise
        return sess

    def recover_session(
        self,
        master: str = "",
        saver: Saver | None = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        config: ConfigProto | None = None,
    ) -> tuple[Session, bool]:
        """A new session restored from a checkpoint if possible.

        Returns:
          ``(sess, initialized)``: ``initialized`` is True when the restored model is
          ready.
        """
        sess, restored = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir,
            checkpoint_filename_with_path,
            wait_for_checkpoint,
            max_wait_secs,
            config,
        )
        ok, _ = self._try_local_init(sess)
        if not restored or not ok:
            return sess, False
        ready, msg = _ready(self._ready_op, sess, "Model not ready")
        if not ready:
            _log.info("Restoring model from %s did not make model ready: %s", checkpoint_dir, msg)
            return sess, False
        return sess, True

    def wait_for_session(
        self,
        master: str = "",
        config: ConfigProto | None = None,
        max_wait_secs: float = float("inf"),
    ) -> Session:
        """A new session once its model is ready (checked every ``recovery_wait_secs``).

        Raises:
          DeadlineExceededError: the model was not ready within ``max_wait_secs``.
        """
        deadline = time.monotonic() + max_wait_secs
        while True:
            sess = self._new_session(master, config)
            ok, msg = self._try_local_init(sess)
            if ok:
                ok, msg = _ready(self._ready_op, sess, "Model not ready")
                if ok:
                    return sess
            sess.close()
            left = deadline - time.monotonic()
            if left <= 0 or left < self._recovery_wait_secs:
                raise errors.DeadlineExceededError(
                    None,
                    None,
                    "Session was not ready after waiting %s secs (%s)." % (max_wait_secs, msg),
                )
            _log.info(
                "Waiting for model to be ready. Ready_for_local_init_op: %s, ready: %s",
                _maybe_name(self._ready_for_local_init_op),
                msg,
            )
            time.sleep(self._recovery_wait_secs)
