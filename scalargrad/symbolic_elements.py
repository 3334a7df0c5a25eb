"""The element graph: tensor-level nodes seen as the scalar nodes of their elements.

The engine keeps one node per tensor op, as PyTorch does: ``y = x * w`` for 2x3 tensors is one
MulBackward0 node whose value is a list of six numbers. ``scalargrad.symbolic`` proves every
element's gradient with SymPy, so it reads a graph through this expansion: each tensor node
becomes one *element* per output element, whose inputs are the input elements it depends on.

* A 0-dim node of 0-dim tensors is its own element (the tensor itself, no copy): a scalar
  program of millions of nodes is checked as cheaply as before tensors had dimensions.
* An elementwise op's element ``j`` takes the element of each input broadcast to position
  ``j`` (``_tensor.operands.positions``), and keeps the op itself: its ``sympy`` form and its
  ``backward`` formula run on the element's numbers (the float kernels) as on a 0-dim node.
* Reductions, products, views, copies, joins, indexing and losses are made of a few
  structural element ops, declared here with their form, value and partial derivatives side
  by side (``ElementOp``); where the op table declares an element's form (``Sum.sympy``,
  ``Dot.sympy``, ``Addmm.sympy``, ``MseLoss.sympy``, the views' identity), it is that form.
  Their partials are proved against the form by SymPy (``symbolic``), and each node's bulk
  backward is compared with them on a probe gradient.
* A custom Function on multi-element tensors is applied element by element when it declares
  its form holds element by element (``sympy_elementwise``, e.g. ``nn``'s identity
  ``BackwardHookFunction``); otherwise its elements are opaque.

Which version of an input a node consumed is decided at the tensor level first
(``engine.route``: a tensor changed in place since), then the node is expanded.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ._autograd.engine import route
from ._autograd.function import Pick as FunctionPick
from ._base.dtypes import TensorType
from ._base.layout import slices
from ._ops import convolution as CV
from ._ops import embedding as EM
from ._ops import fill as FI
from ._ops import joins as J
from ._ops import losses as LO
from ._ops import moments as MO
from ._ops import normalization as NO
from ._ops import norms as NM
from ._ops import pooling as PO
from ._ops import products as L
from ._ops import reductions as R
from ._ops import scans as SC
from ._ops import scatter as W
from ._ops import selection as SE
from ._ops import softmax as SM
from ._ops import views as S
from ._ops.comparison import CompareInplace
from ._ops.elementwise import Elementwise
from ._ops.indexing import IndexPut, Scatter
from ._ops.views import Layout
from ._tensor.operands import broadcast_shapes, positions
from ._tensor.reductions import group_index
from ._tensor.tensor import MANY

__all__ = ["Elem", "ElementGraph", "ElementOp", "ELEMENT_OPS", "Same", "Const", "SumOf", "MeanOf", "MaxOf", "MinOf",
           "DotOf", "AddmmOf", "MseOf", "PointwiseLossOf", "LOSS_ELEMENTS", "NllOf", "NllBackwardOf", "SoftmaxOf",
           "LogSoftmaxOf", "LogsumexpOf", "SoftmaxBackwardOf", "LogSoftmaxBackwardOf", "Opaque", "opaque_op",
           "element_index", "NO_ELEMENT", "shape_pick", "covers", "WindowMeanOf", "WindowSpreadOf",
           "NormalizedOf", "LastOf"]


class Elem:
    """One element of a tensor node (or of a leaf or constant tensor with dimensions).

    It has the slots the symbolic check and the float kernels read from a 0-dim node: ``_op``
    (the declared op, or an ``ElementOp``; None for a leaf or a constant), ``_a``/``_b`` (its
    input elements, ``(tuple, MANY)`` for three or more), ``_c``, ``_val`` (the element's
    number), ``_t`` (a 0-dim TensorType of the node's dtype), ``_rg``, ``_seq`` (the node's) and
    ``_ext`` (always None: hooks belong to the tensor, ``node``). ``index`` is its flat position
    in ``node``; a custom Function's output element also knows the Function's node ``fn``, its
    output ``slot`` and, per tensor input, the flat position of its argument (``pos_in``).
    """

    __slots__ = ("_op", "_a", "_b", "_c", "_val", "_t", "_rg", "_seq", "_ext", "node", "index", "fn", "slot",
                 "pos_in")

    @property
    def _in(self) -> tuple:
        b = self._b
        if b is None:
            a = self._a
            return () if a is None else (a,)
        return self._a if b is MANY else (self._a, b)

    def __repr__(self) -> str:
        return f"<element {self.index} of {self.node._op.name if self.node._op is not None else 'a leaf'}>"


def _elem(node, index: int, op, c, val, t, ins: tuple, rg: bool = True) -> Elem:
    e = object.__new__(Elem)
    e._op = op
    n = len(ins)
    if n == 0:
        e._a = e._b = None
    elif n == 1:
        e._a, e._b = ins[0], None
    elif n == 2:
        e._a, e._b = ins
    else:
        e._a, e._b = ins, MANY
    e._c = c
    e._val = val
    e._t = t
    e._rg = rg
    e._seq = node._seq
    e._ext = None
    e.node = node
    e.index = index
    e.fn = None
    e.slot = 0
    e.pos_in = None
    return e


def _constant() -> Elem:
    e = object.__new__(Elem)
    e._op = None
    e._a = e._b = None
    e._c = None
    e._val = 0.0
    e._t = None
    e._rg = False
    e._seq = 0
    e._ext = None
    e.node = None
    e.index = 0
    e.fn = None
    e.slot = 0
    e.pos_in = None
    return e


NO_ELEMENT = _constant()
"""Stands for an argument a custom Function's declared form does not use at an output element
(an input whose shape does not broadcast to that output's)."""


def element_index(shape, flat: int) -> tuple:
    """The multi-index of flat (row-major) position ``flat`` in ``shape``."""
    idx = []
    for s in reversed(tuple(shape)):
        idx.append(flat % s if s else 0)
        flat = flat // s if s else 0
    return tuple(reversed(idx))


# ---------------------------------------------------------------- structural element ops


class ElementOp:
    """An element op made of input elements by structure: its SymPy form (``sympy(sp, args,
    c)``), its value in double (``value(vals, c)`` -> (value, scale), the scale being what
    its rounding is relative to, sum |terms| for a sum) and its partial derivatives
    (``partials(vals, c)``), side by side. ``symbolic`` proves the partials against the form
    on ``sample()`` once, and each node's bulk backward against the partials.

    ``c_kind``: how ``_c`` reaches the form: None (it does not), "number" (as the exact number
    it holds), "object" (as is)."""

    name = "element"
    c_kind: str | None = None
    variadic = True

    @staticmethod
    def sympy(sp, args, c):
        raise NotImplementedError

    @staticmethod
    def value(vals, c) -> tuple:
        raise NotImplementedError

    @staticmethod
    def partials(vals, c) -> list:
        raise NotImplementedError

    @staticmethod
    def convention(vals, c):
        """``(note, None)`` where PyTorch's derivative is a convention (a tie of a max), else None."""
        return None

    @staticmethod
    def sample() -> tuple:
        """(values, c) of a small instance on which SymPy proves ``partials`` and ``value``."""
        return [0.75, -1.25, 2.5], None


class Same(ElementOp):
    """The element is one input element (views, copies, joins, picks, indexing): the
    identity the op table declares for shape ops."""

    name = "identity"
    variadic = False

    @staticmethod
    def sympy(sp, args, c):
        return S.Structural.sympy(sp, args[0])

    @staticmethod
    def value(vals, c):
        return vals[0], abs(vals[0])

    @staticmethod
    def partials(vals, c):
        return [1.0]

    @staticmethod
    def sample():
        return [0.75], None


class Const(ElementOp):
    """An element that no longer depends on its input (``fill_``, ``masked_fill``, an assigned
    number): the number ``c``."""

    name = "constant"
    c_kind = "number"

    @staticmethod
    def sympy(sp, args, c):
        return c

    @staticmethod
    def value(vals, c):
        return c, abs(c)

    @staticmethod
    def partials(vals, c):
        return [0.0] * len(vals)

    @staticmethod
    def sample():
        return [0.75], 2.5


def _fsum(vals) -> float:
    try:
        return math.fsum(vals)
    except (OverflowError, ValueError):  # inf - inf, or an overflowing partial sum
        return sum(vals)


class SumOf(ElementOp):
    """A sum of input elements (``sum``): the op table's ``Sum.sympy``."""

    name = "sum"

    @staticmethod
    def sympy(sp, args, c):
        return R.Sum.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        return _fsum(vals), _fsum([abs(x) for x in vals])

    @staticmethod
    def partials(vals, c):
        return [1.0] * len(vals)


class MeanOf(ElementOp):
    """A mean of input elements (``mean``): the op table's ``Mean.sympy``."""

    name = "mean"

    @staticmethod
    def sympy(sp, args, c):
        return R.Mean.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        n = len(vals)
        if not n:
            return math.nan, 0.0
        return _fsum(vals) / n, _fsum([abs(x) for x in vals]) / n

    @staticmethod
    def partials(vals, c):
        n = len(vals)
        return [1.0 / n] * n


def _extreme(vals, largest: bool) -> tuple:
    """(value, positions reaching it) of max/min, nan winning as in PyTorch."""
    nans = [i for i, x in enumerate(vals) if x != x]
    if nans:
        return math.nan, nans
    best = max(vals) if largest else min(vals)
    return best, [i for i, x in enumerate(vals) if x == best]


class MaxOf(ElementOp):
    """max() of every input element: the op table's ``MaxAll.sympy``; PyTorch shares the
    gradient evenly among tied maxima (evenly_distribute_backward)."""

    name = "max"
    largest = True

    @classmethod
    def sympy(cls, sp, args, c):
        return (R.MaxAll if cls.largest else R.MinAll).sympy(sp, *args)

    @classmethod
    def value(cls, vals, c):
        v, _ = _extreme(vals, cls.largest)
        return v, abs(v) if v == v else 0.0

    @classmethod
    def partials(cls, vals, c):
        _, at = _extreme(vals, cls.largest)
        share = 1.0 / len(at)
        out = [0.0] * len(vals)
        for i in at:
            out[i] = share
        return out

    @classmethod
    def convention(cls, vals, c):
        _, at = _extreme(vals, cls.largest)
        if len(at) > 1:
            word = "max" if cls.largest else "min"
            return (f"{word}(): {len(at)} elements reach the {word}imum (no derivative there); PyTorch shares the "
                    "gradient evenly among them (evenly_distribute_backward)", None)
        return None


class MinOf(MaxOf):
    """min() of every input element: the op table's ``MinAll.sympy``."""

    name = "min"
    largest = False


class DotOf(ElementOp):
    """A dot product of a row and a column, inputs (a_0..a_k-1, b_0..b_k-1) (``mm``, ``mv``,
    ``dot``, ``@``): the op table's ``Dot.sympy``."""

    name = "dot"

    @staticmethod
    def sympy(sp, args, c):
        return L.Dot.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        k = len(vals) // 2
        terms = [x * y for x, y in zip(vals[:k], vals[k:])]
        return _fsum(terms), _fsum([abs(t) for t in terms])

    @staticmethod
    def partials(vals, c):
        k = len(vals) // 2
        return list(vals[k:]) + list(vals[:k])

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 0.5], None


class AddmmOf(ElementOp):
    """bias + a row . a column, inputs (bias, a_0..a_k-1, b_0..b_k-1) (``addmm``, ``linear``):
    the op table's ``Addmm.sympy``."""

    name = "addmm"

    @staticmethod
    def sympy(sp, args, c):
        return L.Addmm.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        k = (len(vals) - 1) // 2
        terms = [vals[0]] + [x * y for x, y in zip(vals[1:k + 1], vals[k + 1:])]
        return _fsum(terms), _fsum([abs(t) for t in terms])

    @staticmethod
    def partials(vals, c):
        k = (len(vals) - 1) // 2
        return [1.0] + list(vals[k + 1:]) + list(vals[1:k + 1])

    @staticmethod
    def sample():
        return [0.25, 0.75, -1.25, 2.5, 0.5], None


class PointwiseLossOf(ElementOp):
    """A pointwise loss over pairs (a_0..a_m-1, b_0..b_m-1) of (input, target) elements: the sum
    of its op's term (``PointwiseLoss.sympy``) over the pairs, divided by the number of elements
    for a mean. ``c`` is (parameters of each pair, reduction, number of elements); one subclass
    per loss op (``loss``)."""

    name = "loss"
    c_kind = "object"
    loss = None

    @classmethod
    def sympy(cls, sp, args, c):
        ps, reduction, n = c
        m = len(args) // 2
        total = sp.Add(*[cls.loss.sympy(sp, a, b, *p) for a, b, p in zip(args[:m], args[m:], ps)])
        return total / n if reduction == "mean" else total

    @classmethod
    def value(cls, vals, c):
        ps, reduction, n = c
        m = len(vals) // 2
        terms = [cls.loss.value(a, b, *p) for a, b, p in zip(vals[:m], vals[m:], ps)]
        total, scale = _fsum(terms), _fsum([abs(t) for t in terms])
        return (total / n, scale / n) if reduction == "mean" else (total, scale)

    @classmethod
    def partials(cls, vals, c):
        ps, reduction, n = c
        m = len(vals) // 2
        parts = [cls.loss.partials(a, b, *p) for a, b, p in zip(vals[:m], vals[m:], ps)]
        k = n if reduction == "mean" else 1
        return [d[0] / k for d in parts] + [d[1] / k for d in parts]

    @classmethod
    def partial_scales(cls, vals, c):
        """What the backward's rounding errors are relative to (its terms, where they cancel)."""
        ps, reduction, n = c
        m = len(vals) // 2
        scale = cls.loss.partial_scales
        parts = [scale(a, b, *p) for a, b, p in zip(vals[:m], vals[m:], ps)]
        k = n if reduction == "mean" else 1
        return [abs(d[0]) / k for d in parts] + [abs(d[1]) / k for d in parts]

    @classmethod
    def convention(cls, vals, c):
        note = getattr(cls.loss, "element_convention", None)
        if note is None:
            return None
        m = len(vals) // 2
        for a, b in zip(vals[:m], vals[m:]):
            text = note(a, b)
            if text is not None:
                return text, None
        return None

    @classmethod
    def sample(cls):
        a, b, p = cls.loss.sample()
        return [a, b], ([p], "sum", 1)


class ProdOf(ElementOp):
    """A product of input elements (``prod``, ``cumprod``): the op table's ``Prod.sympy``;
    each partial is the product of the other elements."""

    name = "prod"

    @staticmethod
    def sympy(sp, args, c):
        return SC.Prod.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        p = 1.0
        for x in vals:
            p *= x
        return p, abs(p)

    @staticmethod
    def partials(vals, c):
        out = []
        for i in range(len(vals)):
            p = 1.0
            for j, x in enumerate(vals):
                if j != i:
                    p *= x
            out.append(p)
        return out


class MomentOf(ElementOp):
    """The variance (``c`` = (shift, False)) or standard deviation ((shift, True)) of input
    elements: sum((a - mean)^2) / (n - shift), its root for std."""

    name = "moment"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        shift, root = c
        n = len(args)
        mean = sp.Add(*args) / n
        var = sp.Add(*[(a - mean) ** 2 for a in args]) / (n - sp.nsimplify(shift))
        return sp.sqrt(var) if root else var

    @staticmethod
    def value(vals, c):
        shift, root = c
        v = MO.variance(list(vals), shift)
        v = math.sqrt(v) if root and v == v and v >= 0 else v
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        shift, root = c
        n = len(vals)
        mean = math.fsum(vals) / n
        d = [2.0 * (x - mean) / (n - shift) for x in vals]
        if root:
            s = math.sqrt(MO.variance(list(vals), shift))
            return [0.0 if s == 0 else x / (2.0 * s) for x in d]
        return d

    @staticmethod
    def partial_scales(vals, c):
        """x - mean cancels where x is near the mean (the mean itself rounded in the dtype):
        the rounding errors are relative to |x| + |mean|."""
        shift, root = c
        n = len(vals)
        mean = math.fsum(vals) / n
        d = [2.0 * (abs(x) + abs(mean)) / abs(n - shift) for x in vals]
        if root:
            s = math.sqrt(MO.variance(list(vals), shift))
            return [0.0 if s == 0 else x / (2.0 * s) for x in d]
        return d

    @staticmethod
    def convention(vals, c):
        if c[1] and MO.variance(list(vals), c[0]) == 0:
            return ("std: PyTorch takes the gradient 0 where the standard deviation is 0 (calculus: no "
                    "derivative there)", None)
        return None

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], (1.0, True)


class NormOf(ElementOp):
    """The p-norm of input elements (``linalg.vector_norm``, ``Tensor.norm``), ``c`` the order:
    the op table's form (``_ops/norms.py``) and PyTorch's norm_backward as the partials (0 at
    a zero norm, shared ties of the +-inf norm)."""

    name = "norm"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return NM.sympy_norm(sp, args, float(c))

    @staticmethod
    def value(vals, c):
        v = NM.norm_value(list(vals), float(c))
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        return NM.norm_partials(list(vals), float(c), NM.norm_value(list(vals), float(c)))

    @staticmethod
    def convention(vals, c):
        p = float(c)
        norm = NM.norm_value(list(vals), p)
        if norm == 0 and p not in (1.0, math.inf, -math.inf):
            return (f"norm (ord {c}): PyTorch takes the gradient 0 at a zero norm (calculus: no derivative "
                    "there)", None)
        if p in (math.inf, -math.inf) and sum(1 for x in vals if abs(x) == norm) > 1:
            return (f"norm (ord {c}): several elements reach the norm; PyTorch shares the gradient evenly "
                    "among them", None)
        return None

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 2.0


class DistOf(NormOf):
    """dist(a, b, p): the p-norm of the differences, inputs (a_0..a_m-1, b_0..b_m-1)."""

    name = "dist"

    @staticmethod
    def sympy(sp, args, c):
        m = len(args) // 2
        return NM.sympy_norm(sp, [x - y for x, y in zip(args[:m], args[m:])], float(c))

    @staticmethod
    def value(vals, c):
        m = len(vals) // 2
        return NormOf.value([x - y for x, y in zip(vals[:m], vals[m:])], c)

    @staticmethod
    def partials(vals, c):
        m = len(vals) // 2
        d = NormOf.partials([x - y for x, y in zip(vals[:m], vals[m:])], c)
        return d + [-x for x in d]

    @staticmethod
    def convention(vals, c):
        m = len(vals) // 2
        return NormOf.convention([x - y for x, y in zip(vals[:m], vals[m:])], c)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 0.5], 2.0


def _loss_element(op) -> type:
    return type(op.__name__ + "Of", (PointwiseLossOf,), {"loss": op, "name": op.name.replace("Backward0", "")})


LOSS_ELEMENTS = {op: _loss_element(op) for op in LO.POINTWISE_LOSSES}
MseOf = LOSS_ELEMENTS[LO.MseLoss]


class NllOf(ElementOp):
    """nll_loss's reduced value over its picked elements: ``-sum w_i x_i`` (the op table's
    ``NllLoss.sympy``), divided by the total weight for a mean; ``c`` is (weights, divisor)."""

    name = "nll_loss"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        ws, total = c
        return LO.NllLoss.sympy(sp, *[z for x, w in zip(args, ws) for z in (x, _exact_number(sp, w))]) / \
            _exact_number(sp, total)

    @staticmethod
    def value(vals, c):
        ws, total = c
        terms = [-w * x for x, w in zip(vals, ws)]
        return _fsum(terms) / total, _fsum([abs(t) for t in terms]) / abs(total)

    @staticmethod
    def partials(vals, c):
        ws, total = c
        return [-w / total for w in ws]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], ([1.0, 0.5, 2.0], 3.5)


class NllBackwardOf(ElementOp):
    """An element of nll_loss_backward at a picked position: ``-w * g / total`` (``NllLossBackward.sympy``)."""

    name = "nll_loss_backward"
    c_kind = "object"
    variadic = False

    @staticmethod
    def sympy(sp, args, c):
        w, total = c
        return LO.NllLossBackward.sympy(sp, args[0], _exact_number(sp, w), _exact_number(sp, total))

    @staticmethod
    def value(vals, c):
        w, total = c
        v = -w * vals[0] / total
        return v, abs(v)

    @staticmethod
    def partials(vals, c):
        w, total = c
        return [-w / total]

    @staticmethod
    def sample():
        return [0.75], (2.0, 4.0)


def _exact_number(sp, x):
    x = float(x)
    return sp.Integer(int(x)) if x.is_integer() else sp.Rational(x)


def _rotated(args, j):
    """The slice ``args`` with element ``j`` first (the op table's softmax forms take the element
    first, then the rest of its slice)."""
    args = list(args)
    return [args[j]] + args[:j] + args[j + 1:]


def _softmax_of(vals) -> tuple:
    m = max(vals)
    e = [math.exp(x - m) for x in vals]
    s = _fsum(e)
    return m, e, s


class SoftmaxOf(ElementOp):
    """Element ``c`` of a softmax slice, inputs the slice: the op table's ``Softmax.sympy``."""

    name = "softmax"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return SM.Softmax.sympy(sp, *_rotated(args, c))

    @staticmethod
    def value(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return math.nan, 0.0
        _, e, s = _softmax_of(vals)
        y = e[c] / s
        return y, y

    @staticmethod
    def partials(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        y = [x / s for x in e]
        return [y[c] * ((1.0 if i == c else 0.0) - y[i]) for i in range(len(vals))]

    @staticmethod
    def partial_scales(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        return [e[c] / s * (1.0 + x / s) for x in e]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 1


class LogSoftmaxOf(ElementOp):
    """Element ``c`` of a log_softmax slice: the op table's ``LogSoftmax.sympy``."""

    name = "log_softmax"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return SM.LogSoftmax.sympy(sp, *_rotated(args, c))

    @staticmethod
    def value(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return math.nan, 0.0
        m, _, s = _softmax_of(vals)
        ls = math.log(s)
        # log(s) carries the sum's rounding, relative to s >= 1, not to log(s) (which may be tiny)
        return (vals[c] - m) - ls, abs(vals[c] - m) + abs(ls) + 1.0

    @staticmethod
    def partials(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        return [(1.0 if i == c else 0.0) - e[i] / s for i in range(len(vals))]

    @staticmethod
    def partial_scales(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        return [1.0 + x / s for x in e]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 1


class LogsumexpOf(ElementOp):
    """A logsumexp of input elements (``logsumexp``): the op table's ``Logsumexp.sympy``; its
    partials are the slice's softmax weights, ``exp(x_i - y)``."""

    name = "logsumexp"

    @staticmethod
    def sympy(sp, args, c):
        return R.Logsumexp.sympy(sp, *args)

    @staticmethod
    def value(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return math.nan, 0.0
        m, _, s = _softmax_of(vals)
        ls = math.log(s)
        return m + ls, abs(m) + abs(ls) + 1.0

    @staticmethod
    def partials(vals, c):
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        _, e, s = _softmax_of(vals)
        return [x / s for x in e]

    @staticmethod
    def partial_scales(vals, c):
        """exp(x_i - y) carries the rounding of x_i - y: relative to |x_i| + |y|."""
        if any(not math.isfinite(x) for x in vals):
            return [math.nan] * len(vals)
        m, e, s = _softmax_of(vals)
        y = m + math.log(s)
        return [x / s * (1.0 + abs(v) + abs(y)) for x, v in zip(e, vals)]


class SoftmaxBackwardOf(ElementOp):
    """Element ``c`` of ``_softmax_backward_data``, inputs (g_0..g_n-1, y_0..y_n-1) of its slice:
    ``(g_c - sum g_i y_i) y_c``, the op table's ``SoftmaxBackwardData.sympy``."""

    name = "softmax_backward_data"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        n = len(args) // 2
        gs, ys = _rotated(args[:n], c), _rotated(args[n:], c)
        return SM.SoftmaxBackwardData.sympy(sp, gs[0], ys[0], *[x for pair in zip(gs[1:], ys[1:]) for x in pair])

    @staticmethod
    def value(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        terms = [a * b for a, b in zip(g, y)]
        s = _fsum(terms)
        return (g[c] - s) * y[c], (abs(g[c]) + _fsum([abs(t) for t in terms])) * abs(y[c])

    @staticmethod
    def partials(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        s = _fsum([a * b for a, b in zip(g, y)])
        dg = [y[c] * ((1.0 if i == c else 0.0) - y[i]) for i in range(n)]
        dy = [((g[c] - s) if i == c else 0.0) - y[c] * g[i] for i in range(n)]
        return dg + dy

    @staticmethod
    def partial_scales(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        s = _fsum([abs(a * b) for a, b in zip(g, y)])
        return [abs(y[c]) * (1.0 + abs(y[i])) for i in range(n)] + \
            [abs(g[c]) + s + abs(y[c] * g[i]) for i in range(n)]

    @staticmethod
    def sample():
        return [0.5, -1.0, 2.0, 0.25, 0.5, 0.25], 1


class LogSoftmaxBackwardOf(ElementOp):
    """Element ``c`` of ``_log_softmax_backward_data``: ``g_c - exp(y_c) sum g_i``."""

    name = "log_softmax_backward_data"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        n = len(args) // 2
        gs, ys = _rotated(args[:n], c), _rotated(args[n:], c)
        return SM.LogSoftmaxBackwardData.sympy(sp, gs[0], ys[0], *[x for pair in zip(gs[1:], ys[1:]) for x in pair])

    @staticmethod
    def value(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        s = _fsum(g)
        e = math.exp(y[c]) if y[c] < 700 else math.inf
        return g[c] - e * s, abs(g[c]) + e * _fsum([abs(x) for x in g])

    @staticmethod
    def partials(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        e = math.exp(y[c]) if y[c] < 700 else math.inf
        s = _fsum(g)
        return [(1.0 if i == c else 0.0) - e for i in range(n)] + [-e * s if i == c else 0.0 for i in range(n)]

    @staticmethod
    def partial_scales(vals, c):
        n = len(vals) // 2
        g, y = vals[:n], vals[n:]
        e = math.exp(y[c]) if y[c] < 700 else math.inf
        s = _fsum([abs(x) for x in g])
        return [1.0 + e] * n + [e * s if i == c else 0.0 for i in range(n)]

    @staticmethod
    def sample():
        return [0.5, -1.0, 2.0, -1.5, -0.5, -2.0], 1


class EmbeddingPickOf(ElementOp):
    """An element of embedding's output: one weight element (the identity form). PyTorch's
    backward departs from calculus twice, as conventions: the padding row gets no gradient,
    and with scale_grad_by_freq each pick's gradient is divided by its row's count. ``c`` is
    (scale, padded)."""

    name = "embedding"
    c_kind = "object"
    variadic = False

    @staticmethod
    def sympy(sp, args, c):
        return EM.Embedding.sympy(sp, args[0])

    @staticmethod
    def value(vals, c):
        return vals[0], abs(vals[0])

    @staticmethod
    def partials(vals, c):
        scale, padded = c
        return [0.0 if padded else scale]

    @staticmethod
    def convention(vals, c):
        scale, padded = c
        if padded:
            return ("embedding: PyTorch gives the padding_idx row no gradient", None)
        if scale != 1.0:
            return (f"embedding: scale_grad_by_freq divides the gradient of each pick of a row by the row's count "
                    f"(here x{scale:g})", None)
        return None

    @staticmethod
    def sample():
        return [0.75], (1.0, False)


class ScaledSumOf(ElementOp):
    """A sum of input elements each times its scale (``c``, a list): embedding's backward with
    scale_grad_by_freq, the op table's ``EmbeddingDenseBackward.sympy``."""

    name = "scaled sum"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return EM.EmbeddingDenseBackward.sympy(sp, *[z for a, w in zip(args, c) for z in (a, _exact_number(sp, w))])

    @staticmethod
    def value(vals, c):
        terms = [a * w for a, w in zip(vals, c)]
        return _fsum(terms), _fsum([abs(t) for t in terms])

    @staticmethod
    def partials(vals, c):
        return list(c)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], [1.0, 0.5, 0.25]


class WindowMeanOf(ElementOp):
    """An element of avg_pool2d: its window's sum over the divisor ``c`` (an int), the op
    table's ``AvgPool2d.sympy``."""

    name = "window mean"
    c_kind = "number"

    @staticmethod
    def sympy(sp, args, c):
        return PO.AvgPool2d.sympy(sp, c, *args)

    @staticmethod
    def value(vals, c):
        return _fsum(vals) / c, _fsum([abs(x) for x in vals]) / c

    @staticmethod
    def partials(vals, c):
        return [1.0 / c] * len(vals)

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], 4


class WindowSpreadOf(ElementOp):
    """An element of avg_pool2d's backward: the gradients of the windows that read it, each over
    its window's divisor (``c``, a list of ints), the op table's ``AvgPool2dBackward.sympy``."""

    name = "window spread"
    c_kind = "object"

    @staticmethod
    def sympy(sp, args, c):
        return PO.AvgPool2dBackward.sympy(sp, *[z for a, d in zip(args, c) for z in (a, sp.Integer(d))])

    @staticmethod
    def value(vals, c):
        terms = [a / d for a, d in zip(vals, c)]
        return _fsum(terms), _fsum([abs(t) for t in terms])

    @staticmethod
    def partials(vals, c):
        return [1.0 / d for d in c]

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5], [4, 2, 3]


class NormalizedOf(ElementOp):
    """An element of batch_norm / layer_norm: ``(x - mean) / sqrt(var + eps) * weight + bias``
    over its group (training), or with the running statistics as constants (evaluation): the op
    table's ``BatchNorm.sympy``. Inputs: the group's elements (training; ``x`` among them) or
    ``x`` alone (evaluation), then the weight and bias elements present. ``c``: (position of
    ``x`` among the inputs, eps, mean, invstd (None in training), parameters present)."""

    name = "normalized"
    c_kind = "object"

    @staticmethod
    def _split(args, c):
        j, eps, mean, invstd, affine = c
        n = len(args) - affine
        group = args[:n]
        w = args[n] if affine >= 1 else 1
        b = args[n + 1] if affine == 2 else 0
        return group, group[j], w, b

    @classmethod
    def sympy(cls, sp, args, c):
        group, x, w, b = cls._split(list(args), c)
        _, eps, mean, invstd, _ = c
        if mean is None:
            return NO.BatchNorm.sympy(sp, x, group, eps=_exact_number(sp, eps), weight=w, bias=b)
        return NO.BatchNorm.sympy(sp, x, [x], _exact_number(sp, mean), _exact_number(sp, invstd), weight=w, bias=b)

    @classmethod
    def _moments(cls, vals, c):
        group, x, w, b = cls._split(list(vals), c)
        _, eps, mean, invstd, _ = c
        if mean is None:
            n = len(group)
            mean = _fsum(group) / n
            var = _fsum([(a - mean) ** 2 for a in group]) / n
            invstd = 1.0 / math.sqrt(var + eps)
        return group, x, w, b, mean, invstd

    @classmethod
    def value(cls, vals, c):
        group, x, w, b, mean, invstd = cls._moments(vals, c)
        y = (x - mean) * invstd * w
        return y + b, abs(y) + abs(b) + abs(x * invstd * w)

    @classmethod
    def partials(cls, vals, c):
        group, x, w, b, mean, invstd = cls._moments(vals, c)
        j, eps, cmean, _, affine = c
        xhat_j = (x - mean) * invstd
        if cmean is None:
            n = len(group)
            parts = [w * invstd * ((1.0 if i == j else 0.0) - 1.0 / n - (a - mean) * invstd * xhat_j / n)
                     for i, a in enumerate(group)]
        else:
            parts = [w * invstd]
        if affine >= 1:
            parts.append(xhat_j)
        if affine == 2:
            parts.append(1.0)
        return parts

    @classmethod
    def partial_scales(cls, vals, c):
        """The sizes of the terms of each partial (they cancel: a gradient near 0 is rounding)."""
        group, x, w, b, mean, invstd = cls._moments(vals, c)
        j, eps, cmean, _, affine = c
        xhat_j = abs((x - mean) * invstd)
        if cmean is None:
            n = len(group)
            parts = [abs(w * invstd) * (1.0 + 1.0 / n + abs((a - mean) * invstd) * xhat_j / n) for a in group]
        else:
            parts = [abs(w * invstd)]
        if affine >= 1:
            parts.append(xhat_j + abs(x * invstd))
        if affine == 2:
            parts.append(1.0)
        return parts

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5, 0.25], (1, 0.5, None, None, 2)


class Opaque(ElementOp):
    """The elements of a node this module cannot express (each depends on every input
    element); the check reports what lies below them unverifiable. Made per op name."""

    name = "opaque"


_opaque_ops: dict = {}


def opaque_op(name: str) -> type:
    cls = _opaque_ops.get(name)
    if cls is None:
        cls = _opaque_ops[name] = type("Opaque", (Opaque,), {"name": name})
    return cls


class LastOf(ElementOp):
    """An element written more than once (scatter or index_copy with a repeated index): the
    last write's element. PyTorch's derivative (grad.gather, grad.index_select) gives every
    element written there the gradient, a convention where calculus gives the earlier ones 0."""

    name = "last write"

    @staticmethod
    def sympy(sp, args, c):
        return S.Structural.sympy(sp, args[-1])

    @staticmethod
    def value(vals, c):
        return vals[-1], abs(vals[-1])

    @staticmethod
    def partials(vals, c):
        return [1.0] * len(vals)

    @staticmethod
    def convention(vals, c):
        if len(vals) > 1:
            return (f"{len(vals)} elements are written to one place (a repeated index); PyTorch gives each of them "
                    "that place's gradient (grad.gather / grad.index_select), calculus only the last one", None)
        return None

    @staticmethod
    def sample():
        return [0.75], None


ELEMENT_OPS = [Same, Const, SumOf, MeanOf, MaxOf, MinOf, DotOf, AddmmOf, *LOSS_ELEMENTS.values(), NllOf,
               NllBackwardOf, SoftmaxOf, LogSoftmaxOf, LogsumexpOf, SoftmaxBackwardOf, LogSoftmaxBackwardOf,
               ScaledSumOf, EmbeddingPickOf, WindowMeanOf, WindowSpreadOf, NormalizedOf, LastOf]


# ---------------------------------------------------------------- the graph


def _seq(v) -> int:
    return v._seq


_special: dict = {}  # op -> does a node of it need expanding whatever its shape
# ops whose elements are not their declared form (a filled element is the number, not the
# input; an assigned number has no input): expanded even on 0-dim tensors
_ALWAYS_EXPANDED = (FI.Fill, FI.MaskedFill, IndexPut, W.Written)


def shape_pick(v) -> bool:
    """An output of a multi-output shape op (unbind, split): a Pick of the shared node."""
    e = v._ext
    return e is not None and e.pick is not None and isinstance(v._c, Layout)


class ElementGraph:
    """The elements below some tensor roots.

    ``nodes``: the tensor nodes, in creation order (``describe`` counts them); ``order``: the
    non-leaf elements in a topological order; ``ins``: each element's input elements, as it
    consumed them; ``leaves``: the leaf elements requiring grad, in order of first use.
    ``stop``: non-leaf tensors treated as variables (the walk does not go below them).
    ``functions``: each custom Function node -> its output elements (whose ``pos_in`` say
    where their arguments sit in the Function's inputs) and how it is checked: "declared"
    (its form, element by element), "opaque" (no form) or "not elementwise".
    """

    __slots__ = ("order", "ins", "leaves", "nodes", "node_ins", "stop", "single", "many", "functions", "fn_mode",
                 "_index", "expanded")

    def __init__(self, roots: Iterable, stop=frozenset()) -> None:
        self._index = None
        self.stop = stop
        self.single: dict = {}  # 0-dim tensor node -> its one Elem (when not its own element)
        self.many: dict = {}  # tensor with dimensions -> its Elems
        self.functions: dict = {}
        self.fn_mode: dict = {}
        self.expanded: list = []  # tensor nodes expanded into Elems
        roots = list(roots)
        node_ins: dict = {}
        stack = []
        for r in roots:
            if r._op is not None and r not in stop and r not in node_ins:
                node_ins[r] = None
                stack.append(r)
        while stack:
            v = stack.pop()
            vseq = v._seq
            vin = v._in
            for u in vin:
                if u._rg and u._seq > vseq:  # changed in place since: take the version v consumed
                    vin = tuple(route(u, v, False) if (u._rg and u._seq > vseq) else u for u in v._in)
                    break
            node_ins[v] = vin
            for u in vin:
                if u._rg and u._op is not None and u not in node_ins and u not in stop:
                    node_ins[u] = None
                    stack.append(u)
        # inputs are older than their consumers, so creation order is a topological order
        # (but for a multi-output shape op, whose outputs are made before the shared node)
        nodes = self.nodes = sorted(node_ins, key=_seq)
        self.node_ins = node_ins
        # a node that is its own element keeps its inputs (unless one is a 0-dim node expanded
        # into an element); the order is the nodes' own until the first node that is not
        ins = self.ins = dict(node_ins)
        self.order = None
        single = self.single
        special = _special
        deferred = []
        for i, v in enumerate(nodes):
            op = v._op
            flag = special.get(op)
            if flag is None:
                flag = special[op] = bool(op.bulk or op.runs_user_code or op is FunctionPick
                                          or issubclass(op.base, _ALWAYS_EXPANDED))
            if flag or v._t.ndim or (v._ext is not None and v._ext.pick is not None):
                if self.order is None:
                    self.order = nodes[:i]
                if shape_pick(v) and v._a in node_ins and v._a._seq > v._seq:
                    deferred.append(v)  # after its shared node
                    continue
                self._expand(v, node_ins[v])
                if deferred:
                    for w in [w for w in deferred if w._a is v]:
                        deferred.remove(w)
                        self._expand(w, node_ins[w])
                continue
            if single:
                ins[v] = tuple(single.get(u, u) for u in node_ins[v])
            if self.order is not None:
                self.order.append(v)
        if self.order is None:
            self.order = nodes
        for w in deferred:
            self._expand(w, node_ins[w])
        self.leaves = self._find_leaves(roots)

    # ------------------------------------------------------------ elements of a tensor

    def elements(self, u) -> tuple | list:
        """The elements of tensor ``u`` (leaf and constant tensors get theirs on first request)."""
        if not u._t.ndim:
            e = self.single.get(u)
            return (u,) if e is None else (e,)
        es = self.many.get(u)
        if es is None:
            es = self.many[u] = self._plain(u)
        return es

    def _plain(self, u) -> list:
        """Elements of a leaf, a constant, or a node treated as a variable (``stop``)."""
        t = TensorType(u._t.dtype, ())
        rg = u._rg
        out = []
        for j, x in enumerate(u._val):
            e = _elem(u, j, None, None, x, t, (), rg)
            out.append(e)
        return out

    def node_of(self, e):
        """The tensor node an element belongs to."""
        return e.node if e.__class__ is Elem else e

    def _find_leaves(self, roots) -> list:
        leaves = []
        found = set()
        stop = self.stop

        def visit(u) -> None:
            if u._rg and (u._op is None or u in stop) and u not in found:
                found.add(u)
                leaves.append(u)

        for r in roots:
            for e in self.elements(r):
                visit(e)
        ins = self.ins
        for v in self.order:
            for u in ins[v]:
                if u._rg and (u._op is None or u in stop) and u not in found:
                    found.add(u)
                    leaves.append(u)
        return leaves

    def describe(self, e) -> str:
        """``MulBackward0 (node 3 of 40)``, with the element's index for a tensor with dimensions."""
        v = self.node_of(e)
        if e._op is None or v is None or v._op is None:
            return "a leaf"
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.nodes)}
        i = self._index.get(v)
        name = v._op.base.name if getattr(v._op, "base", None) is not None else v._op.name
        where = f"{name} (node {i + 1} of {len(self.nodes)})" if i is not None else name
        if e.__class__ is Elem and v._t.ndim:
            idx = ", ".join(str(k) for k in element_index(v._t.shape, e.index))
            where += f", element [{idx}]"
        return where

    # ------------------------------------------------------------ expansion

    def _add(self, v, elems: list) -> None:
        """Record ``v``'s elements (in order, after every older node's)."""
        self.expanded.append(v)
        if v._t.ndim:
            self.many[v] = elems
        else:
            self.single[v] = elems[0]
        ins = self.ins
        for e in elems:
            ins[e] = e._in
        self.order.extend(elems)

    def _expand(self, v, vin: tuple) -> None:
        op = v._op
        base = op.base
        if op.runs_user_code or base is FunctionPick:
            return self._function(v, vin)
        t = TensorType(v._t.dtype, ())
        vals = v._val if v._t.ndim else [v._val]
        if shape_pick(v):
            return self._structural(v, t, vals, [(Same, None, ((vin[0], _map(v._c, j)),)) for j in range(len(vals))])
        if issubclass(base, Elementwise):
            return self._elementwise(v, base, t, vals, vin)
        build = _builder(base)
        if build is None:
            return self._opaque(v, t, vals, vin)
        return self._structural(v, t, vals, build(v, vin, vals))

    def _elementwise(self, v, op, t, vals, vin) -> None:
        shape = tuple(v._t.shape)
        cols = []
        for u in vin:
            es = self.elements(u)
            if tuple(u._t.shape) == shape:
                cols.append(es)
            elif len(es) == 1:
                cols.append(es[0])  # the one element, at every position
            else:
                cols.append([es[i] for i in positions(u._t.shape, shape)])
        c = v._c
        per_element = getattr(op, "c_per_element", False)  # where: the condition's element
        if per_element:
            c = c._val if c._t.ndim else [c._val]
        elems = []
        for j, x in enumerate(vals):
            ins = tuple(col[j] if col.__class__ is list or col.__class__ is tuple else col for col in cols)
            elems.append(_elem(v, j, op, c[j] if per_element else c, x, t, ins))
        self._add(v, elems)

    def _structural(self, v, t, vals, spec: list) -> None:
        """``spec``: per output element, (element op, c, ((input tensor, flat index)...))."""
        elems = []
        cache: dict = {}
        for j, (op, c, srcs) in enumerate(spec):
            ins = []
            for u, q in srcs:
                es = cache.get(id(u))
                if es is None:
                    es = cache[id(u)] = self.elements(u)
                ins.append(es[q])
            elems.append(_elem(v, j, op, c, vals[j], t, tuple(ins)))
        self._add(v, elems)

    def _opaque(self, v, t, vals, vin) -> None:
        """A node whose elements this module cannot express: each element depends on every
        input element (the check reports what is below it unverifiable)."""
        ins = tuple(e for u in vin for e in self.elements(u))
        op = opaque_op(v._op.name)
        self._add(v, [_elem(v, j, op, None, x, t, ins) for j, x in enumerate(vals)])

    def _function(self, v, vin) -> None:
        """A custom Function's output (its node, or a Pick of its hidden node)."""
        if v._op is FunctionPick or v._op.base is FunctionPick:
            fnode, slot = v._a, v._c
            fins = self.node_ins.get(fnode) or fnode._in
        else:
            fnode, slot = v, 0
            fins = vin
            if v._val is None:  # the hidden node of a multi-output Function: its Picks carry the values
                return
        ctx = fnode._c
        fn = getattr(fnode._op, "function", None)
        all_0dim = not v._t.ndim and all(not u._t.ndim for u in fins)
        form = fn is not None and fn.sympy is not None and hasattr(ctx, "_sympy_args")
        if all_0dim:
            mode = "declared" if form else "opaque"
        elif form and getattr(fn, "sympy_elementwise", False):
            mode = "declared"
        else:
            mode = "not elementwise" if form else "opaque"
        self.fn_mode[fnode] = mode
        members = self.functions.setdefault(fnode, [])
        if all_0dim:
            # the tensor is its own element; its inputs are the Function's (past a hidden node)
            ins = tuple(self.single.get(u, u) for u in fins)
            self.ins[v] = ins
            self.order.append(v)
            members.append((v, slot, (0,) * len(fins)))
            return
        t = TensorType(v._t.dtype, ())
        vals = v._val if v._t.ndim else [v._val]
        shape = tuple(v._t.shape)
        cols = []
        for u in fins:
            ok = _broadcasts(tuple(u._t.shape), shape)
            cols.append((self.elements(u), positions(u._t.shape, shape) if ok else None))
        elems = []
        if mode != "declared":
            pos_all = [(u, es) for u, (es, _) in zip(fins, cols)]
        for j, x in enumerate(vals):
            if mode == "declared":
                ins = tuple(es[p[j]] if p is not None else NO_ELEMENT for es, p in cols)
                pos_in = tuple(p[j] if p is not None else None for _, p in cols)
            elif all(p is not None for _, p in cols):
                ins = tuple(es[p[j]] for es, p in cols)
                pos_in = tuple(p[j] for _, p in cols)
            else:
                ins = tuple(e for _, es in pos_all for e in es)
                pos_in = None
            e = _elem(v, j, v._op, v._c, x, t, ins)
            e.fn = fnode
            e.slot = slot
            e.pos_in = pos_in
            elems.append(e)
            members.append((e, slot, pos_in))
        self._add(v, elems)


def _broadcasts(shape: tuple, out: tuple) -> bool:
    """Does ``shape`` broadcast to ``out`` (without growing ``out``)?"""
    if len(shape) > len(out):
        return False
    lead = len(out) - len(shape)
    return all(s == 1 or s == out[lead + i] for i, s in enumerate(shape))


def _map(layout: Layout, j: int) -> int:
    m = layout.map
    return j if m is None else m[j]


# ---------------------------------------------------------------- structural builders
# Each returns, per output element, (element op, c, ((input tensor, flat index), ...)).


def _same_order(v, vin, vals):
    u = vin[0]
    m = v._c.map if isinstance(v._c, Layout) else None
    return [(Same, None, ((u, j if m is None else m[j]),)) for j in range(len(vals))]


def _reduction(elem_op):
    def build(v, vin, vals):
        c = v._c
        u = vin[0]
        n_in = c.numel
        if c.all or not u._t.ndim:
            groups = [list(range(n_in))]
        else:
            groups = [[] for _ in range(len(vals))]
            for i, o in enumerate(group_index(tuple(c.in_shape), tuple(c.dims))):
                groups[o].append(i)
        return [(elem_op, None, tuple((u, i) for i in g)) for g in groups]

    return build


def _vector_norm(v, vin, vals):
    return [(NormOf, v._c.ord, spec[2]) for spec in _reduction(NormOf)(v, vin, vals)]


def _moment(v, vin, vals):
    c = (v._c.divisor_shift, v._op.base is MO.Std)
    return [(MomentOf, c, spec[2]) for spec in _reduction(MomentOf)(v, vin, vals)]


def _picked(v, vin, vals):
    u = vin[0]
    return [(Same, None, ((u, i),)) if i >= 0 else (Const, 0.0, ()) for i in v._c.map]


def _prod(v, vin, vals):
    return [(ProdOf, None, spec[2]) for spec in _reduction(ProdOf)(v, vin, vals)]


def _scan(elem_op):
    def build(v, vin, vals):
        u = vin[0]
        spec = [None] * len(vals)
        shape = tuple(v._c.in_shape)
        for s in (slices(shape, v._c.dim) if shape else [[0]]):
            for k, i in enumerate(s):
                spec[i] = (elem_op, None, tuple((u, j) for j in s[:k + 1]))
        return spec

    return build


def _dist(v, vin, vals):
    a, b = vin
    shape = v._c.in_shape
    pa, pb = positions(a._t.shape, shape), positions(b._t.shape, shape)
    return [(DistOf, v._c.ord, tuple((a, i) for i in pa) + tuple((b, j) for j in pb))]


def _max_all(elem_op):
    def build(v, vin, vals):
        u = vin[0]
        return [(elem_op, None, tuple((u, i) for i in range(u._t.numel)))]

    return build


def _max_dim(v, vin, vals):
    picked = v._c.picked
    return [(Same, None, ((vin[0], picked[j]),)) for j in range(len(vals))]


def _mm(v, vin, vals):
    a, b = vin
    n, k = a._t.shape
    m = b._t.shape[1]
    return [(DotOf, None, tuple((a, i * k + x) for x in range(k)) + tuple((b, x * m + j) for x in range(k)))
            for i in range(n) for j in range(m)]


def _mv(v, vin, vals):
    a, x = vin
    n, k = a._t.shape
    return [(DotOf, None, tuple((a, i * k + q) for q in range(k)) + tuple((x, q) for q in range(k)))
            for i in range(n)]


def _dot(v, vin, vals):
    a, b = vin
    k = a._t.shape[0]
    return [(DotOf, None, tuple((a, q) for q in range(k)) + tuple((b, q) for q in range(k)))]


def _bmm(v, vin, vals):
    """bmm and baddbmm: a dot product per output element, within its batch (plus the bias)."""
    if len(vin) == 3:
        bias, a, b = vin
    else:
        bias, (a, b) = None, vin
    bs, n, k = a._t.shape
    m = b._t.shape[2]
    spread = positions(bias._t.shape, (bs, n, m)) if bias is not None else None
    spec = []
    for q in range(bs):
        for i in range(n):
            for j in range(m):
                ins = tuple((a, (q * n + i) * k + x) for x in range(k)) + tuple((b, (q * k + x) * m + j)
                                                                             for x in range(k))
                if bias is None:
                    spec.append((DotOf, None, ins))
                else:
                    spec.append((AddmmOf, None, ((bias, spread[(q * n + i) * m + j]),) + ins))
    return spec


def _addmm(v, vin, vals):
    bias, a, b = vin
    n, k = a._t.shape
    m = b._t.shape[1]
    spread = positions(bias._t.shape, (n, m))
    return [(AddmmOf, None, ((bias, spread[i * m + j]),) + tuple((a, i * k + x) for x in range(k))
             + tuple((b, x * m + j) for x in range(k)))
            for i in range(n) for j in range(m)]


def _pointwise_loss(v, vin, vals):
    a, b = vin
    c = v._c
    op = v._op.base
    elem = LOSS_ELEMENTS[op]
    shape = broadcast_shapes(a._t.shape, b._t.shape)
    pa, pb = positions(a._t.shape, shape), positions(b._t.shape, shape)
    ps = [op.params(c, i) for i in range(len(pa))]
    if c.reduction == "none":
        return [(elem, ([ps[i]], "none", 1), ((a, pa[i]), (b, pb[i]))) for i in range(len(pa))]
    return [(elem, (ps, c.reduction, c.numel), tuple((a, p) for p in pa) + tuple((b, p) for p in pb))]


def _nll(v, vin, vals):
    u = vin[0]
    c = v._c
    if c.reduction == "none" and len(c.shape) == 2:
        return [(Const, 0.0, ()) if p is None else (NllOf, ([w], 1.0), ((u, p),))
                for p, w in zip(c.picked, c.weights)]
    kept = [(p, w) for p, w in zip(c.picked, c.weights) if p is not None]
    total = c.total_weight if c.reduction == "mean" else 1.0
    return [(NllOf, ([w for _, w in kept], total), tuple((u, p) for p, _ in kept))]


def _nll_backward(v, vin, vals):
    g = vin[0]
    c = v._c
    spec = [(Const, 0.0, ()) for _ in range(len(vals))]
    per_sample = c.reduction == "none" and len(c.shape) == 2
    total = c.total_weight if c.reduction == "mean" else 1.0
    for b, (p, w) in enumerate(zip(c.picked, c.weights)):
        if p is not None:
            spec[p] = (NllBackwardOf, (w, 1.0 if per_sample else total), ((g, b if per_sample else 0),))
    return spec


def _along(elem_op):
    """softmax/log_softmax: each output element reads its slice along the node's dimension."""

    def build(v, vin, vals):
        u = vin[0]
        spec = [None] * len(vals)
        for idx in slices(v._c.shape, v._c.dim):
            srcs = tuple((u, i) for i in idx)
            for j, p in enumerate(idx):
                spec[p] = (elem_op, j, srcs)
        return spec

    return build


def _along_backward(elem_op):
    """The backward-data ops: each element reads the (grad_output, output) pairs of its slice."""

    def build(v, vin, vals):
        g, y = vin
        gpos = positions(g._t.shape, v._t.shape)
        spec = [None] * len(vals)
        for idx in slices(v._c.shape, v._c.dim):
            srcs = tuple((g, gpos[i]) for i in idx) + tuple((y, i) for i in idx)
            for j, p in enumerate(idx):
                spec[p] = (elem_op, j, srcs)
        return spec

    return build


def _embedding(v, vin, vals):
    w = vin[0]
    c = v._c
    counts: dict = {}
    for k in c.rows:
        counts[k] = counts.get(k, 0) + 1
    spec = []
    for k in c.rows:
        scale = 1.0 / counts[k] if c.scale_grad_by_freq else 1.0
        if k == c.padding_idx or scale != 1.0:
            spec.extend((EmbeddingPickOf, (scale, k == c.padding_idx), ((w, k * c.dim + j),)) for j in range(c.dim))
        else:
            spec.extend((Same, None, ((w, k * c.dim + j),)) for j in range(c.dim))
    return spec


def _embedding_backward(v, vin, vals):
    g = vin[0]
    c = v._c
    counts: dict = {}
    for k in c.rows:
        counts[k] = counts.get(k, 0) + 1
    sources: dict = {}
    for i, k in enumerate(c.rows):
        if k != c.padding_idx:
            sources.setdefault(k, []).append(i)
    spec = []
    for k in range(c.num_weights):
        rows = sources.get(k)
        for j in range(c.dim):
            if not rows:
                spec.append((Const, 0.0, ()))
            elif c.scale_grad_by_freq:
                spec.append((ScaledSumOf, [1.0 / counts[k]] * len(rows), tuple((g, i * c.dim + j) for i in rows)))
            elif len(rows) == 1:
                spec.append((Same, None, ((g, rows[0] * c.dim + j),)))
            else:
                spec.append((SumOf, None, tuple((g, i * c.dim + j) for i in rows)))
    return spec


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


def _max_pool(v, vin, vals):
    u = vin[0]
    return [(Same, None, ((u, p),)) for p in v._c.picked]


def _avg_pool(v, vin, vals):
    u = vin[0]
    return [(WindowMeanOf, d, tuple((u, i) for i in window)) for window, d in zip(v._c.windows, v._c.divisors)]


def _avg_pool_backward(v, vin, vals):
    g = vin[0]
    readers: dict = {}
    for o, window in enumerate(v._c.windows):
        for i in window:
            readers.setdefault(i, []).append(o)
    divisors = v._c.divisors
    spec = []
    for i in range(len(vals)):
        outs = readers.get(i)
        if not outs:
            spec.append((Const, 0.0, ()))
        else:
            spec.append((WindowSpreadOf, [divisors[o] for o in outs], tuple((g, o) for o in outs)))
    return spec


def _normalized(v, vin, vals):
    norm = v._c
    x = vin[0]
    params = vin[1:]
    spec = []
    for k in range(len(vals)):
        g = norm.group_of[k]
        p = norm.param_of[k]
        extra = tuple((u, p) for u in params)
        if norm.training:
            group = norm.groups[g]
            c = (group.index(k), norm.eps, None, None, len(params))
            spec.append((NormalizedOf, c, tuple((x, i) for i in group) + extra))
        else:
            c = (0, norm.eps, norm.mean[g], norm.invstd[g], len(params))
            spec.append((NormalizedOf, c, ((x, k),) + extra))
    return spec


def _join(v, vin, vals):
    """cat/stack: the output's elements, block by block along the joined dimension."""
    d = v._c.dim
    outer = 1
    for s in tuple(vin[0]._t.shape)[:d]:
        outer *= s
    # each input contributes, per block of the dims before ``d``, its elements from ``d`` on
    chunks = []
    for u in vin:
        n = 1
        for s in tuple(u._t.shape)[d:]:
            n *= s
        chunks.append(n)
    spec = []
    for o in range(outer):
        for u, c in zip(vin, chunks):
            spec.extend((Same, None, ((u, o * c + q),)) for q in range(c))
    return spec


def _masked_fill(v, vin, vals):
    u = vin[0]
    filled = set(v._c.map or ())
    return [(Const, vals[j], ((u, j),)) if j in filled else (Same, None, ((u, j),)) for j in range(len(vals))]


def _fill(v, vin, vals):
    u = vin[0]
    return [(Const, vals[j], ((u, j),)) for j in range(len(vals))]


def _fill_tensor(v, vin, vals):
    """fill_(value) with a 0-dim tensor: every element is the value."""
    src = vin[1]
    return [(Same, None, ((src, 0),)) for _ in range(len(vals))]


def _copy_into(v, vin, vals):
    old, src = vin
    pos = positions(src._t.shape, v._t.shape)
    return [(Same, None, ((src, pos[j]),)) for j in range(len(vals))]


def _index_put(v, vin, vals):
    layout = v._c
    old = vin[0]
    assigned: dict = {}
    for k, p in enumerate(layout.map):
        assigned[p] = k  # the last write wins
    if len(vin) > 1:
        src = vin[1]
        pos = positions(src._t.shape, tuple(layout.sizes))
    spec = []
    for j in range(len(vals)):
        k = assigned.get(j)
        if k is None:
            spec.append((Same, None, ((old, j),)))
        elif len(vin) > 1:
            spec.append((Same, None, ((src, pos[k]),)))
        else:
            spec.append((Const, vals[j], ((old, j),)))
    return spec


def _scatter(v, vin, vals):
    """The backward of select/slice/index as a node (double backward): zeros but where the
    gradient lands, its sum there."""
    g = vin[0]
    at: dict = {}
    for k, p in enumerate(v._c.map):
        at.setdefault(p, []).append(k)
    spec = []
    for j in range(len(vals)):
        ks = at.get(j)
        if not ks:
            spec.append((Const, vals[j], ()))
        elif len(ks) == 1:
            spec.append((Same, None, ((g, ks[0]),)))
        else:
            spec.append((SumOf, None, tuple((g, k) for k in ks)))
    return spec


def _written(v, vin, vals):
    """scatter, index_add, masked_scatter...: each element is self's, or the src element
    written there last, or (scatter_add, index_add) self's plus the writes times alpha."""
    op = v._op.base
    c = v._c
    old = vin[0]
    src = vin[1] if len(vin) > 1 else None
    at: dict = {}
    for dest, k in c.map:
        at.setdefault(dest, []).append(k)
    alpha = c.raw.get("alpha", 1) if c.raw else 1
    reduce = c.raw.get("reduce") if c.raw else None  # scatter(..., reduce=): no derivative, but a form
    spec = []
    for j in range(len(vals)):
        ks = at.get(j)
        if not ks:
            spec.append((Same, None, ((old, j),)))
        elif reduce is not None:
            if src is None:
                spec.append((Const, vals[j], ((old, j),)))  # self and a number: its value, a constant
            else:
                spec.append((SumOf if reduce == "add" else ProdOf, None, ((old, j),) + tuple((src, k) for k in ks)))
        elif op.accumulate:
            ins = ((old, j),) + tuple((src, k) for k in ks)
            if alpha == 1:
                spec.append((SumOf, None, ins))
            else:
                spec.append((ScaledSumOf, [1.0] + [float(alpha)] * len(ks), ins))
        elif src is None:
            spec.append((Const, vals[j], ((old, j),)))
        elif len(set(ks)) == 1:  # index_fill's value, maybe filled in twice: the element is the value
            spec.append((Same, None, ((src, ks[0]),)))
        else:
            spec.append((LastOf, None, tuple((src, k) for k in ks)))
    return spec


_BUILDERS = {
    R.Sum: _reduction(SumOf), R.SumDim: _reduction(SumOf), R.Mean: _reduction(MeanOf), R.MeanDim: _reduction(MeanOf),
    NM.VectorNorm: _vector_norm, NM.Dist: _dist, SC.Prod: _prod, SC.ProdDim: _prod, SC.Cumsum: _scan(SumOf),
    SC.Cumprod: _scan(ProdOf), MO.Var: _moment, MO.Std: _moment,
    R.MaxAll: _max_all(MaxOf), R.MinAll: _max_all(MinOf), R.MaxDim: _max_dim, R.MinDim: _max_dim,
    L.Mm: _mm, L.Mv: _mv, L.Dot: _dot, L.Addmm: _addmm, L.Bmm: _bmm, L.Baddbmm: _bmm,
    LO.NllLoss: _nll, LO.NllLossBackward: _nll_backward,
    EM.Embedding: _embedding, EM.EmbeddingDenseBackward: _embedding_backward,
    CV.Convolution: _convolution, CV.ConvolutionNoBias: _convolution,
    **{op: _normalized for op in NO.NORMALIZATION_OPS},
    PO.MaxPool2d: _max_pool, PO.AvgPool2d: _avg_pool, PO.AvgPool2dBackward: _avg_pool_backward,
    PO.AdaptiveAvgPool2d: _avg_pool, PO.AdaptiveAvgPool2dBackward: _avg_pool_backward,
    J.Cat: _join, J.Stack: _join, FI.MaskedFill: _masked_fill, FI.Fill: _fill, FI.Zero: _fill, FI.CopyInto: _copy_into,
    IndexPut: _index_put, R.Amax: _reduction(MaxOf), R.Amin: _reduction(MinOf), FI.FillTensor: _fill_tensor,
    R.Logsumexp: _reduction(LogsumexpOf),
    **{op: _pointwise_loss for op in LO.POINTWISE_LOSSES},
    SM.Softmax: _along(SoftmaxOf), SM.LogSoftmax: _along(LogSoftmaxOf),
    SM.SoftmaxBackwardData: _along_backward(SoftmaxBackwardOf),
    SM.LogSoftmaxBackwardData: _along_backward(LogSoftmaxBackwardOf),
}
# an in-place comparison's elements are its 1s and 0s, constants
_BUILDERS_BY_CLASS = [(W.Written, _written), (SE.Picked, _picked), (Scatter, _scatter), (IndexPut, _index_put),
                      (CompareInplace, _fill),
                      (S.Structural, _same_order)]


def _builder(base):
    build = _BUILDERS.get(base)
    if build is None:
        for cls, b in _BUILDERS_BY_CLASS:
            if issubclass(base, cls):
                return b
    return build


def covers(op) -> bool:
    """Does this module know the elements of ``op``'s nodes (else they are opaque)?"""
    base = getattr(op, "base", op)
    return issubclass(base, Elementwise) or _builder(base) is not None
