"""What sparse tensors do: PyTorch 2.13's constructors (``torch.sparse_coo_tensor``, ``sparse_csr_tensor``...),
the conversions of ``sparse_conversion.py`` bound as methods, and the ops that are exact and cheap:
scaling by a number or by the dense elements at the stored positions, negation, ``abs``, ``relu``,
dtype conversions, ``t()``, adding and subtracting two COO tensors, ``dense +/- sparse``,
summing (all elements, or over dimensions of a COO tensor), ``narrow_copy``, ``dense.sparse_mask``,
``torch.sparse.spdiags``, and products with a dense matrix either way (``torch.mm``, ``matmul``,
``@``, ``spmm``, ``torch.sparse.mm``; PyTorch has none of a hybrid tensor, whose errors are
reproduced). The tensors themselves, their invariants and their print are in ``sparse.py``;
everything not here is refused there, by name.

Arithmetic on values reuses the dense ops on the values tensor (``s * 2`` is ``values * 2``, with
its dtype promotion and rounding); ``coalesce`` and ``+`` round each sum of two numbers once, as
PyTorch's kernels do, in PyTorch's order (storage order; ``+`` walks both index lists as if sorted,
as PyTorch's merge does even for uncoalesced operands); products round each output element once
from an exactly summed dot product (PyTorch's kernels accumulate in an order and with fused
multiply-adds that depend on the processor, so they agree within the summation bound).
"""

from __future__ import annotations

import functools

from .._base.dtypes import TensorType, int64, promote_types, round_list
from .._base.errors import Unsupported
from .._base.exact_sum import rounded_dot
from .._base.layout import contiguous_strides, numel
from .._ops import products as P
from . import sparse as S
from .factories import device, from_values, strided, use_device
from .operands import broadcast_shapes
from .sparse import (
    BLOCKED,
    C_NAME,
    ROW_COMPRESSED,
    SparseRead,
    SparseTensor,
    compressed_blocks,
    coo_entries,
    dense_tensor,
    index_tensor,
    ints,
    new_sparse,
    sparse_coo,
    sparse_size,
)
from .sparse_conversion import coalesce, coo_from, no_grad_input, to_dense, to_layout, to_sparse
from .tensor import Tensor, flat, make

__all__ = ["sparse_coo_tensor", "sparse_compressed_tensor", "sparse_csr_tensor", "sparse_csc_tensor",
           "sparse_bsr_tensor", "sparse_bsc_tensor", "to_dense", "to_sparse", "coalesce", "mm", "rmm", "sparse_mm",
           "sparse_sum", "spdiags", "install", "DISPATCH", "REFLECTED", "dispatching"]


def _check_requires_grad(requires_grad, what: str) -> None:
    if requires_grad:
        raise Unsupported(f"{what}(requires_grad=True)", "scalargrad has no sparse gradients")


def _check_device(spec, what: str) -> None:
    """A constructor's ``device``: the CPU; another is PyTorch's error in a CPU-only build
    (the sparse constructors word it so for every device); a meta tensor is refused by name."""
    if spec is None:
        return
    kind = (spec if isinstance(spec, device) else device(spec)).type
    if kind == "meta":
        raise Unsupported(f"{what}(device='meta')", "scalargrad's sparse tensors hold their values")
    if kind != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")


# ---------------------------------------------------------------- constructors

def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None) -> SparseTensor:
    """``torch.sparse_coo_tensor``: indices ``(sparse_dim, nnz)``, values ``(nnz, *dense_shape)``."""
    _check_requires_grad(requires_grad, "sparse_coo_tensor")
    _check_device(device, "sparse_coo_tensor")
    S.warn_unchecked(check_invariants)
    ind = index_tensor(indices, "sparse_coo_tensor")
    vals = dense_tensor(values, dtype, "sparse_coo_tensor")
    if vals._t.ndim == 0:
        vals = from_values(flat(vals), (1,), vals._t.dtype)
    if ind._t.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(ind._t.shape)}")
    sd, nnz = ind._t.shape
    if vals._t.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {vals._t.shape[0]}")
    dense_shape = tuple(vals._t.shape[1:])
    if size is None:
        idx = ints(ind)
        size = tuple(max(idx[d * nnz:(d + 1) * nnz], default=-1) + 1 for d in range(sd)) + dense_shape
    size = sparse_size(size, "sparse_coo_tensor")
    if len(size) != sd + len(dense_shape):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sd}, dense_dim = {len(dense_shape)}")
    if tuple(size[sd:]) != dense_shape:
        raise RuntimeError(f"values has incorrect size, expected {list(size[:sd]) and [nnz] + list(size[sd:])}, "
                           f"got {list(vals._t.shape)}")
    s = new_sparse(sparse_coo, size, (ind,), vals, nnz < 2 or bool(is_coalesced))
    if check_invariants:
        S.check_coo(s)
    return s


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory=False, requires_grad=False, check_invariants=None) -> SparseTensor:
    """``torch.sparse_compressed_tensor`` (two sparse dimensions and any dense ones; no batch)."""
    return _compressed_tensor(compressed_indices, plain_indices, values, size, dtype, layout, requires_grad,
                              check_invariants, "sparse_compressed_tensor", device)


def _compressed_tensor(compressed_indices, plain_indices, values, size, dtype, layout, requires_grad,
                       check_invariants, what: str, device=None) -> SparseTensor:
    """A compressed tensor of ``layout``, checked; ``what`` names the constructor in messages."""
    _check_requires_grad(requires_grad, what)
    _check_device(device, what)
    S.warn_unchecked(check_invariants)
    if layout not in S.LAYOUTS[1:]:
        raise RuntimeError(f"{what}: expected layout to be one of the sparse compressed layouts, got {layout!r}")
    comp, plain = index_tensor(compressed_indices, what), index_tensor(plain_indices, what)
    vals = dense_tensor(values, dtype, what)
    blocked = layout in BLOCKED
    if comp._t.ndim != 1 or plain._t.ndim != 1:
        raise Unsupported(f"{what} with batch dimensions", "scalargrad's compressed sparse tensors have none")
    if vals._t.ndim < (3 if blocked else 1):
        raise RuntimeError(f"values must have dimensionality > sum of batch and block dimensionalities (=0 + "
                           f"{2 if blocked else 0}) but got {vals._t.ndim}")
    bh, bw = tuple(vals._t.shape[1:3]) if blocked else (1, 1)
    dense = tuple(vals._t.shape[3 if blocked else 1:])
    row = layout in ROW_COMPRESSED
    if size is None:
        p = ints(plain)
        ncomp, nplain = comp._t.shape[0] - 1, max(p, default=-1) + 1
        size = ((ncomp * bh, nplain * bw) if row else (nplain * bh, ncomp * bw)) + dense
    size = sparse_size(size, what)
    if len(size) != 2 + len(dense):
        if check_invariants:
            raise RuntimeError(f"tensor dimensionality must be sum of batch, base, and dense dimensionalities (=0 + 2 "
                               f"+ {len(dense)}) but got {len(size)}")
        raise Unsupported(f"{what} of size {size} with values of shape {tuple(vals._t.shape)}",
                          "scalargrad's compressed sparse tensors have no batch dimensions, and their size must "
                          "match their values' (PyTorch accepts it unchecked)")
    if tuple(size[2:]) != dense:
        raise Unsupported(f"{what} whose size {size} does not end in the values' dense shape {dense}",
                          "PyTorch accepts it unchecked")
    for d, b in enumerate((bh, bw)):
        if b and size[d] % b:
            raise RuntimeError(f"tensor shape[{d}] (={size[d]}) must be divisible with blocksize[{d}] (={b}) as "
                               "defined by values shape")
    n = size[0] // max(bh, 1) if row else size[1] // max(bw, 1)
    cname, pname = ("crow_indices", "col_indices") if row else ("ccol_indices", "row_indices")
    if comp._t.shape[0] != n + 1:
        raise RuntimeError(f"{cname}.shape[-1] must be equal to the number of {'rows' if row else 'columns'} + 1 "
                           f"(={n + 1}), but got {comp._t.shape[0]}")
    if plain._t.shape[0] != vals._t.shape[0]:
        raise RuntimeError(f"{pname}.shape[-1] must be equal to nnz (={vals._t.shape[0]}) as defined by "
                           f"values.shape[0], but got {plain._t.shape[0]}")
    s = new_sparse(layout, size, (comp, plain), vals)
    if check_invariants:
        S.check_compressed(s)
    S.warn_beta(layout)
    return s


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None) -> SparseTensor:
    """``torch.sparse_csr_tensor``: values ``(nnz, *dense_shape)``."""
    return _compressed_tensor(crow_indices, col_indices, values, size, dtype, S.sparse_csr, requires_grad,
                              check_invariants, "sparse_csr_tensor", device)


def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None) -> SparseTensor:
    """``torch.sparse_csc_tensor``: values ``(nnz, *dense_shape)``."""
    return _compressed_tensor(ccol_indices, row_indices, values, size, dtype, S.sparse_csc, requires_grad,
                              check_invariants, "sparse_csc_tensor", device)


def sparse_bsr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None) -> SparseTensor:
    """``torch.sparse_bsr_tensor``: values ``(nnz, block rows, block columns, *dense_shape)``."""
    return _compressed_tensor(crow_indices, col_indices, values, size, dtype, S.sparse_bsr, requires_grad,
                              check_invariants, "sparse_bsr_tensor", device)


def sparse_bsc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None) -> SparseTensor:
    """``torch.sparse_bsc_tensor``: values ``(nnz, block rows, block columns, *dense_shape)``."""
    return _compressed_tensor(ccol_indices, row_indices, values, size, dtype, S.sparse_bsc, requires_grad,
                              check_invariants, "sparse_bsc_tensor", device)


def spdiags(diagonals, offsets, shape, layout=None) -> SparseTensor:
    """``torch.sparse.spdiags``: row ``i`` of ``diagonals`` along diagonal ``offsets[i]`` (the
    element of column ``c`` taken from ``diagonals[i, c]``), in PyTorch's order (diagonal by
    diagonal, uncoalesced), with its length rule: ``min(offset + rows, len)`` below the main
    diagonal, ``min(columns, len) - offset`` above it, which can reach past the shape (PyTorch
    then stores those indices unchecked, as here: an op reading them refuses)."""
    for name, pos, arg in (("diagonals", 1, diagonals), ("offsets", 2, offsets)):
        if not isinstance(arg, Tensor):
            raise TypeError(f"_spdiags(): argument '{name}' (position {pos}) must be Tensor, not {type(arg).__name__}")
        if isinstance(arg, SparseTensor):
            raise Unsupported(f"torch.sparse.spdiags of a torch.{arg._lay.name} {name} tensor", S._HINT)
    if diagonals._t.ndim not in (1, 2):
        raise RuntimeError("Diagonals must be vector or matrix")
    if len(shape) != 2:
        raise RuntimeError("Output shape must be 2d")
    if offsets._t.ndim > 1:
        raise RuntimeError("Offsets must be scalar or vector")
    offs = ints(offsets) if offsets._t.dtype is int64 else flat(offsets)
    n_diag, length = (1, diagonals._t.shape[0]) if diagonals._t.ndim == 1 else tuple(diagonals._t.shape)
    if n_diag != len(offs):
        raise RuntimeError(f"Number of diagonals ({n_diag}) does not match the number of offsets ({len(offs)})")
    if layout is not None and layout not in (sparse_coo, S.sparse_csc, S.sparse_csr):
        raise RuntimeError(f"Only output layouts (Sparse, SparseCsc, SparseCsr) are supported, got "
                           f"{C_NAME[layout.name]}")
    if offsets._t.dtype is not int64:
        raise RuntimeError(f"Offset Tensor must have dtype Long but got {offsets._t.dtype.short}")
    if len(set(offs)) != len(offs):
        raise RuntimeError("Offset tensor contains duplicate values")
    no_grad_input(diagonals, "torch.sparse.spdiags")
    rows, cols = (int(n) for n in shape)
    dt, dv = diagonals._t.dtype, flat(diagonals)
    if rows == 0 or cols == 0:
        counts = [0] * n_diag
    else:
        counts = [min(k + rows, length) if k <= 0 else min(cols, length) - k for k in offs]
    if sum(counts) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {sum(counts)}: [2, {sum(counts)}]")
    if min(counts, default=0) < 0:  # PyTorch's kernel then writes outside its buffers
        raise Unsupported("torch.sparse.spdiags with an offset outside the diagonals' reach",
                          "PyTorch's result is unspecified")
    r, c, v = [], [], []
    for i, (k, n) in enumerate(zip(offs, counts)):
        first = max(k, 0)
        r += range(first - k, first - k + n)
        c += range(first, first + n)
        v += dv[i * length + first:i * length + first + n]
    nnz = len(v)
    s = new_sparse(sparse_coo, (rows, cols), (from_values(r + c, (2, nnz), int64),), from_values(v, (nnz,), dt),
                   nnz < 2)
    return s if layout in (None, sparse_coo) else to_layout(s, None, layout, None, None, "spdiags")


# ---------------------------------------------------------------- arithmetic


def _scalar(other, what: str, x: SparseTensor):
    """``other`` if it is a number or a 0-dim dense tensor (what scaling takes), else a refusal."""
    if isinstance(other, (int, float)) and not isinstance(other, complex):
        return other
    if isinstance(other, Tensor) and not isinstance(other, SparseTensor) and other._t.ndim == 0:
        no_grad_input(other, what)
        return other
    kind = f"a torch.{other._lay.name} tensor" if isinstance(other, SparseTensor) else f"a {type(other).__name__}"
    raise Unsupported(f"{what} of a torch.{x._lay.name} tensor by {kind}", S._HINT)


def mul(x: SparseTensor, other) -> SparseTensor:
    """``s * number`` and ``s * dense``: the values scaled, or multiplied by the dense elements
    at their positions (the dense op on the values: its promotion and rounding); the structure
    and the coalesced flag kept. Of the compressed layouts PyTorch multiplies only CSR by a dense
    tensor, of the same shape."""
    if isinstance(other, Tensor) and not isinstance(other, SparseTensor) and other._t.ndim:
        if x._lay in BLOCKED:
            raise RuntimeError(f"empty_sparse_compressed expected sparse compressed (non-block) tensor layout but got "
                               f"{C_NAME[x._lay.name]}")
        if x._lay is S.sparse_csc:
            raise RuntimeError("Expected result Tensor to be of format CSR")
        if x._lay is S.sparse_csr and tuple(other._t.shape) != x._size:  # PyTorch's CSR product does not broadcast
            raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                               f"{list(other._t.shape)} but mask has size {list(x._size)}")
        return S.with_values(x, x._vals * _gathered(x, other))
    return S.with_values(x, x._vals * _scalar(other, "mul", x))


def _gathered(x: SparseTensor, other: Tensor, what: str = "mul") -> Tensor:
    """The elements of dense ``other`` (broadcast to ``x``'s shape) where ``x`` stores values,
    shaped as ``x``'s values."""
    no_grad_input(other, what)
    if broadcast_shapes(other._t.shape, x._size) != x._size:  # PyTorch names the dense one a
        raise Unsupported(f"{what} of a torch.{x._lay.name} tensor by a dense tensor of more dimensions", S._HINT)
    pad = (1,) * (len(x._size) - other._t.ndim) + tuple(other._t.shape)
    ov = flat(other)
    ostrides = contiguous_strides(pad)

    def at(pos: tuple) -> float:
        return ov[sum(p * st for p, st, n in zip(pos, ostrides, pad) if n != 1)]

    sd = x.sparse_dim()
    dense_shape = x._size[sd:]
    inner = [tuple((q // st) % n for st, n in zip(contiguous_strides(dense_shape), dense_shape))
             for q in range(numel(dense_shape))]
    if x._lay is sparse_coo:
        out = [at(index + rest) for index, _ in coo_entries(x) for rest in inner]
    else:
        bh, bw = S.block_shape(x)
        out = [at((r * bh + i, c * bw + j) + rest) for r, c, _ in compressed_blocks(x) for i in range(bh)
               for j in range(bw) for rest in inner]
    return from_values(out, x._vals._t.shape, other._t.dtype)


def sparse_mask(self: Tensor, mask) -> SparseTensor:
    """``dense.sparse_mask(mask)``: a sparse tensor of ``mask``'s layout and structure (its
    indices, duplicates and coalesced flag kept) holding ``self``'s elements where ``mask`` stores
    values (its values ignored)."""
    if isinstance(self, SparseTensor):
        raise Unsupported(f"Tensor.sparse_mask of a torch.{self._lay.name} tensor", S._HINT)
    if not isinstance(mask, SparseTensor):  # PyTorch has no such kernel (its message goes on to list its backends)
        raise NotImplementedError("Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend.")
    if tuple(self._t.shape) != mask._size:
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self._t.shape)} "
                           f"but mask has size {list(mask._size)}")
    return S.with_values(mask, _gathered(mask, self, "Tensor.sparse_mask"))


def sub(x: SparseTensor, other, *, alpha=1) -> SparseTensor:
    """``s - t``: ``s + (-t)`` (negation is exact); ``s - dense`` is PyTorch's add error."""
    if not isinstance(other, SparseTensor):
        return add(x, other, alpha=alpha)
    return add(x, neg(other), alpha=alpha)


def rsub(x: SparseTensor, other) -> Tensor:
    """``dense - s``: ``dense + (-s)`` (PyTorch subtracts no compressed tensor from a dense one)."""
    if isinstance(other, Tensor) and x._lay is not sparse_coo:
        raise RuntimeError(f"unsupported tensor layout: {C_NAME[x._lay.name]}")
    return radd(neg(x), other)


def div(x: SparseTensor, other) -> SparseTensor:
    if x._lay is not sparse_coo:
        raise RuntimeError(f"unsupported tensor layout: {C_NAME[x._lay.name]}")
    return S.with_values(x, x._vals / _scalar(other, "div", x))


def neg(x: SparseTensor) -> SparseTensor:
    return S.with_values(x, -x._vals)


def add(x: SparseTensor, other, *, alpha=1) -> SparseTensor:
    """``s + t`` of two COO tensors: PyTorch's merge of the two index lists, walked as if sorted
    (equal indices meet only where both walks are at them), each pair summed and rounded once;
    coalesced when both are."""
    if not isinstance(other, SparseTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if alpha != 1:
        raise Unsupported("add of sparse tensors with alpha", S._HINT)
    if x._lay is not sparse_coo or other._lay is not sparse_coo:
        raise Unsupported(f"add of torch.{x._lay.name} and torch.{other._lay.name} tensors", S._HINT)
    if x._size != other._size:
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(x._size)} != "
                           f"{list(other._size)}")
    if x.sparse_dim() != other.sparse_dim():
        raise RuntimeError(f"add: expected 'self' and 'other' to have same density, but 'self' has {x.sparse_dim()} "
                           f"sparse dimensions while 'other' has {other.sparse_dim()} sparse dimensions")
    dt = promote_types(x._dt, other._dt)
    strides = contiguous_strides(x._size[:x.sparse_dim()])
    a, b = coo_entries(x), coo_entries(other)
    out, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        ka = sum(p * s for p, s in zip(a[i][0], strides)) if i < len(a) else None
        kb = sum(p * s for p, s in zip(b[j][0], strides)) if j < len(b) else None
        if kb is None or (ka is not None and ka < kb):
            out.append((a[i][0], round_list(dt, a[i][1])))
            i += 1
        elif ka is None or kb < ka:
            out.append((b[j][0], round_list(dt, b[j][1])))
            j += 1
        else:
            out.append((a[i][0], round_list(dt, [u + v for u, v in zip(a[i][1], b[j][1])])))
            i, j = i + 1, j + 1
    like = new_sparse(sparse_coo, x._size, x._ind, from_values([], (0,), dt))
    return coo_from(like, out, x._coal and other._coal)


def sparse_sum(input: SparseTensor, dim=None, dtype=None) -> Tensor:
    """``torch.sparse.sum(s)``: the sum of all elements (a dense 0-dim tensor), or over ``dim``
    (see ``tensor_sum``)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("_sparse_sum expected sparse coordinate tensor layout but got Strided")
    input._need(sparse_coo, "coalesce")
    return tensor_sum(input, dim, dtype=dtype)


def tensor_sum(x: SparseTensor, dim=None, keepdim=False, dtype=None) -> Tensor:
    """``s.sum()``: the sum of all stored values (dense; of the coalesced values). Over ``dim``
    of a COO tensor, as PyTorch's ``_sparse_sum``: the dense dimensions summed in the values
    (the dense op), then either every sparse dimension summed (the values' dense sum over their
    rows, in storage order: a dense result) or the summed sparse indices dropped and the
    duplicates this makes summed by ``coalesce`` (storage order, each sum rounded once)."""
    if x._lay is not sparse_coo:
        if dim is not None or keepdim or dtype is not None:
            raise Unsupported(f"sum over dimensions of a torch.{x._lay.name} tensor", S._HINT)
        return x._vals.sum()
    if keepdim:
        raise Unsupported("sum(keepdim=True) of a torch.sparse_coo tensor", S._HINT)
    if dim is None:
        vals = coalesce(x)._vals
        return vals.sum() if dtype is None else vals.sum(dtype=dtype)
    nd = x.ndim
    dims = []
    for d in ([dim] if isinstance(dim, int) else list(dim)):
        if not -max(nd, 1) <= d < max(nd, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                             f"but got {d})")
        d %= max(nd, 1)
        if d in dims:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        dims.append(d)
    if dtype is not None:
        x = S.with_values(x, x._vals.to(dtype))
    sd = x.sparse_dim()
    dense = [d - sd + 1 for d in sorted(dims) if d >= sd]
    vals = x._vals.sum(dense) if dense else x._vals
    if all(d in dims for d in range(sd)):
        return vals.sum(0)
    keep = [d for d in range(sd) if d not in dims]
    idx, nnz = ints(x._ind[0]), x._nnz()
    ind = from_values([idx[d * nnz + k] for d in keep for k in range(nnz)], (len(keep), nnz), int64)
    size = tuple(n for d, n in enumerate(x._size) if d not in dims)
    return coalesce(new_sparse(sparse_coo, size, (ind,), vals, False))


def _product(a: list, b: list, n: int, k: int, m: int, dt) -> list:
    """The ``n x m`` product of row-major ``a`` (n x k) and ``b`` (k x m), zeros of either
    operand skipped (a sparse kernel never reads them), each element rounded once."""
    live = [[c for c in range(k) if a[r * k + c] != 0 or a[r * k + c] != a[r * k + c]] for r in range(n)]
    if dt.kind == "f":
        f32 = dt.name == "float32"
        return [rounded_dot(((a[r * k + c], b[c * m + j]) for c in live[r] if b[c * m + j] != 0
                             or b[c * m + j] != b[c * m + j]), f32) for r in range(n) for j in range(m)]
    return round_list(dt, [sum(a[r * k + c] * b[c * m + j] for c in live[r]) for r in range(n) for j in range(m)])


def _check_product(x: SparseTensor, other, dense_first: bool, op: str) -> None:
    """PyTorch's refusals of a product (``op``: ``"mm"`` for mm/spmm/Tensor.mm, ``"matmul"`` for
    matmul and ``@``, ``"sparse.mm"``), then scalargrad's of what it does not compute."""
    if isinstance(other, SparseTensor) or not isinstance(other, Tensor):
        raise Unsupported(f"a product of a torch.{x._lay.name} tensor and a {type(other).__name__} "
                          "(only sparse @ dense and dense @ sparse)", S._HINT)
    if x.dense_dim() and other._t.ndim in (1, 2):
        raise _hybrid_product_error(x, other._t.ndim, dense_first, op)
    if op != "matmul" and not dense_first and other._t.ndim == 1 and x.ndim == 2:
        if op == "sparse.mm" and x._lay is not sparse_coo:
            raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if x.ndim != 2 or x.dense_dim() or other._t.ndim not in ((2,) if dense_first else (1, 2)):
        raise Unsupported(f"a product of a {x.ndim}-D torch.{x._lay.name} tensor and a {other._t.ndim}-D tensor",
                          S._HINT)
    dt = x._dt
    if dt.kind == "b" or dt.name in ("float16", "bfloat16"):
        raise Unsupported(f"a product of {dt!r} sparse tensors", S._HINT)


def _hybrid_product_error(x: SparseTensor, other_ndim: int, dense_first: bool, op: str) -> Exception:
    """PyTorch 2.13 multiplies no hybrid tensor (one with dense dimensions) with a dense one: its
    error, which depends on the op, the side and the layout."""
    nd, coo = x.ndim, x._lay is sparse_coo
    if dense_first:
        if coo:
            return RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: "
                                f"{x.sparse_dim()}, d0: {nd - 2}, d1: {nd - 1}")
        if op == "matmul":
            return RuntimeError("transpose(): hybrid sparse compressed tensors with dense dimensions are not supported")
        return RuntimeError(f"mat2 must be a matrix, got {nd}-D tensor")
    if op == "matmul":
        if not coo:
            return RuntimeError(f"Sparse {C_NAME[x._lay.name][6:].upper()} tensors do not have strides")
        if nd > 2:
            return RuntimeError("reshape is not implemented for sparse tensors")
        return RuntimeError(f"addmm: matrices expected, got {x.sparse_dim()}D tensor")
    if other_ndim == 1 and (coo or op != "sparse.mm"):
        return IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if not coo:
        return RuntimeError(f"mat1 must be a matrix, got {nd}-D tensor")
    if x.sparse_dim() != 2:
        return RuntimeError(f"addmm: matrices expected, got {x.sparse_dim()}D tensor")
    return RuntimeError(f"addmm: scalar values expected, got {x.dense_dim()}D values")


def mm(x, other, *, _op: str = "mm") -> Tensor:
    """``sparse @ dense`` (``torch.mm``, ``spmm``, ``Tensor.mm``: 2-D @ 2-D; ``matmul`` and ``@``
    also 2-D @ 1-D): each element the exact dot product rounded once (PyTorch's kernel
    accumulates in an order and with fused multiply-adds that depend on the processor). A dense
    matrix that requires grad gets PyTorch's MmBackward0 node (the sparse operand is a constant
    of it)."""
    if not isinstance(x, SparseTensor):
        raise Unsupported("a product of these operands (only sparse @ dense and dense @ sparse)", S._HINT)
    _check_product(x, other, False, _op)
    n, k = x._size
    if other._t.shape[0] != k:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {k}, got {other._t.shape[0]}")
    if other._t.dtype is not x._dt:
        raise RuntimeError(f"expected scalar type {x._dt.short} but found {other._t.dtype.short}")
    m = other._t.shape[1] if other._t.ndim == 2 else 1
    dense = to_dense(x)  # duplicates summed and invariants checked, as the kernel's coalesce does
    out = _product(flat(dense), flat(other), n, k, m, x._dt)
    if other._t.ndim == 1:
        no_grad_input(other, "sparse @ vector")
        return from_values(out, (n,), x._dt)
    return _node(out, (n, m), dense, other)


def matmul(x, other) -> Tensor:
    """``torch.matmul``, ``Tensor.matmul``, ``@``: as ``mm``, with PyTorch's matmul refusals."""
    return mm(x, other, _op="matmul")


def rmm(x: SparseTensor, other, *, _op: str = "mm") -> Tensor:
    """``dense @ sparse`` (2-D): as ``mm``."""
    _check_product(x, other, True, _op)
    n, k = other._t.shape
    m = x._size[1]
    if x._size[0] != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {x._size[0]}x{m})")
    if other._t.dtype is not x._dt:
        raise RuntimeError(f"expected scalar type {other._t.dtype.short} but found {x._dt.short}")
    dense = to_dense(x)
    return _node(_product(flat(other), flat(dense), n, k, m, x._dt), (n, m), other, dense)


def rmatmul(x: SparseTensor, other) -> Tensor:
    """``dense @ sparse`` by ``matmul`` or ``@``."""
    return rmm(x, other, _op="matmul")


def _node(out: list, shape: tuple, a: Tensor, b: Tensor) -> Tensor:
    """The product's tensor: PyTorch's MmBackward0 node over the dense operands when one
    requires grad (its backward multiplies by the other, dense here)."""
    return make(P.Mm, TensorType(a._t.dtype, shape), out, (a, b))


def sparse_mm(mat1, mat2, reduce=None) -> Tensor:
    """``torch.sparse.mm``: as ``mm``, without a graph (PyTorch's SparseAddmmBackward0 is not
    here); of a CSR matrix, ``reduce="sum"`` is the same product, the other reductions refused."""
    if isinstance(mat2, Tensor) and not isinstance(mat2, SparseTensor):
        no_grad_input(mat2, "torch.sparse.mm")
    if reduce is not None and (reduce != "sum" or not isinstance(mat1, SparseTensor) or mat1._lay is not S.sparse_csr):
        raise Unsupported(f"torch.sparse.mm(reduce={reduce!r}) of this operand", S._HINT)
    return mm(mat1, mat2, _op="sparse.mm")


def radd(x: SparseTensor, other, *, alpha=1) -> Tensor:
    """``dense + sparse``: a dense tensor, the values added in storage order, each sum rounded once
    (of the compressed layouts PyTorch adds CSR and CSC without dense dimensions)."""
    if alpha != 1:
        raise Unsupported("add of a dense and a sparse tensor with alpha", S._HINT)
    if not isinstance(other, Tensor):
        return add(x, other)
    if x._lay is not sparse_coo and (x._lay in BLOCKED or x.dense_dim()):  # PyTorch: an internal assert, a crash
        raise Unsupported(f"dense + a {'hybrid ' if x.dense_dim() else ''}torch.{x._lay.name} tensor", S._HINT)
    no_grad_input(other, "add")
    if tuple(other._t.shape) != x._size:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(other._t.shape)} while other has size {list(x._size)} (FYI: "
                           f"{'dense' if x._lay is sparse_coo else 'op2'}-sparse addition does not currently support "
                           "broadcasting)")
    dt = promote_types(other._t.dtype, x._dt)
    out = round_list(dt, flat(other))
    if x._lay is not sparse_coo:
        ncols = x._size[1]
        for r, c, vs in compressed_blocks(x):
            out[r * ncols + c] = dt.round(out[r * ncols + c] + vs[0])
        return from_values(out, x._size, dt)
    strides = contiguous_strides(x._size[:x.sparse_dim()])
    block = numel(x._size[x.sparse_dim():])
    for index, vs in coo_entries(x):
        at = sum(i * s for i, s in zip(index, strides)) * block
        out[at:at + block] = round_list(dt, [a + b for a, b in zip(out[at:at + block], vs)])
    return from_values(out, x._size, dt)


def transpose2d(x: SparseTensor) -> SparseTensor:
    """``s.t()``: COO indices swapped (uncoalesced, as PyTorch marks it); CSR <-> CSC, the same arrays."""
    if x._lay is sparse_coo:
        if x.sparse_dim() > 2 or x.dense_dim():
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{x.sparse_dim()} sparse and {x.dense_dim()} dense dimensions")
        if x.ndim < 2:
            return x.detach()
        i = ints(x._ind[0])
        n = len(i) // 2
        return new_sparse(sparse_coo, x._size[::-1], (from_values(i[n:] + i[:n], (2, n), int64),), x._vals)
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    if x._lay in BLOCKED:
        raise Unsupported(f"Tensor.t of a torch.{x._lay.name} tensor", S._HINT)
    return new_sparse(S.sparse_csc if x._lay is S.sparse_csr else S.sparse_csr, x._size[::-1], x._ind, x._vals)


def narrow_copy(x: SparseTensor, dim: int, start, length) -> SparseTensor:
    """``s.narrow_copy(dim, start, length)`` of a COO tensor: along a sparse dimension the
    entries in range, their index shifted; along a dense one the values narrowed (copies; the
    coalesced flag kept). PyTorch wraps neither a negative ``dim`` nor a negative ``start``."""
    if x._lay is not sparse_coo:
        if x._lay is S.sparse_csr:
            raise RuntimeError("Sparse CSR tensors do not have strides")
        raise Unsupported(f"Tensor.narrow_copy of a torch.{x._lay.name} tensor", S._HINT)
    start, length = (int(flat(v)[0]) if isinstance(v, Tensor) else v for v in (start, length))
    if not 0 <= dim < x.ndim:
        raise RuntimeError(f"Dimension {dim} out of range. Expecting 0 <= dim < {x.ndim}.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start < 0 or start + length > x._size[dim]:
        raise RuntimeError(f"Invalid range to narrow. range(start, start+length) must be a subset of range(0, "
                           f"{x._size[dim]}).")
    size = x._size[:dim] + (length,) + x._size[dim + 1:]
    sd = x.sparse_dim()
    if dim >= sd:
        ind = clone(x)._ind
        return new_sparse(sparse_coo, size, ind, x._vals.narrow(dim - sd + 1, start, length).clone(), x._coal)
    kept = [(i[:dim] + (i[dim] - start,) + i[dim + 1:], vs) for i, vs in coo_entries(x)
            if start <= i[dim] < start + length]
    nnz = len(kept)
    ind = from_values([e[0][d] for d in range(sd) for e in kept], (sd, nnz), int64)
    vals = from_values([v for e in kept for v in e[1]], (nnz,) + tuple(x._size[sd:]), x._dt)
    return new_sparse(sparse_coo, size, (ind,), vals, x._coal)


def _values_op(name: str, coalesces: bool = True):
    """A zero-preserving unary op (``abs``, ``relu``): the dense op on the values (of the
    coalesced tensor for COO, as PyTorch's kernels coalesce first)."""

    def op(x: SparseTensor) -> SparseTensor:
        y = coalesce(x) if x._lay is sparse_coo and coalesces else x
        return S.with_values(y, getattr(y._vals, name)())

    op.__name__ = name
    return op


sparse_abs = _values_op("abs")
sparse_relu = _values_op("relu")


def _converted(name: str):
    """``s.double()`` and the like: the values converted, the structure shared."""

    def convert(x: SparseTensor, memory_format=None) -> SparseTensor:
        return S.with_values(x, getattr(x._vals, name)())

    convert.__name__ = name
    return convert


def to(x: SparseTensor, *args, **kwargs) -> SparseTensor:
    """``s.to(dtype)``, ``s.to(device)`` (the CPU), ``s.to(device, dtype)``: nothing else."""
    dt = kwargs.pop("dtype", None)
    where = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    for a in args:
        if isinstance(a, type(x._dt)):
            dt = a
        elif isinstance(a, (str, device)):
            where = a
        else:
            kwargs["?"] = a
    if kwargs:
        raise Unsupported(f"Tensor.to of a torch.{x._lay.name} tensor other than to(device, dtype)", S._HINT)
    use_device(where)
    return x if dt is None or dt is x._dt else S.with_values(x, x._vals.to(dt))


def item(x: SparseTensor):
    if x.numel() != 1:
        raise RuntimeError(f"a Tensor with {x.numel()} elements cannot be converted to Scalar")
    if x._lay is not sparse_coo:  # PyTorch has no such kernel (its message goes on to list its backends)
        raise NotImplementedError("Could not run 'aten::_local_scalar_dense' with arguments from the 'SparseCsrCPU' "
                                  "backend.")
    return to_dense(x).item()


def tolist(x: SparseTensor):
    raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def is_contiguous(x: SparseTensor, memory_format=None) -> bool:
    if x._lay is sparse_coo:
        return False
    raise RuntimeError(f"Sparse {C_NAME[x._lay.name][6:].upper()} tensors do not have is_contiguous")


def clone(x: SparseTensor, *, memory_format=None) -> SparseTensor:
    ind = tuple(from_values(list(flat(t)), t._t.shape, t._t.dtype) for t in x._ind)
    vals = from_values(list(flat(x._vals)), x._vals._t.shape, x._dt)
    return new_sparse(x._lay, x._size, ind, vals, x._coal)


def deepcopy(x: SparseTensor, memo) -> SparseTensor:
    """``copy.deepcopy(s)`` (a module's state with a sparse buffer): a clone."""
    return clone(x)


def _layout_refusal(what: str, layouts):
    def refuse(self, *args, **kwargs):
        if layouts is None:  # PyTorch has no kernel for a dense tensor
            raise Unsupported(f"Tensor.{what} of a torch.strided tensor", "it is an accessor of sparse tensors")
        if isinstance(self, SparseTensor):
            raise Unsupported(f"Tensor.{what} of a torch.{self._lay.name} tensor", S._HINT)
        raise S.layout_error(what, layouts, strided)

    return refuse


def dispatching(dense, sparse_fn, reflected=None):
    """A ``torch.<op>`` that sends a sparse first operand to ``sparse_fn``, and a sparse second
    one to ``reflected(sparse, first)`` where there is one (a class test or two)."""

    @functools.wraps(dense)
    def function(*args, **kwargs):
        if args:
            if args[0].__class__ is SparseTensor:
                return sparse_fn(*args, **kwargs)
            if len(args) > 1 and args[1].__class__ is SparseTensor:
                if reflected is None:
                    raise SparseRead(args[1]._lay.name, f"torch.{dense.__name__}")
                return reflected(args[1], args[0], *args[2:], **kwargs)
        return dense(*args, **kwargs)

    return function


_METHODS = {
    "to_dense": to_dense, "coalesce": coalesce, "to_sparse": to_sparse, "clone": clone, "__deepcopy__": deepcopy,
    "mul": mul, "__mul__": mul, "__rmul__": mul, "div": div, "__truediv__": div, "neg": neg, "__neg__": neg,
    "add": add, "__add__": add, "__radd__": radd, "sub": sub, "__sub__": sub, "__rsub__": rsub,
    "mm": mm, "matmul": matmul, "__matmul__": matmul, "__rmatmul__": rmatmul, "sum": tensor_sum, "t": transpose2d,
    "abs": sparse_abs, "relu": sparse_relu, "to": to, "narrow_copy": narrow_copy,
    "item": item, "tolist": tolist, "is_contiguous": is_contiguous,
    **{n: _converted(n) for n in ("double", "float", "half", "bfloat16", "long", "int", "short", "char", "byte",
                                  "bool")},
}
"""The sparse tensor's own methods and operators (besides its metadata and accessors, in ``sparse.py``)."""

DISPATCH = {"mm": mm, "matmul": matmul, "spmm": mm, "sum": tensor_sum, "add": add, "sub": sub, "mul": mul, "div": div,
            "neg": neg, "clone": clone, "t": transpose2d, "abs": sparse_abs, "relu": sparse_relu,
            "numel": SparseTensor.numel, "is_floating_point": SparseTensor.is_floating_point,
            "narrow_copy": narrow_copy}
"""torch functions that take a sparse first operand (surface.install wraps them with ``dispatching``,
those torch has: ``narrow_copy`` once its dense form exists)."""
REFLECTED = {"mm": rmm, "matmul": rmatmul, "spmm": rmm, "add": radd, "sub": rsub, "mul": mul}
"""... and a sparse second operand after a dense one."""


def install(method, function) -> None:
    """Bind the sparse constructors and layouts (``torch.*``), the conversions every tensor has,
    and PyTorch's refusals of the sparse accessors on a dense tensor; then close the sparse class."""
    for name, fn in _METHODS.items():
        setattr(SparseTensor, name, fn)
    def to_sparse_coo(self):
        return to_layout(self, None, sparse_coo, None, None, "dense_to_sparse")

    to_sparse_coo.__qualname__ = "Tensor.to_sparse_coo"  # named so in Python's TypeError for an argument
    SparseTensor.to_sparse_coo = to_sparse_coo
    method("to_sparse_coo", to_sparse_coo)
    for name in ("to_sparse_csr", "to_sparse_csc"):
        lay = getattr(S, name[3:])

        def convert(self, dense_dim=None, _lay=lay):
            return to_layout(self, None, _lay, None, dense_dim, f"dense_to_{_lay.name}")

        convert.__name__ = convert.__qualname__ = name  # how PyTorch's parser names it in a TypeError
        setattr(SparseTensor, name, convert)
        method(name, convert)
    for name in ("to_sparse_bsr", "to_sparse_bsc"):
        lay = getattr(S, name[3:])

        def convert_blocked(self, blocksize, dense_dim=None, _lay=lay):
            return to_layout(self, None, _lay, blocksize, dense_dim, f"dense_to_{_lay.name}")

        convert_blocked.__name__ = convert_blocked.__qualname__ = name
        setattr(SparseTensor, name, convert_blocked)
        method(name, convert_blocked)
    method("to_sparse", to_sparse)
    method("sparse_mask", sparse_mask)
    method("to_dense", to_dense)
    for name in ("_nnz", "_indices", "_values"):
        method(name, _layout_refusal(name, None))
    method("sparse_dim", lambda self: 0)
    method("dense_dim", lambda self: self._t.ndim)
    for name, layouts in (("indices", sparse_coo), ("values", "values"), ("coalesce", sparse_coo),
                          ("is_coalesced", sparse_coo), ("crow_indices", ROW_COMPRESSED),
                          ("col_indices", ROW_COMPRESSED), ("ccol_indices", S.COL_COMPRESSED),
                          ("row_indices", S.COL_COMPRESSED)):
        method(name, _layout_refusal(name, layouts))
    function("sparse_coo_tensor", sparse_coo_tensor, checked=False)
    function("sparse_compressed_tensor", sparse_compressed_tensor, checked=False)
    for fn in (sparse_csr_tensor, sparse_csc_tensor, sparse_bsr_tensor, sparse_bsc_tensor):
        function(fn.__name__, fn, checked=False)
    for lay in S.LAYOUTS:
        function(lay.name, lay, checked=False)
    S.finish()
