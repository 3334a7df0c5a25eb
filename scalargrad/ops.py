"""The op catalogue: one class per op, holding its forward, its derivative and its SymPy form.

``forward(r, *args)`` computes in double and may use ``r`` (the result dtype's rounding) for
intermediate roundings that PyTorch's float32 kernel performs; the caller rounds the result.
``backward(k, g, v)`` returns one gradient per entry of ``v._in`` (None where there is none),
written against the kernel ``k`` (see ``autograd/kernels.py``): the same rule serves float
backward, float32 backward and ``create_graph``. ``k.zero(g)`` is PyTorch's masked zero
(``where``/``masked_fill``: +0.0 even for a negative, infinite or nan ``g``), unlike
``g * 0``, which PyTorch's formulas also use in places. ``sympy(sp, *args)`` is the op's symbolic
form, used by ``scalargrad.symbolic`` to prove the derivative the engine runs.

The formulas follow PyTorch's ``derivatives.yaml`` / ``FunctionsManual.cpp`` term for term,
in the same evaluation order, so float32 gradients round exactly as PyTorch's do. Tensor-
scalar ops keep the Python number in ``v._c`` (already rounded to the result dtype, as
PyTorch casts a wrapped number before computing) instead of making it a node.
"""

from __future__ import annotations

import math

from . import ieee


class Op:
    """Base of every op, built-in or user-defined (``autograd.Function`` goes through it too)."""

    name = "Op"  # the grad_fn class name PyTorch prints
    saves = True  # backward reads saved values: a second backward without retain_graph fails
    saves_inputs = True  # backward reads the inputs' data (in-place changes to them are errors)
    extra_none = 0  # PyTorch lists the Python-number operand as a (None, 0) next function
    saves_output = False  # backward reads the op's result: changing it in place is an error
    runs_user_code = False  # backward calls user code (a custom Function's backward)
    freed: type  # the variant installed once the saved values are released
    stale: type  # the variant installed once the saved result was changed in place

    @staticmethod
    def forward(r, *args):
        raise NotImplementedError

    @staticmethod
    def backward(k, g, v):
        raise NotImplementedError

    @staticmethod
    def sympy(sp, *args):
        raise NotImplementedError

    # Where PyTorch's derivative departs from calculus (SymPy gives nan, or no finite value),
    # ``convention(*args)`` (the inputs' floats, then the Python-number operand) returns
    # ``(note, partials)``: what PyTorch computes there, one float or None (= calculus) per
    # Value input, and why; None at ordinary points. Conventions a Piecewise can state
    # (relu, abs, clamp, minimum, maximum) live in ``sympy`` instead.
    convention = None

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.freed = _freed_variant(cls) if cls.saves else cls
        cls.stale = _stale_variant(cls) if cls.saves_output else cls


SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def _freed_variant(cls):
    def backward(k, g, v):
        raise RuntimeError(SECOND_BACKWARD)

    return type(cls.__name__ + "Freed", (cls,), {"backward": staticmethod(backward), "saves": False,
                                                 "__init_subclass__": classmethod(lambda c, **kw: None)})


def _stale_variant(cls):
    # PyTorch names the node without "Backward" in this message: "output 0 of Exp", "of Pow1"
    which = f", which is output 0 of {cls.name.replace('Backward0', '').replace('Backward', '')},"

    def backward(k, g, v):
        from .autograd.engine import _TENSOR_KIND, _VERSION_ERROR

        # the version is 1 after one in-place change; scalargrad does not count further ones
        raise RuntimeError(_VERSION_ERROR.format(kind=_TENSOR_KIND.get(v._t.dtype.name, "torch.Tensor"),
                                                 which=which, now=1, then=0))

    return type(cls.__name__ + "Stale", (cls,), {"backward": staticmethod(backward), "saves": False,
                                                 "saves_output": False,
                                                 "__init_subclass__": classmethod(lambda c, **kw: None)})


# ---------------------------------------------------------------- tensor (op) tensor


class Add(Op):
    name, saves, saves_inputs = "AddBackward0", False, False
    forward = staticmethod(lambda r, a, b: a + b)
    backward = staticmethod(lambda k, g, v: (g, g))
    sympy = staticmethod(lambda sp, a, b: a + b)


class Sub(Op):
    name, saves, saves_inputs = "SubBackward0", False, False
    forward = staticmethod(lambda r, a, b: a - b)
    backward = staticmethod(lambda k, g, v: (g, k.neg(g)))
    sympy = staticmethod(lambda sp, a, b: a - b)


class Mul(Op):
    name = "MulBackward0"
    forward = staticmethod(lambda r, a, b: a * b)

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        return k.mul(g, b), k.mul(g, a)

    sympy = staticmethod(lambda sp, a, b: a * b)


class Div(Op):
    name = "DivBackward0"
    forward = staticmethod(lambda r, a, b: ieee.div(a, b))

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        # div_tensor_other_backward: -grad * ((self / other) / other)
        return k.div(g, b), k.mul(k.neg(g), k.div(k.div(a, b), b))

    sympy = staticmethod(lambda sp, a, b: a / b)


class Pow(Op):
    """tensor ** tensor."""

    name, saves_output = "PowBackward1", True
    forward = staticmethod(lambda r, a, b: ieee.pow(a, b))

    @staticmethod
    def backward(k, g, v):
        a, b = k.ins(v)
        av, bv = k.val(a), k.val(b)
        # pow_backward_self: 0 where exponent == 0; pow_backward_exponent: 0 where base == 0
        # and exponent >= 0 (PyTorch's convention; plain calculus gives nan or -inf there).
        ga = k.const(0.0) if bv == 0 else k.mul(g, k.mul(b, k.pow(a, k.sub(b, k.const(1.0)))))
        gb = k.mul(g, k.const(0.0) if (av == 0 and bv >= 0) else k.mul(k.out(v), k.log(a)))
        return ga, gb

    sympy = staticmethod(lambda sp, a, b: a**b)

    @staticmethod
    def convention(a, b):
        # 0 * 0**-1 and 0**b * log(0) are nan in calculus; PyTorch masks them to 0, so x**x
        # has gradient 0 at x = 0 (calculus: x**x * (log(x) + 1) is -inf there)
        if a == 0 and b >= 0:
            return ("pow: PyTorch takes d(a**b)/db = 0 at a = 0, b >= 0, and d(a**b)/da = 0 at b = 0 "
                    "(calculus: 0*log(0) and 0*0**-1 are undefined)", (0.0 if b == 0 else None, 0.0))
        return None


class Minimum(Op):
    name = "MinimumBackward0"
    forward = staticmethod(lambda r, a, b: a if (a <= b or a != a) else b)

    @staticmethod
    def backward(k, g, v):
        a, b = (k.val(x) for x in k.ins(v))
        # a tie splits the gradient in halves (PyTorch: where(self == other, grad / 2, grad))
        if a == b:
            h = k.div(g, k.const(2.0))
            return h, h
        # masked_fill(self > other) / masked_fill(self < other): with a nan neither mask
        # applies and both operands get the whole gradient
        zero = k.zero(g)
        return (zero if a > b else g), (zero if a < b else g)

    @staticmethod
    def sympy(sp, a, b):
        # at a tie the value is (a + b) / 2, so each side's derivative is 1/2, as PyTorch splits it
        return sp.Piecewise((a, sp.StrictLessThan(a, b)), (b, sp.StrictGreaterThan(a, b)), ((a + b) / 2, True))


class Maximum(Op):
    name = "MaximumBackward0"
    forward = staticmethod(lambda r, a, b: a if (a >= b or a != a) else b)

    @staticmethod
    def backward(k, g, v):
        a, b = (k.val(x) for x in k.ins(v))
        if a == b:
            h = k.div(g, k.const(2.0))
            return h, h
        zero = k.zero(g)
        return (zero if a < b else g), (zero if a > b else g)

    @staticmethod
    def sympy(sp, a, b):
        # a tie splits the derivative 1/2-1/2, as in Minimum
        return sp.Piecewise((a, sp.StrictGreaterThan(a, b)), (b, sp.StrictLessThan(a, b)), ((a + b) / 2, True))


# ---------------------------------------------------------------- tensor (op) Python number


class AddC(Op):
    name, saves, saves_inputs = "AddBackward0", False, False
    extra_none = 1
    forward = staticmethod(lambda r, a, c: a + c)
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a, c: a + c)


class SubC(Op):
    name, saves, saves_inputs = "SubBackward0", False, False
    extra_none = 1
    forward = staticmethod(lambda r, a, c: a - c)
    backward = staticmethod(lambda k, g, v: (g,))
    sympy = staticmethod(lambda sp, a, c: a - c)


class RSubC(Op):
    """number - tensor."""

    name, saves, saves_inputs = "RsubBackward1", False, False
    forward = staticmethod(lambda r, a, c: c - a)
    backward = staticmethod(lambda k, g, v: (k.neg(g),))
    sympy = staticmethod(lambda sp, a, c: c - a)


class MulC(Op):
    name, saves_inputs = "MulBackward0", False
    extra_none = 1
    forward = staticmethod(lambda r, a, c: a * c)
    backward = staticmethod(lambda k, g, v: (k.mul(g, v._c),))
    sympy = staticmethod(lambda sp, a, c: a * c)


class DivC(Op):
    name, saves_inputs = "DivBackward0", False
    extra_none = 1
    forward = staticmethod(lambda r, a, c: ieee.div(a, c))
    backward = staticmethod(lambda k, g, v: (k.div(g, v._c),))
    sympy = staticmethod(lambda sp, a, c: a / c)


def _pow_scalar(r, x, e):
    # PyTorch's pow_tensor_scalar kernel special-cases these exponents; each step rounds.
    if e == 2.0:
        return x * x
    if e == 3.0:
        return r(x * x) * x
    if e == 0.5:
        return ieee.sqrt(x)
    if e == -0.5:
        return ieee.div(1.0, r(ieee.sqrt(x)))
    if e == -1.0:
        return ieee.div(1.0, x)
    if e == -2.0:
        return ieee.div(1.0, r(x * x))
    return ieee.pow(x, e)


class PowC(Op):
    """tensor ** number; ``v._c`` is the exponent unrounded (PyTorch's pow kernel takes it as
    a double, also in float32)."""

    name = "PowBackward0"
    forward = staticmethod(_pow_scalar)

    @staticmethod
    def backward(k, g, v):
        e = v._c
        if e == 0.0:  # pow_backward: zeros when the exponent is 0
            return (k.zero(g),)
        (a,) = k.ins(v)
        if k.graph:
            return (g * (e * a ** (e - 1.0)),)
        r = k.const
        return (k.mul(g, k.mul(r(e), r(_pow_scalar(r, a, e - 1.0)))),)

    sympy = staticmethod(lambda sp, a, c: a**c)

    @staticmethod
    def convention(a, c):
        # pow_backward returns zeros for exponent 0, also at a = 0 where c * a**(c-1) is 0 * inf
        if c == 0 and a == 0:
            return ("pow: PyTorch takes d(a**0)/da = 0 at a = 0 (calculus formula: 0*0**-1, undefined)", (0.0,))
        return None


class RPowC(Op):
    """number ** tensor."""

    name, saves_inputs, saves_output = "PowBackward2", False, True
    # ``c`` is the Python number as given: the forward casts it to the tensor's dtype, the
    # backward takes the log of the double (pow_backward_exponent with a Scalar base)
    forward = staticmethod(lambda r, a, c: ieee.pow(r(c), a))

    @staticmethod
    def backward(k, g, v):
        c = v._c
        (a,) = k.ins(v)
        if c == 0.0 and k.val(a) >= 0:  # PyTorch: zero where base == 0 and exponent >= 0
            return (k.mul(g, k.const(0.0)),)
        return (k.mul(g, k.mul(k.out(v), k.const(ieee.log(c)))),)

    sympy = staticmethod(lambda sp, a, c: c**a)

    @staticmethod
    def convention(a, c):
        if c == 0 and a >= 0:
            return ("pow: PyTorch takes d(0**x)/dx = 0 at x >= 0 (calculus: 0**x*log(0), undefined)", (0.0,))
        return None


class Reciprocal(Op):
    """1 / tensor; ``number / tensor`` is ``reciprocal(tensor) * number`` as in PyTorch."""

    name, saves_inputs, saves_output = "ReciprocalBackward0", False, True
    forward = staticmethod(lambda r, a: ieee.div(1.0, a))

    @staticmethod
    def backward(k, g, v):
        y = k.out(v)
        return (k.mul(k.neg(g), k.mul(y, y)),)

    sympy = staticmethod(lambda sp, a: 1 / a)


class Clamp(Op):
    """clamp(x, min, max) with number bounds; ``v._c`` is the pair (min, max), None = open.

    Gradient 1 inside [min, max] bounds included, 0 outside (PyTorch's clamp_backward).
    """

    name = "ClampBackward1"

    @staticmethod
    def forward(r, a, c):
        lo, hi = c
        if a != a:
            return a
        if lo is not None and (a < lo or lo != lo):  # a nan bound gives nan, as in PyTorch
            a = lo
        if hi is not None and (a > hi or hi != hi):
            a = hi
        return a

    @staticmethod
    def backward(k, g, v):
        lo, hi = v._c
        (a,) = k.ins(v)
        x = k.val(a)
        inside = (lo is None or x >= lo) and (hi is None or x <= hi)
        return (g if inside else k.zero(g),)

    @staticmethod
    def sympy(sp, a, c):
        lo, hi = c
        pieces = []
        if lo is not None:
            pieces.append((sp.Float(lo) if isinstance(lo, float) else lo, sp.StrictLessThan(a, lo)))
        if hi is not None:
            pieces.append((sp.Float(hi) if isinstance(hi, float) else hi, sp.StrictGreaterThan(a, hi)))
        # the bounds fall in the last piece: derivative 1 at min and max, as in PyTorch
        return sp.Piecewise(*pieces, (a, True))


# ---------------------------------------------------------------- unary


class Neg(Op):
    name, saves, saves_inputs = "NegBackward0", False, False
    forward = staticmethod(lambda r, a: -a)
    backward = staticmethod(lambda k, g, v: (k.neg(g),))
    sympy = staticmethod(lambda sp, a: -a)


class Log(Op):
    name = "LogBackward0"
    forward = staticmethod(lambda r, a: ieee.log(a))
    backward = staticmethod(lambda k, g, v: (k.div(g, k.ins(v)[0]),))
    sympy = staticmethod(lambda sp, a: sp.log(a))


class Exp(Op):
    name, saves_inputs, saves_output = "ExpBackward0", False, True
    forward = staticmethod(lambda r, a: ieee.exp(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.out(v)),))
    sympy = staticmethod(lambda sp, a: sp.exp(a))


class Sqrt(Op):
    name, saves_inputs, saves_output = "SqrtBackward0", False, True
    forward = staticmethod(lambda r, a: ieee.sqrt(a))
    backward = staticmethod(lambda k, g, v: (k.div(g, k.mul(k.const(2.0), k.out(v))),))
    sympy = staticmethod(lambda sp, a: sp.sqrt(a))

    @staticmethod
    def convention(a):
        if a == 0:  # g / (2 * sqrt(0)): sqrt(-0.0) is -0.0, so at -0.0 it is -inf
            inf = math.copysign(math.inf, a)
            where = "0 is inf" if inf > 0 else "-0.0 is -inf"
            return (f"sqrt: PyTorch's derivative at {where} (calculus: no derivative; one-sided limit +inf)",
                    (inf,))
        return None


class Tanh(Op):
    name, saves_inputs, saves_output = "TanhBackward0", False, True
    forward = staticmethod(lambda r, a: ieee.tanh(a))

    @staticmethod
    def backward(k, g, v):
        y = k.out(v)  # tanh_backward: grad * (1 - y * y)
        if k.graph:
            return (k.mul(g, k.sub(k.const(1.0), k.mul(y, y))),)
        # PyTorch's CPU kernel fuses 1 - y*y into one rounding
        return (k.mul(g, k.const(ieee.one_minus_square(y))),)

    sympy = staticmethod(lambda sp, a: sp.tanh(a))


class Sigmoid(Op):
    name, saves_inputs, saves_output = "SigmoidBackward0", False, True
    # PyTorch's kernel: 1 / (1 + exp(-x)) in the tensor's dtype, each step rounded (so a
    # float32 exp(-x) that overflows gives exactly 0, not a subnormal)
    forward = staticmethod(lambda r, a: 1.0 / r(1.0 + r(ieee.exp(-a))))

    @staticmethod
    def backward(k, g, v):
        y = k.out(v)  # sigmoid_backward: grad * (1 - y) * y
        return (k.mul(k.mul(g, k.sub(k.const(1.0), y)), y),)

    sympy = staticmethod(lambda sp, a: 1 / (1 + sp.exp(-a)))


class Relu(Op):
    """max(x, 0); derivative 0 at 0 (PyTorch's threshold_backward on the result)."""

    name, saves_inputs, saves_output = "ReluBackward0", False, True
    # clamp_min(x, 0): -0.0 and nan pass through unchanged
    forward = staticmethod(lambda r, a: 0.0 if a < 0 else a)

    @staticmethod
    def backward(k, g, v):
        # threshold_backward zeroes where result <= 0, so a nan result passes the gradient
        return (k.zero(g) if k.val(k.out(v)) <= 0 else g,)

    # 0 up to and including 0: the derivative at 0 is 0, as PyTorch's (SymPy's Heaviside(0) is 1/2)
    sympy = staticmethod(lambda sp, a: sp.Piecewise((0, a <= 0), (a, True)))


class Abs(Op):
    """|x|; derivative sgn(x), so 0 at 0 as in PyTorch."""

    name = "AbsBackward0"
    forward = staticmethod(lambda r, a: abs(a))

    @staticmethod
    def backward(k, g, v):
        x = k.val(k.ins(v)[0])
        s = 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)  # sgn(nan) is 0 in PyTorch
        return (k.mul(g, k.const(s)),)

    # d|a|/da = sign(a), and SymPy's sign(0) is 0: PyTorch's convention at 0
    sympy = staticmethod(lambda sp, a: sp.Abs(a))


class Sin(Op):
    name = "SinBackward0"
    forward = staticmethod(lambda r, a: ieee.sin(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.cos(k.ins(v)[0])),))
    sympy = staticmethod(lambda sp, a: sp.sin(a))


class Cos(Op):
    name = "CosBackward0"
    forward = staticmethod(lambda r, a: ieee.cos(a))
    backward = staticmethod(lambda k, g, v: (k.mul(g, k.neg(k.sin(k.ins(v)[0]))),))
    sympy = staticmethod(lambda sp, a: sp.cos(a))


# ---------------------------------------------------------------- identities of one element
# On a one-element tensor, sum, mean, clone and every shape change are the identity; they
# differ only in the grad_fn name PyTorch prints (and the result shape, set by the caller).


def _identity(name):
    return type(name.replace("Backward", "").rstrip("0123456789"), (Op,), {
        "name": name, "saves": False, "saves_inputs": False,
        "forward": staticmethod(lambda r, a: a),
        "backward": staticmethod(lambda k, g, v: (g,)),
        "sympy": staticmethod(lambda sp, a: a),
    })


Sum = _identity("SumBackward0")
Mean = _identity("MeanBackward0")
Clone = _identity("CloneBackward0")
View = _identity("ViewBackward0")
Reshape = _identity("ReshapeAliasBackward0")
Expand = _identity("ExpandBackward0")
Squeeze = _identity("SqueezeBackward0")
SqueezeDim = _identity("SqueezeBackward1")
Unsqueeze = _identity("UnsqueezeBackward0")
Select = _identity("SelectBackward0")
Unbind = _identity("UnbindBackward0")
ToCopy = _identity("ToCopyBackward0")
Alias = _identity("AliasBackward0")
Copy = _identity("CopyBackwards")  # AccumulateGrad copies a first grad kept with create_graph
# the views of multi-element tensors (``shaped.py``): each element of a view is one such node
Slice = _identity("SliceBackward0")
T = _identity("TBackward0")
Permute = _identity("PermuteBackward0")
Transpose = _identity("TransposeBackward0")
UnsafeView = _identity("UnsafeViewBackward0")
SqueezeDims = _identity("SqueezeBackward2")
Cat = _identity("CatBackward0")
# the root of a broadcast operand's gradient fan-out (shaped.py): PyTorch's sum_to starts its
# sum at +0.0, so a total of -0.0 comes out +0.0; otherwise the identity
SumTo = type("SumTo", (Op,), {
    "name": "ExpandBackward0", "saves": False, "saves_inputs": False,
    "forward": staticmethod(lambda r, a: a),
    "backward": staticmethod(lambda k, g, v: (g if k.graph else g + 0.0,)),
    "sympy": staticmethod(lambda sp, a: a),
})
Stack = _identity("StackBackward0")


# ---------------------------------------------------------------- n-ary: reductions and products
# One element of a sum, mean or matrix product of a multi-element tensor is ONE node with all
# the elements it combines as inputs. Its value is computed by the caller in the order of
# PyTorch's CPU kernels (``kernel_order.py``); ``forward`` here is the plain left-to-right
# reference, for readers and tools. ``_c`` stays None: the count is the number of inputs.


class SumN(Op):
    """sum() of all elements (SumBackward0): the gradient goes to every input unchanged."""

    name, saves, saves_inputs = "SumBackward0", False, False

    @staticmethod
    def forward(r, *args):
        acc = r(0.0)
        for a in args:
            acc = r(acc + a)
        return acc

    @staticmethod
    def backward(k, g, v):
        return (g,) * len(v._in)

    @staticmethod
    def sympy(sp, *args):
        return sp.Add(*args)


class SumDimN(SumN):
    """sum(dim): one output element (SumBackward1)."""

    name = "SumBackward1"


class MeanN(Op):
    """mean() of all elements (MeanBackward0): sum, then one division by the count; each input
    gets grad / count, rounded once (PyTorch's mean_backward)."""

    name, saves, saves_inputs = "MeanBackward0", False, False

    @staticmethod
    def forward(r, *args):
        return r(SumN.forward(r, *args) / len(args))

    @staticmethod
    def backward(k, g, v):
        return (k.div(g, k.const(float(len(v._in)))),) * len(v._in)

    @staticmethod
    def sympy(sp, *args):
        return sp.Add(*args) / len(args)


class MeanDimN(MeanN):
    """mean(dim): one output element (MeanBackward1)."""

    name = "MeanBackward1"


class Dot(Op):
    """sum(a[i] * b[i]): one element of a matrix product; inputs are a's k elements, then b's.
    Each input's gradient is g times its partner (rounded once), as in PyTorch's dot/mm
    backward for an element that feeds a single output."""

    name = "DotBackward0"

    @staticmethod
    def forward(r, *args):
        k = len(args) // 2
        acc = r(0.0)
        for x, y in zip(args[:k], args[k:]):
            acc = r(acc + r(x * y))
        return acc

    @staticmethod
    def backward(k, g, v):
        ins = k.ins(v)
        n = len(ins) // 2
        return tuple(k.mul(g, y) for y in ins[n:]) + tuple(k.mul(g, x) for x in ins[:n])

    @staticmethod
    def sympy(sp, *args):
        k = len(args) // 2
        return sp.Add(*[x * y for x, y in zip(args[:k], args[k:])])


class Mm(Dot):
    name = "MmBackward0"


class Mv(Dot):
    name = "MvBackward0"


class Addmm(Op):
    """sum(a[i] * b[i]) + c: one element of ``addmm(c, a, b)`` (``nn.Linear`` with a bias);
    inputs are a's k elements, b's k elements, then c."""

    name = "AddmmBackward0"

    @staticmethod
    def forward(r, *args):
        return r(Dot.forward(r, *args[:-1]) + args[-1])

    @staticmethod
    def backward(k, g, v):
        ins = k.ins(v)
        n = (len(ins) - 1) // 2
        return tuple(k.mul(g, y) for y in ins[n:2 * n]) + tuple(k.mul(g, x) for x in ins[:n]) + (g,)

    @staticmethod
    def sympy(sp, *args):
        return Dot.sympy(sp, *args[:-1]) + args[-1]


class VecMat(Dot):
    """1-D @ 2-D: PyTorch unsqueezes, multiplies and squeezes, so the result's node is a squeeze."""

    name = "SqueezeBackward4"

CATALOGUE = [Add, Sub, Mul, Div, Pow, Minimum, Maximum, AddC, SubC, RSubC, MulC, DivC, PowC, RPowC,
             Reciprocal, Clamp, Neg, Log, Exp, Sqrt, Tanh, Sigmoid, Relu, Abs, Sin, Cos]
"""Every differentiable op with a non-trivial derivative, for the catalogue tests."""
