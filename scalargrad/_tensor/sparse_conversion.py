"""Conversions of sparse tensors: ``to_dense``, ``coalesce`` and ``to_sparse`` / ``to_sparse_coo``
/ ``csr`` / ``csc`` / ``bsr`` / ``bsc`` between PyTorch 2.13's layouts, from dense tensors and from
sparse ones, in PyTorch's order of entries (row-major for COO and CSR, column-major for CSC, block
by block for BSR and BSC) and with its rules (explicit zeros kept, a block stored where any value
is). Duplicates of an uncoalesced COO tensor are summed in storage order, each sum rounded once.
"""

from __future__ import annotations

from .._base.dtypes import int64, round_list
from .._base.errors import Unsupported
from .._base.grad_mode import state as grad_state
from .._base.layout import contiguous_strides, numel
from . import sparse as S
from .factories import from_values
from .sparse import (
    BLOCKED,
    C_NAME,
    ROW_COMPRESSED,
    SparseTensor,
    compressed_blocks,
    coo_entries,
    new_sparse,
    sparse_coo,
)
from .tensor import Tensor, flat

__all__ = ["to_dense", "coalesce", "to_sparse", "to_layout", "compressed_from", "coo_from", "no_grad_input"]


def no_grad_input(x: Tensor, what: str) -> None:
    """scalargrad's refusal of a dense operand that requires grad where PyTorch would record a
    sparse gradient."""
    if x._rg and grad_state.enabled:
        raise Unsupported(f"{what} of a tensor that requires grad", "scalargrad has no sparse gradients")


def to_dense(x: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """The dense tensor: duplicates of a COO tensor summed in storage order; a hybrid tensor's
    elements are its dense blocks."""
    if not isinstance(x, SparseTensor):
        return x
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    dt = x._dt
    out = [dt.round(0)] * x.numel()
    if x._lay is sparse_coo:
        strides = contiguous_strides(x._size[:x.sparse_dim()])
        block = numel(x._size[x.sparse_dim():])
        for index, vs in coo_entries(x):
            at = sum(i * s for i, s in zip(index, strides)) * block
            out[at:at + block] = round_list(dt, [a + b for a, b in zip(out[at:at + block], vs)])
    else:
        bh, bw = S.block_shape(x)
        d = numel(S.dense_shape(x))
        row = bw * d  # one row of a block: bw elements of d numbers each, contiguous in the dense tensor
        ncols = x._size[1]
        for r, c, vs in compressed_blocks(x):
            for i in range(bh):
                at = ((r * bh + i) * ncols + c * bw) * d
                out[at:at + row] = vs[i * row:(i + 1) * row]
    return from_values(out, x._size, dt)


def coalesce(x: SparseTensor) -> SparseTensor:
    """Indices sorted, duplicates summed (in storage order, each sum rounded once)."""
    x._need(sparse_coo, "coalesce")
    if x._coal:
        return x
    strides = contiguous_strides(x._size[:x.sparse_dim()])
    dt = x._dt
    merged: dict = {}
    for index, vs in coo_entries(x):
        key = sum(i * s for i, s in zip(index, strides))
        if key in merged:
            merged[key] = (index, round_list(dt, [a + b for a, b in zip(merged[key][1], vs)]))
        else:
            merged[key] = (index, vs)
    return coo_from(x, [merged[k] for k in sorted(merged)], True)


def coo_from(like, entries: list, coalesced: bool, size=None) -> SparseTensor:
    """A COO tensor of ``like``'s size and dtype (or ``size``) holding ``entries``."""
    size = like._size if size is None else size
    sd = len(entries[0][0]) if entries else like.sparse_dim()
    nnz = len(entries)
    ind = from_values([e[0][d] for d in range(sd) for e in entries], (sd, nnz), int64)
    dense_shape = tuple(size[sd:])
    vals = from_values([v for e in entries for v in e[1]], (nnz,) + dense_shape, like.dtype)
    return new_sparse(sparse_coo, size, (ind,), vals, coalesced or nnz < 2)


def _dense_to_coo(x: Tensor, sparse_dim, dense_dim) -> SparseTensor:
    """Dense to COO with ``sparse_dim`` sparse dimensions (``to_sparse(k)``), or all but
    ``dense_dim`` (``to_sparse(dense_dim=)``): an index is stored where any number of its dense
    block is nonzero (NaN is; -0.0 is not), as PyTorch's conversion does."""
    nd = x._t.ndim
    if dense_dim is not None:
        if not 0 <= dense_dim <= nd:
            raise RuntimeError(f"dense_to_sparse: dense_dim argument must be in [0,{nd}] range, but {dense_dim} is "
                               "given")
        if dense_dim == nd and nd > 0:
            raise RuntimeError("dense_to_sparse: dense_dim argument must be !=self.dim() when self.dim()>0")
        sparse_dim = nd - dense_dim
    k = nd if sparse_dim is None else sparse_dim
    if not 0 <= k <= nd:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{nd}] range, but {k} is given")
    if k == 0 and nd > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    shape = tuple(x._t.shape)
    vals = flat(x)
    block = numel(shape[k:])
    strides = contiguous_strides(shape[:k])
    entries = []
    for p in range(numel(shape[:k])):
        vs = vals[p * block:(p + 1) * block]
        if any(v != 0 for v in vs):
            entries.append((tuple((p // st) % n for st, n in zip(strides, shape[:k])), vs))
    probe = new_sparse(sparse_coo, shape, (from_values([], (k, 0), int64),), x)
    return coo_from(probe, entries, True)


def _blocksize(blocksize, what: str) -> tuple:
    if isinstance(blocksize, int):
        return blocksize, blocksize
    bs = tuple(blocksize)
    if len(bs) != 2:
        raise RuntimeError(f"{what}: blocksize needs to be a tuple of size 2, but got {len(bs)}")
    return bs


def _dense_to_compressed(x: Tensor, layout, blocksize, dense_dim, what: str) -> SparseTensor:
    """Dense to a compressed layout: the first two dimensions sparse, ``dense_dim`` dense ones
    after them (no batch dimensions here); a block is stored where any of its numbers is nonzero."""
    name, nd = layout.name, x._t.ndim
    dd = 0 if dense_dim is None else dense_dim
    if layout in BLOCKED and nd == 0:  # PyTorch reads size(-2 - dense_dim) first
        raise IndexError(f"Dimension specified as {-2 - dd} but tensor has no dimensions")
    if layout in BLOCKED and not -nd <= -2 - dd < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {-2 - dd})")
    if dense_dim is not None and not 0 <= dd <= nd - 2:
        raise RuntimeError(f"{what}: dense_dim argument must be in [0,{nd - 2}] range, but {dd} is given")
    if nd < 2:
        raise Unsupported(f"to_{name} of a {nd}-D tensor", "a compressed sparse tensor has two sparse dimensions")
    if nd - 2 - dd:
        raise Unsupported(f"to_{name} with batch dimensions", "scalargrad's compressed sparse tensors have none")
    bh, bw = _blocksize(blocksize, what) if layout in BLOCKED else (1, 1)
    h, w = x._t.shape[:2]
    if h % bh or w % bw:
        raise RuntimeError(f"{what}: tensor sparse size ({h},{w}) must be divisible by given blocksize "
                           f"({bh},{bw})")
    dense = tuple(x._t.shape[2:])
    d = numel(dense)
    vals = flat(x)
    blocks = []
    for r in range(h // bh):
        for c in range(w // bw):
            vs = [v for i in range(bh) for j in range(bw)
                  for v in vals[((r * bh + i) * w + c * bw + j) * d:((r * bh + i) * w + c * bw + j + 1) * d]]
            if any(v != 0 for v in vs):
                blocks.append((r, c, vs))
    return compressed_from(layout, tuple(x._t.shape), blocks, (bh, bw), x._t.dtype)


def compressed_from(layout, size: tuple, blocks: list, block: tuple, dt) -> SparseTensor:
    """A compressed tensor of ``size`` (two sparse dimensions, then the dense ones) holding
    ``blocks`` [(block row, block column, values)] (any order)."""
    row = layout in ROW_COMPRESSED
    blocks = sorted(blocks, key=lambda b: (b[0], b[1]) if row else (b[1], b[0]))
    n = size[0] // block[0] if row else size[1] // block[1]
    comp = [0] * (n + 1)
    for b in blocks:
        comp[(b[0] if row else b[1]) + 1] += 1
    for i in range(n):
        comp[i + 1] += comp[i]
    plain = [b[1] if row else b[0] for b in blocks]
    shape = (len(blocks),) + (block if layout in BLOCKED else ()) + tuple(size[2:])
    vals = from_values([v for b in blocks for v in b[2]], shape, dt)
    S.warn_beta(layout)
    return new_sparse(layout, size, (from_values(comp, (n + 1,), int64), from_values(plain, (len(plain),), int64)),
                      vals)


def to_sparse(x: Tensor, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> SparseTensor:
    """``Tensor.to_sparse``: PyTorch's two overloads, ``to_sparse(sparse_dim)`` (COO) and
    ``to_sparse(*, layout, blocksize, dense_dim)`` (COO unless ``layout`` says otherwise)."""
    if sparse_dim is not None and (layout is not None or blocksize is not None or dense_dim is not None):
        raise TypeError("to_sparse() takes 0 positional arguments but 1 was given")
    return to_layout(x, sparse_dim, sparse_coo if layout is None else layout, blocksize, dense_dim, "dense_to_sparse")


def _convert_name(src, layout, via_to_sparse: bool) -> str:
    """How PyTorch's messages name the conversion from sparse layout ``src`` to ``layout``,
    called as ``to_sparse(layout=...)`` or as ``to_sparse_csr()`` and the like."""
    target = "sparse" if via_to_sparse or layout is sparse_coo else layout.name
    if src is layout:
        return f"to_{target}"
    return f"{'sparse_coo' if via_to_sparse else 'coo'}_to_{target}" if src is sparse_coo else \
        f"sparse_compressed_to_{target}"


def to_layout(x: Tensor, sparse_dim, layout, blocksize, dense_dim, what: str) -> SparseTensor:
    """``x`` in ``layout``; ``what`` names the conversion from a dense tensor in PyTorch's messages."""
    if layout not in S.LAYOUTS:
        raise Unsupported(f"to_sparse(layout={layout!r})")
    if not isinstance(x, SparseTensor):
        no_grad_input(x, f"to_{layout.name}")
        if layout is sparse_coo:
            if blocksize is not None:
                raise RuntimeError(f"{what}: conversion from Strided to Sparse with blocksize argument given is not "
                                   "supported")
            return _dense_to_coo(x, sparse_dim, dense_dim)
        if layout in BLOCKED and blocksize is None:
            raise RuntimeError(f"{what}: conversion from Strided to {C_NAME[layout.name]} without blocksize "
                               "argument given is not supported")
        if layout not in BLOCKED and blocksize is not None:
            raise RuntimeError(f"{what}: conversion from Strided to {C_NAME[layout.name]} with blocksize argument "
                               "given is not supported")
        return _dense_to_compressed(x, layout, blocksize, dense_dim, what)
    src = x._lay
    convert = (f"{_convert_name(src, layout, what == 'dense_to_sparse')}: conversion from {C_NAME[src.name]} to "
               f"{C_NAME[layout.name]}")
    if dense_dim is not None:
        raise RuntimeError(f"{convert} with dense_dim argument given is not supported")
    if blocksize is not None and layout not in BLOCKED:
        raise RuntimeError(f"{convert} with blocksize argument given is not supported")
    if sparse_dim is not None and sparse_dim != x.sparse_dim():
        raise RuntimeError(f"{convert} with sparse_dim argument !={'self.sparse_dim()' if src is sparse_coo else 2} "
                           "is not supported")
    if src is layout and (layout not in BLOCKED or blocksize is None
                          or tuple(_blocksize(blocksize, "to_sparse")) == S.block_shape(x)):
        return x
    d = numel(S.dense_shape(x)) if src is not sparse_coo else numel(x._size[x.sparse_dim():])
    if layout is sparse_coo:
        if src in BLOCKED:
            bh, bw = S.block_shape(x)
            entries = [((r * bh + i, c * bw + j), vs[(i * bw + j) * d:(i * bw + j + 1) * d])
                       for r, c, vs in compressed_blocks(x) for i in range(bh) for j in range(bw)]
        else:
            entries = [((r, c), vs) for r, c, vs in compressed_blocks(x)]
        return coo_from(x, entries, src is S.sparse_csr)
    if layout in (S.sparse_csr, S.sparse_csc) and src in BLOCKED:
        raise RuntimeError(f"sparse_compressed_to_sparse_{layout.name[7:]}: expected SparseCsr or SparseCsc layout "
                           f"but got {C_NAME[src.name]}")
    if layout in BLOCKED:
        return _to_blocks(x, layout, blocksize)
    if src is sparse_coo:
        if x.sparse_dim() != 2:
            raise RuntimeError(f"coo_to_{layout.name}: conversion from Sparse to {C_NAME[layout.name]} for input "
                               "tensors with sparse_dim()!=2 is not supported")
        blocks = [(i[0], i[1], vs) for i, vs in coo_entries(coalesce(x))]
    else:
        blocks = compressed_blocks(x)
    return compressed_from(layout, x._size, blocks, (1, 1), x._dt)


def _to_blocks(x: SparseTensor, layout, blocksize) -> SparseTensor:
    """A sparse tensor to BSR or BSC: a block is stored where any value is stored (an explicit
    zero too), as PyTorch's conversion does; blocks of the same size are only reordered."""
    src = x._lay
    if blocksize is None:
        raise Unsupported(f"to_{layout.name} without a blocksize", S._HINT)
    bh, bw = _blocksize(blocksize, f"to_{layout.name}")
    if src in BLOCKED:
        if (bh, bw) != S.block_shape(x):
            if src is not layout:
                raise Unsupported(f"to_{layout.name} of a torch.{src.name} tensor with another blocksize", S._HINT)
            raise RuntimeError(f"to_{layout.name}: conversion from {C_NAME[src.name]} to {C_NAME[layout.name]} with "
                               f"blocksize changed from {list(S.block_shape(x))} to {[bh, bw]} is not supported")
        return compressed_from(layout, x._size, compressed_blocks(x), (bh, bw), x._dt)
    if src is sparse_coo:
        if x.sparse_dim() != 2:
            raise Unsupported(f"to_{layout.name} of a COO tensor without two sparse dimensions", S._HINT)
        entries = [(i[0], i[1], vs) for i, vs in coo_entries(coalesce(x))]
    else:
        entries = compressed_blocks(x)
    h, w = x._size[:2]
    if h % bh or w % bw:
        raise RuntimeError(f"sparse_compressed_to_{layout.name}: tensor sparse size ({h},{w}) must be divisible by "
                           f"given blocksize ({bh},{bw})")
    d = numel(x._size[2:])
    blocks: dict = {}
    zero = x._dt.round(0)
    for r, c, vs in entries:
        block = blocks.setdefault((r // bh, c // bw), [zero] * (bh * bw * d))
        at = ((r % bh) * bw + c % bw) * d
        block[at:at + d] = vs
    return compressed_from(layout, x._size, [(r, c, vs) for (r, c), vs in blocks.items()], (bh, bw), x._dt)
