"""``F.multi_margin_loss`` / ``nn.MultiMarginLoss`` and ``F.multilabel_margin_loss`` /
``nn.MultiLabelMarginLoss`` (``nn/margin_losses.py``): the values of ATen's scalar CPU loops
(each term rounded in the dtype, frames added in double), compared with live PyTorch exactly,
with the reductions, the legacy arguments and the refusals. Their gradients are refused by name.
"""

from __future__ import annotations

import random

import pytest

import scalargrad as sg
from scalargrad.errors import Unsupported


def _losses(L):
    rng = random.Random(7)
    x = L.tensor([[rng.uniform(-2, 2) for _ in range(5)] for _ in range(4)])
    xd = x.double()
    y = L.tensor([3, 0, 4, 1])
    ml = L.tensor([[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [4, 3, 2, 1, 0], [2, 2, -1, 4, 4]])
    w = L.tensor([0.5, 2.0, 1.0, 0.25, 3.0])
    F = L.nn.functional
    out = []
    for red in ("mean", "sum", "none"):
        out.append(F.multi_margin_loss(x, y, reduction=red).tolist())
        out.append(F.multi_margin_loss(xd, y, p=2, margin=0.7, weight=w.double(), reduction=red).tolist())
        out.append(L.nn.MultiMarginLoss(weight=w, reduction=red)(x, y).tolist())
        out.append(F.multilabel_margin_loss(x, ml, reduction=red).tolist())
        out.append(L.nn.MultiLabelMarginLoss(reduction=red)(xd, ml).tolist())
    out.append(F.multi_margin_loss(x[0], y[:1], reduction="none").tolist())
    out.append(F.multilabel_margin_loss(x[0], ml[0], reduction="none").tolist())
    out.append(L.nn.MultiLabelMarginLoss()(L.tensor([[0.1, 0.2, 0.4, 0.8]]), L.tensor([[3, 0, -1, 1]])).item())
    out.append(L.nn.MultiMarginLoss()(L.tensor([[0.1, 0.2, 0.4, 0.8]]), L.tensor([3])).item())
    for call, kind in ((lambda: F.multi_margin_loss(x, y, p=3), ValueError),
                       (lambda: F.multi_margin_loss(x, L.tensor([0, 5, 1, 1])), RuntimeError),
                       (lambda: F.multi_margin_loss(x, y[:2]), RuntimeError),
                       (lambda: F.multilabel_margin_loss(x, ml[:2]), RuntimeError),
                       (lambda: F.multilabel_margin_loss(x, ml - 2), RuntimeError),
                       (lambda: F.multi_margin_loss(L.zeros(2, 2, 2), y[:2]), RuntimeError),
                       (lambda: F.multi_margin_loss(L.zeros(2, 0), y[:2]), RuntimeError),
                       (lambda: F.multilabel_margin_loss(x, ml.int()), RuntimeError),
                       (lambda: F.multi_margin_loss(x, y.view(2, 2)), RuntimeError)):
        with pytest.raises(kind) as e:
            call()
        out.append(str(e.value))
    return out


def test_margin_losses_are_torchs(torch_ref):
    assert _losses(sg) == _losses(torch_ref)


def test_their_gradients_are_refused_by_name():
    x = sg.zeros(2, 3, requires_grad=True)
    with pytest.raises(Unsupported, match="MultiMarginLossBackward0"):
        sg.nn.functional.multi_margin_loss(x, sg.tensor([0, 1]))
    with pytest.raises(Unsupported, match="MultilabelMarginLossBackward0"):
        sg.nn.MultiLabelMarginLoss()(x, sg.tensor([[0, -1, 0], [1, 2, -1]]))
    with sg.no_grad():
        assert sg.nn.functional.multi_margin_loss(x, sg.tensor([0, 1])).item() == pytest.approx(2 / 3)
