"""nn.DataParallel as PyTorch's CPU build runs it (the module itself, ``device_ids == []``, the
state dict under ``module.``), and ``consume_prefix_in_state_dict_if_present``, which strips
that prefix from a state dict and its ``_metadata``."""

from __future__ import annotations

import pytest
from program_outcome import outcome

import scalargrad

PROGRAMS = [
    """
torch.manual_seed(0)
inner = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
m = torch.nn.DataParallel(inner, device_ids=[0, 1], output_device=0, dim=1)
y = m(torch.ones(3, 2))
out = (repr(m), m.module is inner, m.device_ids, hasattr(m, "dim"), hasattr(m, "output_device"),
       y.tolist(), type(y.grad_fn).__name__, list(m.state_dict().keys()), repr(type(m)))
""",
    """
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present, _pair, _triple, _single
m = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(2, 2)))
sd = m.state_dict()
consume_prefix_in_state_dict_if_present(sd, "module.")
plain = torch.nn.Sequential(torch.nn.Linear(2, 2))
res = plain.load_state_dict(sd)
out = (list(sd.keys()), dict(sd._metadata), repr(res), _pair(3), _triple((1, 2, 3)), _single(4))
""",
]


@pytest.mark.parametrize("source", PROGRAMS)
def test_as_pytorchs(torch_ref, source):
    assert outcome(scalargrad, source) == outcome(torch_ref, source)


def test_forward_calls_the_module_with_its_arguments():
    calls = []

    class Probe(scalargrad.nn.Module):
        def forward(self, *args, **kwargs):
            calls.append((args, kwargs))
            return args[0]

    m = scalargrad.nn.DataParallel(Probe())
    x = scalargrad.tensor([1.0])
    assert m(x, 2, key="v") is x and calls == [((x, 2), {"key": "v"})]
