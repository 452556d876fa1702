"""Array assertions with TensorFlow's tolerances and a message naming the first mismatch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["assert_all_close", "assert_all_equal", "tolerances_for"]

# TF1's tf.test.TestCase.assertAllClose raises rtol and atol to these for low-precision
# dtypes (float16: 1e-3); float32 and float64 keep the caller's values (default 1e-6).
_HALF_TOLERANCE = 1e-3


def tolerances_for(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> tuple[float, float]:
    """The ``(rtol, atol)`` TF uses to compare ``a`` and ``b``: at least 1e-3 for float16."""
    if np.float16 in (a.dtype, b.dtype):
        return max(rtol, _HALF_TOLERANCE), max(atol, _HALF_TOLERANCE)
    return rtol, atol


def _as_array(x: Any) -> np.ndarray:
    if hasattr(x, "numpy") and callable(x.numpy):
        x = x.numpy()
    if type(x).__name__ in ("Tensor", "Operation") and hasattr(x, "graph"):
        raise TypeError(
            "assert_all_close compares values, got the graph tensor %r; run it "
            "first (sess.run(t) or self.evaluate(t))" % (x,)
        )
    return np.asarray(x)


def _where(path: str) -> str:
    return (" at %s" % path) if path else ""


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _check_shapes(a: np.ndarray, b: np.ndarray, path: str, msg: str | None) -> None:
    if a.shape != b.shape:
        raise AssertionError(
            _join(msg, "Shape mismatch%s: expected %s, got %s." % (_where(path), b.shape, a.shape))
        )


def _join(msg: str | None, text: str) -> str:
    return "%s\n%s" % (text, msg) if msg else text


def _close(a: Any, b: Any, rtol: float, atol: float, path: str, msg: str | None) -> None:
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)):
            raise AssertionError(
                _join(
                    msg,
                    "Can't compare a dict with a non-dict%s: %r vs %r"
                    % (_where(path), type(a), type(b)),
                )
            )
        if set(a) != set(b):
            raise AssertionError(
                _join(
                    msg,
                    "Mismatched keys%s: %s vs %s"
                    % (_where(path), sorted(map(str, a)), sorted(map(str, b))),
                )
            )
        for k in a:
            _close(a[k], b[k], rtol, atol, "%s[%r]" % (path, k), msg)
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        # As TF: a list or tuple is compared as one array when it makes one, else
        # (ragged, or holding dicts) element by element.
        a_arr, b_arr = _try_array(a), _try_array(b)
        if a_arr is None or b_arr is None:
            if len(a) != len(b):
                raise AssertionError(
                    _join(msg, "Length mismatch%s: %d vs %d" % (_where(path), len(a), len(b)))
                )
            for i, (x, y) in enumerate(zip(a, b)):
                _close(x, y, rtol, atol, "%s[%d]" % (path, i), msg)
            return
    a_arr, b_arr = _as_array(a), _as_array(b)
    _check_shapes(a_arr, b_arr, path, msg)
    rtol, atol = tolerances_for(a_arr, b_arr, rtol, atol)
    if a_arr.dtype.kind in "OSUb" or b_arr.dtype.kind in "OSUb":
        _equal_arrays(a_arr, b_arr, path, msg)
        return
    a64, b64 = a_arr.astype(np.float64), b_arr.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a64 - b64)
        bad = ~(
            (diff <= atol + rtol * np.abs(b64))
            | (np.isnan(a64) & np.isnan(b64))
            | ((a64 == b64) & np.isinf(a64))
        )
    if bad.any():
        first = _first(bad)
        raise AssertionError(
            _join(
                msg,
                (
                    "Not equal to tolerance rtol=%g, atol=%g%s: %d of %d element(s) differ; "
                    "first at index %s: a=%r, b=%r (|a - b| = %g > atol + rtol * |b| = %g)"
                )
                % (
                    rtol,
                    atol,
                    _where(path),
                    int(bad.sum()),
                    bad.size,
                    list(first),
                    a_arr[first].item(),
                    b_arr[first].item(),
                    diff[first],
                    atol + rtol * abs(b64[first]),
                ),
            )
        )


def _try_array(x: Any) -> np.ndarray | None:
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError):
        return None
    return None if arr.dtype == object and any(isinstance(e, Mapping) for e in x) else arr


def _equal_arrays(a: np.ndarray, b: np.ndarray, path: str, msg: str | None) -> None:
    if a.dtype.kind in "OSU" or b.dtype.kind in "OSU":
        a, b = _decoded(a), _decoded(b)
    same = a == b
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        same = same | (np.isnan(a) & np.isnan(b))
    same = np.asarray(same)
    if same.shape != a.shape:
        raise AssertionError(_join(msg, "Can't compare%s: %r vs %r" % (_where(path), a, b)))
    if not same.all():
        i = _first(~same)
        raise AssertionError(
            _join(
                msg,
                "Arrays not equal%s: %d of %d element(s) differ; "
                "first at index %s: a=%r, b=%r"
                % (
                    _where(path),
                    int((~same).sum()),
                    same.size,
                    list(i),
                    a[i].item() if hasattr(a[i], "item") else a[i],
                    b[i].item() if hasattr(b[i], "item") else b[i],
                ),
            )
        )


def _decoded(x: np.ndarray) -> np.ndarray:
    def dec(v: Any) -> Any:
        return v.decode("utf-8", "replace") if isinstance(v, bytes) else v

    return np.vectorize(dec, otypes=[object])(x) if x.size else x.astype(object)


def assert_all_close(
    a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: str | None = None
) -> None:
    """Asserts two arrays (or nests of them) are elementwise close, as TF's
    ``assertAllClose``: ``|a - b| <= atol + rtol * |b|``, NaN equal to NaN.

    Args:
      a: the value obtained: an array-like, or a dict/list/tuple/namedtuple of them.
      b: the value expected, of the same structure and shapes.
      rtol: relative tolerance (raised to 1e-3 when either side is float16, as TF does).
      atol: absolute tolerance (likewise).
      msg: extra text for the failure message.

    Raises:
      AssertionError: naming the shapes when they differ, else the count of differing
        elements and the first one's index and values.

    Note (flowrt): the message names the first mismatching index instead of TF's dump of
    every mismatching element.
    """
    __tracebackhide__ = True
    _close(a, b, rtol, atol, "", msg)


def assert_all_equal(a: Any, b: Any, msg: str | None = None) -> None:
    """Asserts two arrays are equal in shape and every element, as TF's ``assertAllEqual``.

    Bytes and str elements compare as text (``b"a" == "a"``), as TF's string tensors do.

    Args:
      a: the value obtained (array-like).
      b: the value expected (array-like).
      msg: extra text for the failure message.

    Raises:
      AssertionError: naming the shapes when they differ, else the count of differing
        elements and the first one's index and values.
    """
    __tracebackhide__ = True
    a_arr, b_arr = _as_array(a), _as_array(b)
    _check_shapes(a_arr, b_arr, "", msg)
    _equal_arrays(a_arr, b_arr, "", msg)
