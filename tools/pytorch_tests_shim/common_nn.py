"""A small stand-in for ``torch.testing._internal.common_nn`` (tools/pytorch_tests.py): NNTestCase,
the ``_create_basic_net`` helper PyTorch's module tests use (a Layer with a parameter and a
buffer, a Net holding one, and ``Sequential(net, net)``), and the ``loss_reference_fns`` entries
TestNN's loss tests use (each loss from its documented formula, written here)."""

from __future__ import annotations

import torch
from torch import nn
from torch.testing._internal.common_utils import TestCase, _StandIn


class NNTestCase(TestCase):
    """PyTorch's NNTestCase; the selected tests use only TestCase's methods."""


def _create_basic_net():
    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer_dummy_param = nn.Parameter(torch.empty(3, 5))
            self.layer_dummy_buf = nn.Buffer(torch.zeros(1, 3, 3, 7))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn.Parameter(torch.empty(3, 5))
            self.dummy_buf = nn.Buffer(torch.zeros(7, 3, 3, 1))

    layer = Layer()
    net = Net()
    return layer, net, nn.Sequential(net, net)


def _reduce(out, reduction: str):
    return out.mean() if reduction == "mean" else out.sum() if reduction == "sum" else out


def _cosine_embedding(x1, x2, target, margin=0, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, else max(0, cos - margin); cos per row, each squared norm
    plus 1e-12 (PyTorch's EPSILON) under the square root."""
    rows = [((a * b).sum() / (((a * a).sum() + 1e-12) * ((b * b).sum() + 1e-12)) ** 0.5).reshape(1)
            for a, b in zip(x1, x2)]
    cos = torch.cat(rows)
    return _reduce(torch.where(target == 1, 1 - cos, (cos - margin).clamp(min=0)), reduction)


def _triplet_margin(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)), d the pairwise p-norm distance; with ``swap`` the
    negative's distance is the smaller of d(a, n) and d(p, n)."""
    d_pos = torch.pairwise_distance(anchor, positive, p, eps)
    d_neg = torch.pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torch.min(d_neg, torch.pairwise_distance(positive, negative, p, eps))
    return _reduce(torch.clamp(margin + d_pos - d_neg, min=0.0), reduction)


def _margin_ranking(x1, x2, target, margin=0, reduction="mean"):
    """max(0, -target * (x1 - x2) + margin)."""
    return _reduce((-target * (x1 - x2) + margin).clamp(min=0), reduction)


loss_reference_fns = {"CosineEmbeddingLoss": _cosine_embedding, "TripletMarginLoss": _triplet_margin,
                      "MarginRankingLoss": _margin_ranking}


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return _StandIn(name)
