"""``fr.einsum``: the ``Einsum`` op (infer, kernel, gradient) and its equation parsing.

An equation names each input's axes with letters (``'bij,bjk->bik'``); ``...`` stands
for broadcast leading axes; without ``->`` the output is the ellipsis followed by the
labels that appear once, in alphabetical order (TF1's and numpy's implicit form). The
op stores the equation with its output made explicit, as TF does.

The gradient of input ``i`` is an ``Einsum`` of the output gradient with the other
inputs, giving the labels of input ``i`` that the others or the output have; labels
only input ``i`` has are broadcast back, ellipsis axes that were broadcast from size 1
are summed back, and repeated labels (a diagonal, ``'ii->i'``) are spread back onto
the diagonal with an identity mask.
"""

from __future__ import annotations

import re
import string
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops, slicing_ops
from .common import make, op_scope

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["einsum"]

_EINSUM_DTYPES = (
    _dt.float16,
    _dt.float32,
    _dt.float64,
    _dt.int32,
    _dt.int64,
    _dt.complex64,
    _dt.complex128,
)
_FORMAT = re.compile(r"^([a-zA-Z]|\.\.\.)*(,([a-zA-Z]|\.\.\.)*)*(->([a-zA-Z]|\.\.\.)*)?$")


def _resolve(equation: str, n_inputs: int) -> tuple[list[str], str]:
    """``(input_subscripts, output_subscripts)`` of ``equation``, output made explicit."""
    eq = equation.replace(" ", "")
    if not _FORMAT.match(eq):
        raise ValueError("Subscripts have incorrect format: %s" % equation)
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != n_inputs:
        raise ValueError(
            'Got %d inputs for equation "%s", expecting %d' % (n_inputs, equation, len(ins))
        )
    for sub in ins + [out]:
        if sub.count("...") > 1:
            raise ValueError("Subscripts have incorrect format: %s" % equation)
    labels = "".join(s.replace("...", "") for s in ins)
    if not arrow:
        once = sorted(c for c in set(labels) if labels.count(c) == 1)
        out = ("..." if any("..." in s for s in ins) else "") + "".join(once)
    for c in out.replace("...", ""):
        if c not in labels:
            raise ValueError(
                "Output subscripts contain the label %s not present in the input subscripts." % c
            )
        if out.count(c) > 1:
            raise ValueError(
                "Output subscripts contain a label appearing more than once: %s" % equation
            )
    return ins, out


def _split(equation: str) -> tuple[list[str], str]:
    lhs, _, out = equation.partition("->")
    return lhs.split(","), out


def _merge(a: int | None, b: int | None, label: str) -> int | None:
    if a is None:
        return b
    if b is not None and a != b:
        raise ValueError("Dimensions must be equal, but are %d and %d for label %r" % (a, b, label))
    return a


def _broadcast(a: list[int | None], b: list[int | None]) -> list[int | None]:
    n = max(len(a), len(b))
    one: list[int | None] = [1]
    a = one * (n - len(a)) + a
    b = one * (n - len(b)) + b
    out: list[int | None] = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x != y:
            raise ValueError(
                "Dimensions must be equal, but are %d and %d in the broadcast (ellipsis) "
                "dimensions" % (x, y)
            )
        else:
            out.append(x)
    return out


def _input_dims(sub: str, dims: list[Any], k: int, equation: str) -> tuple[list, list]:
    """``(label_dims, ellipsis_dims)`` of input ``k`` with subscripts ``sub``."""
    labels = sub.replace("...", "")
    if "..." not in sub:
        if len(dims) != len(labels):
            raise ValueError(
                "Shape must be rank %d but is rank %d\n\t for %dth input and equation: %s"
                % (len(labels), len(dims), k, equation)
            )
        return list(dims), []
    if len(dims) < len(labels):
        raise ValueError(
            "Shape must be at least rank %d but is rank %d\n\t for %dth input and "
            "equation: %s" % (len(labels), len(dims), k, equation)
        )
    before = sub.index("...")
    after = len(labels) - before
    ell = dims[before : len(dims) - after]
    return list(dims[:before]) + list(dims[len(dims) - after :]), list(ell)


def _infer(op):
    xs = op.inputs
    dt = xs[0].dtype
    if any(x.dtype is not dt for x in xs):
        raise TypeError(
            "Tensors in list passed to 'inputs' of 'Einsum' Op have types [%s] that don't "
            "all match." % ", ".join(x.dtype.name for x in xs)
        )
    if dt not in _EINSUM_DTYPES:
        raise TypeError(
            "Value passed to parameter 'inputs' has DataType %s not in list of allowed "
            "values: %s" % (dt.name, ", ".join(d.name for d in _EINSUM_DTYPES))
        )
    equation = op.attrs["equation"]
    ins, out = _split(equation)
    label_dims: dict[str, int | None] = {}
    ell: list[int | None] | None = []
    for k, (sub, x) in enumerate(zip(ins, xs)):
        if x.shape.ndims is None:
            if "..." in sub:
                ell = None
            continue
        ldims, edims = _input_dims(sub, x.shape.as_list(), k, equation)
        for c, d in zip(sub.replace("...", ""), ldims):
            label_dims[c] = _merge(label_dims.get(c), d, c)
        if ell is not None:
            ell = _broadcast(ell, edims)
    if "..." in out and ell is None:
        return [(dt, unknown_shape())]
    shape: list[int | None] = []
    for part in re.split(r"(\.\.\.)", out):
        if part == "...":
            shape.extend(ell or [])
        else:
            shape.extend(label_dims.get(c) for c in part)
    return [(dt, TensorShape(shape))]


def _kernel(ctx, op, *xs):
    equation = op.attrs["equation"]
    ins, _ = _split(equation)
    seen: dict[str, int] = {}
    for k, (sub, x) in enumerate(zip(ins, xs)):
        try:
            ldims, _ = _input_dims(sub, list(x.shape), k, equation)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, op, str(e)) from None
        for c, d in zip(sub.replace("...", ""), ldims):
            if seen.setdefault(c, d) != d:
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    "Expected dimension %d at axis %d of the input shaped %s but got "
                    "dimension %d (label %r of equation %s)"
                    % (seen[c], sub.replace("...", "").index(c), list(x.shape), d, c, equation),
                )
    # numpy's contraction planner (BLAS for matmul-like equations) pays for itself
    # beyond small operands; its plain loop is faster on tiny ones.
    big = len(xs) > 2 or max((x.size for x in xs), default=0) > 4096
    out = np.einsum(equation, *xs, optimize=big)
    return (np.asarray(out, dtype=xs[0].dtype),)


def _tokens(sub: str) -> list[str]:
    """``'i...j'`` -> ``['i', '...', 'j']``."""
    head, ell, tail = sub.partition("...")
    return list(head) + (["..."] if ell else []) + list(tail)


def _ellipsis_ranks(op, ins: list[str]) -> list[int]:
    ranks = []
    for k, (sub, x) in enumerate(zip(ins, op.inputs)):
        if "..." not in sub:
            ranks.append(0)
        elif x.shape.ndims is None:
            raise ValueError(
                "The gradient of Einsum op %r needs the rank of input %d, which is unknown"
                % (op.name, k)
            )
        else:
            ranks.append(x.shape.ndims - len(sub) + 3)
    return ranks


def _grad(op, dy):
    ins, out = _split(op.attrs["equation"])
    ranks = _ellipsis_ranks(op, ins)
    xs = list(op.inputs)
    grads = []
    for i, (sub, x) in enumerate(zip(ins, xs)):
        others = ins[:i] + ins[i + 1 :]
        have = set(_tokens(out)).union(*(_tokens(o) for o in others))
        unique = list(dict.fromkeys(_tokens(sub)))
        kept = [t for t in unique if t in have]
        # The rank of the ellipsis the gradient Einsum gives: the broadcast of all of them.
        e_out = max([ranks[j] for j in range(len(ins)) if j != i and "..." in ins[j]], default=0)
        e_out = max(e_out, max(ranks) if "..." in out else 0)
        # numpy keeps an ellipsis the inputs have; summed afterwards when x has none.
        extra = "..." in have and "..." not in unique
        g = make(
            "Einsum",
            [dy] + xs[:i] + xs[i + 1 :],
            {"equation": ",".join([out] + others) + "->" + "..." * extra + "".join(kept)},
        )
        if extra and e_out:
            g = math_ops.reduce_sum(g, list(range(e_out)))
        axis = 0
        for t in unique:
            n = ranks[i] if t == "..." else 1
            if t not in kept:
                for _ in range(n):
                    g = array_ops.expand_dims(g, axis)
            elif t == "..." and e_out > n:
                g = math_ops.reduce_sum(g, list(range(axis, axis + e_out - n)))
            axis += n
        repeated = len(unique) < len(_tokens(sub))
        if "..." in sub or repeated or kept != unique:
            xshape = array_ops.shape(x)
            if repeated:
                xshape = slicing_ops.gather(xshape, _unique_axes(sub, ranks[i]))
            if "..." in kept:  # ellipsis axes broadcast from size 1
                rx, _ = array_ops.broadcast_gradient_args(xshape, array_ops.shape(g))
                g = math_ops.reduce_sum(g, rx, keepdims=True)
            g = math_ops.broadcast_to(g, xshape)
        if repeated:
            g = _onto_diagonal(g, sub, unique, ranks[i], x)
        grads.append(g)
    return grads


def _unique_axes(sub: str, ellipsis_rank: int) -> list[int]:
    """The axes of an input with subscripts ``sub`` holding each label's first use."""
    axes: list[int] = []
    seen: set[str] = set()
    axis = 0
    for t in _tokens(sub):
        n = ellipsis_rank if t == "..." else 1
        if t not in seen:
            seen.add(t)
            axes.extend(range(axis, axis + n))
        axis += n
    return axes


def _onto_diagonal(g: Tensor, sub: str, unique: list[str], ellipsis_rank: int, x: Tensor) -> Tensor:
    """``g`` (subscripts ``unique``) placed on the diagonals of ``x``'s repeated labels."""
    free = [c for c in string.ascii_letters if c not in sub]
    target: list[str] = []
    masks, mask_subs = [], []
    shape = array_ops.shape(x)
    axis = 0
    for t in _tokens(sub):
        if t in target:
            fresh = free.pop(0)
            r = array_ops.range(shape[axis])
            eq = math_ops.equal(array_ops.expand_dims(r, 1), array_ops.expand_dims(r, 0))
            masks.append(math_ops.cast(eq, x.dtype))
            mask_subs.append(t + fresh)
            t = fresh
        target.append(t)
        axis += ellipsis_rank if t == "..." else 1
    equation = ",".join(["".join(unique)] + mask_subs) + "->" + "".join(target)
    return make("Einsum", [g] + masks, {"equation": equation})


register_op("Einsum", infer=_infer, kernel=_kernel, grad=_grad)


def einsum(equation: str, *inputs: TensorLike, **kwargs: Any) -> Tensor:
    """A tensor contraction over the index labels of ``equation`` (numpy's einsum).

    Args:
      equation: e.g. ``'ij,jk->ik'`` (matmul), ``'bij,bjk->bik'`` (batch matmul),
        ``'ii->i'`` (diagonal), ``'...ij,jk'`` (implicit output, broadcast batch).
      *inputs: the tensors, one per comma-separated input in ``equation``; all of one
        dtype.
      **kwargs: ``name``: the name scope (default ``einsum``).

    Returns:
      The ``Einsum`` op's output.

    Raises:
      ValueError: a malformed equation, a wrong number of inputs, or shapes that do not
        fit it.
      TypeError: inputs of different dtypes, or an unknown keyword argument.

    Note (flowrt): an equation of three or more inputs is one ``Einsum`` op (TF splits
    it into pairwise ``Einsum`` ops); the values are the same.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(
            "Invalid keyword arguments for this function: %s" % ", ".join(sorted(kwargs))
        )
    with op_scope(list(inputs), name, "einsum"):
        ins, out = _resolve(equation, len(inputs))
        ts = [convert_to_tensor(x) for x in inputs]
        return make("Einsum", ts, {"equation": ",".join(ins) + "->" + out}, None, "Einsum")
