"""torch.autograd for scalars: ``backward``, ``grad``, ``Function`` and grad mode."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from ..value import Value, leaf
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "gradcheck",
           "gradgradcheck", "GradcheckError"]

_NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)
_warned_create_graph = False


def _warn_create_graph() -> None:
    # PyTorch warns once per process (TORCH_WARN_ONCE), whatever the warning filters say
    global _warned_create_graph
    _warned_create_graph = True
    warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=4)


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Value):
        return (x,)
    return tuple(x)


def _root_grads(outputs: tuple, grad_outputs, create_graph: bool) -> list:
    given = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(given) != len(outputs):
        raise RuntimeError(f"grad requires one gradient per output: got {len(given)} gradients "
                           f"for {len(outputs)} outputs")
    grads = []
    for out, g in zip(outputs, given):
        if g is None:
            g = leaf(1.0, out._t) if create_graph else 1.0
        elif isinstance(g, Value):
            g = g if create_graph else out._t.dtype.round(g._val)
        else:
            g = leaf(out._t.dtype.round(g), out._t) if create_graph else out._t.dtype.round(g)
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             inputs=None) -> None:
    """Add the gradients of ``tensors`` w.r.t. every leaf into the leaves' ``.grad``.

    ``grad_tensors`` weights each output (default 1); saved values are freed unless
    ``retain_graph`` (default: ``create_graph``); ``create_graph`` records the backward pass
    for higher-order derivatives; ``inputs`` limits accumulation to those tensors.
    """
    from ..shaped import flatten_roots, flatten_tensors, has_shaped

    if has_shaped(tensors, inputs):  # multi-element tensors: their elements are the roots/inputs
        tensors, grad_tensors = flatten_roots(tensors, grad_tensors)
        inputs = None if inputs is None else flatten_tensors(inputs)
    outputs = _as_tuple(tensors)
    for i, t in enumerate(outputs):
        if not t._rg:
            raise RuntimeError(_NO_GRAD_FN.format(i=i))
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _warned_create_graph:
        _warn_create_graph()
    grads = _root_grads(outputs, grad_tensors, create_graph)
    ins = None
    if inputs is not None:
        ins = list(_as_tuple(inputs))
        if not ins:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    run_backward(list(outputs), grads, retain_graph, create_graph, inputs=ins, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """Return d(outputs)/d(inputs) without touching any ``.grad``.

    An input the outputs do not depend on raises unless ``allow_unused`` (then its gradient
    is None, or zero with ``materialize_grads``).
    """
    from ..shaped import grad_of_tensors, has_shaped

    if has_shaped(outputs, inputs):  # multi-element tensors: one gradient tensor per input
        return grad_of_tensors(grad, outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                               materialize_grads)
    outs = _as_tuple(outputs)
    ins: Sequence = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    for i, t in enumerate(outs):
        if not t._rg:
            raise RuntimeError(_NO_GRAD_FN.format(i=i))
    for i, t in enumerate(ins):
        if not isinstance(t, Value):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(t).__name__} at index {i}")
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(outs, grad_outputs, create_graph)
    got = run_backward(list(outs), grads, retain_graph, create_graph, inputs=list(ins), accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(ins, got)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
            result.append(leaf(0.0, t._t) if materialize_grads else None)
        elif isinstance(g, Value):
            result.append(g)
        else:
            result.append(leaf(g, t._t))
    return tuple(result)
