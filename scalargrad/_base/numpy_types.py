"""NumPy's arrays and scalars, recognised without importing NumPy.

NumPy is an optional extra: scalargrad never imports it to *read* an array. An array or a
NumPy scalar is known by its class (``numpy.ndarray`` or ``numpy.generic`` among its bases) and
read through its own methods (``dtype``, ``shape``, ``tolist``, ``item``); only
``_tensor/numpy_bridge.py`` imports NumPy, to *build* an array (``Tensor.numpy()``).
"""

from __future__ import annotations

from . import dtypes
from .errors import Unsupported

__all__ = ["is_ndarray", "is_numpy_scalar", "numpy_dtype", "array_values", "scalar_value", "number",
           "numpy_type_name", "integer", "integer_or_double", "plain_arguments"]

# NumPy's dtype names that are scalargrad's dtypes (the same names as PyTorch's)
_DTYPES = {d.name: d for d in (dtypes.float64, dtypes.float32, dtypes.float16, dtypes.int64, dtypes.int32,
                               dtypes.int16, dtypes.int8, dtypes.uint8, dtypes.bool)}
# converted by PyTorch, not by scalargrad (which has no unsigned dtypes wider than uint8)
_PYTORCH_ONLY = ("uint16", "uint32", "uint64")
_CANNOT_CONVERT = ("can't convert np.ndarray of type numpy.{}. The only supported types are: float64, float32, "
                   "float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
                   "and bool.")


def _has_numpy_base(x, name: str) -> bool:
    for c in type(x).__mro__:
        if c.__name__ == name and c.__module__ == "numpy":
            return True
    return False


def is_ndarray(x) -> bool:
    """``x`` is a NumPy array (``numpy.ndarray`` or a subclass), by its class alone."""
    return x.__class__.__module__.startswith("numpy") and _has_numpy_base(x, "ndarray")


def is_numpy_scalar(x) -> bool:
    """``x`` is a NumPy scalar (``np.float32(1.5)``, ``np.int64(3)``, ``np.bool_(True)``)."""
    return x.__class__.__module__.startswith("numpy") and _has_numpy_base(x, "generic")


def numpy_type_name(x) -> str:
    """A value's type as PyTorch's messages name it (CPython's ``tp_name``): ``numpy.float64``
    for NumPy's types, the class's name for others (``list``)."""
    cls = type(x)
    return f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__


def numpy_dtype(x) -> dtypes.dtype:
    """The dtype PyTorch gives an array or NumPy scalar ``x`` (its own: float64 stays float64)."""
    name = x.dtype.name
    dt = _DTYPES.get(name)
    if dt is not None:
        return dt
    if name.startswith("complex"):
        raise Unsupported("complex numbers and complex dtypes")
    if name in _PYTORCH_ONLY:
        raise Unsupported(f"the dtype torch.{name}", "scalargrad has no unsigned dtypes wider than uint8")
    raise TypeError(_CANNOT_CONVERT.format(x.dtype.type.__name__))


def array_values(a) -> tuple:
    """(elements in row-major order, shape, dtype) of the array ``a``."""
    dt = numpy_dtype(a)
    return a.reshape(-1).tolist(), tuple(a.shape), dt


def scalar_value(x) -> tuple:
    """(Python number, dtype) of the NumPy scalar ``x``."""
    return x.item(), numpy_dtype(x)


def number(x):
    """The Python number PyTorch's argument parser takes a NumPy scalar for in ``tensor (op) x``
    (an integer as an int, a float or a bool as a float: ``int_tensor * np.bool_(True)`` is
    float32 in PyTorch), or None when ``x`` is not a NumPy scalar."""
    if not is_numpy_scalar(x):
        return None
    kind = x.dtype.kind
    if kind in "iu":
        return int(x)
    if kind in "fb":
        return float(x)
    return None


def integer(x):
    """The int an integer NumPy scalar stands for where PyTorch's parser takes an int (a dim, a
    size), or None."""
    if is_numpy_scalar(x) and x.dtype.kind in "iu":
        return int(x)
    return None


def integer_or_double(x):
    """The Python number PyTorch's parser reads a NumPy integer or float64 as where it takes a
    number it does not convert (``x[0] = np.float64(5)``; np.float32 is refused there), or None."""
    if isinstance(x, float) and is_numpy_scalar(x):
        return float(x)
    return integer(x)


def _plain(x):
    if is_numpy_scalar(x):
        return x.item()
    if x.__class__ in (tuple, list) and any(is_numpy_scalar(i) for i in x):
        return x.__class__(i.item() if is_numpy_scalar(i) else i for i in x)
    return x


def plain_arguments(args: tuple, kwargs: dict):
    """``(args, kwargs)`` with each NumPy scalar (alone or in a tuple or list of ints) as the Python
    number it holds, as PyTorch's argument parser reads them; None if there is none."""
    new_args = tuple(_plain(a) for a in args)
    new_kwargs = {k: _plain(v) for k, v in kwargs.items()}
    if all(a is b for a, b in zip(new_args, args)) and all(new_kwargs[k] is kwargs[k] for k in kwargs):
        return None
    return new_args, new_kwargs
