"""The arithmetic a backward formula runs on: floats, float32 floats, or tensors.

Every op's derivative is written once, against a kernel ``k``: ``k.mul(g, b)``. A 0-dim graph
runs it on floats (rounded to float32 in float32 mode, so gradients are bit-exact with
PyTorch's); a node whose result or inputs have dimensions runs it on tensors (``TensorKernel``:
the tensor ops themselves, under no_grad); ``create_graph=True`` runs it on tensors with grad
mode on (``GraphKernel``), which records the backward computation as a graph of its own for
higher-order derivatives, with PyTorch's node names (TanhBackwardBackward0...).

The helpers beyond arithmetic are PyTorch's own backward functions (``tanh_backward``,
``threshold_backward``, ``pow_backward``...), so each formula reads as ``derivatives.yaml``.
"""

from __future__ import annotations

import math
import operator
from operator import attrgetter

from .._base import dtypes, ieee
from .._base.dtypes import TensorType, float32, float64, round_f32
from .._base.errors import Unsupported
from .._base.grad_mode import _state as _grad_state
from .._ops import elementwise as E
from .._ops import shape as S
from .._tensor import products, scans, views
from .._tensor import scatter as writes
from .._tensor.build import binary, broadcast_shapes, elementwise, result_dtype, unary
from .._tensor.reduce import mean as tmean
from .._tensor.reduce import sum as tsum
from .._tensor.softmax import slices
from .._tensor.tensor import MANY, Tensor, leaf, make

__all__ = ["FloatKernel", "Float32Kernel", "TensorKernel", "GraphKernel", "install", "running"]

running: list = []
"""The engine's backward calls under way, innermost last: a formula whose gradient for one
input may be invalid reads what the call wants (``need``) before refusing it."""


class FloatKernel:
    """float64: Python's own arithmetic, IEEE-safe."""

    graph = False
    bulk = False
    tensors: type  # the tensor kernel, for the bulk variant of an op with a 0-dim result
    add = staticmethod(operator.add)
    sub = staticmethod(operator.sub)
    mul = staticmethod(operator.mul)
    div = staticmethod(ieee.div)
    neg = staticmethod(operator.neg)
    log = staticmethod(ieee.log)
    exp = staticmethod(ieee.exp)
    sqrt = staticmethod(ieee.sqrt)
    sin = staticmethod(ieee.sin)
    cos = staticmethod(ieee.cos)
    pow = staticmethod(ieee.pow)
    const = staticmethod(float)
    r = staticmethod(float)

    @staticmethod
    def zero(g):
        """A masked-out gradient (PyTorch's where/masked_fill): +0.0 whatever ``g`` is."""
        return 0.0

    @staticmethod
    def no_gradient(g):
        """PyTorch's ``_efficientzerotensor`` (sgn's derivative): see ``EfficientZero``."""
        return EFFICIENT_ZERO

    @classmethod
    def pointwise(cls, op, *args, c=None):
        """The elementwise op ``op`` (a backward kernel such as leaky_relu_backward) on numbers."""
        r = cls.r
        return r(op.forward(r, *args, c) if op.uses_c else op.forward(r, *args))

    @staticmethod
    def val(x):
        return x

    @staticmethod
    def ins(v):
        b = v._b
        if b is None:
            return [v._a._val]
        return [v._a._val, b._val] if b is not MANY else [u._val for u in v._a]

    # the saved values of a node, read in C: its first and second inputs', its own, its constant
    # tensor's (where's condition)
    a = staticmethod(attrgetter("_a._val"))
    b = staticmethod(attrgetter("_b._val"))
    out = staticmethod(attrgetter("_val"))
    c = staticmethod(attrgetter("_c._val"))

    # PyTorch's backward helpers, on floats

    @classmethod
    def tanh_backward(cls, g, y):
        # PyTorch's CPU kernel fuses 1 - y*y into one rounding
        return cls.mul(g, cls.r(ieee.one_minus_square(y)))

    @classmethod
    def sigmoid_backward(cls, g, y):
        return cls.mul(cls.mul(g, cls.sub(1.0, y)), y)

    @staticmethod
    def threshold_backward(g, y, threshold):
        return 0.0 if y <= threshold else g

    @staticmethod
    def sgn(x):
        return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)  # sgn(nan) is 0 in PyTorch

    @classmethod
    def pow_backward(cls, g, a, e):
        # zeros for the exponent 0; c10's Scalar(false).equal(0.0) is false: False runs the formula
        if e == 0.0 and getattr(e, "number", e).__class__ is not bool:
            return 0.0
        r = cls.r
        return cls.mul(g, cls.mul(r(e), r(E._pow_scalar(r, a, e - 1.0))))

    @classmethod
    def pow_backward_self(cls, g, a, b):
        if b == 0:
            return 0.0
        return cls.mul(g, cls.mul(b, cls.pow(a, cls.sub(b, 1.0))))

    @classmethod
    def pow_backward_exponent(cls, g, a, b, y):
        return cls.mul(g, 0.0 if (a == 0 and b >= 0) else cls.mul(y, cls.log(a)))

    @classmethod
    def rpow_backward(cls, g, a, c, y):
        if c == 0.0 and a >= 0:  # PyTorch: zero where base == 0 and exponent >= 0
            return cls.mul(g, 0.0)
        return cls.mul(g, cls.mul(y, cls.r(ieee.log(c))))

    @staticmethod
    def clamp_backward(g, a, c):
        lo, hi = c
        inside = (lo is None or a >= lo) and (hi is None or a <= hi)
        return g if inside else 0.0

    @classmethod
    def min_max_backward(cls, g, a, b, is_min):
        # a tie splits the gradient in halves; with a nan neither mask applies
        if a == b:
            h = cls.div(g, 2.0)
            return h, h
        if is_min:
            return (0.0 if a > b else g), (0.0 if a < b else g)
        return (0.0 if a < b else g), (0.0 if a > b else g)

    @staticmethod
    def clamp_tensor_backward(g, a, lo, hi, open_sides):
        # clamp_backward and clamp_backward_min_max: min gets the gradient where self < min < max,
        # max where self > max or max < min. An open side's bound is an infinity, which never
        # binds, except min = inf with no max: PyTorch's test is then self < min alone
        inside = a >= lo and a <= hi
        return (g if inside else 0.0), (g if (a < lo and (open_sides[1] or lo < hi)) else 0.0), \
            (g if (a > hi or hi < lo) else 0.0)

    @staticmethod
    def where(c, a, b):
        return a if c else b

    ge = staticmethod(operator.ge)
    gt = staticmethod(operator.gt)
    le = staticmethod(operator.le)
    lt = staticmethod(operator.lt)

    @staticmethod
    def floor_divide(a, b):
        return E._floor_div(None, a, b)

    @classmethod
    def rdiv(cls, c, x):
        """A Python number divided by ``x``, rounded once (ATen's ``Scalar / Tensor``)."""
        return cls.div(cls.const(c), x)

    @classmethod
    def softmax_backward(cls, g, y, c, log):
        """_softmax_backward_data of a one-element slice (a 0-dim softmax)."""
        r = cls.r
        if log:
            return r(g - r(ieee.exp(y)) * g)
        return r(r(g - r(g * y)) * y)

    @staticmethod
    def sum_along(x, c):
        return x  # a one-element slice

    @staticmethod
    def held(t):
        """A tensor an op keeps in its ``_c`` (a loss's weight), as an operand: its number."""
        return t._val

    @classmethod
    def one(cls, like):
        return cls.r(1.0)

    # shape helpers: on a 0-dim node every shape op is the identity
    @staticmethod
    def reshape(g, shape):
        return g

    permute = reshape

    @staticmethod
    def sum_to(g, shape):
        # at::sum_to to a 0-dim shape is a sum, which starts at +0.0: -0.0 becomes +0.0
        return g + 0.0

    @staticmethod
    def t(g):
        return g

    @staticmethod
    def transpose(g, dim0, dim1):
        return g

    @staticmethod
    def sum_backward(g, c):
        return g

    @staticmethod
    def to_dtype(g, dt):
        return dt.round(g)

    @staticmethod
    def evenly_distribute(g, x, y):
        return g

    # the structural helpers, on a 0-dim node (its one element is position 0)
    @staticmethod
    def masked_zero(g, layout):
        return 0.0 if layout.map else g

    @staticmethod
    def index_put_backward(g, layout):
        return (0.0 if layout.map else g), g

    @staticmethod
    def scatter(g, layout, name=None):
        return g

    index_backward = scatter


def _float_norm_backward(k, g, x, y, c):
    """norm_backward (FunctionsManual.cpp) of a 0-dim input: its norm is |x| for any order."""
    p = float(c.ord)
    sgn = k.sgn(x)
    if p == 0.0:  # an undefined gradient, as PyTorch's
        return None
    if p == 1.0:
        return k.mul(sgn, g)
    if p == 2.0:
        return k.mul(g, 0.0 if y == 0 else k.div(x, y))
    if p in (math.inf, -math.inf):
        hit = 1.0 if (abs(x) == y or x != x) else 0.0
        return k.mul(sgn, k.mul(k.div(g, hit), hit))
    if p < 1.0:
        scaled = k.mul(sgn, 0.0 if x == 0 else k.pow(abs(x), p - 1.0))
        return k.mul(k.mul(scaled, g), k.pow(y, 1.0 - p))
    scaled = k.mul(sgn, k.pow(abs(x), p - 1.0)) if p < 2.0 else k.mul(x, k.pow(abs(x), p - 2.0))
    scale = 0.0 if y == 0 else k.div(g, k.pow(y, p - 1.0))
    return k.mul(scaled, scale)


FloatKernel.norm_backward = classmethod(_float_norm_backward)
# a 0-dim input: prod, cumsum and cumprod are the identity, and so are their derivatives
FloatKernel.prod_backward = staticmethod(lambda g, x, y, c: g)
FloatKernel.cumsum_backward = staticmethod(lambda g, c: g)
FloatKernel.cumprod_backward = staticmethod(lambda g, x, y, c: g)


def _float_var_backward(k, g, x, c):
    """var_backward of a 0-dim input: (2 / (1 - correction)) * grad * (self - self)."""
    return k.mul(k.mul(k.r(ieee.div(2.0, 1.0 - c.divisor_shift)), g), k.sub(x, x))


def _float_std_backward(k, g, x, y, c):
    return _float_var_backward(k, 0.0 if y == 0 else k.div(g, k.mul(y, 2.0)), x, c)


# a selection op on a 0-dim input: the element itself, or a zero
FloatKernel.pick_backward = staticmethod(lambda g, layout, name: g if layout.map == [0] else 0.0)
FloatKernel.zero_where_inf = staticmethod(lambda x: 0.0 if x in (math.inf, -math.inf) else x)
FloatKernel.var_backward = classmethod(_float_var_backward)
FloatKernel.std_backward = classmethod(_float_std_backward)


class Float32Kernel(FloatKernel):
    """float32: each result rounded to float32, as PyTorch's CPU kernels compute.

    ``add sub mul`` inline ``round_f32`` (Veltkamp splitting, see dtypes.py): they are most of
    any backward pass, and a call saved per op is a tenth of a node's cost.
    """

    @staticmethod
    def add(a, b):
        r = a + b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO:
            return s
        if r == 0.0 or r - r != 0.0:  # a zero (EfficientZero too: kept), inf or nan: already a float32
            return r
        return round_f32(r)

    @staticmethod
    def sub(a, b):
        r = a - b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO:
            return s
        if r == 0.0 or r - r != 0.0:  # a zero (EfficientZero too: kept), inf or nan: already a float32
            return r
        return round_f32(r)

    @staticmethod
    def mul(a, b):
        r = a * b
        c = 536870913.0 * r
        s = c - (c - r)
        if _LO <= s <= _HI or -_HI <= s <= -_LO:
            return s
        if r == 0.0 or r - r != 0.0:  # a zero (EfficientZero too: kept), inf or nan: already a float32
            return r
        return round_f32(r)

    @staticmethod
    def div(a, b):
        return round_f32(ieee.div(a, b))

    @staticmethod
    def log(x):
        return round_f32(ieee.log(x))

    @staticmethod
    def exp(x):
        return round_f32(ieee.exp(x))

    @staticmethod
    def sqrt(x):
        return round_f32(ieee.sqrt(x))

    @staticmethod
    def sin(x):
        return round_f32(ieee.sin(x))

    @staticmethod
    def cos(x):
        return round_f32(ieee.cos(x))

    @staticmethod
    def pow(a, b):
        return round_f32(ieee.pow(a, b))

    const = staticmethod(round_f32)
    r = staticmethod(round_f32)

    @staticmethod
    def floor_divide(a, b):
        return round_f32(E._floor_div(round_f32, a, b))


_LO, _HI = 1.1754943508222875e-38, 3.4028234663852886e38  # float32's normal range


class TensorKernel:
    """Tensors with dimensions: the formulas run as tensor ops (grad mode is off during a
    plain backward, so they record nothing)."""

    graph = False
    bulk = True

    @staticmethod
    def scalar(g, v):
        """A 0-dim result's float gradient, as a tensor."""
        if isinstance(g, Tensor):
            return g
        return leaf(g, TensorType(v._t.dtype, ()))

    neg = staticmethod(operator.neg)
    ge = staticmethod(operator.ge)
    gt = staticmethod(operator.gt)
    le = staticmethod(operator.le)
    lt = staticmethod(operator.lt)

    @staticmethod
    def add(a, b):
        if b.__class__ is _Scalar:
            return _scalar_op(E.AddScalar, a, b)
        if a.__class__ is _Scalar:
            return _scalar_op(E.AddScalar, b, a)
        return a + b

    @staticmethod
    def sub(a, b):
        if b.__class__ is _Scalar:
            return _scalar_op(E.SubScalar, a, b)
        if a.__class__ is _Scalar:  # Scalar - tensor: rsub (RsubBackward1)
            return _scalar_op(E.RSubC, b, a)
        return a - b

    @staticmethod
    def const(c):
        """A number a derivative writes as a C++ Scalar (``2 * result``, ``grad / 2``): multiplied
        or divided, it makes PyTorch's Scalar nodes (MulBackward1, DivBackward1)."""
        return _Scalar(c)

    @staticmethod
    def mul(a, b):
        if b.__class__ is _Scalar:
            return _scalar_op(E.MulScalar, a, b)
        if a.__class__ is _Scalar:
            return _scalar_op(E.MulScalar, b, a)
        return a * b

    @staticmethod
    def div(a, b):
        if b.__class__ is _Scalar:
            return _scalar_op(E.DivScalar, a, b)
        return a / b

    @staticmethod
    def val(x):
        return x

    @staticmethod
    def ins(v):
        return list(v._in)

    a = staticmethod(attrgetter("_a"))
    b = staticmethod(attrgetter("_b"))
    c = staticmethod(attrgetter("_c"))

    @staticmethod
    def out(v):
        return v

    @staticmethod
    def log(x):
        return unary(E.Log, x)

    @staticmethod
    def exp(x):
        return unary(E.Exp, x)

    @staticmethod
    def sqrt(x):
        return unary(E.Sqrt, x)

    @staticmethod
    def sin(x):
        return unary(E.Sin, x)

    @staticmethod
    def cos(x):
        return unary(E.Cos, x)

    @staticmethod
    def pow(a, b):
        return binary(E.Pow, a, b)

    @staticmethod
    def zero(g):
        """A masked-out gradient: zeros shaped like ``g`` (+0.0 whatever ``g`` holds)."""
        if isinstance(g, Tensor):
            return _zeros(g)
        return 0.0

    @staticmethod
    def no_gradient(g):
        """PyTorch's ``_efficientzerotensor``: a ZeroTensor (added to a tensor it gives that
        tensor, multiplied it stays itself) outside the graph; what the structural backwards
        (slices, selects) make of it, and a leaf's .grad, are ordinary +0.0 zeros, as ATen
        materialises it (see FloatKernel.no_gradient)."""
        if isinstance(g, Tensor):
            t = g._t
            return leaf([0.0] * t.numel if t.ndim else 0.0, TensorType(t.dtype, t.shape), cls=ZeroTensor)
        return -0.0

    @staticmethod
    def pointwise(op, *args, c=None):
        """The elementwise op ``op`` on tensors (a node of its own under create_graph)."""
        return elementwise(op, args, c)

    @staticmethod
    def tanh_backward(g, y):
        return elementwise(E.TanhBackward, (g, y))

    @staticmethod
    def sigmoid_backward(g, y):
        return elementwise(E.SigmoidBackward, (g, y))

    @staticmethod
    def threshold_backward(g, y, threshold):
        return elementwise(E.ThresholdBackward, (g, y), threshold)

    @staticmethod
    def sgn(x):
        # self.sgn(): a node of its own (SgnBackward0, derivative 0), so that abs's gradient
        # stays connected to x under create_graph, as in PyTorch
        return unary(E.Sgn, x)

    @staticmethod
    def where(c, a, b):
        from .._tensor.surface import _where

        return _where(c, a, b)

    @classmethod
    def pow_backward(cls, g, a, e):
        # zeros_like(self) for the exponent 0, not for False (see FloatKernel.pow_backward)
        if e == 0.0 and getattr(e, "number", e).__class__ is not bool:
            return _zeros(a)
        # grad * (exponent * self.pow(exponent - 1)): exponent a Scalar (MulBackward1)
        # pow_backward takes exponent.toDouble(): _saved_other 3.0 and _saved_exponent 2.0 for 3
        return cls.mul(g, cls.mul(cls.const(float(e)), a ** (float(e) - 1.0)))

    @classmethod
    def pow_backward_self(cls, g, a, b):
        # where(exponent == 0, 0, grad * (exponent * pow(self, exponent - 1)))
        return cls.where(b == 0, _zeros_like_dtype(g, a), g * (b * a ** cls.sub(b, cls.const(1.0))))

    @classmethod
    def pow_backward_exponent(cls, g, a, b, y):
        # the base is first cast to the result type of (base, exponent): log(self) of a float32
        # base with a float64 exponent is taken in float64 (a ToCopyBackward0 under create_graph)
        a_ = views.to_dtype(a, result_dtype((a, b)))
        return g * cls.where(_and(a == 0, b >= 0), _zeros_like_dtype(y, y), y * unary(E.Log, a_))

    @classmethod
    def rpow_backward(cls, g, a, c, y):
        # grad * (result * log(base)), log(base) a Scalar
        if c == 0.0:
            return g * cls.where(a >= 0, _zeros_like_dtype(y, y), cls.mul(y, cls.const(ieee.log(c))))
        return cls.mul(g, cls.mul(y, cls.const(ieee.log(c))))

    @classmethod
    def clamp_backward(cls, g, a, c):
        lo, hi = (None if b is None else float(b) for b in c)  # a bound may be a Constant
        cond = None
        if lo is not None:
            cond = a >= lo
        if hi is not None:
            cond = (a <= hi) if cond is None else _and(cond, a <= hi)
        return cls.where(cond, g, cls.zero(g))

    @classmethod
    def min_max_backward(cls, g, a, b, is_min):
        half = cls.where(a == b, cls.div(g, cls.const(2)), g)
        mask_a = (a > b) if is_min else (a < b)
        mask_b = (a < b) if is_min else (a > b)
        # PyTorch's formula for each input computes its own where (two nodes under create_graph)
        half_b = cls.where(a == b, cls.div(g, cls.const(2)), g) if cls.graph else half
        return _masked_zero(half, mask_a), _masked_zero(half_b, mask_b)

    @classmethod
    def clamp_tensor_backward(cls, g, a, lo, hi, open_sides):
        no_min, no_max = open_sides
        if not no_min and not no_max:
            _clamp_masks_fit(a, lo, hi)
        z = cls.zero(g)
        return (cls.where(_and(a >= lo, a <= hi), g, z), cls.where(a < lo if no_max else _and(a < lo, lo < hi), g, z),
                cls.where(_or(a > hi, hi < lo), g, z))

    @staticmethod
    def floor_divide(a, b):
        return binary(E.FloorDivide, a, b)

    @staticmethod
    def rdiv(c, x):
        # ATen's Scalar / Tensor fills a tensor with the number and divides: one rounding (the
        # Python operator, number / tensor, is reciprocal(tensor) * number instead)
        dt = x._t.dtype
        return binary(E.Div, leaf(dt.round(c), TensorType(dt, ())), x)

    @staticmethod
    def softmax_backward(g, y, c, log):
        from .._tensor.softmax import backward_data

        return backward_data(g, y, c, log)

    @staticmethod
    def held(t):
        return t

    @staticmethod
    def one(like):
        """A 0-dim 1 of ``like``'s dtype (an absent weight, as an operand)."""
        return leaf(like._t.dtype.round(1.0), TensorType(like._t.dtype, ()))

    @staticmethod
    def embedding_backward(g, c):
        from .._tensor.embedding import dense_backward

        return dense_backward(g, c)

    @staticmethod
    def embedding_double_backward(g, c):
        from .._tensor.embedding import double_backward

        return double_backward(g, c)

    @staticmethod
    def convolution_backward(g, v):
        """``convolution_backward``: (grad_input, grad_weight, grad_bias) of convolution node ``v``."""
        from .._tensor.convolution import backward

        return backward(g, v)

    @staticmethod
    def batch_norm_backward(g, v):
        """native_batch_norm_backward: (grad_input, grad_weight, grad_bias) of node ``v``."""
        from .._tensor.normalization import batch_norm_backward

        return batch_norm_backward(g, v)

    @staticmethod
    def layer_norm_backward(g, v):
        """native_layer_norm_backward: (grad_input, grad_weight, grad_bias) of node ``v``."""
        from .._tensor.normalization import layer_norm_backward

        return layer_norm_backward(g, v)

    @staticmethod
    def max_pool2d_backward(g, geo):
        """max_pool2d_with_indices_backward: the gradient added at each window's picked position."""
        return _scatter(g, geo.in_shape, geo.picked, "MaxPool2DWithIndicesBackwardBackward0", accumulate=True)

    @staticmethod
    def avg_pool2d_backward(g, geo, x):
        from .._tensor.pooling import avg_pool2d_backward

        return avg_pool2d_backward(g, geo, x)

    @staticmethod
    def avg_pool2d(g, geo):
        from .._tensor.pooling import avg_pool2d_of

        return avg_pool2d_of(g, geo)

    @staticmethod
    def nll_backward(g, x, c):
        from .._tensor.losses import nll_backward

        return nll_backward(g, x, c)

    @staticmethod
    def nll_forward(g, c):
        from .._tensor.losses import nll_of_gradient

        return nll_of_gradient(g, c)

    @staticmethod
    def sum_along(x, c):
        """``x.sum(dim, keepdim=True)`` along a softmax node's dimension."""
        if not x._t.ndim:
            return x
        return tsum(x, c.dim, keepdim=True)

    # shapes

    @staticmethod
    def reshape(g, shape):
        if tuple(g._t.shape) == tuple(shape):
            return g
        return views.reshape(g, tuple(shape))

    @staticmethod
    def permute(g, perm):
        return views.permute(g, perm)

    @staticmethod
    def transpose(g, dim0, dim1):
        """``grad.transpose(dim0, dim1)``: transpose's backward (TransposeBackward0)."""
        return views.transpose(g, dim0, dim1)

    @staticmethod
    def to_dtype(g, dt):
        return views.to_dtype(g, dt)

    @staticmethod
    def sum_to(g, shape):
        # ExpandBackward0's at::sum_to: to a 0-dim shape it is always a sum (SumBackward0 under
        # create_graph; +0.0 for -0.0), otherwise the dims that were broadcast are summed
        if not shape and isinstance(g, Tensor):
            return tsum(g)
        return sum_to(g, tuple(shape))

    @staticmethod
    def sum_backward(g, c):
        if not isinstance(g, Tensor):
            g = leaf(g, TensorType(float64 if isinstance(g, float) else dtypes.int64, ()))
        if not c.all and not c.keepdim:
            for d in c.dims:
                g = views.unsqueeze(g, d)
        return views.expand(g, c.in_shape)

    @staticmethod
    def evenly_distribute(g, x, y):
        yv = y._val
        xv = x._val if x._t.ndim else [x._val]
        mask = [e != e for e in xv] if yv != yv else [e == yv for e in xv]
        count = sum(mask)
        share = g / float(count)
        return _scatter_values(share, mask, x._t)

    @staticmethod
    def amax_backward(g, x, y, c):
        """scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(result) == self,
        dims): ``grad / count * mask``, the count of the elements equal to their slice's
        extreme (a nan slice counts none: its gradient is nan)."""
        if not isinstance(g, Tensor):
            g = leaf(g, TensorType(x._t.dtype, ()))
        if not c.keepdim and c.dims and c.in_shape:
            shape = tuple(1 if d in c.dims else s for d, s in enumerate(c.in_shape))
            g, y = views.reshape(g, shape), views.reshape(y, shape)
        mask = binary(E.Eq, x, y)
        count = tsum(mask, c.dims if c.in_shape else None, keepdim=True) if c.dims or not c.in_shape \
            else tsum(mask, None)
        return (g / count) * mask

    @staticmethod
    def value_selecting_backward(g, c):
        return _scatter(g, c.in_shape, c.picked, "SelectBackwardBackward0")

    @staticmethod
    def scatter(g, layout, name="SliceBackwardBackward0"):
        """``g`` put back at the picked positions of zeros; under create_graph a node named
        ``name`` (the view op's own double backward: SelectBackwardBackward0 for select)."""
        m = layout.map
        if m is None:
            return views.reshape(g, layout.in_shape)
        return _scatter(g, layout.in_shape, m, name)

    @staticmethod
    def index_backward(g, layout):
        return _scatter(g, layout.in_shape, layout.map, "IndexBackwardBackward0", accumulate=True)

    @staticmethod
    def index_put_backward(g, layout):
        m = layout.map
        g_self = _masked_zero(g, _mask_of(m, g))
        picked = _gather(g, m, layout.sizes)
        return g_self, picked

    @staticmethod
    def masked_zero(g, layout):
        return _masked_zero(g, _mask_of(layout.map, g))

    @staticmethod
    def cat_backward(g, layout):
        d = layout.dim
        out = []
        start = 0
        for shape, _dt in layout.outputs:
            if len(shape) < len(layout.in_shape):  # stack: the input is one index of the new dim
                out.append(views.select(g, d, start))
                start += 1
            else:
                n = shape[d]
                out.append(views.narrow(g, d, start, n))
                start += n
        return tuple(out)

    @staticmethod
    def unbind_backward(gs, layout):
        d = layout.dim
        parts = []
        for (shape, _map), g in zip(layout.outputs, gs):
            if g is None:
                g = _zeros_shape(shape, layout)
            elif not isinstance(g, Tensor):  # a 0-dim output's gradient on the float path
                g = leaf(g, TensorType(layout.in_dtype or float32, ()))
            parts.append(g)
        if len(parts[0]._t.shape) < len(layout.in_shape):
            return views.stack(parts, d)
        return views.cat(parts, d)

    # products

    @staticmethod
    def t(x):
        return views.t(x)

    @staticmethod
    def mm(a, b):
        return products.mm(a, b)

    @staticmethod
    def mv(a, x):
        return products.mv(a, x)

    @staticmethod
    def bmm(a, b):
        return products.bmm(a, b)

    @staticmethod
    def outer(g, x):
        return products.outer(g, x)

    @staticmethod
    def mm_mat1_backward(g, mat2, mat1, alpha):
        # a column-major mat1 gets its gradient computed as (mat2 @ grad.T).T (FunctionsManual)
        sizes, strides = mat1._t.shape, mat1._t.strides
        if strides[0] == 1 and strides[1] == sizes[0] and sizes[0] > 1 and sizes[1] > 1:
            return views.t(products.mm(mat2, views.t(g)))
        return products.mm(g, views.t(mat2))

    @staticmethod
    def mm_mat2_backward(g, mat1, mat2, alpha):
        sizes, strides = mat2._t.shape, mat2._t.strides
        if strides[0] == 1 and strides[1] == sizes[0] and sizes[0] > 1 and sizes[1] > 1:
            return views.t(products.mm(views.t(g), mat1))
        return products.mm(views.t(mat1), g)


def _tensor_norm_backward(g, x, y, c):
    """norm_backward (FunctionsManual.cpp) on tensors: ``g`` and the norm ``y`` get the reduced
    dims back (unsqueeze_multiple), then PyTorch's formula for the order."""
    from .._tensor.surface import _masked_fill

    if not isinstance(g, Tensor):
        g = leaf(g, TensorType(x._t.dtype, ()))
    if not c.all and not c.keepdim and c.dims and c.in_shape:
        shape = tuple(1 if d in c.dims else s for d, s in enumerate(c.in_shape))
        g, y = views.reshape(g, shape), views.reshape(y, shape)
    p = float(c.ord)
    if p == 0.0:  # an undefined gradient, as PyTorch's
        return None
    if p == 1.0:
        return unary(E.Sgn, x) * g
    if p == 2.0:
        return g * _masked_fill(x / y, binary(E.Eq, y, 0), 0, False)
    if p in (math.inf, -math.inf):
        a = unary(E.Abs, x)
        mask = _or(binary(E.Eq, a, y), binary(E.Ne, a, a))
        count = tsum(mask, c.dims, keepdim=True) if (c.dims and not c.all) else tsum(mask, None)
        return unary(E.Sgn, x) * ((g / count) * mask)
    if p < 1.0:
        scaled = unary(E.Sgn, x) * _masked_fill(unary(E.Abs, x) ** (p - 1.0), binary(E.Eq, x, 0), 0, False)
        return scaled * g * y ** (1.0 - p)
    if p < 2.0:
        scaled = unary(E.Sgn, x) * unary(E.Abs, x) ** (p - 1.0)
    else:
        scaled = x * unary(E.Abs, x) ** (p - 2.0)
    return scaled * _masked_fill(g / y ** (p - 1.0), binary(E.Eq, y, 0), 0, False)


TensorKernel.norm_backward = staticmethod(_tensor_norm_backward)


def _as_tensor(g, like: Tensor) -> Tensor:
    return g if isinstance(g, Tensor) else leaf(g, TensorType(like._t.dtype, ()))


def _reversed_cumsum(w: Tensor, d: int) -> Tensor:
    return scans.flip(scans.cumsum(scans.flip(w, d), d), d)


def _exclusive_products(x: Tensor, d: int | None) -> Tensor:
    """prod_safe_zeros_backward's ``exclusive_normal * exclusive_reverse``: for each element the
    products of the elements before it and after it along ``d`` (the whole flattened tensor for
    None), each a cumulative product accumulated in double and rounded, as ATen's cumprod."""
    dt = x._t.dtype
    r = dt.round
    shape = tuple(x._t.shape)
    vals = x._val if x._t.ndim else [x._val]
    groups = [list(range(len(vals)))] if d is None else slices(shape, d)
    out = [0.0] * len(vals)
    for grp in groups:
        before, acc = [], 1.0
        for i in grp:
            before.append(r(acc))
            acc *= vals[i]
        after, acc = [], 1.0
        for i in reversed(grp):
            after.append(r(acc))
            acc *= vals[i]
        after.reverse()
        for i, b, a in zip(grp, before, after):
            out[i] = r(b * a)
    return leaf(out if shape else out[0], x._t.with_dtype(dt) if x._t.contiguous else TensorType(dt, shape))


def _tensor_prod_backward(g, x, y, c):
    """prod_backward (FunctionsManual.cpp): ``grad * (result / self)`` without zeros in the
    input, else ``grad`` times the product of the other elements."""
    if not x._t.ndim:
        return g
    g = _as_tensor(g, x)
    if not c.all and not c.keepdim:
        g, y = views.unsqueeze(g, c.dim), views.unsqueeze(y, c.dim)
    vals = x._val
    if not any(v == 0 for v in vals):
        return g * (y / x)
    if _grad_state.enabled:
        raise Unsupported("the double backward of prod through an input element equal to zero")
    if c.all:
        if sum(1 for v in vals if v == 0) > 1:  # every product of the others holds a zero
            return g * _zeros(x)
        return g * _exclusive_products(x, None)
    return g * _exclusive_products(x, c.dim)


def _tensor_cumsum_backward(g, c):
    if g._t.numel <= 1 or not g._t.ndim or g._t.shape[c.dim] == 1:
        return g
    return _reversed_cumsum(g, c.dim)


def _tensor_cumprod_backward(g, x, y, c):
    """cumprod_backward: ``reversed_cumsum(result * grad) / self`` without zeros in the input;
    with zeros, d out_j / d x_i = the product of x_0..x_j without x_i (computed from the
    elements, rounded once)."""
    if x._t.numel <= 1 or not x._t.ndim or x._t.shape[c.dim] == 1:
        return g
    vals = x._val
    if not any(v == 0 for v in vals):
        return _reversed_cumsum(y * g, c.dim) / x
    if _grad_state.enabled:
        raise Unsupported("the double backward of cumprod through an input element equal to zero")
    dt = x._t.dtype
    gv = g._val
    out = [0.0] * len(vals)
    for s in slices(tuple(x._t.shape), c.dim):
        for a, i in enumerate(s):
            total = 0.0
            for j in range(a, len(s)):
                p = 1.0
                for b in range(j + 1):
                    if b != a:
                        p *= vals[s[b]]
                total += gv[s[j]] * p
            out[i] = dt.round(total)
    return leaf(out, TensorType(dt, tuple(x._t.shape)))


def _tensor_var_backward(g, x, c):
    """var_backward (FunctionsManual.cpp): ``(2 / (n - correction)) * grad * (self -
    self.mean(dim, keepdim=True))``, the Scalar first rounded to the dtype as ATen casts it."""
    g = _as_tensor(g, x)
    if not c.all and not c.keepdim and c.dims and c.in_shape:
        g = views.reshape(g, tuple(1 if d in c.dims else s for d, s in enumerate(c.in_shape)))
    scale = ieee.div(2.0, c.count() - c.divisor_shift)
    mean = tmean(x, c.dims if (c.dims and not c.all) else None, keepdim=True) if x._t.ndim else x
    if mean._t.ndim != x._t.ndim and x._t.ndim:
        mean = views.reshape(mean, (1,) * x._t.ndim)
    return _scalar_op(E.MulScalar, g, _Scalar(scale)) * (x - mean)


def _tensor_std_backward(g, x, y, c):
    """std_backward: ``(grad / (result * 2)).masked_fill_(result == 0, 0)``, then var_backward."""
    from .._tensor.surface import _masked_fill

    g = _as_tensor(g, x)
    return _tensor_var_backward(_masked_fill(g / (y * 2), binary(E.Eq, y, 0), 0, False), x, c)


def _tensor_pick_backward(g, layout, name):
    """The gradient of a selection op: ``g``'s elements added into zeros of the input's shape
    at ``layout.map`` (skipping the -1 entries, the zeros the op wrote), in order."""
    g = g if isinstance(g, Tensor) else leaf(g, TensorType(layout.in_dtype, ()))
    m = layout.map
    if any(i < 0 for i in m):
        keep = [j for j, i in enumerate(m) if i >= 0]
        g = _gather(g, keep, (len(keep),))
        m = [m[j] for j in keep]
    return _scatter(g, layout.in_shape, m, name, accumulate=True)


def _gather_src(g, d, index, v):
    """src's gradient of a scatter node ``v``, ``grad.gather(dim, index)``: in index's shape,
    which PyTorch's engine refuses (validate_outputs) when src's shape does not broadcast to
    it, if src's gradient is wanted at all (``autograd.grad`` of other inputs computes none)."""
    out = writes.gather_src(g, d, index)
    src = v._in[1]
    got, want = tuple(out._t.shape), tuple(src._t.shape)
    if got == want or (len(want) <= len(got) and all(a in (b, 1) for a, b in zip(want[::-1], got[::-1]))):
        return out
    need = running[-1].need if running else None
    if need is not None and src not in need:
        return None
    raise RuntimeError(f"Function {v.grad_fn.name()} returned an invalid gradient at index 1 - got {list(got)} "
                       f"but expected shape compatible with {list(want)}")


def _tensor_zero_where_inf(x):
    """``x.masked_fill(x.isinf(), 0)``."""
    from .._tensor.surface import _masked_fill

    vals = x._val if x._t.ndim else [x._val]
    mask = leaf([v in (math.inf, -math.inf) for v in vals] if x._t.ndim else vals[0] in (math.inf, -math.inf),
                TensorType(dtypes.bool, tuple(x._t.shape)))
    return _masked_fill(x, mask, 0, False) if any(mask._val if x._t.ndim else [mask._val]) else x


TensorKernel.zero_where_inf = staticmethod(_tensor_zero_where_inf)
TensorKernel.pick_backward = staticmethod(_tensor_pick_backward)
TensorKernel.var_backward = staticmethod(_tensor_var_backward)
TensorKernel.std_backward = staticmethod(_tensor_std_backward)
TensorKernel.prod_backward = staticmethod(_tensor_prod_backward)
TensorKernel.cumsum_backward = staticmethod(_tensor_cumsum_backward)
TensorKernel.cumprod_backward = staticmethod(_tensor_cumprod_backward)
TensorKernel.flip = staticmethod(lambda g, dims: scans.flip(g, dims))
# the tensor ops the write ops' derivatives name (derivatives.yaml: grad.gather(dim, index)...)
TensorKernel.gather_src = staticmethod(_gather_src)
TensorKernel.scatter_value = staticmethod(writes.scatter_zero)
TensorKernel.index_select_as = staticmethod(writes.index_select_as)
TensorKernel.index_fill_zero = staticmethod(writes.index_fill_zero)
TensorKernel.index_fill_value_backward = staticmethod(writes.index_fill_value_backward)
TensorKernel.masked_fill_zero = staticmethod(lambda g, mask: _masked_zero(g, mask))
TensorKernel.masked_scatter_backward = staticmethod(writes.masked_scatter_backward)


class GraphKernel(TensorKernel):
    """create_graph=True: the same formulas on tensors, recorded for double backward."""

    graph = True

    # an in-place op's node reads the clone of self PyTorch saved (CloneBackward0 in the graph)
    @staticmethod
    def a(v):
        e = v._ext
        return e.saved_self if e is not None and e.saved_self is not None else v._a

    @staticmethod
    def ins(v):
        e = v._ext
        ins = list(v._in)
        if e is not None and e.saved_self is not None:
            ins[0] = e.saved_self
        return ins

    @staticmethod
    def batch_norm_backward(g, v):
        raise Unsupported("the double backward of batch_norm (NativeBatchNormBackwardBackward0, create_graph=True)")

    @staticmethod
    def layer_norm_backward(g, v):
        raise Unsupported("the double backward of layer_norm (NativeLayerNormBackwardBackward0, create_graph=True)")

    @staticmethod
    def convolution_backward(g, v):
        raise Unsupported("the double backward of convolution (ConvolutionBackwardBackward0, create_graph=True)")



# ---------------------------------------------------------------- tensor helpers


def _clamp_masks_fit(a: Tensor, lo: Tensor, hi: Tensor) -> None:
    """PyTorch's clamp backward with both bounds tensors combines its masks in place
    (``(self < min).logical_and_(min < max)``...), which fails, as any in-place op, where the
    second mask broadcasts to more than the first: for the min's gradient, then the max's,
    then self's, each where its tensor requires grad."""
    sa, sl, sh = (tuple(t._t.shape) for t in (a, lo, hi))
    for needed, first, second in ((lo._rg, (sa, sl), (sl, sh)), (hi._rg, (sa, sh), (sh, sl)),
                                  (a._rg, (sa, sl), (sa, sh))):
        if not needed:
            continue
        out = broadcast_shapes(*first)
        full = broadcast_shapes(out, broadcast_shapes(*second))
        if full != out:
            raise RuntimeError(f"output with shape {list(out)} doesn't match the broadcast shape {list(full)}")


class EfficientZero(float):
    """PyTorch's ``_efficientzerotensor``, the derivative of sgn: a zero that arithmetic passes
    through as ATen's ZeroTensor kernels do: multiplied or divided it stays itself, negated it is
    a materialised zero negated (-0.0). On the float path a sum with it is a gradient
    accumulation (``buffered + arriving``: the engine's input buffer), which PyTorch does in
    place when the buffered gradient is an ordinary tensor (``old.add_(var)``; add_ has no
    ZeroTensor kernel, so the zero is materialised and ``-0.0 + Z`` is ``+0.0``), and out of
    place when the buffered one is the ZeroTensor (``Z + var`` is ``var``, sign kept). Python
    gives a float subclass's reflected operator the first turn, so ``x * Z`` reaches
    ``__rmul__`` and ``x + Z`` ``__radd__``."""

    __slots__ = ()

    def __add__(self, other):
        return other  # the ZeroTensor buffered first: ATen's add of a ZeroTensor returns the other

    def __radd__(self, other):
        return self if other.__class__ is EfficientZero else other + 0.0  # in place: materialised

    def __sub__(self, other):
        return -other

    def __rsub__(self, other):
        return other

    def __mul__(self, other):
        return self

    __rmul__ = __truediv__ = __mul__

    def __neg__(self):
        return -0.0  # neg has no ZeroTensor kernel: ATen's fallback materialises +0.0, then negates


EFFICIENT_ZERO = EfficientZero(0.0)


class ZeroTensor(Tensor):
    """``EfficientZero`` as a tensor, where user code sees it (a hook's argument): multiplied or
    divided it stays a ZeroTensor, added to a tensor it gives that tensor, and anything else
    computes on an ordinary zero (ATen's fallback materialises it). Handed back to the engine
    it is ``EfficientZero`` again."""

    __slots__ = ()

    def _is_zerotensor(self) -> bool:
        return True

    def _stays(self, r):
        if not isinstance(r, Tensor):
            return r
        t = r._t
        return leaf([0.0] * t.numel if t.ndim else 0.0, t, cls=ZeroTensor)

    def __mul__(self, other):
        return self._stays(Tensor.__mul__(self, other))

    def __rmul__(self, other):
        return self._stays(Tensor.__rmul__(self, other))

    def __truediv__(self, other):
        return self._stays(Tensor.__truediv__(self, other))

    def mul(self, other):
        return self._stays(Tensor.mul(self, other))

    def div(self, other, *, rounding_mode=None):
        r = Tensor.div(self, other, rounding_mode=rounding_mode)
        return r if rounding_mode is not None else self._stays(r)

    def __add__(self, other):
        return other if isinstance(other, Tensor) and other._t.shape == self._t.shape else Tensor.__add__(self, other)

    def __radd__(self, other):
        return other if isinstance(other, Tensor) and other._t.shape == self._t.shape else Tensor.__radd__(self, other)


ZeroTensor.__name__ = ZeroTensor.__qualname__ = "Tensor"  # type(g) prints <class 'torch.Tensor'>
ZeroTensor.__module__ = "torch"


class _Scalar(float):
    """A number that a derivative formula writes as a C++ ``Scalar``; ``number`` keeps it as
    written (``grad / 2`` saves the int 2, ``_saved_other`` prints ``2``)."""

    __slots__ = ("number",)

    def __new__(cls, c):
        obj = float.__new__(cls, c)
        obj.number = getattr(c, "number", c)
        return obj


def _scalar_op(op, t, c):
    from .._tensor.build import _with_number

    if not isinstance(t, Tensor):
        fn = {E.MulScalar: operator.mul, E.DivScalar: operator.truediv, E.SubScalar: operator.sub,
              E.AddScalar: operator.add}.get(op)
        return fn(t, float(c)) if fn is not None else float(c) - t
    return _with_number(op, t, c.number if c.__class__ is _Scalar else float(c))


def _zeros(like: Tensor) -> Tensor:
    n = like._t.numel
    dt = like._t.dtype
    z = dt.round(0)
    return leaf([z] * n if like._t.ndim else z, TensorType(dt, like._t.shape))


def _zeros_like_dtype(g, like: Tensor) -> Tensor:
    dt = g._t.dtype if isinstance(g, Tensor) else like._t.dtype
    z = dt.round(0)
    return leaf([z] * like._t.numel if like._t.ndim else z, TensorType(dt, like._t.shape))


def _zeros_shape(shape, layout) -> Tensor:
    n = 1
    for s in shape:
        n *= s
    dt = layout.in_dtype or float32
    return leaf([0.0] * n if shape else 0.0, TensorType(dt, tuple(shape)))


def _and(a: Tensor, b: Tensor) -> Tensor:
    av = a._val if a._t.ndim else [a._val]
    bv = b._val if b._t.ndim else [b._val]
    from .._tensor.build import broadcast_shapes, positions

    shape = broadcast_shapes(a._t.shape, b._t.shape)
    xs = [av[i] for i in positions(a._t.shape, shape)]
    ys = [bv[i] for i in positions(b._t.shape, shape)]
    vals = [bool(x and y) for x, y in zip(xs, ys)]
    return leaf(vals if shape else vals[0], TensorType(dtypes.bool, shape))


def _or(a: Tensor, b: Tensor) -> Tensor:
    av = a._val if a._t.ndim else [a._val]
    bv = b._val if b._t.ndim else [b._val]
    from .._tensor.build import broadcast_shapes, positions

    shape = broadcast_shapes(a._t.shape, b._t.shape)
    xs = [av[i] for i in positions(a._t.shape, shape)]
    ys = [bv[i] for i in positions(b._t.shape, shape)]
    vals = [bool(x or y) for x, y in zip(xs, ys)]
    return leaf(vals if shape else vals[0], TensorType(dtypes.bool, shape))


def _mask_of(m, like: Tensor) -> Tensor:
    n = like._t.numel
    vals = [False] * n
    for i in m:
        vals[i] = True
    return leaf(vals if like._t.ndim else vals[0], TensorType(dtypes.bool, like._t.shape))


def _masked_zero(g: Tensor, mask: Tensor) -> Tensor:
    from .._tensor.surface import _masked_fill

    return _masked_fill(g, mask, 0.0, False)


def _scatter_values(share: Tensor, mask: list, t: TensorType) -> Tensor:
    """zeros of type ``t`` with ``share`` (0-dim) where ``mask`` holds (evenly_distribute)."""
    from .._tensor.surface import _where

    m = leaf(mask if t.ndim else mask[0], TensorType(dtypes.bool, t.shape))
    zeros = leaf([0.0] * t.numel if t.ndim else 0.0, TensorType(share._t.dtype, t.shape))
    return _where(m, share, zeros)


class _Scatter(S.Structural):
    """zeros of the input's shape with the gradient at ``map``'s positions (added in order
    when ``accumulate``): the backward of select/slice/index, differentiable itself."""

    name = "SliceBackwardBackward0"
    backward = staticmethod(lambda k, g, v: (_gather(g, v._c.map, v._c.sizes),))


def _scatter_class(name: str) -> type:
    cls = _scatter_classes.get(name)
    if cls is None:
        cls = _scatter_classes[name] = type(name.replace("Backward", ""), (_Scatter,), {"name": name})
    return cls


_scatter_classes: dict = {}


def _scatter(g, in_shape, m, name: str, accumulate: bool = False) -> Tensor:
    gv = g._val if g._t.ndim else [g._val]
    n = 1
    for s in in_shape:
        n *= s
    dt = g._t.dtype
    z = dt.round(0)
    out = [z] * n
    if accumulate:
        r = dt.round
        seen = set()
        for i, x in zip(m, gv):
            out[i] = r(out[i] + x) if i in seen else r(z + x)
            seen.add(i)
    else:
        for i, x in zip(m, gv):
            out[i] = x
    layout = S.Layout(in_shape, dt, map=list(m))
    layout.sizes = tuple(g._t.shape)
    return make(_scatter_class(name), TensorType(dt, tuple(in_shape)), out if in_shape else out[0], (g,), layout)


def _gather(g: Tensor, m, shape) -> Tensor:
    gv = g._val if g._t.ndim else [g._val]
    vals = [gv[i] for i in m]
    layout = S.Layout(g._t.shape, g._t.dtype, map=list(m))
    shape = tuple(shape)
    return make(S.Index, TensorType(g._t.dtype, shape), vals if shape else vals[0], (g,), layout)


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """``at::sum_to``: sum a broadcast gradient back to ``shape`` (keepdim sum over the
    broadcast dims, then a view dropping the leading ones)."""
    gshape = tuple(g._t.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)
    if dims:
        g = tsum(g, dims, keepdim=True)
    if lead:
        g = views.view(g, shape) if shape else views.reshape(g, ())
    return g


def install() -> None:
    """Attach the kernels to the tensor types (the engine reads ``TensorType.kernel``)."""
    FloatKernel.tensors = TensorKernel
    Float32Kernel.tensors = TensorKernel
    kernels = {}
    for dt in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int64, dtypes.int32,
               dtypes.int16, dtypes.int8, dtypes.uint8, dtypes.bool):
        kernels[(dt, True)] = Float32Kernel if dt is float32 else FloatKernel
        kernels[(dt, False)] = TensorKernel
    dtypes.set_kernels(kernels)


install()
_ = math
