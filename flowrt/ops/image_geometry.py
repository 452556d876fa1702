"""Image geometry (``fr.image.flip_left_right``, ``rot90``, ``crop_to_bounding_box``,
``pad_to_bounding_box``, ``central_crop``, ``random_crop``, ...), composed of flowrt's
array, random and control-flow ops as TF's ``image_ops_impl`` composes them, so their
gradients come from those ops and the seeded random ones draw TF's values.

Images are [height, width, channels] or batches [batch, height, width, channels]. A
size known when the graph is built is checked then (``ValueError``, TF's message);
one known only at run time is checked by an ``Assert`` op (``InvalidArgumentError``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from . import array_ops, check_ops, control_flow_ops, math_ops, random_ops, slicing_ops
from .common import op_scope
from .const_eval import static_value

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "flip_left_right",
    "flip_up_down",
    "random_flip_left_right",
    "random_flip_up_down",
    "transpose_image",
    "transpose",
    "rot90",
    "crop_to_bounding_box",
    "pad_to_bounding_box",
    "resize_image_with_crop_or_pad",
    "resize_with_crop_or_pad",
    "central_crop",
    "random_crop",
]


# --------------------------------------------------------------------------------------
# Shape checks, as TF's _CheckAtLeast3DImage / _assert
# --------------------------------------------------------------------------------------


def is_tensor(x: Any) -> bool:
    """True for a graph value (a Tensor or a Variable), False for a Python number."""
    from ..variables import Variable  # variables builds on the ops package

    return isinstance(x, (Tensor, Variable))


def with_dependencies(deps: list, t: Tensor) -> Tensor:
    """``t`` through an Identity that runs after ``deps`` (TF's ``with_dependencies``)."""
    with op_scope([t], None, "control_dependency"):
        with get_default_graph().control_dependencies(deps):
            return array_ops.identity(t)


def check_at_least_3d(image: Tensor) -> list:
    """TF's checks of an image of rank >= 3 with non-empty inner dims: static ones raise
    ValueError now, the rest are returned as Assert ops."""
    s = image.shape
    if s.ndims is not None and s.ndims < 3:
        raise ValueError("'image' (shape %s) must be at least three-dimensional." % s)
    inner = [None] * 3 if s.ndims is None else s.as_list()[-3:]
    if any(d == 0 for d in inner):
        raise ValueError("inner 3 dims of 'image.shape' must be > 0: %s" % s)
    if all(d is not None for d in inner):
        return []
    return [
        check_ops.assert_positive(
            array_ops.shape(image)[-3:], ["inner 3 dims of 'image.shape' must be > 0."]
        ),
        check_ops.assert_greater_equal(
            array_ops.rank(image), 3, message="'image' must be at least three-dimensional."
        ),
    ]


def assert_at_least_3d(image: Tensor) -> Tensor:
    return with_dependencies(check_at_least_3d(image), image)


def tf_assert(cond: Any, msg: str) -> list:
    """TF's ``_assert``: a Python condition raises ValueError now; a tensor one gives an
    Assert op."""
    if is_tensor(cond):
        return [check_ops.Assert(cond, [msg])]
    if not cond:
        raise ValueError(msg)
    return []


def image_dims(image: Tensor, rank: int) -> list:
    """Each dim of ``image``: a Python int where static, else a scalar int32 tensor."""
    s = image.shape
    if s.is_fully_defined():
        return s.as_list()
    static = s.with_rank(rank).as_list()
    dynamic = slicing_ops.unstack(array_ops.shape(image), rank)
    return [a if a is not None else b for a, b in zip(static, dynamic)]


def _by_rank(image: Tensor, f3: Callable, f4: Callable) -> Tensor:
    nd = image.shape.ndims
    if nd is None:
        return control_flow_ops.cond(math_ops.equal(array_ops.rank(image), 3), f3, f4)
    if nd == 3:
        return f3()
    if nd == 4:
        return f4()
    raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % image.shape)


def _fix_flip_shape(image: Tensor, result: Tensor) -> Tensor:
    s = image.shape
    result.set_shape([None, None, None] if s.ndims is None else s)
    return result


def as_batch(image: Tensor) -> tuple[Tensor, bool]:
    nd = image.shape.ndims
    if nd == 4:
        return image, True
    if nd == 3:
        return array_ops.expand_dims(image, 0), False
    if nd is None:
        x = array_ops.expand_dims(image, 0)
        x.set_shape([None] * 4)
        return x, False
    raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % image.shape)


def unbatch(x: Tensor, is_batch: bool) -> Tensor:
    return x if is_batch else array_ops.squeeze(x, axis=[0])


# --------------------------------------------------------------------------------------
# Flips, transpose, rot90
# --------------------------------------------------------------------------------------


def _flip(image: TensorLike, index: int, scope: str) -> Tensor:
    with op_scope([image], None, scope):
        x = assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(
            x,
            lambda: _fix_flip_shape(x, array_ops.reverse(x, [index])),
            lambda: array_ops.reverse(x, [index + 1]),
        )


def flip_left_right(image: TensorLike) -> Tensor:
    """Mirrors ``image`` (3-D, or a 4-D batch) horizontally (TF1 ``tf.image.flip_left_right``).

    Raises:
      ValueError: for an image of a rank other than 3 or 4, or with an empty inner dim.
    """
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image: TensorLike) -> Tensor:
    """Mirrors ``image`` (3-D, or a 4-D batch) vertically (TF1 ``tf.image.flip_up_down``)."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image: TensorLike, index: int, seed: int | None, scope: str) -> Tensor:
    with op_scope([image], None, scope) as name:
        x = assert_at_least_3d(convert_to_tensor(image, name="image"))

        def f3():
            u = random_ops.random_uniform([], 0, 1.0, seed=seed)
            res = control_flow_ops.cond(
                math_ops.less(u, 0.5),
                lambda: array_ops.reverse(x, [index]),
                lambda: x,
                name=name,
            )
            return _fix_flip_shape(x, res)

        def f4():
            n = array_ops.shape(x)[0]
            u = random_ops.random_uniform([n], 0, 1.0, seed=seed)
            flips = math_ops.cast(math_ops.round(array_ops.reshape(u, [n, 1, 1, 1])), x.dtype)
            return flips * array_ops.reverse(x, [index + 1]) + (1 - flips) * x

        return _by_rank(x, f3, f4)


def random_flip_left_right(image: TensorLike, seed: int | None = None) -> Tensor:
    """Mirrors ``image`` horizontally with probability 1/2; in a 4-D batch each image
    draws for itself (TF1 ``tf.image.random_flip_left_right``).

    Args:
      image: a 3-D image or a 4-D batch.
      seed: the op seed (with ``fr.set_random_seed``, TF's values for the same seeds).
    """
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image: TensorLike, seed: int | None = None) -> Tensor:
    """Mirrors ``image`` vertically with probability 1/2 (TF1
    ``tf.image.random_flip_up_down``); args as :func:`random_flip_left_right`."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def transpose_image(image: TensorLike, name: str | None = None) -> Tensor:
    """Swaps the height and width of ``image`` (3-D, or a 4-D batch) (TF1
    ``tf.image.transpose_image``; TF2 ``tf.image.transpose``)."""
    with op_scope([image], name, "transpose"):
        x = assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(
            x,
            lambda: array_ops.transpose(x, [1, 0, 2], name=name),
            lambda: array_ops.transpose(x, [0, 2, 1, 3], name=name),
        )


transpose = transpose_image


def _rot90_cases(x: Tensor, k: Tensor, h: int, scope: str) -> Tensor:
    perm = [1, 0, 2] if h == 0 else [0, 2, 1, 3]
    w = h + 1
    cases = [
        (
            math_ops.equal(k, 1),
            lambda: array_ops.transpose(array_ops.reverse_v2(x, [w]), perm),
        ),
        (math_ops.equal(k, 2), lambda: array_ops.reverse_v2(x, [h, w])),
        (
            math_ops.equal(k, 3),
            lambda: array_ops.reverse_v2(array_ops.transpose(x, perm), [w]),
        ),
    ]
    res = control_flow_ops.case(cases, default=lambda: x, exclusive=True, name=scope)
    s = x.shape
    if h == 0:
        res.set_shape([None, None, s[2]])
    else:
        res.set_shape([s[0], None, None, s[3]])
    return res


def rot90(image: TensorLike, k: TensorLike = 1, name: str | None = None) -> Tensor:
    """Rotates ``image`` (3-D, or a 4-D batch) by ``k`` quarter turns counter-clockwise
    (TF1 ``tf.image.rot90``).

    Args:
      image: a 3-D image or a 4-D batch.
      k: a scalar int32 (a tensor or a Python int), taken modulo 4.
      name: the name scope (default ``rot90``).
    """
    with op_scope([image, k], name, "rot90") as scope:
        x = assert_at_least_3d(convert_to_tensor(image, name="image"))
        kt = convert_to_tensor(k, dtype=_dt.int32, name="k")
        kt.shape.assert_has_rank(0)
        kt = math_ops.mod(kt, 4)
        return _by_rank(
            x, lambda: _rot90_cases(x, kt, 0, scope), lambda: _rot90_cases(x, kt, 1, scope)
        )


# --------------------------------------------------------------------------------------
# Crops and pads
# --------------------------------------------------------------------------------------


def _static_dims(shape: list) -> list:
    return [None if is_tensor(v) else v for v in shape]


def pad_to_bounding_box(
    image: TensorLike,
    offset_height: Any,
    offset_width: Any,
    target_height: Any,
    target_width: Any,
) -> Tensor:
    """Pads ``image`` with zeros to ``target_height`` x ``target_width``, its top-left
    corner at (``offset_height``, ``offset_width``) (TF1 ``tf.image.pad_to_bounding_box``).

    Args:
      image: a 3-D image or a 4-D batch.
      offset_height: rows of zeros above (int or scalar int32 tensor).
      offset_width: columns of zeros on the left.
      target_height: the padded height.
      target_width: the padded width.

    Raises:
      ValueError: for static offsets < 0 or an image larger than target - offset;
        the same checks on tensors fail at run time (InvalidArgumentError).
    """
    with op_scope([image], None, "pad_to_bounding_box"):
        x, is_batch = as_batch(convert_to_tensor(image, name="image"))
        batch, height, width, depth = image_dims(x, 4)
        after_w = target_width - offset_width - width
        after_h = target_height - offset_height - height
        checks = check_at_least_3d(x)
        checks += tf_assert(offset_height >= 0, "offset_height must be >= 0")
        checks += tf_assert(offset_width >= 0, "offset_width must be >= 0")
        checks += tf_assert(after_w >= 0, "width must be <= target - offset")
        checks += tf_assert(after_h >= 0, "height must be <= target - offset")
        x = with_dependencies(checks, x)
        pads = array_ops.reshape(
            array_ops.stack([0, 0, offset_height, after_h, offset_width, after_w, 0, 0]),
            [4, 2],
        )
        padded = slicing_ops.pad(x, pads)
        padded.set_shape(_static_dims([batch, target_height, target_width, depth]))
        return unbatch(padded, is_batch)


def crop_to_bounding_box(
    image: TensorLike,
    offset_height: Any,
    offset_width: Any,
    target_height: Any,
    target_width: Any,
) -> Tensor:
    """The ``target_height`` x ``target_width`` window of ``image`` whose top-left corner
    is (``offset_height``, ``offset_width``) (TF1 ``tf.image.crop_to_bounding_box``).

    Args:
      image: a 3-D image or a 4-D batch.
      offset_height: the window's first row (int or scalar int32 tensor).
      offset_width: the window's first column.
      target_height: the window's height.
      target_width: the window's width.

    Raises:
      ValueError: for static offsets < 0, targets <= 0 or a window past the image; the
        same checks on tensors fail at run time (InvalidArgumentError).
    """
    with op_scope([image], None, "crop_to_bounding_box"):
        x, is_batch = as_batch(convert_to_tensor(image, name="image"))
        checks = check_at_least_3d(x)
        batch, height, width, depth = image_dims(x, 4)
        checks += tf_assert(offset_width >= 0, "offset_width must be >= 0.")
        checks += tf_assert(offset_height >= 0, "offset_height must be >= 0.")
        checks += tf_assert(target_width > 0, "target_width must be > 0.")
        checks += tf_assert(target_height > 0, "target_height must be > 0.")
        checks += tf_assert(
            width >= (target_width + offset_width), "width must be >= target + offset."
        )
        checks += tf_assert(
            height >= (target_height + offset_height), "height must be >= target + offset."
        )
        x = with_dependencies(checks, x)
        shape = array_ops.shape(x)
        cropped = slicing_ops.slice(
            x,
            array_ops.stack([0, offset_height, offset_width, 0]),
            array_ops.stack([shape[0], target_height, target_width, shape[3]]),
        )
        cropped.set_shape(_static_dims([batch, target_height, target_width, depth]))
        return unbatch(cropped, is_batch)


def _max(a, b):
    return math_ops.maximum(a, b) if is_tensor(a) or is_tensor(b) else max(a, b)


def _min(a, b):
    return math_ops.minimum(a, b) if is_tensor(a) or is_tensor(b) else min(a, b)


def _eq(a, b):
    return math_ops.equal(a, b) if is_tensor(a) or is_tensor(b) else a == b


def resize_image_with_crop_or_pad(
    image: TensorLike, target_height: Any, target_width: Any
) -> Tensor:
    """Crops ``image`` centrally and/or pads it evenly with zeros to ``target_height`` x
    ``target_width`` (TF1 ``tf.image.resize_image_with_crop_or_pad``; TF2
    ``tf.image.resize_with_crop_or_pad``).

    Raises:
      ValueError: for a static target <= 0 or an image that is not 3-D or 4-D.
    """
    with op_scope([image], None, "resize_image_with_crop_or_pad"):
        x, is_batch = as_batch(convert_to_tensor(image, name="image"))
        checks = check_at_least_3d(x)
        checks += tf_assert(target_width > 0, "target_width must be > 0.")
        checks += tf_assert(target_height > 0, "target_height must be > 0.")
        x = with_dependencies(checks, x)
        if is_tensor(target_height):
            target_height = with_dependencies(checks, target_height)
        if is_tensor(target_width):
            target_width = with_dependencies(checks, target_width)
        _, height, width, _ = image_dims(x, 4)
        wd = target_width - width
        hd = target_height - height
        cropped = crop_to_bounding_box(
            x,
            _max(-hd // 2, 0),
            _max(-wd // 2, 0),
            _min(target_height, height),
            _min(target_width, width),
        )
        resized = pad_to_bounding_box(
            cropped, _max(hd // 2, 0), _max(wd // 2, 0), target_height, target_width
        )
        _, rh, rw, _ = image_dims(resized, 4)
        checks = tf_assert(_eq(rh, target_height), "resized height is not correct.")
        checks += tf_assert(_eq(rw, target_width), "resized width is not correct.")
        resized = with_dependencies(checks, resized)
        return unbatch(resized, is_batch)


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def _start(size, fraction, dynamic: bool):
    if dynamic:
        s = math_ops.cast(size, _dt.float64)
        return math_ops.cast((s - s * math_ops.cast(fraction, _dt.float64)) / 2, _dt.int32)
    return int((float(size) - float(size) * fraction) / 2)


def central_crop(image: TensorLike, central_fraction: Any) -> Tensor:
    """The central ``central_fraction`` of ``image``'s height and width (TF1
    ``tf.image.central_crop``): the crop starts at ``int((size - size * fraction) / 2)``.

    Args:
      image: a 3-D image or a 4-D batch.
      central_fraction: a float in (0, 1] (or a scalar tensor).

    Raises:
      ValueError: for a static fraction outside (0, 1] or an image of another rank.
    """
    with op_scope([image], None, "central_crop"):
        x = convert_to_tensor(image, name="image")
        frac = static_value(central_fraction) if is_tensor(central_fraction) else central_fraction
        if frac is not None:
            frac = float(frac)
            if frac <= 0.0 or frac > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if frac == 1.0:
                return x
        else:
            # TF's own run-time check, kept as it is (its ``or`` makes it always pass).
            ok = math_ops.logical_or(central_fraction > 0.0, central_fraction <= 1.0)
            x = with_dependencies(tf_assert(ok, "central_fraction must be within (0, 1]"), x)
        check_at_least_3d(x)
        rank = x.shape.ndims
        if rank not in (3, 4):
            raise ValueError(
                "`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = %s." % rank
            )
        off = 0 if rank == 3 else 1
        dims = x.shape.as_list()

        def dim(i):
            if dims[i] is not None:
                return dims[i], frac is None
            return array_ops.shape(x)[i], True

        (h, dyn_h), (w, dyn_w) = dim(off), dim(off + 1)
        fr_ = central_fraction if frac is None else frac
        h0, w0 = _start(h, fr_, dyn_h), _start(w, fr_, dyn_w)
        hs, ws = h - h0 * 2, w - w0 * 2
        if rank == 3:
            begin, size = array_ops.stack([h0, w0, 0]), array_ops.stack([hs, ws, -1])
        else:
            begin, size = array_ops.stack([0, h0, w0, 0]), array_ops.stack([-1, hs, ws, -1])
        out = slicing_ops.slice(x, begin, size)
        static = [None if dyn_h else hs, None if dyn_w else ws]
        out.set_shape(static + [dims[2]] if rank == 3 else [dims[0]] + static + [dims[3]])
        return out


def random_crop(
    value: TensorLike, size: TensorLike, seed: int | None = None, name: str | None = None
) -> Tensor:
    """A window of shape ``size`` at a uniformly random offset of ``value`` (TF1
    ``tf.random_crop`` / ``tf.image.random_crop``).

    Args:
      value: a tensor of any rank.
      size: an int32 vector, the window's shape (one entry per dim of ``value``).
      seed: the op seed (with ``fr.set_random_seed``, TF's offsets for the same seeds).
      name: the name scope (default ``random_crop``).

    Raises:
      InvalidArgumentError: at run time when ``size`` exceeds ``value``'s shape.
    """
    with op_scope([value, size], name, "random_crop") as scope:
        v = convert_to_tensor(value, name="value")
        s = convert_to_tensor(size, dtype=_dt.int32, name="size")
        shape = array_ops.shape(v)
        check = check_ops.Assert(
            math_ops.reduce_all(shape >= s),
            ["Need value.shape >= size, got ", shape, s],
            summarize=1000,
        )
        shape = with_dependencies([check], shape)
        limit = shape - s + 1
        offset = (
            random_ops.random_uniform(
                array_ops.shape(shape), dtype=s.dtype, maxval=s.dtype.max, seed=seed
            )
            % limit
        )
        return slicing_ops.slice(v, offset, s, name=scope)
