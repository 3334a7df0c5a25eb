"""``Tensor.untyped_storage()``, ``Tensor.storage()`` and ``Tensor.data_ptr()``: which memory a
tensor sits in, without the memory itself.

Programs use these to ask whether two tensors share memory (``a.data_ptr() == b.data_ptr()``,
``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()``), how big a storage is
(``nbytes()``), or where a view starts in it. scalargrad's memory is a ``storage.Store`` (the
tensors that share memory); each store gets, on first need, one ``UntypedStorage`` object (kept
in ``Store.handle``, so the same object comes back while the memory lives, as PyTorch's
preserved storage objects do) with a synthetic address: distinct stores get disjoint,
64-byte-aligned ranges that are never reused, so equality and overlap of addresses answer as in
PyTorch, and ``data_ptr()`` is the storage's address plus ``storage_offset() * element_size()``
as in PyTorch. The addresses themselves are not PyTorch's (nothing can be read through them): the
bytes are refused by name, as is anything needing real memory (``resize_``, sharing between
processes, pinning).
"""

from __future__ import annotations

import warnings

from .._base.errors import Unsupported
from .._base.meta_data import NO_DATA
from .._base.program_frame import program_stacklevel
from .factories import device
from .storage import store_of
from .tensor import Tensor
from .views import offset_of

__all__ = ["UntypedStorage", "TypedStorage", "install"]

_ALIGN = 64  # c10's CPU allocator aligns every allocation to 64 bytes
_next_address = [0x5A0000000000]  # where the next storage starts (a typical heap address; never reused)
_RAW = "it reads or writes a storage's raw bytes, which scalargrad's tensors, Python lists, do not have"


def _allocate(nbytes: int) -> int:
    """A fresh address for a storage of ``nbytes`` bytes (0 for an empty one, as PyTorch's)."""
    if nbytes == 0:
        return 0
    address = _next_address[0]
    _next_address[0] += (nbytes + 2 * _ALIGN - 1) // _ALIGN * _ALIGN  # at least one aligned gap after
    return address


class _CpuStorage:
    """What both storage classes say of their memory (CPU, never shared or pinned) and their
    refusal of the constructor and of the bytes, each under its own PyTorch name."""

    __slots__ = ()

    def __init__(self, *args, **kwargs) -> None:
        raise Unsupported(f"torch.{type(self).__name__}()", "a new storage is raw memory: make a tensor instead")

    @property
    def device(self):
        return device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    def is_shared(self) -> bool:
        """False: scalargrad's memory is never shared between processes (``share_memory_`` is refused)."""
        return False

    def is_pinned(self, device=None) -> bool:
        return False

    def __getattr__(self, name: str):
        # tolist, __getitem__'s bytes, copy_, fill_, resize_, share_memory_, pin_memory, _cdata...
        raise Unsupported(f"torch.{type(self).__name__}.{name}", _RAW)

    def __getitem__(self, index):
        raise Unsupported(f"torch.{type(self).__name__}.__getitem__", _RAW)

    def __setitem__(self, index, value):
        raise Unsupported(f"torch.{type(self).__name__}.__setitem__", _RAW)

    def __iter__(self):
        raise Unsupported(f"torch.{type(self).__name__}.__iter__", _RAW)


class UntypedStorage(_CpuStorage):
    """PyTorch's ``torch.UntypedStorage`` of a tensor's memory: its size in bytes and synthetic
    address; its bytes are refused by name."""

    __slots__ = ("_store", "_nbytes", "_address", "__weakref__")

    @classmethod
    def _of(cls, store, nbytes: int) -> UntypedStorage:
        self = object.__new__(cls)
        self._store = store
        self._nbytes = nbytes
        self._address = _allocate(nbytes)
        return self

    def data_ptr(self) -> int:
        """The storage's (synthetic) address: 0 when it is empty."""
        return self._address

    def nbytes(self) -> int:
        """The storage's size in bytes."""
        return self._nbytes

    def size(self) -> int:
        """The storage's size in bytes (an untyped storage's elements are bytes)."""
        return self._nbytes

    def __len__(self) -> int:
        return self._nbytes

    def element_size(self) -> int:
        return 1

    @property
    def is_sparse(self) -> bool:
        return False

    def untyped(self) -> UntypedStorage:
        return self

    def __repr__(self) -> str:
        raise Unsupported("torch.UntypedStorage.__repr__", "PyTorch prints the storage's raw bytes: " + _RAW)


class TypedStorage(_CpuStorage):
    """PyTorch's deprecated ``torch.TypedStorage`` (``Tensor.storage()``): the untyped storage
    seen as elements of the tensor's dtype. A new object each call, as PyTorch's."""

    __slots__ = ("_untyped", "dtype")

    def _storage(self) -> UntypedStorage:
        return self._untyped

    def untyped(self) -> UntypedStorage:
        return self._untyped

    def data_ptr(self) -> int:
        return self._untyped._address

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped._nbytes

    def size(self) -> int:
        """The number of elements of the storage's dtype."""
        return self._untyped._nbytes // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def __repr__(self) -> str:
        raise Unsupported("torch.TypedStorage.__repr__", "PyTorch prints the storage's raw elements: " + _RAW)


def untyped_storage(self: Tensor) -> UntypedStorage:
    """``t.untyped_storage()``: the storage of ``t``'s memory, the same object for every tensor
    sharing it (views, ``detach()``, ``.data``) while it lives."""
    if self._val is NO_DATA:
        raise Unsupported("Tensor.untyped_storage of a meta tensor", "a meta tensor has no memory")
    store = store_of(self)
    handle = store.handle
    if handle is None:
        handle = store.handle = UntypedStorage._of(store, len(store.data) * self._t.dtype.itemsize)
    return handle


def data_ptr(self: Tensor) -> int:
    """``t.data_ptr()``: the (synthetic) address of ``t``'s first element, its storage's address
    plus ``storage_offset() * element_size()``; 0 for a meta tensor or an empty storage."""
    if self._val is NO_DATA:
        return 0
    address = untyped_storage(self)._address
    return address + offset_of(self) * self._t.dtype.itemsize if address else 0


_warned_typed = [False]
_TYPED_DEPRECATED = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                     "only storage class. This should only matter to you if you are using storages directly.  To "
                     "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")


def storage(self: Tensor) -> TypedStorage:
    """``t.storage()``: a TypedStorage of ``t``'s dtype over its untyped storage, with PyTorch's
    deprecation warning the first time in a process (torch/storage.py's own once-flag)."""
    if not _warned_typed[0]:
        _warned_typed[0] = True
        warnings.warn(_TYPED_DEPRECATED, UserWarning, stacklevel=program_stacklevel())
    typed = object.__new__(TypedStorage)
    typed._untyped = untyped_storage(self)
    typed.dtype = self._t.dtype
    return typed


def install(method, function) -> None:
    method("untyped_storage", untyped_storage)
    method("data_ptr", data_ptr)
    method("const_data_ptr", data_ptr)
    method("mutable_data_ptr", data_ptr)
    method("storage", storage)
