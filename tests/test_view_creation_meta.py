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


# ---------------------------------------------------------------- MULTI_OUTPUT_NODE (issue 22)

_MULTI = (" This view is the output of a function that returns multiple views. Such functions do not allow the "
          "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
_NO_GRAD_MULTI = ("RuntimeError: A view was created in no_grad mode and {} modified inplace with grad mode enabled."
                  + _MULTI)


def multi_output_events(L) -> list:
    """Outputs of unbind/split (PyTorch's MULTI_OUTPUT_NODE), and views of them, changed in place
    or read after their base changed: each step's outcome, in order."""
    ev: list = []
    w = L.tensor(1.0, requires_grad=True)

    def step(label, f):
        try:
            r = f()
            ev.append((label, r.tolist() if hasattr(r, "tolist") else r))
        except RuntimeError as exc:
            ev.append((label, f"RuntimeError: {exc}"))

    x = L.tensor([1.0, 2.0])  # does not require grad: the outputs have no grad_fn
    a = x.unbind(0)[0]
    step("no grad_fn, changed by an operand that requires grad", lambda: a.add_(w))
    step("no grad_fn, changed by a constant", lambda: a.add_(1))
    step("its base then", lambda: x)
    b = x.split(1)[1].view(1)
    step("a view of one", lambda: b.mul_(w))
    c = x.unbind(0)[1]
    x.add_(w)  # now x requires grad and records: c's history would be regenerated
    step("base changed, then read", lambda: c.requires_grad)
    step("base changed, then used", lambda: c * 2)
    y = L.tensor([[1.0, 2.0], [3.0, 4.0]]) * w  # requires grad: the outputs have SplitBackward0
    s = y.split(1)[0]
    step("an output with a grad_fn", lambda: s.mul_(2))
    step("a view of an output with a grad_fn", lambda: s[0].mul_(2))
    step("item assignment on it", lambda: s.__setitem__(0, 1.0))  # through the view s[0]
    step("slice assignment on it", lambda: s.__setitem__((slice(None), slice(0, 1)), 1.0))
    t = y.unbind(0)[1].view(2)
    y.mul_(2)
    step("base changed, its view's grad_fn read", lambda: t.grad_fn)
    return ev


# printed by PyTorch 2.13.0 (CPU) running multi_output_events
MULTI_OUTPUT_EXPECTED = [
    ("no grad_fn, changed by an operand that requires grad", _NO_GRAD_MULTI.format("is being")),
    ("no grad_fn, changed by a constant", 2.0),
    ("its base then", [2.0, 2.0]),
    ("a view of one", _NO_GRAD_MULTI.format("is being")),
    ("base changed, then read", True),
    ("base changed, then used", _NO_GRAD_MULTI.format("its base or another view of its base has been")),
    ("an output with a grad_fn", "RuntimeError: Output 0 of Split is a view and is being modified inplace."
     + _MULTI),
    ("a view of an output with a grad_fn", "RuntimeError: Output 0 of Select is a view and is being "
     "modified inplace." + _MULTI),
    ("item assignment on it", "RuntimeError: Output 0 of Select is a view and is being modified inplace." + _MULTI),
    ("slice assignment on it", "RuntimeError: Output 0 of Slice is a view and is being modified inplace." + _MULTI),
    ("base changed, its view's grad_fn read", "RuntimeError: Output 0 of View is a view and its base or "
     "another view of its base has been modified inplace." + _MULTI),
]


def test_multi_output_views_are_refused_as_pytorch():
    assert multi_output_events(torch) == MULTI_OUTPUT_EXPECTED


@pytest.mark.no_sympy_check  # nothing is differentiated
def test_multi_output_views_match_pytorch(torch_ref):
    assert multi_output_events(torch_ref) == MULTI_OUTPUT_EXPECTED
