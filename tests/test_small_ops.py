"""Small tensor ops real programs use (issue 23), each against live PyTorch 2.13: ``dim_order``'s
ambiguity checks, ... Every case compares values, dtype, strides and node names, or the refusal's
type and first line (``program_outcome.described``); only data movement and exact arithmetic, so
the figures are the same on every processor."""

from __future__ import annotations

import pytest
from program_outcome import described

import scalargrad

LAYOUTS = [
    lambda t: t.empty(2, 3, 5, 7), lambda t: t.empty(2, 3, 5, 7).transpose(1, 2),
    lambda t: t.empty(2, 3, 5, 7, memory_format=t.channels_last), lambda t: t.empty(1, 2, 3, 4),
    lambda t: t.empty(2, 1, 3), lambda t: t.empty(4, 4)[:, ::4], lambda t: t.empty(3).expand(2, 3),
    lambda t: t.empty(2, 3, 1, 1, memory_format=t.channels_last), lambda t: t.empty(5),
    lambda t: t.empty(2, 3).t(), lambda t: t.empty(3, 3)[::2, ::2], lambda t: t.empty(()),
]
CHECKS = [
    lambda t: False, lambda t: True, lambda t: [t.contiguous_format, t.channels_last],
    lambda t: [t.channels_last], lambda t: [], lambda t: "ILLEGAL", lambda t: [t.channels_last, 3],
    lambda t: [t.preserve_format],
]


@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
def test_dim_order(torch_ref, layout):
    for check in CHECKS:
        def call(t, make=LAYOUTS[layout], check=check):
            return make(t).dim_order(ambiguity_check=check(t))
        assert described(call, scalargrad) == described(call, torch_ref)
