"""Anomaly mode: detect_anomaly / set_detect_anomaly / is_anomaly_enabled, the warning naming
the forward call of a failing node, the NaN check, and the version error's other hint."""

from __future__ import annotations

import warnings

import pytest

import scalargrad as torch

ENABLED = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
           "for debugging.")
# PyTorch 2.13 warns from two lines of python_anomaly_mode.cpp: 122 with a forward traceback, 100 without
TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)"
TRIGGERED_NO_TRACE = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:100.)"


def _messages(caught) -> list:
    return [str(w.message) for w in caught]


def test_flags():
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    with pytest.warns(UserWarning, match="^Anomaly Detection has been enabled"):
        ctx = torch.autograd.detect_anomaly(check_nan=False)
    with ctx:
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    torch.autograd.set_detect_anomaly(True)
    try:
        assert torch.is_anomaly_enabled()
    finally:
        torch.autograd.set_detect_anomaly(False)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
    assert not torch.is_anomaly_enabled()


@pytest.mark.no_sympy_check  # 0 / 0 on purpose
def test_nan_is_reported_with_the_forward_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            x = torch.tensor([0.0, 1.0], requires_grad=True)
            y = x / x  # d/d(other) = -x / x^2: 0 / 0 at x = 0
            with pytest.raises(RuntimeError) as err:
                y.sum().backward()
    # the gradient for the second input (the same x) is the NaN one
    assert str(err.value) == "Function 'DivBackward0' returned nan values in its 1th output."
    messages = _messages(caught)
    assert messages[0] == ENABLED
    assert messages[1].startswith("Error detected in DivBackward0. Traceback of forward call that caused the "
                                  "error:\n  File \"")
    assert messages[1].endswith("in test_nan_is_reported_with_the_forward_line\n    y = x / x  # d/d(other) = -x / "
                                "x^2: 0 / 0 at x = 0\n" + TRIGGERED)
    assert "scalargrad" not in messages[1].split("\n")[-3]  # scalargrad's own frames are left out


@pytest.mark.no_sympy_check  # the saved tensor changes on purpose
def test_version_error_hint_and_check_nan_off():
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        (x / x).sum().backward()  # no NaN check
        assert x.grad.tolist()[1] == 0.0 and x.grad.tolist()[0] != x.grad.tolist()[0]
        h = x * 1
        y = h * h
        h.add_(1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError) as err:
                y.sum().backward()
    assert str(err.value).endswith("is at version 1; expected version 0 instead. Hint: the backtrace further above "
                                   "shows the operation that failed to compute its gradient. The variable in "
                                   "question was changed in there or anywhere later. Good luck!")
    assert _messages(caught)[0].startswith("Error detected in MulBackward0.")
    assert "    y = h * h\n" in _messages(caught)[0]


def test_node_made_before_anomaly_mode():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = (x / x).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.set_detect_anomaly(True), pytest.raises(RuntimeError, match="returned nan values"):
            y.backward()
    assert _messages(caught) == [
        "Error detected in DivBackward0. No forward pass information available. Enable detect anomaly during "
        "forward pass for more information." + TRIGGERED_NO_TRACE]


def test_matches_pytorch(torch_ref):
    def run(lib):
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                x = lib.tensor([0.0, 1.0], requires_grad=True)
                z = x.sqrt() * 2
                try:
                    z.sum().backward()
                    out.append(repr(x.grad))
                except RuntimeError as exc:
                    out.append(str(exc))
                w = lib.tensor([4.0, 9.0], requires_grad=True)
                (w.sqrt() * w).sum().backward()
                out.append(repr(w.grad))
        out.extend(str(w.message).split("Traceback")[0] for w in caught)
        return out

    assert run(torch) == run(torch_ref)


def test_warning_without_forward_information_matches_pytorch(torch_ref):
    def run(lib):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        y = (x / x).sum()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.set_detect_anomaly(True), pytest.raises(RuntimeError):
                y.backward()
        return _messages(caught)

    assert run(torch) == run(torch_ref)


def _report_under_an_error_filter(lib) -> tuple:
    # PyTorch's own test_anomaly_grad_warnings: a filter that turns the "Error detected in"
    # warning into an error while backward fails prints it to stderr; backward's error is raised
    import contextlib
    import io
    import warnings

    err = io.StringIO()
    with warnings.catch_warnings(record=True) as w, contextlib.redirect_stderr(err):
        with lib.autograd.detect_anomaly():
            warnings.simplefilter("error")
            a = lib.randn(5, requires_grad=True)
            d1 = a + 1
            d2 = d1 ** 2
            d1 += 1
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                lib.autograd.grad(d2.sum(), a)
    return [str(x.message)[:34] for x in w], err.getvalue().startswith("UserWarning: Error detected in PowBackward0.")


def test_an_error_filter_prints_the_report_as_pytorch_does(torch_ref):
    assert _report_under_an_error_filter(torch) == _report_under_an_error_filter(torch_ref)
