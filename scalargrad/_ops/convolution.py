"""convolution (``conv1d``/``conv2d``/``conv3d`` and ``conv_transpose1d``/``conv_transpose2d``): one
``ConvolutionBackward0`` node over (input, weight[, bias]).

Each output element is its bias plus a sum of products of input and weight elements: the
node's ``_c`` is a ``ConvGeometry``, which lists, per output element, its *taps*: the (input,
weight) flat positions it multiplies (padding positions have none). The forward, the backward
(``convolution_backward``: the input's gradient sums the gradient times the weight over the
taps that read an input element, the weight's sums the gradient times the input, the bias's
sums the gradient over its channel) and the SymPy form of an element all read the taps. The
tensor layer computes the values (``_tensor/convolution.py``).
"""

from __future__ import annotations

import itertools

from .table import Op, register

__all__ = ["ConvGeometry", "TransposedConvGeometry", "geometry", "Convolution", "ConvolutionNoBias", "CONVOLUTION_OPS"]


class ConvGeometry:
    """What a convolution node keeps: the arguments PyTorch saves (stride, padding, dilation,
    groups, output_padding, the bias's sizes) and the taps.

    ``taps[o]``: the (input flat index, weight flat index) pairs of output element ``o``;
    ``channel[o]``: its output channel (the bias element it adds)."""

    __slots__ = ("in_shape", "weight_shape", "out_shape", "stride", "padding", "dilation", "groups",
                 "output_padding", "bias_sizes", "taps", "channel", "transposed")

    def __init__(self, in_shape: tuple, weight_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                 groups: int, bias_sizes: tuple) -> None:
        self.in_shape = tuple(in_shape)
        self.weight_shape = tuple(weight_shape)
        self.stride = tuple(stride)
        self.padding = tuple(padding)
        self.dilation = tuple(dilation)
        self.groups = groups
        self.output_padding = (0,) * len(stride)
        self.bias_sizes = tuple(bias_sizes)
        self.transposed = False
        n, c_in = self.in_shape[:2]
        sp = self.in_shape[2:]
        c_out, c_per = self.weight_shape[:2]
        ks = self.weight_shape[2:]
        out_sp = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                       for s, p, d, k, st in zip(sp, self.padding, self.dilation, ks, self.stride))
        self.out_shape = (n, c_out) + out_sp
        # row-major strides of the input's and the weight's spatial dimensions
        in_st = _strides(sp)
        k_st = _strides(ks)
        in_plane = _prod(sp)
        k_plane = _prod(ks)
        per_group = c_out // groups
        taps = []
        channel = []
        k_positions = list(itertools.product(*[range(k) for k in ks]))
        for b in range(n):
            for oc in range(c_out):
                grp = oc // per_group
                for opos in itertools.product(*[range(o) for o in out_sp]):
                    # in im2col's order: input channel, then kernel position (row-major)
                    inside = []
                    for kpos in k_positions:
                        at = 0
                        for dim, (o, kk) in enumerate(zip(opos, kpos)):
                            i = o * self.stride[dim] - self.padding[dim] + kk * self.dilation[dim]
                            if not 0 <= i < sp[dim]:
                                break
                            at += i * in_st[dim]
                        else:
                            inside.append((at, sum(kk * s for kk, s in zip(kpos, k_st))))
                    row = []
                    for ci in range(c_per):
                        ic = grp * c_per + ci
                        for at, kat in inside:
                            row.append(((b * c_in + ic) * in_plane + at, (oc * c_per + ci) * k_plane + kat))
                    taps.append(row)
                    channel.append(oc)
        self.taps = taps
        self.channel = channel


class TransposedConvGeometry(ConvGeometry):
    """A transposed convolution's geometry (weight: in_channels, out_channels / groups, *kernel):
    input element ``i`` times weight element ``k`` lands on output position ``i * stride - padding
    + k * dilation``; each output element lists the (input, weight) pairs landing on it."""

    __slots__ = ()

    def __init__(self, in_shape: tuple, weight_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                 groups: int, bias_sizes: tuple, output_padding: tuple) -> None:
        self.in_shape = tuple(in_shape)
        self.weight_shape = tuple(weight_shape)
        self.stride = tuple(stride)
        self.padding = tuple(padding)
        self.dilation = tuple(dilation)
        self.groups = groups
        self.output_padding = tuple(output_padding)
        self.bias_sizes = tuple(bias_sizes)
        self.transposed = True
        n, c_in = self.in_shape[:2]
        sp = self.in_shape[2:]
        c_per_out = self.weight_shape[1]
        c_out = c_per_out * groups
        c_per_in = c_in // groups
        ks = self.weight_shape[2:]
        out_sp = tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, st, p, d, k, op
                       in zip(sp, self.stride, self.padding, self.dilation, ks, self.output_padding))
        self.out_shape = (n, c_out) + out_sp
        in_st, k_st = _strides(sp), _strides(ks)
        in_plane, k_plane = _prod(sp), _prod(ks)
        k_positions = list(itertools.product(*[range(k) for k in ks]))
        taps, channel = [], []
        for b in range(n):
            for oc in range(c_out):
                grp, oc_local = divmod(oc, c_per_out)
                for opos in itertools.product(*[range(o) for o in out_sp]):
                    inside = []
                    for kpos in k_positions:
                        at = 0
                        for dim, (o, kk) in enumerate(zip(opos, kpos)):
                            q, r = divmod(o + self.padding[dim] - kk * self.dilation[dim], self.stride[dim])
                            if r or not 0 <= q < sp[dim]:
                                break
                            at += q * in_st[dim]
                        else:
                            inside.append((at, sum(kk * s for kk, s in zip(kpos, k_st))))
                    row = []
                    for ci in range(c_per_in):
                        ic = grp * c_per_in + ci
                        for at, kat in inside:
                            row.append(((b * c_in + ic) * in_plane + at, (ic * c_per_out + oc_local) * k_plane + kat))
                    taps.append(row)
                    channel.append(oc)
        self.taps = taps
        self.channel = channel


_GEOMETRIES: dict = {}  # the arguments -> their ConvGeometry, the last few made
_GEOMETRIES_KEPT = 4


def geometry(in_shape: tuple, weight_shape: tuple, stride: tuple, padding: tuple, dilation: tuple, groups: int,
             bias_sizes: tuple, output_padding: tuple | None = None) -> ConvGeometry:
    """The ``ConvGeometry`` of these arguments, made once for a few recent ones: a layer is called
    with the same shapes at every step (gradcheck's numerical Jacobian, hundreds of times), and a
    geometry is never changed once made (nodes share it as their ``_c``)."""
    key = (tuple(in_shape), tuple(weight_shape), tuple(stride), tuple(padding), tuple(dilation), groups,
           tuple(bias_sizes))
    if output_padding is not None:  # a transposed convolution
        key += (tuple(output_padding),)
    geo = _GEOMETRIES.get(key)
    if geo is None:
        if len(_GEOMETRIES) >= _GEOMETRIES_KEPT:
            _GEOMETRIES.pop(next(iter(_GEOMETRIES)))
        geo = _GEOMETRIES[key] = (ConvGeometry if output_padding is None else TransposedConvGeometry)(*key)
    return geo


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _strides(shape) -> list:
    out = []
    acc = 1
    for s in reversed(tuple(shape)):
        out.append(acc)
        acc *= s
    return list(reversed(out))


@register
class Convolution(Op):
    """convolution(input, weight, bias): each output element is bias + sum of input * weight
    over its taps."""

    name = "ConvolutionBackward0"
    saved = (("bias_sym_sizes_opt", "c.bias_sizes"), ("dilation", "c.dilation"), ("groups", "c.groups"),
             ("input", 0), ("output_padding", "c.output_padding"), ("padding", "c.padding"),
             ("stride", "c.stride"), ("transposed", "c.transposed"), ("weight", 1))
    # input, weight, bias: convolution_backward(grad, input, weight, bias->sym_sizes(), stride, padding,
    #   dilation, transposed, output_padding, groups, grad_input_mask)
    backward = staticmethod(lambda k, g, v: k.convolution_backward(g, v))

    @staticmethod
    def sympy(sp, *args):
        """bias, then the tap pairs' input elements, then their weight elements (an odd count: with
        a bias)."""
        bias = args[0] if len(args) % 2 else 0
        rest = args[len(args) % 2:]
        k = len(rest) // 2
        return bias + sp.Add(*[a * b for a, b in zip(rest[:k], rest[k:])])


@register
class ConvolutionNoBias(Convolution):
    """convolution(input, weight, None): PyTorch lists the absent bias as a (None, 0) edge."""

    extra_none = 1


CONVOLUTION_OPS = [Convolution, ConvolutionNoBias]
