"""Attention: ``F.scaled_dot_product_attention``, ``nn.MultiheadAttention`` and the Transformer modules.

Bit for bit with live PyTorch where PyTorch is the same on every machine: the parameters drawn
under ``manual_seed`` (uniform and normal draws, xavier bounds), reprs, node names, shapes, error
messages and warnings, the causal mask, the rows a mask removes whole (exact zeros) and which
weights dropout zeroes. The values pass through matrix products and softmax, which PyTorch
computes differently on different processors (MKL, the vectorised softmax): scalargrad's and
PyTorch's float32 values are both compared with a float64 reference (pure Python here, PyTorch's
float64 run for whole modules) within ``BOUND`` (2 * BOUND for gradients). Measured on this
machine by ``python tests/attention_bounds.py`` (PyTorch 2.13, no setting and
``ATEN_CPU_CAPABILITY=default``), as |x - reference| / max(1, |reference|) over the cases here and in
test_transformer.py: values at most 9.5e-7, gradients at most 4.6e-6, for scalargrad and for PyTorch
alike; BOUND is 1e-5.
"""

from __future__ import annotations

import math
import warnings

import pytest

import scalargrad
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

BOUND = 1e-5


def _flat(t) -> list:
    return t.reshape(-1).tolist()


def _close(got: list, ref: list, bound: float = BOUND) -> None:
    assert len(got) == len(ref)
    for i, (a, b) in enumerate(zip(got, ref)):
        assert abs(a - b) <= bound * max(1.0, abs(b)), f"element {i}: {a} vs the reference {b}"


def _rows(t) -> list:
    """A (..., n, m) tensor as its list of rows."""
    return t.reshape(-1, t.shape[-1]).tolist()


def _reference_sdpa(q, k, v, mask=None, scale=None) -> list:
    """softmax(q k^T * scale + mask) v in float64, one (L, E) x (S, E) x (S, Ev) batch, a mask of
    0/-inf floats (or None); a row masked whole gives zeros (``_safe_softmax``)."""
    e = len(q[0])
    s = scale if scale is not None else 1.0 / math.sqrt(e)
    out = []
    for i, qi in enumerate(q):
        scores = [sum(a * b for a, b in zip(qi, kj)) * s + (mask[i][j] if mask else 0.0) for j, kj in enumerate(k)]
        top = max(scores)
        if top == -math.inf:
            out.append([0.0] * len(v[0]))
            continue
        w = [math.exp(x - top) for x in scores]
        total = sum(w)
        out.append([sum(w[j] / total * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return out


def _qkv(L, shape_q=(2, 3, 4), shape_kv=(2, 5, 4), seed=0, grad=False):
    L.manual_seed(seed)
    q, k, v = L.randn(*shape_q), L.randn(*shape_kv), L.randn(*shape_kv)
    for t in (q, k, v):
        t.requires_grad_(grad)
    return q, k, v


MASK = [[True, False, True, True, False], [True, True, True, True, True], [False, False, True, False, False]]


@pytest.mark.parametrize("case", ["plain", "bool mask", "float mask", "causal", "scale", "masked row"])
def test_sdpa_values_lie_within_the_bound_of_the_float64_reference(case):
    F = scalargrad.nn.functional
    q, k, v = _qkv(scalargrad)
    kw, mask = {}, None
    if case in ("bool mask", "masked row"):
        rows = [list(r) for r in MASK]
        if case == "masked row":
            rows[2] = [False] * 5
        kw["attn_mask"] = scalargrad.tensor(rows)
        mask = [[0.0 if b else -math.inf for b in r] for r in rows]
    elif case == "float mask":
        mask = [[0.5 * i - j for j in range(5)] for i in range(3)]
        kw["attn_mask"] = scalargrad.tensor(mask)
    elif case == "causal":
        kw["is_causal"] = True
        mask = [[0.0 if j <= i else -math.inf for j in range(5)] for i in range(3)]
    elif case == "scale":
        kw["scale"] = 0.3
    out = F.scaled_dot_product_attention(q, k, v, **kw)
    assert list(out.shape) == [2, 3, 4]
    for b in range(2):
        ref = _reference_sdpa(q[b].tolist(), k[b].tolist(), v[b].tolist(), mask, kw.get("scale"))
        _close(out[b].reshape(-1).tolist(), [x for r in ref for x in r])
    if case == "masked row":  # _safe_softmax: exact zeros, not nan
        assert out[:, 2].reshape(-1).tolist() == [0.0] * 8


def test_sdpa_gradients_are_proved_by_sympy():
    F = scalargrad.nn.functional
    q, k, v = _qkv(scalargrad, (1, 2, 2), (1, 3, 2), grad=True)
    mask = scalargrad.tensor([[True, False, True], [True, True, False]])
    sympy_check(F.scaled_dot_product_attention(q, k, v, attn_mask=mask).sum(), [q, k, v], raise_on_mismatch=True)


def test_multihead_attention_gradients_are_proved_by_sympy():
    scalargrad.manual_seed(0)
    mha = scalargrad.nn.MultiheadAttention(2, 1)
    x = scalargrad.randn(2, 1, 2, requires_grad=True)
    out, weights = mha(x, x, x)
    sympy_check(out.sum() + weights.sum(), [x, mha.in_proj_weight], raise_on_mismatch=True)


def _sdpa_observed(L) -> list:
    F = L.nn.functional
    q, k, v = _qkv(L, grad=True)
    rows = []
    for kw in ({}, {"attn_mask": L.tensor(MASK)}, {"attn_mask": L.zeros(3, 5)}, {"is_causal": True},
               {"scale": 0.5}, {"dropout_p": 0.5}):
        L.manual_seed(3)
        out = F.scaled_dot_product_attention(q, k, v, **kw)
        zeros = [x == 0.0 for x in _flat(out)] if "dropout_p" in kw else None
        rows.append((sorted(kw), type(out.grad_fn).__name__, list(out.shape), zeros))
    out = F.scaled_dot_product_attention(q[0], k[0], v[0])
    rows.append(("2-D", type(out.grad_fn).__name__, list(out.shape)))
    with L.no_grad():
        rows.append(("no_grad", F.scaled_dot_product_attention(q, k, v).grad_fn))
    return rows


@pytest.mark.live_torch
def test_sdpa_nodes_shapes_and_dropout_are_pytorchs(torch_ref):
    assert _sdpa_observed(scalargrad) == _sdpa_observed(torch_ref)


@pytest.mark.live_torch
def test_sdpa_with_dropout_keeps_pytorchs_elements(torch_ref):
    got = []
    for L in (scalargrad, torch_ref):
        q, k, v = _qkv(L, (2, 3, 4), (2, 5, 4))
        L.manual_seed(11)
        got.append(_flat(L.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.4)))
    _close(got[0], got[1], 2 * BOUND)


def _sdpa_errors(L) -> list:
    F = L.nn.functional
    q, k, v = _qkv(L)
    calls = [lambda: F.scaled_dot_product_attention(q, k, v.double()),
             lambda: F.scaled_dot_product_attention(q[0, 0], k[0], v[0]),
             lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=L.ones(3, 5, dtype=L.int64)),
             lambda: F.scaled_dot_product_attention(q, k[..., :3], v),
             lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=L.zeros(3, 5), is_causal=True),
             lambda: F.scaled_dot_product_attention(q.unsqueeze(0), k[:1].unsqueeze(0), v[:1].unsqueeze(0),
                                                    enable_gqa=True)]
    rows = []
    for call in calls:
        try:
            rows.append(("ok", list(call().shape)))
        except RuntimeError as e:
            rows.append(str(e))
    return rows


def test_sdpa_refuses_both_masks_where_pytorch_takes_its_fused_kernel():
    """4-D inputs without dropout: PyTorch's fused CPU kernel applies attn_mask and is_causal together,
    its math path (3-D, or dropout) refuses them; scalargrad refuses the first by name."""
    F = scalargrad.nn.functional
    q, k, v = _qkv(scalargrad, (1, 2, 3, 4), (1, 2, 5, 4))
    with pytest.raises(Unsupported, match="attn_mask and is_causal on 4-D"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=scalargrad.zeros(3, 5), is_causal=True)


@pytest.mark.live_torch
def test_sdpa_errors_are_pytorchs(torch_ref):
    assert _sdpa_errors(scalargrad) == _sdpa_errors(torch_ref)


MHA_CONFIGS = [{}, {"kdim": 5, "vdim": 3}, {"bias": False}, {"add_bias_kv": True},
               {"add_bias_kv": True, "add_zero_attn": True, "batch_first": True}, {"dropout": 0.3}]


def _mha(L, kw: dict, seed: int = 0):
    L.manual_seed(seed)
    return L.nn.MultiheadAttention(6, 2, **kw)


@pytest.mark.live_torch
@pytest.mark.parametrize("kw", MHA_CONFIGS, ids=lambda kw: "-".join(kw) or "default")
def test_multihead_attention_parameters_and_repr_are_pytorchs(torch_ref, kw):
    ours, theirs = _mha(scalargrad, kw), _mha(torch_ref, kw)
    assert repr(ours) == repr(theirs)
    assert [(n, _flat(p)) for n, p in ours.state_dict().items()] == \
        [(n, _flat(p)) for n, p in theirs.state_dict().items()]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]


def _mha_run(L, kw: dict, x: list, mem: list, fw: dict, dtype=None):
    m = _mha(L, kw)
    if dtype is not None:
        m = m.to(dtype)
    X = L.tensor(x, dtype=dtype, requires_grad=True)
    M = L.tensor(mem, dtype=dtype)
    fw = dict(fw)
    for name in ("key_padding_mask", "attn_mask"):
        if name in fw:
            fw[name] = L.tensor(fw[name])
    kv = (X, M[..., :kw.get("kdim", 6)], M[..., :kw.get("vdim", 6)]) if "kdim" in kw else (X, X, X)
    if kw.get("batch_first"):
        X2 = X.transpose(0, 1)
        kv = (X2, X2, X2)
        L.manual_seed(5)
        out, weights = m(*kv, **fw)
    else:
        L.manual_seed(5)
        out, weights = m(*kv, **fw)
    total = out.sum() if weights is None else out.sum() + (weights * weights).sum()
    total.backward()
    grads = [_flat(p.grad) for p in m.parameters()] + [_flat(X.grad)]
    return out, weights, grads


FORWARDS = [{}, {"need_weights": False}, {"average_attn_weights": False},
            {"key_padding_mask": [[False, False, True, False], [False, True, False, False]]},
            {"attn_mask": [[j > i + 1 for j in range(4)] for i in range(4)]},
            {"attn_mask": [[j > i + 1 for j in range(4)] for i in range(4)], "need_weights": False}]


@pytest.mark.live_torch
@pytest.mark.parametrize("kw", MHA_CONFIGS, ids=lambda kw: "-".join(kw) or "default")
@pytest.mark.parametrize("fw", FORWARDS, ids=lambda fw: "-".join(fw) or "default")
def test_multihead_attention_forward_and_backward_are_pytorchs(torch_ref, kw, fw):
    torch_ref.manual_seed(1)
    x, mem = torch_ref.randn(4, 2, 6).tolist(), torch_ref.randn(4, 2, 6).tolist()
    o1, w1, g1 = _mha_run(scalargrad, kw, x, mem, fw)
    o2, w2, g2 = _mha_run(torch_ref, kw, x, mem, fw)
    assert (type(o1.grad_fn).__name__, list(o1.shape)) == (type(o2.grad_fn).__name__, list(o2.shape))
    assert (w1 is None) == (w2 is None)
    _, w64, g64 = _mha_run(torch_ref, kw, x, mem, fw, torch_ref.float64)
    o64 = _mha_run(torch_ref, kw, x, mem, fw, torch_ref.float64)[0]
    if kw.get("dropout") and w1 is not None:  # the same elements dropped: exactly where PyTorch's float32 weights are 0
        assert [a == 0.0 for a in _flat(w1)] == [a == 0.0 for a in _flat(w2)]
    for out in (o1, o2):
        _close(_flat(out), _flat(o64))
    if w1 is not None:
        assert (type(w1.grad_fn).__name__, list(w1.shape)) == (type(w2.grad_fn).__name__, list(w2.shape))
        for w in (w1, w2):
            _close(_flat(w), _flat(w64))
    for grads in (g1, g2):
        for g, ref in zip(grads, g64):
            _close(g, ref, 2 * BOUND)


def _mha_errors(L) -> list:
    rows = []
    m = _mha(L, {})
    x = L.zeros(4, 2, 6)
    calls = [lambda: L.nn.MultiheadAttention(0, 2), lambda: L.nn.MultiheadAttention(6, 4),
             lambda: m(x, x, x, key_padding_mask=L.zeros(2, 4, 1, dtype=L.bool)),
             lambda: m(x, x, x, attn_mask=L.zeros(3, 4)), lambda: m(x, x, x, attn_mask=L.zeros(4, 4, dtype=L.int64)),
             lambda: m(x, x, x, is_causal=True), lambda: m(x, x[:, :1], x[:, :1]),
             lambda: m(x[:, :, :4], x[:, :, :4], x[:, :, :4]), lambda: m(x[0, 0], x[0, 0], x[0, 0]),
             lambda: m(x, x, x, key_padding_mask=L.zeros(2, 3, dtype=L.bool))]
    for call in calls:
        try:
            call()
            rows.append("ok")
        except (RuntimeError, AssertionError, ValueError) as e:
            rows.append((type(e).__name__, str(e)))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        m(x, x, x, key_padding_mask=L.zeros(2, 4, dtype=L.bool), attn_mask=L.zeros(4, 4))
    rows.append([str(w.message) for w in seen])
    return rows


@pytest.mark.live_torch
def test_multihead_attention_errors_and_warnings_are_pytorchs(torch_ref):
    assert _mha_errors(scalargrad) == _mha_errors(torch_ref)


def _unbatched(L):
    m = _mha(L, {})
    L.manual_seed(2)
    x = L.randn(4, 6)
    out, w = m(x, x, x, key_padding_mask=L.tensor([False, False, True, False]))
    return list(out.shape), list(w.shape), type(out.grad_fn).__name__, [a == 0.0 for a in _flat(w)]


@pytest.mark.live_torch
def test_multihead_attention_unbatched_is_pytorchs(torch_ref):
    assert _unbatched(scalargrad) == _unbatched(torch_ref)


def _dropped_transposed(L) -> list:
    rows = []
    for make in (lambda: L.ones(3, 4).t(), lambda: L.ones(2, 3, 4).permute(2, 0, 1), lambda: L.ones(4, 6)[:, ::2]):
        L.manual_seed(0)
        rows.append(L.nn.functional.dropout(make(), 0.5).tolist())
    return rows


@pytest.mark.live_torch
def test_dropout_of_a_transposed_tensor_drops_pytorchs_elements(torch_ref):
    """PyTorch draws the noise in the input's memory order (batch_first Transformer layers drop out
    transposed outputs of attention); a strided slice is drawn in logical order."""
    assert _dropped_transposed(scalargrad) == _dropped_transposed(torch_ref)



def _masked_row_grads(L, shape: tuple) -> list:
    """Output and gradients of attention whose mask removes query row 1 whole."""
    q = L.tensor([[-1.25, 2.5], [3.0, -3.0], [1.25, 2.5]]).reshape(shape).requires_grad_()
    k = L.tensor([[-0.5, -2.5], [2.75, -1.25]]).reshape(shape[:-2] + (2, 2)).requires_grad_()
    v = L.tensor([[1.5], [2.75]]).reshape(shape[:-2] + (2, 1)).requires_grad_()
    mask = L.tensor([[True, True], [False, False], [True, True]])
    o = L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    (o * L.arange(1, o.numel() + 1).reshape(o.shape).to(o.dtype)).sum().backward()
    return [_flat(o)] + [_flat(t.grad) for t in (q, k, v)]


@pytest.mark.live_torch
@pytest.mark.parametrize("shape", [(1, 3, 2), (1, 1, 3, 2)], ids=["math path", "fused path"])
def test_a_row_masked_whole_has_zero_gradient(torch_ref, shape):
    # issue 22 (fuzz newer:2213:148): _safe_softmax's row of zeros had nan gradients (the softmax
    # of -infs, masked after); PyTorch's SafeSoftmaxBackward0 and its fused kernel give 0 there
    got, want = _masked_row_grads(scalargrad, shape), _masked_row_grads(torch_ref, shape)
    assert got[0][1] == want[0][1] == 0.0 and got[1][2:4] == want[1][2:4] == [0.0] * 2  # row 1's output, q's grad
    for a, b in zip(got, want):
        assert not any(math.isnan(x) for x in a)
        _close(a, b, 2 * BOUND)


@pytest.mark.live_torch
def test_the_math_paths_softmax_is_one_safe_softmax_node(torch_ref):
    # fuzz newer:8819 (next-functions): ATen's math path records one SafeSoftmaxBackward0
    # (at::_safe_softmax), not SoftmaxBackward0 and MaskedFillBackward0 around it
    def run(L):
        q = L.tensor([[0.5, -1.0], [1.5, 0.25], [0.0, 2.0]], requires_grad=True)
        k = L.tensor([[1.0, 0.5], [-0.5, 1.0]], requires_grad=True)
        v = L.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        out = []
        for mask in (None, L.tensor([[True, False], [False, False], [True, True]])):
            o = L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            fn = o.grad_fn
            out.append([fn.name()] + [(f.name() if f else None, i) for f, i in fn.next_functions])
            out.append([f.name() if f else None for f, _ in fn.next_functions[0][0].next_functions])
            g = L.autograd.grad((o * L.tensor([[1.0, -3.0], [-2.0, 0.5], [1.0, 1.0]])).sum(), [q, k, v])
            out.append([_flat(t) for t in g])
        return out

    got, want = run(scalargrad), run(torch_ref)
    for a, b in zip(got[0::3] + got[1::3], want[0::3] + want[1::3]):
        assert a == b
    for a, b in zip(got[2::3], want[2::3]):
        for x, y in zip(a, b):
            _close(x, y, 2 * BOUND)


_FUSED_CASES = [  # (query, key, value shapes, keywords); PyTorch's fused CPU kernel takes some
    ((1, 2, 3, 4),) * 3 + ({},), ((2, 3, 4),) * 3 + ({},), ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), {"mask": (3, 5)}),
    ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), {"mask": (5,)}),
    ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), {"mask": (1, 1, 3, 5)}),
    ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), {"mask": (1, 3, 5)}),
    ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), {"mask": (3, 5), "mask_rg": True}),
    ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 6), {}), ((1, 4, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), {"enable_gqa": True}),
    ((1, 2, 3, 4),) * 3 + ({"is_causal": True},), ((1, 2, 3, 4), (1, 1, 3, 4), (1, 2, 3, 4), {}),
    ((1, 2, 3, 4),) * 3 + ({"transposed": True},)]


def _ramp(L, shape, rg=True):
    return (L.arange(math.prod(shape), dtype=L.float64).reshape(shape) / 8 - 1).requires_grad_(rg)


def _fused_outcomes(L, fwad) -> list:
    F = L.nn.functional
    rows = []
    for qs, ks, vs, kw in _FUSED_CASES:
        kw = dict(kw)
        q, k, v = _ramp(L, qs), _ramp(L, ks), _ramp(L, vs)
        if kw.pop("transposed", False):
            q = _ramp(L, qs[:2] + qs[:1:-1]).transpose(-1, -2)
        if "mask" in kw:
            kw["attn_mask"] = _ramp(L, kw.pop("mask"), kw.pop("mask_rg", False)) * 0.5
        try:
            o = F.scaled_dot_product_attention(q, k, v, **kw)
            gs = L.autograd.grad((o * o).sum(), [q, k, v], create_graph=True)
            row = [[g.grad_fn.name() == "torch::autograd::NotImplemented" for g in gs]]
            try:
                sum((g * g).sum() for g in gs).backward()
                row.append("ran")
            except RuntimeError as e:
                row.append(str(e))
        except (RuntimeError, IndexError) as e:
            row = [type(e).__name__, str(e)]
        rows.append(row)
    for shape in ((1, 2, 3, 4), (2, 3, 4)):
        try:
            with fwad.dual_level():
                d = fwad.make_dual(_ramp(L, shape, False), _ramp(L, shape, False))
                rows.append(fwad.unpack_dual(F.scaled_dot_product_attention(d, d, d)).tangent is not None)
        except NotImplementedError as e:
            rows.append(str(e))
    return rows


@pytest.mark.live_torch
def test_sdpa_refuses_what_pytorchs_fused_kernel_refuses(torch_ref):
    """Where PyTorch's CPU build takes its fused kernel (4-D, no dropout, the mask shapes it
    accepts...), the create_graph gradients are NotImplemented nodes and a backward through
    them raises PyTorch's error (scalargrad's math path computed one); forward-mode AD raises
    its NotImplementedError; a 1-D mask raises the kernel check's IndexError. Elsewhere the
    math path's double backward runs, in both."""
    import torch.autograd.forward_ad as torch_fwad

    import scalargrad.autograd.forward_ad as sg_fwad

    assert _fused_outcomes(scalargrad, sg_fwad) == _fused_outcomes(torch_ref, torch_fwad)
