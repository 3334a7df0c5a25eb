"""A tensor's attributes and Python protocols: ``repr``, iteration, ``tolist``, ``copy``/``deepcopy``,
the ``.grad`` and ``.data`` setters, ``detach_``, and what a tensor answers about itself (size,
stride, contiguity, device, layout...), as PyTorch's.
"""

from __future__ import annotations

import copy as _copy
import weakref

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.formatting import tensor_repr
from .._base.layout import is_contiguous, numel
from .._base.meta_data import own_copy
from .factories import device, strided, uninitialised, use_device
from .joins import unbind
from .make_hooks import batch_show
from .memory_formats import channels_last, check_format, contiguous_format, is_contiguous_as, memory_format
from .meta import is_meta, meta_repr, refuse_reading
from .operands import check_size
from .storage import alias, dual_memory, snapshot, write
from .tensor import Tensor, defaults, ext, impl, leaf, next_seq
from .views import norm_dim, offset_of, sizes_arg

__all__ = ["deepcopy", "install"]


def _size_dim(t: Tensor, dim, what: str) -> int:
    """The dim of ``size(dim)``/``stride(dim)``: a 0-dim tensor has none to give."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{what}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    if not t._t.ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return norm_dim(dim, t._t.ndim)


def _grad_dtype(self):
    if self._op is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self._t.dtype


def _set_grad_dtype(self, value) -> None:
    """``t.grad_dtype = d``: PyTorch's checks; the tensor's own dtype (the default) is kept, any
    other value (None too) is refused by name, as the engine does not cast gradients to it."""
    if value is not None and not isinstance(value, dtypes.dtype):
        raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
    if self._op is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not self._t.dtype:
        raise Unsupported("setting Tensor.grad_dtype to another dtype or None (the autograd engine casting or "
                          "keeping gradients of another dtype)")


def _iter(self):
    if not self._t.ndim:
        raise TypeError("iteration over a 0-d tensor")
    return iter(unbind(self, 0))


def _nest(vals: list, shape: tuple):
    if len(shape) <= 1:
        return list(vals)
    step = numel(shape[1:])
    return [_nest(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _tolist(self):
    refuse_reading(self, "tolist")
    if not self._t.ndim:
        return self._val
    return _nest(self._val, tuple(self._t.shape))


def deepcopy(self, memo: dict):
    # copy.deepcopy (of a tensor, or of a Module holding buffers): leaves only, as PyTorch
    if self._op is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
            "the moment.  If you were attempting to deepcopy a module, this may be because of a "
            "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    new = memo[id(self)] = leaf(own_copy(self._val, self._t.ndim), self._t, self._rg, type(self))
    g = self._grad
    if g is not None:
        new._g = deepcopy(g, memo)
    attrs = getattr(self, "__dict__", None)
    if attrs:
        new.__dict__.update(_copy.deepcopy(attrs, memo))
    return new


def _copy_tensor(self):
    # copy.copy: a new tensor object over the same memory and graph node
    new = object.__new__(type(self))
    for s in ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_g", "_ext", "_s"):
        setattr(new, s, getattr(self, s))
    return new


def _detach_(self):
    """The tensor becomes a leaf that does not require grad. Nodes made from it before keep
    consuming the node it was, as PyTorch's keep their edge to its grad_fn: a snapshot takes
    that node over (with what was registered on it) and the tensor keeps it in
    ``_ext.detached``, stamped so that the engine routes those consumers to it."""
    if self._s is not None and self._s.base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    if self._op is not None:
        old = snapshot(self)
        self._op = None
        self._a = self._b = self._c = None
        self._rg = False
        self._seq = next_seq()
        self._ext = None
        ext(self).detached = (old, self._seq)
        return self
    self._op = None
    self._a = None
    self._b = None
    self._c = None
    self._rg = False
    self._ext = None
    return self


def _wrap_grad(t: Tensor, g) -> Tensor:
    return leaf(g, t._t if t._t.contiguous else TensorType(t._t.dtype, t._t.shape))


def _set_grad(t: Tensor, g) -> None:
    if g is None:
        t._g = None
        return
    if not isinstance(g, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(g).__name__}")
    if is_meta(g) != is_meta(t):
        where = ("'meta'", "'cpu'") if is_meta(g) else ("'cpu'", "'meta'")
        raise RuntimeError(f"attempting to assign a gradient with device type {where[0]} to a tensor with device "
                           f"type {where[1]}. Please ensure that the gradient and the tensor are on the same device")
    if tuple(g._t.shape) != tuple(t._t.shape):
        raise RuntimeError(f"attempting to assign a gradient of size '{list(g._t.shape)}' to a tensor of size "
                           f"'{list(t._t.shape)}'. Please ensure that the gradient and the tensor are the same size")
    if g._t.dtype is not t._t.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{g._t.dtype.c_name}' to a tensor with grad_dtype "
            f"'{t._t.dtype.short}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's "
            "dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
            "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
            "downstream systems that assume they match.")
    t._g = g


def _repr(t: Tensor) -> str:
    batch_show(t)
    name = None
    try:
        if t._op is not None and isinstance(getattr(t._c, "error", None), str):
            name = "Invalid"  # a view PyTorch refuses to use (storage.refused_view)
        elif t.grad_fn is not None:
            name = type(t.grad_fn).__name__  # PyTorch prints the class name (CopySlices, not its name())
    except RuntimeError:  # a view whose history PyTorch refuses to regenerate (storage.view_history)
        name = "Invalid"
    if is_meta(t):
        return meta_repr(t, name, defaults["dtype"])
    vals = t._val if t._t.ndim else [t._val]
    dual = dual_memory()
    tangent = None if dual is None else dual[2](t)
    return tensor_repr(vals, t._t.shape, t._t.dtype, requires_grad=t._rg, grad_fn=name,
                       default_dtype=defaults["dtype"], tangent=None if tangent is None else format(tangent, ""))


def _set_data(t: Tensor, new) -> None:
    """``t.data = new``: ``t`` takes ``new``'s memory, shape and dtype, outside the graph; its
    own version counter stays (PyTorch's set_data)."""
    if not isinstance(new, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
    ts, ns = t._s, new._s
    if ts is not None and ns is not None and ts.store is not None and ts.store is ns.store \
            and ts.index == ns.index and t._t is new._t:
        return  # ``t.data += 1``: the change went through t's own memory already
    counter = ts.ver if ts is not None else None
    t._val = list(new._val) if new._t.ndim else new._val
    t._t = new._t
    t._s = None
    alias(new, t, share_version=False)
    if counter is not None:
        t._s.ver = counter


impl.repr = _repr
impl.wrap_grad = _wrap_grad
impl.set_grad = _set_grad
impl.set_data = _set_data


def _swap(shape, strides, a: int, b: int) -> int:
    """Whether dim ``a`` goes inside dim ``b`` (1), outside (-1) or either (0), as
    torch._prims_common orders an elementwise result's dims."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0

    def ge(x, y):
        return y == 0 or (x != 0 and (x >= y or x % y == 0))

    if sa == sb:
        return 0 if ge(shape[b], shape[a]) else 1
    if ge(sb, sa):
        return -1
    return 1 if ge(sa, sb) else 0


def _is_contiguous(self, memory_format=None) -> bool:
    """``Tensor.is_contiguous(memory_format=torch.contiguous_format)``, channels-last too."""
    fmt = check_format(memory_format, "is_contiguous")
    return (self._t.contiguous and fmt in (None, contiguous_format)) or is_contiguous_as(self._t.shape,
                                                                                          self._t.strides, fmt)


_DIM_ORDER_TYPE = "The ambiguity_check argument must be a bool or a list of memory formats."


def dim_order(self, *, ambiguity_check=False) -> tuple:
    """The dims from the outermost in memory to the innermost (PyTorch's ``Tensor.dim_order``:
    an insertion sort by stride, contiguous and channels-last layouts first). ``ambiguity_check``
    True (or a list of memory formats) raises RuntimeError where the order is not unique (a size-1
    dim or two equal strides) unless exactly one listed format fits, and where the sort cannot
    order two neighbours strictly, as torch/_tensor.py does."""
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or not all(isinstance(f, memory_format) for f in ambiguity_check):
            raise TypeError(_DIM_ORDER_TYPE)
    shape, strides = tuple(self._t.shape), tuple(self._t.strides)
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    several = any(a == b for a, b in zip(strides, strides[1:])) or any(n == 1 for n in shape)
    if check and several and sum(bool(_is_contiguous(self, f)) for f in formats) != 1:
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    perm, sorted_ = _dim_order_perm(shape, strides)
    # PyTorch verifies the sorted order only when ambiguity_check is truthy (an empty list is not)
    if ambiguity_check and sorted_ is not None and any(_swap(shape, strides, sorted_[i], sorted_[i + 1]) != -1
                                                       for i in range(len(sorted_) - 1)):
        raise RuntimeError("The tensor does not have unique dim order.")
    return perm


def _dim_order_perm(shape: tuple, strides: tuple) -> tuple:
    """(dim order, the back-to-front order the sort made or None where a fast path answered)."""
    nd = len(shape)
    if nd < 2:
        return tuple(range(nd)), None
    cont, cl = is_contiguous(shape, strides), is_contiguous_as(shape, strides, channels_last)
    if cont and not cl:
        return tuple(range(nd)), None
    if cl and not cont:
        return (0, *range(2, nd), 1), None
    perm = list(reversed(range(nd)))
    for i in range(1, nd):
        j = i
        for k in reversed(range(i)):
            c = _swap(shape, strides, perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    return tuple(reversed(perm)), perm


# what a lone tensor's memory still holds past its elements after resize_ made it smaller (PyTorch
# keeps the storage, so growing it again shows those numbers): id -> (weak reference, elements)
_TAILS: dict = {}


def _tail(t: Tensor) -> list:
    entry = _TAILS.pop(id(t), None)
    return entry[1] if entry is not None and entry[0]() is t else []


def _memory_order(t: Tensor) -> list:
    """``t``'s elements in the order they lie in memory (a lone dense tensor)."""
    vals = t._val if t._t.ndim else [t._val]
    if t._t.contiguous or is_contiguous(t._t.shape, t._t.strides):
        return list(vals)
    shape, strides = t._t.shape, t._t.strides
    pos = [0]
    for n, st in zip(shape, strides):
        pos = [p + i * st for p in pos for i in range(n)]
    return [v for _, v in sorted(zip(pos, vals), key=lambda pv: pv[0])]


def resize_(self: Tensor, *sizes, size=None, memory_format=None) -> Tensor:
    """``resize_``: ``self`` takes the contiguous shape ``sizes`` over its memory: its first
    elements in memory order; growing shows what the memory held (what an earlier resize_ left,
    then uninitialised memory). A tensor that requires grad is refused as PyTorch refuses it; a
    tensor sharing its memory (a view, ``.data``, ``detach()``) is refused by name."""
    new_shape = sizes_arg(sizes if size is None else (size,), "resize_")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in new_shape):
        if 0 in new_shape:  # c10 multiplies the sizes as unsigned: no overflow, a tensor PyTorch cannot show
            raise Unsupported("Tensor.resize_ with a negative size")
        raise RuntimeError("numel: integer multiplication overflow")
    n = numel(new_shape)
    check_size(new_shape)
    dt = self._t.dtype
    s = self._s
    if s is not None and s.store is not None:
        return _resize_shared(self, tuple(new_shape), n)
    data = _memory_order(self) + _tail(self)
    if n > len(data):
        more = uninitialised(n - len(data), dt)
        data += more if more is not None else [dt.round(0)] * (n - len(data))
    if len(data) > n:
        key = id(self)
        _TAILS[key] = (weakref.ref(self, lambda _r, k=key: _TAILS.pop(k, None)), data[n:])
    self._t = TensorType(dt, tuple(new_shape))
    self._val = [None] * n if new_shape else None
    write(self, data[:n] if new_shape else data[0])
    return self


def _resize_shared(t: Tensor, shape: tuple, n: int) -> Tensor:
    """``resize_`` of a tensor sharing its memory (a view, ``.data``, ``detach()``): its first
    ``n`` elements, which stay shared; more than it has, or a non-contiguous one, is refused."""
    if n > t._t.numel or not (t._t.contiguous or is_contiguous(t._t.shape, t._t.strides)):
        raise Unsupported("Tensor.resize_ of a tensor that shares its memory (a view, .data or detach()) to more "
                          "elements or from a non-contiguous layout")
    s = t._s
    data = s.store.data
    idx = s.index if s.index is not None else list(range(t._t.numel))
    s.index = idx[:n]
    t._t = TensorType(t._t.dtype, shape)
    t._val = [data[i] for i in s.index] if shape else data[s.index[0]]
    write(t, t._val)
    return t


def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What ``load_state_dict`` swaps into this parameter or buffer when swapping is on:
    ``other`` detached (``assign``), else this tensor after ``copy_(other)``, detached."""
    return other.detach() if assign else self.copy_(other).detach()


def install(method, function) -> None:
    """Python's protocols (iteration, copies, indexing is ``indexing.py``'s) and the metadata."""
    method("__iter__", _iter)
    method("tolist", _tolist)
    method("__deepcopy__", deepcopy)
    method("__copy__", _copy_tensor)
    method("detach_", _detach_)
    method("is_contiguous", _is_contiguous)
    method("stride", lambda self, dim=None: self._t.strides if dim is None else
           self._t.strides[_size_dim(self, dim, "stride")])
    method("storage_offset", lambda self: offset_of(self))
    method("dim_order", dim_order)
    method("module_load", module_load)
    method("resize_", resize_)
    method("resize_as_", lambda self, the_template, *, memory_format=None: resize_(self, the_template._t.shape))
    method("element_size", lambda self: self._t.dtype.itemsize)
    # the bytes the tensor's elements take (a view's or an expanded tensor's counted as if its own)
    Tensor.itemsize = property(lambda self: self._t.dtype.itemsize)
    Tensor.nbytes = property(lambda self: self._t.numel * self._t.dtype.itemsize)
    method("size", lambda self, dim=None: self._t.shape if dim is None else
           self._t.shape[_size_dim(self, dim, "size")])
    method("is_floating_point", lambda self: self._t.dtype.is_floating_point)
    method("is_complex", lambda self: False)
    # a real tensor has no conjugate or negative bit: conj, conj_physical, resolve_conj and resolve_neg
    # return the tensor itself (ATen's early return for non-complex tensors), no node recorded
    for name in ("conj", "conj_physical", "resolve_conj", "resolve_neg"):
        method(name, lambda self: self)
        function(name, lambda input: input)
    function("conj_physical", lambda input, *, out=None: input)  # out= is refused by name
    for name in ("is_conj", "is_neg"):
        method(name, lambda self: False)
        function(name, lambda input: False)
    method("_is_view", lambda self: self._s is not None and self._s.base is not None)
    Tensor._base = property(lambda self: None if self._s is None else self._s.base)
    Tensor.is_cuda = property(lambda self: False)
    Tensor.is_sparse = property(lambda self: False)
    Tensor.is_quantized = property(lambda self: False)
    Tensor.is_meta = property(is_meta)
    Tensor.layout = property(lambda self: strided)
    Tensor.device = property(lambda self: device("meta" if is_meta(self) else "cpu"))
    Tensor.output_nr = property(lambda self: self._ext.pick[1] if self._ext is not None and self._ext.pick else 0)
    Tensor.grad_dtype = property(_grad_dtype, _set_grad_dtype)
    method("get_device", lambda self: -1)
    method("cpu", lambda self, memory_format=None: refuse_reading(self, "cpu") or self)
    method("cuda", lambda self, *a, **k: use_device("cuda"))
    for name, fn in (("numel", lambda input: input._t.numel), ("is_tensor", lambda obj: isinstance(obj, Tensor)),
                     ("is_floating_point", lambda input: input._t.dtype.is_floating_point),
                     ("is_complex", lambda input: input._t.dtype.is_complex)):
        function(name, fn)
