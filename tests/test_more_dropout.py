"""F.dropout1d / dropout3d / alpha_dropout / feature_alpha_dropout and their modules against
live PyTorch 2.13: the same seed drops the same elements (scalargrad's reproduction of the CPU
generator's bernoulli_ stream), the values and gradients are PyTorch's bits (a product and a sum
per element, in the dtype), the nodes PyTorch's; reprs, warnings and errors."""

from __future__ import annotations

import struct
import warnings

import pytest

import scalargrad


def _bits(t) -> list:
    return [struct.pack("<d", v).hex() for v in t.detach().reshape(-1).tolist()]


def _run(L, dtype):
    F = L.nn.functional
    L.manual_seed(3)
    x = L.randn(3, 4, 5, dtype=getattr(L, dtype), requires_grad=True)
    cases = [lambda: F.dropout1d(x, 0.4), lambda: F.dropout1d(x[0], 0.4),
             lambda: F.dropout3d(x.reshape(1, 3, 2, 2, 5), 0.3), lambda: F.dropout3d(x.reshape(3, 2, 2, 5), 0.3),
             lambda: F.alpha_dropout(x, 0.3, True), lambda: F.feature_alpha_dropout(x, 0.25, True),
             lambda: F.alpha_dropout(x, 1.0, True), lambda: F.alpha_dropout(x, 0.3),
             lambda: L.nn.AlphaDropout(0.2)(x) + L.nn.FeatureAlphaDropout(0.1)(x) + L.nn.Dropout1d(0.5)(x)
             + L.nn.Dropout3d(0.5)(x.reshape(3, 4, 5, 1, 1)).reshape(3, 4, 5)]
    out = []
    for make in cases:
        y = make()
        g = L.autograd.grad(y.sum(), [x])[0] if y.grad_fn is not None else None
        out.append((y.grad_fn.name() if y.grad_fn is not None else None, _bits(y), _bits(g) if g is not None else None))
    xi = L.randn(2, 3, 4, dtype=getattr(L, dtype))
    F.alpha_dropout(xi, 0.3, True, inplace=True)
    F.feature_alpha_dropout(xi, 0.6, True, inplace=True)
    out.append(_bits(xi))
    return out


@pytest.mark.vector_kernels  # the random draws' vectorised transform
@pytest.mark.no_sympy_check
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropouts_match_pytorch_bit_for_bit(torch_ref, dtype):
    assert _run(scalargrad, dtype) == _run(torch_ref, dtype)


def _raised(L, fn):
    try:
        fn(L)
    except Exception as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("fn", [
    lambda L: L.nn.functional.dropout1d(L.ones(2, 3, 4, 5)),
    lambda L: L.nn.functional.alpha_dropout(L.ones(3), 1.5),
    lambda L: L.nn.functional.feature_alpha_dropout(L.ones(3), 0.5, True),
    lambda L: L.nn.AlphaDropout(-0.1),
])
def test_errors_are_pytorchs(torch_ref, fn):
    assert _raised(scalargrad, fn) == _raised(torch_ref, fn) is not None


def test_reprs_and_warnings(torch_ref):
    for L in (scalargrad, torch_ref):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.nn.functional.dropout3d(L.ones(2, 3, 4), 0.5, training=False)
        L.seen = [str(m.message) for m in w], [repr(m) for m in (
            L.nn.AlphaDropout(0.2), L.nn.Dropout1d(), L.nn.FeatureAlphaDropout(0.3, True), L.nn.Dropout3d())], \
            isinstance(L.nn.Dropout1d(), L.nn.Dropout), str(type(L.nn.AlphaDropout()))
    assert scalargrad.seen == torch_ref.seen
