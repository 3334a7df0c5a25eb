"""``torch._C``'s few names that PyTorch's own tests use to observe public behaviour (issue 22):
whether saved-tensor hooks are disabled, whether a tensor was freed; the rest is Unsupported."""

from __future__ import annotations

import gc

import pytest

import scalargrad as sg
from scalargrad.errors import Unsupported


def _observe(L) -> list:
    seen = [L._C._autograd._saved_tensors_hooks_is_enabled()]
    with L.autograd.graph.disable_saved_tensors_hooks("outer"):
        with L.autograd.graph.disable_saved_tensors_hooks("inner"):
            seen.append(L._C._autograd._saved_tensors_hooks_is_enabled())
        seen.append(L._C._autograd._saved_tensors_hooks_is_enabled())
    seen.append(L._C._autograd._saved_tensors_hooks_is_enabled())

    class Keep(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, box):
            ctx.box = box
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g, None

    def cycle():  # out -> its node's ctx -> box -> out: a reference cycle only gc frees
        box = {}
        out = Keep.apply(L.tensor(1.5, requires_grad=True), box)
        box["out"] = out
        return L._C._WeakTensorRef(out)

    enabled = gc.isenabled()
    gc.disable()
    try:
        ref = cycle()
        seen.append(ref.expired())
    finally:
        if enabled:
            gc.enable()
    gc.collect()
    seen.append(ref.expired())
    return seen


def test_torch_c_observers_are_torchs(torch_ref):
    assert _observe(sg) == _observe(torch_ref)


def test_other_torch_c_names_are_unsupported():
    with pytest.raises(Unsupported, match=r"torch\._C\._functions\.DelayedError is not supported.*native"):
        getattr(sg._C._functions, "DelayedError")  # noqa: B009 (UndefinedGrad alone is provided there)
    with pytest.raises(Unsupported, match=r"torch\._C\._autograd\._make_saved_tensor is not supported"):
        sg._C._autograd._make_saved_tensor(sg.ones(1), is_output=False)
