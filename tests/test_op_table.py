"""The op table is the one source of every op's spellings: each declared spelling exists on its
surface (Tensor methods, the torch namespace, nn.functional), and each op's grad_fn name and
saved attributes are what its nodes show."""

from __future__ import annotations

import pytest

import scalargrad
from scalargrad._ops.table import REGISTRY

SURFACES = {"Tensor": scalargrad.Tensor, "torch": scalargrad, "torch.nn.functional": scalargrad.nn.functional}


def _spellings():
    for op in REGISTRY.values():
        if op.api is not None:
            for surface, name in op.api.names():
                yield pytest.param(op, surface, name, id=f"{op.__name__}-{surface}.{name}")


@pytest.mark.parametrize("op, surface, name", list(_spellings()))
def test_every_declared_spelling_exists(op, surface, name):
    target = SURFACES[surface]
    attr = getattr(target, name, None) if surface != "torch" else scalargrad.__dict__.get(name)
    assert attr is not None and callable(attr) or isinstance(attr, property), f"{surface}.{name} ({op.__name__})"


def test_every_op_has_a_grad_fn_name_and_a_symbolic_form():
    for op in REGISTRY.values():
        assert op.name and op.name[0].isupper(), op
        assert op.base is op and op.tensor.base is op and op.freed.base is op


def test_an_op_declared_in_the_table_alone_gets_its_spellings(monkeypatch):
    # adding an elementwise op: a declaration (forward, derivative, form, name, spellings) and
    # nothing else; the surface is made from the table when the package is imported
    import math

    from scalargrad._ops import elementwise as E
    from scalargrad._ops.table import Api, register
    from scalargrad._tensor import elementwise, surface

    class Atan(E.Unary):
        name = "AtanBackward0"
        saved = (("self", 0),)
        api = Api(method="atan_test", function="atan_test")
        result = "float"
        forward = staticmethod(lambda r, a: math.atan(a))
        backward = staticmethod(lambda k, g, v: (k.div(g, k.add(k.const(1.0), k.mul(k.ins(v)[0], k.ins(v)[0]))),))
        sympy = staticmethod(lambda sp, a: sp.atan(a))

    monkeypatch.setitem(REGISTRY, "Atan", register(Atan))
    elementwise.install(surface.bind_method, surface.bind_function)
    try:
        x = scalargrad.tensor([0.5, 2.0], dtype=scalargrad.float64, requires_grad=True)
        y = x.atan_test()
        assert y.grad_fn.name() == "AtanBackward0" and y.grad_fn._saved_self is x
        y.sum().backward()
        assert y.tolist() == [math.atan(0.5), math.atan(2.0)]
        assert x.grad.tolist() == [1 / 1.25, 1 / 5.0]  # d atan(x)/dx = 1 / (1 + x^2), by hand
        assert scalargrad.atan_test(x).tolist() == y.tolist()
    finally:
        REGISTRY.pop("Atan", None)
        for name in ("atan_test", "atan_test_"):
            if name in vars(scalargrad.Tensor):
                delattr(scalargrad.Tensor, name)
        surface.FUNCTIONS.pop("atan_test", None)
