"""``torch.signal.windows`` (``scalargrad/signal/windows.py``) against live PyTorch 2.13.

PyTorch computes each window in Python from torch ops; scalargrad composes the same ops with
the same Python numbers, so shapes, dtypes, nodes and the exact kernels (linspace, bartlett's
``1 - |k|``) agree bit for bit, and the transcendental ones (sin, cos, exp, i0: SLEEF or the C
library per processor) within a few ulps: 4 epsilons of the window's largest value (1), which
also covers blackman's cancellation to -1.5e-8 at its ends. The argument checks raise PyTorch's
errors, word for word."""

from __future__ import annotations

import pytest

import scalargrad as sg

WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "exponential": {}, "exponential_tau": {"tau": 0.5},
    "gaussian": {}, "gaussian_std": {"std": 0.9}, "general_cosine": {"a": [0.46, 0.23, 0.31]},
    "general_hamming": {"alpha": 0.6}, "hamming": {}, "hann": {}, "kaiser": {}, "kaiser_beta": {"beta": 3.5},
    "nuttall": {},
}
EPS = {"float32": 2.0**-23, "float64": 2.0**-52}


def _window(L, key: str, M: int, sym: bool, dtype: str, requires_grad: bool = False):
    name = key.split("_")[0] if key not in ("general_cosine", "general_hamming") else key
    kwargs = dict(WINDOWS[key])
    if key == "exponential_tau" and not sym:
        kwargs["center"] = 2.0
    return getattr(L.signal.windows, name)(M, sym=sym, dtype=getattr(L, dtype), requires_grad=requires_grad,
                                           **kwargs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("key", sorted(WINDOWS))
def test_windows_as_pytorch(torch_ref, key, dtype):
    for M in (0, 1, 2, 5, 10):
        for sym in (True, False):
            ours, theirs = _window(sg, key, M, sym, dtype), _window(torch_ref, key, M, sym, dtype)
            assert tuple(ours.shape) == tuple(theirs.shape) and ours.stride() == theirs.stride()
            assert repr(ours.dtype).replace("scalargrad", "torch") == repr(theirs.dtype)
            a, b = ours.tolist(), theirs.tolist()
            if key == "bartlett":
                assert a == b, (M, sym)
            else:
                assert all(abs(x - y) <= 4 * EPS[dtype] for x, y in zip(a, b)), (M, sym, a, b)


@pytest.mark.parametrize("key", ["bartlett", "cosine", "exponential", "gaussian", "hann", "kaiser"])
def test_windows_record_pytorchs_nodes(torch_ref, key):
    ours, theirs = _window(sg, key, 6, True, "float64", True), _window(torch_ref, key, 6, True, "float64", True)
    assert ours.requires_grad == theirs.requires_grad
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@pytest.mark.parametrize("call, error", [
    (lambda L: L.signal.windows.hann(-1), "general_cosine requires non-negative window length, got M=-1"),
    (lambda L: L.signal.windows.cosine(4, dtype=L.int64), "cosine expects float32 or float64 dtypes, got: torch.int64"),
    (lambda L: L.signal.windows.exponential(4, tau=0), "Tau must be positive, got: 0 instead."),
    (lambda L: L.signal.windows.exponential(4, center=1.0), "Center must be None for symmetric windows"),
    (lambda L: L.signal.windows.gaussian(4, std=-1.0), "Standard deviation must be positive, got: -1.0 instead."),
    (lambda L: L.signal.windows.kaiser(4, beta=-1.0), "beta must be non-negative, got: -1.0 instead."),
    (lambda L: L.signal.windows.general_cosine(4, a=[]), "Coefficients cannot be empty"),
    (lambda L: L.signal.windows.blackman(3, layout=L.sparse_coo),
     "blackman is implemented for strided tensors only, got: torch.sparse_coo"),
])
def test_errors_as_pytorch(torch_ref, call, error):
    for L in (sg, torch_ref):
        with pytest.raises(ValueError) as info:
            call(L)
        assert str(info.value) == error
    for L in (sg, torch_ref):
        with pytest.raises(TypeError, match="^Coefficients must be a list/tuple$"):
            L.signal.windows.general_cosine(4, a=3)
