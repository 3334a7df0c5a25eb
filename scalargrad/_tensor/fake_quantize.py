"""``torch.fake_quantize_per_tensor_affine`` and ``torch.fake_quantize_per_channel_affine``:
quantize and dequantize again, a float tensor out (ATen's FakeQuantPerTensorAffine.cpp,
FakeQuantPerChannelAffine.cpp and their CPU kernels in QuantizedOpKernels.cpp).

Each element, as ATen's CPU kernel computes it with C's conversions, every float32 operation
rounded: ``inv = 1.0f / scale``; per tensor ``q = zero_point + nearbyint(x * inv)`` (in the
input's float type), clamped to ``[quant_min, quant_max]`` (a nan to ``quant_min``: ``fmax``
ignores it), then ``(q - zero_point) * scale`` in float32; per channel with an int32 zero point
the sum is converted to int64 first (x86's conversion: out of range or nan gives INT64_MIN,
clamped to ``quant_min``) and the product is taken in double, then rounded to the input dtype;
with a float zero point ``lrintf(zero_point + x * inv)`` (the sum rounded to float32 first).
``nearbyint`` and ``lrintf`` round half to even (the default rounding mode), as Python's round.
Exact arithmetic, so every processor gives the same bits. Autograd through them (PyTorch's
FakeQuantize...CachemaskBackward0 nodes) is refused by name.
"""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .tensor import Tensor, flat, leaf

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine", "install"]

_f32 = dtypes.float32.round
_INT64_MIN = -(2 ** 63)


def _input(name: str, x) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if x._t.dtype not in (dtypes.float32, dtypes.float64):
        raise Unsupported(f"torch.{name} of {x._t.dtype!r} tensors (float32 and float64 are built)")
    if x.requires_grad and is_grad_enabled():
        raise Unsupported(f"autograd through torch.{name} (its Cachemask backward)")


def _range_checks(quant_min: int, quant_max: int) -> None:
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _nearbyint(v: float) -> float:
    """C's nearbyint (half to even); nan and infinities are themselves."""
    return v if v != v or v in (float("inf"), float("-inf")) else float(round(v))


def _clamp(v: float, lo: int, hi: int) -> int:
    """``static_cast<int64_t>(fmin(fmax(v, lo), hi))`` (fmax and fmin ignore a nan)."""
    if v != v:
        return lo
    return int(min(max(v, lo), hi))


def _item(x, kind):
    if isinstance(x, Tensor):
        return kind(x.item())
    return kind(x)


def fake_quantize_per_tensor_affine(input: Tensor, scale, zero_point, quant_min: int, quant_max: int) -> Tensor:
    """Quantize ``input`` with one ``scale`` and ``zero_point`` (numbers or one-element tensors)
    to ``[quant_min, quant_max]`` and dequantize."""
    _input("fake_quantize_per_tensor_affine", input)
    _range_checks(quant_min, quant_max)
    sc = _f32(_item(scale, float))
    z = _item(zero_point, int)
    if not (quant_min <= z <= quant_max):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    inv = _f32(1.0 / sc) if sc else float("inf")
    single = input._t.dtype is dtypes.float32
    out = []
    for x in flat(input):
        p = _f32(x * inv) if single else x * inv
        qf = _f32(z + _nearbyint(p)) if single else z + _nearbyint(p)
        q = _clamp(qf, quant_min, quant_max)
        out.append(_f32(_f32(q - z) * sc))
    shape = tuple(input._t.shape)
    return leaf(out if shape else out[0], TensorType(input._t.dtype, shape))


def fake_quantize_per_channel_affine(input: Tensor, scale: Tensor, zero_point: Tensor, axis: int, quant_min: int,
                                     quant_max: int) -> Tensor:
    """Quantize ``input`` with ``scale[c]`` and ``zero_point[c]`` along dimension ``axis`` and dequantize."""
    _input("fake_quantize_per_channel_affine", input)
    if scale._t.dtype is not dtypes.float32:
        if scale._t.dtype is dtypes.bfloat16:
            raise Unsupported("torch.fake_quantize_per_channel_affine with bfloat16 scales")
        raise RuntimeError(f"Scale must be Float or BFloat16, found {scale._t.dtype.short}")
    zdt = zero_point._t.dtype
    if zdt not in (dtypes.int32, dtypes.float32):
        if zdt is dtypes.float16:
            raise Unsupported("torch.fake_quantize_per_channel_affine with float16 zero points")
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {zdt.short}")
    if scale._t.ndim != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point._t.ndim != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale._t.numel != zero_point._t.numel:
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    nd = input._t.ndim
    if not 0 <= axis < max(nd, 1) or scale._t.numel != (input._t.shape[axis] if nd else 1):
        if 0 <= axis < max(nd, 1):
            raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
        raise Unsupported("torch.fake_quantize_per_channel_affine with an axis outside the input's dimensions")
    _range_checks(quant_min, quant_max)
    zps, scales = flat(zero_point), flat(scale)
    int_zp = zdt is dtypes.int32
    if int_zp and zps and (min(zps) < quant_min or max(zps) > quant_max):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    single = input._t.dtype is dtypes.float32
    shape = tuple(input._t.shape)
    inner = 1
    for s in shape[axis + 1:]:
        inner *= s
    n_ch = shape[axis] if nd else 1
    out = []
    for i, x in enumerate(flat(input)):
        c = (i // inner) % n_ch
        sc, z = scales[c], zps[c]
        inv = _f32(1.0 / sc) if sc else float("inf")
        p = _f32(x * inv) if single else x * inv
        if int_zp:
            s = _f32(z + _nearbyint(p)) if single else z + _nearbyint(p)
            q = int(s) if s == s and -2.0 ** 63 <= s < 2.0 ** 63 else _INT64_MIN
        else:
            s = _f32(z + p)  # lrintf takes a float
            q = int(round(s)) if s == s and -2.0 ** 63 <= s < 2.0 ** 63 else _INT64_MIN
        v = (min(max(q, quant_min), quant_max) - z) * sc  # in double, as fmin/fmax of int64 give
        out.append(_f32(v) if single else v)
    return leaf(out if shape else out[0], TensorType(input._t.dtype, shape))


def install(method, function) -> None:
    """torch.fake_quantize_per_tensor_affine, torch.fake_quantize_per_channel_affine."""
    function("fake_quantize_per_tensor_affine", fake_quantize_per_tensor_affine)
    function("fake_quantize_per_channel_affine", fake_quantize_per_channel_affine)
