"""``Tensor``: every tensor of every shape, and the node of the graph that made it.

A tensor holds its numbers in ``_val``: the number itself for a 0-dim tensor, a flat list in
row-major order for any other shape (one element included). Its dtype, shape and strides are
the interned ``_t`` (``_base/dtypes.TensorType``). When it was computed from tensors that
require grad, it is also the graph node of the op that made it: ``_op`` (a class of the op
table, ``_ops``) and that op's inputs. One node per tensor op, as in PyTorch.

A 0-dim graph is the hot case (a scalar program builds millions of nodes): ``+ - * /``
between 0-dim float tensors and Python numbers are written out here with their float32
rounding inline; every other case goes to ``elementwise.py`` through ``_impl``. There are no per-node
closures: an op is a class shared by all its nodes, so building a graph creates no cycles.

Slots, for the engine's sake:
    _val   the number (float; int or bool for integer dtypes), or the flat list of elements
    _t     the interned TensorType (dtype, shape, strides)
    _rg    requires_grad
    _op    the op class that made it, None for a leaf
    _a, _b the op's tensor inputs: (None, None) for a leaf, (x, None) for one input, (x, y) for two,
           (tuple, MANY) for more; ``_in`` reads and writes them as a tuple. Two slots rather than a
           tuple: every object that holds references is one more for Python's cyclic collector to walk.
    _c     the op's constant: a Python-number operand, a layout, a custom Function's ctx
    _seq   creation number of a node (PyTorch's sequence_nr: the backward order); for a leaf, the stamp
           of its last in-place change (0: never), compared with the creation number of nodes that saved it
    _g     accumulated .grad (leaves and retain_grad): None, a Tensor, or the bare number /
           list that the ``_grad`` property turns into a Tensor when it is first read
    _ext   None, or an ``Ext`` with what backward observes: hooks, grad_fn, retain_grad (-> the exact path)
    _s     None, or the tensor's ``storage.Mem``: its version counter, and the tensors it
           shares memory with (views, ``.data``, ``.detach()``)
"""

from __future__ import annotations

import itertools
import operator
import warnings
from collections import OrderedDict

from .._base import dtypes
from .._base import grad_mode as _grad_mode
from .._base import numpy_types as NP
from .._base.dtypes import FLOAT32_MAX, FLOAT32_MIN_NORMAL, TensorType, round_f32
from .._base.errors import Unsupported
from .._base.grad_mode import state as _grad_state
from .._base.handles import add_hook
from .._base.ieee import div
from .._base.meta_data import NO_DATA, item_error
from .._base.scalar_conversion import float_conversion, one_element
from .._ops import arithmetic as AR
from .._ops import unary as UN

__all__ = ["Tensor", "make", "leaf", "MANY", "next_seq", "is_tensor", "get_default_dtype", "set_default_dtype",
           "impl", "flat", "defaults", "Constant", "constant", "set_dual"]

next_seq = itertools.count(1).__next__
MANY = type("Many", (), {"__repr__": lambda self: "MANY", "__slots__": ()})()  # _b of a node with 3+ inputs
INFERENCE = type("Inference", (), {"__repr__": lambda self: "INFERENCE", "__slots__": ()})()
"""A leaf's ``_c`` when it was made in inference mode (an inference tensor); a leaf has no
other use for ``_c``."""
GRADLESS_VIEW = type("GradlessView", (), {"__repr__": lambda self: "GRADLESS_VIEW", "__slots__": ()})()
"""A leaf's ``_c`` when it is a view made with grad mode off (no_grad, inference mode) of a
normal tensor that requires grad: it requires grad without a history; PyTorch accumulates
nothing into it and refuses to change it in place in grad mode (its CreationMeta)."""
_leaf_c = None  # what a new leaf's _c is: INFERENCE while inference mode is on
_watch = False  # new nodes are shown to node_watchers (inference tensors, saved-tensor hooks, anomaly mode)
_watch_reasons: set = set()


def watch(reason: str, on: bool) -> None:
    """Start or stop showing new nodes to ``node_watchers`` for ``reason``. Off (the usual
    case), making a node pays one test of a global for it."""
    global _watch
    if on:
        _watch_reasons.add(reason)
    else:
        _watch_reasons.discard(reason)
    _watch = bool(_watch_reasons)


node_watchers: list = []
"""Callables ``fn(node)`` shown each new node while ``watch`` is on (the inference-tensor check
and saved-tensor hooks, anomaly mode's forward tracebacks)."""


def _watched(v) -> None:
    for fn in node_watchers:
        fn(v)


_inference_threads = 0  # threads inside inference mode now


def _inference_changed(on: bool) -> None:
    """Told by grad_mode when inference mode starts or ends in the calling thread. Inference
    mode is per thread, as in PyTorch; ``_leaf_c`` is set while any thread is in it, so that a
    new leaf pays one test of a global otherwise and asks its own thread (``_leaf_c_here``)
    only then. Once inference tensors exist, new nodes check that they do not save one."""
    global _leaf_c, _inference_threads
    _inference_threads = max(0, _inference_threads + (1 if on else -1))
    _leaf_c = INFERENCE if _inference_threads else None
    if on:
        watch("inference", True)


def _leaf_c_here():
    """A new leaf's ``_c`` in this thread while some thread is in inference mode."""
    return INFERENCE if _grad_state.inference else None


_grad_mode.inference_listeners.append(_inference_changed)
_F32_LO, _F32_HI = FLOAT32_MIN_NORMAL, FLOAT32_MAX  # float32's normal range
_new = object.__new__
_f32_consts: dict = {}  # Python float -> its float32 rounding, for the + - * / fast path
_f32_int_consts: dict = {}  # the same for Python ints (2 and 2.0 are one dict key, not one constant)


class Constant(float):
    """A Python-number operand as a node keeps it: the rounded float the arithmetic uses, and
    the number as given (``number``), which PyTorch saves (``_saved_other`` of ``x * 2`` is
    ``tensor(2)``, of ``x * 0.1`` the double 0.1)."""

    __slots__ = ("number",)

    def __new__(cls, value: float, number):
        c = float.__new__(cls, value)
        c.number = number
        return c


def constant(number, rounded: float) -> float:
    """``rounded`` (``number`` cast to the operation's dtype), remembering ``number`` when it
    differs: an int, a bool, or a float that the cast changed."""
    if number.__class__ is float and (rounded == number or number != number):
        return rounded
    if number.__class__ is Constant:  # a node's operand used again (a derivative's ``grad * other``)
        number = number.number
    return Constant(rounded, number)

defaults = {"dtype": dtypes.float32}


def get_default_dtype():
    """The dtype of tensors made from Python floats (float32 unless changed)."""
    return defaults["dtype"]


def set_default_dtype(d) -> None:
    """Make ``d`` (torch.float32 or torch.float64) the default floating dtype."""
    if not isinstance(d, dtypes.dtype) or d not in (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16):
        raise dtypes.not_a_default(d, isinstance(d, dtypes.dtype), "dtype")
    defaults["dtype"] = d


_INFERENCE_REQUIRES_GRAD = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. "
    "See github.com/pytorch/pytorch/pull/30531 for more information."
)


class _Impl:
    """What the class needs from the modules built on it (build, storage, nodes, the engine):
    they register their functions here at import, so that this module imports none of them."""

    binary = None  # (op, a, b) -> Tensor: an elementwise op on tensors/numbers, any shapes
    view_history = None  # (view made with grad mode off) -> None, or PyTorch's error reading its history
    views_follow = None  # (leaf whose requires_grad changed) -> None: its views' flags follow it
    unary = None  # (op, a) -> Tensor
    node_for = None  # (tensor) -> its grad_fn Node object
    backward = None  # Tensor.backward
    construct = None  # (cls, args, kwargs) -> Tensor: the legacy constructor Tensor(...)
    repr = None  # (tensor) -> str
    data = None  # (tensor) -> the .data alias
    set_data = None  # (tensor, new) -> None
    detach = None  # (tensor) -> the detach() alias
    set_grad = None  # (tensor, grad) -> None: validated .grad assignment
    wrap_grad = None  # (tensor, raw gradient) -> Tensor
    register_hook = None  # (tensor, hook) -> handle: Tensor.register_hook


impl = _Impl()


class Ext:
    """The rarely used parts of a tensor that backward can observe; its presence sends the
    engine to its exact path."""

    __slots__ = ("node", "hooks", "retain", "post_acc", "pick", "modified", "saved_version", "packed", "trace",
                 "saved_self", "unpacked_out", "out_hooks", "detached")

    def __init__(self) -> None:
        self.node = None  # the grad_fn (or AccumulateGrad) object, made on first request
        self.hooks = None  # OrderedDict of tensor hooks
        self.retain = False  # retain_grad() was called
        self.post_acc = None  # OrderedDict of post-accumulate-grad hooks
        self.pick = None  # (hidden node, index) for an output of a multi-output node
        self.modified = 0  # a non-leaf changed in place under no_grad: the change's stamp
        self.saved_version = 0  # a stale node's saved tensor: the version it was saved at
        self.packed = None  # saved-tensor hooks: {saved name: (source, packed value, unpack hook)}
        self.trace = None  # anomaly mode: the traceback of the forward call that made this node
        self.saved_self = None  # an in-place op's node: the clone of self it saved (CloneBackward0)
        self.unpacked_out = None  # a create_graph stand-in (saved_hooks.unpacked): the result its formula reads
        self.out_hooks = None  # a multi-output node: its outputs with tensor hooks, by their first hook
        self.detached = None  # detach_() of a node: (the node it was, the detach's stamp), for older consumers


def ext(v: Tensor) -> Ext:
    e = v._ext
    if e is None:
        e = v._ext = Ext()
    return e


def flat(v: Tensor) -> list:
    """The elements of ``v`` in row-major order (a new list for a 0-dim tensor)."""
    return v._val if v._t.ndim else [v._val]


# ---------------------------------------------------------------- building nodes


_dual = None  # make's hook fn(v, op, ins, c): forward AD's tangents and/or vmap's batch marks (make_hooks.py)
_read = None  # vmap's fn(t) before an element of t is read into Python (make_hooks.py)


def set_dual(hook) -> None:
    """Install forward-mode AD's tangent hook (None while no tangent exists: an op pays one test)."""
    global _dual
    _dual = hook


def make(op, t: TensorType, val, ins: tuple, c=None) -> Tensor:
    """The result of ``op`` on tensors ``ins``: a graph node if grad mode is on and an input
    requires grad, otherwise a plain leaf. ``op`` is the declared (0-dim) op; a node whose
    result or inputs have dimensions runs its bulk variant."""
    v = _new(Tensor)
    v._val = val
    v._t = t
    v._g = None
    v._ext = None
    v._s = None
    for u in ins:
        if u._rg:
            if _grad_state.enabled and op.differentiable:
                v._rg = True
                if t.ndim:
                    op = op.tensor
                else:
                    for w in ins:
                        if w._t.ndim:
                            op = op.tensor
                            break
                v._op = op
                if len(ins) == 1:
                    v._a = ins[0]
                    v._b = None
                else:
                    v._in = ins
                v._c = c
                v._seq = next_seq()
                if _watch:
                    _watched(v)
                if _dual is not None:
                    _dual(v, op, ins, c)
                return v
            break
    v._rg = False
    v._op = None
    v._a = None
    v._b = None
    v._c = _leaf_c and _leaf_c_here()
    v._seq = 0
    if _dual is not None:
        _dual(v, op, ins, c)
    return v


def leaf(val, t: TensorType, requires_grad: bool = False, cls=None) -> Tensor:
    """A new leaf tensor."""
    v = _new(cls or Tensor)
    v._val = val
    v._t = t
    v._rg = requires_grad
    v._op = None
    v._a = None
    v._b = None
    v._c = _leaf_c and _leaf_c_here()
    v._seq = 0
    v._g = None
    v._ext = None
    v._s = None
    return v


def _arith(op_number, op_tensor, compute, symbol: str):
    """``Tensor (op) number`` and ``Tensor (op) Tensor`` for + - * / of 0-dim float tensors.

    These four operators are most of any scalar graph, so the float32 and float64 cases are
    handled here in one call; every other case (shapes, other dtypes, promotion) goes to
    ``elementwise.py``. ``compute`` is the double-precision operation (IEEE-safe for division).
    """

    def method(self, other):
        if _dual is not None:  # forward-mode AD: the general path (make), whose results get tangents
            return impl.binary(op_tensor, self, other)
        cls = other.__class__
        t = self._t
        if cls is float or cls is int:
            fast = t.fast
            if fast == 64:
                c = other if cls is float else constant(other, float(other))
                val = compute(self._val, c)
            elif fast == 32:
                # a program's constants repeat (``y * 1.0001`` in a loop): their float32 roundings
                # are kept, so a node shares its operand instead of holding a new float
                consts = _f32_consts if cls is float else _f32_int_consts
                c = consts.get(other) if other else None  # 0.0 == -0.0: zeros are not kept
                if c is None:
                    c = constant(other, round_f32(other))
                    if len(consts) < 1024:
                        consts[other] = c
                r = compute(self._val, c)
                val = 536870913.0 * r  # round_f32 inlined: see dtypes.round_f32
                val = val - (val - r)
                if not (_F32_LO <= val <= _F32_HI or -_F32_HI <= val <= -_F32_LO or r == 0.0):
                    val = round_f32(r)
            else:
                return impl.binary(op_tensor, self, other)
            v = _new(Tensor)
            v._val = val
            v._t = t
            v._g = None
            v._ext = None
            v._s = None
            if self._rg and _grad_state.enabled:
                v._rg = True
                v._op = op_number
                v._a = self
                v._b = None
                v._c = c
                v._seq = next_seq()
                if _watch:
                    _watched(v)
            else:
                v._rg = False
                v._op = None
                v._a = None
                v._b = None
                v._c = _leaf_c and _leaf_c_here()
                v._seq = 0
            return v
        if not isinstance(other, Tensor):
            if isinstance(other, (int, float, complex)) and other.__class__.__module__ != "numpy":
                return impl.binary(op_tensor, self, other)  # a complex number: complex_numbers
            return _not_an_operand(other, lambda n: method(self, n))
        if other._t is not t or not t.fast:
            return impl.binary(op_tensor, self, other)
        val = compute(self._val, other._val)
        if t.fast == 32:
            r = val
            val = 536870913.0 * r
            val = val - (val - r)
            if not (_F32_LO <= val <= _F32_HI or -_F32_HI <= val <= -_F32_LO or r == 0.0):
                val = round_f32(r)
        v = _new(Tensor)
        v._val = val
        v._t = t
        v._g = None
        v._ext = None
        v._s = None
        if (self._rg or other._rg) and _grad_state.enabled:
            v._rg = True
            v._op = op_tensor
            v._a = self
            v._b = other
            v._c = None
            v._seq = next_seq()
            if _watch:
                _watched(v)
        else:
            v._rg = False
            v._op = None
            v._a = None
            v._b = None
            v._c = _leaf_c and _leaf_c_here()
            v._seq = 0
        return v

    method.__name__ = f"__{op_tensor.__name__.lower()}__"
    return method


def _div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        return div(a, b)


def refuse_complex(*operands) -> None:
    """scalargrad's one refusal of a complex number among ``operands`` (PyTorch would compute a
    complex tensor), by name instead of a TypeError about the operand's type."""
    for x in operands:
        if isinstance(x, complex):
            raise Unsupported("complex numbers and complex dtypes")


def _not_an_operand(other, retry=None):
    """What an arithmetic operator returns for an operand it does not take: NotImplemented, so
    that Python tries the other operand (a NumPy array: NumPy computes, ``numpy_bridge``); a
    complex number is refused (``refuse_complex``); a NumPy scalar is the Python number PyTorch
    reads, given to ``retry`` (the operator)."""
    refuse_complex(other)
    n = NP.number(other) if retry is not None else None
    return NotImplemented if n is None else retry(n)


def _bitwise_operand(other, op, t):
    """``t & 1.5``: ATen refuses the float computation; other operands as arithmetic's."""
    if other.__class__ is float:
        return impl.binary(op, t, other)
    return _not_an_operand(other)


def _operator(op, name: str, reflected: bool = False):
    """``tensor (op) x`` (a Tensor or a Python number), or reflected ``number (op) tensor``."""

    def method(self, other):
        if other.__class__ in (float, int, bool) or not reflected and isinstance(other, Tensor):
            return impl.binary(op, other, self) if reflected else impl.binary(op, self, other)
        return _not_an_operand(other, lambda n: method(self, n))

    method.__name__ = f"__{'r' * reflected}{name}__"
    method.__qualname__ = "Tensor." + method.__name__
    return method


def _reflected(op):
    """``number (op) tensor`` for a commutative op: the same method, operands swapped by Python."""

    def method(self, other):
        if isinstance(other, (Tensor, int, float, complex)) and other.__class__.__module__ != "numpy":
            return impl.binary(op, other, self)
        return _not_an_operand(other, lambda n: method(self, n))

    return method


# ---------------------------------------------------------------- the class


class Tensor:
    """``torch.Tensor``: a tensor of any shape, float32 unless another dtype is asked for.

    ``Tensor(data)`` builds a float32 tensor from nested lists (``Tensor([[1, 2], [3, 4]])``),
    ``Tensor(2, 3)`` an uninitialised one of that shape (scalargrad fills it with zeros), as
    PyTorch's legacy constructor does; use ``scalargrad.tensor`` for other dtypes.
    """

    __slots__ = ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_g", "_ext", "_s", "__weakref__")
    __hash__ = object.__hash__

    @property
    def _in(self) -> tuple:
        """The op's input tensors (``()`` for a leaf), from the ``_a``/``_b`` slots."""
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
        return impl.construct(cls, args, kwargs)

    def __init__(self, *args, **kwargs) -> None:
        pass  # built by __new__

    # ------------------------------------------------------------ data and metadata

    @property
    def data(self) -> Tensor:
        """A tensor sharing this one's storage, outside the graph (as ``Tensor.data``)."""
        return impl.data(self)

    @data.setter
    def data(self, new) -> None:
        impl.set_data(self, new)

    @property
    def dtype(self):
        return self._t.dtype

    @property
    def shape(self) -> dtypes.Size:
        return self._t.shape

    @property
    def ndim(self) -> int:
        return self._t.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._t.ndim

    ndimension = dim

    def numel(self) -> int:
        """The number of elements."""
        return self._t.numel

    nelement = numel

    @property
    def _version(self) -> int:
        """How many times this tensor's storage was changed in place."""
        if self._c is INFERENCE and self._op is None:
            raise RuntimeError("Inference tensors do not track version counter.")
        s = self._s
        return 0 if s is None else s.ver.n

    def item(self):
        """The one element, as a Python float (int, bool for integer dtypes)."""
        if _read is not None:
            _read(self)
        t = self._t
        if t.numel != 1 or self._val is NO_DATA:  # a meta tensor has no element to give
            raise RuntimeError(item_error(t.numel))
        return self._val if not t.ndim else self._val[0]

    def __float__(self) -> float:
        float_conversion(self._t.numel, self.requires_grad)
        return float(self.item())

    def __int__(self) -> int:
        one_element(self._t.numel)
        x = self.item()
        if x != x:
            raise ValueError("cannot convert float NaN to integer")
        return int(x)

    def __index__(self) -> int:
        t = self._t
        if t.dtype.is_floating_point or t.numel != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        n = self._t.numel
        if n != 1:
            if n == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self) -> int:
        if not self._t.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self._t.shape[0]

    def __repr__(self) -> str:
        return impl.repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # PyTorch formats a plain 0-dim tensor as its number; anything else as its repr
        if not self._t.ndim and type(self) is Tensor and self._val is not NO_DATA:  # a meta tensor: its repr
            return format(self._val, spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __reduce_ex__(self, protocol):
        raise TypeError("scalargrad tensors are not pickled: save a state_dict with scalargrad.save "
                        "(plain data), or use tolist()")

    # ------------------------------------------------------------ autograd attributes

    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag) -> None:
        # the attribute's checks, in their own words (requires_grad_() words them differently)
        if flag.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self._op is not None:
            if flag:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            self.requires_grad_(flag)
        if flag and not self._t.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if flag and self._c is INFERENCE and not _grad_state.inference:
            raise RuntimeError(_INFERENCE_REQUIRES_GRAD)
        self._rg = flag
        if self._s is not None:
            impl.views_follow(self)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad on a leaf (in place); returns self."""
        if requires_grad.__class__ is not bool:
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if self._op is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach().")
            return self
        if requires_grad and not self._t.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._c is INFERENCE and not _grad_state.inference:
            raise RuntimeError(_INFERENCE_REQUIRES_GRAD)
        self._rg = requires_grad
        if self._s is not None:
            impl.views_follow(self)
        return self

    def is_inference(self) -> bool:
        """Whether this tensor was made in inference mode (it can never join a graph)."""
        return self._c is INFERENCE and self._op is None

    @property
    def is_leaf(self) -> bool:
        s = self._s
        if s is not None and s.no_grad:
            impl.view_history(self)
        if self._op is not None and isinstance(getattr(self._c, "error", None), str):
            raise RuntimeError(self._c.error)  # a view PyTorch refuses to use (storage.refused_view)
        return self._op is None

    @property
    def grad_fn(self):
        """The Node that made this tensor (``<MulBackward0 ...>``), None for a leaf."""
        s = self._s
        if s is not None and s.no_grad:
            impl.view_history(self)
        if self._op is None:
            return None
        e = ext(self)
        if e.pick is not None:
            return e.pick[0].grad_fn
        if e.node is None:
            e.node = impl.node_for(self)
        return e.node

    @property
    def _grad(self):
        """``.grad`` without the non-leaf warning: a Tensor or None."""
        g = self._g
        if g is None or isinstance(g, Tensor):
            return g
        g = self._g = impl.wrap_grad(self, g)
        return g

    @_grad.setter
    def _grad(self, g) -> None:
        self._g = g

    @property
    def grad(self):
        """The accumulated gradient (leaves, or non-leaves after ``retain_grad()``)."""
        if self._op is not None and (self._ext is None or not self._ext.retain) and self._g is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, g) -> None:
        impl.set_grad(self, g)

    @grad.deleter
    def grad(self) -> None:
        self._g = None

    @property
    def retains_grad(self) -> bool:
        return self._op is not None and self._ext is not None and self._ext.retain

    def retain_grad(self) -> None:
        """Make backward store this non-leaf's gradient in ``.grad`` (after all its hooks)."""
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._op is not None:
            ext(self).retain = True

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return
        replaces the gradient. Returns a handle whose ``remove()`` unregisters it."""
        return impl.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after the gradient has been accumulated into ``.grad`` (leaves)."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._op is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        e = ext(self)
        if e.post_acc is None:
            e.post_acc = OrderedDict()
        return add_hook(e.post_acc, hook)

    def backward(self, gradient=None, retain_graph: bool | None = None, create_graph: bool = False,
                 inputs=None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see ``autograd.backward``)."""
        impl.backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's storage (and version counter), outside the graph."""
        return impl.detach(self)

    # ------------------------------------------------------------ arithmetic (0-dim fast paths)

    __add__ = _arith(AR.AddC, AR.Add, operator.add, "+")
    __sub__ = _arith(AR.SubC, AR.Sub, operator.sub, "-")
    __mul__ = _arith(AR.MulC, AR.Mul, operator.mul, "*")
    __truediv__ = _arith(AR.DivC, AR.Div, _div, "/")
    __radd__ = _reflected(AR.Add)
    __rmul__ = _reflected(AR.Mul)

    def __rsub__(self, other):
        if isinstance(other, Tensor) or other.__class__ in (float, int, bool, complex):
            return impl.binary(AR.Sub, other, self)
        return _not_an_operand(other, self.__rsub__)

    def __rtruediv__(self, other):
        if isinstance(other, Tensor) or other.__class__ in (float, int, bool, complex):
            return impl.binary(AR.Div, other, self)
        # an array: PyTorch's ``self.reciprocal() * other``, which NumPy computes
        return self.reciprocal() * other if NP.is_ndarray(other) else _not_an_operand(other, self.__rtruediv__)

    __pow__, __rpow__ = _operator(AR.Pow, "pow"), _operator(AR.Pow, "pow", reflected=True)
    __floordiv__, __rfloordiv__ = _operator(AR.FloorDivide, "floordiv"), _operator(AR.FloorDivide, "floordiv", True)
    __mod__, __rmod__ = _operator(AR.Remainder, "mod"), _operator(AR.Remainder, "mod", reflected=True)

    def __and__(self, other):
        if isinstance(other, Tensor) or other.__class__ in (int, bool):
            return impl.binary(AR.BitwiseAnd, self, other)
        return _bitwise_operand(other, AR.BitwiseAnd, self)

    def __or__(self, other):
        if isinstance(other, Tensor) or other.__class__ in (int, bool):
            return impl.binary(AR.BitwiseOr, self, other)
        return _bitwise_operand(other, AR.BitwiseOr, self)

    def __xor__(self, other):
        if isinstance(other, Tensor) or other.__class__ in (int, bool):
            return impl.binary(AR.BitwiseXor, self, other)
        return _bitwise_operand(other, AR.BitwiseXor, self)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __iand__(self, other):
        return self.bitwise_and_(other)

    def __ior__(self, other):
        return self.bitwise_or_(other)

    def __ixor__(self, other):
        return self.bitwise_xor_(other)

    def __invert__(self):
        if self._t.dtype.is_floating_point:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return impl.unary(AR.BitwiseNot, self)

    def __neg__(self):
        return impl.unary(UN.Neg, self)

    def __pos__(self):
        if self._t.dtype is dtypes.bool:
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def __abs__(self):
        return impl.unary(UN.Abs, self)


# ``type(t)`` prints ``<class 'torch.Tensor'>``, as it does under PyTorch (programs print it)
Tensor.__module__ = "torch"


def is_tensor(obj) -> bool:
    """True for scalargrad tensors (Parameters included)."""
    return isinstance(obj, Tensor)
