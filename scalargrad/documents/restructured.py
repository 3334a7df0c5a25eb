"""reStructuredText pages: their Python code blocks, each with the output block after it.

Code: ``.. code-block:: python`` (also ``code``, ``sourcecode``, ``ipython``,
``jupyter-execute``, ``code-cell``), Sphinx's ``.. testcode::``, and ``>>>`` examples (doctest
blocks, ``.. doctest::``, or a Python block that starts with a prompt). Output: the block right
after a code block (see ``markdown.pair_code_and_output``) when it is ``.. testoutput::``, a
``code-block`` in an output language (``text``, ``none``, ``console``...) or a literal block
introduced by ``::``. The blocks run in order in one namespace.
"""

from __future__ import annotations

import re

from .cells import Document
from .markdown import OUTPUT, PYTHON, Block, add_cells, pair_code_and_output

__all__ = ["read_restructured"]

_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\.\s+(?P<name>[\w-]+)::\s*(?P<arg>.*?)\s*$")
_CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "ipython", "jupyter-execute", "code-cell"}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _content(lines: list[str], i: int, indent: int) -> tuple[int, int, str]:
    """The block indented deeper than ``indent`` from line ``i`` on, after a directive's option
    lines (``:linenos:``) and blank lines: (its first line's index, the index after it, its text
    dedented)."""
    n = len(lines)
    while i < n and lines[i].strip().startswith(":") and _indent(lines[i]) > indent:
        i += 1
    while i < n and not lines[i].strip():
        i += 1
    first = i
    while i < n and (not lines[i].strip() or _indent(lines[i]) > indent):
        i += 1
    end = i
    while end > first and not lines[end - 1].strip():
        end -= 1
    body = lines[first:end]
    if not body:
        return first, first, ""
    cut = min(_indent(ln) for ln in body if ln.strip())
    return first, end, "\n".join(ln[cut:] for ln in body) + "\n"


def _blocks(text: str) -> list[Block]:
    lines = text.splitlines()
    out = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        m = _DIRECTIVE.match(line)
        if m:
            name, arg = m.group("name"), m.group("arg").lower()
            if name in _CODE_DIRECTIVES:
                lang = arg.split()[0] if arg else ""
                if lang not in PYTHON and lang not in OUTPUT:
                    lang = f"other:{lang}"  # not run, not an output
            elif name == "testcode":
                lang = "python"
            elif name == "doctest":
                lang = "pycon"
            elif name == "testoutput":
                lang = "output"
            else:
                i += 1
                continue
            first, end, body = _content(lines, i + 1, len(m.group("indent")))
            out.append(Block(i, end, lang, body, first + 1))
            i = max(end, i + 1)
            continue
        stripped = line.strip()
        if stripped.startswith(">>>") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < n and lines[j].strip():
                j += 1
            body = "\n".join(ln[_indent(line):] for ln in lines[i:j]) + "\n"
            out.append(Block(i, j, "pycon", body, i + 1))
            i = j
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            first, end, body = _content(lines, i + 1, _indent(line))
            if body:
                out.append(Block(i, end, "", body, first + 1))
                i = end
                continue
        i += 1
    return out


def read_restructured(path: str) -> Document:
    """The Python code blocks of the reStructuredText page at ``path``."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    doc = Document(path, "restructuredtext")
    pairs = pair_code_and_output(_blocks(text), text.splitlines(), lambda b: b.lang in PYTHON,
                                 lambda b: b.lang in OUTPUT)
    return add_cells(doc, pairs)
