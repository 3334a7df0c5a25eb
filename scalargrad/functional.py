"""Top-level math functions (``torch.log(x)``, ``torch.add(a, b)``...) over Values and numbers."""

from __future__ import annotations

from .value import Value, as_value

__all__ = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "neg",
           "negative", "square", "reciprocal", "log", "exp", "sqrt", "tanh", "sigmoid", "relu", "abs",
           "absolute", "sin", "cos", "clamp", "clip", "minimum", "maximum", "mean", "sum", "clone",
           "numel", "rsub"]


def _v(x, like=None) -> Value:
    if isinstance(x, Value):
        return x
    if like is not None:
        return as_value(x, like)
    raise TypeError(f"expected a Tensor, got {type(x).__name__}")


def _first_tensor(a, b):
    return a if isinstance(a, Value) else b


def add(input, other, alpha=1, out=None) -> Value:  # noqa: A002 - PyTorch's names
    like = _first_tensor(input, other)
    return _v(input, like).add(other, alpha=alpha)


def sub(input, other, alpha=1, out=None) -> Value:  # noqa: A002
    like = _first_tensor(input, other)
    return _v(input, like).sub(other, alpha=alpha)


subtract = sub


def rsub(input, other, alpha=1) -> Value:  # noqa: A002
    return other - input * alpha if alpha != 1 else other - input


def mul(input, other, out=None) -> Value:  # noqa: A002
    like = _first_tensor(input, other)
    return _v(input, like) * other


multiply = mul


def div(input, other, rounding_mode=None, out=None) -> Value:  # noqa: A002
    like = _first_tensor(input, other)
    return _v(input, like).div(other, rounding_mode=rounding_mode)


divide = true_divide = div


def pow(input, exponent, out=None) -> Value:  # noqa: A001,A002
    if isinstance(input, Value):
        return input**exponent
    return _v(exponent).__rpow__(input)


def neg(input) -> Value:  # noqa: A002
    return -_v(input)


negative = neg


def square(input) -> Value:  # noqa: A002
    return _v(input).square()


def reciprocal(input) -> Value:  # noqa: A002
    return _v(input).reciprocal()


def log(input) -> Value:  # noqa: A002
    return _v(input).log()


def exp(input) -> Value:  # noqa: A002
    return _v(input).exp()


def sqrt(input) -> Value:  # noqa: A002
    return _v(input).sqrt()


def tanh(input) -> Value:  # noqa: A002
    return _v(input).tanh()


def sigmoid(input) -> Value:  # noqa: A002
    return _v(input).sigmoid()


def relu(input) -> Value:  # noqa: A002
    return _v(input).relu()


def abs(input) -> Value:  # noqa: A001,A002
    return _v(input).abs()


absolute = abs


def sin(input) -> Value:  # noqa: A002
    return _v(input).sin()


def cos(input) -> Value:  # noqa: A002
    return _v(input).cos()


def clamp(input, min=None, max=None) -> Value:  # noqa: A001,A002
    return _v(input).clamp(min, max)


clip = clamp


def minimum(input, other) -> Value:  # noqa: A002
    return _v(input).minimum(other)


def maximum(input, other) -> Value:  # noqa: A002
    return _v(input).maximum(other)


def mean(input, dim=None, keepdim=False, dtype=None) -> Value:  # noqa: A002
    return _v(input).mean(dim, keepdim)


def sum(input, dim=None, keepdim=False, dtype=None) -> Value:  # noqa: A001,A002
    return _v(input).sum(dim, keepdim)


def clone(input) -> Value:  # noqa: A002
    return _v(input).clone()


def numel(input) -> int:  # noqa: A002
    return _v(input).numel()
