"""``torch.logsumexp`` / ``Tensor.logsumexp``: PyTorch 2.13's semantics, values and gradient.

ATen computes ``logsumexp`` as ``logsumexp_out_impl`` does: the maxima along ``dim`` (an
infinite one taken as 0), ``exp(x - max)`` summed in the sum kernel's order, ``log`` of the sum
plus the maxima, each step rounded to the dtype. exp and log are machine-dependent in PyTorch
(MKL's vector math, SLEEF); scalargrad takes each correctly rounded in float32. So the values
are checked three ways: against that formula evaluated with correctly rounded exp and log
(mpmath, 300 bits) bit for bit, against live PyTorch within a bound measured on the capture
machine (600 random tensors, slices up to 40 long: 2 ulp for the values in float32 and float64;
the tests hold 4), and the gradient, ``grad * exp(self - result)`` (derivatives.yaml's
``logsumexp_backward``), against the same formula and against live PyTorch's gradient computed
from PyTorch's own result. The op table's SymPy form is differentiated and compared with the
gradient autograd computes. Expected figures come from PyTorch 2.13 (printed), mpmath or SymPy.
"""

from __future__ import annotations

import math
import random

import mpmath
import pytest
import sympy as sp
from program_outcome import described

import scalargrad as sg
from scalargrad._ops.reductions import Logsumexp
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

from faithfulness import FLOAT32, FLOAT64, correctly_rounded, f32, same, ulps
from graph_listing import first_edge_chain

VALUE_ULPS = 4  # measured on the capture machine: 2 (float32 and float64)


def _f(x: float, dtype: str) -> float:
    return f32(x) if dtype == FLOAT32 else x


def _reference(row: list, dtype: str) -> float:
    """logsumexp of one slice, as ATen computes it for a slice summed in order from 0 (slices
    shorter than a vector: every processor adds them so), exp and log correctly rounded."""
    m = max(row) if not any(v != v for v in row) else math.nan
    if m in (math.inf, -math.inf):
        m = 0.0
    s = 0.0
    for v in row:
        s = _f(s + correctly_rounded("exp", _f(v - m, dtype), dtype=dtype), dtype)
    return _f(correctly_rounded("log", s, dtype=dtype) + m, dtype)


def _gradient_reference(row: list, y: float, g: float, dtype: str) -> list:
    """logsumexp_backward of one slice: grad * exp(self - result), exp correctly rounded."""
    return [_f(g * correctly_rounded("exp", _f(v - y, dtype), dtype=dtype), dtype) for v in row]


def test_pytorchs_printed_values_names_and_saved_attributes():
    # PyTorch 2.13 printed, for these calls:
    #   tensor([3.4076, 4.0363], grad_fn=<LogsumexpBackward0>) (1,) False True
    #   (18446744073709551615,) torch.Size([2, 1]);  tensor(4.4637, grad_fn=<LogsumexpBackward0>) (0, 1)
    x = sg.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], requires_grad=True)
    y = sg.logsumexp(x, 1)
    assert repr(y) == "tensor([3.4076, 4.0363], grad_fn=<LogsumexpBackward0>)"
    fn = y.grad_fn
    assert fn.name() == "LogsumexpBackward0" and fn._saved_dim == (1,) and fn._saved_keepdim is False
    assert fn._saved_self is x and fn._saved_result.tolist() == y.tolist()
    y2 = x.logsumexp(-1, keepdim=True)
    assert y2.grad_fn._saved_dim == (18446744073709551615,) and tuple(y2.shape) == (2, 1)
    y3 = x.logsumexp((0, 1))
    assert repr(y3) == "tensor(4.4637, grad_fn=<LogsumexpBackward0>)" and y3.grad_fn._saved_dim == (0, 1)


def test_a_double_backward_records_pytorchs_nodes():
    # torch.autograd.grad(torch.logsumexp(x, 1).sum(), x, create_graph=True) in PyTorch 2.13:
    # MulBackward0 <- ExpBackward0 <- SubBackward0 <- (AccumulateGrad, UnsqueezeBackward0 <- LogsumexpBackward0)
    x = sg.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], requires_grad=True)
    (g,) = sg.autograd.grad(sg.logsumexp(x, 1).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "MulBackward0"
    exp = g.grad_fn.next_functions[1][0]
    assert exp.name() == "ExpBackward0"
    sub = exp.next_functions[0][0]
    assert sub.name() == "SubBackward0"
    assert [f.name() for f, _ in sub.next_functions] == ["torch::autograd::AccumulateGrad", "UnsqueezeBackward0"]
    assert sub.next_functions[1][0].next_functions[0][0].name() == "LogsumexpBackward0"


_CALLS = [
    "torch.logsumexp(x)", "x.logsumexp()", "torch.logsumexp(x, ())", "torch.logsumexp(x, (), keepdim=True)",
    "torch.logsumexp(x, 2)", "torch.logsumexp(torch.tensor(2.0), 0)", "torch.logsumexp(torch.tensor(2.0), ())",
    "torch.logsumexp(torch.tensor(2.0), 1)", "torch.logsumexp(torch.tensor([1, 2]), 0)", "torch.logsumexp(x, [0])",
    "torch.logsumexp(x, dim=1.0)", "torch.logsumexp(x, 1.5)", "x.logsumexp(1.5)", "torch.logsumexp(x, [1.0])",
    "torch.logsumexp(torch.tensor([-float('inf')] * 2), 0)", "torch.logsumexp(torch.tensor([float('inf'), 1.0]), 0)",
    "torch.logsumexp(torch.tensor([]), 0)", "torch.logsumexp(torch.tensor([True, False]), 0)",
    "torch.logsumexp(x, (1, 1))", "torch.logsumexp(3.0, 0)", "torch.logsumexp(x, 1, False, 3)",
    "x.logsumexp(1, False, 3)", "torch.logsumexp(x, 1, foo=2)", "torch.logsumexp(x, 0, keepdim=1)",
    "torch.logsumexp(x, torch.tensor(1))", "torch.logsumexp(torch.zeros(2, 0), 1)",
    "torch.logsumexp(torch.zeros(2, 0), 0)", "torch.logsumexp(x.t(), 1)",
    "torch.logsumexp(torch.tensor([float('nan'), 1.0]), 0)", "torch.logsumexp(torch.tensor([float('inf'), -1.0]), 0)",
    "torch.logsumexp(input=x, dim=1)", "x.logsumexp(dim=1, keepdim=True).shape",
    "torch.logsumexp(x, torch.tensor([[1]]))", "x.logsumexp(torch.tensor([True]))", "x.logsumexp(torch.tensor([0, 1]))",
    "x.logsumexp(torch.tensor(1.0))",
]


def _outcome(torch, call: str):
    x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])  # noqa: F841 - the calls read it
    try:
        r = eval(call)
    except Exception as e:  # the outcome compared: PyTorch's error, type and message
        return type(e).__name__, str(e)
    return "ok", repr(r) if not isinstance(r, tuple) else tuple(r)


@pytest.mark.parametrize("call", _CALLS)
def test_calls_and_refusals_are_torchs(torch_ref, call):
    assert _outcome(sg, call) == _outcome(torch_ref, call)


def _rows(rng: random.Random, n: int, length: int, scale: float) -> list:
    edges = [0.0, -0.0, 1.0, -1.0, 88.0, -104.0, 1e-8, 30.0]
    return [[rng.choice(edges) if rng.random() < 0.15 else rng.uniform(-scale, scale) for _ in range(length)]
            for _ in range(n)]


@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT64])
def test_values_and_gradient_are_pytorchs_formula_with_correctly_rounded_exp_and_log(dtype):
    rng = random.Random(24)
    for length in (1, 2, 3, 5, 7):
        for scale in (1.0, 20.0, 300.0):
            rows = _rows(rng, 4, length, scale)
            rows = [[_f(v, dtype) for v in row] for row in rows]
            x = sg.tensor(rows, dtype=getattr(sg, dtype), requires_grad=True)
            y = sg.logsumexp(x, 1)
            g = [_f(rng.uniform(-2, 2), dtype) for _ in rows]
            y.backward(sg.tensor(g, dtype=getattr(sg, dtype)))
            for row, got, gi, grads in zip(rows, y.tolist(), g, x.grad.tolist()):
                want = _reference(row, dtype)
                if dtype == FLOAT32:
                    assert same(got, want), (row, got, want)
                else:  # float64 exp and log are the platform's libm: within an ulp of correctly rounded
                    assert ulps(got, want, FLOAT64) <= 2, (row, got, want)
                for a, b in zip(grads, _gradient_reference(row, got, gi, dtype)):
                    assert same(a, b) if dtype == FLOAT32 else ulps(a, b, FLOAT64) <= 2, (row, a, b)


def test_a_0_dim_input_and_infinities():
    # logsumexp of one element is the element; -inf everywhere gives -inf (the maximum taken as 0);
    # an inf makes inf; nan propagates (PyTorch 2.13 printed these)
    assert sg.logsumexp(sg.tensor(2.0), 0).item() == 2.0
    assert sg.logsumexp(sg.tensor([-math.inf, -math.inf]), 0).item() == -math.inf
    assert sg.logsumexp(sg.tensor([math.inf, 1.0]), 0).item() == math.inf
    assert math.isnan(sg.logsumexp(sg.tensor([math.nan, 1.0]), 0).item())
    x = sg.tensor(0.5, requires_grad=True)
    sg.logsumexp(x, 0).backward()
    assert x.grad.item() == 1.0  # exp(x - x)


def test_the_sympy_form_differentiates_to_the_gradient_autograd_computes():
    # the op table's form of one result element, log(sum exp(a_i)), differentiated by SymPy: each
    # input's partial is its softmax weight; autograd's float64 gradient, exp(x_i - y) of the
    # rounded result y, must be it within the rounding of x_i - y (an ulp of |x_i| + |y| each)
    a = sp.symbols("a0:4")
    form = Logsumexp.sympy(sp, *a)
    rng = random.Random(5)
    for _ in range(20):
        vals = [rng.uniform(-5, 5) for _ in a]
        x = sg.tensor(vals, dtype=sg.float64, requires_grad=True)
        sg.logsumexp(x, 0).backward()
        at = dict(zip(a, vals))
        with mpmath.workprec(200):
            assert abs(float(form.evalf(50, subs=at)) - sg.logsumexp(x.detach(), 0).item()) <= 1e-15 * 8
            for i, ai in enumerate(a):
                want = float(sp.diff(form, ai).evalf(50, subs=at))
                y = sg.logsumexp(x.detach(), 0).item()
                bound = want * 2.0**-52 * (abs(vals[i]) + abs(y) + 2.0) * 2
                assert abs(x.grad[i].item() - want) <= bound, (vals, i)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradient_are_within_the_measured_bound_of_pytorch(torch_ref, dtype):
    # machine-dependent in PyTorch (exp, log; long last-dimension slices added lane by lane):
    # the values within VALUE_ULPS; the gradient is PyTorch's formula on PyTorch's own result,
    # grad * exp(self - result), with exp within an ulp of correctly rounded
    rng = random.Random(13)
    for _ in range(60):
        rows = _rows(rng, rng.randint(1, 4), rng.randint(1, 24), rng.choice([1.0, 10.0, 100.0]))
        dim = rng.choice([0, 1, -1, (0, 1)])
        keep = rng.choice([False, True])
        out = []
        for lib in (torch_ref, sg):
            x = lib.tensor(rows, dtype=getattr(lib, dtype), requires_grad=True)
            y = lib.logsumexp(x, dim, keepdim=keep)
            y.sum().backward()
            out.append((x, y))
        (tx, ty), (sx, sy) = out
        for a, b in zip(ty.reshape(-1).tolist(), sy.reshape(-1).tolist()):
            assert ulps(a, b, dtype) <= VALUE_ULPS, (rows, dim, keep, a, b)
        # PyTorch's gradient against its own result: exp(x - y) of PyTorch's y, correctly rounded
        yk = torch_ref.logsumexp(tx.detach(), dim, keepdim=True).expand_as(tx)
        for xv, yv, gv in zip(tx.detach().reshape(-1).tolist(), yk.reshape(-1).tolist(),
                              tx.grad.reshape(-1).tolist()):
            want = correctly_rounded("exp", _f(xv - yv, dtype), dtype=dtype)
            assert ulps(gv, want, dtype) <= 1, (xv, yv, gv, want)


@pytest.mark.parametrize("strategy", ["whole", "local"])
def test_sympy_check_proves_a_logsumexp_graph_element_by_element(strategy):
    # z = sum_j 2 * logsumexp over dim 0 (keepdim) of a 2x3 float64 x: d z / d x_ij is
    # 2 exp(x_ij) / (exp(x_0j) + exp(x_1j)), the column's softmax weight twice (hand derivation)
    rows = [[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]]
    x = sg.tensor(rows, dtype=sg.float64, requires_grad=True)
    report = sympy_check((sg.logsumexp(x, 0, keepdim=True) * 2).sum(), {x: "x"}, strategy=strategy)
    assert report.ok and report.verified, str(report)
    for i in range(2):
        for j in range(3):
            want = 2 * math.exp(rows[i][j]) / (math.exp(rows[0][j]) + math.exp(rows[1][j]))
            got = report[f"x[{i}, {j}]"]
            assert got.status == "ok" and got.symbolic == pytest.approx(want, rel=1e-14), str(report)


# ---------------------------------------------------------------- trace


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("shape", [(5, 5), (4, 7), (9, 3), (1, 1), (0, 3)])
def test_trace_is_pytorchs_bit_for_bit(torch_ref, dtype, shape):
    """The diagonal added in order in double and rounded once: float32 draws of mixed magnitude
    whose float32 running sum would round differently (a scalar loop: every machine agrees)."""
    rnd = random.Random(f"trace{dtype}{shape}")
    n = shape[0] * shape[1]
    vals = [rnd.uniform(-1, 1) * 10.0 ** rnd.randint(-4, 6) for _ in range(n)]
    if dtype != "float32" and dtype != "float64":
        vals = [int(v) for v in vals]
    out = []
    for lib in (sg, torch_ref):
        x = lib.tensor(vals, dtype=getattr(lib, dtype)).reshape(shape)
        floating = x.dtype.is_floating_point
        if floating:
            x.requires_grad_()
        y = lib.trace(x) if dtype != "float64" else x.trace()
        row = [y.dtype is getattr(lib, "int64" if not floating else dtype), y.item()]
        if floating:
            y.backward(lib.tensor(1.5, dtype=x.dtype))
            row += [y.grad_fn.name(), x.grad.tolist()]
        out.append(row)
    assert out[0] == out[1]


def test_trace_double_backward_nodes_and_refusals_are_pytorchs(torch_ref):
    seen = []
    for lib in (sg, torch_ref):
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.trace(x), x, grad_outputs=v, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), v)
        with pytest.raises(RuntimeError) as e:
            lib.trace(lib.ones(3))
        with pytest.raises(NotImplementedError) as b:
            lib.ones(2, 2, dtype=lib.bool).trace()
        seen.append((g.tolist(), g.grad_fn.name(), g.grad_fn.next_functions[0][0].name(), h.item(), str(e.value),
                     str(b.value)))
    assert seen[0] == seen[1]


def test_trace_gradient_is_proved_by_sympy():
    x = sg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    report = sympy_check(x.trace() * x.trace(), {x: "x"})
    assert report.ok and report.verified, str(report)
    # d/dx (x00 + x11)^2 = 2 (x00 + x11) = 12 on the diagonal, 0 elsewhere
    assert [float(report[f"x[{i}, {j}]"].symbolic) for i in range(2) for j in range(3)] == [12, 0, 0, 0, 12, 0]


AMINMAX = {
    "all": lambda L: (L.aminmax(L.tensor([[1.0, 3], [0, 5]])), L.aminmax(L.tensor([[1.0, 3], [0, 5]]), keepdim=True)),
    "dim": lambda L: (L.tensor([[1.0, 3], [0, 5]]).aminmax(dim=1),
                      L.aminmax(L.tensor([[1.0, 3], [0, 5]]), dim=-2, keepdim=True)),
    "nan": lambda L: L.aminmax(L.tensor([1.0, math.nan])),
    "ints": lambda L: (L.aminmax(L.tensor([1, 5, 2])), L.aminmax(L.tensor([True, False]))),
    "0-d": lambda L: L.aminmax(L.tensor(3.0), dim=0, keepdim=True),
    "empty": lambda L: L.aminmax(L.tensor([])),
    "empty-dim1": lambda L: L.aminmax(L.zeros(0, 3), dim=1),
    "empty-dim0": lambda L: L.aminmax(L.zeros(0, 3), dim=0),
    "dims": lambda L: L.aminmax(L.ones(2, 2), dim=(0, 1)),
    "repr": lambda L: (repr(L.aminmax(L.tensor([2, 1]))), L.aminmax(L.tensor([2.0, 1])).max),
    "detached": lambda L: L.aminmax(L.tensor([2.0, 1], requires_grad=True).detach()),
}


def test_aminmax_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in AMINMAX.items()} == {k: described(f, torch_ref) for k, f in AMINMAX.items()}


def test_aminmax_gradient_is_refused_by_name():
    x = sg.tensor([2.0, 1.0], requires_grad=True)
    with pytest.raises(Unsupported, match="AminmaxBackward0"):
        sg.aminmax(x)
    with sg.no_grad():
        assert [t.item() for t in sg.aminmax(x)] == [1.0, 2.0]


@pytest.mark.no_sympy_check
def test_a_dim_reduction_of_a_0_dim_tensor_under_create_graph_as_pytorch(torch_ref):
    """sum_backward gives a 0-dim input no dims back (``x.sum(-1)`` of a 0-dim x is a
    SumBackward1 whose create_graph gradient is an ExpandBackward0 to ``()``)."""
    def run(L):
        out = []
        for red in (lambda y: y.sum(-1), lambda y: y.sum(0), lambda y: y.mean(-1), lambda y: y.sum((0,)),
                    lambda y: y.sum(0, keepdim=True)):
            x = L.tensor(-1.25, requires_grad=True)
            y = red(x * 2)
            g, = L.autograd.grad((y * y * 0.25).sum(), [x], create_graph=True)
            (g * g).sum().backward()
            out.append((y.grad_fn.name(), g.item(), first_edge_chain(g), tuple(g.shape), x.grad.item()))
        return out
    assert run(sg) == run(torch_ref)
