"""Every op wrapper builds in its inputs' graph (TF1: ``name_scope(name, default, values)``).

One table: for each public wrapper of the op, loss, layer and metric modules below, a call
with inputs from a fresh graph (while another graph is the default) must put every op it
creates into the inputs' graph and none into the default graph. A coverage test keeps the
table complete: a new public function of those modules needs a row (or a reason below).
"""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

import flowrt as fr
from flowrt.ops import confusion_matrix_ops

MODULES = [
    "flowrt.ops.array_ops",
    "flowrt.ops.slicing_ops",
    "flowrt.ops.nn_ops",
    "flowrt.ops.conv_ops",
    "flowrt.ops.pool_ops",
    "flowrt.ops.lrn_ops",
    "flowrt.ops.topk_ops",
    "flowrt.ops.random_ops",
    "flowrt.ops.state_ops",
    "flowrt.ops.check_ops",
    "flowrt.ops.extra_check_ops",
    "flowrt.ops.bitwise_ops",
    "flowrt.ops.set_ops",
    "flowrt.ops.clip_ops",
    "flowrt.ops.sparse_ops",
    "flowrt.ops.parsing_ops",
    "flowrt.ops.decode_raw_ops",
    "flowrt.ops.sequence_example_ops",
    "flowrt.ops.string_ops",
    "flowrt.ops.text_ops",
    "flowrt.ops.hash_bucket_ops",
    "flowrt.ops.codec_ops",
    "flowrt.ops.lookup_ops",
    "flowrt.ops.vocab_tables",
    "flowrt.ops.csv_ops",
    "flowrt.ops.script_ops",
    "flowrt.ops.logging_ops",
    "flowrt.losses.losses_impl",
    "flowrt.losses._weights",
    "flowrt.layers.core",
    "flowrt.layers.convolutional",
    "flowrt.layers.normalization",
    "flowrt.layers.base",
    "flowrt.metrics.metrics_impl",
    "flowrt.ops.einsum_ops",
    "flowrt.ops.depthwise_conv_ops",
    "flowrt.ops.space_depth_ops",
    "flowrt.ops.image_ops",
    "flowrt.ops.binning_ops",
    "flowrt.ops.custom_gradient_ops",
    "flowrt.layers.separable_conv",
    "flowrt.ops.sparse_segment_ops",
    "flowrt.ops.embedding_ops",
    "flowrt.ops.moments_ops",
    "flowrt.ops.nn_loss_ops",
    "flowrt.ops.safe_math_ops",
    "flowrt.ops.confusion_matrix_ops",
    "flowrt.ops.conv3d_ops",
    "flowrt.ops.pool3d_ops",
    "flowrt.ops.nd_conv_pool_ops",
    "flowrt.ops.pool_argmax_ops",
    "flowrt.ops.edit_distance_ops",
    "flowrt.ops.ctc_ops",
    "flowrt.ops.activation_ops",
    "flowrt.ops.cwise_math_ops",
    "flowrt.ops.manip_ops",
    "flowrt.ops.product_ops",
    "flowrt.ops.reduction_ops",
    "flowrt.ops.scan_ops",
    "flowrt.ops.segment_ops",
    "flowrt.ops.selection_ops",
    "flowrt.ops.shape_ops",
    "flowrt.ops.sort_ops",
]

# Public functions that take no tensor (so have no inputs' graph) or are kernel-side
# helpers, not graph-building wrappers.
NOT_WRAPPERS = {
    "array_ops.constant": "no tensor input: builds in the default graph, as TF1",
    "array_ops.placeholder": "no tensor input",
    "array_ops.no_op": "no tensor input",
    "array_ops.is_tensor": "a predicate on a Python object: builds no op",
    "shape_ops.broadcast_static_shape": "shapes in, a shape out: builds no op",
    "random_ops.set_random_seed": "sets the default graph's seed",
    "random_ops.get_seed": "reads the default graph's seed",
    "sparse_ops.sparse_placeholder": "no tensor input",
    "sparse_ops.check_sparse_indices": "kernel helper (numpy)",
    "check_ops.add_check_numerics_ops": "no argument: works on the default graph, as TF1",
    "extra_check_ops.assert_same_float_dtype": "static dtype check, creates no op",
    "extra_check_ops.assert_proper_iterable": "static type check, creates no op",
    "extra_check_ops.is_numeric_tensor": "static dtype test, creates no op",
    "losses_impl.get_losses": "reads the default graph's collection",
    "losses_impl.get_regularization_losses": "reads the default graph's collection",
    "losses_impl.get_regularization_loss": "no tensor argument: the default graph's losses",
    "losses_impl.get_total_loss": "no tensor argument: the default graph's losses",
    "losses_impl.add_loss": "adds to a collection, creates no op",
    "base.check_input_spec": "validates a static shape, creates no op",
    "metrics_impl.metric_variable": "no tensor input: a variable of the default graph",
    "lookup_ops.tables_initializer": "reads the default graph's collection",
    "lookup_ops.initialize_all_tables": "reads the default graph's collection",
    "parsing_ops.spec_of": "sorts a features dict, creates no op",
    "parsing_ops.default_tensor": "kernel helper (numpy)",
    "parsing_ops.dense_column": "kernel helper (numpy)",
    "parsing_ops.sparse_column": "kernel helper (numpy)",
    **{
        name: "a helper shared with the op family's other modules, not a TF wrapper"
        for name in (
            "array_ops.check_rank",
            "array_ops.gen_op",
            "array_ops.static_dims",
            "array_ops.zeros_for_none",
            "check_ops.message_prefix",
            "image_ops.check_run",
            "image_ops.rank4",
            "image_ops.resize_infer",
            "image_ops.resize_op",
            "image_ops.scale_images",
            "lookup_ops.lookup_keys",
            "random_ops.gumbel_max",
            "random_ops.out_dims",
            "random_ops.shape_infer",
            "random_ops.shape_tensor",
            "sparse_ops.is_sparse",
            "sparse_ops.reduce_axes",
            "sparse_ops.row_major",
            "sparse_ops.sparse_input",
            "sparse_ops.sparse_reduce_infer",
            "state_ops.frozen_copy",
            "state_ops.scatter_op",
            "state_ops.value_for",
            "state_ops.var_spec",
            "string_ops.as_bytes_list",
            "text_ops.elementwise_string_op",
            "text_ops.string_input",
        )
    },
    **{
        "conv_ops." + n: "geometry/kernel helper shared by the conv family"
        for n in (
            "window_geometry",
            "spatial_arg",
            "check_format",
            "check_padding",
            "geometry",
            "pad_hw",
            "windows",
            "tap_slice",
            "crop",
            "check_attrs",
            "conv_grads",
        )
    },
    **{
        "state_ops." + n: "kernel helper (runs inside a kernel, builds nothing)"
        for n in (
            "uninitialized_error",
            "read_variable",
            "update_variable",
            "update_variables",
            "update_variables_inplace",
            "scatter_variable",
            "update_variable_rows",
        )
    },
    **{
        "state_ops." + n: "internal constructor given the exact name and graph by its caller"
        for n in ("create_exact", "var_handle")
    },
}


def _sparse_ids(i):
    """A [2, 2] SparseTensor of ids made in the inputs' graph."""
    with i.g.as_default():
        idx = fr.cast(fr.stack([fr.range(2), fr.range(2)], 1), fr.int64)
        return fr.SparseTensor(idx, fr.cast(i.ids, fr.int64), fr.constant([2, 2], fr.int64))


class In:
    """The inputs of one case, all created in the graph ``g``."""

    def __init__(self, g: fr.Graph):
        self.g = g
        with g.as_default():
            self.x = fr.placeholder(fr.float32, [2, 3], name="x")
            self.y = fr.placeholder(fr.float32, [2, 3], name="y")
            self.x1 = fr.placeholder(fr.float32, [2, 3, 1], name="x1")
            self.img = fr.placeholder(fr.float32, [1, 4, 4, 2], name="img")
            self.seq = fr.placeholder(fr.float32, [1, 5, 2], name="seq")
            self.vol = fr.placeholder(fr.float32, [1, 2, 2, 2, 2], name="vol")
            self.vol_f = fr.placeholder(fr.float32, [1, 1, 1, 2, 2], name="vol_f")
            self.ids = fr.placeholder(fr.int32, [2], name="ids")
            self.b = fr.placeholder(fr.bool, [2, 3], name="b")
            self.s = fr.placeholder(fr.string, [2], name="s")
            self.one_s = fr.placeholder(fr.string, [], name="one_s")
            self.v = fr.Variable(np.zeros([2, 3], np.float32), name="v")
            self.ref = fr.Variable(np.zeros([2, 3], np.float32), name="ref", use_resource=False)
            self.n = fr.Variable(0, name="n")
            self.sp = fr.SparseTensor(
                fr.constant([[0, 0], [1, 2]], fr.int64),
                fr.constant([1.0, 2.0]),
                fr.constant([2, 3], fr.int64),
            )
            self.sps = fr.SparseTensor(
                fr.constant([[0, 0], [1, 2]], fr.int64),
                fr.constant([b"a", b"b"]),
                fr.constant([2, 3], fr.int64),
            )
            self.shape = fr.placeholder(fr.int32, [2], name="shape")


def _feature():
    return {
        "f": fr.FixedLenFeature([1], fr.float32, default_value=[0.0]),
        "g": fr.VarLenFeature(fr.int64),
    }


ONES = np.ones([2, 3], np.float32)


def _math_of_x(name):
    """The case of ``fr.math.<name>`` applied to the float input."""
    return lambda i: getattr(fr.math, name)(i.x)


CASES = {
    # array_ops
    "array_ops.placeholder_with_default": lambda i: fr.placeholder_with_default(i.x, [2, 3]),
    "array_ops.identity": lambda i: fr.identity(i.x),
    "array_ops.group": lambda i: fr.group(i.x, i.y.op),
    "array_ops.stop_gradient": lambda i: fr.stop_gradient(i.x),
    "array_ops.shape": lambda i: fr.shape(i.x),
    "array_ops.size": lambda i: fr.size(i.x),
    "array_ops.rank": lambda i: fr.rank(i.x),
    "array_ops.reshape": lambda i: fr.reshape(i.x, [3, 2]),
    "array_ops.fill": lambda i: [fr.fill(i.shape, 1.0), fr.fill([2, 3], i.x[0, 0])],
    "array_ops.zeros": lambda i: fr.zeros(i.shape),
    "array_ops.ones": lambda i: fr.ones([i.shape[0], 2]),
    "array_ops.zeros_like": lambda i: fr.zeros_like(i.x),
    "array_ops.ones_like": lambda i: fr.ones_like(i.x),
    "array_ops.stack": lambda i: fr.stack([i.x, 1.0 * np.ones([2, 3], np.float32)]),
    "array_ops.broadcast_gradient_args": lambda i: fr.ops.array_ops.broadcast_gradient_args(
        i.shape, [1, 3]
    ),
    "array_ops.range": lambda i: [fr.range(0, i.ids[0], 1), fr.range(0, 5, i.ids[1])],
    "array_ops.lin_space": lambda i: fr.lin_space(0.0, 1.0, i.ids[0]),
    "array_ops.linspace": lambda i: fr.linspace(i.x[0, 0], 1.0, 3),
    "array_ops.parallel_stack": lambda i: fr.parallel_stack([i.x, i.y]),
    "array_ops.transpose": lambda i: fr.transpose(i.x, [1, 0]),
    "array_ops.invert_permutation": lambda i: fr.invert_permutation(i.ids),
    "array_ops.expand_dims": lambda i: fr.expand_dims(i.x, 0),
    "array_ops.squeeze": lambda i: fr.squeeze(i.img, [0]),
    "array_ops.reverse": lambda i: fr.reverse(i.x, [1]),
    "array_ops.reverse_v2": lambda i: fr.reverse_v2(i.x, [0]),
    # slicing_ops
    "slicing_ops.gather": lambda i: fr.gather(i.x, [1, 0]),
    "slicing_ops.slice": lambda i: fr.slice(i.x, [0, 1], [2, 2]),
    "slicing_ops.concat": lambda i: fr.concat([i.x, np.ones([2, 3], np.float32)], 0),
    "slicing_ops.unstack": lambda i: fr.unstack(i.x),
    "slicing_ops.split": lambda i: fr.split(i.x, [1, 2], axis=1),
    "slicing_ops.tile": lambda i: fr.tile(i.x, [2, 1]),
    "slicing_ops.pad": lambda i: fr.pad(i.x, [[1, 0], [0, 1]], constant_values=2.0),
    # nn_ops
    "nn_ops.relu": lambda i: fr.nn.relu(i.x),
    "nn_ops.relu6": lambda i: fr.nn.relu6(i.x),
    "nn_ops.elu": lambda i: fr.nn.elu(i.x),
    "nn_ops.selu": lambda i: fr.nn.selu(i.x),
    "nn_ops.softplus": lambda i: fr.nn.softplus(i.x),
    "nn_ops.leaky_relu": lambda i: fr.nn.leaky_relu(i.x, 0.1),
    "nn_ops.softmax": lambda i: fr.nn.softmax(i.x, axis=0),
    "nn_ops.log_softmax": lambda i: fr.nn.log_softmax(i.x),
    "nn_ops.bias_add": lambda i: fr.nn.bias_add(i.x, [1.0, 2.0, 3.0]),
    "nn_ops.l2_loss": lambda i: fr.nn.l2_loss(i.x),
    "nn_ops.softmax_cross_entropy_with_logits_v2": lambda i: (
        fr.nn.softmax_cross_entropy_with_logits_v2(labels=i.y, logits=i.x, axis=0)
    ),
    "nn_ops.softmax_cross_entropy_with_logits": lambda i: [
        fr.nn.softmax_cross_entropy_with_logits(labels=i.y, logits=i.x),
        fr.nn.softmax_cross_entropy_with_logits(labels=ONES, logits=i.x),
    ],
    "nn_ops.sparse_softmax_cross_entropy_with_logits": lambda i: (
        fr.nn.sparse_softmax_cross_entropy_with_logits(labels=i.ids, logits=ONES)
    ),
    "nn_ops.sigmoid_cross_entropy_with_logits": lambda i: fr.nn.sigmoid_cross_entropy_with_logits(
        labels=i.y, logits=ONES
    ),
    "nn_ops.weighted_cross_entropy_with_logits": lambda i: fr.nn.weighted_cross_entropy_with_logits(
        labels=i.y, logits=ONES, pos_weight=2.0
    ),
    "nn_ops.dropout": lambda i: fr.nn.dropout(i.x, keep_prob=0.5, noise_shape=[2, 1]),
    "nn_ops.moments": lambda i: fr.nn.moments(i.x, [0], shift=1.0),
    "nn_ops.batch_normalization": lambda i: fr.nn.batch_normalization(
        i.x, 0.0, 1.0, 0.5, 2.0, 1e-3
    ),
    "nn_ops.l2_normalize": lambda i: fr.nn.l2_normalize(i.x, axis=1),
    "nn_ops.xw_plus_b": lambda i: fr.nn.xw_plus_b(i.x, np.ones([3, 2], np.float32), [1.0, 2.0]),
    "nn_ops.relu_layer": lambda i: fr.nn.relu_layer(i.x, np.ones([3, 2], np.float32), [1.0, 2.0]),
    "nn_ops.zero_fraction": lambda i: fr.nn.zero_fraction(i.x),
    # conv family
    "conv_ops.conv2d": lambda i: fr.nn.conv2d(
        i.img, np.ones([2, 2, 2, 3], np.float32), [1, 1, 1, 1], "SAME"
    ),
    "conv_ops.conv2d_backprop_input": lambda i: fr.nn.conv2d_backprop_input(
        [1, 4, 4, 2], np.ones([2, 2, 2, 2], np.float32), i.img, [1, 1, 1, 1], "SAME"
    ),
    "conv_ops.conv2d_backprop_filter": lambda i: fr.nn.conv2d_backprop_filter(
        i.img, [2, 2, 2, 2], i.img, [1, 1, 1, 1], "SAME"
    ),
    "conv_ops.conv2d_transpose": lambda i: fr.nn.conv2d_transpose(
        i.img, np.ones([2, 2, 3, 2], np.float32), [1, 8, 8, 3], [1, 2, 2, 1]
    ),
    "conv_ops.conv1d": lambda i: fr.nn.conv1d(i.seq, np.ones([2, 2, 3], np.float32), 1, "SAME"),
    "pool_ops.max_pool": lambda i: fr.nn.max_pool(i.img, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    "pool_ops.avg_pool": lambda i: fr.nn.avg_pool(i.img, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    "pool_ops.max_pool2d": lambda i: fr.nn.max_pool2d(i.img, 2, 2, "VALID"),
    "pool_ops.avg_pool2d": lambda i: fr.nn.avg_pool2d(i.img, 2, 2, "VALID"),
    "pool_ops.max_pool1d": lambda i: fr.nn.max_pool1d(i.seq, 2, 2, "VALID"),
    "pool_ops.avg_pool1d": lambda i: fr.nn.avg_pool1d(i.seq, 2, 1, "SAME"),
    "sparse_segment_ops.sparse_segment_sum": lambda i: fr.sparse_segment_sum(i.x, i.ids, i.ids),
    "sparse_segment_ops.sparse_segment_mean": lambda i: fr.sparse_segment_mean(i.x, i.ids, i.ids),
    "sparse_segment_ops.sparse_segment_sqrt_n": lambda i: fr.sparse_segment_sqrt_n(
        i.x, i.ids, i.ids
    ),
    "embedding_ops.embedding_lookup": lambda i: fr.nn.embedding_lookup(i.x, i.ids),
    "embedding_ops.embedding_lookup_sparse": lambda i: fr.nn.embedding_lookup_sparse(
        i.x, _sparse_ids(i), None
    ),
    "embedding_ops.safe_embedding_lookup_sparse": lambda i: fr.nn.safe_embedding_lookup_sparse(
        i.x, _sparse_ids(i)
    ),
    "moments_ops.batch_norm_with_global_normalization": lambda i: (
        fr.nn.batch_norm_with_global_normalization(i.x, i.y, i.y, 0.0, 1.0, 1e-3, True)
    ),
    "moments_ops.sufficient_statistics": lambda i: fr.nn.sufficient_statistics(i.x, [0]),
    "moments_ops.normalize_moments": lambda i: fr.nn.normalize_moments(2.0, i.x, i.y, None),
    "moments_ops.weighted_moments": lambda i: fr.nn.weighted_moments(i.x, [0], i.y),
    "moments_ops.fused_batch_norm": lambda i: fr.nn.fused_batch_norm(i.img, i.x[0, :2], i.y[0, :2]),
    "nn_loss_ops.log_poisson_loss": lambda i: fr.nn.log_poisson_loss(i.x, i.y),
    "nn_loss_ops.compute_average_loss": lambda i: fr.nn.compute_average_loss(i.x),
    "nn_loss_ops.scale_regularization_loss": lambda i: fr.nn.scale_regularization_loss(i.x),
    "lrn_ops.lrn": lambda i: fr.nn.lrn(i.img, 1),
    "lrn_ops.local_response_normalization": lambda i: fr.nn.local_response_normalization(i.img, 1),
    "topk_ops.top_k": lambda i: fr.nn.top_k(i.x, 2),
    "topk_ops.in_top_k": lambda i: fr.nn.in_top_k(i.x, i.ids, 2),
    # random_ops
    "random_ops.random_normal": lambda i: fr.random_normal(i.shape, mean=1.0),
    "random_ops.truncated_normal": lambda i: fr.truncated_normal(i.shape, stddev=2.0),
    "random_ops.random_uniform": lambda i: fr.random_uniform(i.shape, 0.0, 2.0),
    "random_ops.random_shuffle": lambda i: fr.random_shuffle(i.x),
    "random_ops.multinomial": lambda i: fr.multinomial(i.x, 2),
    # state_ops
    "state_ops.count_up_to": lambda i: fr.count_up_to(i.n, 3),
    "state_ops.assign_op": lambda i: fr.ops.state_ops.assign_op(i.v.handle, ONES),
    "state_ops.assign": lambda i: [
        fr.assign(i.v, np.ones([2, 3], np.float32)),
        fr.assign(i.ref, 2.0 * np.ones([2, 3], np.float32)),
    ],
    "state_ops.assign_add": lambda i: [fr.assign_add(i.v, ONES), fr.assign_add(i.ref, ONES)],
    "state_ops.assign_sub": lambda i: [fr.assign_sub(i.v, ONES), fr.assign_sub(i.ref, ONES)],
    "state_ops.scatter_update": lambda i: fr.scatter_update(i.v, [0], [[1.0, 2.0, 3.0]]),
    "state_ops.scatter_add": lambda i: fr.scatter_add(i.ref, 1, [1.0, 2.0, 3.0]),
    "state_ops.scatter_sub": lambda i: fr.scatter_sub(i.v, [1], [[1.0, 2.0, 3.0]]),
    "state_ops.is_variable_initialized": lambda i: fr.is_variable_initialized(i.v),
    # set_ops
    "set_ops.set_intersection": lambda i: fr.sets.set_intersection(i.ids[None], [[1]]),
    "set_ops.set_union": lambda i: fr.sets.set_union([[1, 2]], i.ids[None]),
    "set_ops.set_difference": lambda i: fr.sets.set_difference(i.ids[None], [[1]]),
    "set_ops.set_size": lambda i: fr.sets.set_size(i.sps),
    "set_ops.setdiff1d": lambda i: fr.setdiff1d(i.ids, [1]),
    # bitwise_ops
    "bitwise_ops.bitwise_and": lambda i: fr.bitwise.bitwise_and(i.ids, 3),
    "bitwise_ops.bitwise_or": lambda i: fr.bitwise.bitwise_or(3, i.ids),
    "bitwise_ops.bitwise_xor": lambda i: fr.bitwise.bitwise_xor(i.ids, i.ids),
    "bitwise_ops.left_shift": lambda i: fr.bitwise.left_shift(i.ids, 1),
    "bitwise_ops.right_shift": lambda i: fr.bitwise.right_shift(i.ids, 1),
    "bitwise_ops.invert": lambda i: fr.bitwise.invert(i.ids),
    # check_ops
    "extra_check_ops.assert_near": lambda i: fr.assert_near(i.x, i.y),
    "extra_check_ops.assert_rank_in": lambda i: fr.assert_rank_in(i.x, [1, i.ids[0]]),
    "extra_check_ops.verify_tensor_all_finite": lambda i: fr.verify_tensor_all_finite(i.x, "m"),
    "extra_check_ops.is_non_decreasing": lambda i: fr.is_non_decreasing(i.x),
    "extra_check_ops.is_strictly_increasing": lambda i: fr.is_strictly_increasing(i.x),
    "check_ops.Assert": lambda i: fr.Assert(i.b[0, 0], [i.x, "message"]),
    "check_ops.assert_equal": lambda i: fr.assert_equal(i.x, 1.0, data=["d", i.y]),
    "check_ops.assert_none_equal": lambda i: fr.assert_none_equal(i.x, 1.0),
    "check_ops.assert_less": lambda i: fr.assert_less(i.x, 1.0),
    "check_ops.assert_less_equal": lambda i: fr.assert_less_equal(i.x, 1.0),
    "check_ops.assert_greater": lambda i: fr.assert_greater(i.x, 1.0),
    "check_ops.assert_greater_equal": lambda i: fr.assert_greater_equal(i.x, 1.0),
    "check_ops.assert_positive": lambda i: fr.assert_positive(i.x),
    "check_ops.assert_negative": lambda i: fr.assert_negative(i.x),
    "check_ops.assert_non_negative": lambda i: fr.assert_non_negative(i.x),
    "check_ops.assert_non_positive": lambda i: fr.assert_non_positive(i.x),
    "check_ops.assert_rank": lambda i: fr.assert_rank(i.x, i.ids[0]),
    "check_ops.assert_rank_at_least": lambda i: fr.assert_rank_at_least(i.x, i.ids[0]),
    "check_ops.assert_scalar": lambda i: fr.assert_scalar(i.x[0, 0]),
    "check_ops.assert_type": lambda i: fr.assert_type(i.x, fr.float32),
    "check_ops.assert_integer": lambda i: fr.assert_integer(i.ids),
    "check_ops.check_numerics": lambda i: fr.check_numerics(i.x, "bad"),
    "check_ops.Print": lambda i: fr.Print(i.x, [i.y, "text"]),
    "nd_conv_pool_ops.convolution": lambda i: fr.nn.convolution(
        i.img, i.img[0, :2, :2, :, None], "SAME"
    ),
    "nd_conv_pool_ops.conv_transpose": lambda i: fr.nn.conv_transpose(
        i.seq, i.seq[0, :3, None, :], [1, 5, 1], 1
    ),
    "nd_conv_pool_ops.conv1d_transpose": lambda i: fr.nn.conv1d_transpose(
        i.seq, i.seq[0, :3, None, :], [1, 5, 1], 1
    ),
    "nd_conv_pool_ops.pool": lambda i: fr.nn.pool(i.seq, [2], "AVG", "SAME"),
    "nd_conv_pool_ops.max_pool_v2": lambda i: fr.nn.max_pool_v2(i.vol, 2, 1, "SAME"),
    "nd_conv_pool_ops.avg_pool_v2": lambda i: fr.nn.avg_pool_v2(i.img, 2, 1, "SAME"),
    "pool_argmax_ops.max_pool_with_argmax": lambda i: fr.nn.max_pool_with_argmax(
        i.img, [1, 2, 2, 1], [1, 1, 1, 1], "SAME"
    ),
    "pool3d_ops.max_pool3d": lambda i: fr.nn.max_pool3d(i.vol, 2, 1, "SAME"),
    "pool3d_ops.avg_pool3d": lambda i: fr.nn.avg_pool3d(i.vol, [1, 2, 1], 1, "VALID"),
    "conv3d_ops.conv3d": lambda i: fr.nn.conv3d(i.vol, i.vol_f, [1, 1, 1, 1, 1], "SAME"),
    "conv3d_ops.conv3d_backprop_filter_v2": lambda i: fr.nn.conv3d_backprop_filter_v2(
        i.vol, [1, 1, 1, 2, 2], i.vol, [1, 1, 1, 1, 1], "SAME"
    ),
    "conv3d_ops.conv3d_backprop_filter": lambda i: fr.nn.conv3d_backprop_filter(
        i.vol, [1, 1, 1, 2, 2], i.vol, [1, 1, 1, 1, 1], "VALID"
    ),
    "conv3d_ops.conv3d_transpose": lambda i: fr.nn.conv3d_transpose(
        i.vol, i.vol_f, [1, 2, 2, 2, 2], [1, 1, 1, 1, 1]
    ),
    "safe_math_ops.xlogy": lambda i: fr.math.xlogy(i.x, i.y),
    "safe_math_ops.xdivy": lambda i: fr.math.xdivy(i.x, 2.0),
    "safe_math_ops.xlog1py": lambda i: fr.math.xlog1py(1.0, i.y),
    "safe_math_ops.multiply_no_nan": lambda i: fr.math.multiply_no_nan(i.x, i.y),
    "safe_math_ops.reciprocal_no_nan": lambda i: fr.math.reciprocal_no_nan(i.x),
    "safe_math_ops.polyval": lambda i: fr.math.polyval([1.0, i.y], i.x),
    "confusion_matrix_ops.confusion_matrix": lambda i: fr.confusion_matrix(
        i.ids, i.ids, weights=i.x[0, :2]
    ),
    # clip_ops
    "clip_ops.clip_by_norm": lambda i: [
        fr.clip_by_norm(i.x, 1.0),
        fr.clip_by_norm(ONES, i.x[0, 0]),
    ],
    "clip_ops.global_norm": lambda i: fr.global_norm([i.x, None, i.y]),
    "clip_ops.clip_by_global_norm": lambda i: fr.clip_by_global_norm([i.x, i.y], 1.0),
    "clip_ops.clip_by_average_norm": lambda i: fr.clip_by_average_norm(i.x, 1.0),
    # sparse_ops
    "sparse_ops.convert_to_tensor_or_sparse_tensor": lambda i: (
        fr.convert_to_tensor_or_sparse_tensor(i.x[0])
    ),
    "sparse_ops.sparse_to_dense": lambda i: fr.sparse_to_dense(i.ids, [5], 1.0),
    "sparse_ops.sparse_tensor_to_dense": lambda i: fr.sparse_tensor_to_dense(i.sp),
    "sparse_ops.sparse_reorder": lambda i: fr.sparse_reorder(i.sp),
    "edit_distance_ops.edit_distance": lambda i: fr.edit_distance(i.sps, i.sps),
    "ctc_ops.ctc_greedy_decoder": lambda i: fr.nn.ctc_greedy_decoder(
        fr.transpose(i.x1, [1, 0, 2]), i.ids
    )[1],
    "sparse_ops.sparse_reduce_sum": lambda i: fr.sparse_reduce_sum(i.sp, axis=1),
    "sparse_ops.sparse_retain": lambda i: fr.sparse_retain(i.sp, [True, False]),
    "sparse_ops.sparse_concat": lambda i: fr.sparse_concat(1, [i.sp, i.sp]),
    "sparse_ops.sparse_fill_empty_rows": lambda i: fr.sparse_fill_empty_rows(i.sp, 0.0),
    "sparse_ops.sparse_tensor_dense_matmul": lambda i: fr.sparse_tensor_dense_matmul(
        i.sp, np.ones([3, 2], np.float32)
    ),
    "sparse_ops.string_split": lambda i: fr.string_split(i.s, ","),
    # parsing, strings, csv
    "parsing_ops.parse_example": lambda i: fr.parse_example(i.s, _feature()),
    "parsing_ops.parse_single_example": lambda i: fr.parse_single_example(i.one_s, _feature()),
    "sequence_example_ops.parse_sequence_example": lambda i: fr.io.parse_sequence_example(
        i.s,
        context_features=_feature(),
        sequence_features={"q": fr.FixedLenSequenceFeature([], fr.int64)},
    ),
    "sequence_example_ops.parse_single_sequence_example": lambda i: (
        fr.parse_single_sequence_example(
            i.one_s,
            context_features=_feature(),
            sequence_features={"q": fr.FixedLenSequenceFeature([], fr.int64)},
        )
    ),
    "decode_raw_ops.decode_raw": lambda i: fr.decode_raw(i.s, fr.uint8),
    "string_ops.string_to_number": lambda i: fr.string_to_number(i.s),
    "string_ops.substr": lambda i: fr.substr(i.s, 0, 1),
    "csv_ops.decode_csv": lambda i: fr.decode_csv(i.s, [[1.0], [""], [0]]),
    # script_ops, logging_ops
    "script_ops.py_func": lambda i: fr.py_func(lambda a: a, [i.x], fr.float32),
    "script_ops.numpy_function": lambda i: fr.numpy_function(lambda a: a, [i.x], fr.float32),
    "script_ops.py_function": lambda i: fr.py_function(lambda a: a, [i.x], fr.float32),
    "string_ops.string_join": lambda i: fr.string_join([i.s, "x"], "-"),
    # text, hash buckets, codecs, lookup tables
    "logging_ops.string_format": lambda i: fr.strings.format("{} and {}", [i.x, i.s]),
    "text_ops.regex_replace": lambda i: fr.regex_replace(i.s, "a", "b"),
    "text_ops.regex_full_match": lambda i: fr.strings.regex_full_match(i.s, i.one_s),
    "text_ops.string_lower": lambda i: fr.strings.lower(i.s),
    "text_ops.string_upper": lambda i: fr.strings.upper(i.s),
    "text_ops.string_strip": lambda i: fr.string_strip(i.s),
    "text_ops.string_length": lambda i: fr.strings.length(i.s),
    "text_ops.as_string": lambda i: fr.as_string(i.x),
    "text_ops.reduce_join": lambda i: fr.reduce_join(i.s, 0),
    "text_ops.strings_split": lambda i: fr.strings.split(i.s, ","),
    "hash_bucket_ops.string_to_hash_bucket_fast": lambda i: fr.string_to_hash_bucket_fast(i.s, 5),
    "hash_bucket_ops.string_to_hash_bucket_strong": lambda i: fr.string_to_hash_bucket_strong(
        i.s, 5, [1, 2]
    ),
    "hash_bucket_ops.string_to_hash_bucket": lambda i: fr.string_to_hash_bucket(i.s, 5),
    "codec_ops.encode_base64": lambda i: fr.encode_base64(i.s),
    "codec_ops.decode_base64": lambda i: fr.decode_base64(i.s),
    "codec_ops.decode_compressed": lambda i: fr.io.decode_compressed(i.s, "ZLIB"),
    "codec_ops.decode_json_example": lambda i: fr.io.decode_json_example(i.s),
    "codec_ops.serialize_tensor": lambda i: fr.io.serialize_tensor(i.x),
    "codec_ops.parse_tensor": lambda i: fr.io.parse_tensor(i.one_s, fr.float32),
    "vocab_tables.index_table_from_tensor": lambda i: fr.contrib.lookup.index_table_from_tensor(
        i.s, 2
    ).lookup(i.s),
    "vocab_tables.index_table_from_file": lambda i: fr.contrib.lookup.index_table_from_file(
        i.one_s
    ).lookup(i.s),
    "vocab_tables.index_to_string_table_from_tensor": lambda i: (
        fr.contrib.lookup.index_to_string_table_from_tensor(i.s).lookup(fr.cast(i.ids, fr.int64))
    ),
    "vocab_tables.index_to_string_table_from_file": lambda i: (
        fr.contrib.lookup.index_to_string_table_from_file(i.one_s).lookup(fr.cast(i.ids, fr.int64))
    ),
    # einsum, depthwise convolution, space/depth, images, binning, custom gradients
    "einsum_ops.einsum": lambda i: fr.einsum("ij,kj->ik", i.x, i.y),
    "depthwise_conv_ops.depthwise_conv2d": lambda i: fr.nn.depthwise_conv2d(
        i.img, np.ones([2, 2, 2, 1], np.float32), [1, 1, 1, 1], "SAME", rate=2
    ),
    "depthwise_conv_ops.depthwise_conv2d_native": lambda i: fr.nn.depthwise_conv2d_native(
        i.img, np.ones([2, 2, 2, 1], np.float32), 1, "SAME"
    ),
    "depthwise_conv_ops.depthwise_conv2d_native_backprop_input": lambda i: (
        fr.nn.depthwise_conv2d_native_backprop_input(
            [1, 4, 4, 2], np.ones([2, 2, 2, 1], np.float32), i.img, 1, "SAME"
        )
    ),
    "depthwise_conv_ops.depthwise_conv2d_native_backprop_filter": lambda i: (
        fr.nn.depthwise_conv2d_native_backprop_filter(i.img, [2, 2, 2, 1], i.img, 1, "SAME")
    ),
    "depthwise_conv_ops.separable_conv2d": lambda i: fr.nn.separable_conv2d(
        i.img, np.ones([2, 2, 2, 2], np.float32), np.ones([1, 1, 4, 3], np.float32), 1, "SAME"
    ),
    "depthwise_conv_ops.atrous_conv2d": lambda i: fr.nn.atrous_conv2d(
        i.img, np.ones([2, 2, 2, 3], np.float32), 2, "SAME"
    ),
    "space_depth_ops.space_to_depth": lambda i: fr.space_to_depth(i.img, 2),
    "space_depth_ops.depth_to_space": lambda i: fr.depth_to_space(fr.concat([i.img, i.img], 3), 2),
    "image_ops.resize_images": lambda i: fr.image.resize_images(i.img, [8, 8]),
    "image_ops.resize": lambda i: fr.image.resize(i.img[0], i.shape),
    "image_ops.resize_bilinear": lambda i: fr.image.resize_bilinear(i.img, i.shape),
    "image_ops.resize_nearest_neighbor": lambda i: fr.image.resize_nearest_neighbor(
        i.img, [3, 5], half_pixel_centers=True
    ),
    "image_ops.extract_image_patches": lambda i: fr.extract_image_patches(
        i.img, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"
    ),
    "image_ops.extract_patches": lambda i: fr.image.extract_patches(
        i.img, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"
    ),
    "binning_ops.searchsorted": lambda i: fr.searchsorted(i.x, i.y, side="right"),
    "binning_ops.histogram_fixed_width": lambda i: fr.histogram_fixed_width(i.x, [0.0, 1.0], 4),
    "binning_ops.histogram_fixed_width_bins": lambda i: fr.histogram_fixed_width_bins(
        i.x, [0.0, 1.0], 4
    ),
    "binning_ops.bincount": lambda i: fr.bincount(i.ids, minlength=3),
    "custom_gradient_ops.identity_n": lambda i: fr.identity_n([i.x, i.ids]),
    "custom_gradient_ops.grad_pass_through": lambda i: fr.grad_pass_through(fr.round)(i.x),
    "custom_gradient_ops.custom_gradient": lambda i: fr.custom_gradient(
        lambda x: (x * 2.0, lambda dy: dy * 2.0)
    )(i.x),
    "logging_ops.print": lambda i: fr.print("x is", i.x),
    # losses
    "losses_impl.compute_weighted_loss": lambda i: fr.losses.compute_weighted_loss(
        i.x, weights=[[1.0], [2.0]]
    ),
    "losses_impl.absolute_difference": lambda i: fr.losses.absolute_difference(i.y, i.x),
    "losses_impl.mean_squared_error": lambda i: fr.losses.mean_squared_error(i.y, i.x, 2.0),
    "losses_impl.mean_pairwise_squared_error": lambda i: fr.losses.mean_pairwise_squared_error(
        i.x, i.x
    ),
    "losses_impl.huber_loss": lambda i: fr.losses.huber_loss(i.y, i.x, reduction="none"),
    "losses_impl.log_loss": lambda i: fr.losses.log_loss(i.y, i.x, reduction="weighted_mean"),
    "losses_impl.hinge_loss": lambda i: fr.losses.hinge_loss(i.y, i.x),
    "losses_impl.cosine_distance": lambda i: fr.losses.cosine_distance(i.y, i.x, axis=1),
    "losses_impl.sigmoid_cross_entropy": lambda i: fr.losses.sigmoid_cross_entropy(
        i.y, i.x, label_smoothing=0.1
    ),
    "losses_impl.softmax_cross_entropy": lambda i: fr.losses.softmax_cross_entropy(
        i.y, i.x, label_smoothing=0.1
    ),
    "losses_impl.sparse_softmax_cross_entropy": lambda i: fr.losses.sparse_softmax_cross_entropy(
        i.ids, i.x, weights=[1.0, 2.0]
    ),
    "_weights.as_float32": lambda i: fr.losses._weights.as_float32(i.ids),
    "_weights.check_broadcastable": lambda i: fr.losses._weights.check_broadcastable(
        i.x[:, 0:1], i.x
    ),
    "_weights.assert_broadcastable": lambda i: fr.losses._weights.assert_broadcastable(
        i.x[0:1], i.x
    ),
    "_weights.broadcast_weights": lambda i: fr.losses._weights.broadcast_weights(i.x[0:1], i.x),
    "confusion_matrix_ops.remove_squeezable_dimensions": lambda i: (
        confusion_matrix_ops.remove_squeezable_dimensions(i.x, i.x1)
    ),
    "_weights.squeeze_weights": lambda i: fr.losses._weights.squeeze_weights(i.x, i.y, i.x[0]),
    # layers (their variables too)
    "core.dense": lambda i: fr.layers.dense(i.x, 2, activation=fr.nn.relu),
    "core.dropout": lambda i: fr.layers.dropout(i.x, 0.5, training=True),
    "core.flatten": lambda i: fr.layers.flatten(i.img),
    "convolutional.conv2d": lambda i: fr.layers.conv2d(i.img, 3, 2, padding="same"),
    "convolutional.conv2d_transpose": lambda i: fr.layers.conv2d_transpose(i.img, 3, 2),
    "convolutional.max_pooling2d": lambda i: fr.layers.max_pooling2d(i.img, 2, 2),
    "convolutional.average_pooling2d": lambda i: fr.layers.average_pooling2d(i.img, 2, 2),
    "convolutional.conv1d": lambda i: fr.layers.conv1d(i.seq, 3, 2),
    "separable_conv.separable_conv2d": lambda i: fr.layers.separable_conv2d(
        i.img, 3, 2, depth_multiplier=2
    ),
    "convolutional.max_pooling1d": lambda i: fr.layers.max_pooling1d(i.seq, 2, 2),
    "convolutional.average_pooling1d": lambda i: fr.layers.average_pooling1d(i.seq, 2, 2),
    "normalization.batch_normalization": lambda i: fr.layers.batch_normalization(
        i.img, training=True
    ),
    # cwise_math_ops, scan_ops, reduction_ops, activation_ops
    **{
        "cwise_math_ops." + n: _math_of_x(n)
        for n in (
            "sinh",
            "cosh",
            "tan",
            "asin",
            "acos",
            "atan",
            "asinh",
            "acosh",
            "atanh",
            "expm1",
            "rint",
            "is_nan",
            "is_inf",
            "is_finite",
            "softsign",
        )
    },
    "cwise_math_ops.truncatediv": lambda i: fr.truncatediv(i.ids, 2),
    "cwise_math_ops.truncatemod": lambda i: fr.truncatemod(i.ids, 2),
    "cwise_math_ops.atan2": lambda i: fr.atan2(i.x, 1.0),
    "cwise_math_ops.nextafter": lambda i: fr.math.nextafter(i.x, 1.0),
    "scan_ops.cumsum": lambda i: fr.cumsum(i.x, 1),
    "scan_ops.cumprod": lambda i: fr.cumprod(i.x, 1),
    "scan_ops.cumulative_logsumexp": lambda i: fr.math.cumulative_logsumexp(i.x, 1),
    "reduction_ops.reduce_logsumexp": lambda i: fr.reduce_logsumexp(i.x, 1),
    "reduction_ops.reduce_euclidean_norm": lambda i: fr.math.reduce_euclidean_norm(i.x),
    "reduction_ops.count_nonzero": lambda i: fr.count_nonzero(i.x),
    "reduction_ops.reduce_variance": lambda i: fr.math.reduce_variance(i.x),
    "reduction_ops.reduce_std": lambda i: fr.math.reduce_std(i.x),
    "activation_ops.log_sigmoid": lambda i: fr.log_sigmoid(i.x),
    "activation_ops.swish": lambda i: fr.nn.swish(i.x),
    "activation_ops.crelu": lambda i: fr.nn.crelu(i.x),
    # manip_ops, product_ops, selection_ops, shape_ops, segment_ops, sort_ops
    "manip_ops.roll": lambda i: fr.roll(i.x, 1, 0),
    "product_ops.tensordot": lambda i: fr.tensordot(i.x, i.y, [[1], [1]]),
    "product_ops.cross": lambda i: fr.cross(i.x, i.y),
    "product_ops.scalar_mul": lambda i: fr.scalar_mul(i.x[0, 0], i.y),
    "selection_ops.reverse_sequence": lambda i: fr.reverse_sequence(i.x, [1, 2], 1, 0),
    "selection_ops.where_v2": lambda i: fr.where_v2(i.b, i.x, 0.0),
    "selection_ops.repeat": lambda i: fr.repeat(i.x, 2, 0),
    "selection_ops.batch_gather": lambda i: fr.batch_gather(i.x, [[0], [1]]),
    "shape_ops.ensure_shape": lambda i: fr.ensure_shape(i.x, [2, 3]),
    "shape_ops.shape_n": lambda i: fr.shape_n([i.x, i.y]),
    "shape_ops.broadcast_dynamic_shape": lambda i: fr.broadcast_dynamic_shape(i.shape, [1, 3]),
    "segment_ops.segment_sum": lambda i: fr.math.segment_sum(i.x, [0, 1]),
    "segment_ops.segment_mean": lambda i: fr.math.segment_mean(i.x, [0, 1]),
    "segment_ops.segment_max": lambda i: fr.math.segment_max(i.x, [0, 1]),
    "segment_ops.segment_min": lambda i: fr.math.segment_min(i.x, [0, 1]),
    "segment_ops.segment_prod": lambda i: fr.math.segment_prod(i.x, [0, 1]),
    "sort_ops.unique": lambda i: fr.unique(i.ids),
    "sort_ops.unique_with_counts": lambda i: fr.unique_with_counts(i.ids),
    "sort_ops.sort": lambda i: fr.sort(i.x),
    "sort_ops.argsort": lambda i: fr.argsort(i.x),
    # metrics (their local variables too)
    "metrics_impl.mean": lambda i: fr.metrics.mean(i.x, weights=[[1.0], [0.5]]),
    "metrics_impl.accuracy": lambda i: fr.metrics.accuracy(i.ids, [1, 0]),
    "metrics_impl.true_positives": lambda i: fr.metrics.true_positives(i.b, i.b),
    "metrics_impl.false_positives": lambda i: fr.metrics.false_positives(i.b, i.b),
    "metrics_impl.true_negatives": lambda i: fr.metrics.true_negatives(i.b, i.b),
    "metrics_impl.false_negatives": lambda i: fr.metrics.false_negatives(i.b, i.b),
    "metrics_impl.precision": lambda i: fr.metrics.precision(i.b, i.b),
    "metrics_impl.recall": lambda i: fr.metrics.recall(i.b, i.b),
    "metrics_impl.mean_squared_error": lambda i: fr.metrics.mean_squared_error(i.y, i.x),
    "metrics_impl.mean_absolute_error": lambda i: fr.metrics.mean_absolute_error(i.y, i.x),
    "metrics_impl.root_mean_squared_error": lambda i: fr.metrics.root_mean_squared_error(i.y, i.x),
    "metrics_impl.auc": lambda i: fr.metrics.auc(i.b, i.x, num_thresholds=5),
    "metrics_impl.precision_at_thresholds": lambda i: fr.metrics.precision_at_thresholds(
        i.b, i.x, [0.5]
    ),
    "metrics_impl.recall_at_thresholds": lambda i: fr.metrics.recall_at_thresholds(i.b, i.x, [0.5]),
    "metrics_impl.true_positives_at_thresholds": lambda i: fr.metrics.true_positives_at_thresholds(
        i.b, i.x, [0.5]
    ),
    "metrics_impl.false_positives_at_thresholds": lambda i: (
        fr.metrics.false_positives_at_thresholds(i.b, i.x, [0.5])
    ),
    "metrics_impl.true_negatives_at_thresholds": lambda i: fr.metrics.true_negatives_at_thresholds(
        i.b, i.x, [0.5]
    ),
    "metrics_impl.false_negatives_at_thresholds": lambda i: (
        fr.metrics.false_negatives_at_thresholds(i.b, i.x, [0.5])
    ),
}


def _public_functions():
    for m in MODULES:
        mod = importlib.import_module(m)
        short = m.rsplit(".", 1)[1]
        for n, v in vars(mod).items():
            if not n.startswith("_") and inspect.isfunction(v) and v.__module__ == mod.__name__:
                yield "%s.%s" % (short, n)


def test_the_table_covers_every_public_wrapper():
    public = set(_public_functions())
    missing = sorted(public - set(CASES) - set(NOT_WRAPPERS))
    assert not missing, "wrappers without a row in CASES: %s" % missing
    assert not sorted(set(CASES) - public), "rows for functions that are gone"


def _ops(g):
    return [op.name for op in g.get_operations()]


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrapper_builds_in_its_inputs_graph(case):
    g = fr.Graph()
    inputs = In(g)
    before = set(_ops(g))
    default = fr.Graph()
    with default.as_default():
        CASES[case](inputs)
        assert fr.get_default_graph() is default
    assert _ops(default) == [], "%s created ops in the default graph" % case
    assert set(_ops(g)) - before, "%s created no op in its inputs' graph" % case


MIXED = {
    "concat": lambda a, b: fr.concat([a, b], 0),
    "stack": lambda a, b: fr.stack([a, b]),
    "batch_normalization": lambda a, b: fr.nn.batch_normalization(a, b, 1.0, 0.0, 1.0, 1e-3),
    "assign": lambda a, b: fr.assign(a, b),
    "sigmoid_cross_entropy_with_logits": lambda a, b: fr.nn.sigmoid_cross_entropy_with_logits(
        labels=a, logits=b
    ),
    "mean_squared_error": lambda a, b: fr.losses.mean_squared_error(a, b),
    "assert_equal": lambda a, b: fr.assert_equal(a, b),
    "global_norm": lambda a, b: fr.global_norm([a, b]),
    "metrics.mean_absolute_error": lambda a, b: fr.metrics.mean_absolute_error(a, b),
}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_tensors_from_two_graphs_raise_naming_both(case):
    g1, g2 = fr.Graph(), fr.Graph()
    with g1.as_default():
        a = (
            fr.Variable(np.zeros([2, 3], np.float32), name="in_one")
            if case == "assign"
            else fr.placeholder(fr.float32, [2, 3], name="in_one")
        )
    with g2.as_default():
        b = fr.placeholder(fr.float32, [2, 3], name="in_two")
    with pytest.raises(ValueError, match="must be from the same graph") as info:
        MIXED[case](a, b)
    assert "in_one" in str(info.value) and "in_two" in str(info.value)


def test_a_layer_called_on_another_graphs_tensor_keeps_its_variables_there():
    g = fr.Graph()
    with g.as_default():
        x = fr.placeholder(fr.float32, [None, 3], name="x")
    layer = fr.layers.Dense(2)
    y = layer(x)
    assert y.graph is g
    assert all(v.graph is g for v in layer.weights)
    assert fr.get_default_graph().get_collection(fr.GraphKeys.GLOBAL_VARIABLES) == []
    assert len(g.get_collection(fr.GraphKeys.TRAINABLE_VARIABLES)) == 2
    with fr.Session(graph=g) as sess:
        sess.run([v.initializer for v in layer.weights])
        assert sess.run(y, {x: np.ones([4, 3], np.float32)}).shape == (4, 2)


def test_losses_and_metrics_collect_into_their_inputs_graph():
    g = fr.Graph()
    with g.as_default():
        labels = fr.placeholder(fr.float32, [2, 3], name="labels")
        pred = fr.placeholder(fr.float32, [2, 3], name="pred")
    loss = fr.losses.mean_squared_error(labels, pred)
    value, update = fr.metrics.mean(pred, metrics_collections=["m"])
    default = fr.get_default_graph()
    assert g.get_collection(fr.GraphKeys.LOSSES) == [loss]
    assert default.get_collection(fr.GraphKeys.LOSSES) == []
    assert g.get_collection("m") == [value] and default.get_collection("m") == []
    assert len(g.get_collection(fr.GraphKeys.LOCAL_VARIABLES)) == 2
    assert default.get_collection(fr.GraphKeys.LOCAL_VARIABLES) == []
    with fr.Session(graph=g) as sess:
        sess.run([v.initializer for v in g.get_collection(fr.GraphKeys.LOCAL_VARIABLES)])
        feed = {labels: np.zeros([2, 3], np.float32), pred: np.full([2, 3], 2.0, np.float32)}
        assert sess.run(loss, feed) == 4.0
        assert sess.run(update, feed) == 2.0


def test_tensorflow_builds_these_wrappers_in_the_inputs_graph_too():
    """Optional cross-check (skipped without TensorFlow): the rule is TF1's."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    g, default = tf.Graph(), tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        y = tf.placeholder(tf.float32, [2, 3], name="y")
    with default.as_default():
        tf.concat([x, ONES], 0)
        tf.reshape(x, [3, 2])
        tf.fill([2, 3], x[0, 0])
        tf.nn.moments(x, [0])
        tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=ONES)
        tf.clip_by_global_norm([x, y], 1.0)
        tf.losses.mean_squared_error(y, x)
        tf.metrics.mean(x)
    assert default.get_operations() == []
    assert len(g.get_collection(tf.GraphKeys.LOCAL_VARIABLES)) == 2
