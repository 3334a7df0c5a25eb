"""A directed graph as DOT text, and its rendering by Graphviz when Graphviz is installed.

``make_dot`` builds the text itself, so the picture of a graph is available with the standard
library alone (``.source``). The text is what the ``graphviz`` Python package writes for the
same statements (its quoting, its attribute order: the label first, the others sorted), so that
scalargrad's ``make_dot`` and torchviz's produce the same DOT for the same graph. Turning the
text into SVG or PNG needs Graphviz's ``dot`` program, which ``render`` and ``pipe`` reach
through the ``graphviz`` package (the optional extra ``scalargrad[viz]``).
"""

from __future__ import annotations

import os
import re

__all__ = ["Digraph", "GraphvizUnavailable", "quote"]

_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}
_QUOTE = re.compile(r"(?P<backslashes>(?:\\{2})*)\\?(?P<quote>\")")

_INSTALL = ("install the graphviz package (pip install 'scalargrad[viz]') and Graphviz's dot program "
            "(apt-get install graphviz, brew install graphviz, or https://graphviz.org/download/); "
            "the DOT text is in .source")


class GraphvizUnavailable(RuntimeError):
    """Rendering needs Graphviz (the ``graphviz`` package and its ``dot`` program)."""


def quote(identifier: str) -> str:
    """``identifier`` as a DOT ID: bare when it is one, else double-quoted with its quotes escaped
    (the ``graphviz`` package's rule, except that ``<...>`` is never taken for an HTML label)."""
    if _ID.match(identifier) and identifier.lower() not in _KEYWORDS:
        return identifier
    return '"' + _QUOTE.sub(r"\g<backslashes>\\\g<quote>", identifier) + '"'


def _attr_list(label: str | None, attrs: dict) -> str:
    items = [f"label={quote(label)}"] if label is not None else []
    items += [f"{quote(k)}={quote(str(v))}" for k, v in sorted(attrs.items()) if v is not None]
    return f" [{' '.join(items)}]" if items else ""


class Digraph:
    """DOT statements in the order they were made (``body``, one line each, as the ``graphviz``
    package keeps them), plus graph-wide and node-wide attributes."""

    format = "pdf"  # the picture's format when render/pipe are not given one (as in graphviz)

    def __init__(self, node_attr: dict | None = None, graph_attr: dict | None = None) -> None:
        self.node_attr = dict(node_attr or {})
        self.graph_attr = dict(graph_attr or {})
        self.body: list[str] = []

    def node(self, name: str, label: str | None = None, **attrs: str) -> None:
        self.body.append(f"\t{quote(name)}{_attr_list(label, attrs)}\n")

    def edge(self, tail: str, head: str, **attrs: str) -> None:
        self.body.append(f"\t{quote(tail)} -> {quote(head)}{_attr_list(None, attrs)}\n")

    @property
    def source(self) -> str:
        """The DOT text."""
        lines = ["digraph {\n"]
        if self.graph_attr:
            lines.append(f"\tgraph{_attr_list(None, self.graph_attr)}\n")
        if self.node_attr:
            lines.append(f"\tnode{_attr_list(None, self.node_attr)}\n")
        lines += self.body
        lines.append("}\n")
        return "".join(lines)

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        # what a notebook shows for torchviz's result: the graphviz package's Digraph keeps
        # object's default repr, under its module graphviz.graphs
        return f"<graphviz.graphs.Digraph object at {id(self):#x}>"

    def _repr_svg_(self) -> str:  # pragma: no cover - Jupyter shows the picture when it can
        return self.pipe(format="svg").decode("utf-8")

    # ------------------------------------------------------------ rendering
    def _graphviz_source(self):
        try:
            import graphviz
        except ImportError:
            raise GraphvizUnavailable(f"rendering a graph needs Graphviz: {_INSTALL}") from None
        return graphviz, graphviz.Source(self.source)

    def pipe(self, format: str | None = None) -> bytes:  # graphviz's and torchviz's name
        """The picture in ``format`` (svg, png, pdf...; default ``self.format``) as bytes, drawn by
        Graphviz's ``dot``."""
        graphviz, src = self._graphviz_source()
        try:
            return src.pipe(format=format or self.format)
        except graphviz.ExecutableNotFound:
            raise GraphvizUnavailable(f"Graphviz's dot program was not found: {_INSTALL}") from None

    def render(self, filename: str = "Digraph.gv", directory: str | None = None, view: bool = False,
               cleanup: bool = False, format: str | None = None, outfile: str | None = None) -> str:
        """Write the DOT text to ``filename`` and the picture beside it (``filename.format``), or to
        ``outfile`` (its extension gives the format); returns the picture's path."""
        if outfile is not None:
            ext = os.path.splitext(outfile)[1].lstrip(".")
            data = self.pipe(format=ext or format or self.format)
            with open(outfile, "wb") as fh:
                fh.write(data)
            return outfile
        graphviz, src = self._graphviz_source()
        try:
            return src.render(filename=filename, directory=directory, view=view, format=format or self.format,
                              cleanup=cleanup)
        except graphviz.ExecutableNotFound:
            raise GraphvizUnavailable(f"Graphviz's dot program was not found: {_INSTALL}") from None
