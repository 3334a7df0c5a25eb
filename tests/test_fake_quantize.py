"""torch.fake_quantize_per_tensor_affine / fake_quantize_per_channel_affine against live PyTorch,
bit for bit (exact float32/float64 arithmetic, the same on every processor): ties to even,
clamping, nan and infinities, float64 inputs, tensor qparams, float zero points, errors."""

from __future__ import annotations

import math
import random
import struct

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _vals(seed: int, n: int) -> list:
    rng = random.Random(seed)
    special = [0.0, -0.0, 0.05, 0.15, -0.25, 12.75, 25.5, -25.5, 1e30, -1e30, math.inf, -math.inf, math.nan]
    return special + [rng.uniform(-30, 30) for _ in range(n)]


def _bits(t) -> list:
    fmt = "<f" if t.dtype.__repr__().endswith("float32") else "<d"
    return [struct.pack(fmt, v) for v in t.reshape(-1).tolist()]


CASES = [
    "torch.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 255)",
    "torch.fake_quantize_per_tensor_affine(x, 0.2, 10, -128, 127)",
    "torch.fake_quantize_per_tensor_affine(x, 0.5, 3, 0, 15)",
    "torch.fake_quantize_per_tensor_affine(x.double(), 0.1, 0, 0, 255)",
    "torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.1), torch.tensor(0), 0, 255)",
    "torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.3), torch.tensor(4, dtype=torch.int32), -8, 7)",
    "torch.fake_quantize_per_channel_affine(x[:12].reshape(6, 2), torch.tensor([0.1, 0.25]), "
    "torch.tensor([0, 3], dtype=torch.int32), 1, 0, 255)",
    "torch.fake_quantize_per_channel_affine(x[:12].reshape(3, 4), torch.tensor([0.1, 0.25, 0.3]), "
    "torch.tensor([0, 3, -2], dtype=torch.int32), 0, -128, 127)",
    "torch.fake_quantize_per_channel_affine(x[:12].reshape(3, 4).double(), torch.tensor([0.1, 0.25, 0.3]), "
    "torch.tensor([0, 3, -2], dtype=torch.int32), 0, -128, 127)",
    "torch.fake_quantize_per_channel_affine(x[:12].reshape(3, 4), torch.tensor([0.1, 0.25, 0.3]), "
    "torch.tensor([0.5, 3., -2.25]), 0, -128, 127)",
    "torch.fake_quantize_per_channel_affine(x[:8].reshape(2, 2, 2), (torch.tensor([0.3, -0.5]) + 1) * 0.05, "
    "torch.zeros(2).to(torch.int32), 1, 0, 255)",
]


@pytest.mark.parametrize("src", CASES)
def test_values_are_pytorchs_bit_for_bit(torch_ref, src):
    vals = _vals(3, 47)
    if "reshape(6, 2)" in src or "[:8]" in src:  # finite inputs where the per-channel kernel's
        vals = [v for v in vals if math.isfinite(v) and abs(v) < 1e9]  # int64 conversion is undefined in C
    ours = eval(src, {"torch": scalargrad, "x": scalargrad.tensor(vals)})
    theirs = eval(src, {"torch": torch_ref, "x": torch_ref.tensor(vals)})
    assert repr(ours) == repr(theirs)
    assert _bits(ours) == _bits(theirs)


def test_docstring_examples_print_as_pytorchs(torch_ref):
    outs = []
    for L in (scalargrad, torch_ref):
        x = L.tensor([0.0552, 0.9730, 0.3973, -1.0780])
        scales = (L.tensor([-0.1, 0.4]) + 1) * 0.05
        y = L.tensor([[[-1.0, 0.2], [0.04, 0.5]], [[2.0, -0.3], [0.07, 0.0]]])
        outs.append((repr(L.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 255)),
                     repr(L.fake_quantize_per_tensor_affine(x, L.tensor(0.1), L.tensor(0), 0, 255)),
                     repr(L.fake_quantize_per_channel_affine(y, scales, L.zeros(2).to(L.int32), 1, 0, 255))))
    assert outs[0] == outs[1]


def _error(lib, src: str) -> str:
    x = lib.tensor([0.5, -1.0])
    try:
        eval(src, {"torch": lib, "x": x})
    except Exception as e:  # the type and message are compared
        return f"{type(e).__name__}: {e}"
    return "no error"


@pytest.mark.parametrize("src", [
    "torch.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 2)",
    "torch.fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255)",
    "torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1, 0.2]), torch.tensor([0, 1]), 0, 0, 255)",
    "torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1, 0.2]).double(), torch.tensor([0, 1]), 0, 0, 255)",
    "torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1]), torch.tensor([0], dtype=torch.int32), 0, 0, "
    "255)",
    "torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1, 0.2]), torch.tensor([0], dtype=torch.int32), 0, "
    "0, 255)",
    "torch.fake_quantize_per_channel_affine(x, torch.tensor([[0.1, 0.2]]), torch.tensor([0, 1], "
    "dtype=torch.int32), 0, 0, 255)",
    "torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1, 0.2]), torch.tensor([0, 300], "
    "dtype=torch.int32), 0, 0, 255)",
    "torch.fake_quantize_per_channel_affine(x, torch.tensor([0.1, 0.2]), torch.tensor([0, 1], "
    "dtype=torch.int32), 0, 9, 2)",
])
def test_errors_are_pytorchs(torch_ref, src):
    assert _error(scalargrad, src) == _error(torch_ref, src)


def test_a_graph_is_refused_by_name():
    x = scalargrad.tensor([0.5, -1.0], requires_grad=True)
    with pytest.raises(Unsupported, match="autograd through torch.fake_quantize_per_tensor_affine"):
        scalargrad.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 255)
    with scalargrad.no_grad():
        assert scalargrad.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 255).tolist() == [0.5, 0.0]
