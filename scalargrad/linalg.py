"""``torch.linalg``: the vector and matrix norms (``vector_norm``, ``matrix_norm``, ``norm``), the
determinant (``det``), the cross product (``cross``), ``cholesky``, ``cholesky_ex``, ``inv``, ``inv_ex``,
``multi_dot``, ``eigvalsh``, ``matrix_rank``, ``slogdet``, ``qr``, ``svdvals`` and the LU family
(``lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_solve``, ``solve``, ``solve_ex``), ``solve_triangular``,
the composites ``matrix_power``, ``vecdot``, ``tensorinv``, ``tensorsolve``;
every other function raises ``Unsupported`` naming it."""

from __future__ import annotations

from ._base.missing_api import missing_attribute
from ._tensor import complex_numbers
from ._tensor.contractions import multi_dot
from ._tensor.linalg import LinAlgError, cholesky_ex
from ._tensor.linalg import linalg_cholesky as cholesky
from ._tensor.linalg import linalg_cross as cross
from ._tensor.linalg import linalg_det as det
from ._tensor.linalg import linalg_inv as inv
from ._tensor.linalg import linalg_inv_ex as inv_ex
from ._tensor.linalg import linalg_slogdet as slogdet
from ._tensor.linalg_composites import matrix_power, solve_ex, tensorinv, tensorsolve, vecdot
from ._tensor.linalg_eigh import eigvalsh, matrix_rank
from ._tensor.linalg_lu import linalg_lu as lu
from ._tensor.linalg_lu import linalg_lu_factor as lu_factor
from ._tensor.linalg_lu import linalg_solve as solve
from ._tensor.linalg_lu import lu_factor_ex, lu_solve
from ._tensor.linalg_qr import linalg_qr as qr
from ._tensor.linalg_svdvals import linalg_svdvals as svdvals
from ._tensor.linalg_triangular import solve_triangular
from ._tensor.norms import linalg_norm as norm
from ._tensor.norms import matrix_norm, vector_norm

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "eigvalsh", "inv", "inv_ex", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "qr",
           "slogdet", "solve", "solve_ex", "solve_triangular", "svdvals", "tensorinv", "tensorsolve", "vecdot",
           "vector_norm"]

complex_numbers.register_namespace(globals(), "torch.linalg.")  # complex operands: refused by name


def __getattr__(name: str):
    return missing_attribute("torch.linalg", name)
