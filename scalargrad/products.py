"""Matrix products of tensors: ``matmul`` / ``@``, ``addmm`` and ``nn.functional.linear``.

Each element of a product is ONE scalar node (``ops.Dot`` and its named variants, ``ops.Addmm``)
whose inputs are the row and the column it combines, so SymPy proves its derivative like any
other op's. Its value is added in the order of the MKL kernel PyTorch's CPU build calls for that
shape and layout (``kernel_order``: sgemm's fused chain, the 8-lane kernel of a transposed
operand, sdot's lanes). Gradients follow from the nodes: an input element that feeds a single
output gets PyTorch's value exactly; one that feeds several outputs receives one rounded
product per output, added in the order MKL's product for the gradient would add them, which
can differ from MKL's fused chains in the last bit.
"""

from __future__ import annotations

from . import dtypes, ops
from .dtypes import TensorType
from .kernel_order import fma_chain, mkl_lanes8, mkl_sdot
from .layout import contiguous_strides, numel
from .shaped import ShapedTensor, _c_name, _parts, _result, _scalar_t, _spread, _view, check_size
from .value import Value, make

__all__ = ["matmul", "addmm", "linear", "transpose2d"]


def _dot_value(av: list, bv: list, dt, kind: str):
    if not dt.is_floating_point:
        return sum(x * y for x, y in zip(av, bv))
    f32 = dt is dtypes.float32
    if kind == "dot":
        return mkl_sdot(av, bv, f32)
    if kind == "gemm_nt":
        return mkl_lanes8(av, bv, f32)
    return fma_chain(av, bv, f32)


def _gemm_kind(a: Value, b: Value, n: int, m: int) -> str:
    """Which MKL code path PyTorch's mm takes for a (n x k) @ b (k x m) (see kernel_order)."""
    if m == 1 and n > 1:
        return "gemv"
    bst = _parts(b)[1]
    transposed = len(bst) == 2 and bst[0] == 1 and b._t.shape[0] > 1 and bst[1] != 1
    if transposed and m % 4:
        return "gemm_nt"
    return "gemm"


def matmul(a, b) -> Value:
    """``a @ b`` for 1-D and 2-D tensors (and an N-D tensor times a 1-D or 2-D one, folded
    into a matrix product as PyTorch does). Each result element is one node whose inputs are
    the row and column it multiplies; its value is added in MKL's order (``kernel_order``)."""
    if not isinstance(a, Value) or not isinstance(b, Value):
        bad = b if isinstance(a, Value) else a
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(bad).__name__}")
    da, db = len(a._t.shape), len(b._t.shape)
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    ta, tb = a._t.dtype, b._t.dtype
    sa, sb = tuple(a._t.shape), tuple(b._t.shape)
    ea, eb = _parts(a)[2], _parts(b)[2]
    if da == 1 and db == 1:
        if ta is not tb:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_c_name(ta).capitalize()} "
                               f"and {_c_name(tb).capitalize()}")
        if sa[0] != sb[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the "
                               f"same number of elements, but got {sa[0]} and {sb[0]} elements respectively")
        val = _dot_value([e._val for e in ea], [e._val for e in eb], ta, "dot")
        return make(ops.Dot, TensorType(ta, ()), val, tuple(ea) + tuple(eb))
    if ta is not tb:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_name(ta)} != {_c_name(tb)}")
    if da == 2 and db == 1:
        n, k = sa
        if k != sb[0]:
            raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({sb[0]})")
        rows = [ea[i * k:(i + 1) * k] for i in range(n)]
        return _products(rows, [list(eb)], (n,), ta, ops.Mv, "gemv", (a, b))
    if da == 1 and db == 2:
        k, m = sb
        if sa[0] != k:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{sa[0]} and {k}x{m})")
        cols = [[eb[i * m + j] for i in range(k)] for j in range(m)]
        return _products([list(ea)], cols, (m,), ta, ops.VecMat, "gemm", (a, b))
    if da == 2 and db == 2:
        n, k = sa
        k2, m = sb
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        rows = [ea[i * k:(i + 1) * k] for i in range(n)]
        cols = [[eb[i * m + j] for i in range(k)] for j in range(m)]
        return _products(rows, cols, (n, m), ta, ops.Mm, _gemm_kind(a, b, n, m), (a, b))
    if da >= 3 and db <= 2:
        k = sa[-1]
        folded = a.reshape(-1, k)
        out = matmul(folded, b)
        shape = sa[:-1] + ((sb[-1],) if db == 2 else ())
        if isinstance(out, ShapedTensor):
            return _view(out, shape, contiguous_strides(shape), 0, contiguous_strides(shape), 0, ops.UnsafeView)
        v = make(ops.UnsafeView, TensorType(ta, shape), out._val, (out,))
        return v
    from .errors import Unsupported

    raise Unsupported(f"matmul of a {da}-D and a {db}-D tensor (batched matrix products)")


def _products(rows: list, cols: list, shape: tuple, dt, op, kind: str, srcs: tuple, bias: list | None = None) -> Value:
    """One node per (row, column) pair: their product, plus ``bias[column]`` for addmm."""
    check_size(shape)
    single = numel(shape) == 1
    t = TensorType(dt, shape) if single else _scalar_t(dt)
    r32 = dt.round
    # made last to first: the engine runs the newest node first, so each input element then
    # receives its gradient terms in the order MKL's product for the gradient adds them
    res = []
    cvals = [[e._val for e in c] for c in cols]
    m = len(cols)
    for i in range(len(rows) - 1, -1, -1):
        r = rows[i]
        rv = [e._val for e in r]
        for j in range(m - 1, -1, -1):
            val = _dot_value(rv, cvals[j], dt, kind)
            if bias is None:
                res.append(make(op, t, val, tuple(r) + tuple(cols[j])))
            else:
                c = bias[i * m + j]
                if len(r) == 1 and dt.is_floating_point:  # k = 1: MKL fuses the product and the bias
                    val = fma_chain([1.0, rv[0]], [c._val, cvals[j][0]], dt is dtypes.float32)
                else:
                    val = r32(val + c._val)
                res.append(make(ops.Addmm, t, val, tuple(r) + tuple(cols[j]) + (c,)))
    res.reverse()
    return _result(res, shape, dt, srcs=srcs)


def transpose2d(x: Value) -> Value:
    """``x.t()`` for a tensor of at most 2 dimensions, one-element tensors included."""
    if isinstance(x, ShapedTensor):
        return x.t()
    if x.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.dim()}D")
    return make(ops.T, TensorType(x._t.dtype, tuple(reversed(x._t.shape))), x._val, (x,))


def addmm(bias: Value, mat1: Value, mat2: Value) -> Value:
    """``torch.addmm(bias, mat1, mat2)``: mat1 @ mat2 + bias (broadcast), one node per element."""
    if mat1.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError("mat1 must be a matrix" if mat1.dim() != 2 else "mat2 must be a matrix")
    n, k = mat1._t.shape
    k2, m = mat2._t.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    dt = mat1._t.dtype
    if mat2._t.dtype is not dt or bias._t.dtype is not dt:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_name(dt)} != "
                           f"{_c_name(mat2._t.dtype if mat2._t.dtype is not dt else bias._t.dtype)}")
    shape = (n, m)
    # the bias is broadcast to the result; its gradient is summed back in PyTorch's order
    bshape, _, belems = _parts(bias)
    spread = _spread(belems, tuple(bshape), shape, contiguous_strides(shape), False)
    ea, eb = _parts(mat1)[2], _parts(mat2)[2]
    rows = [ea[i * k:(i + 1) * k] for i in range(n)]
    cols = [[eb[i * m + j] for i in range(k)] for j in range(m)]
    return _products(rows, cols, shape, dt, ops.Addmm, _gemm_kind(mat1, mat2, n, m), (bias, mat1, mat2), spread)


def linear(input: Value, weight: Value, bias: Value | None = None) -> Value:  # noqa: A002
    """``nn.functional.linear``: input @ weight.T + bias, composed as PyTorch 2.13's
    ``at::linear`` composes it (so grad_fn names match: AddmmBackward0 for 2-D input with a
    bias, ViewBackward0 over it for other inputs, MmBackward0 / SqueezeBackward4 /
    UnsafeViewBackward0 without a bias)."""
    for name, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Value):
            raise TypeError(f"linear(): argument '{name}' must be Tensor, not {type(t).__name__}")
    wt = transpose2d(weight)
    nd = input.dim()
    if bias is not None:
        contiguous = not isinstance(input, ShapedTensor) or input.is_contiguous()
        if nd == 2:
            return addmm(bias, input, wt)
        if contiguous and (nd == 3 or bias.dim() == 1) and nd >= 1:
            shape = tuple(input._t.shape)
            flat = input.reshape(numel(shape[:-1]), shape[-1])
            out = addmm(bias, flat, wt)
            return out.view(*shape[:-1], out._t.shape[1])
    out = matmul(input, wt)
    if bias is not None:
        out = out + bias
    return out
