"""The arithmetic a backward formula runs on: floats, float32 floats, or graph Values.

Every op's derivative is written once, against a kernel ``k``: ``k.mul(g, b)``. Plain
backward runs it on floats (rounded to float32 in float32 mode, so gradients are bit-exact
with PyTorch's); ``create_graph=True`` runs the same code on Values, which records the
backward computation as a graph of its own for higher-order derivatives.
"""

from __future__ import annotations

import operator

from .. import ieee
from ..dtypes import float32, float64, round_f32
from ..value import MANY


class FloatKernel:
    """float64: Python's own arithmetic, IEEE-safe."""

    graph = False
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

    @staticmethod
    def zero(g):
        """A masked-out gradient (PyTorch's where/masked_fill): +0.0 whatever ``g`` is."""
        return 0.0

    @staticmethod
    def val(x):
        return x

    @staticmethod
    def ins(v):
        b = v._b
        if b is None:
            return [v._a._val]
        return [v._a._val, b._val] if b is not MANY else [u._val for u in v._a]

    @staticmethod
    def out(v):
        return v._val


_LO, _HI = 1.1754943508222875e-38, 3.4028234663852886e38  # float32's normal range


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
        if _LO <= s <= _HI or -_HI <= s <= -_LO or r == 0.0:
            return s
        return round_f32(r)

    @staticmethod
    def sub(a, b):
        r = a - b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO or r == 0.0:
            return s
        return round_f32(r)

    @staticmethod
    def mul(a, b):
        r = a * b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO or r == 0.0:
            return s
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


class GraphKernel:
    """create_graph=True: the same formulas on Values, recorded for double backward."""

    graph = True

    @staticmethod
    def val(x):
        return x._val if hasattr(x, "_val") else x

    @staticmethod
    def ins(v):
        return list(v._in)

    @staticmethod
    def out(v):
        return v

    add = staticmethod(operator.add)
    sub = staticmethod(operator.sub)
    mul = staticmethod(operator.mul)
    div = staticmethod(operator.truediv)
    neg = staticmethod(operator.neg)

    @staticmethod
    def const(c):
        return c

    @staticmethod
    def zero(g):
        # stays connected to ``g`` for higher derivatives
        return g * 0.0 if hasattr(g, "_val") else 0.0

    @staticmethod
    def log(x):
        return x.log() if hasattr(x, "_val") else ieee.log(x)

    @staticmethod
    def exp(x):
        return x.exp() if hasattr(x, "_val") else ieee.exp(x)

    @staticmethod
    def sqrt(x):
        return x.sqrt() if hasattr(x, "_val") else ieee.sqrt(x)

    @staticmethod
    def sin(x):
        return x.sin() if hasattr(x, "_val") else ieee.sin(x)

    @staticmethod
    def cos(x):
        return x.cos() if hasattr(x, "_val") else ieee.cos(x)

    @staticmethod
    def pow(a, b):
        return a**b


float32.kernel = Float32Kernel
float64.kernel = FloatKernel
