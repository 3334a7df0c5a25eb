"""A third library for the property tests: a program's forward values in mpmath.

``MPTorch`` binds to ``torch`` the part of the API a smooth graph program uses (factories,
arithmetic, the unary ops, clamp, minimum/maximum, sum/mean) on ``MPTensor``, a number held
as an mpmath float at high precision. The same program text then computes its output as a
real function of its leaves, and central differences with a tiny step give the derivatives
autograd is compared with. Points where the function is not smooth (near a kink of abs,
relu, clamp, minimum, maximum; outside the domain of log, sqrt, pow; near a pole) raise
``Reject``: the example is discarded.
"""

from __future__ import annotations

import mpmath

__all__ = ["MPTorch", "MPTensor", "Reject", "derivatives"]

PREC = 200  # bits
KINK = 1e-5  # discard points this close to a non-smooth point
BIG = 1e6


class Reject(Exception):
    """The point is not one where the program is a smooth real function."""


def _v(x):
    return x.v if isinstance(x, MPTensor) else mpmath.mpf(x)


def _away(x, kink=0) -> None:
    if abs(x - kink) < KINK:
        raise Reject


def _periodic(x):
    # a large argument of sin/cos turns a float32 rounding of it into an error of the result
    # (4.89 ** 4.89 is 2350, where float32's spacing is 2.4e-4): no longer a test of autograd
    if abs(x) > 50:
        raise Reject
    return x


def _check(x):
    if not mpmath.isfinite(x) or abs(x) > BIG:
        raise Reject
    return MPTensor(x)


class MPTensor:
    """One real number; the methods a smooth graph program calls."""

    __slots__ = ("v",)

    def __init__(self, v) -> None:
        self.v = v

    def __add__(self, o):
        return _check(self.v + _v(o))

    __radd__ = __add__

    def __sub__(self, o):
        return _check(self.v - _v(o))

    def __rsub__(self, o):
        return _check(_v(o) - self.v)

    def __mul__(self, o):
        return _check(self.v * _v(o))

    __rmul__ = __mul__

    def __truediv__(self, o):
        d = _v(o)
        _away(d)
        return _check(self.v / d)

    def __rtruediv__(self, o):
        _away(self.v)
        return _check(_v(o) / self.v)

    def __pow__(self, o):
        return _pow(self.v, _v(o), isinstance(o, MPTensor))

    def __rpow__(self, o):
        return _pow(_v(o), self.v, True)

    def __neg__(self):
        return MPTensor(-self.v)

    def __abs__(self):
        _away(self.v)
        return MPTensor(abs(self.v))

    add, sub, mul, div, pow = __add__, __sub__, __mul__, __truediv__, __pow__
    neg = __neg__
    abs = __abs__

    def exp(self):
        return _check(mpmath.exp(self.v))

    def log(self):
        if self.v < KINK:
            raise Reject
        return _check(mpmath.log(self.v))

    def sqrt(self):
        if self.v < KINK:
            raise Reject
        return _check(mpmath.sqrt(self.v))

    def sin(self):
        return _check(mpmath.sin(_periodic(self.v)))

    def cos(self):
        return _check(mpmath.cos(_periodic(self.v)))

    def tanh(self):
        return _check(mpmath.tanh(self.v))

    def sigmoid(self):
        return _check(1 / (1 + mpmath.exp(-self.v)))

    def relu(self):
        _away(self.v)
        return MPTensor(max(self.v, 0))

    def reciprocal(self):
        _away(self.v)
        return _check(1 / self.v)

    def square(self):
        return _check(self.v * self.v)

    def clamp(self, min=None, max=None):  # PyTorch's names
        v = self.v
        if min is not None:
            _away(v, _v(min))
            v = v if v > _v(min) else _v(min)
        if max is not None:
            _away(v, _v(max))
            v = v if v < _v(max) else _v(max)
        return MPTensor(v)

    def clamp_min(self, min):
        return self.clamp(min=min)

    def clamp_max(self, max):
        return self.clamp(max=max)

    def minimum(self, o):
        _away(self.v, _v(o))
        return MPTensor(min(self.v, _v(o)))

    def maximum(self, o):
        _away(self.v, _v(o))
        return MPTensor(max(self.v, _v(o)))

    def sum(self):
        return self

    def mean(self):
        return self

    def item(self):
        return self.v


def _pow(a, b, exponent_varies: bool):
    # a base at or below 0 is smooth only for a fixed integer exponent (autograd's exponent
    # term, result * log(base), is nan there even where it is multiplied by 0)
    if a <= KINK and (exponent_varies or not mpmath.isint(b) or abs(a) < KINK):
        raise Reject
    return _check(mpmath.power(a, b))


class _Functional:
    @staticmethod
    def relu(x):
        return x.relu()


class _NN:
    functional = _Functional


class MPTorch:
    """What ``torch`` means to a smooth graph program evaluated in mpmath."""

    float32 = "float32"
    float64 = "float64"
    nn = _NN

    @staticmethod
    def tensor(data, dtype=None, requires_grad=False):
        return MPTensor(mpmath.mpf(data))

    @staticmethod
    def clamp(x, min=None, max=None):
        return x.clamp(min, max)

    def __getattr__(self, name):
        # torch.exp(x), torch.add(x, y)...: the method of the first argument
        return lambda x, *args: getattr(x, name)(*args)


def derivatives(program, leaves: dict, h=None) -> dict:
    """d(output)/d(leaf) of a smooth graph program (``Program.meta`` names its output) at the
    leaf values ``leaves`` (name -> float), by central differences in mpmath."""
    out_name = program.meta["output"]
    steps = [s for s in program.steps if s.name != program.meta.get("grads")]
    torch = MPTorch()

    def output(at: dict):
        ns = {"torch": torch}
        for s in steps:
            exec(f"{s.name} = {s.code}" if s.name else s.code, ns)
            if s.name in at:
                ns[s.name] = MPTensor(at[s.name])
        return ns[out_name].v

    with mpmath.workprec(PREC):
        h = h or mpmath.mpf(10) ** -30
        base = {k: mpmath.mpf(v) for k, v in leaves.items()}
        grads = {}
        for name in leaves:
            up, down = dict(base), dict(base)
            up[name] += h
            down[name] -= h
            grads[name] = float((output(up) - output(down)) / (2 * h))
        return grads
