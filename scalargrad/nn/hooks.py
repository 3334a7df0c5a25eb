"""The machinery behind a Module's full backward hooks and backward pre-hooks.

PyTorch implements them without touching the module's own graph: the tensors going into the
module and the tensors coming out of it each pass through one identity autograd Function,
``BackwardHookFunction``, so that they share one node (printed ``BackwardHookFunctionBackward``).
A post-hook on the output node sees the gradients w.r.t. the module's outputs (and runs the
backward pre-hooks, which may replace them); a post-hook on the input node sees the gradients
w.r.t. the module's inputs and runs the full backward hooks, which may replace those.
``BackwardHook`` is the state of one module call; it is made afresh for every call, so a module
used twice fires its hooks twice, each time with that call's gradients.
"""

from __future__ import annotations

import warnings

from .._autograd.function import Function
from .._base.grad_mode import is_grad_enabled
from .._tensor.tensor import Tensor

__all__ = ["BackwardHookFunction", "BackwardHook"]

NO_INPUT_REQUIRES_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since "
    "no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHookFunction(Function):
    """Identity on any number of tensors; the ones that do not require grad stay out of the graph."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads

    @staticmethod
    def sympy(sp, *args):
        # identity: the symbolic check proves gradients through a hooked module, and reports
        # what the module's hooks (post-hooks of this node) change with status 'hook'
        return args

    sympy_elementwise = True  # the identity holds element by element on multi-element tensors


def _pack_with_none(indices, values, size: int) -> tuple:
    """``values`` placed at ``indices`` of a ``size``-tuple of None."""
    res = [None] * size
    for i, v in zip(indices, values):
        res[i] = v
    return tuple(res)


def _hook_name(hook) -> str:
    return getattr(hook, "__name__", None) or repr(hook)


class BackwardHook:
    """The backward hooks of one call of ``module``: ``hooks(module, grad_input, grad_output)``
    and ``pre_hooks(module, grad_output)``, global ones first."""

    def __init__(self, module, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = hooks
        self.user_pre_hooks = pre_hooks
        self.grad_outputs = None  # set when the gradient reaches the outputs, cleared at the inputs
        self.n_inputs = -1
        self.input_tensors_index = None
        self.n_outputs = -1
        self.output_tensors_index = None

    # ------------------------------------------------------------ wrapping
    def _apply_on_tensors(self, on_node, args: tuple):
        """Pass the tensors of ``args`` through one BackwardHookFunction and hand its node to
        ``on_node``. Nothing is wrapped when no tensor requires grad or grad mode is off; the
        returned index list is then None."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        nodes = [t.grad_fn for t in wrapped
                 if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not nodes:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with a code "
                               "sample to reproduce this.")
        on_node(nodes[0])
        out = list(args)
        for i, t, given in zip(index, wrapped, tensors):
            # PyTorch hands forward a view of every tensor; a view of one that does not require
            # grad behaves as the tensor itself (in-place changes reach the caller's tensor)
            out[i] = t if given.requires_grad else given
        if type(args) is tuple:
            return tuple(out), index
        return type(args)(*out), index  # a namedtuple keeps its type

    def setup_input_hook(self, args: tuple) -> tuple:
        """The module's positional args, with their tensors wrapped (before forward runs)."""
        res, index = self._apply_on_tensors(lambda node: node.register_hook(self._on_input_grads), args)
        self.n_inputs = len(args)
        self.input_tensors_index = index
        return res

    def setup_output_hook(self, result):
        """The module's result, with its tensors wrapped (after the forward hooks ran)."""
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, index = self._apply_on_tensors(lambda node: node.register_hook(self._on_output_grads), args)
        self.n_outputs = len(args)
        self.output_tensors_index = index
        return res if is_tuple else res[0]

    def hooks_for_check(self, handler) -> list:
        """The user hooks that may change gradients when ``handler`` (one of this call's node
        post-hooks) runs, named for the reports of ``scalargrad.symbolic``."""
        owner = type(self.module).__name__
        if getattr(handler, "__func__", None) is BackwardHook._on_input_grads:
            return [f"full backward hook {_hook_name(h)} of {owner}" for h in self.user_hooks]
        return [f"backward pre-hook {_hook_name(h)} of {owner}" for h in self.user_pre_hooks]

    # ------------------------------------------------------------ backward
    def _on_output_grads(self, grad_inputs: tuple, grad_outputs: tuple):
        """Post-hook of the output node: record grad_output, run the backward pre-hooks."""
        self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_outputs, self.n_outputs)
        if self.user_pre_hooks:
            expected = len(self.grad_outputs)
            for hook in self.user_pre_hooks:
                new = hook(self.module, self.grad_outputs)
                if new is None:
                    continue
                if len(new) != expected:
                    raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                       f"got {len(new)}, but expected {expected}")
                self.grad_outputs = new
        local = self.grad_outputs
        if self.input_tensors_index is None:
            # no input requires grad: there will be no input node, so the hooks fire here
            warnings.warn(NO_INPUT_REQUIRES_GRAD, UserWarning, stacklevel=2)
            grad_inputs_none = _pack_with_none([], [], self.n_inputs)
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs_none, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
            self.grad_outputs = None
        if local is not None:
            return tuple(local[i] for i in self.output_tensors_index)
        return None

    def _on_input_grads(self, grad_inputs: tuple, grad_outputs: tuple):
        """Post-hook of the input node: run the full backward hooks with grad_input."""
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs (double backward)
            return None
        res = _pack_with_none(self.input_tensors_index, grad_inputs, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_tensors_index)
