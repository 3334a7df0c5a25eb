"""conv1d / conv2d / conv3d on tensors, and their backward (``convolution_backward``).

PyTorch 2.13's CPU convolution runs through oneDNN (float32 batches, groups, kernels larger
than 3x3, large inputs) or im2col + MKL's GEMM (``slow_conv2d``: float64, and float32 with one
sample, no groups, a small kernel). Both add their products in an order that depends on the
processor, and MKL's also on the shape: on the capture machine one fused multiply-add chain
over im2col's rows, started from the bias for some output sizes (4, 9 positions) and with the
bias added after it for others (36), other orders elsewhere. scalargrad gives every output
element, and every gradient element, the exact sum of its products (and bias) rounded once to
the dtype (``_base/exact_sum``): machine-independent, and within the classical error bound of
any order PyTorch's kernels use (measured in tests/test_convolution.py).

The sums stream (issue 25: the MNIST example's batch of 64 has 680 million taps in its second
layer): per sample and output position, the input elements its kernel offsets read are gathered
once and multiplied by every output channel's weights; the input's gradient likewise per input
position, the weight's per kernel offset over the batch (``_gathers``: a few gathers per
position, none per sample or channel). Zeros (a ReLU's, the gradient a max-pool passes back)
are left out of the products: a zero times a finite element adds exactly nothing. Small
convolutions are summed in integers (``fixed_point``); float32 ones of more than 65,536 products
in doubles (each product of two float32 numbers is exact in double): the forward in plain double
arithmetic (the sum's error is bounded by ``(k + 2) u max|x| sum|w|``), rounded to float32
directly wherever that bound keeps the exact value off a float32 rounding boundary, and redone
from the exact sum of its terms only near one (``exact_sum.round_f32_near``); the gradients,
whose sums are sparse and cancel far below that bound, with ``math.fsum`` (correctly rounded
to double, then to float32, the rare double halfway between two float32 numbers redone from
its terms). The same exact sums rounded once, at a quarter to a half of the integers' cost.

Calls on nearly the same operands (gradcheck nudges one element a call, ``_Incremental``) update
the last call's integer sums by the changed products; a backward reads each operand's integers
once (``_fixed``): the same sums, rounded once (tests/test_exact_sum.py: against ``Fraction``).
An unbatched input goes through ``unsqueeze(0)`` and ``squeeze(0)``, as ``at::convolution``'s.
"""

from __future__ import annotations

import math
import warnings
from itertools import chain, compress, count, islice, repeat
from operator import is_not, itemgetter, mul

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.exact_sum import (
    SUM_ERROR,
    fixed_point,
    round_f32_near,
    round_f32_sums,
    round_scaled_list,
    rounded_dot,
    rounded_sum,
)
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .._ops import convolution as CV
from .convolution_zeros import pytorch_zero_signs
from .memory_formats import channels_last, channels_last_input, in_format
from .padding import constant_pad_nd
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper
from .views import squeeze, to_dtype, unsqueeze

__all__ = ["convolution", "conv_transpose", "backward", "install"]


def _tuple(x, n: int, what: str) -> tuple:
    if isinstance(x, int) and not isinstance(x, bool):
        return (x,) * n
    xs = tuple(x)
    if len(xs) == 1 and n > 1:
        return xs * n
    if len(xs) != n:
        shown = "[" + ", ".join(str(v) for v in xs) + "]"
        raise RuntimeError(f"expected {what} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {what}={shown}")
    return xs


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def convolution(x: Tensor, weight: Tensor, bias: Tensor | None, stride, padding, dilation, groups: int,
                dims: int) -> Tensor:
    """``F.conv{dims}d(x, weight, bias, stride, padding, dilation, groups)``; ``padding`` may be
    an int, a tuple, 'valid' or 'same'."""
    for name, t in (("input", x), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"conv{dims}d() received an invalid combination of arguments - got "
                            f"({type(t).__name__}, ...), but expected a Tensor {name}")
    nd = x._t.ndim
    if nd not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to conv{dims}d, but got "
                           f"input of size: {_shape_str(x._t.shape)}")
    if nd == dims + 1:
        return squeeze(_batched(unsqueeze(x, 0), weight, bias, stride, padding, dilation, groups, dims), 0)
    fmt = _format(x, weight, f"conv{dims}d")
    return in_format(_batched(x, weight, bias, stride, padding, dilation, groups, dims), fmt)


def _format(x: Tensor, weight: Tensor, fn: str):
    """The layout of a convolution's result: channels-last when the input's or the weight's
    strides suggest it, as ATen's; a channels_last_3d one is refused, its result's layout being
    the choice of ATen's backend (contiguous for float64 or a batch of one, measured)."""
    fmt = channels_last_input(x, weight)
    if fmt is not None and fmt is not channels_last:
        raise Unsupported(f"{fn} of a channels_last_3d tensor", "the layout of PyTorch's result depends on its "
                          "backend: use x.contiguous() and weight.contiguous()")
    return fmt


def _batched(x: Tensor, weight: Tensor, bias: Tensor | None, stride, padding, dilation, groups: int,
             dims: int) -> Tensor:
    k = weight._t.ndim - 2
    stride = _tuple(stride, k, "stride")
    dilation = _tuple(dilation, k, "dilation")
    ks = tuple(weight._t.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * k
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            totals = [d * (kk - 1) for d, kk in zip(dilation, ks)]
            padding = tuple(t // 2 for t in totals)
            if any(t % 2 for t in totals):
                x = _pad_right(x, totals)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    padding = _tuple(padding, k, "padding")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    xs, ws = tuple(x._t.shape), tuple(weight._t.shape)
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_shape_str(ws)} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{_shape_str(ws)}] instead")
    if xs[1] != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_shape_str(ws)}, expected input{_shape_str(xs)} to "
                           f"have {ws[1] * groups} channels, but got {xs[1]} channels instead")
    padded = [s + 2 * p for s, p in zip(xs[2:], padding)]
    span = [d * (kk - 1) + 1 for d, kk in zip(dilation, ks)]
    if any(p < s for p, s in zip(padded, span)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(str(p) for p in padded)}). "
                           f"Kernel size: ({' x '.join(str(s) for s in span)}). Kernel size can't be greater than "
                           "actual input size")
    if bias is not None and (bias._t.ndim != 1 or bias._t.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {_shape_str(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                           f"elements, but got bias of size {_shape_str(bias._t.shape)} instead")
    dt = _check_dtypes(x, weight, bias)
    geo = CV.geometry(xs, ws, stride, padding, dilation, groups, (ws[0],) if bias is not None else (0,))
    return _compute(x, weight, bias, geo, dt)


def conv_transpose(x: Tensor, weight: Tensor, bias: Tensor | None, stride, padding, output_padding, groups: int,
                   dilation, dims: int) -> Tensor:
    """``F.conv_transpose{dims}d(x, weight, bias, stride, padding, output_padding, groups, dilation)``:
    the gradient of conv{dims}d with respect to its input, as a convolution of its own (a
    ConvolutionBackward0 node saving transposed=True)."""
    fn = f"conv_transpose{dims}d"
    for name, t in (("input", x), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                            f"({type(t).__name__}, ...), but expected a Tensor {name}")
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be tuple of ints, not str")
    nd = x._t.ndim
    if nd not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {fn}, but got "
                           f"input of size: {_shape_str(x._t.shape)}")
    if nd == dims + 1:
        return squeeze(_transposed(unsqueeze(x, 0), weight, bias, stride, padding, output_padding, groups,
                                   dilation), 0)
    fmt = _format(x, weight, fn)
    return in_format(_transposed(x, weight, bias, stride, padding, output_padding, groups, dilation), fmt)


def _transposed(x: Tensor, weight: Tensor, bias: Tensor | None, stride, padding, output_padding, groups: int,
                dilation) -> Tensor:
    k = weight._t.ndim - 2
    stride, padding = _tuple(stride, k, "stride"), _tuple(padding, k, "padding")
    dilation, output_padding = _tuple(dilation, k, "dilation"), _tuple(output_padding, k, "output_padding")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # a 1-D one runs as 2-D with a height of 1 (output padding 0, stride and dilation 1)
        lift = ((0,), (1,), (1,)) if k == 1 else ((), (), ())
        names = ("depth", "height", "width")[-max(k, 2):]
        got = " ".join(f"{what}_{n}: {v}" for what, vals, pre in zip(("output_padding", "stride", "dilation"),
                                                                   (output_padding, stride, dilation), lift)
                       for n, v in zip(names, pre + tuple(vals)))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {got}")
    xs, ws = tuple(x._t.shape), tuple(weight._t.shape)
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_shape_str(ws)} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{_shape_str(ws)}] instead")
    if xs[1] != ws[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_shape_str(ws)}, expected input{_shape_str(xs)} to "
                           f"have {ws[0]} channels, but got {xs[1]} channels instead")
    c_out = ws[1] * groups
    if bias is not None and (bias._t.ndim != 1 or bias._t.shape[0] != c_out):
        raise RuntimeError(f"Given transposed=1, weight of size {_shape_str(ws)}, expected bias to be 1-dimensional "
                           f"with {c_out} elements, but got bias of size {_shape_str(bias._t.shape)} instead")
    out_sp = [(s - 1) * st - 2 * p + d * (kk - 1) + op + 1 for s, st, p, d, kk, op
              in zip(xs[2:], stride, padding, dilation, ws[2:], output_padding)]
    if any(o < 1 for o in out_sp):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(str(s) for s in xs[2:])}). Calculated output "
                           f"size per channel: ({' x '.join(str(o) for o in out_sp)}). Output size is too small")
    dt = _check_dtypes(x, weight, bias)
    geo = CV.geometry(xs, ws, stride, padding, dilation, groups, (c_out,) if bias is not None else (0,),
                      output_padding)
    return _compute(x, weight, bias, geo, dt)


_SAME_EVEN = ("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
              "input be created (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:"
              "1101.)")


def _pad_right(x: Tensor, totals: list) -> Tensor:
    """'same' padding of odd total: as ATen's ``_convolution_mode``, the input padded first by the
    extra element on the right (a ConstantPadNdBackward0 node), after PyTorch's one-time warning."""
    if first_time("conv_same_even"):  # TORCH_WARN_ONCE
        warnings.warn(_SAME_EVEN, UserWarning, stacklevel=program_stacklevel())
    pads = []
    for t in reversed(totals):
        pads += [0, t - t // 2 - t // 2]
    return constant_pad_nd(x, tuple(pads), 0)


def _check_dtypes(x: Tensor, weight: Tensor, bias: Tensor | None):
    dt = x._t.dtype
    for other in (weight, bias):
        if other is not None and other._t.dtype is not dt:
            raise RuntimeError(f"expected scalar type {dt.short} but found {other._t.dtype.short}")
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"slow_conv2d_cpu\" not implemented for '{dt.short}'")
    if dt not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"convolution in {dt.name}")
    return dt


def _compute(x: Tensor, weight: Tensor, bias: Tensor | None, geo, dt) -> Tensor:
    """Each output element: the exact sum of its taps' products (and its bias), rounded once."""
    f32 = dt is dtypes.float32
    xv, wv = x._val, weight._val
    bv = bias._val if bias is not None else None
    out = _exact_forward(geo, xv, wv, bv, f32)
    if out is None:  # an inf or nan among the operands: IEEE's sums, product by product
        out = [rounded_dot([(xv[i], wv[j]) for i, j in taps], f32, bv[oc] if bv is not None else None)
               for taps, oc in zip(geo.taps, geo.channel)]
    out = pytorch_zero_signs(geo, out, xv, wv, bv, dt)
    t = TensorType(dt, geo.out_shape)
    if bias is None:
        return make(CV.ConvolutionNoBias, t, out, (x, weight), geo)
    return make(CV.Convolution, t, out, (x, weight, bias), geo)


def _getter(idx: list):
    """A C-level gather of ``idx`` from a list, always a tuple."""
    if len(idx) == 1:
        i = idx[0]
        return lambda v: (v[i],)
    return itemgetter(*idx) if idx else lambda v: ()


def _gathers(geo) -> tuple:
    """The streamed computation's gathers, made once per geometry (``geometry`` keeps the recent
    ones): per output position, the gather of its taps' input elements from one sample's group of
    input channels, and its pattern (which kernel offsets are inside); per input position, the
    gather of the (output channel of the group, output position) gradients it meets and its pattern
    of kernel offsets; per kernel offset, the gathers of the output positions and the input
    positions it pairs. A position's gather has (channels of a group) x (kernel size) indices: no
    sample, no output channel multiplies them."""
    got = _GATHERS.get(geo)
    if got is not None:
        return got
    in_plane, out_plane = _numel(geo.in_shape[2:]), _numel(geo.out_shape[2:])
    fwd, pats = [], {}
    by_in = [[] for _ in range(in_plane)]
    by_k: dict = {}
    for q, pairs in enumerate(geo.inside):
        kats = tuple(kat for _, kat in pairs)
        fwd.append((_getter([ci * in_plane + at for ci in range(geo.c_per_in) for at, _ in pairs]),
                    pats.setdefault(kats, len(pats))))
        for at, kat in pairs:
            by_in[at].append((q, kat))
            by_k.setdefault(kat, []).append((q, at))
    bwd, bpats = [], {}
    for pairs in by_in:
        kats = tuple(kat for _, kat in pairs)
        bwd.append((_getter([oc * out_plane + q for oc in range(geo.per_group) for q, _ in pairs]),
                    bpats.setdefault(kats, len(bpats))))
    by_k = [(kat, _getter([q for q, _ in pairs]), _getter([at for _, at in pairs])) for kat, pairs in by_k.items()]
    got = (fwd, list(pats), bwd, list(bpats), by_k)
    if len(_GATHERS) >= _GATHERS_KEPT:
        _GATHERS.pop(next(iter(_GATHERS)))
    _GATHERS[geo] = got
    return got


_GATHERS: dict = {}  # geometry -> its _gathers
_GATHERS_KEPT = 4


def _nonzero(values: tuple):
    """The gather of ``values``' nonzero elements, or None if at most a quarter are zero. A zero
    times a finite element adds exactly nothing to an exact sum (both kernels check their operands
    are finite first): after a ReLU, and in the gradient a max-pool passes back, most are zero."""
    nz = list(compress(count(), values))
    return _getter(nz) if 4 * len(nz) < 3 * len(values) else None


def _forward_sums(geo, xi: list, wi: list, bi: list | None, one=1, bounds: list | None = None) -> list:
    """Each output element's sum of its taps' products plus its bias, streamed: per sample and
    group, each output position's input elements are gathered once (with ``one`` for the bias)
    and multiplied by each output channel's weights (those of the position's pattern of kernel
    offsets, then its bias). Exact for integers; for float32 values a double sum, each product
    exact, whose error bounds go to ``bounds`` (``_rows``)."""
    fwd, pats, _, _, _ = _gathers(geo)
    n, c_in = geo.in_shape[:2]
    c_out, cpi, pg = geo.out_shape[1], geo.c_per_in, geo.per_group
    in_plane = _numel(geo.in_shape[2:])
    extra = (one,) if bi is not None else ()
    wts = [[tuple(wi[geo.w_base(oc, ci) + kat] for ci in range(cpi) for kat in pat) + ((bi[oc],) if extra else ())
            for oc in range(c_out)] for pat in pats]
    norms = _norms(wts, bounds)
    sums = []
    for b in range(n):
        for grp in range(geo.groups):
            start = (b * c_in + grp * cpi) * in_plane
            block = xi[start:start + cpi * in_plane]
            _rows(sums, fwd, block, extra, wts, norms, grp * pg, (grp + 1) * pg, bounds)
    return sums


def _rows(sums: list, gathers: list, block: list, extra: tuple, wts: list, norms: list | None, lo: int, hi: int,
          bounds: list | None, total=sum) -> None:
    """Extend ``sums`` by one plane per channel ``lo:hi`` of ``wts[pattern]``: per position, its
    gathered elements (and ``extra``) times the channel's weights, summed. With ``bounds`` (float32
    values), ``bounds`` is extended alike by ``(k + 2) * SUM_ERROR * max |x| * sum |w|`` for the
    position's ``k`` elements ``x`` and the channel's weights ``w`` (``norms[pattern]``, as
    ``_norms`` gives them): twice a bound of the double sum's error (``exact_sum.round_f32_near``)."""
    rows, erows = [], []
    for gather, pat in gathers:
        xs = gather(block) + extra
        ws = wts[pat][lo:hi]
        rows.append(_dots(xs, ws, total))
        if bounds is not None:
            c = (len(xs) + 2) * SUM_ERROR * max(map(abs, xs), default=0.0)
            erows.append([c * a for a in norms[pat][lo:hi]])
    for plane in zip(*rows):
        sums.extend(plane)
    for plane in zip(*erows):
        bounds.extend(plane)


def _norms(wts: list, bounds: list | None) -> list | None:
    """Per pattern, each channel's ``sum |w|`` of ``wts``, when error bounds are wanted."""
    return [[sum(map(abs, w)) for w in ws] for ws in wts] if bounds is not None else None


def _dots(xs: tuple, ws: list, total=sum) -> list:
    """``[total(map(mul, xs, w)) for w in ws]`` in C, leaving out the products of ``xs``' zeros."""
    pick = _nonzero(xs)
    if pick is not None:
        xs, ws = pick(xs), map(pick, ws)
    return list(map(total, map(map, repeat(mul), repeat(xs), ws)))


def _input_grad_sums(geo, gi: list, wi: list, total=sum) -> list:
    """Each input element's sum of gradient times weight over the taps that read it, streamed as
    ``_forward_sums`` (the gradient's positions gathered per input position)."""
    _, _, bwd, bpats, _ = _gathers(geo)
    n = geo.in_shape[0]
    c_in, c_out, cpi, pg = geo.in_shape[1], geo.out_shape[1], geo.c_per_in, geo.per_group
    out_plane = _numel(geo.out_shape[2:])
    wts = [[tuple(wi[geo.w_base(ic // cpi * pg + oc, ic % cpi) + kat] for oc in range(pg) for kat in pat)
            for ic in range(c_in)] for pat in bpats]
    sums = []
    for b in range(n):
        for grp in range(geo.groups):
            start = (b * c_out + grp * pg) * out_plane
            block = gi[start:start + pg * out_plane]
            _rows(sums, bwd, block, (), wts, None, grp * cpi, (grp + 1) * cpi, None, total)
    return sums


def _weight_grad_sums(geo, gi: list, xi: list, total=sum) -> list:
    """Each weight element's sum of gradient times input over every sample, streamed per kernel
    offset: the gradient's and the input's elements it pairs, gathered per channel over the batch,
    then one sum of products per (output channel, input channel)."""
    by_k = _gathers(geo)[4]
    n, c_in = geo.in_shape[:2]
    c_out, cpi, pg = geo.out_shape[1], geo.c_per_in, geo.per_group
    in_plane, out_plane = _numel(geo.in_shape[2:]), _numel(geo.out_shape[2:])
    sums = [0] * _numel(geo.weight_shape)
    for kat, gather_q, gather_at in by_k:
        gs = [_batch_gather(gi, gather_q, oc, c_out, out_plane, n) for oc in range(c_out)]
        xs = [_batch_gather(xi, gather_at, ic, c_in, in_plane, n) for ic in range(c_in)]
        for oc in range(c_out):
            first, g = oc // pg * cpi, gs[oc]
            pick = _nonzero(g)
            if pick is None:
                for ci in range(cpi):
                    sums[geo.w_base(oc, ci) + kat] = total(map(mul, g, xs[first + ci]))
            else:
                g = pick(g)
                for ci in range(cpi):
                    sums[geo.w_base(oc, ci) + kat] = total(map(mul, g, pick(xs[first + ci])))
    return sums


def _batch_gather(values: list, gather, channel: int, channels: int, plane: int, n: int) -> tuple:
    """``gather`` of channel ``channel``'s plane in each of the ``n`` samples, one after another."""
    first = channel * plane
    return tuple(chain.from_iterable(gather(values[b * channels * plane + first:b * channels * plane + first + plane])
                                     for b in range(n)))


_FLOAT_FROM = 1 << 16  # float32 convolutions of more products than this are summed in doubles, not integers
# (the same exact sums, rounded once, at a quarter of the cost per product; below it the forward
# keeps its integers for gradcheck's incremental updates)


def _products(geo) -> int:
    """How many products a convolution of this geometry adds up (its taps, padding left out)."""
    return geo.in_shape[0] * geo.out_shape[1] * geo.c_per_in * sum(map(len, geo.inside))


def _finite(*lists) -> bool:
    return all(all(map(math.isfinite, v)) for v in lists)


def _float_forward(geo, xv: list, wv: list, bv: list | None) -> list:
    """float32 outputs from a double sum of each output's products (exact in double) and bias,
    rounded once where its error bound allows, else from its exact sum."""
    def exact(o: int) -> float:
        return rounded_dot([(xv[i], wv[j]) for i, j in geo.row(o)], True, bv[geo.channel[o]] if bv else None)

    bounds = []
    ds = _forward_sums(geo, xv, wv, bv, 1.0, bounds)
    return round_f32_near(ds, bounds, exact)


def _float_backward(geo, gv: list, xv: list, wv: list, want_x: bool, want_w: bool) -> tuple:
    """float32 gradients of the input and the weight from ``math.fsum`` of their products (a
    gradient's sums are sparse and cancel: a double sum's error bound would send many of them to
    their exact sums)."""
    gx = gw = None
    if want_x:
        gx = round_f32_sums(_input_grad_sums(geo, gv, wv, math.fsum),
                            lambda i: rounded_dot([(gv[o], wv[j]) for o, j in geo.input_row(i)], True))
    if want_w:
        gw = round_f32_sums(_weight_grad_sums(geo, gv, xv, math.fsum),
                            lambda j: rounded_dot([(gv[o], xv[i]) for o, i in geo.weight_row(j)], True))
    return gx, gw


def _bias_grad(geo, gv: list, f32: bool) -> list:
    """Each output channel's gradient: the exact sum of its outputs' gradients, rounded once."""
    n, c_out = geo.out_shape[:2]
    plane = _numel(geo.out_shape[2:])
    return [rounded_sum(list(chain.from_iterable(gv[(b * c_out + oc) * plane:(b * c_out + oc + 1) * plane]
                                                 for b in range(n))), f32) for oc in range(c_out)]


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _exact_forward(geo, xv: list, wv: list, bv: list | None, f32: bool) -> list | None:
    """Each output element's exact sum of products (and bias) rounded once, in integers
    (``exact_sum.fixed_point``); None if an operand is inf or nan. A call whose operands differ
    from the previous call's on this geometry in a few elements only (gradcheck's numerical
    Jacobian nudges one element at a time) updates that call's integer sums by the changed
    elements' products instead (``_Incremental``): the same exact sums, so the same result."""
    if f32 and _products(geo) > _FLOAT_FROM and _finite(xv, wv, bv or ()):
        return _float_forward(geo, xv, wv, bv)
    last = _LAST.get(geo)
    if last is not None and last.f32 == f32:
        out = last.update(xv, wv, bv)
        if out is not None:
            return out
    fw = fixed_point(wv)
    fx = fixed_point(xv)
    fb = fixed_point(bv) if bv is not None else ([], 0)
    if fw is None or fx is None or fb is None:
        _LAST.pop(geo, None)
        return None
    (wi, sw), (xi, sx), (bi, sb) = fw, fx, fb
    if sb > sx + sw:  # the products at the bias's scale: more fraction bits in the input's integers
        xi, sx = fixed_point(xv, sb - sw)
    shift = sx + sw
    bi = [b << (shift - sb) for b in bi]
    sums = _forward_sums(geo, xi, wi, bi if bv is not None else None)
    out = round_scaled_list(sums, shift, f32)
    if len(sums) > _INCREMENTAL_MAX_OUTPUTS:
        return out
    if len(_LAST) >= _GATHERS_KEPT and geo not in _LAST:
        _LAST.pop(next(iter(_LAST)))
    _LAST[geo] = _Incremental(geo, f32, xv, wv, bv, xi, sx, wi, sw, sums, out,
                              last.inverse if last is not None else None)
    return out[:]  # the tensor's own list: the state keeps its copy


_LAST: dict = {}  # geometry -> the _Incremental state of the last forward on it (a few recent geometries)
_INCREMENTAL_MAX_OUTPUTS = 1 << 16  # above this, no state is kept (its integers would cost memory)
_INCREMENTAL_MAX_CHANGED = 64  # more changed operand elements than this: the whole forward again


def _scaled(v: float, shift: int) -> tuple:
    """``(v * 2**s, s)`` as an exact int at the least ``s >= shift`` that makes it one (``v`` finite)."""
    p, q = v.as_integer_ratio()  # q is a power of two
    k = q.bit_length() - 1
    if k <= shift:
        return p << (shift - k), shift
    return p, k


def _changed(new: list, old: list) -> list | None:
    """The positions where ``new`` may differ from ``old`` (at most ``_INCREMENTAL_MAX_CHANGED``), or
    None if more may: those holding another float object. The same object is the same (finite)
    value; another object of an equal value only costs an update by zero."""
    found = list(islice(compress(count(), map(is_not, new, old)), _INCREMENTAL_MAX_CHANGED + 1))
    return None if len(found) > _INCREMENTAL_MAX_CHANGED else found


class _Incremental:
    """The last forward's operands (copies), their integers (input at ``2**-sx``, weight at
    ``2**-sw``), each output's exact integer sum at ``2**-(sx + sw)`` (bias included) and the
    rounded outputs. ``update`` moves them to new operands by the changed elements' products:
    ``sum(x'w') - sum(xw) = sum((x' - x) w) + sum(x' (w' - w))``, and a bias change adds to its
    channel's outputs; where a changed element needs more fraction bits than the current scale
    has, every integer is shifted left first (exact). Only the outputs whose sums changed are
    rounded again (``round_scaled_list`` of those)."""

    __slots__ = ("geo", "f32", "xv", "wv", "bv", "xi", "sx", "wi", "sw", "sums", "out", "inverse")

    def __init__(self, geo, f32, xv, wv, bv, xi, sx, wi, sw, sums, out, inverse) -> None:
        self.geo, self.f32 = geo, f32
        self.xv, self.wv, self.bv = list(xv), list(wv), (list(bv) if bv is not None else None)
        self.xi, self.sx, self.wi, self.sw = xi, sx, wi, sw
        self.sums, self.out = sums, out
        self.inverse = inverse  # per input element its (output, weight) pairs, per weight its (output, input)

    def _grow(self, which: str, d: int) -> None:
        """Scale the input's (``which`` 'x') or the weight's integers by ``2**d``: the sums too."""
        if which == "x":
            self.xi = [v << d for v in self.xi]
            self.sx += d
        else:
            self.wi = [v << d for v in self.wi]
            self.sw += d
        self.sums = [s << d for s in self.sums]

    def update(self, xv: list, wv: list, bv: list | None) -> list | None:
        """The outputs for these operands, or None (then nothing changed here) if too many
        elements changed, an operand is inf or nan, or the bias appeared or vanished."""
        if (bv is None) != (self.bv is None) or len(xv) != len(self.xv) or len(wv) != len(self.wv):
            return None
        dx, dw = _changed(xv, self.xv), _changed(wv, self.wv)
        db = _changed(bv, self.bv) if bv is not None else []
        if dx is None or dw is None or db is None:
            return None
        if len(dx) + len(dw) + len(db) > _INCREMENTAL_MAX_CHANGED:
            return None
        if not (dx or dw or db):  # the same operands (a model evaluated twice on one batch)
            return self.out[:]
        isfinite = math.isfinite
        if not (all(isfinite(xv[i]) for i in dx) and all(isfinite(wv[j]) for j in dw)
                and all(isfinite(bv[c]) for c in db)):
            return None
        if self.inverse is None:
            self.inverse = _inverse(self.geo)
        by_in, by_w = self.inverse
        geo = self.geo
        touched = set()
        sums = None
        for i in dx:
            n, s = _scaled(xv[i], self.sx)
            if s > self.sx:
                self._grow("x", s - self.sx)
            sums, wi, delta = self.sums, self.wi, n - self.xi[i]
            for o, j in by_in[i]:
                sums[o] += delta * wi[j]
                touched.add(o)
            self.xi[i] = n
            self.xv[i] = xv[i]
        for j in dw:
            n, s = _scaled(wv[j], self.sw)
            if s > self.sw:
                self._grow("w", s - self.sw)
            sums, xi, delta = self.sums, self.xi, n - self.wi[j]
            for o, i in by_w[j]:
                sums[o] += delta * xi[i]
                touched.add(o)
            self.wi[j] = n
            self.wv[j] = wv[j]
        for c in db:
            old, _ = _scaled(self.bv[c], self.sx + self.sw)  # exact: it is in the sums at this scale
            n, s = _scaled(bv[c], self.sx + self.sw)
            if s > self.sx + self.sw:
                self._grow("x", s - self.sx - self.sw)
                old, _ = _scaled(self.bv[c], self.sx + self.sw)
            sums, delta = self.sums, n - old
            for o, oc in enumerate(geo.channel):
                if oc == c:
                    sums[o] += delta
                    touched.add(o)
            self.bv[c] = bv[c]
        out, sums, touched = self.out, self.sums, list(touched)
        for o, v in zip(touched, round_scaled_list([sums[o] for o in touched], self.sx + self.sw, self.f32)):
            out[o] = v
        return out[:]


def _inverse(geo) -> tuple:
    """Per input element the (output, weight element) pairs it meets; per weight element its
    (output, input element) pairs."""
    by_in = [[] for _ in range(_numel(geo.in_shape))]
    by_w = [[] for _ in range(_numel(geo.weight_shape))]
    for o, taps in enumerate(geo.taps):
        for i, j in taps:
            by_in[i].append((o, j))
            by_w[j].append((o, i))
    return by_in, by_w


def _exact_backward(geo, gv: list, xv: list, wv: list, want_x: bool, want_w: bool, f32: bool) -> tuple | None:
    """The input's and the weight's gradients (None where not wanted), each element the exact sum
    of its products rounded once, in integers; None if an operand is inf or nan. A sparse
    gradient (gradcheck's one-hot rows) is scattered from its nonzero elements only: a zero
    times a finite element adds exactly nothing (a nan or an inf is nonzero: it is seen)."""
    live = list(compress(count(), gv))
    if f32 and _products(geo) > _FLOAT_FROM and _SPARSE * len(live) > len(gv) and _finite(gv, xv, wv):
        return _float_backward(geo, gv, xv, wv, want_x, want_w)
    fx, fw = _fixed(xv), _fixed(wv)
    if fx is None or fw is None:
        return None
    (xi, sx), (wi, sw) = fx, fw
    gx = gw = None
    if _SPARSE * len(live) <= len(gv):
        fg = fixed_point([gv[o] for o in live])  # the zeros would add nothing to the scale either
        if fg is None:
            return None
        gl, sg = fg
        ax = [0] * len(xi) if want_x else None
        aw = [0] * len(wi) if want_w else None
        taps = geo.taps
        for o, g in zip(live, gl):
            for i, j in taps[o]:
                if want_x:
                    ax[i] += g * wi[j]
                if want_w:
                    aw[j] += g * xi[i]
        if want_x:
            gx = _round_nonzero(ax, sg + sw, f32)
        if want_w:
            gw = _round_nonzero(aw, sg + sx, f32)
        return gx, gw
    fg = fixed_point(gv)
    if fg is None:
        return None
    gi, sg = fg
    if want_x:
        gx = round_scaled_list(_input_grad_sums(geo, gi, wi), sg + sw, f32)
    if want_w:
        gw = round_scaled_list(_weight_grad_sums(geo, gi, xi), sg + sx, f32)
    return gx, gw


_SPARSE = 64  # a gradient with at most 1 nonzero element in this many is scattered (each tap in Python)


def _round_nonzero(sums: list, shift: int, f32: bool) -> list:
    """``round_scaled_list(sums, shift, f32)``, rounding only the nonzero sums (a zero is +0.0)."""
    at = list(compress(count(), sums))
    if 2 * len(at) > len(sums):
        return round_scaled_list(sums, shift, f32)
    out = [0.0] * len(sums)
    for k, v in zip(at, round_scaled_list([sums[k] for k in at], shift, f32)):
        out[k] = v
    return out


_FIXED: list = []  # (a copy of the values, their fixed_point) for the last few operands a backward read
_FIXED_KEPT, _FIXED_MAX = 4, 1 << 16


def _fixed(values: list) -> tuple | None:
    """``fixed_point(values)``, kept for a few recent operands: gradcheck's analytical Jacobian
    runs a backward per output element on the same input and weight. Equal lists of floats have
    equal fixed points (a signed zero is 0 either way); the result is read, never changed."""
    n = len(values)
    for kept, fp in _FIXED:
        if len(kept) == n and kept == values:
            return fp
    fp = fixed_point(values)
    if n <= _FIXED_MAX:
        if len(_FIXED) >= _FIXED_KEPT:
            _FIXED.pop(0)
        _FIXED.append((list(values), fp))
    return fp


def _dot_backward(geo, gv: list, xv: list, wv: list, want_x: bool, want_w: bool, f32: bool) -> tuple:
    """The input's and the weight's gradients with ``rounded_dot`` (any operand values)."""
    gx = gw = None
    if want_x:
        terms = [[] for _ in range(len(xv))]
        for o, taps in enumerate(geo.taps):
            go = gv[o]
            for i, j in taps:
                terms[i].append((go, wv[j]))
        gx = [rounded_dot(p, f32) for p in terms]
    if want_w:
        terms = [[] for _ in range(len(wv))]
        for o, taps in enumerate(geo.taps):
            go = gv[o]
            for i, j in taps:
                terms[j].append((go, xv[i]))
        gw = [rounded_dot(p, f32) for p in terms]
    return gx, gw


def backward(g: Tensor, v: Tensor) -> tuple:
    """``convolution_backward``: the gradients of input, weight and bias (None for those not
    requiring grad), each element the exact sum of its products rounded once."""
    geo = v._c
    ins = v._in
    x, w = ins[0], ins[1]
    dt = x._t.dtype
    if g._t.dtype is not dt:
        g = to_dtype(g, dt)
    f32 = dt is dtypes.float32
    gv = g._val if g._t.ndim else [g._val] * len(geo.taps)
    xv, wv = x._val, w._val
    gx = gw = gb = None
    if x._rg or w._rg:
        grads = _exact_backward(geo, gv, xv, wv, x._rg, w._rg, f32)
        if grads is None:  # an inf or nan among the operands: IEEE's sums, product by product
            grads = _dot_backward(geo, gv, xv, wv, x._rg, w._rg, f32)
        if grads[0] is not None:
            gx = leaf(grads[0], TensorType(dt, geo.in_shape))
        if grads[1] is not None:
            gw = leaf(grads[1], TensorType(dt, geo.weight_shape))
    if len(ins) > 2 and ins[2]._rg:
        gb = leaf(_bias_grad(geo, gv, f32), TensorType(dt, (geo.out_shape[1],)))
    return (gx, gw, gb)[:len(ins)]


def install(method, function) -> None:
    """torch.conv1d/2d/3d and torch.conv_transpose1d/2d/3d."""
    for n in (1, 2, 3):
        conv, transposed = _spellings(n)
        function(f"conv{n}d", conv)
        function(f"conv_transpose{n}d", transposed)


def _spellings(n: int) -> tuple:
    """torch.conv{n}d and torch.conv_transpose{n}d, with PyTorch's parameter names."""
    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        return convolution(input, weight, bias, stride, padding, dilation, groups, n)

    def transposed(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        return conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n)

    return conv, transposed


def _no_double_backward(g, v):
    raise Unsupported("the double backward of convolution (ConvolutionBackwardBackward0, create_graph=True)")


helper(backward, name="convolution_backward")
graph_helper("convolution_backward", _no_double_backward)
