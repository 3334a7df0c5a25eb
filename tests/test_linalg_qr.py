"""QR (``_tensor/linalg_qr.py``): linalg.qr in its three modes and the deprecated torch.qr and
Tensor.qr. PyTorch's factors come from LAPACK's blocked geqrf/orgqr (MKL here), whose last bits
are machine-dependent; the sign of R's diagonal is LAPACK's rule (-sign(alpha) at each reflector,
alpha's own sign where the reflector is the identity), the same on every machine for the
well-separated matrices here. So Q and R are compared with an mpmath reference (Householder at 40
digits with that rule) within 8 max(m, n) eps of the largest element, scalargrad's and live
PyTorch's; the diagonal signs exactly; the gradients (machine-dependent products) of the two
within 64 n eps of the largest. The suite's SymPy check proves scalargrad's against Gram-Schmidt's
factors with the same signs."""

from __future__ import annotations

import random

import pytest
from program_outcome import refusal

import scalargrad as sg
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

EPS = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}


def _mp_qr(a: list, mode: str) -> tuple:
    """(Q rows, R rows) by Householder reflections at 40 digits, LAPACK's signs."""
    import mpmath

    m, n = len(a), len(a[0])
    k = min(m, n)
    with mpmath.workdps(40):
        r = mpmath.matrix(a)
        q = mpmath.eye(m)
        for i in range(k):
            alpha = r[i, i]
            xnorm = mpmath.sqrt(sum(r[t, i] ** 2 for t in range(i + 1, m)))
            if m - i <= 1 or xnorm == 0:
                continue  # H = I: R's diagonal keeps alpha's sign
            beta = -mpmath.sign(alpha or 1) * mpmath.sqrt(alpha ** 2 + xnorm ** 2)
            v = [mpmath.mpf(1)] + [r[t, i] / (alpha - beta) for t in range(i + 1, m)]
            tau = (beta - alpha) / beta
            for c in range(n):
                w = sum(v[t - i] * r[t, c] for t in range(i, m))
                for t in range(i, m):
                    r[t, c] -= tau * v[t - i] * w
            for row in range(m):
                w = sum(q[row, t] * v[t - i] for t in range(i, m))
                for t in range(i, m):
                    q[row, t] -= tau * w * v[t - i]
        kq = m if mode == "complete" else k
        kr = m if mode == "complete" else k
        return ([[float(q[i, j]) for j in range(kq)] for i in range(m)],
                [[float(r[i, j]) if j >= i else 0.0 for j in range(n)] for i in range(kr)])


def _matrix(seed: int, shape: tuple, dt: str) -> list:
    rnd = random.Random(seed)
    count = 1
    for s in shape:
        count *= s
    return sg.tensor([rnd.uniform(-2, 2) for _ in range(count)], dtype=getattr(sg, dt)).reshape(shape).tolist()


CALLS = [
    ("linalg.qr", lambda L, a, mode: L.linalg.qr(a, mode=mode)),
    ("torch.qr", lambda L, a, mode: L.qr(a, some=mode == "reduced")),
    ("Tensor.qr", lambda L, a, mode: a.qr(mode == "reduced")),
]
CASES = [((2, 2), "reduced"), ((3, 2), "reduced"), ((3, 3), "complete"), ((2, 2, 2), "reduced"), ((3, 2), "complete"),
         ((2, 3), "reduced"), ((3, 2), "r")]


@pytest.mark.no_sympy_check  # Gram-Schmidt's square roots on 3 x 3 take SymPy minutes: proved on 2 x 2 below
@pytest.mark.filterwarnings("ignore:torch.qr is deprecated")
@pytest.mark.parametrize("dt", list(EPS))
def test_qr_matches_pytorch(torch_ref, dt):
    """Each case through a spelling in turn (torch.qr and Tensor.qr know only reduced and
    complete): Q and R within the bound of mpmath's, R's diagonal signs exactly; the node, its
    saved mode, output numbers and shapes exactly; where PyTorch differentiates (reduced m >= n,
    complete square) the gradients of a weighted sum of Q and R within 64 n eps."""
    eps = EPS[dt]
    for case, (shape, mode) in enumerate(CASES):
        name, call = CALLS[case % 3] if mode != "r" else CALLS[0]
        data = _matrix(case, shape, dt)
        mats = data if len(shape) == 3 else [data]
        m, n = shape[-2:]
        grad_ok = m >= n and (mode == "reduced" or m == n)
        got = []
        for L in (sg, torch_ref):
            a = L.tensor(data, dtype=getattr(L, dt), requires_grad=grad_ok)
            Q, R = call(L, a, mode)
            qs = Q.detach().reshape(-1, *Q.shape[-2:]).tolist() if mode != "r" else None
            rs = R.detach().reshape(-1, *R.shape[-2:]).tolist()
            for b, mat in enumerate(mats):
                ref_q, ref_r = _mp_qr(mat, mode)
                top = max(abs(x) for row in ref_r for x in row)
                bound = 8 * max(m, n) * eps
                for i, row in enumerate(ref_r):
                    for j, want in enumerate(row):
                        assert abs(rs[b][i][j] - want) <= bound * top, (L.__name__, name, shape, mode, i, j)
                        if i == j:
                            assert (rs[b][i][j] < 0) == (want < 0), (L.__name__, name, shape, i)
                if qs is not None:
                    for i, row in enumerate(ref_q):
                        for j, want in enumerate(row):
                            assert abs(qs[b][i][j] - want) <= bound, (L.__name__, name, shape, mode, i, j)
            fn = R.grad_fn
            facts = (tuple(Q.shape), tuple(R.shape), type(L.linalg.qr(a.detach(), mode=mode)).__name__)
            if grad_ok:
                facts += (fn.name(), fn is Q.grad_fn, fn._saved_mode, Q.output_nr, R.output_nr,
                          fn._saved_Q.tolist() == Q.tolist(), fn._saved_R.tolist() == R.tolist())
                wq = L.arange(1.0, 1.0 + Q.numel(), dtype=getattr(L, dt)).reshape(Q.shape)
                (g,) = L.autograd.grad((Q * wq).sum() + R.sum(), a)
                facts += (g.flatten().tolist(),)
            got.append(facts)
        if grad_ok:
            assert got[0][:-1] == got[1][:-1]
            top = max(abs(x) for x in got[1][-1])
            for p, q in zip(got[0][-1], got[1][-1]):
                assert abs(p - q) <= 64 * n * eps * top, (shape, mode, p, q)
        else:
            assert got[0] == got[1]


def test_exact_figures_and_warning(torch_ref, recwarn):
    """The same on every machine: an upper triangular matrix's factors (the reflectors are the
    identity: R keeps its signs, and org2r's scalings by -tau leave a -0. in Q), mode 'r''s empty
    Q; torch.qr's deprecation warning once, at the program's line."""
    from scalargrad._base.warn_once import forget

    got = []
    for L in (sg, torch_ref):
        got.append([repr(L.linalg.qr(L.tensor([[1.0, 2.0], [0.0, 3.0]]))),
                    repr(L.linalg.qr(L.tensor([[-1.0, 2.0], [0.0, -3.0]]), mode="complete")),
                    repr(L.linalg.qr(L.tensor([[1.0, 2.0], [0.0, 3.0]], requires_grad=True), mode="r"))])
    assert got[0] == got[1]
    forget("torch_qr")
    recwarn.clear()
    sg.qr(sg.eye(2))
    sg.eye(2).qr()
    assert len(recwarn.list) == 1 and recwarn.list[0].filename == __file__
    assert str(recwarn.list[0].message).startswith("torch.qr is deprecated in favor of torch.linalg.qr")


def test_sympy_proof_of_two_by_two():
    """The hand derivation for A = [[3, 0], [4, 5]]: alpha = 3, beta = -5, tau = 1.6, v = (1, 0.5):
    Q = H e = [[-0.6, -0.8], [-0.8, 0.6]], R = Q^T A = [[-5, -4], [0, 3]] (the second reflector is
    the identity); SymPy proves the gradients from Gram-Schmidt with R's signs (-1, +1)."""
    a = sg.tensor([[3.0, 0.0], [4.0, 5.0]], dtype=sg.float64, requires_grad=True)
    Q, R = sg.linalg.qr(a)
    for have, want in zip(Q.flatten().tolist() + R.flatten().tolist(), [-0.6, -0.8, -0.8, 0.6, -5, -4, 0, 3]):
        assert abs(have - want) <= 4e-16
    assert sympy_check((Q * sg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=sg.float64)).sum() + R.sum(), [a]).ok


@pytest.mark.filterwarnings("ignore:torch.qr is deprecated")
@pytest.mark.parametrize("text, call", [
    ("mode r backward", lambda L: L.linalg.qr(L.eye(2).requires_grad_(), mode="r")[1].sum().backward()),
    ("complete tall backward", lambda L: L.linalg.qr(L.ones(3, 2).requires_grad_(), mode="complete")[0]
     .sum().backward()),
    ("vector", lambda L: L.linalg.qr(L.zeros(3))),
    ("integer", lambda L: L.linalg.qr(L.zeros(2, 2, dtype=L.long))),
    ("mode", lambda L: L.linalg.qr(L.eye(2), mode="x")),
    ("not a tensor", lambda L: L.linalg.qr([[1.0]])),
])
def test_errors(torch_ref, text, call):
    assert refusal(call, sg) == refusal(call, torch_ref)


def test_refused_by_name():
    with pytest.raises(Unsupported, match="wide matrix"):
        sg.linalg.qr(sg.ones(2, 3, requires_grad=True))
    a = sg.tensor([[2.0, 1.0], [-1.0, 3.0]], requires_grad=True)
    with pytest.raises(Unsupported, match="double backward of qr"):
        sg.autograd.grad(sg.linalg.qr(a)[1].sum(), a, create_graph=True)


def test_saved_outputs_changed_in_place(torch_ref):
    """Q and R (qr) and sign (slogdet) are saved by their node: changed in place, the backward
    raises PyTorch's version error naming the output; log|det|, which slogdet does not save, may
    change."""
    got = []
    for L in (sg, torch_ref):
        out = []
        for change in (lambda q, r: q.mul_(2), lambda q, r: r.add_(1)):
            a = L.tensor([[2.0, 1.0], [-1.0, 3.0]], requires_grad=True)
            q, r = L.linalg.qr(a)
            change(q, r)
            with pytest.raises(RuntimeError) as e:
                (q.sum() + r.sum()).backward()
            out.append(str(e.value).split(" Hint")[0])
        a = L.tensor([[2.0, 1.0], [-1.0, 3.0]], requires_grad=True)
        s, la = L.linalg.slogdet(a)
        s.mul_(2)
        with pytest.raises(RuntimeError) as e:
            la.backward()
        out.append(str(e.value).split(" Hint")[0])
        s, la = L.linalg.slogdet(a)
        la.add_(1)
        la.backward()
        out.append(a.grad.tolist())
        got.append(out)
    assert got[0][:3] == got[1][:3]
    assert all(abs(p - q) <= 1e-6 for p, q in zip(sum(got[0][3], []), sum(got[1][3], [])))
