"""What scalargrad's ``torch.optim`` does not implement, and the one error that says so.

PyTorch's other optimizers and schedulers exist here as names (so ``from torch.optim import
LBFGS`` and ``torch.optim.LBFGS`` behave as in PyTorch up to the point of use) that raise
scalargrad's ``Unsupported`` when a program makes one, subclasses one or calls one. A missing
name raised from a module's ``__getattr__`` would not do: ``from M import name`` turns any
AttributeError (``Unsupported`` is one) into an ImportError.

``fused=True`` is refused too: PyTorch's fused CPU kernels round differently from its
for-loop implementation (measured: SGD with momentum, Adam, AdamW and Adagrad trajectories
differ in the last bits), and scalargrad follows the for-loop one. ``foreach=True`` runs the
for-loop implementation: on the CPU PyTorch's foreach kernels give the same bits (the tests
compare).
"""

from __future__ import annotations

from .._base.errors import Unsupported

__all__ = ["placeholder", "placeholder_function", "placeholder_module", "refuse_fused"]


def placeholder(module: str, name: str) -> type:
    """A class standing for PyTorch's ``module.name``: making one (or a subclass) raises."""
    feature = f"{module}.{name}"

    def new(cls, *args, **kwargs):
        raise Unsupported(feature)

    return type(name, (), {"__new__": new, "__module__": module, "__qualname__": name,
                           "__doc__": f"PyTorch's {feature}: not implemented by scalargrad (using it raises "
                                      "Unsupported)."})


def placeholder_function(module: str, name: str):
    """A function standing for PyTorch's ``module.name``: calling it raises."""
    feature = f"{module}.{name}"

    def function(*args, **kwargs):
        raise Unsupported(feature)

    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    return function


class _PlaceholderModule:
    """A submodule scalargrad does not implement (``torch.optim.swa_utils``): any attribute
    raises."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise Unsupported(f"{self.__name__}.{attr}")

    def __repr__(self) -> str:
        return f"<module '{self.__name__}' (not implemented by scalargrad)>"


def placeholder_module(name: str) -> _PlaceholderModule:
    return _PlaceholderModule(name)


def refuse_fused(optimizer: str) -> None:
    """``fused=True``: PyTorch's fused CPU kernels round differently from its for-loop code."""
    raise Unsupported(f"torch.optim.{optimizer}(fused=True)",
                      "PyTorch's fused CPU kernel rounds differently from its for-loop implementation, which "
                      "scalargrad follows: leave fused unset")
