"""torch.nn.utils.parametrize against PyTorch 2.13: the injected class, the original's place and name,
caching, right_inverse, stacking, removal and errors.

Each scenario runs on scalargrad and on live PyTorch from the same seed and returns plain Python
(reprs, names, lists of floats, messages); the two must be equal. The parametrizations used are
elementwise or triangular selections and sums of two values (one IEEE operation per element) and
the gradients are sums of ones, so values compare bit for bit on every processor.
"""

from __future__ import annotations

import copy
import importlib

import pytest

import scalargrad
import scalargrad.nn.utils.parametrize


def _libs(torch_ref):
    importlib.import_module("torch.nn.utils.parametrize")
    return scalargrad, torch_ref


def _classes(L):
    class Symmetric(L.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Skew(L.nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu(1)

    class Double(L.nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, A):
            return A / 2

    class Split(L.nn.Module):  # two originals: the weight is their sum
        def forward(self, A, B):
            return A + B

        def right_inverse(self, W):
            return W.clamp(min=0), W.clamp(max=0)

    return Symmetric, Skew, Double, Split


def _tensors(module):
    return [(n, p.tolist(), type(p).__name__) for n, p in module.named_parameters()] + \
        [(n, b.tolist()) for n, b in module.named_buffers()]


def _register_and_remove(L):
    P = L.nn.utils.parametrize
    Symmetric, Skew, Double, Split = _classes(L)
    L.manual_seed(0)
    layer = L.nn.Linear(3, 3)
    out = [repr(layer)]
    P.register_parametrization(layer, "weight", Symmetric())
    out += [repr(layer), str(type(layer)), type(layer).__name__, P.type_before_parametrizations(layer).__name__,
            P.is_parametrized(layer), P.is_parametrized(layer, "weight"), P.is_parametrized(layer, "bias"),
            _tensors(layer), list(layer.state_dict()), layer.weight.tolist(), repr(layer.weight.grad_fn)[:15],
            repr(layer.parametrizations), isinstance(layer, L.nn.Linear)]
    layer.weight.sum().backward()  # d/d original: 1 on the diagonal, 2 above it, 0 below
    out.append(layer.parametrizations.weight.original.grad.tolist())
    P.register_parametrization(layer, "weight", Double())
    out += [repr(layer), layer.weight.tolist(), len(layer.parametrizations.weight)]
    try:
        layer.weight = L.ones(3, 3) * 4  # right_inverse of Double, then Symmetric has none
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_register_and_stack_match_pytorch(torch_ref):
    s, t = (_register_and_remove(L) for L in _libs(torch_ref))
    assert s == t
    assert "does not implement right_inverse" in s[-1]


def _right_inverse_and_remove(L):
    P = L.nn.utils.parametrize
    Symmetric, Skew, Double, Split = _classes(L)
    L.manual_seed(1)
    layer = L.nn.Linear(3, 3)
    P.register_parametrization(layer, "weight", Skew())
    out = [_tensors(layer)]  # the original went through right_inverse at registration
    X = L.rand(3, 3)
    X = X - X.T
    layer.weight = X
    out += [L.dist(layer.weight, X).item(), _tensors(layer)]
    P.register_parametrization(layer, "weight", Double())
    layer.weight = X * 2
    out += [_tensors(layer), layer.weight.tolist()]
    P.remove_parametrizations(layer, "weight")
    out += [repr(layer), _tensors(layer), str(type(layer)), hasattr(layer, "parametrizations")]
    layer2 = L.nn.Linear(2, 3)
    P.register_parametrization(layer2, "weight", Double())
    P.register_parametrization(layer2, "bias", Double())
    P.remove_parametrizations(layer2, "weight", leave_parametrized=False)
    out += [repr(layer2), _tensors(layer2), P.is_parametrized(layer2)]
    P.remove_parametrizations(layer2, "bias", leave_parametrized=False)
    out += [repr(layer2), _tensors(layer2)]
    return out


def test_right_inverse_and_remove_match_pytorch(torch_ref):
    s, t = (_right_inverse_and_remove(L) for L in _libs(torch_ref))
    assert s == t


def _sequences_buffers_and_cache(L):
    P = L.nn.utils.parametrize
    Symmetric, Skew, Double, Split = _classes(L)
    layer = L.nn.Linear(2, 2)
    with L.no_grad():
        layer.weight.copy_(L.tensor([[1.0, -2.0], [-3.0, 4.0]]))
    P.register_parametrization(layer, "weight", Split())
    out = [_tensors(layer), layer.weight.tolist(), list(layer.state_dict())]
    layer.weight = L.tensor([[-5.0, 6.0], [7.0, -8.0]])
    out.append(_tensors(layer))
    P.remove_parametrizations(layer, "weight")
    out += [_tensors(layer), repr(layer)]
    bn = L.nn.BatchNorm1d(2)
    P.register_parametrization(bn, "running_mean", Double())
    out += [_tensors(bn), list(bn.state_dict()), bn.running_mean.tolist()]
    calls = []

    class Noisy(L.nn.Module):
        def forward(self, X):
            calls.append("computed")
            return X

    lin = L.nn.Linear(2, 2)
    P.register_parametrization(lin, "weight", Noisy())
    _ = lin.weight + lin.weight
    with P.cached():
        a, b = lin.weight, lin.weight
        out.append(a is b)
        with P.cached():
            out.append(lin.weight is a)
    out.append(lin.weight is a)
    out.append(len(calls))
    clone = copy.deepcopy(lin)
    out += [type(clone).__name__, _tensors(clone) == _tensors(lin), clone.weight.tolist() == lin.weight.tolist()]
    try:
        copy.copy(lin)
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_sequences_buffers_and_cache_match_pytorch(torch_ref):
    s, t = (_sequences_buffers_and_cache(L) for L in _libs(torch_ref))
    assert s == t


def _errors(L):
    P = L.nn.utils.parametrize
    Symmetric, Skew, Double, Split = _classes(L)

    class Shrink(L.nn.Module):
        def forward(self, X):
            return X[:1]

    class ToDouble(L.nn.Module):
        def forward(self, X):
            return X.double()

    out = []
    for make in (lambda m: P.register_parametrization(m, "nothing", Double()),
                 lambda m: P.register_parametrization(m, "weight", Shrink()),
                 lambda m: P.register_parametrization(m, "weight", ToDouble()),
                 lambda m: P.remove_parametrizations(m, "weight"),
                 lambda m: (P.register_parametrization(m, "weight", Double()),
                            P.register_parametrization(m, "weight", Shrink())),
                 lambda m: (P.register_parametrization(m, "weight", Shrink(), unsafe=True), m.weight.shape)[1]):
        m = L.nn.Linear(2, 3)
        try:
            r = make(m)
            out.append(repr(r))
        except (ValueError, RuntimeError) as e:
            out.append((type(e).__name__, str(e)))
        out.append(repr(m))
    with pytest.raises(ValueError) as info:
        P.ParametrizationList([], L.ones(2))
    out.append(str(info.value))
    return out


def test_errors_match_pytorch(torch_ref):
    s, t = (_errors(L) for L in _libs(torch_ref))
    assert s == t
