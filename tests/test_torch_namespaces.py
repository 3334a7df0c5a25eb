"""Names issue 23's census found programs using, answered as PyTorch's CPU build answers them:
``torch.accelerator`` (no accelerator), ``torch.functional`` (importable outside ``scalargrad
run`` too), ``torch.is_warn_always_enabled``; and the reasons ``Unsupported`` gives for the
areas scalargrad refuses by design."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _answers(L):
    A = L.accelerator
    out = [A.is_available(), A.device_count(), A.current_accelerator(), A.current_accelerator(check_available=True)]
    with A.device_index(None):
        out.append("none entered")
    for call in (A.current_device_index, A.synchronize, A.empty_cache, A.memory_allocated, A.current_stream,
                 lambda: A.set_device_index(0), lambda: A.device_index(0).__enter__()):
        try:
            call()
        except RuntimeError as e:
            out.append(str(e))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            A.current_device_idx()
        except RuntimeError as e:
            out.append(str(e))
    out.append([(w.category.__name__, str(w.message)) for w in caught])
    out.append(L.is_warn_always_enabled())
    device = A.current_accelerator().type if A.is_available() else "cpu"  # the tutorials' idiom
    out.append(device)
    return out


def test_accelerator_and_warn_always_as_pytorchs(torch_ref):
    assert _answers(scalargrad) == _answers(torch_ref)


def _warn_always(L):
    """PyTorch's test_backward_create_graph_warns, and a warn-once site (``x.T`` of a 3-D tensor)
    with the flag on (every call warns) and off again (at most the first call warns)."""
    def count(f):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f()
        return len(w)

    x = L.ones(2, 3, 4)
    b = L.ones(3, requires_grad=True, dtype=L.double)
    c = b * b
    L.set_warn_always(True)
    try:
        out = [L.is_warn_always_enabled(), [count(lambda: x.T) for _ in range(3)],
               [count(lambda: c.backward(L.ones_like(c), create_graph=True, retain_graph=True)) for _ in range(2)],
               count(lambda: L.autograd.grad(c, b, L.ones_like(c), create_graph=True, retain_graph=True))]
    finally:
        L.set_warn_always(False)
    out += [L.is_warn_always_enabled(), [count(lambda: x.T) for _ in range(3)][1:]]
    return out


def test_set_warn_always_as_pytorchs(torch_ref):
    assert _warn_always(scalargrad) == _warn_always(torch_ref) == [True, [1, 1, 1], [1, 1], 0, False, [0, 0]]


def test_torch_functional_outside_scalargrad_run(tmp_path):
    # a program that makes scalargrad its torch by hand (sys.modules), then imports torch.functional
    prog = tmp_path / "prog.py"
    prog.write_text("import sys, scalargrad\nsys.modules['torch'] = scalargrad\nimport torch.functional as F\n"
                    "from torch.functional import einsum, split\n"
                    "print(F.norm(scalargrad.tensor([3.0, 4.0])).item(), einsum.__name__)\n"
                    "from torch.functional import pca_lowrank\ntry:\n    pca_lowrank(scalargrad.tensor([1]))\n"
                    "except Exception as e:\n    print(type(e).__name__, e.feature)\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.stdout == "5.0 einsum\nUnsupported torch.functional.pca_lowrank\n", proc.stderr


@pytest.mark.parametrize("use, reason", [
    (lambda t: t.cuda.set_device(0), "it needs a GPU"),
    (lambda t: t.distributed.init_process_group("gloo"), "several processes"),
    (lambda t: t.compile(t.nn.Linear(1, 1)), "a compiled graph (TorchDynamo and Inductor)"),
    (lambda t: t.jit.script, "a compiled graph (TorchScript)"),
    (lambda t: t.tensor([1.0]).chalf(), "complex numbers"),
    (lambda t: t.sparse.softmax, "scalargrad's sparse tensors"),
    (lambda t: t.frombuffer, "shares memory with a raw buffer"),
    (lambda t: t.nn.parallel.DistributedDataParallel, "several processes"),
    (lambda t: t.profiler.profile, "PyTorch's kernels"),
    (lambda t: t.tensor([1.0]).untyped_storage().tolist(), "a storage's raw bytes"),
    # names PyTorch's docstring examples use (DEV pool, issue 23)
    (lambda t: t.tensor([1.0]).sparse_resize_, "scalargrad's sparse tensors"),
    (lambda t: t.optim.SparseAdam([t.ones(1)]), "scalargrad's sparse tensors"),
    (lambda t: t.quantized_batch_norm, "quantised"),
    (lambda t: t.quantized_max_pool2d, "quantised"), (lambda t: t.set_flush_denormal(True), "flush-denormal"),
])
def test_refusals_carry_their_reason(use, reason):
    from scalargrad.runner import torch_alias

    with torch_alias():
        import torch

        with pytest.raises(Unsupported) as info:
            use(torch)
    assert reason in info.value.reason and f"({info.value.reason})" in str(info.value)


def test_a_missing_name_without_a_design_reason_has_none():
    with pytest.raises(Unsupported) as info:
        _ = scalargrad.nn.FractionalMaxPool2d  # (TransformerDecoderLayer is implemented now)
    assert info.value.reason == ""
