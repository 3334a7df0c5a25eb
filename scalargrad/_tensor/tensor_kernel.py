"""The arithmetic a backward formula runs on where a node's result or inputs have dimensions:
tensors (``TensorKernel``: the tensor ops themselves, under no_grad), and under
``create_graph=True`` tensors with grad mode on (``GraphKernel``), which records the backward
computation as a graph of its own for higher-order derivatives, with PyTorch's node names
(TanhBackwardBackward0...). The 0-dim twin, on floats, is ``_ops/float_kernel.py``.

PyTorch's own backward functions a formula calls (``pow_backward``, ``norm_backward``...) are
each defined by the family whose ops call it and registered here with ``helper``. ``install``
attaches the kernels to the dtypes: the engine reads ``TensorType.kernel``.
"""

from __future__ import annotations

import operator
from operator import attrgetter

from .._base import dtypes
from .._base.dtypes import TensorType, float32
from .._ops import arithmetic as AR
from .._ops import unary as UN
from .._ops.float_kernel import Float32Kernel, FloatKernel
from .elementwise import binary, elementwise, unary, with_number
from .memory_formats import preserved_strides
from .tensor import Tensor, leaf

__all__ = ["TensorKernel", "GraphKernel", "ZeroTensor", "Scalar", "helper", "graph_helper", "install", "running",
           "as_tensor", "zeros", "zeros_like_dtype"]

running: list = []
"""The engine's backward calls under way, innermost last: a formula whose gradient for one
input may be invalid reads what the call wants (``need``) before refusing it."""


class Scalar(float):
    """A number that a derivative formula writes as a C++ ``Scalar``; ``number`` keeps it as
    written (``grad / 2`` saves the int 2, ``_saved_other`` prints ``2``)."""

    __slots__ = ("number",)

    def __new__(cls, c):
        obj = float.__new__(cls, c)
        obj.number = getattr(c, "number", c)
        return obj


_NUMBER_OPS = {AR.MulScalar: operator.mul, AR.DivScalar: operator.truediv, AR.SubScalar: operator.sub,
               AR.AddScalar: operator.add}


def scalar_op(op, t, c):
    """``t (op) c`` for a C++ Scalar ``c`` (MulBackward1...); ``t`` may be a number itself."""
    if not isinstance(t, Tensor):
        fn = _NUMBER_OPS.get(op)
        return fn(t, float(c)) if fn is not None else float(c) - t
    return with_number(op, t, c.number if c.__class__ is Scalar else float(c))


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
        if b.__class__ is Scalar:
            return scalar_op(AR.AddScalar, a, b)
        if a.__class__ is Scalar:
            return scalar_op(AR.AddScalar, b, a)
        return a + b

    @staticmethod
    def sub(a, b):
        if b.__class__ is Scalar:
            return scalar_op(AR.SubScalar, a, b)
        if a.__class__ is Scalar:  # Scalar - tensor: rsub (RsubBackward1)
            return scalar_op(AR.RSubC, b, a)
        return a - b

    @staticmethod
    def const(c):
        """A number a derivative writes as a C++ Scalar (``2 * result``, ``grad / 2``): multiplied
        or divided, it makes PyTorch's Scalar nodes (MulBackward1, DivBackward1)."""
        return Scalar(c)

    @staticmethod
    def mul(a, b):
        if b.__class__ is Scalar:
            return scalar_op(AR.MulScalar, a, b)
        if a.__class__ is Scalar:
            return scalar_op(AR.MulScalar, b, a)
        return a * b

    @staticmethod
    def div(a, b):
        if b.__class__ is Scalar:
            return scalar_op(AR.DivScalar, a, b)
        return a / b

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
        return unary(UN.Log, x)

    @staticmethod
    def exp(x):
        return unary(UN.Exp, x)

    @staticmethod
    def sqrt(x):
        return unary(UN.Sqrt, x)

    @staticmethod
    def sin(x):
        return unary(UN.Sin, x)

    @staticmethod
    def cos(x):
        return unary(UN.Cos, x)

    @staticmethod
    def pow(a, b):
        return binary(AR.Pow, a, b)

    @staticmethod
    def zero(g):
        """A masked-out gradient: zeros shaped like ``g`` (+0.0 whatever ``g`` holds)."""
        if isinstance(g, Tensor):
            return zeros(g)
        return 0.0

    @staticmethod
    def zeros_like(g):
        """``zeros_like(grad)`` (sign's derivative): ordinary zeros, laid out as ``g`` with
        preserve_format (an expanded gradient's zero strides where it is dense)."""
        if isinstance(g, Tensor):
            t = g._t
            z = t.dtype.round(0)
            return leaf([z] * t.numel if t.ndim else z,
                        TensorType(t.dtype, t.shape, preserved_strides(t.shape, t.strides, None)))
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
    def rdiv(c, x):
        # ATen's Scalar / Tensor fills a tensor with the number and divides: one rounding (the
        # Python operator, number / tensor, is reciprocal(tensor) * number instead)
        dt = x._t.dtype
        return binary(AR.Div, leaf(dt.round(c), TensorType(dt, ())), x)

    @staticmethod
    def held(t):
        return t

    @staticmethod
    def one(like):
        """A 0-dim 1 of ``like``'s dtype (an absent weight, as an operand)."""
        return leaf(like._t.dtype.round(1.0), TensorType(like._t.dtype, ()))


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

    # a node read through saved-tensor unpack hooks: its result as a tensor of the node itself
    @staticmethod
    def out(v):
        e = v._ext
        return e.unpacked_out if e is not None and e.unpacked_out is not None else v


def helper(fn=None, *, name: str | None = None):
    """Register ``fn`` as the tensor kernels' ``k.<name>`` (``fn.__name__`` by default): a
    classmethod when its first parameter is ``k`` (it computes with the kernel's own ops, which
    record nodes under create_graph), else a plain function."""

    def register(f):
        takes_kernel = f.__code__.co_argcount and f.__code__.co_varnames[0] == "k"
        setattr(TensorKernel, name or f.__name__, classmethod(f) if takes_kernel else staticmethod(f))
        return f

    return register(fn) if fn is not None else register


def graph_helper(name: str, fn) -> None:
    """``k.<name>`` under create_graph alone (a double backward scalargrad refuses by name)."""
    setattr(GraphKernel, name, staticmethod(fn))


def as_tensor(g, like: Tensor) -> Tensor:
    """A float gradient (of a 0-dim result) as a 0-dim tensor of ``like``'s dtype."""
    return g if isinstance(g, Tensor) else leaf(g, TensorType(like._t.dtype, ()))


def zeros(like: Tensor) -> Tensor:
    n = like._t.numel
    dt = like._t.dtype
    z = dt.round(0)
    return leaf([z] * n if like._t.ndim else z, TensorType(dt, like._t.shape))


def zeros_like_dtype(g, like: Tensor) -> Tensor:
    """Zeros of ``like``'s shape in ``g``'s dtype (``like``'s when ``g`` is a number)."""
    dt = g._t.dtype if isinstance(g, Tensor) else like._t.dtype
    z = dt.round(0)
    return leaf([z] * like._t.numel if like._t.ndim else z, TensorType(dt, like._t.shape))


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

    def __sub__(self, other):
        # ATen's sub_zerotensor is add(self, other, -alpha): Z - x is x * -1, so +0.0 becomes -0.0
        # (softmax_double_backward's ``grad_output * grad - ...`` after sgn)
        # As a subtraction from -0.0 (the same values: -0.0 - x is x * -1), so that a result that
        # requires grad is PyTorch's SubBackward0 with no edge for the ZeroTensor
        if isinstance(other, Tensor) and other._t.shape == self._t.shape:
            if isinstance(other, ZeroTensor):
                return self
            return Tensor.__sub__(Tensor.new_full(self, self.shape, -0.0), other)
        return Tensor.__sub__(self, other)

    def __rsub__(self, other):
        # x - Z is x (ATen's add_zerotensor copies the other operand)
        return other if isinstance(other, Tensor) and other._t.shape == self._t.shape else Tensor.__rsub__(self, other)


ZeroTensor.__name__ = ZeroTensor.__qualname__ = "Tensor"  # type(g) prints <class 'torch.Tensor'>
ZeroTensor.__module__ = "torch"


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
