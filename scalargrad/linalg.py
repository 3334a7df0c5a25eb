"""``torch.linalg``: the vector norms (``vector_norm``, ``norm`` of vectors and the Frobenius
norm of matrices), the determinant (``det``), the cross product (``cross``), ``cholesky`` and ``inv``;
every other function raises ``Unsupported`` naming it."""

from __future__ import annotations

from ._base.missing_api import missing_attribute
from ._tensor.linalg import LinAlgError
from ._tensor.linalg import linalg_cholesky as cholesky
from ._tensor.linalg import linalg_cross as cross
from ._tensor.linalg import linalg_det as det
from ._tensor.linalg import linalg_inv as inv
from ._tensor.linalg import linalg_slogdet as slogdet
from ._tensor.norms import linalg_norm as norm
from ._tensor.norms import vector_norm

__all__ = ["LinAlgError", "cholesky", "cross", "det", "inv", "norm", "slogdet", "vector_norm"]


def __getattr__(name: str):
    return missing_attribute("torch.linalg", name)
