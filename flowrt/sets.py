"""``fr.sets``: TF1's ``tf.sets`` namespace (with TF's short aliases). Definitions live
in ``flowrt/ops/set_ops.py``; this module only re-exports."""

from .ops.set_ops import set_difference, set_intersection, set_size, set_union

difference = set_difference
intersection = set_intersection
size = set_size
union = set_union

__all__ = [
    "difference",
    "intersection",
    "set_difference",
    "set_intersection",
    "set_size",
    "set_union",
    "size",
    "union",
]
