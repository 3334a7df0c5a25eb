"""``torch.finfo`` / ``torch.iinfo`` (issue 23): every attribute and the repr compared with live
PyTorch (constants of the formats: the same on every processor), and PyTorch's errors."""

from __future__ import annotations

import pytest

import scalargrad

FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_pytorch(torch_ref, name):
    ours, theirs = scalargrad.finfo(getattr(scalargrad, name)), torch_ref.finfo(getattr(torch_ref, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        a, b = getattr(ours, attr), getattr(theirs, attr)
        assert (a, type(a)) == (b, type(b)), attr
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_pytorch(torch_ref, name):
    ours, theirs = scalargrad.iinfo(getattr(scalargrad, name)), torch_ref.iinfo(getattr(torch_ref, name))
    for attr in ("bits", "max", "min", "dtype"):
        a, b = getattr(ours, attr), getattr(theirs, attr)
        assert (a, type(a)) == (b, type(b)), attr
    assert repr(ours) == repr(theirs)


def test_finfo_default_keyword_equality_and_class(torch_ref):
    assert repr(scalargrad.finfo()) == repr(torch_ref.finfo())
    assert scalargrad.finfo(type=scalargrad.float64).bits == 64
    assert scalargrad.finfo(scalargrad.float32) == scalargrad.finfo(scalargrad.float32)
    assert scalargrad.finfo(scalargrad.float32) != scalargrad.finfo(scalargrad.float64)
    assert str(scalargrad.finfo) == str(torch_ref.finfo) == "<class 'torch.finfo'>"
    with pytest.raises(TypeError, match="unhashable"):
        hash(scalargrad.iinfo(scalargrad.int8))


@pytest.mark.parametrize("call", [
    lambda L: L.finfo(L.int32), lambda L: L.finfo(3), lambda L: L.finfo("float32"), lambda L: L.finfo(None),
    lambda L: L.finfo(L.float32, 3), lambda L: L.iinfo(L.float32), lambda L: L.iinfo(L.bool), lambda L: L.iinfo(),
    lambda L: setattr(L.finfo(L.float32), "eps", 3.0),
])
def test_errors_as_pytorch(torch_ref, call):
    with pytest.raises(Exception) as theirs:
        call(torch_ref)
    with pytest.raises(type(theirs.value)) as ours:
        call(scalargrad)
    assert str(ours.value) == str(theirs.value)
