"""PyTorch's printing of tensors: ``tensor(0.6000)``, ``tensor(5., requires_grad=True)``.

Follows ``torch/_tensor_str.py`` with the default print options (precision 4, no forced
scientific mode): integral floats print as ``5.``; scientific notation is used when the
largest magnitude exceeds 1e8, when (for non-integral values) the smallest nonzero magnitude
is below 1e-4, or when the magnitudes span more than a factor of 1000.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

PRECISION = 4
LINEWIDTH = 80


def _formatter(values: Sequence, floating: bool):
    """Return a function formatting one element, and the common width, for these values."""
    if not floating:
        strs = [str(v) for v in values]
        width = max((len(s) for s in strs), default=0)
        return (lambda v: str(v)), width
    finite = [abs(v) for v in values if math.isfinite(v) and v != 0]
    int_mode = all(float(v).is_integer() for v in values if math.isfinite(v))
    sci = False
    if finite:
        lo, hi = min(finite), max(finite)
        if int_mode:
            sci = hi / lo > 1000.0 or hi > 1.0e8
        else:
            sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4

    def fmt(v: float) -> str:
        if not math.isfinite(v):
            return str(v)  # 'inf', '-inf', 'nan'
        if sci:
            return f"{v:.{PRECISION}e}"
        if int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    width = max((len(fmt(v)) for v in values), default=0)
    return fmt, width


def format_data(values: Sequence, shape: Sequence[int], floating: bool, indent: int) -> str:
    """The bracketed body of a tensor repr: ``5.``, ``[5.]``, ``[[0.2500, 0.5000]]``."""
    fmt, width = _formatter(values, floating)
    if not shape:
        return fmt(values[0])

    def body(offset: int, dims: Sequence[int], depth: int) -> str:
        if len(dims) == 1:
            cells = [fmt(values[offset + i]).rjust(width) for i in range(dims[0])]
            # wrap long rows the way PyTorch does: as many cells per line as fit
            per_line = max(1, (LINEWIDTH - indent - depth) // (width + 2))
            lines = [", ".join(cells[i:i + per_line]) for i in range(0, len(cells), per_line)]
            return "[" + (",\n" + " " * (indent + depth + 1)).join(lines) + "]"
        step = 1
        for d in dims[1:]:
            step *= d
        sep = "," + "\n" * (len(dims) - 1) + " " * (indent + depth + 1)
        return "[" + sep.join(body(offset + i * step, dims[1:], depth + 1) for i in range(dims[0])) + "]"

    return body(0, list(shape), 0)


def tensor_repr(values: Sequence, shape: Sequence[int], dtype, *, requires_grad: bool = False,
                grad_fn: str | None = None, default_dtype=None, prefix: str = "tensor(") -> str:
    """The full repr: data, then dtype when not the default, then grad_fn or requires_grad."""
    floating = dtype.is_floating_point
    text = format_data(values, shape, floating, len(prefix))
    suffixes = []
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        text = "[]"
    implicit = (dtype is default_dtype) or dtype.name in ("int64", "bool")
    if not implicit:
        suffixes.append(f"dtype={dtype!r}")
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + text + "".join(", " + s for s in suffixes) + ")"
