"""Error paths: calls PyTorch refuses (or, near them, accepts), each with random parameters.

Each template makes a short setup and one probe: wrong argument types on every spelling of
an op, bad dtypes and flags to the factories, requires_grad on integers, backward twice,
version errors after one to three in-place changes (the message names the versions),
in-place on leaves, hooks on tensors without grad, ``autograd.grad`` misuse, conversions,
integer overflow and division by zero, custom ``Function``s that return bad gradients,
post-accumulate hooks that return a value. The comparison wants PyTorch's exception type and
message exactly, or PyTorch's value where it accepts the call.
"""

from __future__ import annotations

import random
import re

from . import operands as O
from .program import GRAD, SETUP, VALUE, Program, Step, lit

__all__ = ["generate_error", "TEMPLATES"]

BAD_OPERANDS = ["'a'", "None", "[1.0]", "(1,)", "{}", "b'x'", "1j", "object()"]
FLOAT_DT = ["torch.float32", "torch.float64"]
ANY_DT = FLOAT_DT + ["torch.int64", "torch.bool"]
SAVING_UNARY = ["exp", "sin", "cos", "tanh", "sigmoid", "log", "sqrt", "reciprocal", "relu", "abs"]


class _E:
    """The steps of one error program."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.steps: list[Step] = []
        self.n = 0

    def let(self, code: str, op: str = "", tag: str = VALUE, show: bool = True, helpers=()) -> str:
        name = f"v{self.n}"
        self.n += 1
        self.steps.append(Step(code, name, self.uses(code), op, tag, show, helpers=tuple(helpers)))
        return name

    def do(self, code: str, op: str = "", tag: str = SETUP) -> None:
        self.steps.append(Step(code, None, self.uses(code), op, tag))

    def uses(self, code: str) -> tuple:
        words = set(re.findall(r"\bv\d+\b", code))
        return tuple(s.name for s in self.steps if s.name in words)

    def backward(self, out: str, x: str) -> None:
        """``out.backward()``, then read ``x.grad``."""
        self.do(f"{out}.backward()", "backward", VALUE)
        self.let(f"{x}.grad", "read_grad", GRAD)

    def leaf(self, value=None, dtype: str | None = None, rg: bool = True) -> str:
        value = O.ordinary(self.rng) if value is None else value
        dt = f", dtype={dtype}" if dtype else ""
        return self.let(f"torch.tensor({lit(value)}{dt}{', requires_grad=True' if rg else ''})", "tensor")

    def tensor(self, dtype: str | None = None) -> str:
        dtype = dtype or self.rng.choice(ANY_DT)
        value = {"torch.int64": O.int_number(self.rng), "torch.bool": self.rng.random() < 0.5}.get(
            dtype, O.float_number(self.rng))
        return self.let(f"torch.tensor({lit(value)}, dtype={dtype})", "tensor")


def t_wrong_operand(e: _E) -> None:
    x = e.leaf(rg=e.rng.random() < 0.5)
    bad = e.rng.choice(BAD_OPERANDS)
    op = e.rng.choice(["add", "sub", "mul", "div", "pow", "maximum", "minimum", "floor_divide"])
    sym = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "floor_divide": "//"}.get(op)
    form = e.rng.choice(["operator", "roperator", "method", "function", "function_first"])
    if form == "operator" and sym:
        code = f"{x} {sym} {bad}"
    elif form == "roperator" and sym:
        code = f"{bad} {sym} {x}"
    elif form == "method":
        code = f"{x}.{op}({bad})"
    elif form == "function_first":
        code = f"torch.{op}({bad}, {x})"
    else:
        code = f"torch.{op}({x}, {bad})"
    e.let(code, op)


def t_number_where_tensor(e: _E) -> None:
    """Ops that take only tensors, given Python numbers."""
    x = e.leaf(rg=e.rng.random() < 0.5)
    c = lit(O.number(e.rng))
    code = e.rng.choice([
        f"torch.maximum({x}, {c})", f"torch.minimum({x}, {c})", f"{x}.maximum({c})", f"torch.exp({c})",
        f"torch.sum({c})", f"torch.mean({c})", f"torch.tanh({c})", f"torch.add({c}, {x})", f"torch.mul({c}, {c})",
        f"torch.clamp({x}, torch.tensor(0.), {c})", f"torch.sigmoid({c})", f"torch.relu({c})",
        f"torch.nn.functional.relu({c})", f"torch.abs({c})", f"torch.neg({c})",
    ])
    e.let(code, "number_where_tensor")


def t_factory(e: _E) -> None:
    rng = e.rng
    v = lit(O.number(rng))
    code = rng.choice([
        f"torch.tensor({v}, dtype='float32')", f"torch.tensor({v}, dtype=float)", f"torch.tensor({v}, dtype=int)",
        f"torch.tensor({v}, dtype=bool)", f"torch.tensor({v}, dtype=torch.int32)", f"torch.tensor({v}, dtype=None)",
        f"torch.tensor({v}, requires_grad='yes')", f"torch.tensor({v}, requires_grad=1)",
        f"torch.tensor({v}, requires_grad=None)", "torch.tensor('abc')", "torch.tensor([1, 'a'])",
        "torch.tensor(None)", f"torch.tensor({2**63})", f"torch.tensor({-(2**63) - 1})", f"torch.tensor({2**64})",
        "torch.tensor(float('nan'), dtype=torch.int64)", "torch.tensor(float('inf'), dtype=torch.int64)",
        f"torch.tensor({v}, dtype=torch.bool)", f"torch.tensor({v}, dtype=torch.int64)",
        "torch.tensor(1e39, dtype=torch.float32)", "torch.tensor(3.5e38)", "torch.tensor(-3.5e38)",
        f"torch.tensor({v}, device='cuda')", f"torch.tensor({v}, device='cpu')", f"torch.tensor({v}, foo=1)",
        f"torch.tensor({v}, torch.float32)", "torch.tensor()", f"torch.tensor([{v}], dtype='double')",
        f"torch.full((), {v}, dtype=torch.int64)", "torch.zeros((), dtype='float32')", "torch.ones(-1)",
        f"torch.tensor({v}).to('float64')", f"torch.tensor({v}).to(torch.int64)", f"torch.tensor({v}).type('x')",
    ])
    e.let(code, "factory")


def t_requires_grad_int(e: _E) -> None:
    rng = e.rng
    dt = rng.choice(["torch.int64", "torch.bool", None])
    v = lit(O.int_number(rng) if dt != "torch.bool" else rng.random() < 0.5)
    form = rng.randrange(5)
    dts = f", dtype={dt}" if dt else ""
    if form == 0:
        e.let(f"torch.tensor({v}{dts}, requires_grad=True)", "requires_grad_int")
    else:
        t = e.let(f"torch.tensor({v}{dts})", "tensor")
        code = [f"{t}.requires_grad_()", f"{t}.requires_grad_(True)", None, f"torch.full((), {v}{dts}, "
                "requires_grad=True)"][form - 1]
        if code is None:
            e.do(f"{t}.requires_grad = True", "requires_grad_int", tag=VALUE)
            e.let(t, "read")
        else:
            e.let(code, "requires_grad_int")


def t_backward_twice(e: _E) -> None:
    rng = e.rng
    x = e.leaf()
    op = rng.choice(["{x} * {x}", "{x} * 2", "{x} + {x}", "-{x}", "{x}.exp()", "{x}.sin()", "{x} / 3", "{x} ** 2",
                     "{x}.sum()", "{x}.tanh()", "{x}.relu()", "{x}.clone()", "3 - {x}", "{x}.abs()"])
    y = e.let(op.format(x=x), "op")
    how = rng.randrange(3)
    if how == 0:
        e.do(f"{y}.backward()", "backward")
        e.do(f"{y}.backward()", "backward")
    elif how == 1:
        e.let(f"torch.autograd.grad({y}, [{x}])", "autograd.grad", GRAD)
        e.let(f"torch.autograd.grad({y}, [{x}])", "autograd.grad", GRAD)
    else:
        e.do(f"{y}.backward(retain_graph=True)", "backward")
        e.do(f"{y}.backward()", "backward")
        e.do(f"{y}.backward()", "backward")
    e.let(f"{x}.grad", "read_grad", GRAD)


def t_backward_without_grad(e: _E) -> None:
    rng = e.rng
    x = e.tensor(rng.choice(ANY_DT))
    form = rng.randrange(4)
    if form == 0:
        e.do(f"{x}.backward()", "backward", VALUE)
    elif form == 1:
        y = e.leaf()
        d = e.let(f"{y}.detach() * 2", "mul")
        e.do(f"{d}.backward()", "backward", VALUE)
    elif form == 2:
        y = e.leaf()
        e.do(f"with torch.no_grad():\n    v_ng = {y} * 2", "no_grad")
        e.do("v_ng.backward()", "backward", VALUE)
    else:
        y = e.leaf()
        e.let(f"torch.autograd.grad({y} * 2, [{x}])", "autograd.grad", GRAD)


def t_version(e: _E) -> None:
    """A tensor a node saved, changed in place 1 to 3 times, then backward."""
    rng = e.rng
    x = e.leaf(dtype=rng.choice([None, "torch.float64"]))
    first = rng.choice(["{x} * 2", "{x}.exp()", "{x}.sigmoid()", "{x}.tanh()", "{x} + 1", "{x}.clone()",
                        "{x}.sqrt()", "{x}.relu()", "{x} / 3"])
    a = e.let(first.format(x=x), "op")
    second = rng.choice(["{a} * {a}", "{a}.exp()", "{a}.sin()", "{a} * {x}", "{a} ** 2", "{a}.log()",
                         "{a}.reciprocal()", "{a} / {x}", "{a}.cos()", "{a} + {x}"])
    target_is_result = rng.random() < 0.3
    y = e.let(second.format(a=a, x=x), "op")
    t = y if target_is_result else a
    for _ in range(rng.choice([1, 1, 2, 3])):
        how = rng.choice(["{t}.add_(1)", "{t}.detach().add_(1)", "{t}.data.add_(1)", "{t}.mul_(2)",
                          "{t} += 1", "{t}.zero_()", "{t}.fill_(2.0)", "{t}.copy_(torch.tensor(3.0))",
                          "with torch.no_grad():\n    {t}.mul_(0.5)", "{t}.detach().zero_()"])
        e.do(how.format(t=t), how.split(".")[-1].split("(")[0] if "." in how else "iadd", VALUE)
    if rng.random() < 0.5:
        e.let(f"{t}._version", "version")
    out = y if not target_is_result else e.let(f"{y} * 1", "mul")
    if rng.random() < 0.5:
        e.backward(out, x)
    else:
        e.let(f"torch.autograd.grad({out}, [{x}])", "autograd.grad", GRAD)


def t_leaf_inplace(e: _E) -> None:
    rng = e.rng
    x = e.leaf(dtype=rng.choice([None, "torch.float64"]))
    how = rng.choice(["{x}.add_(1)", "{x} += 1", "{x}.zero_()", "{x}.fill_(2)", "{x}.copy_(torch.tensor(1.5))",
                      "{x}.mul_(2)", "{x}.sub_(1)", "{x}.div_(2)", "{x}.data.add_(1)", "{x}.detach().add_(1)",
                      "with torch.no_grad():\n    {x}.add_(1)", "{x}.requires_grad_(False).add_(1)",
                      "{x}.clamp_(0, 1)", "{x}.detach_()", "{x}.neg_()", "{x}.exp_()"])
    code = how.format(x=x)
    if code.startswith("with") or "+=" in code:
        e.do(code, "leaf_inplace", VALUE)
        e.let(x, "read")
    else:
        e.let(code, "leaf_inplace")
    if rng.random() < 0.5:
        e.backward(f"({x} * 3)", x)


def t_hooks(e: _E) -> None:
    rng = e.rng
    form = rng.randrange(9)
    x = e.leaf(rg=form not in (0, 1))
    if form == 0:
        e.let(f"{x}.register_hook(lambda g: g)", "register_hook")
    elif form == 1:
        e.do(f"{x}.retain_grad()", "retain_grad", VALUE)
    elif form == 2:  # post-accumulate hook returning a value
        e.let(f"{x}.register_post_accumulate_grad_hook(lambda p: p * 2)", "register_hook")
        e.backward(f"({x} * 2)", x)
    elif form == 3:  # post-accumulate hook on a non-leaf
        y = e.let(f"{x} * 2", "mul")
        e.let(f"{y}.register_post_accumulate_grad_hook(lambda p: None)", "register_hook")
    elif form == 4:  # a hook changing dtype or shape
        y = e.let(f"{x} * 2", "mul")
        body = rng.choice(["g.double()", "g.reshape(1)", "g.expand(2)", "g.to(torch.int64)", "torch.tensor([1., 2.])",
                           "'a'", "1.0", "g.float()", "g.reshape(1, 1)"])
        on = rng.choice([x, y])
        e.do(f"{on}.register_hook(lambda g: {body})", "hook:" + body)
        e.backward(y, x)
    elif form == 5:
        value = rng.choice(["1.0", "'a'", "torch.tensor(1)", "torch.tensor(1., dtype=torch.float64)", "torch.zeros(2)",
                            "torch.tensor(True)"])
        e.do(f"{x}.grad = {value}", "set_grad", VALUE)
        e.let(f"{x}.grad", "read_grad", GRAD)
    elif form == 6:
        y = e.let(f"{x} * 2", "mul")
        e.do(f"{y}.requires_grad = {rng.choice(['False', 'True', '0', repr('no')])}", "set_requires_grad", VALUE)
        e.let(y, "read")
    elif form == 7:
        e.let(f"{x}.register_hook({rng.choice(['None', '1', repr('f')])})", "register_hook")
    else:
        y = e.let(f"{x}.exp()", "exp")
        e.do(f"{y}.grad_fn.register_hook(lambda gi, go: ({rng.choice(['None', 'gi[0] * 2', '1.0'])},))",
             "node_hook")
        e.backward(y, x)


def t_autograd_grad(e: _E) -> None:
    rng = e.rng
    x = e.leaf()
    z = e.leaf()
    y = e.let(f"{x} * {x}", "mul")
    code = rng.choice([
        f"torch.autograd.grad({y}, [{x}, {z}])", f"torch.autograd.grad({y}, {x})",
        f"torch.autograd.grad({y}, [])", f"torch.autograd.grad({y}, [torch.tensor(1.)])",
        f"torch.autograd.grad({y}, [{x}], grad_outputs=torch.tensor([1., 2.]))",
        f"torch.autograd.grad({y}, [{x}], grad_outputs=torch.tensor(1, dtype=torch.int64))",
        f"torch.autograd.grad({y}, [{x}], grad_outputs=torch.tensor(2., dtype=torch.float64))",
        f"torch.autograd.grad({y}, [{x}], grad_outputs='a')",
        f"torch.autograd.grad({y}.detach(), [{x}])", f"torch.autograd.grad([{y}, {y}], [{x}])",
        f"torch.autograd.grad({y}, [{x}], allow_unused=True, materialize_grads=True)",
        f"torch.autograd.grad({y}, [{x}, {z}], materialize_grads=True)",
        f"torch.autograd.grad({y}, ({x},), retain_graph=False, create_graph=True)",
        f"{y}.backward(torch.tensor([1., 2.]))", f"{y}.backward(torch.tensor(1, dtype=torch.int64))",
        f"{y}.backward('a')", f"{y}.backward(torch.tensor(2., dtype=torch.float64))", f"{y}.backward(2.0)",
        f"{y}.backward(inputs=[{z}])", f"{y}.backward(inputs=[])", f"{y}.backward(inputs={x})",
    ])
    e.let(code, "autograd.grad", GRAD)
    e.let(f"{x}.grad", "read_grad", GRAD)


def t_conversion(e: _E) -> None:
    rng = e.rng
    dt = rng.choice(ANY_DT)
    x = e.tensor(dt)
    code = rng.choice([
        f"int({x})", f"float({x})", f"bool({x})", f"len({x})", f"list({x})", f"{x}[0]", f"{x}[1]", f"{x}[None]",
        f"{x}[...]", f"{x}.item()", f"{x}.tolist()", f"round({x})", f"{x} @ {x}", f"{x}.view(2)", f"{x}.reshape(-1)",
        f"{x}.expand(2)", f"{x}.t()", f"{x}.sum(1)", f"{x}.sum(0)", f"{x}.unsqueeze(2)", f"{x}.squeeze(0)",
        f"type({x}).__name__", f"{x}.type()", f"str(type({x}))", f"{x}.dim()", f"{x}.size(0)", f"'%.2f' % {x}",
        f"f'{{{x}:.3f}}'", f"hash({x}) == hash({x})", f"{x} == {x}", f"{x} < 1", f"{x}.__index__()",
        f"[1, 2, 3][{x}]", f"divmod({x}, 2)", f"{x} % 2", f"~{x}", f"{x} & {x}", f"-{x}", f"+{x}", f"abs({x})",
        f"{x}.neg()", f"{x}.bool()", f"{x}.int()", f"{x}.long()", f"{x}.float()", f"{x}.double()",
        f"{x}.numpy()", f"{x}.is_leaf", f"{x}.grad_fn", f"{x}.requires_grad", f"{x}.shape", f"{x}.ndim",
    ])
    e.let(code, "conversion")


def t_integer_arith(e: _E) -> None:
    rng = e.rng
    a = rng.choice([O.int_number(rng), rng.random() < 0.5, O.float_number(rng)])
    b = rng.choice([0, -1, 2, 4, 70, -3, 0.0, -0.0, float("inf"), True, False, 2**62, O.int_number(rng)])
    dt = rng.choice(["", ", dtype=torch.int64", ", dtype=torch.bool", ", dtype=torch.float64"])
    t = e.let(f"torch.tensor({lit(a)}{dt})", "tensor")
    op = rng.choice(["+", "-", "*", "/", "//", "**", "%"])
    form = rng.randrange(3)
    if form == 0:
        code = f"{t} {op} {lit(b)}"
    elif form == 1:
        left = lit(b)
        code = f"{f'({left})' if left.startswith('-') else left} {op} {t}"
    else:
        other = e.let(f"torch.tensor({lit(b)})", "tensor")
        code = f"{t} {op} {other}"
    e.let(code, "int:" + op)


def t_bool_arith(e: _E) -> None:
    rng = e.rng
    t = e.let(f"torch.tensor({lit(rng.random() < 0.5)})", "tensor")
    f = e.let(f"torch.tensor({lit(O.float_number(rng))})", "tensor")
    code = rng.choice([f"-{t}", f"{t} - True", f"True - {t}", f"{f} - True", f"{t} - {t}", f"{t} - {f}",
                       f"{f} - {t}", f"torch.neg({t})", f"{t}.neg()", f"{t} + True", f"{t} * {t}", f"{t} / {t}",
                       f"{t}.sum()", f"{t}.abs()", f"{t}.relu()", f"{t}.exp()", f"{t} ** 2", f"{t}.sub(1)",
                       f"{f}.sub(True)", f"{t}.mean()"])
    e.let(code, "bool_arith")


def t_clamp(e: _E) -> None:
    rng = e.rng
    dt = rng.choice(["torch.int64", "torch.float32", "torch.float64", "torch.bool"])
    t = e.tensor(dt)
    bounds = [O.float_number(rng, 0.6), O.int_number(rng), None, float("nan"), float("inf"), float("-inf"), "'a'",
              "torch.tensor(0.5)"]
    lo, hi = rng.choice(bounds), rng.choice(bounds)

    def b(x):
        return x if isinstance(x, str) else lit(x)

    code = rng.choice([f"torch.clamp({t}, {b(lo)}, {b(hi)})", f"{t}.clamp(min={b(lo)})", f"{t}.clamp(max={b(hi)})",
                       f"{t}.clamp_min({b(lo)})", f"{t}.clamp_max({b(hi)})", f"torch.clamp({t})",
                       f"torch.clip({t}, {b(lo)}, {b(hi)})"])
    e.let(code, "clamp")


def t_function(e: _E) -> None:
    """A custom autograd.Function whose backward or forward breaks a rule."""
    rng = e.rng
    bad = rng.choice([
        ("return g, g", "wrong number of gradients"), ("return torch.ones(2)", "wrong shape"),
        ("return g.double()", "wrong dtype"), ("return 'a'", "not a tensor"), ("return None", "None"),
        ("return g.reshape(1)", "shape (1,)"), ("return g * 2", "fine"), ("return (g,)", "tuple"),
        ("return g.to(torch.int64)", "int gradient"), ("return 2.0", "number"),
    ])
    fwd = rng.choice(["ctx.save_for_backward(x)\n        return x * 2", "ctx.mark_dirty(x)\n        return x.mul_(2)",
                      "return x * 2", "ctx.save_for_backward(x, 3)\n        return x * 2",
                      "ctx.mark_non_differentiable(x)\n        return x", "return x", "return x.clone()",
                      "return (x * 2, x * 3)", "return 2.0"])
    shaped = rng.random() < 0.3  # an input of shape (2,): PyTorch sums a gradient that expands to it
    if shaped:
        bad = rng.choice([("return torch.ones(3)", "not expandable"), ("return torch.ones(2, 2)", "expandable"),
                          ("return torch.ones(1)", "smaller"), ("return g.sum()", "0-dim"), ("return g * 2", "fine"),
                          ("return torch.ones(2, 1)", "transposed")])
        fwd = rng.choice(["return x * 2", "ctx.save_for_backward(x)\n        return x * 2"])
    e.do("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        " + fwd +
         "\n    @staticmethod\n    def backward(ctx, g, *rest):\n        " + bad[0], "define_function")
    if shaped:
        x = e.let("torch.tensor([1.5, -2.0], requires_grad=True)", "tensor")
        y = e.let(f"F.apply({x})", "function.apply")
        e.backward(f"{y}.sum()", x)
        return
    x = e.leaf()
    inp = x if rng.random() < 0.5 else e.let(f"{x} * 1", "mul")
    y = e.let(f"F.apply({inp})", "function.apply")
    out = y if "(x * 2, x * 3)" not in fwd else e.let(f"{y}[0]", "index")
    e.backward(out, x)


def t_grad_mode(e: _E) -> None:
    rng = e.rng
    code = rng.choice([
        "torch.set_grad_enabled('yes')", "torch.set_grad_enabled(1)", "torch.set_default_dtype(torch.int64)",
        "torch.set_default_dtype('float32')", "torch.set_default_dtype(torch.float64)", "torch.is_grad_enabled()",
        "torch.no_grad()(lambda: 1)()", "torch.inference_mode(1)", "torch.enable_grad(False)",
    ])
    e.let(code, "grad_mode")
    if rng.random() < 0.5:
        x = e.leaf()
        e.let(f"{x} * 2", "mul")


def t_detach_views(e: _E) -> None:
    rng = e.rng
    x = e.leaf()
    y = e.let(f"{x} * 2", "mul")
    code = rng.choice([f"{y}.detach_()", f"{y}.requires_grad_(False)", f"{x}.detach_()", f"{y}.retain_grad()",
                       f"{y}.data", f"{y}.detach().requires_grad", f"{y}.grad", f"{x}.grad_fn", f"{y}.is_leaf",
                       f"{y}[...].add_(1)", f"{y}.view(1).add_(1)", f"{x}.view(1).add_(1)", f"{x}[...]",
                       f"{y}.data.requires_grad_()", f"{x}.view(()).mul_(2)", f"{y}.unsqueeze(0).mul_(2)"])
    e.let(code, "detach_view")
    if rng.random() < 0.6:
        e.backward(y, x)


def t_inplace_from_self(e: _E) -> None:
    """In place on a tensor with an operand computed from it (the graph must stay acyclic)."""
    rng = e.rng
    x = e.leaf(abs(O.ordinary(rng)) + 0.5)
    y = e.let(f"{x} * {rng.choice(['1', '2.0', '-1.5'])}", "mul")
    z = e.let(f"{y}.{rng.choice(['sqrt()', 'exp()', 'neg()', 'sin()', 'clone()'])}", "op")
    e.do(f"{y}.{rng.choice(['copy_', 'add_', 'mul_', 'sub_', 'div_'])}({z})", "inplace_from_self", VALUE)
    e.let(y, "read")
    out = rng.choice([y, z])
    e.backward(out, x)


TEMPLATES = {
    "wrong_operand": (t_wrong_operand, 12), "number_where_tensor": (t_number_where_tensor, 6),
    "factory": (t_factory, 10), "requires_grad_int": (t_requires_grad_int, 5),
    "backward_twice": (t_backward_twice, 6), "backward_without_grad": (t_backward_without_grad, 4),
    "version": (t_version, 12), "leaf_inplace": (t_leaf_inplace, 6),
    "hooks": (t_hooks, 8), "autograd_grad": (t_autograd_grad, 7), "conversion": (t_conversion, 8),
    "integer_arith": (t_integer_arith, 8), "bool_arith": (t_bool_arith, 4), "clamp": (t_clamp, 6),
    "function": (t_function, 6), "grad_mode": (t_grad_mode, 3), "detach_views": (t_detach_views, 5),
    "inplace_from_self": (t_inplace_from_self, 3),
}


def generate_error(seed: int, index: int) -> Program:
    """Error program ``index`` of campaign ``seed``."""
    rng = random.Random(f"errors:{seed}:{index}")
    names = list(TEMPLATES)
    name = rng.choices(names, [TEMPLATES[n][1] for n in names])[0]
    e = _E(rng)
    TEMPLATES[name][0](e)
    return Program("errors", seed, index, e.steps, note=name)

