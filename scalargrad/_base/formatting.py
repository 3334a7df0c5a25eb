"""PyTorch's printing of tensors: ``tensor(0.6000)``, ``tensor([[0.5681],\\n        [0.4868]])``.

Follows ``torch/_tensor_str.py`` (PyTorch 2.13) under the print options ``set_printoptions``
sets (by default precision 4, line width 80, summarization above 1000 elements with 3 edge
items, scientific notation chosen per tensor). The element format is chosen over the nonzero
finite elements only (``_Formatter``): all integral prints ``5.``; scientific notation when the
largest magnitude exceeds 1e8 or the magnitudes span more than a factor of 1000, and, for
non-integral values, when the smallest is below 1e-4 (unless ``sci_mode`` forces it on or off).
Every element is padded to the widest nonzero finite one; rows wrap at the line width; the
``dtype=`` / ``grad_fn=`` suffixes move to a new line when the last line would grow past it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


class PrintOptions:
    """The options every tensor repr reads (``torch._tensor_str.PRINT_OPTS``)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self) -> None:
        self.precision = 4
        self.threshold: float = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode: bool | None = None


OPTIONS = PrintOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """``torch.set_printoptions``: a ``profile`` (``"default"``, ``"short"``, ``"full"``) first,
    then each option given. ``sci_mode`` is always set: leaving it out turns forced scientific
    notation off again, as in PyTorch."""
    if profile in _PROFILES:
        OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems, OPTIONS.linewidth = _PROFILES[profile]
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current options, as keyword arguments for ``set_printoptions``
    (``torch._tensor_str.get_printoptions``)."""
    return {name: getattr(OPTIONS, name) for name in PrintOptions.__slots__}


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
        p = OPTIONS.precision
        if OPTIONS.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = OPTIONS.sci_mode
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{p}e}") for v in finite)
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.max_width = max(len(f"{v:.{p}f}") for v in finite)

    def format(self, v) -> str:
        if self.floating:
            if self.sci_mode:
                ret = f"{v:{self.max_width}.{OPTIONS.precision}e}"
            elif self.int_mode:
                ret = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    ret += "."
            else:
                ret = f"{v:.{OPTIONS.precision}f}"
        else:
            ret = str(v)
        return " " * (self.max_width - len(ret)) + ret


class _ComplexFormatter:
    """Complex elements: the real parts and the imaginary parts each get a ``_Formatter`` of
    their own (their own width and mode), joined as ``1.+2.j`` (``_tensor_str._val_formatter``).
    ``max_width`` is what an element takes besides ``, ``: both widths and the ``j``."""

    __slots__ = ("real", "imag", "max_width")

    def __init__(self, values: Sequence) -> None:
        self.real = _Formatter([z.real for z in values], True)
        self.imag = _Formatter([z.imag for z in values], True)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, z) -> str:
        real = self.real.format(z.real)
        imag = (self.imag.format(z.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _size(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _summarized(values: Sequence, shape: Sequence[int]) -> list:
    """The elements a summarized print shows (``get_summarized_data``), for the formatter."""
    if not shape:
        return list(values)
    e = OPTIONS.edgeitems
    step = _size(shape[1:])
    n0 = shape[0]
    if len(shape) == 1:
        if n0 > 2 * e:
            # values[-e:] is all of them when e == 0, as PyTorch's self[-0:] is
            return list(values[:e]) + list(values[-e:])
        return list(values)
    if not e:
        return []
    rows = list(range(e)) + list(range(n0 - e, n0)) if n0 > 2 * e else range(n0)
    out = []
    for i in rows:
        out.extend(_summarized(values[i * step:(i + 1) * step], shape[1:]))
    return out


def _body(values: Sequence, shape: Sequence[int], indent: int, summarize: bool, fmt: _Formatter) -> str:
    """``_tensor_str_with_formatter``: the bracketed text of one (sub)tensor."""
    if not shape:
        return fmt.format(values[0])
    e = OPTIONS.edgeitems
    n0 = shape[0]
    if len(shape) == 1:
        element_length = fmt.max_width + 2
        per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / element_length)))
        if summarize and not e:
            data = ["..."]
        elif summarize and n0 > 2 * e:
            data = [fmt.format(v) for v in values[:e]] + [" ..."] + [fmt.format(v) for v in values[n0 - e:n0]]
        else:
            data = [fmt.format(v) for v in values[:n0]]
        lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
        return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"
    step = _size(shape[1:])

    def sub(i: int) -> str:
        return _body(values[i * step:(i + 1) * step], shape[1:], indent + 1, summarize, fmt)

    if summarize and n0 > 2 * e:
        slices = [sub(i) for i in range(e)] + ["..."] + [sub(i) for i in range(n0 - e, n0)]
    else:
        slices = [sub(i) for i in range(n0)]
    return "[" + ("," + "\n" * (len(shape) - 1) + " " * (indent + 1)).join(slices) + "]"


def format_data(values: Sequence, shape: Sequence[int], floating: bool, indent: int, is_complex: bool = False) -> str:
    """The bracketed body of a tensor repr: ``5.``, ``[5.]``, ``[[0.2500, 0.5000]]``.
    ``values`` are the elements in row-major order (Python complex numbers when ``is_complex``)."""
    numel = _size(shape)
    if numel == 0:
        return "[]"
    summarize = numel > OPTIONS.threshold
    shown = _summarized(values, shape) if summarize else values
    fmt = _ComplexFormatter(shown) if is_complex else _Formatter(shown, floating)
    return _body(values, tuple(shape), indent, summarize, fmt)


def add_suffixes(text: str, suffixes: list, indent: int, force_newline: bool = False) -> str:
    """Append ``, suffix`` items, starting a new line when the line would pass the width (and
    for the first suffix when ``force_newline``: a sparse tensor's ``size=`` starts a line)."""
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(values: Sequence, shape: Sequence[int], dtype, *, requires_grad: bool = False,
                grad_fn: str | None = None, default_dtype=None, prefix: str = "tensor(",
                tangent: str | None = None) -> str:
    """The full repr: data, then dtype when not implied, then grad_fn or requires_grad, then the
    forward-mode tangent (as formatted: a number for a 0-dim one)."""
    indent = len(prefix)
    suffixes = []
    numel = _size(shape)
    # the default complex dtype (complex64, complex128 under float64) is not printed either
    implicit = (dtype is default_dtype) or dtype.name in ("int64", "bool") or (
        dtype.is_complex and default_dtype is not None and dtype.to_real() is default_dtype)
    if numel == 0:
        if len(shape) != 1:
            suffixes.append(f"size={tuple(shape)!r}")
        if dtype is not default_dtype:
            suffixes.append(f"dtype={dtype!r}")
        text = "[]"
    else:
        if not OPTIONS.edgeitems:  # no element shown at all in a summarized print: say the size
            suffixes.append(f"size={tuple(shape)!r}")
        if not implicit:
            suffixes.append(f"dtype={dtype!r}")
        text = format_data(values, shape, dtype.is_floating_point, indent, dtype.is_complex)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return add_suffixes(prefix + text, suffixes, indent)
