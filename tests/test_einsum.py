"""bmm, baddbmm, batched matmul and einsum (``_tensor/products.py``, ``_tensor/einsum.py``).

einsum is composed as ATen's (diagonal, unsqueeze, permute, then bmm through permute / reshape
/ view per pair of operands), so its graph is PyTorch's node for node, saved values included.
The values: ATen's CPU bmm multiplies small batches (contraction x rows x columns < 400) with its
own loop, each product rounded and added in order, the same bits on every processor: compared
with PyTorch bit for bit, and by hand. Larger batches go to MKL's gemm, whose order depends on
the processor: bit for bit on the capture machine (``mkl_golden``), elsewhere within the error
bound of a dot product.
"""

from __future__ import annotations

import random
import struct

import pytest

import scalargrad as sg


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


# ---------------------------------------------------------------- by hand


def test_bmm_by_hand():
    a = sg.tensor([[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [0.0, 2.0]]], requires_grad=True)
    b = sg.tensor([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 4.0], [6.0, 8.0]]], requires_grad=True)
    y = sg.bmm(a, b)
    assert y.tolist() == [[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [12.0, 16.0]]]
    assert y.grad_fn.name() == "BmmBackward0" and a.bmm(b).tolist() == y.tolist()
    ga, gb = sg.autograd.grad(y.sum(), (a, b))
    # d/da[q,i,k] = sum_j b[q,k,j]; d/db[q,k,j] = sum_i a[q,i,k]
    assert ga.tolist() == [[[1.0, 1.0], [1.0, 1.0]], [[6.0, 14.0], [6.0, 14.0]]]
    assert gb.tolist() == [[[4.0, 4.0], [6.0, 6.0]], [[0.5, 0.5], [2.0, 2.0]]]
    c = sg.tensor([10.0, 20.0], requires_grad=True)
    z = sg.baddbmm(c, a, b)
    assert z.tolist() == [[[11.0, 22.0], [13.0, 24.0]], [[11.0, 22.0], [22.0, 36.0]]]
    assert z.grad_fn.name() == "BaddbmmBackward0"
    (gc,) = sg.autograd.grad(z.sum(), c)
    assert gc.tolist() == [4.0, 4.0]


def test_small_bmm_adds_rounded_products_in_order():
    # float32: 2**24 + 1 + 1 in order is 2**24 (each +1 rounds away); any pairing of the ones
    # first would give 2**24 + 2
    a = sg.tensor([[[16777216.0, 1.0, 1.0]]])
    b = sg.tensor([[[1.0], [1.0], [1.0]]])
    assert sg.bmm(a, b).item() == 16777216.0
    # each product rounded before it is added (no fused multiply-add): (1 + 2**-12)**2 rounds to
    # 1 + 2**-11, and 1 + 2**-11 - 1 leaves 2**-11, not the exact 2**-11 + 2**-24
    e = 2.0**-12
    assert sg.bmm(sg.tensor([[[1.0 + e, -1.0]]]), sg.tensor([[[1.0 + e], [1.0]]])).item() == 2.0**-11


def test_einsum_by_hand():
    A = sg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    B = sg.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert sg.einsum("ij,jk->ik", A, B).tolist() == [[4.0, 5.0], [10.0, 11.0]]
    assert sg.einsum("ij,jk", A, B).tolist() == [[4.0, 5.0], [10.0, 11.0]]  # implicit output: i, k
    assert sg.einsum("ij->ji", A).tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    assert sg.einsum("ij->", A).item() == 21.0 and sg.einsum("ij->j", A).tolist() == [5.0, 7.0, 9.0]
    v = sg.tensor([1.0, 2.0, 3.0])
    assert sg.einsum("i,i->", v, v).item() == 14.0 and sg.einsum("i,j->ij", v[:2], v).tolist() == [
        [1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]
    S = sg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert sg.einsum("ii->i", S).tolist() == [1.0, 4.0] and sg.einsum("ii", S).item() == 5.0
    assert sg.einsum("...ij,...jk->...ik", A.unsqueeze(0), B.unsqueeze(0)).shape == (1, 2, 2)
    assert sg.einsum("ij,jk->ik", [A, B]).tolist() == [[4.0, 5.0], [10.0, 11.0]]  # operands as a list
    (g,) = sg.autograd.grad(sg.einsum("ij,jk->ik", A, B).sum(), A)
    assert g.tolist() == [[1.0, 1.0, 2.0], [1.0, 1.0, 2.0]]  # each row of B summed


# ---------------------------------------------------------------- against PyTorch

EQUATIONS = {
    "matmul": ("ij,jk->ik", [(2, 3), (3, 4)]),
    "batched": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    "dot": ("i,i->", [(3,), (3,)]),
    "transpose": ("ij->ji", [(2, 3)]),
    "diagonal": ("ii->i", [(3, 3)]),
    "trace": ("ii", [(3, 3)]),
    "total": ("ij->", [(2, 3)]),
    "column sums": ("ij->j", [(3, 2)]),
    "attention": ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    "implicit": ("ij,jk", [(2, 3), (3, 4)]),
    "ellipsis": ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    "broadcast ellipsis": ("...ij,jk->...ik", [(2, 1, 3, 4), (4, 2)]),
    "outer": ("i,j->ij", [(3,), (4,)]),
    "hadamard": ("ij,ij->ij", [(2, 3), (2, 3)]),
    "bilinear": ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    "spaces and capitals": ("B i, B i -> B", [(2, 3), (2, 3)]),
    "sum one side": ("ij,k->i", [(2, 3), (4,)]),
}


def _chain(fn) -> list:
    out, stack, seen = [], [(fn, 0)], set()
    while stack:
        f, depth = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        saved = {a: getattr(f, a) for a in dir(f) if a.startswith("_saved_") and not hasattr(getattr(f, a), "shape")}
        out.append((depth, f.name(), saved))
        stack.extend((g, depth + 1) for g, _ in reversed(f.next_functions))
    return out


def _operands(L, shapes, dtype):
    rng = random.Random(7)
    return [L.tensor([f32(rng.uniform(-2, 2)) for _ in range(_numel(s))], dtype=dtype).reshape(s).requires_grad_()
            for s in shapes]


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _run(L, name: str, dtype: str):
    eq, shapes = EQUATIONS[name]
    ops = _operands(L, shapes, getattr(L, dtype))
    y = L.einsum(eq, *ops)
    graph = _chain(y.grad_fn)
    w = L.tensor([f32(0.5 * (i % 5) - 1.0) for i in range(y.numel())], dtype=y.dtype).reshape(y.shape)
    grads = L.autograd.grad((y * y * w).sum(), ops, create_graph=True)
    second = L.autograd.grad(sum((g * g).sum() for g in grads), ops, allow_unused=True)
    return (tuple(y.shape), y.tolist(), graph, [g.tolist() for g in grads],
            [None if h is None else h.tolist() for h in second])


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(EQUATIONS))
def test_einsum_is_torchs(torch_ref, name, dtype):
    if name == "bilinear":
        import importlib.util

        if importlib.util.find_spec("opt_einsum") is not None:
            pytest.skip("PyTorch contracts three operands in opt_einsum's order when it is installed")
    assert _run(sg, name, dtype) == _run(torch_ref, name, dtype)


def _bmm_run(L, dtype, baddbmm: bool):
    a, b, c = _operands(L, [(2, 3, 4), (2, 4, 5), (3, 1)], getattr(L, dtype))
    y = L.baddbmm(c, a, b) if baddbmm else a.bmm(b)
    fn = y.grad_fn
    saved = {k: getattr(fn, k) for k in dir(fn) if k.startswith("_saved_")}
    saved = {k: v.tolist() if hasattr(v, "shape") else v for k, v in saved.items()}
    ins = [a, b, c] if baddbmm else [a, b]
    grads = L.autograd.grad((y * y).sum(), ins, create_graph=True)
    second = L.autograd.grad(sum((g * g).sum() for g in grads), ins)
    return (y.tolist(), fn.name(), saved, [g.tolist() for g in grads], [g.grad_fn.name() for g in grads],
            [h.tolist() for h in second])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("baddbmm", [False, True])
def test_bmm_is_torchs(torch_ref, dtype, baddbmm):
    assert _bmm_run(sg, dtype, baddbmm) == _bmm_run(torch_ref, dtype, baddbmm)


@pytest.mark.parametrize("dims", [(2, 16, 16, 16), (3, 8, 10, 5), (4, 7, 9, 13), (3, 7, 8, 7)])
def test_small_and_mkl_bmm_against_torch(torch_ref, dims):
    """Below 400 multiply-adds per batch bit for bit; MKL's (from 400 on: (3, 8, 10, 5) is the
    first) bit for bit on the capture machine, elsewhere within 2 (k + 1) 2**-24 sum |a b|."""
    import mkl_golden

    bs, n, k, m = dims
    rng = random.Random(sum(dims))
    A = [f32(rng.uniform(-1, 1)) for _ in range(bs * n * k)]
    B = [f32(rng.uniform(-1, 1)) for _ in range(bs * k * m)]
    got = sg.bmm(sg.tensor(A).reshape(bs, n, k), sg.tensor(B).reshape(bs, k, m)).reshape(-1).tolist()
    want = torch_ref.bmm(torch_ref.tensor(A).reshape(bs, n, k),
                         torch_ref.tensor(B).reshape(bs, k, m)).reshape(-1).tolist()
    if n * k * m < 400 or mkl_golden.is_capture_machine(torch_ref):
        assert got == want
        return
    for q in range(bs):
        for i in range(n):
            for j in range(m):
                mag = sum(abs(A[(q * n + i) * k + x] * B[(q * k + x) * m + j]) for x in range(k))
                p = (q * n + i) * m + j
                assert abs(got[p] - want[p]) <= 2 * (k + 1) * 2.0**-24 * mag


MATMUL = {
    "3-D @ 3-D": [(2, 3, 4), (2, 4, 5)],
    "4-D @ 4-D": [(2, 2, 3, 4), (2, 2, 4, 5)],
    "broadcast batch": [(2, 1, 3, 4), (3, 4, 5)],
    "matrix @ 3-D": [(3, 4), (2, 4, 5)],
    "vector @ 3-D": [(4,), (2, 4, 5)],
    "3-D @ vector": [(2, 3, 4), (4,)],
    "3-D @ batch of one": [(2, 3, 4), (1, 4, 5)],
    "batch of one @ 3-D": [(1, 3, 4), (2, 4, 5)],
    "4-D @ vector": [(2, 2, 3, 4), (4,)],
}


def _matmul_run(L, name: str, dtype: str, grad_of: tuple):
    a, b = _operands(L, MATMUL[name], getattr(L, dtype))
    a.requires_grad_(0 in grad_of)
    b.requires_grad_(1 in grad_of)
    y = a @ b
    graph = _chain(y.grad_fn)
    ins = [x for i, x in enumerate((a, b)) if i in grad_of]
    grads = L.autograd.grad((y * y).sum(), ins, create_graph=True)
    second = L.autograd.grad(sum((g * g).sum() for g in grads), ins)
    return (tuple(y.shape), y.tolist(), graph, [g.tolist() for g in grads],
            [h.tolist() for h in second])


# through bmm only (ATen's small-batch loop): the same bits on every processor; the others fold
# into mm or mv (MKL), whose order scalargrad models for some layouts only (a (6, 4) matrix times
# a vector, a transposed float64 operand differ in the last bit on the capture machine)
BMM_ONLY = {"3-D @ 3-D", "4-D @ 4-D", "broadcast batch"}


def _flat(x) -> list:
    return [v for e in x for v in _flat(e)] if isinstance(x, list) else [x]


@pytest.mark.scalargrad_side_takes_no_torch_value  # inputs from Python's random: CI's reruns need not prove it again
@pytest.mark.parametrize("grad_of", [(0, 1), (0,), (1,)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(MATMUL))
def test_batched_matmul_is_torchs(torch_ref, name, dtype, grad_of):
    got, want = _matmul_run(sg, name, dtype, grad_of), _matmul_run(torch_ref, name, dtype, grad_of)
    if name in BMM_ONLY:
        assert got == want
        return
    assert (got[0], got[2]) == (want[0], want[2])  # shape and graph, node for node
    # values: within 16 units in the last place of the largest magnitude (measured: 1)
    eps = 2.0**-23 if dtype == "float32" else 2.0**-52
    for g, w in zip(got[1:2] + got[3:], want[1:2] + want[3:]):
        g, w = _flat(g), _flat(w)
        scale = max(abs(v) for v in w)
        assert all(abs(x - y) <= 16 * eps * scale for x, y in zip(g, w))


def test_attention_scores_by_hand():
    q = sg.tensor([[[1.0, 0.0], [0.0, 1.0]]], requires_grad=True)
    k = sg.tensor([[[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]])
    s = q @ k.transpose(-2, -1)
    assert s.tolist() == [[[2.0, 4.0, 6.0], [3.0, 5.0, 7.0]]] and s.grad_fn.name() == "UnsafeViewBackward0"
    (g,) = sg.autograd.grad(s.sum(), q)
    assert g.tolist() == [[[12.0, 15.0], [12.0, 15.0]]]


ERRORS = {
    "bmm 2-D": lambda L, a, b: L.bmm(a[0], b),
    "bmm 2-D mat2": lambda L, a, b: L.bmm(a, b[0]),
    "bmm sizes": lambda L, a, b: L.bmm(a, b[:, :3]),
    "bmm batches": lambda L, a, b: L.bmm(a, b[:1]),
    "bmm dtype": lambda L, a, b: L.bmm(a, b.double()),
    "bmm number": lambda L, a, b: a.bmm(3),
    "torch.bmm number": lambda L, a, b: L.bmm(a, 3),
    "torch.bmm input": lambda L, a, b: L.bmm(3, a),
    "baddbmm number": lambda L, a, b: a[:, :, :1].baddbmm(3, a),
    "torch.baddbmm number": lambda L, a, b: L.baddbmm(a, 3, a),
    "baddbmm bias": lambda L, a, b: L.baddbmm(L.zeros(2, 3, 4), a, b),
    "einsum operands": lambda L, a, b: L.einsum("ij,jk->ik", a[0]),
    "einsum too many": lambda L, a, b: L.einsum("ij->ij", a[0], b[0]),
    "einsum subscripts": lambda L, a, b: L.einsum("ij,jk->ik", a, b),
    "einsum ellipsis dims": lambda L, a, b: L.einsum("...ijkl->i", a),
    "einsum bad label": lambda L, a, b: L.einsum("i1,jk->ik", a[0], b[0]),
    "einsum output twice": lambda L, a, b: L.einsum("ij,jk->ii", a[0], b[0]),
    "einsum output unknown": lambda L, a, b: L.einsum("ij,jk->iz", a[0], b[0]),
    "einsum sizes": lambda L, a, b: L.einsum("ij,jk->ik", a[0], b[0, :3]),
    "einsum diagonal sizes": lambda L, a, b: L.einsum("ii->i", a[0]),
    "einsum dot": lambda L, a, b: L.einsum("i.j->", a[0]),
    "matmul batches": lambda L, a, b: a @ b[:, :3],
    "matmul broadcast": lambda L, a, b: a @ L.ones(3, 4, 5),
}


def _error(L, name):
    a = L.ones(2, 3, 4)
    b = L.ones(2, 4, 5)
    with pytest.raises((RuntimeError, TypeError, ValueError)) as e:
        ERRORS[name](L, a, b)
    return type(e.value).__name__, str(e.value)


def test_errors_without_torch():
    for name in ERRORS:
        assert _error(sg, name)[1]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_torchs(torch_ref, name):
    assert _error(sg, name) == _error(torch_ref, name)
