"""Correctly rounded float64 transcendental functions where the C library's are not.

PyTorch's vectorised kernels differ in their last bit from one processor to the next, and the
C library's tanh is one ulp off for a few percent of arguments; the correctly rounded value is
the one every machine can agree on. mpmath (SymPy depends on it) gives it; the base layer
keeps to the standard library, so these live here.
"""

from __future__ import annotations

import math

from mpmath.libmp import from_float as _from_float
from mpmath.libmp import mpf_tanh as _mpf_tanh
from mpmath.libmp import to_float as _to_float


def tanh_correctly_rounded(x: float) -> float:
    """float64 tanh rounded once from the exact value. The C library's tanh is off by one ulp
    for a few percent of arguments, and PyTorch's vectorised one differs by processor; the
    correctly rounded value is the machine-independent one (mpmath, which SymPy depends on;
    about 9 us). Past |x| = 20 the result is +-1, below 2**-26 it is x itself."""
    if not 3.0e-8 < abs(x) < 20.0:
        return math.tanh(x)
    return _to_float(_mpf_tanh(_from_float(x), 53, "n"))
