"""``torch.version``: which PyTorch scalargrad answers as, and scalargrad's own version.

The package is imported as ``torch``, so ``torch.__version__`` (this module's ``__version__``)
is the version of PyTorch whose behaviour scalargrad reproduces, as PyTorch 2.13's CPU wheel
spells it; programs print it and compare it (``torch.__version__ >= "2.0"``). scalargrad's
own release is ``scalargrad_version`` (setup.cfg reads it from here without importing, so it
stays a plain literal).
"""

from __future__ import annotations

from .torch_version import TorchVersion

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "scalargrad_version", "xpu"]

scalargrad_version = "0.2.0"

__version__ = TorchVersion("2.13.0+cpu")
git_version = "cf30153c4c131c8164ee7798e5022d810682e2cb"  # PyTorch 2.13.0's commit, as its wheel reports
debug = False
cuda = None  # a CPU-only build: no CUDA, ROCm or XPU
hip = None
rocm = None
xpu = None
