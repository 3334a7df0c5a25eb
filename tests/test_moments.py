"""var and std (``_ops/moments.py``, ``_tensor/moments.py``): PyTorch's two CPU algorithms
(one output: the dtype's mean then double arithmetic; several: Welford in double) are
modelled, so values and gradients are compared with PyTorch bit for bit (float32 and float64),
with the overloads' saved ``correction``, the degrees-of-freedom warning and the refusals. The
hand tests state the textbook values and var_backward's ``2 (x - mean) / (n - correction)``.
"""

from __future__ import annotations

import math
import random
import struct
import warnings
import zlib

import pytest

import scalargrad as sg


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def test_textbook_values_and_gradients():
    x = sg.tensor([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], dtype=sg.float64, requires_grad=True)
    assert x.var(unbiased=False).item() == 4.0 and x.std(unbiased=False).item() == 2.0
    assert x.var().item() == 32 / 7
    (g,) = sg.autograd.grad(x.var(correction=0), x)
    assert g.tolist() == [2 * (v - 5.0) / 8 for v in (2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0)]
    (g,) = sg.autograd.grad(x.std(correction=0), x)  # var's gradient / (2 std)
    assert g.tolist() == pytest.approx([(v - 5.0) / 8 / 2.0 for v in (2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0)])


def test_constant_input_std_gradient_is_zero():
    x = sg.tensor([3.0, 3.0, 3.0], requires_grad=True)
    (g,) = sg.autograd.grad(x.std(), x)
    assert g.tolist() == [0.0, 0.0, 0.0]


def test_rows_and_saved_values():
    x = sg.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], requires_grad=True)
    y = x.var(1, False)
    assert y.tolist() == [f32(14 / 9), f32(56 / 9)]
    fn = y.grad_fn
    assert (fn.name(), fn._saved_correction, fn._saved_dim, fn._saved_keepdim) == ("VarBackward0", 0, (1,), False)
    assert x.std().grad_fn._saved_correction is None and x.std().grad_fn._saved_dim is None
    assert x.std(dim=1).grad_fn._saved_correction == 1 and x.var(correction=2).grad_fn._saved_correction == 2
    assert x.std(0, True, True).shape == (1, 3)


def test_warning_and_refusals():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert sg.tensor([1.0]).std().item() != sg.tensor([1.0]).std().item()  # nan
    assert "std(): degrees of freedom is <= 0" in str(caught[0].message)
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex dtypes"):
        sg.tensor([1, 2]).var()


def test_the_warning_names_the_programs_line_through_every_spelling():
    # PyTorch's C++ warning shows the Python line that called in, never a file of the library
    x = sg.tensor([1.0])
    for call in (lambda: x.var(), lambda: sg.var(x), lambda: x.std(0), lambda: sg.std(x, 0),
                 lambda: sg.var_mean(x), lambda: sg.std_mean(x, 0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [w.filename for w in caught] == [__file__]


# ---------------------------------------------------------------- against PyTorch


CALLS = {
    "var": lambda L, x: x.var(), "std": lambda L, x: x.std(), "var0": lambda L, x: x.var(0),
    "std1_keep": lambda L, x: x.std(1, keepdim=True), "var_biased": lambda L, x: x.var(unbiased=False),
    "std_corr": lambda L, x: L.std(x, dim=-1, correction=0), "var_all_dims": lambda L, x: x.var((0, 1)),
    "var_bool": lambda L, x: x.var(False), "std_corr2": lambda L, x: x.std(correction=2),
}


def _run(L, name, data, shape, dtype):
    x = L.tensor(data, dtype=getattr(L, dtype)).reshape(shape).requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = CALLS[name](L, x)
    fn = y.grad_fn
    w = L.tensor([f32(0.25 * (i % 7) - 0.6) for i in range(y.numel())], dtype=y.dtype).reshape(y.shape)
    (g,) = L.autograd.grad((y * w).sum(), x)
    saved = (fn._saved_correction, fn._saved_dim, fn._saved_keepdim)
    return (fn.name(), saved, tuple(y.shape), _bits(y.flatten().tolist()), _bits(g.flatten().tolist()),
            [str(c.message) for c in caught])


def _bits(vals: list) -> list:
    return [struct.pack(">d", v).hex() if v == v else "nan" for v in vals]


# SymPy proves a variance of 100 symbols for minutes: the long shapes' backward passes are
# compared with PyTorch only; the short shapes and the hand tests are proved
_LONG = pytest.mark.no_sympy_check


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (4, 3), pytest.param((3, 40), marks=_LONG),
                                   pytest.param((1, 100), marks=_LONG), pytest.param((7, 5), marks=_LONG)])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_moments_are_torchs_bit_for_bit(torch_ref, name, shape, dtype):
    # a seed of its own per case, the same in every run (str's hash changes with PYTHONHASHSEED)
    rnd = random.Random(zlib.crc32(repr((name, shape)).encode()) % 1000)
    data = [f32(rnd.uniform(-3, 3)) for _ in range(shape[0] * shape[1])]
    assert _run(sg, name, data, shape, dtype) == _run(torch_ref, name, data, shape, dtype)


def test_double_backward_is_torchs(torch_ref):
    def run(L):
        x = L.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=L.float64, requires_grad=True)
        out = []
        for y in (x.var(), x.std(1), x.var(0, keepdim=True)):
            (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
            (h,) = L.autograd.grad((g * g).sum(), x)
            out.append((g.tolist(), [round(v, 12) for v in h.flatten().tolist()]))
        return out

    assert run(sg) == run(torch_ref)


def _no_dof_gradients(L) -> list:
    """var's gradient with no degree of freedom left (n <= correction), over every element or
    of a 0-dim tensor: plain and under create_graph, with its requires_grad and node."""
    out = []
    nan, inf = float("nan"), float("inf")
    for vals, corr in (([1.5], 1), ([nan], 1), ([1.0, 2.0], 3), ([1.0, inf], 3), (2.5, 1), (nan, 1)):
        for cg in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "degrees of freedom is <= 0"
                x = L.tensor(vals, dtype=L.float64, requires_grad=True)
                (g,) = L.autograd.grad(x.var(correction=corr), x, create_graph=cg)
            out.append((repr(g.tolist()), g.requires_grad, g.grad_fn is None))
    return out


# FunctionsManual's var_backward: grad * where(self == self.mean(), nan, inf), which has no edge
# to self; the formula 2 / (n - correction) * grad * (self - mean) it replaced gave [1, -1] for
# [1, 2] with correction 3, and a gradient that requires grad under create_graph (ops:5151:138)
NO_DOF = [("[nan]", False, True)] * 2 + [("[inf]", False, True)] * 2 + [("[inf, inf]", False, True)] * 2 + \
    [("[inf, nan]", False, True)] * 2 + [("nan", False, True)] * 2 + [("inf", False, True)] * 2


@pytest.mark.no_sympy_check  # no derivative there: PyTorch's inf for a NaN input (NaN != its mean) is its own
def test_var_gradient_without_degrees_of_freedom():
    assert _no_dof_gradients(sg) == NO_DOF


def test_var_gradient_without_degrees_of_freedom_is_torchs(torch_ref):
    assert _no_dof_gradients(torch_ref) == NO_DOF


# ---------------------------------------------------------------- var_mean and std_mean

MEAN_CALLS = {
    "all": lambda lib, f, x: f(x),
    "unbiased": lambda lib, f, x: f(x, False),
    "dim": lambda lib, f, x: f(x, 1),
    "dim keepdim": lambda lib, f, x: f(x, dim=0, keepdim=True),
    "dims unbiased": lambda lib, f, x: f(x, (0, 2), False, True),
    "correction": lambda lib, f, x: f(x, dim=-1, correction=0),
    "correction 2": lambda lib, f, x: f(x, correction=2),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("which", ["var_mean", "std_mean"])
@pytest.mark.parametrize("call", sorted(MEAN_CALLS))
def test_var_mean_and_std_mean_are_pytorchs_bit_for_bit(torch_ref, call, which, dtype):
    """One Welford pass in double: its running mean differs from ``mean()`` in the last bit for
    some of these draws, and PyTorch's var_mean returns that one (fewer than 32,768 elements:
    PyTorch's reduction runs on one thread, the same on every machine)."""
    rng = random.Random(zlib.crc32(f"{call}{which}{dtype}".encode()))
    vals = [rng.gauss(1.0, 3.0) for _ in range(4 * 5 * 37)]
    out = []
    for lib in (sg, torch_ref):
        x = lib.tensor(vals, dtype=getattr(lib, dtype)).reshape(4, 5, 37)
        r = MEAN_CALLS[call](lib, getattr(lib, which), x)
        assert type(r) is tuple and len(r) == 2
        out.append([(t.shape, t.dtype is getattr(lib, dtype), t.flatten().tolist()) for t in r])
    assert out[0] == out[1]


def test_var_mean_edges_and_refusals_are_pytorchs(torch_ref):
    seen = []
    for lib in (sg, torch_ref):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = [str(lib.var_mean(lib.tensor([1.0]))), str(lib.std_mean(lib.tensor([])))]
        r.append([str(w.message) for w in caught])
        with pytest.raises(RuntimeError) as e:
            lib.var_mean(lib.tensor([1, 2]))
        r.append(str(e.value))
        seen.append(r)
    assert seen[0] == seen[1]


def test_var_mean_gradient_by_hand():
    # x = [1, 2, 4]: mean 7/3, var (16/9 + 1/9 + 25/9) / 2 = 7/3; d var/dx_i = 2 (x_i - 7/3) / 2,
    # d mean/dx_i = 1/3, so d(var + mean)/dx = x - 2 = [-1, 0, 2]; d std/dx_i = (x_i - 7/3) /
    # (2 std), std = sqrt(7/3)
    x = sg.tensor([1.0, 2.0, 4.0], dtype=sg.float64, requires_grad=True)
    v, m = sg.var_mean(x)
    assert v.grad_fn is m.grad_fn and v.grad_fn.name() == "VarMeanBackward0"
    assert (v.output_nr, m.output_nr) == (0, 1)
    (v + m).backward()
    assert x.grad.tolist() == pytest.approx([-1.0, 0.0, 2.0])
    x.grad = None
    s, m = sg.std_mean(x)
    assert s.grad_fn.name() == "StdMeanBackward0" and s.grad_fn._saved_result0 is s
    s.backward()
    std = (7 / 3) ** 0.5
    assert x.grad.tolist() == pytest.approx([(e - 7 / 3) / (2 * std) for e in (1.0, 2.0, 4.0)])
    x.grad = None
    v, m = sg.var_mean(x)
    v.grad_fn.register_prehook(lambda grads: tuple(g * 2 for g in grads))  # one node: one call, both slots
    (v + m).backward()
    assert x.grad.tolist() == pytest.approx([-2.0, 0.0, 4.0])


def _paired_moments(L) -> list:
    """var_mean/std_mean with grad: values, gradients of each output alone and together, the
    node's saved values, a double backward, a hook on an output, in-place changes after."""
    seen = []
    b = L.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.5]], dtype=L.float64, requires_grad=True)
    for fn in (L.var_mean, L.std_mean):
        for kw in (dict(dim=1), dict(), dict(dim=0, keepdim=True, correction=0)):
            v, m = fn(b, **kw)
            node = v.grad_fn
            seen.append([round(e, 12) for e in v.flatten().tolist() + m.flatten().tolist()])
            seen.append((node.name(), node is m.grad_fn, node._saved_correction, node._saved_dim,
                         node._saved_keepdim, node._saved_self is b, len(node.next_functions)))
            for pick in (lambda v, m: v, lambda v, m: m, lambda v, m: v * 2 + m * m):
                v, m = fn(b, **kw)
                seen.append([round(e, 12) for e in L.autograd.grad(pick(v, m).sum(), b)[0].flatten().tolist()])
            v, m = fn(b, **kw)
            gg = L.autograd.grad((v * m).sum(), b, create_graph=True)[0]
            seen.append([round(e, 12) for e in L.autograd.grad(gg.sum(), b)[0].flatten().tolist()])
            v, m = fn(b, **kw)
            m.register_hook(lambda g: seen.append(("hook", [round(e, 12) for e in g.flatten().tolist()])))
            v.mul_(2)
            try:
                seen.append([round(e, 12) for e in L.autograd.grad((v + m).sum(), b)[0].flatten().tolist()])
            except RuntimeError as exc:
                seen.append(str(exc).split(" Hint")[0])
    with L.no_grad():
        seen.append(L.var_mean(b)[0].grad_fn)
    return seen


def test_var_mean_node_is_pytorchs(torch_ref):
    assert _paired_moments(sg) == _paired_moments(torch_ref)


def _strided_moments(L) -> list:
    # full reductions of permuted, expanded and sliced tensors: ATen walks the elements in memory
    # order (TensorIterator sorts the dimensions by stride) and std_var_all_cpu sums the squared
    # deviations per 2-D block of its loop (was row-major: 1 ulp off, fuzz ops:12041:1500)
    rng = random.Random(5)
    out = []
    for _ in range(40):
        nd = rng.choice([2, 3, 4])
        shape = [rng.choice([1, 2, 3, 5]) for _ in range(nd)]
        dt = rng.choice([L.float32, L.float64])
        x = L.tensor([rng.uniform(-3, 3) for _ in range(math.prod(shape))], dtype=dt).reshape(shape)
        p = list(range(nd))
        rng.shuffle(p)
        y = x.permute(p)
        if rng.random() < 0.3:
            y = y.unsqueeze(0).expand(2, *y.shape)
        if rng.random() < 0.3 and y.shape[-1] > 1:
            y = y[..., ::2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append([float(v).hex() for v in (y.var().item(), y.std(correction=0).item(),
                                                 L.var_mean(y)[0].item(), L.std_mean(y)[1].item())])
    return out


def test_full_moments_of_strided_tensors_are_pytorchs(torch_ref):
    assert _strided_moments(sg) == _strided_moments(torch_ref)
