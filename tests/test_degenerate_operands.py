"""Operands at the edges of an op's domain that raised raw Python errors or were accepted where
PyTorch refuses (issue 22): backward through an output of unbind or max(dim) of 0-dim tensors,
flip and roll of a 0-dim tensor, softmax over a dimension of size 0, NumPy's ``axis`` and
``keepdims`` names, clamp bounds that do not fit the tensor's type. Each program runs under
PyTorch and scalargrad; what it prints (or the error it raises) must agree."""

from __future__ import annotations

import functools
import operator

import pytest

import scalargrad
from scalargrad.errors import Unsupported

PROGRAMS = {
    "unbind of a vector, backward": "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                                    "u = a.unbind(0)\n(u[1] * 2 + u[0]).backward()\nout = a.grad",
    "unbind, double backward": "b = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)\n"
                               "g, = torch.autograd.grad(b.unbind()[2] ** 2, b, create_graph=True)\n"
                               "g.sum().backward()\nout = (g, b.grad)",
    "unbind with a hook": "d = torch.tensor([1.0, 2.0], requires_grad=True)\nu = d.unbind()\nout = []\n"
                          "u[0].register_hook(lambda g: out.append(g))\n(u[0] * 3).backward()\nout.append(d.grad)",
    "max(dim) of a 0-dim tensor": "a = torch.tensor(1.5, requires_grad=True)\n"
                                  "v, i = a.max(0)\n(v * 2).backward()\nout = (v, i, a.grad)",
    "min(dim, keepdim) of a 0-dim tensor": "a = torch.tensor(1.5, requires_grad=True)\n"
                                           "v, i = a.min(0, keepdim=True)\n(v * 2).backward()\nout = (v, i, a.grad)",
    # sum_backward restores no dim of a 0-dim input (ops:9311:1069: expand([1], []) raised)
    "sum(dim) of a 0-dim tensor, create_graph": "x = torch.tensor(1.5, requires_grad=True)\n"
                                                "w = torch.tensor(2.0, requires_grad=True)\nout = []\n"
                                                "for y in (x.sum(0), x.mean(-1), x.sum((0,)), x.nansum(-1)):\n"
                                                "    g, = torch.autograd.grad(y, x, w, create_graph=True)\n"
                                                "    out.append((g, torch.autograd.grad(g * 3, w)))",
    # amax/amin name the dim as given, argmax refuses an empty dim (ops:9311:921; IndexError from a list)
    "reductions over an empty dim": "x = torch.zeros(1, 0)\nout = []\n"
                                    "for e in ('x.amin(-1)', 'x.amax((0, -1))', 'x.amax((-1, 0))', 'x.max(-1)', "
                                    "'x.argmax(-1)', 'x.argmin(1, keepdim=True)', 'x.amax()', 'x.amax(())'):\n"
                                    "    try:\n        out.append(eval(e))\n"
                                    "    except Exception as err:\n        out.append((type(err).__name__, str(err)))",
    # sign's derivative is zeros_like(grad): ordinary zeros in the gradient's layout, added as a tensor
    "sign, backward and create_graph": "x = torch.tensor([1.0, -2.0], requires_grad=True)\n"
                                       "g, = torch.autograd.grad((x.sign() * x).sum(), x, create_graph=True)\n"
                                       "y = torch.arange(1.0, 13.0).reshape(1, 4, 3).requires_grad_()\n"
                                       "h, = torch.autograd.grad(y.permute(2, 0, 1).sign().sum(), y, None, 1, 1)\n"
                                       "z = torch.tensor([-1.5], requires_grad=True)\n"
                                       "k, = torch.autograd.grad(z.sign().sum(), z)\n"
                                       "out = (g, g.grad_fn.name(), h.stride(), h.requires_grad, k, k.stride())",
    "flip of a 0-dim tensor": "a = torch.tensor(1.5, requires_grad=True)\n(a.flip(0) * 3).backward()\nout = a.grad",
    "roll of a 0-dim tensor": "out = torch.tensor(1.5).roll(1, 0)",
    "softmax of an empty vector": "out = (torch.softmax(torch.zeros(0), 0), torch.log_softmax(torch.zeros(0), 0))",
    "softmax over an empty dim": "x = torch.zeros(2, 0, requires_grad=True)\ny = torch.log_softmax(x, 1)\n"
                                 "y.sum().backward()\nout = (y, x.grad, torch.softmax(torch.zeros(0, 3), 0))",
    "axis and keepdims": "x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])\n"
                         "out = (x.sum(axis=1), torch.sum(x, axis=1, keepdims=True), x.mean(axis=0), x.max(axis=1), "
                         "x.std(axis=1), x.argmax(axis=1), x.softmax(axis=1), torch.cat([x, x], axis=0).shape, "
                         "x.cumsum(axis=1), x.sum(axis=(0, 1)), x.unbind(axis=1))",
    "softmax of an empty vector, backward": "x = torch.zeros(0, requires_grad=True)\n"
                                            "torch.softmax(x, 0).sum().backward()\nout = x.grad",
    "axis and keepdims of logsumexp": "x = torch.tensor([[1.0, 2.0], [3.0, 5.0]])\n"
                                      "out = (x.logsumexp(axis=1), torch.logsumexp(x, axis=0, keepdims=True))",
    "masked_fill with a mask longer than the tensor": "out = torch.tensor([0.0, -1.25]).masked_fill("
                                                      "torch.tensor([True, False, True]), -9.0)",
    "masked_fill_ with a mask longer than the tensor": "out = torch.tensor([0.0, -1.25]).masked_fill_("
                                                       "torch.tensor([True, False, True]), -9.0)",
    "masked_fill with a mask of more dims": "x = torch.tensor([0.0, -1.25], requires_grad=True)\n"
                                            "y = x.masked_fill(torch.tensor([[True], [False]]), -9.0)\n"
                                            "(y * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()\n"
                                            "out = (y, x.grad)",
    # the node takes the unexpanded input (no ExpandBackward0), the engine sums its gradient (ops:9311:61)
    "masked_fill of a 0-dim tensor, graph": "x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)\n"
                                            "y = x.masked_fill(torch.tensor([True, False, True]), 0.5)\n"
                                            "w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)\n"
                                            "g, = torch.autograd.grad((y * y * w).sum(), x, create_graph=True)\n"
                                            "out = (y, [f and f.name() for f, _ in y.grad_fn.next_functions], g, "
                                            "g.grad_fn.name(), torch.autograd.grad(g, x))",
    "masked_fill_ with a mask of more dims": "out = torch.tensor([1.0]).masked_fill_(torch.tensor([True, False]), 0.0)",
    "axis where PyTorch's function is Python": "out = torch.tensor([1.0, 2.0]).norm(axis=0)",
    "clamp with a nan bound": "out = torch.clamp(torch.tensor([1.0, -2.0]), 3.5e38, float('nan'))",
    "clamp bound past float32": "out = torch.clamp(torch.tensor([1.0, -2.0]), max=3.5e38)",
    "clamp bound past half": "out = torch.clamp(torch.tensor([1.0, -2.0]).half(), 0, 70000.0)",
    "clamp bound past int8": "out = torch.clamp(torch.tensor([1, 2], dtype=torch.int8), 300)",
    # the fill value is converted checked (was written wrapped: -inf as int64's minimum, ops:12041:574)
    "masked_fill of -inf into int64": "x = torch.tensor([1, 0, 2])\nout = x.masked_fill(x > 0, float('-inf'))",
    "masked_fill_ of nan into int64": "x = torch.tensor([1, 0, 2])\nout = x.masked_fill_(x > 0, float('nan'))",
    "masked_fill of a tensor past uint8": "x = torch.tensor([1, 2], dtype=torch.uint8)\n"
                                          "out = x.masked_fill(x > 1, torch.tensor(300))",
    "masked_fill past float32": "out = torch.tensor([1.0, 2.0]).masked_fill(torch.tensor([True, False]), 1e300)",
    "masked_fill past half": "out = torch.tensor([1.0, 2.0]).half().masked_fill(torch.tensor([True, False]), 1e6)",
    "masked_fill of inf into bool": "out = torch.tensor([True, False]).masked_fill(torch.tensor([True, False]), "
                                    "float('inf'))",
    "index_fill past int64": "out = torch.tensor([1, 0, 2]).index_fill(0, torch.tensor([1]), 9.3e18)",
    "index_fill of a tensor nan into int8, before the index check":
        "out = torch.tensor([1, 0], dtype=torch.int8).index_fill(0, torch.tensor([5]), torch.tensor(float('nan')))",
    "clamp bound in int64": "out = torch.clamp(torch.tensor([1, 2]), 2 ** 40)",
    "clamp with nan, backward": "x = torch.tensor([1.0, -2.0], requires_grad=True)\n"
                                "torch.clamp(x, 0.0, float('nan')).sum().backward()\nout = x.grad",
}


def _run(lib, source: str) -> str:
    env = {"torch": lib}
    try:
        exec(source, env)
    except (RuntimeError, IndexError, TypeError) as e:
        return f"{type(e).__name__}: {e}"
    return repr(env["out"])


def test_degenerate_operands_by_hand():
    def got(name):
        return _run(scalargrad, PROGRAMS[name])

    assert got("unbind of a vector, backward") == "tensor([1., 2., 0.])"
    assert got("max(dim) of a 0-dim tensor") == "(tensor(1.5000, grad_fn=<MaxBackward0>), tensor(0), tensor(2.))"
    assert got("flip of a 0-dim tensor") == "tensor(3.)"
    assert got("roll of a 0-dim tensor") == "IndexError: Dimension specified as 0 but tensor has no dimensions"
    assert got("softmax of an empty vector") == "(tensor([]), tensor([]))"
    assert got("axis and keepdims").startswith("(tensor([ 6., 16.]), tensor([[ 6.],\n        [16.]]), ")
    assert got("clamp with a nan bound") == "tensor([nan, nan])"
    assert got("clamp bound past half") == "RuntimeError: value cannot be converted to type c10::Half without overflow"
    assert got("clamp bound past int8") == "RuntimeError: value cannot be converted to type int8_t without overflow"
    assert got("clamp with nan, backward") == "tensor([0., 0.])"  # x >= 0 and x <= nan: never
    assert got("masked_fill with a mask longer than the tensor") == (
        "RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0")
    # the [2] tensor expanded to the mask's [2, 1] rows: row 0 filled, row 1 x; x's gradient is row 1's
    assert got("masked_fill with a mask of more dims").endswith("tensor([3., 4.]))")


@pytest.mark.parametrize("name", PROGRAMS)
def test_degenerate_operands_match_torch(torch_ref, name):
    assert _run(scalargrad, PROGRAMS[name]) == _run(torch_ref, PROGRAMS[name])


def _masked_fill_layouts(lib) -> list:
    x = lib.arange(6.0).reshape(2, 3)
    both = lib.tensor([[True, False], [False, True], [True, True]])
    cases = [(lib.arange(6.0)[::2], lib.tensor([True, False, True])),
             (lib.tensor([3.0]), lib.tensor([True, False, True])),
             (x.t(), both), (x.t(), lib.tensor([True, False])),
             (lib.arange(3.0).reshape(3, 1), both),
             (lib.arange(3.0).reshape(3, 1).expand(3, 2), both)]
    out = []
    for a, m in cases:
        a = a.detach().requires_grad_()
        r = a.masked_fill(m, 9.0)
        (r * lib.arange(1.0, r.numel() + 1).reshape(r.shape)).sum().backward()
        out.append((tuple(r.shape), r.stride(), r.is_contiguous(), r.sum().item(), r.flatten().tolist(),
                    a.grad.flatten().tolist()))
    return out


def test_masked_fill_out_of_place_is_a_contiguous_clone(torch_ref):
    # an expanded input kept its zero strides, and the result's sum read them: 7.5 for
    # [2.5, 3.0, 2.5] (the fuzzer's ops:14:16)
    assert _masked_fill_layouts(scalargrad) == _masked_fill_layouts(torch_ref)


def test_masked_fill_of_an_expanded_tensor_by_hand():
    r = scalargrad.tensor([3.0]).masked_fill(scalargrad.tensor([True, False, True]), 2.5)
    assert r.stride() == (1,) and r.sum().item() == 8.0  # 2.5 + 3.0 + 2.5


def _clamp_layouts(lib) -> list:
    """clamp with number bounds of expanded and strided inputs: layout and the float sum that
    reads it (float64: -3.5e38 six times is -2.1000000000000002e39 added in row order)."""
    x = lib.tensor([-3.5e38, 2.0, -1.0], dtype=lib.float64)
    out = []
    f64 = lib.float64
    for a in (x.unsqueeze(0).expand(2, 3), x.unsqueeze(1).expand(3, 2),
              lib.arange(12.0, dtype=f64).reshape(3, 4)[:, ::2], lib.arange(6.0, dtype=f64).reshape(2, 3).t()):
        for r in (a.clamp(-1.0, -3.5e38), a.clamp(min=0.5), a.clamp(max=1.5)):
            out.append((r.stride(), r.is_contiguous(), repr(r.sum().item())))
    return out


def test_clamp_of_an_expanded_tensor_is_laid_out_as_pytorch(torch_ref):
    # an expanded input kept its zero strides, and the result's sum read them (ops:5151:30)
    assert _clamp_layouts(scalargrad) == _clamp_layouts(torch_ref)


def test_clamp_of_an_expanded_tensor_by_hand():
    r = scalargrad.tensor([-3.5e38] * 3, dtype=scalargrad.float64).expand(2, 3).clamp(max=-3.5e38)
    # row order, one addition after another (not builtin sum: from Python 3.12 it compensates)
    assert r.stride() == (3, 1) and r.sum().item() == functools.reduce(operator.add, [-3.5e38] * 6)


def _conversion_layouts(lib) -> list:
    """dtype conversions (_to_copy, memory_format=preserve) of dense, strided and expanded
    tensors: a dense tensor's strides are kept, any other becomes contiguous."""
    x = lib.arange(24.0).reshape(2, 3, 4)
    out = []
    for a in (x, x[::2], x[:, ::2], x.transpose(0, 2), x[:, :, :1], x[..., 1:], lib.tensor([1.0, 2.0]).expand(3, 2),
              lib.tensor([5.0]).expand(3), x[:, 1], x[0].t(), x[:, :1, :].expand(2, 3, 4)):
        for r in (a.double(), a.to(lib.int64), a.bool(), a.to(lib.float32, copy=True), a.type(lib.float64)):
            out.append((r.stride(), r.is_contiguous(), r.view(-1).tolist() if r.is_contiguous() else None))
    return out


def test_conversions_are_laid_out_as_pytorch(torch_ref):
    # an expanded or strided input kept its strides: is_contiguous() False where PyTorch's is
    # True, and .view(-1) refused (ops:6262:45, 254, 266, 358)
    assert _conversion_layouts(scalargrad) == _conversion_layouts(torch_ref)


def test_conversion_of_an_expanded_tensor_by_hand():
    r = scalargrad.tensor([5.0]).expand(3).double()
    assert r.stride() == (1,) and r.is_contiguous() and r.view(-1).tolist() == [5.0, 5.0, 5.0]
    t = scalargrad.arange(6.0).reshape(2, 3).t().double()  # dense: its strides are kept
    assert t.stride() == (1, 3) and not t.is_contiguous()


# An in-place op on an expanded tensor (a zero stride over a dimension of more than one
# element): every TensorIterator op refuses it with ATen's assert_no_internal_overlap error;
# fill_ and zero_ write one value everywhere; masked_fill_, index_fill_, tril_ and triu_
# PyTorch writes element by element in its own order, which scalargrad refuses by name.
EXPANDED_INPLACE = {
    "add_": "x.add_(1)", "mul_ by a tensor": "x.mul_(torch.ones(2, 3))", "div_": "x.div_(2)",
    "pow_": "x.pow_(2)", "exp_": "x.exp_()", "sigmoid_": "x.sigmoid_()", "clamp_": "x.clamp_(0, 0.5)",
    "clamp_min_": "x.clamp_min_(0.5)", "round_": "x.round_()", "eq_": "x.eq_(1.0)",
    "addcmul_": "x.addcmul_(torch.ones(2, 3), torch.ones(2, 3))", "lerp_": "x.lerp_(torch.ones(2, 3), 0.5)",
    "addmm_": "x.addmm_(torch.ones(2, 2), torch.ones(2, 3))", "cumsum_": "x.cumsum_(1)",
    "copy_": "x.copy_(torch.ones(2, 3))", "fill_ with a tensor": "x.fill_(torch.tensor(2.0))",
    "F.relu inplace": "torch.nn.functional.relu(x, inplace=True)",
    "F.hardtanh inplace": "torch.nn.functional.hardtanh(x, inplace=True)",
    "index_add_": "x.index_add_(1, torch.tensor([0]), torch.ones(2, 1))",
    "scatter_": "x.scatter_(1, torch.tensor([[0], [0]]), 2.0)", "uniform_": "x.uniform_()",
    "normal_": "x.normal_()", "random_": "x.random_(5)",
    "fill_": "x.fill_(2.0)", "zero_": "x.zero_()", "item assignment": "x[0, 0] = 5.0",
    "masked_fill_": "x.masked_fill_(torch.tensor([[True, False, False]] * 2), 2.0)",
    "index_fill_": "x.index_fill_(1, torch.tensor([0]), 2.0)", "tril_": "x.tril_()", "triu_": "x.triu_()",
}
REFUSED_BY_NAME = {"index_fill_", "tril_", "triu_"}  # masked_fill_ with a number: one value wherever masked


def _expanded_inplace(lib, code: str):
    base = lib.tensor([[1.0], [3.0]])
    x = base.expand(2, 3)
    try:
        exec(code, {"torch": lib, "x": x})
    except (RuntimeError, Unsupported) as e:
        return type(e).__name__, str(e).split("\n")[0]
    return "ok", base.tolist()


@pytest.mark.parametrize("name", sorted(EXPANDED_INPLACE))
def test_inplace_on_an_expanded_tensor_as_pytorch(torch_ref, name):
    theirs = _expanded_inplace(torch_ref, EXPANDED_INPLACE[name])
    ours = _expanded_inplace(scalargrad, EXPANDED_INPLACE[name])
    if name in REFUSED_BY_NAME:
        assert theirs[0] == "ok" and ours[0] == "Unsupported" and name in ours[1]
    else:
        assert ours == theirs


def _empty_reductions(lib) -> list:
    # a reduction over dims of nonzero size of a tensor with another dim of size 0: an empty
    # result (std/var held one nan, amax/amin raised), and an empty gradient
    out = []
    for f in ("std", "var", "amax", "amin"):
        for shape, d in (((0, 1), 1), ((2, 0, 3), 2), ((0, 3), (1,)), ((3, 0), 0)):
            x = lib.zeros(*shape, requires_grad=True)
            try:
                r = getattr(x, f)(d)
            except (RuntimeError, IndexError) as e:
                out.append((f, shape, type(e).__name__, str(e)))
                continue
            g, = lib.autograd.grad(r.sum(), x, allow_unused=True)
            out.append((f, shape, tuple(r.shape), r.tolist(), float(r.sum()), tuple(g.shape)))
    return out


def test_reductions_to_an_empty_result_as_pytorch(torch_ref):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # std/var's degrees-of-freedom warning, tested elsewhere
        assert _empty_reductions(scalargrad) == _empty_reductions(torch_ref)


def _number_op_layouts(lib) -> list:
    """Where pow with a number and add/sub with alpha put their result: pow(Tensor, Scalar) is a
    unary TensorIterator (row-major for a contiguous input, also at dims of size 1), pow(Scalar,
    Tensor) always row-major, ``x * 2`` keeps the input's strides; alpha keeps a permuted
    input's order as without it (the fuzzer's ops:9311:64, :125)."""
    cases = [lib.tensor([[[2.0, -1.0]], [[2.25, -2.0]], [[1.0, 0.25]]]).transpose(2, 1),
             lib.zeros((1, 3, 0)).transpose(1, 0), lib.arange(6.0).reshape(2, 3).t(),
             lib.arange(6.0).reshape(3, 1, 2).permute((2, 0, 1))]
    out = []
    for x in cases:
        for y in (x ** 1.5, x ** 2, 2 ** x, x * 2, lib.sub(x, x, alpha=0.5), lib.add(x, x, alpha=3), x.exp()):
            out.append((tuple(y.shape), y.stride(), y.is_contiguous()))
    return out


def test_number_op_layouts_as_pytorch(torch_ref):
    assert _number_op_layouts(scalargrad) == _number_op_layouts(torch_ref)


def _mask_gradient_layouts(lib) -> list:
    """clamp with both bounds and fmax combine their masks in place in PyTorch's derivatives:
    the gradient lies in the first mask's (the transposed input's) order (ops:9311:23)."""
    out = []
    for lo, hi in ((float("nan"), 1.0), (0.0, 1.0), (0.0, float("nan"))):
        x = lib.tensor([[2.25, 0.5, -3.0, 0.25], [1.25, -1.5, 0.75, -0.5], [-2.75, 2.5, 0.5, -1.5]]).requires_grad_()
        g, = lib.autograd.grad(x.t().clip(lo, hi).sum(), x)
        out.append((g.stride(), g.tolist()))
    x = lib.tensor([[1.0, float("nan")], [3.0, -1.0], [0.5, 2.0]]).requires_grad_()
    g, = lib.autograd.grad(lib.fmax(x.t(), lib.tensor([[0.0, 1.0, 1.0], [2.0, 0.0, 1.0]])).sum(), x)
    return out + [(g.stride(), g.tolist())]


def test_mask_gradient_layouts_as_pytorch(torch_ref):
    assert _mask_gradient_layouts(scalargrad) == _mask_gradient_layouts(torch_ref)
