"""``fr.test.TestCase`` and the module functions of TF1's ``tf.test``."""

from __future__ import annotations

import contextlib
import math
import random
import re
import shutil
import sys
import tempfile
import unittest
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import errors
from .._core.graph import Graph, Tensor, get_default_graph, get_default_session, reset_default_graph
from ..session import Session
from ..session_options import ConfigProto
from ..testing.asserts import assert_all_close, assert_all_equal

if TYPE_CHECKING:
    from .._core.typing import DTypeLike

__all__ = [
    "TestCase",
    "main",
    "is_gpu_available",
    "gpu_device_name",
    "is_built_with_cuda",
    "get_temp_dir",
]

DEFAULT_GRAPH_SEED = 87654321
"""The graph seed each test starts with, as TF1's ``random_seed.DEFAULT_GRAPH_SEED``."""

_temp_dir: str | None = None


def get_temp_dir() -> str:
    """A temporary directory for this process's tests, removed at exit.

    Returns:
      The directory's path (the same one on every call).
    """
    global _temp_dir
    if _temp_dir is None:
        _temp_dir = tempfile.mkdtemp(prefix="flowrt_test_")
        import atexit

        atexit.register(shutil.rmtree, _temp_dir, True)
    return _temp_dir


def main(argv: Sequence[str] | None = None) -> None:
    """Runs the tests of ``__main__`` (``unittest.main``), as ``tf.test.main()``.

    Args:
      argv: command-line arguments; ``sys.argv`` if None.
    """
    unittest.main(module="__main__", argv=list(argv) if argv is not None else sys.argv)


def is_gpu_available(
    cuda_only: bool = False, min_cuda_compute_capability: tuple[int, int] | None = None
) -> bool:
    """Whether a GPU is available: always False.

    Note (flowrt): flowrt runs on the CPU only.
    """
    return False


def gpu_device_name() -> str:
    """The name of a GPU device: always ``""`` (flowrt runs on the CPU only)."""
    return ""


def is_built_with_cuda() -> bool:
    """Whether flowrt was built with CUDA: always False."""
    return False


class TestCase(unittest.TestCase):
    """A ``unittest.TestCase`` with TF1's ``tf.test.TestCase`` helpers.

    Each test starts with a fresh default graph whose seed is ``87654321`` (as TF1's),
    and NumPy's and Python's global random generators seeded likewise. ``session()``
    and ``cached_session()`` return sessions on the default graph (or ``graph``) that
    are also the default session inside their ``with`` block.

    Example:
      class SquareTest(fr.test.TestCase):
          def testSquare(self):
              with self.cached_session():
                  x = fr.square([2, 3])
                  self.assertAllEqual(x.eval(), [4, 9])

    Note (flowrt): ``use_gpu``/``force_gpu`` are accepted and ignored (CPU only);
    ``force_gpu=True`` skips the test.
    """

    def __init__(self, methodName: str = "runTest"):
        super().__init__(methodName)
        self._cached_session: Session | None = None
        self._tempdir: str | None = None

    def setUp(self) -> None:
        super().setUp()
        self._cached_session = None
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        reset_default_graph()
        get_default_graph().seed = DEFAULT_GRAPH_SEED

    def tearDown(self) -> None:
        self._clear_cached_session()
        super().tearDown()

    def _clear_cached_session(self) -> None:
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    def get_temp_dir(self) -> str:
        """A temporary directory of this test (the same one within a test), removed
        after it."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(dir=get_temp_dir())
            self.addCleanup(shutil.rmtree, self._tempdir, True)
            self.addCleanup(setattr, self, "_tempdir", None)
        return self._tempdir

    # --- sessions -----------------------------------------------------------------

    @contextlib.contextmanager
    def _as_default(self, sess: Session) -> Iterator[Session]:
        with sess.graph.as_default(), sess.as_default():
            yield sess

    @contextlib.contextmanager
    def session(
        self,
        graph: Graph | None = None,
        config: ConfigProto | None = None,
        use_gpu: bool = False,
        force_gpu: bool = False,
    ) -> Iterator[Session]:
        """A new session on ``graph`` (the default graph if None), closed at the end of
        the block; inside it, the default session and its graph the default graph.

        Args:
          graph: the graph to run.
          config: a ``ConfigProto``.
          use_gpu: ignored (CPU only).
          force_gpu: skips the test: flowrt has no GPU.

        Yields:
          The session.
        """
        if force_gpu:
            self.skipTest("force_gpu: flowrt runs on the CPU only")
        with Session(graph=graph, config=config) as sess, self._as_default(sess):
            yield sess

    @contextlib.contextmanager
    def cached_session(
        self,
        graph: Graph | None = None,
        config: ConfigProto | None = None,
        use_gpu: bool = False,
        force_gpu: bool = False,
    ) -> Iterator[Session]:
        """The test's one session, made on first use and closed after the test; inside
        the block it is the default session and its graph the default graph.

        Args:
          graph: the graph to run (the default graph if None); every call in a test
            must use the same graph.
          config: a ``ConfigProto`` (used when the session is made).
          use_gpu: ignored (CPU only).
          force_gpu: skips the test: flowrt has no GPU.

        Yields:
          The session.

        Raises:
          ValueError: if a later call names another graph than the first.
        """
        if force_gpu:
            self.skipTest("force_gpu: flowrt runs on the CPU only")
        if self._cached_session is None:
            self._cached_session = Session(graph=graph, config=config)
        elif graph is not None and self._cached_session.graph is not graph:
            raise ValueError(
                "The graph used to get the cached session is different than "
                "the one that was used to create the session. Maybe create a "
                "new session with self.session()"
            )
        with self._as_default(self._cached_session) as sess:
            yield sess

    def test_session(
        self,
        graph: Graph | None = None,
        config: ConfigProto | None = None,
        use_gpu: bool = False,
        force_gpu: bool = False,
    ) -> contextlib.AbstractContextManager[Session]:
        """The cached session (TF1's deprecated name for ``cached_session``)."""
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")  # unittest collects it by its name, as in TF1
        return self.cached_session(graph, config, use_gpu, force_gpu)

    test_session.__test__ = False  # type: ignore[attr-defined]  # not a test for pytest

    def evaluate(self, tensors: Any) -> Any:
        """Runs ``tensors`` (any nest of them) in the default session, or in the
        cached session when there is no default one.

        Returns:
          Their values, in the same structure.
        """
        sess = get_default_session()
        if sess is not None:
            return sess.run(tensors)
        with self.cached_session() as sess:
            return sess.run(tensors)

    # --- assertions -----------------------------------------------------------------

    def _value(self, x: Any) -> Any:
        if isinstance(x, Tensor):
            return self.evaluate(x)
        return x

    def assertAllClose(
        self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: str | None = None
    ) -> None:
        """Asserts ``a`` and ``b`` (arrays, or nests of dicts/lists/tuples of them)
        are elementwise close: ``|a - b| <= atol + rtol * |b|``, NaN equal to NaN.
        float16 values use tolerances of at least 1e-3, as TF1. A tensor is evaluated
        first."""
        assert_all_close(self._value(a), self._value(b), rtol=rtol, atol=atol, msg=msg)

    def assertAllCloseAccordingToType(
        self,
        a: Any,
        b: Any,
        rtol: float = 1e-6,
        atol: float = 1e-6,
        float_rtol: float = 1e-6,
        float_atol: float = 1e-6,
        half_rtol: float = 1e-3,
        half_atol: float = 1e-3,
        bfloat16_rtol: float = 1e-2,
        bfloat16_atol: float = 1e-2,
        msg: str | None = None,
    ) -> None:
        """``assertAllClose`` with tolerances raised to the given ones for float32 and
        float16 values."""
        a, b = np.asarray(self._value(a)), np.asarray(self._value(b))
        if np.float32 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.float16 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        assert_all_close(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(
        self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: str | None = None
    ) -> None:
        """Asserts ``a`` and ``b`` are not elementwise close."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are close at all elements")

    def assertAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:
        """Asserts ``a`` and ``b`` have the same shape and elements (strings compare
        as text). A tensor is evaluated first."""
        assert_all_equal(self._value(a), self._value(b), msg=msg)

    def assertNotAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:
        """Asserts ``a`` and ``b`` differ in shape or in some element."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are equal at all elements")

    def _compare_all(
        self, a: Any, comparison: Callable[[np.ndarray], np.ndarray], text: str
    ) -> None:
        arr = np.asarray(self._value(a))
        ok = np.asarray(comparison(arr))
        if not ok.all():
            i = tuple(int(k) for k in np.argwhere(~ok)[0]) if ok.ndim else ()
            raise AssertionError(
                "%d of %d element(s) not %s; first at index %s: %r"
                % (int((~ok).sum()), ok.size, text, list(i), arr[i].item())
            )

    def assertAllGreater(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of ``a`` is greater than ``comparison_target``."""
        self._compare_all(a, lambda x: x > comparison_target, "> %r" % (comparison_target,))

    def assertAllGreaterEqual(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of ``a`` is at least ``comparison_target``."""
        self._compare_all(a, lambda x: x >= comparison_target, ">= %r" % (comparison_target,))

    def assertAllLess(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of ``a`` is less than ``comparison_target``."""
        self._compare_all(a, lambda x: x < comparison_target, "< %r" % (comparison_target,))

    def assertAllLessEqual(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of ``a`` is at most ``comparison_target``."""
        self._compare_all(a, lambda x: x <= comparison_target, "<= %r" % (comparison_target,))

    def assertAllInRange(
        self,
        target: Any,
        lower_bound: float,
        upper_bound: float,
        open_lower_bound: bool = False,
        open_upper_bound: bool = False,
    ) -> None:
        """Asserts every element of ``target`` lies in the range, bounds included
        unless ``open_lower_bound``/``open_upper_bound``.

        Raises:
          AssertionError: if ``target`` is not numeric, or an element is out of range.
        """
        arr = np.asarray(self._value(target))
        if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
            raise AssertionError(
                "The value of %s does not have an ordered numeric type, "
                "instead it has type: %s" % (target, arr.dtype)
            )
        lo = "(" if open_lower_bound else "["
        hi = ")" if open_upper_bound else "]"
        low_ok = arr > lower_bound if open_lower_bound else arr >= lower_bound
        high_ok = arr < upper_bound if open_upper_bound else arr <= upper_bound
        ok = np.asarray(low_ok & high_ok)
        if not ok.all():
            i = tuple(int(k) for k in np.argwhere(~ok)[0]) if ok.ndim else ()
            raise AssertionError(
                "%d of %d element(s) are outside the range %s%s, %s%s; "
                "first at index %s: %r"
                % (
                    int((~ok).sum()),
                    ok.size,
                    lo,
                    lower_bound,
                    upper_bound,
                    hi,
                    list(i),
                    arr[i].item(),
                )
            )

    def assertArrayNear(
        self, farray1: Sequence[float], farray2: Sequence[float], err: float, msg: str | None = None
    ) -> None:
        """Asserts two float lists have the same length and each pair of elements
        differs by at most ``err``."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for i, (f1, f2) in enumerate(zip(farray1, farray2)):
            self.assertNear(
                float(f1), float(f2), err, msg="%sat index %d" % ((msg + ": ") if msg else "", i)
            )

    def assertNear(self, f1: float, f2: float, err: float, msg: str | None = None) -> None:
        """Asserts ``|f1 - f2| <= err`` (NaN never near anything)."""
        self.assertTrue(
            f1 == f2 or math.fabs(f1 - f2) <= err,
            "%f != %f +/- %f%s" % (f1, f2, err, " (%s)" % msg if msg else ""),
        )

    def assertNDArrayNear(
        self, ndarray1: Any, ndarray2: Any, err: float, msg: str | None = None
    ) -> None:
        """Asserts two arrays are elementwise within ``err`` (``np.allclose`` with
        ``rtol=err, atol=err``, as TF1)."""
        self.assertTrue(
            np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) <= err
            or np.allclose(ndarray1, ndarray2, rtol=err, atol=err),
            msg=msg,
        )

    def assertShapeEqual(
        self, np_array: np.ndarray | np.generic, tf_tensor: Tensor, msg: str | None = None
    ) -> None:
        """Asserts a NumPy array's shape equals a tensor's static shape.

        Raises:
          TypeError: if ``np_array`` is not a NumPy array or scalar, or ``tf_tensor``
            not a ``fr.Tensor``.
        """
        if not isinstance(np_array, (np.ndarray, np.generic)):
            raise TypeError("np_array must be a Numpy ndarray or Numpy scalar")
        if not isinstance(tf_tensor, Tensor):
            raise TypeError("tf_tensor must be a Tensor")
        self.assertAllEqual(np_array.shape, tf_tensor.get_shape().as_list(), msg=msg)

    def assertDTypeEqual(self, target: npt.ArrayLike, expected_dtype: DTypeLike) -> None:
        """Asserts every element of ``target`` has ``expected_dtype``."""
        raw: Any = getattr(expected_dtype, "as_numpy_dtype", expected_dtype)
        want = np.dtype(raw)
        arr = np.asarray(target)
        self.assertEqual(arr.dtype, want)

    def assertStartsWith(self, actual: str, expected_start: str, msg: str | None = None) -> None:
        """Asserts ``actual`` starts with ``expected_start``."""
        if not actual.startswith(expected_start):
            self.fail(
                "Did not start with '%s' : '%s'%s"
                % (expected_start, actual, " : %s" % msg if msg else "")
            )

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(
        self, exception_type: type[BaseException], expected_err_re_or_predicate: Any
    ) -> Iterator[None]:
        """A block that must raise ``exception_type`` matching a regex or predicate.

        Args:
          exception_type: the expected exception class.
          expected_err_re_or_predicate: a callable taking the exception and returning
            True when it matches, or a regex searched in its message (for an
            ``fr.errors.OpError``, its ``.message`` followed by ``Caused by: <op>``).

        Raises:
          AssertionError: when nothing, or something else, is raised.
        """
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:

            def predicate(e: BaseException) -> bool:
                if isinstance(e, errors.OpError):
                    err_str = e.message
                    if e.op is not None:
                        err_str += "\nCaused by: " + e.op.name
                else:
                    err_str = str(e)
                return re.search(expected_err_re_or_predicate, err_str) is not None

        try:
            yield
        except Exception as e:  # any exception is checked below
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError("Exception of type %s: %s" % (str(type(e)), str(e))) from e
            return
        self.fail(exception_type.__name__ + " not raised")

    def assertRaisesOpError(
        self, expected_err_re_or_predicate: Any
    ) -> contextlib.AbstractContextManager[None]:
        """A block that must raise an ``fr.errors.OpError`` matching the regex or
        predicate (see ``assertRaisesWithPredicateMatch``)."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)
