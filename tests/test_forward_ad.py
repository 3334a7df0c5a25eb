"""Forward-mode AD (``torch.autograd.forward_ad``) against live PyTorch.

Each op of a catalogue runs on dual tensors in both libraries (the same code, the library passed
in); the tangents must agree: bit for bit where PyTorch's kernels are the same on every machine,
within a few ulps where its kernel is machine-dependent (mm/matmul, exp, tanh, sin, sqrt, sum,
softmax and what is built on them), as tests/faithfulness.py describes. Then in-place ops,
tangents that require grad, custom Functions' jvp and the API's errors.
"""

from __future__ import annotations

import math

import pytest

import scalargrad as sg
import scalargrad.autograd.forward_ad as sgAD
from scalargrad.errors import Unsupported

A = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]]
B = [[-0.25, 1.0, 0.5], [2.0, -1.5, 0.25]]
TA = [[1.0, 0.5, -2.0], [0.25, -1.0, 3.0]]
TB = [[0.5, 2.0, 1.0], [-1.0, 0.125, 0.5]]
M = [[1.0, 2.0], [-0.5, 0.25], [3.0, -1.0]]
TM = [[0.5, -1.0], [2.0, 1.5], [-0.25, 1.0]]

# (name, fn(T, x, y)): x is A with tangent TA, y is B with tangent TB (both 2x3), float64
EXACT = [
    ("add", lambda T, x, y: x + y), ("sub", lambda T, x, y: x - 2 * y), ("mul", lambda T, x, y: x * y),
    ("div", lambda T, x, y: x / (y + 3)), ("neg", lambda T, x, y: -x), ("square", lambda T, x, y: x * x * 3),
    ("pow", lambda T, x, y: x ** 3), ("abs", lambda T, x, y: x.abs()), ("relu", lambda T, x, y: T.relu(x)),
    ("clamp", lambda T, x, y: x.clamp(-1.0, 1.0)), ("where", lambda T, x, y: T.where(x > y, x, y * y)),
    ("maximum", lambda T, x, y: T.maximum(x, y)), ("view", lambda T, x, y: x.view(3, 2) * 2),
    ("reshape", lambda T, x, y: x.reshape(-1)), ("transpose", lambda T, x, y: x.t() + y.t()),
    ("permute", lambda T, x, y: x.unsqueeze(0).permute(2, 0, 1)), ("select", lambda T, x, y: x[1]),
    ("slice", lambda T, x, y: x[:, 1:] * y[:, :2]), ("index", lambda T, x, y: x[[1, 0, 1]]),
    ("index_select", lambda T, x, y: x.index_select(1, T.tensor([2, 0]))),
    ("gather", lambda T, x, y: x.gather(1, T.tensor([[2, 0], [1, 1]]))),
    ("masked_fill", lambda T, x, y: x.masked_fill(y > 0, 0.5)), ("cat", lambda T, x, y: T.cat([x, y], 1)),
    ("stack", lambda T, x, y: T.stack([x, y])), ("flip", lambda T, x, y: x.flip(0)),
    ("expand", lambda T, x, y: x[:1].expand(4, 3)), ("max_dim", lambda T, x, y: x.max(1).values),
    ("amax", lambda T, x, y: x.amax(0)), ("squeeze", lambda T, x, y: x.unsqueeze(1).squeeze(1)),
    ("clone", lambda T, x, y: x.clone()), ("detach", lambda T, x, y: x.detach()),
    ("compare", lambda T, x, y: x > y),
]
BOUNDED = [
    ("exp", lambda T, x, y: x.exp()), ("tanh", lambda T, x, y: x.tanh()), ("sin", lambda T, x, y: x.sin()),
    ("sqrt", lambda T, x, y: (x * x + 1).sqrt()), ("log", lambda T, x, y: (x * x + 1).log()),
    ("sigmoid", lambda T, x, y: x.sigmoid()), ("softmax", lambda T, x, y: x.softmax(1)),
    ("log_softmax", lambda T, x, y: T.nn.functional.log_softmax(x, 0)), ("sum", lambda T, x, y: (x * y).sum()),
    ("sum_dim", lambda T, x, y: x.sum(0)), ("mean", lambda T, x, y: x.mean(1)),
    ("mm", lambda T, x, y: x @ y.t()), ("matmul_vec", lambda T, x, y: x @ y[0]),
    ("norm", lambda T, x, y: x.norm()), ("tanh_chain", lambda T, x, y: (x.tanh() * y).exp().sum(1)),
    ("linear", lambda T, x, y: T.nn.functional.linear(x, y, y[0, :2])),
    ("mse", lambda T, x, y: T.nn.functional.mse_loss(x, y)),
]
ULPS = 4  # float64 ulps a machine-dependent kernel's tangent may differ by (here: at most 1-2 seen)


def _tangent(T, fn, dtype_name: str = "float64"):
    """``fn``'s output and its tangent, as nested lists (the tangent None where there is none)."""
    fw = T.autograd.forward_ad
    dt = getattr(T, dtype_name)
    with fw.dual_level():
        x = fw.make_dual(T.tensor(A, dtype=dt), T.tensor(TA, dtype=dt))
        y = fw.make_dual(T.tensor(B, dtype=dt), T.tensor(TB, dtype=dt))
        out = fn(T, x, y)
        primal, tangent = fw.unpack_dual(out)
        return primal.tolist(), None if tangent is None else tangent.tolist()


def _flat(v) -> list:
    return [e for x in v for e in _flat(x)] if isinstance(v, list) else [v]


def _ulps_apart(a: float, b: float) -> float:
    return abs(a - b) / max(math.ulp(max(abs(a), abs(b))), 5e-324)


def test_tangents_of_a_catalogue_of_ops(torch_ref):
    """Every op's tangent is PyTorch's: exactly for the machine-independent kernels, within a
    few ulps for the others."""
    wrong = []
    for group, cases in (("exact", EXACT), ("bounded", BOUNDED)):
        for name, fn in cases:
            want = _tangent(torch_ref, fn)
            got = _tangent(sg, fn)
            if want[1] is None or got[1] is None:
                if want[1] is not got[1]:
                    wrong.append((name, got[1], want[1]))
                continue
            if group == "exact":
                if got != want:
                    wrong.append((name, got, want))
            elif len(_flat(got[1])) != len(_flat(want[1])) or any(
                    _ulps_apart(a, b) > ULPS for a, b in zip(_flat(got[1]), _flat(want[1]))):
                wrong.append((name, got[1], want[1]))
    assert not wrong


def test_float32_tangents_round_as_pytorch(torch_ref):
    """float32: the tangents of the machine-independent ops are rounded to float32 as PyTorch's."""
    for name, fn in EXACT:
        assert _tangent(sg, fn, "float32") == _tangent(torch_ref, fn, "float32"), name


def _inplace(T):
    fw = T.autograd.forward_ad
    with fw.dual_level():
        t = T.tensor([1.0, -2.0, 0.5], dtype=T.float64)
        x = fw.make_dual(T.tensor([0.5, 1.5, -1.0], dtype=T.float64), t)
        x.mul_(3)
        y = x.clone()
        y.add_(x * x)
        z = x.clone()
        z.clamp_(max=1.0)
        return fw.unpack_dual(x).tangent.tolist(), t.tolist(), fw.unpack_dual(y).tangent.tolist(), \
            fw.unpack_dual(z).tangent.tolist()


def test_inplace_ops_change_the_tangent_in_place(torch_ref):
    """An in-place op on a dual tensor changes its tangent, the very tensor make_dual was given."""
    assert _inplace(sg) == _inplace(torch_ref)


def _second_order(T):
    fw = T.autograd.forward_ad
    p = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    t = T.tensor([1.0, 0.25, -0.5], dtype=T.float64, requires_grad=True)
    with fw.dual_level():
        x = fw.make_dual(p, t)
        out = (x * x * x).sum() + (x[0] * x[2])
        tangent = fw.unpack_dual(out).tangent
        gp, gt = T.autograd.grad(tangent, [p, t])
        after = fw.unpack_dual(out).tangent is not None
    return tangent.item(), tangent.requires_grad, gp.tolist(), gt.tolist(), after, fw.unpack_dual(out).tangent


def test_tangents_are_differentiable(torch_ref):
    """A tangent computed from tensors that require grad is differentiable with respect to the
    primal and the tangent (forward-over-reverse); exiting the level drops every tangent."""
    assert _second_order(sg) == _second_order(torch_ref)


def _custom(T):
    fw = T.autograd.forward_ad

    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            return x ** 3 * k

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("not called")

        @staticmethod
        def jvp(ctx, t, _):
            (x,) = ctx.saved_tensors
            return 3 * x * x * t * 7  # deliberately 7x the derivative: jvp's result is used as it is

    class NoJvp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fw.dual_level():
        x = fw.make_dual(T.tensor([1.0, 2.0], dtype=T.float64), T.tensor([1.0, -1.0], dtype=T.float64))
        got = fw.unpack_dual(Cube.apply(x, 2.0)).tangent.tolist()
        try:
            NoJvp.apply(x)
            error = None
        except NotImplementedError as e:
            error = str(e)
    return got, error


def test_custom_function_tangent_comes_from_jvp(torch_ref):
    assert _custom(sg) == _custom(torch_ref)


def _errors(T) -> list:
    fw = T.autograd.forward_ad
    x = T.tensor([1.0, 2.0])
    seen = []

    def attempt(f):
        try:
            f()
            seen.append(None)
        except (RuntimeError, ValueError) as e:
            seen.append((type(e).__name__, str(e)))

    attempt(lambda: fw.make_dual(x, x))
    attempt(lambda: fw.exit_dual_level())
    seen.append(fw.unpack_dual(x))
    with fw.dual_level() as level:
        seen.append(level)
        attempt(lambda: fw.make_dual(x, T.ones(3)))
        attempt(lambda: fw.make_dual(T.tensor([1, 2]), x))
        attempt(lambda: fw.make_dual(x, T.tensor([1, 2])))
        attempt(lambda: fw.enter_dual_level())
        seen.append(fw.unpack_dual(x).tangent)
    seen.append(fw.enter_dual_level())
    fw.exit_dual_level()
    return [s if not isinstance(s, tuple) or len(s) != 2 or isinstance(s[0], str) else (s[0].tolist(), s[1])
            for s in seen]


def test_the_api_refuses_as_pytorch(torch_ref):
    """make_dual outside a level, a tangent of another size, integer primals and tangents, a
    nested level: PyTorch's errors, word for word."""
    assert _errors(sg) == _errors(torch_ref)


def _tangent_views(T) -> list:
    """Views of a dual tensor and their tangents (PyTorch's forward grad of a view is the same
    view of the base's tangent: ``_base``, strides, offset), then in-place ops on a view and on
    the base, which change the other's tangent through the shared memory."""
    fw = T.autograd.forward_ad
    out = []

    def seen(t, base):
        return t.tolist(), t._base is base, t.stride(), t.storage_offset(), t._is_view()

    with fw.dual_level():
        x = fw.make_dual(T.tensor([[1., 2.], [3., 4.]]), T.tensor([[.5, .25], [.125, 2.]]))
        tx = fw.unpack_dual(x).tangent
        for f in (lambda x: x.narrow(0, 1, 1), lambda x: x.t(), lambda x: x[1, 0], lambda x: x.view(4),
                  lambda x: x.diagonal(), lambda x: x[1][1:], lambda x: x.unbind(1)[1], lambda x: x.expand(2, 2, 2)):
            out.append(seen(fw.unpack_dual(f(x)).tangent, tx))
        v = x[1]
        v.mul_(T.tensor([2., 3.]))  # the base's tangent changes with the view's
        out.append((fw.unpack_dual(x).tangent.tolist(), fw.unpack_dual(v).tangent.tolist(), x.tolist(),
                    fw.unpack_dual(x).tangent is tx))
        y = x * 1
        w = y[0]
        w.add_(fw.make_dual(T.tensor([1., 1.]), T.tensor([10., 20.])))  # a dual operand
        y.mul_(2)  # and the view's tangent changes with its base's
        out.append((fw.unpack_dual(y).tangent.tolist(), fw.unpack_dual(w).tangent.tolist(), w.tolist()))
        z = fw.make_dual(T.tensor([1., 2., 3.], dtype=T.float64), T.tensor([1., 1., 1.], dtype=T.float64))
        s = z[1:]
        s.pow_(2)  # exact: 2 * x * t
        out.append((fw.unpack_dual(z).tangent.tolist(), z.tolist()))
    return out


def test_a_views_tangent_is_a_view_of_its_base_tangent(torch_ref):
    """Issue 22: the tangent of a view is the same view of its base's tangent, and in-place
    ops on either are seen by the other (exact arithmetic: bit for bit)."""
    got = _tangent_views(sg)
    assert got[0][1] and got[2][3] == 2
    assert got == _tangent_views(torch_ref)


def test_an_alias_of_a_dual_tensor_is_not_changed_behind_its_tangent():
    """In-place through memory a dual tensor shares, where the tangents do not share theirs (a
    tangent laid out otherwise than its primal), or by item assignment: refused by name, never
    a stale tangent."""
    with sgAD.dual_level():
        x = sgAD.make_dual(sg.tensor([[1.0, 2.0], [3.0, 4.0]]), sg.tensor([[1.0, 2.0], [3.0, 4.0]]).t())
        v = x[0]
        with pytest.raises(Unsupported, match="forward-mode AD"):
            v.mul_(3)
        assert sgAD.unpack_dual(x).tangent.tolist() == [[1.0, 3.0], [2.0, 4.0]] and x.tolist()[0] == [1.0, 2.0]
        x = sgAD.make_dual(sg.tensor([1.0, 2.0]), sg.tensor([1.0, 1.0])) * 1
        with pytest.raises(Unsupported, match="forward-mode AD"):
            x[1] = 5.0
        assert sgAD.unpack_dual(x).tangent.tolist() == [1.0, 1.0]
        z = x.clone()
        with pytest.raises(Unsupported, match="x.mul_"):
            z.mul_(z)  # PyTorch's formula reads the tangent it is changing: [2., 6.] here
        assert sgAD.unpack_dual(z).tangent.tolist() == [1.0, 1.0] and z.tolist() == [1.0, 2.0]


def _wrong_jvp(T):
    class Twice(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 3  # wrong

    x = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
    outcome = [T.autograd.gradcheck(Twice.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                    raise_exception=False)]
    try:
        T.autograd.gradcheck(Twice.apply, (x,), check_forward_ad=True)
    except RuntimeError as e:
        outcome.append(str(e))
    return outcome


def test_gradcheck_checks_the_forward_jacobian(torch_ref):
    """gradcheck(check_forward_ad=True) finds a wrong jvp with PyTorch's message."""
    assert _wrong_jvp(sg) == _wrong_jvp(torch_ref)


def _printed(T) -> list:
    fw = T.autograd.forward_ad
    with fw.dual_level():
        shown = []
        for p, t in [([[1.0, 2.0], [3.0, 4.0]], [[1.0, 1.0], [1.0, 1.0]]), (1.5, 2.25), ([1e-8, 1.0], [1e5, 1.0])]:
            for dtype in (T.float32, T.float64):
                d = fw.make_dual(T.tensor(p, dtype=dtype), T.tensor(t, dtype=dtype))
                shown += [repr(d), repr(d * 2), str(d.sum())]
        x = fw.make_dual(T.tensor(0.1, requires_grad=True), T.tensor(0.1))
        shown.append(repr(x * 3))
    shown.append(repr(d))
    return shown


def test_a_dual_tensor_prints_its_tangent(torch_ref):
    """A dual tensor's repr ends with its tangent (a 0-dim one as a number), as PyTorch's."""
    assert _printed(sg) == _printed(torch_ref)


def test_an_op_without_a_tangent_rule_is_refused_by_name():
    """An op whose tangent scalargrad cannot compute (its rule's double backward is missing, or
    no node is built) is refused by name, never left without a tangent."""
    with sgAD.dual_level():
        x = sgAD.make_dual(sg.tensor([[1.0, 2.0], [3.0, 4.0]]), sg.ones(2, 2))
        with pytest.raises(Unsupported, match="forward-mode AD through Convolution"):
            sg.nn.functional.conv1d(x[None], x[:, :, None])
        with pytest.raises(Unsupported, match="var_mean of a tensor that has a forward-mode tangent"):
            sg.var_mean(x, 1)
