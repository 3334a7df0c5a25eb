"""What an operator or torch function does with operands of every kind (issue 14's raw errors):
bitwise ops, Python numbers where a tensor is expected, indices and dims of 0-dim tensors, type
names. Each expression runs under PyTorch and scalargrad; result reprs or (type, message) of
the error must agree."""

from __future__ import annotations

import math
import platform
import warnings

import pytest
from program_outcome import described, outcome

import scalargrad
from scalargrad.errors import Unsupported

EXPRESSIONS = [
    # bool subtraction: a Python bool is a bool operand too ("two bool tensors"; fuzzer errors:14:156)
    "b - True", "True - b", "b - b", "f - True", "b - 1", "torch.sub(b, True)", "b.sub_(True)",
    "torch.rsub(b, True)", "torch.tensor([True, False]) - True", "+b", "+a", "+f",
    "b.positive()", "torch.positive(b)", "torch.positive(f)", "a.positive()",
    # torch.tensor takes its data alone by position (fuzzer errors:14:587)
    "torch.tensor(1.158, torch.float32)", "torch.tensor([1, 2], None)", "torch.tensor(1.0, torch.float32, 'cpu')",
    # bitwise ops: integer and bool kernels only
    "~a", "~b", "a & 6", "b & True", "a | b", "a ^ 3", "b ^ b", "6 & a", "True | b", "~f", "f & f",
    "a & 1.5", "a & f", "a.bitwise_and(3)", "torch.bitwise_or(a, 1)", "torch.bitwise_not(f)",
    "torch.tensor([1, 2]) | torch.tensor([4, 8])", "b & torch.tensor(3, dtype=torch.int32)",
    "torch.tensor([3, -1]).bitwise_not()", "torch.tensor(2**62) | torch.tensor(-2**63)",
    # numbers where a tensor is expected: add/sub/mul/div/floor_divide wrap them, the rest refuse
    "torch.mul(2.0, 3.0)", "torch.mul(2147483648, 2147483648)", "torch.mul(False, False)",
    "torch.add(1, 2)", "torch.add(1.5, 2)", "torch.sub(3, 1.5)", "torch.div(1, 2)", "torch.true_divide(1, 2)",
    "torch.floor_divide(5, 2)", "torch.mul(3, True)", "torch.subtract(3, 1)", "torch.multiply(2, 2.5)",
    "torch.add(1, 2, alpha=3)", "torch.sub(True, False)", "torch.div(7, 2, rounding_mode='floor')",
    "torch.div(1, torch.tensor([2., 4.]))", "torch.exp(1.0)", "torch.maximum(1., 2.)", "torch.sum(1.)",
    "torch.mean(-1)", "torch.sum(False)",
    # indices and dims of a 0-dim tensor
    "f[1]", "f[0]", "f[-1]", "f[None]", "f[...]", "f[0:1]", "f[1, 2]", "f[0, 1]", "f.size(0)",
    "f.size(-1)", "f.stride(0)", "f.shape", "torch.ones(2).size(2)", "torch.ones(2, 3).stride(-1)",
    # a 0-dim tensor beside a number bound: the Number overload (ClampBackward1)
    "torch.clamp(f, torch.tensor(0.), -2)", "torch.clamp(f, -2, torch.tensor(0.))",
    "f.clamp(min=torch.tensor(0.2), max=0.3).grad_fn.name()", "torch.clamp(f, torch.tensor([0., 1.]), 2)",
    # pow's exponent is a double: 2**63 - 1 is even there
    "f.neg().pow(9223372036854775807)", "torch.tensor(-1.5, dtype=torch.float64) ** (2**53 + 1)",
    "torch.pow(f, b'x')", "torch.pow(f, None)", "torch.pow(2, 3)", "torch.pow(2, f)",
    # an integer tensor's power of a bool is the integer power 1 or 0, not a double's (errors:8819:1068)
    "torch.tensor(9223372036854775807) ** True", "torch.tensor([2**63 - 2, 3]).pow(True)",
    "torch.tensor(2**62 + 1).pow_(True)", "torch.tensor(-2**63) ** False",
    # PyTorch's argument parser when no signature of an op with a Number overload takes the call:
    # its listing, each signature with the argument types that did not bind (fuzzer errors:9311:1)
    "f.floor_divide(b'x')", "torch.floor_divide(f, (1,))", "torch.floor_divide([1.0], f)", "f.pow(None)",
    "f.pow_([1.0, 2])", "torch.remainder(f, 'a')", "torch.bitwise_and('a', a)", "a.bitwise_left_shift_(None)",
    "torch.eq(f, object())", "f.less_({})", "torch.xlogy(f, 'a')", "f.fmod('a')", "torch.copysign(f, None)",
    "torch.subtract(f, 'a')", "f.multiply('a')", "f.divide_('a')", "f.true_divide_('a')", "torch.divide(f, 'a')",
    "f.clamp(min='a')", "f.clamp(max='a')", "f.clamp_max(None)", "f.clamp_min('a')", "torch.clamp(f, 'a', 3.0)",
    "torch.clip(a, 'a', 3)", "f.clip(torch.tensor([0.5]), 1.0)", "f.clamp_min_(None)", "torch.clamp_max(f, max='a')",
    "torch.clamp(f, torch.tensor(0., requires_grad=True), 1.0)", "torch.clamp(f, min=torch.tensor([0.]), max=2)",
    "f.clamp_min(m=2)", "torch.clamp_min(f, 2, 3)", "f.eq_(f, alpha=1)", "f.clamp(min=1, foo=2)",
    # keywords PyTorch's signatures do not have, or of the wrong type; complex numbers where a tensor binds
    "f.mul(f, alpha=2)", "torch.sub(f, alpha='a', other=f)", "f.add_(f, alpha=[1])", "torch.maximum(1j, f)",
    "torch.minimum(f, 1j)", "f.maximum(1j)", "torch.set_default_dtype('float32')", "torch.set_default_dtype(None)",
    # torch.add/sub/mul/div(number, tensor): the number is the tensor-tensor op's input (no edge for it,
    # a true division, SubBackward0; a bool input of sub refused)
    "torch.div(1.1, torch.tensor(0.3, requires_grad=True)).grad_fn.next_functions[0]",
    "torch.sub(2.5, f.requires_grad_()).grad_fn.name()", "torch.sub(True, f)",
    "[torch.autograd.grad(torch.div(2.5, t), t) for t in [torch.tensor(0.3, requires_grad=True)]]",
    "torch.div(2.5, torch.tensor([0.3, 7.0, -1.1]))",
    "torch.true_divide(0.1, torch.tensor([3.0, 7.0], dtype=torch.float64))", "torch.mul(3, a)", "torch.add(True, a)",
    # type names
    "str(type(f))", "str(type(torch.nn.Parameter(torch.ones(2))))", "torch.typename(f)",
    "torch.typename(torch.nn.Parameter(torch.ones(2)))", "type(f).__name__",
]


def _run(mod, expression: str):
    env = {"torch": mod, "a": mod.tensor(4), "b": mod.tensor(True), "f": mod.tensor(1.5)}
    try:
        return repr(eval(expression, env))  # the test's own expressions
    except Exception as e:  # the error is the result compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_operands_as_pytorch(torch_ref, expression):
    assert _run(scalargrad, expression) == _run(torch_ref, expression)


_INT_CASTS = ["torch.tensor(-3.4028234663852886e+38).to(torch.int64)", "torch.tensor(float('nan')).long()",
              "torch.tensor(1e30).long()", "torch.tensor(-1e19, dtype=torch.float64).long()",
              "torch.tensor(float('inf')).to(torch.int32)", "torch.tensor(3e9).to(torch.int32)",
              "torch.tensor(-1e10).to(torch.int16)", "torch.tensor(300.).to(torch.uint8)",
              "torch.tensor(-3.).to(torch.uint8)", "torch.tensor(1e10).to(torch.int8)",
              # copy_ casts as .to does (fuzzer graphs:15:2393)
              "torch.tensor(-2).copy_(torch.tensor(3.4e38, dtype=torch.float64))",
              "torch.tensor([-2, 3], dtype=torch.int32).copy_(torch.tensor([7.9, -1e20]))"]


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="out-of-range float-to-int casts are x86's 'integer indefinite' (ARM saturates)")
@pytest.mark.parametrize("expression", _INT_CASTS)
def test_out_of_range_casts_to_integers_as_pytorch_on_x86(torch_ref, expression):
    assert _run(scalargrad, expression) == _run(torch_ref, expression)


def test_out_of_range_casts_to_integers_by_hand():
    # cvttsd2si: a double that does not fit gives the register's lowest value; the narrow types
    # convert through a 32-bit register and keep its low bits
    ints = [scalargrad.tensor(x).to(dt).item() for x, dt in [(1e30, scalargrad.int64), (3e9, scalargrad.int32),
                                                             (-1e10, scalargrad.int16), (300.0, scalargrad.uint8)]]
    assert ints == [-(2**63), -(2**31), 0, 44]


# shifts: ATen's lshift/rshift kernels (an amount out of range, negative, or a uint8 read as signed;
# wrapping; the promoted dtype; no floating or bool kernel), one batch for CI's time
_SHIFTS = [
    "torch.bitwise_left_shift(torch.tensor([-1, -2, 3], dtype=torch.int8), torch.tensor([1, 0, 3], dtype=torch.int8))",
    "torch.bitwise_right_shift(torch.tensor([-2, -7, 31], dtype=torch.int8), "
    "torch.tensor([1, 0, 3], dtype=torch.int8))",
    "a << 1", "3 << torch.tensor([1, 2])", "a >> -1", "-a >> 70", "torch.tensor([-8, 8]) >> -1",
    "torch.tensor([-9, 9], dtype=torch.int8) >> torch.tensor([1, 70], dtype=torch.int8)",
    "torch.tensor([1, 2], dtype=torch.int8) << torch.tensor([1, 2])", "torch.tensor([100], dtype=torch.int8) << 1",
    "torch.tensor([200], dtype=torch.uint8) >> torch.tensor([200, 7], dtype=torch.uint8)",
    "torch.tensor([5], dtype=torch.uint8) << torch.tensor([200, 7], dtype=torch.uint8)",
    "torch.tensor(100, dtype=torch.int16) << 9", "torch.tensor([1], dtype=torch.int32) << torch.tensor([31, 32, 33], "
    "dtype=torch.int32)", "torch.tensor([2**62]) << 1", "torch.tensor([-2**63]) >> 63",
    "torch.bitwise_left_shift(input=a, other=2)", "a.bitwise_right_shift(1)", "a.bitwise_left_shift_(2)",
    "b << 1", "b << b", "f << 1", "a << 1.5", "a >> f", "a << 'x'", "torch.bitwise_left_shift(f, 2)",
]


def _shifted_in_place(mod):
    t = mod.tensor([1, -2])
    u = t
    t <<= 2
    t >>= mod.tensor([1, 3])
    return u is t, t.tolist()


def test_shifts_as_pytorch(torch_ref):
    assert [_run(scalargrad, e) for e in _SHIFTS] == [_run(torch_ref, e) for e in _SHIFTS]
    assert _shifted_in_place(scalargrad) == _shifted_in_place(torch_ref)


# gcd and lcm: ATen's integer kernels (Euclid on absolute values; lcm wraps in the dtype), tensors only
_NUMBER_THEORY = [
    "torch.gcd(torch.tensor([5, 10, 15, 0, -4]), torch.tensor([3, 4, 5, 0, 6]))",
    "torch.lcm(torch.tensor([5, 10, 15, 0, -4]), torch.tensor([3, 4, 5, 0, 6]))",
    "torch.gcd(torch.tensor([[5], [10]]), torch.tensor([3, 4, 5]))", "a.lcm(torch.tensor([-6, 0]))",
    "torch.lcm(torch.tensor([100, -128], dtype=torch.int8), torch.tensor([3, 3], dtype=torch.int8))",
    "torch.gcd(torch.tensor([-128], dtype=torch.int8), torch.tensor([0], dtype=torch.int8))",
    "torch.gcd(torch.tensor([6], dtype=torch.int32), torch.tensor([4]))", "a.gcd_(torch.tensor(6))",
    "torch.gcd(a, 5)", "torch.gcd(f, f)", "torch.lcm(b, b)", "torch.gcd(input=a, other=a)",
]


def test_number_theory_as_pytorch(torch_ref):
    assert [_run(scalargrad, e) for e in _NUMBER_THEORY] == [_run(torch_ref, e) for e in _NUMBER_THEORY]


def _fmax_graph(L, name, a, b):
    a, b = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
    y = getattr(L, name)(a, b)
    return (y,) + L.autograd.grad((y * (L.arange(y.numel(), dtype=L.float32).reshape(y.shape) + 1)).sum(), (a, b))


def _ldexp_graph(L, x, e):
    x, e = L.tensor(x, requires_grad=True), L.tensor(e)
    if e.is_floating_point():
        e.requires_grad_()
    y = L.ldexp(x, e)
    return (y,) + L.autograd.grad(y.sum(), (x, e) if e.requires_grad else (x,))


def _ldexp_warnings(L):
    """The resized-output warnings of ldexp's broadcasts (an integer exponent beyond the input's shape)."""
    out = []
    for a, b, da, db in (([1.0], [1, 2], "float32", "int64"), ([1.0], [1, 2], "float32", "float32"),
                         ([1.0], [1, 2], "float64", "int32"), ([1], [1, 2], "int32", "int64"),
                         ([[1.0], [2.0]], [1, 2], "float32", "int64"), (1.0, [1, 2], "float32", "int64"),
                         ([1.0, 2.0], [1], "float32", "int64")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            L.ldexp(L.tensor(a, dtype=getattr(L, da)), L.tensor(b, dtype=getattr(L, db)))
        out.append([str(w.message) for w in caught])
    return repr(out)


# fmax/fmin: a nan operand ignored; the gradient to self where self >= other (<=) or other is nan
_NAN_IGNORING = {
    "fmax": lambda L: _fmax_graph(L, "fmax", [1.0, math.nan, 3, 2, math.nan, -0.0, 0.0],
                                  [math.nan, 2.0, 1.0, 2.0, math.nan, 0.0, -0.0]),
    "fmin": lambda L: _fmax_graph(L, "fmin", [1.0, math.nan, 3, 2, math.nan, -0.0, 0.0],
                                  [math.nan, 2.0, 1.0, 2.0, math.nan, 0.0, -0.0]),
    "broadcast": lambda L: _fmax_graph(L, "fmax", [[1.0], [4.0]], [0.0, 2.0, 5.0]),
    "ints": lambda L: (L.fmax(L.tensor([1, 5]), L.tensor([3, 2])), L.tensor([1.0, 5]).fmin(L.tensor([3, 2]))),
    "number": lambda L: L.fmax(L.tensor([1.0, 5]), 2),
    "keywords": lambda L: L.fmax(input=L.tensor([1.0, 5]), other=L.tensor([3.0, 2])),
    "ldexp": lambda L: _ldexp_graph(L, [0.0, 3.0, 1e-45, 3e38], [2.0, 1.5, 3.0, 2.0]),
    # an integer exponent: PyTorch's derivative is grad * pow(2, other) in integers, 0 for other < 0
    "ldexp-ints": lambda L: _ldexp_graph(L, [1.0, -2.5, 3.0], [1, -2, 3]),
    "ldexp-dtypes": lambda L: (L.ldexp(L.tensor([1.0], dtype=L.float64), L.tensor([3])),
                               L.ldexp(L.tensor([1.0], dtype=L.float64), L.tensor([200])),
                               L.ldexp(L.tensor([1, 2], dtype=L.int32), L.tensor([3])),
                               L.ldexp(L.tensor([1.0]), L.tensor([3.0], dtype=L.float64))),
    "ldexp-spellings": lambda L: (L.tensor([1.5, 2]).ldexp_(L.tensor([1, 2])),
                                  L.ldexp(input=L.tensor([1.5, 2]), other=L.tensor([1, 2]))),
    "ldexp-number": lambda L: (L.ldexp(L.tensor([1.5, 2]), 2), L.tensor([1.5]).ldexp(2)),
    "ldexp-resized": lambda L: _ldexp_warnings(L),
    "is_complex": lambda L: (L.is_complex(L.tensor([1.0])), L.is_complex(L.tensor([1]))),
    "is_complex-number": lambda L: L.is_complex(1.0),
}


def test_nan_ignoring_and_ldexp_as_pytorch(torch_ref):
    ours = {k: described(f, scalargrad) for k, f in _NAN_IGNORING.items()}
    assert ours == {k: described(f, torch_ref) for k, f in _NAN_IGNORING.items()}


def test_in_place_bitwise_operator_keeps_the_tensor():
    c = scalargrad.tensor(6)
    d = c
    c &= 3
    assert c is d and c.item() == 2 and c._version == 1


@pytest.mark.parametrize("expression", ["f ** 1j", "torch.mul(1j, f)", "f.pow(1j)"])
def test_complex_numbers_are_refused_by_name(expression):
    # (f + 1j and 1j - f make complex tensors: test_complex_numbers.py)
    env = {"torch": scalargrad, "f": scalargrad.tensor(1.5)}
    with pytest.raises(Unsupported, match="complex numbers"):
        eval(expression, env)


# the SymPy check's 0-dim path takes CopySlices for its base's identity and misses the view's
# mul_ (it reports 2 where PyTorch's and this test's gradient is 4): a known false alarm of the
# checker, kept out of this test until the element graph expands a 0-dim CopySlices
@pytest.mark.no_sympy_check
def test_a_view_with_dimensions_of_a_0dim_tensor_shows_its_in_place_change():
    # the fuzzer's silently wrong value: the view printed its old element after mul_
    x = scalargrad.tensor(-0.12, requires_grad=True)
    y = x * 2
    v = y.unsqueeze(0).mul_(2)
    assert v.tolist() == y.view(1).tolist() == [scalargrad.tensor(-0.48).item()]
    z = scalargrad.tensor(3.0) * 1
    w = z.unsqueeze(0)
    w.mul_(2)
    assert (z.item(), w.tolist()) == (6.0, [6.0])
    y.backward()
    assert x.grad.item() == 4.0  # CopySlices: d(2 * (2 * x))/dx, as PyTorch


_SAVED_AND_CHANGED = {
    # the exponent of number ** tensor is saved (pow_backward_exponent): a version error
    "rpow": "a = torch.tensor(-0.95, dtype=torch.float64, requires_grad=True)\n"
            "y = 1.85 ** a\nwith torch.no_grad():\n    a.mul_(2.0)\ny.backward()",
    # floor division saves other for self's gradient, and self only for other's
    "floor div, other": "a = torch.tensor(5., requires_grad=True)\nb = torch.tensor(2., requires_grad=True)\n"
                        "y = torch.div(a * 1, b, rounding_mode='floor')\nwith torch.no_grad():\n"
                        "    b.mul_(2)\ny.backward()",
    "floor div, self unsaved": "a = torch.tensor(5., requires_grad=True)\nb = torch.tensor(2.)\n"
                               "y = torch.div(a, b, rounding_mode='floor')\nwith torch.no_grad():\n"
                               "    a.mul_(2)\ny.backward()",
    # clamp's tensor bounds are saved (min and max)
    "clamp, tensor min": "x = torch.tensor(-1.3, requires_grad=True)\nlo = x * 2\n"
                         "y = torch.clamp(x * 1, min=lo)\nlo.sub_(1)\ny.backward()",
    "clamp, tensor max": "x = torch.tensor(-1.3, requires_grad=True)\nhi = x * 3\n"
                         "y = torch.clamp(x * 1, min=x * 2, max=hi)\nhi.sub_(1)\ny.backward()",
    # a bool exponent tensor: pow_backward_self's exponent - 1 refuses bool
    "x ** bool tensor": "x = torch.tensor(3.0, requires_grad=True)\n"
                        "torch.autograd.grad(x ** torch.tensor(True), [x])",
    "nll_loss": "x = torch.tensor([[0.2, 0.8]], requires_grad=True)\nlp = x * 1\n"
                "y = torch.nn.functional.nll_loss(lp, torch.tensor([1]))\nwith torch.no_grad():\n"
                "    lp.mul_(2)\ny.backward()",
}


# the leaves change after the forward pass: SymPy would take the new values for the old graph
@pytest.mark.no_sympy_check
@pytest.mark.parametrize("program", _SAVED_AND_CHANGED)
def test_a_saved_input_changed_in_place_is_refused_as_pytorch(torch_ref, program):
    def run(mod):
        try:
            exec(_SAVED_AND_CHANGED[program], {"torch": mod})  # the test's own programs
        except RuntimeError as e:
            return str(e)
        return "no error"

    assert run(scalargrad) == run(torch_ref)


_ZERO_SIGNS = {
    # sgn's derivative is a ZeroTensor that adds nothing: x.grad keeps the other term's -0.
    "abs under relu, second order": "x = torch.tensor(-2.66, requires_grad=True)\n"
                                    "g, = torch.autograd.grad(torch.relu(abs(x)), [x], create_graph=True)\n"
                                    "g.backward()\nout = x.grad",
    # a bool exponent is not the Scalar 0.0: grad * (False * x ** -1.0)
    "x ** False": "x = torch.tensor(-0.418894, requires_grad=True)\n"
                  "torch.pow(x, False).backward(gradient=torch.tensor(1.7))\nout = x.grad",
    "x ** False at 0": "x = torch.tensor(0.0, requires_grad=True)\n(x ** False).backward()\nout = x.grad",
    "x ** 0": "x = torch.tensor(-0.418894, requires_grad=True)\n(x ** 0).backward()\nout = x.grad",
    # -0.0 buffered first, sgn's ZeroTensor added to it in place: +0.0 (fuzzer graphs:14:610)
    "ZeroTensor arriving second": "x = torch.tensor(0.97, dtype=torch.float64, requires_grad=True)\n"
                                  "m = (1e-45 ** x).abs().maximum((1e-45 ** x).abs()).sum()\n"
                                  "g, = torch.autograd.grad(torch.clamp(x, min=m), [x], create_graph=True)\n"
                                  "g.backward()\nout = x.grad",
    # a tensor hook sees sgn's ZeroTensor: doubled, it is still one (fuzzer graphs:14:10923)
    "ZeroTensor through a hook": "x = torch.tensor(-2.365767, requires_grad=True)\n"
                                 "a = torch.abs(torch.mean(x))\nb = abs(a)\ny = b.sub(b)\n"
                                 "a.register_hook(lambda g: g * 2)\n"
                                 "g, = torch.autograd.grad(3.4028234663852886e+38 - y, [x], create_graph=True)\n"
                                 "out, = torch.autograd.grad(g, [x])",
    # the negation of sgn's ZeroTensor is an ordinary -0.0 (fuzzer graphs:14:1353)
    "negated ZeroTensor": "x = torch.tensor(-0.15, dtype=torch.float64, requires_grad=True)\n"
                          "g, = torch.autograd.grad(torch.abs(-x), [x], create_graph=True)\n"
                          "g.backward()\nout = x.grad",
    # sgn's ZeroTensor stored into .grad, captured or shown to a hook is materialised: +0.0 zeros
    "sign of a vector": "x = torch.tensor([-2.0, 3.0], requires_grad=True)\n"
                        "(x.sign() * torch.tensor([-1.0, -1.0])).sum().backward()\nout = x.grad",
    "ZeroTensor into a -0.0 .grad": "x = torch.tensor([-2.0, 3.0], requires_grad=True)\n"
                                    "(x * torch.tensor([-0.0, -0.0])).sum().backward()\n"
                                    "(x.sign() * -1).sum().backward()\nout = x.grad",
    "ZeroTensor captured": "x = torch.tensor([-2.0, 3.0], requires_grad=True)\n"
                           "out, = torch.autograd.grad((x.sign() * -1).sum(), x)",
    "ZeroTensor at a leaf's hook": "x = torch.tensor([-2.0, 3.0], requires_grad=True)\nout = []\n"
                                   "x.register_hook(lambda g: out.append(repr(g)))\n"
                                   "(x.sign() * -1).sum().backward()\nout.append(repr(x.grad))",
    "ZeroTensor through a slice": "x = torch.tensor([1.0, -2.0, 3.0, 0.0, 5.0, -6.0], requires_grad=True)\n"
                                  "x[::2].sgn().sum().backward()\nout = x.grad",
    # softmax_double_backward's ``grad_output * grad - (output * grad_output).sum(dim, true) * grad``
    # with sgn's ZeroTensor as grad_output: ATen's Z - x is x * -1, so -0.0 (fuzzer ops:8819:1077)
    "sgn after softmax, second order": "x = torch.tensor([[-2.25, 1.0], [2.5, 1e-40]], requires_grad=True)\n"
                                       "g, = torch.autograd.grad(torch.softmax(x, dim=-2).sgn().sum(), [x],"
                                       " create_graph=True)\ng.sum().backward()\nout = x.grad",
    "ZeroTensor minus a tensor in a hook": "x = torch.tensor([-2.0, 3.0], requires_grad=True)\nout = []\n"
                                           "a = x * 1\n"
                                           "a.register_hook(lambda g: out.append(repr(g - torch.zeros(2))))\n"
                                           "a.sgn().sum().backward()",
    # ... and with an operand that requires grad, PyTorch's SubBackward0 (no edge for the ZeroTensor)
    "ZeroTensor minus a grad-requiring tensor": "x = torch.tensor([-2.0, 3.0, 0.0], requires_grad=True)\n"
                                              "w = torch.tensor([0.0, -0.0, 1.5], requires_grad=True)\nout = []\n"
                                              "a = x * 1\na.register_hook(lambda g: out.append(g - w))\n"
                                              "g, = torch.autograd.grad(a.sgn().sum(), [x], create_graph=True)\n"
                                              "r = out[0]\nout = (repr(r), r.grad_fn.name(),"
                                              " [f is None for f, _ in r.grad_fn.next_functions])",
    "item of a 0-dim ZeroTensor grad": "a = torch.tensor(2.0, requires_grad=True)\na.sign().backward()\n"
                                       "out = (type(a.grad.item()).__name__, a.grad.item())\n"
                                       "(a * -0.0).backward()\nout += (a.grad,)",
}


def test_zero_gradients_of_sign_by_hand():
    def run(source):
        env = {"torch": scalargrad}
        exec(source, env)
        return env["out"]

    assert repr(run(_ZERO_SIGNS["sign of a vector"])) == "tensor([0., 0.])"
    assert repr(run(_ZERO_SIGNS["ZeroTensor into a -0.0 .grad"])) == "tensor([0., 0.])"  # -0.0 + 0.0
    assert repr(run(_ZERO_SIGNS["ZeroTensor captured"])) == "tensor([0., 0.])"
    assert repr(run(_ZERO_SIGNS["ZeroTensor through a slice"])) == "tensor([0., 0., 0., 0., 0., 0.])"
    assert run(_ZERO_SIGNS["ZeroTensor at a leaf's hook"]) == ["tensor([0., 0.])", "tensor([0., 0.])"]
    kind, value, grad = run(_ZERO_SIGNS["item of a 0-dim ZeroTensor grad"])
    assert (kind, str(value), repr(grad)) == ("float", "0.0", "tensor(0.)")  # 0.0 + -0.0 in place


@pytest.mark.parametrize("program", _ZERO_SIGNS)
def test_zero_gradients_keep_pytorchs_sign(torch_ref, program):
    source = _ZERO_SIGNS[program]
    assert outcome(scalargrad, source, refusals=()) == outcome(torch_ref, source, refusals=())


def test_the_efficient_zero_passes_through_arithmetic_as_atens_zerotensor():
    from scalargrad._ops.float_kernel import EFFICIENT_ZERO as Z

    # buffered first it adds nothing (ATen's add of a ZeroTensor returns the other, sign kept);
    # arriving at a buffered ordinary gradient it is added in place, materialised (-0.0 + 0.0);
    # multiplied or divided it stays itself; negated it is materialised first (torch 2.13:
    # ``-torch._efficientzerotensor(())`` is an ordinary -0.0)
    assert str(Z + -0.0) == "-0.0" and str(-0.0 + Z) == "0.0" and (2.5 + Z) == 2.5 and (2.5 - Z) == 2.5
    assert (Z + Z) is Z and (Z - Z) is Z
    assert (Z * -3.0) is Z and (-3.0 * Z) is Z and (Z / 7.0) is Z and (Z - 1.5) == -1.5
    assert str(-Z) == "-0.0" and type(-Z) is float


def test_the_efficient_zero_matches_pytorchs(torch_ref):
    z = torch_ref._efficientzerotensor(())
    assert str((-z).item()) == "-0.0" and not (-z)._is_zerotensor()
    assert (z * torch_ref.tensor(-3.0))._is_zerotensor() and (z / torch_ref.tensor(7.0))._is_zerotensor()
    assert str((z + torch_ref.tensor(-0.0)).item()) == "-0.0"
    assert str(torch_ref.tensor(-0.0).add_(z).item()) == "0.0"


_INT_POWERS = ["torch.tensor(9223372036854775807) ** torch.tensor(9223372036854775807)",
               "torch.tensor(3) ** torch.tensor(41)", "torch.tensor(3) ** 41",
               "torch.tensor(-3, dtype=torch.int8) ** torch.tensor(5, dtype=torch.int8)",
               "torch.tensor(2) ** torch.tensor(-1)", "torch.tensor(-1) ** torch.tensor(-3)",
               "torch.tensor(5) ** torch.tensor(2 ** 62)",
               # a number's power of an integer tensor (fuzzer graphs:15:11519, 13522)
               "False ** torch.tensor(-9223372036854775808)", "False ** torch.tensor(-2)", "2 ** torch.tensor(-3)",
               "True ** torch.tensor(-3)", "3 ** torch.tensor(41)", "2 ** torch.tensor(70)", "(-1) ** torch.tensor(-3)"]


@pytest.mark.parametrize("expr", _INT_POWERS)
def test_integer_powers_wrap_as_atens(torch_ref, expr):
    # repeated squaring modulo 2**64 (fuzzer graphs:14:7931); a huge exponent must not hang
    assert repr(eval(expr, {"torch": scalargrad})) == repr(eval(expr, {"torch": torch_ref}))


def test_integer_power_by_hand():
    # (2**63 - 1)**2 = 2**126 - 2**64 + 1, which is 1 modulo 2**64: odd powers give 2**63 - 1 back
    big = scalargrad.tensor(2**63 - 1)
    assert (big ** scalargrad.tensor(2)).item() == 1 and (big ** big).item() == 2**63 - 1


_ADD_ALPHA = [(a, b, alpha, dt) for dt in ("float32", "float64")
              for a, b, alpha in ((-0.0, -0.0, 2), (0.0, -0.0, 2), (-0.0, 0.0, -2.5), (1.0, math.inf, 0.0),
                                  (math.inf, math.inf, -1.0), (1.8e308, 1.8e308, 2), (1e300, 1e300, 1e10),
                                  (math.nan, 1.0, 2))]


def _add_alpha(lib) -> list:
    out = []
    for a, b, alpha, dt in _ADD_ALPHA:
        d = getattr(lib, dt)
        out.append(repr(lib.add(lib.tensor([a], dtype=d), lib.tensor([b], dtype=d), alpha=alpha)))
        out.append(repr(lib.sub(lib.tensor(a, dtype=d), lib.tensor(b, dtype=d), alpha=-alpha)))
    return out


def test_add_with_alpha_keeps_ieee_signs_and_specials_by_hand():
    got = _add_alpha(scalargrad)[::2]  # the add of each case (-0.0 == 0.0: no dict keys)
    assert got[0] == "tensor([-0.])"  # -0 * 2 + -0 is -0 (IEEE)
    assert got[1] == "tensor([0.])"  # -0 * 2 + 0 is +0
    assert got[11] == "tensor([nan], dtype=torch.float64)"  # inf * 0 + 1
    assert got[14] == "tensor([inf], dtype=torch.float64)"  # 1e310 + 1e300: past float64


def _alpha_fits(lib) -> list:
    out = []
    for dt in ("float32", "float16", "int8", "float64", "int64"):
        for alpha in (1e308, 70000.0, 300, 2 ** 40, math.inf, -3.5e38):
            d = getattr(lib, dt)
            try:
                out.append(repr(lib.add(lib.ones(1, dtype=d), lib.ones(1, dtype=d), alpha=alpha)))
            except RuntimeError as e:
                out.append(str(e))
    return out


def test_alpha_is_converted_with_an_overflow_check_by_hand():
    got = _alpha_fits(scalargrad)
    assert got[0] == "value cannot be converted to type float without overflow"  # 1e308 into float32
    assert got[7] == "value cannot be converted to type c10::Half without overflow"  # 70000 into half
    assert got[14] == "value cannot be converted to type int8_t without overflow"  # 300 into int8
    assert got[10] == "tensor([inf], dtype=torch.float16)"  # inf converts


def test_alpha_is_converted_as_torchs(torch_ref):
    assert _alpha_fits(scalargrad) == _alpha_fits(torch_ref)


def test_add_with_alpha_matches_torch(torch_ref):
    assert _add_alpha(scalargrad) == _add_alpha(torch_ref)
