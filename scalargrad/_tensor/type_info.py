"""``torch.finfo`` and ``torch.iinfo``: the numeric limits of a dtype, as PyTorch's
``torch/csrc/TypeInfo.cpp`` reports them.

The attributes are Python floats (finfo) or ints (iinfo, ``bits`` in both), read-only. The repr
prints each number as C++'s ``std::ostream`` does by default (``%g``, six significant digits:
``iinfo(min=-2.14748e+09, ...)`` for int32), the dtype by its short name. ``finfo()`` is the
default dtype's; a complex dtype answers for its real part. Equality compares every attribute;
the objects are unhashable, as PyTorch's.
"""

from __future__ import annotations

from .._base import dtypes
from .tensor import get_default_dtype

__all__ = ["finfo", "iinfo"]

# bits, eps, max, smallest normal (= tiny), resolution (10 ** -digits10)
_FLOAT_LIMITS = {
    "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 1e-3),
    "bfloat16": (16, 2.0 ** -7, (2.0 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -126, 1e-2),
    "float32": (32, 2.0 ** -23, (2.0 - 2.0 ** -23) * 2.0 ** 127, 2.0 ** -126, 1e-6),
    "float64": (64, 2.0 ** -52, (2.0 - 2.0 ** -52) * 2.0 ** 1023, 2.0 ** -1022, 1e-15),
}


def _dtype_argument(name: str, args: tuple, kwargs: dict, default):
    """The one ``type`` argument of finfo()/iinfo(), refused in the argument parser's words."""
    if "type" in kwargs:
        args = args + (kwargs.pop("type"),)
    if kwargs or len(args) > 1:
        got = ", ".join([type(a).__name__ if not isinstance(a, dtypes.dtype) else "torch.dtype" for a in args]
                        + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        alt = "\n * ()" if default is not None else ""
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n * (torch.dtype type){alt}\n")
    if not args:
        if default is None:
            raise TypeError(f'{name}() missing 1 required positional arguments: "type"')
        return default
    dt = args[0]
    if not isinstance(dt, dtypes.dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not {type(dt).__name__}")
    return dt


class _Info:
    """Read-only attributes, equality by value, no hash (PyTorch's TypeInfo objects)."""

    _fields: tuple = ()
    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch.{type(self).__name__}' objects is not writable")

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return False
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    def __repr__(self) -> str:
        parts = [f"{f}={getattr(self, f):g}" for f in self._fields if f not in ("bits", "dtype")]
        return f"{type(self).__name__}({', '.join(parts)}, dtype={self.dtype})"

    __str__ = __repr__


class finfo(_Info):  # PyTorch's name
    """``torch.finfo(type=torch.get_default_dtype())``: bits, eps, max, min, tiny,
    smallest_normal, resolution and dtype of a floating dtype (a complex one's real part)."""

    _fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny", "bits", "dtype")

    def __init__(self, *args, **kwargs) -> None:
        dt = _dtype_argument("finfo", args, dict(kwargs), get_default_dtype())
        if dt.is_complex:
            dt = dt.to_real()
        if dt.name not in _FLOAT_LIMITS:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        bits, eps, big, normal, resolution = _FLOAT_LIMITS[dt.name]
        for name, value in (("bits", bits), ("eps", eps), ("max", big), ("min", -big), ("tiny", normal),
                            ("smallest_normal", normal), ("resolution", resolution), ("dtype", dt.name)):
            object.__setattr__(self, name, value)


class iinfo(_Info):  # PyTorch's name
    """``torch.iinfo(type)``: bits, max, min and dtype of an integer dtype (bool refused)."""

    _fields = ("min", "max", "bits", "dtype")

    def __init__(self, *args, **kwargs) -> None:
        dt = _dtype_argument("iinfo", args, dict(kwargs), None)
        if dt is dtypes.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dt.kind != "i":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        bits = 8 * dt.itemsize
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt.is_signed else (0, (1 << bits) - 1)
        for name, value in (("bits", bits), ("max", hi), ("min", lo), ("dtype", dt.name)):
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        # C++ prints the limits through a double: %g, as finfo's
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__
