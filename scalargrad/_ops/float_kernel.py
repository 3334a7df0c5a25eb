"""The arithmetic a backward formula runs on in a 0-dim graph: Python floats.

Every op's derivative is written once, against a kernel ``k``: ``k.mul(g, b)``. A 0-dim graph
runs it on floats: ``FloatKernel`` (float64: Python's own arithmetic, IEEE-safe), or
``Float32Kernel``, which rounds each result to float32 as PyTorch's CPU kernels compute, so
gradients are bit-exact with PyTorch's. A node whose result or inputs have dimensions runs the
same formula on tensors (``_tensor/tensor_kernel.py``).

Beyond arithmetic, a formula calls PyTorch's own backward functions (``pow_backward``,
``norm_backward``...). Each is defined by the family whose ops call it, on floats in its module
here and on tensors in its module of the tensor layer, and registered on the kernel with
``helper``; ``tests/test_kernel_twins.py`` runs every such pair on the same random values and
compares them element by element.
"""

from __future__ import annotations

import operator
from operator import attrgetter

from .._base import ieee
from .._base.dtypes import FLOAT32_MAX, FLOAT32_MIN_NORMAL, round_f32

__all__ = ["FloatKernel", "Float32Kernel", "EfficientZero", "EFFICIENT_ZERO", "helper", "elementwise_helper"]


class EfficientZero(float):
    """PyTorch's ``_efficientzerotensor``, the derivative of sgn: a zero that arithmetic passes
    through as ATen's ZeroTensor kernels do: multiplied or divided it stays itself, negated it is
    a materialised zero negated (-0.0). On the float path a sum with it is a gradient
    accumulation (``buffered + arriving``: the engine's input buffer), which PyTorch does in
    place when the buffered gradient is an ordinary tensor (``old.add_(var)``; add_ has no
    ZeroTensor kernel, so the zero is materialised and ``-0.0 + Z`` is ``+0.0``), and out of
    place when the buffered one is the ZeroTensor (``Z + var`` is ``var``, sign kept). Python
    gives a float subclass's reflected operator the first turn, so ``x * Z`` reaches
    ``__rmul__`` and ``x + Z`` ``__radd__``."""

    __slots__ = ()

    def __add__(self, other):
        return other  # the ZeroTensor buffered first: ATen's add of a ZeroTensor returns the other

    def __radd__(self, other):
        return self if other.__class__ is EfficientZero else other + 0.0  # in place: materialised

    def __sub__(self, other):
        return self if other.__class__ is EfficientZero else -other  # ATen: Z - x is x * -1

    def __rsub__(self, other):
        return other

    def __mul__(self, other):
        return self

    __rmul__ = __truediv__ = __mul__

    def __neg__(self):
        return -0.0  # neg has no ZeroTensor kernel: ATen's fallback materialises +0.0, then negates


EFFICIENT_ZERO = EfficientZero(0.0)


class FloatKernel:
    """float64: Python's own arithmetic, IEEE-safe."""

    graph = False
    bulk = False
    tensors: type  # the tensor kernel, for the bulk variant of an op with a 0-dim result
    add = staticmethod(operator.add)
    sub = staticmethod(operator.sub)
    mul = staticmethod(operator.mul)
    div = staticmethod(ieee.div)
    neg = staticmethod(operator.neg)
    log = staticmethod(ieee.log)
    exp = staticmethod(ieee.exp)
    sqrt = staticmethod(ieee.sqrt)
    sin = staticmethod(ieee.sin)
    cos = staticmethod(ieee.cos)
    pow = staticmethod(ieee.pow)
    const = staticmethod(float)
    r = staticmethod(float)
    ge = staticmethod(operator.ge)
    gt = staticmethod(operator.gt)
    le = staticmethod(operator.le)
    lt = staticmethod(operator.lt)

    @staticmethod
    def zero(g):
        """A masked-out gradient (PyTorch's where/masked_fill): +0.0 whatever ``g`` is."""
        return 0.0

    @staticmethod
    def zeros_like(g):
        """``zeros_like(grad)`` (sign's derivative): an ordinary +0.0."""
        return 0.0

    @staticmethod
    def no_gradient(g):
        """PyTorch's ``_efficientzerotensor`` (sgn's derivative): see ``EfficientZero``."""
        return EFFICIENT_ZERO

    @classmethod
    def pointwise(cls, op, *args, c=None):
        """The elementwise op ``op`` (a backward kernel such as leaky_relu_backward) on numbers."""
        r = cls.r
        return r(op.forward(r, *args, c) if op.uses_c else op.forward(r, *args))

    @staticmethod
    def ins(v):
        """The values of node ``v``'s inputs."""
        b = v._b
        if b is None:
            return [v._a._val]
        a = v._a
        return [u._val for u in a] if a.__class__ is tuple else [a._val, b._val]

    # the saved values of a node, read in C: its first and second inputs', its own, its constant
    # tensor's (where's condition)
    a = staticmethod(attrgetter("_a._val"))
    b = staticmethod(attrgetter("_b._val"))
    out = staticmethod(attrgetter("_val"))
    # where's condition: a 0-dim node's is a tensor; an element of the symbolic check's element
    # graph carries the condition's element itself
    c = staticmethod(lambda v: getattr(v._c, "_val", v._c))

    @staticmethod
    def where(c, a, b):
        return a if c else b

    @classmethod
    def rdiv(cls, c, x):
        """A Python number divided by ``x``, rounded once (ATen's ``Scalar / Tensor``)."""
        return cls.div(cls.const(c), x)

    @staticmethod
    def held(t):
        """A tensor an op keeps in its ``_c`` (a loss's weight), as an operand: its number."""
        return t._val

    @classmethod
    def one(cls, like):
        return cls.r(1.0)


class Float32Kernel(FloatKernel):
    """float32: each result rounded to float32, as PyTorch's CPU kernels compute.

    ``add sub mul`` inline ``round_f32`` (Veltkamp splitting, see dtypes.py): they are most of
    any backward pass, and a call saved per op is a tenth of a node's cost.
    """

    @staticmethod
    def add(a, b):
        r = a + b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO:
            return s
        if r == 0.0 or r - r != 0.0:  # a zero (EfficientZero too: kept), inf or nan: already a float32
            return r
        return round_f32(r)

    @staticmethod
    def sub(a, b):
        r = a - b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO:
            return s
        if r == 0.0 or r - r != 0.0:  # a zero (EfficientZero too: kept), inf or nan: already a float32
            return r
        return round_f32(r)

    @staticmethod
    def mul(a, b):
        r = a * b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO:
            return s
        if r == 0.0 or r - r != 0.0:  # a zero (EfficientZero too: kept), inf or nan: already a float32
            return r
        return round_f32(r)

    @staticmethod
    def div(a, b):
        return round_f32(ieee.div(a, b))

    @staticmethod
    def log(x):
        return round_f32(ieee.log(x))

    @staticmethod
    def exp(x):
        return round_f32(ieee.exp(x))

    @staticmethod
    def sqrt(x):
        return round_f32(ieee.sqrt(x))

    @staticmethod
    def sin(x):
        return round_f32(ieee.sin(x))

    @staticmethod
    def cos(x):
        return round_f32(ieee.cos(x))

    @staticmethod
    def pow(a, b):
        return round_f32(ieee.pow(a, b))

    const = staticmethod(round_f32)
    r = staticmethod(round_f32)


_LO, _HI = FLOAT32_MIN_NORMAL, FLOAT32_MAX  # float32's normal range


def helper(fn):
    """Register ``fn`` as the float kernels' ``k.<fn.__name__>``: a classmethod when its first
    parameter is ``k`` (it computes with the kernel's arithmetic, so float32 rounds), else a
    plain function."""
    takes_kernel = fn.__code__.co_argcount and fn.__code__.co_varnames[0] == "k"
    setattr(FloatKernel, fn.__name__, classmethod(fn) if takes_kernel else staticmethod(fn))
    return fn


def elementwise_helper(name: str, op) -> None:
    """``k.<name>(*args)``: the elementwise op ``op`` of the table (a backward op such as
    tanh_backward) on numbers, its forward rounded by each float kernel: the one formula both
    kernels and the tensor kernel's ``pointwise`` run."""
    forward = op.forward

    def f64(*args):
        return float(forward(float, *args))

    def f32(*args):
        return round_f32(forward(round_f32, *args))

    setattr(FloatKernel, name, staticmethod(f64))
    setattr(Float32Kernel, name, staticmethod(f32))
