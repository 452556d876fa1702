"""Comparing values that went through the C library's transcendental functions.

``exp``, ``log``, ``sin``, ``cos``, ``pow``... are not correctly rounded: each libm
(glibc, musl, macOS's), numpy's own SIMD loops (AVX2, AVX-512, NEON) and numba's
builds of them may return a neighbouring float for the same input, and do on real
machines (numpy's AVX-512 ``power`` differs from glibc's ``pow`` by an ulp on a few
percent of inputs). A test of such values, whether against TF's recorded results or a
numpy reference, must hold on any CPU: it compares within a few ulps, not bit for bit.
"""

import numpy as np


def assert_within_ulps(got, want, ulps: float, scale: float = 0.0) -> None:
    """``got`` equals ``want`` (same dtype and shape) within ``ulps`` units in the last
    place of each value, and within ``ulps`` ulps of ``scale`` (the magnitude of the
    terms that were added to make the value, when it is smaller than them:
    ``mean + stddev * z`` has the error of ``stddev * z``, not of its sum)."""
    got = np.asarray(got)
    want = np.asarray(want, dtype=got.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    eps = float(np.finfo(got.dtype).eps)
    np.testing.assert_allclose(
        got.astype(np.float64),
        want.astype(np.float64),
        rtol=ulps * eps,
        atol=ulps * eps * scale,
    )


def assert_tfs_normals(got, want, scale=4.0):
    """``got`` is TF's normal draw ``want`` (Box-Muller: ``sqrt(-2 log u1) * sin(2 pi
    u2)``) up to the C library: its ``log``, ``sin`` and ``cos`` are faithful, not
    correctly rounded, so another machine's (TF's when it recorded ``want``, ours now)
    may differ by an ulp in each, a few ulps in the product (module docstring). A
    float16 draw is a float32 one rounded, so within one half-precision ulp. ``scale``
    bounds ``|mean| + stddev * |z|``, the terms of a value near 0."""
    ulps = 1 if np.asarray(got).dtype == np.float16 else 4
    assert_within_ulps(got, want, ulps, scale)
