"""``scalargrad run --graph FILE``: a picture of the last backward call a program made.

While the program runs, a ``HookRecorder`` notes every backward call (its roots and the order
its hooks fired) and remembers the program's global namespace. At the end the last call's
graph is drawn with its hooks numbered, its tensors named after the program's variables (a
parameter of a module held by a global name, as ``named_parameters`` names it, or a tensor
held by one). The file's extension picks the format: ``.dot`` / ``.gv``
write the DOT text; any other (``.svg``, ``.png``, ``.pdf``) is drawn by Graphviz.
"""

from __future__ import annotations

import os
import sys

from .._autograd import engine
from .._tensor.tensor import is_tensor
from ..nn.modules.module import Module
from .digraph import GraphvizUnavailable
from .make_dot import make_dot
from .recorder import HookRecorder

__all__ = ["ProgramGraph"]

_TEXT_FORMATS = {".dot", ".gv"}


class ProgramGraph:
    """Watches a program's backward calls; ``write()`` draws the last one."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.recorder = HookRecorder()
        self.namespace: dict | None = None

    def start(self) -> None:
        """Call inside the running program's context (``runner.run_path``'s ``on_start``)."""
        self.recorder.start()
        def remember(*args):
            main = sys.modules.get("__main__")
            self.namespace = getattr(main, "__dict__", None)

        engine.observers.append(remember)
        self._remember = remember

    def stop(self) -> None:
        self.recorder.stop()
        if getattr(self, "_remember", None) in engine.observers:
            engine.observers.remove(self._remember)

    def tensor_names(self) -> dict:
        """Names for the tensors drawn (``make_dot``'s ``params``): the parameters of the
        program's global modules as ``named_parameters`` names them, then the global names of
        other tensors that require grad (a leaf, or the output), one name per tensor."""
        named: dict = {}  # id -> (name, tensor)
        items = [(k, v) for k, v in (self.namespace or {}).items() if not k.startswith("__")]
        for name, obj in items:
            if isinstance(obj, Module):
                for pname, p in obj.named_parameters():
                    named.setdefault(id(p), (f"{name}.{pname}", p))
        for name, obj in items:
            if is_tensor(obj) and obj.requires_grad:
                named.setdefault(id(obj), (name, obj))
        return {name: t for name, t in named.values()}

    def write(self) -> str:
        """Draw the last backward call into ``path``; returns a one-line message for stderr, or
        "" when the picture was written."""
        call = self.recorder.last
        if call is None or not call.roots:
            return f"no backward call to draw; {self.path} not written"
        roots = call.roots
        var = roots[0] if len(roots) == 1 else tuple(roots)
        dot = make_dot(var, params=self.tensor_names(), hook_order=call)
        ext = os.path.splitext(self.path)[1].lower()
        if ext in _TEXT_FORMATS:
            with open(self.path, "w", encoding="utf-8") as fh:
                fh.write(dot.source)
            return ""
        try:
            dot.render(outfile=self.path)
        except GraphvizUnavailable as e:
            text = os.path.splitext(self.path)[0] + ".dot"
            with open(text, "w", encoding="utf-8") as fh:
                fh.write(dot.source)
            return f"cannot draw {self.path}: {e}; wrote the DOT text to {text}"
        return ""
