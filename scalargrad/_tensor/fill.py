"""Fills (``_ops/fill.py``): ``fill_``/``zero_``, ``masked_fill``, ``fill_diagonal_``, ``copy_``, and the random fills
``uniform_``/``normal_``, which write into a tensor's memory (in a graph, as nodes whose old
values get no gradient).
"""

from __future__ import annotations

import math
import warnings

from .._base import dtypes, rng
from .._base.dtypes import TensorType, round_list
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.layout import contiguous_strides
from .._base.numpy_types import is_numpy_scalar
from .._ops import fill as FI
from .._ops.views import Layout
from .arguments import not_tensor
from .inplace import FILLS, check_inplace, check_no_overlap, inplace, overlapping
from .meta import changed_in_place, copy_into_meta, is_meta, refuse_reading
from .operands import broadcast_shapes, positions
from .sampling import refuse_graph
from .storage import positions_in_base, write
from .tensor import Tensor, leaf, make
from .tensor_kernel import helper

__all__ = ["fill", "masked_fill", "fill_diagonal", "masked_zero", "mask_of", "copy_into", "random_fill", "install"]


def fill(self, value, zero: bool = False):
    """``fill_``: every element becomes ``value`` (FillBackward2, FillBackward3 with a tensor
    value, ZeroBackward0 for ``zero_``, in a graph)."""
    source = None
    if isinstance(value, Tensor):
        if value._t.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._t.ndim} dimensions.")
        source = value
        value = value._val
    elif value.__class__ not in (int, float, bool, complex):
        if not is_numpy_scalar(value):
            raise TypeError(f"fill_(): argument 'value' (position 1) must be Number, not {type(value).__name__}")
        value = value.item()
    dt = self._t.dtype
    if is_meta(self):  # PyTorch's meta kernel checks no range: the value is never stored
        return changed_in_place(self)
    if source is None:
        dtypes.check_fits(dt, value)
        value = value.real if value.__class__ is complex else value  # c10: a complex Number without imaginary part
    v = dt.round(value)
    vals = [v] * self._t.numel if self._t.ndim else v
    layout = Layout(self._t.shape, value=v)
    if source is not None:
        return inplace(self, lambda t: make(FI.FillTensor, t._t, vals, (t, source), layout))
    op = FI.Zero if zero else FI.Fill  # fill_(0) is FillBackward2, zero_() ZeroBackward0
    return inplace(self, lambda t: make(op, t._t, vals, (t,), layout), FILLS)


def random_fill(self, draw, *args, generator=None):
    """``uniform_``/``normal_``: new numbers from the generator, written in place."""

    check_inplace(self)
    refuse_graph(self, f"{draw}_")
    check_no_overlap(self)
    t = self._t
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f"\"{'check_uniform_bounds' if draw == 'uniform' else 'normal_kernel_cpu'}\" "
                                  f"not implemented for '{t.dtype.short}'")
    if is_meta(self):  # no numbers drawn: PyTorch's meta kernel leaves the generator alone
        if draw == "normal":
            rng.normal(0, t.dtype.name, *args, generator=generator)  # its std check (none drawn)
        return changed_in_place(self)
    n = t.numel
    if draw == "uniform":
        vals = rng.uniform(n, t.dtype.name, *args, generator=generator)
    else:
        vals = rng.normal(n, t.dtype.name, *args, generator=generator, contiguous=t.contiguous)
    vals = round_list(t.dtype, vals)
    write(self, vals if t.ndim else vals[0])
    return self


_UNSET = object()
_RANDOM_DTYPES = ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool")


def random_(self, from_=None, to=_UNSET, *, generator=None):
    """``random_()``: integers drawn as ATen's CPU kernel draws them, written in place:
    ``random_()`` [0, 2**digits] for a float (24, 53), [0, max] for an integer dtype;
    ``random_(to)`` [0, to); ``random_(from, to)`` [from, to)."""
    check_inplace(self)
    refuse_graph(self, "random_")
    t = self._t
    if to is _UNSET:  # random_(to): one number is the upper bound
        from_, to = (None, None) if from_ is None else (0, from_)
    elif from_ is None:
        from_ = 0
    name = t.dtype.name
    if name not in _RANDOM_DTYPES:
        raise Unsupported(f"Tensor.random_ of a {name} tensor", "scalargrad draws random_ in float32, float64, "
                          "the integer dtypes and bool")
    check_no_overlap(self)
    if not t.contiguous:
        raise Unsupported("Tensor.random_ of a non-contiguous tensor", "PyTorch fills it in memory order; call "
                          "random_ on a contiguous tensor and copy it in")
    if from_ is not None and to is None:
        raise Unsupported("Tensor.random_(from, None)", "give the upper bound")
    if from_ is not None:
        from_, to = int(from_), int(to)
        if from_ >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        lo, hi = _random_bounds(t.dtype)
        if not t.dtype.is_floating_point:  # check_from_to_in_range
            for what, v in (("from", from_), ("to - 1", to - 1)):
                if not lo <= v <= hi:
                    raise RuntimeError(f"{what} is out of bounds for {t.dtype.c_name}")
        if from_ < lo or to - 1 > hi:
            raise Unsupported(f"Tensor.random_({from_}, {to}) on a {name} tensor", f"scalargrad draws within "
                              f"[{lo}, {hi}], where the dtype holds every integer")
    vals = rng.random_integers(t.numel, name, from_, to, generator=generator)
    vals = round_list(t.dtype, vals)
    write(self, vals if t.ndim else vals[0])
    return self


def _random_bounds(dt) -> tuple:
    """The integers ``random_(from, to)`` may draw in ``dt`` with no adjustment of the bounds."""
    if dt.is_floating_point:
        digits = 24 if dt is dtypes.float32 else 53
        return -(1 << digits), 1 << digits
    if dt is dtypes.bool:
        return 0, 1
    if dt is dtypes.uint8:
        return 0, 255
    bits = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}[dt.name]
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


_NUMBER_DTYPES = {bool: dtypes.bool, int: dtypes.int64, float: dtypes.float64}


def copy_into(self, other, non_blocking=False):
    """``copy_(other)``: ``other``'s elements (a tensor or a Python number, which PyTorch wraps as
    a 0-dim bool, int64 or float64 tensor), broadcast and cast to this tensor's dtype."""
    number = _NUMBER_DTYPES.get(other.__class__)
    if number is not None:
        other = leaf(other, TensorType(number, ()))
    elif not isinstance(other, Tensor):
        raise not_tensor(other, 'copy_', 'other', 1)
    src = other
    if is_meta(self):
        return copy_into_meta(self, src)
    refuse_reading(src, "copy")
    shape = tuple(self._t.shape)
    if broadcast_shapes(shape, src._t.shape) != shape:
        raise RuntimeError(f"The size of tensor a ({shape[-1] if shape else 1}) must match the size of tensor b "
                           f"({src._t.shape[-1]}) at non-singleton dimension {len(shape) - 1}")

    sv = src._val if src._t.ndim else [src._val]
    col = [sv[i] for i in positions(src._t.shape, shape)] if tuple(src._t.shape) != shape else list(sv)
    dt = self._t.dtype
    col = dtypes.cast_values(src._t.dtype, dt, col) if src._t.dtype is not dt else col
    vals = col if shape else col[0]
    return inplace(self, lambda t: make(FI.CopyInto, t._t, vals, (t, src), Layout(src._t.shape, src._t.dtype)),
                   operands=(src,))


def masked_fill(self, mask, value, in_place: bool = False):
    """``masked_fill(mask, value)`` (``in_place``: ``masked_fill_``): ``value`` where the bool ``mask``,
    broadcast to the tensor's shape, holds (MaskedFillBackward0 in a graph)."""
    if not isinstance(mask, Tensor) or mask._t.dtype is not dtypes.bool:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask._t.dtype.short if isinstance(mask, Tensor) else type(mask).__name__}")
    if isinstance(value, Tensor):
        value = value.item()
    if value.__class__ is complex:  # c10: a complex Number fits a real tensor only without imaginary part
        dtypes.check_fits(self._t.dtype, value)
        value = value.real
    shape = full = tuple(self._t.shape)
    if tuple(mask._t.shape) != shape:
        # the mask broadcasts with the tensor: in place only to the tensor's own shape; out of
        # place both are expanded first (PyTorch's expand_outplace), in PyTorch's words if not
        # (the operands in PyTorch's order, which its size message names)
        full = tuple(broadcast_shapes(shape, mask._t.shape) if in_place else broadcast_shapes(mask._t.shape, shape))
        if in_place and full != shape:
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")
    mv = mask._val if mask._t.ndim else [mask._val]
    m = [mv[i] for i in positions(mask._t.shape, full)] if tuple(mask._t.shape) != full else list(mv)
    dt = self._t.dtype
    if dt is not dtypes.bool:  # ATen's kernel converts the Scalar checked: -inf into int64 is an error
        dtypes.check_scalar_fits(dt, value)
    c = dt.round(value)
    old = self._val if self._t.ndim else [self._val]
    if full != shape:
        # the expansion of self is inside the node (no ExpandBackward0): the engine sums the
        # gradient back to self's shape, as PyTorch's validate_outputs does
        old = [old[i] for i in positions(shape, full)]
    vals = [c if b else x for x, b in zip(old, m)]
    layout = Layout(full, map=[i for i, b in enumerate(m) if b], value=c, tensors=mask)

    def compute(t):
        return make(FI.MaskedFill, t._t, vals if shape else vals[0], (t,), layout)

    if in_place:
        if overlapping(self) and self._s is not None and self._s.base is not None:
            # elements sharing memory (an expanded view): one value is written wherever any of
            # them is masked, whatever the kernel's order, so every alias of it shows that value
            warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                          "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = "
                          "scalar", UserWarning, stacklevel=3)
            pos = positions_in_base(self)
            filled = {p for p, b in zip(pos, m) if b}
            vals = [c if p in filled else x for p, x in zip(pos, vals)]
            return inplace(self, compute, FILLS)
        return inplace(self, compute, "masked_fill_")
    # out of place PyTorch fills a contiguous clone (clone(MemoryFormat::Contiguous)): an
    # expanded, sliced or transposed input's strides are not the result's
    out_t = self._t if self._t.contiguous and full == shape else TensorType(dt, full)
    return make(FI.MaskedFill, out_t, vals if full else vals[0], (self,), layout)


def fill_diagonal(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """``fill_diagonal_``: the elements (i, i, ..., i) set to ``fill_value`` (every dim of the
    same size beyond 2-D); with ``wrap``, a tall matrix's diagonal starts again every width + 1
    rows. ATen's composite fills ``as_strided`` views of self (N+1 apart in memory); here the
    same elements through ``masked_fill_``, so a graph (CopySlices over AsStridedBackward0) is
    refused by name rather than recorded differently."""
    nd = self._t.ndim
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self._t.shape)
    if nd > 2 and any(s != shape[0] for s in shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    if self._rg and is_grad_enabled():
        if self.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        raise Unsupported("Tensor.fill_diagonal_ in a graph (CopySlices over an as_strided view)")
    h, w = shape[0], shape[1]
    n = min(h, w)
    stride = sum(contiguous_strides(shape))  # the flat step from (i, ..., i) to (i + 1, ..., i + 1)
    hits = [i * stride for i in range(n)]
    if wrap and nd == 2 and h > w + 1:  # the wrapped diagonal: memory positions (w + 1) * j further on
        if not self.is_contiguous():
            raise Unsupported("Tensor.fill_diagonal_(wrap=True) of a non-contiguous matrix")
        hits = list(range(0, self._t.numel, w + 1))
    flags = [False] * self._t.numel
    for i in hits:
        flags[i] = True
    mask = leaf(flags, TensorType(dtypes.bool, shape))
    return masked_fill(self, mask, fill_value, True)


def install(method, function) -> None:
    method("fill_diagonal_", lambda self, fill_value, wrap=False: fill_diagonal(self, fill_value, wrap))
    """fill_, zero_, uniform_, normal_, random_, copy_, masked_fill(_)."""
    # PyTorch's parser names the bounds ``from`` (a Python keyword: positional here) and ``to``
    method("uniform_", lambda self, a=0.0, /, to=1.0, *, generator=None: random_fill(self, "uniform", a, to,
                                                                                      generator=generator))
    method("normal_", lambda self, mean=0.0, std=1.0, *, generator=None: random_fill(self, "normal", mean, std,
                                                                                      generator=generator))
    method("random_", random_)
    method("fill_", fill)
    method("zero_", lambda self: fill(self, 0, zero=True))
    method("copy_", copy_into)
    method("masked_fill", lambda self, mask, value: masked_fill(self, mask, value, False))
    method("masked_fill_", lambda self, mask, value: masked_fill(self, mask, value, True))
    function("masked_fill", lambda input, mask, value: masked_fill(input, mask, value, False))


def masked_zero(g: Tensor, mask: Tensor) -> Tensor:
    """``g.masked_fill(mask, 0)``: a masked-out gradient."""
    return masked_fill(g, mask, 0.0, False)


def mask_of(m, like: Tensor) -> Tensor:
    """A bool mask of ``like``'s shape, True at the flat positions ``m``."""
    n = like._t.numel
    vals = [False] * n
    for i in m:
        vals[i] = True
    return leaf(vals if like._t.ndim else vals[0], TensorType(dtypes.bool, like._t.shape))


@helper(name="masked_zero")
def _masked_zero_grad(g, layout):
    """masked_fill's backward: the gradient with zeros where the mask held."""
    return masked_zero(g, mask_of(layout.map, g))


helper(masked_zero, name="masked_fill_zero")


@helper
def zero_where_inf(x):
    """``x.masked_fill(x.isinf(), 0)``."""
    vals = x._val if x._t.ndim else [x._val]
    mask = leaf([v in (math.inf, -math.inf) for v in vals] if x._t.ndim else vals[0] in (math.inf, -math.inf),
                TensorType(dtypes.bool, tuple(x._t.shape)))
    return masked_fill(x, mask, 0, False) if any(mask._val if x._t.ndim else [mask._val]) else x
