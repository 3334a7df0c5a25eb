"""``torch.functional``: the module PyTorch defines ``norm``, ``einsum``, ``split``,
``broadcast_tensors``... in (``torch.norm`` is ``torch.functional.norm``). Its names scalargrad
has are the torch namespace's own; the others are PyTorch's names that raise ``Unsupported``
when used, in every spelling (``from torch.functional import unique`` included)."""

from __future__ import annotations

# absolute imports: a program that makes scalargrad its torch by hand (``sys.modules['torch'] =
# scalargrad``) loads this file as ``torch.functional``, and relative imports would then load a
# second copy of scalargrad's internals under torch's names
from scalargrad._base.missing_api import missing_attribute
from scalargrad._tensor.surface import FUNCTIONS

# PyTorch 2.13's torch.functional.__all__
_PYTORCH = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
            "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split",
            "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index")

globals().update({name: FUNCTIONS[name] for name in _PYTORCH if name in FUNCTIONS})
__all__ = [name for name in _PYTORCH if name in FUNCTIONS]


def __getattr__(name: str):
    return missing_attribute("torch.functional", name, "function" if name in _PYTORCH else None)
