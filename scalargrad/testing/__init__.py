"""``torch.testing``: ``assert_close`` (PyTorch's comparison and messages) and the deprecated
``assert_allclose``; the rest of PyTorch's names raise ``Unsupported`` when used."""

from __future__ import annotations

import warnings

from .._base import dtypes
from .._base.missing_api import missing_attribute
from .._tensor import complex_numbers
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor
from ._comparison import assert_close

__all__ = ["assert_close", "assert_allclose"]


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """Deprecated (PyTorch warns): ``assert_close`` with ``equal_nan=True`` and no dtype check,
    numbers turned into tensors first."""

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = FUNCTIONS["tensor"](actual)
    if not isinstance(expected, Tensor):
        expected = FUNCTIONS["tensor"](expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        # its own, looser defaults
        precisions = {dtypes.float16: (1e-3, 1e-3), dtypes.float32: (1e-4, 1e-5), dtypes.float64: (1e-5, 1e-8)}
        rtol, atol = (max(r) for r in zip(*[precisions.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)

complex_numbers.register_namespace(globals(), "torch.testing.")  # complex operands: refused by name


def __getattr__(name: str):
    return missing_attribute("torch.testing", name)
