"""PyTorch's fused CPU attention node (``ScaledDotProductFlashAttentionForCpuBackward0``) against
live PyTorch: one node over query, key and value with PyTorch's saved attributes, the output laid
out contiguous, the gradients and the saved logsumexp laid out (B, L, H, E) and transposed, and
under create_graph gradients out of NotImplemented nodes whose backward raises PyTorch's error.

Names, edges, shapes, strides, the saved numbers and mask are the same on every machine and
compared exactly; the values pass through PyTorch's blocked kernel (its last bits depend on the
processor) and are compared with PyTorch's within test_attention.py's bound (2 * BOUND for
gradients and logsumexp: both are within BOUND of a float64 reference there)."""

from __future__ import annotations

import pytest

import scalargrad

BOUND = 1e-5  # test_attention.BOUND

CASES = {"plain": {}, "scale": {"scale": 0.3}, "negative scale": {"scale": -0.7}, "causal": {"is_causal": True},
         "bool mask": {"attn_mask": [[True, False, True, True, False, True]] * 3 + [[False] * 6]},
         "float mask": {"attn_mask": [[0.0, -1.5, 0.25, 0.0, 2.0, -0.5]] * 4}}


def _run(L, kw: dict, create_graph: bool = False) -> dict:
    L.manual_seed(0)
    q, k, v = L.randn(2, 3, 4, 5), L.randn(2, 3, 6, 5), L.randn(2, 3, 6, 5)
    for t in (q, k, v):
        t.requires_grad_(True)
    kw = dict(kw)
    if "attn_mask" in kw:
        kw["attn_mask"] = L.tensor(kw["attn_mask"])
    out = L.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    fn = out.grad_fn
    saved = {}
    for name in sorted(a for a in dir(fn) if a.startswith("_saved_")):
        x = getattr(fn, name)
        saved[name] = ((tuple(x.shape), x.stride(), x.dtype is L.float32) if hasattr(x, "stride") else x)
    mask = fn._saved_attn_mask
    got = {"name": fn.name(), "edges": [type(f).__name__ for f, _ in fn.next_functions], "saved": saved,
           "saved_query_is_query": fn._saved_query is q, "stride": out.stride(),
           "mask": None if mask is None else (str(mask.dtype), mask.tolist())}
    numbers = {"out": out.reshape(-1).tolist(), "lse": fn._saved_logsumexp.reshape(-1).tolist()}
    weights = L.arange(1.0, out.numel() + 1).reshape(out.shape) / 16
    grads = L.autograd.grad((out * weights).sum(), [q, k, v], create_graph=create_graph)
    got["grad_strides"] = [g.stride() for g in grads]
    numbers["grads"] = [g.reshape(-1).tolist() for g in grads]
    if not create_graph:
        for name in ("_saved_logsumexp", "_saved_output", "_saved_query"):
            try:
                getattr(fn, name)
                got[name] = None
            except RuntimeError as e:
                got[name] = str(e)[:40]
    if create_graph:
        got["grad_fns"] = [g.grad_fn.name() for g in grads]
        got["grad_edges"] = [[f.name() for f, _ in g.grad_fn.next_functions] for g in grads]
        try:
            grads[0].square().sum().backward()
            got["double"] = None
        except RuntimeError as e:
            got["double"] = str(e)
    return got, numbers


def _close(got: list, ref: list, bound: float) -> None:
    assert len(got) == len(ref)
    for i, (a, b) in enumerate(zip(got, ref)):
        assert abs(a - b) <= bound * max(1.0, abs(b)), f"element {i}: {a} vs PyTorch's {b}"


@pytest.mark.live_torch
@pytest.mark.parametrize("case", list(CASES))
def test_the_fused_node_is_pytorchs(torch_ref, case):
    got, nums = _run(scalargrad, CASES[case])
    want, ref = _run(torch_ref, CASES[case])
    assert got == want
    assert want["name"] == "ScaledDotProductFlashAttentionForCpuBackward0"  # the case takes the fused kernel
    _close(nums["out"], ref["out"], 2 * BOUND)
    _close(nums["lse"], ref["lse"], 2 * BOUND)
    for a, b in zip(nums["grads"], ref["grads"]):
        _close(a, b, 4 * BOUND)


@pytest.mark.live_torch
def test_the_fused_backward_under_create_graph_is_pytorchs(torch_ref):
    got, _ = _run(scalargrad, CASES["bool mask"], create_graph=True)
    want, _ = _run(torch_ref, CASES["bool mask"], create_graph=True)
    assert got == want
    assert want["double"] == ("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward "
                              "is not implemented")


def test_the_fused_node_and_its_gradients_are_proved_by_sympy():
    from scalargrad.symbolic import sympy_check, to_sympy

    scalargrad.manual_seed(1)
    q, k, v = (scalargrad.randn(1, 2, 2, 2, dtype=scalargrad.float64, requires_grad=True) for _ in range(3))
    mask = scalargrad.tensor([[True, False], [False, False]])
    for kw in ({}, {"attn_mask": mask}, {"is_causal": True, "scale": -0.7}):
        out = scalargrad.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        y = (out * scalargrad.arange(1.0, 9.0, dtype=scalargrad.float64).reshape(out.shape)).sum()
        assert sympy_check(y, [q, k, v], strategy="whole").ok
        gq, gk, gv = scalargrad.autograd.grad(y, [q, k, v], create_graph=True)
        # the NotImplemented gradients' elements: the derivative form of the attention, evaluated at the leaves
        for g in (gq, gk, gv):
            exprs = to_sympy(g, {q: "q", k: "k", v: "v"})
            leaves = {s: x for t, n in ((q, "q"), (k, "k"), (v, "v")) for s, x in _symbols(exprs, n, t)}
            got = [float(e.xreplace(leaves)) for e in exprs.reshape(g.numel()).tolist()]
            for a, b in zip(got, g.reshape(-1).tolist()):
                assert abs(a - b) <= 1e-14 * max(1.0, abs(b))


def _symbols(exprs, name: str, t):
    import sympy as sp

    flat = t.reshape(-1).tolist()
    for s in set().union(*(e.free_symbols for e in sp.flatten(exprs))):
        text = str(s)
        if text.startswith(name + "["):
            pos = 0
            for size, i in zip(t.shape, (int(x) for x in text[len(name) + 1:-1].split(","))):
                pos = pos * size + i
            yield s, sp.Rational(flat[pos])
