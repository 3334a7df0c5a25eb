"""The comparison family's in-place comparisons (``x.lt_(y)``...): their elements are the 1s and
0s they wrote, constants. (Every other elementwise op's element keeps the op itself: see
``graph``.)"""

from __future__ import annotations

from .._ops.comparison import CompareInplace
from .graph import elements_of
from .views import fill

elements_of(CompareInplace, subclasses=True)(fill)
