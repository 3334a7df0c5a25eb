"""Comparisons on tensors (``_ops/comparison.py``): == != < <= > >= (and their in-place forms),
``where``, ``clamp`` with number or tensor bounds, ``equal``, ``isclose``, ``allclose``, with
PyTorch's promotion, argument checks and messages.
"""

from __future__ import annotations

from .._base import dtypes
from .._base.dtypes import TensorType, can_cast, round_list
from .._base.numpy_types import is_ndarray
from .._base.numpy_types import number as numpy_number
from .._ops import comparison as CM
from .arg_parser import method_signatures, parsed, refusal
from .arguments import arg_type, check_other, is_operand, not_tensor
from .elementwise import binary, compute, elementwise, refuse_bool
from .fill import masked_zero
from .inplace import inplace
from .numpy_bridge import array_tensor
from .operands import broadcast_shapes, laid_out, positions, result_dtype
from .tensor import Tensor, constant, defaults, leaf, make
from .tensor_kernel import helper
from .views import to_dtype

__all__ = ["where", "nonzero", "clamp", "equal", "isclose", "allclose", "install", "logical_and", "logical_or"]


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
        if not is_operand(other):
            other = _numpy_operand(op, other)
            if other is None:
                return NotImplemented
        return binary(op, self, other)

    return method


def _numpy_operand(op, other):
    """A NumPy scalar as the Python number PyTorch's parser reads; for ``==`` and ``!=`` an
    array as a tensor (PyTorch compares them; ``<`` is refused: Python's TypeError)."""
    n = numpy_number(other)
    if n is not None:
        return n
    if op in (CM.Eq, CM.Ne) and is_ndarray(other):
        return array_tensor(other)
    return None


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


def _clamp_inplace(self, min=None, max=None, op=None):  # PyTorch's parameter names
    """clamp_ and its spellings: with number bounds, ATen's own cast check (it names the
    dtype as C++ does: 'long int')."""
    lo, hi = _number_bound(min, self), _number_bound(max, self)
    if (lo is not None or hi is not None) and not isinstance(lo, Tensor) and not isinstance(hi, Tensor):
        dt = _clamp_dtype(self, lo, hi)
        td = self._t.dtype
        if dt is not td and not can_cast(dt, td):
            raise RuntimeError(f"result type {dt.short} can't be cast to the desired output type {td.c_name}")
    return inplace(self, lambda t: clamp(t, min, max, op), operands=(min, max))


def clamp(self, min=None, max=None, op=None):  # PyTorch's parameter names
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
        if tensor_bound._t.ndim or tensor_bound.requires_grad:  # not a Number to the parser
            raise refusal("clamp", _CLAMP_SIGNATURES, (self, min, max), {})
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

        if op is CM.ClampMin:  # torch.clamp_min(x, tensor): ClampMinBackward1
            return binary(CM.ClampMinT, self, lo)
        if op is CM.ClampMax:
            return binary(CM.ClampMaxT, self, hi)
        if isinstance(lo, Tensor) and isinstance(hi, Tensor) and result_dtype((self, lo, hi)) is dtypes.bool:
            raise refuse_bool("clamp_cpu")
        inf = float("inf")
        # the missing side's flag in _c: PyTorch saves None for it (_saved_max)
        return elementwise(CM.ClampT, (self, bound(lo, -inf), bound(hi, inf)), (lo is None, hi is None))
    dt = _clamp_dtype(self, lo, hi)
    t = self._t
    given = [b for b in (lo, hi) if b is not None]
    if len(given) < 2 or all(b == b for b in given):
        # PyTorch converts each bound to the tensor's C++ type with an overflow check, except
        # when both are given and one is nan: then it fills the result with nan
        for bound in given:
            dtypes.check_scalar_fits(dt, bound)
    r = dt.round
    # rounded for the comparisons, remembering the numbers given (PyTorch saves them: _saved_min)
    keep = constant if dt.is_floating_point else (lambda number, rounded: rounded)
    c = (None if lo is None else keep(lo, r(lo)), None if hi is None else keep(hi, r(hi)))
    op = op or CM.Clamp
    x = self if dt is t.dtype else to_dtype(self, dt)

    tt = x._t
    if not tt.ndim:
        return make(op, tt, r(CM.clamp_value(r, x._val, c)), (x,), c)
    vals = compute(op, dt, [x._val], tt.numel, c)
    # laid out as TensorIterator lays out a unary result (an expanded input gives a contiguous
    # one: its strides read in another order, sum gave another float sum, ops:5151:30)
    return make(op, laid_out(dt, tt.shape, (tt,)), vals, (x,), c)


def nonzero(condition) -> tuple:
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


def where(condition, a, b):
    """``where(condition, a, b)``: a node with edges to a and b only; the condition, broadcast
    to the result's shape, is kept as the node's constant (PyTorch saves it)."""
    if not isinstance(condition, Tensor):
        raise not_tensor(condition, 'where', 'condition', 1)
    if condition._t.dtype is not dtypes.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition._t.dtype.short}")

    rd = result_dtype((a, b))
    ops = []
    for x in (a, b):
        if isinstance(x, Tensor):
            ops.append(x if x._t.dtype is rd else to_dtype(x, rd))
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
    return make(CM.Where, laid_out(rd, shape, (condition._t, x._t, y._t)), vals if shape else vals[0], (x, y), cond)


def equal(x, other) -> bool:
    """``torch.equal``: same shape and the same values."""
    if not isinstance(other, Tensor) or tuple(x._t.shape) != tuple(other._t.shape):
        return False
    av = x._val if x._t.ndim else [x._val]
    bv = other._val if other._t.ndim else [other._val]
    return all(x == y for x, y in zip(av, bv))


def _close_values(a, b, rtol, atol, equal_nan) -> list:
    shape = broadcast_shapes(a._t.shape, b._t.shape)

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


def allclose(x, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return all(_close_values(x, other, rtol, atol, equal_nan)[1])


def isclose(x, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    shape, vals = _close_values(x, other, rtol, atol, equal_nan)
    return leaf(vals if shape else vals[0], TensorType(dtypes.bool, shape))


_WHERE_SIGNATURES = ("(Tensor condition)", "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
                     "(Tensor condition, Number self, Tensor other)", "(Tensor condition, Tensor input, Number other)",
                     "(Tensor condition, Number self, Number other)")


def _where_combination(args: tuple, kwargs: dict) -> TypeError:
    """PyTorch's parser refusing ``torch.where`` with an input and no other (or the reverse); with
    ``out`` among three arguments, the overloads of numbers are the ones that take no ``out``."""
    got = [arg_type(a) for a in args] + [f"{k}={arg_type(v)}" for k, v in kwargs.items()]
    keyword = "out" in kwargs and len(args) + len(kwargs) == 3
    lines = [f"where() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:"]
    for i, sig in enumerate(_WHERE_SIGNATURES):
        lines.append(f" * {sig}")
        if keyword and i >= 2:
            lines.append("      didn't match because some of the keywords were incorrect: out")
    return TypeError("\n".join(lines) + "\n")


def _where_out(args: tuple, kwargs: dict) -> None:
    """``torch.where(..., out=)`` (``out=None`` too): its one overload with ``out`` takes three
    tensors, so PyTorch's parser names the first number given (``torch.where(c, x, 0., out=t)``:
    "argument 'other' (position 3) must be Tensor, not float")."""
    if len(args) + len(kwargs) != 4:
        if len(args) + len(kwargs) in (2, 3):  # no input or no other
            raise _where_combination(args, kwargs)
        return
    for pos, name in enumerate(("condition", "input", "other")):
        if pos < len(args):
            if not isinstance(args[pos], Tensor):
                raise not_tensor(args[pos], "where", name, pos + 1)
        elif name in kwargs and not isinstance(kwargs[name], Tensor):
            raise not_tensor(kwargs[name], "where", name, None)


def _where_function(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition)
    if input is None or other is None:
        given = {k: v for k, v in (("input", input), ("other", other)) if v is not None}
        raise _where_combination((condition,), given) if "input" not in given else \
            _where_combination((condition, input), {})
    return where(condition, input, other)


_where_function.out_overload = _where_out  # checked by the surface before out= is taken


def _bind_inplace_comparison(op, method) -> None:
    """``x.eq_(other)``, ``x.less_(other)``...: x keeps its dtype and holds 1s and 0s."""
    api = op.api

    def apply_inplace(self, other):
        check_other(api.method + "_", other, 1)
        return inplace(self, lambda t: _compare_node(op, t, other), operands=(other,))

    listed = method_signatures(op.signatures)
    for n in (api.method,) + api.aliases:
        method(n + "_", parsed(apply_inplace, n + "_", listed, True))


# clamp's and clip's signatures as PyTorch lists them when neither takes a call
_CLAMP_SIGNATURES = ("(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
                     "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)")


def install(method, function) -> None:
    """The comparison dunders and in-place forms, clamp, where, equal, isclose, allclose."""
    for name, op in (("__eq__", CM.Eq), ("__ne__", CM.Ne), ("__lt__", CM.Lt), ("__le__", CM.Le),
                     ("__gt__", CM.Gt), ("__ge__", CM.Ge)):
        method(name, _compare(op))
    Tensor.__hash__ = object.__hash__  # defining __eq__ drops the default hash
    for op in CM.COMPARISONS:
        _bind_inplace_comparison(op, method)
    # clamp with number or tensor bounds
    for n in ("clamp", "clip"):
        listed = method_signatures(_CLAMP_SIGNATURES)
        method(n, parsed(lambda self, min=None, max=None: clamp(self, min, max), n, listed, True))
        method(n + "_", parsed(lambda self, min=None, max=None: _clamp_inplace(self, min, max), n + "_", listed, True))
        function(n, parsed(lambda input, min=None, max=None, *, out=None: clamp(input, min, max), n,
                           _CLAMP_SIGNATURES))
    spellings = {
        "clamp_min": (lambda self, min: clamp(self, min, None, CM.ClampMin),
                      lambda self, min: _clamp_inplace(self, min, None, CM.ClampMin),
                      lambda input, min: clamp(input, min, None, CM.ClampMin)),
        "clamp_max": (lambda self, max: clamp(self, None, max, CM.ClampMax),
                      lambda self, max: _clamp_inplace(self, None, max, CM.ClampMax),
                      lambda input, max: clamp(input, None, max, CM.ClampMax))}
    for n, (m, m_, f) in spellings.items():
        texts = tuple(f"(Tensor input, {t} {n[-3:]}, *, Tensor out = None)" for t in ("Tensor", "Number"))
        listed = method_signatures(texts)
        method(n, parsed(m, n, listed, True))
        method(n + "_", parsed(m_, n + "_", listed, True))
        function(n, parsed(f, n, texts))
    function("where", _where_function)
    method("where", lambda self, condition, other: where(condition, self, other))
    for name, fn in (("equal", equal), ("allclose", allclose), ("isclose", isclose)):
        method(name, fn)
        function(name, fn)


# ---------------------------------------------------------------- derivative helpers, on tensors


def _logical(a: Tensor, b: Tensor, both: bool) -> Tensor:
    av = a._val if a._t.ndim else [a._val]
    bv = b._val if b._t.ndim else [b._val]
    shape = broadcast_shapes(a._t.shape, b._t.shape)
    xs = [av[i] for i in positions(a._t.shape, shape)]
    ys = [bv[i] for i in positions(b._t.shape, shape)]
    vals = [bool(x and y) for x, y in zip(xs, ys)] if both else [bool(x or y) for x, y in zip(xs, ys)]
    # PyTorch's derivatives combine masks in place (``(self >= min).logical_and_(...)``): the
    # result lies in the first mask's order
    t = laid_out(dtypes.bool, shape, (a._t,)) if tuple(shape) == tuple(a._t.shape) else TensorType(dtypes.bool, shape)
    return leaf(vals if shape else vals[0], t)


def logical_and(a: Tensor, b: Tensor) -> Tensor:
    """Two bool masks' elementwise and (broadcast), outside the graph."""
    return _logical(a, b, True)


def logical_or(a: Tensor, b: Tensor) -> Tensor:
    """Two bool masks' elementwise or (broadcast), outside the graph."""
    return _logical(a, b, False)


def _clamp_masks_fit(a: Tensor, lo: Tensor, hi: Tensor) -> None:
    """PyTorch's clamp backward with both bounds tensors combines its masks in place
    (``(self < min).logical_and_(min < max)``...), which fails, as any in-place op, where the
    second mask broadcasts to more than the first: for the min's gradient, then the max's,
    then self's, each where its tensor requires grad."""
    sa, sl, sh = (tuple(t._t.shape) for t in (a, lo, hi))
    for needed, first, second in ((lo._rg, (sa, sl), (sl, sh)), (hi._rg, (sa, sh), (sh, sl)),
                                  (a._rg, (sa, sl), (sa, sh))):
        if not needed:
            continue
        out = broadcast_shapes(*first)
        full = broadcast_shapes(out, broadcast_shapes(*second))
        if full != out:
            raise RuntimeError(f"output with shape {list(out)} doesn't match the broadcast shape {list(full)}")


helper(where)


@helper
def clamp_backward(k, g, a, c):
    lo, hi = (None if b is None else float(b) for b in c)  # a bound may be a Constant
    cond = None
    if lo is not None:
        cond = a >= lo
    if hi is not None:
        cond = (a <= hi) if cond is None else logical_and(cond, a <= hi)
    # at::scalar_tensor(0., grad.options()): a 0-dim zero, so the result is laid out as the mask is
    zero = leaf(g._t.dtype.round(0), TensorType(g._t.dtype, ())) if isinstance(g, Tensor) else k.zero(g)
    return k.where(cond, g, zero)


@helper
def min_max_backward(k, g, a, b, is_min):
    half = k.where(a == b, k.div(g, k.const(2)), g)
    mask_a = (a > b) if is_min else (a < b)
    mask_b = (a < b) if is_min else (a > b)
    # PyTorch's formula for each input computes its own where (two nodes under create_graph)
    half_b = k.where(a == b, k.div(g, k.const(2)), g) if k.graph else half
    return masked_zero(half, mask_a), masked_zero(half_b, mask_b)


@helper
def fmax_backward(k, g, a, b, is_min):
    """fmax/fmin's derivative: ``grad.masked_fill`` of the other side of ``(self >= other)
    .logical_or_(other.isnan())`` (``<=`` for fmin)."""
    to_self = logical_or(a <= b if is_min else a >= b, b != b)
    return masked_zero(g, ~to_self), masked_zero(g, to_self)


@helper
def clamp_tensor_backward(k, g, a, lo, hi, open_sides):
    no_min, no_max = open_sides
    if not no_min and not no_max:
        _clamp_masks_fit(a, lo, hi)
    z = k.zero(g)
    return (k.where(logical_and(a >= lo, a <= hi), g, z),
            k.where(a < lo if no_max else logical_and(a < lo, lo < hi), g, z),
            k.where(logical_or(a > hi, hi < lo), g, z))
