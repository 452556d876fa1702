"""The producer/consumer test file of docs/testing.md, run as a user's test file."""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def test_the_documented_pipeline_tests_pass(pytester):
    blocks = re.findall(r"```python\n(# test_pipeline\.py\n.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1
    pytester.makeini("[pytest]\ntrio_mode = true\nfilterwarnings = error\n")
    pytester.makepyfile(test_pipeline=blocks[0])
    pytester.runpytest_inprocess().assert_outcomes(passed=3)
