"""dtypes, tensor types and the rounding every op result goes through.

scalargrad stores every number as a Python float (an IEEE double), int or bool. A float32
tensor is emulated by rounding each op's double result to the nearest float32: for ``+ - * /``
and ``sqrt`` of float32 operands the double result is exact enough that this single rounding
is the correctly rounded float32 result, i.e. bit for bit what PyTorch computes. Integer
dtypes wrap around as C's fixed-width integers do (``torch.tensor(2**62) * 4`` is 0).

A ``TensorType`` is the interned (dtype, shape, strides) of a tensor, so ops compare types
with ``is``; it also carries the arithmetic its backward runs on (``kernel``, attached by the
autograd layer, which sits above this one).
"""

from __future__ import annotations

import builtins
import math
import struct
import sys

from .errors import Unsupported

__all__ = ["dtype", "float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
           "bool", "Size", "round_f32", "round_f32_list", "TensorType", "promote_types", "can_cast", "overflows",
           "check_fits", "check_scalar_fits", "by_name", "complex32", "complex64", "complex128",
           "set_kernels", "round_scaled", "round_complex", "round_values", "first_complex", "FLOAT32_MAX",
           "FLOAT32_MIN_NORMAL", "finite_max", "not_a_default", "quint8", "qint8", "qint32", "quint4x2", "quint2x4",
           "QUANTIZED_INT"]

_F32 = struct.Struct("f")
FLOAT32_MAX = 3.4028234663852886e38
"""The largest finite float32, FLT_MAX (the one place it is written)."""
FLOAT32_MIN_NORMAL = 1.1754943508222875e-38
"""The smallest normal float32, FLT_MIN."""
# Halfway between FLT_MAX and 2**128: from here on round-to-nearest-even gives inf.
_F32_OVERFLOW = 3.4028235677973366e38
# Veltkamp splitting constant 2**29 + 1: c - (c - x) keeps the top 24 significant bits of x,
# rounded to nearest-even, in three float operations (about half the cost of struct).
_SPLIT = 536870913.0


def _round_f32_edge(x: float) -> float:
    """float32 rounding outside the normal range: zero, subnormals, overflow, inf, nan."""
    if x != x or x == 0.0 or x in (math.inf, -math.inf):
        return x
    if abs(x) >= _F32_OVERFLOW:
        return math.copysign(math.inf, x)
    return _F32.unpack(_F32.pack(x))[0]


def round_f32(x: float) -> float:
    """Round a double to the nearest float32 (ties to even), as a Python float."""
    c = _SPLIT * x
    r = c - (c - x)
    # zeros are common (relu, masked gradients) and come out of the split exact, sign included
    if FLOAT32_MIN_NORMAL <= r <= FLOAT32_MAX or -FLOAT32_MAX <= r <= -FLOAT32_MIN_NORMAL or x == 0.0:
        return r
    if x - x != 0.0:  # inf or nan
        return x
    return _round_f32_edge(x)


_PACKERS: dict = {}


def round_f32_list(xs) -> list:
    """float32 rounding of a whole list in C: struct's 'f' is the hardware cast (round to
    nearest even, subnormals included); a value that overflows makes struct refuse the whole
    pack, and only then is each element rounded in Python."""
    n = len(xs)
    p = _PACKERS.get(n)
    if p is None:
        p = struct.Struct(f"{n}f")
        if len(_PACKERS) < 256:
            _PACKERS[n] = p
    try:
        return list(p.unpack(p.pack(*xs)))
    except (OverflowError, struct.error):
        return [round_f32(builtins.float(x)) for x in xs]


def _round_f16(x: float) -> float:
    try:
        return struct.unpack("e", struct.pack("e", builtins.float(x)))[0]
    except (OverflowError, struct.error):  # beyond half's range (or a huge int): inf, as a cast gives
        return math.copysign(math.inf, x)


def _round_bf16(x: float) -> float:
    """bfloat16: the top 16 bits of the float32, rounded to nearest even."""
    f = round_f32(x)
    if f != f or f in (math.inf, -math.inf):
        return f
    (bits,) = struct.unpack("<I", struct.pack("<f", f))
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _wrapper(bits: int, signed: bool):
    """Conversion to a ``bits``-wide integer as C casts (wrap around modulo 2**bits)."""
    mod = 1 << bits
    lo = -(1 << (bits - 1)) if signed else 0
    hi = lo + mod - 1

    def round_int(x):
        if x.__class__ is not builtins.int:
            if x != x or x in (math.inf, -math.inf):
                # C's float-to-int conversion of nan/inf: x86 gives the "integer indefinite"
                return lo if signed else 0
            x = builtins.int(x)  # truncates toward zero
        if lo <= x <= hi:
            return x
        return (x - lo) % mod + lo

    return round_int


_INDEFINITE_64, _INDEFINITE_32 = -(1 << 63), -(1 << 31)


def float_to_int(dt: dtype, x: float) -> int:
    """A floating element converted to the integer dtype ``dt`` as PyTorch's cast does on x86-64
    (cvttsd2si): truncated toward zero; nan, inf and values that do not fit the conversion's
    register (64 bits for int64, 32 for the narrower types, whose low bits are then kept) give
    the register's lowest value, the "integer indefinite". (ARM saturates instead.)"""
    wide = dt.itemsize == 8
    lowest = _INDEFINITE_64 if wide else _INDEFINITE_32
    if x != x or x in (math.inf, -math.inf):
        return dt.round(lowest)
    v = builtins.int(x)
    if not lowest <= v < -lowest:
        v = lowest
    return dt.round(v)


def cast_values(src: dtype, dt: dtype, vals):
    """Elements of dtype ``src`` (a number, or a list) converted to ``dt``. Into a complex dtype
    each element becomes a Python complex with parts of ``dt``'s real dtype; out of one, the
    real part is kept (PyTorch warns, at the tensor layer), except into bool (nonzero)."""
    if dt.kind == "c" or src.kind == "c":
        if dt is bool:  # nonzero, as C++'s bool of a complex: an imaginary part alone makes it True
            return [z != 0 for z in vals] if isinstance(vals, list) else vals != 0
        if dt.kind != "c":
            vals = [z.real for z in vals] if isinstance(vals, list) else vals.real
            src = src.to_real()
        else:
            return round_values(dt, vals) if isinstance(vals, list) else round_complex(dt, vals)
    if src.is_floating_point and dt.kind == "i":
        return [float_to_int(dt, x) for x in vals] if isinstance(vals, list) else float_to_int(dt, vals)
    return round_list(dt, vals) if isinstance(vals, list) else dt.round(vals)


def _round_bool(x):
    return x != 0  # nan != 0 is True, as bool(nan)


class dtype:
    """A scalar type, printed as PyTorch prints it (``torch.float32``)."""

    __slots__ = ("name", "is_floating_point", "is_signed", "itemsize", "round", "kind", "rank", "c_name",
                 "legacy", "short")

    def __init__(self, name: str, kind: str, rank: int, itemsize: int, rounder, c_name: str, legacy: str,
                 signed: bool = True) -> None:
        self.name = name
        self.kind = kind  # "b" bool, "i" integer, "f" floating, "c" complex (a name only: refused)
        self.rank = rank  # order within its kind, for promotion
        self.is_floating_point = kind == "f"
        self.is_signed = signed
        self.itemsize = itemsize
        self.round = rounder
        self.c_name = c_name  # as C++ messages name it: float, double, long int, bool...
        self.legacy = legacy  # torch.FloatTensor...
        self.short = c_name.capitalize() if c_name != "c10::Half" else "Half"

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):  # dtypes are singletons, also through copy.deepcopy
        return self.name

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    def to_real(self) -> dtype:
        """The real dtype of a complex one's parts (complex64 -> float32); any other: itself."""
        return _COMPLEX_PARTS.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype with this floating dtype's parts (float32 -> complex64)."""
        if self.kind == "c":
            return self
        for c, part in _COMPLEX_PARTS.items():
            if part is self:
                return c
        raise RuntimeError(f"Unknown Complex ScalarType for {self.short}")


float16 = dtype("float16", "f", 1, 2, _round_f16, "c10::Half", "torch.HalfTensor")
bfloat16 = dtype("bfloat16", "f", 1, 2, _round_bf16, "c10::BFloat16", "torch.BFloat16Tensor")
float32 = dtype("float32", "f", 2, 4, round_f32, "float", "torch.FloatTensor")
float64 = dtype("float64", "f", 3, 8, builtins.float, "double", "torch.DoubleTensor")
uint8 = dtype("uint8", "i", 0, 1, _wrapper(8, False), "unsigned char", "torch.ByteTensor", signed=False)
int8 = dtype("int8", "i", 0, 1, _wrapper(8, True), "signed char", "torch.CharTensor")
int16 = dtype("int16", "i", 1, 2, _wrapper(16, True), "short int", "torch.ShortTensor")
int32 = dtype("int32", "i", 2, 4, _wrapper(32, True), "int", "torch.IntTensor")
int64 = dtype("int64", "i", 3, 8, _wrapper(64, True), "long int", "torch.LongTensor")
bool = dtype("bool", "b", 0, 1, _round_bool, "bool", "torch.BoolTensor", signed=False)


def _refuses(name: str):
    def refuse_complex_value(x):
        # the safety net: every op rounds its results through the dtype's ``round``, so an op that
        # does not know complex numbers cannot make a complex tensor (those that do call
        # ``round_complex``; the named refusal is complex_numbers' gate, at the surface)
        raise Unsupported(f"this operation on torch.{name} tensors (complex numbers)")

    return refuse_complex_value


# a complex tensor's elements are Python complex numbers whose parts are of the real dtype: two
# float32 (complex64) or two float64 (complex128); complex32 (chalf) is refused by name
complex32 = dtype("complex32", "c", 0, 4, _refuses("complex32"), "c10::complex<c10::Half>", "")
complex64 = dtype("complex64", "c", 2, 8, _refuses("complex64"), "c10::complex<float>", "")
complex128 = dtype("complex128", "c", 3, 16, _refuses("complex128"), "c10::complex<double>", "")
complex32.short = "ComplexHalf"
complex64.short = "ComplexFloat"
complex128.short = "ComplexDouble"
_COMPLEX_PARTS = {complex32: float16, complex64: float32, complex128: float64}
float16.short = "Half"
bfloat16.short = "BFloat16"
uint8.short = "Byte"
int8.short = "Char"
int16.short = "Short"
int64.short = "Long"
float = float32  # torch.float
double = float64
half = float16
long = int64
int = int32  # torch.int
short = int16
chalf = complex32
cfloat = complex64
cdouble = complex128

class _QuantizedDtype(dtype):
    """A quantized dtype (``torch.qint8``...): the element type of a quantized tensor only, whose
    stored integers stand for ``scale * (q - zero_point)``. PyTorch asks no signedness of it."""

    __slots__ = ()

    @property
    def is_signed(self):
        raise RuntimeError("isSignedType not supported for quantized types")

    @is_signed.setter
    def is_signed(self, value) -> None:  # dtype.__init__ sets it
        pass


_QuantizedDtype.__name__ = _QuantizedDtype.__qualname__ = "dtype"
_QuantizedDtype.__module__ = "torch"


def _not_dense(name: str):
    def refuse_quantized_value(x):
        # the safety net, as for complex32: no dense op makes elements of a quantized dtype
        raise Unsupported(f"a dense tensor of torch.{name} (quantized tensors are made by torch.quantize_per_tensor "
                          "and torch.quantize_per_channel)")

    return refuse_quantized_value


quint8 = _QuantizedDtype("quint8", "q", 0, 1, _not_dense("quint8"), "c10::quint8", "torch.quantized.QUInt8Tensor")
qint8 = _QuantizedDtype("qint8", "q", 0, 1, _not_dense("qint8"), "c10::qint8", "torch.quantized.QInt8Tensor")
qint32 = _QuantizedDtype("qint32", "q", 0, 4, _not_dense("qint32"), "c10::qint32", "torch.quantized.QInt32Tensor")
quint4x2 = _QuantizedDtype("quint4x2", "q", 0, 1, _not_dense("quint4x2"), "c10::quint4x2",
                           "torch.quantized.QUInt4x2Tensor")
quint2x4 = _QuantizedDtype("quint2x4", "q", 0, 1, _not_dense("quint2x4"), "c10::quint2x4",
                           "torch.quantized.QUInt2x4Tensor")
for _q, _short in ((quint8, "QUInt8"), (qint8, "QInt8"), (qint32, "QInt32"), (quint4x2, "QUInt4x2"),
                   (quint2x4, "QUInt2x4")):
    _q.short = _short
QUANTIZED_INT = {quint8: uint8, qint8: int8, qint32: int32}
"""The integer dtype holding a quantized dtype's stored values (``int_repr``'s dtype)."""


_BY_NAME = {d.name: d for d in (float16, bfloat16, float32, float64, uint8, int8, int16, int32, int64, bool)}


first_complex: list = []
"""Callables run once, when the first complex element is made (complex_numbers' gate)."""


def round_complex(dt: dtype, z) -> complex:
    """A number as an element of the complex dtype ``dt``: a Python complex whose parts are
    rounded to ``dt``'s real dtype (complex64: each part to float32). Every complex element is
    made here (factories, casts, the complex ops)."""
    while first_complex:
        first_complex.pop()()
    if dt is complex32:
        raise Unsupported("torch.complex32 (ComplexHalf) tensors")
    if dt.kind != "c":
        raise TypeError(f"round_complex: {dt!r} is not complex")
    z = builtins.complex(z)
    if dt is complex64:
        return builtins.complex(round_f32(z.real), round_f32(z.imag))
    return z


def round_values(dt: dtype, xs) -> list:
    """``round_list`` that also makes elements of a complex dtype (the factories and casts,
    which create or convert values and compute nothing)."""
    if dt.kind == "c":
        return [round_complex(dt, x) for x in xs]
    return round_list(dt, xs)


def by_name(name: str) -> dtype:
    return _BY_NAME[name]


def round_scaled(dt: dtype, xs: list, c) -> list:
    """``round_list(dt, xs)`` for ``xs`` = numbers of ``dt`` times the number ``c``: ``xs`` itself
    in float32 when that is exact, ``c`` a power of two of magnitude 1 or more (``2 * x``, the
    derivative of ``x ** 2``) and no product beyond FLT_MAX (``hypot`` bounds them; an inf or
    nan fails the test): a float32 number times such a power is a float32 number."""
    if dt is float32 and abs(math.frexp(c)[0]) == 0.5 and abs(c) >= 1.0 and math.hypot(*xs) <= FLOAT32_MAX:
        return xs
    return round_list(dt, xs)


def round_list(dt: dtype, xs) -> list:
    """``xs`` rounded to ``dt``, element by element (float32 in one C call)."""
    if dt is float32:
        return round_f32_list(xs)
    if dt is float64:
        return [x if x.__class__ is builtins.float else builtins.float(x) for x in xs]
    r = dt.round
    return [r(x) for x in xs]


class Size(tuple):
    """A shape, printed as ``torch.Size([1])``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r


def _contiguous(shape: tuple) -> tuple:
    strides = [1] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


_kernels: dict = {}  # (dtype, is 0-dim) -> the arithmetic backward runs on (autograd layer)


class TensorType:
    """The (dtype, shape, strides) of a tensor; interned, so ops compare types with ``is``.

    ``fast`` is the operators' one-call path for 0-dim float tensors: 32 rounds each result to
    float32, 64 keeps it; 0 for everything else. ``kernel`` is the arithmetic a node of this
    type runs its backward on (floats for 0-dim tensors, tensors otherwise).
    """

    __slots__ = ("dtype", "shape", "strides", "ndim", "numel", "fast", "kernel", "contiguous")
    _interned: dict = {}

    def __new__(cls, dt: dtype, shape: tuple, strides: tuple | None = None):
        key = (dt, tuple(shape), strides)
        t = cls._interned.get(key)
        if t is None:
            shape = tuple(shape)
            contiguous = _contiguous(shape)
            if strides is not None and tuple(strides) == contiguous:
                return cls(dt, shape)
            t = object.__new__(cls)
            t.dtype = dt
            t.shape = Size(shape)
            t.strides = contiguous if strides is None else tuple(strides)
            t.contiguous = strides is None
            t.ndim = len(shape)
            n = 1
            for s in shape:
                n *= s
            t.numel = n
            t.fast = (32 if dt is float32 else 64 if dt is float64 else 0) if not shape else 0
            t.kernel = _kernels.get((dt, not shape))
            cls._interned[key] = t
        return t

    def with_dtype(self, dt: dtype) -> TensorType:
        return TensorType(dt, self.shape, None if self.contiguous else self.strides)

    def with_shape(self, shape: tuple, strides: tuple | None = None) -> TensorType:
        return TensorType(self.dtype, shape, strides)

    def __repr__(self) -> str:
        return f"TensorType({self.dtype!r}, {tuple(self.shape)}{'' if self.contiguous else ', ' + str(self.strides)})"


def set_kernels(kernels: dict) -> None:
    """Attach backward arithmetic: ``{(dtype, is_0dim): kernel}`` (called by the autograd layer)."""
    _kernels.update(kernels)
    for t in TensorType._interned.values():
        t.kernel = _kernels.get((t.dtype, t.ndim == 0))


# the C++ scalar type ATen names when a Scalar does not fit (fill_, full, clamp)
_CPP_SCALAR = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
               "float32": "float"}


def overflows(dt: dtype, x) -> bool:
    """c10's ``overflows``: Python number ``x`` does not fit ``dt``. Compared as C++ compares
    (a float against the double nearest the type's limit); an unsigned type takes negative
    integers by wrap-around; half, bfloat16, double and bool are never checked."""
    name = dt.name
    if isinstance(x, builtins.complex) and dt.kind != "c":  # c10: a nonzero imaginary part never fits a real type
        return x.imag != 0 or overflows(dt, x.real)
    if name not in _CPP_SCALAR:
        return False
    if isinstance(x, builtins.float):  # (this module's float is torch.float)
        if x != x or x in (math.inf, -math.inf):
            return dt.kind != "f"
        if dt.kind == "f":
            return abs(x) > FLOAT32_MAX
        lo, hi = _int_limits(dt)
        return x < builtins.float(lo) or x > builtins.float(hi)
    if dt.kind == "f":
        return abs(x) > FLOAT32_MAX
    lo, hi = _int_limits(dt)
    if not dt.is_signed:
        return x > hi or (x < 0 and -x > hi)
    return x < lo or x > hi


def finite_max(dt: dtype) -> float:
    """The largest finite value of a floating dtype (``torch.finfo(dt).max``)."""
    return _HALF_MAX.get(dt.name) or (FLOAT32_MAX if dt.name == "float32" else sys.float_info.max)


def _int_limits(dt: dtype) -> tuple:
    bits = 8 * dt.itemsize
    return (0, (1 << bits) - 1) if not dt.is_signed else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def check_fits(dt: dtype, x, cpp: bool = True) -> None:
    """Refuse a number that ``dt`` cannot hold, in PyTorch's words: ATen names the C++ type
    (``int64_t``), the tensor constructor the dtype (``int64``)."""
    if x.__class__ is not builtins.bool and overflows(dt, x):
        raise RuntimeError(f"value cannot be converted to type {_CPP_SCALAR[dt.name] if cpp else dt.name} "
                           "without overflow")


_HALF_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38}


def not_a_default(x, is_kind: bool, kind: str) -> TypeError:
    """PyTorch's refusal of ``x`` as the default dtype (``set_default_dtype``, ``kind`` "dtype")
    or tensor type (``set_default_tensor_type``, "type"): an object not of that kind is named
    invalid first (a string, a Python type, None)."""
    why = "only floating-point types are supported as the default type"
    return TypeError(why if is_kind else f"invalid {kind} object: {why}")


def check_scalar_fits(dt: dtype, x) -> None:
    """c10's checked conversion of an op's Scalar argument (clamp's bounds, add's alpha) to
    ``dt``: ``check_fits``, and half and bfloat16 checked too ("value cannot be converted to type
    c10::Half without overflow"); inf and nan pass for the floating types."""
    top = _HALF_MAX.get(dt.name)
    if top is None:
        check_fits(dt, x)
    elif x == x and abs(x) != math.inf and abs(x) > top:
        raise RuntimeError(f"value cannot be converted to type {dt.c_name} without overflow")


def can_cast(src: dtype, dst: dtype) -> bool:
    """PyTorch's ``can_cast``: a result may be written into a tensor of ``dst`` unless that
    loses its category (floating into integral or bool, integral into bool); narrowing
    within a category (float64 into float32) is allowed."""
    if src.kind == "c":
        return dst.kind == "c"
    if src.kind == "f":
        return dst.kind in "fc"
    if src.kind == "i":
        return dst.kind != "b"
    return True


def promote_types(a: dtype, b: dtype) -> dtype:
    """The result dtype of a binary op between two tensors (PyTorch's promotion lattice)."""
    if a is b:
        return a
    if a.kind == "q" or b.kind == "q":
        raise RuntimeError("promoteTypes with quantized numbers is not handled yet; figure out what the correct "
                           f"rules should be, offending types: {a.short} {b.short}")
    if a.kind == "c" or b.kind == "c":
        if complex32 in (a, b):
            raise Unsupported("torch.complex32 (ComplexHalf) tensors")
        # the complex dtype whose parts hold both: complex64 with float64 is complex128
        return complex128 if promote_types(a.to_real(), b.to_real()) is float64 else complex64
    order = {"b": 0, "i": 1, "f": 2}
    if order[a.kind] != order[b.kind]:
        return a if order[a.kind] > order[b.kind] else b
    if a.kind == "f":
        if a.rank == b.rank == 1:  # float16 with bfloat16
            return float32
        return a if a.rank > b.rank else b
    # integers: uint8 with a signed type needs the next wider signed type
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return {int8: int16, int16: int16, int32: int32, int64: int64}[other]
    return a if a.rank > b.rank else b
