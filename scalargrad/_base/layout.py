"""Memory layouts of multi-element tensors, as PyTorch lays them out (strides, contiguity).

scalargrad keeps a multi-element tensor's elements in logical (row-major) order, but PyTorch's
behaviour depends on where they would sit in memory: ``x.t()`` is not contiguous, so
``x.t().view(6)`` fails and ``x.t().reshape(6)`` copies (``UnsafeViewBackward0``), ``x.t() + 1``
keeps the transposed layout, and a reduction visits the elements in memory order, which decides
how its float32 sum rounds. This module reproduces those rules, in element units:

* ``contiguous_strides``, ``is_contiguous``, ``is_non_overlapping_and_dense``: c10's definitions;
* ``view_strides``: ``at::detail::computeStride``, the strides a view may take (None: a copy);
* ``iteration_order`` and ``coalesce``: TensorIterator's dimension reordering and merging
  (``reorder_dimensions``, ``coalesce_dimensions``), which ``elementwise_strides`` uses to lay
  out the result of an elementwise op and ``kernel_order`` to walk a reduction;
* ``advanced_index_strides``: the layout of ``x[index tensors]`` (ATen's index TensorIterator);
* ``column_major_strides``: the layout of LAPACK's results (row-major batches of column-major matrices).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["slices", "contiguous_strides", "is_contiguous", "is_non_overlapping_and_dense", "view_strides",
           "iteration_order", "coalesce", "elementwise_strides", "broadcast_strides", "numel",
           "advanced_index_strides", "column_major_strides"]


def numel(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def contiguous_strides(shape: Sequence[int]) -> tuple:
    """Row-major strides (a size-1 or empty dimension still gets the product of the later sizes)."""
    strides = [1] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's ``is_contiguous``: size-1 dimensions may have any stride; empty tensors are contiguous."""
    if numel(shape) == 0:
        return True
    z = 1
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] != 1:
            if strides[d] != z:
                return False
            z *= shape[d]
    return True


def is_non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Every element has its own memory slot and the slots fill a block (any dimension order).
    As c10 keeps the flag (``refresh_contiguous``: contiguous, or channels-last contiguous, or
    dense), an empty tensor, contiguous whatever its strides, counts: its clone keeps them."""
    if numel(shape) == 0:
        return True
    n = len(shape)
    if n == 1:
        return shape[0] < 2 or strides[0] == 1
    perm = sorted(range(n), key=lambda d: (shape[d] < 2, strides[d] if shape[d] >= 2 else 0))
    require = 1
    for d in perm:
        if shape[d] < 2:
            return True
        if strides[d] != require:
            return False
        require *= shape[d]
    return True


def view_strides(old_shape: Sequence[int], old_strides: Sequence[int], new_shape: Sequence[int]):
    """Strides for viewing (old_shape, old_strides) as new_shape without copying, or None
    when the view is impossible (``at::detail::computeStride``)."""
    if not old_shape:
        return tuple(1 for _ in new_shape)
    n = numel(old_shape)
    if n == 0:
        if tuple(old_shape) == tuple(new_shape):
            return tuple(old_strides)
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def broadcast_strides(shape: Sequence[int], strides: Sequence[int], out_shape: Sequence[int]) -> tuple:
    """An operand's strides seen in the broadcast shape: 0 where it is broadcast (TensorIterator)."""
    lead = len(out_shape) - len(shape)
    out = [0] * len(out_shape)
    for i, s in enumerate(shape):
        out[lead + i] = 0 if (s == 1 and out_shape[lead + i] != 1) else strides[i]
    return tuple(out)


def iteration_order(shape: Sequence[int], operands: Sequence[tuple], reduction: bool = False) -> list:
    """TensorIterator's ``reorder_dimensions``: the dimensions, fastest-moving first.

    ``operands`` are ``(strides, is_output)`` pairs in TensorIterator's order (outputs first);
    ``strides`` is None for an output still to be allocated. A reduction's output has stride
    0 in the reduced dimensions, which go first.
    """
    ndim = len(shape)
    if ndim <= 1:
        return list(range(ndim))
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(dim0: int, dim1: int) -> int:
        for strides, is_output in operands:
            if strides is None:
                continue
            s0, s1 = strides[dim0], strides[dim1]
            if reduction and is_output and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    return perm


def coalesce(shape: list, strides: list) -> tuple[list, list]:
    """TensorIterator's ``coalesce_dimensions`` on (already reordered) sizes and per-operand
    strides: neighbouring dimensions that walk memory as one are merged."""
    ndim = len(shape)
    if ndim <= 1:
        return list(shape), [list(s) for s in strides]
    shape = list(shape)
    strides = [list(s) for s in strides]

    def can_coalesce(d0: int, d1: int) -> bool:
        if shape[d0] == 1 or shape[d1] == 1:
            return True
        return all(shape[d0] * s[d0] == s[d1] for s in strides)

    prev = 0
    for d in range(1, ndim):
        if can_coalesce(prev, d):
            if shape[prev] == 1:
                for s in strides:
                    s[prev] = s[d]
            shape[prev] *= shape[d]
        else:
            prev += 1
            if prev != d:
                for s in strides:
                    s[prev] = s[d]
                shape[prev] = shape[d]
    del shape[prev + 1:]
    for s in strides:
        del s[prev + 1:]
    return shape, strides


def elementwise_strides(out_shape: Sequence[int], inputs: Sequence[tuple]) -> tuple:
    """The strides PyTorch gives the result of an elementwise op on ``inputs`` ((shape,
    strides) pairs, 0-dim operands included): contiguous unless the inputs' layout says
    otherwise (TensorIterator's fast setup, then its permuted allocation)."""
    out_shape = tuple(out_shape)
    if all(tuple(s) == out_shape for s, _ in inputs):
        if all(is_contiguous(s, st) for s, st in inputs):
            return contiguous_strides(out_shape)
        if len(out_shape) == 4 and all(_channels_last_contiguous(s, st) for s, st in inputs):
            # FastSetupType::CHANNELS_LAST (4-D only): c10's channels-last strides, whatever
            # strides the inputs' size-1 dims had
            c, h, w = out_shape[1], out_shape[2], out_shape[3]
            return (c * w * h, 1, c * w, c)
        if all(is_non_overlapping_and_dense(s, st) for s, st in inputs):
            first = tuple(inputs[-1][1])
            if all(tuple(st) == first for _, st in inputs):
                return first
    ops = [(None, True)] + [(broadcast_strides(s, st, out_shape), False) for s, st in inputs]
    perm = iteration_order(out_shape, ops)
    ndim = len(out_shape)
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(out_shape)
    strides = [0] * ndim
    acc = 1
    for d in perm:  # fastest first
        strides[d] = acc
        acc *= out_shape[d]
    return tuple(strides)


def _channels_last_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's ``compute_channels_last_contiguous_2d`` of a 4-D tensor: C, W, H, N innermost first,
    size-1 dims taking any stride."""
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def slices(shape: Sequence[int], d: int) -> list:
    """The flat (row-major) indices of each slice of ``shape`` along dimension ``d`` (one slice
    holding the one element of a 0-dim shape)."""
    if not shape:
        return [[0]]
    size = shape[d]
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    outer = 1
    for s in shape[:d]:
        outer *= s
    return [[o * size * inner + k * inner + i for k in range(size)] for o in range(outer) for i in range(inner)]


def advanced_index_strides(shape: Sequence[int], strides: Sequence[int], indices: Sequence) -> tuple:
    """The strides of ``x[indices]`` (ATen's ``index``) for ``x`` of (``shape``, ``strides``):
    ``indices`` has one entry per dimension of ``x``, None where it is not indexed, else the
    (shape, strides) of that dimension's index tensor (a bool mask's columns of ``nonzero()``).

    ATen's AdvancedIndex broadcasts the index tensors, moves the indexed dimensions to the
    front when they are not adjacent, restrides the source (stride 0 over the index shape) and
    views each index as ``[1] * before + shape + [1] * after``; the output is then allocated by
    a TensorIterator over (source, indices), as an elementwise op's (``elementwise_strides``)."""
    bshape: tuple = ()
    for ix in indices:
        if ix is not None:
            bshape = _broadcast(bshape, tuple(ix[0]))
    at = [d for d, ix in enumerate(indices) if ix is not None]
    if at[-1] - at[0] + 1 != len(at):  # not adjacent: transposeToFront
        order = at + [d for d, ix in enumerate(indices) if ix is None]
        shape = [shape[d] for d in order]
        strides = [strides[d] for d in order]
        indices = [indices[d] for d in order]
        at = list(range(len(at)))
    before, after = at[0], len(indices) - at[-1] - 1
    out_shape = tuple(shape[:before]) + bshape + tuple(shape[len(shape) - after:])
    src = tuple(strides[:before]) + (0,) * len(bshape) + tuple(strides[len(strides) - after:])
    ops = [(out_shape, src)]
    ishape = (1,) * before + bshape + (1,) * after
    for ix in indices:
        if ix is None:
            continue
        st = broadcast_strides(ix[0], ix[1], bshape)
        st = view_strides(bshape, st, ishape) if ishape != bshape else st
        ops.append((ishape, contiguous_strides(ishape) if st is None else st))  # None: reshape copies
    return elementwise_strides(out_shape, ops)


def _broadcast(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(x if y == 1 else y for x, y in zip(a, b))


def column_major_strides(shape: Sequence[int]) -> tuple:
    """ATen's ``batched_matrix_contiguous_strides(shape, f_contig=True)``: row-major strides
    with the last two dimensions swapped to column-major (stride 1 down a column, the number of
    rows, at least 1, along a row). LAPACK writes its results so: inverse, the Cholesky factor,
    and the gradients of det, slogdet and cholesky (ATen solves for them with LAPACK)."""
    strides = list(contiguous_strides(shape))
    if len(shape) >= 2:
        strides[-1] = max(shape[-2], 1)
        strides[-2] = 1
    return tuple(strides)
