"""Placement against TF 2.21 for real: the programs of tests/data/placement_programs.py
built in flowrt place their ops where TF placed them (tests/data/placement_tf1.json,
written by tests/data/record_placement.py). TensorFlow is not imported here.

What is compared: every op TF made that flowrt makes too (same name and type): its device
and its colocation groups (``_class``). Ops only TF makes are TF 2.x's own structure
(a new ``ReadVariableOp`` per use of a variable, where flowrt reads one snapshot; its
gradient graph's ``tuple/control_dependency`` identities; Adam's ``beta1_power``
update written as ``Mul`` + ``AssignVariableOp`` where flowrt has one
``AssignMulVariableOp``, compared by role below). Ops only flowrt makes must be on a
device TF uses for ops of the same top-level name scope.
"""

import importlib.util
import json
from pathlib import Path

import pytest

import flowrt as fr

DATA = Path(__file__).resolve().parent / "data"
RECORDED = json.loads((DATA / "placement_tf1.json").read_text())["programs"]


def _programs():
    spec = importlib.util.spec_from_file_location(
        "placement_programs", DATA / "placement_programs.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PROGRAMS = _programs()

# flowrt op name -> the TF op with the same role, when the two graphs differ there.
SAME_ROLE = {
    "Adam/AssignMulVariableOp": "Adam/AssignVariableOp",
    "Adam/AssignMulVariableOp_1": "Adam/AssignVariableOp_1",
    # embedding_lookup's gather from each shard (TF's ResourceGather)
    "rows/GatherV2": "rows/Gather",
    "rows/GatherV2_1": "rows/Gather_1",
    "rows/GatherV2_2": "rows/Gather_2",
}


# The share of TF's ops compared (same name and type in flowrt) below which a program's
# comparison would say too little. TF's partitioned embedding_lookup (DynamicPartition,
# ParallelDynamicStitch) and the deduplication of its sparse updates have no namesake in
# flowrt's fused ShardIds/StitchRows; their variables, updates and per-shard gathers are
# compared.
COVERAGE = {"partitioned_and_scoped": 0.4}


def _must_exist(name: str, op_type: str) -> bool:
    """TF ops of a variable's or optimizer's placement that flowrt must make too."""
    if op_type == "ReadVariableOp":
        return name.endswith("/Read/ReadVariableOp")  # the others are TF2's per-use reads
    return op_type in ("VarHandleOp", "AssignVariableOp", "VarIsInitializedOp") or (
        op_type.startswith("ResourceApply") or op_type == "AssignAddVariableOp"
    )


def _tf_structure(name: str, op_type: str) -> bool:
    """TF ops with no flowrt counterpart by design: per-use variable reads and the
    ``tuple/control_dependency`` identities of TF's gradients."""
    per_use_read = op_type == "ReadVariableOp" and not name.endswith("/Read/ReadVariableOp")
    return per_use_read or "/tuple/" in name


def _build(name):
    g = fr.Graph()
    with g.as_default():
        facts = PROGRAMS.PROGRAMS[name](fr)
    return facts, PROGRAMS.placement(g)


@pytest.mark.parametrize("name", sorted(PROGRAMS.PROGRAMS))
def test_ops_are_placed_as_tf_places_them(name):
    recorded = RECORDED[name]
    tf_ops = recorded["ops"]
    facts, ours = _build(name)
    assert facts == recorded["facts"]
    wrong, missing, compared = [], [], 0
    for op_name, (op_type, device, groups) in tf_ops.items():
        mine = ours.get(op_name)
        if mine is None or mine[0] != op_type:
            if _must_exist(op_name, op_type) and op_name not in SAME_ROLE.values():
                missing.append((op_name, op_type, mine))
            continue
        compared += 1
        if mine[1:] != [device, groups]:
            wrong.append((op_name, op_type, "tf:", device, groups, "flowrt:", *mine[1:]))
    for ours_name, tf_name in SAME_ROLE.items():
        if ours_name in ours and tf_name in tf_ops:
            compared += 1
            if ours[ours_name][1:] != tf_ops[tf_name][1:]:
                wrong.append((ours_name, "as", tf_name, tf_ops[tf_name][1:], ours[ours_name][1:]))
    assert wrong == [] and missing == []
    comparable = [n for n, (t, _, _) in tf_ops.items() if not _tf_structure(n, t)]
    assert compared >= COVERAGE.get(name, 0.8) * len(comparable), (compared, len(comparable))


@pytest.mark.parametrize("name", sorted(PROGRAMS.PROGRAMS))
def test_ops_only_flowrt_makes_are_on_a_device_tf_uses_there(name):
    tf_ops = RECORDED[name]["ops"]
    _, ours = _build(name)
    off = []
    for op_name, (op_type, device, _) in ours.items():
        if op_name in tf_ops and tf_ops[op_name][0] == op_type:
            continue
        top = op_name.split("/")[0]
        devices = {d for n, (_, d, _) in tf_ops.items() if n.split("/")[0] == top}
        if device not in devices:
            off.append((op_name, op_type, device, sorted(devices)))
    assert off == []


def test_the_recorded_programs_cover_variables_slots_and_updates():
    # The comparison means something only if TF's record holds what it is about.
    types = {t for p in RECORDED.values() for t, _, _ in p["ops"].values()}
    assert {"VarHandleOp", "ResourceApplyAdam", "ResourceApplyMomentum"} <= types
    assert {"ResourceApplyAdagrad", "ResourceApplyCenteredRMSProp", "AssignAddVariableOp"} <= types
    adam = RECORDED["adam_cluster"]["ops"]
    assert adam["layer2/biases/Adam_1"][1:] == ["/job:ps/task:1", ["loc:@layer2/biases"]]
    assert adam["beta1_power"][1:] == ["/job:ps/task:1", ["loc:@layer1/biases"]]
