"""AccumulateGrad's steal (PyTorch's test_post_accumulate_grad_hook_ordering): a first gradient
that nothing else references and that obeys the layout contract becomes ``.grad`` without a
copy, so the node's post-hooks see, in ``grad_outputs[0]``, what the post-accumulate hooks
changed in ``.grad``; a gradient a hook kept, the program's own, or an expanded one is copied."""

from __future__ import annotations

import scalargrad


def _ordering(L):
    """PyTorch's test, verbatim in substance: ((1 - 2) / 5 + 0.5) * 10 = 3 (hand derivation)."""
    tensor = L.rand(3, requires_grad=True)
    acc_grad = tensor.view_as(tensor).grad_fn.next_functions[0][0]
    tensor.register_hook(lambda grad: grad.sub(2.0))
    acc_grad.register_prehook(lambda grad_out: (grad_out[0].div(5.0),))

    def post_acc_grad_hook(t):
        t.grad.add_(0.5)

    def acc_grad_node_post_hook(grad_in, grad_out):
        tensor.grad = grad_out[0].mul(10)

    tensor.register_post_accumulate_grad_hook(post_acc_grad_hook)
    acc_grad.register_hook(acc_grad_node_post_hook)
    tensor.sum().backward()
    return [round(v, 6) for v in tensor.grad.tolist()]


def test_post_accumulate_grad_hook_ordering():
    assert _ordering(scalargrad) == [3.0, 3.0, 3.0]


def _cases(L):
    def post(t):
        t.grad.add_(0.5)

    out = []
    for kind in ("fresh", "kept", "expanded", "view", "clone"):
        x = L.ones(3, requires_grad=True)
        acc = x.view_as(x).grad_fn.next_functions[0][0]
        kept = []

        def hook(g, kind=kind, kept=kept):
            if kind == "expanded":
                return None  # SumBackward0's expanded gradient (stride 0) reaches the leaf
            r = {"fresh": g.sub(2.0), "kept": g.sub(2.0), "view": g.view(3), "clone": g.clone()}[kind]
            if kind == "kept":
                kept.append(r)  # a reference the program holds: not stolen
            return r

        x.register_hook(hook)
        x.register_post_accumulate_grad_hook(post)
        seen = []
        acc.register_hook(lambda gi, go, seen=seen: seen.append((go[0].tolist(), go[0].data_ptr())))
        (x.sum() if kind != "view" else (x * 2).sum()).backward()
        out.append((kind, seen[0][0], x.grad.tolist(), seen[0][1] == x.grad.data_ptr()))
    y = L.ones(3, requires_grad=True)
    g = L.ones(3)
    y.register_post_accumulate_grad_hook(post)
    seen = []
    acc = y.view_as(y).grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: seen.append(go[0].tolist()))
    y.backward(g)  # the program's own gradient: copied
    out.append(("program's", seen[0], y.grad.tolist(), g.tolist()))
    return out


def test_which_gradients_are_stolen_as_pytorchs(torch_ref):
    assert _cases(scalargrad) == _cases(torch_ref)
    assert _ordering(torch_ref) == [3.0, 3.0, 3.0]
