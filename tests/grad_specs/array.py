"""Gradient specs for the array family (structural ops: transpose, concat, gather, ...)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(7)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((3, 2))
C = _r.standard_normal((2, 3, 4))
V = _r.standard_normal((5,))

SPECS = [
    GradSpec("GatherNd", lambda x: fr.gather_nd(x, [[2, 1], [0, 3], [2, 1]]), [A]),
    GradSpec("GatherNd", lambda x: fr.gather_nd(x, [[[1], [0]]]), [C], id="GatherNd-slices"),
    GradSpec(
        "ScatterNd",
        lambda u: fr.scatter_nd([[1, 0], [1, 0], [2, 3]], u, [3, 4]),
        [V[:3]],
        id="ScatterNd-duplicates",
    ),
    GradSpec("Transpose", fr.transpose, [A]),
    GradSpec("Transpose", lambda x: fr.transpose(x, [1, 2, 0]), [C], id="Transpose-perm"),
    GradSpec("ConcatV2", lambda x, y: fr.concat([x, y, x], 1), [A, B]),
    GradSpec("ConcatV2", lambda x, y: fr.concat([x, y], -1), [A, B], id="ConcatV2-neg-axis"),
    GradSpec("Unpack", lambda x: fr.unstack(x, axis=1)[1] * 2.0 + fr.unstack(x, axis=1)[3], [A]),
    GradSpec("Split", lambda x: fr.split(x, 2, axis=1)[1], [A]),
    GradSpec("SplitV", lambda x: fr.split(x, [1, -1], axis=2)[1] * fr.split(x, [1, 3], 2)[0], [C]),
    GradSpec("ExpandDims", lambda x: fr.expand_dims(x, 1), [A]),
    GradSpec("Squeeze", lambda x: fr.squeeze(x, [0]), [A[None]]),
    GradSpec("ReverseV2", lambda x: fr.reverse(x, [0, 1]), [A]),
    GradSpec("GatherV2", lambda x: fr.gather(x, [2, 0, 2]), [A], id="GatherV2-axis0"),
    GradSpec(
        "GatherV2", lambda x: fr.gather(x, [[3, 1], [1, 1]], axis=1), [A], id="GatherV2-axis1"
    ),
    GradSpec("GatherV2", lambda x: fr.gather(x, 2, axis=2), [C], id="GatherV2-axis2-scalar"),
    GradSpec("Slice", lambda x: fr.slice(x, [1, 1], [2, -1]), [A]),
    GradSpec("StridedSlice", lambda x: x[1:, ::-2], [A]),
    GradSpec("StridedSlice", lambda x: x[-1, ..., None, 1:3], [C], id="StridedSlice-mixed"),
    GradSpec("Tile", lambda x: fr.tile(x, [2, 1, 3]), [C]),
    GradSpec("Pad", lambda x: fr.pad(x, [[1, 0], [2, 1]]), [A]),
    GradSpec("PadV2", lambda x: fr.pad(x, [[0, 1], [1, 1]], constant_values=3.0), [A]),
    GradSpec("MirrorPad", lambda x: fr.pad(x, [[2, 1], [1, 3]], "REFLECT"), [A]),
    GradSpec(
        "MirrorPad", lambda x: fr.pad(x, [[3, 1]], "symmetric"), [V], id="MirrorPad-symmetric"
    ),
    GradSpec("GatherV2", lambda x: fr.boolean_mask(x, [True, False, True]), [A], id="boolean_mask"),
]
