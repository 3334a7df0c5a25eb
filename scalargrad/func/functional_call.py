"""``torch.func.functional_call`` and ``torch.func.stack_module_state``.

``functional_call`` runs a module with some of its parameters and buffers replaced by the given
tensors, and puts the module's own back afterwards, even when the call raises: the contract of
PyTorch 2.13's ``torch.nn.utils.stateless._functional_call`` (tied weights follow the one given
unless ``tie_weights=False``; ``strict`` refuses missing and unexpected names with PyTorch's
message). The swap writes the module's ``_parameters``/``_buffers`` slot directly, as PyTorch's
``NamedMemberAccessor.swap_tensor`` does, so a plain tensor (one of a ``grad`` or ``vmap``
transform) stands in for a Parameter without being wrapped.
"""

from __future__ import annotations

from typing import Any

from .._tensor import joins
from .._tensor.tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _merge(dicts) -> dict:
    if isinstance(dicts, dict):
        return dicts
    if isinstance(dicts, (list, tuple)):
        counts: dict[str, int] = {}
        for d in dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        return {k: v for d in dicts for k, v in d.items()}
    raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                     f"but got {type(dicts)}")


def _named_tensors(module) -> dict:
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untie(module, given: dict) -> dict:
    """``given`` with every name tied to a given one (the same tensor in the module) added."""
    by_tensor: dict[int, set] = {}
    for name, t in _named_tensors(module).items():
        by_tensor.setdefault(id(t), set()).add(name)
    tied = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given_tied = [n for n in given if n in tied]
    for name in given_tied:
        names = tied[name]
        if len(names.intersection(given_tied)) > 1 and len({id(given[n]) for n in names if n in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    out = dict(given)
    for name in given_tied:
        for other in tied[name]:
            out[other] = given[name]
    return out


def _swap(module, path: str, value):
    """Put ``value`` (``_MISSING``: remove) at ``path``; the previous occupant (or ``_MISSING``)."""
    prefix, _, attr = path.rpartition(".")
    owner = module.get_submodule(prefix)
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for slot in (owner._parameters, owner._buffers):
        if attr in slot:
            old = slot[attr]
            if value is _MISSING:
                del slot[attr]
            else:
                slot[attr] = value
            return old
    old = getattr(owner, attr) if hasattr(owner, attr) else _MISSING
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{attr}`: {old} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(owner, attr, value)
    elif hasattr(owner, attr):
        delattr(owner, attr)
    return old


def functional_call(module, parameter_and_buffer_dicts, args: Any = None, kwargs: dict | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the named parameters and buffers of
    ``parameter_and_buffer_dicts`` (a dict, or a list/tuple of dicts with distinct keys) in place
    of the module's own, which are restored afterwards. ``args`` that is not a tuple is the one
    positional argument."""
    given = _merge(parameter_and_buffer_dicts)
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    swap = _untie(module, given) if tie_weights else given
    if strict:
        valid = set(_named_tensors(module))
        missing, unexpected = sorted(valid - set(swap)), sorted(set(swap) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            joined = "\n\t".join(msgs)
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t{joined}")
    originals: dict[str, Any] = {}
    try:
        for name, value in swap.items():
            originals[name] = _swap(module, name, value)
        return module(*args, **kwargs)
    finally:
        for name, old in originals.items():
            _swap(module, name, old)


def stack_module_state(models) -> tuple[dict, dict]:
    """The parameters and buffers of ``models`` (same class, same mode) stacked along a new first
    dimension, by name; stacked parameters that require grad are new leaves (PyTorch's contract)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(dicts: list, name: str) -> Tensor:
        tensors = [d[name] for d in dicts]
        rg = [t.requires_grad for t in tensors]
        if any(rg) and not all(rg):
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        out = joins.stack(tensors)
        return out.detach().requires_grad_() if all(rg) else out

    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return ({k: stacked(params, k) for k in params[0]}, {k: stacked(buffers, k) for k in buffers[0]})
