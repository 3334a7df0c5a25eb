"""Applying an elementwise op (the op table's ``Elementwise`` declarations): operand checks, type
promotion and broadcasting (``operands.py``), bulk compute.

PyTorch's rules, in its order:

* operands are tensors or Python numbers (anything else is refused in PyTorch's words);
* the computation dtype is ``result_type``: tensors with dimensions over 0-dim tensors over
  Python numbers, a lower category counting only when it is of a higher kind (int < float);
  an op whose result is floating (``div``, ``exp``...) computes an integer input in the
  default float dtype; every operand is cast to the computation dtype first (a Python number
  too: PyTorch wraps it in a tensor of that dtype), and the result is rounded to its dtype;
* shapes broadcast (``broadcast_shapes``), and the result takes the memory layout
  TensorIterator would give it (``_base/layout.elementwise_strides``).

A result with dimensions is computed in bulk: a C-level ``map`` of the op's ``fast`` function
over the elements where the op has one (float64 and float32 alike, float32 rounded in one
``struct`` call afterwards), the op's IEEE-safe ``forward`` where ``fast`` raises or is absent.
A 0-dim result of 0-dim operands is one call of ``forward``, as the scalar graph needs.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Sequence

from .._base import dtypes
from .._base.dtypes import TensorType, round_list
from .._base.kernel_order import fma
from .._base.layout import elementwise_strides, is_contiguous
from .._base.numpy_types import numpy_type_name
from .._ops import arithmetic as AR
from .._ops import elementwise as E
from .._ops import unary as UN
from .._ops.table import REGISTRY
from .arg_parser import is_scalar, method_signatures, parsed
from .arguments import check_input, check_other, is_operand, not_tensor
from .deprecated_overloads import accepting
from .inplace import inplace
from .operands import broadcast_shapes, cast, check_size, laid_out, number_type, positions, result_dtype
from .out_argument import CAST, SAME
from .tensor import Tensor, constant, defaults, impl, leaf, make, refuse_complex

__all__ = ["binary", "unary", "elementwise", "compute", "column_cast", "with_number", "with_scalar", "install",
           "as_tensor_operand", "refuse_bool"]

F32, F64 = dtypes.float32, dtypes.float64


def _column(x, out_shape: tuple, n: int):
    """The elements of operand ``x`` at each position of ``out_shape``: a list, or the number
    itself for a 0-dim tensor or a Python number (repeated by the caller)."""
    if not isinstance(x, Tensor):
        return x
    t = x._t
    if not t.ndim:
        return x._val
    if t.shape == out_shape:
        return x._val
    if t.numel == 1:
        return x._val[0]
    vals = x._val
    return [vals[i] for i in positions(t.shape, out_shape)]




def compute(op, dt: dtypes.dtype, cols: list, n: int, c=None) -> list:
    """``op``'s elements over the columns ``cols`` (lists of length n, or single numbers),
    rounded to ``dt``."""
    r = dt.round
    if op.by_position is not None and n > 1:
        return op.by_position(dt, [x if isinstance(x, list) else [x] * n for x in cols], n, c)
    fast = op.fast if dt is not dtypes.float64 or op.fast64 is None else op.fast64
    lists = [x if isinstance(x, list) else None for x in cols]
    if fast is not None and c is None and dt.is_floating_point:
        by_number = AR.BY_NUMBER.get(fast) if len(cols) == 2 else None
        if by_number is not None and (lists[0] is None) != (lists[1] is None):
            if fast is operator.mul and (cols[0] if lists[0] is None else cols[1]) == 1.0:
                # x * 1.0 is x, exactly, in every floating dtype (signed zeros, infs and nans
                # included): the gradient of a sum() times a derivative (pow's backward)
                return list(lists[0] if lists[1] is None else lists[1])
            try:
                vals = by_number[0](cols[0], cols[1]) if lists[1] is None else by_number[1](cols[0], cols[1])
            except (ZeroDivisionError, OverflowError, ValueError):
                vals = None
            if vals is not None:
                return vals if dt is dtypes.float64 else round_list(dt, vals)
        args = [x if x is not None else _repeat(y, n) for x, y in zip(lists, cols)]
        try:
            vals = list(map(fast, *args))
        except (ZeroDivisionError, OverflowError, ValueError):
            vals = None
        if vals is not None:
            return vals if dt is dtypes.float64 else round_list(dt, vals)
    f = op.forward
    args = [x if x is not None else _repeat(y, n) for x, y in zip(lists, cols)]
    if op.uses_c:
        vals = [f(r, *xs, c) for xs in zip(*args)]
    else:
        vals = [f(r, *xs) for xs in zip(*args)]
    return round_list(dt, vals)


def _repeat(x, n: int) -> list:
    return [x] * n


complex_ops: dict = {}
"""``binary(op, a, b, alpha)`` and ``unary(op, a)`` for complex operands, set by ``complex_numbers``
(above this module); without them a complex number is refused by name."""


def _complex(x) -> bool:
    if x.__class__ is complex:
        if not complex_ops:
            refuse_complex(x)
        return True
    return isinstance(x, Tensor) and x._t.dtype.kind == "c"


def _bool_check(op, a, b) -> None:
    if op.bool_error is None:
        return
    ba = a.__class__ is bool or (isinstance(a, Tensor) and a._t.dtype is dtypes.bool)
    bb = b.__class__ is bool or (isinstance(b, Tensor) and b._t.dtype is dtypes.bool)
    if ba and bb:  # a Python bool counts as a bool tensor (bool_tensor - True)
        raise RuntimeError(E.BOOL_SUB2)
    if ba or bb:
        raise RuntimeError(op.bool_error)


def refuse_bool(kernel: str) -> NotImplementedError:
    """ATen's refusal of a kernel it does not build for bool."""
    return NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _result_dt(op, rd: dtypes.dtype) -> dtypes.dtype:
    if op.result == "float" and not rd.is_floating_point:
        return defaults["dtype"]
    if op.result == "bool":
        return dtypes.bool
    return rd


def unary(op, a: Tensor) -> Tensor:
    """``op`` applied to every element of ``a`` (a complex ``a``: ``complex_numbers``)."""
    t = a._t
    if t.dtype.kind == "c":
        return complex_ops["unary"](op, a)
    if t.dtype is dtypes.bool:
        if op.bool_error is not None:
            raise RuntimeError(op.bool_error)
        if op.bool_kernel is not None:
            raise refuse_bool(op.bool_kernel)
    elif op.float_only_kernel is not None and t.dtype.kind == "i":
        raise NotImplementedError(f"\"{op.float_only_kernel}\" not implemented for '{t.dtype.short}'")
    dt = _result_dt(op, t.dtype)
    if dt.is_floating_point and op.integer_kernel is not None:
        raise NotImplementedError(f"\"{op.integer_kernel}\" not implemented for '{dt.short}'")
    if op.result == "bool":  # a predicate (isnan, signbit...) tests the elements as they are
        if not t.ndim:
            return make(op, TensorType(dt, ()), dt.round(op.forward(t.dtype.round, a._val)), (a,))
        vals = round_list(dt, compute(op, t.dtype, [cast(a, t.dtype)], t.numel))
        return make(op, laid_out(dt, t.shape, (t,)), vals, (a,))
    if not t.ndim:
        r = dt.round
        x = a._val if dt is t.dtype else r(a._val)
        tt = t if dt is t.dtype else t.with_dtype(dt)
        return make(op, tt, r(op.forward(r, x)), (a,))
    x = cast(a, dt)
    n = t.numel
    vals = compute(op, dt, [x], n)
    return make(op, laid_out(dt, t.shape, (t,)), vals, (a,))


def binary(op, a, b, alpha=None) -> Tensor:
    """``a (op) b`` for tensors and Python numbers, broadcast, with PyTorch's promotion.
    ``alpha`` is add/sub's multiplier of ``b`` (None: 1). A complex operand goes to
    ``complex_numbers`` (registered in ``complex_ops``)."""
    if alpha is None and isinstance(a, Tensor) and isinstance(b, Tensor):
        sa, sb = a._t, b._t
        dt = sa.dtype
        if dt is sb.dtype and (dt is F32 or dt is F64) and op.result != "bool" and op.integer_kernel is None:
            # two tensors of one real floating dtype: no promotion, no refusal applies (the checks
            # below all pass), the dtype computed and returned
            if not sa.ndim and not sb.ndim:
                return make(op, sa, dt.round(op.forward(dt.round, a._val, b._val)), (a, b))
            shape = broadcast_shapes(sa.shape, sb.shape)
            n = check_size(shape)
            vals = compute(op, dt, [column_cast(a, dt, shape), column_cast(b, dt, shape)], n)
            return make(op, laid_out(dt, shape, (sa, sb)), vals, (a, b))
    if _complex(a) or _complex(b):
        return complex_ops["binary"](op, a, b, alpha)
    _bool_check(op, a, b)
    ta = isinstance(a, Tensor)
    tb = isinstance(b, Tensor)
    if op.same_dtype_error is not None and ta and tb and a._t.dtype is not b._t.dtype:
        raise RuntimeError(op.same_dtype_error)
    if not ta:
        if not tb:
            raise TypeError(f"{op.api.method if op.api else op.__name__}(): expected a Tensor operand")
        if op.number_first is not None and alpha is None:
            return with_number(op.number_first, b, a)
        if op is AR.Add or op is AR.Mul:
            return binary(op, b, a)
        if op is AR.Div:  # number / tensor is reciprocal(tensor) * number, as in PyTorch
            return with_number(AR.MulC, unary(UN.Reciprocal, b), a)
        a = wrap_number(a, b, op)
    elif not tb:
        if op.with_number is not None and (alpha is None or alpha == 1):
            return with_number(op.with_number, a, b)
        b = wrap_number(b, a, op)
    rd = result_dtype((a, b))
    dt = _result_dt(op, rd)
    cdt = dt if op.result == "float" else rd  # the computation dtype
    if cdt is dtypes.bool and op.bool_kernel is not None:
        raise refuse_bool(op.bool_kernel)
    if cdt.is_floating_point and op.integer_kernel is not None:
        raise NotImplementedError(f"\"{op.integer_kernel}\" not implemented for '{cdt.short}'")
    if op.float_only_kernel is not None and not cdt.is_floating_point:  # logaddexp of integers
        raise NotImplementedError(f"\"{op.float_only_kernel}\" not implemented for '{cdt.short}'")
    sa, sb = a._t, b._t
    if alpha is not None and alpha != 1:
        if not cdt.is_floating_point and isinstance(alpha, float):
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
        dtypes.check_scalar_fits(cdt, alpha)
        return add_alpha(op, a, b, alpha, cdt)
    if not sa.ndim and not sb.ndim:
        r = cdt.round
        x = a._val if sa.dtype is cdt else r(a._val)
        y = b._val if sb.dtype is cdt else r(b._val)
        val = dt.round(op.forward(r, x, y))
        t = TensorType(dt, ()) if (sa.dtype is not dt or sa.ndim) else sa
        return make(op, t, val, (a, b))
    shape = broadcast_shapes(sa.shape, sb.shape)
    n = check_size(shape)
    x = column_cast(a, cdt, shape)
    y = column_cast(b, cdt, shape)
    vals = compute(op, cdt, [x, y], n)
    if dt is not cdt:
        vals = round_list(dt, vals)
    return make(op, laid_out(dt, shape, (sa, sb)), vals, (a, b))


def column_cast(x: Tensor, dt, shape: tuple):
    """Operand ``x``'s elements at each position of ``shape``, cast to ``dt``: a list, or one
    number standing for all of them (``compute`` takes either). An expanded number (every
    stride 0: ``sum()``'s gradient, ``expand``) is that number, so ``compute`` runs its
    one-list comprehension instead of pairing two lists."""
    t = x._t
    if not t.contiguous and t.numel and not any(t.strides):
        col = x._val[0]
        return col if t.dtype is dt else dt.round(col)
    col = _column(x, shape, 0)
    if x._t.dtype is dt:
        return col
    return round_list(dt, col) if isinstance(col, list) else dt.round(col)


def wrap_number(x, like: Tensor, op) -> Tensor:
    """A Python number as the 0-dim tensor PyTorch wraps it in, of the dtype the number's
    promotion with ``like`` gives (so promoting again gives the same result). Also the
    ``input`` of ``torch.add/sub/mul/div/floor_divide(number, tensor)``: PyTorch's parser binds
    the number to the Tensor parameter (``should_allow_numbers_as_tensors``), so the tensor-tensor
    op runs (SubBackward0 with no edge for the number, a true division), not the reflected one."""
    dt = result_dtype((like, x))
    if op.result == "float" and not dt.is_floating_point:
        dt = defaults["dtype"]
    return leaf(dt.round(x), TensorType(dt, ()))


def with_number(op, a: Tensor, c) -> Tensor:
    """``a (op) c`` for a Python number ``c``: the number stays in the node's ``_c``, rounded
    to the result dtype first (PyTorch casts the wrapped number to the computation dtype),
    except pow's exponent (kept as the double it was)."""
    t = number_type(a._t, c)
    if op.number_layout == "contiguous" or op.number_layout == "unary" and is_contiguous(t.shape, t.strides):
        t = TensorType(t.dtype, t.shape)
    elif not t.contiguous or not t.numel and t.ndim:
        # laid out as TensorIterator allocates it: the number is a 0-dim operand (mul, add...), except
        # for a unary iterator over the tensor alone (pow(Tensor, Scalar), round(decimals))
        operands = [(t.shape, t.strides)] + ([] if op.number_layout == "unary" else [((), ())])
        t = TensorType(t.dtype, t.shape, elementwise_strides(t.shape, operands))
    exact = op is AR.PowC or op is AR.RPowC
    if op.result == "float" and not t.dtype.is_floating_point:
        t = t.with_dtype(defaults["dtype"])
    dt = t.dtype
    if dt is dtypes.bool and op.bool_kernel is not None:
        raise refuse_bool(op.bool_kernel)
    if op is AR.PowC and not dt.is_floating_point and c.__class__ is int and c < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    r = dt.round
    if not exact:
        # rounded, remembering (floating dtypes: the only ones in a graph) the number PyTorch saves
        c = constant(c, r(c)) if dt.is_floating_point else r(c)
    elif c.__class__ is bool:  # computed as 0 or 1; the backward tells a bool from the int 0
        c = constant(c, int(c))
    if not t.ndim:
        x = a._val if a._t.dtype is dt else r(a._val)
        return make(op, t, r(op.forward(r, x, c)), (a,), c)
    x = cast(a, dt)
    bulk = op.bulk_number
    if bulk is not None:
        vals = bulk(dt, x, c)
    else:
        f = op.forward
        vals = round_list(dt, [f(r, e, c) for e in x])
    return make(op, t, vals, (a,), c)


def with_scalar(op, a: Tensor, number) -> Tensor:
    """``a (op) Scalar`` as ATen's composite ops call it (``MulScalar``, ``DivScalar``): computed as
    ``a (op) number`` is, the node keeping the number as given for its saved attribute."""
    y = with_number(op, a, number)
    if y._op is not None:
        y._c = AR.ScalarArg(y._c, number)
    return y


def add_alpha(op, a: Tensor, b: Tensor, alpha, dt) -> Tensor:
    """add/sub with alpha != 1: ``a + alpha * b`` as ATen's kernel computes it, one fused
    multiply-add per element (float32: rounded once; float64: exactly rounded)."""
    f32 = dt is dtypes.float32
    al = dt.round(alpha) if op is AR.Add else dt.round(-alpha)
    shape = broadcast_shapes(a._t.shape, b._t.shape)
    n = check_size(shape)
    x = column_cast(a, dt, shape)
    y = column_cast(b, dt, shape)
    if not shape:
        val = _fma(y, al, x, dt, f32)
        return make(op, TensorType(dt, ()), val, (a, b), alpha)
    xs = x if isinstance(x, list) else [x] * n
    ys = y if isinstance(y, list) else [y] * n
    vals = [_fma(q, al, p, dt, f32) for p, q in zip(xs, ys)]
    # laid out as TensorIterator allocates it, as without alpha (a permuted input's order)
    return make(op, laid_out(dt, shape, (a._t, b._t)), vals, (a, b), alpha)


def _fma(y, al, x, dt, f32):
    if not dt.is_floating_point:
        return dt.round(x + al * y)
    # y * al + x, one rounding (a chain from +0.0 would lose x's sign when both are zeros)
    return fma(y, al, x, f32)


def elementwise(op, operands: Sequence, c=None, out_dtype=None) -> Tensor:
    """An elementwise op over any number of tensor operands (numbers already wrapped), with
    constant ``c``: where, clamp with tensor bounds, the backward helper ops."""
    tensors = [x for x in operands if isinstance(x, Tensor)]
    rd = result_dtype(operands)
    dt = out_dtype or _result_dt(op, rd)
    shape = ()
    for x in tensors:
        shape = broadcast_shapes(shape, x._t.shape)
    n = check_size(shape)
    if not shape:
        r = dt.round
        args = [x._val if isinstance(x, Tensor) else x for x in operands]
        val = r(op.forward(r, *args, c) if op.uses_c else op.forward(r, *args))
        return make(op, TensorType(dt, ()), val, tuple(tensors), c)
    cols = [_column(x, shape, n) for x in operands]
    vals = compute(op, dt, cols, n, c)
    return make(op, laid_out(dt, shape, [x._t for x in tensors]), vals, tuple(tensors), c)


def as_tensor_operand(x, like: Tensor | None = None) -> Tensor:
    """A tensor for a Python number (typed as PyTorch types a wrapped number)."""
    if isinstance(x, Tensor):
        return x
    if x.__class__ is bool:
        return leaf(x, TensorType(dtypes.bool, ()))
    if x.__class__ is int:
        return leaf(x, TensorType(dtypes.int64, ()))
    if x.__class__ is float:
        d = like._t.dtype if (like is not None and like._t.dtype.is_floating_point) else defaults["dtype"]
        return leaf(d.round(x), TensorType(d, ()))
    raise TypeError(f"expected a Tensor or a Python number, but got {type(x).__name__}")



impl.binary = binary
impl.unary = unary


# ---------------------------------------------------------------- spellings from the op table


def _bind_unary(op, method, function) -> None:
    api = op.api

    def apply(self):
        return unary(op, self)

    for n in (api.method,) + api.aliases:
        method(n, apply)
    if api.inplace:
        iop = op.inplace_op or op
        for n in (api.inplace,) + tuple(a + "_" for a in api.aliases):  # absolute_, negative_, fix_
            method(n, lambda self: inplace(self, lambda t: unary(iop, t)))
    for fname in api.function:
        def call(input, *, out=None, _n=fname):  # PyTorch's names
            check_input(_n, input)
            return unary(op, input)

        call.elementwise_out = {"float": CAST, "same": SAME}.get(op.result)  # the dtype rule of out=
        function(fname, call)


def _spelt(fn, param: str, name: str):
    """``fn`` with its parameter ``other`` spelt ``param`` (heaviside's ``values``) in keywords
    and in its signature, as PyTorch's parser names it."""
    if param == "other":
        return fn

    def renamed(*args, **kwargs):
        if param in kwargs:
            kwargs["other"] = kwargs.pop(param)
        elif "other" in kwargs or len(args) < 2:
            raise TypeError(f'{name}() missing 1 required positional arguments: "{param}"')
        return fn(*args, **kwargs)

    sig = inspect.signature(fn)
    renamed.__signature__ = sig.replace(parameters=[
        p.replace(name=param) if p.name == "other" else p for p in sig.parameters.values()])
    return renamed


def _bind_binary(op, method, function) -> None:
    api = op.api
    name = api.method
    tensor_only, alpha, param = op.other_tensor_only, op.takes_alpha, op.other_name

    iop = op.inplace_op or op  # floor_divide_'s node names aten::floor_divide_

    def check_alpha(al, n):
        if al.__class__ is not int or al != 1:  # given
            if not alpha:  # mul(x, y, alpha=2): PyTorch's signature has no alpha
                raise TypeError(f"{n}() got an unexpected keyword argument 'alpha'")
            if not (is_scalar(al) or isinstance(al, Tensor)):
                raise TypeError(f"{n}(): argument 'alpha' must be Number, not {numpy_type_name(al)}")

    def apply(a, b, al=1, op=op):
        if alpha:
            return binary(op, a, b, al if al != 1 else None)
        return binary(op, a, b)

    def apply_method(self, other, *, alpha=1):
        check_alpha(alpha, name)
        other = check_other(name, other, 1, tensor_only, param)
        return apply(self, other, alpha)

    def apply_inplace(self, other, *, alpha=1):
        check_alpha(alpha, name + "_")
        other = check_other(name + "_", other, 1, tensor_only, param)
        return inplace(self, lambda t: apply(t, other, alpha, iop), operands=(other,))

    def call(input, other, *, alpha=1, out=None):
        check_alpha(alpha, name)
        if tensor_only and input.__class__ is complex:  # the parser's refusal: no operand to promote
            raise not_tensor(input, name, "input", 1)
        if not isinstance(input, Tensor) and not (isinstance(other, Tensor) and is_operand(input)):
            if op.numbers_only and is_operand(input) and is_operand(other):
                # both numbers become tensors (int64, bool or the default dtype), as PyTorch wraps them
                input, other = as_tensor_operand(input), as_tensor_operand(other)
            else:
                check_input(name, input)
        other = check_other(name, other, 2, tensor_only, param)
        if op.numbers_only and isinstance(other, Tensor) and not isinstance(input, Tensor):
            _bool_check(op, input, other)  # a wrapped bool is a bool tensor: sub(True, x) refused
            input = wrap_number(input, other, op)
        return apply(input, other, alpha)

    apply_method, call = _spelt(apply_method, param, name), _spelt(call, param, name)
    apply_inplace = _spelt(apply_inplace, param, name + "_")

    def spelt(fn, n, base, is_method=True):  # PyTorch's parser's refusal, under the spelling called
        texts = op.signatures.get(base, ()) if isinstance(op.signatures, dict) else op.signatures
        if not texts:
            return fn
        return parsed(fn, n, method_signatures(texts) if is_method else texts, is_method)

    in_place = api.inplace and op.result != "bool"  # a comparison's in-place form is the comparison family's
    for n in api.aliases:  # subtract, multiply_: PyTorch has no deprecated (alpha, other) form for an alias
        method(n, spelt(apply_method, n, n))
        if in_place:
            method(n + "_", spelt(apply_inplace, n + "_", n))
    plain = spelt(apply_method, name, name)
    in_place_form = spelt(apply_inplace, api.inplace, name) if in_place else None
    if alpha:  # add and sub also take PyTorch's deprecated (alpha, other)
        plain = accepting(name, plain, True)
        in_place_form = accepting(api.inplace, in_place_form, True) if in_place else None
    method(name, plain)
    if in_place:
        method(api.inplace, in_place_form)
    for fname in api.function:
        f = spelt(call, fname, fname, False)
        f.elementwise_out = op.same_dtype_error or CAST  # the dtype rule of out= (``out_argument``)
        function(fname, accepting(name, f, False) if alpha and fname == name else f)


# elementwise ops whose arguments are their own, bound by their family; every other elementwise
# op of the table gets its spellings from its declaration alone, by arity
OWN_ARGUMENTS = {"Div", "Pow", "Clamp", "ClampMin", "ClampMax", "Where", "Addcmul", "Addcdiv", "LerpScalar"}


def install(method, function) -> None:
    """The spellings the op table declares (``op.api``) of every elementwise op, with PyTorch's
    argument checks: ``x.op()``, ``x.op_()``, ``torch.op``."""
    for op in REGISTRY.values():
        if not issubclass(op, E.Elementwise) or op.api is None or op.__name__ in OWN_ARGUMENTS:
            continue
        if op.arity == 1 and not op.uses_c:
            _bind_unary(op, method, function)
        elif op.arity == 2:
            _bind_binary(op, method, function)
