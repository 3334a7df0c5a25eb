"""The Transformer modules against live PyTorch: parameters drawn under ``manual_seed``, reprs,
warnings, errors and node names bit for bit; values and gradients (through matrix products,
softmax and layer norm, which differ between processors) against PyTorch's float64 run of the same
module within ``BOUND`` (5 * BOUND for gradients), both for scalargrad's and for PyTorch's float32
(measured by ``python tests/attention_bounds.py``: values within 9.5e-7, gradients within 4.6e-6,
relative to max(1, |reference|); see test_attention.py).
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad

pytestmark = pytest.mark.live_torch

BOUND = 2e-5


def _flat(t) -> list:
    return t.reshape(-1).tolist()


def _close(got: list, ref: list, bound: float = BOUND) -> None:
    assert len(got) == len(ref)
    for i, (a, b) in enumerate(zip(got, ref)):
        assert abs(a - b) <= bound * max(1.0, abs(b)), f"element {i}: {a} vs the reference {b}"


def _built(L, what: str, kw: dict):
    """One module, drawn under seed 0, and the warnings its construction gave."""
    nn = L.nn
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        L.manual_seed(0)
        if what == "transformer":
            m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                               **kw)
        elif what == "encoder":
            kw = dict(kw)
            act = kw.pop("activation", "relu")
            layer = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU() if act == "GELU()" else act, **kw)
            m = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
        else:
            m = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, **kw), 2)
    return m, [str(w.message) for w in seen]


CONFIGS = [("transformer", {}), ("transformer", {"norm_first": True, "activation": "gelu", "batch_first": True}),
           ("transformer", {"bias": False, "dropout": 0.0}), ("encoder", {}),
           ("encoder", {"batch_first": True}), ("encoder", {"batch_first": True, "activation": "GELU()"}),
           ("encoder", {"batch_first": True, "norm_first": True}), ("decoder", {"norm_first": True})]
IDS = [f"{w}-{'-'.join(kw) or 'default'}" for w, kw in CONFIGS]


@pytest.mark.parametrize(("what", "kw"), CONFIGS, ids=IDS)
def test_parameters_repr_and_warnings_are_pytorchs(torch_ref, what, kw):
    (ours, ours_warned), (theirs, theirs_warned) = _built(scalargrad, what, kw), _built(torch_ref, what, kw)
    assert repr(ours) == repr(theirs)
    assert ours_warned == theirs_warned
    assert [(n, _flat(p)) for n, p in ours.state_dict().items()] == \
        [(n, _flat(p)) for n, p in theirs.state_dict().items()]


def _run(L, what: str, kw: dict, data: dict, train: bool, dtype=None):
    m = _built(L, what, kw)[0]
    if dtype is not None:
        m = m.to(dtype)
    m.train(train)
    leaf = src = L.tensor(data["src"], dtype=dtype, requires_grad=True)
    tgt = L.tensor(data["tgt"], dtype=dtype)
    if kw.get("batch_first"):
        src, tgt = src.transpose(0, 1), tgt.transpose(0, 1)
    mask = L.nn.Transformer.generate_square_subsequent_mask(4, dtype=dtype)
    pad = L.tensor(data["pad"])
    L.manual_seed(9)
    if what == "transformer":
        out = m(src, tgt, tgt_mask=mask, src_key_padding_mask=pad)
    elif what == "encoder":
        out = m(src, src_key_padding_mask=pad)
    else:
        out = m(tgt, src, tgt_mask=mask, tgt_is_causal=True)
    (out * out).sum().backward()
    grads = [_flat(p.grad) for p in m.parameters() if p.grad is not None] + [_flat(leaf.grad)]
    return out, grads


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize(("what", "kw"), CONFIGS, ids=IDS)
def test_forward_and_backward_are_pytorchs(torch_ref, what, kw, train):
    torch_ref.manual_seed(3)
    data = {"src": torch_ref.randn(5, 2, 8).tolist(), "tgt": torch_ref.randn(4, 2, 8).tolist(),
            "pad": [[False] * 4 + [True], [False] * 5]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o1, g1 = _run(scalargrad, what, kw, data, train)
        o2, g2 = _run(torch_ref, what, kw, data, train)
        o64, g64 = _run(torch_ref, what, kw, data, train, torch_ref.float64)
    assert (type(o1.grad_fn).__name__, list(o1.shape)) == (type(o2.grad_fn).__name__, list(o2.shape))
    for out, grads in ((o1, g1), (o2, g2)):
        _close(_flat(out), _flat(o64))
        assert len(grads) == len(g64)
        for g, ref in zip(grads, g64):
            _close(g, ref, 5 * BOUND)


def _observed(L) -> list:
    nn = L.nn
    rows = [_flat(nn.Transformer.generate_square_subsequent_mask(4)),
            str(nn.Transformer.generate_square_subsequent_mask(3, dtype=L.float64))]
    L.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # enable_nested_tensor's, compared below
        t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)
    for call in (lambda: t(L.zeros(5, 2, 8), L.zeros(4, 3, 8)), lambda: t(L.zeros(5, 2, 8), L.zeros(4, 2, 6)),
                 lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
                 lambda: nn.TransformerDecoderLayer(8, 2, activation="sigmoid")):
        try:
            call()
            rows.append("ok")
        except RuntimeError as e:
            rows.append(str(e))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 1, 16, batch_first=True), 1)
        enc = nn.TransformerEncoder(layer, 1)
        enc(L.zeros(2, 3, 8), src_key_padding_mask=L.zeros(2, 3), mask=L.zeros(3, 3, dtype=L.bool))
    rows.append([str(w.message) for w in seen])
    rows.append((enc.use_nested_tensor, enc.enable_nested_tensor, enc.mask_check, layer.activation_relu_or_gelu))
    return rows


def test_masks_errors_and_warnings_are_pytorchs(torch_ref):
    assert _observed(scalargrad) == _observed(torch_ref)
