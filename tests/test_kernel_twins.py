"""Every derivative helper written twice, on floats (``_ops/float_kernel.py``: a 0-dim graph's
kernels) and on tensors (``_tensor/tensor_kernel.py``), computes the same numbers.

A formula in the op table calls ``k.<helper>``; a 0-dim node runs it on floats, any other node
on tensors, so each helper with a twin encodes PyTorch's convention twice (pow's zero exponent,
clamp's bounds, a tie in minimum/maximum...). Each twin pair here runs on the same random values,
drawn with the edges that conventions are about (signed zeros, infinities, nan, ties), in
float32 (``Float32Kernel``) and float64 (``FloatKernel``): the elementwise helpers on a vector
of them against the float kernel element by element, the others on 0-dim tensors against the
float kernel on their numbers. Bits are compared, sign of zero and nan included. A helper
registered on both kernels without a case here fails ``test_every_twin_has_a_case``. No PyTorch
is involved.
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scalargrad
from scalargrad._base import dtypes
from scalargrad._base.dtypes import TensorType
from scalargrad._ops import REGISTRY, elementwise
from scalargrad._ops.float_kernel import EFFICIENT_ZERO, Float32Kernel, FloatKernel
from scalargrad._ops.views import Layout
from scalargrad._tensor import embedding, losses, tensor_kernel  # noqa: F401 - their helpers register on import
from scalargrad._tensor.tensor import Tensor, leaf
from scalargrad._tensor.tensor_kernel import TensorKernel

pytestmark = pytest.mark.no_sympy_check  # the helpers are called directly: no backward pass to prove

# what both kernels have that is not a derivative helper: flags and the kernels' own plumbing
NOT_HELPERS = {"graph", "bulk", "tensors", "r", "scalar"}

EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -0.5, 3.0, math.inf, -math.inf, math.nan, 1e-30, -1e-30, 1e30, 1e-310]
VALUE = st.one_of(st.sampled_from(EDGES), st.floats(-1e6, 1e6, allow_nan=False), st.floats(-4.0, 4.0))
KERNELS = {"float32": (Float32Kernel, dtypes.float32), "float64": (FloatKernel, dtypes.float64)}
N = 8  # elements per vector


def _twins() -> set:
    names = set()
    for name in dir(TensorKernel):
        if name.startswith("_") or name in NOT_HELPERS:
            continue
        if hasattr(FloatKernel, name):
            names.add(name)
    return names


def _bits(x) -> int | str:
    if isinstance(x, bool):
        return str(x)
    x = float(x)
    return "nan" if x != x else struct.unpack("<q", struct.pack("<d", x))[0]


def _elements(t) -> list:
    if isinstance(t, Tensor):
        return list(t._val) if t._t.ndim else [t._val]
    return [t]


def _same(f, t, at: int | None = None) -> bool:
    """The float kernel's result ``f`` is the tensor kernel's ``t`` (its element ``at``)."""
    if f is None or t is None:
        return f is None and t is None
    if isinstance(f, tuple):
        return len(f) == len(t) and all(_same(a, b, at) for a, b in zip(f, t))
    elems = _elements(t)
    return _bits(f) == _bits(elems[0 if at is None else at])


def _vector(vals: list, dt) -> Tensor:
    return leaf([dt.round(v) for v in vals], TensorType(dt, (len(vals),)))


def _scalar(v, dt) -> Tensor:
    return leaf(dt.round(v), TensorType(dt, ()))


def _columns(draw, n_args: int, dt) -> list:
    return [[dt.round(v) for v in draw(st.lists(VALUE, min_size=N, max_size=N))] for _ in range(n_args)]


# ---------------------------------------------------------------- elementwise twins
# name -> (number of tensor operands, extra arguments given to both kernels as they are)

ELEMENTWISE = {
    "add": (2, ()), "sub": (2, ()), "mul": (2, ()), "div": (2, ()), "neg": (1, ()), "log": (1, ()),
    "exp": (1, ()), "sqrt": (1, ()), "sin": (1, ()), "cos": (1, ()), "pow": (2, ()),
    "floor_divide": (2, ()), "tanh_backward": (2, ()), "sigmoid_backward": (2, ()),
    "threshold_backward": (2, (0.0,)), "sgn": (1, ()), "pow_pow_backward_self": None,  # placeholder, see below
    "pow_backward_self": (3, ()), "pow_backward_exponent": (4, ()), "zero_where_inf": (1, ()),
    "xlogy_self_backward": (3, ()), "nan_to_num_backward": (2, ()), "frexp_backward": (2, ()),
    "mvlgamma_backward": (2, (2,)), "i1_backward": (3, (False,)),
    "xlog1py_self_backward": (3, ()),
}
del ELEMENTWISE["pow_pow_backward_self"]


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_elementwise_twins_agree_element_by_element(name, dtype, data):
    fk, dt = KERNELS[dtype]
    n_args, extra = ELEMENTWISE[name]
    cols = _columns(data.draw, n_args, dt)
    tensors = [_vector(c, dt) for c in cols]
    with scalargrad.no_grad():
        t = getattr(TensorKernel, name)(*tensors, *extra)
    for i in range(N):
        f = getattr(fk, name)(*[c[i] for c in cols], *extra)
        assert _same(f, t, i), (name, dtype, [c[i] for c in cols], f, _elements(t)[i])


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_i1e_backward_twins_agree(dtype, data):
    """``i1_backward``'s scaled form (i1e's), which the table above calls unscaled."""
    fk, dt = KERNELS[dtype]
    cols = _columns(data.draw, 3, dt)
    with scalargrad.no_grad():
        t = TensorKernel.i1_backward(*[_vector(c, dt) for c in cols], True)
    for i in range(N):
        f = fk.i1_backward(*[c[i] for c in cols], True)
        assert _same(f, t, i), (dtype, [c[i] for c in cols], f, _elements(t)[i])


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_number_helpers_agree(dtype, data):
    """Helpers with a Python number among their arguments: the exponent of ``x ** c``, the base
    of ``c ** x``, clamp's number bounds, a number divided by a tensor, a C++ Scalar."""
    fk, dt = KERNELS[dtype]
    g, a, y = _columns(data.draw, 3, dt)
    c = data.draw(st.one_of(st.sampled_from([0.0, 1.0, 2.0, 3.0, -1.0, 0.5, -0.5, False, True, 0, 2]), VALUE))
    lo = data.draw(st.one_of(st.none(), VALUE))
    hi = data.draw(st.one_of(st.none(), VALUE)) if lo is not None else data.draw(VALUE)  # clamp has a bound
    lo, hi = (None if b is None else dt.round(b) for b in (lo, hi))  # a clamp node keeps them rounded
    tg, ta, ty = (_vector(x, dt) for x in (g, a, y))
    cases = [("pow_backward", (g, a), lambda k, G, A: k.pow_backward(G, A, c)),
             ("rpow_backward", (g, a, y), lambda k, G, A, Y: k.rpow_backward(G, A, float(c), Y)),
             ("clamp_backward", (g, a), lambda k, G, A: k.clamp_backward(G, A, (lo, hi))),
             ("rdiv", (a,), lambda k, A: k.rdiv(float(c), A)),
             ("pow_number", (a,), lambda k, A: k.pow_number(A, float(c))),
             ("const", (g,), lambda k, G: (k.mul(G, k.const(float(c))), k.div(G, k.const(float(c))),
                                          k.add(G, k.const(float(c))), k.sub(G, k.const(float(c)))))]
    args = {id(g): tg, id(a): ta, id(y): ty}
    for name, cols, fn in cases:
        with scalargrad.no_grad():
            t = fn(TensorKernel, *[args[id(x)] for x in cols])
        for i in range(N):
            f = fn(fk, *[x[i] for x in cols])
            assert _same(f, t, i), (name, dtype, c, lo, hi, [x[i] for x in cols], f)


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_comparison_helpers_agree(dtype, data):
    """where, the comparisons, minimum/maximum's tie rule and clamp with tensor bounds."""
    fk, dt = KERNELS[dtype]
    g, a, b, hi = _columns(data.draw, 4, dt)
    if data.draw(st.booleans()):  # ties, which the helpers split or give to one side
        b = [x if data.draw(st.booleans()) else y for x, y in zip(a, b)]
    cond = data.draw(st.lists(st.booleans(), min_size=N, max_size=N))
    tg, ta, tb, thi = (_vector(x, dt) for x in (g, a, b, hi))
    tc = leaf(cond, TensorType(dtypes.bool, (N,)))
    open_sides = data.draw(st.sampled_from([(False, False), (True, False), (False, True)]))
    with scalargrad.no_grad():
        results = {"where": TensorKernel.where(tc, ta, tb), "ge": TensorKernel.ge(ta, tb),
                   "gt": TensorKernel.gt(ta, tb), "le": TensorKernel.le(ta, tb), "lt": TensorKernel.lt(ta, tb),
                   "min": TensorKernel.min_max_backward(tg, ta, tb, True),
                   "max": TensorKernel.min_max_backward(tg, ta, tb, False),
                   "fmin": TensorKernel.fmax_backward(tg, ta, tb, True),
                   "fmax": TensorKernel.fmax_backward(tg, ta, tb, False),
                   "clamp": TensorKernel.clamp_tensor_backward(tg, ta, tb, thi, open_sides)}
    for i in range(N):
        floats = {"where": fk.where(cond[i], a[i], b[i]), "ge": fk.ge(a[i], b[i]), "gt": fk.gt(a[i], b[i]),
                  "le": fk.le(a[i], b[i]), "lt": fk.lt(a[i], b[i]), "min": fk.min_max_backward(g[i], a[i], b[i], True),
                  "max": fk.min_max_backward(g[i], a[i], b[i], False),
                  "fmin": fk.fmax_backward(g[i], a[i], b[i], True), "fmax": fk.fmax_backward(g[i], a[i], b[i], False),
                  "clamp": fk.clamp_tensor_backward(g[i], a[i], b[i], hi[i], open_sides)}
        for name, f in floats.items():
            assert _same(f, results[name], i), (name, dtype, g[i], a[i], b[i], hi[i], open_sides, f)


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@pytest.mark.parametrize("name", sorted(op.__name__ for op in REGISTRY.values()
                                        if issubclass(op, elementwise.Elementwise) and op.arity in (1, 2)
                                        and not op.uses_c and op.differentiable and op.base is op))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_pointwise_runs_an_op_of_the_table_alike(name, dtype, data):
    op = REGISTRY[name]
    fk, dt = KERNELS[dtype]
    cols = _columns(data.draw, op.arity, dt)
    try:
        with scalargrad.no_grad():
            t = TensorKernel.pointwise(op, *[_vector(c, dt) for c in cols])
    except (RuntimeError, NotImplementedError, TypeError):
        return  # an op refusing these operands (bitwise ops on floats) has no float twin to check
    for i in range(N):
        f = fk.pointwise(op, *[c[i] for c in cols])
        assert _same(f, t, i), (name, dtype, [c[i] for c in cols], f)


# ---------------------------------------------------------------- twins on 0-dim nodes


def _node(make, value: float, dt):
    """A 0-dim leaf requiring grad and the node ``make`` builds on it."""
    x = leaf(dt.round(value), TensorType(dt, ()), requires_grad=True)
    return x, make(x)


REDUCTIONS = {
    "norm_backward": lambda x: x.norm(2), "prod_backward": lambda x: x.prod(),
    "cumsum_backward": lambda x: x.cumsum(0), "cumprod_backward": lambda x: x.cumprod(0),
    "var_backward": lambda x: x.var(correction=0), "std_backward": lambda x: x.std(correction=0),
    "sum_backward": lambda x: x.sum(), "evenly_distribute": lambda x: x.max(),
    "softmax_backward": lambda x: x.softmax(0), "sum_along": lambda x: x.softmax(0),
    "restore_reduced": lambda x: x.logsumexp(0), "logcumsumexp_backward": lambda x: x.logcumsumexp(0),
}
ORDERS = [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, math.inf, -math.inf]


def _reduction_call(name, k, g, x, y, c, tensors: bool):
    if name in ("norm_backward", "prod_backward", "cumprod_backward", "std_backward"):
        return getattr(k, name)(g, x, y, c)
    if name == "var_backward":
        return k.var_backward(g, x, c)
    if name in ("cumsum_backward", "sum_backward"):
        return getattr(k, name)(g, c)
    if name == "evenly_distribute":
        return k.evenly_distribute(g, x, y)
    if name == "softmax_backward":
        return k.softmax_backward(g, y, c, False), k.softmax_backward(g, y, c, True)
    if name == "logcumsumexp_backward":
        return k.logcumsumexp_backward(g, x, y, c)
    if name == "restore_reduced":
        return k.restore_reduced(g, c)
    return k.sum_along(g, c)


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@settings(max_examples=40, deadline=None)
@given(x=VALUE, g=VALUE, order=st.sampled_from(ORDERS))
def test_the_reduction_helpers_of_a_0_dim_input_agree(name, dtype, x, g, order):
    fk, dt = KERNELS[dtype]
    make = (lambda t: t.norm(order)) if name == "norm_backward" else REDUCTIONS[name]
    xt, y = _node(make, x, dt)
    c = y._c
    gt = _scalar(g, dt)
    with scalargrad.no_grad():
        t = _reduction_call(name, TensorKernel, gt, xt, y, c, True)
    f = _reduction_call(name, fk, gt._val, xt._val, y._val, c, False)
    assert _same(f, t), (name, dtype, x, g, order, f, t)


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@settings(max_examples=40, deadline=None)
@given(g=VALUE, hit=st.booleans(), dt_to=st.sampled_from([dtypes.float32, dtypes.float64, dtypes.float16]))
def test_the_structural_helpers_of_a_0_dim_node_agree(dtype, g, hit, dt_to):
    """On a 0-dim node a shape op is the identity, a pick keeps the one element or none."""
    fk, dt = KERNELS[dtype]
    gt = _scalar(g, dt)
    gf = gt._val
    layout = Layout((), dt, map=[0] if hit else [])
    picked = Layout((), dt, map=[0] if hit else [-1])
    cases = {
        "reshape": lambda k, G: k.reshape(G, ()), "view_back": lambda k, G: k.view_back(G, ()),
        "permute": lambda k, G: k.permute(G, ()),
        "squeeze": lambda k, G: k.squeeze(G, 0), "unsqueeze, squeezed": lambda k, G: k.squeeze(k.unsqueeze(G, 0), 0),
        "t": lambda k, G: k.t(G), "transpose": lambda k, G: k.transpose(G, 0, 0),
        "to_dtype": lambda k, G: k.to_dtype(G, dt_to), "sum_to": lambda k, G: k.sum_to(G, ()),
        "masked_zero": lambda k, G: k.masked_zero(G, layout), "zero": lambda k, G: k.zero(G),
        "scatter": lambda k, G: k.scatter(G, Layout((), dt, map=[0]), "SelectBackwardBackward0"),
        "scatter, into zeros": lambda k, G: k.scatter(G, Layout((), dt), "SelectBackwardBackward0", True),
        "index_backward": lambda k, G: k.index_backward(G, Layout((), dt, map=[0])),
        "pick_backward": lambda k, G: k.pick_backward(G, picked, "ScatterAddBackward0", True),
        "pick_backward, written": lambda k, G: k.pick_backward(G, picked, "RollBackward0", False),
        "one": lambda k, G: k.one(gt), "held": lambda k, G: k.held(gt),
        "sdpa_flash_gate": lambda k, G: k.sdpa_flash_gate(G, None),  # attention's gate: the identity
    }
    for name, fn in cases.items():
        with scalargrad.no_grad():
            t = fn(TensorKernel, gt)
        f = fn(fk, gf)
        assert _same(f, t), (name, dtype, g, hit, f, t)


def test_no_gradient_is_pytorchs_efficient_zero_on_both():
    # the float kernel's is EfficientZero (it passes through arithmetic as ATen's ZeroTensor,
    # see float_kernel.EfficientZero); the tensor kernel's is a ZeroTensor of +0.0, what ATen
    # materialises it as (x[::2].sgn()'s gradient in x.grad is +0.0 in PyTorch 2.13)
    assert Float32Kernel.no_gradient(3.0) is EFFICIENT_ZERO and FloatKernel.no_gradient(-1.0) is EFFICIENT_ZERO
    t = TensorKernel.no_gradient(_vector([1.0, -2.0], dtypes.float32))
    assert [_bits(v) for v in t._val] == [_bits(0.0)] * 2 and t._is_zerotensor()


def test_zeros_like_is_ordinary_zeros_on_both():
    # sign's derivative, zeros_like(grad): +0.0 (not the efficient zero, which keeps a -0.0 it is
    # added to), laid out as the gradient with preserve_format (an expanded [1] keeps stride 0)
    assert _bits(Float32Kernel.zeros_like(-3.0)) == _bits(0.0) == _bits(FloatKernel.zeros_like(-0.0))
    t = TensorKernel.zeros_like(scalargrad.tensor(-2.0).expand(1))
    assert [_bits(v) for v in t._val] == [_bits(0.0)] and t.stride() == (0,) and type(t) is Tensor


@pytest.mark.parametrize("dtype", sorted(KERNELS))
@settings(max_examples=30, deadline=None)
@given(a=VALUE, b=VALUE, cond=st.booleans())
def test_a_nodes_saved_values_read_alike(dtype, a, b, cond):
    """``a``, ``b``, ``out``, ``ins`` and ``c`` read a node's saved values: numbers on the
    float kernels, the tensors themselves on the tensor kernels."""
    fk, dt = KERNELS[dtype]
    x = leaf(dt.round(a), TensorType(dt, ()), requires_grad=True)
    w = leaf(dt.round(b), TensorType(dt, ()), requires_grad=True)
    v = x * w
    cnd = leaf(cond, TensorType(dtypes.bool, ()))
    where = scalargrad.where(cnd, x, w)
    for name, node in (("a", v), ("b", v), ("out", v), ("ins", v), ("c", where)):
        f, t = getattr(fk, name)(node), getattr(TensorKernel, name)(node)
        if name == "ins":
            assert len(f) == len(t) and all(_same(p, q) for p, q in zip(f, t)), (name, f, t)
        else:
            assert _same(f, t), (name, dtype, f, t)


# every twin has a case above (a new helper written on both kernels must be added here)
COVERED = (set(ELEMENTWISE) | {"pow_backward", "rpow_backward", "clamp_backward", "rdiv", "pow_number", "const",
                                "where", "ge", "gt", "le", "lt", "min_max_backward", "fmax_backward",
                                "clamp_tensor_backward", "pointwise", "no_gradient", "zeros_like", "a", "b", "out",
                                "ins", "c"}
           | set(REDUCTIONS)
           | {"reshape", "view_back", "permute", "squeeze", "unsqueeze", "t", "transpose", "to_dtype", "sum_to",
              "masked_zero", "zero", "scatter", "index_backward", "pick_backward", "one", "held", "sdpa_flash_gate"})


def test_every_twin_has_a_case():
    missing = sorted(_twins() - COVERED)
    assert not missing, f"helpers on both kernels without a twin check here: {missing}"
