"""Gradient specs for ``fr.nn`` (flowrt/ops/nn_ops.py), including TF's gradient ops
(``ReluGrad``, ``BiasAddGrad``, ...) checked as second-order gradients."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(7)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((3, 4))
# Away from the kinks at 0 (and 6 for relu6) so finite differences are smooth.
AWAY = np.where(np.abs(A) < 0.2, 0.5, A) * 2.0
PROBS = _r.uniform(0.1, 1.0, (3, 4))
PROBS /= PROBS.sum(axis=1, keepdims=True)
IMG = _r.standard_normal((2, 3, 2, 2))
BIAS3 = _r.standard_normal((3,))
BIAS4 = _r.standard_normal((4,))


def _second(fwd):
    """``d(fwd(x))/dx`` contracted with ``g``: exercises the forward op's gradient op."""

    def fn(g, x):
        return fr.gradients(fwd(x), x, grad_ys=g)[0]

    return fn


def _sampled(loss_fn, remove_hits):
    def fn(x, w, b):
        labels = fr.constant(np.array([[1, 3], [0, 2], [5, 1]], np.int64))
        sv = (
            fr.constant(np.array([4, 2, 6], np.int64)),
            fr.constant(np.full((3, 2), 0.3)),
            fr.constant(np.array([0.2, 0.4, 0.1])),
        )
        return loss_fn(
            w, b, labels, x, 3, 7, num_true=2, sampled_values=sv, remove_accidental_hits=remove_hits
        )

    return fn


SPECS = [
    GradSpec("Relu", fr.nn.relu, [AWAY]),
    GradSpec("ReluGrad", _second(fr.nn.relu), [B, AWAY]),
    GradSpec("Relu6", fr.nn.relu6, [AWAY + np.where(AWAY > 2, 4.0, 0.0)]),
    GradSpec("Relu6Grad", _second(fr.nn.relu6), [B, AWAY]),
    GradSpec("LeakyRelu", lambda x: fr.nn.leaky_relu(x, alpha=0.1), [AWAY]),
    GradSpec("LeakyReluGrad", _second(fr.nn.leaky_relu), [B, AWAY]),
    GradSpec("Elu", fr.nn.elu, [AWAY]),
    GradSpec("EluGrad", _second(fr.nn.elu), [B, AWAY]),
    GradSpec("Selu", fr.nn.selu, [AWAY]),
    GradSpec("SeluGrad", _second(fr.nn.selu), [B, AWAY]),
    GradSpec("Softplus", fr.nn.softplus, [A * 3]),
    GradSpec("SoftplusGrad", _second(fr.nn.softplus), [B, A]),
    GradSpec("Softmax", fr.nn.softmax, [A]),
    GradSpec("Softmax", lambda x: fr.nn.softmax(x, axis=0), [A], id="Softmax-axis0"),
    GradSpec("LogSoftmax", fr.nn.log_softmax, [A]),
    GradSpec("LogSoftmax", lambda x: fr.nn.log_softmax(x, axis=0), [A], id="LogSoftmax-axis0"),
    GradSpec("BiasAdd", fr.nn.bias_add, [A, BIAS4]),
    GradSpec(
        "BiasAdd",
        lambda x, b: fr.nn.bias_add(x, b, data_format="NCHW"),
        [IMG, BIAS3],
        id="BiasAdd-NCHW",
    ),
    GradSpec("BiasAddGrad", _second(lambda b: fr.nn.bias_add(fr.constant(A), b)), [A, BIAS4]),
    GradSpec(
        "BiasAddGrad",
        _second(lambda b: fr.nn.bias_add(fr.constant(IMG), b, data_format="NCHW")),
        [IMG, BIAS3],
        id="BiasAddGrad-NCHW",
    ),
    GradSpec("L2Loss", fr.nn.l2_loss, [A]),
    GradSpec(
        "SoftmaxCrossEntropyWithLogits",
        lambda lab, x: fr.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x),
        [PROBS, A],
    ),
    GradSpec(
        "SoftmaxCrossEntropyWithLogits",
        _second(
            lambda x: fr.nn.softmax_cross_entropy_with_logits_v2(
                labels=fr.constant(PROBS), logits=x
            )
        ),
        [np.ones(3), A],
        id="SoftmaxCrossEntropyWithLogits-second-order",
    ),
    GradSpec(
        "SparseSoftmaxCrossEntropyWithLogits",
        lambda x: fr.nn.sparse_softmax_cross_entropy_with_logits(
            labels=fr.constant([3, 0, 1]), logits=x
        ),
        [A],
    ),
    GradSpec(
        "SparseSoftmaxCrossEntropyWithLogits",
        _second(
            lambda x: fr.nn.sparse_softmax_cross_entropy_with_logits(
                labels=fr.constant([3, 0, 1], fr.int64), logits=x
            )
        ),
        [np.ones(3), A],
        id="SparseSoftmaxCrossEntropyWithLogits-second-order",
    ),
    GradSpec(
        "SigmoidCrossEntropyWithLogits",
        lambda z, x: fr.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
        [PROBS, A * 10],
    ),
    GradSpec(
        "SampledLogits",
        _sampled(fr.nn.nce_loss, False),
        [A, _r.standard_normal((7, 4)), _r.standard_normal((7,))],
        id="nce_loss",
    ),
    GradSpec(
        "SampledLogits",
        _sampled(fr.nn.sampled_softmax_loss, True),
        [A, _r.standard_normal((7, 4)), _r.standard_normal((7,))],
        id="sampled_softmax_loss",
    ),
    GradSpec(
        "StitchRows",
        lambda p0, p1: fr.nn.embedding_lookup([p0, p1], fr.constant([[3, 0], [1, 3]])),
        [_r.standard_normal((2, 3)), _r.standard_normal((2, 3))],
        id="embedding_lookup-sharded",
    ),
]
