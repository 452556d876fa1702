"""Every examples/*.py runs as a script (``python examples/<name>.py`` from the repo root)
and exits 0; where it is cheap, its printed results are checked too. New examples are
picked up automatically."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.py"))


def _floats(pattern, out):
    return [float(m) for m in re.findall(pattern, out, flags=re.MULTILINE)]


def _mlp(out):
    (acc,) = _floats(r"^test accuracy: ([\d.]+)$", out)
    assert acc > 0.9, out
    losses = _floats(r"^epoch +\d+ +loss ([\d.]+)$", out)
    assert losses[-1] < losses[0] / 4, out


def _autoencoder(out):
    m = re.search(r"^reconstruction loss fell from ([\d.]+) to ([\d.]+)", out, re.MULTILINE)
    assert m and float(m[2]) < float(m[1]) / 2, out


def _word2vec(out):
    losses = _floats(r"^average loss at step \d+ : ([\d.]+)$", out)
    assert len(losses) > 3 and losses[-1] < losses[0] / 4, out
    assert len(re.findall(r"^  nearest to ", out, flags=re.MULTILINE)) >= 3, out


def _conv_layers(out):
    (acc,) = _floats(r"^test accuracy: ([\d.]+)$", out)
    assert acc > 0.9, out
    losses = _floats(r"^epoch \d+  loss ([\d.]+)$", out)
    assert len(losses) == 3 and losses[-1] < losses[0] / 3, out
    assert "conv2d/kernel, conv2d/bias, batch_normalization/gamma" in out, out


# Lines (regexes, matched per line) or checks on the whole output, for the examples that
# have a result worth pinning; the others only have to exit 0.
EXPECT = {
    "hello_constants.py": [r"^b'Hello, TensorFlow!'$", r"^1 \+ 1 = 2$"],
    "placeholders.py": [r"^3 \+ 4\.5 = 7\.5$", r"^\[1, 3\] \+ \[2, 4\] = \[3\. 7\.\]$"],
    "variable_counter.py": [r"^counter = 5$", r"^new session, counter = 0$"],
    "three_layers_reuse.py": [r"^h3 uses layer2's variables: True$"],
    "gradient_of_square.py": [r"^dy/dx at 3: 6\.0$"],
    "producer_consumer.py": [r"^sum of 60 squares: 73810$"],
    "tf2_forms.py": [
        r"^1 \+ 1 = 2$",
        r"^3 \+ 4\.5 = 7\.5$",
        r"^counter = 5$",
        r"^dy/dx at 3: 6\.0$",
        r"^  dense_1/kernel:0 +\(8, 8\)$",
        r"^regression loss fell from [\d.]+ to 0\.0\d+ in 201 steps$",
    ],
    "mlp_feed_dict.py": _mlp,
    "autoencoder_adam.py": _autoencoder,
    "word2vec_skipgram.py": _word2vec,
    "monitored_training.py": [
        r"^starting at global step 100$",
        r"^stopped at global step 200, ",
        r"^fit: True$",
    ],
    "conv_layers_digits.py": _conv_layers,
    "debug_stuck_pipeline.py": [
        r"^DeadlineExceededError: Timed out after 200 ms .* waiting on QueueDequeueManyV2 op "
        r"'batch'",
        r"^  run \d+: waits on QueueDequeueManyV2 op 'batch': dequeue of 4 element\(s\) from "
        r"FIFOQueue 'examples' \(size 0, capacity 8\)$",
        r"^  FIFOQueue 'examples' \(size 0, capacity 8\)$",
        r"^    blocked: QueueDequeueManyV2 op 'batch' waits to dequeue 4 element\(s\)$",
        r"^    fed by: no live queue runner$",
        r"^after starting the queue runner: \(4,\)$",
    ],
    "debug_slow_run.py": [
        r"^\d+ ops per step, median [\d.]+ ms in kernels over 7 steps; the slowest:$",
        r"^chrome trace \(\d+ events\) written to /\S+/step\.json: open it at https://ui\.perfetto\.dev$",
        r"^intra_op_parallelism_threads=2:$",
    ],
    "debug_wrong_gradient.py": [
        r"^good max \|theoretical - numerical\| = \d\.\d\de-0[6-9]$",
        r"^bad  max \|theoretical - numerical\| = 1\.82e\+00$",
    ],
}


def test_examples_are_found():
    assert {"hello_constants.py", "word2vec_skipgram.py"} <= set(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs(name):
    env = dict(os.environ, PYTHONWARNINGS="error")
    proc = subprocess.run(
        [sys.executable, str(pathlib.Path("examples") / name)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    expect = EXPECT.get(name, [])
    if callable(expect):
        expect(proc.stdout)
        return
    for pattern in expect:
        assert re.search(pattern, proc.stdout, flags=re.MULTILINE), (pattern, proc.stdout)
