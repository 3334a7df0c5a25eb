"""isnan, isinf, isfinite, isposinf, isneginf, isreal, signbit and logical_not/and/or/xor
(``_ops/predicates.py``) against live PyTorch 2.13: values for every dtype (nan, infinities and
signed zeros included), broadcasting, no node and no requires_grad, the in-place logical forms
(the tensor keeps its dtype)."""

from __future__ import annotations

import math

import pytest

import scalargrad as sg

VALUES = [1.5, math.nan, math.inf, -math.inf, -0.0, 0.0, -2.0, 1e-40, -math.nan]
DATA = {"float32": VALUES, "float64": VALUES, "int64": [3, 0, -2, 7, 0, -1, 5, 1, 0],
        "bool": [True, False, True, True, False, False, True, False, True]}
PREDICATES = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "signbit", "logical_not"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]


def _run_predicate(L, name, dtype):
    x = L.tensor(DATA[dtype], dtype=getattr(L, dtype))
    if dtype.startswith("float"):
        x.requires_grad_()
    y = getattr(L, name)(x)
    m = getattr(x.reshape(3, 3).t(), name)()  # a transposed view
    z = getattr(x[2], name)()  # 0-dim
    return y.tolist(), str(y.dtype), y.requires_grad, y.grad_fn is None, m.tolist(), z.item()


@pytest.mark.parametrize("dtype", sorted(DATA))
@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_match_pytorch(torch_ref, name, dtype):
    assert _run_predicate(sg, name, dtype) == _run_predicate(torch_ref, name, dtype)


def _run_logical(L, name, da, db):
    a = L.tensor(DATA[da], dtype=getattr(L, da)).reshape(3, 3)
    b = L.tensor(DATA[db][:3], dtype=getattr(L, db))
    y = getattr(L, name)(a, b)
    w = getattr(a, name)(b)
    c = a.clone()
    r = getattr(c, name + "_")(b)
    return y.tolist(), str(y.dtype), w.tolist(), c.tolist(), str(c.dtype), r is c, c._version


@pytest.mark.parametrize("pair", [("float32", "float32"), ("float32", "int64"), ("int64", "bool"),
                                  ("bool", "float64"), ("float64", "bool")])
@pytest.mark.parametrize("name", LOGICAL)
def test_logical_match_pytorch(torch_ref, name, pair):
    assert _run_logical(sg, name, *pair) == _run_logical(torch_ref, name, *pair)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_logical_not_in_place_keeps_the_dtype(torch_ref, dtype):
    out = []
    for L in (sg, torch_ref):
        x = L.tensor(DATA[dtype], dtype=getattr(L, dtype))
        x.logical_not_()
        out.append((x.tolist(), str(x.dtype)))
    assert out[0] == out[1]


def test_a_mask_from_isnan_selects(torch_ref):
    out = []
    for L in (sg, torch_ref):
        x = L.tensor([1.0, math.nan, 3.0])
        out.append((x[~x.isnan()].tolist(), x.isnan().any().item(), L.isfinite(x).all().item(),
                    x.masked_fill(L.isnan(x), 0.0).tolist()))
    assert out[0] == out[1]


def test_logical_functions_write_into_out(torch_ref):
    out = []
    for L in (sg, torch_ref):
        a = L.tensor([0.0, 1.0, -10.0], dtype=L.float64)
        t = L.empty(3, dtype=L.int16)
        r = L.logical_not(a, out=t)
        u = L.empty(3, dtype=L.bool)
        s = L.logical_or(a, L.tensor([0, 0, 1]), out=u)
        out.append((r is t, t.tolist(), str(t.dtype), s is u, u.tolist()))
    assert out[0] == out[1]
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        r = sg.logical_and(sg.tensor([1.0, 0.0]), sg.tensor(1), out=sg.empty(5))  # resized, as PyTorch's
    assert r.tolist() == [1.0, 0.0]


def test_a_python_number_other_is_refused_as_pytorch_does(torch_ref):
    def run(L):
        x = L.tensor([1.0, 0.0])
        out = []
        for f in (lambda: L.logical_and(x, 1), lambda: x.logical_or(1), lambda: x.logical_xor_(1),
                  lambda: L.logaddexp(x, 2.0), lambda: x.logaddexp2(2.0)):
            try:
                f()
                out.append(None)
            except TypeError as e:
                out.append(str(e))
        return out

    assert run(sg) == run(torch_ref)


def _run_nan_to_num(L):
    """nan_to_num's values, dtypes, parsing, out=, in place and gradient, as strings (nan != nan)."""
    nan, inf = float("nan"), float("inf")
    x = L.tensor([nan, inf, -inf, 3.14, -0.0])
    out = [str(L.nan_to_num(x.to(getattr(L, d)))) for d in ("float32", "float64", "float16", "bfloat16")]
    out += [str(L.nan_to_num(x, nan=2.0, posinf=1.0)), str(x.nan_to_num(1, 2, 3)), str(x.nan_to_num(None)),
            str(L.nan_to_num(x, posinf=1e39, neginf=-1e300)), str(L.nan_to_num(input=x, nan=L.tensor(5.0))),
            str(L.nan_to_num(L.tensor([1, -2]))), str(L.nan_to_num(L.tensor([True]))), str(L.nan_to_num(x[1]))]
    for call in (lambda: L.nan_to_num(x, "a"), lambda: x.nan_to_num("a"), lambda: x.nan_to_num(posinf="a"),
                 lambda: L.nan_to_num(x, 1, L.tensor([1.0, 2.0])), lambda: x.nan_to_num_(1, 2, 3, 4),
                 lambda: L.nan_to_num(x, 1, 2, 3, 4), lambda: x.nan_to_num(foo=1)):
        try:
            out.append(str(call()))
        except TypeError as e:
            out.append(str(e))
    o = L.empty(5)
    out += [str(L.nan_to_num(x, out=o) is o), str(o)]
    z = x.clone()
    out += [str(z.nan_to_num_(nan=-1.0) is z), str(z), str(z._version)]
    w = x.clone().requires_grad_()
    y = L.nan_to_num(w, nan=7.0)
    g = L.tensor([1.0, nan, inf, 2.0, -3.0])
    out += [str(y), y.grad_fn.name(), str(y.grad_fn._saved_self), str(L.autograd.grad(y, w, g, retain_graph=True))]
    gg = L.ones(5, requires_grad=True)
    d, = L.autograd.grad(y, w, gg, create_graph=True)
    return out + [str(d), d.grad_fn.name()]


def test_nan_to_num_matches_pytorch(torch_ref):
    assert _run_nan_to_num(sg) == _run_nan_to_num(torch_ref)


def test_nan_to_num_gradient_is_one_where_finite(assert_grads):
    # d/dx nan_to_num(x) = isfinite(x) (derivatives.yaml), 1 on the finite values SymPy proves
    x = sg.tensor(1.5, requires_grad=True)
    w = sg.tensor(-2.0, requires_grad=True)
    assert_grads(sg.nan_to_num(x * w) * x, {x: -6.0, w: 2.25})


def _nonzero_outcomes(L) -> list:
    out = []
    for v in ([], [1, 2], [[0.0]], float("nan"), -0.0, True, [3]):
        for f in (L.is_nonzero, L.Tensor.is_nonzero):
            try:
                out.append(f(L.tensor(v)))
            except RuntimeError as e:
                out.append(str(e))
    try:
        L.is_nonzero(3)
    except TypeError as e:
        out.append(str(e))
    return out


def test_is_nonzero_as_pytorch(torch_ref):
    # bool(t): one element's truth (nan true, -0.0 false), PyTorch's refusals of no or several values
    assert _nonzero_outcomes(sg) == _nonzero_outcomes(torch_ref)
