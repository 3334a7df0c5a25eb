"""NumPy arrays as data: ``torch.from_numpy``, ``Tensor.numpy()``, ``np.array(tensor)``
(``__array__``), NumPy's ufuncs on tensors (``__array_wrap__``), tensors indexed by arrays, and
the copy ``torch.tensor(array)`` makes (``array_tensor``, used by the factories and the legacy
constructors).

NumPy is an optional extra: arrays are recognised by their class (``_base/numpy_types``) and
read with their own methods; NumPy is imported only by ``to_numpy``, which must build an array.

Shared memory. PyTorch's ``from_numpy``, ``as_tensor`` and ``numpy()`` share one memory between
the tensor and the array. scalargrad's elements are Python numbers, so the two hold copies, kept
equal by one rule that is never silently wrong (``storage.share_with_array``): a write to the
tensor (or any tensor sharing its memory: a view, ``detach()``, an optimizer's step) is copied
into the array; a write to a small array (``np.add(n, 1, out=n)``) is taken by the next read of
any of those tensors (``storage.pull_arrays``); a large array is read-only while any of those
tensors lives (NumPy refuses a write to it, ``ValueError: assignment destination is read-only``),
and writable again, if it was, once they are all gone.
"""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.dtypes import TensorType, round_list
from .._base.numpy_types import array_values, is_ndarray, is_numpy_scalar, numpy_type_name
from .._base.program_frame import program_stacklevel
from .._base.warn_once import first_time
from .memory_formats import preserved_strides
from .meta import refuse_reading
from .operands import check_size
from .storage import share_with_array
from .tensor import Tensor, leaf

__all__ = ["array_tensor", "from_numpy", "to_numpy", "shared_tensor", "plain_index", "install"]

_NOT_WRITABLE = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing "
    "to this tensor will result in undefined behavior. You may want to copy the array to protect its data or make "
    "it writable before converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)")
_REQUIRES_GRAD = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
def _array_strides(a) -> tuple | None:
    """The array's strides in elements, as ``tensor_from_numpy`` reads them, or None: C order,
    or a layout kept in C order here (a negative stride, which PyTorch refuses with its own
    error, a zero stride of a broadcast dimension, a stride that is not a whole element)."""
    if a.flags.c_contiguous or not a.size:
        return None
    item = a.itemsize
    out = []
    for n, st in zip(a.shape, a.strides):
        if st < 0 or st % item or (st == 0 and n > 1):
            return None
        out.append(st // item)
    return tuple(out)


def array_tensor(a, dtype=None, shared: bool = False) -> Tensor:
    """A new tensor holding a copy of the array ``a``, of ``a``'s dtype or ``dtype``. Its
    strides are PyTorch's: the array's own when the tensor shares the array (``shared``:
    ``from_numpy``, ``x[:, 0]`` of an array keeps strides (15, 1)), else those ``.to(copy=True)``
    gives a copy (a transposed array's dense strides kept, a sliced one's made contiguous)."""
    values, shape, dt = array_values(a)
    check_size(shape)
    if dtype is not None and dtype is not dt:
        values = dtypes.cast_values(dt, dtype, values)
        dt = dtype
    else:
        values = round_list(dt, values)
    strides = _array_strides(a)
    if strides is not None and not shared:
        strides = preserved_strides(shape, strides, None)
    return leaf(values if shape else values[0], TensorType(dt, shape, strides))


def shared_tensor(a) -> Tensor:
    """A tensor of ``a``'s dtype sharing the array's memory (see the module docstring)."""
    if not a.flags.writeable and first_time("numpy_not_writable"):  # TORCH_WARN_ONCE
        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=program_stacklevel())
    t = array_tensor(a, shared=True)
    share_with_array(t, a)
    return t


def from_numpy(ndarray) -> Tensor:  # PyTorch's parameter name
    """``torch.from_numpy``: a tensor sharing the array's memory, of its dtype and shape."""
    if not is_ndarray(ndarray):
        raise TypeError(f"expected np.ndarray (got {numpy_type_name(ndarray)})")
    return shared_tensor(ndarray)


def to_numpy(self: Tensor, *, force: bool = False):
    """``Tensor.numpy()``: an array of the tensor's dtype and shape sharing its memory."""
    refuse_reading(self, "numpy")
    if self._rg and not force:
        raise RuntimeError(_REQUIRES_GRAD)
    dt = self._t.dtype
    if dt is dtypes.bfloat16:
        raise TypeError("Got unsupported ScalarType BFloat16")
    try:
        import numpy  # the one place scalargrad imports NumPy: building an array needs it
    except ImportError:
        raise RuntimeError("Numpy is not available") from None  # PyTorch's words

    values = self._val if self._t.ndim else [self._val]
    arr = numpy.array(values, dtype=dt.name).reshape(tuple(self._t.shape))
    share_with_array(self, arr)
    return arr


def _array(self: Tensor, dtype=None):
    """``np.array(tensor)``, ``np.asarray(tensor)``: ``numpy()``, converted to ``dtype`` if given
    (PyTorch's signature, without NumPy 2's ``copy``: NumPy warns about it as it does for PyTorch)."""
    arr = to_numpy(self)
    return arr if dtype is None else arr.astype(dtype, copy=False)


def _array_wrap(self: Tensor, array):
    """A NumPy ufunc's result on tensors (``np.sin(t)``, ``t * array``) as a tensor sharing it;
    a bool result as uint8, as PyTorch's ``__array_wrap__`` does."""
    if array.dtype.name == "bool":
        array = array.astype("uint8")
    return shared_tensor(array)


def plain_index(index):
    """An index with NumPy's arrays and scalars, and Python's ranges, as PyTorch reads them: an
    int or bool array is a tensor index, a NumPy integer an int, a range the list of its ints (a
    sequence of ints, as ``x[range(n), y]`` in tutorials)."""
    if isinstance(index, tuple):
        if any(is_ndarray(i) or is_numpy_scalar(i) or isinstance(i, range) for i in index):
            return tuple(plain_index(i) for i in index)
        return index
    if isinstance(index, range):
        return list(index)
    if is_ndarray(index):
        return array_tensor(index)
    if is_numpy_scalar(index):
        return index.item()
    return index


def install(method, function) -> None:
    """``numpy``, ``__array__``, ``__array_wrap__``, ``__array_priority__``, ``from_numpy``."""
    method("numpy", to_numpy)
    method("__array__", _array)
    method("__array_wrap__", _array_wrap)
    Tensor.__array_priority__ = 1000  # NumPy leaves ``array (op) tensor`` to the tensor, as for PyTorch's
    function("from_numpy", from_numpy, checked=False)
