"""The convolution family's elements (``_ops/convolution.py``): each output element is its bias
(if any) plus the products of its taps, the op table's ``Convolution.sympy``."""

from __future__ import annotations

from .._ops import convolution as CV
from .element_op import Const, Same
from .graph import Runs, elements_of
from .products import AddmmOf, DotOf

_SPLIT_KEEP = 8  # the geometries whose split taps are kept (a program has a few conv layers)
_split: dict = {}  # a geometry's arguments -> per output element (input indices, weight indices)


def _split_taps(geo) -> list:
    """Per output element, its taps' input and weight flat indices, as two tuples: the same for
    every node of the same geometry (a layer called at each step), so worked out once."""
    key = (geo.in_shape, geo.weight_shape, geo.stride, geo.padding, geo.dilation, geo.groups, geo.transposed,
           geo.output_padding)
    got = _split.get(key)
    if got is None or len(got) != len(geo.taps):
        got = [(tuple(i for i, _ in taps), tuple(j for _, j in taps)) for taps in geo.taps]
        if len(_split) >= _SPLIT_KEEP:
            _split.pop(next(iter(_split)))
        _split[key] = got
    return got


def _convolution(v, vin, vals):
    """Each output element: its bias (if any) plus the products of its taps, the op table's
    ``Convolution.sympy`` (as ``addmm``/``dot`` elements: the same form)."""
    geo = v._c
    x, w = vin[0], vin[1]
    bias = vin[2] if len(vin) > 2 else None
    spec = []
    for (xs, ws), oc in zip(_split_taps(geo), geo.channel):
        if bias is not None:
            spec.append((AddmmOf, None, Runs(((bias, (oc,)), (x, xs), (w, ws)))) if xs
                        else (Same, None, ((bias, oc),)))
        else:
            spec.append((DotOf, None, Runs(((x, xs), (w, ws)))) if xs else (Const, 0.0, ()))
    return spec


elements_of(CV.Convolution, CV.ConvolutionNoBias)(_convolution)
