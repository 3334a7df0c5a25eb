"""Complex ``==``/``!=``/``eq``/``ne``, ``isreal``, ``sgn``, ``vdot`` and the negative bit
(``is_neg``/``resolve_neg`` of a conjugate's imaginary part) against live PyTorch.

Bit equality where the result is exact on every processor (comparisons, isreal, the negative bit,
``vdot`` of small integers); ``sgn`` and float ``vdot`` within a bound (PyTorch's vectorized
complex division and BLAS's cdotc order differ per processor).
"""

from __future__ import annotations

import math

import pytest
from complex_cases import both, gate_removed_after  # noqa: F401  (the fixture is autouse)

import scalargrad
from scalargrad._tensor import complex_numbers

EXACT = [
    "torch.tensor([1+2j, 3-1j]) == torch.tensor([1+2j, 3+1j])",
    "torch.tensor([1+2j, 3-1j]) != torch.tensor([[1+2j], [3-1j]])",
    "torch.tensor([1+0j, 2j, complex(math.nan, 0)]) == torch.tensor([1., 0., math.nan])",
    "torch.tensor([1+0j, 2j], dtype=torch.cdouble) == 1, torch.tensor([1+0j, 2j]) != 2j",
    "torch.eq(torch.tensor([0.1+0.2j]), torch.tensor([0.1+0.2j], dtype=torch.cdouble))",
    "torch.tensor([[1+2j]]).eq(torch.tensor([1+2j, 0j])), torch.tensor(1j).ne(1j)",
    "(torch.complex(torch.arange(4.), torch.arange(4.)).reshape(2, 2).adjoint() == "
    "torch.complex(torch.arange(4.), torch.arange(4.)).reshape(2, 2).mH).all()",
    "torch.isreal(torch.tensor([1, 1+1j, 2+0j, complex(0, -0.0), complex(math.nan, 0)]))",
    "torch.tensor([[1j, 2]], dtype=torch.cdouble).isreal(), torch.isreal(torch.tensor(3+0j))",
    "torch.vdot(torch.tensor([2, 3]), torch.tensor([2, 1]))",
    "torch.vdot(torch.tensor((1 +2j, 3 - 1j)), torch.tensor((2 +1j, 4 - 0j)))",
    "torch.vdot(torch.tensor((2 +1j, 4 - 0j)), torch.tensor((1 +2j, 3 - 1j)))",
    "torch.tensor([1j, -2+0.5j], dtype=torch.cdouble).vdot(torch.tensor([3, 1j], dtype=torch.cdouble))",
    "torch.tensor([0j, complex(-0.0, 0.0)]).sgn(), torch.sgn(torch.tensor(0j, dtype=torch.cdouble))",
]


def _bits(x) -> list:
    vals = x.reshape(-1).tolist() if x.dim() else [x.item()]
    return [(str(type(v).__name__), repr(complex(v).real), repr(complex(v).imag)) for v in vals]


@pytest.mark.parametrize("src", EXACT)
def test_exact_results_are_pytorchs(torch_ref, src):
    ours, theirs = both(torch_ref, src)
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        assert repr(a) == repr(b)
        assert a.dtype.name == str(b.dtype).split(".")[1]
        assert _bits(a) == _bits(b)


def _ulp(x: float, single: bool) -> float:
    e = math.frexp(x)[1] if x else -1021
    return math.ldexp(1.0, e - (24 if single else 53))


@pytest.mark.parametrize("src", [
    "torch.tensor([3+4j, 7-24j, 0, 1+2j, 0.1-1e-3j, 1e30+1e30j, -1e-30j]).sgn()",
    "torch.sgn(torch.tensor([1+2j, 0.3-0.7j, -1e200+0j], dtype=torch.cdouble))",
    "torch.vdot(torch.tensor([0.1+0.2j, 1/3-2/3j, 5-7j]), torch.tensor([1e-3+3j, 7.25-1.5j, 0.5j]))",
    "torch.vdot(torch.tensor([0.1+0.2j, 1/3-2/3j], dtype=torch.cdouble), "
    "torch.tensor([1e-3+3j, 7.25-1.5j], dtype=torch.cdouble))",
])
def test_rounded_results_are_within_a_bound(torch_ref, src):
    """Within 4 ulps of the largest part of PyTorch's figure (a part's dtype)."""
    ours, theirs = both(torch_ref, src)
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    single = ours.dtype.name == "complex64"
    xs = ours.reshape(-1).tolist() if ours.dim() else [ours.item()]
    ys = theirs.reshape(-1).tolist() if theirs.dim() else [theirs.item()]
    for x, y in zip(xs, ys):
        big = max(abs(y.real), abs(y.imag))
        assert abs(complex(x) - complex(y)) <= 4 * _ulp(big, single), (x, y)


def _error(lib, src: str) -> str:
    try:
        eval(src, {"torch": lib})
    except Exception as e:  # the type and message are compared
        return f"{type(e).__name__}: {e}"
    return "no error"


@pytest.mark.parametrize("src", [
    "torch.vdot(torch.tensor([1+2j, 3-1j]), torch.tensor([2., 1.]))",
    "torch.vdot(torch.tensor([1+2j, 3-1j]), torch.tensor([1j]))",
    "torch.vdot(torch.tensor([[1+2j, 3-1j]]), torch.tensor([1j, 2]))",
    "torch.vdot(torch.tensor([1+2j]), torch.tensor([1j], dtype=torch.cdouble))",
    "torch.imag(torch.tensor([1., 2.]))",
])
def test_errors_are_pytorchs(torch_ref, src):
    assert _error(scalargrad, src) == _error(torch_ref, src)


def test_negative_bit_of_a_conjugates_imaginary_part(torch_ref):
    """torch.resolve_neg's docstring example: conj().imag has the negative bit, resolve_neg clears it."""
    seen = []
    for lib in (scalargrad, torch_ref):
        x = lib.tensor([-1 + 1j, -2 + 2j, 3 - 3j])
        z = x.conj().imag
        out = z.resolve_neg()
        a = lib.tensor([1., 2.])
        seen.append((z.is_neg(), lib.is_neg(z), repr(out), out.is_neg(), lib.resolve_neg(z).is_neg(),
                     x.imag.is_neg(), x.conj().real.is_neg(), x.conj().conj().imag.is_neg(),
                     z.resolve_neg() is z, a.resolve_neg() is a, a.is_neg()))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("src", [
    "torch.isreal(torch.tensor([1, 1+1j, 2+0j]))",
    "torch.sgn(torch.tensor([0j, 2+0j]))",
    "torch.eq(torch.tensor([1j, 2]), torch.tensor([1j, 3]))",
    "torch.ne(torch.tensor([1j, 2]), 2), torch.not_equal(torch.tensor([1j]), 1j)",
])
def test_functions_looked_up_before_the_first_complex_tensor(torch_ref, src):
    """``torch.isreal`` is looked up before its argument, the process's first complex tensor, is
    made (the gate is not up yet): the elementwise path reaches the complex case too."""
    complex_numbers.uninstall_gate()
    ours, theirs = both(torch_ref, src)
    assert repr(ours) == repr(theirs)
