"""What a program asks about devices, answered as PyTorch 2.13's CPU wheel answers: torch.cuda
(nothing available, seeding ignored, "Torch not compiled with CUDA enabled" where a device is
needed), torch.backends' mps/cudnn/cuda probes and the cudnn flags reproducibility code sets.
Each expectation is checked on PyTorch too (``L``)."""

from __future__ import annotations

import pytest

import scalargrad


@pytest.fixture(params=["scalargrad", "torch"])
def L(request):
    if request.param == "torch":
        return request.getfixturevalue("torch_ref")
    return scalargrad


def test_cuda_is_absent_and_seeding_it_is_ignored(L):
    cuda = L.cuda
    assert (cuda.is_available(), cuda.device_count(), cuda.is_initialized()) == (False, 0, False)
    ignored = [cuda.manual_seed(0), cuda.manual_seed_all(1), cuda.seed(), cuda.seed_all(), cuda.empty_cache()]
    assert ignored == [None] * 5
    assert (cuda.memory_allocated(), cuda.max_memory_allocated(), cuda.is_bf16_supported()) == (0, 0, False)


@pytest.mark.parametrize("name", ["current_device", "synchronize", "get_device_name", "get_device_properties",
                                  "get_device_capability", "init", "get_rng_state"])
def test_what_needs_a_cuda_device_says_torch_was_not_compiled_with_it(L, name):
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        getattr(L.cuda, name)()


def test_backend_probes_and_cudnn_flags(L):
    b = L.backends
    assert (b.mps.is_available(), b.mps.is_built(), b.cuda.is_built()) == (False, False, False)
    assert (b.cudnn.is_available(), b.cudnn.version()) == (False, None)
    assert (b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32) == (True, False, False, True)
    saved = b.cudnn.deterministic
    try:
        b.cudnn.deterministic = True
        assert b.cudnn.deterministic is True
    finally:
        b.cudnn.deterministic = saved
    device = "cuda" if L.cuda.is_available() else "mps" if b.mps.is_available() else "cpu"
    assert device == "cpu"
