"""A post-accumulate-grad hook may return None or the tensor itself (``return p.add_(...)``),
as PyTorch 2.13 accepts; any other tensor is PyTorch's RuntimeError, any other object its
TypeError."""

from __future__ import annotations

import pytest

import scalargrad


def _run(L, make_result):
    p = L.nn.Parameter(L.ones(3))
    p.register_post_accumulate_grad_hook(lambda t: make_result(L, t))
    try:
        (p * 2).sum().backward()
    except Exception as e:
        return type(e).__name__, str(e)
    return "ok", p.grad.tolist(), p.tolist()


CASES = {
    "none": lambda L, t: None,
    "itself": lambda L, t: t,
    "itself, changed in place": lambda L, t: t.data.add_(1.0) and t,
    "a detached alias": lambda L, t: t.detach(),
    "another tensor": lambda L, t: L.zeros(3),
    "a number": lambda L, t: 5,
    "a list": lambda L, t: [t],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(torch_ref, name):
    assert _run(scalargrad, CASES[name]) == _run(torch_ref, CASES[name])


def test_returning_the_parameter_by_hand():
    assert _run(scalargrad, CASES["itself"]) == ("ok", [2.0, 2.0, 2.0], [1.0, 1.0, 1.0])
    assert _run(scalargrad, CASES["a number"]) == ("TypeError", "expected Variable, but hook returned 'int'")
