"""Top-level math functions (``torch.log(x)``, ``torch.add(a, b)``...) over Values and numbers."""

from __future__ import annotations

from .value import Value, as_value

__all__ = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "neg",
           "negative", "square", "reciprocal", "log", "exp", "sqrt", "tanh", "sigmoid", "relu", "abs",
           "absolute", "sin", "cos", "clamp", "clip", "minimum", "maximum", "mean", "sum", "clone",
           "numel", "rsub", "matmul", "mm", "mv", "dot", "t", "transpose", "permute", "reshape", "flatten",
           "squeeze", "unsqueeze", "cat", "concat", "stack", "equal", "allclose", "broadcast_shapes"]


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


# ---------------------------------------------------------------- multi-element tensors (shaped.py)


def matmul(input, other) -> Value:  # noqa: A002
    """``input @ other`` for 1-D and 2-D tensors (see ``products.matmul``)."""
    from .products import matmul as _matmul

    return _matmul(input, other)


def mm(input, mat2) -> Value:  # noqa: A002
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2)


def mv(input, vec) -> Value:  # noqa: A002
    return matmul(input, vec)


def dot(input, other) -> Value:  # noqa: A002
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    return matmul(input, other)


def t(input) -> Value:  # noqa: A002
    return _v(input).t()


def transpose(input, dim0: int, dim1: int) -> Value:  # noqa: A002
    return _v(input).transpose(dim0, dim1)


def permute(input, dims) -> Value:  # noqa: A002
    return _v(input).permute(dims)


def reshape(input, shape) -> Value:  # noqa: A002
    return _v(input).reshape(shape)


def flatten(input, start_dim: int = 0, end_dim: int = -1) -> Value:  # noqa: A002
    return _v(input).flatten(start_dim, end_dim)


def squeeze(input, dim=None) -> Value:  # noqa: A002
    return _v(input).squeeze(dim)


def unsqueeze(input, dim: int) -> Value:  # noqa: A002
    return _v(input).unsqueeze(dim)


def cat(tensors, dim: int = 0) -> Value:
    """``torch.cat``: join tensors along an existing dimension."""
    from .shaped import cat as _cat

    return _cat(tensors, dim)


concat = cat


def stack(tensors, dim: int = 0) -> Value:
    """``torch.stack``: join tensors of one shape along a new dimension."""
    from .shaped import stack as _stack

    return _stack(tensors, dim)


def equal(input, other) -> bool:  # noqa: A002
    """True when both tensors have the same shape and the same values."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    from .shaped import flatten_tensors

    return all(a._val == b._val for a, b in zip(flatten_tensors(input), flatten_tensors(other)))


def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:  # noqa: A002
    """|input - other| <= atol + rtol * |other| everywhere (broadcast)."""
    from .shaped import ShapedTensor

    if isinstance(input, ShapedTensor):
        return input.allclose(other, rtol, atol, equal_nan)
    if isinstance(other, ShapedTensor):
        return ShapedTensor.allclose(other * 0 + input, other, rtol, atol, equal_nan)
    x, y = _v(input)._val, _v(other)._val
    if x != x or y != y:
        return bool(equal_nan and x != x and y != y)
    return x == y or abs(x - y) <= atol + rtol * abs(y)


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to."""
    from .dtypes import Size
    from .shaped import broadcast_shapes as _bs

    out: tuple = ()
    for s in shapes:
        out = _bs(out, tuple(s) if isinstance(s, (tuple, list)) else (s,))
    return Size(out)
