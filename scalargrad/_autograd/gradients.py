"""Gradients as the engine hands them around: a float for a 0-dim tensor in plain backward, a
tensor otherwise; ``wrap``/``unwrap`` between the two (PyTorch's ZeroTensor included), ``adapt``
to an input's shape and dtype (PyTorch's ``validate_outputs``), and the accumulation into
``.grad`` (AccumulateGrad).
"""

from __future__ import annotations

from sys import getrefcount

from .._base.dtypes import TensorType
from .._base.layout import is_contiguous, is_non_overlapping_and_dense
from .._ops import fill as FI
from .._ops.float_kernel import EFFICIENT_ZERO, EfficientZero
from .._ops.views import Layout
from .._tensor import views
from .._tensor.reductions import sum_to
from .._tensor.storage import write
from .._tensor.tensor import Tensor, leaf, make
from .._tensor.tensor_kernel import ZeroTensor

__all__ = ["wrap", "unwrap", "materialised", "adapt", "fresh", "store_grad", "add_into", "expandable"]


def wrap(g, t):
    if isinstance(g, Tensor):
        return g
    return leaf(g, t, cls=ZeroTensor) if g.__class__ is EfficientZero else leaf(g, t)


def materialised(g):
    """A gradient as AccumulateGrad stores it: an efficient zero (sgn's derivative) becomes
    ordinary +0.0 zeros, as ATen materialises a ZeroTensor."""
    if g.__class__ is EfficientZero:
        return 0.0
    if g.__class__ is ZeroTensor:
        return leaf([0.0] * g._t.numel if g._t.ndim else 0.0, g._t)
    return g


def unwrap(g, graph: bool):
    if g is None or graph or not isinstance(g, Tensor) or g._t.ndim:
        return g
    return EFFICIENT_ZERO if g.__class__ is ZeroTensor else g._val


def expandable(shape: tuple, to: tuple) -> bool:
    """PyTorch's is_expandable_to: ``shape`` broadcasts to ``to``."""
    if len(shape) > len(to):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(shape), reversed(to)))


def adapt(g, u: Tensor, v, graph: bool):
    """The gradient ``g`` for input ``u``, in ``u``'s shape, dtype and representation (a float
    for a 0-dim tensor in plain backward). A gradient that cannot be summed to ``u``'s shape is
    refused in PyTorch's words."""
    t = u._t
    if isinstance(g, Tensor):
        gt = g._t
        if gt.shape != t.shape:
            try:
                # PyTorch's is_expandable_to: u's shape must broadcast to the gradient's
                g = sum_to(g, tuple(t.shape)) if expandable(tuple(t.shape), tuple(gt.shape)) else None
            except RuntimeError:
                g = None
            if g is None or tuple(g._t.shape) != tuple(t.shape):
                name = v.grad_fn.name() if v is not None and v._op is not None else "backward"
                i = list(v._in).index(u) if v is not None and u in v._in else 0
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - got "
                                   f"{list(gt.shape)} but expected shape compatible with {list(t.shape)}")
        if g._t.dtype is not t.dtype:
            g = views.to_dtype(g, t.dtype)
        if not graph and not t.ndim:
            if u._op is None and type(g) is Tensor and g._s is not None and g._s.offset:
                # a view into a larger gradient (the select of stack's, unbind's, select_scatter's
                # backward): PyTorch hands the leaf that view, which AccumulateGrad keeps
                return g
            return g._val
        return g
    if graph:
        return leaf(t.dtype.round(g), t)
    if t.ndim:
        return views.expand(leaf(t.dtype.round(g), t.with_shape(())), t.shape)
    return t.dtype.round(g)


def fresh(g, t, steal: bool = False):
    """A gradient stored into ``.grad``: a tensor of its own (a formula may hand the same
    tensor to several inputs), laid out as AccumulateGrad leaves it (``obeys_layout``). With
    ``steal`` (grad mode off), a gradient that is a view into another at an offset (the view
    scatters' src gradient, block_diag's blocks) is kept as that view, as AccumulateGrad steals
    a tensor nothing else holds."""
    if isinstance(g, Tensor):
        if (steal and type(g) is Tensor and g._s is not None and g._s.offset and not g._rg
                and obeys_layout(g._t, t) and g._t.dtype is t.dtype and tuple(g._t.shape) == tuple(t.shape)):
            return g.detach()  # AccumulateGrad stores new_grad.detach(): the same memory, not a view
        if t.ndim and obeys_layout(g._t, t):
            t = TensorType(t.dtype, t.shape, g._t.strides)
        return leaf(list(g._val) if g._t.ndim else g._val, t)
    return leaf(g, t)


def obeys_layout(gt, t) -> bool:
    """PyTorch's obeys_layout_contract: AccumulateGrad keeps a gradient's own strides when they
    are the variable's on every dim of size other than 1 (and none of size 1 is 0); otherwise it
    copies the gradient into the variable's strides (a contiguous copy when the variable is not
    dense)."""
    if not is_non_overlapping_and_dense(t.shape, t.strides):
        return is_contiguous(gt.shape, gt.strides)
    return all((gs == vs) if n != 1 else gs != 0 for n, gs, vs in zip(gt.shape, gt.strides, t.strides))


def _unshared_argument_refs() -> int:
    """What ``getrefcount`` says of an argument that only its caller's local variable holds:
    3 from Python 3.11 on, 4 on 3.10, whose caller keeps the argument on its value stack during
    the call too. Measured once, in the shape of ``steal_grad``'s call."""
    def probe(x):
        return getrefcount(x)

    held = object()
    return probe(held)


_UNSHARED = _unshared_argument_refs()


def steal_grad(v: Tensor, g, graph: bool) -> bool:
    """AccumulateGrad's steal: a first gradient that nothing else references and that obeys the
    layout contract becomes ``v.grad`` without a copy (``g.detach()``, the same memory, which the
    node's post-hooks then see through ``g`` with what post-accumulate hooks changed in it).
    Returns whether it did. Python's reference count stands for PyTorch's use count:
    ``_UNSHARED`` is the caller's ``g``, this frame's and getrefcount's argument (and, on Python
    3.10, the caller's value stack). A gradient a hook kept, the
    program's own, or one the engine still holds (scalargrad's engine holds the gradients its
    kernels compute, which PyTorch may steal) is not stolen: ``store_grad`` copies it."""
    if graph or v._grad is not None or not isinstance(g, Tensor) or getrefcount(g) != _UNSHARED:
        return False
    if g._t.dtype is not v._t.dtype or g._t.shape != v._t.shape or not v.is_contiguous():
        return False  # a leaf of another layout: PyTorch's contract asks for contiguous; copied here
    if not all(n == 1 or a == b for n, a, b in zip(v._t.shape, g.stride(), v.stride())):
        return False
    v._grad = g.detach()
    return True


def store_grad(v: Tensor, g, graph: bool, in_place: bool) -> None:
    """Add ``g`` into ``v.grad`` as AccumulateGrad does (in place unless building a graph)."""
    old = v._grad
    t = v._t
    if old is None:
        if graph and isinstance(g, Tensor) and g._rg:
            # PyTorch copies the first gradient into new zeros: CopyBackwards(None, grad)
            zeros = leaf([t.dtype.round(0)] * t.numel if t.ndim else t.dtype.round(0), t)
            v._grad = make(FI.CopyInto, t, list(g._val) if t.ndim else g._val, (zeros, g), Layout(t.shape, t.dtype))
        else:
            # a copy (clone_obey_contract), under create_graph too: the gradient tensor may be
            # shared (AddBackward0 hands one to both inputs), and a hook may change .grad in place
            v._grad = fresh(g, t, steal=not graph)
    elif graph or not in_place:
        v._grad = old + wrap(g, t)
    else:
        add_into(old, g)  # in place, even a gradient that requires grad (no grad mode here)


def add_into(old: Tensor, g) -> None:
    """``old += g`` in place (AccumulateGrad: the ``.grad`` tensor a user holds sees it)."""
    k = old._t.kernel
    if old._t.ndim:
        new = k.add(old, g if isinstance(g, Tensor) else wrap(g, old._t))
        write(old, list(new._val))
    else:
        write(old, old._t.dtype.round(old._val + (g._val if isinstance(g, Tensor) else g)))
