"""``torch.special`` (``scalargrad/special.py``) against live PyTorch 2.13.

Each name scalargrad implements is the op PyTorch's alias redispatches to, so its nodes are that
op's (``torch.special.expit(x).grad_fn`` is SigmoidBackward0) and its values that op's. Values
are compared bit for bit where ATen's kernel is the same on every processor (``round``, the
special points: zeros, poles, infinities, nan); elsewhere (the transcendental kernels: Sleef's
vector code or ATen's own series, whose last bits depend on the CPU capability) within a bound
of PyTorch's, as ``test_gamma`` and ``test_activations`` bound these ops: a few float32 ulps,
1e-12 relative in float64 (trigamma reflects a negative float32 argument through its float
sin(pi x): 6e-5 relative there, measured in ``test_gamma``). The docstring examples of PyTorch's
``torch.special`` functions print what PyTorch prints; every other name is refused by name.
"""

from __future__ import annotations

import contextlib
import io
import math

import pytest

import scalargrad as sg
from scalargrad._base.pytorch_api import BY_KIND
from scalargrad.errors import Unsupported

IMPLEMENTED = sorted(sg.special.__all__)
PYTORCH = sorted(BY_KIND["torch.special"]["function"])
INF, NAN = math.inf, math.nan

WIDE = [-INF, -100.0, -3.0, -1.0, -0.0, 0.0, 1e-20, 0.5, 1.0, 2.5, 20.0, 100.0, INF, NAN]
POSITIVE = [0.0, -0.0, 1e-30, 0.25, 0.5, 1.0, 2.0, 10.0, 3e38, INF, NAN]
GAMMA = [0.0, -0.0, -1.0, -2.0, -2.5, 1e-30, 0.5, 1.0, 2.0, 10.0, 3e38, INF, -INF, NAN]

# name -> (call on the torch module L and the input tensor t, inputs, float32 relative bound)
CASES = {
    "expit": (lambda L, t: L.special.expit(t), WIDE, 4e-7),
    "logit": (lambda L, t: L.special.logit(t), [0.0, 1e-30, 0.25, 0.5, 0.75, 1.0, -0.5, 2.0, NAN], 4e-7),
    "logit_eps": (lambda L, t: L.special.logit(t, eps=1e-6), [0.0, 1e-30, 0.25, 1.0, -0.5, 2.0, NAN], 4e-7),
    "erf": (lambda L, t: L.special.erf(t), WIDE, 4e-7),
    "erfc": (lambda L, t: L.special.erfc(t), WIDE[:-4] + [5.0, 9.0, INF, NAN], 4e-7),
    "erfinv": (lambda L, t: L.special.erfinv(t), [-1.0, -0.999, -0.5, -0.0, 0.0, 1e-20, 0.5, 0.9, 1.0, 2.0, NAN],
               4e-7),
    "digamma": (lambda L, t: L.special.digamma(t), GAMMA, 8e-7),
    "psi": (lambda L, t: L.special.psi(t), GAMMA, 8e-7),
    "gammaln": (lambda L, t: L.special.gammaln(t), GAMMA, 4e-7),
    # trigamma at a negative integer is refused by name (test_gamma)
    "polygamma1": (lambda L, t: L.special.polygamma(1, t), [v for v in GAMMA if v not in (-1.0, -2.0)], 6e-5),
    "polygamma2": (lambda L, t: L.special.polygamma(2, t), POSITIVE, 8e-7),
    "multigammaln": (lambda L, t: L.special.multigammaln(t, 2), [0.6, 1.0, 2.5, 10.0, 1e10, INF], 4e-7),
    "sinc": (lambda L, t: L.special.sinc(t), [0.0, -0.0, 1e-20, 0.5, 1.0, -2.5, 7.25, 1e10, INF, NAN], 4e-7),
    "exp2": (lambda L, t: L.special.exp2(t), WIDE + [127.5, 128.0, -149.0, -150.0], 4e-7),
    "expm1": (lambda L, t: L.special.expm1(t), WIDE + [1e-10, -1e-10, 88.5, 89.0], 4e-7),
    "log1p": (lambda L, t: L.special.log1p(t), WIDE + [-1.0, -0.999, 1e-10, 3e38], 4e-7),
    "ndtr": (lambda L, t: L.special.ndtr(t), WIDE + [-6.0, 6.0, 0.1], 4e-7),
    "xlogy": (lambda L, t: L.special.xlogy(t, t.flip(0)), WIDE, 4e-7),
    "xlogy_number": (lambda L, t: L.special.xlogy(2, t), POSITIVE + [-1.0], 4e-7),
    "softmax": (lambda L, t: L.special.softmax(t.view(2, -1), 1), [0.0, 1.0, 2.0, -INF, 50.0, -3.0], 4e-7),
    "log_softmax": (lambda L, t: L.special.log_softmax(t.view(2, -1), 0), [0.0, 1.0, 2.0, -INF, 50.0, -3.0], 4e-7),
    "logsumexp": (lambda L, t: L.special.logsumexp(t.view(2, -1), 1, keepdim=True), [0.0, 1.0, 2.0, -INF, 50.0, -3.0],
                  4e-7),
    # the ops of torch.special alone (and i0): ATen's Cephes and Faddeeva kernels against
    # scalargrad's correctly rounded doubles (test_special_functions.py bounds them on mpmath)
    "i0": (lambda L, t: L.special.i0(t), WIDE[1:-2] + [NAN, 700.0], 4e-7),
    "i0e": (lambda L, t: L.special.i0e(t), WIDE + [700.0], 4e-7),
    "i1": (lambda L, t: L.special.i1(t), WIDE[1:-2] + [NAN, -700.0], 4e-7),
    "i1e": (lambda L, t: L.special.i1e(t), WIDE + [-700.0], 4e-7),
    "erfcx": (lambda L, t: L.special.erfcx(t), WIDE + [-26.0, -27.0, 1e-7, 3.7, 30.0, 1e300], 4e-7),
    # ATen's float32 log_ndtr above 0 is log1p of its float erfc's tail: 1.6e-6 relative off the
    # exact value at 6 (measured; scalargrad's is the correctly rounded one)
    "log_ndtr": (lambda L, t: L.special.log_ndtr(t), WIDE + [-40.0, 6.0, 30.0, -1e10], 2e-6),
    "ndtri": (lambda L, t: L.special.ndtri(t), [0.0, -0.0, 1e-30, 1e-5, 0.25, 0.5, 0.975, 1.0, -0.5, 2.0, NAN],
              4e-7),
    "entr": (lambda L, t: L.special.entr(t), WIDE + [1e-30, 3e38], 4e-7),
    "xlog1py": (lambda L, t: L.special.xlog1py(t, t.flip(0)), WIDE + [-1.0, 0.0, -0.5, 1e-10], 4e-7),
    "round": (lambda L, t: L.special.round(t), [0.5, 1.5, 2.5, -0.5, -2.5, -0.0, 0.49999997, 1e20, INF, NAN], 0.0),
    "round_decimals": (lambda L, t: L.special.round(t, decimals=0), [0.5, 1.5, -2.5, 3.0, NAN], 0.0),
}


# float64 bounds looser than 1e-12: ATen's trigamma (polygamma(1, x), digamma's derivative) sums a
# short series in double, 3e-10 relative from the exact value at 0.5 (pi**2 / 2), measured here
DOUBLE_BOUND = {"polygamma1": 1e-9, "digamma": 1e-9, "psi": 1e-9}


def _close(ours: float, theirs: float, rel: float) -> bool:
    """Equal, both nan, or (both finite) within ``rel`` of PyTorch's value; the special points
    (zeros with their signs, infinities) always exactly."""
    if math.isnan(theirs) or math.isnan(ours):
        return math.isnan(theirs) and math.isnan(ours)
    if ours == theirs:
        return math.copysign(1.0, ours) == math.copysign(1.0, theirs) or rel > 0 and ours != 0.0
    if math.isinf(ours) or math.isinf(theirs) or ours == 0.0 or theirs == 0.0:
        return False
    return abs(ours - theirs) <= rel * abs(theirs)


def _values(t) -> list:
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def _run(L, name: str, dtype: str):
    call, inputs, _ = CASES[name]
    x = L.tensor(inputs, dtype=getattr(L, dtype), requires_grad=name not in ("round", "round_decimals"))
    return call(L, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_nodes_as_pytorch(torch_ref, name, dtype):
    ours, theirs = _run(sg, name, dtype), _run(torch_ref, name, dtype)
    assert ours.dtype.__repr__().replace("scalargrad", "torch") == repr(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    rel = CASES[name][2] if dtype == "float32" else (DOUBLE_BOUND.get(name, 1e-12) if CASES[name][2] else 0.0)
    pairs = list(zip(_values(ours), _values(theirs)))
    assert all(_close(a, b, rel) for a, b in pairs), pairs


@pytest.mark.parametrize("name", ["expit", "logit", "erf", "erfc", "erfinv", "digamma", "gammaln", "polygamma2",
                                  "multigammaln", "ndtr", "xlogy", "sinc", "exp2", "expm1", "log1p", "softmax",
                                  "log_softmax", "logsumexp", "i0", "i0e", "i1", "i1e", "erfcx", "log_ndtr", "ndtri",
                                  "entr", "xlog1py"])
def test_gradients_as_pytorch(torch_ref, name):
    """The backward of each alias is its op's (SymPy checks it too): gradients at ordinary points
    within the op's float64 bound of PyTorch's."""
    def grads(L):
        x = L.tensor([0.75, 0.25, 0.5, 0.125, 0.9, 0.3], dtype=L.float64, requires_grad=True)
        y = CASES[name][0](L, x + 1 if name == "multigammaln" else x)  # its domain: x > (p - 1) / 2
        (g,) = L.autograd.grad(y, x, L.linspace(1, 2, y.numel(), dtype=L.float64).view(y.shape))
        return _values(g)

    pairs = list(zip(grads(sg), grads(torch_ref)))
    assert all(_close(a, b, DOUBLE_BOUND.get(name, 1e-12)) for a, b in pairs), pairs


def test_aliases_are_the_ops():
    """torch.special's aliases are the ops themselves (one function, one place)."""
    for alias, op in [("expit", "sigmoid"), ("gammaln", "lgamma"), ("psi", "digamma"), ("multigammaln", "mvlgamma"),
                      ("erf", "erf"), ("erfc", "erfc"), ("erfinv", "erfinv"), ("exp2", "exp2"), ("expm1", "expm1"),
                      ("log1p", "log1p"), ("logit", "logit"), ("logsumexp", "logsumexp"), ("polygamma", "polygamma"),
                      ("sinc", "sinc"), ("xlogy", "xlogy"), ("softmax", "softmax"), ("log_softmax", "log_softmax"),
                      ("i0", "i0")]:
        # under complex numbers' gate (installed by any earlier complex tensor) each namespace holds
        # its own wrapper of the op: compare what they wrap
        assert _unwrapped(getattr(sg.special, alias)) is _unwrapped(getattr(sg, op)), alias


def _unwrapped(fn):
    return getattr(fn, "__complex_gated__", fn)


def test_errors_as_pytorch(torch_ref):
    """Integer tensors: ``special.round`` is ``round.decimals`` (refused), ``ndtr`` computes in the
    default dtype; a number where a tensor goes is PyTorch's TypeError."""
    for L in (sg, torch_ref):
        for given, kernel, dtype in (([1, 2], "round_vml_cpu", "Long"), ([True], "round_vml_cpu", "Bool")):
            with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{dtype}'$"):
                L.special.round(L.tensor(given))
        with pytest.raises(NotImplementedError, match="^\"round_cpu\" not implemented for 'Int'$"):
            L.round(L.tensor([1], dtype=L.int32), decimals=-1)
        with pytest.raises(TypeError, match=r"^special_ndtr\(\): argument 'input' \(position 1\) must be Tensor, "
                                            "not float$"):
            L.special.ndtr(1.5)
    for given in ([1, -2, 0], [True, False]):
        ours, theirs = sg.special.ndtr(sg.tensor(given)), torch_ref.special.ndtr(torch_ref.tensor(given))
        assert repr(ours.dtype).replace("scalargrad", "torch") == repr(theirs.dtype)
        assert all(_close(a, b, 4e-7) for a, b in zip(_values(ours), _values(theirs)))


def test_every_other_name_is_refused_by_name(torch_ref):
    assert PYTORCH == sorted(torch_ref.special.__all__)
    assert set(IMPLEMENTED) <= set(PYTORCH)
    for name in sorted(set(PYTORCH) - set(IMPLEMENTED)):
        with pytest.raises(Unsupported, match=rf"^torch\.special\.{name} is not supported"):
            getattr(sg.special, name)
    ns: dict = {}
    exec("from scalargrad.special import bessel_j0, zeta", ns)  # imports, then refuses when used
    with pytest.raises(Unsupported, match=r"torch\.special\.zeta"):
        ns["zeta"](sg.tensor([2.0]), sg.tensor([1.0]))


def _example(L, source: str) -> str:
    """What the interactive session of a docstring example prints, with ``torch`` = ``L``."""
    ns = {"torch": L, "math": math}
    out = io.StringIO()
    L.manual_seed(0)
    with contextlib.redirect_stdout(out):
        for line in source:
            exec(compile(line, "<example>", "single"), ns)
    return out.getvalue()


@pytest.mark.parametrize("name", IMPLEMENTED)
def test_docstring_examples_print_as_pytorch(torch_ref, name):
    doc = getattr(torch_ref.special, name).__doc__ or ""
    lines = [s.strip()[4:] for s in doc.splitlines() if s.strip().startswith(">>> ")]
    if not lines:
        pytest.skip(f"torch.special.{name}'s docstring has no example")
    assert _example(sg, lines) == _example(torch_ref, lines)
