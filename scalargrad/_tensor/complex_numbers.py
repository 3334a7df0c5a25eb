"""Complex tensors: complex64 and complex128 (``torch.cfloat``/``torch.cdouble``).

A complex tensor's elements are Python complex numbers whose two parts are of its real dtype
(complex64: each part a float32, rounded by ``dtypes.round_complex``). What is built here, as
PyTorch 2.13 has it: ``torch.complex``, ``torch.polar``, ``real``/``imag``, ``view_as_real``/
``view_as_complex``, ``conj`` (with the conjugate bit ``is_conj``), ``conj_physical``,
``resolve_conj``, the negative bit of a conjugate's imaginary part (``is_neg``, ``resolve_neg``;
like ``is_conj``, set on that tensor only: a view of it answers False where PyTorch says True),
``abs``, ``angle``, ``+ - * /`` with tensors and Python numbers (``neg`` too), ``sum``/``mean``
(over dims too), ``cfloat()``/``cdouble()``; the factories, ``to`` and the repr know complex
dtypes where they are (``factories``, ``dtypes.cast_values``, ``formatting``).

``complex_ops`` adds ``==``/``!=``, ``isreal``, ``sgn`` and ``vdot`` through ``complex_case``.

Everything else refuses a complex operand at one gate: when the first complex tensor is made,
``install_gate`` wraps every other Tensor method and property and every function of the
registered namespaces (torch, nn.functional...) so that a complex tensor or complex dtype
among its arguments raises ``Unsupported`` naming the op and the dtype, instead
of computing on the numbers as if they were real. A program that makes no complex tensor pays
nothing. Under it, a complex dtype's ``round`` refuses (``dtypes``): an op reached by another
path still cannot make a complex result. Autograd of complex tensors (Wirtinger derivatives)
is refused by name: such a tensor cannot require grad. One cost of the gate, once up: a gated
function is one frame deeper, so a warning it raises with a ``stacklevel`` names this file's
line instead of the program's (Python 3.11 has no way to skip a wrapper's frame).

The parts (``real``, ``imag``, ``view_as_real``) and ``view_as_complex`` are views in PyTorch;
here they are copies with the view's strides, offset and ``_base``, and writing through one is
refused (``storage.write_guards``), as complex tensors themselves are never changed in place:
a write that PyTorch would show through the other tensor is never silently lost.

Arithmetic follows c10::complex as ATen's scalar (non-vectorized) CPU kernel computes it, each
operation rounded to the part dtype: ``(a+bi)(c+di) = (ac-bd) + (ad+bc)i`` and Smith's division.
PyTorch's vectorized kernels (AVX2/AVX512) group those operations differently (fused
multiply-adds), so products and quotients may differ from a given machine's in the last bit;
sums and differences are exact per part. ``abs`` is ``hypot`` and ``angle`` is ``atan2``,
computed in double and rounded (correctly rounded for complex64, as libm's are to the bit on
most inputs); ``sum`` is the exact sum of each part, rounded once.
"""

from __future__ import annotations

import functools
import math
import types
import warnings
import weakref

from .._base import dtypes
from .._base.dtypes import TensorType, round_complex, round_list
from .._base.errors import Unsupported
from .._ops import angles as AN
from .._ops import arithmetic as AR
from .._ops import unary as UN
from . import elementwise, storage
from .operands import broadcast_shapes, check_size, laid_out, positions, result_dtype
from .quantized import QuantizedTensor
from .sparse import SparseTensor
from .storage import mem
from .tensor import Tensor, flat, leaf
from .views import norm_dims

__all__ = ["install", "install_gate", "complex_case", "uninstall_gate", "register_namespace", "gate_installed"]

# by id (a tensor's == is elementwise): results of conj() of a complex tensor (PyTorch's conjugate
# bit), and the part views (written through, they are refused)
_CONJ: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_PARTS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
# the imaginary parts of conjugate views: PyTorch's negative bit (``is_neg``), cleared by resolve_neg
_NEG: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _in(marks, t) -> bool:
    return marks.get(id(t)) is t


def _made(vals: list, shape: tuple, dt, strides=None) -> Tensor:
    """A new complex (or part) tensor of ``shape`` holding ``vals`` (row-major)."""
    if dt.is_complex:
        install_gate()
    return leaf(vals if shape else vals[0], TensorType(dt, tuple(shape), strides))


def _is_complex(x) -> bool:
    return isinstance(x, Tensor) and _dtype(x).kind == "c"


def _dtype(t: Tensor):
    # a sparse or quantized tensor answers only its own names (its dense metadata ``_t`` refuses): ask it
    return t.dtype if isinstance(t, (SparseTensor, QuantizedTensor)) else t._t.dtype


# ---------------------------------------------------------------- creation


def complex_(real, imag, *, out=None) -> Tensor:
    """``torch.complex(real, imag)``: two float tensors of one dtype (broadcast) as one complex tensor."""
    if out is not None:
        raise Unsupported("torch.complex(out=...)")
    for name, x in (("real", real), ("imag", imag)):
        if not isinstance(x, Tensor):
            raise TypeError(f"complex(): argument '{name}' (position {1 if name == 'real' else 2}) must be Tensor, "
                            f"not {type(x).__name__}")
    da, db = real._t.dtype, imag._t.dtype
    if da not in (dtypes.float32, dtypes.float64) or db not in (dtypes.float32, dtypes.float64):
        if da is dtypes.float16 and db is dtypes.float16:
            raise Unsupported("torch.complex32 (ComplexHalf) tensors")
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {da.short} and "
                           f"{db.short}")
    if da is not db:
        raise RuntimeError(f"Expected object of scalar type {da.short} but got scalar type {db.short} for second "
                           "argument")
    shape = broadcast_shapes(real._t.shape, imag._t.shape)
    n = check_size(shape)
    re, im = _column(real, shape, n), _column(imag, shape, n)
    return _made([complex(a, b) for a, b in zip(re, im)], shape, da.to_complex())


def polar(abs, angle, *, out=None) -> Tensor:  # PyTorch's parameter names
    """``torch.polar(abs, angle)``: ``abs * (cos(angle) + i sin(angle))``, each part computed in
    double and rounded once (ATen's std::cos/std::sin of float may differ in the last bit)."""
    if out is not None:
        raise Unsupported("torch.polar(out=...)")
    z = complex_(abs, angle)
    dt = z._t.dtype
    vals = [round_complex(dt, complex(r * math.cos(t), r * math.sin(t))) for r, t in (
        (w.real, w.imag) for w in flat(z))]
    return _made(vals, tuple(z._t.shape), dt)


def _column(x: Tensor, shape: tuple, n: int) -> list:
    vals = flat(x)
    if tuple(x._t.shape) == tuple(shape):
        return vals
    return [vals[i] for i in positions(x._t.shape, shape)] if n else []


# ---------------------------------------------------------------- parts and conjugates


def _part(x: Tensor, pick, offset: int, name: str) -> Tensor:
    """A part of complex ``x`` as PyTorch's view of it: strides in units of the real dtype."""
    t = x._t
    strides = tuple(2 * s for s in t.strides)
    v = _made([pick(z) for z in flat(x)], tuple(t.shape), t.dtype.to_real(), strides)
    m = mem(v)
    m.base = x if x._s is None or x._s.base is None else x._s.base
    m.offset = 2 * (x._s.offset if x._s is not None else 0) + offset
    _PARTS[id(v)] = v
    return v


def real(input) -> Tensor:
    """``torch.real``/``Tensor.real``: the real parts of a complex tensor; a real tensor itself."""
    if not _is_complex(input):
        return input
    return _part(input, lambda z: z.real, 0, "real")


def imag(input) -> Tensor:
    """``torch.imag``/``Tensor.imag``: the imaginary parts of a complex tensor."""
    if not _is_complex(input):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    v = _part(input, lambda z: z.imag, 1, "imag")
    if _in(_CONJ, input):  # conj's imaginary part is the negated view of the tensor's
        _NEG[id(v)] = v
    return v


def view_as_real(input) -> Tensor:
    """``torch.view_as_real``: a complex tensor of shape S as a real one of shape S + (2,)."""
    if not _is_complex(input):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if _in(_CONJ, input):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj()")
    t = input._t
    vals = [p for z in flat(input) for p in (z.real, z.imag)]
    v = _made(vals, (*t.shape, 2), t.dtype.to_real(), tuple(2 * s for s in t.strides) + (1,))
    mem(v).base = input
    _PARTS[id(v)] = v
    return v


def view_as_complex(input) -> Tensor:
    """``torch.view_as_complex``: a float tensor whose last dimension is 2 (stride 1) as complex."""
    t = input._t
    if t.dtype not in (dtypes.float32, dtypes.float64):
        if t.dtype is dtypes.float16:
            raise Unsupported("torch.complex32 (ComplexHalf) tensors")
        raise RuntimeError("view_as_complex is only supported for floating point tensors")
    if not t.ndim or t.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if t.strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in t.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    vals = flat(input)
    out = [complex(vals[i], vals[i + 1]) for i in range(0, len(vals), 2)]
    v = _made(out, tuple(t.shape[:-1]), t.dtype.to_complex(), tuple(s // 2 for s in t.strides[:-1]))
    mem(v).base = input
    _PARTS[id(v)] = v
    return v


def conj(input) -> Tensor:
    """``conj()``: the conjugate, with PyTorch's conjugate bit set (``is_conj``); a real tensor itself."""
    if not _is_complex(input):
        return input
    if _in(_CONJ, input):  # conj of a conjugate view is the plain tensor again
        return _made([z.conjugate() for z in flat(input)], tuple(input._t.shape), input._t.dtype, _strides(input))
    v = _made([z.conjugate() for z in flat(input)], tuple(input._t.shape), input._t.dtype, _strides(input))
    _CONJ[id(v)] = v
    return v


def conj_physical(input, *, out=None) -> Tensor:
    """``conj_physical()``: the conjugate, materialized (no conjugate bit)."""
    if out is not None:
        raise Unsupported("torch.conj_physical(out=...)")
    if not _is_complex(input):
        return input
    return _made([z.conjugate() for z in flat(input)], tuple(input._t.shape), input._t.dtype, _strides(input))


def resolve_conj(input) -> Tensor:
    """``resolve_conj()``: a conjugate view materialized; any other tensor itself."""
    if not _in(_CONJ, input):
        return input
    return _made(list(flat(input)), tuple(input._t.shape), input._t.dtype, _strides(input))


def resolve_neg(input) -> Tensor:
    """``resolve_neg()``: a tensor with the negative bit (``is_neg``) materialized; any other itself."""
    if not _in(_NEG, input):
        return input
    return _made(list(flat(input)), tuple(input._t.shape), input._t.dtype, _strides(input))


def _strides(x: Tensor):
    return None if x._t.contiguous else x._t.strides


# ---------------------------------------------------------------- arithmetic


def _mul(a: complex, b: complex, r) -> complex:
    """c10::complex's product, each operation rounded by ``r`` (the part dtype's rounding)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    return complex(r(r(ar * br) - r(ai * bi)), r(r(ar * bi) + r(ai * br)))


def _div(a: complex, b: complex, r) -> complex:
    """c10::complex's quotient (Smith's algorithm, as NumPy), each operation rounded by ``r``."""
    x, y, c, d = a.real, a.imag, b.real, b.imag
    ac, ad = abs(c), abs(d)
    if ac >= ad:
        if ac == 0 and ad == 0:
            return complex(_fdiv(x, ac), _fdiv(y, ad))
        rat = r(_fdiv(d, c))
        scl = r(_fdiv(1.0, r(c + r(d * rat))))
        return complex(r(r(x + r(y * rat)) * scl), r(r(y - r(x * rat)) * scl))
    rat = r(_fdiv(c, d))
    scl = r(_fdiv(1.0, r(d + r(c * rat))))
    return complex(r(r(r(x * rat) + y) * scl), r(r(r(y * rat) - x) * scl))


def _fdiv(a: float, b: float) -> float:
    """IEEE division of doubles (inf and nan where Python raises)."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _add(a, b, r):
    return complex(r(a.real + b.real), r(a.imag + b.imag))


def _sub(a, b, r):
    return complex(r(a.real - b.real), r(a.imag - b.imag))


_KERNELS = {AR.Add: _add, AR.Sub: _sub, AR.Mul: _mul, AR.Div: _div}


def binary(op, a, b, alpha=None) -> Tensor:
    """``a (op) b`` where an operand is complex (elementwise.binary sends it here)."""
    case = _BINARY_CASES.get(op)
    if case is not None and alpha is None:
        return case(a, b)
    kernel = _KERNELS.get(op)
    dt = result_dtype((a, b))
    name = op.api.method if getattr(op, "api", None) else op.__name__.lower()
    if kernel is None or not dt.is_complex:
        raise Unsupported(f"{name} with {dt!r} operands" if dt.is_complex else f"{name} of a complex number")
    if alpha is not None and alpha != 1:
        raise Unsupported(f"{name}(alpha=...) with {dt!r} operands")
    if not isinstance(a, Tensor) and op is AR.Div:  # number / z is z.reciprocal() * number, as torch/_tensor.py
        one = _made([round_complex(dt, 1)], (), dt)
        return binary(AR.Mul, binary(AR.Div, one, b), a)
    r = dtypes.float32.round if dt is dtypes.complex64 else float
    xa, xb = _operand(a, dt), _operand(b, dt)
    shape = broadcast_shapes(xa._t.shape, xb._t.shape)
    n = check_size(shape)
    ca = [round_complex(dt, z) for z in _column(xa, shape, n)]
    cb = [round_complex(dt, z) for z in _column(xb, shape, n)]
    vals = [kernel(p, q, r) for p, q in zip(ca, cb)]
    return leaf(vals if shape else vals[0], laid_out(dt, shape, (xa._t, xb._t)))


def _operand(x, dt) -> Tensor:
    if isinstance(x, Tensor):
        if x._rg:
            raise Unsupported(f"autograd through an op with {dt!r} operands (requires_grad)")
        return x
    if isinstance(x, (bool, int, float, complex)):
        return leaf(x, TensorType(dt, ()))
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


def unary(op, a: Tensor) -> Tensor:
    """A unary op of a complex tensor (elementwise.unary sends it here): neg, abs and angle."""
    if a._rg:
        raise Unsupported(f"autograd through an op with {a._t.dtype!r} operands (requires_grad)")
    case = _UNARY_CASES.get(op)
    if case is not None:
        return case(a)
    if op is UN.Neg:
        return _made([-z for z in flat(a)], tuple(a._t.shape), a._t.dtype, _strides(a))
    rd = a._t.dtype.to_real()
    if op is UN.Abs:  # the modulus, hypot
        vals = round_list(rd, [math.hypot(z.real, z.imag) for z in flat(a)])
    elif op is AN.Angle:  # atan2(imag, real)
        vals = round_list(rd, [math.atan2(z.imag, z.real) for z in flat(a)])
    else:
        name = op.api.method if getattr(op, "api", None) else op.__name__.lower()
        raise Unsupported(f"{name} of {a._t.dtype!r} tensors")
    return leaf(vals if a._t.ndim else vals[0], laid_out(rd, tuple(a._t.shape), (a._t,)))


def sum_(input, dim=None, keepdim=False, *, dtype=None):
    """``sum`` of a complex tensor over ``dim`` (None: all): the exact sum of each part, rounded once."""
    if dtype is not None:
        raise Unsupported(f"sum(dtype=...) of {input._t.dtype!r} tensors")
    t = input._t
    shape = tuple(t.shape)
    dims = norm_dims(dim, max(t.ndim, 1)) if t.ndim or dim is not None else ()
    dims = tuple(d for d in dims if d < t.ndim)
    keep = [d for d in range(t.ndim) if d not in dims]
    inner = math.prod(shape[d] for d in dims)
    outer = math.prod(shape[d] for d in keep)
    vals = flat(input.permute(*keep, *dims).reshape(outer, inner)) if t.ndim else flat(input)
    out = [round_complex(t.dtype, complex(math.fsum(z.real for z in vals[i * inner:(i + 1) * inner]),
                                          math.fsum(z.imag for z in vals[i * inner:(i + 1) * inner])))
           for i in range(outer)]
    out_shape = tuple(1 if d in dims else shape[d] for d in range(t.ndim)) if keepdim else \
        tuple(shape[d] for d in keep)
    return _made(out, out_shape, t.dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """``mean`` of a complex tensor over ``dim``: its sum divided by the count (nan of an empty one)."""
    if dtype is not None:
        raise Unsupported(f"mean(dtype=...) of {input._t.dtype!r} tensors")
    s = sum_(input, dim, keepdim)
    n = input._t.numel // max(s._t.numel, 1) if s._t.numel else 0
    if dim is None or not input._t.ndim:
        n = input._t.numel
    return binary(AR.Div, s, _made([round_complex(s._t.dtype, n)], (), s._t.dtype))


# ---------------------------------------------------------------- the gate


_ALLOWED_METHODS = frozenset({
    # metadata and data movement, which do not read the numbers as real ones
    "dim", "ndimension", "size", "numel", "nelement", "element_size", "stride", "storage_offset", "is_contiguous",
    "is_floating_point", "is_complex", "is_conj", "is_neg", "is_leaf", "item", "tolist", "clone", "detach",
    "contiguous", "view", "reshape", "flatten", "unsqueeze", "squeeze", "t", "transpose", "permute",
    "__getitem__", "__len__", "__iter__", "__repr__", "__str__", "__format__", "__bool__", "__hash__",
    "to", "cfloat", "cdouble", "float", "double", "bool", "dim_order",
    # data movement and tests for zero, compared with PyTorch on complex tensors in test_complex_numbers.py
    "flip", "expand", "expand_as", "narrow", "select", "split", "chunk", "unbind", "diagonal", "movedim",
    "moveaxis", "unfold", "new_zeros", "type_as", "nonzero", "count_nonzero", "any", "all", "get_device", "cpu",
    "is_inference", "_is_view",
    # built here
    "conj", "conj_physical", "resolve_conj", "resolve_neg", "abs", "absolute", "__abs__", "angle", "sum", "mean",
    "add", "sub", "mul", "div", "neg", "negative", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
    "__rmul__", "__truediv__", "__rtruediv__", "__neg__", "__pos__", "adjoint",
    # the attributes
    "shape", "dtype", "ndim", "requires_grad", "grad", "grad_fn", "data", "device", "layout", "is_cuda",
    "is_sparse", "is_quantized", "is_meta", "_base", "T", "mT", "real", "imag", "H", "mH", "output_nr",
    "itemsize", "nbytes", "names", "is_nested",
})
_ALLOWED_FUNCTIONS = frozenset({
    "tensor", "as_tensor", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "empty", "empty_like",
    "complex", "polar", "real", "imag", "view_as_real", "view_as_complex", "conj", "conj_physical", "resolve_conj",
    "resolve_neg", "is_conj", "is_neg", "is_complex", "is_tensor", "is_floating_point", "numel", "abs", "absolute",
    "angle", "add", "sub", "mul", "div", "neg", "negative", "sum", "mean", "reshape", "flatten", "squeeze",
    "unsqueeze", "t", "transpose", "permute", "clone", "detach", "promote_types", "result_type", "can_cast",
    "is_storage", "typename", "set_printoptions", "get_default_dtype", "adjoint", "randn",
    "stack", "hstack", "vstack", "flip", "narrow", "select", "split", "chunk", "unbind", "diagonal", "movedim",
    "moveaxis", "where", "nonzero", "count_nonzero", "any", "all",
})
# names whose complex case is computed here, the real one by the function it wraps
_COMPLEX_CASE = {"sum": sum_, "mean": mean}


def complex_case(cases: dict, unary: dict, binary: dict) -> None:
    """Add complex cases: ``cases`` (name -> function called when the first operand is complex)
    to the gate's table, before the gate is installed (at import, by the modules that compute
    them); ``unary``/``binary`` (op table class -> function of the operands) for the elementwise
    paths that reach ``unary``/``binary`` here (a function looked up before the gate went up)."""
    _COMPLEX_CASE.update(cases)
    _UNARY_CASES.update(unary)
    _BINARY_CASES.update(binary)


_UNARY_CASES: dict = {}
_BINARY_CASES: dict = {}


_namespaces: list = []  # (namespace dict, how its names are printed, the allowed names)
_installed = [False]


def gate_installed() -> bool:
    return _installed[0]


def _complex_dtype_of(args, kwargs):
    """The complex dtype among call arguments (tensors and dtypes, one level of lists), or None."""
    for x in (*args, *kwargs.values()):
        if isinstance(x, (list, tuple)):
            for y in x:
                d = _complex_of(y)
                if d is not None:
                    return d
            continue
        d = _complex_of(x)
        if d is not None:
            return d
    return None


def _complex_of(x):
    if isinstance(x, Tensor):
        d = _dtype(x)
        return d if d.kind == "c" else None
    if isinstance(x, dtypes.dtype):  # (a Python complex number is each op's own: c10 converts or refuses it)
        return x if x.kind == "c" else None
    return None


def _gated(fn, label: str, complex_case=None):
    @functools.wraps(fn)
    def gated(*args, **kwargs):
        d = _complex_dtype_of(args, kwargs)
        if d is not None:
            if complex_case is not None and _is_complex(args[0] if args else kwargs.get("input")):
                return complex_case(*args, **kwargs)
            raise Unsupported(f"{label} with {d!r} operands")
        return fn(*args, **kwargs)

    gated.__complex_gated__ = fn
    return gated


def _gated_property(prop: property, label: str) -> property:
    def get(self):
        if self._t.dtype.kind == "c":
            raise Unsupported(f"{label} of a {self._t.dtype!r} tensor")
        return prop.fget(self)

    return property(get, prop.fset, prop.fdel, prop.__doc__)


def _no_complex_grad(prop: property) -> property:
    """``requires_grad``, whose setter refuses True on a complex tensor (autograd of complex numbers)."""
    def set_flag(self, flag) -> None:
        if flag is True and self._t.dtype.kind == "c":
            raise Unsupported(f"requires_grad=True on a {self._t.dtype!r} tensor (autograd of complex numbers)")
        prop.fset(self, flag)

    return property(prop.fget, set_flag, prop.fdel, prop.__doc__)


def _gate_namespace(ns: dict, prefix: str, allowed: frozenset) -> dict:
    """The gated replacements of ``ns``'s functions, by name (to be put in place by the caller)."""
    out = {}
    for name, fn in list(ns.items()):
        if isinstance(fn, types.FunctionType) and not hasattr(fn, "__complex_gated__"):
            case = _COMPLEX_CASE.get(name)
            if name in allowed and case is None:
                continue
            if name.startswith("__") and name not in _GATED_DUNDERS and case is None:
                continue
            out[name] = _gated(fn, prefix + name, case)
    return out


def _replace(target, ns: dict, new: dict) -> None:
    """Put ``new`` into ``ns`` (``target``'s namespace: setattr on a class), keeping the originals."""
    for name, fn in new.items():
        _originals.append((target, ns, name, ns[name]))
        if target is None:
            ns[name] = fn
        else:
            setattr(target, name, fn)


_originals: list = []  # (class or None, namespace, name, what was there before the gate)


# Tensor's special methods that compute on the numbers (the others are Python's machinery)
_GATED_DUNDERS = frozenset({
    "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__and__", "__or__", "__xor__", "__invert__",
    "__lshift__", "__rshift__", "__mod__", "__rmod__", "__floordiv__", "__rfloordiv__", "__pow__", "__rpow__",
    "__matmul__", "__rmatmul__", "__float__", "__int__", "__index__", "__complex__", "__setitem__",
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__",
    "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__", "__round__", "__trunc__", "__floor__",
    "__ceil__", "__contains__", "__array__", "__deepcopy__", "__rand__", "__ror__", "__rxor__", "__rlshift__",
    "__rrshift__", "__reversed__",
})


def register_namespace(ns: dict, prefix: str) -> None:
    """Put the functions of ``ns`` (a module's globals: torch, torch.nn.functional...) behind the
    gate once it is installed (now, if it is)."""
    _namespaces.append((ns, prefix))
    if _installed[0]:
        _replace(None, ns, _gate_namespace(ns, prefix, _ALLOWED_FUNCTIONS))


def install_gate() -> None:
    """Put every Tensor method, property and registered function that does not take complex
    operands behind the refusal (once, when the first complex element is made)."""
    if _installed[0]:
        return
    _installed[0] = True
    members = vars(Tensor)
    props = {name: _gated_property(attr, "Tensor." + name) for name, attr in members.items()
             if isinstance(attr, property) and name not in _ALLOWED_METHODS}
    props["requires_grad"] = _no_complex_grad(members["requires_grad"])
    _replace(Tensor, members, props)
    _replace(Tensor, members, _gate_namespace(dict(members), "Tensor.", _ALLOWED_METHODS))
    for ns, prefix in _namespaces:
        _replace(None, ns, _gate_namespace(ns, prefix, _ALLOWED_FUNCTIONS))


def uninstall_gate() -> None:
    """Take the gate away again, until the next complex element (tests, to leave the process as
    they found it)."""
    while _originals:
        target, ns, name, fn = _originals.pop()
        if target is None:
            ns[name] = fn
        else:
            setattr(target, name, fn)
    _installed[0] = False
    if install_gate not in dtypes.first_complex:
        dtypes.first_complex.append(install_gate)


def _refuse_part_write(t: Tensor) -> None:
    if _PARTS and _in(_PARTS, t):
        raise Unsupported("writing into the real or imaginary part (or view_as_real/view_as_complex) of a complex "
                          "tensor")


def _requires_grad(self) -> bool:
    return self._rg


def install(method, function) -> None:
    """The complex spellings; the gate is installed later, with the first complex tensor."""
    dtypes.first_complex.append(install_gate)
    storage.write_guards.append(_refuse_part_write)
    elementwise.complex_ops.update(binary=binary, unary=unary)
    Tensor.real = property(real)
    Tensor.imag = property(imag)
    Tensor.mH = property(lambda self: _adjoint(self, "mH"))
    Tensor.H = property(lambda self: _adjoint(self, "H"))
    method("adjoint", lambda self: _adjoint(self, "adjoint()"))
    for name, fn in (("complex", complex_), ("polar", polar), ("real", real), ("imag", imag),
                     ("view_as_real", view_as_real), ("view_as_complex", view_as_complex), ("conj", conj),
                     ("conj_physical", conj_physical), ("resolve_conj", resolve_conj), ("resolve_neg", resolve_neg),
                     ("adjoint", lambda input: _adjoint(input, "adjoint()"))):
        function(name, fn)
    for name, fn in (("conj", conj), ("conj_physical", lambda self: conj_physical(self)),
                     ("resolve_conj", resolve_conj), ("resolve_neg", resolve_neg)):
        method(name, fn)
    method("is_neg", lambda self: _in(_NEG, self))
    function("is_neg", lambda input: _in(_NEG, input))
    method("is_conj", lambda self: _in(_CONJ, self))
    function("is_conj", lambda input: _in(_CONJ, input))
    method("is_complex", lambda self: self._t.dtype.kind == "c")
    method("cfloat", lambda self, memory_format=None: self.to(dtypes.complex64, memory_format=memory_format))
    method("cdouble", lambda self, memory_format=None: self.to(dtypes.complex128, memory_format=memory_format))


def _adjoint(x: Tensor, name: str) -> Tensor:
    """``mH``, ``H`` and ``adjoint()``: the conjugate transpose of the last two dims (``H``: of a
    matrix); a 0-dim tensor's conjugate, with PyTorch's deprecation warning."""
    nd = x._t.ndim
    if nd == 0:
        said = name if name == "adjoint()" else "Tensor." + name
        warnings.warn(f"{said} is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=3)
        return conj(x)
    if name == "H" and nd != 2:
        more = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{more}")
    if nd < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got {nd}-D tensor.")
    return conj(x.transpose(-2, -1))
