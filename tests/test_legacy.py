"""Legacy spellings (``_tensor/legacy.py``, ``autograd/variable.py``): ``torch.FloatTensor`` and
its siblings, the ``torch.Tensor(...)`` constructor's call forms, ``autograd.Variable``,
``set_default_device``. Every expectation is PyTorch 2.13's (each test runs on both libraries
through the ``L`` fixture: the torch run checks the figures written here)."""

from __future__ import annotations

import warnings

import pytest

import scalargrad
from scalargrad.errors import Unsupported


@pytest.fixture(params=["scalargrad", "torch"])
def L(request):
    if request.param == "torch":
        return request.getfixturevalue("torch_ref")
    return scalargrad


def _error(fn, exc_type=Exception):
    with pytest.raises(exc_type) as info:
        fn()
    return type(info.value).__name__, str(info.value)


LEGACY = [("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
          ("BFloat16Tensor", "bfloat16"), ("LongTensor", "int64"), ("IntTensor", "int32"),
          ("ShortTensor", "int16"), ("CharTensor", "int8"), ("ByteTensor", "uint8"), ("BoolTensor", "bool")]


@pytest.mark.parametrize("name, dtype", LEGACY)
def test_legacy_type_builds_its_dtype_from_sizes_and_data(L, name, dtype):
    cls = getattr(L, name)
    dt = getattr(L, dtype)
    x = cls(2, 3)
    assert type(x) is L.Tensor and x.dtype is dt and x.shape == (2, 3)
    assert cls(L.Size([4])).shape == (4,)
    assert cls().shape == (0,) and cls().dtype is dt
    y = cls([[1, 0], [2, 3]])
    assert y.dtype is dt and y.tolist() == [[True, False], [True, True]] if dtype == "bool" else \
        y.tolist() == [[1, 0], [2, 3]]
    assert x.type() == f"torch.{name}"
    assert isinstance(x, cls) and isinstance(y, cls)
    assert repr(cls) == f"<class 'torch.{name}'>" and repr(type(cls)) == "<class 'torch.tensortype'>"
    assert cls.dtype is dt and cls.is_cuda is False
    assert not issubclass(cls, L.Tensor)


def test_legacy_types_cast_and_check(L):
    assert L.LongTensor([1.7, -2.7]).tolist() == [1, -2]  # truncation, as C's cast
    assert L.BoolTensor([2, 0.5, 0]).tolist() == [True, True, False]
    assert repr(L.ByteTensor([1, 2])) == "tensor([1, 2], dtype=torch.uint8)"
    assert isinstance(L.zeros(2), L.FloatTensor) and not isinstance(L.zeros(2), L.DoubleTensor)
    assert isinstance(L.zeros(2, dtype=L.float64), L.DoubleTensor)
    assert not isinstance(3.0, L.FloatTensor)
    z = L.zeros(2)
    assert z.type(L.FloatTensor) is z and z.type("torch.FloatTensor") is z
    d = z.type(L.DoubleTensor)
    assert d.dtype is L.float64 and repr(d) == "tensor([0., 0.], dtype=torch.float64)"
    assert z.type(L.LongTensor).dtype is L.int64 and z.type("torch.IntTensor").dtype is L.int32
    assert L.FloatTensor(2, 3).fill_(1).sum().item() == 6.0


def test_legacy_type_from_a_tensor_aliases_it_when_dtypes_agree(L):
    t = L.zeros(2)
    u = L.FloatTensor(t)
    assert u is not t
    u.add_(1)
    assert t.tolist() == [1.0, 1.0] and t._version == 1
    kind, msg = _error(lambda: L.FloatTensor(L.zeros(2, dtype=L.float64)), TypeError)
    assert msg == (
        "expected TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt)) (got TensorOptions(dtype=double, device=cpu, "
        "layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
    kind, msg = _error(lambda: L.LongTensor(L.zeros(2)), TypeError)
    assert "dtype=long int" in msg and "(got TensorOptions(dtype=float," in msg


def test_tensor_constructor_call_forms(L):
    assert L.Tensor(L.Size([2, 3])).shape == (2, 3)
    assert L.Tensor((2, 3)).tolist() == [2.0, 3.0]  # a plain tuple is data
    assert L.Tensor(3).shape == (3,) and L.Tensor().shape == (0,)
    # another tensor: an alias, whatever its dtype; in a graph, AliasBackward0
    t64 = L.zeros(2, dtype=L.float64)
    assert L.Tensor(t64).dtype is L.float64
    a = L.ones(2, requires_grad=True)
    u = L.Tensor(a)
    assert u is not a and not u.is_leaf and u.requires_grad
    assert type(u.grad_fn).__name__ == "AliasBackward0"
    u.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]
    b = L.zeros(2)
    L.Tensor(b).add_(1)
    assert b.tolist() == [1.0, 1.0]
    assert _error(lambda: L.Tensor(2.5), TypeError) == ("TypeError", "new(): data must be a sequence (got float)")
    assert _error(lambda: L.FloatTensor(2.5), TypeError)[1] == "new(): data must be a sequence (got float)"


def test_legacy_constructor_refuses_keywords(L):
    _, msg = _error(lambda: L.FloatTensor([1], requires_grad=True), TypeError)
    assert msg == (
        "new() received an invalid combination of arguments - got (list, requires_grad=bool), but expected one of:\n"
        " * (*, torch.device device = None)\n"
        "      didn't match because some of the keywords were incorrect: requires_grad\n"
        " * (torch.Storage storage)\n"
        " * (Tensor other)\n"
        " * (tuple of ints size, *, torch.device device = None)\n"
        " * (object data, *, torch.device device = None)\n")
    assert L.FloatTensor([1], device="cpu").tolist() == [1.0]


def test_legacy_types_follow_their_dtype_not_the_default(L):
    old = L.get_default_dtype()
    L.set_default_dtype(L.float64)
    try:
        assert L.FloatTensor(2).dtype is L.float32
        assert L.Tensor(2).dtype is L.float64
    finally:
        L.set_default_dtype(old)


# ---------------------------------------------------------------- Variable


def test_variable_returns_a_tensor(L):
    from importlib import import_module

    Variable = import_module(L.__name__ + ".autograd").Variable
    v = Variable(L.ones(2), requires_grad=True)
    assert type(v) is L.Tensor and v.requires_grad and v.is_leaf
    assert repr(v) == "tensor([1., 1.], requires_grad=True)"
    assert Variable(L.ones(2)).requires_grad is False
    assert isinstance(L.zeros(1), Variable)
    a = L.ones(2, requires_grad=True)
    b = a * 2
    w = Variable(b)  # a detached leaf over b's memory
    assert w.is_leaf and not w.requires_grad
    assert Variable(b, True).is_leaf and Variable(b, True).requires_grad
    c = L.zeros(2)
    Variable(c).add_(1)
    assert c.tolist() == [1.0, 1.0] and c._version == 1
    assert Variable().shape == (0,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Variable(L.ones(1), volatile=True)
        Variable(L.ones(1), volatile=False)
    assert [str(w.message) for w in caught] == [
        "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."]
    assert _error(lambda: Variable([1.0]), TypeError)[1] == "Variable data has to be a tensor, but got list"
    assert _error(lambda: Variable(L.ones(2, dtype=L.long), requires_grad=True), RuntimeError)[1] == (
        "Only Tensors of floating point and complex dtype can require gradients")
    assert _error(lambda: Variable(L.ones(2), foo=1), TypeError)[1] == (
        "'foo' is an invalid keyword argument for this function")


def test_variable_trains_like_a_tensor():
    from scalargrad.autograd import Variable

    x = Variable(scalargrad.tensor([1.0, 2.0]), requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]  # d(x^2)/dx = 2x


# ---------------------------------------------------------------- default device


def test_default_device_cpu(L):
    assert str(L.get_default_device()) == "cpu"
    L.set_default_device("cpu")
    assert str(L.get_default_device()) == "cpu" and L.zeros(1).device.type == "cpu"
    L.set_default_device(None)
    assert str(L.get_default_device()) == "cpu"


def test_default_device_elsewhere_is_unsupported():
    with pytest.raises(Unsupported, match="set_default_device"):
        scalargrad.set_default_device("cuda")
    assert str(scalargrad.get_default_device()) == "cpu"


@pytest.mark.parametrize("spec", ["DoubleTensor", "torch.HalfTensor", "BFloat16Tensor", "torch.FloatTensor"])
def test_set_default_tensor_type_sets_the_floating_default(L, spec):
    """A floating legacy type (or its dotted name) becomes the default dtype, as PyTorch's
    deprecated ``set_default_tensor_type`` does (old tutorials call it with ``torch.FloatTensor``)."""
    t = spec if spec.startswith("torch.") else getattr(L, spec)
    want = {"DoubleTensor": "float64", "torch.HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
            "torch.FloatTensor": "float32"}[spec]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L.set_default_tensor_type(t)
        assert str(L.get_default_dtype()) == f"torch.{want}"
        assert str(L.tensor([1.5]).dtype) == f"torch.{want}" and str(L.zeros(1).dtype) == f"torch.{want}"
    finally:
        L.set_default_dtype(L.float32)


@pytest.mark.parametrize("spec", ["LongTensor", "torch.BoolTensor", "float64", "three", "Tensor"])
def test_set_default_tensor_type_refuses_what_pytorch_refuses(L, spec):
    t = {"float64": L.float64, "three": 3, "Tensor": L.Tensor}.get(spec) or (
        spec if spec.startswith("torch.") else getattr(L, spec))
    floating = "only floating-point types are supported as the default type"
    want = floating if spec in ("LongTensor", "torch.BoolTensor") else f"invalid type object: {floating}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _error(lambda: L.set_default_tensor_type(t)) == ("TypeError", want)
    assert str(L.get_default_dtype()) == "torch.float32"


def test_set_default_tensor_type_warns_once_that_it_is_deprecated():
    """PyTorch's TORCH_WARN_ONCE (python_tensor.cpp), before the type is checked: once per process."""
    from scalargrad._base.warn_once import forget

    forget("set_default_tensor_type")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError):
            scalargrad.set_default_tensor_type(scalargrad.LongTensor)
        scalargrad.set_default_tensor_type(scalargrad.FloatTensor)
    assert [str(w.message) for w in caught] == [
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
        "and torch.set_default_device() as alternatives. (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)"]
