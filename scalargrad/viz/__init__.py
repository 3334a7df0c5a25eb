"""Pictures of the backward graph: ``make_dot`` with torchviz's signature and conventions, plus
the graph's hooks and the order a recorded backward call fired them.

    from scalargrad.viz import make_dot, record_hooks
    with record_hooks() as rec:
        z.backward()
    make_dot(z, params=dict(model.named_parameters()), hook_order=rec.last).render("graph", format="png")

``.source`` is the DOT text (standard library only); ``render``/``pipe`` need Graphviz (the
``graphviz`` package, ``pip install 'scalargrad[viz]'``, and its ``dot`` program).
"""

from .digraph import Digraph, GraphvizUnavailable
from .make_dot import make_dot, resize_graph
from .recorder import BackwardCall, HookRecorder, record_hooks

__all__ = ["make_dot", "resize_graph", "Digraph", "GraphvizUnavailable", "record_hooks", "HookRecorder",
           "BackwardCall"]
