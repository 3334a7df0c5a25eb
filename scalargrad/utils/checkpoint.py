"""``torch.utils.checkpoint``: activation checkpointing, PyTorch's two variants.

The reentrant one (``use_reentrant=True``, still 2.13's default, with its warning when not
chosen) is a custom Function, ``CheckpointFunction``: its forward runs the function without
recording a graph and keeps the inputs (and the random state); its backward runs the function
again with grad on, from the same random state, and backpropagates through that new graph in a
nested ``backward`` call, so the program sees ``CheckpointFunctionBackward`` as the output's
node. The non-reentrant one records the function's own graph: PyTorch frees its saved tensors
and recomputes them in backward, with the same values, which scalargrad (keeping them) need not
do; its memory options (``context_fn``, ``debug``) are refused by name.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

from .._autograd import engine
from .._autograd.api import backward
from .._autograd.function import Function
from .._base import rng
from .._base.errors import Unsupported
from .._base.grad_mode import enable_grad, no_grad
from .._base.program_frame import program_stacklevel
from .._tensor.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "noop_context_fn", "detach_variable",
           "check_backward_validity"]

_NOT_EXPLICIT = ("the use_reentrant parameter should be passed explicitly. {when} use_reentrant=False is recommended, "
                 "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer "
                 "to docs for more details on the differences between the two variants.")
_CHECKPOINT_WARNING = "torch.utils.checkpoint: " + _NOT_EXPLICIT.format(
    when="Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception.")
_SEQUENTIAL_WARNING = "torch.utils.checkpoint.checkpoint_sequential: " + _NOT_EXPLICIT.format(
    when="In version 2.9 we will raise an exception if use_reentrant is not passed.")
_GRAD_OR_INPUTS = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                   "`inputs` parameter to .backward(). To resolve this error, you can either set "
                   "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return _Nothing(), _Nothing()


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc) -> None:
        return None


def check_backward_validity(inputs) -> None:
    """Warn, as PyTorch does, when no tensor input requires grad (the checkpoint computes none)."""
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                      stacklevel=program_stacklevel())


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of ``inputs`` detached, keeping whether it requires grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x for x in inputs)


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward by running the function again."""

    @staticmethod
    def forward(ctx, run_function: Callable, preserve_rng_state: bool, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = rng.get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if engine.running and engine.running[-1].capture is not None:  # autograd.grad / backward(inputs=)
            raise RuntimeError(_GRAD_OR_INPUTS)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        outer_state = rng.get_rng_state() if ctx.preserve_rng_state else None
        try:
            if outer_state is not None:  # the forward's random numbers again (dropout), then the program's
                rng.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            if outer_state is not None:
                rng.set_rng_state(outer_state)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None, context_fn=noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True, **kwargs):
    """``function(*args)`` with its activations recomputed in backward instead of kept (module
    docstring); the values and gradients are those of running ``function`` plainly."""
    if use_reentrant is None:
        warnings.warn(_CHECKPOINT_WARNING, UserWarning, stacklevel=program_stacklevel())
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if context_fn is not noop_context_fn or debug is not False:
        raise Unsupported("torch.utils.checkpoint with context_fn or debug (use_reentrant=False)",
                          "scalargrad keeps a checkpointed function's activations instead of recomputing them")
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Run ``functions`` (a Sequential or a list of modules) on ``input`` in ``segments`` chunks,
    each but the last checkpointed."""
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_WARNING, UserWarning, stacklevel=program_stacklevel())
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if any(c.__name__ == "Sequential" and c.__module__.endswith(".container") for c in type(functions).__mro__):
        functions = list(functions.children())  # nn sits above this layer: nn.Sequential known by its name

    def run(start: int, end: int):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
