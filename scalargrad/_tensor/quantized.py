"""Quantized tensors: PyTorch 2.13's ``torch.quint8``, ``qint8`` and ``qint32`` tensors, made, read and printed.

A quantized tensor stores integers ``q`` standing for the real numbers ``scale * (q - zero_point)``
(per tensor), or with one ``scale``/``zero_point`` per index along ``axis`` (per channel). Here it
is a ``QuantizedTensor``, a subclass of ``Tensor`` (``isinstance(q, torch.Tensor)`` holds, as in
PyTorch) holding its stored integers as a dense integer tensor ``_ir`` (uint8, int8 or int32: what
``int_repr`` returns a copy of, with its strides, so views of a quantized tensor are views of it)
and its parameters. No dense op can read it as if it were dense: ``__getattribute__`` answers only
the names the class defines, so a dense kernel reading ``_t`` or ``_val`` raises
``QuantizedRead``, and every other Tensor method or operator raises ``Unsupported`` naming it.
What quantized tensors do is in ``quantized_ops.py``; the arithmetic of quantizing and
dequantizing one number is here.

Quantizing (ATen's CPU kernels on x86-64, measured against PyTorch 2.13 on 117,000 numbers, many of
them ties): ``inv = 1.0f / (float)scale`` and ``p = (float)(x * inv)`` in float32, then

- per tensor, quint8 and qint8 (FBGEMM's AVX2 kernel): ``nearbyint(fma(x, inv, zero_point))``, one
  rounding of ``x * inv + zero_point`` to float32 before rounding to an integer, ties to even;
- qint32 and every per-channel tensor: ``nearbyint((float)zero_point + p)``, the sum in float32;

then clamped to the dtype's range. The two differ only where ``x * inv`` is within a float32
rounding of a half-integer; on a processor without AVX2 FBGEMM's scalar code does the second for
all, which scalargrad does not reproduce. Quantizing a nan (or ``0 * inf``, a zero at scale 0) is
refused: PyTorch's result is a C++ float-to-int conversion of nan, undefined and kernel-dependent.

Dequantizing: per tensor ``(float)scale * (float)(q - zero_point)`` in float32, the difference in int32
(FBGEMM); per channel ``((float)q - (float)zero_point) * scale``, the difference in float32 and the
product with the double scale in double, then stored as float32 (ATen's loop): both measured bit
for bit (exact differences for 8-bit tensors; qint32 ones round where they pass 2**24).
"""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import Size, float32, float64, int64, round_f32
from .._base.errors import Unsupported
from .._base.exact_sum import rounded_dot, rounded_sum
from .._base.formatting import add_suffixes, format_data
from .._base.layout import numel
from .._base.refusals import QUANTIZED
from .factories import device, from_values
from .memory_formats import channels_last, channels_last_3d
from .tensor import Tensor, flat

__all__ = ["QuantizedTensor", "QuantizedRead", "qscheme", "per_tensor_affine", "per_channel_affine",
           "per_tensor_symmetric", "per_channel_symmetric", "per_channel_affine_float_qparams", "QSCHEMES",
           "new_quantized", "quantize_values", "dequantize_values", "refused", "finish", "limits", "HINT",
           "per_channel_parameters", "in_format"]

HINT = QUANTIZED + "; other ops need the float tensor: dequantize()"


class qscheme:  # PyTorch's name: torch.qscheme
    """A quantization scheme (``torch.per_tensor_affine``...), printed as PyTorch prints it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):  # singletons, also through copy.deepcopy
        return self.name


qscheme.__module__ = "torch"
per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")
QSCHEMES = (per_tensor_affine, per_channel_affine, per_tensor_symmetric, per_channel_symmetric,
            per_channel_affine_float_qparams)


class QuantizedRead(Unsupported):
    """A dense operation reached a quantized tensor's (absent) float elements."""

    def __init__(self, op: str = "") -> None:
        super().__init__(f"{op} on a quantized tensor" if op else "a dense operation on a quantized tensor", HINT)

    def named(self, op: str) -> QuantizedRead:
        """The same refusal naming the op the program called (``torch.exp``)."""
        return QuantizedRead(op)


def refused(name: str) -> Unsupported:
    """The refusal of Tensor attribute ``name`` on a quantized tensor."""
    if name in Tensor.__slots__ or name == "_in":  # a dense kernel reading the elements it does not have
        return QuantizedRead()
    return Unsupported(f"Tensor.{name} on a quantized tensor", HINT)


def limits(dt) -> tuple:
    """(qmin, qmax) of a quantized dtype's stored integers."""
    bits = 8 * dt.itemsize
    return (0, (1 << bits) - 1) if dt is dtypes.quint8 else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


class QuantizedTensor(Tensor):
    """A quantized tensor (see the module's docstring)."""

    __slots__ = ("_ir", "_dt", "_qs", "_scale", "_zp", "_axis")

    def __getattribute__(self, name: str):
        if name in _OWN:
            return object.__getattribute__(self, name)
        raise refused(name)

    # ------------------------------------------------------------ metadata

    @property
    def dtype(self):
        return self._dt

    @property
    def shape(self) -> Size:
        return self._ir.shape

    @property
    def ndim(self) -> int:
        return self._ir.ndim

    def dim(self) -> int:
        return self._ir.ndim

    ndimension = dim

    def size(self, dim: int | None = None):
        return self._ir.size() if dim is None else self._ir.size(dim)

    def stride(self, dim: int | None = None):
        return self._ir.stride() if dim is None else self._ir.stride(dim)

    def storage_offset(self) -> int:
        return self._ir.storage_offset()

    def is_contiguous(self, memory_format=None) -> bool:
        return self._ir.is_contiguous() if memory_format is None else self._ir.is_contiguous(memory_format)

    def numel(self) -> int:
        return self._ir.numel()

    nelement = numel

    def __len__(self) -> int:
        return len(self._ir)

    @property
    def device(self):
        return _CPU

    @property
    def layout(self):
        return self._ir.layout

    def get_device(self) -> int:
        return -1

    is_quantized = property(lambda self: True)
    is_cuda = is_meta = is_sparse = is_sparse_csr = is_nested = is_mkldnn = property(lambda self: False)

    def is_floating_point(self) -> bool:
        return False

    def is_complex(self) -> bool:
        return False

    def is_signed(self) -> bool:
        return self._dt.is_signed  # PyTorch's RuntimeError: quantized types have no signedness

    def element_size(self) -> int:
        return self._dt.itemsize

    @property
    def itemsize(self) -> int:
        return self._dt.itemsize

    @property
    def nbytes(self) -> int:
        return self._dt.itemsize * self._ir.numel()

    def to(self, *args, **kwargs):
        """Itself on the CPU; any conversion is refused (PyTorch converts no quantized tensor either)."""
        for a in list(args) + list(kwargs.values()):
            if not (a is None or a is False or a == "cpu" or (isinstance(a, device) and a.type == "cpu")):
                raise Unsupported("Tensor.to on a quantized tensor (a conversion)", HINT)
        return self

    def cpu(self, memory_format=None) -> QuantizedTensor:
        return self

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        if dtype is None:
            return self._dt.legacy
        raise Unsupported("Tensor.type(dtype) on a quantized tensor", HINT)

    # ------------------------------------------------------------ autograd: quantized tensors require no grad

    requires_grad = property(lambda self: False, lambda self, flag: _no_grad(flag, "floating point and complex"))
    grad_fn = grad = property(lambda self: None)
    is_leaf = property(lambda self: True)

    def requires_grad_(self, requires_grad: bool = True) -> QuantizedTensor:
        _no_grad(requires_grad, "floating point")
        return self

    # ------------------------------------------------------------ parameters

    def qscheme(self):
        return self._qs

    def q_scale(self) -> float:
        _need_per_tensor(self)
        return self._scale

    def q_zero_point(self) -> int:
        _need_per_tensor(self)
        return self._zp

    def q_per_channel_scales(self) -> Tensor:
        _need_per_channel(self)
        return self._scale.clone()

    def q_per_channel_zero_points(self) -> Tensor:
        _need_per_channel(self)
        return self._zp.clone()

    def q_per_channel_axis(self) -> int:
        _need_per_channel(self)
        return self._axis

    def int_repr(self) -> Tensor:
        """The stored integers: a new tensor of uint8, int8 or int32 (in this one's memory format)."""
        return in_format(flat(self._ir), self._ir, self._ir.dtype)

    def dequantize(self) -> Tensor:
        """The real numbers the stored integers stand for, a new float32 tensor (in this one's memory format)."""
        return in_format(dequantize_values(self), self._ir, float32)

    # ------------------------------------------------------------ elements

    def item(self):
        if self._ir.numel() != 1:
            raise RuntimeError(f"a Tensor with {self._ir.numel()} elements cannot be converted to Scalar")
        return dequantize_values(self)[0]

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self._ir.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return self.item() != 0

    def tolist(self):
        raise RuntimeError("load_scalar: invalid type")  # PyTorch's: it has no Python scalar of a quantized type

    # ------------------------------------------------------------ printing

    def __repr__(self, *, tensor_contents=None) -> str:
        return _repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._ir.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return _repr(self)


# PyTorch has one class for every kind of tensor: type(q) prints as torch.Tensor's does
QuantizedTensor.__name__ = QuantizedTensor.__qualname__ = "Tensor"
QuantizedTensor.__module__ = "torch"
_CPU = device("cpu")


def in_format(values: list, like: Tensor, dt) -> Tensor:
    """A new tensor of ``dt`` holding ``values`` (row-major) in ``like``'s memory format, as ATen's
    ``suggest_memory_format``: contiguous, or channels-last where ``like`` is that and not contiguous."""
    out = from_values(values, tuple(like.shape), dt)
    if not like.is_contiguous():
        for fmt, ndim in ((channels_last, 4), (channels_last_3d, 5)):
            if like.ndim == ndim and like.is_contiguous(memory_format=fmt):
                return out.contiguous(memory_format=fmt)
    return out


def _no_grad(flag, kinds: str) -> None:
    if flag:
        raise RuntimeError(f"only Tensors of {kinds} dtype can require gradients")


def _need_per_tensor(q: QuantizedTensor) -> None:
    if q._qs is not per_tensor_affine:
        raise RuntimeError("Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an enhancement request to "
                           "PyTorch.)")


def _need_per_channel(q: QuantizedTensor) -> None:
    if q._qs is not per_channel_affine:
        raise RuntimeError("Expected quantizer->qscheme() == kPerChannelAffine || quantizer->qscheme() == "
                           "kPerChannelAffineFloatQParams to be true, but got false.  (Could this error message be "
                           "improved?  If so, please report an enhancement request to PyTorch.)")


_OWN: frozenset = frozenset(vars(QuantizedTensor)) | {"__class__"}


def finish() -> None:
    """Close the class once every family has bound Tensor's surface: every dunder of Tensor the
    quantized tensor does not define refuses (Python finds an operator on the type, past
    ``__getattribute__``)."""
    global _OWN
    keep = {"__module__", "__doc__", "__slots__", "__new__", "__init__", "__weakref__", "__hash__",
            "__array_priority__", "__dict__", "__init_subclass__", "__class_getitem__"}
    own = set(vars(QuantizedTensor)) | {"__class__"}
    for name in list(vars(Tensor)):
        if name.startswith("__") and name.endswith("__") and name not in keep and name not in own:
            setattr(QuantizedTensor, name, _refusing(name))
    _OWN = frozenset(own)


def _refusing(name: str):
    def refuse(self, *args, **kwargs):
        raise refused(name)

    refuse.__name__ = name
    return refuse


def new_quantized(ir: Tensor, dt, qs, scale, zp, axis: int | None = None) -> QuantizedTensor:
    """A quantized tensor from its stored integers (a dense tensor of ``dt``'s integer dtype) and
    parameters: per tensor ``scale`` a float and ``zp`` an int, per channel float64 and int64
    tensors (no check)."""
    q = object.__new__(QuantizedTensor)
    set_ = object.__setattr__
    set_(q, "_ir", ir)
    set_(q, "_dt", dt)
    set_(q, "_qs", qs)
    set_(q, "_scale", scale)
    set_(q, "_zp", zp)
    set_(q, "_axis", axis)
    return q


# ---------------------------------------------------------------- the arithmetic of one number

_INT32 = 1 << 31


def quantize_values(xs: list, dt, scale: float, zp: int, fused: bool) -> list:
    """float32 numbers ``xs`` as stored integers of ``dt`` (see the module's docstring): ``fused``
    rounds ``x * inv + zero_point`` once (FBGEMM's AVX2 kernel), else ``(float)zero_point + p``."""
    lo, hi = limits(dt)
    inv = round_f32(1.0 / round_f32(scale)) if scale != 0 else math.inf
    zf = round_f32(float(zp))
    out = []
    for x in xs:
        p = x * inv  # exact in double: two float32 numbers
        if p != p:
            raise Unsupported(f"quantizing {'a nan' if x != x else 'a zero at scale 0'}",
                              "PyTorch's result is its kernel's conversion of nan to an integer, undefined in C++")
        if p - p != 0:  # +-inf: the clamp's end
            out.append(hi if p > 0 else lo)
            continue
        t = rounded_dot([(x, inv)], True, float(zp)) if fused else rounded_sum([zf, round_f32(p)], True)
        if t - t != 0:
            out.append(hi if t > 0 else lo)
            continue
        r = round(t)  # Python's round: to nearest, ties to even, as nearbyint
        out.append(lo if r < lo else hi if r > hi else r)
    return out


def _wrap32(n: int) -> int:
    return (n + _INT32) % (2 * _INT32) - _INT32


def dequantize_values(q: QuantizedTensor) -> list:
    """The float32 numbers ``q``'s stored integers stand for, in row-major order."""
    ints = flat(q._ir)
    if q._qs is per_tensor_affine:
        s, zp = round_f32(q._scale), q._zp
        return [round_f32(s * round_f32(float(_wrap32(v - zp)))) for v in ints]
    scales, zps = flat(q._scale), flat(q._zp)
    shape = tuple(q._ir.shape)
    inner = numel(shape[q._axis + 1:])
    n = shape[q._axis]
    out = []
    for i, v in enumerate(ints):
        c = (i // inner) % n
        # float(q) - float(zero_point) in float32, times the double scale in double, stored as float32
        out.append(round_f32(round_f32(round_f32(float(v)) - round_f32(float(zps[c]))) * scales[c]))
    return out


# ---------------------------------------------------------------- printing


def _repr(q: QuantizedTensor) -> str:
    """``torch/_tensor_str.py``'s print of a quantized tensor: its values dequantized, then size,
    dtype, scheme and parameters."""
    indent = len("tensor(")
    shape = tuple(q._ir.shape)
    suffixes = [f"size={shape!r}", f"dtype={q._dt!r}", f"quantization_scheme={q._qs!r}"]
    if q._qs is per_tensor_affine:
        suffixes += [f"scale={q._scale!r}", f"zero_point={q._zp!r}"]
    else:
        suffixes += [f"scale={q._scale!r}", f"zero_point={q._zp!r}", f"axis={q._axis!r}"]
    text = format_data(dequantize_values(q), shape, True, indent)
    return add_suffixes("tensor(" + text, suffixes, indent)


def per_channel_parameters(scales: list, zps: list) -> tuple:
    """A per-channel tensor's parameters as PyTorch keeps them: float64 scales, int64 zero points."""
    return from_values([float(s) for s in scales], (len(scales),), float64), from_values(list(zps), (len(zps),),
                                                                                         int64)

