"""dtypes, shapes and the float32 emulation every op result goes through.

scalargrad stores every number as a Python float (an IEEE double). A float32 tensor is
emulated by rounding each op's double result to the nearest float32: for ``+ - * /`` of
two float32 operands the double result is exact enough that this single rounding is the
correctly rounded float32 result, i.e. bit for bit what PyTorch computes.
"""

from __future__ import annotations

import math
import struct

__all__ = ["dtype", "float32", "float64", "int64", "bool", "Size", "round_f32", "TensorType"]

_F32 = struct.Struct("f")
_F32_MAX = 3.4028234663852886e38
_F32_MIN_NORMAL = 1.1754943508222875e-38
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
    if _F32_MIN_NORMAL <= r <= _F32_MAX or -_F32_MAX <= r <= -_F32_MIN_NORMAL or x == 0.0:
        return r
    return _round_f32_edge(x)


class dtype:
    """A scalar type, printed as PyTorch prints it (``torch.float32``)."""

    __slots__ = ("name", "is_floating_point", "itemsize", "round", "kernel")

    def __init__(self, name: str, is_floating_point: bool, itemsize: int, rounder) -> None:
        self.name = name
        self.is_floating_point = is_floating_point
        self.itemsize = itemsize
        self.round = rounder
        self.kernel = None  # the float arithmetic of backward, set by autograd.kernels

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):  # dtypes are singletons, also through copy.deepcopy
        return self.name


def _round_int(x) -> int:
    return int(x)


def _round_bool(x):
    return x != 0  # not bool(x): this module's ``bool`` is torch.bool (nan != 0, as bool(nan))


float32 = dtype("float32", True, 4, round_f32)
float64 = dtype("float64", True, 8, float)
int64 = dtype("int64", False, 8, _round_int)
bool = dtype("bool", False, 1, _round_bool)  # noqa: A001 - torch.bool
float = float32  # noqa: A001 - torch.float
double = float64
long = int64

_BY_NAME = {"float32": float32, "float64": float64, "int64": int64, "bool": bool}


class Size(tuple):
    """A shape, printed as ``torch.Size([1])``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


class TensorType:
    """The (dtype, shape) pair of a Value; interned so ops compare them with ``is``."""

    __slots__ = ("dtype", "shape", "fast")
    _interned: dict = {}

    def __new__(cls, dt: dtype, shape: tuple):
        key = (dt, tuple(shape))
        t = cls._interned.get(key)
        if t is None:
            t = object.__new__(cls)
            t.dtype = dt
            t.shape = Size(shape)
            # the operators' one-call path: 32 = round each result to float32, 64 = as is
            t.fast = 32 if dt.name == "float32" else (64 if dt.name == "float64" else 0)
            cls._interned[key] = t
        return t

    def with_dtype(self, dt: dtype) -> TensorType:
        return TensorType(dt, self.shape)


def promote_types(a: dtype, b: dtype) -> dtype:
    """The result dtype of a binary op between two tensors (PyTorch's promotion lattice)."""
    if a is b:
        return a
    order = (bool, int64, float32, float64)
    return a if order.index(a) > order.index(b) else b


def result_type(a: TensorType, b: TensorType) -> TensorType:
    """Promote dtypes and broadcast one-element shapes (the longer shape wins)."""
    dt = promote_types(a.dtype, b.dtype)
    shape = a.shape if len(a.shape) >= len(b.shape) else b.shape
    return TensorType(dt, shape)
