"""The in-place variant of every op: each method of PyTorch's ``Tensor`` ending in ``_`` whose
out-of-place form scalargrad implements must exist, and agree with PyTorch in values, grad_fn,
next_functions, version counter, gradients and the refusal on a leaf that requires grad; and
with scalargrad's own out-of-place form, bit for bit. The same for the ``torch.`` in-place
functions (``torch.relu_``).

The list of names comes from live PyTorch (``dir(torch.Tensor)``), so an op added later
without its in-place form fails here; an op that needs arguments takes them from ``ARGS``.
"""

from __future__ import annotations

import math

import pytest

import scalargrad as sg
from scalargrad._tensor.torch_names import TENSOR_ATTRIBUTES

# the arguments each in-place method is called with (L is the library); a name absent here
# takes none
ARGS = {
    "add": lambda L: (L.tensor([0.5, -1.0, 2.0]),), "sub": lambda L: (0.25,), "mul": lambda L: (L.tensor(1.5),),
    "div": lambda L: (L.tensor([2.0, -4.0, 0.5]),), "pow": lambda L: (2,), "fmod": lambda L: (0.4,),
    "remainder": lambda L: (L.tensor([0.4, 0.5, -0.6]),), "floor_divide": lambda L: (0.4,),
    "eq": lambda L: (0.7,), "ne": lambda L: (0.7,), "lt": lambda L: (L.tensor([1.0, 0.0, 2.0]),),
    "le": lambda L: (0.7,), "gt": lambda L: (0.7,), "ge": lambda L: (0.7,),
    "clamp": lambda L: (0.5, 1.0), "clip": lambda L: (0.5, 1.0), "clamp_min": lambda L: (0.5,),
    "clamp_max": lambda L: (1.0,), "addcmul": lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor(0.5)),
    "addcdiv": lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor(4.0)), "lerp": lambda L: (L.tensor([2.0, 0.0, 1.0]), 0.3),
    "masked_fill": lambda L: (L.tensor([True, False, True]), -2.0), "atan2": lambda L: (L.tensor([1.0, -2.0, 0.5]),),
    "copysign": lambda L: (L.tensor([-1.0, 1.0, -0.0]),), "logical_and": lambda L: (L.tensor([1.0, 0.0, 2.0]),),
    "logical_or": lambda L: (L.tensor([0, 0, 1]),), "logical_xor": lambda L: (L.tensor([True, False, True]),),
    "xlogy": lambda L: (L.tensor([2.0, 0.5, 3.0]),), "logit": lambda L: (0.1,),
    "heaviside": lambda L: (L.tensor([0.5, 0.5, 0.5]),),
    "hypot": lambda L: (L.tensor([1.0, -2.0, 0.5]),), "nextafter": lambda L: (L.tensor([1.0, 0.7, -0.5]),),
    "unsqueeze": lambda L: (0,), "squeeze": lambda L: (), "transpose": lambda L: (0, 0),
    "cumsum": lambda L: (0,), "cumprod": lambda L: (0,),
    "scatter": lambda L: (0, L.tensor([2, 0]), L.tensor([1.5, 2.5])),
    "scatter_add": lambda L: (0, L.tensor([2, 2]), L.tensor([1.5, 2.5])),
    "index_add": lambda L: (0, L.tensor([2, 0]), L.tensor([1.5, -2.0])),
    "scatter_reduce": lambda L: (0, L.tensor([2, 2, 0]), L.tensor([1.5, 2.5, -1.0]), "prod"),
    "index_reduce": lambda L: (0, L.tensor([2, 0]), L.tensor([1.5, -2.0]), "amax"),
    "index_copy": lambda L: (0, L.tensor([1]), L.tensor([4.0])), "index_fill": lambda L: (0, L.tensor([0, 2]), -1.0),
    "masked_scatter": lambda L: (L.tensor([True, False, True]), L.tensor([7.0, 8.0, 9.0])),
    "baddbmm": lambda L: (L.tensor([[[1.0, -2.0]]]), L.tensor([[[0.5, 1.0, 1.5], [2.0, -1.0, 0.25]]])),
    "addr": lambda L: (L.tensor([2.0]), L.tensor([1.0, -0.5, 0.25])),
    "addbmm": lambda L: (L.tensor([[[1.0, -2.0]], [[0.5, 0.25]]]), L.tensor([[[0.5, 1.0, 1.5], [2.0, -1.0, 0.25]],
                                                                             [[1.0, 2.0, -1.0], [0.5, 0.5, 4.0]]])),
    "mvlgamma": lambda L: (1,), "polygamma": lambda L: (1,),
    "addmv": lambda L: (L.tensor([[1.0, -2.0], [0.5, 1.0], [2.0, 0.25]]), L.tensor([0.5, -1.5])),
    "ldexp": lambda L: (L.tensor([1, 2, 3]),),  # (a negative integer exponent: test_operand_rules.py)
}
# aliases take their target's arguments
ALIASES = {"absolute": "abs", "negative": "neg", "subtract": "sub", "multiply": "mul", "divide": "div",
           "true_divide": "div", "less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge",
           "not_equal": "ne", "fix": "trunc", "swapaxes": "transpose", "swapdims": "transpose", "clip": "clamp",
           "arctan2": "atan2"}
# in-place forms PyTorch declares no derivative for
NO_INPLACE_DERIVATIVE = {"asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh"}
# ops that need a matrix: their tensor is (x * 1).reshape(1, 3)
MATRIX = {"tril_", "triu_", "addr_", "addbmm_"}
# ops that need a batch of matrices: their tensor is (x * 1).reshape(1, 1, 3)
BATCHES = {"baddbmm_"}
# in-place methods that are not the in-place form of an op
NOT_OPS = {"requires_grad_", "detach_", "share_memory_", "addmm_", "t_", "bernoulli_"}  # bernoulli_: a draw
# resize_ is not resize's in-place form (it changes the memory, not the values: test_tensor_api.py);
# conj_physical_ of a real tensor is refused by name (PyTorch moves the version and records
# ConjPhysicalBackward1 for it, not written yet), while conj_physical returns the tensor itself
NOT_OPS |= {"resize_", "conj_physical_"}
# renorm_'s gradient is refused by name (renorm_backward is not built): compared with PyTorch
# outside a graph in test_norms.py
NOT_OPS |= {"renorm_"}
# float_power_ changes no float32 tensor (its result is double), fill_diagonal_ and put_ are refused by name in a
# graph: compared with PyTorch in test_float_power.py, test_fill_diagonal.py and test_scatter.py
NOT_OPS |= {"float_power_", "fill_diagonal_", "put_"}
# ops built for integers alone, run as the bitwise ones are
INTEGER_OPS = ("bitwise_", "gcd_", "lcm_")


def _has(name: str) -> bool:
    try:
        getattr(sg.tensor([1.0]), name)
        return True
    except AttributeError:
        return False


def _integer_run(L, name: str):
    """An op built for integers and bool (bitwise_*_): on an int64 tensor, no graph."""
    args = () if name == "bitwise_not_" else (L.tensor([6, 3, 1]),)
    x = L.tensor([3, 5, 6])
    want = getattr(L.tensor([3, 5, 6]), name[:-1])(*args).tolist()
    r = getattr(x, name)(*args)
    return r is x, x._version, x.tolist(), want, str(x.dtype)


def _inplace_names() -> list:
    try:
        import torch

        names = [n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_")]
    except ImportError:
        names = [n for n in TENSOR_ATTRIBUTES if n.endswith("_")]
    return sorted(n for n in names if _has(n[:-1]) and n not in NOT_OPS)


NAMES = _inplace_names()


def _args(L, name: str) -> tuple:
    base = name[:-1]
    return ARGS.get(ALIASES.get(base, base), ARGS.get(base, lambda L: ()))(L)


def test_every_implemented_op_has_its_inplace_form():
    missing = [n for n in NAMES if not _has(n)]
    assert not missing, f"in-place forms missing: {missing}"
    assert len(NAMES) >= 50


@pytest.mark.parametrize("name", NAMES)
def test_inplace_equals_out_of_place(name):
    if name.startswith(INTEGER_OPS):
        got = _integer_run(sg, name)
        assert got[0] and got[1] == 1 and got[2] == got[3]
        return
    x = sg.tensor([0.3, 0.7, 1.5], requires_grad=True)
    y = _shaped(x * 1.0, name)
    want = getattr(y, name[:-1])(*_args(sg, name))
    z = _shaped(x * 1.0, name)
    got = getattr(z, name)(*_args(sg, name))
    assert got is z and z._version == 1
    if name[:-1] in ("eq", "ne", "lt", "le", "gt", "ge") or name[:-1] in ALIASES and ALIASES[name[:-1]] in (
            "lt", "le", "gt", "ge", "ne"):
        want = want.to(z.dtype)  # a comparison in place keeps the tensor's dtype
    if name.startswith("logical_"):
        want = want.to(z.dtype)  # so does a logical op
    assert z.shape == want.shape
    assert [math.copysign(1, v) * abs(v) if v == v else "nan" for v in z.flatten().tolist()] == \
        [math.copysign(1, v) * abs(v) if v == v else "nan" for v in want.flatten().tolist()]
    if name[:-1] in NO_INPLACE_DERIVATIVE:  # PyTorch: AsinhBackward1, its derivative not implemented
        with pytest.raises(NotImplementedError, match="the derivative for 'inplace version of a"):
            z.sum().backward()
    elif name not in ("floor_divide_", "heaviside_"):  # no derivative
        z.sum().backward()
        assert x.grad is not None or not z.requires_grad


def _shaped(t, name: str):
    if name in BATCHES:
        return t.reshape(1, 1, 3)
    return t.reshape(1, 3) if name in MATRIX else t


def _run(L, name: str):
    out = []
    x = L.tensor([0.3, 0.7, 1.5], requires_grad=True)
    y = _shaped(x * 1.0, name)
    res = getattr(y, name)(*_args(L, name))
    fn = y.grad_fn
    out.append((res is y, y._version, y.dtype.is_floating_point, tuple(y.shape),
                None if fn is None else type(fn).__name__,
                None if fn is None else [None if n is None else type(n).__name__ for n, _ in fn.next_functions]))
    out.append([v if v == v else "nan" for v in y.detach().flatten().tolist()])
    if y.requires_grad:
        try:
            (g,) = L.autograd.grad((y * L.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum(), x)
            # + 0: sgn's gradient is an unallocated zero tensor in PyTorch, which tolist() refuses
            out.append([v if v == v else "nan" for v in (g + 0).tolist()])
        except RuntimeError as e:
            out.append(str(e))
    leaf = L.tensor([[0.3, 0.7, 1.5]] if name in MATRIX else [0.3, 0.7, 1.5], requires_grad=True)
    try:
        getattr(leaf, name)(*_args(L, name))
        out.append("no error")
    except RuntimeError as e:
        out.append(str(e))
    plain = _shaped(L.tensor([0.3, 0.7, 1.5]), name)
    getattr(plain, name)(*_args(L, name))
    out.append(plain._version)
    return out


KNOWN: dict[str, str] = {}  # in-place forms known to differ from PyTorch, with the reason


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN[n], strict=True))
                                  if n in KNOWN else n for n in NAMES])
def test_inplace_is_torchs(torch_ref, name):
    if name.startswith(INTEGER_OPS):
        assert _integer_run(sg, name) == _integer_run(torch_ref, name)
        return
    gamma = name.rstrip("_") in ("lgamma", "digamma", "polygamma", "mvlgamma")
    assert _close(_run(sg, name), _run(torch_ref, name), 1e-5 if gamma else 1e-6)


def _close(a, b, rel: float = 1e-6) -> bool:
    """Equal, floats within 1e-6 relative: float32's machine-dependent kernels (tan, exp, ...: MKL,
    SLEEF) differ by an ulp or two between processors, and a derivative such as tan's 1 + tan**2 at
    1.5 (about 600) shows an ulp in the fifth decimal. (The gamma family: 1e-5, ATen's float
    digamma series against scalargrad's correctly rounded values, bounded in test_gamma.py.)"""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=rel, abs_tol=1e-7)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    return a == b


TORCH_FUNCTIONS = ["abs_", "ceil_", "clamp_", "cos_", "exp_", "expm1_", "fix_", "floor_", "frac_", "log1p_",
                   "log_", "neg_", "negative_", "reciprocal_", "relu_", "round_", "sigmoid_", "sin_", "sqrt_",
                   "square_", "tanh_", "trunc_", "zero_", "fill_", "clamp_min_", "clamp_max_", "clip_"]


@pytest.mark.parametrize("name", TORCH_FUNCTIONS)
def test_torch_inplace_functions(torch_ref, name):
    args = {"clamp_": (0.5, 1.0), "clip_": (0.5, 1.0), "clamp_min_": (0.5,), "clamp_max_": (1.0,),
            "fill_": (2.0,)}.get(name, ())

    def run(L):
        x = L.tensor([0.3, -0.7, 1.5])
        r = getattr(L, name)(x, *args)
        try:
            getattr(L, name)(1.0)
        except TypeError as e:
            err = str(e)
        return r is x, x._version, [round(v, 5) if v == v else "nan" for v in x.tolist()], err

    assert run(sg) == run(torch_ref)


def _copy_a_number(L) -> list:
    """copy_ of a Python number: PyTorch wraps it as a 0-dim bool / int64 / float64 tensor and
    casts it into the tensor (CopyBackwards over the old history, CopySlices through a view)."""
    out = []
    for dtype, value in [(L.float32, 2.5), (L.float32, 1e300), (L.int64, 2.7), (L.int32, True), (L.bool, 0.5),
                         (L.float16, 1e6), (L.float64, 3), (L.float32, float("nan"))]:
        out.append(str(L.zeros(2, dtype=dtype).copy_(value).tolist()))  # str: nan == nan
    w = L.tensor([1.0, 2.0], requires_grad=True).clone()
    w.copy_(1.5)
    out.append((w.tolist(), type(w.grad_fn).__name__, [type(f).__name__ for f, _ in w.grad_fn.next_functions]))
    v = L.tensor([1.0, 2.0], requires_grad=True)
    u = v.clone()
    u[0].copy_(-1.0)
    (u * L.tensor([3.0, 4.0])).sum().backward()
    out.append((u.tolist(), type(u.grad_fn).__name__, v.grad.tolist()))
    for bad in (L.zeros(2, requires_grad=True), "a", None):
        try:
            (bad if not isinstance(bad, str) and bad is not None else L.zeros(2)).copy_(1.0 if bad is not None and
                                                                                          not isinstance(bad, str)
                                                                                          else bad)
        except (RuntimeError, TypeError) as e:
            out.append((type(e).__name__, str(e)))
    out.append(L.zeros(3).copy_(other=2.0).tolist())
    return out


def test_copy_of_a_python_number_as_pytorch(torch_ref):
    assert _copy_a_number(sg) == _copy_a_number(torch_ref)


def test_augmented_floor_division_is_the_inplace_node(torch_ref):
    """``x //= y`` is ``x.floor_divide_(y)``: its node's error names ``aten::floor_divide_``."""
    def run(L):
        out = []
        for other in (2.0, L.tensor([2.0, 3.0])):
            x = L.tensor([1.5, 2.0], requires_grad=True) * 1
            x //= other
            try:
                x.sum().backward()
            except RuntimeError as e:
                out.append((x.tolist(), x.grad_fn.name(), str(e)))
        return out

    assert run(sg) == run(torch_ref)
