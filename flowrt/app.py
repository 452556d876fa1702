"""``fr.app``: TF1's ``tf.app``, a program's entry point on absl (as TF's is).

``fr.app.run(main)`` parses the command line into ``fr.flags.FLAGS`` (flags it does
not know are left in ``argv``, as TF1 tolerates them), then calls ``main(argv)`` and
exits with its return value.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from . import flags
from ._core import extras

# absl-py is the ``flowrt[app]`` extra: a clear error when it is absent.
_absl_app = extras.require("absl.app", "app", "fr.app")

__all__ = ["run"]


def _parse_flags_tolerate_undef(argv: list) -> list:
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)


def run(main: Callable[[list], Any] | None = None, argv: list | None = None) -> None:
    """Runs ``main`` (the ``__main__`` module's ``main`` when None) with the arguments
    left after flag parsing, then exits the program with what it returns."""
    main = main or sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
