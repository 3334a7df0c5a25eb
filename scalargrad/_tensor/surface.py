"""The public surface of tensors, made from the op table: Tensor methods (and their in-place
variants) and the functions of the ``torch`` namespace.

An elementwise op of the table gets its spellings (``op.api``) here, with PyTorch's argument
checks; the ops whose arguments are their own (view, sum, max...) are bound by hand below,
each once. ``FUNCTIONS`` is what ``scalargrad/__init__.py`` re-exports as ``torch.*``, and
``FUNCTIONAL`` what ``nn.functional`` re-exports; the spelling test walks the table and checks
every declared spelling exists on its surface.
"""

from __future__ import annotations

import copy as _copy
import functools
import inspect
import operator

from .._base import dtypes
from .._base.dtypes import TensorType, can_cast, round_list
from .._base.errors import Unsupported
from .._base.formatting import tensor_repr
from .._base.grad_mode import _state as _grad_state
from .._base.layout import is_contiguous
from .._ops import elementwise as E
from .._ops import shape as S
from .._ops.table import REGISTRY
from . import (
    einsum,
    indexing,
    legacy,
    moments,
    norms,
    pointwise,
    products,
    reduce,
    rounding,
    scans,
    selection,
    softmax,
    views,
)
from . import factories as F
from . import scatter as writes
from .arguments import not_tensor
from .build import binary, broadcast_shapes, elementwise, laid_out, refuse_bool, result_dtype, unary
from .inplace import check_inplace, inplace, rebase
from .nodes import accumulate_grad_for
from .storage import alias, write
from .tensor import Tensor, constant, defaults, ext, impl, leaf, make, refuse_complex

__all__ = ["FUNCTIONS", "FUNCTIONAL", "install"]

FUNCTIONS: dict = {}
"""name -> function of the torch namespace."""
FUNCTIONAL: dict = {}
"""name -> function of torch.nn.functional."""


def _method(name: str, fn) -> None:
    fn.__name__ = name
    fn.__qualname__ = "Tensor." + name
    fn = _numpy_names(name, fn)
    fn.__name__ = name
    fn.__qualname__ = "Tensor." + name
    setattr(Tensor, name, fn)


def _function(name: str, fn) -> None:
    fn.__name__ = name
    FUNCTIONS[name] = _input_checked(name, _numpy_names(name, fn))


# Python-defined in PyTorch (torch/_tensor.py, torch/functional.py): no NumPy names there
_PYTHON_DEFINED = frozenset({"norm", "split", "unique", "unique_consecutive", "stft", "istft", "unflatten",
                             "tensordot", "cdist", "chain_matmul"})
_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def _numpy_names(name: str, fn):
    """``fn`` taking NumPy's ``axis`` and ``keepdims`` for its ``dim`` and ``keepdim``, as
    PyTorch's argument parser does for its C++-bound functions and methods (``x.sum(axis=1)``);
    ``fn`` itself when it has neither parameter. A name given twice is left to fail."""
    if name in _PYTHON_DEFINED:
        return fn
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return fn
    aliases = tuple((a, p, params.index(p)) for a, p in _NUMPY_NAMES if p in params)
    if not aliases:
        return fn

    @functools.wraps(fn)
    def numpy_named(*args, **kwargs):
        if kwargs:
            for alias, real, at in aliases:
                if alias in kwargs and real not in kwargs and len(args) <= at:
                    kwargs[real] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return numpy_named


def _input_checked(name: str, fn):
    """``fn`` refusing a first argument that is not a tensor in PyTorch's words (``torch.sum(1.)``:
    "sum(): argument 'input' (position 1) must be Tensor, not float"). The check runs only
    when ``fn`` fails, so a well-typed call pays one frame."""

    def function(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AttributeError as e:
            x = args[0] if args else kwargs.get("input", e)
            if isinstance(e, Unsupported) or x is e or isinstance(x, (Tensor, list, tuple)):
                raise
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(x).__name__}") from None

    function.__name__ = function.__qualname__ = name
    function.__doc__ = fn.__doc__
    function.__wrapped__ = fn
    return function


def _is_operand(x) -> bool:
    return isinstance(x, Tensor) or x.__class__ in (float, int, bool)


def _check_input(name: str, x) -> None:
    refuse_complex(x)
    if not isinstance(x, Tensor):
        raise not_tensor(x, name, 'input', 1)


def _check_other(name: str, x, pos: int, tensor_only: bool = False) -> None:
    refuse_complex(x)
    if tensor_only and not isinstance(x, Tensor) or not _is_operand(x):
        raise not_tensor(x, name, 'other', pos)


# ---------------------------------------------------------------- elementwise ops from the table


def _arg_type(x) -> str:
    """An argument's type as PyTorch's parser names it in "got (...)"."""
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _size_dim(t: Tensor, dim, what: str) -> int:
    """The dim of ``size(dim)``/``stride(dim)``: a 0-dim tensor has none to give."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{what}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    if not t._t.ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return views.norm_dim(dim, t._t.ndim)


def _bind_unary(op) -> None:
    api = op.api
    name = api.method

    def method(self):
        return unary(op, self)

    for n in (name,) + api.aliases:
        _method(n, _clone_fn(method))
    if api.inplace:
        for n in (api.inplace,) + tuple(a + "_" for a in api.aliases):  # absolute_, negative_, fix_
            _method(n, lambda self: inplace(self, lambda t: unary(op, t)))
    for fname in api.function:
        def function(input, *, out=None, _n=fname):  # noqa: A002 - PyTorch's names
            _check_input(_n, input)
            return unary(op, input)

        _function(fname, function)
    if api.functional:
        FUNCTIONAL[api.functional] = FUNCTIONS.get(api.functional) or (lambda input: unary(op, input))  # noqa: A002


def _clone_fn(fn):
    import types

    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def _bind_binary(op, tensor_only: bool = False, alpha: bool = False) -> None:
    api = op.api
    name = api.method

    def apply(a, b, al=1):
        if alpha:
            return binary(op, a, b, al if al != 1 else None)
        return binary(op, a, b)

    def method(self, other, *, alpha=1):
        _check_other(name, other, 1, tensor_only)
        return apply(self, other, alpha)

    def method_inplace(self, other, *, alpha=1):
        _check_other(name + "_", other, 1, tensor_only)
        if op.result == "bool":
            return inplace(self, lambda t: _compare_node(op, t, other))
        return inplace(self, lambda t: apply(t, other, alpha))

    def function(input, other, *, alpha=1, out=None):  # noqa: A002
        if not isinstance(input, Tensor) and not (isinstance(other, Tensor) and _is_operand(input)):
            if op.numbers_only and _is_operand(input) and _is_operand(other):
                # both numbers become tensors (int64, bool or the default dtype), as PyTorch wraps them
                input, other = F.tensor(input), F.tensor(other)  # noqa: A001
            else:
                _check_input(name, input)
        _check_other(name, other, 2, tensor_only)
        return apply(input, other, alpha)

    for n in (name,) + api.aliases:
        _method(n, _clone_fn(method))
    if api.inplace:
        _method(api.inplace, method_inplace)
        for n in api.aliases:  # subtract_, multiply_, less_
            _method(n + "_", _clone_fn(method_inplace))
    for fname in api.function:
        _function(fname, _clone_fn(function))


# elementwise ops whose arguments are their own (bound below); every other elementwise op of
# the table gets its spellings from its declaration alone, by arity
_OWN_ARGUMENTS = {"Div", "Pow", "Clamp", "ClampMin", "ClampMax", "Where", "Addcmul", "Addcdiv", "LerpScalar"}


def _install_elementwise() -> None:
    for op in REGISTRY.values():
        if not issubclass(op, E.Elementwise) or op.api is None or op.__name__ in _OWN_ARGUMENTS:
            continue
        if op.arity == 1 and not op.uses_c:
            _bind_unary(op)
        elif op.arity == 2:
            _bind_binary(op, tensor_only=op.other_tensor_only, alpha=op.takes_alpha)

    def div(self, other, *, rounding_mode=None):
        _check_other("div", other, 1)
        return _div(self, other, rounding_mode)

    for n in ("div", "divide", "true_divide"):
        _method(n, _clone_fn(div))
    for n in ("div_", "divide_", "true_divide_"):
        _method(n, lambda self, other, *, rounding_mode=None: inplace(self, lambda t: _div(t, other, rounding_mode)))

    def div_fn(input, other, *, rounding_mode=None, out=None):  # noqa: A002
        if not isinstance(input, Tensor) and _is_operand(input) and _is_operand(other):
            input = F.tensor(input) if not isinstance(other, Tensor) else input  # noqa: A001 - as torch.mul's
        else:
            _check_input("div", input)
        _check_other("div", other, 2)
        return _div(input, other, rounding_mode)

    for n in ("div", "divide", "true_divide"):
        _function(n, _clone_fn(div_fn))

    def pow_(self, exponent):
        _check_other("pow", exponent, 1)
        return binary(E.Pow, self, exponent)

    _method("pow", pow_)
    _method("pow_", lambda self, exponent: inplace(self, lambda t: binary(E.Pow, t, exponent)))

    def pow_fn(input, exponent, *, out=None):  # noqa: A002
        refuse_complex(input, exponent)
        if not (isinstance(input, Tensor) and _is_operand(exponent)
                or isinstance(exponent, Tensor) and _is_operand(input)):
            raise TypeError(
                "pow() received an invalid combination of arguments - got "
                f"({_arg_type(input)}, {_arg_type(exponent)}), but expected one of:\n"
                " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
                " * (Number self, Tensor exponent, *, Tensor out = None)\n"
                " * (Tensor input, Number exponent, *, Tensor out = None)\n")
        return binary(E.Pow, input, exponent)

    _function("pow", pow_fn)
    _method("square", lambda self: binary(E.Pow, self, 2))
    _method("square_", lambda self: inplace(self, lambda t: binary(E.Pow, t, 2)))
    _function("square", lambda input: binary(E.Pow, input, 2))  # noqa: A002
    _function("rsub", lambda input, other, alpha=1: binary(E.Sub, other, input, alpha if alpha != 1 else None))  # noqa: A002
    # positive(x) is x itself (PyTorch returns the same tensor), refused on bool as unary +
    _method("positive", lambda self: +self)
    _function("positive", lambda input: +input)  # noqa: A002

    # dunders beyond the hot ones in the class body
    _method("__eq__", _compare(E.Eq))
    _method("__ne__", _compare(E.Ne))
    _method("__lt__", _compare(E.Lt))
    _method("__le__", _compare(E.Le))
    _method("__gt__", _compare(E.Gt))
    _method("__ge__", _compare(E.Ge))
    Tensor.__hash__ = object.__hash__
    for name, fn in (("__iadd__", operator.add), ("__isub__", operator.sub), ("__imul__", operator.mul),
                     ("__itruediv__", operator.truediv), ("__ipow__", operator.pow), ("__imod__", operator.mod),
                     ("__ifloordiv__", operator.floordiv)):
        _method(name, _augmented(fn))

    # clamp with number or tensor bounds
    _method("clamp", _clamp)
    _method("clip", _clamp)
    _method("clamp_", lambda self, min=None, max=None: _clamp_inplace(self, min, max))  # noqa: A002
    _method("clip_", lambda self, min=None, max=None: _clamp_inplace(self, min, max))  # noqa: A002
    _method("clamp_min", lambda self, min: _clamp(self, min, None, E.ClampMin))  # noqa: A002
    _method("clamp_max", lambda self, max: _clamp(self, None, max, E.ClampMax))  # noqa: A002
    _method("clamp_min_", lambda self, min: _clamp_inplace(self, min, None, E.ClampMin))  # noqa: A002
    _method("clamp_max_", lambda self, max: _clamp_inplace(self, None, max, E.ClampMax))  # noqa: A002
    for n in ("clamp", "clip"):
        _function(n, lambda input, min=None, max=None, *, out=None: _clamp(input, min, max))  # noqa: A002
    _function("clamp_min", lambda input, min: _clamp(input, min, None, E.ClampMin))  # noqa: A002
    _function("clamp_max", lambda input, max: _clamp(input, None, max, E.ClampMax))  # noqa: A002

    def where(condition, input=None, other=None):  # noqa: A002
        if input is None and other is None:
            return _nonzero(condition)
        return _where(condition, input, other)

    _function("where", where)
    _method("where", lambda self, condition, other: _where(condition, self, other))


def _augmented(fn):
    """``x op= other``: in place, with PyTorch's in-place rules (NotImplemented for other types)."""

    def method(self, other):
        if not _is_operand(other):
            return NotImplemented
        return inplace(self, lambda t: fn(t, other))

    return method


def _div(a, b, rounding_mode):
    if rounding_mode is None:
        return binary(E.Div, a, b)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    from .build import as_tensor_operand, result_dtype

    # a number operand is wrapped in a tensor (PyTorch saves it so), but promotes as a number
    dt = result_dtype((a, b))
    a_t, b_t = as_tensor_operand(a, b if isinstance(b, Tensor) else None), as_tensor_operand(b, a)
    return elementwise(E.DivFloor if rounding_mode == "floor" else E.DivTrunc, (a_t, b_t), out_dtype=dt)


def _compare_node(op, t: Tensor, other) -> Tensor:
    """``t.eq_(other)``'s result: ``t``'s dtype holding 1s and 0s, and in a graph PyTorch's node
    for it (EqBackward0 with a number, EqBackward1 with a tensor), whose gradients are zeros."""
    res = binary(op, t, other)
    vals = round_list(t._t.dtype, res._val) if res._t.ndim else t._t.dtype.round(res._val)
    tt = res._t.with_dtype(t._t.dtype)
    if isinstance(other, Tensor):
        return make(op.inplace_tensor, tt, vals, (t, other))
    return make(op.inplace_number, tt, vals, (t,), other)


def _compare(op):
    def method(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(op, self, other)

    return method


def _number_bound(b, t: Tensor):
    if b is None:
        return None
    if isinstance(b, Tensor):
        return b
    if b.__class__ not in (int, float, bool):
        raise TypeError(f"clamp(): argument 'min' must be Number, not {type(b).__name__}")
    return b


def _clamp_dtype(self, lo, hi) -> dtypes.dtype:
    """The dtype of clamp with number bounds: the bounds take part in type promotion (a float
    bound makes an integer tensor float, an int bound makes a bool tensor Long); ATen has no
    bool clamp kernel."""
    dt = self._t.dtype
    if not dt.is_floating_point and any(isinstance(b, float) for b in (lo, hi)):
        dt = defaults["dtype"]
    elif dt is dtypes.bool and any(b.__class__ is not bool for b in (lo, hi) if b is not None):
        dt = dtypes.int64
    if dt is dtypes.bool:
        raise refuse_bool("clamp_scalar_cpu" if lo is not None and hi is not None else
                          "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu")
    return dt


def _clamp_inplace(self, min=None, max=None, op=None):  # noqa: A002 - PyTorch's parameter names
    """clamp_ and its spellings: with number bounds, ATen's own cast check (it names the
    dtype as C++ does: 'long int')."""
    lo, hi = _number_bound(min, self), _number_bound(max, self)
    if (lo is not None or hi is not None) and not isinstance(lo, Tensor) and not isinstance(hi, Tensor):
        dt = _clamp_dtype(self, lo, hi)
        td = self._t.dtype
        if dt is not td and not can_cast(dt, td):
            raise RuntimeError(f"result type {dt.short} can't be cast to the desired output type {td.c_name}")
    return inplace(self, lambda t: _clamp(t, min, max, op))


def _clamp(self, min=None, max=None, op=None):  # noqa: A002 - PyTorch's parameter names
    """clamp with number bounds (ClampBackward1, or ClampMin/MaxBackward0 for clamp_min/max),
    or with tensor bounds (ClampBackward0)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    lo, hi = _number_bound(min, self), _number_bound(max, self)
    if (isinstance(lo, Tensor) and hi is not None and not isinstance(hi, Tensor)
            or isinstance(hi, Tensor) and lo is not None and not isinstance(lo, Tensor)):
        # a tensor beside a number: PyTorch's parser takes the Number overload, a 0-dim tensor
        # becoming its number (ClampBackward1)
        tensor_bound = lo if isinstance(lo, Tensor) else hi
        if tensor_bound._t.ndim:
            raise TypeError("clamp() received an invalid combination of arguments - got (Tensor, "
                            f"{type(min).__name__ if not isinstance(min, Tensor) else 'Tensor'}, "
                            f"{type(max).__name__ if not isinstance(max, Tensor) else 'Tensor'}), but "
                            "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, "
                            "Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, "
                            "Tensor out = None)\n")
        lo = lo.item() if isinstance(lo, Tensor) else lo
        hi = hi.item() if isinstance(hi, Tensor) else hi
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        # the open side's placeholder in the result's dtype (a bool tensor clamped by floats is float)
        dt = result_dtype((self,) + tuple(b for b in (lo, hi) if isinstance(b, Tensor)))

        def bound(b, missing):
            if isinstance(b, Tensor):
                return b
            if b is None:  # an open side: an edge without a gradient, a bound that never binds
                if dt is dtypes.bool:
                    b = missing > 0
                elif not dt.is_floating_point:
                    b = -(1 << 63) if missing < 0 else (1 << 63) - 1
                else:
                    b = missing
            return leaf(dt.round(b), TensorType(dt, ()))

        if op is E.ClampMin:  # torch.clamp_min(x, tensor): ClampMinBackward1
            return binary(E.ClampMinT, self, lo)
        if op is E.ClampMax:
            return binary(E.ClampMaxT, self, hi)
        if isinstance(lo, Tensor) and isinstance(hi, Tensor) and result_dtype((self, lo, hi)) is dtypes.bool:
            raise refuse_bool("clamp_cpu")
        inf = float("inf")
        # the missing side's flag in _c: PyTorch saves None for it (_saved_max)
        return elementwise(E.ClampT, (self, bound(lo, -inf), bound(hi, inf)), (lo is None, hi is None))
    dt = _clamp_dtype(self, lo, hi)
    t = self._t
    given = [b for b in (lo, hi) if b is not None]
    if len(given) < 2 or all(b == b for b in given):
        # PyTorch converts each bound to the tensor's C++ type with an overflow check, except
        # when both are given and one is nan: then it fills the result with nan
        for bound in given:
            _check_clamp_bound(dt, bound)
    r = dt.round
    # rounded for the comparisons, remembering the numbers given (PyTorch saves them: _saved_min)
    keep = constant if dt.is_floating_point else (lambda number, rounded: rounded)
    c = (None if lo is None else keep(lo, r(lo)), None if hi is None else keep(hi, r(hi)))
    op = op or E.Clamp
    x = self if dt is t.dtype else views.to_dtype(self, dt)
    from .build import compute

    tt = x._t
    if not tt.ndim:
        return make(op, tt, r(E._clamp(r, x._val, c)), (x,), c)
    vals = compute(op, dt, [x._val], tt.numel, c)
    return make(op, tt, vals, (x,), c)


_HALF_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38}


def _check_clamp_bound(dt, bound) -> None:
    """c10's checked conversion of a clamp bound to ``dt`` ("value cannot be converted to type
    c10::Half without overflow"): half and bfloat16 are checked here too."""
    top = _HALF_MAX.get(dt.name)
    if top is None:
        dtypes.check_fits(dt, bound)
    elif bound == bound and abs(bound) != float("inf") and abs(bound) > top:
        raise RuntimeError(f"value cannot be converted to type {dt.c_name} without overflow")


def _nonzero(condition) -> tuple:
    """``torch.where(condition)``: the indices of the nonzero elements, one int64 tensor per
    dimension (a 0-dim condition counts as one dimension)."""
    if not isinstance(condition, Tensor):
        raise not_tensor(condition, 'where', 'condition', 1)
    shape = tuple(condition._t.shape) or (1,)
    vals = condition._val if condition._t.ndim else [condition._val]
    hits = [i for i, e in enumerate(vals) if e]
    strides = []
    acc = 1
    for size in reversed(shape):
        strides.insert(0, acc)
        acc *= size
    t = TensorType(dtypes.int64, (len(hits),))
    return tuple(leaf([(h // st) % size for h in hits], t) for st, size in zip(strides, shape))


def _grad_dtype(self):
    if self._op is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self._t.dtype


def _where(condition, a, b):
    """``where(condition, a, b)``: a node with edges to a and b only; the condition, broadcast
    to the result's shape, is kept as the node's constant (PyTorch saves it)."""
    if not isinstance(condition, Tensor):
        raise not_tensor(condition, 'where', 'condition', 1)
    if condition._t.dtype is not dtypes.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition._t.dtype.short}")
    from .build import positions, result_dtype

    rd = result_dtype((a, b))
    ops = []
    for x in (a, b):
        if isinstance(x, Tensor):
            ops.append(x if x._t.dtype is rd else views.to_dtype(x, rd))
        else:
            ops.append(leaf(rd.round(x), TensorType(rd, ())))
    x, y = ops
    shape = broadcast_shapes(broadcast_shapes(condition._t.shape, x._t.shape), y._t.shape)
    cols = []
    for t in (condition, x, y):
        vals = t._val if t._t.ndim else [t._val]
        cols.append(vals if tuple(t._t.shape) == shape else [vals[i] for i in positions(t._t.shape, shape)])
    cv, xv, yv = cols
    vals = [p if c else q for c, p, q in zip(cv, xv, yv)]
    cond = leaf(cv if shape else cv[0], TensorType(dtypes.bool, shape))
    # laid out in its operands' memory order, condition first, as TensorIterator allocates it
    return make(E.Where, laid_out(rd, shape, (condition._t, x._t, y._t)), vals if shape else vals[0], (x, y), cond)


# ---------------------------------------------------------------- addcmul, addcdiv, lerp


def _install_pointwise() -> None:
    check = pointwise.check_tensor
    for name in ("addcmul", "addcdiv"):
        fn = getattr(pointwise, name)

        def method(self, tensor1, tensor2, *, value=1, _n=name, _f=fn):
            check(_n, "tensor1", 1, tensor1)
            check(_n, "tensor2", 2, tensor2)
            return _f(self, tensor1, tensor2, value)

        def method_(self, tensor1, tensor2, *, value=1, _n=name + "_", _f=fn):
            check(_n, "tensor1", 1, tensor1)
            check(_n, "tensor2", 2, tensor2)
            return inplace(self, lambda t: _f(t, tensor1, tensor2, value))

        def function(input, tensor1, tensor2, *, value=1, out=None, _n=name, _f=fn):  # noqa: A002
            check(_n, "input", 1, input)
            check(_n, "tensor1", 2, tensor1)
            check(_n, "tensor2", 3, tensor2)
            return _f(input, tensor1, tensor2, value)

        _method(name, method)
        _method(name + "_", method_)
        _function(name, function)

    def lerp(self, end, weight):
        check("lerp", "end", 1, end)
        return pointwise.lerp(self, end, weight)

    def lerp_(self, end, weight):
        check("lerp_", "end", 1, end)
        return inplace(self, lambda t: pointwise.lerp(t, end, weight))

    def lerp_fn(input, end, weight, *, out=None):  # noqa: A002
        check("lerp", "input", 1, input)
        check("lerp", "end", 2, end)
        return pointwise.lerp(input, end, weight)

    _method("lerp", lerp)
    _method("lerp_", lerp_)
    _function("lerp", lerp_fn)


# ---------------------------------------------------------------- reductions


def _install_reductions() -> None:
    def sum_(self, dim=None, keepdim=False, *, dtype=None):
        return reduce.sum(self, dim, keepdim, F.check_dtype(dtype, "sum"))

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return reduce.mean(self, dim, keepdim, F.check_dtype(dtype, "mean"))

    _method("sum", sum_)
    _method("mean", mean)
    _function("sum", lambda input, dim=None, keepdim=False, *, dtype=None: sum_(input, dim, keepdim, dtype=dtype))  # noqa: A002
    _function("mean", lambda input, dim=None, keepdim=False, *, dtype=None: mean(input, dim, keepdim, dtype=dtype))  # noqa: A002

    def maxmin(largest):
        def method(self, dim=None, keepdim=False):
            if isinstance(dim, Tensor):
                return reduce.max_min(self, other=dim, largest=largest)
            return reduce.max_min(self, dim, keepdim, largest)

        return method

    for name, largest in (("max", True), ("min", False)):
        m = maxmin(largest)
        _method(name, m)
        _function(name, _clone_fn(m))
        _method("arg" + name, lambda self, dim=None, keepdim=False, _l=largest:
                reduce.arg_max_min(self, dim, keepdim, _l))
        _function("arg" + name, lambda input, dim=None, keepdim=False, _l=largest:  # noqa: A002
                  reduce.arg_max_min(input, dim, keepdim, _l))
        _method("a" + name, lambda self, dim=(), keepdim=False, _l=largest: reduce.amax(self, dim, keepdim, _l))
        _function("a" + name, lambda input, dim=(), keepdim=False, _l=largest:  # noqa: A002
                  reduce.amax(input, dim, keepdim, _l))
    _method("all", lambda self, dim=None, keepdim=False: reduce.all_any(self, dim, keepdim, True))
    _method("any", lambda self, dim=None, keepdim=False: reduce.all_any(self, dim, keepdim, False))
    _function("all", lambda input, dim=None, keepdim=False: reduce.all_any(input, dim, keepdim, True))  # noqa: A002
    _function("any", lambda input, dim=None, keepdim=False: reduce.all_any(input, dim, keepdim, False))  # noqa: A002


# ---------------------------------------------------------------- shapes, views, copies


def _install_shapes() -> None:
    _method("view", views.view)
    _method("reshape", views.reshape)
    _method("view_as", lambda self, other: views.view(self, other._t.shape))
    _method("reshape_as", lambda self, other: views.reshape(self, other._t.shape))
    _method("flatten", views.flatten)
    _method("unflatten", views.unflatten)
    _method("softmax", lambda self, dim, dtype=None: softmax.softmax(self, dim, False, dtype))
    _method("log_softmax", lambda self, dim, dtype=None: softmax.softmax(self, dim, True, dtype))
    _function("softmax", lambda input, dim, dtype=None: softmax.softmax(input, dim, False, dtype))  # noqa: A002
    _function("log_softmax", lambda input, dim, dtype=None: softmax.softmax(input, dim, True, dtype))  # noqa: A002
    _method("ravel", lambda self: views.reshape(self, -1))
    _method("squeeze", views.squeeze)
    _method("unsqueeze", views.unsqueeze)
    _method("squeeze_", lambda self, dim=None: _inplace_view(self, lambda t: views.squeeze(t, dim)))
    _method("unsqueeze_", lambda self, dim: _inplace_view(self, lambda t: views.unsqueeze(t, dim)))
    _method("expand", views.expand)
    _method("expand_as", lambda self, other: views.expand(self, other._t.shape))
    _method("broadcast_to", lambda self, size: views.expand(self, size))
    _method("t", views.t)
    _method("t_", lambda self: _inplace_view(self, views.t))
    Tensor.T = property(views.T)
    Tensor.mT = property(views.mT)
    _method("transpose", views.transpose)
    _method("swapaxes", views.transpose)
    _method("swapdims", views.transpose)
    for n in ("transpose_", "swapaxes_", "swapdims_"):
        _method(n, lambda self, d0, d1: _inplace_view(self, lambda t: views.transpose(t, d0, d1)))
    _method("permute", views.permute)
    _method("select", views.select)
    _method("narrow", views.narrow)
    _method("unbind", views.unbind)
    _method("split", views.split)
    _method("chunk", views.chunk)
    _method("contiguous", views.contiguous)
    _method("clone", views.clone)
    _method("__getitem__", indexing.getitem)
    _method("__setitem__", indexing.setitem)
    _method("__iter__", _iter)
    _method("tolist", _tolist)
    _method("__deepcopy__", _deepcopy)
    _method("__copy__", _copy_tensor)
    _method("detach_", _detach_)
    _method("is_contiguous", lambda self, memory_format=None: self._t.contiguous or is_contiguous(self._t.shape,
                                                                                                  self._t.strides))
    _method("stride", lambda self, dim=None: self._t.strides if dim is None else
            self._t.strides[_size_dim(self, dim, "stride")])
    _method("storage_offset", lambda self: views.offset_of(self))
    _method("element_size", lambda self: self._t.dtype.itemsize)
    _method("size", lambda self, dim=None: self._t.shape if dim is None else
            self._t.shape[_size_dim(self, dim, "size")])
    _method("is_floating_point", lambda self: self._t.dtype.is_floating_point)
    _method("is_complex", lambda self: False)
    _method("_is_view", lambda self: self._s is not None and self._s.base is not None)
    Tensor._base = property(lambda self: None if self._s is None else self._s.base)
    Tensor.is_cuda = property(lambda self: False)
    Tensor.is_sparse = property(lambda self: False)
    Tensor.is_quantized = property(lambda self: False)
    Tensor.is_meta = property(lambda self: False)
    Tensor.layout = property(lambda self: F.strided)
    Tensor.device = property(lambda self: F.device("cpu"))
    Tensor.output_nr = property(lambda self: self._ext.pick[1] if self._ext is not None and self._ext.pick else 0)
    Tensor.grad_dtype = property(_grad_dtype)
    _method("get_device", lambda self: -1)
    _method("cpu", lambda self, memory_format=None: self)
    _method("cuda", lambda self, *a, **k: F.use_device("cuda"))
    _method("numpy", lambda self, *a, **k: (_ for _ in ()).throw(
        Unsupported("Tensor.numpy()", "scalargrad has no NumPy arrays; use tolist()")))
    _method("to", _to)
    _method("type", _type)
    _method("type_as", lambda self, other: views.to_dtype(self, other._t.dtype))
    for name, dt in (("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
                     ("bfloat16", dtypes.bfloat16), ("long", dtypes.int64), ("int", dtypes.int32),
                     ("short", dtypes.int16), ("char", dtypes.int8), ("byte", dtypes.uint8), ("bool", dtypes.bool)):
        _method(name, lambda self, memory_format=None, _dt=dt: views.to_dtype(self, _dt))
    _method("uniform_", lambda self, a=0.0, b=1.0, *, generator=None: _random_fill(self, "uniform", a, b,
                                                                                   generator=generator))
    _method("normal_", lambda self, mean=0.0, std=1.0, *, generator=None: _random_fill(self, "normal", mean, std,
                                                                                       generator=generator))
    _method("fill_", _fill)
    _method("zero_", lambda self: _fill(self, 0, zero=True))
    _method("copy_", _copy_into)
    _method("masked_fill", lambda self, mask, value: _masked_fill(self, mask, value, False))
    _method("masked_fill_", lambda self, mask, value: _masked_fill(self, mask, value, True))
    _method("new_tensor", lambda self, data, dtype=None, device=None, requires_grad=False:
            F.tensor(data, dtype=dtype or self._t.dtype, requires_grad=requires_grad))
    for name, value in (("new_zeros", 0), ("new_ones", 1), ("new_empty", 0)):
        _method(name, lambda self, *size, dtype=None, device=None, requires_grad=False, _v=value:
                F.from_values([_v] * _numel(F.shape_arg(size, "new")), F.shape_arg(size, "new"),
                              dtype or self._t.dtype, requires_grad))
    _method("new_full", lambda self, size, fill_value, dtype=None, device=None, requires_grad=False:
            F.full(size, fill_value, dtype=dtype or self._t.dtype, requires_grad=requires_grad))
    _method("equal", _equal)
    _method("allclose", _allclose)
    _method("isclose", _isclose)
    _method("__matmul__", lambda self, other: products.matmul(self, other) if isinstance(other, Tensor)
            else NotImplemented)
    _method("__rmatmul__", lambda self, other: products.matmul(other, self) if isinstance(other, Tensor)
            else NotImplemented)
    _method("matmul", products.matmul)
    _method("mm", products.mm)
    _method("mv", products.mv)
    _method("dot", products.dot)
    _method("bmm", lambda self, mat2: products.bmm(self, mat2, _first=0))
    _method("baddbmm", lambda self, batch1, batch2, *, beta=1, alpha=1: products.baddbmm(
        self, batch1, batch2, beta=beta, alpha=alpha, _first=1))
    _method("baddbmm_", lambda self, batch1, batch2, *, beta=1, alpha=1: inplace(self, lambda t: products.baddbmm(
        t, batch1, batch2, beta=beta, alpha=alpha, _first=1)))
    _method("inner", products.inner)
    _method("outer", products.outer)
    _method("ger", products.outer)
    _method("addmm", lambda self, mat1, mat2, *, beta=1, alpha=1: products.addmm(self, mat1, mat2, beta, alpha))
    _method("addmm_", lambda self, mat1, mat2, *, beta=1, alpha=1: inplace(
        self, lambda t: products.addmm(t, mat1, mat2, beta, alpha)))

    for name, fn in (("reshape", views.reshape), ("flatten", views.flatten), ("squeeze", views.squeeze),
                     ("unsqueeze", views.unsqueeze), ("t", views.t), ("transpose", views.transpose),
                     ("swapaxes", views.transpose), ("swapdims", views.transpose), ("permute", views.permute),
                     ("select", views.select), ("narrow", views.narrow), ("unbind", views.unbind),
                     ("split", views.split), ("chunk", views.chunk), ("clone", views.clone),
                     ("cat", views.cat), ("concat", views.cat), ("concatenate", views.cat), ("stack", views.stack),
                     ("matmul", products.matmul), ("mm", products.mm), ("mv", products.mv), ("dot", products.dot),
                     ("inner", products.inner), ("outer", products.outer), ("ger", products.outer),
                     ("addmm", products.addmm), ("bmm", lambda input, mat2: products.bmm(input, mat2)),  # noqa: A002
                     ("baddbmm", lambda input, batch1, batch2, *, beta=1, alpha=1: products.baddbmm(  # noqa: A002
                         input, batch1, batch2, beta=beta, alpha=alpha)),
                     ("equal", _equal), ("allclose", _allclose), ("isclose", _isclose),
                     ("masked_fill", lambda input, mask, value: _masked_fill(input, mask, value, False)),
                     ("numel", lambda input: input._t.numel),
                     ("broadcast_shapes", _broadcast_shapes), ("broadcast_tensors", _broadcast_tensors),
                     ("unflatten", views.unflatten), ("is_tensor", lambda obj: isinstance(obj, Tensor)),
                     ("is_floating_point", lambda input: input._t.dtype.is_floating_point),
                     ("detach", lambda input: views.detach(input))):
        _function(name, _clone_fn(fn) if hasattr(fn, "__code__") else fn)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


_INPLACE_VIEWS = {S.Squeeze: S.SqueezeInplaceAll, S.SqueezeDim: S.SqueezeInplace, S.SqueezeDims: S.SqueezeInplaceDims,
                  S.Unsqueeze: S.UnsqueezeInplace, S.T: S.TInplace, S.Transpose: S.TransposeInplace}


def _inplace_view(self, make_view):
    """``squeeze_``/``unsqueeze_``/``t_``/``transpose_``: ``self`` takes the view's shape and
    strides (its memory stays; the version counter moves on). In a graph, ``self`` becomes the
    in-place op's node (SqueezeBackward3, TBackward1...) over its old version."""
    check_inplace(self)
    v = make_view(self)  # a view of self: its layout, its elements' places in memory
    index = v._s.index if v._s is not None else None
    vals = list(v._val) if v._t.ndim else v._val
    if v._op is not None and self._op is not None and _grad_state.enabled:
        op = _INPLACE_VIEWS.get(v._op.base, v._op.base)
        res = make(op, v._t, vals, (self,), v._c)
        return rebase(self, res, index=index)
    if self._s is not None and self._s.store is not None:
        self._s.index = index
    self._t = v._t
    self._val = v._val  # the store's own list when in memory order, as for any member
    write(self, vals)
    return self


def _iter(self):
    if not self._t.ndim:
        raise TypeError("iteration over a 0-d tensor")
    return iter(views.unbind(self, 0))


def _nest(vals: list, shape: tuple):
    if len(shape) <= 1:
        return list(vals)
    step = _numel(shape[1:])
    return [_nest(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _tolist(self):
    if not self._t.ndim:
        return self._val
    return _nest(self._val, tuple(self._t.shape))


def _deepcopy(self, memo: dict):
    # copy.deepcopy (of a tensor, or of a Module holding buffers): leaves only, as PyTorch
    if self._op is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
            "the moment.  If you were attempting to deepcopy a module, this may be because of a "
            "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    new = memo[id(self)] = leaf(list(self._val) if self._t.ndim else self._val, self._t, self._rg, type(self))
    g = self._grad
    if g is not None:
        new._g = _deepcopy(g, memo)
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
    if self._s is not None and self._s.base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    self._op = None
    self._a = None
    self._b = None
    self._c = None
    self._rg = False
    self._ext = None
    return self


def _to(self, *args, **kwargs):
    """Convert dtype (``to(torch.float64)``, ``to(other)``); devices other than the CPU are refused."""
    dt = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    for a in args:
        if isinstance(a, dtypes.dtype):
            dt = a
        elif isinstance(a, Tensor):
            dt = a._t.dtype
        elif isinstance(a, bool):
            continue
        elif a is not None:
            F.use_device(a)
    F.use_device(kwargs.get("device"))
    if dt is None:
        return views.clone(self) if copy else self
    F.check_dtype(dt, "to")  # complex dtypes are refused by name
    return views.to_dtype(self, dt, copy)


_LEGACY = {d.legacy: d for d in (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.int64, dtypes.int32,
                                 dtypes.int16, dtypes.int8, dtypes.uint8, dtypes.bool)}


def _type(self, dtype=None, non_blocking=False, **kwargs):
    if dtype is None:
        return self._t.dtype.legacy
    if isinstance(dtype, legacy.tensortype):
        dtype = dtype.dtype
    if isinstance(dtype, str):
        if dtype not in _LEGACY:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _LEGACY[dtype]
    return views.to_dtype(self, dtype)


def _fill(self, value, zero: bool = False):
    """``fill_``: every element becomes ``value`` (FillBackward2, FillBackward3 with a tensor
    value, ZeroBackward0 for ``zero_``, in a graph)."""
    source = None
    if isinstance(value, Tensor):
        if value._t.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._t.ndim} dimensions.")
        source = value
        value = value._val
    elif value.__class__ not in (int, float, bool):
        raise TypeError(f"fill_(): argument 'value' (position 1) must be Number, not {type(value).__name__}")
    dt = self._t.dtype
    if source is None:
        dtypes.check_fits(dt, value)
    v = dt.round(value)
    vals = [v] * self._t.numel if self._t.ndim else v
    layout = S.Layout(self._t.shape, value=v)
    if source is not None:
        return inplace(self, lambda t: make(S.FillTensor, t._t, vals, (t, source), layout))
    op = S.Zero if zero else S.Fill  # fill_(0) is FillBackward2, zero_() ZeroBackward0
    return inplace(self, lambda t: make(op, t._t, vals, (t,), layout))


def _random_fill(self, draw, *args, generator=None):
    """``uniform_``/``normal_``: new numbers from the generator, written in place."""
    from .._base import rng

    check_inplace(self)
    t = self._t
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f"\"{'check_uniform_bounds' if draw == 'uniform' else 'normal_kernel_cpu'}\" "
                                  f"not implemented for '{t.dtype.short}'")
    n = t.numel
    if draw == "uniform":
        vals = rng.uniform(n, t.dtype.name, *args, generator=generator)
    else:
        vals = rng.normal(n, t.dtype.name, *args, generator=generator, contiguous=t.contiguous)
    vals = round_list(t.dtype, vals)
    write(self, vals if t.ndim else vals[0])
    return self


def _copy_into(self, src, non_blocking=False):
    """``copy_(src)``: ``src``'s elements, broadcast and cast to this tensor's dtype."""
    if not isinstance(src, Tensor):
        raise not_tensor(src, 'copy_', 'src', 1)
    shape = tuple(self._t.shape)
    if broadcast_shapes(shape, src._t.shape) != shape:
        raise RuntimeError(f"The size of tensor a ({shape[-1] if shape else 1}) must match the size of tensor b "
                           f"({src._t.shape[-1]}) at non-singleton dimension {len(shape) - 1}")
    from .build import positions

    sv = src._val if src._t.ndim else [src._val]
    col = [sv[i] for i in positions(src._t.shape, shape)] if tuple(src._t.shape) != shape else list(sv)
    dt = self._t.dtype
    col = dtypes.cast_values(src._t.dtype, dt, col) if src._t.dtype is not dt else col
    vals = col if shape else col[0]
    return inplace(self, lambda t: make(S.CopyInto, t._t, vals, (t, src), S.Layout(src._t.shape, src._t.dtype)))


def _masked_fill(self, mask, value, in_place: bool):
    if not isinstance(mask, Tensor) or mask._t.dtype is not dtypes.bool:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask._t.dtype.short if isinstance(mask, Tensor) else type(mask).__name__}")
    if isinstance(value, Tensor):
        value = value.item()
    shape = tuple(self._t.shape)
    from .build import positions

    mv = mask._val if mask._t.ndim else [mask._val]
    m = [mv[i] for i in positions(mask._t.shape, shape)] if tuple(mask._t.shape) != shape else list(mv)
    dt = self._t.dtype
    c = dt.round(value)
    old = self._val if self._t.ndim else [self._val]
    vals = [c if b else x for x, b in zip(old, m)]
    layout = S.Layout(shape, map=[i for i, b in enumerate(m) if b], value=c, tensors=mask)

    def compute(t):
        return make(S.MaskedFill, t._t, vals if shape else vals[0], (t,), layout)

    if in_place:
        return inplace(self, compute)
    return compute(self)


def _equal(a, b) -> bool:
    """``torch.equal``: same shape and the same values."""
    if not isinstance(b, Tensor) or tuple(a._t.shape) != tuple(b._t.shape):
        return False
    av = a._val if a._t.ndim else [a._val]
    bv = b._val if b._t.ndim else [b._val]
    return all(x == y for x, y in zip(av, bv))


def _close_values(a, b, rtol, atol, equal_nan) -> list:
    shape = broadcast_shapes(a._t.shape, b._t.shape)
    from .build import positions

    av = a._val if a._t.ndim else [a._val]
    bv = b._val if b._t.ndim else [b._val]
    xs = [av[i] for i in positions(a._t.shape, shape)]
    ys = [bv[i] for i in positions(b._t.shape, shape)]
    out = []
    for x, y in zip(xs, ys):
        if x != x or y != y:
            out.append(bool(equal_nan and x != x and y != y))
        elif x == y:
            out.append(True)
        else:
            out.append(abs(x - y) <= atol + rtol * abs(y))
    return shape, out


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return all(_close_values(a, b, rtol, atol, equal_nan)[1])


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    shape, vals = _close_values(a, b, rtol, atol, equal_nan)
    return leaf(vals if shape else vals[0], TensorType(dtypes.bool, shape))


def _broadcast_tensors(*tensors):
    """``torch.broadcast_tensors``: each tensor expanded to the common shape (a tensor that
    already has it is returned itself, as ATen's expand_outplace does)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {len(shape)} in argument 0, but got {type(t).__name__}")
        shape = broadcast_shapes(shape, t._t.shape)
    return tuple(t if tuple(t._t.shape) == shape else views.expand(t, shape) for t in tensors)


def _broadcast_shapes(*shapes):
    out = ()
    for s in shapes:
        out = broadcast_shapes(out, (s,) if isinstance(s, int) else tuple(s))
    return dtypes.Size(out)


# ---------------------------------------------------------------- .grad, repr


def _wrap_grad(t: Tensor, g) -> Tensor:
    return leaf(g, t._t if t._t.contiguous else TensorType(t._t.dtype, t._t.shape))


def _set_grad(t: Tensor, g) -> None:
    if g is None:
        t._g = None
        return
    if not isinstance(g, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(g).__name__}")
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
    name = None
    if t._op is not None:
        name = type(t.grad_fn).__name__  # PyTorch prints the class name (CopySlices, not its name())
    vals = t._val if t._t.ndim else [t._val]
    return tensor_repr(vals, t._t.shape, t._t.dtype, requires_grad=t._rg, grad_fn=name,
                       default_dtype=defaults["dtype"])


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


def _unsupported_attribute(name: str):
    def get(self):
        raise Unsupported(f"Tensor.{name}")

    return property(get, doc=f"``Tensor.{name}``: not implemented by scalargrad (raises Unsupported).")


def install_unsupported() -> None:
    """Every public attribute of PyTorch's Tensor that scalargrad lacks raises ``Unsupported``
    naming it (an AttributeError, so ``hasattr`` is False), as a property: no ``__getattr__``
    on Tensor, which would slow every attribute access of the graph's hot paths."""
    from .torch_names import TENSOR_ATTRIBUTES

    for name in TENSOR_ATTRIBUTES:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _unsupported_attribute(name))


def _install_scans() -> None:
    _method("prod", lambda self, dim=None, keepdim=False, *, dtype=None: scans.prod(
        self, dim, keepdim, F.check_dtype(dtype, "prod")))
    _function("prod", lambda input, dim=None, keepdim=False, *, dtype=None: scans.prod(  # noqa: A002
        input, dim, keepdim, F.check_dtype(dtype, "prod")))
    for name, fn in (("cumsum", scans.cumsum), ("cumprod", scans.cumprod)):
        _method(name, lambda self, dim, *, dtype=None, _f=fn: _f(self, dim, F.check_dtype(dtype)))
        _method(name + "_", lambda self, dim, *, dtype=None, _f=fn: inplace(
            self, lambda t: _f(t, dim, F.check_dtype(dtype))))
        _function(name, lambda input, dim, *, dtype=None, out=None, _f=fn: _f(  # noqa: A002
            input, dim, F.check_dtype(dtype)))
    _method("flip", scans.flip)
    _method("fliplr", lambda self: scans.flip_side(self, False))
    _method("flipud", lambda self: scans.flip_side(self, True))
    _function("flip", lambda input, dims: scans.flip(input, dims))  # noqa: A002
    _function("fliplr", lambda input: scans.flip_side(input, False))  # noqa: A002
    _function("flipud", lambda input: scans.flip_side(input, True))  # noqa: A002


def _install_selection() -> None:
    sel = selection
    _method("gather", lambda self, dim, index, *, sparse_grad=False: sel.gather(self, dim, index))
    _function("gather", lambda input, dim, index, *, sparse_grad=False, out=None: sel.gather(  # noqa: A002
        input, dim, index))
    for name in ("index_select", "masked_select", "take", "sort", "argsort", "topk", "kthvalue", "tril", "triu",
                 "diagonal", "diag", "roll"):
        fn = getattr(sel, name)
        _method(name, fn)
        _function(name, _clone_fn(fn))
    _method("repeat", sel.repeat)
    _method("tril_", lambda self, diagonal=0: inplace(self, lambda t: sel.tril(t, diagonal)))
    _method("triu_", lambda self, diagonal=0: inplace(self, lambda t: sel.triu(t, diagonal)))


# torch's in-place functions (``torch.relu_(x)`` is ``x.relu_()``), PyTorch 2.13's list
_TORCH_INPLACE = ("abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
                  "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "celu_", "clamp_",
                  "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_",
                  "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_", "i0_", "index_put_",
                  "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_",
                  "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "selu_", "sigmoid_", "sin_",
                  "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "threshold_", "trunc_", "xlogy_", "zero_")


# the in-place functions with a Tensor and a Number overload: PyTorch's refusal lists both
_OVERLOADS = {"clamp_": "min = None, {0} max = None", "clip_": "min = None, {0} max = None", "fill_": "value",
              "clamp_min_": "min", "clamp_max_": "max"}


def _install_inplace_functions() -> None:
    """``torch.relu_(x)``, ``torch.sigmoid_(x)``...: the Tensor method, for each one Tensor has."""
    probe = leaf(0.0, TensorType(dtypes.float32, ()))
    for name in _TORCH_INPLACE:
        if name in FUNCTIONS:
            continue
        try:
            getattr(probe, name)
        except AttributeError:  # not implemented (Unsupported): so is torch.<name>
            continue

        def function(input, *args, _n=name, **kwargs):  # noqa: A002 - PyTorch's name
            if not isinstance(input, Tensor) and _n in _OVERLOADS:
                got = ", ".join(type(a).__name__ for a in (input,) + args)
                sigs = "".join(f"\n * (Tensor input, {kind} {_OVERLOADS[_n].format(kind)})"
                               for kind in ("Tensor", "Number"))
                raise TypeError(f"{_n}() received an invalid combination of arguments - got ({got}), but expected "
                                f"one of:{sigs}\n")
            _check_input(_n, input)
            return getattr(input, _n)(*args, **kwargs)

        _function(name, function)


def _install_layers() -> None:
    """The torch namespace's spellings of the layer kernels (``torch.conv2d``, ``torch.batch_norm``...)."""
    from . import convolution, normalization, pooling

    def conv(dims):
        return lambda input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1: (  # noqa: A002
            convolution.convolution(input, weight, bias, stride, padding, dilation, groups, dims))

    _function("conv1d", conv(1))
    _function("conv2d", conv(2))
    _function("max_pool2d", lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False:  # noqa: A002
              pooling.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode))
    _function("max_pool1d", lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False:  # noqa: A002
              pooling.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode))
    _function("avg_pool1d", lambda input, kernel_size, stride=(), padding=0, ceil_mode=False,  # noqa: A002
              count_include_pad=True: pooling.avg_pool1d(input, kernel_size, stride, padding, ceil_mode,
                                                         count_include_pad))
    _function("batch_norm", lambda input, weight, bias, running_mean, running_var, training, momentum, eps,  # noqa: A002
              cudnn_enabled=False: normalization.batch_norm(input, running_mean, running_var, weight, bias, training,
                                                            momentum, eps))
    _function("layer_norm", lambda input, normalized_shape, weight=None, bias=None, eps=1e-05,  # noqa: A002
              cudnn_enable=True: normalization.layer_norm(input, normalized_shape, weight, bias, eps))


def install() -> None:
    """Put the surface on Tensor and into FUNCTIONS (once, at import)."""
    _install_elementwise()
    _install_pointwise()
    _install_reductions()
    _install_shapes()
    rounding.install(_method, _function)
    _method("norm", lambda self, p="fro", dim=None, keepdim=False, dtype=None: norms.norm(self, p, dim, keepdim, dtype))
    _function("norm", lambda input, p="fro", dim=None, keepdim=False, out=None, dtype=None:  # noqa: A002
              norms.norm(input, p, dim, keepdim, dtype))
    _method("dist", lambda self, other, p=2: norms.dist(self, other, p))
    _install_scans()
    _install_selection()
    writes.install(_method, _function)
    _function("einsum", einsum.einsum)
    for name, root in (("var", False), ("std", True)):
        def method(self, dim=None, unbiased=None, keepdim=False, *, correction=None, _r=root):
            return moments.var_std(self, dim, unbiased, keepdim, correction=correction, take_sqrt=_r)

        _method(name, method)
        _function(name, _clone_fn(method))
    _function("dist", lambda input, other, p=2: norms.dist(input, other, p))  # noqa: A002
    _install_inplace_functions()
    _install_layers()
    for name in ("tensor", "as_tensor", "scalar_tensor", "zeros", "ones", "full", "empty", "rand", "randn",
                 "randint", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
                 "arange", "linspace", "logspace", "randint_like", "eye", "randperm"):
        FUNCTIONS[name] = getattr(F, name)
    FUNCTIONS["device"] = F.device
    FUNCTIONS.update(legacy.LEGACY_TYPES)
    FUNCTIONS["tensortype"] = legacy.tensortype
    FUNCTIONS["set_default_device"] = legacy.set_default_device
    FUNCTIONS["get_default_device"] = legacy.get_default_device
    FUNCTIONS["layout"] = F.layout
    FUNCTIONS["strided"] = F.strided
    FUNCTIONAL["linear"] = products.linear
    _ = (REGISTRY, check_inplace, rebase, ext, accumulate_grad_for)


install()
install_unsupported()
