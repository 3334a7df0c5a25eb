"""nn.Buffer (PyTorch 2.x: assigning one to a Module attribute registers a buffer), nn.Parameter
without data, nn.Flatten / nn.Unflatten and Tensor.unflatten, torch.broadcast_tensors, and the
containers' behaviour against PyTorch's.

Expected figures are PyTorch 2.13's: the ``lib`` fixture runs each test on scalargrad and on
real PyTorch (skipped without it).
"""

from __future__ import annotations

import copy
from collections import OrderedDict

import pytest

import scalargrad


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


# ---------------------------------------------------------------- Buffer, Parameter()


def test_buffer_assignment_registers_a_buffer(lib):
    nn = lib.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.running = nn.Buffer(lib.zeros(2))
            self.scratch = nn.Buffer(lib.ones(1), persistent=False)
            self.plain = lib.ones(3)  # a plain tensor is an ordinary attribute

    m = M()
    assert list(dict(m.named_buffers())) == ["running", "scratch"]
    assert list(m.state_dict()) == ["running"] and m._non_persistent_buffers_set == {"scratch"}
    assert "plain" not in m._buffers and repr(m.running) == "tensor([0., 0.])"
    b = m.running
    assert isinstance(b, nn.Buffer) and type(b).__name__ == "Tensor" and b.persistent is True
    assert not isinstance(lib.ones(1), nn.Buffer) and not isinstance(nn.Parameter(lib.ones(1)), nn.Buffer)
    # reassigning a plain tensor to a buffer's name keeps it a buffer, persistence unchanged
    m.scratch = lib.zeros(1)
    assert "scratch" in m._buffers and m._non_persistent_buffers_set == {"scratch"}
    # a Buffer assigned to a registered buffer's name takes the Buffer's persistence
    m.scratch = nn.Buffer(lib.zeros(1))
    assert m._non_persistent_buffers_set == set() and list(m.state_dict()) == ["running", "scratch"]
    m2 = copy.deepcopy(m)
    assert list(m2.state_dict()) == ["running", "scratch"] and m2.running is not m.running
    with pytest.raises(KeyError, match=r"attribute 'plain' already exists"):
        m.plain = nn.Buffer(lib.ones(1))


def test_buffer_shares_memory_and_keeps_requires_grad(lib):
    nn = lib.nn
    t = lib.zeros(2)
    b = nn.Buffer(t)
    b.add_(1)
    assert t.tolist() == [1.0, 1.0] and t._version == b._version == 1
    p = lib.ones(2, requires_grad=True)
    assert nn.Buffer(p).requires_grad and nn.Buffer(p).is_leaf and nn.Buffer(p * 2).is_leaf
    assert repr(nn.Buffer()) == "tensor([])"


def test_buffer_on_a_module_before_init_and_in_register_buffer(lib):
    nn = lib.nn

    class Early(nn.Module):
        def __init__(self):
            self.b = nn.Buffer(lib.ones(1))

    with pytest.raises(AttributeError, match=r"^cannot assign buffer before Module\.__init__\(\) call$"):
        Early()
    m = nn.Module()
    m.register_buffer("x", nn.Buffer(lib.ones(1), persistent=False))  # register_buffer's own argument rules
    assert list(m.state_dict()) == ["x"]


def test_parameter_without_data(lib):
    p = lib.nn.Parameter()
    assert repr(p) == "Parameter containing:\ntensor([], requires_grad=True)"
    assert (p.shape, p.dtype, p.is_leaf) == ((0,), lib.float32, True)
    assert repr(lib.nn.Parameter(requires_grad=False)) == "Parameter containing:\ntensor([])"


# ---------------------------------------------------------------- Flatten, Unflatten


def test_flatten_and_unflatten_modules(lib):
    nn = lib.nn
    x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
    f = nn.Flatten()
    assert repr(f) == "Flatten(start_dim=1, end_dim=-1)" and repr(nn.Flatten(0, 1)) == "Flatten(start_dim=0, end_dim=1)"
    y = f(x)
    assert y.shape == (2, 12) and y.grad_fn.name() == "ViewBackward0"
    assert nn.Flatten(0, -1)(x).shape == (24,) and nn.Flatten(2)(x) is x  # a single dimension: the tensor itself
    u = nn.Unflatten(1, (3, 4))
    assert repr(u) == "Unflatten(dim=1, unflattened_size=(3, 4))"
    z = u(y)
    assert z.shape == (2, 3, 4) and z.grad_fn.name() == "ViewBackward0" and z.tolist() == x.tolist()
    (z * lib.arange(24.0).reshape(2, 3, 4)).sum().backward()
    assert x.grad.reshape(-1).tolist() == [float(i) for i in range(24)]
    assert nn.Sequential(nn.Flatten(), nn.Unflatten(1, [2, -1]))(x).shape == (2, 2, 6)
    with pytest.raises(TypeError, match=r"^unflattened_size must be tuple of ints, but found element of type float "
                                        r"at pos 1$"):
        nn.Unflatten(1, (2, 2.0))
    with pytest.raises(TypeError, match=r"^unflattened_size must be a tuple of ints, but found type int$"):
        nn.Unflatten(1, 4)


def test_tensor_unflatten(lib):
    x = lib.arange(12.0).reshape(3, 4)
    assert x.unflatten(1, (2, 2)).shape == (3, 2, 2) and x.unflatten(-1, (-1, 1)).shape == (3, 4, 1)
    assert lib.unflatten(x, 0, (1, 3)).shape == (1, 3, 4)
    assert x.t().unflatten(1, (3, 1)).shape == (4, 3, 1)  # non-contiguous: still a view
    with pytest.raises(RuntimeError, match=r"^unflatten: Provided sizes \[2, 3\] don't multiply up to the size of dim "
                                           r"1 \(4\) in the input tensor$"):
        x.unflatten(1, (2, 3))
    with pytest.raises(RuntimeError, match=r"^unflatten: sizes must be non-empty$"):
        x.unflatten(1, ())


def test_broadcast_tensors(lib):
    a = lib.ones(3, 1, requires_grad=True)
    b = lib.ones(4)
    x, y = lib.broadcast_tensors(a, b)
    assert (x.shape, y.shape) == ((3, 4), (3, 4))
    assert x.grad_fn.name() == "ExpandBackward0" and y.grad_fn is None
    same = lib.ones(3, 4)
    assert lib.broadcast_tensors(same, b)[0] is same
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                           r"non-singleton dimension 0$"):
        lib.broadcast_tensors(lib.ones(3), lib.ones(4))


# ---------------------------------------------------------------- containers


def test_sequential_behaviour(lib):
    nn = lib.nn
    s = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in s.named_children()] == ["fc", "act"] and isinstance(s[-1], nn.ReLU)
    assert list(s[1:]._modules) == ["act"]  # a slice keeps the names
    s.append(nn.Tanh())
    assert list(s._modules) == ["fc", "act", "2"]
    with pytest.raises(IndexError, match=r"^index 3 is out of range$"):
        s[3]
    assert repr(nn.Sequential(nn.ReLU()) * 2) == "Sequential(\n  (0): ReLU()\n  (1): ReLU()\n)"
    with pytest.raises(ValueError, match=r"^Non-positive multiplication factor 0 for <class "):
        nn.Sequential(nn.ReLU()) * 0
    with pytest.raises(AssertionError, match=r"^module should be of type: <class"):
        nn.Sequential().insert(0, 3)
    with pytest.raises(IndexError, match=r"^Index out of range: 5$"):
        nn.Sequential().insert(5, nn.ReLU())


def test_module_list_and_dict_behaviour(lib):
    nn = lib.nn
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml += nn.ModuleList([nn.Sigmoid()])
    assert len(ml) == 3 and isinstance(ml[-1], nn.Sigmoid)
    with pytest.raises(TypeError, match=r"^ModuleList\.extend should be called with an iterable, but got ReLU$"):
        ml.extend(nn.ReLU())
    md = nn.ModuleDict([("a", nn.ReLU())])
    md.update(nn.ModuleDict({"b": nn.Tanh()}))
    assert list(md.keys()) == ["a", "b"]
    with pytest.raises(TypeError, match=r"^ModuleDict\.update should be called with an iterable of key/value pairs, "
                                        r"but got int$"):
        md.update(3)
    with pytest.raises(TypeError, match=r"^ModuleDict update sequence element #0 should be Iterable; isint$"):
        md.update([3])


def test_parameter_containers_behaviour(lib):
    nn = lib.nn
    pl = nn.ParameterList([lib.ones(2)])
    pl[0] = lib.zeros(3)
    assert isinstance(pl[0], nn.Parameter) and pl[0].shape == (3,)
    with pytest.raises(IndexError, match=r"^index 1 is out of range$"):
        pl[1]
    pd = nn.ParameterDict()
    pd["w"] = lib.ones(1)
    pd.update({"b": lib.zeros(1), "a": lib.zeros(1)})  # a plain dict: in sorted order
    assert list(pd) == ["w", "a", "b"] and "a" in pd
    assert list(nn.ParameterDict().fromkeys(["x", "y"], lib.ones(1))) == ["x", "y"]
    with pytest.raises(RuntimeError, match=r"^ParameterDict should not be called\.$"):
        pd(1)
