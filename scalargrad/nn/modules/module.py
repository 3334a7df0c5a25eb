"""``nn.Module``: registration of parameters, buffers and submodules, hooks, state dicts.

Registration happens in ``__setattr__``: assigning a Parameter registers a parameter,
assigning a Module registers a child, assigning to a registered buffer name updates the
buffer; anything else (a plain tensor, a Python list or dict of modules) is an ordinary
attribute that the module does not know about. ``__call__`` runs forward between the forward
pre-hooks and forward hooks and wraps inputs and outputs for the backward hooks, in the order
of PyTorch 2.13's ``Module._call_impl``. The instance ``__dict__`` holds the same registries
as PyTorch's, in the same order.
"""

from __future__ import annotations

import inspect
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ... import __future__ as future_switches
from ..._base.dtypes import dtype as dtype_class
from ..._base.errors import Unsupported
from ..._base.grad_mode import no_grad
from ..._base.handles import RemovableHandle, add_hook
from ..._base.missing_api import pytorch_names
from ..._tensor.factories import device as device_class
from ..._tensor.factories import empty_like, use_device
from ..._tensor.memory_formats import memory_format as memory_format_class
from ..._tensor.swap import check_swappable, swap_contents
from ..._tensor.tensor import Tensor
from ..._tensor.typename import typename
from ..hooks import BackwardHook
from ..parameter import Buffer, Parameter, is_lazy
from .constructor_device import with_device_argument
from .loading import SwapCheck, load_entry, swap_check

__all__ = [
    "Module",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

MIXED_BACKWARD_HOOKS = ("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                        "Please use only one of them.")
MIXED_GLOBAL_BACKWARD_HOOKS = ("Cannot use both regular backward hooks and full backward hooks as a global "
                               "Module hook. Please use only one of them.")

# ---------------------------------------------------------------- hooks common to all modules
# Global state, meant for debugging and profiling as in PyTorch; these hooks run before the
# module's own hooks of the same kind.
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_is_full_backward_hook: bool | None = None
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()
_global_parameter_registration_hooks: OrderedDict = OrderedDict()


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, args) -> None | new args`` before every module's forward."""
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output) -> None | new output`` after every module's forward
    (``hook(module, args, kwargs, output)`` with ``with_kwargs``); ``always_call`` hooks also
    run when forward raises."""
    handle = add_hook(_global_forward_hooks, hook, extra_dict=_global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """Deprecated non-full backward hook for every module (see ``Module.register_backward_hook``)."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError(MIXED_GLOBAL_BACKWARD_HOOKS)
    _global_is_full_backward_hook = False
    return add_hook(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_output) -> None | new grad_output`` for every module."""
    return add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output) -> None | new grad_input`` for every module."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError(MIXED_GLOBAL_BACKWARD_HOOKS)
    _global_is_full_backward_hook = True
    return add_hook(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, buffer) -> None | new buffer`` on every ``register_buffer``."""
    return add_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, submodule) -> None | new submodule`` on every child registration."""
    return add_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, param) -> None | new param`` on every ``register_parameter``."""
    return add_hook(_global_parameter_registration_hooks, hook)


# ---------------------------------------------------------------- helpers


_swap_refused: list = []  # Module._apply under swapping: the outermost call's check_swappable result


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s: str, num_spaces: int) -> str:
    """Indent every line but the first (blank lines stay empty)."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join((num_spaces * " ") + line if line.strip() else "" for line in lines)


_typename = typename  # the messages' spelling of torch.typename


def _type_name(obj) -> str:
    """``type(obj).__name__`` as PyTorch prints it: a scalargrad Tensor is a ``Tensor``."""
    if isinstance(obj, Tensor):
        return "Parameter" if isinstance(obj, Parameter) else "Tensor"
    return type(obj).__name__



_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, "
    "*, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n")


def _arg_type(a) -> str:
    """A value's type as PyTorch's argument parser names it in its messages."""
    if isinstance(a, Tensor):
        return "Tensor"
    if isinstance(a, (dtype_class, device_class)):
        return f"torch.{type(a).__name__}"
    return type(a).__name__


def _parse_to(args: tuple, kwargs: dict) -> tuple:
    """``(device, dtype, memory_format)`` from ``Module.to``'s arguments, by PyTorch's three signatures:
    (device=None, dtype=None, non_blocking=False, copy=False), (dtype, non_blocking=False,
    copy=False), (tensor, non_blocking=False, copy=False), each with keyword ``memory_format``.
    An argument list none of them accepts is PyTorch's TypeError; ``copy`` its RuntimeError."""
    first = args[0] if args else kwargs.get("device", kwargs.get("dtype", kwargs.get("tensor")))
    if isinstance(first, Tensor) and (args or "tensor" in kwargs):
        lead, names = ("tensor",), ("tensor", "non_blocking", "copy", "memory_format")
    elif isinstance(first, dtype_class) and (args or "device" not in kwargs):
        lead, names = ("dtype",), ("dtype", "non_blocking", "copy", "memory_format")
    else:
        lead, names = ("device", "dtype"), ("device", "dtype", "non_blocking", "copy", "memory_format")
    bound = dict(zip(names[:-1], args))
    ok = len(args) <= len(names) - 1 and all(k in names and k not in bound for k in kwargs)
    bound.update(kwargs)
    device, dtype = bound.get("device"), bound.get("dtype")
    ok = ok and (device is None or isinstance(device, (str, int, device_class))) and not isinstance(device, bool)
    ok = ok and (dtype is None or isinstance(dtype, dtype_class))
    fmt = bound.get("memory_format")
    ok = ok and (fmt is None or isinstance(fmt, memory_format_class))
    ok = ok and all(isinstance(bound.get(k, False), bool) for k in ("non_blocking", "copy"))
    if not ok:
        got = [_arg_type(a) for a in args] + [f"{k}={_arg_type(v)}" for k, v in kwargs.items()]
        raise TypeError(f"to() received an invalid combination of arguments - got ({', '.join(got)}), "
                        f"but expected one of:\n{_TO_SIGNATURES}")
    if "copy" in bound:
        raise RuntimeError(".to() does not accept copy argument")
    if lead == ("tensor",):
        return None, bound["tensor"].dtype, fmt
    return device, dtype, fmt

_COMPLEX_PARAMETERS = "complex parameters need autograd of complex numbers, which scalargrad refuses"


class ModuleBoundHook:
    """``hook(module, *args)`` for a hook stored away from the module (a legacy backward hook on
    a graph node, a load_state_dict pre-hook), holding the module weakly."""

    __slots__ = ("hook", "module_ref", "__weakref__")

    def __init__(self, hook: Callable, module: Module) -> None:
        self.hook = hook
        self.module_ref = weakref.ref(module)

    def __call__(self, *args):
        module = self.module_ref()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)


class _CallState:
    """What the hooks of one module call have seen so far (read again if forward raises)."""

    __slots__ = ("args", "kwargs", "result", "called_always")

    def __init__(self, args: tuple, kwargs: dict) -> None:
        self.args = args
        self.kwargs = kwargs
        self.result = None
        self.called_always: set = set()


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _first_tensor(result):
    """The tensor a legacy backward hook attaches to: the first one in the result."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    return var


# ---------------------------------------------------------------- Module


class Module:
    """Base class of every network: subclass it, assign parameters and submodules in
    ``__init__`` (after ``super().__init__()``) and define ``forward``; call the module, not
    ``forward``, so that hooks run."""

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("scalargrad.nn.") and "__init__" in cls.__dict__:
            cls.__init__ = with_device_argument(cls.__dict__["__init__"])  # nn's layers honour device=

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # the same registries, in the same order, as PyTorch 2.13's Module.__init__
        put = super().__setattr__
        put("training", True)
        put("_parameters", {})
        put("_buffers", {})
        put("_non_persistent_buffers_set", set())
        put("_backward_pre_hooks", OrderedDict())
        put("_backward_hooks", OrderedDict())
        put("_is_full_backward_hook", None)
        put("_forward_hooks", OrderedDict())
        put("_forward_hooks_with_kwargs", OrderedDict())
        put("_forward_hooks_always_called", OrderedDict())
        put("_forward_pre_hooks", OrderedDict())
        put("_forward_pre_hooks_with_kwargs", OrderedDict())
        put("_state_dict_hooks", OrderedDict())
        put("_state_dict_pre_hooks", OrderedDict())
        put("_load_state_dict_pre_hooks", OrderedDict())
        put("_load_state_dict_post_hooks", OrderedDict())
        put("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # ------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state saved in ``state_dict`` (unless not ``persistent``) but not a parameter."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (a ``Parameter`` or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param._op is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, "
                             "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module (or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` (``''`` is the module itself)."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target``; with ``strict``, only replace an existing one."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        buf = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buf

    def get_extra_state(self) -> Any:
        """Override (with ``set_extra_state``) to save non-tensor state in ``state_dict``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. Please file an "
            "issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        """Override (with ``get_extra_state``) to load the state ``get_extra_state`` saved."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. Please file an "
            "issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.")

    # ------------------------------------------------------------ attribute protocol
    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        if not name.startswith("_"):
            if name in pytorch_names("torch.nn.Module"):  # PyTorch's Module has it: compile, to_empty...
                raise Unsupported(f"torch.nn.Module.{name}")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def remove_from(*containers) -> None:
            for c in containers:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            for hook in _global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            # a subclass may override register_buffer without the ``persistent`` argument
            # (PyTorch then passes it only if the override takes it)
            if getattr(self.register_buffer, "__func__", None) is Module.register_buffer:
                self.register_buffer(name, value, persistent)
            elif "persistent" in inspect.signature(self.register_buffer).parameters:
                self.register_buffer(name, value, persistent)
            else:
                if not persistent:
                    raise RuntimeError("Registering a non-persistent buffer on a Module subclass that implements "
                                       "register_buffer() without the persistent argument is not allowed.")
                self.register_buffer(name, value)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list:
        keys = (dir(self.__class__) + list(self.__dict__.keys()) + list(self._parameters.keys())
                + list(self._modules.keys()) + list(self._buffers.keys()))
        # names that are not Python identifiers (``0`` of a Sequential) are left out
        return sorted(k for k in keys if not k[0].isdigit())

    # ------------------------------------------------------------ iteration
    def _named_members(self, get_members, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo: set = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse
                   else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module and (with ``recurse``) its submodules, each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a shared parameter is listed once unless
        ``remove_duplicate=False``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of this module and (with ``recurse``) its submodules."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self) -> Iterator[Module]:
        """The direct submodules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, submodule)`` for the direct submodules, each module once."""
        memo: set = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """This module and every submodule, depth first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module and every submodule, depth first in
        registration order; a module reachable twice is listed once unless
        ``remove_duplicate=False``."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if module in memo:
                continue
            if remove_duplicate:
                memo.add(module)
            yield name, module
            children = [(name + ("." if name else "") + k, m) for k, m in module._modules.items() if m is not None]
            stack.extend(reversed(children))

    # ------------------------------------------------------------ modes and conversions
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=False``: evaluation) here and in every submodule; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the parameters' gradients: to None (default) or to zero in place."""
        for p in self.parameters():
            g = p._grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _replicate_for_data_parallel(self) -> Module:
        """A shallow replica, as DataParallel makes one per device: the same attributes, copies of
        the buffer and submodule dicts, no registered parameters (the replica's parameters are then
        set as plain attributes, views of the originals), marked ``_is_replica``."""
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Convert every parameter (in place, keeping the Parameter object), its gradient and
        every buffer with ``fn``."""
        swap = future_switches.get_swap_module_params_on_conversion()
        if swap and not _swap_refused:  # the outermost call: what swap_tensors would refuse, in one pass
            params = [p for m in (self.modules() if recurse else (self,)) for p in m._parameters.values()
                      if p is not None]
            _swap_refused.append(check_swappable(params + [p._g for p in params if p._g is not None], params))
            try:
                return self._apply(fn, recurse)
            finally:
                _swap_refused.pop()
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            if swap:
                self._swap_applied(key, param, applied, fn)
                continue
            param.data = applied
            grad = param._grad
            if grad is not None:
                with no_grad():
                    grad.data = fn(grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def _swap_applied(self, key: str, param: Parameter, applied: Tensor, fn: Callable) -> None:
        """``_apply`` under ``torch.__future__.set_swap_module_params_on_conversion(True)``: swap
        the converted contents (and the converted gradient) into the existing objects."""
        grad = param._grad
        refused = _swap_refused[-1]
        try:
            if grad is not None:
                param.grad = None  # PyTorch lets go of the gradient, which would hold the parameter
            if id(param) in refused:
                raise refused[id(param)]
            swap_contents(param, Parameter(applied, requires_grad=param.requires_grad))
        except Unsupported:
            param.grad = grad
            raise
        except Exception as e:
            if grad is not None:
                param.grad = grad
            raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}") from e
        if grad is not None:
            with no_grad():
                grad_applied = fn(grad)
            grad_applied.requires_grad_(grad.requires_grad)
            try:
                if id(grad) in refused:
                    raise refused[id(grad)]
                swap_contents(grad, grad_applied)
            except Unsupported:
                raise
            except Exception as e:
                raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}.grad") from e
            param.grad = grad

    def to(self, *args, **kwargs) -> Module:
        """``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype, non_blocking=False)``,
        ``to(tensor, non_blocking=False)``: cast the floating point parameters and buffers; only
        the CPU exists. Arguments are parsed as PyTorch's ``_parse_to`` parses them."""
        device, dtype, fmt = _parse_to(args, kwargs)
        if device is not None:
            use_device(device)  # anything but the CPU is refused here
        if dtype is not None and dtype.is_complex:
            # refused before any parameter is converted: nothing is left half-applied
            raise Unsupported(f"nn.Module.to({dtype})", _COMPLEX_PARAMETERS)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        def convert(t):  # memory_format: the 4-d and 5-d tensors only, as PyTorch's convert
            dt = dtype if t.is_floating_point() else None
            if fmt is not None and t.dim() in (4, 5):
                return t.to(dt, memory_format=fmt)
            return t if dt is None else t.to(dt)

        return self._apply(convert)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Move the parameters and buffers to ``device`` without their numbers: each becomes
        ``torch.empty_like(t, device=device)`` (how a module built on the meta device gets memory;
        scalargrad's uninitialised memory holds zeros)."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> Module:
        """Everything is on the CPU already; returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        """Refused: scalargrad has only the CPU."""
        use_device("cuda" if device is None else device if not isinstance(device, int) else f"cuda:{device}")
        return self

    def type(self, dst_type) -> Module:
        """Cast every parameter and buffer to ``dst_type``."""
        if getattr(dst_type, "is_complex", False) is True:
            raise Unsupported(f"nn.Module.type({dst_type})", _COMPLEX_PARAMETERS)
        return self._apply(lambda t: t.type(dst_type))

    def half(self) -> Module:
        """Cast the floating point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Cast the floating point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def float(self) -> Module:
        """Cast the floating point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        """Cast the floating point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    # ------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args) -> None | new args`` (a non-tuple is wrapped in a 1-tuple), or with
        ``with_kwargs`` ``hook(module, args, kwargs) -> None | (new args, new kwargs)``, before forward."""
        handle = add_hook(self._forward_pre_hooks, hook, prepend=prepend,
                          extra_dict=self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output) -> None | new output`` after forward (``hook(module, args,
        kwargs, output)`` with ``with_kwargs``); ``always_call`` hooks run even if forward raises."""
        handle = add_hook(self._forward_hooks, hook, prepend=prepend,
                          extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output) -> None | new grad_output``, when the gradients w.r.t. the
        module's outputs are known."""
        return add_hook(self._backward_pre_hooks, hook, prepend=prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output) -> None | new grad_input``, when the gradients
        w.r.t. the module's positional inputs are known (a tensor input that does not require grad
        gets a zero, a non-tensor input None). If no input requires grad it fires with the output
        gradients; if no output requires grad it never fires."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(MIXED_BACKWARD_HOOKS)
        self._is_full_backward_hook = True
        return add_hook(self._backward_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated: ``hook(module, grad_input, grad_output)`` on the node of the module's last
        operation, so ``grad_input`` holds the gradients w.r.t. that operation's inputs.
        Use ``register_full_backward_hook``."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(MIXED_BACKWARD_HOOKS)
        self._is_full_backward_hook = False
        return add_hook(self._backward_hooks, hook)

    def _get_backward_hooks(self) -> tuple[list, list]:
        full: list = []
        non_full: list = []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self) -> list:
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
        """PyTorch's deprecation warnings for the cases a legacy backward hook gets wrong."""
        def warn(msg: str) -> None:
            warnings.warn(msg, FutureWarning, stacklevel=3)

        if not isinstance(result, Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
                warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple "
                     "of Tensors is deprecated and will be removed in future versions. This hook will be missing "
                     "some of the grad_output. Please use register_full_backward_hook to get the documented "
                     "behavior.")
                return
        else:
            result = (result,)
        if not isinstance(inputs, Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
                warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or "
                     "a tuple of Tensors is deprecated and will be removed in future versions. This hook will be "
                     "missing some of the grad_input. Please use register_full_backward_hook to get the "
                     "documented behavior.")
                return
        else:
            inputs = (inputs,)
        out_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_nodes) == 0 or (len(out_nodes) == 1 and grad_fn not in out_nodes):
            warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                 "and will be removed in future versions. This hook will be missing some grad_output.")
        elif len(out_nodes) > 1:
            warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                 "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
                 "Please use register_full_backward_hook to get the documented behavior.")
        else:
            in_nodes = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_nodes = {n[0] for n in grad_fn.next_functions}
            if in_nodes != next_nodes:
                warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is "
                     "deprecated and will be removed in future versions. This hook will be missing some "
                     "grad_input. Please use register_full_backward_hook to get the documented behavior.")

    # ------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks or self._forward_pre_hooks
                or _global_backward_pre_hooks or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        state = _CallState(args, kwargs)
        try:
            return self._call_with_hooks(forward_call, state)
        except Exception:
            self._run_always_called_hooks(state)
            raise

    def _call_with_hooks(self, forward_call: Callable, state: _CallState):
        full_hooks: list = []
        non_full_hooks: list = []
        pre_hooks: list = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            pre_hooks = self._get_backward_pre_hooks()
        if self._backward_hooks or _global_backward_hooks:
            full_hooks, non_full_hooks = self._get_backward_hooks()

        for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, state.args, state.kwargs)
                if res is not None:
                    if isinstance(res, tuple) and len(res) == 2:
                        state.args, state.kwargs = res
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {res}.")
            else:
                res = hook(self, state.args)
                if res is not None:
                    state.args = res if isinstance(res, tuple) else (res,)

        bw_hook = None
        if full_hooks or pre_hooks:
            bw_hook = BackwardHook(self, full_hooks, pre_hooks)
            state.args = bw_hook.setup_input_hook(state.args)

        state.result = forward_call(*state.args, **state.kwargs)

        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                state.called_always.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                res = hook(self, state.args, state.kwargs, state.result)
            else:
                res = hook(self, state.args, state.result)
            if res is not None:
                state.result = res

        if bw_hook is not None:
            if not isinstance(state.result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                              f"Tensors but received {type(state.result)}", stacklevel=3)
            state.result = bw_hook.setup_output_hook(state.result)

        if non_full_hooks:
            grad_fn = _first_tensor(state.result).grad_fn
            if grad_fn is not None:
                for hook in non_full_hooks:
                    grad_fn.register_hook(ModuleBoundHook(hook, self))
                self._maybe_warn_non_full_backward_hook(state.args, state.result, grad_fn)
        return state.result

    _call_impl = __call__
    _wrapped_call_impl = __call__

    def _run_always_called_hooks(self, state: _CallState) -> None:
        """After forward (or a hook) raised: the ``always_call`` forward hooks not run yet. Their
        own errors become warnings, so that the original error is the one raised."""
        for hook_id, hook in _global_forward_hooks.items():
            if hook_id in _global_forward_hooks_always_called and hook_id not in state.called_always:
                try:
                    res = hook(self, state.args, state.result)
                    if res is not None:
                        state.result = res
                except Exception as e:
                    warnings.warn("global module forward hook with ``always_call=True`` raised an exception that "
                                  f"was silenced as another error was raised in forward: {e}", stacklevel=3)
        for hook_id, hook in self._forward_hooks.items():
            if hook_id in self._forward_hooks_always_called and hook_id not in state.called_always:
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        res = hook(self, state.args, state.kwargs, state.result)
                    else:
                        res = hook(self, state.args, state.result)
                    if res is not None:
                        state.result = res
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                  f"silenced as another error was raised in forward: {e}", stacklevel=3)

    # ------------------------------------------------------------ state dict
    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata) -> None | new state_dict`` after
        ``state_dict`` (a returned dict is used only at the root)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was previously "
                               "registered via register_state_dict_post_hook")
        return add_hook(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata) -> None`` after ``state_dict``; it may
        change the dict in place only."""
        hook._from_public_api = True
        return add_hook(self._state_dict_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars) -> None`` before ``state_dict``."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """This module's own parameters, then its persistent buffers (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if getattr(self.__class__, "get_extra_state", Module.get_extra_state) is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter and persistent buffer by dotted name: own
        parameters, own buffers, then each child's. Values are detached tensors sharing the
        parameters' numbers unless ``keep_vars``."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if res is not None:
                    destination = res
            elif res is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        return add_hook(self._load_state_dict_pre_hooks, ModuleBoundHook(hook, self) if with_module else hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs) -> None`` before this module's part of ``load_state_dict``."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys) -> None`` after this module's part of
        ``load_state_dict``; it may edit the key lists in place (which ``strict`` then checks)."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        """Load this module's own entries of ``state_dict`` (not its children's), each as soon as it
        is checked, as PyTorch does: a wrong type or shape, or a copy that fails, is appended to
        ``error_msgs`` and the other entries are loaded all the same; then ``set_extra_state`` and,
        with ``strict``, the keys nothing here or in a child takes."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        check = swap_check()
        if check is not None and self._load_state_dict_pre_hooks:
            check.stale()  # the program's own code ran
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in (*self._parameters.items(), *persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        swap = future_switches.get_swap_module_params_on_conversion()
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            lazy = is_lazy(param)  # an uninitialized parameter has no shape to check
            # checkpoints of PyTorch 0.3 stored 0-dim tensors as 1-dim
            if not lazy and len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if not lazy and input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            if param.is_meta and not input_param.is_meta and not assign:
                warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in "
                              "the current model, which is a no-op. (Did you mean to pass `assign=True` to assign "
                              "items in the state dictionary to their corresponding key in the module instead of "
                              "copying them in place?)", stacklevel=2)
            failure = load_entry(self, name, param, input_param, key, assign, swap)
            if failure is not None:
                error_msgs.append(failure)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "set_extra_state", Module.set_extra_state) is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
                if check is not None:
                    check.stale()
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False):
        """Copy the parameters and persistent buffers from ``state_dict`` into this module and its
        submodules; ``assign`` puts the given tensors in place instead (parameters keep their
        ``requires_grad``).

        As in PyTorch, each module's entries are loaded as they are checked and its load
        post-hooks run after its children; the errors (with ``strict``, missing and unexpected
        keys first) are raised together at the end, so a failed load leaves the module half
        loaded: the entries it accepted are loaded. Otherwise returns
        ``_IncompatibleKeys(missing_keys, unexpected_keys)``. With swapping on
        (``torch.__future__``), a tensor a live autograd graph uses is refused (``Unsupported``)
        before anything is loaded.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        # Unsupported (a swap of a tensor a live graph uses) before anything is loaded
        check = SwapCheck(self, state_dict) if future_switches.get_swap_module_params_on_conversion() else None

        def load(module: Module, local_state_dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            if check is not None and type(module)._load_from_state_dict is not Module._load_from_state_dict:
                check.stale()  # the program's own code runs before the swaps
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},  # noqa: F821
                         child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)  # the hooks may edit the lists
            for hook in module._load_state_dict_post_hooks.values():
                if check is not None:
                    check.stale()
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to "
                        "return new values, if incompatible_keys need to be modified, it should be done inplace.")

        try:
            if check is None:
                load(self, state_dict)
            else:
                with check:
                    load(self, state_dict)
        finally:
            del load  # a closure that refers to itself: a cycle that would hold the tensors
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------ printing
    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """Override to print a module's settings inside its repr (one or more lines)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
