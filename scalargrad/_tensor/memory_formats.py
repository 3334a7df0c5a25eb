"""``torch.memory_format``: ``contiguous_format``, ``channels_last``, ``channels_last_3d`` and
``preserve_format``, and the strides each gives a tensor, as c10 computes them.

scalargrad keeps every tensor's elements in logical order and its memory strides beside them
(``_base/layout``), so a channels-last tensor is a permuted-contiguous layout: ``stride()``,
``is_contiguous`` and the layout of what ops make from it follow PyTorch, and values are the
same whatever the format.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._base.dtypes import TensorType
from .._base.layout import contiguous_strides, is_contiguous, is_non_overlapping_and_dense
from .tensor import Tensor

__all__ = ["install", "memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
           "check_format", "format_strides", "is_contiguous_as", "suggest_format", "preserved_strides",
           "channels_last_input", "in_format"]


class memory_format:
    """``torch.memory_format``: one of the four objects below (PyTorch makes no others)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name


memory_format.__module__ = "torch"  # printed as <class 'torch.memory_format'>, as PyTorch's


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
_RANK = {channels_last: (4, "channels_last"), channels_last_3d: (5, "channels_last_3d")}


def check_format(fmt, what: str):
    """``fmt`` if it is a memory format or None, else PyTorch's TypeError naming ``what``."""
    if fmt is None or isinstance(fmt, memory_format):
        return fmt
    raise TypeError(f"{what}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")


def format_strides(shape: Sequence[int], fmt) -> tuple:
    """The strides of a new tensor of ``shape`` in ``fmt`` (contiguous, channels-last: N, then
    the spatial dims, then C innermost); a channels-last format of the wrong rank is c10's error."""
    if fmt in _RANK:
        rank, name = _RANK[fmt]
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        order = (1, *range(rank - 1, 1, -1), 0)  # innermost first: C, W, H(, D), N
        strides = [0] * rank
        acc = 1
        for d in order:
            strides[d] = acc
            acc *= max(shape[d], 1)
        return tuple(strides)
    return contiguous_strides(shape)


def is_contiguous_as(shape: Sequence[int], strides: Sequence[int], fmt) -> bool:
    """``Tensor.is_contiguous(memory_format=fmt)``: c10's channels-last contiguity (dims of size
    1 take any stride; a tensor of another rank is not); any other format asks plain contiguity."""
    if fmt in _RANK:
        if len(shape) != _RANK[fmt][0]:
            return False
        if not all(shape):
            return True
        expected = 1
        for d in (1, *range(len(shape) - 1, 1, -1), 0):
            if shape[d] != 1:
                if strides[d] != expected:
                    return False
                expected *= shape[d]
        return True
    return is_contiguous(shape, strides)


def _strides_like_channels_last(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's ``is_channels_last_strides_2d_s4``/``_3d_s5``: whether strides read as
    channels-last, ambiguous layouts (N111, 1C1W permutations) falling back to contiguous."""
    if len(shape) not in (4, 5) or strides[1] == 0:
        return False
    lowest = 0
    for d in (1, *range(len(shape) - 1, 1, -1), 0):
        if shape[d] == 0 or strides[d] < lowest:
            return False
        if d == 0 and lowest == strides[1]:
            return False
        lowest = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest_format(shape: Sequence[int], strides: Sequence[int]):
    """``Tensor.suggest_memory_format()``: channels-last when the strides read so, else contiguous."""
    if _strides_like_channels_last(shape, strides):
        return channels_last if len(shape) == 4 else channels_last_3d
    return contiguous_format


def preserved_strides(shape: Sequence[int], strides: Sequence[int], fmt) -> tuple:
    """The strides ``empty_like``/``clone``/``to`` give a copy of a tensor laid out as
    (``shape``, ``strides``) when asked for ``fmt`` (None: preserve): preserve keeps a dense,
    non-overlapping tensor's strides and otherwise takes the format its strides suggest."""
    if fmt is None or fmt is preserve_format:
        if is_non_overlapping_and_dense(shape, strides):
            return tuple(strides)
        fmt = suggest_format(shape, strides)
    return format_strides(shape, fmt)


def channels_last_input(*tensors):
    """The channels-last format of the first of ``tensors`` (None skipped) whose strides suggest
    one, else None: what ATen's convolution, pooling, upsampling and padding kernels lay their
    result out in (``suggest_memory_format`` of the input, or of the weight)."""
    for t in tensors:
        if t is not None and not t._t.contiguous and t._t.ndim in (4, 5):
            fmt = suggest_format(t._t.shape, t._t.strides)
            if fmt is not contiguous_format:
                return fmt
    return None


def in_format(out: Tensor, fmt) -> Tensor:
    """``out``, a result just made (no view of it yet), laid out in ``fmt`` (None: as it is)."""
    if fmt is not None and out._t.ndim == _RANK[fmt][0]:
        out._t = TensorType(out._t.dtype, out._t.shape, format_strides(out._t.shape, fmt))
    return out


def install(method, function) -> None:
    for name in ("memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        function(name, globals()[name], checked=False)
