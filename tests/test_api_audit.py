"""Issue 13's audit: every public name of PyTorch 2.13's audited modules, of Tensor and of
nn.Module either exists in scalargrad or raises scalargrad's ``Unsupported`` naming it, through
every spelling a program may use under ``scalargrad run``: ``torch.a.X``, ``from torch.a import
X`` (then used), ``import torch.a.b`` and ``import torch.a.b as m``; never an ImportError,
ModuleNotFoundError or a bare AttributeError.

The names come from ``scalargrad/_base/pytorch_api.py``, walked from live PyTorch by
``tests/pytorch_api.py``; with PyTorch installed the first test walks it again and requires the
checked-in copy to be current. ``python tests/test_api_audit.py`` prints the counts.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections import Counter
from pathlib import Path

import pytest

from scalargrad._base.missing_api import MissingModule
from scalargrad._base.pytorch_api import BY_KIND, PYTORCH_VERSION
from scalargrad.errors import Unsupported
from scalargrad.runner import torch_alias

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pytorch_api  # the walk, beside this file

MODULES = [m for m in BY_KIND if m not in ("torch.Tensor", "torch.nn.Module")]
NAMES = {m: {n: k for k, ns in kinds.items() for n in ns} for m, kinds in BY_KIND.items()}


def test_checked_in_names_are_pytorchs(torch_ref):
    assert PYTORCH_VERSION == torch_ref.__version__
    live = pytorch_api.walk(torch_ref)
    assert set(live) == set(NAMES)
    for module in live:
        # a submodule becomes an attribute of its package once anything imports it (another test
        # may have): the list holds those a fresh ``import torch`` shows
        got = {k: v for k, v in live[module].items() if v != "module" or k in NAMES[module]}
        assert got == NAMES[module], f"{module} changed: run python tests/pytorch_api.py"


# Attribute reads PyTorch itself refuses on the audit's real float tensor, with its words
# (checked against PyTorch 2.13: ``torch.tensor([1.]).imag``).
PYTORCH_REFUSES = {"torch.Tensor.imag": "imag is not implemented for tensors with non-complex dtypes."}


def _outcome(owner, name: str, feature: str) -> str:
    """``getattr(owner, name)``: "implemented", "missing module" or "unsupported" (scalargrad's
    refusal or PyTorch's own error); anything else fails the audit."""
    try:
        value = getattr(owner, name)
    except Unsupported as e:
        # Tensor's own refusals spell the feature "Tensor.X"
        assert e.feature in (feature, feature.removeprefix("torch.")), f"{feature}: Unsupported names {e.feature!r}"
        return "unsupported"
    except RuntimeError as e:
        if str(e) != PYTORCH_REFUSES.get(feature):
            pytest.fail(f"{feature}: {type(e).__name__}: {e}")
        return "unsupported"
    except Exception as e:  # the audit reports every other error
        pytest.fail(f"{feature}: {type(e).__name__}: {e}")
    return "missing module" if isinstance(value, MissingModule) else "implemented"


def audit_attributes() -> Counter:
    """Every name read as ``torch.a.X`` (Tensor's and Module's on an instance): the outcomes."""
    counts: Counter = Counter()
    with torch_alias():
        import torch

        for module in MODULES:
            owner = importlib.import_module(module)
            for name in NAMES[module]:
                counts[_outcome(owner, name, f"{module}.{name}")] += 1
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        m = torch.nn.Linear(2, 2)
        for module, obj in (("torch.Tensor", x), ("torch.nn.Module", m)):
            for name in NAMES[module]:
                counts[_outcome(obj, name, f"{module}.{name}")] += 1
    return counts


def test_every_name_read_as_an_attribute_exists_or_is_unsupported():
    counts = audit_attributes()
    assert sum(counts.values()) == sum(len(v) for v in NAMES.values())
    assert counts["implemented"] and counts["unsupported"] and counts["missing module"]


@pytest.mark.parametrize("module", MODULES)
def test_from_import_binds_a_name_that_raises_unsupported_when_used(module):
    with torch_alias():
        for name, kind in NAMES[module].items():
            namespace: dict = {}
            try:
                exec(f"from {module} import {name}", namespace)  # the spelling under test
            except Exception as e:
                pytest.fail(f"from {module} import {name}: {type(e).__name__}: {e}")
            value = namespace[name]
            own = importlib.import_module(module)
            try:
                getattr(own, name)
            except Unsupported:  # missing: what was bound stands in for it
                with pytest.raises(Unsupported) as info:
                    value() if kind in ("class", "function") else value.anything
                assert info.value.feature == f"{module}.{name}"


@pytest.mark.parametrize("module", MODULES)
def test_import_spellings_of_modules_and_their_submodules(module):
    submodules = [f"{module}.{n}" for n, k in NAMES[module].items() if k == "module"]
    with torch_alias():
        for target in [module, *submodules]:
            namespace: dict = {}
            for statement in (f"import {target}", f"import {target} as m"):
                try:
                    exec(statement, namespace)  # the spelling under test
                except Exception as e:
                    pytest.fail(f"{statement}: {type(e).__name__}: {e}")
            assert isinstance(namespace["m"], types.ModuleType)
            assert namespace["m"] is sys.modules[target]


def test_a_missing_module_names_what_the_program_used():
    with torch_alias():
        import torch.distributions as D
        import torch.fft
        from torch.distributions.beta import Beta

        with pytest.raises(Unsupported, match=r"^torch\.fft\.rfft is not supported: "):
            torch.fft.rfft(torch.ones(4))
        with pytest.raises(Unsupported, match=r"^torch\.distributions\.Beta is not supported: "):
            D.Beta(1.0, 1.0)
        with pytest.raises(Unsupported, match=r"^torch\.distributions\.beta\.Beta is not supported: "):
            Beta(1.0, 1.0)

        class MyBeta(Beta):  # subclassing at import works; making one raises
            pass

        with pytest.raises(Unsupported):
            MyBeta()
        assert repr(torch.fft) == "<module 'torch.fft' (not implemented by scalargrad)>"


def test_names_pytorch_does_not_have_keep_pythons_errors():
    with torch_alias():
        import torch

        with pytest.raises(ImportError, match="cannot import name 'NoSuchLayer'"):
            exec("from torch.nn import NoSuchLayer", {})
    # dunder probes stay plain AttributeErrors (libraries call hasattr with them)
    for owner in (torch, torch.nn, torch.nn.functional, torch.fft):
        assert not hasattr(owner, "__wrapped__")
        with pytest.raises(AttributeError) as info:
            _ = owner.__wrapped__
        assert not isinstance(info.value, Unsupported)


def test_a_public_name_pytorch_lacks_too_is_pythons_attribute_error(torch_ref):
    """``torch.sq`` (an exercise's blank, a typo): PyTorch's AttributeError and message, which a
    notebook prints and goes on; not Unsupported, which would claim a PyTorch feature is missing."""
    import scalargrad

    for path in ("sq", "nn.Foo", "nn.functional.foo", "linalg.bar"):
        owners = []
        for top in (torch_ref, scalargrad):
            *mods, name = path.split(".")
            owner = top
            for m in mods:
                owner = getattr(owner, m)
            owners.append((owner, name))
        messages = []
        for owner, name in owners:
            with pytest.raises(AttributeError) as info:
                getattr(owner, name)
            assert not isinstance(info.value, Unsupported)
            messages.append(str(info.value))
        assert messages[1] == messages[0]


def test_module_methods_pytorch_has_are_unsupported_by_name():
    import scalargrad

    m = scalargrad.nn.Linear(1, 1)
    with pytest.raises(Unsupported, match=r"^torch\.nn\.Module\.compile is not supported"):
        m.compile()
    assert not hasattr(m, "share_memory")
    with pytest.raises(AttributeError, match="^'Linear' object has no attribute 'no_such_method'$"):
        _ = m.no_such_method


if __name__ == "__main__":
    counts = audit_attributes()
    walked = sum(counts.values())
    print(f"{walked} names walked in {len(BY_KIND)} namespaces: " +
          ", ".join(f"{n} {k}" for k, n in counts.most_common()))
