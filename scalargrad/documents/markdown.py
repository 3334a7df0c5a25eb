"""Markdown pages: their fenced Python code blocks, each with the output block after it.

A fenced block (three or more backticks or tildes) whose info string names Python
(``python``, ``py``, ``python3``, ``ipython``, ``pycon``, MyST's ``{code-cell} ipython3``...)
is a cell; the blocks run in order in one namespace. Its expected output is the next fenced
block if that one names no language or an output one (``text``, ``output``, ``console``...)
and only blank lines, or one short line such as "Output:", stand between them. A Python block
whose lines start with ``>>>`` holds doctest examples: each is a cell with the output written
after it. Other languages (``bash``, ``cpp``...) are not run.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .cells import Cell, Document, Expected
from .doctests import examples_in

__all__ = ["read_markdown", "PYTHON", "OUTPUT", "Block", "pair_code_and_output", "add_cells"]

PYTHON = {"python", "py", "python3", "py3", "ipython", "ipython3", "pycon", "python-repl", "pyodide"}
OUTPUT = {"", "text", "txt", "output", "out", "console", "plaintext", "plain", "none", "stdout", "result",
          "results", "log"}
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
_MAX_GAP_LINES = 1  # non-blank lines allowed between a code block and its output block
_MAX_GAP_CHARS = 80


def _language(info: str) -> str:
    """The language of a fence's info string: ``python``, ``{code-cell} ipython3`` -> ipython3,
    ``python title="x.py"`` -> python, ``{.python}`` -> python."""
    info = info.strip()
    m = re.match(r"^\{(?:code-cell|code-block|code|sourcecode|jupyter-execute)\}\s*(\S*)", info)
    if m:
        return m.group(1).lower()
    word = info.split()[0] if info.split() else ""
    return word.strip("{}.").lower().split(",")[0]


class Block(NamedTuple):
    """A code or output block of a text document."""

    start: int  # 0-based index of its first line (the opening fence, the directive)
    end: int  # 0-based index of the line after it
    lang: str
    text: str
    line: int  # 1-based line of its first content line


def _blocks(text: str) -> list[Block]:
    """Every fenced block."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent"))
        lang = _language(m.group("info"))
        body = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                break
            line = lines[j]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
            j += 1
        out.append(Block(i, j + 1, lang, "\n".join(body) + ("\n" if body else ""), i + 2))
        i = j + 1
    return out


def pair_code_and_output(blocks: list[Block], lines: list[str], is_code, is_output) -> list[tuple[Block, Block | None]]:
    """Each code block with the output block right after it (or None): only blank lines, or up
    to one short line of text, may stand between them."""
    pairs = []
    for k, block in enumerate(blocks):
        if not is_code(block):
            continue
        output = None
        if k + 1 < len(blocks) and is_output(blocks[k + 1]):
            gap = [ln.strip() for ln in lines[block.end:blocks[k + 1].start] if ln.strip()]
            if len(gap) <= _MAX_GAP_LINES and all(len(g) <= _MAX_GAP_CHARS and not g.startswith("#") for g in gap):
                output = blocks[k + 1]
        pairs.append((block, output))
    return pairs


def read_markdown(path: str) -> Document:
    """The Python code blocks of the Markdown page at ``path``."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    doc = Document(path, "markdown")
    blocks = _blocks(text)
    pairs = pair_code_and_output(blocks, text.splitlines(), lambda b: b.lang in PYTHON, lambda b: b.lang in OUTPUT)
    return add_cells(doc, pairs)


def add_cells(doc: Document, pairs: list[tuple[Block, Block | None]]) -> Document:
    """``doc`` with a cell per code block (one per example for a ``>>>`` block)."""
    for block, output in pairs:
        if block.text.lstrip().startswith(">>>"):
            cells = examples_in(block.text, block.line)
        else:
            expected = Expected(text=output.text) if output is not None else None
            cells = [Cell(index=0, line=block.line, source=block.text, mode="exec", expected=expected)]
        for cell in cells:
            cell.index = len(doc.cells) + 1
            doc.cells.append(cell)
    return doc
