"""What a module answers for a PyTorch name scalargrad does not implement.

Every spelling a program may use ends in scalargrad's one-sentence ``Unsupported`` error naming
the name, never an ImportError or a bare AttributeError:

- ``torch.x.name`` (attribute access): ``Unsupported("torch.x.name")`` at once;
- ``from torch.x import name``: Python turns any AttributeError raised while it imports a name
  (``Unsupported`` is one, so that ``hasattr`` works) into "ImportError: cannot import name".
  So a name PyTorch has (``pytorch_api.py``, walked from PyTorch 2.13) gets a stand-in there,
  which raises ``Unsupported`` when the program uses it: calls it, makes one, reads from it.
  A program that imports a name and never uses it runs, as under PyTorch;
- ``torch.fft`` and ``import torch.fft``: a module PyTorch has and scalargrad does not is a
  ``MissingModule`` whose names answer as above, so the error names what the program used
  (``torch.fft.rfft``), and ``import torch.fft as fft`` works until then.

Dunder names stay plain AttributeErrors: libraries probe them with ``hasattr``; so does a public
name that PyTorch's module (as walked) does not have either (``torch.sq``), with PyTorch's message.
"""

from __future__ import annotations

import dis
import importlib
import os
import sys
import types

from .errors import Unsupported

__all__ = ["MissingModule", "missing_attribute", "missing_module", "pytorch_names", "is_pytorch_module"]

_IMPORT_FROM = dis.opmap["IMPORT_FROM"]
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_names: dict[str, dict[str, str]] | None = None
_modules: dict[str, MissingModule] = {}


def pytorch_names(module: str) -> dict[str, str]:
    """PyTorch 2.13's public names of ``module`` (``torch``, ``torch.nn``...) with their kinds
    (class, function, module, value); empty for a module the walk did not cover."""
    global _names
    if _names is None:  # loaded on the first missing name: most programs never need it
        from .pytorch_api import BY_KIND

        _names = {m: {n: k for k, ns in kinds.items() for n in ns} for m, kinds in BY_KIND.items()}
    return _names.get(module, {})


def is_pytorch_module(name: str) -> bool:
    """Whether PyTorch 2.13 has a public module ``name`` (``torch.fft``, ``torch.nn.parallel``)."""
    parent, _, last = name.rpartition(".")
    return bool(pytorch_names(name)) or pytorch_names(parent).get(last) == "module" \
        or isinstance(_modules.get(parent), MissingModule)


def _importing_by_name() -> bool:
    """Whether the attribute is being read by ``from M import name`` (the first frame outside
    scalargrad executes IMPORT_FROM, or importlib's fromlist handling probes it)."""
    frame = sys._getframe(1)
    # scalargrad's own frames, also when a module of it was loaded under a torch name (``sys.modules
    # ['torch'] = scalargrad``, then ``import torch.functional``)
    while frame is not None and (frame.f_globals.get("__name__", "").startswith("scalargrad")
                                 or frame.f_code.co_filename.startswith(_PACKAGE)):
        frame = frame.f_back
    if frame is None:
        return False
    code = frame.f_code
    if code.co_name == "_handle_fromlist":
        return True
    lasti = frame.f_lasti
    return 0 <= lasti < len(code.co_code) and code.co_code[lasti] == _IMPORT_FROM


def missing_attribute(module: str, name: str, kind: str | None = None):
    """The answer of ``module``'s ``__getattr__`` (``module`` spelled as torch spells it) for a
    name it does not define: a MissingModule for a PyTorch submodule, a stand-in while
    ``from module import name`` runs, else ``Unsupported`` naming ``module.name``. ``kind``
    says what PyTorch's name is for a module the walk does not cover (``torch.functional``)."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(f"module '{module}' has no attribute '{name}'")
    known = pytorch_names(module)
    kind = kind or known.get(name)
    if kind is None and known and not name.startswith("_"):
        # a public name PyTorch's module does not have either (a typo, an exercise's blank):
        # PyTorch's own AttributeError, not a claim that scalargrad lacks a PyTorch feature
        raise AttributeError(f"module '{module}' has no attribute '{name}'")
    if kind == "module":
        return _submodule(f"{module}.{name}")
    # a module outside the walk (torch.distributions.normal): any name may be PyTorch's
    if (kind is not None or (not known and module in _modules)) and _importing_by_name():
        return _stand_in(f"{module}.{name}", kind or "class")
    raise Unsupported(f"{module}.{name}")


def _submodule(name: str) -> types.ModuleType:
    """PyTorch's submodule ``name``: scalargrad's own when it has one (loaded on first use, as
    ``torch.backends``), else a MissingModule."""
    if name not in _modules:
        ours = "scalargrad" + name[len("torch"):]
        try:
            return importlib.import_module(ours)
        except ModuleNotFoundError as e:
            if e.name is None or not ours.startswith(e.name):
                raise
    return missing_module(name)


class MissingModule(types.ModuleType):
    """A PyTorch module scalargrad does not implement: importing it works, every name in it
    answers as ``missing_attribute`` says."""

    def __init__(self, name: str) -> None:
        super().__init__(name, f"PyTorch's {name}: not implemented by scalargrad (using any of it raises "
                               "Unsupported).")
        self.__path__ = []  # a package: its submodules are missing modules too

    def __getattr__(self, name: str):
        return missing_attribute(self.__name__, name)

    def __repr__(self) -> str:
        return f"<module '{self.__name__}' (not implemented by scalargrad)>"


def missing_module(name: str) -> MissingModule:
    """The one MissingModule standing for PyTorch's module ``name``."""
    module = _modules.get(name)
    if module is None:
        module = _modules[name] = MissingModule(name)
    return module


def _stand_in(feature: str, kind: str):
    """What ``from M import name`` binds for a PyTorch name scalargrad lacks: a class that
    raises when made (subclassing works, as class definitions run at import), a function
    that raises when called, or an object that raises on any use."""
    module, _, name = feature.rpartition(".")
    if kind == "class":
        def new(cls, *args, **kwargs):
            raise Unsupported(feature)

        return type(name, (), {"__new__": new, "__module__": module, "__qualname__": name,
                               "__doc__": f"PyTorch's {feature}: not implemented by scalargrad."})
    if kind == "function":
        def function(*args, **kwargs):
            raise Unsupported(feature)

        function.__name__ = function.__qualname__ = name
        function.__module__ = module
        return function
    return _MissingValue(feature)


class _MissingValue:
    """A value PyTorch has (``torch.uint16``, ``torch.channels_last``): any use raises."""

    __slots__ = ("_feature",)

    def __init__(self, feature: str) -> None:
        object.__setattr__(self, "_feature", feature)

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise Unsupported(self._feature)

    def __call__(self, *args, **kwargs):
        raise Unsupported(self._feature)

    def __eq__(self, other: object) -> bool:
        raise Unsupported(self._feature)

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<{self._feature}: not implemented by scalargrad>"
