"""``torch.randperm`` (``_base/rng.randperm``): ATen's CPU shuffle (one 32-bit draw per swap)
bit for bit with PyTorch's generator, for n in 0..100 and several seeds, with dtypes and
refusals; the hand test checks it is a permutation driven by the seed."""

from __future__ import annotations

import pytest

import scalargrad as sg


def test_is_a_seeded_permutation():
    sg.manual_seed(0)
    a = sg.randperm(50).tolist()
    sg.manual_seed(0)
    assert sg.randperm(50).tolist() == a and sorted(a) == list(range(50)) and a != list(range(50))
    assert sg.randperm(0).tolist() == [] and sg.randperm(1).tolist() == [0]
    assert sg.randperm(3).dtype is sg.int64 and sg.randperm(3, dtype=sg.float32).dtype is sg.float32
    g = sg.Generator().manual_seed(3)
    assert sorted(sg.randperm(7, generator=g).tolist()) == list(range(7))


@pytest.mark.parametrize("seed", [0, 1, 42, 2**31 + 5])
def test_randperm_is_torchs(torch_ref, seed):
    ours, theirs = [], []
    sg.manual_seed(seed)
    torch_ref.manual_seed(seed)
    for n in range(101):
        ours.append(sg.randperm(n).tolist())
        theirs.append(torch_ref.randperm(n).tolist())
    # the generator's state after all of them too
    ours.append(sg.rand(3).tolist())
    theirs.append(torch_ref.rand(3).tolist())
    assert ours == theirs


def test_dtypes_and_refusals_are_torchs(torch_ref):
    def run(L):
        L.manual_seed(7)
        out = []
        for f in (lambda: L.randperm(-1), lambda: L.randperm(5, dtype=L.float32),
                  lambda: L.randperm(3, requires_grad=True), lambda: L.randperm(3, dtype=L.float64, requires_grad=True),
                  lambda: L.randperm(3, dtype=L.bool), lambda: L.randperm(300, dtype=L.uint8),
                  lambda: L.randperm(2.5)):
            try:
                t = f()
                out.append((str(t.dtype), t.tolist(), t.requires_grad))
            except Exception as e:  # the refusal is compared
                out.append((type(e).__name__, str(e)))
        return out

    assert run(sg) == run(torch_ref)
