"""``torch.typename``: the name PyTorch's messages and programs give an object's type."""

from __future__ import annotations

from .tensor import Tensor


def typename(obj) -> str:
    """``torch.FloatTensor`` (the legacy type) for a tensor, else the qualified name of the
    type, or of ``obj`` itself when it is a class or function (builtins bare); scalargrad's own
    classes under their PyTorch names."""
    if isinstance(obj, Tensor):
        return obj._t.dtype.legacy
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins", "__builtin__"):
        return qualname
    if module == "scalargrad" or module.startswith("scalargrad."):
        module = "torch" + module[len("scalargrad"):]
    return f"{module}.{qualname}"
