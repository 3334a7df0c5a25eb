"""``nn.Parameter``: a tensor that a Module registers as one of its parameters.

A Parameter is a leaf tensor of its own class, so that ``Module.__setattr__`` can tell it from a
plain tensor. Like PyTorch's ``_make_subclass``, it shares the memory (and version counter) of
the tensor it is made from, and requires grad by default, even under ``no_grad``.
"""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_inference_mode_enabled
from .._base.meta_data import own_copy
from .._tensor.attributes import deepcopy as _deepcopy
from .._tensor.factories import empty
from .._tensor.storage import alias
from .._tensor.tensor import Tensor, defaults, leaf
from .._tensor.views import offset_of

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin",
           "is_lazy"]

_NOT_FLOAT = "Only Tensors of floating point and complex dtype can require gradients"


class Parameter(Tensor):
    """``Parameter(data=None, requires_grad=True)``: a module parameter sharing ``data``'s memory.

    The result is always a leaf (a Parameter made from a computed tensor starts a new graph);
    arithmetic on it gives plain tensors. Its repr is ``Parameter containing:`` followed by
    the tensor's repr, and so is its f-string formatting. Without data it is an empty tensor.
    """

    __slots__ = ("__dict__",)

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = leaf([], TensorType(defaults["dtype"], (0,)))
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if requires_grad.__class__ is not bool:
            raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if requires_grad and data._t.dtype.is_complex:
            raise Unsupported(f"nn.Parameter of a {data._t.dtype!r} tensor (autograd of complex numbers)")
        if requires_grad and not data._t.dtype.is_floating_point:
            raise RuntimeError(_NOT_FLOAT)
        if requires_grad and data.is_inference() and not is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        p = leaf(own_copy(data._val, data._t.ndim), data._t, requires_grad, cls)
        return alias(data, p)

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # built by __new__

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # PyTorch formats only plain tensors as numbers; a Parameter prints its repr
        if spec:
            raise TypeError("unsupported format string passed to Parameter.__format__")
        return repr(self)

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = _deepcopy(self, memo)
        result._g = None  # the numbers only: .grad is not copied, as in PyTorch
        return result


_UNINITIALIZED = ("Attempted to use an uninitialized parameter in {}. This error happens when you are using a "
                  "`LazyModule` or explicitly manipulating `torch.nn.parameter.{}` objects. When using LazyModules "
                  "Call `forward` with a dummy batch to initialize the parameters before calling torch functions")
# the methods PyTorch lets through on an uninitialized parameter (its ``_allowed_methods``)
_ALLOWED = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char", "short",
                      "int", "long", "cuda", "cpu", "to", "get_device", "materialize", "share_memory_"})


class _NoElements(list):
    """The elements of an uninitialized parameter or buffer: any op that reads them raises
    PyTorch's ValueError (an op never computes on the placeholder's empty storage)."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise ValueError(_UNINITIALIZED.format("a torch function", "UninitializedParameter"))

    __iter__ = __len__ = __getitem__ = __setitem__ = __reversed__ = __contains__ = __copy__ = _refuse
    copy = index = count = _refuse


def _refused_operator(name: str):
    def refuse(self, *args, **kwargs):
        raise ValueError(_UNINITIALIZED.format(f"<method '{name}' of 'torch._C.TensorBase' objects>",
                                               type(self).__name__))

    refuse.__name__ = name
    return refuse


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: no elements and no shape yet,
    until ``materialize(shape)`` gives them storage and turns them into their final class (the
    same object, as PyTorch's ``self.__class__ = self.cls_to_become``). Until then every method
    but PyTorch's few allowed ones, every operator and every function given it raises PyTorch's
    ValueError ("Attempted to use an uninitialized parameter"): nothing computes on it."""

    __slots__ = ()
    cls_to_become: type

    def __getattribute__(self, name: str):
        if name[:1] != "_" and name not in _ALLOWED:
            attr = getattr(type(self), name, None)
            if callable(attr) and not isinstance(attr, type):
                return _refused_operator(name).__get__(self)
        return object.__getattribute__(self, name)

    for _name in ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
                  "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__",
                  "__mod__", "__rmod__", "__pow__", "__rpow__", "__ipow__", "__matmul__", "__rmatmul__", "__neg__",
                  "__pos__", "__abs__", "__invert__", "__and__", "__or__", "__xor__", "__lt__", "__le__", "__gt__",
                  "__ge__", "__eq__", "__ne__", "__len__", "__iter__", "__getitem__", "__setitem__", "__bool__",
                  "__float__", "__int__", "__index__", "__complex__", "__array__", "__format__", "__reversed__",
                  "__contains__"):
        locals()[_name] = _refused_operator(_name)
    del _name
    __hash__ = object.__hash__

    # dtype casts keep it uninitialized, of the new dtype (``LazyLinear(2).double()``, Module._apply)
    def _cast(self, dtype):
        if dtype is None or dtype is self._t.dtype or not dtype.is_floating_point:
            return self
        return type(self)(self._rg, None, dtype)

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif a is not None and not isinstance(a, bool) and not str(a).startswith("cpu"):
                leaf([], self._t).to(a)  # PyTorch's error for the device
        device = kwargs.get("device")
        if device is not None and not str(device).startswith("cpu"):
            leaf([], self._t).to(device)
        return self._cast(dtype)

    def half(self, memory_format=None):
        return self._cast(dtypes.float16)

    def float(self, memory_format=None):
        return self._cast(dtypes.float32)

    def double(self, memory_format=None):
        return self._cast(dtypes.float64)

    def cpu(self, memory_format=None):
        return self

    @property
    def data(self) -> Tensor:
        """An empty tensor of its dtype, as PyTorch's ``.data`` of an uninitialized parameter."""
        return leaf([], self._t)

    @data.setter
    def data(self, new) -> None:
        if is_lazy(new):  # a cast of it (Module._apply): only the dtype changes
            object.__setattr__(self, "_t", new._t)
        else:
            Tensor.data.fset(self, new)

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Become a ``cls_to_become`` of ``shape`` (uninitialised numbers, as ``torch.empty``)."""
        self.data = empty(shape, dtype=dtype if dtype is not None else self._t.dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
                           "in `load_state_dict` when trying to load an uninitialized parameter into an initialized "
                           "one. Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module before its first forward: ``<UninitializedParameter>``."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        data = leaf([], TensorType(dtype if dtype is not None else defaults["dtype"], (0,)))
        self = Parameter.__new__(cls, data, requires_grad)
        object.__setattr__(self, "_val", _NoElements())
        return self

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass  # built by __new__

    def __deepcopy__(self, memo: dict):
        if id(self) in memo:
            return memo[id(self)]
        result = memo[id(self)] = type(self)(self.requires_grad, None, self._t.dtype)
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module before its first forward: ``<UninitializedBuffer>``."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        return leaf(_NoElements(), TensorType(dtype if dtype is not None else defaults["dtype"], (0,)), requires_grad,
                    cls)

    def __init__(self, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True) -> None:
        pass  # built by __new__


def is_lazy(param) -> bool:
    """Whether ``param`` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` holds for the tensors ``Buffer(...)`` made, which are plain
    tensors (PyTorch 2.x flags them with ``_is_buffer`` instead of giving them a class)."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


for _cls in (Parameter, UninitializedParameter, UninitializedBuffer, UninitializedTensorMixin):
    _cls.__module__ = "torch.nn.parameter"  # <class 'torch.nn.parameter.Parameter'>


class _FlaggedTensor(Tensor):
    """A plain tensor that can carry attributes (``persistent``, ``_is_buffer``): what
    ``nn.Buffer`` returns. It prints and computes as a ``Tensor``."""

    __slots__ = ("__dict__",)


_FlaggedTensor.__name__ = _FlaggedTensor.__qualname__ = "Tensor"
_FlaggedTensor.__module__ = Tensor.__module__


class Buffer(Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(data=None, *, persistent=True)``: ``data.detach()`` (sharing its memory and
    version counter, keeping its ``requires_grad``), flagged so that assigning it to a Module
    attribute registers a buffer (PyTorch 2.x). Without data it is an empty float tensor."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            data = leaf([], TensorType(defaults["dtype"], (0,)))
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        b = leaf(list(data._val) if data._t.ndim else data._val, data._t, data._rg, _FlaggedTensor)
        alias(data, b, offset=offset_of(data))
        b.persistent = persistent
        b._is_buffer = True
        return b
