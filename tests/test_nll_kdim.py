"""nll_loss, cross_entropy, NLLLoss2d and LinearCrossEntropyLoss on K-dimensional inputs
(N, C, d1, ..., dK) with targets (N, d1, ..., dK): ATen's ``nll_loss_nd`` (a 4-D input goes to
nll_loss2d, a 3-D or more than 4-D one is made contiguous and viewed as (N, C, 1, -1)) and its
nodes NllLoss2DBackward0 / NllLoss2DBackwardBackward0.

Expected figures: live PyTorch 2.13. nll_loss2d's forward and backward are one scalar loop
compiled once (LossNLL2d.cpp is not a per-CPU-capability kernel): values and gradients are
compared bit for bit (measured identical under ATEN_CPU_CAPABILITY=default, avx2,
MKL_CBWR=COMPATIBLE and none), on sizes that flush the cascade of partial sums at 16 and at 256
positions. cross_entropy's log_softmax takes exp/log, whose last bit depends on the machine:
compared in float64 within 1e-13 relative. Gradients proved by SymPy (``sympy_check``).
"""

from __future__ import annotations

import math
import random
import warnings

import pytest

import scalargrad
from scalargrad.symbolic import sympy_check

from faithfulness import same


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


def _values(L, shape, dtype, seed, classes=None):
    """An input of ``shape`` and a target of class indices (about one in five set to 2)."""
    rng = random.Random(seed)
    n = math.prod(shape)
    x = L.tensor([rng.uniform(-3, 1) for _ in range(n)], dtype=getattr(L, dtype)).reshape(shape)
    c = shape[1] if classes is None else classes
    t = L.tensor([rng.randrange(c) if rng.random() > 0.2 else 2 for _ in range(n // shape[1])], dtype=L.int64)
    return x, t.reshape((shape[0], *shape[2:]))


def _nll_case(L, shape, dtype, weight, reduction, ignore, seed=5):
    x, t = _values(L, shape, dtype, seed)
    x.requires_grad_()
    w = L.tensor([0.5, 2.0, 1.5, 1.0, 0.25, 3.0][:shape[1]], dtype=x.dtype) if weight else None
    y = L.nn.functional.nll_loss(x, t, weight=w, reduction=reduction, ignore_index=ignore)
    rng = random.Random(seed + 1)
    g = L.tensor([rng.uniform(-2, 2) for _ in range(y.numel())], dtype=x.dtype).reshape(y.shape)
    y.backward(g)
    return tuple(y.shape), y.reshape(-1).tolist(), x.grad.reshape(-1).tolist(), y.grad_fn.name()


SHAPES = [(2, 3, 4), (3, 5, 7), (2, 3, 4, 5), (2, 3, 2, 2, 3), (1, 4, 2, 3, 2, 3)]


@pytest.mark.no_sympy_check  # 120 graphs; their formulas are proved in the SymPy tests below
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("weight", [False, True])
def test_nll_loss_kdim_matches_pytorch_bit_for_bit(torch_ref, shape, weight):
    for dtype in ("float32", "float64"):
        for reduction in ("mean", "sum", "none"):
            for ignore in (-100, 2):
                a = _nll_case(scalargrad, shape, dtype, weight, reduction, ignore)
                b = _nll_case(torch_ref, shape, dtype, weight, reduction, ignore)
                assert a[0] == b[0] and a[3] == b[3], (dtype, reduction, ignore)
                assert all(map(same, a[1], b[1])), (dtype, reduction, ignore)
                assert all(map(same, a[2], b[2])), (dtype, reduction, ignore)


@pytest.mark.no_sympy_check  # 1,728 input elements; the same graphs are proved on small sizes above
def test_nll_loss_kdim_cascade_past_256_positions_bit_for_bit(torch_ref):
    # 288 positions: the cascade's second level flushes (every 256), the float32 sum of rounded
    # products (nll_loss2d does not fuse the multiply-add that nll_loss does); and on Half and
    # BFloat16, whose products both loops round, nll_loss's too (a 2-D input)
    for shape in ((2, 3, 16, 9), (1, 3, 300), (300, 3)):
        for dtype in ("float32", "float16", "bfloat16"):
            a = _nll_case(scalargrad, shape, dtype, True, "sum", 2)
            b = _nll_case(torch_ref, shape, dtype, True, "sum", 2)
            assert all(map(same, a[1] + a[2], b[1] + b[2])), (shape, dtype)


def _names(fn) -> list:
    out, stack = [], [fn]
    while stack:
        f = stack.pop()
        if f is not None:
            out.append(f.name())
            stack.extend(n for n, _ in f.next_functions)
    return out


@pytest.mark.parametrize("layout", ["3-D", "4-D", "5-D", "3-D transposed", "4-D transposed", "empty 3-D"])
def test_nll_loss_kdim_graphs_match_pytorch(torch_ref, layout):
    got = []
    for L in (scalargrad, torch_ref):
        shape = {"3-D": (2, 3, 4), "4-D": (2, 3, 2, 3), "5-D": (2, 3, 2, 1, 2), "3-D transposed": (4, 3, 2),
                 "4-D transposed": (2, 3, 3, 2), "empty 3-D": (0, 3, 2)}[layout]
        x, t = _values(L, shape, "float32", 1)
        x.requires_grad_()
        if layout == "3-D transposed":
            xin, t = x.transpose(0, 2), t.reshape(2, 4)
        elif layout == "4-D transposed":
            xin, t = x.transpose(2, 3), t.transpose(1, 2)
        else:
            xin = x
        w = L.tensor([1.0, 2.0, 0.5])
        row = []
        for reduction in ("mean", "sum", "none"):
            y = L.nn.functional.nll_loss(xin, t, weight=w, reduction=reduction, ignore_index=1)
            f = y.grad_fn if reduction != "none" or layout.startswith("4-D") else y.grad_fn.next_functions[0][0]
            row.append((tuple(y.shape), _names(y.grad_fn), f._saved_reduction, f._saved_ignore_index,
                        f._saved_weight.tolist(), tuple(f._saved_target.shape), tuple(f._saved_self.shape),
                        f._saved_total_weight.item()))
        got.append(row)
    assert got[0] == got[1]


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 2, 3), (2, 3, 2, 1, 2)])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_nll_loss_kdim_double_backward_matches_pytorch(torch_ref, shape, reduction):
    # the derivative of the gradient by the incoming gradient: nll_loss2d of it (NllLoss2DBackwardBackward0)
    got = []
    for L in (scalargrad, torch_ref):
        x, t = _values(L, shape, "float64", 2)
        x.requires_grad_()
        w = L.tensor([1.0, 2.0, 0.5], dtype=L.float64)
        y = L.nn.functional.nll_loss(x, t, weight=w, reduction=reduction, ignore_index=2)
        v = (L.arange(y.numel(), dtype=L.float64).reshape(y.shape) * 0.25 - 0.5).requires_grad_()
        (g,) = L.autograd.grad(y, x, v, create_graph=True)
        u = L.arange(g.numel(), dtype=L.float64).reshape(g.shape) * 0.125 + 1
        if L is scalargrad:
            sympy_check((g * u).sum(), [v], raise_on_mismatch=True)
        (h,) = L.autograd.grad((g * u).sum(), v)
        got.append((_names(g.grad_fn), g.reshape(-1).tolist(), h.reshape(-1).tolist()))
    assert got[0][0] == got[1][0]
    assert all(map(same, got[0][1] + got[0][2], got[1][1] + got[1][2]))


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 2, 2), (1, 3, 2, 1, 2)])
def test_nll_loss_kdim_gradients_are_proved_by_sympy(shape):
    x, t = _values(scalargrad, shape, "float64", 4)
    x.requires_grad_()
    w = scalargrad.tensor([1.0, 2.0, 0.5], dtype=scalargrad.float64)
    F = scalargrad.nn.functional
    y = F.nll_loss(x, t, weight=w, ignore_index=2)
    z = F.nll_loss(x, t, reduction="none") * scalargrad.arange(t.numel(), dtype=x.dtype).reshape(t.shape)
    sympy_check(y + z.sum(), [x], raise_on_mismatch=True)


def _ce_case(L, shape, weight, reduction, ignore, smoothing, probabilities):
    x, t = _values(L, shape, "float64", 7)
    x.requires_grad_()
    if probabilities:
        t = (L.arange(x.numel(), dtype=L.float64).reshape(shape) * 0.37).sin().softmax(1)
    w = L.tensor([0.5, 2.0, 1.5], dtype=L.float64) if weight else None
    y = L.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction, ignore_index=ignore,
                                      label_smoothing=smoothing)
    y.backward(L.ones_like(y) * 0.75)
    return tuple(y.shape), y.reshape(-1).tolist(), x.grad.reshape(-1).tolist(), _names(y.grad_fn)


@pytest.mark.no_sympy_check  # 72 graphs; test_cross_entropy_kdim_is_proved_by_sympy proves the composition
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 2, 3), (2, 3, 2, 1, 2)])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_kdim_matches_pytorch(torch_ref, shape, smoothing):
    for probabilities in (False, True):
        for weight in (False, True):
            for reduction in ("mean", "sum", "none"):
                ignore = -100 if probabilities else 1
                a = _ce_case(scalargrad, shape, weight, reduction, ignore, smoothing, probabilities)
                b = _ce_case(torch_ref, shape, weight, reduction, ignore, smoothing, probabilities)
                case = (probabilities, weight, reduction)
                assert a[0] == b[0] and a[3] == b[3], case
                assert a[1] == pytest.approx(b[1], rel=1e-13, abs=1e-15), case
                assert a[2] == pytest.approx(b[2], rel=1e-13, abs=1e-15), case


def test_cross_entropy_kdim_is_proved_by_sympy():
    x, t = _values(scalargrad, (2, 3, 2, 2), "float64", 8)
    x.requires_grad_()
    w = scalargrad.tensor([1.0, 2.0, 0.5], dtype=scalargrad.float64)
    F = scalargrad.nn.functional
    y = F.cross_entropy(x, t, weight=w, ignore_index=2, label_smoothing=0.1)
    sympy_check(y, [x], raise_on_mismatch=True)
    p = (scalargrad.arange(x.numel(), dtype=x.dtype).reshape(x.shape) * 0.37).sin().softmax(1)
    z = F.cross_entropy(x, p, weight=w, label_smoothing=0.2, reduction="none") * scalargrad.arange(8.0).reshape(2, 2, 2)
    sympy_check(z.sum() + F.cross_entropy(x, t, reduction="sum"), [x], raise_on_mismatch=True)


def _err(L, what):
    F = L.nn.functional
    x3, x4, x5 = L.zeros(2, 3, 4), L.zeros(2, 3, 4, 5), L.zeros(2, 3, 2, 2, 2)

    def z(*s, dtype=L.int64):
        return L.zeros(*s, dtype=dtype)
    return {
        "3-D target size": lambda: F.nll_loss(x3, z(2, 5)),
        "3-D target dims": lambda: F.nll_loss(x3, z(2, 4, 1)),
        "5-D target size": lambda: F.nll_loss(x5, z(2, 2, 2, 3)),
        "4-D size mismatch": lambda: F.nll_loss(x4, z(2, 4, 6)),
        "4-D target dims": lambda: F.nll_loss(x4, z(2, 20)),
        "batch": lambda: F.nll_loss(x4, z(3, 4, 5)),
        "target dtype first": lambda: F.nll_loss(x4, z(2, 4, 6, dtype=L.float32), weight=L.ones(2)),
        "3-D target dtype": lambda: F.nll_loss(x3, z(2, 4, dtype=L.int32)),
        "byte target": lambda: F.nll_loss(x4, z(2, 4, 5, dtype=L.uint8)),
        "out of bounds": lambda: F.nll_loss(x4, L.full((2, 4, 5), 7)),
        "negative target": lambda: F.nll_loss(x3, L.full((2, 4), -1), reduction="none"),
        "weight size": lambda: F.nll_loss(x4, z(2, 4, 5), weight=L.ones(2)),
        "weight dtype": lambda: F.nll_loss(x4, z(2, 4, 5), weight=L.ones(3, dtype=L.float64)),
        "2-D weight dtype": lambda: F.nll_loss(x3[:, :, 0], z(2), weight=L.ones(3, dtype=L.float64)),
        "integer input": lambda: F.nll_loss(x4.long(), z(2, 4, 5)),
        "weight requires grad": lambda: F.nll_loss(x3, z(2, 4, dtype=L.float32), weight=L.ones(2, requires_grad=True)),
        "2-D weight requires grad": lambda: F.nll_loss(x3[:, :, 0], z(2), weight=L.ones(3, requires_grad=True)),
        "cross_entropy target size": lambda: F.cross_entropy(x3, z(2, 5), label_smoothing=0.1),
        "cross_entropy 4-D": lambda: F.cross_entropy(x4, z(2, 4, 6)),
        "cross_entropy weight": lambda: F.cross_entropy(x4, z(2, 4, 5), weight=L.ones(2), label_smoothing=0.1),
        "probabilities weight": lambda: F.cross_entropy(x4, L.zeros(2, 3, 4, 5), weight=L.ones(2)),
    }[what]


ERRORS = {
    "3-D target size": (RuntimeError, r"Expected target size [2, 4], got [2, 5]"),
    "3-D target dims": (RuntimeError, r"Expected target size [2, 4], got [2, 4, 1]"),
    "5-D target size": (RuntimeError, r"Expected target size [2, 2, 2, 2], got [2, 2, 2, 3]"),
    "4-D size mismatch": (RuntimeError, r"size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 6]"),
    "4-D target dims": (RuntimeError, "only batches of spatial targets supported (3D tensors) but got targets of "
                                      "dimension: 2"),
    "batch": (ValueError, "Expected input batch_size (2) to match target batch_size (3)."),
    "target dtype first": (RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    "3-D target dtype": (RuntimeError, "expected target dtype to be Long or Byte, but got Int"),
    "byte target": (RuntimeError, "expected scalar type Long but found Byte"),
    "out of bounds": (IndexError, "Target 7 is out of bounds."),
    "negative target": (IndexError, "Target -1 is out of bounds."),
    "weight size": (RuntimeError, "weight tensor should be defined either for all or no classes"),
    "weight dtype": (RuntimeError, "expected scalar type Float but found Double"),
    "2-D weight dtype": (RuntimeError, "expected scalar type Float but found Double"),
    "integer input": (NotImplementedError, "\"nll_loss2d_forward_out_frame\" not implemented for 'Long'"),
    "weight requires grad": (RuntimeError, "The function 'nll_loss2d_forward' is not differentiable with respect to "
                                           "argument 'weight'. This input cannot have requires_grad True."),
    "2-D weight requires grad": (RuntimeError, "The function 'nll_loss_forward' is not differentiable with respect "
                                               "to argument 'weight'. This input cannot have requires_grad True."),
    "cross_entropy target size": (RuntimeError, "Expected target size [2, 4], got [2, 5]"),
    "cross_entropy 4-D": (RuntimeError, "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 6]"),
    "cross_entropy weight": (RuntimeError, "weight tensor should be defined either for all or no classes"),
    "probabilities weight": (RuntimeError, "cross_entropy: weight tensor should be defined either for all 3 classes "
                                           "or no classes but got weight tensor of shape: [2]"),
}


@pytest.mark.parametrize("what", list(ERRORS))
def test_nll_loss_kdim_errors(lib, what):
    exc, message = ERRORS[what]
    with pytest.raises(exc) as info:
        _err(lib, what)()
    assert str(info.value) == message


def test_nll_loss_kdim_degenerate_cases(lib):
    F = lib.nn.functional
    x = lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4)
    ones = lib.ones(2, 4, dtype=lib.int64)
    # every target ignored: a mean over a total weight of 0 (nan); a sum of nothing
    assert math.isnan(F.nll_loss(x, ones, ignore_index=1).item())
    assert math.isnan(F.nll_loss(x.reshape(2, 3, 2, 2), ones.reshape(2, 2, 2), ignore_index=1).item())
    assert F.nll_loss(x, ones, ignore_index=1, reduction="sum").item() == 0.0
    assert F.nll_loss(x, ones, ignore_index=1, reduction="none").tolist() == [[0.0] * 4] * 2
    # empty inputs: nan for a mean, 0 for a sum, an empty result of the target's shape
    assert math.isnan(F.nll_loss(lib.zeros(0, 3, 4), lib.zeros(0, 4, dtype=lib.int64)).item())
    assert F.nll_loss(lib.zeros(2, 3, 0, 4), lib.zeros(2, 0, 4, dtype=lib.int64), reduction="sum").item() == 0.0
    assert tuple(F.nll_loss(lib.zeros(2, 3, 0), lib.zeros(2, 0, dtype=lib.int64), reduction="none").shape) == (2, 0)
    # class probabilities, empty: the sum filled with nan in place (FillBackward2), negated
    e = lib.zeros(2, 3, 0, 2, requires_grad=True)
    y = F.cross_entropy(e, lib.zeros(2, 3, 0, 2), weight=lib.ones(3))
    assert math.isnan(y.item()) and _names(y.grad_fn)[:3] == ["NegBackward0", "FillBackward2", "SumBackward0"]
    y.backward()
    assert tuple(e.grad.shape) == (2, 3, 0, 2)
    # a byte target is refused by nll_loss2d's loop only when it reads it
    assert math.isnan(F.nll_loss(lib.zeros(2, 3, 0, 4), lib.zeros(2, 0, 4, dtype=lib.uint8)).item())
    # by hand: -(x[0, 2, 0] * 0.5 + x[1, 0, 3] * 1.0) / 1.5, every other target ignored
    t = lib.tensor([[2, 1, 1, 1], [1, 1, 1, 0]])
    w = lib.tensor([1.0, 4.0, 0.5], dtype=lib.float64)
    assert F.nll_loss(x, t, weight=w, ignore_index=1).item() == -(8.0 * 0.5 + 15.0) / 1.5


def test_nll_loss2d_module_and_linear_cross_entropy_kdim(lib):
    with pytest.warns(FutureWarning, match=r"^`NLLLoss2d` has been deprecated\. Please use `NLLLoss` instead"):
        m = lib.nn.NLLLoss2d(ignore_index=1)
    assert isinstance(m, lib.nn.NLLLoss) and repr(m) == "NLLLoss2d()"
    x = lib.arange(24.0).reshape(1, 3, 2, 4).log_softmax(1)
    t = lib.tensor([[[0, 1, 2, 0], [2, 2, 1, 0]]])
    # classes 8 apart: -log p = 16 - 8 c + log(1 + e^-8 + e^-16); targets 1 ignored, three 0 and three 2
    assert m(x, t).item() == pytest.approx(8 + math.log1p(math.exp(-8) + math.exp(-16)), rel=1e-6)
    # the docstring example of LinearCrossEntropyLoss: K-dimensional logits (2, 10, 4, 3)
    lib.manual_seed(283)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = lib.nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
    inp = lib.randn(2, 5, requires_grad=True)
    out = loss(inp, lib.randint(0, 10, (2, 4, 3)))
    out.backward()
    assert out.grad_fn.name() == "NllLoss2DBackward0"
    assert out.item() == pytest.approx(2.4133, abs=5e-5)
    assert inp.grad[0].tolist() == pytest.approx([0.0478, -0.0190, 0.0175, 0.0326, 0.0044], abs=5e-5)
