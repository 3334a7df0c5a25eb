"""``grad_fn._raw_saved_<name>``: a node's saved tensor as an object (PyTorch's SavedTensor):
``data``, ``unpack_hook``, ``unpack()``, ``register_hooks(pack, unpack)`` after the fact, and
the refusal of a pack hook that changes its input in place (here and under saved_tensors_hooks).
Expected figures: live PyTorch, and gradients derived by hand."""

from __future__ import annotations

import pytest

import scalargrad as torch

PACK_IN_PLACE = ("A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                 "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open "
                 "an issue if you need to perform in-place operations on the input to a pack hook.")


def _facts(L) -> list:
    def pack(t):
        return t

    def unpack(t):
        return t

    a = L.tensor(2.0, requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(pack, unpack):
        b = a ** 2
    c = b.exp()
    d = c ** 2
    pow_sv, exp_sv, pow2_sv = b.grad_fn._raw_saved_self, c.grad_fn._raw_saved_result, d.grad_fn._raw_saved_self
    out = [pow_sv.data is a, pow_sv.unpack_hook is unpack, exp_sv.data is c, exp_sv.data.requires_grad,
           exp_sv.unpack_hook, pow2_sv.data is c, pow2_sv.unpack().tolist() == c.tolist()]
    x = L.tensor([1.0, -2.0], requires_grad=True)
    y = x * x
    y.grad_fn._raw_saved_self.register_hooks(lambda t: 2 * t, lambda t: t)  # self read as 2x: grad 2x + x
    out.append(y.grad_fn._saved_self.tolist())
    y.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
    try:
        y.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as e:
        out.append(str(e))
    y.sum().backward()
    out.append(x.grad.tolist())
    for hooks in ((lambda t: t, lambda t: t), (1, lambda t: t)):
        try:
            y.grad_fn._raw_saved_other.register_hooks(*hooks)
            out.append("ok")
        except (RuntimeError, TypeError) as e:
            out.append((type(e).__name__, str(e).split("\n")[0]))
    out.append(y.grad_fn._raw_saved_self.data)  # freed by backward
    w = x * L.tensor([3.0, 4.0])  # other needs no gradient: self is not saved
    sv = w.grad_fn._raw_saved_self
    out += [sv.data, sv.unpack_hook]
    try:
        sv.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as e:
        out.append(str(e))

    def inc(t):
        t += 1
        return t
    for make in (lambda: L.exp(x.detach().requires_grad_()), ):
        with L.autograd.graph.saved_tensors_hooks(inc, lambda t: t):
            with pytest.raises(RuntimeError, match="^" + PACK_IN_PLACE.replace(".", r"\.") + "$"):
                make()
        e = make()
        with pytest.raises(RuntimeError, match="^" + PACK_IN_PLACE.replace(".", r"\.") + "$"):
            e.grad_fn._raw_saved_result.register_hooks(inc, lambda t: t)
        out.append(e.grad_fn._raw_saved_result.unpack_hook is not None)  # set before the pack failed
    return out


@pytest.mark.no_sympy_check  # a pack hook that doubles self changes the gradient on purpose
def test_raw_saved_tensors_by_hand():
    assert _facts(torch) == [True, True, False, False, None, True, True, [2.0, -4.0],
                             "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
                             "one pair of hooks is allowed at a time.", [3.0, -6.0],
                             ("RuntimeError", "Calling register_hooks on a saved tensor after it has been freed. Saved "
                              "intermediate values of the graph are freed when you call .backward() or "
                              "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a "
                              "second time or if you need to access saved variables after calling backward."),
                             ("TypeError", "register_hooks(): incompatible function arguments. The following argument "
                              "types are supported:"),
                             None, None, None, "Calling register_hooks on a saved tensor with value None is forbidden",
                             True]


@pytest.mark.no_sympy_check  # a pack hook that doubles self changes the gradient on purpose
def test_raw_saved_tensors_match_pytorch(torch_ref):
    assert _facts(torch) == _facts(torch_ref)
