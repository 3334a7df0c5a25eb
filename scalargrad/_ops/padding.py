"""Padding: ``constant_pad_nd`` (``ConstantPadNdBackward0``), ``reflection_pad1d/2d/3d``
(``ReflectionPad1DBackward0``...) and ``replication_pad1d/2d/3d`` (``ReplicationPad1DBackward0``...),
and the reflection/replication backward as nodes of their own (double backward).

Every output element of a pad is a copy of one input element or, for constant padding, the fill
value: the node's ``_c`` is a ``PadGeometry`` whose ``source[o]`` is the flat input position output
``o`` copies (-1: the fill value). The backward of reflection and replication adds each gradient
element into its source position, output positions in order, as ATen's CPU kernel
(``PaddingKernel.cpp``); the backward of constant padding is constant padding by the negated pads.
The tensor layer computes the values (``_tensor/padding.py``); circular padding is a composition
of slices and copies there, as ATen's ``_pad_circular``.
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["PadGeometry", "ConstantPadNd", "Pad", "PadBackward", "REFLECT_OPS", "REPLICATE_OPS", "PADDING_OPS"]


def _source_index(j: int, size: int, before: int, mode: str) -> int:
    """The input index that output index ``j`` of one dimension copies (-1: the fill value)."""
    t = j - before
    if mode == "reflect":
        if t < 0:
            t = -t
        if t >= size:
            t = 2 * (size - 1) - t
        return t
    if mode == "replicate":
        return 0 if t < 0 else (size - 1 if t >= size else t)
    return t if 0 <= t < size else -1


class PadGeometry:
    """What a padding node keeps: ``pad`` (PyTorch's argument, last dimension first), the input's
    and output's shapes, and ``source[o]``, the flat input position output ``o`` copies (-1 for
    the fill value of constant padding)."""

    __slots__ = ("pad", "in_shape", "out_shape", "mode", "source")

    def __init__(self, in_shape: tuple, pad: tuple, mode: str) -> None:
        self.in_shape = tuple(in_shape)
        self.pad = tuple(pad)
        self.mode = mode
        nd = len(self.in_shape)
        k = len(self.pad) // 2
        befores = [0] * nd
        afters = [0] * nd
        for i in range(k):
            befores[nd - 1 - i] = self.pad[2 * i]
            afters[nd - 1 - i] = self.pad[2 * i + 1]
        self.out_shape = tuple(s + b + a for s, b, a in zip(self.in_shape, befores, afters))
        # per dimension, each output index's input index; then the flat positions, row-major
        per_dim = [[_source_index(j, s, b, mode) for j in range(o)]
                   for s, b, o in zip(self.in_shape, befores, self.out_shape)]
        source = [0]
        for d in range(nd):
            size = self.in_shape[d]
            nxt = []
            for base in source:
                for i in per_dim[d]:
                    nxt.append(-1 if base < 0 or i < 0 else base * size + i)
            source = nxt
        self.source = source


@register
class ConstantPadNd(Op):
    """constant_pad_nd(self, pad, value): each element a copy of an input element or the value."""

    name = "ConstantPadNdBackward0"
    saves_inputs = False
    saved = (("pad", "c.pad"),)
    # self: constant_pad_nd_backward(grad, pad), i.e. constant_pad_nd(grad, negated pad, 0)
    backward = staticmethod(lambda k, g, v: (k.constant_pad_backward(g, v._c),))

    @staticmethod
    def sympy(sp, a):
        return a  # the copied element


class Pad(Op):
    """reflection/replication_padNd(self, padding): each element a copy of an input element."""

    saves_inputs = True
    saved = (("padding", "c.pad"), ("self", 0))
    # self: reflection_padNd_backward(grad, self, padding) (replication alike)
    backward = staticmethod(lambda k, g, v: (k.pad_backward(g, v._c, k.ins(v)[0]),))

    @staticmethod
    def sympy(sp, a):
        return a


class PadBackward(Op):
    """reflection/replication_padNd_backward(grad_output, self, padding): each input position
    sums the gradients of the outputs that copy it (``self`` gives only the shape)."""

    saves_inputs = False
    saved = (("padding", "c.pad"),)
    # grad_output: reflection_padNd(grad, padding); self: zeros_like(self)
    backward = staticmethod(lambda k, g, v: (k.pad_again(g, v._c), k.zero(k.ins(v)[1])))

    @staticmethod
    def sympy(sp, *grads):
        return sp.Add(*grads)


def _pad_ops(kind: str) -> dict:
    """``{(mode, n): (forward op, backward op)}`` for n = 1, 2, 3."""
    out = {}
    for n in (1, 2, 3):
        fwd = register(type(f"{kind}Pad{n}d", (Pad,), {"name": f"{kind}Pad{n}DBackward0"}))
        bwd = register(type(f"{kind}Pad{n}dBackward", (PadBackward,),
                            {"name": f"{kind}Pad{n}DBackwardBackward0"}))
        out[n] = (fwd, bwd)
    return out


REFLECT_OPS = _pad_ops("Reflection")
REPLICATE_OPS = _pad_ops("Replication")

PADDING_OPS = [ConstantPadNd] + [op for ops in (REFLECT_OPS, REPLICATE_OPS) for pair in ops.values() for op in pair]
