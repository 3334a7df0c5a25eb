"""Comparisons, ``%`` and ``//``, max/min/argmax/argmin, boolean masks, ``where`` and the
gradient checks of ``backward``, against PyTorch 2.13 and by hand.

Every figure here comes from IEEE + - * /, fmod, comparisons, copies or indexing, which PyTorch
computes the same on every processor: the comparisons with live PyTorch are bit for bit, signed
zeros included; a nan is compared as a nan (its sign bit is the processor's: x86 makes -nan).
The hand-derived tables follow ATen's formulas: ``a % b`` is
``fmod(a, b)``, plus ``b`` when the two differ in sign; ``a // b`` is ``div_floor_floating``:
``(a - fmod(a, b)) / b``, less one when fmod and b differ in sign, a zero quotient taking the
sign of ``a / b``, and ``a / b`` itself when ``b`` is 0.
"""

from __future__ import annotations

import itertools
import math
import struct
import warnings

import pytest

import scalargrad

INF, NAN = math.inf, math.nan
FLOATS = [0.0, -0.0, 1.5, -1.5, 3.0, -3.0, INF, -INF, NAN]
INTS = [0, 1, -1, 3, -3, 7, -7]


def _bits(v):
    # a nan's sign and payload depend on the processor (x86's default nan is negative, ARM's
    # positive): every nan is "nan"
    if isinstance(v, float):
        return "nan" if v != v else struct.pack(">d", v).hex()
    return v


def bits(o):
    """A result as comparable data: dtype, shape, and each element's exact bits (nan as nan)."""
    if isinstance(o, tuple):
        return tuple(bits(x) for x in o)
    if not hasattr(o, "dtype"):
        return repr(o)
    vals = o.reshape(-1).tolist()
    return (str(o.dtype), tuple(o.shape), o.requires_grad, [_bits(v) for v in vals])


def outcome(lib, f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bits(f(lib))
        except Exception as e:  # the error is the figure
            return ("error", type(e).__name__, str(e))


OPS = {
    "%": lambda a, b: a % b, "//": lambda a, b: a // b, "remainder": lambda a, b: a.remainder(b),
    "floor_divide": lambda a, b: a.floor_divide(b), "div floor": lambda a, b: a.div(b, rounding_mode="floor"),
    "div trunc": lambda a, b: a.div(b, rounding_mode="trunc"), "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
SWAPPABLE = {"%", "//", "<", "<=", "==", "!=", ">", ">="}  # also spelled number (op) tensor


def _operand_forms(x, y):
    """(label, builder) pairs: tensors of several dtypes and shapes, and Python numbers."""
    forms = [
        ("f32 0-dim", lambda L: (L.tensor(x), L.tensor(y))),
        ("f32 (1,) and 0-dim", lambda L: (L.tensor([x]), L.tensor(y))),
        ("f32 (2,)", lambda L: (L.tensor([x, y]), L.tensor([y, x]))),
        ("f64 0-dim", lambda L: (L.tensor(x, dtype=L.float64), L.tensor(y, dtype=L.float64))),
        ("f32 tensor, number", lambda L: (L.tensor(x), y)),
        ("f32 (2, 1) tensor, number", lambda L: (L.tensor([[x], [y]]), y)),
    ]
    return forms


@pytest.mark.parametrize("op", sorted(OPS))
def test_float_grid_matches_torch_bit_for_bit(torch_ref, op):
    f = OPS[op]
    bad = []
    for x, y in itertools.product(FLOATS, FLOATS):
        for label, build in _operand_forms(x, y):
            def run(L, build=build):
                a, b = build(L)
                return f(a, b)

            want, got = outcome(torch_ref, run), outcome(scalargrad, run)
            if want != got:
                bad.append(f"{x} {op} {y} ({label}): torch {want}, scalargrad {got}")
            if op in SWAPPABLE and label == "f32 tensor, number":
                def run_swapped(L, build=build, y=y):
                    a, b = build(L)
                    return f(y, a)

                want, got = outcome(torch_ref, run_swapped), outcome(scalargrad, run_swapped)
                if want != got:
                    bad.append(f"{y} {op} tensor({x}): torch {want}, scalargrad {got}")
    assert not bad, f"{len(bad)} differ, the first:\n" + "\n".join(bad[:10])


@pytest.mark.parametrize("op", sorted(OPS))
def test_integer_grid_matches_torch(torch_ref, op):
    f = OPS[op]
    bad = []
    for x, y in itertools.product(INTS, INTS):
        forms = [  # each builder is called at once, in this iteration: x and y are this pair
            ("i64 0-dim", lambda L, x=x, y=y: f(L.tensor(x), L.tensor(y))),
            ("i64 (1,)", lambda L, x=x, y=y: f(L.tensor([x]), L.tensor([y]))),
            ("i64 tensor, int", lambda L, x=x, y=y: f(L.tensor(x), y)),
            ("i64 tensor, float", lambda L, x=x, y=y: f(L.tensor(x), y + 0.5)),
            ("i32 tensor, int", lambda L, x=x, y=y: f(L.tensor(x, dtype=L.int32), y)),
            ("i64 and f32", lambda L, x=x, y=y: f(L.tensor(x), L.tensor(float(y)))),
            ("f32 and i64 (2,)", lambda L, x=x, y=y: f(L.tensor([float(x), -0.0]), L.tensor([y, y]))),
        ]
        for label, run in forms:
            want, got = outcome(torch_ref, run), outcome(scalargrad, run)
            if want != got:
                bad.append(f"{x} {op} {y} ({label}): torch {want}, scalargrad {got}")
    assert not bad, f"{len(bad)} differ, the first:\n" + "\n".join(bad[:10])


# (a, b, a % b, a // b) on float32, derived from ATen's formulas (module docstring)
BY_HAND = [
    (7.0, -2.0, -1.0, -4.0),  # fmod 1, signs differ: 1 + -2; (7 - 1) / -2 = -3, less one
    (-7.0, 2.0, 1.0, -4.0),
    (5.0, 0.0, NAN, INF),  # fmod(5, 0) is nan; 5 // 0 is 5 / 0
    (-5.0, 0.0, NAN, -INF),
    (5.0, -0.0, NAN, -INF),
    (0.0, 0.0, NAN, NAN),
    (INF, 2.0, NAN, NAN),  # fmod(inf, b) is nan, and so is everything built on it
    (2.0, INF, 2.0, 0.0),  # fmod(2, inf) = 2; (2 - 2) / inf = 0, a zero quotient: sign of 2 / inf
    (-2.0, INF, INF, -1.0),  # fmod -2 and inf differ in sign: -2 + inf; 0 / inf less one
    (2.0, -INF, -INF, -1.0),
    (-0.0, 2.0, -0.0, -0.0),  # fmod(-0, 2) = -0; quotient 0 takes the sign of -0 / 2
    (0.0, -2.0, 0.0, -0.0),
    (NAN, 2.0, NAN, NAN),
]


@pytest.mark.parametrize("a, b, rem, quot", BY_HAND)
def test_remainder_and_floor_division_by_hand(a, b, rem, quot):
    for x, y in ((scalargrad.tensor(a), scalargrad.tensor(b)), (scalargrad.tensor([a]), b),
                 (scalargrad.tensor(a, dtype=scalargrad.float64), scalargrad.tensor(b, dtype=scalargrad.float64))):
        r, q = (x % y), (x // y)
        r, q = (r.item() if r.dim() == 0 else r[0].item()), (q.item() if q.dim() == 0 else q[0].item())
        assert struct.pack(">d", r) == struct.pack(">d", rem) or (r != r and rem != rem), (a, b, r)
        assert struct.pack(">d", q) == struct.pack(">d", quot) or (q != q and quot != quot), (a, b, q)
    assert scalargrad.tensor(a).div(b, rounding_mode="floor").item() == quot or quot != quot


def test_integer_division_by_zero_is_pytorchs_error():
    for f in (lambda: scalargrad.tensor(7) // 0, lambda: scalargrad.tensor(7) % 0,
              lambda: scalargrad.tensor([7]).div(scalargrad.tensor([0]), rounding_mode="trunc")):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            f()
    assert (scalargrad.tensor(-7) // 2).item() == -4 and (scalargrad.tensor(-7) % 2).item() == 1
    assert scalargrad.tensor(-7).div(2, rounding_mode="trunc").item() == -3


# ---------------------------------------------------------------- 0-dim comparisons


def test_zero_dim_comparisons_are_bool_tensors():
    x = scalargrad.tensor(1.5, requires_grad=True)
    for r in (x < 2, x == 1.5, 2 > x, x >= scalargrad.tensor(1), x != x, scalargrad.tensor(1) <= x):
        assert type(r) is scalargrad.Tensor and r.dtype is scalargrad.bool and r.shape == ()
        assert r.requires_grad is False and r.grad_fn is None and r.is_leaf
    assert repr(x < 2) == "tensor(True)" and repr(x > 2) == "tensor(False)"
    assert bool(x < 2) is True and (x < 2).item() is True
    n = scalargrad.tensor(NAN)
    assert [bool(n == n), bool(n != n), bool(n < 1), bool(n >= 1)] == [False, True, False, False]
    assert bool(scalargrad.tensor(-0.0) == scalargrad.tensor(0.0))
    # an equality with something that is not a number is False, not an error (as in PyTorch)
    assert (x == None) is False and (x == "a") is False  # noqa: E711
    with pytest.raises(TypeError):
        x < (1.0, 2.0)  # noqa: B015


def test_zero_dim_comparisons_match_torch(torch_ref):
    def story(L):
        x = L.tensor(1.5, requires_grad=True)
        return [bits(r) for r in (x < 2, x == 1.5, 2 > x, x >= L.tensor(1), x != x, L.tensor(1) <= x,
                                  L.tensor(1) == L.tensor(True), L.tensor([1.5]) > x)]

    assert story(scalargrad) == story(torch_ref)


# ---------------------------------------------------------------- max, min, argmax, argmin


def _reductions(L) -> list:
    x = L.tensor([[1.0, 5.0, 5.0], [7.0, -2.0, 7.0]])
    out = []
    for name in ("max", "min", "argmax", "argmin"):
        f = getattr(L, name)
        for args in ((), (0,), (1,), (-1, True), (0, False)):
            out.append((name, args, outcome(L, lambda L, f=f, args=args: f(x, *args))))
        for data in ([3.0], 3.0, [1.0, NAN, 2.0], [[1, 3], [3, 1]], [True, False], [-0.0, 0.0], [0.0, -0.0]):
            out.append((name, data, outcome(L, lambda L, f=f, data=data: f(L.tensor(data)))))
            out.append((name, data, 0, outcome(L, lambda L, f=f, data=data: f(L.tensor(data), 0))))
        out.append((name, "empty", outcome(L, lambda L, f=f: f(L.tensor([])))))
        out.append((name, "keepdim 0-dim", outcome(L, lambda L, f=f: f(L.tensor(3.0), 0, True))))
    r = x.max(1)
    out.append(("return type", type(r).__name__, repr(r), repr(x.min(0, keepdim=True)), str(type(r)),
                r.values is r[0], r.indices is r[1], len(r), isinstance(r, tuple)))
    values, indices = L.min(x, -1)
    out.append(("unpacked", bits(values), bits(indices)))
    out.append(("max of two", bits(L.max(x, L.tensor([3.0, 3.0, 3.0]))), bits(x.min(L.tensor(4.0)))))
    return out


def test_max_min_argmax_argmin_match_torch(torch_ref):
    assert _reductions(scalargrad) == _reductions(torch_ref)


def test_max_min_by_hand():
    x = scalargrad.tensor([[1.0, 5.0, 5.0], [7.0, -2.0, 7.0]])
    r = x.max(1)
    assert repr(r) == ("torch.return_types.max(\nvalues=tensor([5., 7.]),\nindices=tensor([1, 0]))")
    assert type(r).__name__ == "max" and str(type(r)) == "<class 'torch.return_types.max'>"
    assert r.values.tolist() == [5.0, 7.0] and r.indices.tolist() == [1, 0]  # ties: the first
    assert x.argmin().item() == 4 and x.argmax(0, keepdim=True).tolist() == [[1, 0, 1]]
    nan = scalargrad.tensor([1.0, NAN, 2.0])
    assert math.isnan(nan.max().item()) and nan.argmax().item() == 1 and nan.argmin().item() == 1
    assert nan.max(0).indices.item() == 1
    s = scalargrad.tensor(3.0)
    assert s.max(0).values.shape == () and s.max(0, True).indices.item() == 0 and s.argmax().item() == 0
    with pytest.raises(RuntimeError, match=r"^argmax\(\): does not support bool input$"):
        scalargrad.tensor([True, False]).argmax()
    with pytest.raises(IndexError, match=r"^argmin\(\): Expected reduction dim to be specified"):
        scalargrad.tensor([]).argmin()
    with pytest.raises(RuntimeError, match=r"^max\(\): Expected reduction dim to be specified"):
        scalargrad.tensor([]).max()


def _reduction_gradients(L) -> list:
    out = []
    data = [[1.0, 5.0, 5.0], [7.0, -2.0, 7.0]]
    for name, f in (("max()", lambda x: x.max()), ("max(1)", lambda x: x.max(1).values),
                    ("min(0, keepdim)", lambda x: x.min(0, keepdim=True)[0]), ("amax(1)", lambda x: x.amax(1)),
                    ("amax()", lambda x: x.amax()), ("amin((0, 1), keepdim)", lambda x: x.amin((0, 1), True)),
                    ("max of 0-dim", lambda x: x[0, 0].max()), ("amax of (1,)", lambda x: x[0, :1].amax(0))):
        x = L.tensor(data, requires_grad=True)
        y = f(x)
        (y * 3).sum().backward()
        out.append((name, y.grad_fn.name(), bits(x.grad)))
    return out


def test_reduction_gradients_by_hand():
    out = {name: (fn, g[3]) for name, fn, g in _reduction_gradients(scalargrad)}
    h = [struct.pack(">d", v).hex() for v in (0.0, 1.5, 3.0)]
    z, half, whole = h
    # max(): evenly_distribute_backward: the two 7s share 3
    assert out["max()"] == ("MaxBackward1", [z, z, z, half, z, half])
    # max(1): the first maximum of each row takes it all
    assert out["max(1)"] == ("MaxBackward0", [z, whole, z, whole, z, z])
    # amax(1): each row's ties share it (5, 5 and 7, 7)
    assert out["amax(1)"] == ("AmaxBackward0", [z, half, half, half, z, half])
    assert out["amax()"] == ("AmaxBackward0", [z, z, z, half, z, half])
    assert out["amin((0, 1), keepdim)"] == ("AminBackward0", [z, z, z, z, whole, z])


def test_reduction_gradients_match_torch(torch_ref):
    assert _reduction_gradients(scalargrad) == _reduction_gradients(torch_ref)


# ---------------------------------------------------------------- masks and where


def _masks(L) -> list:
    out = []
    x = L.tensor([[1.0, 5.0, 5.0], [7.0, -2.0, 7.0]])
    for label, f in (
        ("mask", lambda: x[x > 4]), ("row mask", lambda: x[L.tensor([True, False])]),
        ("list mask", lambda: x[[True, False]]), ("column mask", lambda: x[:, L.tensor([False, True, True])]),
        ("0-dim True", lambda: L.tensor(3.0)[L.tensor(True)]), ("0-dim False", lambda: L.tensor(3.0)[L.tensor(False)]),
        ("0-dim mask of 0-dim", lambda: L.tensor(3.0)[L.tensor(3.0) > 0]),
        ("n-d with 0-dim True", lambda: x[L.tensor(True)]), ("(1,) mask", lambda: L.tensor([3.0])[L.tensor([True])]),
        ("wrong shape", lambda: x[L.tensor([True, False, True])]),
        ("all False", lambda: x[x > 100]),
    ):
        out.append((label, outcome(L, lambda L, f=f: f())))
    for label, index, value in (
        ("number", "m", 0.0), ("tensor", "m", "t4"), ("bad length", "m", "t2"), ("row", "row", "t3"),
        ("0-dim", "0d", 5.0), ("0-dim False", "0dF", 5.0), ("broadcast", "row", "t1"),
    ):
        y = x.clone() if label not in ("0-dim", "0-dim False") else L.tensor(2.0)
        idx = {"m": y > 4, "row": L.tensor([False, True]), "0d": L.tensor(True), "0dF": L.tensor(False)}[index]
        val = {"t4": L.tensor([10.0, 11.0, 12.0, 13.0]), "t2": L.tensor([10.0, 11.0]), "t3": L.tensor([1.0, 2.0, 3.0]),
               "t1": L.tensor([9.0])}.get(value, value)

        def assign(L, y=y, idx=idx, val=val):
            y[idx] = val
            return y

        out.append(("assign " + label, outcome(L, assign), y._version))
    # through a graph
    a = L.tensor([[1.0, 5.0], [7.0, -2.0]], requires_grad=True)
    b = a * 2
    picked = b[b > 3]
    picked.sum().backward()
    out.append(("mask gradient", bits(picked), picked.grad_fn.name(), bits(a.grad)))
    a.grad = None
    c = a * 1
    v = L.tensor([10.0, 20.0], requires_grad=True)
    c[c > 3] = v
    (c * c).sum().backward()
    out.append(("masked assignment gradient", bits(c), c.grad_fn.name(), bits(a.grad), bits(v.grad)))
    return out


def test_boolean_masks_match_torch(torch_ref):
    assert _masks(scalargrad) == _masks(torch_ref)


def test_boolean_masks_by_hand():
    x = scalargrad.tensor([[1.0, 5.0, 5.0], [7.0, -2.0, 7.0]])
    assert x[x > 4].tolist() == [5.0, 5.0, 7.0, 7.0]  # row-major order
    assert x[scalargrad.tensor([False, True])].tolist() == [[7.0, -2.0, 7.0]]
    s = scalargrad.tensor(3.0)
    assert s[s > 0].tolist() == [3.0] and s[s < 0].shape == (0,)
    y = x.clone()
    y[y > 4] = scalargrad.tensor([10.0, 11.0, 12.0, 13.0])
    assert y.tolist() == [[1.0, 10.0, 11.0], [12.0, -2.0, 13.0]] and y._version == 1
    with pytest.raises(RuntimeError, match=r"^shape mismatch: value tensor of shape \[2\] cannot be broadcast to "
                                           r"indexing result of shape \[4\]$"):
        y[y > 4] = scalargrad.tensor([1.0, 2.0])
    with pytest.raises(IndexError, match=r"^The shape of the mask \[3\] at index 0 does not match the shape of the "
                                         r"indexed tensor \[2, 3\] at index 0$"):
        x[scalargrad.tensor([True, False, True])]
    a = scalargrad.tensor([[1.0, 5.0], [7.0, -2.0]], requires_grad=True)
    c = a * 1
    v = scalargrad.tensor([10.0, 20.0], requires_grad=True)
    c[c > 3] = v
    (c * c).sum().backward()
    # c = [[1, 10], [20, -2]]: d(sum c^2)/da = 2c where c still comes from a, 0 where v replaced it
    assert a.grad.tolist() == [[2.0, 0.0], [0.0, -4.0]] and v.grad.tolist() == [20.0, 40.0]


def _where(L) -> list:
    x = L.tensor([[1.0, -5.0], [7.0, -2.0]])
    cases = [
        lambda: L.where(x > 0, x, L.tensor(0.0)), lambda: L.where(x > 0, x, 0.0), lambda: L.where(x > 0, 1.0, 0.0),
        lambda: L.where(x > 0, 1, 0), lambda: L.where(x > 0, L.tensor([1, 2]), x),
        lambda: L.where(x > 0, x.double(), x), lambda: L.where(L.tensor(True), L.tensor(1.0), L.tensor(2.0)),
        lambda: L.where(L.tensor([True, False]), L.tensor(1.0), L.tensor([[2.0], [3.0]])),
        lambda: L.where(x > 0), lambda: L.where(L.tensor(True)), lambda: L.where(L.tensor([0.0, 2.0])),
        lambda: x.where(x > 0, L.tensor(-1.0)), lambda: L.where(x, x, x),
    ]
    out = [outcome(L, lambda L, f=f: f()) for f in cases]
    a = L.tensor([1.0, -2.0], requires_grad=True)
    b = L.tensor([3.0, 4.0], requires_grad=True)
    w = L.where(a > 0, a * 2, b)
    condition = bits(w.grad_fn._saved_condition)  # freed by the backward, as any saved tensor
    w.sum().backward()
    out.append((w.grad_fn.name(), [(None if f is None else f.name()) for f, _ in w.grad_fn.next_functions],
                bits(a.grad), bits(b.grad), condition))
    return out


def test_where_matches_torch(torch_ref):
    assert _where(scalargrad) == _where(torch_ref)


def test_where_by_hand():
    x = scalargrad.tensor([[1.0, -5.0], [7.0, -2.0]])
    assert scalargrad.where(x > 0, x, 0.0).tolist() == [[1.0, 0.0], [7.0, 0.0]]
    assert scalargrad.where(x > 0, 1, 0).dtype is scalargrad.int64
    rows, cols = scalargrad.where(x > 0)
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 0] and rows.dtype is scalargrad.int64
    (only,) = scalargrad.where(scalargrad.tensor(True))
    assert only.tolist() == [0]  # a 0-dim condition counts as one dimension
    with pytest.raises(RuntimeError, match="^where expected condition to be a boolean tensor, but got a tensor "
                                           "with dtype Float$"):
        scalargrad.where(x, x, x)


# ---------------------------------------------------------------- backward(gradient) checks


def _gradient_checks(L) -> list:
    out = []
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    s = x.sum()

    def attempt(f):
        try:
            f()
            out.append(("ok", bits(x.grad)))
        except Exception as e:  # the error is the figure
            out.append((type(e).__name__, str(e)))

    for g in (L.ones(3), L.tensor(1.0), L.ones(1, 2), L.ones(2, 1), None, L.ones(2, dtype=L.float64),
              L.ones(2, dtype=L.int64), L.tensor([True, False]), [1.0, 1.0], (None,)):
        attempt(lambda g=g: y.backward(g, retain_graph=True))
    for g in (L.tensor([1.0]), L.ones(1, 1), L.tensor(2.0), L.tensor(2.0, dtype=L.float64), None):
        attempt(lambda g=g: s.backward(g, retain_graph=True))
    attempt(lambda: L.autograd.backward([y, s], [L.ones(2)], retain_graph=True))
    attempt(lambda: L.autograd.grad([y], [x], [L.ones(3)], retain_graph=True))
    attempt(lambda: L.autograd.grad([y, s], [x], [L.ones(2), L.ones(1)], retain_graph=True))
    attempt(lambda: L.autograd.grad([y, s], [x], [L.ones(1), L.ones(1)], retain_graph=True))
    attempt(lambda: L.autograd.backward([L.ones(2)]))
    attempt(lambda: L.autograd.backward([L.ones(2)], [L.ones(3)]))
    attempt(lambda: L.autograd.grad([y], [L.ones(2)], [L.ones(2)]))
    attempt(lambda: L.tensor(1.0, requires_grad=True).backward(1.0))
    return out


def test_backward_gradient_checks_match_torch(torch_ref):
    assert _gradient_checks(scalargrad) == _gradient_checks(torch_ref)


def test_backward_gradient_checks_by_hand():
    x = scalargrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[3\]\) "
                                           r"and output\[0\] has a shape of torch.Size\(\[2\]\)\.$"):
        y.backward(scalargrad.ones(3))
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[\]\) "
                                           r"and output\[0\] has a shape of torch.Size\(\[2\]\)\.$"):
        y.backward(scalargrad.tensor(1.0))
    with pytest.raises(RuntimeError, match=r"^grad can be implicitly created only for scalar outputs$"):
        y.backward()
    with pytest.raises(TypeError, match=r"^gradients can be either Tensors or None, but got float$"):
        y.backward([1.0, 1.0])
    with pytest.raises(RuntimeError, match=r"^got 2 tensors and 1 gradients$"):
        scalargrad.autograd.backward([y, x.sum()], [scalargrad.ones(2)])
    y.backward(scalargrad.tensor([1.0, 0.5], dtype=scalargrad.float64))  # cast to the output's dtype
    assert x.grad.tolist() == [2.0, 1.0] and x.grad.dtype is scalargrad.float32
