"""Sliding blocks: ``im2col`` (``F.unfold``, Im2ColBackward0) and ``col2im`` (``F.fold``,
Col2ImBackward0), each the other's adjoint. The node's ``_c`` is a ``Blocks``: the settings
PyTorch saves and ``source``, for each element of the column tensor (N, C * kh * kw, L), the
flat position of the image element it copies (-1: padding). im2col gathers by it; col2im adds
each column element into its image position, in the column tensor's order (ATen's loop)."""

from __future__ import annotations

from .table import Op, register

__all__ = ["Blocks", "Im2Col", "Col2Im", "FOLD_OPS"]


class Blocks:
    """What an im2col/col2im node keeps (see the module docstring)."""

    __slots__ = ("kernel_size", "dilation", "padding", "stride", "source", "image_shape", "col_shape", "h", "w",
                 "source_for_elements")

    def __init__(self, kernel_size, dilation, padding, stride, source, image_shape, col_shape) -> None:
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride
        self.source, self.image_shape, self.col_shape = source, image_shape, col_shape
        self.h, self.w = image_shape[-2], image_shape[-1]
        self.source_for_elements = None


@register
class Im2Col(Op):
    """im2col(self, kernel_size, dilation, padding, stride); self: col2im(grad, ...)."""

    name = "Im2ColBackward0"
    saves_inputs = False
    saved = (("dilation", "c.dilation"), ("kernel_size", "c.kernel_size"), ("padding", "c.padding"),
             ("self_sym_argsize_minus_1", "c.w"), ("self_sym_argsize_minus_2", "c.h"), ("stride", "c.stride"))
    backward = staticmethod(lambda k, g, v: (k.im2col_backward(g, v),))

    @staticmethod
    def sympy(sp, a):
        return a


@register
class Col2Im(Op):
    """col2im(self, output_size, kernel_size, dilation, padding, stride); self: im2col(grad, ...)."""

    name = "Col2ImBackward0"
    saves_inputs = False
    saved = (("dilation", "c.dilation"), ("kernel_size", "c.kernel_size"), ("padding", "c.padding"),
             ("stride", "c.stride"))
    backward = staticmethod(lambda k, g, v: (k.col2im_backward(g, v),))

    @staticmethod
    def sympy(sp, *args):
        return sp.Add(*args)


FOLD_OPS = [Im2Col, Col2Im]
