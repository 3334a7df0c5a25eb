"""``torch.nn.modules.lazy.LazyModuleMixin``: a module whose parameters take their shapes from
its first input.

Until then its parameters (and buffers) are ``UninitializedParameter`` (``UninitializedBuffer``)
and its repr shows 0 for the inferred size. A forward pre-hook runs ``initialize_parameters``
on the first call: the parameters are materialised (the same objects, so an optimizer made
before still holds them), ``reset_parameters`` draws them as the ordinary layer does, at that
moment, and the module becomes its ordinary class (``LazyLinear`` -> ``Linear``). Loading a
state dict into it first materialises each parameter to the loaded shape.
"""

from __future__ import annotations

import itertools

from ..._base.grad_mode import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed in before the ordinary layer: ``class LazyLinear(LazyModuleMixin, Linear)``."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        # an uninitialized parameter is saved as it is (not detached)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs) -> None:
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                incoming = state_dict[key]
                if is_lazy(param) and not is_lazy(incoming):
                    with no_grad():
                        param.materialize(incoming.shape)

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(p) for p in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
