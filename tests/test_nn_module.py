"""nn.Module and nn.Parameter: registration, iteration, modes, conversions, printing, state dicts.

Expected texts and figures were printed by PyTorch 2.13.0 (CPU). The ``lib`` fixture runs each
test on scalargrad and then on real PyTorch (skipped when it is not installed), including what a
failed ``load_state_dict`` leaves behind (a half-loaded module, as in PyTorch).
"""

from __future__ import annotations

import copy
import re
from collections import OrderedDict

import pytest

import scalargrad

from python_printing import printed_ordered_dict


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    """scalargrad, then real PyTorch."""
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


def _tree(torch):
    """A module with a child, own parameters, a persistent and a non-persistent buffer."""
    nn = torch.nn

    class Lin(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.tensor(2.0))
            self.bias = nn.Parameter(torch.tensor(0.5))

        def forward(self, x):
            return self.weight * x + self.bias

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = Lin()
            self.register_buffer('rb', torch.tensor(1.0))
            self.register_buffer('scratch', torch.tensor(7.0), persistent=False)
            self.top = nn.Parameter(torch.tensor([3.0]))

        def forward(self, x):
            return self.lin(x) * self.top

    return M()


# ---------------------------------------------------------------- Parameter


def test_parameter_repr_format_and_requires_grad(lib):
    p = lib.nn.Parameter(lib.tensor(1.5))
    assert repr(p) == str(p) == f"{p}" == "Parameter containing:\ntensor(1.5000, requires_grad=True)"
    assert p.requires_grad and p.is_leaf and isinstance(p, lib.Tensor)
    assert f"{p.data}" == "1.5"  # .data is a plain tensor, formatted as its number
    assert type(p * 2).__name__ in ("Value", "Tensor") and not isinstance(p * 2, lib.nn.Parameter)
    with pytest.raises(TypeError, match=r"^unsupported format string passed to Parameter\.__format__$"):
        f"{p:.2f}"
    with lib.no_grad():
        assert lib.nn.Parameter(lib.tensor(1.0)).requires_grad  # no_grad does not change the default
    assert repr(lib.nn.Parameter(lib.tensor(3), requires_grad=False)) == "Parameter containing:\ntensor(3)"
    with pytest.raises(RuntimeError, match=r"^Only Tensors of floating point and complex dtype can require "
                                           r"gradients$"):
        lib.nn.Parameter(lib.tensor(3))
    x = lib.tensor(2.0, requires_grad=True)
    q = lib.nn.Parameter(x * 3)  # a Parameter is always a new leaf
    assert (repr(q), q.is_leaf, q.grad_fn) == ("Parameter containing:\ntensor(6., requires_grad=True)", True, None)
    d = copy.deepcopy(p)
    assert type(d) is type(p) and d is not p and repr(d) == repr(p)


def test_parameter_of_a_non_tensor_is_refused(lib):
    with pytest.raises(AttributeError, match=r"^'float' object has no attribute 'detach'$"):
        lib.nn.Parameter(5.0)


# ---------------------------------------------------------------- registration


def test_module_dict_holds_pytorch_2_13s_registries_in_order(lib):
    assert list(lib.nn.Module().__dict__) == [
        'training', '_parameters', '_buffers', '_non_persistent_buffers_set', '_backward_pre_hooks',
        '_backward_hooks', '_is_full_backward_hook', '_forward_hooks', '_forward_hooks_with_kwargs',
        '_forward_hooks_always_called', '_forward_pre_hooks', '_forward_pre_hooks_with_kwargs',
        '_state_dict_hooks', '_state_dict_pre_hooks', '_load_state_dict_pre_hooks', '_load_state_dict_post_hooks',
        '_modules']
    d = lib.nn.Module().__dict__
    assert (type(d['_parameters']), type(d['_modules']), type(d['_forward_hooks'])) == (dict, dict, OrderedDict)


def test_setattr_registers_parameters_and_modules_but_not_plain_containers(lib):
    nn = lib.nn
    m = nn.Module()
    m.p = nn.Parameter(lib.tensor(1.0))
    m.c = nn.ReLU()
    m.t = lib.tensor(2.0)  # a plain tensor is an ordinary attribute
    m.lst = [nn.ReLU()]  # so is a Python list of modules (document 003, Module Code 3)
    m.dct = {'p': nn.Parameter(lib.tensor(1.0))}  # and a dict of parameters (Parameter Code 2)
    assert list(m._parameters) == ['p'] and list(m._modules) == ['c'] and not m._buffers
    assert 't' in m.__dict__ and 'p' not in m.__dict__
    # a Parameter assigned to a module's name (or a module to a plain attribute's) moves it
    m.c = nn.Parameter(lib.tensor(3.0))
    m.t2 = lib.tensor(1.0)
    m.t2 = nn.Sigmoid()
    assert list(m._parameters) == ['p', 'c'] and list(m._modules) == ['t2'] and 't2' not in m.__dict__
    m.p = nn.Parameter(lib.tensor(4.0))  # a new Parameter replaces the old one in its slot
    assert list(m._parameters) == ['p', 'c'] and m.p.item() == 4.0
    m.register_buffer('b', lib.tensor(1.0))
    m.b = lib.tensor(5.0)  # assigning to a buffer name updates the buffer
    assert m._buffers['b'].item() == 5.0 and 'b' not in m.__dict__
    m.b = None
    assert m._buffers['b'] is None
    m.c = None  # None keeps the parameter slot
    assert m._parameters['c'] is None
    del m.c, m.p, m.b, m.t, m.t2
    assert not m._parameters and not m._modules and not m._buffers and 't' not in m.__dict__


def _deleted_missing_message() -> str:
    """What the running Python's object.__delattr__ says for a Module without the attribute."""
    class Module:
        pass

    try:
        del Module().nope
    except AttributeError as e:
        return str(e)
    raise AssertionError("deleting a missing attribute did not raise")


@pytest.mark.parametrize("case, error, message", [
    ("module_before_init", AttributeError, "cannot assign module before Module.__init__() call"),
    ("parameter_before_init", AttributeError, "cannot assign parameters before Module.__init__() call"),
    ("buffer_before_init", AttributeError, "cannot assign buffer before Module.__init__() call"),
    ("register_parameter_before_init", AttributeError, "cannot assign parameter before Module.__init__() call"),
    ("repr_before_init", AttributeError, "'Bad' object has no attribute '_modules'"),
    ("empty_parameter_name", KeyError, "'parameter name can\\'t be empty string \"\"'"),
    ("dotted_parameter_name", KeyError, "'parameter name can\\'t contain \".\"'"),
    ("parameter_name_not_str", TypeError, "parameter name should be a string. Got int"),
    ("buffer_name_not_str", TypeError, "buffer name should be a string. Got int"),
    ("dotted_buffer_name", KeyError, "'buffer name can\\'t contain \".\"'"),
    ("empty_buffer_name", KeyError, "'buffer name can\\'t be empty string \"\"'"),
    ("buffer_name_clash", KeyError, "\"attribute 'foo' already exists\""),
    ("parameter_name_clash", KeyError, "\"attribute 'foo' already exists\""),
    ("module_name_clash", KeyError, "\"attribute 'foo' already exists\""),
    ("buffer_not_tensor", TypeError, "cannot assign 'int' object to buffer 'bar' (torch Tensor or None required)"),
    ("parameter_not_parameter", TypeError,
     "cannot assign 'torch.FloatTensor' object to parameter 'q' (torch.nn.Parameter or None required)"),
    ("tensor_to_parameter_slot", TypeError,
     "cannot assign 'torch.FloatTensor' as parameter 'p' (torch.nn.Parameter or None expected)"),
    ("module_to_parameter_slot", TypeError,
     "cannot assign 'torch.nn.modules.activation.ReLU' as parameter 'p' (torch.nn.Parameter or None expected)"),
    ("int_to_module_slot", TypeError, "cannot assign 'int' as child module 'c' (torch.nn.Module or None expected)"),
    ("int_to_buffer_slot", TypeError,
     "cannot assign 'int' as buffer 'b' (torch.nn.Buffer, torch.Tensor or None expected)"),
    ("add_module_not_module", TypeError, "int is not a Module subclass"),
    ("dotted_module_name", KeyError, "'module name can\\'t contain \".\", got: a.b'"),
    ("empty_module_name", KeyError, "'module name can\\'t be empty string \"\"'"),
    ("module_name_not_str", TypeError, "module name should be a string. Got int"),
    ("missing_attribute", AttributeError, "'Module' object has no attribute 'nope'"),
    # deleting goes to object.__delattr__, whose message is the running Python's ('nope' on 3.10)
    ("delete_missing_attribute", AttributeError, _deleted_missing_message()),
    ("train_not_bool", ValueError, "training mode is expected to be boolean"),
    ("no_forward", NotImplementedError, 'Module [NoFwd] is missing the required "forward" function'),
    ("init_positional", TypeError, "Module.__init__() takes 1 positional argument but 2 were given"),
    ("init_keyword", TypeError, "Module.__init__() got an unexpected keyword argument 'a'"),
    ("to_integer_dtype", TypeError,
     "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64"),
    ("get_submodule_missing", AttributeError, "ReLU has no attribute `x`"),
    ("get_submodule_not_module", AttributeError, "`foo` is not an nn.Module"),
    ("get_parameter_not_parameter", AttributeError, "`c` is not an nn.Parameter"),
    ("get_parameter_missing", AttributeError, "Module has no attribute `zz`"),
    ("get_buffer_not_buffer", AttributeError, "`p` is not a buffer"),
    ("load_not_mapping", TypeError, "Expected state_dict to be dict-like, got <class 'list'>."),
])
def test_errors_in_pytorchs_words(lib, case, error, message):
    nn = lib.nn

    class Bad(nn.Module):
        def __init__(self, kind):
            if kind == "module_before_init":
                self.c = nn.ReLU()
            elif kind == "parameter_before_init":
                self.p = nn.Parameter(lib.tensor(1.0))
            elif kind == "buffer_before_init":
                self.register_buffer('b', lib.tensor(1.0))
            elif kind == "register_parameter_before_init":
                self.register_parameter('q', nn.Parameter(lib.tensor(1.0)))
            else:
                self.x = 3  # a plain attribute before __init__ is allowed

    class NoFwd(nn.Module):
        pass

    m = nn.Module()
    m.foo = 1
    m.p = nn.Parameter(lib.tensor(1.0))
    m.c = nn.ReLU()
    m.register_buffer('b', lib.tensor(1.0))
    actions = {
        "repr_before_init": lambda: repr(Bad("x")),
        "empty_parameter_name": lambda: m.register_parameter('', None),
        "dotted_parameter_name": lambda: m.register_parameter('a.b', None),
        "parameter_name_not_str": lambda: m.register_parameter(3, None),
        "buffer_name_not_str": lambda: m.register_buffer(3, None),
        "dotted_buffer_name": lambda: m.register_buffer('a.b', None),
        "empty_buffer_name": lambda: m.register_buffer('', None),
        "buffer_name_clash": lambda: m.register_buffer('foo', lib.tensor(1.0)),
        "parameter_name_clash": lambda: m.register_parameter('foo', None),
        "module_name_clash": lambda: m.add_module('foo', None),
        "buffer_not_tensor": lambda: m.register_buffer('bar', 3),
        "parameter_not_parameter": lambda: m.register_parameter('q', lib.tensor(1.0)),
        "tensor_to_parameter_slot": lambda: setattr(m, 'p', lib.tensor(2.0)),
        "module_to_parameter_slot": lambda: setattr(m, 'p', nn.ReLU()),
        "int_to_module_slot": lambda: setattr(m, 'c', 3),
        "int_to_buffer_slot": lambda: setattr(m, 'b', 3),
        "add_module_not_module": lambda: m.add_module('z', 3),
        "dotted_module_name": lambda: m.add_module('a.b', nn.ReLU()),
        "empty_module_name": lambda: m.add_module('', nn.ReLU()),
        "module_name_not_str": lambda: m.add_module(3, nn.ReLU()),
        "missing_attribute": lambda: m.nope,
        "delete_missing_attribute": lambda: delattr(m, 'nope'),
        "train_not_bool": lambda: m.train(1),
        "no_forward": lambda: NoFwd()(lib.tensor(1.0)),
        "init_positional": lambda: nn.Module(3),
        "init_keyword": lambda: nn.Module(a=3),
        "to_integer_dtype": lambda: m.to(lib.int64),
        "get_submodule_missing": lambda: m.get_submodule('c.x'),
        "get_submodule_not_module": lambda: m.get_submodule('foo'),
        "get_parameter_not_parameter": lambda: m.get_parameter('c'),
        "get_parameter_missing": lambda: m.get_parameter('zz'),
        "get_buffer_not_buffer": lambda: m.get_buffer('p'),
        "load_not_mapping": lambda: m.load_state_dict([1]),
    }
    with pytest.raises(error) as info:
        actions.get(case, lambda: Bad(case))()
    assert str(info.value) == message


# ---------------------------------------------------------------- iteration


def _shared_tree(torch):
    nn = torch.nn

    class Leaf(nn.Module):
        def __init__(self, v):
            super().__init__()
            self.w = nn.Parameter(torch.tensor(v))
            self.register_buffer('b', torch.tensor(v * 10))
            self.register_buffer('nb', None)
            self.register_parameter('np', None)

        def extra_repr(self):
            return f"v={self.w.item()}"

    class Tree(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Leaf(1.0)
            self.b = Leaf(2.0)
            self.shared = self.a
            self.seq = nn.Sequential(self.a, Leaf(3.0))
            self.plain = [Leaf(4.0)]
            self.add_module('gone', None)

    return Tree()


def test_named_members_prefix_recurse_and_duplicates(lib):
    t = _shared_tree(lib)
    names = lambda it: [n for n, _ in it]
    assert names(t.named_parameters()) == ['a.w', 'b.w', 'seq.1.w']
    assert names(t.named_parameters(remove_duplicate=False)) == ['a.w', 'b.w', 'shared.w', 'seq.0.w', 'seq.1.w']
    assert names(t.named_parameters(prefix='root', recurse=False)) == []
    assert names(t.a.named_parameters(prefix='root', recurse=False)) == ['root.w']
    assert names(t.named_buffers(prefix='x')) == ['x.a.b', 'x.b.b', 'x.seq.1.b']
    assert names(t.named_modules()) == ['', 'a', 'b', 'seq', 'seq.1']
    assert names(t.named_modules(remove_duplicate=False)) == ['', 'a', 'b', 'shared', 'seq', 'seq.0', 'seq.1']
    assert names(t.named_modules(prefix='top')) == ['top', 'top.a', 'top.b', 'top.seq', 'top.seq.1']
    assert names(t.named_children()) == ['a', 'b', 'seq']
    assert (len(list(t.children())), len(list(t.modules())), len(list(t.modules(remove_duplicate=False)))) == (3, 5, 7)
    assert (len(list(t.parameters())), len(list(t.buffers())), len(list(t.parameters(recurse=False)))) == (3, 3, 0)
    # state_dict does not de-duplicate shared modules
    assert list(t.state_dict()) == ['a.w', 'a.b', 'b.w', 'b.b', 'shared.w', 'shared.b', 'seq.0.w', 'seq.0.b',
                                    'seq.1.w', 'seq.1.b']


def test_get_and_set_submodule_parameter_buffer(lib):
    t = _shared_tree(lib)
    assert t.get_submodule('') is t and t.get_submodule('seq.1') is t.seq[1]
    assert t.get_parameter('seq.1.w') is t.seq[1].w and t.get_buffer('a.b') is t.a.b
    relu = lib.nn.ReLU()
    t.set_submodule('seq.0', relu)
    assert t.seq[0] is relu
    with pytest.raises(AttributeError, match=r"^Sequential has no attribute `q`$"):
        t.set_submodule('seq.q', lib.nn.ReLU(), strict=True)


def test_module_repr_with_extra_repr_and_children(lib):
    t = _shared_tree(lib)
    assert repr(t) == (
        "Tree(\n"
        "  (a): Leaf(v=1.0)\n"
        "  (b): Leaf(v=2.0)\n"
        "  (shared): Leaf(v=1.0)\n"
        "  (seq): Sequential(\n"
        "    (0): Leaf(v=1.0)\n"
        "    (1): Leaf(v=3.0)\n"
        "  )\n"
        "  (gone): None\n"
        ")")

    class Multi(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = lib.nn.ReLU()

        def extra_repr(self):
            return "x=1\ny=2"

    assert repr(Multi()) == "Multi(\n  x=1\n  y=2\n  (c): ReLU()\n)"
    assert repr(lib.nn.Module()) == "Module()"


def test_dir_lists_registered_names(lib):
    t = _shared_tree(lib)
    t.register_buffer('buf', lib.tensor(1.0))
    d = dir(t)
    assert d == sorted(d)
    assert {'a', 'seq', 'buf', 'forward', 'training', 'state_dict'} <= set(d)
    assert not any(k.isdigit() for k in dir(t.seq))


# ---------------------------------------------------------------- modes and conversions


def test_train_eval_apply_and_requires_grad(lib):
    t = _shared_tree(lib)
    assert t.training and t.eval() is t
    assert not any(m.training for m in t.modules())
    assert t.train() is t and all(m.training for m in t.modules())
    assert t.train(False) is t and not t.seq[1].training
    seen = []
    assert t.apply(lambda m: seen.append(type(m).__name__)) is t
    # children first; a module shared by two parents is visited under each of them
    assert seen == ['Leaf', 'Leaf', 'Leaf', 'Leaf', 'Sequential', 'Tree']
    assert t.requires_grad_(False) is t and not any(p.requires_grad for p in t.parameters())
    assert all(p.requires_grad for p in t.requires_grad_().parameters())


def test_zero_grad_sets_to_none_by_default(lib):
    t = _shared_tree(lib)
    x = lib.tensor(2.0)
    (t.a.w * x + t.b.w * x).backward()
    assert [repr(p.grad) for p in t.parameters()] == ['tensor(2.)', 'tensor(2.)', 'None']
    t.zero_grad(set_to_none=False)
    assert [repr(p.grad) for p in t.parameters()] == ['tensor(0.)', 'tensor(0.)', 'None']
    t.zero_grad()
    assert [p.grad for p in t.parameters()] == [None, None, None]


def test_double_float_to_keep_the_parameter_objects(lib):
    t = _shared_tree(lib)
    (t.a.w * 3.0).backward()
    w = t.a.w
    assert t.double() is t and t.a.w is w
    assert repr(t.a.w) == "Parameter containing:\ntensor(1., dtype=torch.float64, requires_grad=True)"
    assert (t.a.w.grad.dtype, t.a.b.dtype) == (lib.float64, lib.float64)
    assert t.float().a.w.dtype is lib.float32 and t.a.w.grad.dtype is lib.float32
    assert t.to(lib.float64).b.w.dtype is lib.float64
    assert t.to(lib.tensor(1.0)).b.w.dtype is lib.float32  # to(tensor): that tensor's dtype
    assert t.to(dtype=lib.float64, device='cpu').b.b.dtype is lib.float64
    assert t.cpu() is t and t.to('cpu') is t


def test_half_and_bfloat16_convert_the_floating_parameters(lib):
    # the figures are the float32 initial values rounded to float16 / bfloat16, as PyTorch prints them
    lib.manual_seed(0)
    m = lib.nn.Linear(3, 2)
    m.register_buffer("n", lib.tensor(3))
    w = m.weight
    assert m.half() is m and m.weight is w
    assert repr(m.weight) == ("Parameter containing:\ntensor([[-0.0043,  0.3098, -0.4751],\n"
                              "        [-0.4248, -0.2224,  0.1548]], dtype=torch.float16, requires_grad=True)")
    assert (m.bias.dtype, m.n.dtype) == (lib.float16, lib.int64)  # integer buffers are left alone
    lib.manual_seed(0)
    b = lib.nn.Linear(3, 2).bfloat16()
    assert repr(b.bias) == ("Parameter containing:\ntensor([-0.0114,  0.4570], dtype=torch.bfloat16, "
                            "requires_grad=True)")
    assert repr(b.weight.data[0]) == "tensor([-0.0043,  0.3105, -0.4746], dtype=torch.bfloat16)"


def test_complex_dtypes_exist_as_pytorch_names_them(lib):
    assert (lib.cfloat, lib.cdouble, lib.chalf) == (lib.complex64, lib.complex128, lib.complex32)
    assert [repr(d) for d in (lib.complex32, lib.complex64, lib.complex128)] == [
        "torch.complex32", "torch.complex64", "torch.complex128"]
    assert [(d.is_complex, d.is_floating_point, d.is_signed, d.itemsize) for d in (lib.complex64, lib.complex128)] \
        == [(True, False, True, 8), (True, False, True, 16)]
    assert (lib.complex64.to_real(), lib.complex32.to_real(), lib.float64.to_complex()) == (
        lib.float32, lib.float16, lib.complex128)
    assert not lib.float32.is_complex and lib.float32.to_real() is lib.float32
    with pytest.raises(RuntimeError, match="^Unknown Complex ScalarType for Long$"):
        lib.int64.to_complex()


def _dtype_snapshot(m):
    return [(n, t.dtype, repr(t), None if getattr(t, "grad", None) is None else repr(t.grad))
            for n, t in [*m.named_parameters(), *m.named_buffers()]]


@pytest.mark.parametrize("spelling", ["to", "to_kw", "type"])
def test_module_to_complex_is_refused_before_anything_changes(spelling):
    from scalargrad.errors import Unsupported

    torch = scalargrad
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    m(torch.tensor([[1.0, 2.0], [3.0, -1.0]])).sum().backward()
    before = _dtype_snapshot(m)
    convert = {"to": lambda: m.to(torch.complex64), "to_kw": lambda: m.to(dtype=torch.cdouble),
               "type": lambda: m.type(torch.complex64)}[spelling]
    with pytest.raises(Unsupported, match=r"^nn\.Module\.(to|type)\(torch\.complex(64|128)\) is not supported: .*"
                                          r"\(complex parameters need autograd of complex numbers, which "
                                          r"scalargrad refuses\)$"):
        convert()
    assert _dtype_snapshot(m) == before


def test_complex_dtypes_are_made_by_the_factories_and_casts_or_refused_by_name():
    from scalargrad._tensor import complex_numbers
    from scalargrad.errors import Unsupported

    torch = scalargrad
    made = [torch.zeros(2, dtype=torch.complex64), torch.tensor([1.0], dtype=torch.cfloat),
            torch.ones(2).to(torch.complex128), torch.full((2,), 1.0, dtype=torch.cdouble)]
    assert [str(t.dtype) for t in made] == ["torch.complex64", "torch.complex64", "torch.complex128",
                                            "torch.complex128"]
    with pytest.raises(Unsupported, match=r"^torch\.complex32 \(ComplexHalf\) tensors is not supported"):
        torch.ones(2).to(dtype=torch.chalf)
    with pytest.raises(Unsupported, match=r"^torch\.arange with torch\.complex64 operands is not supported"):
        torch.arange(3, dtype=torch.complex64)
    complex_numbers.uninstall_gate()  # the process as it was, for the tests after this one


def test_module_to_complex_in_pytorch_converts_the_floating_parameters(torch_ref):
    # what scalargrad refuses: PyTorch converts (and warns that complex modules are new)
    m = torch_ref.nn.Linear(2, 1)
    m.register_buffer("n", torch_ref.tensor(3))
    with pytest.warns(UserWarning, match="Complex modules are a new feature"):
        m.to(torch_ref.complex64)
    assert (m.weight.dtype, m.n.dtype) == (torch_ref.complex64, torch_ref.int64)


# ---------------------------------------------------------------- state dicts


def test_state_dict_order_detached_values_and_metadata(lib):
    m = _tree(lib)
    sd = m.state_dict()
    # own parameters, own persistent buffers, then the children; non-persistent buffers never
    # (PyTorch's items; the container as the running Python prints an OrderedDict)
    assert repr(sd) == printed_ordered_dict([("top", "tensor([3.])"), ("rb", "tensor(1.)"),
                                             ("lin.weight", "tensor(2.)"), ("lin.bias", "tensor(0.5000)")])
    assert repr(sd._metadata) == printed_ordered_dict([("", "{'version': 1}"), ("lin", "{'version': 1}")])
    assert list(m.state_dict(prefix='pre.')) == ['pre.top', 'pre.rb', 'pre.lin.weight', 'pre.lin.bias']
    assert not sd['lin.weight'].requires_grad and sd['lin.weight'] is not m.lin.weight
    assert m.state_dict(keep_vars=True)['lin.weight'] is m.lin.weight
    sd['lin.weight'].add_(1.0)  # the detached values share the parameters' numbers
    assert m.lin.weight.item() == 3.0
    dest = OrderedDict()
    assert m.state_dict(destination=dest) is dest and list(dest) == list(sd)


def test_load_state_dict_strict_and_not(lib):
    m = _tree(lib)
    sd = m.state_dict()
    assert repr(m.load_state_dict(sd)) == "<All keys matched successfully>"
    r = m.load_state_dict({'lin.weight': lib.tensor(5.0)}, strict=False)
    assert repr(r) == "_IncompatibleKeys(missing_keys=['top', 'rb', 'lin.bias'], unexpected_keys=[])"
    assert (r.missing_keys, r.unexpected_keys, m.lin.weight.item()) == (['top', 'rb', 'lin.bias'], [], 5.0)
    bad = dict(m.state_dict())
    del bad['rb']
    bad['extra'] = lib.tensor(1.0)
    bad['lin.extra2'] = lib.tensor(1.0)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(bad)
    assert str(info.value) == ('Error(s) in loading state_dict for M:\n\tMissing key(s) in state_dict: "rb". \n\t'
                               'Unexpected key(s) in state_dict: "extra", "lin.extra2". ')
    assert repr(m.load_state_dict(bad, strict=False)) == \
        "_IncompatibleKeys(missing_keys=['rb'], unexpected_keys=['extra', 'lin.extra2'])"


def test_load_state_dict_shape_and_type_errors(lib):
    m = _tree(lib)
    bad = dict(m.state_dict())
    bad['top'] = lib.tensor(9.0)
    bad['lin.bias'] = lib.tensor([[1.0]])
    size_errors = ('Error(s) in loading state_dict for M:\n\tsize mismatch for top: copying a param with shape '
                   'torch.Size([]) from checkpoint, the shape in current model is torch.Size([1]).\n\tsize mismatch '
                   'for lin.bias: copying a param with shape torch.Size([1, 1]) from checkpoint, the shape in '
                   'current model is torch.Size([]).')
    for strict in (True, False):  # shape errors are errors even when not strict
        with pytest.raises(RuntimeError) as info:
            m.load_state_dict(bad, strict=strict)
        assert str(info.value) == size_errors
    bad = dict(m.state_dict())
    bad['rb'] = 3.0
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(bad)
    assert str(info.value) == ('Error(s) in loading state_dict for M:\n\tWhile copying the parameter named "rb", '
                               "expected torch.Tensor or Tensor-like object from checkpoint but received "
                               "<class 'float'>")


def test_load_state_dict_copies_converts_and_assigns(lib):
    m = _tree(lib)
    w = m.lin.weight
    ok = dict(m.state_dict())
    ok['lin.weight'] = lib.tensor([6.0])  # PyTorch 0.3 checkpoints stored 0-dim tensors as [1]
    ok['lin.bias'] = lib.tensor(0.1, dtype=lib.float64)  # copied into the float32 parameter
    assert repr(m.load_state_dict(ok)) == "<All keys matched successfully>"
    assert m.lin.weight is w and w.item() == 6.0 and repr(m.lin.bias.data) == "tensor(0.1000)"
    assert m.lin.bias.dtype is lib.float32
    new_w = lib.tensor(8.0)
    new_rb = lib.tensor(2.0, dtype=lib.float64)
    p = lib.nn.Parameter(lib.tensor(1.5), requires_grad=False)
    ok2 = dict(m.state_dict())
    ok2.update({'lin.weight': new_w, 'rb': new_rb, 'lin.bias': p})
    m.load_state_dict(ok2, assign=True)
    # assign: the given tensors themselves (a plain tensor becomes a Parameter keeping requires_grad)
    assert type(m.lin.weight) is lib.nn.Parameter and m.lin.weight is not new_w and m.lin.weight.requires_grad
    assert m.rb is new_rb and m.lin.bias is p and p.requires_grad


def test_extra_state_round_trip(lib):
    nn = lib.nn

    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.Parameter(lib.tensor(1.0))
            self.state = {"n": 1}

        def get_extra_state(self):
            return self.state

        def set_extra_state(self, s):
            self.state = s

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.e = WithState()

    o = Outer()
    sd = o.state_dict()
    assert list(sd) == ['e.p', 'e._extra_state'] and sd['e._extra_state'] == {"n": 1}
    sd['e._extra_state'] = {"n": 2}
    o.load_state_dict(sd)
    assert o.e.state == {"n": 2}
    del sd['e._extra_state']
    with pytest.raises(RuntimeError, match=re.escape('Missing key(s) in state_dict: "e._extra_state". ')):
        o.load_state_dict(sd)


def test_set_extra_state_runs_before_the_keys_are_judged_and_the_children_visited(lib):
    # PyTorch's test_extra_state_non_dict: set_extra_state assigns a submodule, whose own entry
    # ("foo._extra_state") is then loaded into it rather than reported unexpected
    class M(lib.nn.Module):
        def __init__(self, foo):
            super().__init__()
            self.foo = foo

        def get_extra_state(self):
            return self.foo

        def set_extra_state(self, state):
            self.foo = state

    for state in ("something", 5, M(3)):
        m, m2 = M(state), M("something else")
        m2.load_state_dict(m.state_dict())
        assert list(m2.state_dict()) == list(m.state_dict()) and m2.foo is m.foo


def test_a_load_that_fails_after_set_extra_state_ran_keeps_it(lib):
    # set_extra_state runs where PyTorch runs it (after the module's own entries, before its
    # children's); a later entry's failure does not undo it, nor the entries loaded before
    nn = lib.nn

    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.state = {"n": 1}
            self.lin = nn.Linear(2, 2)

        def get_extra_state(self):
            return self.state

        def set_extra_state(self, s):
            self.state = s

    m = WithState()
    bias = m.lin.bias.detach().clone()
    sd = {"_extra_state": {"n": 2}, "lin.weight": lib.ones(2, 2), "lin.bias": lib.ones(3)}
    with pytest.raises(RuntimeError, match="size mismatch for lin.bias"):
        m.load_state_dict(sd)
    assert m.state == {"n": 2} and lib.equal(m.lin.weight, lib.ones(2, 2)) and lib.equal(m.lin.bias, bias)
    sd["lin.bias"] = lib.ones(2)
    m.load_state_dict(sd)
    assert m.state == {"n": 2} and lib.equal(m.lin.bias, lib.ones(2))


def test_state_dict_hooks_order_and_arguments(lib):
    m = _tree(lib)
    ev = []
    for mod in (m, m.lin):
        mod.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: ev.append(f"pre {prefix!r} {keep_vars}"))
        mod.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: ev.append(f"post {prefix!r} {list(sd)} {meta}"))
    h = m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"replaced": 1})
    assert m.state_dict() == {"replaced": 1}  # the private hook's dict is used at the root
    h.remove()
    assert ev == [
        "pre '' False",
        "pre 'lin.' False",
        "post 'lin.' ['top', 'rb', 'lin.weight', 'lin.bias'] {'version': 1}",
        "post '' ['top', 'rb', 'lin.weight', 'lin.bias'] {'version': 1}",
    ]
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
    with pytest.raises(RuntimeError, match=r"^state_dict post-hook must return None$"):
        m.state_dict()


def test_load_state_dict_hooks_order_and_key_editing(lib):
    m = _tree(lib)
    ev = []

    def pre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        ev.append(f"pre {type(mod).__name__} {prefix!r} {sorted(sd)} {meta} {missing} {unexpected}")

    def post(mod, keys):
        ev.append(f"post {type(mod).__name__} {keys.missing_keys} {keys.unexpected_keys}")

    for mod in (m, m.lin):
        mod.register_load_state_dict_pre_hook(pre)
        mod.register_load_state_dict_post_hook(post)
    sd = dict(m.state_dict())
    sd['zzz'] = lib.tensor(1.0)
    m.register_load_state_dict_post_hook(lambda mod, keys: keys.unexpected_keys.clear())
    assert repr(m.load_state_dict(sd)) == "<All keys matched successfully>"  # the hook cleared 'zzz'
    assert ev == [
        "pre M '' ['lin.bias', 'lin.weight', 'rb', 'top', 'zzz'] {} [] []",
        "pre Lin 'lin.' ['lin.bias', 'lin.weight'] {} [] ['zzz']",
        "post Lin [] ['zzz']",
        "post M [] ['zzz']",
    ]
    m.lin.register_load_state_dict_post_hook(lambda mod, keys: 1)
    with pytest.raises(AssertionError, match=r"^Hooks registered with ``register_load_state_dict_post_hook`` "
                                             r"are not expected to return new values"):
        m.load_state_dict(m.state_dict())


# ---------------------------------------------------------------- failed loads: half loaded, as in PyTorch


def _loaded(m, before: dict) -> list:
    """Each state-dict entry: its value, and whether it is still the object it was (``before``)."""
    return [(name, t.tolist(), t is before[name]) for name, t in m.state_dict(keep_vars=True).items()]


@pytest.mark.parametrize("change", ["missing", "unexpected", "shape", "not_a_tensor"])
@pytest.mark.parametrize("assign", [False, True])
def test_a_failed_load_loads_every_entry_it_accepted(lib, change, assign):
    # PyTorch copies (or assigns) each entry as soon as it is checked and raises at the end
    m = _tree(lib)
    before = dict(m.state_dict(keep_vars=True))
    sd = {k: v.detach() + 100 for k, v in before.items()}
    refused = {"missing": "rb", "unexpected": None, "shape": "lin.bias", "not_a_tensor": "lin.bias"}[change]
    if change == "missing":
        del sd['rb']
    elif change == "unexpected":
        sd['lin.extra'] = lib.tensor(1.0)
    elif change == "shape":
        sd['lin.bias'] = lib.tensor([[1.0]])
    else:
        sd['lin.bias'] = 1.0
    with pytest.raises(RuntimeError, match=r"^Error\(s\) in loading state_dict for M:"):
        m.load_state_dict(sd, assign=assign)
    expected = [(k, v.tolist() if k == refused else sd[k].tolist(), k == refused or not assign)
                for k, v in before.items()]
    assert _loaded(m, before) == expected
    if assign:
        assert m.rb is sd['rb'] if refused != 'rb' else m.rb is before['rb']  # a buffer: the given tensor itself
        assert type(m.lin.weight).__name__ == "Parameter" and m.lin.weight.requires_grad


def test_post_hooks_see_the_loaded_entries_and_a_rejected_load_keeps_them(lib):
    m = _tree(lib)
    w = m.lin.weight
    seen = []
    m.lin.register_load_state_dict_post_hook(lambda mod, keys: seen.append(mod.weight.item()))
    m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.append('invented'))
    sd = {k: v + 1 for k, v in m.state_dict().items()}
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "invented"\. $'):
        m.load_state_dict(sd)
    assert seen == [3.0] and m.lin.weight is w and w.item() == 3.0 and m.rb.item() == 2.0

    def failing(mod, keys):
        raise ValueError("hook failed")

    m.register_load_state_dict_post_hook(failing)
    sd = {k: v + 1 for k, v in sd.items()}
    with pytest.raises(ValueError, match="^hook failed$"):
        m.load_state_dict(sd, strict=False, assign=True)
    assert seen == [3.0, 4.0] and m.lin.weight is not w and m.lin.weight.item() == 4.0 and m.rb is sd['rb']


def test_a_load_matching_pytorch_on_success():
    # the same successful load as PyTorch: values copied in place, keys reported
    m = _tree(scalargrad)
    r = m.load_state_dict({'top': scalargrad.tensor([4.0]), 'lin.extra': scalargrad.tensor(1.0)}, strict=False)
    assert (r.missing_keys, r.unexpected_keys) == (['rb', 'lin.weight', 'lin.bias'], ['lin.extra'])
    assert m.top.item() == 4.0


def test_a_rejected_assign_keeps_the_objects_flags_and_extra_state(lib):
    nn = lib.nn

    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.tensor(1.0))
            self.register_buffer('b', lib.tensor(2.0))
            self.state = {"n": 1}

        def get_extra_state(self):
            return self.state

        def set_extra_state(self, s):
            self.state = s

    m = WithState()
    given = nn.Parameter(lib.tensor(5.0), requires_grad=False)
    m.register_load_state_dict_post_hook(lambda mod, keys: keys.unexpected_keys.append('late'))
    sd = {'w': given, 'b': lib.tensor(6.0), '_extra_state': {"n": 2}}
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "late"\. $'):
        m.load_state_dict(sd, assign=True)
    assert m.w is given and given.requires_grad  # the module's flag, set on the given Parameter
    assert m.b is sd['b'] and m.state == {"n": 2} and list(m._parameters) == ['w']


def test_deepcopy_of_a_module_copies_parameters_buffers_children_and_hooks(lib):
    m = _tree(lib)
    fired = []
    m.register_forward_hook(lambda mod, args, out: fired.append(type(mod).__name__))
    (m.lin.weight * 3.0).backward()
    m2 = copy.deepcopy(m)
    assert m2.lin.weight is not m.lin.weight and m2.rb is not m.rb and m2.lin is not m.lin
    assert repr(m2.state_dict()) == repr(m.state_dict())
    assert m2.lin.weight.grad is None  # a Parameter's copy does not carry its gradient
    assert repr(m2(lib.tensor(1.0))) == "tensor([7.5000], grad_fn=<MulBackward0>)" and fired == ['M']
    with lib.no_grad():
        m2.lin.weight.fill_(5.0)
    assert m.lin.weight.item() == 2.0
    with pytest.raises(RuntimeError, match=r"^Only Tensors created explicitly by the user \(graph leaves\) "
                                           r"support the deepcopy protocol at the moment\."):
        copy.deepcopy(m.lin.weight * 2)


def test_future_conversion_switches_are_off_and_apply_keeps_the_parameter(lib):
    # torch.__future__: both switches default to False; with them off, .double() keeps each
    # Parameter object and replaces its data, and setting False again changes nothing
    fut = lib.__future__
    assert fut.get_overwrite_module_params_on_conversion() is False
    assert fut.get_swap_module_params_on_conversion() is False
    fut.set_swap_module_params_on_conversion(False)
    fut.set_overwrite_module_params_on_conversion(False)
    m = lib.nn.Linear(2, 1)
    weight = m.weight
    m.double()
    assert m.weight is weight and m.weight.dtype == lib.float64
    assert fut.get_swap_module_params_on_conversion() is False


@pytest.mark.parametrize("swap", [False, True])
def test_load_state_dict_leaves_no_reference_cycle(swap):
    # PyTorch's test_load_state_dict_ref_cycle: after a load, gc finds nothing to collect (a
    # load that made a cycle would hold the checkpoint's tensors until the next collection)
    import gc

    previous = scalargrad.__future__.get_swap_module_params_on_conversion()
    scalargrad.__future__.set_swap_module_params_on_conversion(swap)
    try:
        m = scalargrad.nn.LSTM(2, 2, bidirectional=True)
        gc.collect()
        m.load_state_dict(copy.deepcopy(m).state_dict())
        assert gc.collect() == 0
    finally:
        scalargrad.__future__.set_swap_module_params_on_conversion(previous)


def test_future_overwrite_switch_on_is_unsupported():
    # the swap switch is implemented (tests/test_swap_tensors.py); the overwrite one is not
    from scalargrad.errors import Unsupported

    with pytest.raises(Unsupported, match="overwrite_module_params_on_conversion"):
        scalargrad.__future__.set_overwrite_module_params_on_conversion(True)
    assert scalargrad.__future__.get_overwrite_module_params_on_conversion() is False


_TO_CALLS = [
    ("cpu-copy", lambda t, m: m.to("cpu", copy=True)),
    ("device-bool", lambda t, m: m.to(t.device("cpu"), True)),
    ("long", lambda t, m: m.to(t.long)),
    ("none-bool", lambda t, m: m.to(None, True)),
    ("device-long-bool", lambda t, m: m.to(t.device("cpu"), t.long, True)),
    ("device-dtype-kw", lambda t, m: m.to(t.device("cpu"), dtype=t.long, non_blocking=True)),
    ("list", lambda t, m: m.to([])),
    ("dict-kw", lambda t, m: m.to({}, non_blocking=True)),
    ("long-tensor", lambda t, m: m.to(t.tensor(3, dtype=t.long), non_blocking=True)),
    ("device-tensor", lambda t, m: m.to(t.device("cpu"), t.tensor(3, dtype=t.long), non_blocking=True)),
    ("unknown-kw", lambda t, m: m.to("cpu", dtype=t.float64, foo=1)),
    ("ok-device-dtype", lambda t, m: m.to("cpu", t.float64, False)),
    ("ok-dtype-kw", lambda t, m: m.to(dtype=t.float64, non_blocking=True)),
    ("ok-tensor", lambda t, m: m.to(t.zeros(1, dtype=t.float64))),
]


@pytest.mark.parametrize("name,call", _TO_CALLS, ids=[c[0] for c in _TO_CALLS])
def test_module_to_parses_its_arguments_as_pytorch(name, call, torch_ref):
    # Module.to's argument list by PyTorch's three signatures: what PyTorch accepts converts, what
    # it rejects raises the same error class with the same first line (copy= is a RuntimeError)
    def outcome(lib):
        m = lib.nn.Linear(2, 1)
        try:
            out = call(lib, m)
        except (TypeError, RuntimeError) as e:
            return type(e).__name__, str(e).splitlines()[0]
        return "ok", str(out.weight.dtype)

    theirs, ours = outcome(torch_ref), outcome(scalargrad)
    if name == "unknown-kw":  # PyTorch lists unknown keywords first; the class and the start agree
        assert ours[0] == theirs[0] == "TypeError"
        assert ours[1].startswith("to() received an invalid combination of arguments - got (str, ")
    else:
        assert ours == theirs


def test_nn_modules_utils_is_an_attribute_after_import_torch(torch_ref):
    # PyTorch's test_load_state_dict calls torch.nn.modules.utils.consume_prefix_in_state_dict_if_present
    # with no import of its own; a fresh interpreter, so no other test has imported it first
    import subprocess
    import sys

    code = ("import {m} as torch\n"
            "sd = {{'module.w': 1, 'b': 2}}\n"
            "torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, 'module.')\n"
            "print(sorted(sd))\n")
    outs = [subprocess.run([sys.executable, "-c", code.format(m=m)], capture_output=True, text=True, check=True).stdout
            for m in ("scalargrad", torch_ref.__name__)]
    assert outs[0] == outs[1] == "['b', 'w']\n"


@pytest.mark.parametrize("version", [1, None])
def test_batchnorm_loads_a_state_dict_from_before_num_batches_tracked(lib, version):
    # version 1 (or no version) of BatchNorm's state dict had no num_batches_tracked: it loads,
    # and the count is the module's own (0 here), as PyTorch's test_load_state_dict_BC checks
    bn = lib.nn.BatchNorm2d(3)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    if version is None:
        del sd._metadata[""]["version"]
    else:
        sd._metadata[""]["version"] = version
    bn.load_state_dict(sd)
    assert bn.num_batches_tracked.dtype == lib.long and bn.num_batches_tracked.item() == 0
    sd._metadata[""]["version"] = 2  # from version 2 on the key is required
    with pytest.raises(RuntimeError, match="Missing key"):
        bn.load_state_dict(sd)


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_parameter_container_replica_for_data_parallel(lib, kind):
    # DataParallel's replica of a ParameterList/ParameterDict: parameters re-set as views of the
    # originals, reached through the container's indexing (PyTorch's test_Parameter*_replication)
    params = [lib.nn.Parameter(lib.randn(2, 2)) for _ in range(2)]
    box = lib.nn.ParameterList(params) if kind == "list" else lib.nn.ParameterDict({"a": params[0], "b": params[1]})
    replica = box._replicate_for_data_parallel()
    assert type(replica) is type(box) and replica._is_replica and list(replica.parameters()) == []
    for n, p in box.named_parameters():
        setattr(replica, n, p.view_as(p))
    got = list(replica) if kind == "list" else [replica[k] for k in replica]
    for p, p2 in zip(params, got):
        assert p2._base is p and type(p2.grad_fn).__name__ == "ViewBackward0"
        assert lib.equal(p, p2)


def test_device_as_a_context_manager(torch_ref):
    # ``with torch.device("cpu")``: factories and modules inside are as outside (PyTorch's own
    # default); a default device other than the CPU and meta (tests/test_meta_device.py) is
    # refused on entry, by name
    from scalargrad.errors import Unsupported

    for L in (scalargrad, torch_ref):
        with L.device("cpu") as d:
            assert str(d) == "cpu" and str(L.ones(2).device) == "cpu"
            assert str(L.nn.Linear(2, 3).weight.device) == "cpu"
    with pytest.raises(Unsupported, match=r"with torch\.device\('cuda'\) is not supported"):
        with scalargrad.device("cuda"):
            scalargrad.nn.Linear(2, 3)
