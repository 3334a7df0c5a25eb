"""What a check found: one ``InputCheck`` per input element, in a ``SymbolicReport``."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SymbolicMismatch", "InputCheck", "SymbolicReport", "BackwardChecks"]


class SymbolicMismatch(AssertionError):
    """autograd's gradient differs from the one SymPy proves (the message is the report)."""


@dataclass
class InputCheck:
    """The verdict on one input element's gradient.

    ``status``: 'ok'; 'convention' (agrees, through a PyTorch convention at a point where
    calculus gives no derivative: see ``notes``); 'hook' (a hook changed it on purpose);
    'custom backward' (a custom autograd.Function's backward departs from the derivative
    of the form it declares: ``notes`` give both values); 'unverifiable' (a custom
    autograd.Function without a declared form is on its path); 'mismatch'.
    """

    name: str
    autograd: float | None
    symbolic: float | None
    expression: str | None = None  # d(output)/d(input), e.g. 'q/x' (whole strategy)
    at_point: str | None = None  # the same with the other inputs at their values, e.g. '3/x'
    status: str = "ok"
    tolerance: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return self.status in ("ok", "convention")


@dataclass
class SymbolicReport:
    """What ``sympy_check`` found: one ``InputCheck`` per input element (named ``x`` for a
    0-dim tensor, ``x[0, 1]`` for an element of one with dimensions), and failed op rules."""

    inputs: list
    strategy: str
    nodes: int
    dtype: str
    expression: str | None = None
    failures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    label: str = "sympy_check"
    elements: int = 0  # the elements the nodes were expanded into (0: none had dimensions)

    @property
    def ok(self) -> bool:
        """No gradient and no op rule contradicts SymPy (hooks and custom Functions aside)."""
        return not self.failures and all(c.status != "mismatch" for c in self.inputs)

    @property
    def verified(self) -> bool:
        """Every gradient was proved (nothing altered by a hook, nothing unverifiable)."""
        return self.ok and all(c.agree for c in self.inputs)

    def __getitem__(self, name: str) -> InputCheck:
        for c in self.inputs:
            if c.name == name:
                return c
        raise KeyError(name)

    def __str__(self) -> str:
        size = f"{self.nodes} node{'s' * (self.nodes != 1)}"
        if self.elements:
            size += f", {self.elements} element{'s' * (self.elements != 1)}"
        head = f"{self.label}: {'OK' if self.ok else 'MISMATCH'} ({self.strategy} strategy, {size}, {self.dtype})"
        lines = [head]
        if self.expression is not None:
            lines.append(f"  output = {_shorten(self.expression)}")
        rows = [("input", "autograd", "SymPy", "d/d(input)", "at the point", "status")]
        for c in self.inputs:
            rows.append((c.name, _num(c.autograd), _num(c.symbolic), _shorten(c.expression or "-", 40),
                         _shorten(c.at_point or "-", 40), c.status))
        widths = [max(len(r[i]) for r in rows) for i in range(6)]
        for r in rows:
            lines.append("  " + "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
        notes = []
        for c in self.inputs:
            for n in c.notes:
                notes.append(f"{c.name}: {n}")
        for n in self.notes:
            notes.append(n)
        for f in self.failures:
            notes.append(f"rule failure: {f}")
        if notes:
            lines.append("  notes:")
            lines.extend(f"    - {n}" for n in notes)
        return "\n".join(lines)


def _num(x) -> str:
    if x is None:
        return "None"
    return f"{x:.8g}"


def _shorten(s: str, n: int = 200) -> str:
    return s if len(s) <= n else s[:n - 3] + "..."


class BackwardChecks(list):
    """The reports of the backward calls made inside ``check_every_backward``, in order."""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self)

    def __str__(self) -> str:
        if not self:
            return "check_every_backward: no backward call"
        return "\n".join(str(r) for r in self)
