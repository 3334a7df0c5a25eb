"""Where a gradient's last bits come from: the dtype each step of a formula runs in, and the order
a second backward sums its terms in. Programs found by the differential fuzzer (issue 14), each
compared bit for bit with PyTorch (IEEE arithmetic only: + - * /, no processor-dependent kernel,
except where said)."""

from __future__ import annotations

import math

import pytest
from program_outcome import outcome

import scalargrad

_PROGRAMS = {
    # a float32 tensor divided in place by a float64 one: DivBackward0's other-gradient is
    # -grad * self (float32) / (other * other) (float64), so float64 from the division on
    # (fuzzer graphs:14:9162)
    "in-place op with a wider input": (
        "a = torch.tensor(-1.61, dtype=torch.float64, requires_grad=True)\n"
        "b = torch.tensor(2.0, requires_grad=True)\n"
        "y = b.maximum(torch.tensor(-0.5)).div_(a)\n"
        "out = torch.autograd.grad(y, [a, b])"),
    # float32 ** float64 under create_graph: the base is cast to float64 before its log is taken
    # (pow_backward_exponent; fuzzer graphs:14:1777)
    "float32 base, float64 exponent, create_graph": (
        "e = torch.tensor(-1.57787, dtype=torch.float64, requires_grad=True)\n"
        "b = torch.tensor(1.4, requires_grad=True)\n"
        "out = torch.autograd.grad(b ** e + e, [e, b], create_graph=True)"),
    # the same without create_graph (the 0-dim float path must promote operand by operand too)
    "float32 base, float64 exponent": (
        "e = torch.tensor(-1.57787, dtype=torch.float64, requires_grad=True)\n"
        "b = torch.tensor(1.4, requires_grad=True)\n"
        "out = torch.autograd.grad(b ** e + e, [e, b])"),
    # clamp(min=+inf) with no max: the min gets the gradient where self < min (fuzzer graphs:14:3125)
    "clamp min=inf, no max": (
        "m = torch.tensor(1e+308, requires_grad=True)\n"
        "y = torch.clamp(torch.tensor(1.0), min=m)\n"
        "out = torch.autograd.grad(y, [m], create_graph=True)"),
    # x*x/x under create_graph: DivBackward0 records its other-gradient's nodes before its
    # self-gradient's (PyTorch's generated code takes the inputs alphabetically), so the second
    # backward sums x's five terms in that order (fuzzer graphs:14:19373)
    "second backward sums in PyTorch's node order": (
        "x = torch.tensor(-103.97, requires_grad=True)\n"
        "w = torch.tensor(-2.0, requires_grad=True)\n"
        "g = torch.autograd.grad(x.square().div(x) + w, [x, w], create_graph=True)\n"
        "sum(t for t in g if t.requires_grad).backward()\n"
        "out = x.grad"),
    # ExpandBackward0 to a 0-dim shape is at::sum_to's sum, which turns -0.0 into +0.0 (the
    # expand mean's backward records; fuzzer graphs:15:12479)
    "sum_to a 0-dim shape": (
        "x = torch.tensor(0.632, requires_grad=True)\n"
        "n = torch.neg(x + x)\nm = n.mean()\nn.register_hook(lambda g: g * 0)\n"
        "g, = torch.autograd.grad(torch.tensor(1.6, requires_grad=True) + x.maximum(m.square()), [x],"
        " create_graph=True)\n"
        "g.backward()\nout = x.grad"),
    "expand of a 0-dim tensor, -0.0 gradient": (
        "z = torch.tensor(-0.0, requires_grad=True)\n"
        "out = torch.autograd.grad(z.expand(()) * -1.0, [z], grad_outputs=torch.tensor(0.0))"),
    "mul and sub under create_graph": (
        "x = torch.tensor(0.3, requires_grad=True)\n"
        "y = torch.tensor(-1.7, requires_grad=True)\n"
        "g = torch.autograd.grad((x * y - y * x * x) / (x - y), [x, y], create_graph=True)\n"
        "(g[0] * 3 + g[1]).backward()\n"
        "out = (x.grad, y.grad)"),
}


def _bits(x):
    if isinstance(x, (tuple, list)):
        return [_bits(t) for t in x]
    return (str(x.dtype), [float(v).hex() for v in x.detach().reshape(-1).tolist()])


# the programs whose gradients go through the C library's float64 pow and log, which scalargrad
# takes from the same library as PyTorch but whose last bits an FMA or a vectorised kernel may
# change from one processor to another: compared within 4 float64 ulps there (a float32 step, the
# fault these programs catch, is some 2**29 ulps away)
_LIBM = {"float32 base, float64 exponent, create_graph", "float32 base, float64 exponent"}


def _within_ulps(a, b, ulps: int) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_within_ulps(x, y, ulps) for x, y in zip(a, b))
    (da, xs), (db, ys) = a, b
    if da != db or len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        fx, fy = float.fromhex(x), float.fromhex(y)
        if not (x == y or abs(fx - fy) <= ulps * math.ulp(max(abs(fx), abs(fy)))):
            return False
    return True


@pytest.mark.parametrize("program", _PROGRAMS)
def test_gradient_bits_match_pytorch(torch_ref, program):
    def read(env):
        return _bits(env["out"])

    ours, theirs = outcome(scalargrad, _PROGRAMS[program], read, ()), outcome(torch_ref, _PROGRAMS[program], read, ())
    if program in _LIBM:
        assert _within_ulps(ours, theirs, 4), (ours, theirs)
    else:
        assert ours == theirs


def test_the_mixed_dtype_gradient_by_hand():
    # d(b / a)/da = -b / a**2 with b = 2 (float32, exact) and a = -1.61 (float64): the float64
    # quotient, not one rounded to float32
    a = scalargrad.tensor(-1.61, dtype=scalargrad.float64, requires_grad=True)
    b = scalargrad.tensor(2.0, requires_grad=True)
    y = (b * 1).div_(a)
    ga, gb = scalargrad.autograd.grad(y, [a, b])
    assert ga.dtype is scalargrad.float64 and ga.item() == -2.0 / (-1.61 * -1.61)
    assert gb.dtype is scalargrad.float32


_CLAMP_SHAPES = {
    "0-dim self and max, min of shape [1]": "s = torch.tensor(float('nan'), requires_grad=True)\n"
                                            "lo = torch.tensor([float('nan')], requires_grad=True)\n"
                                            "s.clamp(lo, s).sum().backward()\nout = (s.grad, lo.grad)",
    "only the min requires grad": "s = torch.tensor(0.5, requires_grad=True)\n"
                                  "lo = torch.tensor([0.1, 0.7], requires_grad=True)\n"
                                  "s.clamp(lo, torch.tensor(0.6)).sum().backward()\nout = (s.grad, lo.grad)",
    "the max requires grad": "s = torch.tensor(0.5)\nhi = torch.tensor(0.6, requires_grad=True)\n"
                             "s.clamp(torch.tensor([0.1, 0.7]), hi).sum().backward()\nout = hi.grad",
    "three shapes": "s = torch.tensor([0.5, 2.0], requires_grad=True)\n"
                    "lo = torch.tensor([[0.1], [0.7]], requires_grad=True)\n"
                    "hi = torch.tensor(0.6, requires_grad=True)\n"
                    "s.clamp(lo, hi).sum().backward()\nout = (s.grad, lo.grad)",
    "no min": "s = torch.tensor(0.5, requires_grad=True)\nhi = torch.tensor([0.1, 0.7], requires_grad=True)\n"
              "s.clamp(None, hi).sum().backward()\nout = (s.grad, hi.grad)",
}


@pytest.mark.parametrize("program", _CLAMP_SHAPES)
def test_clamp_backward_refuses_masks_that_do_not_fit_as_pytorch(torch_ref, program):
    # clamp's backward combines its masks in place: where the second broadcasts to more than the
    # first, PyTorch raises the in-place op's shape error (fuzzer --shapes graphs:14:273)
    assert outcome(scalargrad, _CLAMP_SHAPES[program]) == outcome(torch_ref, _CLAMP_SHAPES[program])


_VIEW_OVERWRITES = {
    "v.div_(v)": "a = torch.tensor([2.0, 3.0], requires_grad=True) * 1\nv = a.view(-1)\nv.div_(v)\nv.sum().backward()",
    "v.mul_(v) of a 0-dim base": "a = torch.tensor(2.0, requires_grad=True) * 1\nv = a.view(-1)\nv.mul_(v)\n"
                                 "a.backward()",
    "element view": "a = torch.tensor([2.0, 3.0], requires_grad=True) * 1\nv = a[0]\nv.div_(v)\na.sum().backward()",
    "v.mul_(base)": "a = torch.tensor([2.0, 3.0], requires_grad=True) * 1\nv = a.view(-1)\nv.mul_(a)\n"
                    "a.sum().backward()",
    "v.mul_(another view)": "a = torch.tensor([2.0, 3.0], requires_grad=True) * 1\nv = a.view(-1)\n"
                            "v.mul_(a.view(2))\na.sum().backward()",
    # an operand that is a detached alias of self: its version moves with self's (fuzzer
    # graphs:15:6473, where the clone of self saved by the op must not hide it)
    "detached alias": "a = torch.tensor(-2.577081, requires_grad=True) + 2.8\nd = a.detach().requires_grad_()\n"
                      "a.div_(d)\n(torch.tensor(1.0, requires_grad=True) + a).backward()",
    "v.add_(v) saves nothing": "a0 = torch.tensor([2.0, 3.0], requires_grad=True)\na = a0 * 1\nv = a.view(-1)\n"
                               "v.add_(v)\n(a * torch.tensor([1.0, 10.0])).sum().backward()\nprint(a0.grad)",
}


@pytest.mark.parametrize("program", _VIEW_OVERWRITES)
def test_an_op_on_a_view_that_overwrites_its_saved_operand(torch_ref, program):
    # the operand PyTorch saved is the view the op then changed: a version error naming the
    # view's regenerated grad_fn (AsStrided) (fuzzer --shapes graphs:14:1295)
    def read(env):
        return "no error " + repr(env["a"].grad_fn.next_functions[1][0].name() if env["a"].grad_fn else None)

    assert outcome(scalargrad, _VIEW_OVERWRITES[program], read) == outcome(torch_ref, _VIEW_OVERWRITES[program], read)


@pytest.mark.no_sympy_check  # the result is overwritten through .data: SymPy would take tanh's own
def test_tanh_backward_of_an_infinite_result():
    # 1 - y*y with y = inf is -inf (the exact-product split used for it would give nan)
    x = scalargrad.tensor([1e20, float("nan")], requires_grad=True)
    y = x.tanh()
    y.data.copy_(x)
    y.sum().backward()
    assert x.grad.tolist()[0] == float("-inf") and x.grad.tolist()[1] != x.grad.tolist()[1]


@pytest.mark.parametrize("expr", ["x.t().clamp(x.t(), None)", "x.t().clamp(torch.tensor(1.), None)",
                                  "x.t().clamp(x.t(), x.t())", "torch.where(x.t() > 2, x.t(), 0.)",
                                  "torch.where(x > 2, x.t().t(), x)"])
def test_elementwise_results_keep_their_operands_memory_order(torch_ref, expr):
    # TensorIterator lays out an elementwise result as its operands are laid out, so reshape of
    # it copies rather than views (fuzzer --shapes graphs:14:1393)
    def run(mod):
        x = mod.arange(6.0).reshape(2, 3)
        return eval(expr, {"torch": mod, "x": x}).stride()

    assert run(scalargrad) == run(torch_ref)


def test_broadcast_gradient_to_a_0dim_input_is_one_sum_node(torch_ref):
    # at::sum_to returns tensor.sum() for a 0-dim shape: under create_graph the 0-dim input's
    # gradient is a SumBackward0 of the broadcast product, not a view of a keepdim sum
    def graph(lib):
        x = lib.tensor([0.5, -1.25, 3.0], requires_grad=True)
        a = lib.tensor(2.0, requires_grad=True)
        g, = lib.autograd.grad((a * x * x).sum(), a, create_graph=True)
        return g.item(), g.grad_fn.name(), [f.name() for f, _ in g.grad_fn.next_functions]

    assert graph(scalargrad) == graph(torch_ref)
