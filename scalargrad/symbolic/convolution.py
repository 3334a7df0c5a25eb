"""The convolution family's elements (``_ops/convolution.py``): each output element is its bias
(if any) plus the products of its taps, the op table's ``Convolution.sympy``."""

from __future__ import annotations

from .._ops import convolution as CV
from .element_op import Const, Same
from .graph import elements_of
from .products import AddmmOf, DotOf


def _convolution(v, vin, vals):
    """Each output element: its bias (if any) plus the products of its taps, the op table's
    ``Convolution.sympy`` (as ``addmm``/``dot`` elements: the same form)."""
    geo = v._c
    x, w = vin[0], vin[1]
    bias = vin[2] if len(vin) > 2 else None
    spec = []
    for taps, oc in zip(geo.taps, geo.channel):
        pairs = tuple((x, i) for i, _ in taps) + tuple((w, j) for _, j in taps)
        if bias is not None:
            spec.append((AddmmOf, None, ((bias, oc),) + pairs) if taps else (Same, None, ((bias, oc),)))
        else:
            spec.append((DotOf, None, pairs) if taps else (Const, 0.0, ()))
    return spec


elements_of(CV.Convolution, CV.ConvolutionNoBias)(_convolution)
