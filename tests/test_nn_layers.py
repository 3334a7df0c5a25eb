"""Containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict), the layers
(ReLU, Sigmoid, Tanh, Identity, Dropout) and nn.functional (relu, sigmoid, tanh, dropout,
mse_loss).

Expected reprs and figures were printed by PyTorch 2.13.0 (CPU); the ``lib`` fixture runs each
test on scalargrad and then on real PyTorch (skipped when it is not installed).
"""

from __future__ import annotations

from collections import OrderedDict

import pytest

import scalargrad


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    """scalargrad, then real PyTorch."""
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


# ---------------------------------------------------------------- containers


def test_sequential_runs_in_order_and_indexes_like_a_list(lib):
    nn = lib.nn
    s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    assert repr(s) == "Sequential(\n  (0): ReLU()\n  (1): Tanh()\n  (2): Sigmoid()\n)"
    assert repr(s(lib.tensor(-1.0))) == "tensor(0.5000)"
    assert (len(s), repr(s[1]), repr(s[-1])) == (3, "Tanh()", "Sigmoid()")
    assert repr(s[0:2]) == "Sequential(\n  (0): ReLU()\n  (1): Tanh()\n)"
    named = nn.Sequential(OrderedDict([('a', nn.ReLU()), ('b', nn.Identity())]))
    assert repr(named) == "Sequential(\n  (a): ReLU()\n  (b): Identity()\n)" and repr(named[1]) == "Identity()"
    s.append(nn.ReLU())
    s.insert(0, nn.Identity())
    del s[1]
    assert [type(m).__name__ for m in s] == ['Identity', 'Tanh', 'Sigmoid', 'ReLU']
    assert list(s._modules) == ['0', '1', '2', '3']  # renumbered after the deletion
    assert type(s.pop(0)).__name__ == 'Identity' and len(s) == 3
    assert [type(m).__name__ for m in s + named] == ['Tanh', 'Sigmoid', 'ReLU', 'ReLU', 'Identity']
    assert len(s * 2) == 6 and len(2 * s) == 6
    s[0] = nn.Identity()
    s += named
    s.extend([nn.ReLU()])
    assert [type(m).__name__ for m in s] == ['Identity', 'Sigmoid', 'ReLU', 'ReLU', 'Identity', 'ReLU']
    with pytest.raises(IndexError, match=r"^index -7 is out of range$"):
        s[-7]
    with pytest.raises(ValueError, match=r"^add operator supports only objects of Sequential class, but "):
        s + 1
    assert repr(nn.Sequential()) == "Sequential()"


def test_module_list_registers_and_prints_repeated_children_once(lib):
    nn = lib.nn
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU(), nn.ReLU(), nn.ReLU()])
    assert repr(ml) == "ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n  (3-5): 3 x ReLU()\n)"
    assert (len(ml), repr(ml[-1]), repr(ml[1:3])) == (6, "ReLU()", "ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n)")
    ml.append(nn.Sigmoid())
    ml.insert(1, nn.Tanh())
    ml.extend([nn.Identity()])
    del ml[0]
    assert type(ml.pop(-1)).__name__ == 'Identity'
    ml[0] = nn.Sigmoid()
    assert [type(m).__name__ for m in ml] == ['Sigmoid', 'ReLU', 'Tanh', 'ReLU', 'ReLU', 'ReLU', 'Sigmoid']
    assert len(ml + nn.ModuleList([nn.Tanh()])) == 8
    with pytest.raises(IndexError, match=r"^index 3 is out of range$"):
        nn.ModuleList([nn.ReLU()])[3]
    with pytest.raises(TypeError, match=r"^ModuleList\.extend should be called with an iterable, but got int$"):
        ml.extend(3)
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict_keeps_insertion_order(lib):
    nn = lib.nn
    # document 003, Module Code 7: PyTorch 1.4 sorted a plain dict's keys, 2.x keeps their order
    md = nn.ModuleDict({'powModel': nn.ReLU(), 'logModel': nn.Tanh()})
    assert repr(md) == "ModuleDict(\n  (powModel): ReLU()\n  (logModel): Tanh()\n)"
    assert (list(md), list(md.keys()), 'logModel' in md, len(md)) == (['powModel', 'logModel'],
                                                                     ['powModel', 'logModel'], True, 2)
    md['z'] = nn.Sigmoid()
    md.update([('a', nn.ReLU())])
    assert list(md) == ['powModel', 'logModel', 'z', 'a']
    assert type(md.pop('z')).__name__ == 'Sigmoid' and [k for k, _ in md.items()] == ['powModel', 'logModel', 'a']
    del md['a']
    assert [type(v).__name__ for v in md.values()] == ['ReLU', 'Tanh']
    with pytest.raises(ValueError, match=r"^ModuleDict update sequence element #0 has length 1; 2 is required$"):
        md.update([('a',)])
    md.clear()
    assert repr(md) == "ModuleDict()"


def test_parameter_list_wraps_tensors_into_parameters(lib):
    nn = lib.nn
    pl = nn.ParameterList([nn.Parameter(lib.tensor(1.0)), lib.tensor([2.0]), 3])
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [torch.float32 of size ]\n"
                        "    (1): Parameter containing: [torch.float32 of size 1]\n    (2): Object of type: int\n)")
    assert isinstance(pl[1], nn.Parameter) and pl[2] == 3 and len(pl) == 3
    assert [n for n, _ in pl.named_parameters()] == ['0', '1'] and list(pl.state_dict()) == ['0', '1']
    pl.append(lib.tensor(4.0, dtype=lib.float64))
    assert repr(pl[3:]) == "ParameterList(  (0): Parameter containing: [torch.float64 of size ])"
    with pytest.raises(RuntimeError, match=r"^ParameterList should not be called\.$"):
        pl()
    with pytest.raises(TypeError, match=r"^ParameterList\.extend should be called with an iterable, but got "
                                        r"Tensor$"):
        pl.extend(lib.tensor(1.0))


def test_parameter_dict_sorts_a_plain_dict_but_keeps_an_ordered_one(lib):
    nn = lib.nn
    pd = nn.ParameterDict({'b': nn.Parameter(lib.tensor(1.0)),
                           'a': lib.tensor([[2.0]], dtype=lib.float64), 'c': 'str'})
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [torch.DoubleTensor of size 1x1]\n"
                        "    (b): Parameter containing: [torch.FloatTensor of size ]\n    (c): Object of type: str\n)")
    assert list(pd) == ['a', 'b', 'c'] and isinstance(pd['a'], nn.Parameter) and pd.get('q', 5) == 5
    ordered = nn.ParameterDict(OrderedDict([('z', lib.tensor(1.0)), ('y', lib.tensor(2.0))]))
    assert list(ordered) == ['z', 'y'] and list(pd | ordered) == ['a', 'b', 'c', 'z', 'y']
    assert pd.pop('c') == 'str' and pd.popitem()[0] == 'b'
    pd.setdefault('k', lib.tensor(3.0))
    assert list(pd.keys()) == ['a', 'k'] and list(reversed(pd)) == ['k', 'a']
    assert [n for n, _ in pd.named_parameters()] == ['a', 'k']
    with pytest.raises(TypeError, match=r"^Index given to ParameterDict cannot be used as a key as it is not a "
                                        r"string \(type is 'int'\)"):
        pd[3]
    pd.clear()
    assert (repr(pd), len(pd)) == ("ParameterDict()", 0)


def test_containers_register_their_contents_in_the_parent(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Sequential(nn.Identity()), nn.ReLU()])
            self.params = nn.ParameterDict({'w': nn.Parameter(lib.tensor(1.0))})
            self.plist = nn.ParameterList([lib.tensor(2.0)])

    net = Net()
    assert [n for n, _ in net.named_modules()] == ['', 'layers', 'layers.0', 'layers.0.0', 'layers.1', 'params',
                                                   'plist']
    assert list(net.state_dict()) == ['params.w', 'plist.0']


# ---------------------------------------------------------------- layers and functional


def test_activation_layers_values_gradients_and_reprs(lib):
    nn = lib.nn
    x = lib.tensor(-1.5, requires_grad=True)
    got = []
    for layer in (nn.ReLU(), nn.ReLU(inplace=True), nn.Sigmoid(), nn.Tanh(), nn.Identity(3, k=4)):
        y = layer(x * 1)
        y.backward()
        got.append(f"{layer} {y!r} {x.grad!r}")
        x.grad = None
    assert got == [
        "ReLU() tensor(0., grad_fn=<ReluBackward0>) tensor(0.)",
        "ReLU(inplace=True) tensor(0., grad_fn=<ReluBackward0>) tensor(0.)",
        "Sigmoid() tensor(0.1824, grad_fn=<SigmoidBackward0>) tensor(0.1491)",
        "Tanh() tensor(-0.9051, grad_fn=<TanhBackward0>) tensor(0.1807)",
        "Identity() tensor(-1.5000, grad_fn=<MulBackward0>) tensor(1.)",
    ]
    assert nn.Identity()(x) is x


def test_functional_activations(lib):
    F = lib.nn.functional
    x = lib.tensor(-1.0, requires_grad=True)
    assert [repr(v) for v in (F.relu(x), F.sigmoid(x), F.tanh(x))] == [
        "tensor(0., grad_fn=<ReluBackward0>)", "tensor(0.2689, grad_fn=<SigmoidBackward0>)",
        "tensor(-0.7616, grad_fn=<TanhBackward0>)"]
    y = x * 1
    assert F.relu(y, inplace=True) is y and y.grad_fn.name() == "ReluBackward0"
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being used in an in-place "
                                           r"operation\.$"):
        F.relu(x, inplace=True)


def test_mse_loss_values_gradients_and_reductions(lib):
    F = lib.nn.functional
    got = []
    for reduction in ('mean', 'sum', 'none'):
        a = lib.tensor(3.0, requires_grad=True)
        b = lib.tensor(1.25, requires_grad=True)
        loss = F.mse_loss(a, b, reduction=reduction)
        loss.backward()
        got.append(f"{loss!r} {a.grad!r} {b.grad!r}")
    assert got == ["tensor(3.0625, grad_fn=<MseLossBackward0>) tensor(3.5000) tensor(-3.5000)"] * 3
    a = lib.tensor(0.1, requires_grad=True)
    loss = F.mse_loss(a, lib.tensor(0.7))
    loss.backward()
    assert (loss.item(), a.grad.item()) == (0.35999995470046997, -1.1999999284744263)  # float32, as PyTorch rounds
    a64 = lib.tensor(0.1, dtype=lib.float64, requires_grad=True)
    loss = F.mse_loss(a64, lib.tensor(0.7))
    loss.backward()
    assert repr(loss) == "tensor(0.3600, dtype=torch.float64, grad_fn=<MseLossBackward0>)"
    assert (loss.item(), a64.grad.item()) == (0.35999998569488545, -1.1999999761581421)
    assert repr(F.mse_loss(lib.tensor(3.0), lib.tensor(1.0), reduction='none')) == "tensor(4.)"
    with pytest.raises(ValueError, match=r"^avg is not a valid value for reduction$"):
        F.mse_loss(a, a, reduction='avg')


def test_mse_loss_warns_about_broadcasting_and_legacy_arguments(lib):
    F = lib.nn.functional
    with pytest.warns(UserWarning, match=r"^Using a target size \(torch\.Size\(\[\]\)\) that is different to the "
                                         r"input size \(torch\.Size\(\[1\]\)\)\. This will likely lead to incorrect "
                                         r"results due to broadcasting\. Please ensure they have the same size\.$"):
        assert repr(F.mse_loss(lib.tensor([2.0]), lib.tensor(1.0), reduction='none')) == "tensor([1.])"
    with pytest.warns(UserWarning, match=r"^size_average and reduce args will be deprecated, please use "
                                         r"reduction='sum' instead\.$"):
        assert F.mse_loss(lib.tensor(3.0), lib.tensor(1.0), size_average=False).item() == 4.0


def test_mse_loss_frees_its_saved_values_after_backward(lib):
    a = lib.tensor(3.0, requires_grad=True)
    loss = lib.nn.functional.mse_loss(a * 2, lib.tensor(1.0))
    loss.backward(retain_graph=True)
    loss.backward()
    assert a.grad.item() == 40.0
    loss = lib.nn.functional.mse_loss(a * 2, lib.tensor(1.0))
    loss.backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time"):
        loss.backward()


# ---------------------------------------------------------------- dropout


def test_dropout_reprs_and_probability_checks(lib):
    nn = lib.nn
    assert [repr(d) for d in (nn.Dropout(), nn.Dropout(p=0.25, inplace=True), nn.Dropout(1))] == [
        "Dropout(p=0.5, inplace=False)", "Dropout(p=0.25, inplace=True)", "Dropout(p=1, inplace=False)"]
    for bad in (1.5, -0.1):
        with pytest.raises(ValueError, match=rf"^dropout probability has to be between 0 and 1, but got {bad}$"):
            nn.Dropout(bad)
        with pytest.raises(ValueError, match=rf"^dropout probability has to be between 0 and 1, but got {bad}$"):
            nn.functional.dropout(lib.tensor(1.0), bad)


def test_dropout_is_the_identity_in_eval_mode_or_with_p_0(lib):
    F = lib.nn.functional
    x = lib.tensor(3.0, requires_grad=True)
    d = lib.nn.Dropout(0.7)
    assert d.eval()(x) is x and F.dropout(x, 0.7, training=False) is x and F.dropout(x, 0.0) is x
    assert d.train()(x) is not x


def test_dropout_with_p_1_zeroes_everything(lib):
    x = lib.tensor(3.0, requires_grad=True)
    y = lib.nn.functional.dropout(x, 1.0)
    y.backward()
    assert (repr(y), repr(x.grad)) == ("tensor(0., grad_fn=<MulBackward0>)", "tensor(0.)")


def test_dropout_scales_kept_elements_by_one_over_one_minus_p(lib):
    F = lib.nn.functional
    lib.manual_seed(5)
    x = lib.tensor(3.0, requires_grad=True)
    ys = [F.dropout(x, p=0.2) for _ in range(6)]
    assert [repr(y) for y in ys] == ["tensor(3.7500, grad_fn=<MulBackward0>)"] * 5 + [
        "tensor(0., grad_fn=<MulBackward0>)"]
    sum(ys, lib.tensor(0.0)).backward()
    assert x.grad.item() == 6.25  # 5 kept draws, each scaled by 1 / 0.8
    # the result is input * noise: the noise is a constant, listed as (None, 0)
    assert ys[0].grad_fn.next_functions[1] == (None, 0)


def test_dropout_draws_the_same_elements_as_pytorch(lib):
    # figures from PyTorch 2.13's CPU generator; scalargrad reproduces its stream
    F = lib.nn.functional
    keep = 1.4285714626312256  # float32 1 / 0.7
    draws = {
        0: [0.0, 0.0, keep, 0.0, keep, 0.0, keep, keep],
        1: [keep] * 7 + [0.0],
        7: [keep, keep, 0.0, keep, 0.0, 0.0, keep, keep],
    }
    for seed, expected in draws.items():
        lib.manual_seed(seed)
        assert [F.dropout(lib.tensor(1.0), p=0.3).item() for _ in range(8)] == expected
    lib.manual_seed(0)
    assert [F.dropout(lib.tensor(0.1), 0.3).item() for _ in range(3)] == [0.0, 0.0, 0.1428571492433548]
    lib.manual_seed(4)
    assert [F.dropout(lib.tensor(1.0, dtype=lib.float64), 0.3).item() for _ in range(4)] == [
        1.4285714285714286, 0.0, 1.4285714285714286, 0.0]  # the scale in float64
    lib.manual_seed(0)
    d = lib.nn.Dropout(0.3)
    assert [d(lib.tensor(1.0)).item() for _ in range(8)] == draws[0]


def test_inplace_dropout_changes_its_input(lib):
    lib.manual_seed(1)
    t = lib.tensor(2.0)
    r = lib.nn.functional.dropout(t, 0.5, inplace=True)
    assert r is t and t.item() in (0.0, 4.0)
    lib.manual_seed(1)
    assert lib.nn.functional.dropout(lib.tensor(2.0), 0.5).item() == t.item()
