"""PyTorch's printing of tensors: ``tensor(0.6000)``, ``tensor([[0.5681],\\n        [0.4868]])``.

Follows ``torch/_tensor_str.py`` (PyTorch 2.13) with the default print options (precision 4,
line width 80, summarization above 1000 elements with 3 edge items, no forced scientific
mode). The element format is chosen over the nonzero finite elements only (``_Formatter``):
all integral prints ``5.``; scientific notation when the largest magnitude exceeds 1e8 or
the magnitudes span more than a factor of 1000, and, for non-integral values, when the
smallest is below 1e-4. Every element is padded to the widest nonzero finite one; rows wrap
at the line width; the ``dtype=`` / ``grad_fn=`` suffixes move to a new line when the last
line would grow past 80 characters.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

PRECISION = 4
LINEWIDTH = 80
THRESHOLD = 1000
EDGEITEMS = 3


class _Formatter:
    """Chooses one format and width for all elements shown (``torch._tensor_str._Formatter``)."""

    __slots__ = ("floating", "int_mode", "sci_mode", "max_width")

    def __init__(self, values: Sequence, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = [v for v in values if math.isfinite(v) and v != 0]
        if not finite:
            return
        mags = [abs(v) for v in finite]
        lo, hi = min(mags), max(mags)
        self.int_mode = all(v == math.ceil(v) for v in finite)
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
            if self.sci_mode:
                self.max_width = max(len(f"{v:.{PRECISION}e}") for v in finite)
            else:
                self.max_width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
            if self.sci_mode:
                self.max_width = max(len(f"{v:.{PRECISION}e}") for v in finite)
            else:
                self.max_width = max(len(f"{v:.{PRECISION}f}") for v in finite)

    def format(self, v) -> str:
        if self.floating:
            if self.sci_mode:
                ret = f"{v:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                ret = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    ret += "."
            else:
                ret = f"{v:.{PRECISION}f}"
        else:
            ret = str(v)
        return " " * (self.max_width - len(ret)) + ret


def _size(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _summarized(values: Sequence, shape: Sequence[int]) -> list:
    """The elements a summarized print shows (``get_summarized_data``), for the formatter."""
    if not shape:
        return list(values)
    step = _size(shape[1:])
    n0 = shape[0]
    if len(shape) == 1:
        if n0 > 2 * EDGEITEMS:
            return list(values[:EDGEITEMS]) + list(values[n0 - EDGEITEMS:])
        return list(values)
    rows = list(range(EDGEITEMS)) + list(range(n0 - EDGEITEMS, n0)) if n0 > 2 * EDGEITEMS else range(n0)
    out = []
    for i in rows:
        out.extend(_summarized(values[i * step:(i + 1) * step], shape[1:]))
    return out


def _body(values: Sequence, shape: Sequence[int], indent: int, summarize: bool, fmt: _Formatter) -> str:
    """``_tensor_str_with_formatter``: the bracketed text of one (sub)tensor."""
    if not shape:
        return fmt.format(values[0])
    n0 = shape[0]
    if len(shape) == 1:
        element_length = fmt.max_width + 2
        per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
        if summarize and n0 > 2 * EDGEITEMS:
            data = ([fmt.format(v) for v in values[:EDGEITEMS]] + [" ..."]
                    + [fmt.format(v) for v in values[n0 - EDGEITEMS:n0]])
        else:
            data = [fmt.format(v) for v in values[:n0]]
        lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
        return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"
    step = _size(shape[1:])

    def sub(i: int) -> str:
        return _body(values[i * step:(i + 1) * step], shape[1:], indent + 1, summarize, fmt)

    if summarize and n0 > 2 * EDGEITEMS:
        slices = [sub(i) for i in range(EDGEITEMS)] + ["..."] + [sub(i) for i in range(n0 - EDGEITEMS, n0)]
    else:
        slices = [sub(i) for i in range(n0)]
    return "[" + ("," + "\n" * (len(shape) - 1) + " " * (indent + 1)).join(slices) + "]"


def format_data(values: Sequence, shape: Sequence[int], floating: bool, indent: int) -> str:
    """The bracketed body of a tensor repr: ``5.``, ``[5.]``, ``[[0.2500, 0.5000]]``.
    ``values`` are the elements in row-major order."""
    numel = _size(shape)
    if numel == 0:
        return "[]"
    summarize = numel > THRESHOLD
    fmt = _Formatter(_summarized(values, shape) if summarize else values, floating)
    return _body(values, tuple(shape), indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    """Append ``, suffix`` items, starting a new line when the line would pass the width."""
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(values: Sequence, shape: Sequence[int], dtype, *, requires_grad: bool = False,
                grad_fn: str | None = None, default_dtype=None, prefix: str = "tensor(") -> str:
    """The full repr: data, then dtype when not implied, then grad_fn or requires_grad."""
    indent = len(prefix)
    suffixes = []
    numel = _size(shape)
    implicit = (dtype is default_dtype) or dtype.name in ("int64", "bool")
    if numel == 0:
        if len(shape) != 1:
            suffixes.append(f"size={tuple(shape)!r}")
        if dtype is not default_dtype:
            suffixes.append(f"dtype={dtype!r}")
        text = "[]"
    else:
        if not implicit:
            suffixes.append(f"dtype={dtype!r}")
        text = format_data(values, shape, dtype.is_floating_point, indent)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + text, suffixes, indent)
