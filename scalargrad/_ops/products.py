"""Matrix products: mm, mv, dot, addmm (``@``, ``matmul``, ``nn.functional.linear``).

Values are added in the order of the MKL kernel PyTorch's CPU build calls for each shape and
layout (the tensor layer computes them with ``_base/kernel_order.py``). The derivatives are
products again, as in PyTorch (``grad @ mat2.T``), so a gradient is added in the order MKL
adds it for PyTorch. An element of the result is a dot product of a row and a column: its
SymPy form is ``sum(a_i * b_i)``.
"""

from __future__ import annotations

from .table import Api, Op, needed_inputs, register

__all__ = ["LINALG"]


def _dot_form(sp, *args):
    k = len(args) // 2
    return sp.Add(*[x * y for x, y in zip(args[:k], args[k:])])


class Product(Op):
    forward = staticmethod(lambda r, *args: sum(x * y for x, y in zip(args[:len(args) // 2], args[len(args) // 2:])))
    sympy = staticmethod(_dot_form)


@register
class Mm(Product):
    name = "MmBackward0"
    # an operand is saved for the other's gradient; a layout's strides for its own
    saved = (("mat2", 1, (0,)), ("mat2_sym_sizes", "in1.shape"), ("mat2_sym_strides", "in1.strides", (1,)),
             ("self", 0, (1,)), ("self_sym_sizes", "in0.shape"), ("self_sym_strides", "in0.strides", (0,)))
    api = Api(method="mm", function="mm")

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        ra, rb = needed_inputs(v, 0, 1)
        return (k.mm_mat1_backward(g, b, a, 1.0) if ra else None), (k.mm_mat2_backward(g, a, b, 1.0) if rb else None)


@register
class Mv(Product):
    name = "MvBackward0"
    saved = (("self", 0, (1,)), ("vec", 1, (0,)))
    api = Api(method="mv", function="mv")

    @staticmethod
    def backward(k, g, v):
        a, x = k.ins(v)
        # self: grad.ger(vec); vec: self.t().mv(grad)
        return k.outer(g, x), k.mv(k.t(a), g)


@register
class Dot(Product):
    name = "DotBackward0"
    saved = (("self", 0, (1,)), ("tensor", 1, (0,)))
    api = Api(method="dot", function=("dot", "inner"))

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        # self: grad * tensor; tensor: grad * self
        return k.mul(g, b), k.mul(g, a)


@register
class Vdot(Product):
    """vdot(self, other) of real vectors: ``dot``'s value and kernel (ATen's vdot calls dot for
    a real dtype), its own node; the conjugates of derivatives.yaml are the values themselves."""

    name = "VdotBackward0"
    saved = (("other", 1, (0,)), ("self", 0, (1,)))
    api = Api(method="vdot", function="vdot")

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        # self: grad.conj() * other; other: grad * self
        return k.mul(g, b), k.mul(g, a)


@register
class Addmv(Product):
    """addmv(self, mat, vec): self (broadcast) + mat @ vec (beta = alpha = 1); the node's inputs
    are (self, mat, vec). An element is self plus a row's dot product: ``Addmm``'s form."""

    name = "AddmvBackward0"
    saved = (("alpha", "one"), ("beta", "one"), ("mat", 1, (2,)), ("vec", 2, (1,)))
    api = Api(method="addmv", inplace="addmv_", function="addmv")

    @staticmethod
    def backward(k, g, v):
        _, a, x = k.ins(v)
        ra, rx = needed_inputs(v, 1, 2)
        # self: maybe_multiply(grad, beta); mat: grad.ger(vec) * alpha; vec: mat.t().mv(grad) * alpha
        return g, (k.outer(g, x) if ra else None), (k.mv(k.t(a), g) if rx else None)

    @staticmethod
    def sympy(sp, *args):
        return _dot_form(sp, *args[1:]) + args[0]


@register
class Addmm(Product):
    """addmm(bias, mat1, mat2): bias + mat1 @ mat2 (``nn.Linear`` with a bias); the node's
    inputs are (bias, mat1, mat2)."""

    name = "AddmmBackward0"
    saved = (("alpha", "one"), ("beta", "one"), ("mat1", 1, (2,)), ("mat1_sym_sizes", "in1.shape"),
             ("mat1_sym_strides", "in1.strides", (1,)), ("mat2", 2, (1,)), ("mat2_sym_sizes", "in2.shape"),
             ("mat2_sym_strides", "in2.strides", (2,)))
    api = Api(method="addmm", function="addmm")

    @staticmethod
    def backward(k, g, v):
        _, a, b = k.ins(v)
        ra, rb = needed_inputs(v, 1, 2)
        # self: maybe_multiply(grad, beta) (summed to the bias's shape by the engine)
        return g, (k.mm_mat1_backward(g, b, a, 1.0) if ra else None), (k.mm_mat2_backward(g, a, b, 1.0) if rb else None)

    @staticmethod
    def sympy(sp, *args):
        return _dot_form(sp, *args[1:]) + args[0]


@register
class Addr(Product):
    """addr(self, vec1, vec2): self + vec1 vec2^T (beta = alpha = 1); the node's inputs are
    (self, vec1, vec2). An element is self + one product: ``Addmm``'s form with one term."""

    name = "AddrBackward0"
    saved = (("alpha", "one"), ("beta", "one"), ("vec1", 1, (2,)), ("vec2", 2, (1,)))
    api = Api(method="addr", inplace="addr_", function="addr")

    @staticmethod
    def backward(k, g, v):
        _, a, b = k.ins(v)
        # self: maybe_multiply(grad, beta); vec1: grad.mv(vec2) * alpha; vec2: grad.t().mv(vec1) * alpha
        return g, k.mv(g, b), k.mv(k.t(g), a)

    sympy = Addmm.sympy


@register
class Bmm(Product):
    """bmm(self, mat2): one matrix product per batch; inputs (self, mat2)."""

    name = "BmmBackward0"
    saved = (("mat2", 1, (0,)), ("self", 0, (1,)))
    api = Api(method="bmm", function="bmm")

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        ra, rb = needed_inputs(v, 0, 1)
        # self: grad.bmm(mat2.transpose(1, 2)); mat2: self.transpose(1, 2).bmm(grad)
        return (k.bmm(g, k.transpose(b, 1, 2)) if ra else None), (k.bmm(k.transpose(a, 1, 2), g) if rb else None)


@register
class Baddbmm(Product):
    """baddbmm(self, batch1, batch2) with beta = alpha = 1: self + batch1 @ batch2 per batch;
    inputs (self, batch1, batch2)."""

    name = "BaddbmmBackward0"
    saved = (("alpha", "one"), ("batch1", 1, (2,)), ("batch2", 2, (1,)), ("beta", "one"))
    api = Api(method="baddbmm", function="baddbmm")

    @staticmethod
    def backward(k, g, v):
        _, a, b = k.ins(v)
        ra, rb = needed_inputs(v, 1, 2)
        return g, (k.bmm(g, k.transpose(b, 1, 2)) if ra else None), (k.bmm(k.transpose(a, 1, 2), g) if rb else None)

    @staticmethod
    def sympy(sp, *args):
        return _dot_form(sp, *args[1:]) + args[0]


@register
class Addbmm(Product):
    """addbmm(self, batch1, batch2) with beta = alpha = 1: self + the sum over the batch of
    batch1[b] @ batch2[b]; inputs (self, batch1, batch2). An element is the bias plus one dot
    product over the batch and inner dimensions together: ``Addmm``'s form."""

    name = "AddbmmBackward0"
    saved = (("alpha", "one"), ("batch1", 1, (2,)), ("batch1_sym_argsize_0", "in1.shape0"),
             ("batch1_sym_argsize_1", "in1.shape1"), ("batch2", 2, (1,)), ("batch2_sym_argsize_2", "in2.shape2"),
             ("beta", "one"))
    api = Api(method="addbmm", inplace="addbmm_", function="addbmm")

    @staticmethod
    def backward(k, g, v):
        _, a, b = k.ins(v)
        ra, rb = needed_inputs(v, 1, 2)
        # batch1: grad.unsqueeze(0).expand({B, n, m}).bmm(batch2.transpose(1, 2)) * alpha;
        # batch2: batch1.transpose(1, 2).bmm(grad.unsqueeze(0).expand({B, n, m})) * alpha
        return (g, (k.addbmm_batch1_backward(g, a, b) if ra else None),
                (k.addbmm_batch2_backward(g, a, b) if rb else None))

    @staticmethod
    def sympy(sp, *args):
        return _dot_form(sp, *args[1:]) + args[0]


LINALG = [Mm, Mv, Dot, Vdot, Addmm, Addmv, Bmm, Baddbmm, Addbmm]
