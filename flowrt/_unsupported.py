"""What flowrt does not support from TF1, with what to do instead.

One list serves three readers: a listed name (``fr.estimator``) raises an
``AttributeError`` that says so and what to do instead, the porting guide's table is
generated from it, and a test checks every entry is really absent (so implementing one
fails the test until the entry is removed). Any other name missing from a public
namespace (``fr.nn.foo``) says flowrt does not support ``tf.nn.foo``, with close names:
``install_missing_name_messages`` gives each namespace the module ``__getattr__`` that
does it.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Unsupported", "UNSUPPORTED", "unsupported_attribute", "install_missing_name_messages"]


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
        "tf.RaggedTensor",
        "RaggedTensor",
        "keep rows of varying length as a SparseTensor (fr.sparse ops), or pad them dense",
    ),
    Unsupported(
        "tf.ragged",
        "ragged",
        "keep rows of varying length as a SparseTensor (fr.sparse ops), or pad them dense",
    ),
    Unsupported(
        "tf.io.RaggedFeature (parse_example's RaggedTensor results)",
        "io.RaggedFeature",
        "parse the feature with fr.io.VarLenFeature: a SparseTensor with one row per "
        "example (fr.sparse.to_dense pads the rows)",
    ),
    Unsupported(
        "GPU and TPU devices",
        None,
        "flowrt runs on the CPU: fr.device() "
        "placements are recorded and ignored, fr.test.is_gpu_available() is False",
    ),
)


def unsupported_attribute(module: types.ModuleType, tf_path: str, name: str) -> AttributeError:
    """The ``AttributeError`` for ``module.name``, missing from the namespace TF1 calls
    ``tf_path`` (``tf.nn``): the porting list's advice when it names it, else that flowrt
    does not support the TF1 name, with up to three close names the module has."""
    prefix = "module %r has no attribute %r: " % (module.__name__, name)
    path = "%s.%s" % (tf_path, name)
    for u in UNSUPPORTED:
        if u.path is not None and "tf." + u.path == path:
            return AttributeError(
                prefix
                + "%s is not supported by flowrt; instead, %s (see docs/porting.md)"
                % (u.tf_name, u.instead)
            )
    public = [n for n in getattr(module, "__all__", None) or dir(module) if not n.startswith("_")]
    close = difflib.get_close_matches(name, public, n=3)
    hint = "; close names: %s" % ", ".join(close) if close else ""
    return AttributeError(
        prefix + "flowrt does not support %s (see docs/porting.md)%s" % (path, hint)
    )


def _missing_name_hook(
    module: types.ModuleType, tf_path: str, own: Callable[[str], object] | None
) -> Callable[[str], object]:
    def __getattr__(name: str) -> object:  # noqa: N807 - PEP 562's module hook
        if own is not None:
            try:
                return own(name)
            except AttributeError:
                pass
        if name.startswith("_"):  # a protocol probe (copy, pickle, inspect), no TF name
            raise AttributeError("module %r has no attribute %r" % (module.__name__, name))
        raise unsupported_attribute(module, tf_path, name)

    return __getattr__


def install_missing_name_messages(root: types.ModuleType) -> None:
    """Gives ``root`` (as ``tf``) and every public namespace module under it (those in
    its ``__all__``, as ``tf.nn``, ``tf.keras.layers``) a module ``__getattr__`` raising
    ``unsupported_attribute``; a module's own ``__getattr__`` (a lazy import) is asked
    first."""
    todo, done = [(root, "tf")], set()
    while todo:
        module, tf_path = todo.pop(0)  # breadth first: a module keeps its shortest name
        if id(module) in done:
            continue
        done.add(id(module))
        own = module.__dict__.get("__getattr__")
        module.__getattr__ = _missing_name_hook(module, tf_path, own)  # type: ignore[method-assign]
        for name in getattr(module, "__all__", ()):
            sub = module.__dict__.get(name)
            if isinstance(sub, types.ModuleType) and sub.__name__.startswith(root.__name__):
                todo.append((sub, "%s.%s" % (tf_path, name)))
