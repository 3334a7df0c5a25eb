"""A small stand-in for ``torch.testing._internal.common_nn`` (tools/pytorch_tests.py): NNTestCase
and the ``_create_basic_net`` helper PyTorch's module tests use (a Layer with a parameter and a
buffer, a Net holding one, and ``Sequential(net, net)``)."""

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


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return _StandIn(name)
