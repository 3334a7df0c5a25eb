"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp.

Hand-derived figures first (no PyTorch needed), then a side-by-side run of the same calls
(values, shapes, nesting, grad_fn names and strict-mode messages) against PyTorch.
"""

from __future__ import annotations

import pytest

import scalargrad as torch
from scalargrad.autograd import functional as F


def test_jacobian_of_row_sums_of_squares():
    # f(x)_i = sum_j x_ij^2, so df_i/dx_kl = 2 x_kl if i == k else 0: shape (2,) + (2, 2)
    x = torch.tensor([[0.5, 1.0], [2.0, -1.0]])
    j = F.jacobian(lambda a: (a * a).sum(1), x)
    assert j.shape == (2, 2, 2)
    assert j.tolist() == [[[1.0, 2.0], [0.0, 0.0]], [[0.0, 0.0], [4.0, -2.0]]]
    assert not j.requires_grad


def test_jacobian_nesting_follows_the_arguments():
    x, y = torch.tensor([1.0, 2.0]), torch.tensor(3.0)
    both = F.jacobian(lambda a, b: (a * b, b * b), (x, y))
    assert isinstance(both, tuple) and len(both) == 2 and all(len(p) == 2 for p in both)
    # d(a*b)/da = b I, d(a*b)/db = a, d(b*b)/da = 0 (shape () + (2,)), d(b*b)/db = 2b
    assert both[0][0].tolist() == [[3.0, 0.0], [0.0, 3.0]]
    assert both[0][1].tolist() == [1.0, 2.0]
    assert both[1][0].tolist() == [0.0, 0.0] and both[1][1].item() == 6.0
    assert isinstance(F.jacobian(lambda a: a * 2, (x,)), tuple)
    assert isinstance(F.jacobian(lambda a: a * 2, x), torch.Tensor)


def test_hessian_of_sum_of_cubes_is_diagonal():
    y = torch.tensor([0.5, -2.0], dtype=torch.float64)
    h = F.hessian(lambda a: (a ** 3).sum(), y)
    assert h.tolist() == [[3.0, 0.0], [0.0, -12.0]]  # 6 y_i on the diagonal


def test_products_with_vectors():
    y = torch.tensor([0.5, -2.0], dtype=torch.float64)
    v = torch.tensor([1.0, 0.5], dtype=torch.float64)
    cubes = lambda a: (a ** 3).sum()
    out, hv = F.hvp(cubes, y, v)
    assert out.item() == 0.125 - 8.0 and hv.tolist() == [3.0, -6.0]  # H v = 6 y * v
    assert F.vhp(cubes, y, v)[1].tolist() == [3.0, -6.0]
    assert F.vjp(cubes, y)[1].tolist() == [0.75, 12.0]  # 3 y^2
    _, jv = F.jvp(lambda a: a * a, y, v)
    assert jv.tolist() == [1.0, -2.0]  # 2 y * v


def test_create_graph_keeps_the_result_differentiable():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    j = F.jacobian(lambda a: a ** 2, x, create_graph=True)
    assert j.requires_grad
    j.sum().backward()  # d/dx sum(diag(2x)) = 2
    assert x.grad.tolist() == [2.0, 2.0]


def test_strict_mode_and_bad_arguments():
    x = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^Output 0 of the user-provided function does not require gradients"):
        F.jacobian(lambda a: a.detach(), x, strict=True)
    with pytest.raises(RuntimeError, match="^Output 0 of the user-provided function is independent of input 1"):
        F.jacobian(lambda a, b: a * 2, (x, x.clone()), strict=True)
    with pytest.raises(TypeError, match="^The inputs given to jacobian must be either a Tensor or a tuple"):
        F.jacobian(lambda a: a, 3.0)
    with pytest.raises(RuntimeError, match="^v has invalid size: should be torch.Size"):
        F.vjp(lambda a: a * 2, x, torch.ones(3))
    with pytest.raises(RuntimeError, match="^The function given to hvp should return a single Tensor$"):
        F.hvp(lambda a: (a, a), x, x)


def _normalise(text: str) -> str:
    # Known difference, left to the op table: PyTorch differentiates unsqueeze's backward
    # (in sum's double backward) as squeeze(dim) (SqueezeBackward1); scalargrad reshapes.
    return text.replace("SqueezeBackward1", "ViewBackward0")


def test_matches_pytorch(torch_ref):
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location("functional_cases",
                                                  pathlib.Path(__file__).parent / "functional_cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    ours, theirs = cases.run(torch), cases.run(torch_ref)
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert _normalise(a) == _normalise(b), f"case {i}"


def test_hessian_and_jacobian_against_sympy():
    import sympy as sp

    a, b = sp.symbols("a b")
    f = sp.sin(a * b) + a ** 3 * sp.exp(b)
    point = {a: sp.Rational(3, 10), b: sp.Rational(-7, 10)}
    want_h = [[float(sp.diff(f, u, w).subs(point)) for w in (a, b)] for u in (a, b)]
    want_g = [float(sp.diff(f, u).subs(point)) for u in (a, b)]
    x = torch.tensor([0.3, -0.7], dtype=torch.float64)

    def fn(t):
        return (t[0] * t[1]).sin() + t[0] ** 3 * t[1].exp()

    h = F.hessian(fn, x)
    for row, want_row in zip(h.tolist(), want_h):
        assert row == pytest.approx(want_row, rel=1e-13, abs=1e-15)
    assert F.jacobian(fn, x).tolist() == pytest.approx(want_g, rel=1e-13)
    # hvp and vhp agree with H v for a symmetric H
    v = torch.tensor([1.0, 2.0], dtype=torch.float64)
    hv = [want_h[0][0] + 2 * want_h[0][1], want_h[1][0] + 2 * want_h[1][1]]
    assert F.hvp(fn, x, v)[1].tolist() == pytest.approx(hv, rel=1e-13)
    assert F.vhp(fn, x, v)[1].tolist() == pytest.approx(hv, rel=1e-13)


def test_construct_standard_basis_for_matches_pytorch(torch_ref):
    # PyTorch's own test_construct_standard_basis_for (test/autograd/test_functional.py) calls
    # this private helper: each chunk is a column block of the identity, in its tensor's dtype
    f32 = "float32"
    cases = [[(f32, (2, 3))], [(f32, (1,))], [(f32, ())], [(f32, (1,)), (f32, ()), (f32, ())],
             [(f32, (2,)), (f32, (3,)), (f32, ())], [(f32, (2, 3)), (f32, (3,)), (f32, (3, 4, 2))],
             [("float64", (2,)), (f32, (3,))], [(f32, (2,)), (f32, (0,))]]
    for case in cases:
        got = []
        for lib in (torch, torch_ref):
            tensors = tuple(lib.zeros(shape, dtype=getattr(lib, dtype)) for dtype, shape in case)
            numels = tuple(t.numel() for t in tensors)
            chunks = lib.autograd.functional._construct_standard_basis_for(tensors, numels)
            got.append([(str(c.dtype), tuple(c.shape), c.tolist(), c.requires_grad) for c in chunks])
        assert got[0] == got[1], case
    for lib in (torch, torch_ref):
        with pytest.raises(AssertionError, match="same length"):
            lib.autograd.functional._construct_standard_basis_for((lib.zeros(1),), (1, 1))
        with pytest.raises(AssertionError, match="at least one tensor"):
            lib.autograd.functional._construct_standard_basis_for((), ())
