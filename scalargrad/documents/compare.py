"""Comparing what a document shows with what scalargrad printed, token by token.

Both texts are cut into tokens: numbers (``-0.1234``, ``1e-05``, ``nan``), words
(``LogBackward0``, ``grad_fn``), memory addresses (``0x7f3a2c1b5e80``) and single punctuation
characters, each with the white space after it. What scalargrad printed becomes a *template*:

- a token is a literal the document must show, unless
- it is an address (any address matches: they differ from run to run by what they are), an
  ``id()`` value the cell computed (any number matches), or
- it differs between runs of the document from different unseeded generator states (see
  ``execute``): then any token of its kind matches, and a stretch whose length differs between
  the runs matches any stretch of the same kinds of tokens. Every number that is the same in
  every run is a literal.

The document's tokens are matched against the template by a small automaton, which takes a
named difference (``named_differences``) only where its precise rule allows it, and records
where: a historical node name where the template has its PyTorch 2.13 name; a ``<...>`` group
of scalargrad's text that the document lacks; an ``OrderedDict(...)`` wrapper the document has
around a dict scalargrad prints plain; white space that differs between two tokens (it never
joins or splits a token: ``1.5 2`` is two numbers and ``1.52`` one). A variant of the template
with the entries of each printed ModuleDict sorted by key stands for an older PyTorch's order.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from .named_differences import ANGLE_BRACKETS, NODE_NAMES, ORDERED_DICT, UNSEEDED, WHITE_SPACE, historical_node_name

__all__ = ["Token", "tokens", "Template", "template", "Match", "match", "normalise", "canonical_ordered_dicts",
           "moduledict_sorted", "Excused"]

_TOKEN = re.compile(r"""
    (?P<addr>0x[0-9a-fA-F]{6,})
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>(?:(?<![\w)\].])-)?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<space>\s+)
  | (?P<punct>.)
""", re.VERBOSE | re.DOTALL)
_NUMBER_WORDS = {"nan", "inf"}


def normalise(text: str) -> str:
    """What never counts: line endings, white space at the end of lines, blank lines at the
    start and the end."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "word", "addr", "punct"
    text: str
    gap: str  # the white space after it
    line: int  # 0-based line of the text where it is


def tokens(text: str) -> tuple[str, list[Token]]:
    """(the white space before the first token, the tokens of ``text``)."""
    out: list[Token] = []
    lead = ""
    line = 0
    for m in _TOKEN.finditer(text):
        kind, s = m.lastgroup, m.group()
        if kind == "space":
            if out:
                t = out[-1]
                out[-1] = Token(t.kind, t.text, t.gap + s, t.line)
            else:
                lead += s
            line += s.count("\n")
            continue
        if kind == "word" and s in _NUMBER_WORDS:
            kind = "num"
            before = text[m.start() - 2:m.start() - 1] if m.start() >= 2 else ""
            if out and out[-1].text == "-" and not out[-1].gap and not re.match(r"[\w)\].]", before):
                out.pop()  # -inf, -nan: one number, as -1.5 is
                s = "-" + s
        out.append(Token(kind, s, "", line))
    return lead, out


# ---------------------------------------------------------------- OrderedDict spellings

def _matching(text: str, open_at: int) -> int:
    """Index of the bracket closing the one at ``open_at`` (-1 if none); quotes respected."""
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


def _split_top(text: str) -> list[str]:
    """``text`` split at its top-level commas (brackets and quotes respected)."""
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
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


def canonical_ordered_dicts(text: str) -> tuple[str, int]:
    """``OrderedDict([('a', 1), ('b', 2)])`` (Python before 3.12, and IPython's display on every
    Python) and ``OrderedDict()`` re-spelled as Python 3.12 prints them,
    ``OrderedDict({'a': 1, 'b': 2})`` and ``OrderedDict({})``: the same object, one spelling.
    Returns the text and how many were re-spelled. The items' own text is kept as it is."""
    out, pos, changed = [], 0, 0
    while True:
        k = text.find("OrderedDict(", pos)
        if k < 0:
            break
        open_at = k + len("OrderedDict")
        close = _matching(text, open_at)
        if close < 0:
            break
        inner = text[open_at + 1:close]
        stripped = inner.strip()
        replacement = None
        if not stripped:
            replacement = "{}"
        elif stripped.startswith("[") and stripped.endswith("]"):
            lead = inner[:len(inner) - len(inner.lstrip())]
            body = stripped[1:-1]
            items = []
            for item in (_split_top(body) if body.strip() else []):
                s = item.strip()
                if not (s.startswith("(") and s.endswith(")")):
                    items = None
                    break
                kv = _split_top(s[1:-1])
                if len(kv) != 2:
                    items = None
                    break
                before = item[:len(item) - len(item.lstrip())]
                items.append(f"{before}{kv[0].strip()}: {kv[1].strip()}")
            if items is not None:
                replacement = lead + "{" + ",".join(items) + "}"
        out.append(text[pos:k])
        if replacement is None:
            out.append(text[k:close + 1])
        else:
            inner_text, n = canonical_ordered_dicts(replacement)
            out.append("OrderedDict(" + inner_text + ")")
            changed += 1 + n
        pos = close + 1
    out.append(text[pos:])
    return "".join(out), changed


# ---------------------------------------------------------------- the template


@dataclass
class Item:
    """One place of the template: a literal token, one token of given kinds (``var``), or a
    stretch of any length of such tokens (``hole``)."""

    kind: str  # "lit", "var", "hole"
    text: str  # the token scalargrad printed (the first one, for a hole)
    line: int  # its line in scalargrad's text
    kinds: frozenset = frozenset()
    words: frozenset = frozenset()  # a hole's words and punctuation seen in the runs
    gap: str | None = ""  # the white space after it; None: it differs between runs
    why: str = ""  # var/hole: UNSEEDED, "address", "id() value"
    tie: int = -1  # a var that equals the other vars of this tie in every run: the document's must too


@dataclass
class Template:
    lead: str | None  # white space before the first token (None: varies)
    items: list
    text: str  # scalargrad's text (normalised)


def _aligned(a: list[Token], b: list[Token]) -> bool:
    return len(a) == len(b) and all(x.kind == y.kind for x, y in zip(a, b))


def template(runs: list[str], ids: frozenset = frozenset(), varies: str = UNSEEDED) -> Template:
    """The template of scalargrad's text ``runs[0]``, given the same cell's text in runs from
    other unseeded generator states (``runs[1:]``) and the ``id()`` values the cell computed;
    ``varies`` names what makes the runs differ (the rule their differences are excused by)."""
    texts = [normalise(canonical_ordered_dicts(r)[0]) for r in runs]
    lead, first = tokens(texts[0])
    n = len(first)
    vary = [False] * n
    flex = [False] * n  # part of a stretch whose length differs between runs
    inserts: dict[int, set] = {}  # position -> tokens another run has before it, none in this one
    aligned: list[list[Token]] = []  # the other runs whose tokens align with this one's
    seen: dict[int, set] = {}  # position -> tokens of other runs seen there
    gap_vary = [False] * n
    lead_vary = False
    for other in texts[1:]:
        other_lead, toks = tokens(other)
        lead_vary |= other_lead != lead
        if _aligned(first, toks):
            aligned.append(toks)
            for i, (x, y) in enumerate(zip(first, toks)):
                if x.text != y.text:
                    vary[i] = True
                    seen.setdefault(i, set()).add((y.kind, y.text))
                if x.gap != y.gap:
                    gap_vary[i] = True
            continue
        sm = difflib.SequenceMatcher(None, [t.text for t in first], [t.text for t in toks], autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == "equal":
                for i, j in zip(range(i1, i2), range(j1, j2)):
                    if first[i].gap != toks[j].gap:
                        gap_vary[i] = True
                continue
            extra = {(t.kind, t.text) for t in toks[j1:j2]}
            if i1 == i2:
                inserts.setdefault(i1, set()).update(extra)
                continue
            for i in range(i1, i2):
                vary[i] = True
                seen.setdefault(i, set()).update(extra)
                if i2 - i1 != j2 - j1:
                    flex[i] = True
            gap_vary[max(i1 - 1, 0)] = True
            gap_vary[i2 - 1] = True
    items: list[Item] = []
    i = 0
    while i <= n:
        if i in inserts:
            kinds = {k for k, _ in inserts[i]}
            items.append(Item("hole", "", first[i].line if i < n else (first[-1].line if n else 0),
                              frozenset(kinds), frozenset(t for k, t in inserts[i] if k != "num"), None, varies))
        if i == n:
            break
        t = first[i]
        if flex[i]:
            j = i
            pool = set()
            while j < n and flex[j]:
                pool.add((first[j].kind, first[j].text))
                pool |= seen.get(j, set())
                j += 1
            items.append(Item("hole", t.text, t.line, frozenset(k for k, _ in pool),
                              frozenset(x for k, x in pool if k != "num"), None, varies))
            i = j
            continue
        padded = (i > 0 and vary[i - 1]) or (i + 1 < n and vary[i + 1]) or vary[i]
        gap = None if gap_vary[i] or padded else t.gap
        if t.kind == "addr":
            items.append(Item("var", t.text, t.line, frozenset({"addr"}), gap=gap, why="address"))
        elif vary[i]:
            kinds = {t.kind} | {k for k, _ in seen.get(i, ())}
            items.append(Item("var", t.text, t.line, frozenset(kinds), gap=gap, why=varies))
        elif t.kind == "num" and ids and _as_int(t.text) in ids:
            items.append(Item("var", t.text, t.line, frozenset({"num"}), gap=gap, why="id() value"))
        else:
            items.append(Item("lit", t.text, t.line, gap=gap))
        i += 1
    if vary and vary[0]:
        lead_vary = True
    if len(aligned) == len(texts) - 1:
        _tie(items, [first] + aligned, vary, varies)
    return Template(None if lead_vary else lead, items, texts[0])


_PRECISE = re.compile(r"^-?(?:\d+\.\d*|\.\d+)(?:e[-+]?\d+)?$")


def _precise(text: str) -> bool:
    """A float shown to three decimals or more past its trailing zeros (``0.3216``, ``0.0061``,
    ``1.234e-05``; not ``0.5000``, ``1.25`` or ``3.``): two places that show such numbers, equal
    in every run from other unseeded states, are one number, not a coincidence."""
    if not _PRECISE.match(text):
        return False
    mantissa = re.sub(r"e.*$", "", text)
    return len(mantissa.split(".")[1].rstrip("0")) >= 3


def _tie(items: list[Item], runs: list[list[Token]], vary: list[bool], varies: str) -> None:
    """Tie the vars that print the same precise number as each other in every run (a gradient's
    rows where the input's rows are equal, a draw printed twice): the reruns excuse what they
    show only if it is one number there too. Every run must align with the first (one token for
    one) and the vars must lie outside a ``<...>`` group a document may drop."""
    if len(runs) < 3:
        return
    position = 0  # token position of each item (vars and literals take one token; no hole here)
    at: dict[int, int] = {}
    for k, it in enumerate(items):
        if it.kind == "hole":
            return
        at[k] = position
        position += 1
    inside = set()
    for j, (close, _) in _angle_groups(items).items():
        inside.update(range(j, close))
    groups: dict[tuple, list[int]] = {}
    for k, it in enumerate(items):
        i = at[k]
        if it.kind != "var" or it.why != varies or not vary[i] or k in inside:
            continue
        values = tuple(r[i].text for r in runs)
        # floats of a fine grain: one run's precise number says so (one value in ten ends in a zero)
        if all(_PRECISE.match(v) for v in values) and any(map(_precise, values)) and len(set(values)) > 1:
            groups.setdefault(values, []).append(k)
    for n, members in enumerate(g for g in groups.values() if len(g) > 1):
        for k in members:
            items[k].tie = n


def _as_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def moduledict_sorted(text: str) -> str | None:
    """``text`` with the entries of each printed ModuleDict/ParameterDict sorted by key, as a
    PyTorch before 1.? built one from a plain dict (None if there is none to sort)."""
    lines = text.split("\n")
    out, i, changed = [], 0, False
    while i < len(lines):
        line = lines[i]
        out.append(line)
        m = re.search(r"\b(?:ModuleDict|ParameterDict)\($", line.rstrip())
        if not m:
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" "))
        inner = indent + 2
        entries, j = [], i + 1
        while j < len(lines):
            ln = lines[j]
            ind = len(ln) - len(ln.lstrip(" "))
            if ln.strip() and ind <= indent:
                break  # the closing parenthesis
            if ind == inner and re.match(r"^\s*\((.+?)\): ", ln):
                entries.append([ln])
            elif entries:
                entries[-1].append(ln)
            else:
                break
            j += 1
        keyed = sorted(entries, key=lambda e: re.match(r"^\s*\((.+?)\): ", e[0]).group(1))
        if keyed != entries:
            changed = True
        for e in keyed:
            out += e
        i = j
    return "\n".join(out) if changed else None


# ---------------------------------------------------------------- matching


@dataclass(frozen=True)
class Excused:
    """One place a named difference (or a token that varies) explained."""

    rule: str
    document_line: int  # 0-based, in the document's text
    produced_line: int  # 0-based, in scalargrad's text
    shown: str  # the document's token(s)
    printed: str  # scalargrad's
    item: int = field(default=-1, compare=False)  # the template's var it matched (-1: another place)


@dataclass
class Match:
    equal: bool
    excused: list = field(default_factory=list)  # Excused, in document order
    document_line: int = -1  # not equal: the first document line that does not match
    produced_line: int = -1  # ... and the line of scalargrad's text the match had reached

    @property
    def rules(self) -> list[str]:
        seen = []
        for e in self.excused:
            if e.rule not in seen:
                seen.append(e.rule)
        return seen


def _angle_groups(items: list[Item]) -> dict[int, tuple[int, bool]]:
    """Template position of each ``<`` that opens a ``<...>`` group on one line -> (the
    position after its ``>``, whether the group is the whole line)."""
    groups, stack = {}, []
    for i, it in enumerate(items):
        if it.kind != "lit":
            continue
        if it.text == "<":
            stack.append(i)
        elif it.text == ">" and stack:
            j = stack.pop()
            if items[j].line == it.line:
                alone = ((j == 0 or items[j - 1].line != it.line)
                         and (i + 1 == len(items) or items[i + 1].line != it.line))
                groups[j] = (i + 1, alone)
    return groups


def match(want: str, tpl: Template) -> Match:
    """Does the document's text ``want`` match the template, and by which named differences?"""
    text, _ = canonical_ordered_dicts(want)
    text = normalise(text)
    lead, doc = tokens(text)
    items = tpl.items
    n = len(items)
    skips = _angle_groups(items)
    # a state: (template position, open braces' OrderedDict wrappers, phase); phase 0: normal,
    # 1: read "OrderedDict", needs "(", 2: read its "(", needs the "{", 3: closed a wrapped "}",
    # needs ")". Each state keeps the first path found to it with the fewest excuses.
    start = (0, (), 0)
    events0: tuple = ()
    if tpl.lead is not None and lead != tpl.lead:
        events0 = (Excused(WHITE_SPACE, 0, 0, lead, tpl.lead),)
    states = _closure({start: events0}, items, skips, None)
    for j, d in enumerate(doc):
        nxt: dict = {}
        for (i, wraps, phase), ev in states.items():
            for state, extra in _step(i, wraps, phase, d, items, n):
                _keep(nxt, state, ev + extra(j))
        if not nxt:
            return _failed(doc, j, items, states, tpl)
        states = _closure(nxt, items, skips, d)
    finals = [ev for (i, wraps, phase), ev in states.items() if i == n and phase == 0]
    if not finals:
        return _failed(doc, len(doc), items, states, tpl)
    best = min(finals, key=len)
    broken = _untied(best, items)
    if broken is not None:
        return Match(False, document_line=broken.document_line, produced_line=broken.produced_line)
    return Match(True, sorted(best, key=lambda e: (e.document_line, e.produced_line)))


def _untied(events: tuple, items: list[Item]) -> Excused | None:
    """The first excuse that shows a tied var (``Item.tie``) otherwise than another var of its tie
    is shown (a var without an excuse shows what scalargrad printed), or None."""
    shown = {e.item: e for e in events if e.item >= 0}
    ties: dict[int, list[tuple[str, Excused | None]]] = {}
    for k, it in enumerate(items):
        if it.tie >= 0:
            e = shown.get(k)
            ties.setdefault(it.tie, []).append((e.shown if e is not None else it.text, e))
    for members in ties.values():
        if len({text for text, _ in members}) > 1:
            return min((e for _, e in members if e is not None), key=lambda e: e.document_line)
    return None


def _keep(states: dict, state, events: tuple) -> None:
    old = states.get(state)
    if old is None or len(events) < len(old):
        states[state] = events


def _closure(states: dict, items: list, skips: dict, prev: Token | None) -> dict:
    """Add the states reachable without reading a token: past a hole, past a ``<...>`` group
    the document lacks (after its token ``prev``). A group that is a whole line is taken
    only where the document has a blank line in its place (HTML leaves the line empty; a
    line dropped from the output leaves nothing)."""
    line = prev.line if prev is not None else 0
    todo = list(states.items())
    while todo:
        (i, wraps, phase), ev = todo.pop()
        if phase != 0 or i >= len(items):
            continue
        targets = []
        if items[i].kind == "hole":
            targets.append(((i + 1, wraps, 0), ()))
        if i in skips and (not skips[i][1] or (prev is not None and prev.gap.count("\n") >= 2)):
            it = items[i]
            close = skips[i][0]
            dropped = "".join(x.text + (x.gap or "") for x in items[i:close]).strip()
            targets.append(((close, wraps, 0), (("skip", it.line, dropped),)))
        for state, extra in targets:
            new = ev + tuple(Excused(ANGLE_BRACKETS, max(line, 0), e[1], "", e[2]) for e in extra)
            old = states.get(state)
            if old is None or len(new) < len(old):
                states[state] = new
                todo.append((state, new))
    return states


def _gap_ok(doc_gap: str, item: Item) -> bool:
    return item.gap is None or doc_gap == item.gap


def _step(i: int, wraps: tuple, phase: int, d: Token, items: list, n: int):
    """The states reading document token ``d`` leads to, each with a function giving the
    excuses it takes (given the token's position)."""
    def none(j):
        return ()

    if phase == 1:
        if d.text == "(":
            yield (i, wraps, 2), none
        return
    if phase == 3:
        if d.text == ")":
            yield (i, wraps, 0), none
        return
    if i >= n:
        return
    it = items[i]
    if phase == 2:
        if it.kind == "lit" and it.text == "{" and d.text == "{":
            yield (i + 1, wraps + (True,), 0), _space(d, it)
        return
    if it.kind == "lit" and it.text == "{" and d.text == "OrderedDict":
        yield (i, wraps, 1), lambda j: (Excused(ORDERED_DICT, d.line, it.line, "OrderedDict(", "{"),)
    if it.kind == "lit":
        if d.text == it.text:
            excuse = _space(d, it)
        elif d.kind == "word" and historical_node_name(d.text) == it.text:
            space = _space(d, it)

            def excuse(j, d=d, it=it, space=space):
                return (Excused(NODE_NAMES, d.line, it.line, d.text, it.text),) + space(j)
        else:
            return
        if it.text == "{":
            yield (i + 1, wraps + (False,), 0), excuse
        elif it.text == "}" and wraps:
            yield (i + 1, wraps[:-1], 3 if wraps[-1] else 0), excuse
        else:
            yield (i + 1, wraps, 0), excuse
        return
    if it.kind == "var":
        if d.kind in it.kinds:
            why = it.why

            def excuse(j, d=d, it=it, i=i):
                if why not in ("address", "id() value") and d.text != it.text:
                    return (Excused(why, d.line, it.line, d.text, it.text, i),)
                return ()
            yield (i + 1, wraps, 0), excuse
        return
    if it.kind == "hole" and d.kind in it.kinds and (d.kind == "num" or d.text in it.words or d.kind == "addr"):
        yield (i, wraps, 0), lambda j: (Excused(it.why, d.line, it.line, d.text, "..."),)


def _space(d: Token, it: Item):
    if _gap_ok(d.gap, it):
        return lambda j: ()
    return lambda j: (Excused(WHITE_SPACE, d.line, it.line, d.gap, it.gap),)


def _failed(doc: list, j: int, items: list, states: dict, tpl: Template) -> Match:
    at = max((s[0] for s in states), default=0)
    produced_line = items[min(at, len(items) - 1)].line if items else 0
    if j < len(doc):
        document_line = doc[j].line
    else:
        document_line = doc[-1].line + 1 if doc else 0
    return Match(False, document_line=document_line, produced_line=produced_line)
