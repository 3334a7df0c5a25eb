"""convolution (``conv1d``/``conv2d``/``conv3d`` and ``conv_transpose1d``/``conv_transpose2d``): one
``ConvolutionBackward0`` node over (input, weight[, bias]).

Each output element is its bias plus a sum of products of input and weight elements: the
node's ``_c`` is a ``ConvGeometry``, which gives, per output element, its *taps*: the (input,
weight) flat positions it multiplies (padding positions have none), computed from the kernel
offsets inside the input at each output position when read. The forward, the backward
(``convolution_backward``: the input's gradient sums the gradient times the weight over the
taps that read an input element, the weight's sums the gradient times the input, the bias's
sums the gradient over its channel) and the SymPy form of an element all read the taps. The
tensor layer computes the values (``_tensor/convolution.py``), streaming over output positions.
"""

from __future__ import annotations

import itertools

from .table import Op, register

__all__ = ["ConvGeometry", "TransposedConvGeometry", "geometry", "Convolution", "ConvolutionNoBias", "CONVOLUTION_OPS"]


class ConvGeometry:
    """What a convolution node keeps: the arguments PyTorch saves (stride, padding, dilation,
    groups, output_padding, the bias's sizes) and, per output *position* (a spatial index, the
    same in every sample and channel), the (input spatial offset, kernel offset) pairs inside the
    input: ``inside[q]``. The taps of an output element follow from it, computed when asked
    (``taps[o]``: its (input flat index, weight flat index) pairs, input channel outer, kernel
    position row-major inner, im2col's order; ``channel[o]``: its output channel, the bias element
    it adds): a batch of 64 MNIST images makes 680 million taps, never listed at once."""

    __slots__ = ("in_shape", "weight_shape", "out_shape", "stride", "padding", "dilation", "groups",
                 "output_padding", "bias_sizes", "transposed", "inside", "c_per_in", "per_group", "k_plane")

    def __init__(self, in_shape: tuple, weight_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                 groups: int, bias_sizes: tuple) -> None:
        self._arguments(in_shape, weight_shape, stride, padding, dilation, groups, bias_sizes, (0,) * len(stride))
        self.transposed = False
        sp, ks = self.in_shape[2:], self.weight_shape[2:]
        self.c_per_in = self.weight_shape[1]
        self.per_group = self.weight_shape[0] // groups
        out_sp = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                       for s, p, d, k, st in zip(sp, self.padding, self.dilation, ks, self.stride))
        self.out_shape = (self.in_shape[0], self.weight_shape[0]) + out_sp

        def at(dim: int, o: int, kk: int):
            i = o * self.stride[dim] - self.padding[dim] + kk * self.dilation[dim]
            return i if 0 <= i < sp[dim] else None

        self.inside = _inside(out_sp, sp, ks, at)

    def _arguments(self, in_shape, weight_shape, stride, padding, dilation, groups, bias_sizes, output_padding):
        self.in_shape, self.weight_shape = tuple(in_shape), tuple(weight_shape)
        self.stride, self.padding, self.dilation = tuple(stride), tuple(padding), tuple(dilation)
        self.groups, self.bias_sizes, self.output_padding = groups, tuple(bias_sizes), tuple(output_padding)
        self.k_plane = _prod(self.weight_shape[2:])

    def w_base(self, oc: int, ci: int) -> int:
        """The flat index of weight element (output channel ``oc``, its group's input channel
        ``ci``, kernel offset 0)."""
        return (oc * self.c_per_in + ci) * self.k_plane

    @property
    def taps(self) -> _Taps:
        return _Taps(self)

    @property
    def channel(self) -> _Channels:
        return _Channels(self)

    def row(self, o: int) -> list:
        """The taps of output element ``o``: (input flat index, weight flat index) pairs."""
        c_out, out_plane = self.out_shape[1], _prod(self.out_shape[2:])
        b, rem = divmod(o, c_out * out_plane)
        oc, q = divmod(rem, out_plane)
        c_in, in_plane = self.in_shape[1], _prod(self.in_shape[2:])
        first = b * c_in + oc // self.per_group * self.c_per_in
        return [((first + ci) * in_plane + at, self.w_base(oc, ci) + kat)
                for ci in range(self.c_per_in) for at, kat in self.inside[q]]


    def input_row(self, i: int) -> list:
        """The (output flat index, weight flat index) pairs of the taps that read input element ``i``."""
        c_in, in_plane = self.in_shape[1], _prod(self.in_shape[2:])
        c_out, out_plane = self.out_shape[1], _prod(self.out_shape[2:])
        b, rem = divmod(i, c_in * in_plane)
        ic, s = divmod(rem, in_plane)
        grp, ci = divmod(ic, self.c_per_in)
        return [((b * c_out + oc) * out_plane + q, self.w_base(oc, ci) + kat)
                for q, pairs in enumerate(self.inside) for at, kat in pairs if at == s
                for oc in range(grp * self.per_group, (grp + 1) * self.per_group)]

    def weight_row(self, j: int) -> list:
        """The (output flat index, input flat index) pairs of the taps that multiply weight element ``j``."""
        c_in, in_plane = self.in_shape[1], _prod(self.in_shape[2:])
        c_out, out_plane = self.out_shape[1], _prod(self.out_shape[2:])
        oc, ic, kat = self._weight_element(j)
        return [((b * c_out + oc) * out_plane + q, (b * c_in + ic) * in_plane + at)
                for b in range(self.in_shape[0]) for q, pairs in enumerate(self.inside)
                for at, k in pairs if k == kat]

    def _weight_element(self, j: int) -> tuple:
        """Weight element ``j``'s (output channel, input channel, kernel offset)."""
        oc, rem = divmod(j, self.c_per_in * self.k_plane)
        ci, kat = divmod(rem, self.k_plane)
        return oc, oc // self.per_group * self.c_per_in + ci, kat


class TransposedConvGeometry(ConvGeometry):
    """A transposed convolution's geometry (weight: in_channels, out_channels / groups, *kernel):
    input element ``i`` times weight element ``k`` lands on output position ``i * stride - padding
    + k * dilation``; each output element lists the (input, weight) pairs landing on it."""

    __slots__ = ()

    def __init__(self, in_shape: tuple, weight_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                 groups: int, bias_sizes: tuple, output_padding: tuple) -> None:
        self._arguments(in_shape, weight_shape, stride, padding, dilation, groups, bias_sizes, output_padding)
        self.transposed = True
        sp, ks = self.in_shape[2:], self.weight_shape[2:]
        self.per_group = self.weight_shape[1]
        self.c_per_in = self.in_shape[1] // groups
        out_sp = tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, st, p, d, k, op
                       in zip(sp, self.stride, self.padding, self.dilation, ks, self.output_padding))
        self.out_shape = (self.in_shape[0], self.per_group * groups) + out_sp

        def at(dim: int, o: int, kk: int):
            q, r = divmod(o + self.padding[dim] - kk * self.dilation[dim], self.stride[dim])
            return q if not r and 0 <= q < sp[dim] else None

        self.inside = _inside(out_sp, sp, ks, at)

    def _weight_element(self, j: int) -> tuple:
        ic, rem = divmod(j, self.per_group * self.k_plane)
        oc_local, kat = divmod(rem, self.k_plane)
        return ic // self.c_per_in * self.per_group + oc_local, ic, kat

    def w_base(self, oc: int, ci: int) -> int:
        grp, oc_local = divmod(oc, self.per_group)
        return ((grp * self.c_per_in + ci) * self.per_group + oc_local) * self.k_plane


def _inside(out_sp: tuple, sp: tuple, ks: tuple, at) -> list:
    """Per output position (row-major), its (input spatial offset, kernel offset) pairs, kernel
    positions row-major; ``at(dim, o, k)`` is the input index along ``dim`` or None (outside)."""
    in_st, k_st = _strides(sp), _strides(ks)
    k_positions = [(kpos, sum(k * s for k, s in zip(kpos, k_st))) for kpos in itertools.product(*map(range, ks))]
    inside = []
    for opos in itertools.product(*map(range, out_sp)):
        pairs = []
        for kpos, kat in k_positions:
            off = 0
            for dim, (o, kk) in enumerate(zip(opos, kpos)):
                i = at(dim, o, kk)
                if i is None:
                    break
                off += i * in_st[dim]
            else:
                pairs.append((off, kat))
        inside.append(pairs)
    return inside


class _Taps:
    """``geo.taps``: a read-only sequence of the output elements' taps, each computed when read."""

    __slots__ = ("geo",)

    def __init__(self, geo) -> None:
        self.geo = geo

    def __len__(self) -> int:
        return _prod(self.geo.out_shape)

    def __getitem__(self, o: int) -> list:
        if not 0 <= o < len(self):
            raise IndexError(o)
        return self.geo.row(o)

    def __iter__(self):
        return map(self.geo.row, range(len(self)))


class _Channels:
    """``geo.channel``: each output element's output channel, as a read-only sequence."""

    __slots__ = ("geo",)

    def __init__(self, geo) -> None:
        self.geo = geo

    def __len__(self) -> int:
        return _prod(self.geo.out_shape)

    def __getitem__(self, o: int) -> int:
        if not 0 <= o < len(self):
            raise IndexError(o)
        return o // _prod(self.geo.out_shape[2:]) % self.geo.out_shape[1]

    def __iter__(self):
        plane, c_out = _prod(self.geo.out_shape[2:]), self.geo.out_shape[1]
        for _ in range(self.geo.out_shape[0]):
            for oc in range(c_out):
                yield from itertools.repeat(oc, plane)


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
