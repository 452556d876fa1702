"""Optional cross-check of decode_csv against TensorFlow (skipped when it is missing)."""

import random

import numpy as np
import pytest

import flowrt as fr

tf = pytest.importorskip("tensorflow.compat.v1")


def _tf_decode(records, defaults, **kw):
    with tf.Graph().as_default(), tf.Session() as s:
        try:
            return [np.asarray(v) for v in s.run(tf.decode_csv(records, defaults, **kw))]
        except tf.errors.InvalidArgumentError as e:
            lines = e.message.split("\n")
            at = [i for i, line in enumerate(lines) if line.startswith("Node:")]
            return lines[at[0] + 1] if at else lines[-1]


def _fr_decode(records, defaults, **kw):
    with fr.Graph().as_default(), fr.Session() as s:
        try:
            return [np.asarray(v) for v in s.run(fr.decode_csv(records, defaults, **kw))]
        except fr.errors.InvalidArgumentError as e:
            return e.message


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return all(
        x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
        for x, y in zip(a, b)
    )


def test_random_records_decode_as_in_tensorflow():
    tf.disable_eager_execution()
    rng = random.Random(0)
    pieces = [
        "1",
        "-2",
        "3.25",
        "",
        "NA",
        " 4 ",
        "x",
        '"5"',
        '"a,b"',
        '""',
        "1e3",
        "0x10",
        "inf",
        "+",
        ".",
        "\r",
        "\n",
        '"',
        "2147483648",
        "007",
        ";",
    ]
    kinds = [[0], [0.0], [""], np.array([0], np.int64), np.array([0.0]), []]
    for _ in range(60):
        ncols = rng.randint(1, 3)
        records = [
            ",".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
            for _ in range(rng.randint(1, 4))
        ]
        defaults = [rng.choice(kinds) for _ in range(ncols)]
        kw = {"use_quote_delim": rng.random() < 0.7, "na_value": rng.choice(["", "NA"])}
        want, got = _tf_decode(records, defaults, **kw), _fr_decode(records, defaults, **kw)
        assert _same(want, got), (records, defaults, kw, want, got)
