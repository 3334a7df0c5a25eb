"""``autograd.backward`` and ``autograd.grad``: checking what the user asks for, then running
the engine. ``Tensor.backward`` is bound to ``backward`` here (the tensor layer sits below)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

from .._base.dtypes import TensorType, round_list
from .._base.warn_once import first_time
from .._tensor.tensor import Tensor, impl, leaf
from .edges import GradientEdge, edge_tensor
from .engine import run_backward

__all__ = ["backward", "grad"]

_NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)


def _warn_create_graph() -> None:
    # PyTorch warns once per process (TORCH_WARN_ONCE), whatever the warning filters say
    if first_time("backward_create_graph"):
        warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=4)


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _inputs_tuple(inputs, fn: str) -> tuple:
    """``inputs`` as PyTorch's backward/grad read them: a tensor, a dict (its values) or any
    iterable; another kind of mapping is refused."""
    if isinstance(inputs, Tensor):
        return (inputs,)
    if isinstance(inputs, GradientEdge):
        return (edge_tensor(inputs),)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{fn}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    return tuple(edge_tensor(i) if isinstance(i, GradientEdge) else i for i in inputs)


def _root_grads(outputs: tuple, grad_outputs, create_graph: bool) -> list:
    """Each output's starting gradient, checked as PyTorch's ``_make_grads`` checks it (then the
    engine's count and requires-grad checks), in the engine's representation: ones for a
    one-element output given None, else the given tensor."""
    given = (None,) * len(outputs) if grad_outputs is None else _as_tuple(grad_outputs)
    made = []
    for out, g in zip(outputs, given):  # zip: a count mismatch is the engine's to report
        if isinstance(g, Tensor):
            if tuple(g._t.shape) != tuple(out._t.shape):
                # PyTorch finds the indices with list.index, comparing tensors with == on the way
                raise RuntimeError(f"Mismatch in shape: grad_output[{list(given).index(g)}] has a shape of "
                                   f"{g._t.shape!r} and output[{list(outputs).index(out)}] has a shape of "
                                   f"{out._t.shape!r}.")
            made.append(g)
        elif g is None:
            if not out._rg:
                made.append(None)
                continue
            if out._t.numel != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out._t.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{out._t.dtype}")
            one = out._t.dtype.round(1.0)
            made.append(leaf([one] if out._t.ndim else one, TensorType(out._t.dtype, out._t.shape)))
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    if len(made) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(made)} gradients")
    for i, t in enumerate(outputs):
        if not t._rg:
            raise RuntimeError(_NO_GRAD_FN.format(i=i))
    grads = []
    for out, g in zip(outputs, made):
        t = out._t
        if g._t.dtype is not t.dtype and not create_graph:
            vals = round_list(t.dtype, g._val) if t.ndim else t.dtype.round(g._val)
            g = leaf(vals, TensorType(t.dtype, t.shape))
        if not create_graph and not t.ndim:
            g = g._val  # 0-dim gradients are plain numbers in the engine
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Add the gradients of ``tensors`` w.r.t. every leaf into the leaves' ``.grad``.

    ``grad_tensors`` weights each output (default 1 for one-element outputs; ``grad_variables``
    is its deprecated name); saved values are freed unless ``retain_graph`` (default:
    ``create_graph``); ``create_graph`` records the backward pass for higher-order derivatives;
    ``inputs`` limits accumulation to those tensors.
    """
    if grad_variables is not None:  # PyTorch's words
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to "
                               "backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    ins = None
    if inputs is not None:
        ins = list(_inputs_tuple(inputs, "backward"))
        if not ins:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    outputs = _as_tuple(tensors)
    for i, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"backward(): tensors must be Tensors, got {type(t).__name__} at index {i}")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        _warn_create_graph()
    grads = _root_grads(outputs, grad_tensors, create_graph)
    run_backward(list(outputs), grads, retain_graph, create_graph, inputs=ins, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """Return d(outputs)/d(inputs) without touching any ``.grad``.

    An input the outputs do not depend on raises unless ``allow_unused`` (then its gradient
    is None, or zeros with ``materialize_grads``).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    ins = _inputs_tuple(inputs, "grad")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)
    for i, t in enumerate(outs):
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): outputs must be Tensors, got {type(t).__name__} at index {i}")
    for i, t in enumerate(ins):
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(t).__name__} at index {i}")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(outs, grad_outputs, create_graph)
    if any(not t._rg for t in ins):
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    got = run_backward(list(outs), grads, retain_graph, create_graph, inputs=list(ins), accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(ins, got)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:  # zeros_like(input, requires_grad=create_graph)
                z = t._t.dtype.round(0)
                result.append(leaf([z] * t._t.numel if t._t.ndim else z, TensorType(t._t.dtype, t._t.shape),
                                   create_graph))
            else:
                result.append(None)
        elif isinstance(g, Tensor):
            if type(g) is Tensor and g._s is not None and g._s.offset and not g._rg and g._t.shape == t._t.shape:
                pass  # a view into a gradient (block_diag's, the view scatters'): PyTorch hands out that view
            elif not g._rg and g._t.shape == t._t.shape:  # PyTorch hands the gradient out as it is laid out
                g = leaf(list(g._val) if g._t.ndim else g._val,
                         TensorType(t._t.dtype, t._t.shape, g._t.strides if g._t.ndim else None))
            result.append(g)
        else:
            result.append(leaf(g, TensorType(t._t.dtype, t._t.shape)))
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)


def _tensor_backward(self, gradient, retain_graph, create_graph, inputs) -> None:
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


impl.backward = _tensor_backward
