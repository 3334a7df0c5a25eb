"""``torch.nn.utils.prune``: a parameter rewritten as ``name_orig * name_mask`` by a forward pre-hook.

Pruning ``module.weight`` moves the parameter to ``weight_orig`` (registered after the module's
other parameters), registers the mask as the buffer ``weight_mask``, sets the plain attribute
``weight`` to ``weight_mask * weight_orig`` and registers the method itself as a forward pre-hook
that recomputes it before each call. Pruning the same tensor again gathers the methods in a
``PruningContainer`` that computes the new mask only on what is still unpruned. The masks are
PyTorch's: ``topk`` on the magnitudes (L1), on ``rand_like`` draws (random, the same generator
and draws as PyTorch's), on the channels' Ln norms, or ``kthvalue`` of ``rand`` draws per channel.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._tensor.factories import ones_like, zeros_like
from ..._tensor.random_factories import rand, rand_like
from ..._tensor.tensor import Tensor
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A way of computing a mask; ``apply`` reparametrizes ``module.<name>`` with it."""

    _tensor_name: str

    def __call__(self, module, inputs) -> None:
        """The forward pre-hook: ``module.<name>`` becomes ``mask * orig`` again."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for the importance scores ``t``, on top of ``default_mask`` (same shape)."""

    def apply_mask(self, module) -> Tensor:
        """``module.<name>_mask`` (in the original's dtype) times ``module.<name>_orig``."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name: str, *args, importance_scores: Tensor | None = None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, on top of earlier pruning of it."""
        method = _composite_method(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # put the parameter back as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """``t`` times the mask computed from ``importance_scores`` (``t`` itself when None)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor t, "
                                     f"got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``<name>`` is the parameter again, holding ``mask * orig``."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name: str, args: tuple, kwargs: dict) -> BasePruningMethod:
    """The new method, or the container of the earlier one(s) and it; the earlier hook is removed."""
    old_method, found = None, []
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            found.append(k)
    if len(found) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             "Use a PruningContainer.")
    for k in found:
        del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        return old_method
    if old_method is not None:
        container = PruningContainer(old_method)
        container.add_pruning_method(method)
        return container
    return method


class PruningContainer(BasePruningMethod):
    """The pruning methods applied one after another to one tensor, in order."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append ``method``, which must act on the container's tensor."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed on the entries (or channels) ``default_mask`` keeps."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                                     "`dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = tuple(keep_channel if d == dim else slice(None) for d in range(n_dims))
        elif kind == "global":
            slc = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (a reparametrization only)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module, name: str):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes the entries with the ``amount`` largest ``rand_like`` draws."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone()
        if nparams_toprune != 0:
            prob = rand_like(t)
            mask.view(-1)[prob.view(-1).topk(k=nparams_toprune).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name: str, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest magnitude."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone()
        if nparams_toprune != 0:
            mask.view(-1)[t.abs().view(-1).topk(k=nparams_toprune, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name: str, amount, importance_scores: Tensor | None = None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes whole channels along ``dim``: those whose ``rand`` draw is at most the k-th smallest."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = rand(tensor_size)
        threshold = prob.kthvalue(k=nparams_toprune).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name: str, amount, dim: int = -1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest Ln norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t, self.n, self.dim)
        topk = norm.topk(k=nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, topk.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name: str, amount, n, dim: int, importance_scores: Tensor | None = None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name: str, mask: Tensor):
        return super().apply(module, name, mask=mask)


def _channel_mask(t: Tensor, dim: int, index) -> Tensor:
    """Zeros shaped like ``t`` with ones in the channels ``index`` (indices or booleans) along ``dim``."""
    mask = zeros_like(t)
    dim = dim + t.dim() if dim < 0 else dim
    mask[tuple(index if d == dim else slice(None) for d in range(t.dim()))] = 1
    return mask


def identity(module, name: str):
    """Reparametrize ``module.<name>`` with a mask of ones; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name: str, amount):
    """Prune ``amount`` (a count, or a fraction in [0, 1]) of ``module.<name>``'s entries at random."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name: str, amount, importance_scores: Tensor | None = None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude (or importance)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name: str, amount, dim: int):
    """Prune ``amount`` channels of ``module.<name>`` along ``dim`` at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name: str, amount, n, dim: int, importance_scores: Tensor | None = None):
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest Ln norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores: dict | None = None, **kwargs) -> None:
    """Prune the ``(module, name)`` pairs together, as if one flat tensor, with an unstructured method."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for (module, name) in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name))) for (module, name) in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module, name: str, mask: Tensor):
    """Prune ``module.<name>`` where ``mask`` is zero."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name: str):
    """Make the pruning of ``module.<name>`` permanent and drop its hook, ``_orig`` and ``_mask``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module) -> bool:
    """Whether ``module`` or a submodule has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, submodule in module.named_modules() for hook in submodule._forward_pre_hooks.values())


def _validate_pruning_amount_init(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size: int) -> int:
    return amount if isinstance(amount, numbers.Integral) else round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n, dim: int) -> Tensor:
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return t.norm(p=n, dim=dims)


for _cls in (BasePruningMethod, PruningContainer, Identity, RandomUnstructured, L1Unstructured, RandomStructured,
             LnStructured, CustomFromMask):
    _cls.__module__ = "torch.nn.utils.prune"  # <torch.nn.utils.prune.L1Unstructured object at 0x...>
