"""The transforms in progress, innermost last, and what a transform may hand back at the top.

The differentiating transforms (``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``) run the
user's function with autograd on fresh copies of the inputs. Nested inside another one, those
copies are views of the outer copies, and the results keep their graph (``create_graph``), so
the outer transform differentiates through them: composition is autograd's double backward.

At the top (no transform outside), PyTorch hands back results that still require grad when the
function used tensors requiring grad from outside the transform, with a ``grad_fn`` of its
batching or functionalized kernels that scalargrad cannot reproduce: there it refuses
(``Unsupported``) instead of handing back a result whose ``requires_grad``/``grad_fn`` differ.
"""

from __future__ import annotations

from contextlib import contextmanager

from .._base import grad_mode
from .._base.errors import Unsupported
from .._tensor.tensor import Tensor
from . import batching

__all__ = ["depth", "level", "fresh", "check_closed_over", "refuse_outer_grad"]

_depth = 0
_fresh: dict = {}  # id -> the leaves the running transforms made (kept alive until the outermost ends)


def depth() -> int:
    """How many differentiating transforms are running."""
    return _depth


@contextmanager
def level():
    """One differentiating transform: grad mode on inside (a transform ignores an outer no_grad).
    Yields whether PyTorch's results could require grad through its own kernels (no transform
    outside, grad mode on): then ``refuse_outer_grad`` and ``check_closed_over`` apply."""
    global _depth
    watch = _depth == 0 and grad_mode.is_grad_enabled()
    _depth += 1
    try:
        with grad_mode.enable_grad():
            yield watch
    finally:
        _depth -= 1
        if not _depth:
            _fresh.clear()


def fresh(x, nested: bool) -> Tensor:
    """The input the user's function sees: a new leaf that requires grad, or (nested, ``x``
    requiring grad) a view of ``x`` so the outer transform sees through it."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if nested and x.requires_grad:
        return x.view_as(x)
    # nested, a view keeps the tangent an outer jvp/jacfwd gave ``x`` (forward over reverse)
    out = x.view_as(x).requires_grad_() if nested else x.detach().requires_grad_()
    batching.inherit(out, x)  # under vmap, a per-sample input stays batched
    _fresh[id(out)] = out
    return out


def refuse_outer_grad(api: str, leaves: list) -> None:
    """At the top (``level``'s flag), inputs that require grad would make PyTorch's results require
    grad through kernels of its own: refused."""
    if any(isinstance(x, Tensor) and x.requires_grad
                                                            for x in leaves):
        raise Unsupported(f"torch.func.{api} at the top level of inputs that require grad",
                          "PyTorch's results would require grad through functorch's own kernels (their grad_fn); "
                          "pass detached inputs")


def check_closed_over(api: str, outputs: list) -> None:
    """At the top, an output that depends on a tensor requiring grad other than the leaves the
    transforms made (a module's parameter the function closes over) is refused, as above."""
    own = _fresh
    seen: set = set()
    keep: list = []
    stack = [o.grad_fn for o in outputs if isinstance(o, Tensor) and o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)
        var = getattr(node, "variable", None)
        if var is not None and own.get(id(var)) is not var:
            raise Unsupported(f"torch.func.{api} of a function that uses a tensor requiring grad from outside "
                              "the transform", "PyTorch's results would require grad through functorch's own "
                              "kernels (their grad_fn); detach it or pass it as an input")
        stack.extend(n for n, _ in node.next_functions)
