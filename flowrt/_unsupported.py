"""What flowrt does not support from TF1, with what to do instead.

One list serves three readers: ``fr.<name>`` for a listed top-level name raises an
``AttributeError`` that says so, the porting guide's table is generated from it, and a
test checks every entry is really absent (so implementing one fails the test until the
entry is removed).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Unsupported", "UNSUPPORTED", "unsupported_attribute"]


@dataclass(frozen=True)
class Unsupported:
    """One TF1 feature flowrt does not have.

    Attributes:
      tf_name: the TF1 name, as a user writes it (``tf.contrib``).
      path: the attribute path that would hold it in flowrt (``contrib``,
        ``summary.image``), checked absent by the tests; None for a feature that is no
        attribute (then ``probe`` is checked).
      instead: what to do instead.
    """

    tf_name: str
    path: str | None
    instead: str


UNSUPPORTED: tuple[Unsupported, ...] = (
    Unsupported(
        "tf.contrib other than contrib.layers' regularizers (slim, rnn, ...)",
        "contrib.slim",
        "port the pieces you use to core ops; most of tf.contrib was removed in TF 2 as well",
    ),
    Unsupported(
        "tf.estimator",
        "estimator",
        "write the training loop with fr.Session, queue runners and fr.train.Saver",
    ),
    Unsupported(
        "tf.keras training loops (Model.compile/fit), saving, functional models",
        "keras.Model.fit",
        "fr.keras layers and optimizers with fr.GradientTape "
        "inside @fr.function, or TF1 graph code",
    ),
    Unsupported(
        "tf.distribute (strategies)",
        "distribute",
        "TF1's own distributed runtime is supported: fr.train.ClusterSpec, fr.train.Server "
        "and replica_device_setter on Ray (docs/distributed.md)",
    ),
    Unsupported("tf.lite", "lite", "none: flowrt has no TensorFlow Lite converter"),
    Unsupported(
        "tf.feature_column",
        "feature_column",
        "build features with ops (fr.one_hot, fr.nn.embedding_lookup)",
    ),
    Unsupported("tf.signal", "signal", "compute spectral features with NumPy before feeding"),
    Unsupported(
        "tf.summary.image, tf.summary.audio, tf.summary.text",
        "summary.image",
        "fr.summary.scalar and fr.summary.histogram",
    ),
    Unsupported(
        "GPU and TPU devices",
        None,
        "flowrt runs on the CPU: fr.device() "
        "placements are recorded and ignored, fr.test.is_gpu_available() is False",
    ),
)


def unsupported_attribute(module: str, name: str) -> AttributeError | None:
    """The ``AttributeError`` for ``<module>.<name>`` when the porting list names it."""
    path = name if module == "flowrt" else "%s.%s" % (module.split(".", 1)[1], name)
    for u in UNSUPPORTED:
        if u.path == path:
            return AttributeError(
                "module %r has no attribute %r: %s is not supported by "
                "flowrt; instead, %s (see docs/porting.md)" % (module, name, u.tf_name, u.instead)
            )
    return None
