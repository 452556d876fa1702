"""``fr.saved_model.signature_def_utils``: ``SignatureDef`` messages, the named inputs
and outputs a SavedModel's meta graph offers (TF Serving's predict, classify and
regress signatures, or any other)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor
from ..graph_export import fill_tensor_proto
from ..protos.meta_graph_pb2 import SignatureDef, TensorInfo
from . import signature_constants as sc
from .utils import build_tensor_info

__all__ = [
    "build_signature_def",
    "classification_signature_def",
    "is_valid_signature",
    "predict_signature_def",
    "regression_signature_def",
]

_STRING = _dt.string.as_datatype_enum
_FLOAT = _dt.float32.as_datatype_enum


def build_signature_def(
    inputs: Mapping[str, TensorInfo] | None = None,
    outputs: Mapping[str, TensorInfo] | None = None,
    method_name: str | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> SignatureDef:
    """A ``SignatureDef`` from ``TensorInfo``s (``fr.saved_model.build_tensor_info``).

    Args:
      inputs: input keys to ``TensorInfo``s.
      outputs: output keys to ``TensorInfo``s.
      method_name: e.g. ``signature_constants.PREDICT_METHOD_NAME``.
      defaults: input keys to default values (stored as ``TensorProto``s).

    Raises:
      TypeError: a default value has no ``TensorProto`` form.
    """
    sig = SignatureDef()
    for key, info in (inputs or {}).items():
        sig.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        sig.outputs[key].CopyFrom(info)
    if method_name is not None:
        sig.method_name = method_name
    for key, value in (defaults or {}).items():
        arr = np.asarray(value)
        if arr.dtype.kind == "U":
            arr = np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(arr)
        if not fill_tensor_proto(sig.defaults[key], arr):
            raise TypeError("default value %r for input %r has no TensorProto form" % (value, key))
    return sig


def predict_signature_def(inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> SignatureDef:
    """A predict ``SignatureDef`` (``tensorflow/serving/predict``) from dicts of keys to
    tensors.

    Raises:
      ValueError: ``inputs`` or ``outputs`` is None or empty.
    """
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def(
        {k: build_tensor_info(t) for k, t in inputs.items()},
        {k: build_tensor_info(t) for k, t in outputs.items()},
        sc.PREDICT_METHOD_NAME,
    )


def _examples_info(examples: Any, kind: str) -> TensorInfo:
    if examples is None:
        raise ValueError("%s `examples` cannot be None." % kind)
    if not isinstance(examples, Tensor):
        raise TypeError(
            "%s `examples` must be a string Tensor. Found `examples` of type %s."
            % (kind, type(examples))
        )
    info = build_tensor_info(examples)
    if info.dtype != _STRING:
        raise ValueError(
            "%s input tensors must be of type string. Found tensors of type %s"
            % (kind, examples.dtype.name)
        )
    return info


def classification_signature_def(
    examples: Tensor, classes: Tensor | None, scores: Tensor | None
) -> SignatureDef:
    """A classify ``SignatureDef`` (``tensorflow/serving/classify``): string ``examples``
    in, string ``classes`` and/or float32 ``scores`` out.

    Raises:
      ValueError: ``examples`` is None or not a string tensor, both outputs are None,
        or an output has the wrong dtype.
      TypeError: ``examples`` is not a tensor.
    """
    inputs = {sc.CLASSIFY_INPUTS: _examples_info(examples, "Classification")}
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    outputs = {}
    if classes is not None:
        info = build_tensor_info(classes)
        if info.dtype != _STRING:
            raise ValueError(
                "Classification classes must be of type string Tensor. Found tensors of type %s"
                % classes.dtype.name
            )
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = build_tensor_info(scores)
        if info.dtype != _FLOAT:
            raise ValueError(
                "Classification scores must be a float32 Tensor. Found tensors of type %s"
                % scores.dtype.name
            )
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def(inputs, outputs, sc.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples: Tensor, predictions: Tensor) -> SignatureDef:
    """A regress ``SignatureDef`` (``tensorflow/serving/regress``): string ``examples``
    in, float32 ``predictions`` out.

    Raises:
      ValueError: an argument is None or has the wrong dtype.
      TypeError: ``examples`` is not a tensor.
    """
    inputs = {sc.REGRESS_INPUTS: _examples_info(examples, "Regression")}
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    info = build_tensor_info(predictions)
    if info.dtype != _FLOAT:
        raise ValueError(
            "Regression output tensors must be of type float32. Found tensors of type %s"
            % predictions.dtype.name
        )
    return build_signature_def(inputs, {sc.REGRESS_OUTPUTS: info}, sc.REGRESS_METHOD_NAME)


def is_valid_signature(signature_def: SignatureDef | None) -> bool:
    """Whether a ``SignatureDef`` is a well-formed predict, classify or regress one
    (TF's checks: method name, input and output keys, and their dtypes)."""
    if signature_def is None:
        return False
    ins, outs, method = signature_def.inputs, signature_def.outputs, signature_def.method_name
    if method == sc.PREDICT_METHOD_NAME:
        return bool(ins) and bool(outs)
    if method == sc.CLASSIFY_METHOD_NAME:
        wanted = {sc.CLASSIFY_OUTPUT_CLASSES: _STRING, sc.CLASSIFY_OUTPUT_SCORES: _FLOAT}
    elif method == sc.REGRESS_METHOD_NAME:
        wanted = {sc.REGRESS_OUTPUTS: _FLOAT}
    else:
        return False
    if set(ins) != {sc.CLASSIFY_INPUTS} or ins[sc.CLASSIFY_INPUTS].dtype != _STRING:
        return False
    if method == sc.REGRESS_METHOD_NAME and set(outs) != set(wanted):
        return False
    return bool(outs) and all(k in wanted and outs[k].dtype == wanted[k] for k in outs)
