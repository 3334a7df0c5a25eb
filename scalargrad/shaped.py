"""ShapedTensor: a multi-element tensor, held as a container of scalar nodes.

scalargrad's graph is scalar-only: every node is one number (a ``Value``), so every gradient
can still be proved with SymPy. A ``ShapedTensor`` is what a PyTorch program sees as a tensor
of several elements (``torch.rand(3, 1)``, ``x @ w``...): a shape, a dtype, and one element
``Value`` per position, in row-major order. Every operation on it is carried out element by
element with the scalar machinery (``value.make`` and the operators on Values), so the engine
runs the same sweep as for any scalar graph; a result of exactly one element is a plain
``Value`` with the right shape (``t.sum()``, ``t[0, 0]``, ``v @ v``).

Seen from outside it behaves as PyTorch 2.13's tensor:

* autograd: ``.grad`` (a tensor of the elements' gradients), ``requires_grad_``, ``is_leaf``,
  ``grad_fn`` (the name of the op that made the whole tensor, e.g. ``AddBackward0``),
  ``retain_grad``, ``detach``/``.data`` (sharing the elements' storage), ``backward(gradient=)``,
  in-place ops with PyTorch's rules, and ``register_hook``, which sees the whole gradient
  tensor once (through ``autograd.groups``);
* broadcasting, type promotion (dimensioned tensors over 0-dim tensors over Python numbers),
  indexing with ints, slices, None and ``...`` (views with Select/Slice/Alias names), and the
  shape operations view/reshape/expand/squeeze/unsqueeze/flatten/t/T/transpose/permute;
* memory layout (``layout``): strides are tracked as PyTorch would have them, so contiguity,
  ``view`` errors and grad_fn names (``ViewBackward0`` vs ``UnsafeViewBackward0``) match;
* float32 bit-exactness: elementwise results are the scalar ops' (exact); ``sum``/``mean``
  and the gradients of broadcast operands add in the order of PyTorch's CPU sum kernel, and
  matrix products (``products.py``) follow MKL's order where it is known (``kernel_order``).

Limits: at most ``MAX_ELEMENTS`` elements per tensor (each element is a Python object and a
graph node); advanced indexing (tensor or list indices), batched matmul of two 3-D tensors,
and in-place operations on views of tensors that require grad are refused with a clear error.
Known differences from PyTorch: elementwise sqrt/exp/log/tanh/sin/cos of multi-element float32
tensors run MKL/SLEEF vector kernels in PyTorch, which are not correctly rounded (the scalar
ops are), so about 1% of such elements differ in the last bit; when a broadcast result feeds
``sum()`` directly, PyTorch adds the broadcast operand's gradient over an expanded (stride-0)
gradient, in another order than the materialized one scalargrad's fan-out follows (8 or more
positions; see tests/test_shaped.py); views taken with grad copy their elements' values, so a
later in-place change of the base (under no_grad) does not show through them.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence

from . import dtypes, ops
from .autograd.grad_mode import _state as _grad_state
from .autograd.graph import AccumulateGradFace
from .dtypes import TensorType, promote_types
from .formatting import tensor_repr
from .kernel_order import sum_program
from .layout import (
    contiguous_strides,
    elementwise_strides,
    is_contiguous,
    is_non_overlapping_and_dense,
    numel,
    view_strides,
)
from .value import (
    LEAF_INPLACE,
    NON_LEAF_GRAD_WARNING,
    DataView,
    Value,
    _defaults,
    _ext,
    _inplace,
    leaf,
    make,
)

__all__ = ["ShapedTensor", "MAX_ELEMENTS", "cat", "stack", "from_data", "filled", "from_values", "flatten_tensors"]

MAX_ELEMENTS = 4096
"""The largest tensor scalargrad builds: each element is a Python object and a graph node,
so bigger tensors would be slow and memory-hungry without verifying anything more."""

_TOO_BIG = ("scalargrad keeps every tensor element as its own Python graph node, so it refuses "
            "tensors of more than {limit} elements; this one would have {n} (shape {shape}). "
            "Verify the computation on a smaller tensor.")
_VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."
_T_WARNING = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
              "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
              "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
              "tensor.")
_warned = set()  # PyTorch's TORCH_WARN_ONCE warnings already given

_SCALAR_TYPES: dict = {}


def _scalar_t(dt) -> TensorType:
    t = _SCALAR_TYPES.get(dt)
    if t is None:
        t = _SCALAR_TYPES[dt] = TensorType(dt, ())
    return t


def check_size(shape: Sequence[int]) -> int:
    """The number of elements of ``shape``, or a clear error when scalargrad refuses it."""
    n = numel(shape)
    if n > MAX_ELEMENTS:
        raise RuntimeError(_TOO_BIG.format(limit=MAX_ELEMENTS, n=n, shape=list(shape)))
    return n


def _gather(shape: Sequence[int], strides: Sequence[int], offset: int) -> list:
    """offset + sum(index * stride) over the positions of ``shape``, in row-major order."""
    idx = [offset]
    for size, st in zip(shape, strides):
        idx = [base + i * st for base in idx for i in range(size)]
    return idx


def _norm_dim(dim: int, ndim: int) -> int:
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % max(ndim, 1)


def _norm_dims(dim, ndim: int) -> tuple:
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    out = []
    for d in dims:
        d = _norm_dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out))


def _sizes(args, what: str) -> tuple:
    """Sizes given as ``f(2, 3)``, ``f((2, 3))`` or ``f(torch.Size([2, 3]))``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    out = []
    for s in args:
        if isinstance(s, Value):
            s = int(s)
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{what}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__}")
        out.append(s)
    return tuple(out)


# ---------------------------------------------------------------- building results


def _new(elems, shape: tuple, dtype, strides: tuple | None = None, offset: int = 0, srcs: tuple = (),
         view_of=None, cls: type | None = None) -> ShapedTensor:
    check_size(shape)
    t = object.__new__(cls or ShapedTensor)
    t._elems = tuple(elems)
    t._t = TensorType(dtype, shape)
    t._strides = contiguous_strides(shape) if strides is None else tuple(strides)
    t._offset = offset
    t._srcs = srcs
    t._view_of = view_of
    t._name = None
    t._group = None
    t._node = None
    t._gradt = None
    t._erg = False
    t._in = ()
    t._c = None
    t._seq = 0
    t._ext = None
    return t


def _result(elems: list, shape: tuple, dtype, strides: tuple | None = None, offset: int = 0,
            srcs: tuple = (), view_of=None) -> Value:
    """The tensor made of these freshly made elements: a ShapedTensor, or the one element
    itself (typed with the full shape) when there is exactly one."""
    shape = tuple(shape)
    if numel(shape) == 1:
        e = elems[0]
        e._t = TensorType(dtype, shape)
        return e
    return _new(elems, shape, dtype, strides, offset, srcs, view_of)


def _fresh(r: Value) -> Value:
    # an element of a multi-element tensor is 0-dim, whatever its operands' one-element shapes
    if r._t.shape:
        r._t = _scalar_t(r._t.dtype)
    return r


def _parts(x: Value) -> tuple:
    """(shape, strides, elements) of a tensor operand."""
    if isinstance(x, ShapedTensor):
        return x._t.shape, x._strides, x._elems
    return x._t.shape, contiguous_strides(x._t.shape), (x,)


def _alias_elem(e: Value, op, t: TensorType) -> Value:
    """A view element: a graph node when recording and ``e`` requires grad, otherwise a leaf
    sharing ``e``'s storage (as a PyTorch view does)."""
    if e._rg and _grad_state.enabled:
        return make(op, t, e._val, (e,))
    d = DataView(e)
    d._t = t
    return d


def _is_number(x) -> bool:
    return x.__class__ in (int, float, bool)


# ---------------------------------------------------------------- type promotion and broadcasting


def _promote_all(dts):
    out = None
    for d in dts:
        out = d if out is None else promote_types(out, d)
    return out


def _combine(higher, lower):
    """c10's ``combine_categories``: a lower-priority group only counts when of a higher kind."""
    if higher is None:
        return lower
    if higher.is_floating_point:
        return higher
    if higher is dtypes.bool or (lower is not None and lower.is_floating_point):
        return higher if lower is None else promote_types(higher, lower)
    return higher


def result_dtype(operands: Sequence) -> dtypes.dtype:
    """PyTorch's ``result_type``: dimensioned tensors, then 0-dim tensors, then Python numbers."""
    dim, zero, wrapped = [], [], []
    for x in operands:
        if isinstance(x, Value):
            (dim if x._t.shape else zero).append(x._t.dtype)
        elif x.__class__ is bool:
            wrapped.append(dtypes.bool)
        elif x.__class__ is int:
            wrapped.append(dtypes.int64)
        else:
            wrapped.append(_defaults["dtype"])
    return _combine(_promote_all(dim), _combine(_promote_all(zero), _promote_all(wrapped)))


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple:
    """The broadcast of two shapes, with PyTorch's message when they do not broadcast."""
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        off = ndim - 1 - i
        da, db = len(a) - 1 - off, len(b) - 1 - off
        sa = a[da] if da >= 0 else 1
        sb = b[db] if db >= 0 else 1
        if not (sa == sb or sa == 1 or sb == 1):
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                               f"non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def _positions(shape: Sequence[int], out_shape: Sequence[int]) -> list:
    """For each position of ``out_shape``, the flat index of the element of ``shape`` broadcast there."""
    lead = len(out_shape) - len(shape)
    cs = contiguous_strides(shape)
    bs = [0] * len(out_shape)
    for i, s in enumerate(shape):
        bs[lead + i] = 0 if s == 1 else cs[i]
    return _gather(out_shape, bs, 0)


def _spread(elems: Sequence, shape: tuple, out_shape: tuple, grad_strides: tuple, fresh: bool) -> list:
    """The elements of a tensor of ``shape`` broadcast to ``out_shape``, one Value per position.

    An element that requires grad and lands on several positions gets a fan-out of identity
    (``Expand``) nodes, so that the engine adds the positions' gradients in the order of
    PyTorch's ``sum_to`` (its CPU sum kernel over a gradient laid out as ``grad_strides``).
    With ``fresh`` every position gets a new element (a view's elements are its own).
    """
    pos = _positions(shape, out_shape)
    n_out = len(pos)
    recording = _grad_state.enabled
    same = tuple(shape) == tuple(out_shape)
    if same and not fresh:
        return list(elems)
    out: list = [None] * n_out
    groups: list = [[] for _ in elems]
    for p, s in enumerate(pos):
        groups[s].append(p)
    prog = None
    for s, e in enumerate(elems):
        group = groups[s]
        if not group:
            continue
        t = _scalar_t(e._t.dtype)
        if not (recording and e._rg):
            for p in group:
                if fresh:
                    d = DataView(e)
                    d._t = t
                    out[p] = d
                else:
                    out[p] = e
            continue
        if same:
            out[group[0]] = make(ops.Expand, t, e._val, (e,))
            continue
        if len(group) == 1:  # a shape change without repetition: sum_to still adds it to +0.0
            root = make(ops.SumTo, t, e._val, (e,))
            out[group[0]] = make(ops.Expand, t, e._val, (root,)) if fresh else root
            continue
        if prog is None:
            lead = len(out_shape) - len(shape)
            dims = tuple(range(lead)) + tuple(lead + i for i, sz in enumerate(shape)
                                              if sz == 1 and out_shape[lead + i] != 1)
            prog = sum_program(tuple(out_shape), tuple(grad_strides), dims, e._t.dtype.name)
        root = make(ops.SumTo, t, e._val, (e,))
        fold = prog.fold(s)
        # a node's gradient is the sum of its consumers' in arrival order, and the newest
        # consumer delivers first: create each fold's items last to first
        stack = [(root, fold, len(fold) - 1)]
        while stack:
            x, items, i = stack.pop()
            if i < 0:
                continue
            stack.append((x, items, i - 1))
            node = make(ops.Expand, t, e._val, (x,))
            item = items[i]
            if isinstance(item, list):
                stack.append((node, item, len(item) - 1))
            else:
                out[item] = node
    return out


def _map2(x, y, fn, symbol: str, out_dtype=None, srcs=None) -> Value:
    """``fn`` on the elements of ``x`` and ``y`` (tensors or Python numbers), broadcast."""
    for v in (x, y):
        if not isinstance(v, Value) and not _is_number(v):
            raise TypeError(f"unsupported operand type(s) for {symbol}: 'Tensor' and '{type(v).__name__}'")
    rd = result_dtype((x, y))
    if out_dtype is None:
        x, y = (_cast(v, rd) if isinstance(v, Value) and v._t.dtype is not rd else v for v in (x, y))
    shapes = [v._t.shape if isinstance(v, Value) else () for v in (x, y)]
    out_shape = broadcast_shapes(shapes[0], shapes[1])
    check_size(out_shape)
    layouts = [(v._t.shape, _parts(v)[1]) if isinstance(v, Value) else ((), ()) for v in (x, y)]
    strides = elementwise_strides(out_shape, layouts)
    n = numel(out_shape)
    cols = []
    for v in (x, y):
        if isinstance(v, Value):
            shape, _, elems = _parts(v)
            cols.append(_spread(elems, shape, out_shape, strides, False))
        else:
            cols.append(None)
    ex, ey = cols
    if ex is None:
        res = [_fresh(fn(x, ey[p])) for p in range(n)]
    elif ey is None:
        res = [_fresh(fn(ex[p], y)) for p in range(n)]
    else:
        res = [_fresh(fn(ex[p], ey[p])) for p in range(n)]
    dt = out_dtype if out_dtype is not None else (res[0]._t.dtype if res else rd)
    return _result(res, out_shape, dt, strides, srcs=(x, y) if srcs is None else srcs)


def _cast(v: Value, dt) -> Value:
    if v._t.dtype is dt:
        return v
    return v.to(dt)


def _map1(x: ShapedTensor, fn) -> Value:
    strides = elementwise_strides(x._t.shape, [(x._t.shape, x._strides)])
    res = [_fresh(fn(e)) for e in x._elems]
    dt = res[0]._t.dtype if res else x._t.dtype
    return _result(res, x._t.shape, dt, strides, srcs=(x,))


def _inplace_check(t: ShapedTensor) -> None:
    """PyTorch's refusals before any element changes (nothing is half-applied)."""
    if not _grad_state.enabled:
        return
    if t._view_of is not None and t._view_of._rg and t._view_of.is_leaf:
        raise RuntimeError(_VIEW_OF_LEAF)
    if t._rg and t._fn is None:
        raise RuntimeError(LEAF_INPLACE)


def _apply_inplace(t: ShapedTensor, other, fn, symbol: str) -> ShapedTensor:
    """``t (op)= other``: the out-of-place results are computed first, then stored into
    ``t``'s elements with the scalar in-place rules (version bump, or graph rebasing)."""
    _inplace_check(t)
    shape = t._t.shape
    if isinstance(other, Value):
        oshape = other._t.shape
        try:
            full = broadcast_shapes(shape, oshape)
        except RuntimeError:
            full = None
        if full != tuple(shape):
            if full is None:
                full = broadcast_shapes(shape, oshape)
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")
        _, _, oelems = _parts(other)
        col = [oelems[i] for i in _positions(oshape, shape)]
    elif _is_number(other) or other is None:
        col = [other] * len(t._elems)
    else:
        raise TypeError(f"unsupported operand type(s) for {symbol}: 'Tensor' and '{type(other).__name__}'")
    results = [fn(e, o) for e, o in zip(t._elems, col)]
    recording = _grad_state.enabled and any(r._rg for r in results)
    if recording:
        if t._view_of is not None:
            from .errors import Unsupported

            raise Unsupported("an in-place operation on a view of a tensor that requires grad",
                              "PyTorch rewrites the base tensor's graph (CopySlices); apply the "
                              "operation out of place")
        if any(isinstance(e, DataView) for e in t._elems):
            from .errors import Unsupported

            raise Unsupported("an in-place operation with a tensor that requires grad on a detached tensor",
                              "apply the operation out of place")
    for e, r in zip(t._elems, results):
        _inplace(e, lambda _, r=r: r, None)
        if e._t.shape:
            e._t = _scalar_t(e._t.dtype)
    t._name = None
    t._node = None
    return t


# ---------------------------------------------------------------- grad_fn objects


class TensorNode:
    """``grad_fn`` of a multi-element tensor: the op that made the whole tensor."""

    __slots__ = ("_tensor", "_metadata", "__weakref__")

    def __init__(self, tensor: ShapedTensor) -> None:
        self._tensor = tensor
        self._metadata = None

    def name(self) -> str:
        return self._tensor._fn or "torch::autograd::AccumulateGrad"

    @property
    def next_functions(self) -> tuple:
        out = []
        for s in self._tensor._srcs:
            if not isinstance(s, Value) or not s._rg:
                out.append((None, 0))
            elif s.is_leaf:
                out.append((_accumulate_node(s), 0))
            else:
                out.append((s.grad_fn, 0))
        return tuple(out)

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        from .errors import Unsupported

        raise Unsupported("hooks on the grad_fn of a multi-element tensor",
                          "register a hook on the tensor itself (Tensor.register_hook)")

    register_prehook = register_hook

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class TensorAccumulateGrad(AccumulateGradFace, TensorNode):
    """The AccumulateGrad node of a leaf multi-element tensor (in ``next_functions``)."""

    __slots__ = ()

    @property
    def variable(self) -> ShapedTensor:
        return self._tensor


def _accumulate_node(s: Value):
    if isinstance(s, ShapedTensor):
        if s._node is None:
            s._node = TensorAccumulateGrad(s)
        return s._node
    from .autograd.graph import accumulate_grad_for

    return accumulate_grad_for(s)


# ---------------------------------------------------------------- the class


class ShapedTensor(Value):
    """A tensor of several elements (or none), each a scalar ``Value`` node; see the module
    docstring. Build one with ``scalargrad.tensor([[...]])``, ``rand(3, 1)``, ``zeros(2, 3)``..."""

    __slots__ = ("_elems", "_strides", "_offset", "_srcs", "_view_of", "_name", "_group", "_node",
                 "_gradt", "_erg")
    __hash__ = Value.__hash__

    def __init__(self, *args, **kwargs) -> None:
        # built by the factories (``_new``); ``Tensor([1., 2.])`` arrives here already built
        pass

    # ------------------------------------------------------------ what a single Value holds

    @property
    def _val(self):
        raise RuntimeError(f"a Tensor with {len(self._elems)} elements cannot be converted to Scalar")

    @property
    def _rg(self) -> bool:
        for e in self._elems:
            if e._rg:
                return True
        return self._erg if not self._elems else False

    @property
    def _op(self):
        fn = self._fn
        return None if fn is None else self._elems[0]._op if self._elems else None

    @property
    def _fn(self) -> str | None:
        """The grad_fn name of the op that made the whole tensor, None for a leaf."""
        if self._name is not None:
            return self._name
        if not self._elems:
            return None
        op = self._elems[0]._op
        if op is None:
            return None
        return op.name

    # ------------------------------------------------------------ metadata

    def numel(self) -> int:
        return len(self._elems)

    nelement = numel

    def size(self, dim: int | None = None):
        if dim is None:
            return self._t.shape
        return self._t.shape[_norm_dim(dim, self.dim())]

    def stride(self, dim: int | None = None):
        if dim is None:
            return self._strides
        return self._strides[_norm_dim(dim, self.dim())]

    def storage_offset(self) -> int:
        return self._offset

    def is_contiguous(self, memory_format=None) -> bool:
        return is_contiguous(self._t.shape, self._strides)

    def element_size(self) -> int:
        return self._t.dtype.itemsize

    def __len__(self) -> int:
        return self._t.shape[0]

    def __iter__(self):
        return iter(self.unbind(0))

    def tolist(self):
        return _nest([e._val for e in self._elems], tuple(self._t.shape))

    def item(self):
        raise RuntimeError(f"a Tensor with {len(self._elems)} elements cannot be converted to Scalar")

    def __float__(self) -> float:
        raise ValueError("only one element tensors can be converted to Python scalars")

    __int__ = __float__

    def __index__(self) -> int:
        raise TypeError("only integer tensors of a single element can be converted to an index")

    def __bool__(self) -> bool:
        if not self._elems:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")

    def numpy(self, *args, **kwargs):
        from .errors import Unsupported

        raise Unsupported("Tensor.numpy()", "scalargrad has no NumPy arrays; use tolist()")

    def __repr__(self) -> str:
        t = self._t
        return tensor_repr([e._val for e in self._elems], t.shape, t.dtype, requires_grad=self._rg,
                           grad_fn=self._fn, default_dtype=_defaults["dtype"])

    __str__ = __repr__

    # ------------------------------------------------------------ autograd attributes

    def requires_grad_(self, requires_grad: bool = True) -> ShapedTensor:
        """Set requires_grad on a leaf tensor (all its elements); returns self."""
        if self._fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach().")
            return self
        if requires_grad and not self._t.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        flag = bool(requires_grad)
        for e in self._elems:
            e._rg = flag
        self._erg = flag
        return self

    @property
    def is_leaf(self) -> bool:
        return self._fn is None

    @property
    def grad_fn(self):
        """The node of the op that made this tensor (``<AddBackward0 ...>``), None for a leaf."""
        if self._fn is None:
            return None
        node = self._node
        if node is None or isinstance(node, TensorAccumulateGrad):
            node = self._node = TensorNode(self)
        return node

    @property
    def grad(self):
        """The accumulated gradient, a tensor of this shape (None before any backward)."""
        g = self._grad
        if g is None and self._fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, g) -> None:
        self._grad = g

    @property
    def _grad(self):
        # the gradient tensor, as ``Value._grad`` holds it (code reading the slot works alike)
        grads = [e._grad for e in self._elems]
        if all(g is None for g in grads):
            return None
        cached = self._gradt
        if cached is not None and all(a is b for a, b in zip(cached._elems, grads)):
            return cached
        for i, (e, g) in enumerate(zip(self._elems, grads)):
            if g is None:  # PyTorch's gradient is dense: an element nothing reached holds 0
                g = grads[i] = e._grad = leaf(e._t.dtype.round(0.0), _scalar_t(e._t.dtype))
        self._gradt = _new(grads, self._t.shape, grads[0]._t.dtype)
        return self._gradt

    @_grad.setter
    def _grad(self, g) -> None:
        if g is None:
            for e in self._elems:
                e._grad = None
            self._gradt = None
            return
        if not isinstance(g, Value):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(g).__name__}")
        if tuple(g._t.shape) != tuple(self._t.shape):
            raise RuntimeError(f"attempting to assign a gradient of size '{list(g._t.shape)}' to a tensor of size "
                               f"'{list(self._t.shape)}'. Please ensure that the gradient and the tensor are the "
                               "same size")
        if g._t.dtype is not self._t.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_c_name(g._t.dtype)}' to a tensor with grad_dtype "
                f"'{_c_name(self._t.dtype).capitalize()}'. The gradient must match the tensor's grad_dtype "
                "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
                "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
                "and its gradient may break downstream systems that assume they match.")
        _, _, gelems = _parts(g)
        for e, ge in zip(self._elems, gelems):
            e._grad = ge
        self._gradt = g if isinstance(g, ShapedTensor) else None

    @property
    def retains_grad(self) -> bool:
        return self._fn is not None and all(e._ext is not None and e._ext.retain for e in self._elems)

    def retain_grad(self) -> None:
        """Make backward store this non-leaf tensor's gradient in ``.grad``."""
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._fn is not None:
            for e in self._elems:
                _ext(e).retain = True

    def register_hook(self, hook):
        """Call ``hook(grad)`` once with the whole gradient tensor; a returned tensor replaces
        it. Returns a handle whose ``remove()`` unregisters the hook."""
        from .autograd.groups import group_for
        from .utils.hooks import add_hook

        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        grp = group_for(self)
        return add_hook(grp.hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` once after the whole gradient has been accumulated (leaves)."""
        from .autograd.groups import group_for
        from .utils.hooks import add_hook

        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        grp = group_for(self)
        return add_hook(grp.post_acc, hook)

    def _grad_tensor(self, cells: Sequence[Value]) -> Value:
        """The gradient tensor a group hook receives, made of the element gradients ``cells``."""
        return _new([_fresh(c) if c._t.shape else c for c in cells], self._t.shape, self._t.dtype)

    def _split_grad(self, returned, hook=None) -> list:
        """The element gradients of a tensor a hook returned, checked against this tensor."""
        name = getattr(hook, "__name__", hook)
        if not isinstance(returned, Value):
            raise TypeError(f"expected Variable, but hook returned '{type(returned).__name__}'")
        if tuple(returned._t.shape) != tuple(self._t.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if returned._t.dtype is not self._t.dtype:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was {_legacy_type(self._t.dtype)} "
                               f"got {_legacy_type(returned._t.dtype)})")
        return list(_parts(returned)[2])

    def backward(self, gradient=None, retain_graph: bool | None = None, create_graph: bool = False,
                 inputs=None) -> None:
        """Accumulate d(self)/d(leaf), weighted by ``gradient`` (a tensor of this shape)."""
        from .autograd import backward

        if gradient is None:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if not self._rg:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if not isinstance(gradient, Value):
            raise TypeError(f"gradient must be a Tensor, not {type(gradient).__name__}")
        if tuple(gradient._t.shape) != tuple(self._t.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {gradient._t.shape!r} and "
                               f"output[0] has a shape of {self._t.shape!r}.")
        pairs = [(e, g) for e, g in zip(self._elems, _parts(gradient)[2]) if e._rg]
        backward([e for e, _ in pairs], [g for _, g in pairs], retain_graph, create_graph,
                 inputs=flatten_tensors(inputs) if inputs is not None else None)

    # ------------------------------------------------------------ data, detach, copies

    @property
    def data(self) -> ShapedTensor:
        """A tensor sharing this one's storage, outside the graph."""
        return _new([DataView(e) for e in self._elems], self._t.shape, self._t.dtype, self._strides,
                    self._offset)

    @data.setter
    def data(self, new) -> None:
        if not isinstance(new, Value):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        _, _, nelems = _parts(new)
        if tuple(new._t.shape) == tuple(self._t.shape) and new._t.dtype is self._t.dtype:
            for e, n in zip(self._elems, nelems):
                if n is not e and not (isinstance(n, DataView) and n._base is _storage(e)):
                    e._val = n._val
            return
        if not isinstance(new, ShapedTensor):
            from .errors import Unsupported

            raise Unsupported("assigning a one-element tensor to .data of a multi-element tensor")
        rg = self._rg and self._fn is None
        self._elems = tuple(leaf(n._val, _scalar_t(new._t.dtype), rg) for n in nelems)
        self._t = new._t
        self._strides = contiguous_strides(new._t.shape)
        self._offset = 0
        self._gradt = None

    def detach(self) -> ShapedTensor:
        """A new leaf tensor sharing this tensor's storage, outside the graph."""
        return self.data

    def __deepcopy__(self, memo: dict) -> ShapedTensor:
        # leaves only, as PyTorch; the copy has its own elements (and a copy of .grad)
        if self._fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
                "the moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = memo[id(self)] = self._copy_as(ShapedTensor, self._rg)
        g = self._grad
        if g is not None:
            new._grad = g.__deepcopy__(memo)
        return new

    def __copy__(self) -> ShapedTensor:
        # a new tensor object over the same elements (the same storage and graph)
        return _new(self._elems, self._t.shape, self._t.dtype, self._strides, self._offset, self._srcs,
                    self._view_of)

    def _copy_as(self, cls: type, requires_grad: bool) -> ShapedTensor:
        """A new leaf tensor of class ``cls`` (a ShapedTensor subclass) holding these numbers."""
        dt = self._t.dtype
        t = _scalar_t(dt)
        out = _new([leaf(e._val, t, requires_grad) for e in self._elems], self._t.shape, dt, cls=cls)
        out._erg = requires_grad
        return out

    def detach_(self) -> ShapedTensor:
        if self._view_of is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        for e in self._elems:
            e.detach_()
        self._name = None
        self._erg = False
        return self

    def clone(self, memory_format=None) -> ShapedTensor:
        shape = self._t.shape
        strides = self._strides if is_non_overlapping_and_dense(shape, self._strides) else None
        res = [_fresh(make(ops.Clone, _scalar_t(e._t.dtype), e._val, (e,))) for e in self._elems]
        return _result(res, shape, self._t.dtype, strides, srcs=(self,))

    def contiguous(self, memory_format=None) -> ShapedTensor:
        if self.is_contiguous():
            return self
        res = [_fresh(make(ops.Clone, _scalar_t(e._t.dtype), e._val, (e,))) for e in self._elems]
        return _result(res, self._t.shape, self._t.dtype, srcs=(self,))

    def to(self, *args, **kwargs) -> Value:
        """Convert dtype (``to(torch.float64)``); devices other than the CPU are refused."""
        dt = self._to_dtype(args, kwargs)
        if dt is None or dt is self._t.dtype:
            return self
        return _map1(self, lambda e: e.to(dt))

    def long(self) -> Value:
        return self.to(dtypes.int64)

    def bool(self) -> Value:
        return self.to(dtypes.bool)

    # ------------------------------------------------------------ arithmetic

    def __add__(self, other):
        return _map2(self, other, operator.add, "+")

    def __radd__(self, other):
        return _map2(other, self, operator.add, "+")

    def __sub__(self, other):
        return _map2(self, other, operator.sub, "-")

    def __rsub__(self, other):
        return _map2(other, self, operator.sub, "-")

    def __mul__(self, other):
        return _map2(self, other, operator.mul, "*")

    def __rmul__(self, other):
        return _map2(other, self, operator.mul, "*")

    def __truediv__(self, other):
        return _map2(self, other, operator.truediv, "/")

    def __rtruediv__(self, other):
        return _map2(other, self, operator.truediv, "/")

    def __pow__(self, other):
        return _map2(self, other, operator.pow, "**")

    def __rpow__(self, other):
        return _map2(other, self, operator.pow, "**")

    def __neg__(self):
        return _map1(self, operator.neg)

    def __pos__(self):
        return self

    def __abs__(self):
        return _map1(self, abs)

    def __floordiv__(self, other):
        return _map2(self, other, operator.floordiv, "//")

    def reciprocal(self):
        return _map1(self, lambda e: e.reciprocal())

    def log(self):
        return _map1(self, lambda e: e.log())

    def exp(self):
        return _map1(self, lambda e: e.exp())

    def sqrt(self):
        return _map1(self, lambda e: e.sqrt())

    def tanh(self):
        return _map1(self, lambda e: e.tanh())

    def sigmoid(self):
        return _map1(self, lambda e: e.sigmoid())

    def relu(self):
        return _map1(self, lambda e: e.relu())

    def abs(self):
        return _map1(self, abs)

    absolute = abs

    def sin(self):
        return _map1(self, lambda e: e.sin())

    def cos(self):
        return _map1(self, lambda e: e.cos())

    def clamp(self, min=None, max=None):  # noqa: A002 - PyTorch's parameter names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        if isinstance(min, Value) or isinstance(max, Value):
            out = self
            if min is not None:
                out = out.maximum(min)
            if max is not None:
                out = out.minimum(max)
            return out
        return _map1(self, lambda e: e.clamp(min, max))

    clip = clamp

    def minimum(self, other):
        if not isinstance(other, Value):
            raise TypeError(f"minimum(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        return _map2(self, other, lambda a, b: a.minimum(b), "minimum")

    def maximum(self, other):
        if not isinstance(other, Value):
            raise TypeError(f"maximum(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        return _map2(self, other, lambda a, b: a.maximum(b), "maximum")

    # ------------------------------------------------------------ in place

    def __iadd__(self, other):
        return _apply_inplace(self, other, operator.add, "+=")

    def __isub__(self, other):
        return _apply_inplace(self, other, operator.sub, "-=")

    def __imul__(self, other):
        return _apply_inplace(self, other, operator.mul, "*=")

    def __itruediv__(self, other):
        return _apply_inplace(self, other, operator.truediv, "/=")

    def add_(self, other, alpha=1):
        return _apply_inplace(self, other * alpha if alpha != 1 else other, operator.add, "add_")

    def sub_(self, other, alpha=1):
        return _apply_inplace(self, other * alpha if alpha != 1 else other, operator.sub, "sub_")

    def mul_(self, other):
        return _apply_inplace(self, other, operator.mul, "mul_")

    def div_(self, other):
        return _apply_inplace(self, other, operator.truediv, "div_")

    def pow_(self, exponent):
        return _apply_inplace(self, exponent, operator.pow, "pow_")

    def clamp_(self, min=None, max=None):  # noqa: A002
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return _apply_inplace(self, None, lambda e, _: e.clamp(min, max), "clamp_")

    def neg_(self):
        return _apply_inplace(self, None, lambda e, _: -e, "neg_")

    def fill_(self, value):
        if isinstance(value, Value):
            if value.numel() != 1:
                raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{value.dim()} dimensions.")
            value = value.item()
        dt = self._t.dtype
        t = _scalar_t(dt)
        return _apply_inplace(self, None, lambda e, _: leaf(dt.round(value), t), "fill_")

    def copy_(self, src):
        if not isinstance(src, Value):
            raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
        dt = self._t.dtype
        t = _scalar_t(dt)
        return _apply_inplace(self, src, lambda e, s: make(ops.ToCopy, t, dt.round(s._val), (s,)), "copy_")

    def __setitem__(self, index, value) -> None:
        shape, _, _, lstrides, loffset, _ = _index(self, index)
        targets = _gather(shape, lstrides, loffset)
        if _grad_state.enabled and self._rg and self._fn is None:
            raise RuntimeError(_VIEW_OF_LEAF)
        dt = self._t.dtype
        t = _scalar_t(dt)
        if isinstance(value, Value):
            try:
                full = broadcast_shapes(shape, value._t.shape)
            except RuntimeError:
                full = None
            if full != tuple(shape):
                raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._t.shape)} cannot be "
                                   f"broadcast to indexing result of shape {list(shape)}")
            col = [_parts(value)[2][i] for i in _positions(value._t.shape, shape)]
            grad = _grad_state.enabled and any(v._rg for v in col)
        elif _is_number(value):
            col = [value] * len(targets)
            grad = False
        else:
            raise TypeError(f"can't assign a {type(value).__name__} to a Tensor")
        if grad and self._view_of is not None:
            from .errors import Unsupported

            raise Unsupported("assigning a tensor that requires grad into a view")
        if self._rg and _grad_state.enabled and not grad:
            from .errors import Unsupported

            raise Unsupported("assigning constants into a tensor that requires grad",
                              "PyTorch cuts the gradient of the overwritten elements (CopySlices); "
                              "build the tensor out of place, or assign under torch.no_grad()")
        for i, v in zip(targets, col):
            e = self._elems[i]
            if isinstance(v, Value):
                _inplace(e, lambda _, v=v: make(ops.ToCopy, t, dt.round(v._val), (v,)), None)
            else:
                _inplace(e, lambda _, v=v: leaf(dt.round(v), t), None)
            if e._t.shape:
                e._t = t
        if grad:
            self._name = "CopySlices"

    # ------------------------------------------------------------ comparisons (bool tensors)

    def _compare(self, other, pyop, symbol):
        if not isinstance(other, Value) and not _is_number(other):
            return NotImplemented
        rd = result_dtype((self, other))
        bt = _scalar_t(dtypes.bool)
        r = rd.round

        def cmp(a, b):
            av = r(a._val) if isinstance(a, Value) else r(a)
            bv = r(b._val) if isinstance(b, Value) else r(b)
            return leaf(bool(pyop(av, bv)), bt)

        return _map2(self, other, cmp, symbol, out_dtype=dtypes.bool)

    def __eq__(self, other):
        return self._compare(other, operator.eq, "==")

    def __ne__(self, other):
        return self._compare(other, operator.ne, "!=")

    def __lt__(self, other):
        return self._compare(other, operator.lt, "<")

    def __le__(self, other):
        return self._compare(other, operator.le, "<=")

    def __gt__(self, other):
        return self._compare(other, operator.gt, ">")

    def __ge__(self, other):
        return self._compare(other, operator.ge, ">=")

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__

    def all(self) -> Value:
        return leaf(all(bool(e._val) for e in self._elems), _scalar_t(dtypes.bool))

    def any(self) -> Value:
        return leaf(any(bool(e._val) for e in self._elems), _scalar_t(dtypes.bool))

    def equal(self, other) -> bool:
        """``torch.equal``: same shape and the same values."""
        if not isinstance(other, Value) or tuple(other._t.shape) != tuple(self._t.shape):
            return False
        return all(a._val == b._val for a, b in zip(self._elems, _parts(other)[2]))

    def allclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
        """``torch.allclose``: |a - b| <= atol + rtol * |b| everywhere (broadcast)."""
        close = _map2(self, other, lambda a, b: leaf(_close(a, b, rtol, atol, equal_nan), _scalar_t(dtypes.bool)),
                      "allclose", out_dtype=dtypes.bool)
        return all(bool(e._val) for e in _parts(close)[2])

    # ------------------------------------------------------------ reductions

    def sum(self, dim=None, keepdim: bool = False, dtype=None) -> Value:
        """Sum over all elements or over ``dim``, added in PyTorch's CPU kernel order."""
        return _reduce(self, dim, keepdim, dtype, mean=False)

    def mean(self, dim=None, keepdim: bool = False, dtype=None) -> Value:
        """Mean over all elements or over ``dim``: PyTorch's sum, then one division by the count."""
        return _reduce(self, dim, keepdim, dtype, mean=True)

    def dot(self, other) -> Value:
        if self.dim() != 1 or other.dim() != 1:
            raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
        return self @ other

    def mm(self, other) -> Value:
        if self.dim() != 2:
            raise RuntimeError("self must be a matrix")
        if other.dim() != 2:
            raise RuntimeError("mat2 must be a matrix")
        return self @ other

    def mv(self, other) -> Value:
        return self @ other

    matmul = Value.__matmul__

    # ------------------------------------------------------------ indexing and views

    def __getitem__(self, index) -> Value:
        shape, mstrides, moffset, lstrides, loffset, op = _index(self, index)
        return _view(self, shape, mstrides, moffset, lstrides, loffset, op)

    def unbind(self, dim: int = 0) -> tuple:
        dim = _norm_dim(dim, self.dim())
        shape = list(self._t.shape)
        mst, lst = list(self._strides), list(contiguous_strides(shape))
        out = []
        for i in range(shape[dim]):
            s = shape[:dim] + shape[dim + 1:]
            out.append(_view(self, s, mst[:dim] + mst[dim + 1:], self._offset + i * mst[dim],
                             lst[:dim] + lst[dim + 1:], i * lst[dim], ops.Unbind))
        return tuple(out)

    def view(self, *shape) -> Value:
        if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
            from .errors import Unsupported

            raise Unsupported("Tensor.view(dtype)")
        new = _infer_shape(_sizes(shape, "view"), len(self._elems))
        st = view_strides(self._t.shape, self._strides, new)
        if st is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return _view(self, new, st, self._offset, contiguous_strides(new), 0, ops.View)

    def reshape(self, *shape) -> Value:
        new = _infer_shape(_sizes(shape, "reshape"), len(self._elems))
        st = view_strides(self._t.shape, self._strides, new)
        if st is not None:  # a view: named after view() when contiguous, _reshape_alias otherwise
            op = ops.View if self.is_contiguous() else ops.Reshape
            return _view(self, new, st, self._offset, contiguous_strides(new), 0, op)
        # not viewable: PyTorch copies to a contiguous tensor and views the copy
        return _view(self, new, contiguous_strides(new), 0, contiguous_strides(new), 0, ops.UnsafeView,
                     copy=True)

    def view_as(self, other) -> Value:
        return self.view(other._t.shape)

    def reshape_as(self, other) -> Value:
        return self.reshape(other._t.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Value:
        nd = self.dim()
        s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if s == e:
            return self
        shape = self._t.shape
        return self.reshape(tuple(shape[:s]) + (numel(shape[s:e + 1]),) + tuple(shape[e + 1:]))

    def squeeze(self, dim=None) -> Value:
        shape, st = list(self._t.shape), list(self._strides)
        if dim is None:
            keep = [d for d in range(len(shape)) if shape[d] != 1]
            op = ops.Squeeze
        else:
            dims = _norm_dims(dim, len(shape))
            keep = [d for d in range(len(shape)) if not (d in dims and shape[d] == 1)]
            op = ops.SqueezeDim if isinstance(dim, int) else ops.SqueezeDims
        lst = contiguous_strides(shape)
        return _view(self, [shape[d] for d in keep], [st[d] for d in keep], self._offset,
                     [lst[d] for d in keep], 0, op)

    def unsqueeze(self, dim: int) -> Value:
        shape, st = list(self._t.shape), list(self._strides)
        n = len(shape) + 1
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        dim %= n
        lst = list(contiguous_strides(shape))
        for strides in (st, lst):
            strides.insert(dim, 1 if dim >= len(shape) else shape[dim] * strides[dim])
        shape.insert(dim, 1)
        return _view(self, shape, st, self._offset, lst, 0, ops.Unsqueeze)

    def expand(self, *sizes) -> Value:
        return _expand(self, _sizes(sizes, "expand"))

    def expand_as(self, other) -> Value:
        return _expand(self, tuple(other._t.shape))

    def t(self) -> Value:
        nd = self.dim()
        if nd > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
        if nd < 2:
            return _permuted(self, list(range(nd)), ops.T)
        return _permuted(self, [1, 0], ops.T)

    @property
    def T(self) -> Value:
        nd = self.dim()
        if nd != 2 and "T" not in _warned:
            _warned.add("T")
            warnings.warn(_T_WARNING, UserWarning, stacklevel=2)
        return _permuted(self, list(range(nd - 1, -1, -1)), ops.Permute)

    def transpose(self, dim0: int, dim1: int) -> Value:
        nd = self.dim()
        d0, d1 = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
        perm = list(range(nd))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return _permuted(self, perm, ops.Transpose)

    def permute(self, *dims) -> Value:
        dims = _sizes(dims, "permute")
        nd = self.dim()
        if len(dims) != nd:
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                               "length of the desired ordering of dimensions i.e. input.dim() = "
                               f"{nd} is not equal to len(dims) = {len(dims)}")
        perm = [_norm_dim(d, nd) for d in dims]
        if len(set(perm)) != nd:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return _permuted(self, perm, ops.Permute)


# ---------------------------------------------------------------- helpers of the class


def _c_name(dt) -> str:
    return {"float32": "float", "float64": "double", "int64": "long", "bool": "bool"}[dt.name]


def _legacy_type(dt) -> str:
    return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "int64": "torch.LongTensor",
            "bool": "torch.BoolTensor"}[dt.name]


def _nest(vals: list, shape: tuple):
    """Nested lists of ``vals`` (row-major) in ``shape`` (recursion over the few dimensions)."""
    if len(shape) <= 1:
        return list(vals)
    step = numel(shape[1:])
    return [_nest(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _storage(e: Value) -> Value:
    return e._base if isinstance(e, DataView) else e


def _close(a, b, rtol, atol, equal_nan) -> bool:
    x = a._val if isinstance(a, Value) else a
    y = b._val if isinstance(b, Value) else b
    if x != x or y != y:
        return bool(equal_nan and x != x and y != y)
    if x == y:
        return True
    return abs(x - y) <= atol + rtol * abs(y)


def _infer_shape(shape: tuple, n: int) -> tuple:
    infer = [i for i, s in enumerate(shape) if s == -1]
    if len(infer) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if infer:
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        shape = tuple(n // known if s == -1 else s for s in shape)
    elif known != n:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    return tuple(shape)


def _view(src: ShapedTensor, shape, mstrides, moffset, lstrides, loffset, op, copy: bool = False) -> Value:
    """A view of ``src``: its elements at logical ``loffset + sum(i * lstrides)``, laid out in
    memory as (mstrides, moffset); each element a new node named after ``op``."""
    shape = tuple(shape)
    check_size(shape)
    idx = _gather(shape, lstrides, loffset)
    dt = src._t.dtype
    single = numel(shape) == 1
    t = TensorType(dt, shape) if single else _scalar_t(dt)
    elems = src._elems
    if copy:
        res = [make(op, t, elems[i]._val, (make(ops.Clone, t, elems[i]._val, (elems[i],)),)) for i in idx]
        return _result(res, shape, dt, tuple(mstrides), 0, srcs=(src,))
    res = [_alias_elem(elems[i], op, t) for i in idx]
    base = src._view_of if src._view_of is not None else src
    return _result(res, shape, dt, tuple(mstrides), moffset, srcs=(src,), view_of=base)


def _permuted(src: ShapedTensor, perm: list, op) -> Value:
    shape = src._t.shape
    lst = contiguous_strides(shape)
    return _view(src, [shape[d] for d in perm], [src._strides[d] for d in perm], src._offset,
                 [lst[d] for d in perm], 0, op)


def _index(src: Value, index) -> tuple:
    """(shape, memory strides, memory offset, logical strides, logical offset, op) of
    ``src[index]`` for basic indexing (ints, slices, None, Ellipsis), following PyTorch's
    ``applySlicing``: a full slice inside a tuple is skipped, and an index that applies no op
    gives an alias."""
    single = not isinstance(index, tuple)
    items = (index,) if single else tuple(index)
    shape = list(src._t.shape)
    mst = list(_parts(src)[1])
    lst = list(contiguous_strides(shape))
    moff = src._offset if isinstance(src, ShapedTensor) else 0
    loff = 0
    nd = len(shape)
    specified = 0
    for it in items:
        if it is None or it is Ellipsis:
            continue
        if isinstance(it, bool) or not isinstance(it, (int, slice)):
            if isinstance(it, Value) and it._t.dtype is dtypes.int64 and not it._t.shape:
                it = int(it._val)
            else:
                from .errors import Unsupported

                what = "a tensor" if isinstance(it, Value) else type(it).__name__
                raise Unsupported(f"indexing a tensor with {what}",
                                  "scalargrad supports basic indexing: ints, slices, None and ...")
        specified += 1
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if specified > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    dim = 0
    op = None
    for real_dim, it in enumerate(items):
        if it is None:
            for st in (mst, lst):
                st.insert(dim, 1 if dim >= len(shape) else shape[dim] * st[dim])
            shape.insert(dim, 1)
            op = ops.Unsqueeze
            dim += 1
        elif it is Ellipsis:
            dim += nd - specified
        elif isinstance(it, slice):
            if it.step is not None and it.step <= 0:
                raise ValueError("step must be greater than zero")
            size = shape[dim]
            start, stop, step = it.indices(size)
            length = max(0, (stop - start + step - 1) // step)
            if not single and start == 0 and length == size and step == 1:
                dim += 1
                continue
            moff += start * mst[dim]
            loff += start * lst[dim]
            mst[dim] *= step
            lst[dim] *= step
            shape[dim] = length
            op = ops.Slice
            dim += 1
        else:
            i = int(it)
            size = shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {real_dim} with size {size}")
            i %= size
            moff += i * mst[dim]
            loff += i * lst[dim]
            del shape[dim], mst[dim], lst[dim]
            op = ops.Select
    return shape, mst, moff, lst, loff, op or ops.Alias


def _expand(src: Value, sizes: tuple) -> Value:
    shape = tuple(src._t.shape)
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({_legacy_type(src._t.dtype)}{{{list(shape)}}}, size={list(sizes)}): the number "
                           f"of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    new = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            new.append(s)
            continue
        have = shape[i - lead]
        if s == -1:
            s = have
        if have != s and have != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(shape)}")
        new.append(s)
    new = tuple(new)
    check_size(new)
    _, sst, elems = _parts(src)
    mst = [0] * len(new)
    for i, s in enumerate(shape):
        if s == new[lead + i]:
            mst[lead + i] = sst[i]
    dt = src._t.dtype
    res = _spread(elems, shape, new, contiguous_strides(new), True)
    if numel(new) == 1:
        res = [res[0]]
    base = None
    if isinstance(src, ShapedTensor):
        base = src._view_of if src._view_of is not None else src
    return _result(res, new, dt, tuple(mst), src._offset if isinstance(src, ShapedTensor) else 0,
                   srcs=(src,), view_of=base)


def _reduce(x: ShapedTensor, dim, keepdim: bool, dtype, mean: bool) -> Value:
    shape = tuple(x._t.shape)
    nd = len(shape)
    dims = _norm_dims(dim, nd)
    src = x
    if dtype is not None:
        src = x.to(dtype)
    dt = src._t.dtype
    if mean and not dt.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {'Long' if dt is dtypes.int64 else 'Bool'}")
    if not dt.is_floating_point:
        if dt is not dtypes.int64:
            src = src.to(dtypes.int64)
        dt = dtypes.int64
    _, strides, elems = _parts(src)
    prog = sum_program(shape, tuple(strides), dims, dt.name)
    sums = prog.evaluate([e._val for e in elems], dt)
    kept = [d for d in range(nd) if d not in dims]
    out_shape = tuple(1 if d in dims else shape[d] for d in range(nd)) if keepdim else tuple(shape[d] for d in kept)
    groups: list = [[] for _ in sums]
    ocs = contiguous_strides([shape[d] for d in kept])
    ost = [0] * nd
    for i, d in enumerate(kept):
        ost[d] = ocs[i]
    for i, o in enumerate(_gather(shape, ost, 0)):
        groups[o].append(elems[i])
    if mean:
        op = ops.MeanN if dim is None else ops.MeanDimN
    else:
        op = ops.SumN if dim is None else ops.SumDimN
    single = numel(out_shape) == 1
    t = TensorType(dt, out_shape) if single else _scalar_t(dt)
    r = dt.round
    res = []
    for s, group in zip(sums, groups):
        val = r(_ieee_div(s, len(group))) if mean else s
        res.append(make(op, t, val, tuple(group)))
    return _result(res, out_shape, dt, srcs=(x,))


def _ieee_div(a, n: int):
    from .ieee import div

    return div(a, float(n))


# ---------------------------------------------------------------- construction


def flatten_tensors(tensors) -> list:
    """The scalar Values behind a tensor or a sequence of tensors (elements of multi-element ones)."""
    if isinstance(tensors, Value):
        tensors = (tensors,)
    out = []
    for t in tensors:
        if isinstance(t, ShapedTensor):
            out.extend(t._elems)
        else:
            out.append(t)
    return out


def from_values(values: Sequence, shape: tuple, dtype, requires_grad: bool = False) -> Value:
    """A new leaf tensor of ``shape`` holding ``values`` (row-major), rounded to ``dtype``."""
    shape = tuple(shape)
    check_size(shape)
    if requires_grad and not dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    r = dtype.round
    if numel(shape) == 1:
        return leaf(r(values[0]), TensorType(dtype, shape), bool(requires_grad))
    t = _scalar_t(dtype)
    out = _new([leaf(r(v), t, bool(requires_grad)) for v in values], shape, dtype)
    out._erg = bool(requires_grad)
    return out


def filled(shape: tuple, value, dtype, requires_grad: bool = False) -> Value:
    """A leaf tensor of ``shape`` with every element ``value``."""
    return from_values([value] * check_size(shape), shape, dtype, requires_grad)


def _parse(data) -> tuple:
    """(flat values, shape, dtype inferred from the values) of nested lists (PyTorch's rules)."""
    if isinstance(data, ShapedTensor):
        return [e._val for e in data._elems], tuple(data._t.shape), data._t.dtype
    level = [data]
    shape = []
    while level and isinstance(level[0], (list, tuple)) and not isinstance(level[0], Value):
        n = len(level[0])
        nxt = []
        for item in level:
            if not isinstance(item, (list, tuple)):
                raise ValueError(f"expected sequence of length {n} at dim {len(shape)} (got {type(item).__name__})")
            if len(item) != n:
                raise ValueError(f"expected sequence of length {n} at dim {len(shape)} (got {len(item)})")
            nxt.extend(item)
        shape.append(n)
        level = nxt
        check_size(shape)
    values = []
    kinds = set()
    inner = None
    for x in level:
        if isinstance(x, (list, tuple)):
            raise ValueError(f"expected sequence of length {len(x)} at dim {len(shape)} (got a number)")
        if isinstance(x, ShapedTensor):
            raise ValueError("only one element tensors can be converted to Python scalars")
        if isinstance(x, Value):
            inner = x._t.dtype if inner is None else promote_types(inner, x._t.dtype)
            values.append(x._val)
            continue
        if isinstance(x, bool):
            kinds.add(dtypes.bool)
        elif isinstance(x, int):
            kinds.add(dtypes.int64)
        elif isinstance(x, float):
            kinds.add(_defaults["dtype"])
        elif isinstance(x, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
        values.append(x)
    dt = _promote_all(list(kinds) + ([inner] if inner is not None else []))
    return values, tuple(shape), dt if dt is not None else _defaults["dtype"]


def from_data(data, dtype=None, requires_grad: bool = False) -> Value:
    """``torch.tensor(data)`` for nested lists of any number of elements."""
    if isinstance(data, Value) and "tensor_copy" not in _warned:
        _warned.add("tensor_copy")
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=3)
    values, shape, inferred = _parse(data)
    dt = dtype if dtype is not None else inferred
    return from_values(values, shape, dt, requires_grad)


# ---------------------------------------------------------------- autograd.backward / autograd.grad


def has_shaped(*groups) -> bool:
    """Does any of these tensors (or sequences of tensors) hold several elements?"""
    for g in groups:
        if isinstance(g, ShapedTensor):
            return True
        if isinstance(g, (list, tuple)) and any(isinstance(t, ShapedTensor) for t in g):
            return True
    return False


def _seq(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Value):
        return (x,)
    return tuple(x)


def flatten_roots(outputs, grad_outputs) -> tuple:
    """Outputs and their gradients with multi-element tensors spread into their elements
    (elements that do not require grad are dropped, as they carry no gradient)."""
    outs = _seq(outputs)
    given = _seq(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    if len(given) != len(outs):
        raise RuntimeError(f"grad requires one gradient per output: got {len(given)} gradients "
                           f"for {len(outs)} outputs")
    flat_o, flat_g = [], []
    for i, (o, g) in enumerate(zip(outs, given)):
        if not isinstance(o, ShapedTensor):
            flat_o.append(o)
            flat_g.append(g)
            continue
        if g is None:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if not isinstance(g, Value) or tuple(g._t.shape) != tuple(o._t.shape):
            gs = g._t.shape if isinstance(g, Value) else "a number"
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {gs!r} and output[{i}] has "
                               f"a shape of {o._t.shape!r}.")
        if not o._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        for e, ge in zip(o._elems, _parts(g)[2]):
            if e._rg:
                flat_o.append(e)
                flat_g.append(ge)
    return tuple(flat_o), tuple(flat_g)


def grad_of_tensors(scalar_grad, outputs, inputs, grad_outputs, retain_graph, create_graph,
                    allow_unused, materialize_grads) -> tuple:
    """``autograd.grad`` when outputs or inputs hold several elements: the scalar ``grad``
    over the elements, then one gradient tensor per input (zeros where an element got none)."""
    outs, gouts = flatten_roots(outputs, grad_outputs)
    ins = _seq(inputs)
    for i, t in enumerate(ins):
        if not isinstance(t, Value):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(t).__name__} at index {i}")
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    flat_in = flatten_tensors(ins)
    got = scalar_grad(outs, flat_in, gouts, retain_graph=retain_graph, create_graph=create_graph,
                      allow_unused=True)
    result = []
    pos = 0
    if allow_unused is None:
        allow_unused = materialize_grads
    for i, t in enumerate(ins):
        n = len(t._elems) if isinstance(t, ShapedTensor) else 1
        part = got[pos:pos + n]
        elems = t._elems if isinstance(t, ShapedTensor) else (t,)
        pos += n
        if all(g is None for g in part):
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if not materialize_grads:
                result.append(None)
                continue
        cells = [g if g is not None else leaf(e._t.dtype.round(0.0), _scalar_t(e._t.dtype))
                 for g, e in zip(part, elems)]
        if isinstance(t, ShapedTensor):
            result.append(_new([_fresh(c) if c._t.shape else c for c in cells], t._t.shape, t._t.dtype))
        else:
            c = cells[0]
            if c._t is not t._t and not c._rg:
                c = leaf(c._val, t._t)
            result.append(c)
    return tuple(result)


# ---------------------------------------------------------------- joining tensors


def _join(tensors: Sequence, dim: int, op) -> Value:
    """The elements of ``tensors`` laid side by side along ``dim`` (all shapes already checked)."""
    rd = result_dtype(list(tensors)) if len({t._t.dtype for t in tensors}) > 1 else tensors[0]._t.dtype
    tensors = [_cast(t, rd) for t in tensors]
    shape0 = list(tensors[0]._t.shape)
    out_shape = shape0[:dim] + [sum(t._t.shape[dim] for t in tensors)] + shape0[dim + 1:]
    check_size(out_shape)
    outer = numel(shape0[:dim])
    inner = numel(shape0[dim + 1:])
    single = numel(out_shape) == 1
    t_el = TensorType(rd, tuple(out_shape)) if single else _scalar_t(rd)
    res = []
    for o in range(outer):
        for t in tensors:
            chunk = t._t.shape[dim] * inner
            for e in _parts(t)[2][o * chunk:(o + 1) * chunk]:
                res.append(_alias_elem(e, op, t_el))
    return _result(res, tuple(out_shape), rd, srcs=tuple(tensors))


def cat(tensors: Sequence, dim: int = 0) -> Value:
    """``torch.cat``: join tensors of equal shapes (but along ``dim``) along ``dim``."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Value):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
        if not t._t.shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    nd = len(tensors[0]._t.shape)
    d = _norm_dim(dim, nd)
    ref = tensors[0]._t.shape
    for i, t in enumerate(tensors[1:], 1):
        s = t._t.shape
        if len(s) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {len(s)}")
        for k in range(nd):
            if k != d and s[k] != ref[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {ref[k]} "
                                   f"but got size {s[k]} for tensor number {i} in the list.")
    return _join(tensors, d, ops.Cat)


def stack(tensors: Sequence, dim: int = 0) -> Value:
    """``torch.stack``: join tensors of one shape along a new dimension ``dim``."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tuple(tensors[0]._t.shape)
    for i, t in enumerate(tensors):
        if not isinstance(t, Value):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
        if tuple(t._t.shape) != ref:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                               f"{list(t._t.shape)} at entry {i}")
    n = len(ref) + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    d = dim % n
    rd = result_dtype(tensors) if len({t._t.dtype for t in tensors}) > 1 else tensors[0]._t.dtype
    cols = [_parts(_cast(t, rd))[2] for t in tensors]
    outer = numel(ref[:d])
    inner = numel(ref[d:])
    out_shape = ref[:d] + (len(tensors),) + ref[d:]
    check_size(out_shape)
    t_el = TensorType(rd, out_shape) if numel(out_shape) == 1 else _scalar_t(rd)
    res = []
    for o in range(outer):
        for col in cols:
            for e in col[o * inner:(o + 1) * inner]:
                res.append(_alias_elem(e, ops.Stack, t_el))
    return _result(res, out_shape, rd, srcs=tuple(tensors))
