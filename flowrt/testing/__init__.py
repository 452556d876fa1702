"""``flowrt.testing``: helpers for testing flowrt programs, and a pytest plugin.

Installing flowrt registers the plugin (``flowrt.testing.plugin``) through pytest's
``pytest11`` entry point, so these fixtures and the stall guard are there in every
pytest run, with no ``conftest.py``:

- ``fr_graph``: a fresh default graph whose seed is derived from the test id;
- ``fr_session``: a ``Session`` on it, closed after the test, failing the test if a
  queue-runner thread or a run is still alive;
- ``fr_asession``: the same for ``async def`` tests under pytest-trio;
- ``fr_tmp_logdir``: a fresh directory for event files and checkpoints;
- ``fr_seed``: the test's graph seed;
- ``@pytest.mark.fr_timeout(seconds)``: fail a hung test after ``seconds`` with the
  blocked runs, the queues they wait on and the runners feeding them (ini default:
  ``fr_timeout``, 300 s; 0 turns the guard off).

See docs/testing.md.
"""

from ..train.queue_runner import LiveRunner, live_runners
from .asserts import assert_all_close, assert_all_equal
from .report import open_sessions, pipeline_report
from .seeds import seed_for

__all__ = [
    "assert_all_close",
    "assert_all_equal",
    "pipeline_report",
    "open_sessions",
    "live_runners",
    "LiveRunner",
    "seed_for",
]
