"""Where a warning points: the program's line, as PyTorch's C++ warnings do.

PyTorch's ``TORCH_WARN`` shows the Python line that called into its kernel; scalargrad's
kernels are Python, several frames deep, so a warning's ``stacklevel`` is counted up to the
first frame outside the package.
"""

from __future__ import annotations

import os
import sys

__all__ = ["program_stacklevel"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def program_stacklevel() -> int:
    """The ``stacklevel`` that makes the caller's ``warnings.warn`` name the program's line (the
    first frame outside scalargrad)."""
    f = sys._getframe(1)
    level = 1
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        f = f.f_back
        level += 1
    return level
