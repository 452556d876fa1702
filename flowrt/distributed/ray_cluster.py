"""Reaching the Ray cluster that hosts flowrt's tasks, and naming the tasks in it.

Every flowrt task has a mailbox (``mailbox.py``), a named Ray actor in the ``flowrt``
namespace, named after its address in the ``ClusterSpec``, by which callers find it; a target string
(``grpc://ADDRESS``, TF1's form, or ``flowrt://ADDRESS``) names the task a session
talks to. Ray is imported only when a
cluster is used.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from .. import errors
from .._core import extras

__all__ = [
    "NAMESPACE",
    "ray_module",
    "connect",
    "actor_name",
    "parse_target",
    "find_actor",
    "unavailable",
]

NAMESPACE = "flowrt"
TARGET_SCHEMES = ("grpc://", "flowrt://")

# The ``config`` of each ``fr.train.Server`` of this process, by task address: TF1's
# ``default_session_config``, whose fields a session on that target does not set apply.
DEFAULT_SESSION_CONFIGS: dict[str, Any] = {}

_connect_lock = threading.Lock()


def ray_module():
    """The ``ray`` module, imported when a cluster is first used (the
    ``flowrt[distributed]`` extra)."""
    return extras.require("ray", "distributed", "A cluster (fr.train.Server, a grpc:// target)")


def connect(address: str | None = None) -> None:
    """Joins this process to a Ray cluster, once.

    ``address`` (or the ``RAY_ADDRESS`` environment variable) names a running
    cluster (``ray start --head`` prints it). With neither, the process joins the
    Ray instance already running on this machine, or starts one; ``"local"`` always
    starts a private one (tests, benchmarks). A local instance
    runs with Ray's token authentication (Ray's default since 2.59), its token file
    ``~/.ray/auth_token`` made 0600 in a 0700 directory; a cluster of
    several machines is started with ``RAY_AUTH_MODE=token`` and shares its token
    (``docs/distributed.md``).
    """
    ray = ray_module()
    with _connect_lock:
        if ray.is_initialized():
            return
        kwargs: dict[str, Any] = {
            "namespace": NAMESPACE,
            "log_to_driver": False,
            "configure_logging": False,
        }
        address = address or os.environ.get("RAY_ADDRESS")
        if address and address != "local":
            ray.init(address=address, **kwargs)
            return
        if not address:
            try:
                ray.init(address="auto", **kwargs)
                return
            except ConnectionError:
                pass
        token_dir = _private_token_dir()
        ray.init(address="local", include_dashboard=False, **kwargs)
        token = os.path.join(token_dir, "auth_token")
        if os.path.exists(token):
            os.chmod(token, 0o600)


def _private_token_dir() -> str:
    """Ray's token directory (``~/.ray``), created or narrowed to mode 0700 before Ray
    starts and writes its token there: Ray writes the token with the process's umask
    (0644 usually), and anyone who can read it can run code in the cluster."""
    d = os.path.join(os.path.expanduser("~"), ".ray")
    os.makedirs(d, mode=0o700, exist_ok=True)
    os.chmod(d, 0o700)
    return d


def actor_name(address: str) -> str:
    return "flowrt-task:" + address


def parse_target(target: str) -> str | None:
    """The task address a session target names, or None for an in-process session.

    Raises:
      InvalidArgumentError: a target of another form.
    """
    if not target or target == "local":
        return None
    for scheme in TARGET_SCHEMES:
        if target.startswith(scheme) and len(target) > len(scheme):
            return target[len(scheme) :]
    raise errors.InvalidArgumentError(
        None,
        None,
        "Session target %r is not supported: use '' (in-process), a "
        "fr.train.Server's .target, or 'grpc://ADDRESS' of a task of a running "
        "cluster" % (target,),
    )


def find_actor(address: str, what: str):
    """The task at ``address``, as a ``mailbox.TaskStub``: its methods are calls of the
    actor that hosts it, or of its mailbox when a driver hosts it (the mailbox says
    which, once).

    Raises:
      UnavailableError: no such task is running (never started, or died).
    """
    from . import mailbox

    ray = ray_module()
    try:
        box = ray.get_actor(actor_name(address), namespace=NAMESPACE)
        return mailbox.find(box, address)
    except ray.exceptions.RayActorError as e:  # it died since: as if never found
        raise unavailable(what, address, e) from None
    except ValueError:
        raise errors.UnavailableError(
            None,
            None,
            "%s (%s) is unavailable: no flowrt server runs for it in the Ray cluster "
            "(start it with fr.train.Server, or restart it if it died)" % (what, address),
        ) from None


def unavailable(what: str, address: str, cause: BaseException) -> errors.UnavailableError:
    """The error of a run that needed a task whose process died."""
    return errors.UnavailableError(
        None,
        None,
        "%s (%s) is unavailable: its process died or was stopped during the run (%s)"
        % (what, address, type(cause).__name__),
    )
