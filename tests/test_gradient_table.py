"""Every registered op with a gradient rule is checked numerically (tests/grad_specs)."""

import pytest

from flowrt._core.registry import _GRADIENTS, NOT_DIFFERENTIABLE, registered_ops
from tests.grad_specs import all_specs
from tests.gradcheck import check_gradient

SPECS = all_specs()

# Internal helper types whose gradient is exercised through the ops that emit them.
_COVERED_ELSEWHERE = {"ProdOthers", "StridedFirst"}


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_gradient_matches_finite_differences(spec):
    check_gradient(spec)


def test_every_op_with_a_gradient_has_a_spec():
    have = {s.op_type for s in SPECS}
    ops = registered_ops()  # not gradient_override_map names a test registers
    missing = sorted(
        t
        for t, g in _GRADIENTS.items()
        if g is not NOT_DIFFERENTIABLE
        and g is not None
        and t in ops
        and t not in have
        and t not in _COVERED_ELSEWHERE
    )
    assert not missing, "ops with a gradient rule but no row in tests/grad_specs: %s" % missing
