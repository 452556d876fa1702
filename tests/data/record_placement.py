"""Records where TF 2.21 (``tensorflow.compat.v1``, graph mode) places the ops of
placement_programs.py, into placement_tf1.json next to this file. Run by hand with
TensorFlow installed (``pip install tensorflow-cpu==2.21.0``):

    python tests/data/record_placement.py

tests/test_placement_tf1.py builds the same programs in flowrt and compares; it never
imports TensorFlow."""

import importlib.util
import json
import os

import tensorflow.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def _programs():
    path = os.path.join(HERE, "placement_programs.py")
    spec = importlib.util.spec_from_file_location("placement_programs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    tf.disable_eager_execution()
    programs = _programs()
    out = {"tensorflow": tf.__version__, "programs": {}}
    for name, build in programs.PROGRAMS.items():
        g = tf.Graph()
        with g.as_default():  # see placement_programs.py
            facts = build(tf)
        out["programs"][name] = {"facts": facts, "ops": programs.placement(g)}
    with open(os.path.join(HERE, "placement_tf1.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
