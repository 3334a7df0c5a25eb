"""``F.pad``: constant, reflect, replicate and circular padding, with ATen's checks and errors in
its order (``PadNd.cpp``, ``ReflectionPad.cpp``, ``ReplicationPadding.cpp``).

Constant, reflection and replication padding are one node each (``_ops/padding.py``): copies of
input elements, the same bits on every machine. Circular padding is, as in ATen's
``_pad_circular``, a new tensor into whose slices slices of the input and then of itself are copied
(its grad_fn is ``CopySlices``).
"""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._ops import padding as PD
from .arguments import not_tensor
from .memory_formats import channels_last_input, in_format
from .tensor import Tensor, make
from .tensor_kernel import helper

__all__ = ["pad", "constant_pad_nd"]

_SUPPORTED = ("\nSupported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_tuple(pad) -> tuple:
    if isinstance(pad, bool) or not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(p).__name__} at pos {i}")
    return tuple(pad)


def _shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """``torch.nn.functional.pad``: ``pad`` lists (before, after) pairs from the last dimension on."""
    if not isinstance(input, Tensor):
        raise not_tensor(input, "pad", "input", 1)
    pads = _pad_tuple(pad)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    nd = input._t.ndim
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pads) > 2 * nd:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pads)} and input of dimension {nd}")
    if mode == "constant":
        return constant_pad_nd(input, pads, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pads) // 2
    if n not in (1, 2, 3) or nd not in (n + 1, n + 2):
        raise NotImplementedError(f"Padding size {len(pads)} is not supported for {nd}D input tensor." + _SUPPORTED)
    if mode == "circular":
        return _circular(input, pads)
    return _reflect_or_replicate(input, pads, mode, n)


def constant_pad_nd(x: Tensor, pads: tuple, value) -> Tensor:
    """constant_pad_nd: negative pads cut (as ``narrow``), positive ones add ``value``."""
    shape = list(x._t.shape)
    nd = len(shape)
    k = len(pads) // 2
    cut = list(shape)
    for i in range(nd - k, nd):
        before, after = pads[2 * (nd - i - 1)], pads[2 * (nd - i - 1) + 1]
        for p in (before, after):
            if p < 0:
                if cut[i] + p < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")
                cut[i] += p
    geo = PD.PadGeometry(tuple(shape), pads, "constant")
    dt = x._t.dtype
    fill = dt.round(value)
    xv = x._val if x._t.ndim else [x._val]
    out = [fill if s < 0 else xv[s] for s in geo.source]
    t = TensorType(dt, geo.out_shape)
    out = make(PD.ConstantPadNd, t, out if geo.out_shape else out[0], (x,), geo)
    return in_format(out, channels_last_input(x))  # ATen: empty(..., x.suggest_memory_format())


def _reflect_or_replicate(x: Tensor, pads: tuple, mode: str, n: int) -> Tensor:
    shape = tuple(x._t.shape)
    nd = len(shape)
    fn = ("reflection" if mode == "reflect" else "replication") + f"_pad{n}d"
    if any(s == 0 for s in (shape[1:] if nd == n + 2 else shape)):
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {_shape(shape)}")
    dt = x._t.dtype
    if dt.name == "bool":
        raise NotImplementedError(f"\"{fn}\" not implemented for 'Bool'")
    if mode == "reflect":
        args = (4, 6, 8)
        for i in range(n):
            before, after = pads[2 * i], pads[2 * i + 1]
            d = nd - 1 - i
            if not (before < shape[d] and after < shape[d]):
                raise RuntimeError(f"Argument #{args[i]}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({before}, {after}) at dimension {d} of input "
                                   f"{_shape(shape)}")
    outs = [shape[nd - 1 - i] + pads[2 * i] + pads[2 * i + 1] for i in range(n)]
    if any(o < 1 for o in outs):
        names = "DHW"[3 - n:]
        sizes = " ".join(f"{c}: {shape[nd - n + j]}" for j, c in enumerate(names))
        calc = " ".join(f"{c}: {outs[n - 1 - j]}" for j, c in enumerate(names))
        raise RuntimeError(f"input ({sizes}) is too small. Calculated output {calc}")
    geo = PD.PadGeometry(shape, pads, mode)
    return _gather(x, geo)


def _ops_of(geo: PD.PadGeometry) -> tuple:
    table = PD.REFLECT_OPS if geo.mode == "reflect" else PD.REPLICATE_OPS
    return table[len(geo.pad) // 2]


def _gather(x: Tensor, geo: PD.PadGeometry) -> Tensor:
    """reflection/replication padding of ``x`` with ``geo`` (also the double backward of its backward)."""
    xv = x._val
    return make(_ops_of(geo)[0], TensorType(x._t.dtype, geo.out_shape), [xv[s] for s in geo.source], (x,), geo)


@helper
def pad_backward(g: Tensor, geo: PD.PadGeometry, x: Tensor) -> Tensor:
    """reflection/replication_padNd_backward: each gradient element added into the input position
    its output copies, outputs in order, into zeros; a node over (grad, x) as PyTorch's."""
    dt = g._t.dtype
    r = dt.round
    n = 1
    for s in geo.in_shape:
        n *= s
    out = [r(0.0)] * n
    for s, go in zip(geo.source, g._val):
        out[s] = r(out[s] + go)
    return make(_ops_of(geo)[1], TensorType(dt, geo.in_shape), out, (g, x), geo)


@helper
def pad_again(g: Tensor, geo: PD.PadGeometry) -> Tensor:
    """The padding itself, on the gradient (the double backward of pad_backward)."""
    return _gather(g, geo)


@helper
def constant_pad_backward(g: Tensor, geo: PD.PadGeometry) -> Tensor:
    """constant_pad_nd(grad, negated pad, 0)."""
    return constant_pad_nd(g, tuple(-p for p in geo.pad), 0)


def _circular(x: Tensor, pads: tuple) -> Tensor:
    """ATen's ``_pad_circular``: the input (cut by negative pads) copied into the middle of a new
    tensor, then, dimension by dimension from the last, each side copied from the other end."""
    shape = tuple(x._t.shape)
    ndim = len(pads) // 2
    lead = len(shape) - ndim  # one or two dims not padded (batch, channels)
    out_shape = list(shape)
    for i in range(ndim):
        left, right = pads[2 * (ndim - i - 1)], pads[2 * (ndim - i - 1) + 1]
        size = shape[lead + i]
        out_shape[lead + i] = size + left + right
        if not (left <= size and right <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[lead + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = x.new_empty(tuple(out_shape))
    out_slice, in_slice = out, x
    for i in range(ndim):
        dim = lead + ndim - 1 - i
        left, right = pads[2 * i], pads[2 * i + 1]
        lo, hi = max(left, 0), out_shape[dim] - max(right, 0)
        out_slice = out_slice.narrow(dim, lo, hi - lo)
        lo, hi = max(-left, 0), shape[dim] - max(-right, 0)
        in_slice = in_slice.narrow(dim, lo, hi - lo)
    out_slice.copy_(in_slice)
    for i in range(ndim):
        dim = lead + ndim - 1 - i
        left, right = pads[2 * i], pads[2 * i + 1]
        if left > 0:
            end = out_shape[dim] - max(right, 0)
            out.narrow(dim, 0, left).copy_(out.narrow(dim, end - left, left))
        if right > 0:
            out.narrow(dim, out_shape[dim] - right, right).copy_(out.narrow(dim, max(left, 0), right))
    return out


def install(method, function) -> None:
    """torch.constant_pad_nd."""
    function("constant_pad_nd", lambda input, pad, value=0: constant_pad_nd(
        input if isinstance(input, Tensor) else _refuse(input), _pad_tuple(pad), value))


def _refuse(x):
    raise not_tensor(x, "constant_pad_nd", "input", 1)
