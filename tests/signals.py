"""A Ctrl-C delivered to this process while a test's block runs."""

import contextlib
import os
import signal
import threading


@contextlib.contextmanager
def ctrl_c_after(seconds: float):
    """Sends SIGINT to this process ``seconds`` into the block, with Python's own
    handler installed (even where the process started with SIGINT ignored, as a
    background job does): the main thread gets KeyboardInterrupt. Restores the
    previous handler after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
