"""Value: one scalar node of the graph, and scalargrad's ``Tensor``.

A Value holds one number, its dtype and one-element shape, and, when it was computed from
Values that require grad, the op that made it (``_op``) and that op's inputs (``_in``). The
node's creation number ``_seq`` orders the backward sweep as PyTorch's engine does, and
doubles as the version stamp that detects in-place changes. There are no per-node closures:
an op is a class shared by all its nodes (see ``ops.py``), so building a graph creates no
reference cycles.

Slots, for the engine's sake:
    _val   the number (a float; an int or bool for integer dtypes)
    _t     the interned TensorType (dtype, shape)
    _rg    requires_grad
    _op    the op class that made it, None for a leaf
    _a, _b the op's Value inputs: (None, None) for a leaf, (x, None) for one input, (x, y) for
           two, (tuple, MANY) for more; ``_in`` reads and writes them as a tuple. Two slots
           rather than a tuple, because every object that holds references is one more for
           Python's cyclic collector to walk: one object per node instead of two halves the
           collector's share of building a graph.
    _c     the op's Python-number operand (or a custom Function's ctx)
    _seq   creation number of the node / version stamp
    _g     accumulated .grad (leaves and retain_grad): None, a Value, or a bare float that the
           ``_grad`` property turns into a Value when it is first read. Backward stores floats:
           making a Value per leaf costs more than the rest of a leaf's backward (W2), and most
           gradients are read once, by an optimizer, if at all.
    _ext   None, or an _Ext with the rarely used parts: hooks, grad_fn object, retain_grad
"""

from __future__ import annotations

import itertools
import math
import operator
import warnings
from collections import OrderedDict
from typing import Any

from . import dtypes, ieee, ops
from .autograd.grad_mode import _state as _grad_state
from .dtypes import TensorType, promote_types, result_type, round_f32
from .formatting import tensor_repr

__all__ = ["Value", "Tensor", "is_tensor", "get_default_dtype", "set_default_dtype"]

next_seq = itertools.count(1).__next__
MANY = type("Many", (), {"__repr__": lambda self: "MANY", "__slots__": ()})()  # _b of a node with 3+ inputs
_F32_LO, _F32_HI = 1.1754943508222875e-38, 3.4028234663852886e38  # float32's normal range
_new = object.__new__
_f32_consts: dict = {}  # Python number -> its float32 rounding, for the + - * / fast path

_defaults = {"dtype": dtypes.float32}
SCALAR_F32 = TensorType(dtypes.float32, ())


def get_default_dtype():
    """The dtype of tensors made from Python floats (float32 unless changed)."""
    return _defaults["dtype"]


def set_default_dtype(d) -> None:
    """Make ``d`` (torch.float32 or torch.float64) the default floating dtype."""
    if d not in (dtypes.float32, dtypes.float64):
        raise TypeError("only floating-point types are supported as the default type")
    _defaults["dtype"] = d


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. "
    "See github.com/pytorch/pytorch/pull/30531 for more information."
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."


class _Ext:
    """The rarely used parts of a Value; its presence sends the engine to its slow path."""

    __slots__ = ("node", "hooks", "retain", "post_acc", "pick", "group")

    def __init__(self) -> None:
        self.node = None  # the grad_fn (or AccumulateGrad) object, made on first request
        self.hooks = None  # OrderedDict of tensor hooks
        self.retain = False  # retain_grad() was called
        self.post_acc = None  # OrderedDict of post-accumulate-grad hooks
        self.pick = None  # (hidden node, index) for an output of a multi-output Function
        self.group = None  # the Group of the multi-element tensor this Value is an element of


def _ext(v: Value) -> _Ext:
    e = v._ext
    if e is None:
        e = v._ext = _Ext()
    return e


# ---------------------------------------------------------------- building nodes


def make(op, t: TensorType, val, ins: tuple, c=None) -> Value:
    """The result of ``op`` on Values ``ins``: a graph node if grad mode is on and an input
    requires grad, otherwise a plain leaf."""
    v = _new(Value)
    v._val = val
    v._t = t
    v._g = None
    v._ext = None
    for u in ins:
        if u._rg:
            if _grad_state.enabled:
                v._rg = True
                v._op = op
                if len(ins) == 1:
                    v._a = ins[0]
                    v._b = None
                else:
                    v._in = ins
                v._c = c
                v._seq = next_seq()
                return v
            break
    v._rg = False
    v._op = None
    v._a = None
    v._b = None
    v._c = None
    v._seq = 0
    return v


def leaf(val, t: TensorType, requires_grad: bool = False) -> Value:
    """A new leaf Value."""
    v = _new(Value)
    v._val = val
    v._t = t
    v._rg = requires_grad
    v._op = None
    v._a = None
    v._b = None
    v._c = None
    v._seq = 0
    v._g = None
    v._ext = None
    return v


def _float_type(t: TensorType) -> TensorType:
    return t if t.dtype.is_floating_point else t.with_dtype(_defaults["dtype"])


def unary(op, a: Value, keep_int: bool = False) -> Value:
    t = a._t
    if not keep_int and not t.dtype.is_floating_point:
        t = _float_type(t)
    r = t.dtype.round
    return make(op, t, r(op.forward(r, a._val)), (a,))


def _number_type(t: TensorType, c) -> TensorType:
    """Result type of tensor (op) Python number: a float number makes an integer tensor float."""
    if c.__class__ is float and not t.dtype.is_floating_point:
        return t.with_dtype(_defaults["dtype"])
    return t


def with_number(op, a: Value, c, float_result: bool = False, exact_number: bool = False) -> Value:
    """``a (op) c`` for a Python number ``c``, rounded to the result dtype first (PyTorch casts
    the wrapped number to the computation dtype) unless ``exact_number`` (pow keeps the double)."""
    t = _number_type(a._t, c)
    if float_result:
        t = _float_type(t)
    r = t.dtype.round
    if not exact_number:
        c = r(c)
    return make(op, t, r(op.forward(r, a._val, c)), (a,), c)


def binary(op, a: Value, b: Value, float_result: bool = False) -> Value:
    t = a._t if a._t is b._t else result_type(a._t, b._t)
    if float_result:
        t = _float_type(t)
    r = t.dtype.round
    return make(op, t, r(op.forward(r, a._val, b._val)), (a, b))


def _arith(op_number, op_tensor, compute, symbol: str, float_result: bool = False):
    """``Value (op) number`` and ``Value (op) Value`` for + - * /.

    The float32 and float64 cases are handled here in one call, because these four operators
    are most of any graph; other dtypes, promotion and broadcasting take ``with_number`` and
    ``binary``. ``compute`` is the double-precision operation (IEEE-safe for division).
    """

    def method(self, other):
        cls = other.__class__
        t = self._t
        if cls is float or cls is int:
            fast = t.fast
            if fast == 64:
                c = float(other)
                val = compute(self._val, c)
            elif fast == 32:
                # a program's constants repeat (``y * 1.0001`` in a loop): their float32 roundings
                # are kept, so a node shares its operand instead of holding a new float
                c = _f32_consts.get(other) if other else None  # 0.0 == -0.0: zeros are not kept
                if c is None:
                    c = round_f32(other)
                    if len(_f32_consts) < 1024:
                        _f32_consts[other] = c
                r = compute(self._val, c)
                val = 536870913.0 * r  # round_f32 inlined: see dtypes.round_f32
                val = val - (val - r)
                if not (_F32_LO <= val <= _F32_HI or -_F32_HI <= val <= -_F32_LO or r == 0.0):
                    val = round_f32(r)
            else:
                return with_number(op_number, self, other, float_result)
            v = _new(Value)
            v._val = val
            v._t = t
            v._g = None
            v._ext = None
            if self._rg and _grad_state.enabled:
                v._rg = True
                v._op = op_number
                v._a = self
                v._b = None
                v._c = c
                v._seq = next_seq()
            else:
                v._rg = False
                v._op = None
                v._a = None
                v._b = None
                v._c = None
                v._seq = 0
            return v
        if not isinstance(other, Value):
            return with_number(op_number, self, _number(other, symbol), float_result)
        if other._t is not t or not t.fast:
            return binary(op_tensor, self, other, float_result)
        val = compute(self._val, other._val)
        if t.fast == 32:
            r = val
            val = 536870913.0 * r
            val = val - (val - r)
            if not (_F32_LO <= val <= _F32_HI or -_F32_HI <= val <= -_F32_LO or r == 0.0):
                val = round_f32(r)
        v = _new(Value)
        v._val = val
        v._t = t
        v._g = None
        v._ext = None
        if (self._rg or other._rg) and _grad_state.enabled:
            v._rg = True
            v._op = op_tensor
            v._a = self
            v._b = other
            v._c = None
            v._seq = next_seq()
        else:
            v._rg = False
            v._op = None
            v._a = None
            v._b = None
            v._c = None
            v._seq = 0
        return v

    method.__name__ = f"__{op_number.__name__.lower().rstrip('c')}__"
    return method


def _is_number(x) -> bool:
    return x.__class__ in (float, int, bool)


def as_value(x, like: Value | None = None) -> Value:
    """A Value for a Python number, typed as PyTorch types a wrapped number."""
    if isinstance(x, Value):
        return x
    if x.__class__ is bool:
        return leaf(x, TensorType(dtypes.bool, ()))
    if x.__class__ is int:
        return leaf(x, TensorType(dtypes.int64, ()))
    if x.__class__ is float:
        d = like._t.dtype if (like is not None and like._t.dtype.is_floating_point) else _defaults["dtype"]
        return leaf(d.round(x), TensorType(d, ()))
    raise TypeError(f"expected a Tensor or a Python number, but got {type(x).__name__}")


def _number(x, what: str):
    if _is_number(x):
        return x
    raise TypeError(f"unsupported operand type(s) for {what}: 'Tensor' and '{type(x).__name__}'")


# ---------------------------------------------------------------- the class


class Value:
    """A scalar tensor: a one-element ``torch.Tensor`` of shape ``()`` or ``(1,)``, ``(1, 1)``...

    ``Value(data)`` (alias ``Tensor(data)``) builds a float32 tensor from a number or a nested
    one-element list, as ``torch.Tensor([5])`` does; use ``scalargrad.tensor`` for other dtypes.
    """

    __slots__ = ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_g", "_ext")
    __hash__ = object.__hash__

    @property
    def _in(self) -> tuple:
        """The op's input Values (``()`` for a leaf), from the ``_a``/``_b`` slots."""
        b = self._b
        if b is None:
            a = self._a
            return () if a is None else (a,)
        return self._a if b is MANY else (self._a, b)

    @_in.setter
    def _in(self, ins: tuple) -> None:
        n = len(ins)
        if n <= 2:
            self._a = ins[0] if n else None
            self._b = ins[1] if n == 2 else None
        else:
            self._a = tuple(ins)
            self._b = MANY

    def __new__(cls, *args, **kwargs):
        # ``Tensor([1., 2.])`` holds several elements: it is a multi-element tensor (shaped.py)
        if cls is Value and args and not kwargs:
            from .factories import multi_element_tensor

            t = multi_element_tensor(args)
            if t is not None:
                return t
        return object.__new__(cls)

    def __init__(self, *args, **kwargs) -> None:
        from .factories import init_tensor_from_args

        init_tensor_from_args(self, args, kwargs)

    def __getattr__(self, name: str):
        # only reached when normal lookup fails: a Tensor method scalargrad does not have
        if name.startswith("_"):
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        from .errors import Unsupported

        raise Unsupported(f"Tensor.{name}")

    # ------------------------------------------------------------ data and metadata

    @property
    def data(self) -> Value:
        """A tensor sharing this one's storage, outside the graph (as ``Tensor.data``)."""
        return DataView(self)

    @data.setter
    def data(self, new) -> None:
        new = as_value(new, self)
        self._val = new._val
        self._t = new._t

    @property
    def dtype(self):
        return self._t.dtype

    @property
    def shape(self) -> dtypes.Size:
        return self._t.shape

    @property
    def ndim(self) -> int:
        return len(self._t.shape)

    def dim(self) -> int:
        return len(self._t.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return self._t.shape
        return self._t.shape[dim]

    def numel(self) -> int:
        return 1

    nelement = numel

    @property
    def device(self):
        from .factories import device

        return device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self._t.dtype.is_floating_point

    def item(self):
        """The number, as a Python float (int, bool for integer dtypes)."""
        return self._val

    def tolist(self):
        v = self._val
        for _ in self._t.shape:
            v = [v]
        return v

    def __float__(self) -> float:
        return float(self._val)

    def __int__(self) -> int:
        return int(self._val)

    def __index__(self) -> int:
        if self._t.dtype.is_floating_point:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._val)

    def __bool__(self) -> bool:
        return bool(self._val)

    def __len__(self) -> int:
        if not self._t.shape:
            raise TypeError("len() of a 0-d tensor")
        return self._t.shape[0]

    def __iter__(self):
        if not self._t.shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter([self[0]])

    def __getitem__(self, index) -> Value:
        shape = self._t.shape
        if index is Ellipsis or (isinstance(index, tuple) and not index):
            return make(ops.Alias, self._t, self._val, (self,))
        if isinstance(index, int) and not isinstance(index, bool):
            if not shape:
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
            if index not in (0, -1):
                raise IndexError(f"index {index} is out of bounds for dimension 0 with size 1")
            op = ops.Select
            return make(op, TensorType(self._t.dtype, shape[1:]), self._val, (self,))
        raise NotImplementedError(
            f"scalargrad supports indexing a one-element tensor with 0 or -1, not {index!r} "
            "(multi-element tensors are not supported yet)")

    def __repr__(self) -> str:
        t = self._t
        name = None
        if self._op is not None:
            name = self.grad_fn.name()
        return tensor_repr([self._val], t.shape, t.dtype, requires_grad=self._rg, grad_fn=name,
                           default_dtype=_defaults["dtype"])

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # PyTorch formats a plain 0-dim tensor as its number; anything else as its repr.
        if not self._t.shape and type(self) in (Value, DataView):
            return format(self._val, spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    # ------------------------------------------------------------ autograd attributes

    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Value:
        """Set requires_grad on a leaf (in place); returns self."""
        if self._op is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach().")
            return self
        if requires_grad and not self._t.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._rg = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self._op is None

    @property
    def grad_fn(self):
        """The Node that made this Value (``<MulBackward0 ...>``), None for a leaf."""
        if self._op is None:
            return None
        e = _ext(self)
        if e.pick is not None:
            return e.pick[0].grad_fn
        if e.node is None:
            from .autograd.graph import node_for

            e.node = node_for(self)
        return e.node

    @property
    def _grad(self):
        """``.grad`` without the non-leaf warning: a Value or None."""
        g = self._g
        if g is None or isinstance(g, Value):
            return g
        g = self._g = leaf(g, self._t)
        return g

    @_grad.setter
    def _grad(self, g) -> None:
        self._g = g

    @property
    def grad(self):
        """The accumulated gradient (leaves, or non-leaves after ``retain_grad()``)."""
        if self._op is not None and (self._ext is None or not self._ext.retain) and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, g) -> None:
        if g is not None and not isinstance(g, Value):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(g).__name__}")
        self._grad = g

    @property
    def retains_grad(self) -> bool:
        return self._op is not None and self._ext is not None and self._ext.retain

    def retain_grad(self) -> None:
        """Make backward store this non-leaf's gradient in ``.grad`` (after all its hooks)."""
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._op is not None:
            _ext(self).retain = True

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return
        replaces the gradient. Returns a handle whose ``remove()`` unregisters it."""
        from .utils.hooks import add_hook

        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        e = _ext(self)
        if e.hooks is None:
            e.hooks = OrderedDict()
        return add_hook(e.hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after the gradient has been accumulated into ``.grad`` (leaves)."""
        from .utils.hooks import add_hook

        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._op is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        e = _ext(self)
        if e.post_acc is None:
            e.post_acc = OrderedDict()
        return add_hook(e.post_acc, hook)

    def backward(self, gradient=None, retain_graph: bool | None = None, create_graph: bool = False,
                 inputs=None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see ``autograd.backward``)."""
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Value:
        """A new leaf sharing this tensor's storage, outside the graph."""
        return DataView(self)

    def __deepcopy__(self, memo: dict) -> Value:
        # copy.deepcopy (of a tensor, or of a Module holding buffers): leaves only, as PyTorch
        if self._op is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
                "the moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = memo[id(self)] = leaf(self._val, self._t, self._rg)
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        return new

    def detach_(self) -> Value:
        self._op = None
        self._a = None
        self._b = None
        self._c = None
        self._rg = False
        self._ext = None
        return self

    def clone(self) -> Value:
        return make(ops.Clone, self._t, self._val, (self,))

    @staticmethod
    def _to_dtype(args: tuple, kwargs: dict):
        """The dtype that ``to(*args, **kwargs)`` asks for, or None; devices other than the CPU
        are refused."""
        dt = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.dtype):
                dt = a
            elif isinstance(a, Value):
                dt = a.dtype
            elif a is not None and str(a) != "cpu":
                raise RuntimeError(f"scalargrad runs on the CPU only; cannot move a tensor to {a}")
        dev = kwargs.get("device")
        if dev is not None and str(dev) != "cpu":
            raise RuntimeError(f"scalargrad runs on the CPU only; cannot move a tensor to {dev}")
        return dt

    def to(self, *args, **kwargs) -> Value:
        """Convert dtype (``to(torch.float64)``); devices other than the CPU are refused."""
        dt = self._to_dtype(args, kwargs)
        if dt is None or dt is self._t.dtype:
            return self
        t = self._t.with_dtype(dt)
        return make(ops.ToCopy, t, dt.round(self._val), (self,))

    def float(self) -> Value:
        return self.to(dtypes.float32)

    def double(self) -> Value:
        return self.to(dtypes.float64)

    def cpu(self) -> Value:
        return self

    def type(self, dtype=None):
        if dtype is None:
            return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
                    "int64": "torch.LongTensor", "bool": "torch.BoolTensor"}[self._t.dtype.name]
        return self.to(dtype)

    # ------------------------------------------------------------ arithmetic

    __add__ = __radd__ = _arith(ops.AddC, ops.Add, operator.add, "+")
    __sub__ = _arith(ops.SubC, ops.Sub, operator.sub, "-")

    def __rsub__(self, other) -> Value:
        return with_number(ops.RSubC, self, _number(other, "-"))

    __mul__ = __rmul__ = _arith(ops.MulC, ops.Mul, operator.mul, "*")
    __truediv__ = _arith(ops.DivC, ops.Div, ieee.div, "/", float_result=True)

    def __rtruediv__(self, other) -> Value:
        # PyTorch computes number / tensor as reciprocal(tensor) * number
        return with_number(ops.MulC, unary(ops.Reciprocal, self), _number(other, "/"))

    def __pow__(self, other) -> Value:
        if isinstance(other, Value):
            return binary(ops.Pow, self, other)
        if other.__class__ is int and other < 0 and not self._t.dtype.is_floating_point:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return with_number(ops.PowC, self, _number(other, "**"), exact_number=True)

    def __rpow__(self, other) -> Value:
        return with_number(ops.RPowC, self, _number(other, "**"), exact_number=True)

    def __neg__(self) -> Value:
        return unary(ops.Neg, self, keep_int=True)

    def __pos__(self) -> Value:
        return self

    def __abs__(self) -> Value:
        return unary(ops.Abs, self, keep_int=True)

    def __matmul__(self, other):
        from .products import matmul

        return matmul(self, other)

    def __rmatmul__(self, other):
        from .products import matmul

        return matmul(other, self)

    def __floordiv__(self, other):
        other = as_value(other, self)
        t = result_type(self._t, other._t)
        import math

        return leaf(t.dtype.round(math.floor(_div(self._val, other._val))), t)

    # in place: see _inplace for PyTorch's rules
    def __iadd__(self, other):
        return _inplace(self, self.__add__, other)

    def __isub__(self, other):
        return _inplace(self, self.__sub__, other)

    def __imul__(self, other):
        return _inplace(self, self.__mul__, other)

    def __itruediv__(self, other):
        return _inplace(self, self.__truediv__, other)

    def add_(self, other, alpha=1):
        return _inplace(self, self.__add__, other * alpha if alpha != 1 else other)

    def sub_(self, other, alpha=1):
        return _inplace(self, self.__sub__, other * alpha if alpha != 1 else other)

    def mul_(self, other):
        return _inplace(self, self.__mul__, other)

    def div_(self, other):
        return _inplace(self, self.__truediv__, other)

    def fill_(self, value):
        value = value.item() if isinstance(value, Value) else value
        return _inplace(self, lambda _: leaf(self._t.dtype.round(value), self._t), None)

    def zero_(self):
        return self.fill_(0)

    def copy_(self, src):
        src = as_value(src, self)
        return _inplace(self, lambda _: make(ops.ToCopy, self._t, self._t.dtype.round(src._val), (src,)), None)

    # comparisons give Python bools (scalargrad has no bool tensors); hashing stays by identity
    def __eq__(self, other):
        return self._val == _cmp(other)

    def __ne__(self, other):
        return self._val != _cmp(other)

    def __lt__(self, other):
        return self._val < _cmp(other)

    def __le__(self, other):
        return self._val <= _cmp(other)

    def __gt__(self, other):
        return self._val > _cmp(other)

    def __ge__(self, other):
        return self._val >= _cmp(other)

    # ------------------------------------------------------------ named ops

    def add(self, other, alpha=1):
        return self + (other * alpha if alpha != 1 else other)

    def sub(self, other, alpha=1):
        return self - (other * alpha if alpha != 1 else other)

    subtract = sub

    def mul(self, other):
        return self * other

    multiply = mul

    def div(self, other, rounding_mode=None):
        if rounding_mode is not None:
            raise NotImplementedError("div with rounding_mode is not supported by scalargrad")
        return self / other

    divide = true_divide = div

    def pow(self, exponent):
        return self**exponent

    def square(self):
        return self**2

    def neg(self):
        return -self

    negative = neg

    def reciprocal(self):
        return unary(ops.Reciprocal, self)

    def log(self):
        return unary(ops.Log, self)

    def exp(self):
        return unary(ops.Exp, self)

    def sqrt(self):
        return unary(ops.Sqrt, self)

    def tanh(self):
        return unary(ops.Tanh, self)

    def sigmoid(self):
        return unary(ops.Sigmoid, self)

    def relu(self):
        return unary(ops.Relu, self, keep_int=True)

    def abs(self):
        return unary(ops.Abs, self, keep_int=True)

    absolute = abs

    def sin(self):
        return unary(ops.Sin, self)

    def cos(self):
        return unary(ops.Cos, self)

    def clamp(self, min=None, max=None):  # noqa: A002 - PyTorch's parameter names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        if isinstance(min, Value) or isinstance(max, Value):
            out = self
            if min is not None:
                out = out.maximum(as_value(min, self))
            if max is not None:
                out = out.minimum(as_value(max, self))
            return out
        t = self._t
        r = t.dtype.round
        if t.dtype is not dtypes.float64:
            for bound in (min, max):  # PyTorch converts a clamp bound with an overflow check
                if bound.__class__ is float and _F32_HI < abs(bound) < math.inf:
                    raise RuntimeError("value cannot be converted to type float without overflow")
        c = (None if min is None else r(min), None if max is None else r(max))
        return make(ops.Clamp, t, r(ops.Clamp.forward(r, self._val, c)), (self,), c)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002
        return self.clamp(min=min)

    def clamp_max(self, max):  # noqa: A002
        return self.clamp(max=max)

    def minimum(self, other):
        return binary(ops.Minimum, self, as_value(other, self))

    def maximum(self, other):
        return binary(ops.Maximum, self, as_value(other, self))

    def sum(self, dim=None, keepdim: bool = False, dtype=None):
        t = self._t if (keepdim and dim is not None) else TensorType(self._t.dtype, ())
        if dim is not None and not keepdim:
            t = TensorType(self._t.dtype, _drop_dim(self._t.shape, dim))
        return make(ops.Sum, t, self._val, (self,))

    def mean(self, dim=None, keepdim: bool = False, dtype=None):
        if not self._t.dtype.is_floating_point:
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating point "
                f"or complex dtype. Got: {'Long' if self._t.dtype is dtypes.int64 else 'Bool'}")
        t = self._t if (keepdim and dim is not None) else TensorType(self._t.dtype, ())
        if dim is not None and not keepdim:
            t = TensorType(self._t.dtype, _drop_dim(self._t.shape, dim))
        return make(ops.Mean, t, self._val, (self,))

    # ------------------------------------------------------------ shape (all shapes are ones)

    def view(self, *shape):
        return _reshaped(self, ops.View, shape)

    def reshape(self, *shape):
        return _reshaped(self, ops.View, shape)

    def expand(self, *shape):
        return _reshaped(self, ops.Expand, shape, expand=True)

    def squeeze(self, dim=None):
        if dim is None:
            return make(ops.Squeeze, TensorType(self._t.dtype, ()), self._val, (self,))
        return make(ops.SqueezeDim, TensorType(self._t.dtype, _drop_dim(self._t.shape, dim)), self._val, (self,))

    def unsqueeze(self, dim: int):
        shape = list(self._t.shape)
        n = len(shape) + 1
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        shape.insert(dim % n, 1)
        return make(ops.Unsqueeze, TensorType(self._t.dtype, tuple(shape)), self._val, (self,))


Tensor = Value


class DataView(Value):
    """``t.data`` / ``t.detach()``: a leaf that reads and writes the storage of ``t``."""

    __slots__ = ("_base",)

    def __init__(self, base: Value) -> None:
        while isinstance(base, DataView):
            base = base._base
        self._base = base
        self._t = base._t
        self._rg = False
        self._op = None
        self._a = None
        self._b = None
        self._c = None
        self._seq = 0
        self._g = None
        self._ext = None

    @property
    def _val(self):
        return self._base._val

    @_val.setter
    def _val(self, x) -> None:
        self._base._val = x


def _div(a, b):
    from .ieee import div

    return div(a, b)


def _cmp(other):
    if isinstance(other, Value):
        return other._val
    return other


def _drop_dim(shape, dim):
    n = len(shape)
    if n == 0:
        if dim in (0, -1):
            return ()
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    s = list(shape)
    del s[dim % n]
    return tuple(s)


def _reshaped(v: Value, op, shape, expand: bool = False) -> Value:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    new = []
    for i, s in enumerate(shape):
        if s == -1:
            s = 1 if not expand else (v._t.shape[i - len(shape) + len(v._t.shape)]
                                      if i - len(shape) + len(v._t.shape) >= 0 else 1)
        if s != 1:
            if expand:  # a one-element tensor expanded to several elements (shaped.py)
                from .shaped import _expand

                return _expand(v, tuple(shape))
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size 1")
        new.append(1)
    if expand and len(new) < len(v._t.shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(v._t.shape)}}}, size={list(shape)}): the number of sizes "
            f"provided ({len(shape)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(v._t.shape)})")
    if op is ops.View and v._op is None and False:
        pass
    return make(op, TensorType(v._t.dtype, tuple(new)), v._val, (v,))


def _inplace(self: Value, compute, other) -> Value:
    """PyTorch's in-place rules on a Value.

    A leaf that requires grad may only change under no_grad. Without a graph to record, the
    number changes in place and the version stamp moves on (so a node that saved the old value
    refuses to backward, as PyTorch does). With a graph, the Value is rebased: a snapshot takes
    its old identity in the graph and the Value becomes the in-place op's result; the engine
    routes older consumers' gradients to the snapshot.
    """
    if self._rg and self._op is None and _grad_state.enabled:
        raise RuntimeError(LEAF_INPLACE)
    if self._rg and _grad_state.enabled and getattr(self._op, "check_inplace", None) is not None:
        self._op.check_inplace(self)  # a custom Function's output that PyTorch makes a view
    if isinstance(other, Value) and other.numel() != 1:  # a multi-element operand (shaped.py)
        from .shaped import broadcast_shapes

        raise RuntimeError(f"output with shape {list(self._t.shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shapes(self._t.shape, other._t.shape))}")
    res = compute(other)
    if res._t.dtype is not self._t.dtype and promote_types(res._t.dtype, self._t.dtype) is not self._t.dtype:
        names = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}
        raise RuntimeError(f"result type {names[res._t.dtype.name]} can't be cast to the desired output type "
                           f"{names[self._t.dtype.name]}")
    if res._op is None:
        self._val = self._t.dtype.round(res._val)
        if not isinstance(self, DataView):
            self._seq = next_seq()
        return self
    old = _new(Value)
    for s in Value.__slots__:
        setattr(old, s, getattr(self, s))
    if old._ext is not None and old._ext.node is not None:
        # the grad_fn object belongs to the old version
        e = _Ext()
        e.node = old._ext.node
        old._ext = e
        self._ext.node = None
    if old._ext is not None and old._op is not None and old._ext.node is not None:
        old._ext.node._v = old
    if old._op is not None and old._op.saves_output:
        old._op = old._op.stale  # the result its backward reads has just changed
    self._val = res._val
    self._t = self._t if res._t is self._t else TensorType(self._t.dtype, res._t.shape)
    self._rg = True
    self._op = res._op
    self._in = tuple(old if u is self else u for u in res._in)
    self._c = res._c
    self._seq = res._seq
    return self


def is_tensor(obj: Any) -> bool:
    """True for scalargrad tensors (Values and Parameters)."""
    return isinstance(obj, Value)
