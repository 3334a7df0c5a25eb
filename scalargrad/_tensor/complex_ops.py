"""More ops of complex tensors: ``eq``/``ne`` (``==``/``!=``), ``isreal``, ``sgn`` and ``vdot``.

These are the complex cases of names the complex gate (``complex_numbers``) would otherwise
refuse: ``install`` puts them in the gate's table, so a call whose first operand is a complex
tensor comes here and every other call goes to the real op as before.

As ATen computes them: ``eq``/``ne`` compare both parts (``c10::complex``'s ``==``; a real or
number operand is promoted to the complex dtype first, exactly); ``isreal`` is ``imag == 0``;
``sgn(z)`` is 0 for 0 and otherwise ``z / complex(|z|, 0)`` (zmath.h's ``sgn_impl``), ``|z|``
being ``hypot`` rounded to the part dtype and the quotient ``c10::complex``'s division, each
operation rounded (PyTorch's vectorized kernel may differ in the last bit); ``vdot(a, b)`` is
``sum(conj(a) * b)`` after ``dot``'s checks, each part's sum exact and rounded once (BLAS's
``cdotc`` accumulates in its own order, so float32 results may differ in the last bits).
Autograd through them is refused by name, as for every complex op here.
"""

from __future__ import annotations

import math

from .._base import dtypes
from .._base.dtypes import TensorType, round_complex
from .._base.errors import Unsupported
from .._ops import comparison as CMP
from .._ops import predicates as PR
from .._ops import unary as UN
from . import complex_numbers as C
from .operands import broadcast_shapes, check_size, laid_out, result_dtype
from .products import dot_checks
from .tensor import Tensor, flat, leaf

__all__ = ["eq", "ne", "isreal", "sgn", "vdot", "install"]


def _no_grad(name: str, *xs) -> None:
    for x in xs:
        if isinstance(x, Tensor) and x._rg:
            raise Unsupported(f"autograd through {name} with {x._t.dtype!r} operands (requires_grad)")


def _compare(name: str, input, other, out, equal: bool) -> Tensor:
    if out is not None:
        raise Unsupported(f"torch.{name}(out=...) with complex operands")
    if not isinstance(other, (Tensor, bool, int, float, complex)):
        raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    dt = result_dtype((input, other))
    if not isinstance(input, Tensor):  # a number on the left (reached through the elementwise path)
        input = leaf(input, TensorType(dt, ()))
    b = other if isinstance(other, Tensor) else leaf(other, TensorType(dt, ()))
    shape = broadcast_shapes(input._t.shape, b._t.shape)
    n = check_size(shape)
    xa = [round_complex(dt, z) for z in C._column(input, shape, n)]
    xb = [round_complex(dt, z) for z in C._column(b, shape, n)]
    vals = [(p == q) is equal for p, q in zip(xa, xb)]
    return leaf(vals if shape else vals[0], laid_out(dtypes.bool, shape, (input._t, b._t)))


def eq(input, other, *, out=None) -> Tensor:
    """``input == other`` with a complex ``input``: both parts equal (a bool tensor)."""
    return _compare("eq", input, other, out, True)


def ne(input, other, *, out=None) -> Tensor:
    """``input != other`` with a complex ``input``: either part different (a bool tensor)."""
    return _compare("ne", input, other, out, False)


def isreal(input) -> Tensor:
    """``torch.isreal`` of a complex tensor: whether each imaginary part is zero (-0.0 too)."""
    vals = [z.imag == 0 for z in flat(input)]
    return leaf(vals if input._t.ndim else vals[0], laid_out(dtypes.bool, tuple(input._t.shape), (input._t,)))


def sgn(input, *, out=None) -> Tensor:
    """``sgn`` of a complex tensor: ``z / |z|``, 0 where ``z`` is 0."""
    if out is not None:
        raise Unsupported("torch.sgn(out=...) with complex operands")
    _no_grad("sgn", input)
    dt = input._t.dtype
    r = dtypes.float32.round if dt is dtypes.complex64 else float
    vals = [0j if z == 0 else C._div(z, complex(r(math.hypot(z.real, z.imag)), 0.0), r) for z in flat(input)]
    return leaf(vals if input._t.ndim else vals[0], laid_out(dt, tuple(input._t.shape), (input._t,)))


def vdot(input, other, *, out=None) -> Tensor:
    """``torch.vdot(a, b)`` of complex vectors: ``sum(conj(a) * b)``."""
    if out is not None:
        raise Unsupported("torch.vdot(out=...) with complex operands")
    if not isinstance(other, Tensor):
        raise TypeError(f"vdot(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    dot_checks(input, other)
    _no_grad("vdot", input, other)
    dt = input._t.dtype
    r = dtypes.float32.round if dt is dtypes.complex64 else float
    prods = [C._mul(a.conjugate(), b, r) for a, b in zip(flat(input), flat(other))]
    total = complex(math.fsum(z.real for z in prods), math.fsum(z.imag for z in prods))
    return leaf(round_complex(dt, total), TensorType(dt, ()))


def install(method, function) -> None:
    """The complex cases, into the complex gate's table (nothing is bound here: the real ops stay)."""
    C.complex_case({"eq": eq, "__eq__": eq, "ne": ne, "__ne__": ne, "not_equal": ne, "isreal": isreal, "sgn": sgn,
                    "vdot": vdot},
                   unary={UN.Sgn: sgn, PR.Isreal: isreal},
                   binary={CMP.Eq: lambda a, b: _compare("eq", a, b, None, True),
                           CMP.Ne: lambda a, b: _compare("ne", a, b, None, False)})
