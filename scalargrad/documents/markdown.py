"""Markdown pages: their fenced Python code blocks, each with the output block after it.

A fenced block (three or more backticks or tildes) whose info string names Python
(``python``, ``py``, ``python3``, ``ipython``, ``pycon``, MyST's ``{code-cell} ipython3``...)
is a cell; the blocks run in order in one namespace. Its expected output is the next fenced
block when only blank lines, or one short line such as "Output:", stand between them, and that
block is an output block:

- it names no language, or an output one (``text``, ``output``, ``console``...); or
- it is tagged as Python but is an output all the same (pages do that): a label before it says
  so ("Output:", "Out:", "输出：", "結果:", "出力:", "출력:", "실행 결과" and the like), its first
  line is such a label as a comment (``# output``), it is not Python at all
  (``<AddBackward0 object at 0x...>``), or it is only what a printed value looks like: literals
  and calls of names the page never defines and Python does not have (``tensor([1., 2.])``,
  ``Linear(in_features=3, ...)``).

After a Python block at the margin, an indented block (four spaces), blank lines between, is its
output where it reads as one (as the last rule): ``jupyter nbconvert --to markdown`` writes
outputs so.

A Python block whose lines start with ``>>>`` holds doctest examples: each is a cell with the
output written after it. Other languages (``bash``, ``cpp``...) are not run.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import NamedTuple

from .cells import Cell, Document, Expected
from .doctests import examples_in

__all__ = ["read_markdown", "PYTHON", "OUTPUT", "Block", "pair_code_and_output", "add_cells"]

PYTHON = {"python", "py", "python3", "py3", "ipython", "ipython3", "pycon", "python-repl", "pyodide"}
OUTPUT = {"", "text", "txt", "output", "out", "console", "plaintext", "plain", "none", "stdout", "result",
          "results", "log"}
INDENTED = "(indented)"  # the language of an indented block after a Python block
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
        if lang in PYTHON and indent == 0:
            after = _indented_after(lines, i)
            if after is not None:
                out.append(after)
                i = after.end
    return out


def _indented_after(lines: list[str], i: int) -> Block | None:
    """The indented block (four spaces or a tab) that starts after blank lines at line ``i``, right
    after a Python block: where ``jupyter nbconvert --to markdown`` writes a cell's output. Its
    language is ``INDENTED``: an output where it reads as one (``pair_code_and_output``)."""
    k = i
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k == i or k >= len(lines) or not lines[k].startswith(("    ", "\t")):
        return None
    body, end = [], k
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(("    ", "\t"))):
        body.append(lines[end][1:] if lines[end].startswith("\t") else lines[end][4:])
        end += 1
    while body and not body[-1].strip():
        body.pop()
        end -= 1
    return Block(k, end, INDENTED, "\n".join(body) + "\n", k + 1)


_LABEL_WORDS = (r"out(?:put)?s?(?:\s*\[\d*\])?|results?|prints?|printed|console|stdout|"
                r"输出(?:结果)?|輸出(?:結果)?|运行结果|運行結果|打印结果|结果|結果|出力(?:結果)?|実行結果|"
                r"출력(?:\s*결과)?|실행\s*결과|결과|resultado|sortie|ausgabe")
_LABEL = re.compile(rf"^[\s>*_#]*(?:{_LABEL_WORDS})[\s*_]*[:：]?[\s*_]*$", re.IGNORECASE)
_ENDS_WITH_LABEL = re.compile(rf"(?:{_LABEL_WORDS})\s*(?:如下|は次の通り|is|are|as follows|will be)?\s*[:：][\s*_]*$",
                              re.IGNORECASE)
_COMMENT_LABEL = re.compile(rf"^\s*#\s*(?:{_LABEL_WORDS})\s*[:：]?\s*$", re.IGNORECASE)


def is_label(line: str) -> bool:
    """Is this line of text a label announcing an output ("Output:", "输出：", "실행 결과")?"""
    line = line.strip()
    return bool(_LABEL.match(line) or (len(line) <= 80 and _ENDS_WITH_LABEL.search(line)))


def _bound_names(blocks: list[Block], is_code) -> set:
    """Names the page's code binds anywhere (assigned, defined, imported)."""
    names: set = set()
    for b in blocks:
        if not is_code(b):
            continue
        try:
            tree = ast.parse(b.text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


def _looks_printed(text: str, bound: set) -> bool:
    """Is ``text`` not Python, or only literals and calls of names the page never binds and
    Python does not have (what a printed value looks like)?"""
    if text.lstrip().startswith(">>>"):
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return True
    if not tree.body or not all(isinstance(st, ast.Expr) for st in tree.body):
        return False

    def printed(e) -> bool:
        if isinstance(e, ast.Constant):
            return True
        if isinstance(e, ast.UnaryOp):
            return printed(e.operand)
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            return all(printed(x) for x in e.elts)
        if isinstance(e, ast.Dict):
            return all(k is None or printed(k) for k in e.keys) and all(printed(v) for v in e.values)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            name = e.func.id
            return (name not in bound and not hasattr(builtins, name)
                    and all(printed(a) for a in e.args) and all(printed(k.value) for k in e.keywords))
        if isinstance(e, ast.Attribute):  # torch.float32, torch.Size([2]) (as a call's func, below)
            return isinstance(e.value, ast.Name) and e.value.id == "torch" and e.attr[:1].islower() and \
                e.attr.startswith(("float", "int", "bool", "complex", "uint", "bfloat", "half", "double", "long"))
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            return (isinstance(e.func.value, ast.Name) and e.func.value.id == "torch" and e.func.attr in ("Size",)
                    and all(printed(a) for a in e.args))
        if isinstance(e, ast.Name):
            return e.id in ("True", "False", "None", "nan", "inf")
        return False

    return all(printed(st.value) for st in tree.body)


# the first line of an indented block that is code, not a printed value (a statement, an assignment)
_CODE_START = re.compile(r"^\s*(?:(?:def|class|for|while|if|with|import|from|return|try|async)\b|@\w"
                         r"|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*[-+*/]?=[^=])")


def pair_code_and_output(blocks: list[Block], lines: list[str], is_code, is_output) -> list[tuple[Block, Block | None]]:
    """Each code block with the output block right after it (or None): only blank lines, or up
    to one short line of text, may stand between them. A block tagged as code is the output
    of the one before it when a label announces it, or it reads as a printed value."""
    bound = _bound_names(blocks, is_code)
    pairs = []
    k = 0
    while k < len(blocks):
        block = blocks[k]
        if not is_code(block):
            k += 1
            continue
        output = None
        if k + 1 < len(blocks):
            nxt = blocks[k + 1]
            gap = [ln.strip() for ln in lines[block.end:nxt.start] if ln.strip()]
            near = len(gap) <= _MAX_GAP_LINES and all(len(g) <= _MAX_GAP_CHARS and not g.startswith("#") for g in gap)
            labelled = bool(gap) and len(gap) <= 2 and is_label(gap[-1])
            if nxt.lang == INDENTED and not (labelled or (_looks_printed(nxt.text, bound)
                                                         and not _CODE_START.match(nxt.text))):
                pass  # indented code, not an output
            elif (is_output(nxt) and (near or labelled)) or (labelled and not is_code(nxt)):
                output = nxt  # an output block, or one in another language a label calls an output
            elif is_code(nxt) and (labelled or (near and (_COMMENT_LABEL.match(nxt.text.split("\n", 1)[0])
                                                          or _looks_printed(nxt.text, bound)))):
                first, _, rest = nxt.text.partition("\n")
                output = nxt._replace(text=rest) if _COMMENT_LABEL.match(first) else nxt
                k += 1  # it is an output, not a cell
        pairs.append((block, output))
        k += 1
    return pairs


def read_markdown(path: str) -> Document:
    """The Python code blocks of the Markdown page at ``path``."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    doc = Document(path, "markdown")
    blocks = _blocks(text)
    pairs = pair_code_and_output(blocks, text.splitlines(), lambda b: b.lang in PYTHON,
                                 lambda b: b.lang in OUTPUT or b.lang == INDENTED)
    return add_cells(doc, pairs)


_TRACEBACK = "Traceback (most recent call last):"


# IPython's traceback (a notebook's error written out by nbconvert): its rule, then its header
_IPYTHON_RULE = re.compile(r"^-{20,}$")
_IPYTHON_HEADER = re.compile(r"^[A-Za-z_][\w.]*\s+Traceback \(most recent call last\)")
_ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(?::|$)")


def _expected(text: str) -> Expected:
    """An output block's text; one that ends in a traceback (Python's, or IPython's as nbconvert
    writes a notebook's error) shows what was printed before it and the error (its last line)."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        start = None
        if line.strip() == _TRACEBACK:
            start = k
        elif _IPYTHON_HEADER.match(line.strip()):
            start = k
            before = [j for j in range(k) if lines[j].strip()]
            if before and _IPYTHON_RULE.match(lines[before[-1]].strip()):
                start = before[-1]
        if start is None:
            continue
        rest = [ln for ln in lines[k + 1:] if ln.strip()]
        if rest and not rest[-1].startswith(" ") and (line.strip() == _TRACEBACK or _ERROR_LINE.match(rest[-1])):
            return Expected(text="\n".join(lines[:start]) + ("\n" if start else ""), error=rest[-1].strip())
    return Expected(text=text)


def add_cells(doc: Document, pairs: list[tuple[Block, Block | None]]) -> Document:
    """``doc`` with a cell per code block (one per example for a ``>>>`` block)."""
    for block, output in pairs:
        if block.text.lstrip().startswith(">>>"):
            cells = examples_in(block.text, block.line)
        else:
            expected = _expected(output.text) if output is not None else None
            cells = [Cell(index=0, line=block.line, source=block.text, mode="page", expected=expected)]
        for cell in cells:
            cell.index = len(doc.cells) + 1
            doc.cells.append(cell)
    return doc
