"""``torch.optim.Optimizer``: parameter groups, per-parameter state, hooks, state dicts.

PyTorch 2.13's base class, behaviour for behaviour: ``param_groups`` is a list of dicts (the
group's own options, then the optimizer's defaults, in the defaults' order, after ``params``),
``state`` a ``defaultdict(dict)`` keyed by parameter; ``state_dict()`` packs parameters as
integer ids in group order and ``load_state_dict`` maps them back, deep-copying the groups and
casting floating state to the parameter's dtype (``step`` stays as saved). ``step`` is wrapped
once per class (at the first instance, as PyTorch's ``_patch_step_function``) so that the
global and per-optimizer step hooks run around it, whoever defined it.

Argument checks and their messages are PyTorch's.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain

from .._base import dtypes
from .._base.grad_mode import state as _grad_state
from .._base.handles import RemovableHandle, add_hook
from .._tensor.tensor import Tensor, defaults
from .._tensor.typename import typename

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook", "required"]


class _RequiredParameter:
    """The default of an option every parameter group must give (``lr`` of a custom optimizer)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``, before the
    optimizer's own pre hooks; it may return new ``(args, kwargs)``."""
    return add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``, after the
    optimizer's own post hooks."""
    return add_hook(_global_optimizer_post_hooks, hook)



def _use_grad_for_differentiable(step: Callable) -> Callable:
    """Run ``step`` with grad mode on exactly when the optimizer is ``differentiable``."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        prev = _grad_state.enabled
        _grad_state.enabled = bool(self.defaults["differentiable"])
        try:
            return step(self, *args, **kwargs)
        finally:
            _grad_state.enabled = prev

    return wrapper


def _get_scalar_dtype(is_fused=None):
    """The dtype of ``state['step']``: float64 when that is the default dtype, else float32."""
    if is_fused:
        return dtypes.float32
    return dtypes.float64 if defaults["dtype"] is dtypes.float64 else dtypes.float32


def _to_scalar(x):
    """A one-element hyperparameter tensor with dimensions as a 0-dim one; anything else as is."""
    if isinstance(x, Tensor) and x._t.ndim != 0:
        return x.squeeze()
    return x


def _get_value(x):
    """A tensor's number (``state['step']``), or the number itself."""
    return x.item() if isinstance(x, Tensor) else x


class Optimizer:
    """Base class of every optimizer: ``Optimizer(params, defaults)``.

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (parameter
    groups, each with a ``params`` entry and options overriding ``defaults``).
    """

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    # ------------------------------------------------------------ pickling and printing

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ------------------------------------------------------------ step and its hooks

    def _accelerator_graph_capture_health_check(self) -> None:
        """PyTorch checks CUDA/XPU graph capture here; scalargrad runs on the CPU only."""

    _cuda_graph_capture_health_check = _accelerator_graph_capture_health_check

    def _optimizer_step_code(self) -> None:
        """PyTorch's profiler entry point after each step (nothing to do)."""

    @staticmethod
    def profile_hook_step(func: Callable) -> Callable:
        """``func`` (a ``step``) with the step hooks around it: global pre hooks, then this
        optimizer's; the step; this optimizer's post hooks, then the global ones."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                                           f"{result}.")
            out = func(*args, **kwargs)
            self._optimizer_step_code()
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _patch_step_function(self) -> None:
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` before ``step``; it may return new
        ``(args, kwargs)``."""
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` after ``step``."""
        return add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer)`` before ``state_dict`` builds the dict."""
        return add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend=prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` after; a returned dict replaces it."""
        return add_hook(self._optimizer_state_dict_post_hooks, hook, prepend=prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` before loading (a shallow copy of the given
        dict); a returned dict is loaded instead."""
        return add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend=prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer)`` after loading."""
        return add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend=prepend)

    # ------------------------------------------------------------ state dicts

    def state_dict(self) -> dict:
        """``{'state': {id: {...}}, 'param_groups': [{..., 'params': [ids]}]}``: parameters as
        integer ids, numbered in group order; the state's tensors are the optimizer's own."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param: Tensor, value: Tensor, param_id, param_groups, key=None):
        """A loaded state tensor for ``param``: ``step`` as saved (float32 for fused or
        capturable groups), floating state in the parameter's dtype."""
        fused = capturable = False
        if param_groups is None:
            raise AssertionError("Expected param_groups to be set")
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=dtypes.float32)
            return value
        if param._t.dtype.is_floating_point:
            return value.to(dtype=param._t.dtype)
        return value

    def load_state_dict(self, state_dict: dict) -> None:
        """Load what ``state_dict()`` returned (or a dict of that form): the groups must match
        this optimizer's in number and sizes."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id, param_groups, key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            if isinstance(value, Iterable):
                return type(value)(cast(param, v, param_id=param_id, param_groups=param_groups) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group: dict, new_group: dict) -> dict:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, ng) for g, ng in zip(groups, saved_groups)]})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ------------------------------------------------------------ gradients and groups

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the parameters' gradients (``.grad = None``), or with ``set_to_none=False``
        zero them in place (detached from any graph)."""
        if not hasattr(self, "_zero_grad_profile_name"):
            self._patch_step_function()
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none and p._op is None:
                    p._g = None  # what ``p.grad = None`` does, without building the tensor
                    continue
                g = p.grad
                if set_to_none:
                    if g is not None:
                        p.grad = None
                    continue
                if g is not None:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure=None):
        """Perform one optimization step (each optimizer defines it)."""
        raise NotImplementedError

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters, with options overriding the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set: set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                                 f"{which} to the optimizer")
        if not param_set.isdisjoint(set(tensors)):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

