"""Views made with grad mode off (PyTorch's CreationMeta NO_GRAD_MODE / INFERENCE_MODE): they
require grad when their base does, without a history and without an AccumulateGrad; changed
in place in grad mode, or read after their memory changed, they raise PyTorch's errors. The
program is tests/view_creation_cases.py, run on scalargrad and on PyTorch."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

import scalargrad as torch

_spec = importlib.util.spec_from_file_location("view_creation_cases",
                                               pathlib.Path(__file__).parent / "view_creation_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


@pytest.mark.no_sympy_check  # backward through views that lead nowhere
def test_views_made_with_grad_mode_off_match_pytorch(torch_ref):
    got, want = cases.run(torch), cases.run(torch_ref)
    assert [label for label, _ in got] == [label for label, _ in want]
    for (label, g), (_, w) in zip(got, want):
        assert g == w, label


def test_a_view_made_under_no_grad_requires_grad_without_history():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with torch.no_grad():
        v = x[0]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None and v._base is x
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being modified inplace "
                                           "with grad mode enabled"):
        v.mul_(2)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]  # refused before anything was written


@pytest.mark.no_sympy_check  # backward through views that lead nowhere
def test_views_follow_their_base_requires_grad_as_pytorch(torch_ref):
    assert cases.run_follow(torch) == cases.run_follow(torch_ref)
