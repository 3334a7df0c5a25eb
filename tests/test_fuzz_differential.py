"""The differential fuzzer against live PyTorch: a fixed-seed run within about a minute (issue 14).

One campaign (seed 14, the fixed mix of graphs, error paths, module trees and threads, at most
``PROGRAMS`` programs within ``BUDGET`` seconds) runs once per session; its figures are given
as a ``FuzzFigures`` warning (shown in pytest's warnings summary, whatever the outcome) and
checked strictly against issue 14's thresholds, every one of which scalargrad meets (the causes
found and mended are in tests/fuzz/TRIAGE.md).
The fuzzer's own soundness (PyTorch agrees with itself) is checked strictly.

The long run: ``python -m tests.fuzz --seed 14 --programs 28000`` (see tests/fuzz/TRIAGE.md).
"""

from __future__ import annotations

import warnings

import pytest

from tests.fuzz.campaign import KINDS, Campaign, program_for
from tests.fuzz.compare import compare
from tests.fuzz.interpreter import run_program

pytestmark = [pytest.mark.no_sympy_check, pytest.mark.slow]

SEED = 14
PROGRAMS = 20_000
BUDGET = 55.0  # seconds, on the project's 2-core machine about 16,000 programs
_RUN: dict = {}


class FuzzFigures(UserWarning):
    """The campaign's figures, reported in pytest's warnings summary."""


def _campaign(torch) -> Campaign:
    if "campaign" not in _RUN:
        import scalargrad

        campaign = Campaign(SEED, sg=scalargrad, torch=torch)
        campaign.run(PROGRAMS, time_budget=BUDGET)
        _RUN["campaign"] = campaign
        warnings.warn(FuzzFigures(f"differential fuzzer, seed {SEED}: {campaign.stats.summary()}"), stacklevel=1)
    return _RUN["campaign"]


@pytest.mark.parametrize("kind", KINDS)
def test_pytorch_agrees_with_itself(torch_ref, kind):
    # the comparator and the interpreter, with PyTorch on both sides: any divergence is the
    # fuzzer's own (a nondeterministic encoding, a wrong rule), not a library's
    for i in range(150):
        p = program_for(SEED, i, kind)
        v = compare(p, run_program(p, torch_ref), run_program(p, torch_ref))
        assert all(d.cls == "failed_load_changed_state" for d in v.divergences), \
            (p.source(), [d.detail for d in v.divergences])


def test_the_campaign_covers_every_kind(torch_ref):
    stats = _campaign(torch_ref).stats
    assert stats.programs >= 2000, stats.summary()
    assert set(stats.by_kind) == set(KINDS)
    assert stats.cases["value"] and stats.cases["error"] and stats.cases["module"]


# issue 14's bars; a figure that misses its bar is the assertion's message
THRESHOLDS = {
    "value cases agree >= 99%": lambda st: st.rate("value") >= 0.99,
    "error cases agree >= 97%": lambda st: st.rate("error") >= 0.97,
    "module cases agree >= 99%": lambda st: st.rate("module") >= 0.99,
    "no raw Python errors": lambda st: st.any_class["raw_error"] == 0,
    "no silently wrong gradients": lambda st: st.any_class["silently_wrong_grad"] == 0,
    "no failed load changes state": lambda st: st.any_class["failed_load_changed_state"] == 0,
}


# the bars on values compare PyTorch's numbers to the bit with scalargrad's model of ATen's
# vector kernels, whose multiply-adds are fused (AVX2, AVX512: every x86-64 processor CI runs
# on); ATen's generic code (ATEN_CPU_CAPABILITY=default) rounds each product first, a kernel set
# scalargrad does not model, so there only the bars that do not read a value's last bit hold
VALUE_BARS = {"value cases agree >= 99%", "module cases agree >= 99%", "no silently wrong gradients"}


@pytest.mark.parametrize("bar", THRESHOLDS)
def test_issue_14_thresholds(torch_ref, bar):
    from faithfulness import fuses

    if bar in VALUE_BARS and not fuses(torch_ref):
        pytest.skip("PyTorch runs ATen's generic kernels (no fused multiply-add), which scalargrad does not model")
    stats = _campaign(torch_ref).stats
    assert THRESHOLDS[bar](stats), f"{bar}: not met\n{stats.summary()}"
