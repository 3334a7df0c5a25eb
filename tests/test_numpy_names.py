"""NumPy's parameter names (issue 23: PyTorch's keywords): PyTorch's argument parser takes
``axis`` for ``dim`` and ``keepdims`` for ``keepdim`` in every function and Tensor method it
parses (``x.sum(axis=0)``, ``x.mean(1, keepdims=True)``: d2l writes them throughout), not in
those it writes in Python (``x.split``, ``torch.norm``, ``F.softmax``). Against live PyTorch."""

from __future__ import annotations

import inspect

import pytest

import scalargrad
from scalargrad._tensor.surface import FUNCTIONS


def _calls(L) -> list:
    x = L.arange(6.0).view(2, 3)
    out = []
    for call in (lambda: x.sum(axis=0), lambda: x.mean(axis=1, keepdims=True), lambda: L.sum(x, axis=1),
                 lambda: L.cat([x, x], axis=0), lambda: x.argmax(axis=1), lambda: x.max(axis=0).values,
                 lambda: x.cumsum(axis=1), lambda: x.unsqueeze(axis=0).shape, lambda: L.softmax(x, axis=1),
                 lambda: x.sum(0, keepdims=True), lambda: L.stack([x, x], axis=1).shape, lambda: x.size(axis=1),
                 lambda: x.sum(dim=0, axis=0), lambda: x.sum(0, keepdims=True, keepdim=True),
                 lambda: x.split(1, axis=0), lambda: L.nn.functional.softmax(x, axis=1)):
        try:
            r = call()
            out.append(r.tolist() if isinstance(r, L.Tensor) else r)
        except TypeError as e:
            out.append(("TypeError", "axis" in str(e) or "keepdims" in str(e)))
    return out


def test_numpy_names_as_pytorchs(torch_ref):
    assert _calls(scalargrad) == _calls(torch_ref)


def _takes_dim(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "dim" in params


def _axis_refused(fn, x) -> bool:
    try:
        fn(x, axis=0)
    except TypeError as e:
        return "'axis'" in str(e)
    except Exception:
        return False
    return False


METHODS = sorted(n for n, f in vars(scalargrad.Tensor).items() if not n.startswith("_") and callable(f)
                 and not isinstance(f, type) and _takes_dim(f))
FUNCS = sorted(n for n, f in FUNCTIONS.items() if callable(f) and not isinstance(f, type) and _takes_dim(f))


@pytest.mark.parametrize("name", METHODS)
def test_every_method_taking_dim_takes_axis_where_pytorchs_does(torch_ref, name):
    ours = _axis_refused(getattr(scalargrad.Tensor, name), scalargrad.arange(6.0).view(2, 3))
    theirs = _axis_refused(getattr(torch_ref.Tensor, name), torch_ref.arange(6.0).view(2, 3))
    assert ours == theirs


@pytest.mark.parametrize("name", FUNCS)
def test_every_function_taking_dim_takes_axis_where_pytorchs_does(torch_ref, name):
    if not hasattr(torch_ref, name):
        pytest.skip(f"torch.{name} is not PyTorch's")
    ours = _axis_refused(FUNCTIONS[name], scalargrad.arange(6.0).view(2, 3))
    theirs = _axis_refused(getattr(torch_ref, name), torch_ref.arange(6.0).view(2, 3))
    assert ours == theirs
