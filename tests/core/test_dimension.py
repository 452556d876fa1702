"""TF1's Dimension: what x.get_shape()[i] gives under disable_v2_behavior (the CIFAR-10
and MNIST programs' ``shape[1].value``), ints under TF2 shapes, and fully defined
TensorShapes and Dimensions wherever TF converts them to tensors."""

import numpy as np
import pytest

import flowrt as fr


@pytest.fixture
def v1_shapes():
    fr.disable_v2_behavior()
    yield
    fr.enable_v2_tensorshape()


def test_tf2_shapes_index_to_ints_by_default():
    s = fr.placeholder(fr.float32, [None, 3]).get_shape()
    assert s[1] == 3 and type(s[1]) is int and s[0] is None and list(s) == [None, 3]
    # TensorShape.dims gives Dimensions under either behaviour, as TF's.
    assert [repr(d) for d in s.dims] == ["Dimension(None)", "Dimension(3)"]
    assert str(s) == "(None, 3)"


def test_cifar10_reads_dim_value_after_disable_v2_behavior(v1_shapes):
    # cifar10.py: dim = reshape.get_shape()[1].value
    images = fr.placeholder(fr.float32, [None, 6, 6, 2])
    reshape = fr.reshape(images, [fr.shape(images)[0], -1])
    x = fr.placeholder(fr.float32, [None, 72])
    dim = x.get_shape()[1].value
    assert dim == 72 and isinstance(x.get_shape()[1], fr.Dimension)
    weights = fr.get_variable("weights", [dim, 4])
    assert weights.get_shape().as_list() == [72, 4]
    s = images.get_shape()
    assert s[0].value is None and repr(s[0]) == "Dimension(None)"
    assert [d.value for d in s] == [None, 6, 6, 2] and s.as_list() == [None, 6, 6, 2]
    assert repr(fr.TensorShape(None)[0]) == "Dimension(None)"
    assert str(s) == "(?, 6, 6, 2)"
    assert repr(s[1:2]) == "TensorShape([Dimension(6)])"
    assert reshape.get_shape()[1].value is None
    # Internal uses of shapes keep working: a layer on a Dimension-valued width.
    y = fr.layers.dense(x, s[3])
    assert y.get_shape().as_list() == [None, 2]
    assert fr.split(x, s[3], axis=1)[0].get_shape().as_list() == [None, 36]


def test_switches_follow_tf(v1_shapes):
    x = fr.placeholder(fr.float32, [2])
    fr.enable_v2_tensorshape()
    assert type(x.shape[0]) is int
    fr.disable_v2_tensorshape()
    assert isinstance(x.shape[0], fr.Dimension)
    assert fr.compat.v1.Dimension is fr.Dimension


def test_dimension_arithmetic_comparison_and_merge():
    d, unknown = fr.Dimension(3), fr.Dimension(None)
    assert repr(d + 1) == "Dimension(4)" and repr(2 * d) == "Dimension(6)"
    assert repr(3 - d) == "Dimension(0)" and repr(d // 2) == "Dimension(1)"
    assert repr(d % 2) == "Dimension(1)" and repr(d + unknown) == "Dimension(None)"
    assert (d == 3) is True and (d != 3) is False and (d == unknown) is None
    assert (d < 4) is True and (unknown < 4) is None
    assert int(d) == 3 and list(range(d)) == [0, 1, 2] and np.zeros([d, 2]).shape == (3, 2)
    assert str(unknown) == "?" and str(d) == "3" and not fr.Dimension(0)
    assert repr(unknown.merge_with(d)) == "Dimension(3)" and d.is_compatible_with(None)
    with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
        d.merge_with(4)
    with pytest.raises(TypeError, match="please use // instead"):
        d / 2
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        fr.Dimension(-1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(d)
    assert fr.dimension_value(d) == 3 and fr.dimension_value(unknown) is None
    assert fr.dimension_value(4) == 4 and fr.dimension_value(None) is None
    assert fr.compat.dimension_at_index(fr.TensorShape([None, 5]), 1).value == 5
    assert fr.TensorShape([fr.Dimension(2), None]).as_list() == [2, None]


def test_a_tensor_shape_converts_where_tf_converts_it(v1_shapes):
    # tf.reshape(x, y.get_shape()): "Expected int32, but got (10000, 53) of type
    # 'TensorShape'" before.
    x = fr.placeholder(fr.float32, [None, 6])
    y = fr.zeros([3, 2])
    r = fr.reshape(x, y.get_shape())
    z = fr.zeros(y.shape)
    f = fr.fill(y.shape, 2.0)
    t = fr.tile(y, fr.TensorShape([1, 2]))
    u = fr.random_uniform(y.shape)
    by_dims = fr.reshape(x, [-1, y.get_shape()[1]])
    assert [a.get_shape().as_list() for a in (r, z, f, u, t)] == [[3, 2]] * 4 + [[3, 4]]
    assert by_dims.get_shape().as_list() == [None, 2]
    big = fr.convert_to_tensor(fr.TensorShape([2**33]))
    assert big.dtype == fr.int64 and fr.convert_to_tensor(fr.TensorShape([])).dtype == fr.int32
    assert fr.convert_to_tensor(x.get_shape()[1]).dtype == fr.int32
    with fr.Session() as sess:
        out = sess.run(r, {x: np.arange(6.0).reshape(1, 6)})
    assert out.tolist() == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(ValueError, match=r"partially known TensorShape \(\?, 6\) to a Tensor"):
        fr.reshape(y, x.get_shape())
    with pytest.raises(ValueError, match=r"Cannot convert unknown Dimension \? to a Tensor"):
        fr.convert_to_tensor(x.get_shape()[0])
    with pytest.raises(TypeError, match="Allowed dtypes are tf.int32 and tf.int64"):
        fr.convert_to_tensor(y.shape, fr.float32)
