"""``state_dict``, ``load_state_dict`` and ``assign=True`` for parameters and buffers of every
shape, against PyTorch 2.13 and by hand.

* ``nn.Linear(3, 2)``: the state dict's keys, order, metadata, types and sharing of memory; a
  round trip into a fresh module (copies: the same Parameter objects, new numbers, versions up
  by one) and with ``assign=True`` (the given tensors become the parameters).
* A module with buffers of shapes (), (1,) and (2, 3), a non-persistent buffer and a 0-dim
  parameter: the same round trips; PyTorch 0.3's 1-element checkpoints into 0-dim tensors.
* A failed load leaves the module half loaded, as PyTorch's does: every parameter and buffer
  (whether it is the same object, its numbers, dtype, requires_grad and version) is compared
  with PyTorch's after wrong shapes, non-tensors, missing and unexpected keys, parameters that
  cannot be made, and a post-hook that raises; the error messages are PyTorch's.

Every number here is a copy, so the comparisons with PyTorch are exact.
"""

from __future__ import annotations

import pytest

import scalargrad


def _module_with_buffers(L):
    class M(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("s", L.tensor(1.5))
            self.register_buffer("o", L.tensor([2.5]))
            self.register_buffer("m", L.arange(6.0).reshape(2, 3))
            self.register_buffer("np", L.tensor(3.0), persistent=False)
            self.p = L.nn.Parameter(L.tensor(0.5))
            self.child = L.nn.Linear(3, 2)

    return M()


def _describe(t):
    return (type(t).__name__, tuple(t.shape), str(t.dtype), t.tolist(), t.requires_grad, t._version)


def _linear_story(L) -> list:
    out = []
    L.manual_seed(0)
    lin = L.nn.Linear(3, 2)
    sd = lin.state_dict()
    out.append(("keys", list(sd), type(sd).__name__, dict(sd._metadata)))
    out.append(("values", [_describe(v) for v in sd.values()], [v.is_leaf for v in sd.values()]))
    sd["weight"][0, 0] = 100.0  # a state dict's tensors share the parameters' memory
    out.append(("shared", lin.weight[0, 0].item(), lin.weight._version, sd["weight"]._version))
    lin2 = L.nn.Linear(3, 2)
    w2, b2 = lin2.weight, lin2.bias
    out.append(("load", repr(lin2.load_state_dict(sd)), lin2.weight is w2, lin2.bias is b2,
                _describe(lin2.weight), _describe(lin2.bias)))
    lin3 = L.nn.Linear(3, 2)
    given = lin.state_dict()
    out.append(("assign", repr(lin3.load_state_dict(given, assign=True)), type(lin3.weight).__name__,
                lin3.weight.requires_grad, lin3.weight is given["weight"], _describe(lin3.weight)))
    lin3.weight.data[0, 1] = -7.0  # the assigned parameter shares the given tensor's memory
    out.append(("assign shares", lin.weight[0, 1].item(), given["weight"][0, 1].item()))
    out.append(("keep_vars", [type(v).__name__ + str(v.requires_grad) for v in lin.state_dict(keep_vars=True).values()],
                [v is p for v, p in zip(lin.state_dict(keep_vars=True).values(), lin.parameters())]))
    frozen = L.nn.Linear(3, 2)
    frozen.weight.requires_grad_(False)
    frozen.load_state_dict(lin.state_dict(), assign=True)  # assign keeps each parameter's requires_grad
    out.append(("assign keeps requires_grad", frozen.weight.requires_grad, frozen.bias.requires_grad))
    return out


def test_linear_round_trip_matches_torch(torch_ref):
    assert _linear_story(scalargrad) == _linear_story(torch_ref)


def test_linear_round_trip_by_hand():
    out = {row[0]: row[1:] for row in _linear_story(scalargrad)}
    assert out["keys"] == (["weight", "bias"], "OrderedDict", {"": {"version": 1}})
    (w, b), leaves = out["values"]
    assert w[:3] == ("Tensor", (2, 3), "torch.float32") and not w[4] and w[5] == 1  # init's uniform_ is version 1
    assert b[:3] == ("Tensor", (2,), "torch.float32") and all(leaves)
    assert out["shared"] == (100.0, 2, 2)
    loaded = out["load"]
    assert loaded[0] == "<All keys matched successfully>" and loaded[1] and loaded[2]  # copied into the same objects
    assert loaded[3][3][0][0] == 100.0 and loaded[3][5] == 2  # uniform_ at init, then the copy
    assert out["assign"][:4] == ("<All keys matched successfully>", "Parameter", True, False)
    assert out["assign shares"] == (-7.0, -7.0)
    assert out["keep_vars"] == (["ParameterTrue", "ParameterTrue"], [True, True])
    assert out["assign keeps requires_grad"] == (False, True)


def _buffers_story(L) -> list:
    out = []
    L.manual_seed(0)
    m = _module_with_buffers(L)
    sd = m.state_dict()
    out.append(("keys", list(sd), [tuple(v.shape) for v in sd.values()], dict(sd._metadata)))
    m2 = _module_with_buffers(L)
    objects = {k: v for k, v in list(m2.named_parameters()) + list(m2.named_buffers())}
    new = {"p": L.tensor(7.0), "s": L.tensor(9.0), "o": L.tensor([8.0]), "m": L.ones(2, 3),
           "child.weight": L.zeros(2, 3), "child.bias": L.tensor([1.0, -1.0])}
    out.append(("load", repr(m2.load_state_dict(new)),
                all(v is objects[k] for k, v in list(m2.named_parameters()) + list(m2.named_buffers()))))
    out.append(("after load", {k: _describe(v) for k, v in m2.state_dict().items()}, _describe(m2.np)))
    old_style = dict(new, s=L.tensor([4.0]), p=L.tensor([6.0]))  # PyTorch 0.3 saved 0-dim as (1,)
    out.append(("1-element into 0-dim", repr(m2.load_state_dict(old_style)), _describe(m2.s), _describe(m2.p)))
    assigned = {"p": L.tensor(1.0, dtype=L.float64), "s": L.tensor(2.0, requires_grad=True), "o": L.tensor([3.0]),
                "m": L.zeros(2, 3, dtype=L.int64), "child.weight": L.ones(2, 3), "child.bias": L.ones(2)}
    out.append(("assign", repr(m2.load_state_dict(assigned, assign=True)), _describe(m2.p), _describe(m2.s),
                m2.s is assigned["s"], _describe(m2.m), m2.m is assigned["m"], type(m2.child.weight).__name__))
    out.append(("buffers after assign", [k for k, _ in m2.named_buffers()], list(m2.state_dict())))
    return out


def test_buffers_of_every_shape_match_torch(torch_ref):
    assert _buffers_story(scalargrad) == _buffers_story(torch_ref)


def test_buffers_of_every_shape_by_hand():
    out = {row[0]: row[1:] for row in _buffers_story(scalargrad)}
    keys, shapes, metadata = out["keys"]
    # own parameters, own persistent buffers, then the child's: "np" is not persistent
    assert keys == ["p", "s", "o", "m", "child.weight", "child.bias"]
    assert shapes == [(), (), (1,), (2, 3), (2, 3), (2,)]
    assert metadata == {"": {"version": 1}, "child": {"version": 1}}
    assert out["load"] == ("<All keys matched successfully>", True)
    after, np = out["after load"]
    assert after["s"] == ("Tensor", (), "torch.float32", 9.0, False, 1)
    assert after["o"] == ("Tensor", (1,), "torch.float32", [8.0], False, 1)
    assert after["p"] == ("Tensor", (), "torch.float32", 7.0, False, 1)
    assert np == ("Tensor", (), "torch.float32", 3.0, False, 0)  # untouched
    assert out["1-element into 0-dim"][1][3] == 4.0 and out["1-element into 0-dim"][2][3] == 6.0
    assign = out["assign"]
    assert assign[1][2] == "torch.float64" and assign[1][4]  # a parameter stays a Parameter that requires grad
    assert assign[2][4] and assign[3]  # a buffer is the given tensor itself, requires_grad and all
    assert assign[4][2] == "torch.int64" and assign[5]
    assert out["buffers after assign"] == (["s", "o", "m", "np"], ["p", "s", "o", "m", "child.weight", "child.bias"])


# ---------------------------------------------------------------- failed loads, half loaded as in PyTorch


def _snapshot(m) -> list:
    """Every parameter and buffer: the object, its numbers, dtype, requires_grad and version."""
    out = []
    for kind, items in (("param", m.named_parameters()), ("buffer", m.named_buffers())):
        for name, t in items:
            out.append((kind, name, id(t), t, t.tolist(), str(t.dtype), t.requires_grad, t._version,
                        type(t).__name__))
    return out


def _changes(before: list, after: list) -> list:
    """What a load changed, in terms both libraries share: which entries are new objects, and
    each entry's numbers, dtype, requires_grad, version and type now."""
    objects = {row[1]: row[3] for row in before}
    return [(row[0], row[1], row[3] is objects.get(row[1]), *row[4:]) for row in after]


def _good(L) -> dict:
    return {"p": L.tensor(7.0), "s": L.tensor(9.0), "o": L.tensor([8.0]), "m": L.ones(2, 3),
            "child.weight": L.zeros(2, 3), "child.bias": L.tensor([1.0, -1.0])}


FAILURES = {
    "wrong shape, last key": (lambda L: dict(_good(L), **{"child.bias": L.ones(3)}), {}),
    "wrong shape, 0-dim given (1,) shape": (lambda L: dict(_good(L), o=L.tensor(8.0)), {}),
    "wrong shape with assign": (lambda L: dict(_good(L), m=L.ones(3, 2)), {"assign": True}),
    "a list instead of a tensor": (lambda L: dict(_good(L), m=[[1.0] * 3] * 2), {}),
    "assign a number": (lambda L: dict(_good(L), **{"child.bias": 3.0}), {"assign": True}),
    "assign an int tensor to a float parameter": (
        lambda L: dict(_good(L), **{"child.weight": L.ones(2, 3, dtype=L.int64)}), {"assign": True}),
    "missing keys": (lambda L: {k: v for k, v in _good(L).items() if k != "s"}, {}),
    "unexpected key": (lambda L: dict(_good(L), extra=L.ones(1)), {}),
    "non-persistent buffer given": (lambda L: dict(_good(L), np=L.ones(())), {}),
    "missing and unexpected with assign": (lambda L: dict({k: v for k, v in _good(L).items() if k != "p"}, x=L.ones(1)),
                                           {"assign": True}),
}


def _failure(L, case: str):
    make, kwargs = FAILURES[case]
    L.manual_seed(0)
    m = _module_with_buffers(L)
    before = _snapshot(m)
    try:
        m.load_state_dict(make(L), **kwargs)
    except RuntimeError as e:
        return str(e), _changes(before, _snapshot(m))
    return None, _changes(before, _snapshot(m))


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_a_failed_load_fails_and_half_loads_as_torch(torch_ref, case):
    message, changes = _failure(scalargrad, case)
    assert message is not None and message.startswith("Error(s) in loading state_dict for M:\n\t")
    assert (message, changes) == _failure(torch_ref, case)


def _failing_post_hook_story(L) -> list:
    m = _module_with_buffers(L)
    before = _snapshot(m)
    seen = []

    def hook(module, keys):
        seen.append(module.weight.tolist())  # the child's entries are loaded when its hook runs
        raise ValueError("no")

    m.child.register_load_state_dict_post_hook(hook)
    try:
        m.load_state_dict(_good(L))
    except ValueError as e:
        out = [str(e), seen, _changes(before, _snapshot(m))]
    # a post-hook may excuse missing keys (PyTorch checks them after the hooks)
    m2 = _module_with_buffers(L)
    m2.register_load_state_dict_post_hook(lambda module, keys: keys.missing_keys.clear())
    partial = {k: v for k, v in _good(L).items() if k != "s"}
    return out + [repr(m2.load_state_dict(partial)), m2.p.item()]


def test_a_failing_post_hook_leaves_what_was_loaded_as_torch(torch_ref):
    assert _failing_post_hook_story(scalargrad) == _failing_post_hook_story(torch_ref)


def test_a_failing_post_hook_by_hand():
    # the child's hook runs after the root's and the child's entries are loaded: all of them are
    message, seen, changes, keys, p = _failing_post_hook_story(scalargrad)
    assert message == "no" and seen == [[[0.0] * 3] * 2]
    assert {row[1]: row[3] for row in changes} == {**{k: v.tolist() for k, v in _good(scalargrad).items()}, "np": 3.0}
    assert all(row[2] for row in changes)  # copied into the same objects
    assert (keys, p) == ("<All keys matched successfully>", 7.0)


def test_a_failed_load_by_hand_half_loaded():
    # every entry but the wrong one is copied; the wrong one keeps its numbers and version
    _, changes = _failure(scalargrad, "wrong shape, last key")
    rows = {row[1]: row for row in changes}
    good = _good(scalargrad)
    assert all(rows[k][3] == good[k].tolist() for k in good if k != "child.bias")
    assert rows["child.bias"][3] != [1.0, 1.0, 1.0] and rows["child.bias"][6] == 1  # its init's uniform_ only
    # assign: a failed entry does not stop the load; every other entry is the given tensor
    _, changes = _failure(scalargrad, "assign an int tensor to a float parameter")
    assert [row[1] for row in changes if not row[2]] == ["p", "child.bias", "s", "o", "m"]


def test_a_failed_load_by_hand_messages():
    message, _ = _failure(scalargrad, "wrong shape, last key")
    assert message == ("Error(s) in loading state_dict for M:\n\tsize mismatch for child.bias: copying a param with "
                       "shape torch.Size([3]) from checkpoint, the shape in current model is torch.Size([2]).")
    message, _ = _failure(scalargrad, "missing and unexpected with assign")
    assert message == ('Error(s) in loading state_dict for M:\n\tMissing key(s) in state_dict: "p". \n\t'
                       'Unexpected key(s) in state_dict: "x". ')
    message, _ = _failure(scalargrad, "assign an int tensor to a float parameter")
    assert message.endswith("an exception occurred : ('Only Tensors of floating point and complex dtype can require "
                            "gradients',).")
