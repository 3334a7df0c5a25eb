"""``torch.__version__`` is PyTorch 2.13's CPU wheel's version string, a TorchVersion that
compares with strings and tuples by PEP 440 (``torch_version.py``); scalargrad's own release is
``version.scalargrad_version``. Each expectation written here is checked on PyTorch too (``L``)."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

import pytest

import scalargrad
from scalargrad.torch_version import TorchVersion

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["scalargrad", "torch"])
def L(request):
    if request.param == "torch":
        return request.getfixturevalue("torch_ref")
    return scalargrad


def test_version_is_pytorchs_cpu_wheel_string(L):
    v = L.__version__
    assert isinstance(v, str) and str(v) == "2.13.0+cpu" and repr(v) == "'2.13.0+cpu'"
    assert type(v).__name__ == "TorchVersion"
    assert L.version.__version__ == "2.13.0+cpu"
    assert L.version.cuda is None and L.version.hip is None and L.version.debug is False
    assert hash(v) == hash("2.13.0+cpu") and {v: 1}["2.13.0+cpu"] == 1
    assert v.split("+") == ["2.13.0", "cpu"] and type(v + "x") is str


# (other, <, <=, ==, >, >=) for torch.__version__ against it; the local label "+cpu" counts
# in equality, trailing zeros do not (2.13 == 2.13.0), a pre-release of 2.14 is newer, and a
# string that is no version ("parrot") is compared as a string
COMPARISONS = [
    ("2.0", False, False, False, True, True),
    ("2.13", False, False, False, True, True),
    ("2.13.0", False, False, False, True, True),
    ("2.13.0+cpu", False, True, True, False, True),
    ("2.13.0+cu121", True, True, False, False, False),
    ("2.14.0a0", True, True, False, False, False),
    ("2.14.0.dev20260101", True, True, False, False, False),
    ("2.13.1", True, True, False, False, False),
    ("1.13.1", False, False, False, True, True),
    ("parrot", True, True, False, False, False),
    ((2, 13), False, False, False, True, True),
    ((2, 13, 0), False, False, False, True, True),
    ((2, 0), False, False, False, True, True),
    ((3,), True, True, False, False, False),
]


@pytest.mark.parametrize("other, lt, le, eq, gt, ge", COMPARISONS, ids=[str(c[0]) for c in COMPARISONS])
def test_version_compares_as_pytorchs(L, other, lt, le, eq, gt, ge):
    v = L.__version__
    assert (v < other, v <= other, v == other, v > other, v >= other) == (lt, le, eq, gt, ge)
    assert (v != other) is (not eq)


# PEP 440's ordering, each list strictly increasing (from PEP 440's own examples)
ORDERED = [
    ["1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
     "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7",
     "1.0+5", "1.0.post456.dev34", "1.0.post456", "1.1.dev1"],
    ["0.9", "1!0.1"],
]


@pytest.mark.parametrize("versions", ORDERED, ids=["pep440", "epoch"])
def test_pep440_order(versions):
    for a, b in zip(versions, versions[1:]):
        assert TorchVersion(a) < b and TorchVersion(b) > a and not TorchVersion(a) == b, (a, b)
    assert TorchVersion("1.0alpha1") == "1.0a1" and TorchVersion("1.0-1") == "1.0.post1"


def test_scalargrad_keeps_its_own_version_for_the_command_and_the_package():
    from scalargrad.version import scalargrad_version

    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    assert cfg["metadata"]["version"] == "attr: scalargrad.version.scalargrad_version"
    out = subprocess.run([sys.executable, "-m", "scalargrad", "--version"], capture_output=True, text=True,
                         check=True).stdout
    assert out == f"scalargrad {scalargrad_version} (reproduces PyTorch 2.13.0+cpu)\n"


def test_constants_are_pythons_floats(L):
    import math

    assert (L.pi, L.e, L.inf) == (math.pi, math.e, math.inf) and math.isnan(L.nan) and L.newaxis is None
    assert type(L.pi) is float


def test_ordering_agrees_with_the_packaging_library():
    # PyTorch compares through packaging.version.Version: every pair of these must order alike
    version = pytest.importorskip("packaging.version")
    texts = ["0.9", "1", "1.0", "1.0.0", "1.0a1", "1.0a2.dev3", "1.0b1", "1.0rc1", "1.0rc1.post1", "1.0.post1",
             "1.0.post1.dev2", "1.0.dev1", "1.0+cpu", "1.0+cu121", "1.0+1", "1.0+abc.2", "1.0+abc.10", "1!0.1",
             "2.13.0+cpu", "2.13.0", "2.14.0a0+git1234", "2.13", "1.0-1", "1.0alpha1", "1.0-rc.2", "v1.0"]
    for a in texts:
        for b in texts:
            mine = (TorchVersion(a) < b, TorchVersion(a) == b, TorchVersion(a) > b)
            va, vb = version.Version(a), version.Version(b)
            assert mine == (va < vb, va == vb, va > vb), (a, b)
