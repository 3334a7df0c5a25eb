"""Doctest-style ``>>>`` examples: in Python files' docstrings, and in Markdown or reST text.

Each example becomes a ``Cell`` in ``doctest`` mode: it runs as the interactive interpreter
runs a line (an expression echoes its value), and its expected output is what follows it up
to the next blank line or prompt, with doctest's own conventions (``<BLANKLINE>``, a shown
traceback compares only its last line, ``# doctest: +ELLIPSIS`` and the other directives).
A Python file runs first as a module (its body is a cell of its own); then the examples of
each docstring run in a copy of the module's namespace, as ``doctest`` runs them.
"""

from __future__ import annotations

import ast
import doctest

from .cells import Cell, Document, Expected, UnreadableDocument

__all__ = ["examples_in", "read_python"]

_PARSER = doctest.DocTestParser()


def examples_in(text: str, first_line: int, namespace: str = "") -> list[Cell]:
    """The ``>>>`` examples of ``text`` as cells (``index`` left 0 for the caller to number);
    ``first_line`` is the line of ``text``'s first line in its file."""
    cells = []
    try:
        examples = _PARSER.get_examples(text)
    except ValueError as e:  # inconsistent indentation and the like: doctest's own message
        raise UnreadableDocument(f"line {first_line}: {e}") from None
    for ex in examples:
        flags = 0
        skip = ""
        for flag, on in ex.options.items():
            if flag == doctest.SKIP and on:
                skip = "marked # doctest: +SKIP"
            elif on:
                flags |= flag
        if ex.exc_msg is not None:
            expected = Expected(text="", error=ex.exc_msg.strip())
        else:
            expected = Expected(text=ex.want)
        cells.append(Cell(index=0, line=first_line + ex.lineno, source=ex.source, mode="doctest",
                          expected=expected, skip=skip, options=flags, namespace=namespace))
    return cells


def _docstrings(tree: ast.Module) -> list[tuple[str, int, str]]:
    """(qualified name, line of the docstring, text) for the module, classes and functions,
    in the order they appear."""
    out = []
    todo = [("", tree)]
    while todo:
        prefix, node = todo.pop(0)
        body = getattr(node, "body", [])
        if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            out.append((prefix or "module", body[0].value.lineno, body[0].value.value))
        for child in body:
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                todo.append((f"{prefix}.{child.name}" if prefix else child.name, child))
    out.sort(key=lambda t: t[1])
    return out


def read_python(path: str) -> Document:
    """A Python file: its body, then the examples of its docstrings."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    doc = Document(path, "python")
    doc.cells.append(Cell(index=1, line=1, source=text, mode="module", expected=None))
    try:
        tree = ast.parse(text, path)
    except SyntaxError:
        return doc  # the module cell reports the error when it runs
    for name, line, docstring in _docstrings(tree):
        # a docstring's text starts on its opening quotes' line; inspect.cleandoc would move it
        for cell in examples_in(docstring, line, namespace=name):
            cell.index = len(doc.cells) + 1
            doc.cells.append(cell)
    if len(doc.cells) == 1:
        doc.note = "no >>> examples in its docstrings: only its body was run"
    return doc
