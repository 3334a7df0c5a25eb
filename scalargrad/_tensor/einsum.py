"""``torch.einsum``, composed as ATen's einsum composes it, so that its graph is PyTorch's.

The equation is parsed into labels per operand (and the output: given after ``->``, or the
labels seen once, in alphabetical order with capitals first, after the ellipsis). Every operand
is brought to one layout, the output's dimensions then the contracted ones: a repeated label
takes the diagonal, a missing label is a new dimension of size 1 (unsqueeze), then one permute.
The operands are contracted left to right, each pair by ``sumproduct_pair``: dimensions only
one side has are summed first; the rest becomes one ``bmm`` (permute, reshape, bmm, view,
permute), or a plain product when nothing is contracted. The contracted dimensions, of size 1
by then, are dropped with a view (one operand: summed).

The nodes PyTorch shows for einsum's result (ViewBackward0 over PermuteBackward0 over
BmmBackward0...) and the order of every addition (bmm's, sum's) follow from that.
"""

from __future__ import annotations

from .._ops import arithmetic as AR
from .elementwise import binary
from .products import bmm
from .reductions import sum as tsum
from .selection import diagonal
from .tensor import Tensor
from .views import permute, reshape, unsqueeze, view

__all__ = ["einsum", "install"]

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS


def _subscript(label: str) -> int:
    """[A-Z] -> 0..25, [a-z] -> 26..51 (PyTorch's order: capitals first)."""
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(s: int) -> str:
    return chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))


def _is_label(c: str) -> bool:
    return len(c) == 1 and ("a" <= c <= "z" or "A" <= c <= "Z")


def _parse_inputs(lhs: str, num_ops: int) -> list:
    labels: list = [[] for _ in range(num_ops)]
    ell_seen = False
    cur = 0
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_seen:
                raise RuntimeError(f"einsum(): found '.' for operand {cur} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {cur} that is not part of any ellipsis")
            i += 2
            labels[cur].append(_ELLIPSIS)
            ell_seen = True
        elif c == ",":
            cur += 1
            if cur >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell_seen = False
        else:
            if not _is_label(c):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   f"subscripts must be in [a-zA-Z]")
            labels[cur].append(_subscript(c))
        i += 1
    if cur != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` through bmm, as ATen's sumproduct_pair."""
    if not sum_dims:
        return binary(AR.Mul, left, right)
    nd = left._t.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(nd):
        sl, sr = left._t.shape[i] != 1, right._t.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left._t.shape[i] != right._t.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._t.shape[i]
            elif sl:
                left = tsum(left, i, keepdim=True)
            elif sr:
                right = tsum(right, i, keepdim=True)
        elif sl and sr:
            if left._t.shape[i] != right._t.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._t.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._t.shape[i]
        else:
            ro.append(i)
            ro_size *= right._t.shape[i]
    out_size = ([left._t.shape[d] for d in lro] + [left._t.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right._t.shape[d] for d in ro])
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(lperm)
    for i, d in enumerate(lperm):
        operm[d] = i
    a = reshape(permute(left, *lperm), lro_size, lo_size, sum_size)
    b = reshape(permute(right, *rperm), lro_size, sum_size, ro_size)
    return permute(view(bmm(a, b), *out_size), *operm)


def _sublist_label(n) -> str:
    """A sublist subscript as an equation label: 0-25 are A-Z, 26-51 a-z, ``...`` itself."""
    if n is Ellipsis:
        return "..."
    if n >= 0 and n < 26:  # PyTorch's comparisons, in its order (its TypeError for a str or float)
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def _equation_and_operands(args: tuple) -> tuple:
    """torch.functional.einsum's reading of its arguments: an equation then operands, or the
    sublist format (operand, its subscripts, ..., optionally the output's subscripts)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if not isinstance(args[0], Tensor):
        if not isinstance(args[0], str):
            raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {type(args[0]).__name__}")
        return args[0], args[1:]
    equation = ",".join("".join(_sublist_label(s) for s in sub) for sub in args[1::2])
    if len(args) % 2 == 1:
        return equation + "->" + "".join(_sublist_label(s) for s in args[-1]), args[:-1:2]
    return equation, args[::2]


def _checked_operands(equation, operands) -> tuple:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for t in operands:
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): argument 'tensors' (position 2) must be tuple of Tensors, not "
                            f"{type(t).__name__}")
    return operands


def _count_labels(operands, op_labels) -> tuple:
    """How many operands each label appears in, and the most dimensions an ellipsis covers."""
    label_count = [0] * _ELLIPSIS
    ell_num_dim = 0
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        nd = t._t.ndim
        nlabels = len(labels)
        has_ell = False
        for s in labels:
            if s == _ELLIPSIS:
                nlabels -= 1
                has_ell = True
                ell_num_dim = max(ell_num_dim, nd - nlabels)
            else:
                label_count[s] += 1
        if (nlabels > nd) if has_ell else (nlabels != nd):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlabels}) "
                               + ("is more than the number of dimensions (" if has_ell else
                                  "does not match the number of dimensions (")
                               + f"{nd}) for operand {i}" + ("" if has_ell else " and no ellipsis was given"))
    return label_count, ell_num_dim


def _output_labels(rhs: str, lhs_len: int, label_count: list, ell_num_dim: int, perm_index_of: list) -> tuple:
    """The explicit output ``rhs``: each label's place in the output; (ellipsis place, number of
    output dimensions, whether the ellipsis is in the output)."""
    perm_index = ell_index = 0
    ell_in_output = False
    i = 0
    while i < len(rhs):
        c = rhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_output:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
            i += 2
            ell_index = perm_index
            perm_index += ell_num_dim
            ell_in_output = True
        else:
            if not _is_label(c):
                raise RuntimeError(f"einsum(): invalid subscript given at index {lhs_len + 2 + i} in the "
                                   f"equation string, subscripts must be in [a-zA-Z]")
            s = _subscript(c)
            if not (label_count[s] > 0 and perm_index_of[s] == -1):
                why = " appears more than once in the output" if perm_index_of[s] > -1 else \
                    " does not appear in the equation for any input operand"
                raise RuntimeError(f"einsum(): output subscript {c}{why}")
            perm_index_of[s] = perm_index
            perm_index += 1
        i += 1
    return ell_index, perm_index, ell_in_output


def _permutation(equation: str, arrow: int, lhs_len: int, label_count: list, ell_num_dim: int) -> tuple:
    """Where each label's dimension goes: the output's first (implicitly, the labels seen once,
    in order), then the ones summed over. Returns (perm_index_of, ell_index, out_num_dim,
    number of dimensions)."""
    perm_index_of = [-1] * _ELLIPSIS
    if arrow < 0:
        perm_index, ell_index, ell_in_output = ell_num_dim, 0, True
        for s in range(_ELLIPSIS):
            if label_count[s] == 1:
                perm_index_of[s] = perm_index
                perm_index += 1
    else:
        ell_index, perm_index, ell_in_output = _output_labels(equation[arrow + 2:], lhs_len, label_count,
                                                              ell_num_dim, perm_index_of)
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_ELLIPSIS):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm_index
            perm_index += 1
    return perm_index_of, ell_index, out_num_dim, perm_index


def _aligned(operands, op_labels, perm_index_of: list, ell_index: int, ell_num_dim: int, perm_index: int) -> tuple:
    """Each operand permuted (and unsqueezed) to the common dimension order, repeated labels
    taken as diagonals; and, per dimension, how many operands have it of a size other than 1."""
    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list = []
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        op = t
        perm = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                ndim = t._t.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op._t.shape[dim]
                    if size != 1:
                        if ell_sizes[j] not in (1, size):
                            raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {i}has "
                                               f"size {size} which does not broadcast with previously seen "
                                               f"ellipsis with size {ell_sizes[j]} for the respective dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    perm[ell_index + j] = dim
                    dim += 1
            elif perm[perm_index_of[s]] == -1:
                size = op._t.shape[dim]
                if size != 1:
                    if label_size[s] not in (1, size):
                        raise RuntimeError(f"einsum(): subscript {_label(s)} has size {size} for operand {i} which "
                                           f"does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = size
                    dim_counts[perm_index_of[s]] += 1
                perm[perm_index_of[s]] = dim
                dim += 1
            else:  # a repeated label: the diagonal, moved to where the label first was
                prev = perm[perm_index_of[s]]
                if op._t.shape[dim] != op._t.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes "
                                       f"don't match, {op._t.shape[dim]} != {op._t.shape[prev]}")
                op = diagonal(op, 0, prev, dim)
                order = list(range(op._t.ndim - 1))
                order.insert(prev, op._t.ndim - 1)
                op = permute(op, *order)  # movedim(-1, prev)
        for k in range(perm_index):
            if perm[k] == -1:
                op = unsqueeze(op, dim)
                perm[k] = dim
                dim += 1
        ops.append(permute(op, *perm))
    return ops, dim_counts


def _contract(ops: list, dim_counts: list, out_num_dim: int, perm_index: int) -> Tensor:
    """The aligned operands multiplied left to right, each dimension summed as soon as no operand
    left needs it."""
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm_index):
            if a._t.shape[d] != 1 and b._t.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a._t.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b._t.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = tsum(a, a_sum, keepdim=True)
        if b_sum:
            b = tsum(b, b_sum, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    return ops[0]


def einsum(*args) -> Tensor:
    """``torch.einsum(equation, *operands)`` or the sublist format ``einsum(a, [0, 1], b, [1, 2], [0, 2])``:
    operands contracted left to right (PyTorch 2.13 without opt_einsum, or with two operands or
    fewer), as ATen's ``einsum`` does it: labels counted, the output's dimensions first, each
    operand aligned to them, then contracted."""
    equation, operands = _equation_and_operands(args)
    operands = _checked_operands(equation, operands)
    num_ops = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_inputs(lhs, num_ops)
    label_count, ell_num_dim = _count_labels(operands, op_labels)
    perm_index_of, ell_index, out_num_dim, perm_index = _permutation(equation, arrow, len(lhs), label_count,
                                                                     ell_num_dim)
    ops, dim_counts = _aligned(operands, op_labels, perm_index_of, ell_index, ell_num_dim, perm_index)
    result = _contract(ops, dim_counts, out_num_dim, perm_index)
    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return view(result, *result._t.shape[:out_num_dim])
        return tsum(result, list(range(out_num_dim, perm_index)))
    return result


def install(method, function) -> None:
    """torch.einsum."""
    function("einsum", einsum)
