"""softmax and log_softmax along a dimension, and their backward ops.

Each output element depends on every element of its slice along ``dim``; the node's ``_c`` is
an ``Along``: the dimension and the input's shape. The tensor layer computes the values
(``_tensor/softmax.py``); these declarations hold the derivatives (derivatives.yaml:
``_softmax_backward_data``, ``_log_softmax_backward_data`` and their own derivatives) and the
SymPy form of one element: ``sympy(sp, a, *others)`` is the element ``a`` of a slice whose other
elements are ``others``.
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["Along", "Softmax", "LogSoftmax", "SoftmaxBackwardData", "LogSoftmaxBackwardData", "SOFTMAX_OPS"]


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


SOFTMAX_OPS = [Softmax, LogSoftmax, SoftmaxBackwardData, LogSoftmaxBackwardData]
