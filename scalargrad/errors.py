"""scalargrad's own exception: ``Unsupported``, raised for a part of PyTorch it does not implement."""

from ._base.errors import Unsupported

__all__ = ["Unsupported"]
