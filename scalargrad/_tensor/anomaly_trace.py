"""Anomaly mode's forward tracebacks: while it is on, each new node records where the program
made it, and backward names that place when the node's backward fails or returns NaN."""

from __future__ import annotations

import os
import sys

from .._base import anomaly
from .tensor import Tensor, ext, node_watchers, watch

__all__ = ["record", "forward_trace", "report"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # scalargrad/
# where PyTorch 2.13's C++ warns, as its message ends: the two warnings come from two lines
_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{}.)"
_NO_TRACE_LINE, _TRACE_LINE = 100, 122


def record(v: Tensor) -> None:
    """Keep the program's stack (scalargrad's own frames left out, as PyTorch's ops are C++)."""
    if not anomaly.state.enabled:
        return
    frames = []
    f = sys._getframe(1)
    while f is not None:
        if not os.path.abspath(f.f_code.co_filename).startswith(_PACKAGE):
            frames.append((f.f_code.co_filename, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    frames.reverse()
    ext(v).trace = tuple(frames)


def forward_trace(v: Tensor) -> str | None:
    """The recorded stack in ``traceback.format_stack``'s words, or None."""
    e = v._ext
    frames = e.trace if e is not None else None
    if frames is None:
        return None
    import linecache

    lines = []
    for filename, lineno, name in frames:
        lines.append(f'  File "{filename}", line {lineno}, in {name}\n')
        code = linecache.getline(filename, lineno).strip()
        if code:
            lines.append(f"    {code}\n")
    return "".join(lines)


def report(v: Tensor) -> None:
    """PyTorch's warning naming the forward call of the node whose backward failed."""
    import warnings

    name = v.grad_fn.name()
    trace = forward_trace(v)
    if trace is None:
        text = (f"Error detected in {name}. No forward pass information available. Enable detect anomaly during "
                "forward pass for more information." + _TRIGGERED.format(_NO_TRACE_LINE))
    else:
        text = (f"Error detected in {name}. Traceback of forward call that caused the error:\n{trace}"
                + _TRIGGERED.format(_TRACE_LINE))
    try:
        warnings.warn(text, UserWarning, stacklevel=2)
    except Warning as w:
        # a filter made it an error while backward is already failing: PyTorch prints it to
        # stderr and raises backward's own error
        import sys

        print(f"{type(w).__name__}: {w}", file=sys.stderr)


node_watchers.append(record)
anomaly.listeners.append(lambda on: watch("anomaly", on))
