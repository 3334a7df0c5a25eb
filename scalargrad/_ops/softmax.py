"""softmax and log_softmax along a dimension, and their backward ops.

Each output element depends on every element of its slice along ``dim``; the node's ``_c`` is
an ``Along``: the dimension and the input's shape. A slice's values are computed here, on
floats, as ATen's CPU kernels compute them (``forward_slice``, ``backward_slice``: the one
place softmax's derivative is written; the tensor layer, ``_tensor/softmax.py``, runs them over
a tensor's slices, and the float kernel over a 0-dim tensor's one-element slice). The
declarations hold the derivatives (derivatives.yaml: ``_softmax_backward_data``,
``_log_softmax_backward_data`` and their own derivatives) and the SymPy form of one element:
``sympy(sp, a, *others)`` is the element ``a`` of a slice whose other elements are ``others``.

Each step rounds to the dtype, as ``SoftMaxKernel.cpp`` does:

* forward: ``m = max(slice)``, ``e = exp(x - m)``, ``s`` = the sum of ``e`` in order; softmax is
  ``e * (1 / s)`` along the last dimension (``_vec_softmax_lastdim``) and ``e / s`` along another
  (``_vec_softmax``); log_softmax is ``(x - m) - log(s)``;
* backward: softmax's ``(g - s) * y`` with ``s`` the sum of the rounded products ``g * y`` along
  the last dimension and a chain of fused multiply-adds along another; log_softmax's
  ``g - exp(y) * s`` (one fused multiply-add) with ``s`` the sum of ``g``.

The sums are in order, as ATen's vectorised reductions add slices shorter than a vector (8
float32 lanes with AVX2, 16 with AVX512) and as its kernels for an inner dimension do; along the
last dimension ATen's ``reduce_all`` starts from the slice's first element, along another its
accumulator starts at 0 (the two differ in the sign of an all -0.0 sum: measured against
PyTorch 2.13, ``tests/test_activations.py``). Longer last-dimension slices are added lane by
lane in PyTorch, which depends on the processor.
"""

from __future__ import annotations

from .._base import ieee
from .._base.kernel_order import fma
from .float_kernel import helper
from .table import Op, register

__all__ = ["Along", "Softmax", "SafeSoftmax", "LogSoftmax", "SoftmaxBackwardData", "LogSoftmaxBackwardData",
           "SOFTMAX_OPS", "forward_slice", "backward_slice"]


class Along:
    """What a softmax node keeps: the (non-negative) dimension, the input's shape, and the
    dimension as given, which PyTorch saves (as an unsigned 64-bit number: -1 is 2**64 - 1)."""

    __slots__ = ("dim", "shape", "given")

    def __init__(self, dim: int, shape, given: int | None = None) -> None:
        self.dim = dim
        self.shape = tuple(shape)
        self.given = dim if given is None else given

    @property
    def dim_saved(self) -> int:
        return self.given % (1 << 64)


class _AlongDim(Op):
    saves_inputs = False


@register
class Softmax(_AlongDim):
    """softmax(x, dim): exp(x - max) / sum exp(x - max) over each slice."""

    name, saves_output = "SoftmaxBackward0", True
    saved = (("dim", "c.dim_saved"), ("result", "result"))
    # self: _softmax_backward_data(grad, result, dim, self.scalar_type())
    backward = staticmethod(lambda k, g, v: (k.softmax_backward(g, k.out(v), v._c, False),))

    @staticmethod
    def sympy(sp, a, *others):
        return sp.exp(a) / (sp.exp(a) + sp.Add(*[sp.exp(b) for b in others]))


@register
class SafeSoftmax(Softmax):
    """``at::_safe_softmax(x, dim)`` (the attention math path's): softmax, with 0 on a slice whose
    entries are all -inf (``where(all(x == -inf), 0, softmax(x))``); its derivative is
    softmax's, ``_softmax_backward_data(grad, result, dim)``, so 0 times the gradient there."""

    name = "SafeSoftmaxBackward0"


@register
class LogSoftmax(_AlongDim):
    """log_softmax(x, dim): (x - max) - log(sum exp(x - max)) over each slice."""

    name, saves_output = "LogSoftmaxBackward0", True
    saved = (("dim", "c.dim_saved"), ("result", "result"))
    # self: _log_softmax_backward_data(grad, result, dim, self.scalar_type())
    backward = staticmethod(lambda k, g, v: (k.softmax_backward(g, k.out(v), v._c, True),))

    @staticmethod
    def sympy(sp, a, *others):
        return a - sp.log(sp.exp(a) + sp.Add(*[sp.exp(b) for b in others]))


@register
class SoftmaxBackwardData(_AlongDim):
    """_softmax_backward_data(grad_output, output, dim): (grad_output - sum(grad_output * output)) * output."""

    name = "SoftmaxBackwardDataBackward0"
    saved = (("dim", "c.dim_saved"), ("grad_output", 0), ("output", 1))

    @staticmethod
    def backward(k, g, v):
        go, y = k.ins(v)
        c = v._c
        # grad_output: _softmax_backward_data(grad, output, dim, input_dtype)
        # output: softmax_double_backward(grad, grad_output, dim, output) = grad_output * grad
        #   - (output * grad_output).sum(dim, true) * grad - grad_output * (output * grad).sum(dim, true)
        dy = k.sub(k.sub(k.mul(go, g), k.mul(k.sum_along(k.mul(y, go), c), g)),
                   k.mul(go, k.sum_along(k.mul(y, g), c)))
        return k.softmax_backward(g, y, c, False), dy

    @staticmethod
    def sympy(sp, g, y, *pairs):
        """Element of (g, y) at one position, the slice's other (g, y) pairs following."""
        gs = [g] + list(pairs[0::2])
        ys = [y] + list(pairs[1::2])
        return (g - sp.Add(*[a * b for a, b in zip(gs, ys)])) * y


@register
class LogSoftmaxBackwardData(_AlongDim):
    """_log_softmax_backward_data(grad_output, output, dim): grad_output - exp(output) * sum(grad_output)."""

    name = "LogSoftmaxBackwardDataBackward0"
    saved = (("dim", "c.dim_saved"), ("grad_output", 0), ("output", 1))

    @staticmethod
    def backward(k, g, v):
        go, y = k.ins(v)
        c = v._c
        e = k.exp(y)
        # grad_output: grad - (grad * output.exp()).sum(dim, true)
        # output: -grad_output.sum(dim, true) * output.exp() * grad
        return k.sub(g, k.sum_along(k.mul(g, e), c)), k.mul(k.mul(k.neg(k.sum_along(go, c)), e), g)

    @staticmethod
    def sympy(sp, g, y, *pairs):
        gs = [g] + list(pairs[0::2])
        return g - sp.exp(y) * sp.Add(*gs)


SOFTMAX_OPS = [Softmax, SafeSoftmax, LogSoftmax, SoftmaxBackwardData, LogSoftmaxBackwardData]


# ---------------------------------------------------------------- one slice, on floats


def slice_max(row: list) -> float:
    """ATen's vectorised maximum of a slice: a nan propagates."""
    m = row[0]
    for a in row:
        if a != a:
            return a
        if a > m:
            m = a
    return m


def slice_sum(xs: list, r, last: bool) -> float:
    """The sum of a slice in order, each step rounded by ``r``: from its first element along the
    last dimension (ATen's ``reduce_all``), from 0 along another."""
    if last:
        s = xs[0]
        for a in xs[1:]:
            s = r(s + a)
        return s
    s = r(0.0)
    for a in xs:
        s = r(s + a)
    return s


def forward_slice(row: list, r, log: bool, last: bool) -> list:
    """softmax (``log``: log_softmax) of one slice, rounded by ``r`` at each step."""
    m = slice_max(row)
    shifted = [r(a - m) for a in row]
    e = [r(ieee.exp(a)) for a in shifted]
    s = slice_sum(e, r, False)
    if log:
        ls = r(ieee.log(s))
        return [r(a - ls) for a in shifted]
    if last:
        inv = r(ieee.div(1.0, s))
        return [r(a * inv) for a in e]
    return [r(ieee.div(a, s)) for a in e]


def backward_slice(gs: list, ys: list, r, log: bool, last: bool, fused: bool | None) -> list:
    """``_softmax_backward_data`` (``log``: ``_log_softmax_backward_data``) of one slice: the
    gradient ``gs`` and the result ``ys``, rounded by ``r``; ``fused``: whether the dtype's
    kernel fuses multiply-adds (None: it does not; True: in float32; False: in float64)."""
    if log:
        s = slice_sum(gs, r, last)
        if fused is None:
            return [r(a - ieee.exp(b) * s) for a, b in zip(gs, ys)]
        return [fma(-r(ieee.exp(b)), s, a, fused) for a, b in zip(gs, ys)]
    if last:
        s = slice_sum([r(a * b) for a, b in zip(gs, ys)], r, True)
    else:
        s = r(0.0)
        for a, b in zip(gs, ys):
            s = fma(a, b, s, fused) if fused is not None else r(s + a * b)
    return [r(r(a - s) * b) for a, b in zip(gs, ys)]


@helper
def softmax_backward(k, g, y, c, log):
    """_softmax_backward_data of a one-element slice (a 0-dim softmax)."""
    return backward_slice([g], [y], k.r, log, True, k.r is not float)[0]


@helper
def sum_along(x, c):
    return x  # a one-element slice
