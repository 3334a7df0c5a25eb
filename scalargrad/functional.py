"""``torch.functional``: the module PyTorch defines ``norm``, ``einsum``, ``split``,
``broadcast_tensors``... in (``torch.norm`` is ``torch.functional.norm``). Its names scalargrad
has are the torch namespace's own; the others are PyTorch's names that raise ``Unsupported``
when used, in every spelling (``from torch.functional import unique`` included)."""

from __future__ import annotations

# absolute imports: a program that makes scalargrad its torch by hand (``sys.modules['torch'] =
# scalargrad``) loads this file as ``torch.functional``, and relative imports would then load a
# second copy of scalargrad's internals under torch's names
import warnings
from collections.abc import Sequence

from scalargrad._base import dtypes
from scalargrad._base.missing_api import missing_attribute
from scalargrad._base.warn_once import first_time
from scalargrad._tensor.surface import FUNCTIONS
from scalargrad._tensor.tensor import Tensor

# PyTorch 2.13's torch.functional.__all__
_PYTORCH = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
            "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split",
            "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index")

globals().update({name: FUNCTIONS[name] for name in _PYTORCH if name in FUNCTIONS})


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """``torch.meshgrid(*tensors, indexing=None)``: for N 0-D or 1-D tensors, N grids of shape
    (n1, ..., nN), the i-th one the i-th tensor viewed along dimension i and expanded (views:
    ``ExpandBackward0`` over ``ViewBackward0``, as ATen builds them). ``indexing="xy"`` swaps the
    first two inputs and outputs; without ``indexing`` it is "ij", with PyTorch's warning (once)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        if first_time("meshgrid_indexing"):  # TORCH_WARN_ONCE
            warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                          "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                            f"{type(t).__name__}")
    if any(a.dtype is not b.dtype for a, b in zip(tensors, tensors[1:])):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    elif indexing != "xy" and indexing != "ij":
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in refs:
        if t.dim() > 1:
            # PyTorch prints the tensor with its C++ printer here; scalargrad names its type and size
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"[ {t.type()}{{{','.join(str(s) for s in t.shape)}}} ]")
    shape = [t.numel() for t in refs]
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * len(refs)
        view_shape[i] = -1
        grids.append(t.view(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors) -> Tensor:
    """``torch.cartesian_prod``: ATen's composite, the ``ij`` meshgrid of 1-D tensors flattened and
    stacked as columns (StackBackward0); one tensor is returned as it is."""
    for t in tensors:
        if isinstance(t, Tensor) and t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return FUNCTIONS["stack"]([g.flatten() for g in grids], 1)


def unravel_index(indices: Tensor, shape) -> tuple:
    """``torch.unravel_index(indices, shape)``: flat indices as coordinate tensors (int64), PyTorch's
    Python composite: ``indices.unsqueeze(-1).floor_divide(strides) % shape``, unbound on the last dim."""
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.is_floating_point() or indices.dtype is dtypes.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for dim in shape:
        if not isinstance(dim, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
    if any(dim < 0 for dim in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        coefs[i] = coefs[i + 1] * shape[i + 1]
    tensor = FUNCTIONS["tensor"]
    coords = indices.unsqueeze(-1).floor_divide(tensor(coefs or [1], dtype=dtypes.int64)) % \
        tensor(list(shape), dtype=dtypes.int64)
    return coords.unbind(-1)


__all__ = [name for name in _PYTORCH if name in FUNCTIONS or name in globals()]


def __getattr__(name: str):
    return missing_attribute("torch.functional", name, "function" if name in _PYTORCH else None)
