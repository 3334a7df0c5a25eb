"""The upsampling family's elements (``_ops/upsampling.py``): an upsampled element is a copy of the
input element it reads; the backward as a node sums the gradients of the outputs that copy each
input element."""

from __future__ import annotations

from .._ops import upsampling as UP
from .graph import elements_of
from .padding import copies, sums_of_copies

elements_of(UP.Nearest, subclasses=True)(copies)
elements_of(UP.NearestBackward, subclasses=True)(sums_of_copies)
