"""Named differences: the ways an older PyTorch (or the page that printed its output) differs
from what PyTorch 2.13 prints, without the computation being different.

A document written for PyTorch 1.x shows ``grad_fn=<LogBackward>`` where 2.13 prints
``LogBackward0``; a blog engine strips white space and ``<...>``. ``classify`` tells such a
cell (``named difference``, with the names) from one whose output really differs. Each rule
rewrites both texts the same way; the texts count as equal under the smallest set of rules
that makes them equal. The catalogue in ``reference/`` names the same differences by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Rule", "RULES", "UNSEEDED_RANDOM", "classify", "normalise"]

_ADDR = re.compile(r"0x[0-9a-fA-F]{6,}")


@dataclass(frozen=True)
class Rule:
    """One way two outputs may differ without the computation differing."""

    name: str
    explanation: str
    apply: Callable[[str], str]


def normalise(text: str) -> str:
    """What never counts as a difference: memory addresses, line endings, white space at the
    end of lines, blank lines at the start and the end."""
    text = _ADDR.sub("0xADDR", text.replace("\r\n", "\n"))
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def _node_index(text: str) -> str:
    return re.sub(r"\b(\w+Backward)\d+\b", r"\1", text)


def _split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside brackets and string quotes."""
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


def _matching(text: str, open_at: int) -> int:
    """Index of the bracket closing the one at ``open_at`` (-1 if none)."""
    depth, quote, i = 0, "", open_at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _ordered_dict(text: str) -> str:
    """``OrderedDict([('a', 1)])`` (Python < 3.12), ``OrderedDict({'a': 1})`` and
    ``OrderedDict()`` as the plain dict ``{'a': 1}``."""
    out, pos = [], 0
    while True:
        k = text.find("OrderedDict(", pos)
        if k < 0:
            break
        close = _matching(text, k + len("OrderedDict"))
        if close < 0:
            break
        inner = text[k + len("OrderedDict("):close].strip()
        if inner.startswith("[") and inner.endswith("]"):
            items = []
            for item in _split_top(inner[1:-1]):
                item = item.strip()
                if item.startswith("(") and item.endswith(")"):
                    kv = _split_top(item[1:-1])
                    if len(kv) == 2:
                        items.append(f"{kv[0].strip()}: {kv[1].strip()}")
                        continue
                items = None
                break
            replacement = None if items is None else "{" + ", ".join(items) + "}"
        elif inner.startswith("{") or not inner:
            replacement = inner or "{}"
        else:
            replacement = None
        out.append(text[pos:k])
        out.append(_ordered_dict(replacement) if replacement is not None else text[k:close + 1])
        pos = close + 1
    out.append(text[pos:])
    return "".join(out)


def _container_order(text: str) -> str:
    """The entries of a printed ``ModuleDict`` / ``ParameterDict`` in sorted order."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        out.append(lines[i])
        if re.search(r"\b(?:ModuleDict|ParameterDict)\($", lines[i].rstrip()):
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(")"):
                j += 1
            out += sorted(lines[i + 1:j], key=str.strip)
            i = j
            continue
        i += 1
    return "\n".join(out)


def _angle_brackets(text: str) -> str:
    return re.sub(r"<[^<>\n]*>", "", text)


def _white_space(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _numbers(text: str) -> str:
    return re.sub(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?", "#", text)


RULES = [
    Rule("node names gained an index",
         "PyTorch 1.10 and later name graph nodes with an index: LogBackward is now LogBackward0", _node_index),
    Rule("OrderedDict printed as dict",
         "an older PyTorch (or Python) printed these dictionaries as OrderedDict(...)", _ordered_dict),
    Rule("ModuleDict order",
         "an older PyTorch sorted the keys of a plain dict given to ModuleDict/ParameterDict; "
         "PyTorch 2.13 keeps their order", _container_order),
    Rule("text in angle brackets dropped",
         "the page dropped text in angle brackets, as HTML does (grad_fn=<AddBackward0> became grad_fn=)",
         _angle_brackets),
    Rule("white space",
         "the page's white space differs (indentation, blank lines, line breaks)", _white_space),
]

UNSEEDED_RANDOM = Rule("unseeded random numbers",
                       "the cell draws random numbers without torch.manual_seed: PyTorch seeds its generator "
                       "from the operating system, so no two runs print the same",
                       _numbers)


def classify(expected: str, produced: str, rules: list[Rule] | None = None) -> tuple[bool, list[Rule]]:
    """(equal?, the rules needed): ``(True, [])`` when the texts agree as they are (after
    ``normalise``), ``(True, rules)`` when they agree under those named differences and under
    no smaller set of them, ``(False, [])`` otherwise."""
    rules = RULES if rules is None else rules
    want, got = normalise(expected), normalise(produced)
    if want == got:
        return True, []
    applied: list[Rule] = []
    for rule in rules:
        applied.append(rule)
        if _equal_under(want, got, applied):
            break
    else:
        return False, []
    for rule in list(reversed(applied)):  # the smallest set: drop each rule that is not needed
        fewer = [r for r in applied if r is not rule]
        if _equal_under(want, got, fewer):
            applied = fewer
    return True, applied


def _equal_under(want: str, got: str, rules: list[Rule]) -> bool:
    for rule in rules:
        want, got = rule.apply(want), rule.apply(got)
    return want == got
