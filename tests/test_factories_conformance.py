"""The factories issue 13 lists, against live PyTorch 2.13: values (printed), dtype inference,
requires_grad and errors of linspace, logspace, arange (integer and float steps, negative steps,
the float steps' length rule), eye, full (dtype from the fill value), empty (shape and dtype
only: its values are arbitrary), zeros/ones/full/empty and their ``*_like`` forms, the random
factories under ``manual_seed`` (bit for bit: PyTorch's CPU generator), ``tensor``/``as_tensor``
of nested lists mixing bool, int and float.

Each case is one expression (after optional ``;``-separated statements); both libraries must
print the same ``repr`` and dtype, or raise the same exception type with the same message.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad

CASES = [
    # linspace / logspace: the result has `steps` points, the default dtype unless given
    "torch.linspace(0, 1, 5)",
    "torch.linspace(-1, 1, 4)",
    "torch.linspace(0, 10, 1)",
    "torch.linspace(0, 10, 0)",
    "torch.linspace(3, 1, 5)",
    "torch.linspace(0, 1, 7, dtype=torch.float64)",
    "torch.linspace(0, 10, 5, dtype=torch.int64)",
    "torch.linspace(0, 1, 3, requires_grad=True)",
    "torch.linspace(0, 1, -1)",
    "torch.linspace(0.1, 0.7, 7)",
    "torch.logspace(0, 2, 3)",
    "torch.logspace(0, 1, 4, base=2)",
    "torch.logspace(-1, 1, 5, dtype=torch.float64)",
    "torch.logspace(0, 3, 4, dtype=torch.int64)",
    "torch.logspace(0, 1, 1, dtype=torch.int64)",
    "torch.logspace(2, 2, 1)",
    "torch.logspace(0, 1, 0)",
    "torch.logspace(1, 0, 3, base=0.5)",
    "torch.logspace(0.5, 2.5, 3, dtype=torch.int64)",
    "torch.logspace(0, 1, -1)",
    "torch.logspace(0, 1, 3, requires_grad=True)",
    "torch.logspace(0, 400, 2, dtype=torch.float64)",
    "torch.logspace(0, 50, 3)",
    "torch.logspace(0, 3, 4, base=-2)",
    "torch.logspace(-1, 1, 3, base=0)",
    "torch.logspace(0.1, 0.9, 5, dtype=torch.float64).tolist()",
    "torch.logspace(-2.5, 2.5, 11).tolist()",
    # arange: int64 for integer arguments, the default dtype if any is a float
    "torch.arange(5)",
    "torch.arange(1, 4)",
    "torch.arange(0, 1, 0.25)",
    "torch.arange(1, 2.5, 0.5)",
    "torch.arange(10, 0, -3)",
    "torch.arange(0, 1, 0.1)",
    "torch.arange(0, 0.3, 0.1)",
    "torch.arange(1, 0, 0.5)",
    "torch.arange(0, 5, 0)",
    "torch.arange(5.0)",
    "torch.arange(0, 10, 3, dtype=torch.float32)",
    "torch.arange(-1.5, 1.5)",
    "torch.arange(0, 1, 0.1, dtype=torch.float64)",
    "torch.arange(1, 10, 2.5)",
    "torch.arange(torch.tensor(3))",
    "torch.arange(5, requires_grad=True)",
    "torch.arange(5.0, requires_grad=True)",
    # eye
    "torch.eye(3)",
    "torch.eye(2, 3)",
    "torch.eye(3, 2, dtype=torch.int64)",
    "torch.eye(0)",
    "torch.eye(-1)",
    "torch.eye(2, -1)",
    "torch.eye(2, requires_grad=True)",
    # full: the dtype follows the fill value (int -> int64, bool -> bool, float -> default)
    "torch.full((2, 2), 7)",
    "torch.full((2,), 1.5)",
    "torch.full((2,), True)",
    "torch.full((1, 2), 3, dtype=torch.float32)",
    "torch.full((2,), 2.5, dtype=torch.int64)",
    "torch.full([], 4)",
    "torch.full((2,), float('inf'))",
    "torch.full((2,), 1, requires_grad=True)",
    # empty: shape and dtype only
    "tuple(torch.empty(2, 3).shape), torch.empty(2, 3).dtype",
    "torch.empty((2,), dtype=torch.int64).dtype",
    "torch.empty(0)",
    "torch.zeros(2, 3)",
    "torch.zeros((2,), dtype=torch.int32)",
    "torch.ones(2, dtype=torch.bool)",
    # *_like: the input's dtype unless given
    "torch.zeros_like(torch.tensor([1, 2]))",
    "torch.zeros_like(torch.tensor([1.0, 2.0]), dtype=torch.int64)",
    "torch.ones_like(torch.tensor([1, 2]), dtype=torch.float64)",
    "torch.ones_like(torch.tensor([1.0, 2.0]), requires_grad=True)",
    "torch.ones_like(torch.tensor([1, 2]), requires_grad=True)",
    "torch.full_like(torch.tensor([1, 2]), 2.7)",
    "torch.full_like(torch.tensor([1.0, 2.0]), 3)",
    "tuple(torch.empty_like(torch.tensor([[1, 2]])).shape), torch.empty_like(torch.tensor([[1, 2]])).dtype",
    # random factories under manual_seed: PyTorch's CPU generator, bit for bit
    "torch.manual_seed(0); torch.rand_like(torch.zeros(3))",
    "torch.manual_seed(0); torch.randn_like(torch.zeros(2, 2, dtype=torch.float64))",
    "torch.manual_seed(0); torch.rand_like(torch.zeros(3, dtype=torch.int64))",
    "torch.manual_seed(0); torch.randint(10, (5,))",
    "torch.manual_seed(0); torch.randint(3, 10, (2, 3))",
    "torch.manual_seed(0); torch.randint(0, 2**40, (3,))",
    "torch.manual_seed(0); torch.randint(-5, 5, (4,), dtype=torch.float32)",
    "torch.manual_seed(0); torch.randint_like(torch.zeros(4), 10)",
    "torch.manual_seed(0); torch.randint_like(torch.zeros(4, dtype=torch.int64), 2, 8)",
    "torch.manual_seed(0); torch.randperm(6)",
    "torch.manual_seed(0); torch.randperm(5, dtype=torch.float32)",
    "torch.manual_seed(0); torch.rand(3)",
    "torch.manual_seed(0); torch.randn(3, dtype=torch.float64)",
    "torch.randint(5, 5, (2,))",
    "torch.manual_seed(0); torch.randint_like(torch.zeros(2), 10, requires_grad=True)",
    "torch.manual_seed(0); torch.randint_like(torch.zeros(2, dtype=torch.int64), 10, dtype=torch.float64)",
    "torch.rand(2, dtype=torch.int64)",
    "torch.randn_like(torch.zeros(2, dtype=torch.int64))",
    "torch.zeros(2, dtype=torch.int64).uniform_()",
    "torch.zeros(2, dtype=torch.int64).normal_()",
    # tensor / as_tensor: nested lists mixing bool, int and float
    "torch.tensor([[1, 2], [3, 4]])",
    "torch.tensor([1, 2.5])",
    "torch.tensor([True, 2])",
    "torch.tensor([True, 2.5])",
    "torch.tensor([True, False])",
    "torch.tensor([[True, 1], [2, 3.0]])",
    "torch.tensor([])",
    "torch.tensor([[], []])",
    "torch.tensor([[1, 2], [3]])",
    "torch.tensor(3)",
    "torch.tensor(3.5, dtype=torch.int64)",
    "torch.tensor([1, 2], dtype=torch.float64)",
    "torch.tensor([1.5, 2.7], dtype=torch.int32)",
    "torch.tensor([2**63])",
    "torch.tensor([1, 2], requires_grad=True)",
    "torch.tensor([1e40])",
    "torch.tensor([0.1, 0.2], dtype=torch.float16)",
    "torch.as_tensor([1, 2])",
    "torch.as_tensor([1.0, 2.0], dtype=torch.float64)",
    "torch.as_tensor(3.0)",
    "t = torch.tensor([1.0]); torch.as_tensor(t) is t",
    "t = torch.tensor([1.0]); torch.as_tensor(t, dtype=torch.float64)",
    # the size= keyword (PyTorch's argument parser takes it; its errors as PyTorch words them)
    *[f"torch.manual_seed(0); torch.{f}(size={size})" for f in ("zeros", "ones", "rand", "randn")
      for size in ("(2, 3)", "[2]", "torch.Size([1, 2])", "()", "3", "(2.0,)")],
    *[f"torch.{f}(size=(2, 3)).shape" for f in ("empty", "zeros")],
    *[f"torch.{f}(2, size=(3,))" for f in ("zeros", "ones", "empty", "rand", "randn")],
    "torch.manual_seed(0); torch.randn(size=(2,), dtype=torch.float64, requires_grad=True)",
    # no size at all is an error, not a 0-dim tensor (that is f(()))
    *[f"torch.manual_seed(0); torch.{f}()" for f in ("zeros", "ones", "empty", "rand", "randn")],
    *[f"torch.{f}(dtype=torch.float64)" for f in ("zeros", "ones", "empty")],
    *[f"torch.manual_seed(0); torch.{f}(())" for f in ("zeros", "ones", "rand", "randn")],
    "torch.manual_seed(0); torch.randn_like(torch.tensor(2.0))",
    # the deprecated torch.range: end included, the length truncated, the values in double (or int64)
    "torch.range(1, 4)", "torch.range(1, 4, 0.5)", "torch.range(0, 1, 0.3).tolist()",
    "torch.range(0, 1, 0.1, dtype=torch.float64).tolist()", "torch.range(1, 4, dtype=torch.int64)",
    "torch.range(0.5, 3.7, 1.2, dtype=torch.int32)", "torch.range(5, 1, -1.5)", "torch.range(1, 4, 0)",
    "torch.range(4, 1)", "torch.range(2, 2)", "torch.range(0, 3, requires_grad=True)",
    # the Scalars converted checked to int64 first, then the bounds checked in double (was "step must be
    # nonzero" for an int64 range with step -0.5, nn:12041:103; an OverflowError for inf), printed as %g
    "torch.range(0, 1, -0.5, dtype=torch.int64)", "torch.range(1, 0, 0.5, dtype=torch.int64)",
    "torch.range(0.0, 0.0, -1, dtype=torch.int64)", "torch.range(float('inf'), 1, dtype=torch.int64)",
    "torch.range(0.5, float('-inf'), -1, dtype=torch.int64)", "torch.range(float('inf'), 1)",
    "torch.range(0, float('nan'), dtype=torch.float64)", "torch.range(0, 1, 0.0)",
]


def outcome(torch, case: str) -> str:
    """What ``case`` gives on ``torch``: the result's repr (and dtype), or the error."""
    namespace = {"torch": torch}
    *statements, expression = case.split("; ")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for statement in statements:
                exec(statement, namespace)  # the case's set-up
            result = eval(expression, namespace)  # the case's expression
    except Exception as e:  # an error is an outcome to compare
        return f"{type(e).__name__}: {e}"
    text = repr(result)
    dtype = getattr(result, "dtype", None)
    return text if dtype is None else f"{text} [{dtype}]"


@pytest.mark.parametrize("case", CASES)
def test_factory_as_pytorch(case, torch_ref):
    assert outcome(scalargrad, case) == outcome(torch_ref, case)


# ---------------------------------------------------------------- without PyTorch

def _ulps(a: float, b: float) -> float:
    import math

    return abs(a - b) / math.ulp(b)


def test_logspace_float64_is_pow_of_the_exponents_within_one_ulp_of_mpmath():
    # pow is libm's (not correctly rounded everywhere, and its FMA variant differs between
    # processors), so the reference is mpmath's correctly rounded base ** x of ATen's exponents
    import mpmath

    start, end, steps, base = -2.5, 3.25, 9, 10.0
    got = scalargrad.logspace(start, end, steps, base=base, dtype=scalargrad.float64).tolist()
    step = (end - start) / (steps - 1)
    exps = [start + step * i if i < steps // 2 else end - step * (steps - 1 - i) for i in range(steps)]
    with mpmath.workprec(200):  # local: other tests rely on mpmath's default precision
        for g, x in zip(got, exps):
            assert _ulps(g, float(mpmath.power(base, x))) <= 1, (g, x)
    assert len(got) == steps


def test_dtype_inference_and_the_float_arange_length_rule():
    torch = scalargrad
    assert torch.full((2,), 3).dtype is torch.int64 and torch.full((2,), True).dtype is torch.bool
    assert torch.full((2,), 1.5).dtype is torch.float32 and torch.arange(3).dtype is torch.int64
    assert torch.arange(0, 1, 0.5).dtype is torch.float32 and torch.linspace(0, 1, 3).dtype is torch.float32
    # ceil((end - start) / step) in double: (0.3 - 0) / 0.1 = 2.9999999999999996 -> 3 elements
    assert torch.arange(0, 0.3, 0.1).shape == (3,) and torch.arange(1, 2.5, 0.5).tolist() == [1.0, 1.5, 2.0]
    assert torch.tensor([True, 2]).dtype is torch.int64 and torch.tensor([True, 2.5]).dtype is torch.float32
    assert torch.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert torch.logspace(0, 3, 4, dtype=torch.int64).tolist() == [1, 10, 100, 1000]


def _range_warning(torch) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.range(1, 4)
    return [(w.category.__name__, str(w.message), w.filename == __file__) for w in caught]


def test_range_warns_as_pytorch(torch_ref):
    assert _range_warning(scalargrad) == _range_warning(torch_ref)
