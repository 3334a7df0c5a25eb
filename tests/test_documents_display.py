"""A notebook cell's displayed result (``Out[n]``) as IPython's pretty printer shows it
(``scalargrad.documents.display``), compared with IPython itself: on Python containers of
every shape and width, and on the objects of a PyTorch program (its graph nodes, handles,
state_dicts, modules, tensors) displayed by IPython under PyTorch and by the emulation under
scalargrad. The tests skip without IPython (and the second without PyTorch)."""

from __future__ import annotations

import collections
import re
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scalargrad
from scalargrad.documents.display import display_text

ADDRESS = re.compile(r"0x[0-9a-f]+")


@pytest.fixture
def ipython_pretty():
    pretty = pytest.importorskip("IPython.lib.pretty", reason="IPython is not installed").pretty
    return pretty


_leaves = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=False), st.text(max_size=30),
                    st.none(), st.booleans(), st.sampled_from(["x" * 40, "y" * 75, "weight", "bias"]))


def _containers(children):
    return st.one_of(
        st.lists(children, max_size=8),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=12), children, max_size=6),
        st.dictionaries(st.text(max_size=8), children, max_size=5).map(collections.OrderedDict),
        st.lists(children, max_size=3).map(collections.deque),
        st.frozensets(st.integers(0, 10**9), max_size=8),
        st.sets(st.text(max_size=20), max_size=6),
    )


def test_containers_are_shown_as_ipython_shows_them(ipython_pretty):
    @settings(max_examples=200, deadline=None)
    @given(st.recursive(_leaves, _containers, max_leaves=40))
    def check(value):
        assert display_text(value) == ipython_pretty(value)

    check()


def test_objects_of_every_kind_python_has(ipython_pretty):
    class Plain:
        pass

    class WithRepr:
        def __repr__(self):
            return "first line\nsecond line"

    def function(a, b=2):
        return a

    values = [Plain(), [Plain(), WithRepr()], {"k": WithRepr()}, Plain, function, [function] * 3, len,
              RuntimeError("x"), ValueError("a", 2), types.SimpleNamespace(a=1, b=[1, 2]), re.compile(r"\d+", re.I),
              range(3), b"ab",
              collections.Counter("hello"), collections.defaultdict(list, a=[1]), collections.OrderedDict(),
              slice(1, 2), {1: {2: {3: ["z" * 30] * 5}}}, list(range(1200)), (1,), frozenset(), [[]] * 50]
    for value in values:
        assert ADDRESS.sub("0x", display_text(value)) == ADDRESS.sub("0x", ipython_pretty(value))


_PROGRAM = """
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
z = (y ** 2).log()
w = torch.ones(3, 4, requires_grad=True)
lin = torch.nn.Linear(3, 2)
seq = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
f = Twice.apply(x)
"""

_SHOWN = ["y.grad_fn", "z.grad_fn.next_functions", "x.register_hook(lambda g: g)", "lin.state_dict()",
          "dict(lin.named_parameters())", "list(lin.parameters())", "seq", "seq.state_dict()", "torch.Generator()",
          "[w, w]", "(x, y, z)", "{'a': w, 'b': [x] * 30}", "x.shape", "w.shape", "torch.float32",
          "torch.device('cpu')", "f.grad_fn", "type(y.grad_fn)", "[('weight', lin.weight), ('bias', lin.bias)]",
          "lin.weight", "{'k': (x, y)}", "seq[0]", "torch.optim.SGD(lin.parameters(), lr=0.1)", "w.sum(0)",
          "[torch.zeros(2, 3)] * 3", "y.grad_fn.next_functions[0][0]", "x.grad", "torch.nn.ModuleDict({'a': lin})",
          "{'w': torch.randn(5, 5)}", "torch.randn(2, 30)", "collections.OrderedDict(w=w)"]


def _shown(lib, show) -> list:
    namespace = {"torch": lib, "collections": collections}
    lib.manual_seed(0)
    exec(_PROGRAM, namespace)
    return [ADDRESS.sub("0x", show(eval(e, namespace))) for e in _SHOWN]


def test_a_pytorch_programs_objects_are_shown_as_ipython_shows_pytorchs(ipython_pretty, torch_ref):
    assert _shown(scalargrad, display_text) == _shown(torch_ref, ipython_pretty)


def test_without_ipython_the_figures_it_gives():
    # from IPython 9.18 on PyTorch 2.13: a node without __repr__, an OrderedDict, a dict too wide
    x = scalargrad.tensor(2.0, requires_grad=True)
    assert re.fullmatch(r"<MulBackward0 at 0x[0-9a-f]+>", display_text((x * 3).grad_fn))
    assert display_text(collections.OrderedDict(a=1)) == "OrderedDict([('a', 1)])"
    assert display_text({"a" * 30: 1, "b" * 30: 2, "c": 3}) == (
        "{'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': 1,\n 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb': 2,\n 'c': 3}")
    assert display_text({"b": 1, "a": 2}, sort_dict_keys=True) == "{'a': 2, 'b': 1}"
