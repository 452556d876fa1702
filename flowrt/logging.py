"""``fr.logging``: TF1's ``tf.logging``, on Python's ``logging`` with the logger
``fr.get_logger()`` returns (named ``flowrt``; flowrt's own modules log under it).

The levels are the standard library's (``DEBUG`` 10, ``INFO`` 20, ``WARN`` 30,
``ERROR`` 40, ``FATAL`` 50), as in TF; ``set_verbosity`` sets the logger's level.
"""

from __future__ import annotations

import logging as _logging
import sys
import threading
from typing import Any

__all__ = [
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "debug",
    "error",
    "fatal",
    "flush",
    "get_logger",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "vlog",
    "warn",
    "warning",
]

DEBUG, INFO, WARN, ERROR, FATAL = (
    _logging.DEBUG,
    _logging.INFO,
    _logging.WARN,
    _logging.ERROR,
    _logging.FATAL,
)

_logger = _logging.getLogger("flowrt")
_counts: dict = {}
_counts_lock = threading.Lock()


def get_logger() -> _logging.Logger:
    """The ``flowrt`` logger: what ``fr.logging`` writes to, and the parent of flowrt's
    own loggers (``flowrt.train``, ...)."""
    return _logger


def set_verbosity(v: int) -> None:
    """Logs messages of level ``v`` and above (``fr.logging.INFO``, ...)."""
    _logger.setLevel(v)


def get_verbosity() -> int:
    """The level ``set_verbosity`` set (Python's default, WARN, if none)."""
    return _logger.getEffectiveLevel()


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at FATAL (CRITICAL); as in TF, the program goes on."""
    _logger.critical(msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """``log`` under TF's name for verbose logging."""
    _logger.log(level, msg, *args, **kwargs)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    """Logs ``msg`` when ``condition`` is true."""
    if condition:
        _logger.log(level, msg, *args)


def _caller_key() -> tuple:
    frame = sys._getframe(2)
    return frame.f_code.co_filename, frame.f_lineno


def _count(key: tuple) -> int:
    with _counts_lock:
        n = _counts.get(key, 0)
        _counts[key] = n + 1
    return n


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs ``msg`` the 1st, (n+1)th, (2n+1)th... time this line runs."""
    if _count(_caller_key()) % max(int(n), 1) == 0:
        _logger.log(level, msg, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs ``msg`` the first ``n`` times this line runs."""
    if _count(_caller_key()) < n:
        _logger.log(level, msg, *args)


def flush() -> None:
    """Flushes the logger's handlers (and the root logger's)."""
    for h in _logger.handlers + _logging.getLogger().handlers:
        h.flush()
