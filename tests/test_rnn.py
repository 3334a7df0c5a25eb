"""nn.RNN, nn.LSTM, nn.GRU, their cells and nn.utils.rnn (padding and packing).

What PyTorch computes the same on every machine is compared with live PyTorch bit for bit: the
parameters drawn after ``manual_seed``, their names, order and shapes, state dicts, reprs, errors,
the draws dropout takes between layers, grad_fn names, and padding/packing (copies). The values go
through matrix products, ``tanh`` and ``sigmoid`` (MKL, oneDNN's LSTM: machine-dependent in PyTorch),
so scalargrad's and live PyTorch's outputs are each compared with a machine-independent reference:
the layers' equations from PyTorch's documentation evaluated in mpmath at 40 digits on the same
float32 numbers (``_reference``, written from the docs, not from scalargrad's code), within a bound
measured on the capture machine; gradients against that reference's derivatives (central differences
at 40 digits).
"""

from __future__ import annotations

import warnings

import mpmath
import pytest

import scalargrad


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """This module's references at 40 digits, set around each test: a module-level setting changed
    mpmath's precision for every test collected after this module."""
    with mpmath.workdps(40):
        yield


# |output - reference| measured on the capture machine (Intel Xeon, AVX512) over CONFIGS with 12 seeds
# (``python tests/test_rnn.py``): scalargrad float32 at most 1.6e-7, PyTorch float32 (MKL, oneDNN's LSTM)
# 1.4e-7, 1.7e-7 under ATEN_CPU_CAPABILITY=default, 1.7e-7 under MKL_CBWR=COMPATIBLE, on values of size
# < 1; the bound is six times the largest.
F32_BOUND = 1e-6
F64_BOUND = 1e-14


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    return scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")


# ---------------------------------------------------------------- the reference, from PyTorch's docs
def _sig(x):
    return 1 / (1 + mpmath.exp(-x))


def _affine(w, b, x):
    return [mpmath.fsum(mpmath.mpf(wij) * xj for wij, xj in zip(row, x)) + (mpmath.mpf(b[i]) if b else 0)
            for i, row in enumerate(w)]


def _cell(mode, p, x, h, c=None):
    """One step of the documented equations: p holds w_ih, w_hh, b_ih, b_hh (lists) and w_hr."""
    gi, gh = _affine(p["w_ih"], p.get("b_ih"), x), _affine(p["w_hh"], p.get("b_hh"), h)
    n = len(p["w_hh"][0]) if mode != "LSTM" or not p.get("w_hr") else len(p["w_hr"][0])
    if mode in ("RNN_TANH", "RNN_RELU"):
        s = [a + b for a, b in zip(gi, gh)]
        return [mpmath.tanh(v) if mode == "RNN_TANH" else max(v, 0) for v in s], None
    if mode == "GRU":
        r = [_sig(gi[k] + gh[k]) for k in range(n)]
        z = [_sig(gi[n + k] + gh[n + k]) for k in range(n)]
        m = [mpmath.tanh(gi[2 * n + k] + r[k] * gh[2 * n + k]) for k in range(n)]
        return [(1 - z[k]) * m[k] + z[k] * h[k] for k in range(n)], None
    s = [a + b for a, b in zip(gi, gh)]
    i, f = [_sig(v) for v in s[:n]], [_sig(v) for v in s[n:2 * n]]
    g, o = [mpmath.tanh(v) for v in s[2 * n:3 * n]], [_sig(v) for v in s[3 * n:]]
    c2 = [f[k] * c[k] + i[k] * g[k] for k in range(n)]
    h2 = [o[k] * mpmath.tanh(c2[k]) for k in range(n)]
    if p.get("w_hr"):
        h2 = _affine(p["w_hr"], None, h2)
    return h2, c2


def _reference(mode, params, xs, h0, c0, num_layers, bidirectional):
    """One sequence (a list of steps, each a list of features): (outputs per step, [h_n], [c_n])."""
    dirs = 2 if bidirectional else 1
    hn, cn = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            h, c, seq = h0[k], (c0[k] if c0 else None), []
            for x in (xs[::-1] if d else xs):
                h, c = _cell(mode, params[k], x, h, c)
                seq.append(h)
            outs.append(seq[::-1] if d else seq)
            hn.append(h)
            cn.append(c)
        xs = [sum((o[t] for o in outs), []) for t in range(len(xs))]
    return xs, hn, cn


def _params_of(m):
    """The module's parameters as the reference's lists, per layer and direction."""
    out = []
    for names in m._all_weights:
        p = {}
        for n in names:
            key = n.split("_l")[0].replace("weight", "w").replace("bias", "b")
            p[key] = getattr(m, n).tolist()
        out.append(p)
    return out


def _close(got, ref, bound):
    worst = max((abs(mpmath.mpf(g) - r) for g, r in zip(got, ref)), default=0)
    assert worst <= bound, f"{float(worst)} > {bound}"


def _flat(t):
    return t.reshape(-1).tolist()


CONFIGS = [
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", num_layers=2)),
    ("RNN", dict(bidirectional=True, batch_first=True)),
    ("LSTM", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(proj_size=2, bias=False)),
    ("LSTM", dict(batch_first=True)),  # transposed back out of place (TransposeBackward0), unlike RNN/GRU
    ("GRU", dict()),
    ("GRU", dict(num_layers=2, bidirectional=True, batch_first=True, bias=False)),
]
MODES = {"RNN": "RNN_TANH", "LSTM": "LSTM", "GRU": "GRU"}


def _build(L, kind, kw, dtype="float32", seed=3):
    L.manual_seed(seed)
    m = getattr(L.nn, kind)(3, 4, **kw, dtype=getattr(L, dtype))
    x = L.randn(5, 2, 3, dtype=getattr(L, dtype))
    if kw.get("batch_first"):
        x = x.transpose(0, 1).contiguous()
    return m, x


def _check_against_reference(L, kind, kw, dtype, bound):
    m, x = _build(L, kind, kw, dtype)
    out = m(x)
    y, hidden = out
    h, c = hidden if kind == "LSTM" else (hidden, None)
    mode = "RNN_RELU" if kw.get("nonlinearity") == "relu" else MODES[kind]
    dirs, layers = (2 if kw.get("bidirectional") else 1), kw.get("num_layers", 1)
    hsize = kw.get("proj_size") or 4
    xb = x.transpose(0, 1) if kw.get("batch_first") else x
    yb = y.transpose(0, 1) if kw.get("batch_first") else y
    for b in range(2):
        steps = [xb[t, b].tolist() for t in range(5)]
        zeros = [[0.0] * hsize for _ in range(layers * dirs)]
        czeros = [[0.0] * 4 for _ in range(layers * dirs)] if kind == "LSTM" else None
        ref, hn, cn = _reference(mode, _params_of(m), steps, zeros, czeros, layers, dirs == 2)
        _close(_flat(yb[:, b]), [v for step in ref for v in step], bound)
        _close(_flat(h[:, b]), [v for hv in hn for v in hv], bound)
        if c is not None:
            _close(_flat(c[:, b]), [v for cv in cn for v in cv], bound)


@pytest.mark.parametrize("kind,kw", CONFIGS)
def test_layers_compute_the_documented_equations(kind, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LSTM with projections: "not supported with oneDNN", as PyTorch warns
        _check_against_reference(scalargrad, kind, kw, "float32", F32_BOUND)
    _check_against_reference(scalargrad, kind, kw, "float64", F64_BOUND)


@pytest.mark.live_torch
@pytest.mark.parametrize("kind,kw", CONFIGS)
def test_pytorchs_layers_lie_within_the_bound_of_the_same_reference(torch_ref, kind, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LSTM with projections: "not supported with oneDNN"
        _check_against_reference(torch_ref, kind, kw, "float32", F32_BOUND)


@pytest.mark.live_torch
@pytest.mark.parametrize("kind,kw", CONFIGS + [("RNN", dict(num_layers=3, dropout=0.25)),
                                                ("LSTM", dict(bias=False, num_layers=2, dropout=0.5))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_parameters_names_repr_and_state_dict_are_pytorchs(torch_ref, kind, kw, dtype):
    a, _ = _build(scalargrad, kind, kw, dtype)
    b, _ = _build(torch_ref, kind, kw, dtype)
    assert repr(a) == repr(b)
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert list(sa[k].shape) == list(sb[k].shape) and _flat(sa[k]) == _flat(sb[k]), k
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in b.named_parameters()]
    assert a._flat_weights_names == b._flat_weights_names
    assert [[tuple(w.shape) for w in ws] for ws in a.all_weights] == [[tuple(w.shape) for w in ws]
                                                                      for ws in b.all_weights]


@pytest.mark.live_torch
@pytest.mark.parametrize("kind,kw", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu", bias=False)),
                                     ("LSTMCell", {}), ("GRUCell", dict(bias=False))])
def test_cells_are_pytorchs(torch_ref, kind, kw):
    got = []
    for L in (scalargrad, torch_ref):
        L.manual_seed(5)
        m = getattr(L.nn, kind)(3, 4, **kw)
        x = L.randn(2, 3)
        out = m(x)
        one = m(x[0])
        outs = out if isinstance(out, tuple) else (out,)
        ones = one if isinstance(one, tuple) else (one,)
        got.append((repr(m), list(m.state_dict()), [_flat(v) for v in m.state_dict().values()],
                    [type(o.grad_fn).__name__ for o in outs + ones], [tuple(o.shape) for o in outs + ones]))
        got[-1] += (outs, ones, m)
    assert got[0][:5] == got[1][:5]
    # the step's values against the documented equations
    m, (outs, ones) = got[0][-1], got[0][-3:-1]
    mode = {"RNNCell": "RNN_RELU" if kw.get("nonlinearity") == "relu" else "RNN_TANH", "LSTMCell": "LSTM",
            "GRUCell": "GRU"}[kind]
    p = {"w_ih": m.weight_ih.tolist(), "w_hh": m.weight_hh.tolist()}
    if m.bias:
        p.update(b_ih=m.bias_ih.tolist(), b_hh=m.bias_hh.tolist())
    scalargrad.manual_seed(5)
    getattr(scalargrad.nn, kind)(3, 4, **kw)
    x = scalargrad.randn(2, 3)
    for b in range(2):
        h, c = _cell(mode, p, x[b].tolist(), [0.0] * 4, [0.0] * 4)
        _close(_flat(outs[0][b]), h, F32_BOUND)
        if c is not None:
            _close(_flat(outs[1][b]), c, F32_BOUND)
    _close(_flat(ones[0]), _flat(outs[0][0]), 0)


@pytest.mark.live_torch
@pytest.mark.parametrize("kind,kw", CONFIGS)
def test_grad_fn_names_are_pytorchs(torch_ref, kind, kw):
    names = []
    for L in (scalargrad, torch_ref):
        m, x = _build(L, kind, kw, "float64")  # float32 LSTM runs oneDNN in PyTorch: see below
        y, hidden = m(x)
        hs = hidden if isinstance(hidden, tuple) else (hidden,)
        y1, h1 = m(x[:, 0] if not kw.get("batch_first") else x[0])
        h1 = h1 if isinstance(h1, tuple) else (h1,)
        names.append([type(t.grad_fn).__name__ for t in (y, *hs, y1, *h1)])
    assert names[0] == names[1]


@pytest.mark.live_torch
def test_float32_lstm_output_node_is_named_as_pytorchs_native_path(torch_ref):
    """PyTorch's float32 LSTM on a CPU with oneDNN records ``MkldnnRnnLayerBackward0`` for the output
    (one node per layer); scalargrad composes ATen's native path, whose output is ``StackBackward0``
    (as PyTorch's float64 LSTM, or float32 with projections). The hidden states agree."""
    m, x = _build(scalargrad, "LSTM", {})
    t, tx = _build(torch_ref, "LSTM", {})
    y, (h, c) = m(x)
    ty, (th, tc) = t(tx)
    assert type(y.grad_fn).__name__ == "StackBackward0"
    assert type(ty.grad_fn).__name__ in ("MkldnnRnnLayerBackward0", "StackBackward0")
    assert [type(v.grad_fn).__name__ for v in (h, c)] == [type(v.grad_fn).__name__ for v in (th, tc)]


@pytest.mark.live_torch
def test_dropout_between_layers_draws_as_pytorch(torch_ref):
    """Dropout after every layer but the last, in training only: the generator advances as PyTorch's
    (the next draw agrees bit for bit), and evaluation draws nothing."""
    nxt = []
    for L in (scalargrad, torch_ref):
        m, x = _build(L, "GRU", dict(num_layers=3, dropout=0.4))
        m(x)
        a = L.rand(3).tolist()
        m.eval()
        m(x)
        nxt.append((a, L.rand(3).tolist()))
    assert nxt[0] == nxt[1]


def test_dropout_zeroes_between_layers_only_in_training():
    m, x = _build(scalargrad, "RNN", dict(num_layers=2, dropout=0.999999))
    m.train()
    scalargrad.manual_seed(0)
    y, h = m(x)
    # everything the second layer saw was dropped: its output is tanh(b_ih + W_hh h + b_hh) from zero input
    ref, _, _ = _reference("RNN_TANH", [_params_of(m)[1]], [[0.0] * 4] * 5, [[0.0] * 4], None, 1, False)
    _close(_flat(y[:, 0]), [v for s in ref for v in s], F32_BOUND)
    m.eval()
    _check_against_reference(scalargrad, "RNN", dict(num_layers=2), "float32", F32_BOUND)


@pytest.mark.parametrize("kind,kw", [("GRU", dict(num_layers=2, bidirectional=True)),
                                     ("LSTM", dict(num_layers=2, proj_size=1)),
                                     ("RNN", dict(bidirectional=True, nonlinearity="relu"))])
def test_gradients_equal_the_references_derivatives(kind, kw):
    """d(weighted outputs + final states)/d(each input and every fifth parameter element), float64,
    against central differences of the 40-digit reference."""
    scalargrad.manual_seed(1)
    m = getattr(scalargrad.nn, kind)(2, 2, **kw, dtype=scalargrad.float64)
    x = scalargrad.randn(3, 1, 2, dtype=scalargrad.float64, requires_grad=True)
    dirs, layers, hout = 2 if m.bidirectional else 1, m.num_layers, m.proj_size or 2
    mode = "RNN_RELU" if m.mode == "RNN_RELU" else m.mode
    wts = [0.3, -0.7, 1.1, 0.2, -0.5, 0.9, 0.4, -1.3, 0.6, 0.8, -0.2, 0.5][:3 * dirs * hout]
    y, h = m(x)
    states = h if isinstance(h, tuple) else (h,)
    loss = (y.reshape(-1) * scalargrad.tensor(wts, dtype=scalargrad.float64)).sum() + sum(s.sum() for s in states)
    grads = scalargrad.autograd.grad(loss, [x, *m.parameters()])
    params = _params_of(m)
    steps = [x[t, 0].tolist() for t in range(3)]

    def value(ps, xs):
        out, hn, cn = _reference(mode, ps, xs, [[0.0] * hout] * (layers * dirs),
                                 [[0.0] * 2] * (layers * dirs) if kind == "LSTM" else None, layers, dirs == 2)
        finals = [v for hv in hn for v in hv] + ([v for cv in cn for v in cv] if kind == "LSTM" else [])
        return mpmath.fsum(w * v for w, v in zip(wts, [v for s in out for v in s])) + mpmath.fsum(finals)

    eps = mpmath.mpf(10) ** -15

    def deriv(set_to):
        return (set_to(eps) - set_to(-eps)) / (2 * eps)

    gx = _flat(grads[0])
    for t in range(3):
        for j in range(2):
            def at(d, t=t, j=j):
                xs = [list(map(mpmath.mpf, s)) for s in steps]
                xs[t][j] += d
                return value(params, xs)
            assert abs(deriv(at) - gx[t * 2 + j]) <= 1e-13
    names = [n for n, _ in m.named_parameters()]
    for name, g in zip(names, grads[1:]):
        k = next(i for i, ws in enumerate(m._all_weights) if name in ws)
        key = name.split("_l")[0].replace("weight", "w").replace("bias", "b")
        flat = _flat(g)
        for e in range(0, len(flat), 5):  # every fifth element
            def at(d, k=k, key=key, e=e):
                ps = [{kk: [list(map(mpmath.mpf, r)) if isinstance(r, list) else mpmath.mpf(r) for r in v]
                       for kk, v in p.items()} for p in params]
                arr = ps[k][key]
                if isinstance(arr[0], list):
                    arr[e // len(arr[0])][e % len(arr[0])] += d
                else:
                    arr[e] += d
                return value(ps, steps)
            assert abs(deriv(at) - flat[e]) <= 1e-13, (name, e)


def test_sympy_proves_a_cells_gradients():
    scalargrad.manual_seed(2)
    for kind in ("RNNCell", "GRUCell", "LSTMCell"):
        m = getattr(scalargrad.nn, kind)(2, 2, dtype=scalargrad.float64)
        x = scalargrad.randn(1, 2, dtype=scalargrad.float64, requires_grad=True)
        out = m(x)
        y = out[0] if isinstance(out, tuple) else out
        y = (y * scalargrad.tensor([[0.5, -1.5]], dtype=scalargrad.float64)).sum()
        report = scalargrad.symbolic.sympy_check(y, [x, m.weight_ih, m.bias_hh])
        assert report.ok, report


# ---------------------------------------------------------------- packed sequences
@pytest.mark.live_torch
def test_padding_and_packing_are_pytorchs(torch_ref):
    got = []
    for L in (scalargrad, torch_ref):
        R = L.nn.utils.rnn
        a = L.tensor([[1.0, 2], [3, 4], [5, 6]], requires_grad=True)
        b, c = L.tensor([[7.0, 8]]), L.tensor([[9.0, 10], [11, 12]])
        rows = [repr(R.pad_sequence([a, b, c])), repr(R.pad_sequence([b, a, c], batch_first=True, padding_value=-1,
                                                                      padding_side="left"))]
        pk = R.pack_sequence([a, c, b])
        pk2 = R.pack_padded_sequence(R.pad_sequence([b, a, c], batch_first=True), L.tensor([1, 3, 2]),
                                     batch_first=True, enforce_sorted=False)
        rows += [repr(pk.batch_sizes), repr(pk2.sorted_indices), repr(pk2.unsorted_indices), _flat(pk2.data),
                 _flat(pk.data)]
        for bf in (False, True):
            out, lengths = R.pad_packed_sequence(pk2, batch_first=bf, padding_value=0.5, total_length=4)
            rows += [repr(out), repr(lengths)]
        rows += [[_flat(s) for s in R.unpack_sequence(pk2)], type(pk).__name__, pk._fields]
        rows.append(repr(R.pad_packed_sequence(pk)[0].grad_fn).split(" ")[0])
        for bad in ([3, 0, 1], [1, 3, 2]):
            try:
                R.pack_padded_sequence(R.pad_sequence([a, b, c]), bad)
            except RuntimeError as e:
                rows.append(str(e))
        got.append(rows)
    assert got[0] == got[1]


@pytest.mark.parametrize("kind,kw", [("RNN", {}), ("LSTM", dict(num_layers=2, bidirectional=True)),
                                     ("GRU", dict(bidirectional=True)), ("LSTM", dict(proj_size=2))])
def test_a_packed_batch_runs_each_sequence_to_its_own_end(kind, kw):
    """The output and final hidden state of every sequence are those of the sequence run alone
    (the reference), in the batch's original order."""
    scalargrad.manual_seed(4)
    m = getattr(scalargrad.nn, kind)(3, 4, **kw)
    lengths = [2, 4, 1]
    seqs = [scalargrad.randn(n, 3) for n in lengths]
    R = scalargrad.nn.utils.rnn
    pk = R.pack_sequence(seqs, enforce_sorted=False)
    y, hidden = m(pk)
    assert isinstance(y, R.PackedSequence)
    h, c = hidden if kind == "LSTM" else (hidden, None)
    padded, got_lengths = R.pad_packed_sequence(y, batch_first=True)
    assert got_lengths.tolist() == lengths
    dirs, layers, hsize = 2 if kw.get("bidirectional") else 1, kw.get("num_layers", 1), kw.get("proj_size") or 4
    for b, s in enumerate(seqs):
        steps = [s[t].tolist() for t in range(lengths[b])]
        ref, hn, cn = _reference(MODES[kind], _params_of(m), steps, [[0.0] * hsize] * (layers * dirs),
                                 [[0.0] * 4] * (layers * dirs), layers, dirs == 2)
        _close(_flat(padded[b, :lengths[b]]), [v for st in ref for v in st], F32_BOUND)
        assert _flat(padded[b, lengths[b]:]) == [0.0] * ((max(lengths) - lengths[b]) * hsize * dirs)
        _close(_flat(h[:, b]), [v for hv in hn for v in hv], F32_BOUND)
        if c is not None:
            _close(_flat(c[:, b]), [v for cv in cn for v in cv], F32_BOUND)


@pytest.mark.live_torch
def test_packed_outputs_grad_fn_and_shapes_are_pytorchs(torch_ref):
    got = []
    for L in (scalargrad, torch_ref):
        L.manual_seed(4)
        m = L.nn.GRU(3, 4, bidirectional=True, dtype=L.float64)
        seqs = [L.randn(n, 3, dtype=L.float64) for n in (2, 4, 1)]
        y, h = m(L.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False))
        got.append([type(y.data.grad_fn).__name__, type(h.grad_fn).__name__, list(y.data.shape), list(h.shape),
                    y.batch_sizes.tolist(), y.sorted_indices.tolist()])
    assert got[0] == got[1]


# ---------------------------------------------------------------- errors
ERRORS = [
    ("RNN", (3, 4), dict(nonlinearity="sigmoid"), None),
    ("GRU", (3, 4), dict(proj_size=1), None),
    ("LSTM", (3, 4), dict(proj_size=4), None),
    ("LSTM", (3, 0), {}, None),
    ("RNN", (3, 4), dict(dropout=1.5), None),
    ("RNN", (3, 4), dict(bias=1), None),
    ("RNN", (3, 4), {}, (5, 2, 2)),
    ("RNN", (3, 4), {}, (3,)),
    ("LSTM", (3, 4), {}, (5, 2, 3, 1)),
    ("GRU", (3, 4), {}, (2, 2, 2, 2)),
]


@pytest.mark.live_torch
@pytest.mark.parametrize("kind,args,kw,shape", ERRORS)
def test_errors_are_pytorchs(torch_ref, kind, args, kw, shape):
    got = []
    for L in (scalargrad, torch_ref):
        try:
            m = getattr(L.nn, kind)(*args, **kw)
            m(L.zeros(*shape))
        except Exception as e:  # the type and words are compared
            got.append((type(e).__name__, str(e)))
        else:
            got.append(None)
    assert got[0] == got[1] and got[0] is not None


def _hidden_state_errors(L) -> list:
    calls = (lambda: L.nn.RNN(3, 4)(L.zeros(5, 2, 3), L.zeros(1, 3, 4)),
             lambda: L.nn.RNN(3, 4)(L.zeros(5, 2, 3), L.zeros(3, 4)),
             lambda: L.nn.LSTM(3, 4)(L.zeros(5, 2, 3), (L.zeros(1, 2, 4), L.zeros(1, 2, 5))),
             lambda: L.nn.LSTM(3, 4)(L.zeros(5, 3), (L.zeros(1, 2, 4), L.zeros(1, 4))),
             lambda: L.nn.GRUCell(3, 4)(L.zeros(2, 3), L.zeros(3, 4)),
             lambda: L.nn.GRUCell(3, 4)(L.zeros(2, 2)),
             lambda: L.nn.LSTMCell(3, 4)(L.zeros(2, 2, 3)),
             lambda: L.nn.LSTMCell(3, 4)(L.zeros(2, 3), (L.zeros(2, 4), L.zeros(2, 5))),
             lambda: L.nn.RNN(3, 4)(L.zeros(5, 2, 3, dtype=L.float64)))
    rows = []
    for call in calls:
        try:
            call()
        except Exception as e:  # the type and words are compared
            rows.append((type(e).__name__, str(e)))
    return rows


@pytest.mark.live_torch
def test_hidden_state_errors_are_pytorchs(torch_ref):
    ours, theirs = _hidden_state_errors(scalargrad), _hidden_state_errors(torch_ref)
    assert ours == theirs and len(ours) == 9



_WARN_PROGRAM = """
import warnings
warnings.simplefilter("always")
import {lib} as L
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for dt in (L.float64, L.float32, L.float32):
        L.nn.LSTM(3, 4, proj_size=2, dtype=dt)(L.zeros(2, 1, 3, dtype=dt))
print([(w.category.__name__, str(w.message)) for w in caught])
"""


@pytest.mark.live_torch
def test_lstm_with_projections_warns_once_as_pytorch(torch_ref):
    """PyTorch's x86-64 builds warn once per process (oneDNN has no projections), for float32 only;
    each library runs in a fresh process."""
    import subprocess
    import sys

    out = [subprocess.run([sys.executable, "-c", _WARN_PROGRAM.format(lib=lib)], capture_output=True, text=True,
                          check=True).stdout for lib in ("scalargrad", "torch")]
    assert out[0] == out[1] and "oneDNN" in out[0]

def _measure(seeds: int = 12) -> None:  # pragma: no cover - a report, run by hand with PyTorch installed
    import torch

    worst = {}

    def note(got, ref, bound, who=[None]):  # noqa: B006 - set below
        w = max((abs(mpmath.mpf(g) - r) for g, r in zip(got, ref)), default=0)
        worst[who[0]] = max(worst.get(who[0], 0.0), float(w))

    global _close
    _close = note
    warnings.simplefilter("ignore")
    for L in (scalargrad, torch):
        note.__defaults__[0][0] = L.__name__
        for kind, kw in CONFIGS:
            for seed in range(seeds):
                _build.__defaults__ = ("float32", seed)
                _check_against_reference(L, kind, kw, "float32", 1.0)
    print({k: f"{v:.2e}" for k, v in worst.items()})


if __name__ == "__main__":
    with mpmath.workdps(40):
        _measure()


def test_packed_sequence_casts_and_the_empty_tensor_error(torch_ref):
    """PyTorch's test_packed_sequence.py (test_type_casts, test_to, test_pack_padded_sequence): every
    cast PackedSequence has converts the data and keeps the int64 batch sizes; packing an empty
    tensor raises ATen's error before the lengths are looked at."""
    def cast_dtypes(lib):
        p = lib.nn.utils.rnn.pack_sequence([lib.tensor([1.0, 2.0]), lib.tensor([3.0])])
        return [(str(getattr(p, c)().data.dtype), str(getattr(p, c)().batch_sizes.dtype))
                for c in ("double", "float", "half", "long", "int", "short", "char", "byte")]

    assert cast_dtypes(scalargrad) == cast_dtypes(torch_ref)
    for lib in (scalargrad, torch_ref):
        pack = lib.nn.utils.rnn.pack_padded_sequence
        for args in ((lib.randn(0, 0), []), (lib.randn(0, 1, 10), lib.randn(11, 14, 14, 2), True),
                     (lib.randn(0, 3, 2), [0, 0, 0])):
            with pytest.raises(RuntimeError, match=r"^Cannot pack empty tensors\.$"):
                pack(*args)
