"""Hybrid sparse tensors (issue 23): PyTorch 2.13's sparse tensors with dense dimensions, against
live PyTorch.

A hybrid tensor stores a dense block per index (COO values ``(nnz, *dense_shape)``; CSR/CSC
``(nnz, *dense_shape)``; BSR/BSC ``(nnz, block rows, block columns, *dense_shape)``). What is
compared is data movement (construction, conversion, printing, which indices are kept), negation,
``abs``, ``relu``, scaling and sums of two numbers rounded once, which every processor computes
alike: bit equality. PyTorch multiplies no hybrid tensor with a dense one: its errors, which
depend on the op, the side and the layout, are compared too. What scalargrad does not build
(batch dimensions, a size PyTorch leaves unchecked against the values) is refused by name.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad
from scalargrad.errors import Unsupported

D3 = [[[0.0, 0.0], [1.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], [[2.0, 3.0], [0.0, -0.0]]]  # (3, 2, 2)
H = ([[0, 1, 1], [2, 0, 2]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # sparse_dim 2, dense_dim 1
UNCOALESCED = ([[1, 0, 1]], [[1.0, 2.0], [3.0, 4.0], [0.1, 0.2]])  # index 1 twice: float32 sums


def d4(t):
    """A (2, 3, 2, 2) tensor with every third element nonzero: each (i, j) has a nonzero block."""
    return t.arange(24.0).reshape(2, 3, 2, 2) * (t.arange(24) % 3 == 0).reshape(2, 3, 2, 2)


def hsum(t):  # uncoalesced: summing dimension 0 adds three float32 rows (1 + 5 + 0.1)
    return t.sparse_coo_tensor([[0, 1, 1, 0], [1, 0, 1, 1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [0.1, 0.2]],
                               (2, 2, 2))


def h2(t):
    return t.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], (2, 2))


def h3(t):
    return t.sparse_coo_tensor([[0, 1], [1, 0]], [[1.0, 2.0], [3.0, 4.0]], (2, 2, 2))


def csr3(t):
    return t.sparse_csr_tensor([0, 1, 2], [1, 0], [[1.0, 2.0], [3.0, 4.0]], (2, 2, 2))


CASES = {
    # COO: construction, dense -> COO by sparse_dim or dense_dim, accessors
    "coo ctor": lambda t: t.sparse_coo_tensor(*H, (2, 3, 2)),
    "coo ctor inferred size": lambda t: t.sparse_coo_tensor(*H),
    "coo ctor two dense dims": lambda t: t.sparse_coo_tensor([[0, 2]], t.arange(8.0).reshape(2, 2, 2), (3, 2, 2)),
    "to_sparse(1) and (2)": lambda t: (t.tensor(D3).to_sparse(1), t.tensor(D3).to_sparse(sparse_dim=2)),
    "to_sparse(dense_dim=)": lambda t: [t.tensor(D3).to_sparse(dense_dim=k) for k in (0, 1, 2)],
    "to_sparse(layout=coo, dense_dim=)": lambda t: t.tensor(D3).to_sparse(layout=t.sparse_coo, dense_dim=1),
    "a row is kept if any number is nonzero": lambda t: t.tensor([[0.0, 0], [0, -0.0], [float("nan"), 0]])
    .to_sparse(dense_dim=1),
    "int hybrid": lambda t: t.tensor([[[1, 0], [0, 0]], [[0, 0], [0, 5]]]).to_sparse(1),
    "empty hybrid": lambda t: t.zeros(2, 3).to_sparse(1),
    "metadata": lambda t: [(s.sparse_dim(), s.dense_dim(), s._nnz(), s.shape, s.is_coalesced())
                           for s in (t.tensor(D3).to_sparse(1), t.tensor(D3).to_sparse(dense_dim=1), h3(t))],
    "indices values": lambda t: (t.tensor(D3).to_sparse(1).indices(), t.tensor(D3).to_sparse(1).values()),
    "coalesce sums the dense rows": lambda t: t.sparse_coo_tensor(*UNCOALESCED, (2, 2)).coalesce(),
    "to_dense sums duplicates": lambda t: t.sparse_coo_tensor(*UNCOALESCED, (2, 2)).to_dense(),
    # COO: the elementwise ops
    "scale neg div": lambda t: (t.sparse_coo_tensor(*H) * 2.5, -t.sparse_coo_tensor(*H),
                                t.sparse_coo_tensor(*H) / 3, 2 * t.tensor([[[1, 0], [0, 0]]]).to_sparse(1)),
    "abs relu": lambda t: (t.sparse_coo_tensor(UNCOALESCED[0], [[-1.0, 2.0], [3.0, -4.0], [0.1, -0.2]], (2, 2)).abs(),
                           t.relu(t.sparse_coo_tensor(UNCOALESCED[0], [[-1.0, 2.0], [3.0, -4.0], [0.1, -0.2]],
                                                      (2, 2)))),
    "add": lambda t: (t.sparse_coo_tensor(*H) + t.sparse_coo_tensor([[1], [2]], [[10.0, 20.0]], (2, 3, 2)),
                      t.sparse_coo_tensor(*UNCOALESCED, (2, 2)) - h2(t)),
    "dense + hybrid": lambda t: (t.ones(2, 3, 2) + t.sparse_coo_tensor(*H), t.ones(2, 2) - h2(t)),
    "hybrid * dense": lambda t: (t.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (3, 2))
                                 * t.arange(6.0).reshape(3, 2), h2(t) * t.tensor([10.0, 100.0])),
    "sum": lambda t: (t.sparse_coo_tensor(*H).sum(), t.sparse.sum(t.sparse_coo_tensor(*UNCOALESCED, (2, 2))),
                      h3(t).sum(dtype=t.float64)),
    "sum over dimensions": lambda t: [t.sparse.sum(hsum(t), d) for d in (0, 1, 2, (0, 1), (0, 2), (0, 1, 2), -1, [1],
                                                                       ())]
    + [hsum(t).sum(0), t.sum(hsum(t), dim=1), t.sparse.sum(hsum(t), 0, dtype=t.float64),
       t.sparse.sum(hsum(t).long(), 0), t.sparse.sum(hsum(t), 0).is_coalesced(),
       t.sparse.sum(t.sparse_coo_tensor([[0, 1, 0], [1, 1, 1]], [1, 2, 3], (2, 2)), 0)],
    "dtype and clone": lambda t: (h2(t).double(), h2(t).to(t.float64), h2(t).clone()),
    "t of a hybrid matrix": lambda t: (h2(t).t(), h2(t).t().is_coalesced()),
    # compressed layouts with dense dimensions
    "csr csc (dense_dim=1)": lambda t: (t.tensor(D3).to_sparse_csr(dense_dim=1),
                                        t.tensor(D3).to_sparse_csc(dense_dim=1)),
    "bsr bsc (dense_dim=1)": lambda t: (t.tensor(D3).to_sparse_bsr((1, 1), dense_dim=1),
                                        t.tensor(D3).to_sparse_bsc((1, 2), dense_dim=1)),
    "to_sparse(layout=, dense_dim=)": lambda t: (t.tensor(D3).to_sparse(layout=t.sparse_csr, dense_dim=1),
                                                 t.tensor(D3).to_sparse(layout=t.sparse_bsc, blocksize=(3, 1),
                                                                        dense_dim=1)),
    "two dense dims": lambda t: (d4(t).to_sparse_csr(dense_dim=2), d4(t).to_sparse_bsr((1, 3), dense_dim=2),
                                 d4(t).to_sparse_bsr((2, 1), 2), d4(t).to_sparse_csc(dense_dim=2),
                                 d4(t).to_sparse_bsc((2, 1), dense_dim=2)),
    "compressed: an element is kept if any number is nonzero": lambda t: (
        t.tensor([[[0.0], [0.0]], [[0.0], [-0.0]], [[float("nan")], [0.0]]]).to_sparse_csr(dense_dim=1),
        t.tensor([[[0.0], [0.0]], [[0.0], [-0.0]], [[float("nan")], [0.0]]]).to_sparse_bsr((1, 2), dense_dim=1),
        t.zeros(2, 3, 2).to_sparse_csr(dense_dim=1)),
    "compressed metadata": lambda t: [(s.sparse_dim(), s.dense_dim(), s._nnz(), s.shape, s.values().shape)
                                      for s in (d4(t).to_sparse_csr(dense_dim=2),
                                                d4(t).to_sparse_bsr((1, 1), dense_dim=2))],
    "compressed accessors": lambda t: (d4(t).to_sparse_csr(dense_dim=2).crow_indices(),
                                       d4(t).to_sparse_csc(dense_dim=2).row_indices()),
    "compressed ctors": lambda t: (csr3(t), t.sparse_csr_tensor([0, 1, 2], [0, 1], [[1.0, 2.0], [3.0, 4.0]]),
                                   t.sparse_bsr_tensor([0, 1], [0], t.ones(1, 2, 1, 2)),
                                   t.sparse_bsc_tensor([0, 1], [0], t.ones(1, 1, 1, 2), (1, 1, 2)),
                                   t.sparse_compressed_tensor([0, 1, 2], [1, 0], [[5, 6], [7, 8]], (2, 2, 2),
                                                              layout=t.sparse_csc)),
    "compressed to_dense": lambda t: (d4(t).to_sparse_csr(dense_dim=2).to_dense(),
                                      d4(t).to_sparse_bsc((2, 1), dense_dim=2).to_dense(), csr3(t).to_dense()),
    "compressed to coo": lambda t: [s.to_sparse() for s in (d4(t).to_sparse_csr(dense_dim=2),
                                                           d4(t).to_sparse_bsr((2, 1), dense_dim=2),
                                                           d4(t).to_sparse_csc(dense_dim=2),
                                                           d4(t).to_sparse_bsc((2, 1), dense_dim=2))],
    "compressed to compressed": lambda t: (d4(t).to_sparse_csr(dense_dim=2).to_sparse_csc(),
                                           d4(t).to_sparse_csr(dense_dim=2).to_sparse_bsr((1, 1)),
                                           d4(t).to_sparse_csc(dense_dim=2).to_sparse_bsc((2, 3))),
    "coo to compressed": lambda t: (t.tensor(D3).to_sparse(2).to_sparse_csr(), d4(t).to_sparse(2).to_sparse_csc(),
                                    d4(t).to_sparse(2).to_sparse_bsr((1, 1)),
                                    t.sparse_coo_tensor(*H, (2, 3, 2)).to_sparse_csr()),
    "compressed elementwise": lambda t: (d4(t).to_sparse_csr(dense_dim=2) * 2, -d4(t).to_sparse_csr(dense_dim=2),
                                         (-d4(t).to_sparse_csr(dense_dim=2)).abs(),
                                         t.relu(-d4(t).to_sparse_bsr((1, 1), dense_dim=2)),
                                         d4(t).to_sparse_csr(dense_dim=2).double()),
    # sparse to sparse with an argument PyTorch refuses: its message names the call
    **{f"{src} to {dst} with {arg}": (lambda t, src=src, dst=dst, arg=arg: _convert(t, src, dst, arg))
       for src in ("coo", "csr", "bsr") for dst in ("coo", "csr", "csc", "bsr") for arg in ("dense_dim", "blocksize")
       if not (arg == "blocksize" and dst == "bsr")},
    "compressed sum": lambda t: (d4(t).to_sparse_csr(dense_dim=2).sum(),
                                 d4(t).to_sparse_bsc((2, 1), dense_dim=2).sum()),
    "dense.mm(sparse), dense.matmul(sparse)": lambda t: (t.ones(2, 3).mm(t.tensor(D3)[:, 1].to_sparse()),
                                                       t.ones(2, 3).matmul(t.tensor(D3)[:, 1].to_sparse_csr())),
    "sparse_mask": lambda t: (t.arange(12.0).reshape(3, 2, 2).sparse_mask(t.sparse_coo_tensor([[2, 0, 2]],
                                                                                            t.ones(3, 2, 2))),
                              t.arange(12).reshape(3, 2, 2).sparse_mask(t.ones(3, 2, 2).to_sparse(2)),
                              t.arange(12.0).reshape(3, 2, 2).sparse_mask(t.ones(3, 2, 2).to_sparse_csr(dense_dim=1)),
                              t.arange(4.0).reshape(2, 2).sparse_mask(t.eye(2).to_sparse_csc()),
                              t.arange(4.0).reshape(2, 2).sparse_mask(t.eye(2).to_sparse_bsr((1, 2))),
                              t.ones(2, 2, dtype=t.int32).sparse_mask(t.eye(2).to_sparse()),
                              [t.ones(3, 2, 2).sparse_mask(t.sparse_coo_tensor([[2, 0, 2]], t.ones(3, 2, 2)).coalesce())
                               .is_coalesced()]),
    "narrow_copy": lambda t: (t.arange(16).reshape(2, 2, 2, 2).to_sparse(2).narrow_copy(0, 0, 1),
                              t.arange(16).reshape(2, 2, 2, 2).to_sparse(2).narrow_copy(3, 1, 1),
                              t.sparse_coo_tensor(*UNCOALESCED, (3, 2)).narrow_copy(0, 1, 2),
                              t.sparse_coo_tensor(*UNCOALESCED, (3, 2)).narrow_copy(0, 3, 0),
                              t.sparse_coo_tensor(*UNCOALESCED, (3, 2)).narrow_copy(dim=0, start=t.tensor(1), length=1),
                              [t.sparse_coo_tensor(*UNCOALESCED, (3, 2)).narrow_copy(0, d, 1).is_coalesced()
                               for d in (0, 1)],
                              t.sparse_coo_tensor(*UNCOALESCED, (3, 2)).coalesce().narrow_copy(1, 1, 1)),
    "dense + csr, csc": lambda t: (t.ones(2, 2) + t.tensor([[0.1, 0.0], [0.0, 0.2]]).to_sparse_csr(),
                                   t.ones(2, 2, dtype=t.float64) + t.tensor([[0.1, 0.0], [0.0, 0.2]]).to_sparse_csc(),
                                   t.ones(2, 2, dtype=t.long) + t.tensor([[0.1, 0.0], [0.0, 0.2]]).to_sparse_csr(),
                                   t.tensor([[1, 2], [3, 4]]) + t.tensor([[1, 0], [5, 2]]).to_sparse_csc()),
    "csr * dense": lambda t: (csr3(t) * t.arange(8.0).reshape(2, 2, 2),
                              t.arange(12.0).reshape(3, 2, 2) * t.tensor(D3).to_sparse_csr(dense_dim=1)),
}

ERRORS = {
    "ctor dense shape": lambda t: t.sparse_coo_tensor(*H, (2, 3, 3)),
    "ctor too short": lambda t: t.sparse_coo_tensor(*H, (2, 3)),
    "ctor too long": lambda t: t.sparse_coo_tensor(*H, (2, 3, 2, 1)),
    "dense_dim range": lambda t: t.tensor(D3).to_sparse(dense_dim=4),
    "dense_dim negative": lambda t: t.tensor(D3).to_sparse(dense_dim=-1),
    "dense_dim of a 0-dim tensor": lambda t: t.tensor(3.0).to_sparse(dense_dim=1),
    "dense_dim all": lambda t: t.tensor([1.0, 0.0]).to_sparse(dense_dim=1),
    "sparse_dim and dense_dim": lambda t: t.tensor(D3).to_sparse(1, dense_dim=1),
    "sparse_dim and layout": lambda t: t.tensor(D3).to_sparse(1, layout=t.sparse_coo),
    "to_sparse_coo takes no dense_dim": lambda t: t.tensor(D3).to_sparse_coo(dense_dim=1),
    "coo with blocksize": lambda t: t.tensor(D3).to_sparse(dense_dim=1, blocksize=(1, 1)),
    "coo to coo with dense_dim": lambda t: t.tensor(D3).to_sparse(1).to_sparse(dense_dim=1),
    "coo to coo with another sparse_dim": lambda t: t.tensor(D3).to_sparse(1).to_sparse(2),
    "csr to coo with sparse_dim": lambda t: t.eye(2).to_sparse_csr().to_sparse(1),
    "csr to coo with dense_dim": lambda t: t.eye(2).to_sparse_csr().to_sparse(dense_dim=0),
    "csr to csr with dense_dim": lambda t: t.eye(2).to_sparse_csr().to_sparse_csr(dense_dim=0),
    "coo to csr with dense_dim": lambda t: t.eye(2).to_sparse().to_sparse_csr(dense_dim=0),
    "coo to bsr with dense_dim": lambda t: t.eye(2).to_sparse().to_sparse_bsr((1, 1), dense_dim=0),
    "csr to bsr with dense_dim": lambda t: t.eye(2).to_sparse_csr().to_sparse_bsr((1, 1), dense_dim=0),
    "bsr to csr with dense_dim": lambda t: t.eye(2).to_sparse_bsr((1, 1)).to_sparse_csr(dense_dim=0),
    "dense to csr with blocksize": lambda t: t.eye(2).to_sparse(layout=t.sparse_csr, blocksize=(1, 1)),
    "csr dense_dim range": lambda t: t.tensor(D3).to_sparse_csr(dense_dim=2),
    "csc dense_dim range": lambda t: t.tensor(D3).to_sparse_csc(dense_dim=3),
    "bsc dense_dim negative": lambda t: t.tensor(D3).to_sparse_bsc((1, 1), dense_dim=-1),
    "bsr dense_dim too large": lambda t: t.tensor(D3).to_sparse_bsr((1, 1), dense_dim=2),
    "layout csr dense_dim range": lambda t: t.tensor(D3).to_sparse(layout=t.sparse_csr, dense_dim=2),
    "csr of a vector": lambda t: t.ones(2).to_sparse_csr(dense_dim=0),
    "bsr of a vector": lambda t: t.ones(2).to_sparse_bsr((1, 1)),
    "bsr of a number": lambda t: t.tensor(1.0).to_sparse_bsr((1, 1)),
    "hybrid blocksize": lambda t: t.ones(3, 2, 2).to_sparse_bsr((2, 1), dense_dim=1),
    "hybrid blocksize (to_sparse)": lambda t: t.ones(3, 2, 2).to_sparse(layout=t.sparse_bsr, blocksize=(2, 1),
                                                                        dense_dim=1),
    "hybrid bsr without blocksize": lambda t: t.ones(2, 2, 2).to_sparse(layout=t.sparse_bsr, dense_dim=1),
    "bsr values of too few dims": lambda t: t.sparse_bsr_tensor([0, 1], [0], t.ones(1, 2)),
    "ctor dimensionality (checked)": lambda t: t.sparse_csr_tensor([0, 1, 2], [0, 1], [[1.0, 2.0], [3.0, 4.0]],
                                                                   (2, 2), check_invariants=True),
    "add of different densities": lambda t: t.tensor(D3).to_sparse(1) + t.tensor(D3).to_sparse(2),
    "sum dim range": lambda t: t.sparse.sum(h3(t), 3),
    "sum dim twice": lambda t: t.sparse.sum(h3(t), (0, -3)),
    "dense + csr sizes": lambda t: t.ones(3, 3) + t.eye(2).to_sparse_csr(),
    **{f"dense - {lay}": (lambda t, lay=lay: t.ones(2, 2) - getattr(t.eye(2), f"to_sparse_{lay}")(
        *([(1, 1)] if lay.startswith("b") else []))) for lay in ("csr", "csc", "bsr", "bsc")},
    "sparse_mask sizes": lambda t: t.ones(3, 2, 2).sparse_mask(t.ones(3, 2).to_sparse()),
    **{f"narrow_copy {name}": (lambda t, args=args: t.sparse_coo_tensor(*UNCOALESCED, (3, 2)).narrow_copy(*args))
       for name, args in (("negative dim", (-1, 1, 1)), ("dim", (2, 0, 1)), ("range", (0, 2, 2)),
                          ("negative start", (0, -1, 1)), ("negative length", (0, 0, -1)))},
    "narrow_copy of csr": lambda t: t.eye(2).to_sparse_csr().narrow_copy(0, 0, 1),
    "t of a hybrid csr": lambda t: d4(t).to_sparse_csr(dense_dim=2).t(),
    "t of a hybrid 3-D coo": lambda t: h3(t).t(),
    "div of a hybrid csr": lambda t: csr3(t) / 2,
    "hybrid bsr * dense": lambda t: t.arange(8.0).reshape(2, 2, 2).to_sparse_bsr((1, 2), dense_dim=1)
    * t.ones(2, 2, 2),
    "bsr * dense": lambda t: t.eye(2).to_sparse_bsr((1, 1)) * t.ones(2, 2),
    "hybrid csr * broadcast": lambda t: csr3(t) * t.tensor([10.0, 100.0]),
    "csr * broadcast": lambda t: t.eye(2).to_sparse_csr() * t.tensor([1.0, 2.0]),
    "csc * dense": lambda t: t.eye(2).to_sparse_csc() * t.ones(2, 2),
    "hybrid csc * dense": lambda t: t.tensor(D3).to_sparse_csc(dense_dim=1) * t.ones(3, 2, 2),
    "bsc * dense": lambda t: t.eye(2).to_sparse_bsc((1, 1)) * t.ones(2, 2),
    # products: every mm / matmul / @ of a hybrid tensor is PyTorch's error
    "mm of a vector": lambda t: (t.mm(t.eye(2).to_sparse(), t.ones(2))),
    "sparse.mm of a vector (csr)": lambda t: t.sparse.mm(t.eye(2).to_sparse_csr(), t.ones(2)),
    **{f"{name} {op} {side}": (lambda t, a=a, f=f, side=side, shape=shape:
                               f(t, a(t), t.ones(*shape)) if side == "sparse first" else f(t, t.ones(*shape), a(t)))
       for name, a in (("coo h2", h2), ("coo h3", h3), ("csr h3", csr3),
                       ("bsr h3", lambda t: t.sparse_bsr_tensor([0, 1, 2], [0, 1], t.ones(2, 1, 1, 2), (2, 2, 2))))
       for op, f in (("@", lambda t, a, b: a @ b), ("mm", lambda t, a, b: t.mm(a, b)),
                     ("sparse.mm", lambda t, a, b: t.sparse.mm(a, b)), ("Tensor.matmul", lambda t, a, b: a.matmul(b)))
       for side, shape in (("sparse first", (2, 2)), ("dense first", (2, 2)), ("sparse first", (2,)))
       if not (side == "dense first" and op == "sparse.mm")},
}


def _convert(t, src: str, dst: str, arg: str):
    """A sparse eye(2) of layout ``src`` to ``dst`` with ``arg`` given, by to_sparse(layout=)
    and by to_sparse_<dst>() where it takes the argument: PyTorch names the two differently."""
    s = {"coo": t.eye(2).to_sparse(), "csr": t.eye(2).to_sparse_csr(), "bsr": t.eye(2).to_sparse_bsr((1, 1))}[src]
    given = {"dense_dim": 0} if arg == "dense_dim" else {"blocksize": (1, 1)}
    layout = getattr(t, "sparse_coo" if dst == "coo" else f"sparse_{dst}")
    calls = [lambda: s.to_sparse(layout=layout, **({"blocksize": (1, 1)} if dst == "bsr" else {}), **given)]
    if dst != "coo":  # to_sparse_coo() takes neither
        calls.append(lambda: getattr(s, f"to_sparse_{dst}")(*([(1, 1)] if dst == "bsr" else []), **given))
    out = []
    for call in calls:
        try:
            out.append(repr(call()))
        except Exception as e:
            out.append(f"{type(e).__name__}: {e}")
    return out


def _run(lib, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's "Sparse CSR tensor support is in beta state"
        try:
            return repr(fn(lib))
        except Exception as e:
            return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("case", list(CASES))
def test_hybrid_tensors_print_and_compute_as_pytorch(torch_ref, case):
    assert _run(scalargrad, CASES[case]) == _run(torch_ref, CASES[case])


def test_sparse_mask_of_a_dense_mask_is_pytorchs_missing_kernel(torch_ref):
    for lib in (scalargrad, torch_ref):
        with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::sparse_mask' with arguments from the "
                                                      r"'CPU' backend\."):
            lib.ones(2).sparse_mask(lib.ones(2))


def test_item_of_a_compressed_tensor_is_pytorchs_missing_kernel(torch_ref):
    for lib in (scalargrad, torch_ref):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for s in (lib.eye(1).to_sparse_csr(), lib.ones(1, 1, 1).to_sparse_bsr((1, 1), dense_dim=1)):
                with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::_local_scalar_dense' with "
                                                              r"arguments from the 'SparseCsrCPU' backend\."):
                    s.item()
            assert lib.ones(1, 1, 1).to_sparse(1).item() == 1.0


@pytest.mark.parametrize("case", list(ERRORS))
def test_hybrid_errors_are_pytorchs(torch_ref, case):
    ours, theirs = _run(scalargrad, ERRORS[case]), _run(torch_ref, ERRORS[case])
    assert theirs.startswith(("RuntimeError", "IndexError", "TypeError")), theirs
    assert ours == theirs


REFUSED = {
    # PyTorch builds these (when every batch has as many elements), scalargrad has no batch dimensions
    "batch dimensions": (lambda t: t.ones(2, 2, 2).to_sparse_csr(), "to_sparse_csr with batch dimensions"),
    "batched ctor": (lambda t: t.sparse_csr_tensor([[0, 1], [0, 1]], [[0], [0]], [[1.0], [2.0]], (2, 1, 1)),
                     "sparse_csr_tensor with batch dimensions"),
    # PyTorch accepts a size that does not match the values unchecked (then fails or reads garbage)
    "size against values": (lambda t: t.sparse_csr_tensor([0, 1, 2], [0, 1], [[1.0, 2.0], [3.0, 4.0]], (2, 2, 3)),
                            "does not end in the values' dense shape"),
    "dimensionality unchecked": (lambda t: t.sparse_bsr_tensor([0, 1], [0], t.ones(1, 1, 1, 2), (1, 1)),
                                 r"sparse_bsr_tensor of size \(1, 1\) with values of shape"),
    # PyTorch's sum of two hybrid CSR tensors flattens the values (garbage): refused
    "hybrid csr + csr": (lambda t: csr3(t) + csr3(t), "add of torch.sparse_csr and torch.sparse_csr tensors"),
    "dense + bsr": (lambda t: t.ones(2, 2) + t.eye(2).to_sparse_bsr((1, 1)), "dense \\+ a torch.sparse_bsr"),
    "dense + hybrid csr": (lambda t: t.ones(2, 2, 2) + csr3(t), "dense \\+ a hybrid torch.sparse_csr"),
    "sum(keepdim=True)": (lambda t: h3(t).sum(0, keepdim=True), r"sum\(keepdim=True\)"),
    "sum over a dimension of csr": (lambda t: csr3(t).sum(0), "sum over dimensions"),
    "sparse_mask of a sparse tensor": (lambda t: h3(t).sparse_mask(h3(t)), "Tensor.sparse_mask on a torch.sparse_coo"),
    "sparse_mask of a tensor that requires grad": (lambda t: t.ones(2, 2, 2, requires_grad=True).sparse_mask(h3(t)),
                                                   "no sparse gradients"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_scalargrad_does_not_build_is_refused_by_name(case):
    fn, match = REFUSED[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Unsupported, match=match):
            fn(scalargrad)
