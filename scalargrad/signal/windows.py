"""``torch.signal.windows``: the window functions of PyTorch 2.13 (bartlett, blackman, cosine,
exponential, gaussian, general_cosine, general_hamming, hamming, hann, kaiser, nuttall).

PyTorch computes them in Python from torch ops (``torch/signal/windows/windows.py``): a
``linspace`` of the window's points, then ``exp``/``abs``/``sin``/``cos``/``i0``... of it. They are
composed here of the same tensor ops with the same Python numbers, so each value goes through
the kernel PyTorch's goes through (bit for bit where that kernel is exact: bartlett's
``1 - |k|``; within the elementwise kernel's bound elsewhere), and a window made with
``requires_grad=True`` records the same nodes (ExpBackward0, RsubBackward1, SumBackward1...).
The checks and their ValueError/TypeError messages are PyTorch's."""

from __future__ import annotations

import math
from collections.abc import Iterable

from .._base.dtypes import float32, float64
from .._tensor.factories import empty, ones, strided, tensor
from .._tensor.ranges import arange, linspace
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor, get_default_dtype

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(function_name: str, M: int, dtype, layout) -> None:
    """PyTorch's ``_window_function_checks``: the length, the layout and the dtype."""
    if M < 0:
        raise ValueError(f"{function_name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{function_name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (float32, float64):
        raise ValueError(f"{function_name} expects float32 or float64 dtypes, got: {dtype}")


def _trivial(M: int, dtype, layout, device, requires_grad: bool, one: bool = True) -> Tensor | None:
    """The window of 0 points (``empty``) and, where PyTorch returns it before computing, of 1
    point (``ones``); None otherwise."""
    if M == 0:
        return empty((0,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    if M == 1 and one:
        return ones((1,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    return None


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None,
                layout=strided, device=None, requires_grad: bool = False) -> Tensor:
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``: ``exp(-abs(k))`` of a
    linspace from ``-center / tau`` in steps of ``1 / tau``."""
    dtype = get_default_dtype() if dtype is None else dtype
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, layout, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = linspace(start=-center * constant, end=(-center + (M - 1)) * constant, steps=M, dtype=dtype,
                 layout=layout, device=device, requires_grad=requires_grad)
    return (-k.abs()).exp()


def cosine(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
           requires_grad: bool = False) -> Tensor:
    """The cosine (sine) window ``sin(pi (n + 0.5) / M)``, as SciPy: ``sin`` of a linspace."""
    dtype = get_default_dtype() if dtype is None else dtype
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, layout, device, requires_grad)
    start = 0.5
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = linspace(start=start * constant, end=(start + (M - 1)) * constant, steps=M, dtype=dtype, layout=layout,
                 device=device, requires_grad=requires_grad)
    return k.sin()


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False) -> Tensor:
    """The gaussian window ``exp(-(n / (2 std))^2)``: ``exp(-(k ** 2))`` of a linspace scaled by
    ``1 / (std sqrt(2))``."""
    dtype = get_default_dtype() if dtype is None else dtype
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, layout, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = linspace(start=start * constant, end=(start + (M - 1)) * constant, steps=M, dtype=dtype, layout=layout,
                 device=device, requires_grad=requires_grad)
    return (-(k ** 2)).exp()


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=strided, device=None,
           requires_grad: bool = False) -> Tensor:
    """The Kaiser window ``i0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / i0(beta)``, with beta made a
    0-dim tensor of the dtype first (as PyTorch, which so avoids nans at the ends)."""
    dtype = get_default_dtype() if dtype is None else dtype
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _trivial(M, dtype, layout, device, requires_grad)
    b = tensor(beta, dtype=dtype, device=device)
    start = -b
    constant = 2.0 * b / (M if not sym else M - 1)
    end = FUNCTIONS["minimum"](b, start + (M - 1) * constant)
    k = linspace(start=start, end=end, steps=M, dtype=dtype, layout=layout, device=device,
                 requires_grad=requires_grad)
    i0 = FUNCTIONS["i0"]
    return i0((b * b - k.pow(2)).sqrt()) / i0(b)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
            requires_grad: bool = False) -> Tensor:
    """The Hamming window: ``general_hamming`` with alpha 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
         requires_grad: bool = False) -> Tensor:
    """The Hann window: ``general_hamming`` with alpha 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False) -> Tensor:
    """The Blackman window: ``general_cosine`` with the coefficients 0.42, 0.5, 0.08."""
    dtype = get_default_dtype() if dtype is None else dtype
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
             requires_grad: bool = False) -> Tensor:
    """The Bartlett (triangular) window ``1 - |k|`` of a linspace from -1 in steps of
    ``2 / (M - 1)`` (``2 / M`` periodic)."""
    dtype = get_default_dtype() if dtype is None else dtype
    _checks("bartlett", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, layout, device, requires_grad)
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = linspace(start=start, end=start + (M - 1) * constant, steps=M, dtype=dtype, layout=layout,
                 device=device, requires_grad=requires_grad)
    return 1 - k.abs()


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=strided, device=None,
                   requires_grad: bool = False) -> Tensor:
    """The general cosine window ``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``: the coefficients a
    tensor, summed over ``a_i.unsqueeze(-1) * cos(i.unsqueeze(-1) * k)`` (SumBackward1)."""
    dtype = get_default_dtype() if dtype is None else dtype
    _checks("general_cosine", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, layout, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = linspace(start=0, end=(M - 1) * constant, steps=M, dtype=dtype, layout=layout, device=device,
                 requires_grad=requires_grad)
    a_i = tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype, requires_grad=requires_grad)
    i = arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * (i.unsqueeze(-1) * k).cos()).sum(0)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=strided, device=None,
                    requires_grad: bool = False) -> Tensor:
    """The general Hamming window ``alpha - (1 - alpha) cos(2 pi n / (M - 1))``: general_cosine
    with the coefficients alpha, 1 - alpha."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,
            requires_grad: bool = False) -> Tensor:
    """The minimum 4-term Blackman-Harris window according to Nuttall: general_cosine with
    Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, device=device, requires_grad=requires_grad)
