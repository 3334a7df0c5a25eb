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

An unbatched input (``(C, L)`` / ``(C, H, W)``) goes through ``unsqueeze(0)`` and
``squeeze(0)``, as ``at::convolution`` does (its grad_fn is ``SqueezeBackward1``).
"""

from __future__ import annotations

import warnings
from operator import itemgetter, mul

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.exact_sum import fixed_point, round_scaled_list, rounded_dot, rounded_sum
from .._base.program_frame import program_stacklevel
from .._ops import convolution as CV
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
    return _batched(x, weight, bias, stride, padding, dilation, groups, dims)


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
    return _transposed(x, weight, bias, stride, padding, output_padding, groups, dilation)


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
_warned: set = set()


def _pad_right(x: Tensor, totals: list) -> Tensor:
    """'same' padding of odd total: as ATen's ``_convolution_mode``, the input padded first by the
    extra element on the right (a ConstantPadNdBackward0 node), after PyTorch's one-time warning."""
    if "same" not in _warned:
        _warned.add("same")  # TORCH_WARN_ONCE
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


_PLANS: dict = {}  # geometry -> (the forward's gathers, those of each input's taps, of each weight's)
_PLANS_KEPT = 4


def _plan(geo) -> tuple:
    """The forward's gathers: the distinct runs of weight elements the outputs read, and the
    distinct runs of input elements, each with the outputs that read it (the output channels of a
    position share one) and which weight run each takes; per input element the gathers of the
    (output, weight) pairs it meets; per weight element those of its (output, input) pairs. Made
    once per geometry (``geometry`` keeps the recent ones)."""
    plan = _PLANS.get(geo)
    if plan is None:
        n_in, n_w = _numel(geo.in_shape), _numel(geo.weight_shape)
        by_in = [([], []) for _ in range(n_in)]
        by_w = [([], []) for _ in range(n_w)]
        x_runs: dict = {}
        w_runs: dict = {}
        for o, taps in enumerate(geo.taps):
            w_run = w_runs.setdefault(tuple(j for _, j in taps), len(w_runs))
            x_runs.setdefault(tuple(i for i, _ in taps), []).append((o, w_run, geo.channel[o]))
            for i, j in taps:
                by_in[i][0].append(o)
                by_in[i][1].append(j)
                by_w[j][0].append(o)
                by_w[j][1].append(i)
        fwd = ([_getter(list(run)) for run in w_runs], [(_getter(list(run)), outs) for run, outs in x_runs.items()])
        plan = (fwd, [(_getter(a), _getter(b)) for a, b in by_in], [(_getter(a), _getter(b)) for a, b in by_w])
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.pop(next(iter(_PLANS)))
        _PLANS[geo] = plan
    return plan


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _exact_forward(geo, xv: list, wv: list, bv: list | None, f32: bool) -> list | None:
    """Each output element's exact sum of products (and bias) rounded once, in integers
    (``exact_sum.fixed_point``); None if an operand is inf or nan."""
    fw = fixed_point(wv)
    fx = fixed_point(xv)
    fb = fixed_point(bv) if bv is not None else ([], 0)
    if fw is None or fx is None or fb is None:
        return None
    (wi, sw), (xi, sx), (bi, sb) = fw, fx, fb
    if sb > sx + sw:  # the products at the bias's scale: more fraction bits in the input's integers
        xi, sx = fixed_point(xv, sb - sw)
    shift = sx + sw
    bi = [b << (shift - sb) for b in bi]
    w_runs, x_runs = _plan(geo)[0]
    w_runs = [g(wi) for g in w_runs]
    if bv is None:
        bi = [0] * geo.out_shape[1]
    sums = [0] * len(geo.taps)
    for gx, outs in x_runs:
        xs = gx(xi)
        for o, k, oc in outs:
            sums[o] = sum(map(mul, xs, w_runs[k]), bi[oc])
    return round_scaled_list(sums, shift, f32)


def _exact_backward(geo, gv: list, xv: list, wv: list, want_x: bool, want_w: bool, f32: bool) -> tuple | None:
    """The input's and the weight's gradients (None where not wanted), each element the exact sum
    of its products rounded once, in integers; None if an operand is inf or nan. A sparse
    gradient (gradcheck's one-hot rows) is scattered from its nonzero elements only: a zero
    times a finite element adds exactly nothing."""
    fg, fx, fw = fixed_point(gv), fixed_point(xv), fixed_point(wv)
    if fg is None or fx is None or fw is None:
        return None
    (gi, sg), (xi, sx), (wi, sw) = fg, fx, fw
    live = [o for o, g in enumerate(gi) if g]
    gx = gw = None
    if 4 * len(live) <= len(gi):
        ax = [0] * len(xi) if want_x else None
        aw = [0] * len(wi) if want_w else None
        taps = geo.taps
        for o in live:
            g = gi[o]
            for i, j in taps[o]:
                if want_x:
                    ax[i] += g * wi[j]
                if want_w:
                    aw[j] += g * xi[i]
        if want_x:
            gx = round_scaled_list(ax, sg + sw, f32)
        if want_w:
            gw = round_scaled_list(aw, sg + sx, f32)
        return gx, gw
    _, by_in, by_w = _plan(geo)
    if want_x:
        gx = round_scaled_list([sum(map(mul, go(gi), gk(wi))) for go, gk in by_in], sg + sw, f32)
    if want_w:
        gw = round_scaled_list([sum(map(mul, go(gi), gk(xi))) for go, gk in by_w], sg + sx, f32)
    return gx, gw


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
        c_out = geo.out_shape[1]
        sums = [[] for _ in range(c_out)]
        for o, oc in enumerate(geo.channel):
            sums[oc].append(gv[o])
        gb = leaf([rounded_sum(s, f32) for s in sums], TensorType(dt, (c_out,)))
    return (gx, gw, gb)[:len(ins)]


def install(method, function) -> None:
    """torch.conv1d, torch.conv2d, torch.conv_transpose1d and torch.conv_transpose2d."""
    function("conv1d", lambda input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1:
             convolution(input, weight, bias, stride, padding, dilation, groups, 1))
    function("conv2d", lambda input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1:
             convolution(input, weight, bias, stride, padding, dilation, groups, 2))
    function("conv_transpose1d", lambda input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
             dilation=1: conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1))
    function("conv_transpose2d", lambda input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
             dilation=1: conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2))

def _no_double_backward(g, v):
    raise Unsupported("the double backward of convolution (ConvolutionBackwardBackward0, create_graph=True)")


helper(backward, name="convolution_backward")
graph_helper("convolution_backward", _no_double_backward)
