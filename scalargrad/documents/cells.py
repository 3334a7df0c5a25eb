"""What a document holds, for ``scalargrad verify``: its code cells and the output it shows.

A parser (``notebook``, ``markdown``, ``restructured``, ``doctests``) turns a document into a
``Document``: its code cells in order, each with the output its author saw, if the document
shows one. Running and judging the cells is ``execute`` and ``judge``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Expected", "Cell", "Document", "UnreadableDocument"]


class UnreadableDocument(ValueError):
    """A document that cannot be read as what its name says (bad JSON, unknown kind...)."""


@dataclass
class Expected:
    """The output a document shows for one cell.

    ``text`` is what was printed, with a displayed result (a notebook's ``Out[n]``, a
    doctest's echoed value) where it appeared; ``error`` the exception the document shows
    (``"RuntimeError: message"``), if any; ``warnings`` the warnings it shows ("Category:
    message" lines; notebooks only); ``picture`` whether it shows a plot or an image.
    """

    text: str = ""
    error: str | None = None
    warnings: list[str] | None = None  # None: the document would not show warnings
    picture: bool = False


@dataclass
class Cell:
    """One code cell: a notebook cell, a Markdown/reST code block, or one ``>>>`` example.

    ``mode`` says how it runs: ``exec`` (a block of statements), ``page`` (a page's code
    block: a block of statements, whose last expression's value is kept, since pages made from
    notebooks show it and pages written as scripts do not), ``notebook`` (a notebook cell: its
    last expression is displayed), ``doctest`` (one example, compiled as the interactive
    interpreter compiles a line, so an expression echoes its value), or ``module`` (a Python
    file's own body, run before its docstrings' examples).
    """

    index: int  # 1-based position among the document's cells
    line: int  # where it starts: the line in the file, or the notebook's cell number
    source: str
    mode: str = "exec"
    expected: Expected | None = None  # None: the document shows no output for it
    skipped_lines: list[str] = field(default_factory=list)  # shell and magic lines, not run
    skip: str = ""  # why the whole cell is not run ("" = it runs)
    options: int = 0  # doctest option flags of the example (ELLIPSIS, NORMALIZE_WHITESPACE...)
    namespace: str = ""  # doctest examples of one docstring share a namespace, named by it


@dataclass
class Document:
    """A parsed document: its path, its kind and its code cells in order."""

    path: str
    kind: str  # 'notebook', 'markdown', 'restructuredtext', 'python', 'doctest text'
    cells: list[Cell] = field(default_factory=list)
    note: str = ""  # e.g. why nothing in it can run
    prelude: str = ""  # code run before the cells, which the document assumes (import torch)
