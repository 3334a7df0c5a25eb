"""Selection ops (``_ops/selection.py``, ``_tensor/selection.py``): gather, index_select,
masked_select, take, sort/argsort, topk, kthvalue, tril/triu, diagonal/diag, repeat, roll.

Each output element is a copy of an input element (or a zero), and each gradient a sum of
gradient elements, so values and gradients are compared with PyTorch bit for bit, with the
node names, saved values, return types and refusals. Sort is stable as PyTorch's CPU sort
(ties, nan, signed zeros) with ``stable=True``, and otherwise leaves equal values where
libstdc++'s introsort does (``_base/introsort.py``); topk follows libstdc++'s partial_sort and
nth_element as PyTorch's CPU topk. kthvalue's pick among equal values is not modelled
(PyTorch's own quickselect): its data here are distinct.
"""

from __future__ import annotations

import math
import random
import struct

import pytest
from composite_cases import run as run_composite
from program_outcome import described

import scalargrad as sg
from scalargrad.errors import Unsupported
from scalargrad.symbolic import sympy_check

X = [[3.0, 1.0, 2.0, -1.5], [0.0, 5.0, 4.0, 2.5], [7.0, -2.0, 0.5, 6.0]]


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


# ---------------------------------------------------------------- by hand


def test_hand_values_and_gradients():
    x = sg.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
    y = x.gather(1, sg.tensor([[0, 0], [2, 1]]))
    assert y.tolist() == [[3.0, 3.0], [4.0, 5.0]]
    (g,) = sg.autograd.grad(y.sum(), x)
    assert g.tolist() == [[2.0, 0.0, 0.0], [0.0, 1.0, 1.0]]  # a picked-twice element gets both
    v, i = x.sort(1, descending=True)
    assert v.tolist() == [[3.0, 2.0, 1.0], [5.0, 4.0, 0.0]] and i.tolist() == [[0, 2, 1], [1, 2, 0]]
    assert x.topk(1).indices.tolist() == [[0], [1]] and x.kthvalue(2, 1).values.tolist() == [2.0, 4.0]
    assert x.tril().tolist() == [[3.0, 0.0, 0.0], [0.0, 5.0, 0.0]]
    assert x.repeat(1, 2).shape == (2, 6) and x.roll(1, 1).tolist() == [[2.0, 3.0, 1.0], [4.0, 0.0, 5.0]]
    assert sg.tensor([1.0, 2.0]).diag().tolist() == [[1.0, 0.0], [0.0, 2.0]]


def test_sort_is_stable_with_nan_last():
    x = sg.tensor([2.0, math.nan, 1.0, 2.0, math.nan, -0.0, 0.0])
    assert x.sort().indices.tolist() == [5, 6, 2, 0, 3, 1, 4]  # -0.0 and 0.0 tie: index order
    assert x.sort(descending=True).indices.tolist() == [1, 4, 0, 3, 2, 5, 6]
    assert x.argsort().tolist() == [5, 6, 2, 0, 3, 1, 4]


def test_return_types():
    r = sg.tensor([3.0, 1.0]).sort()
    assert type(r).__name__ == "sort" and repr(r).startswith("torch.return_types.sort(\nvalues=tensor([1., 3.])")
    assert type(sg.tensor([3.0, 1.0]).topk(1)).__name__ == "topk"


# ---------------------------------------------------------------- against PyTorch

IDX = [[0, 2, 1, 0], [1, 0, 2, 2]]
CALLS = {
    "gather1": lambda L, x: x.gather(1, L.tensor([[0, 3], [2, 2], [1, 0]])),
    "gather0": lambda L, x: L.gather(x, 0, L.tensor(IDX)),
    "index_select1": lambda L, x: x.index_select(1, L.tensor([3, 0, 3])),
    "index_select0": lambda L, x: L.index_select(x, 0, L.tensor([2, 0])),
    "masked_select": lambda L, x: x.masked_select(x > 1.0),
    "take": lambda L, x: x.take(L.tensor([[0, 11], [5, 5]])),
    "sort": lambda L, x: x.sort(), "sort0_desc": lambda L, x: x.sort(0, descending=True),
    "sort_fn": lambda L, x: L.sort(x, dim=1, stable=True),
    "topk": lambda L, x: x.topk(2), "topk_small0": lambda L, x: x.topk(2, dim=0, largest=False),
    "topk_fn": lambda L, x: L.topk(x, 3, 1),
    "kthvalue": lambda L, x: x.kthvalue(2), "kthvalue0_keep": lambda L, x: x.kthvalue(3, 0, True),
    "tril": lambda L, x: x.tril(), "tril1": lambda L, x: L.tril(x, 1), "triu-1": lambda L, x: x.triu(-1),
    "diagonal": lambda L, x: x.diagonal(), "diagonal1": lambda L, x: x.diagonal(1),
    "diagonal_neg": lambda L, x: L.diagonal(x, -1), "diag": lambda L, x: x.diag(),
    "diag_vec": lambda L, x: x[0].diag(), "diag_vec1": lambda L, x: L.diag(x[1], 1),
    "repeat": lambda L, x: x.repeat(2, 1), "repeat3": lambda L, x: x.repeat(2, 1, 3),
    "roll": lambda L, x: x.roll(1, 1), "roll_flat": lambda L, x: L.roll(x, -5),
    "roll2": lambda L, x: x.roll((1, -2), (0, 1)),
}


def _describe(L, r):
    if isinstance(r, tuple):
        return (type(r).__name__, _describe(L, r[0]), r[1].tolist(), str(r[1].dtype))
    fn = r.grad_fn
    saved = {}
    if fn is not None:
        for k in dir(fn):
            if k.startswith("_saved_"):
                v = getattr(fn, k)
                saved[k] = v.tolist() if isinstance(v, L.Tensor) else v
    return (tuple(r.shape), r.tolist(), None if fn is None else fn.name(), saved)


def _run(L, name: str, dtype: str):
    x = L.tensor(X, dtype=getattr(L, dtype), requires_grad=True)
    r = CALLS[name](L, x)
    y = r[0] if isinstance(r, tuple) else r
    w = L.tensor([f32(0.5 * (i % 5) - 1.0) for i in range(y.numel())], dtype=y.dtype).reshape(y.shape)
    described = _describe(L, r)
    (g,) = L.autograd.grad((y * y * w).sum(), x, create_graph=True)
    (h,) = L.autograd.grad(g.sum(), x, allow_unused=True)
    return described, g.tolist(), None if h is None else h.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_selection_is_torchs(torch_ref, name, dtype):
    assert _run(sg, name, dtype) == _run(torch_ref, name, dtype)


TIES = [0.0, -0.0, 1.5, -2.0, math.nan, 3.0, 1.5, 7.0]


@pytest.mark.parametrize("n", [1, 2, 5, 16, 17, 40, 123, 300])
def test_sort_with_ties_is_torchs(torch_ref, n):
    # unstable: libstdc++'s introsort leaves equal values as PyTorch's std::sort does
    rnd = random.Random(n)
    data = [rnd.choice(TIES) for _ in range(n)]
    for desc in (False, True):
        for stable in (None, True, False):
            kw = {} if stable is None else {"stable": stable}
            ours = sg.tensor(data).sort(descending=desc, **kw).indices.tolist()
            assert ours == torch_ref.tensor(data).sort(descending=desc, **kw).indices.tolist()
            assert sg.tensor(data).argsort(descending=desc, **({} if stable is None else kw)).tolist() == \
                torch_ref.tensor(data).argsort(descending=desc, **({} if stable is None else kw)).tolist()


@pytest.mark.parametrize("n", [1, 3, 17, 64, 128, 300, 700])
def test_topk_with_ties_is_torchs(torch_ref, n):
    # std::partial_sort (k * 64 <= n) or std::nth_element, then std::sort of the first k - 1
    rnd = random.Random(n)
    data = [rnd.choice(TIES) for _ in range(n)]
    for k in sorted(k for k in {1, 2, 5, n // 2, n} if 1 <= k <= n):
        for largest in (True, False):
            for srt in (True, False):
                ours = sg.tensor(data).topk(k, largest=largest, sorted=srt)
                theirs = torch_ref.tensor(data).topk(k, largest=largest, sorted=srt)
                assert ours.indices.tolist() == theirs.indices.tolist()
                assert [v if v == v else "nan" for v in ours.values.tolist()] == \
                    [v if v == v else "nan" for v in theirs.values.tolist()]


def test_refusals_are_torchs(torch_ref):
    def run(L):
        x = L.tensor(X)
        out = []
        for f in (lambda: x.gather(1, L.tensor([[5]])), lambda: x.gather(1, L.tensor([0])),
                  lambda: x.index_select(1, L.tensor([9])), lambda: x.index_select(1, [0]),
                  lambda: x.take(L.tensor([12])), lambda: x.topk(5), lambda: x.kthvalue(0),
                  lambda: x[0].tril(), lambda: x.repeat(2), lambda: x.roll((1, 2), 0),
                  lambda: x.masked_select(L.tensor([1, 0, 1, 0])), lambda: x.gather(1, L.tensor([[0.5]]))):
            try:
                f()
                out.append("ok")
            except Exception as e:  # the refusal is compared
                out.append((type(e).__name__, str(e).split("\n")[0]))
        return out

    assert run(sg) == run(torch_ref)


def _diagonal_writes(lib) -> list:
    """In-place ops through diagonal() views reach the base, with their versions and graph."""
    out = []
    x = lib.zeros(3, 3)
    x.diagonal().fill_(1.0)
    out.append(x.tolist())
    x = lib.zeros(3, 3)
    x.diagonal(1).add_(2.0)
    x.diagonal(-2).sub_(1.0)
    out.append(x.tolist())
    x = lib.zeros(2, 3)
    x.t().diagonal().copy_(lib.tensor([5.0, 6.0]))
    out.append((x.tolist(), x._version))
    a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    x = a.clone()
    d = x.diagonal()
    t = lib.tensor([2.0, 3.0], requires_grad=True)
    d.mul_(t)
    x.sum().backward()
    out.append((x.tolist(), x.grad_fn.name(), d.stride(), x.diagonal(1).storage_offset(), a.grad.tolist(),
                t.grad.tolist(), a.diagonal()._base is a))
    return out


def test_diagonal_is_a_view_by_hand():
    got = _diagonal_writes(sg)
    assert got[0] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert got[1] == [[0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [-1.0, 0.0, 0.0]]
    assert got[2] == ([[5.0, 0.0, 0.0], [0.0, 6.0, 0.0]], 1)
    # x[0][0] *= 2, x[1][1] *= 3: d/da is 2 and 3 there, d/dt the diagonal (1, 5)
    assert got[3] == ([[2.0, 2.0, 3.0], [4.0, 15.0, 6.0]], "torch::autograd::CopySlices", (4,), 1,
                      [[2.0, 1.0, 1.0], [1.0, 3.0, 1.0]], [1.0, 5.0], True)


def test_diagonal_writes_match_torch(torch_ref):
    assert _diagonal_writes(sg) == _diagonal_writes(torch_ref)


_SIGNED_ZERO_PICKS = {
    "gather": lambda lib, x: x.gather(0, lib.tensor(0) if not x.dim() else lib.tensor([0])),
    "take": lambda lib, x: x.take(lib.tensor(0)),
    "index_select": lambda lib, x: x.index_select(0, lib.tensor(0) if not x.dim() else lib.tensor([0])),
    "sort": lambda lib, x: x.sort()[0],
    "kthvalue": lambda lib, x: x.kthvalue(1)[0],
    "roll": lambda lib, x: x.roll(1),
    "tril": lambda lib, x: x.reshape(1, 1).tril(),
    "masked_select": lambda lib, x: x.masked_select(lib.tensor(True)),
}


@pytest.mark.parametrize("name", sorted(_SIGNED_ZERO_PICKS))
@pytest.mark.parametrize("shape", [(), (1,)])
def test_a_minus_zero_gradient_keeps_or_loses_its_sign_as_in_pytorch(torch_ref, name, shape):
    # gather, take and index_select add the gradient into zeros (scatter_add, put, index_add:
    # -0.0 arrives as +0.0); sort, kthvalue, roll, tril and masked_select write it (-0.0 stays)
    signs = []
    for lib in (sg, torch_ref):
        x = lib.full(shape, 0.7, requires_grad=True)
        y = _SIGNED_ZERO_PICKS[name](lib, x)
        (g,) = lib.autograd.grad(y, x, lib.full(tuple(y.shape), -0.0))
        signs.append(math.copysign(1.0, g.reshape(-1)[0].item()))
    assert signs[0] == signs[1]


# ---------------------------------------------------------------- tile

TILES = [lambda lib, x: x.tile((2,)), lambda lib, x: lib.tile(x, (2, 1, 2)), lambda lib, x: x.tile(2, 2),
         lambda lib, x: x.tile(dims=(1, 3)), lambda lib, x: lib.tile(x[0, 0], ()), lambda lib, x: x.tile((0, 2))]


@pytest.mark.parametrize("i", range(len(TILES)))
def test_tile_is_pytorchs(torch_ref, i):
    out = []
    for lib in (sg, torch_ref):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        y = TILES[i](lib, x)
        (y * lib.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        out.append((tuple(y.shape), y.grad_fn.name(), y.tolist(), x.grad.tolist()))
    assert out[0] == out[1]


def test_tile_refuses_as_pytorch(torch_ref):
    out = []
    for lib in (sg, torch_ref):
        with pytest.raises(RuntimeError) as e:
            lib.zeros(2, 3).tile((-1,))
        out.append(str(e.value))
    assert out[0] == out[1]


# ---------------------------------------------------------------- repeat_interleave, diag_embed (issue 23)

COMPOSITES = {
    "ri": lambda L, x: x.repeat_interleave(2),
    "ri1": lambda L, x: x.repeat_interleave(3, dim=1),
    "rit": lambda L, x: x.repeat_interleave(L.tensor([1, 2]), dim=0),
    "rit1": lambda L, x: L.repeat_interleave(x, L.tensor([0, 2, 1]), dim=1),
    "rit0d": lambda L, x: x.repeat_interleave(L.tensor(2), dim=0),
    "rifl": lambda L, x: x.repeat_interleave(L.tensor([1, 0, 2, 1, 1, 1])),
    "rineg": lambda L, x: x.repeat_interleave(-1),
    "rinegt": lambda L, x: x.repeat_interleave(L.tensor([1, -1]), dim=0),
    "ribad": lambda L, x: x.repeat_interleave(L.tensor([1, 2, 3]), dim=0),
    "ri2d": lambda L, x: x.repeat_interleave(L.tensor([[1, 2]]), dim=0),
    "rif": lambda L, x: x.repeat_interleave(L.tensor([2., 1]), dim=0),
    "rios": lambda L, x: x.repeat_interleave(L.tensor([1, 2]), dim=0, output_size=4),
    "rio": lambda L, x: x.repeat_interleave(L.tensor([1, 2]), dim=0, output_size=3),
    "rionly": lambda L, x: L.repeat_interleave(L.tensor([2, 0, 1])),
    "ri0": lambda L, x: x[0, 0].repeat_interleave(2),
    "ridim": lambda L, x: x.repeat_interleave(2, dim=5),
    "uf": lambda L, x: x.unfold(1, 2, 1), "uf0": lambda L, x: x.unfold(0, 1, 1), "ufs": lambda L, x: x.unfold(1, 2, 2),
    "ufneg": lambda L, x: x.unfold(-1, 3, 5), "ufz": lambda L, x: x.unfold(1, 0, 1),
    "ufbig": lambda L, x: x.unfold(1, 4, 1), "ufstep": lambda L, x: x.unfold(1, 2, 0),
    "ufdim": lambda L, x: x.unfold(2, 1, 1), "uf0d": lambda L, x: x[0, 0].unfold(0, 1, 1),
    "uf0d2": lambda L, x: x[0, 0].unfold(0, 2, 1), "uft": lambda L, x: x.t().unfold(0, 2, 1),
    "ufsl": lambda L, x: x[:, 1:].unfold(1, 1, 1).unfold(0, 2, 1),
    "de": lambda L, x: x.diag_embed(),
    "de1": lambda L, x: L.diag_embed(x, 1),
    "de2": lambda L, x: L.diag_embed(x, -1, 0, 2),
    "de3": lambda L, x: x.diag_embed(dim1=1, dim2=0),
    "debad": lambda L, x: x.diag_embed(dim1=1, dim2=1),
    "de0d": lambda L, x: x[0].diag_embed(),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_repeat_interleave_unfold_and_diag_embed_are_torchs(torch_ref, name):
    # values, node names (ATen's composite: ViewBackward0 for an int, IndexSelectBackward0 for a
    # tensor of repeats), strides, gradients, double backward and refusals
    assert run_composite(sg, COMPOSITES[name]) == run_composite(torch_ref, COMPOSITES[name])


def test_repeat_interleave_and_diag_embed_by_hand_and_by_sympy():
    x = sg.tensor([1.5, -2.0], requires_grad=True)
    y = x.repeat_interleave(sg.tensor([2, 1]))
    assert y.tolist() == [1.5, 1.5, -2.0] and y.grad_fn.name() == "IndexSelectBackward0"
    z = x.diag_embed(1)
    assert z.tolist() == [[0.0, 1.5, 0.0], [0.0, 0.0, -2.0], [0.0, 0.0, 0.0]]
    w = sg.tensor([1.0, 2.0, 3.0])
    report = sympy_check((y * y * w).sum() + (x.repeat_interleave(2) * 3.0).sum() + z.sum() * 5.0, {x: "x"})
    assert report.ok and report.verified, str(report)
    # d/dx0: 2 x0 (1 + 2) + 2 * 3 + 5 = 20; d/dx1: 2 x1 * 3 + 6 + 5 = -1
    assert [float(report[f"x[{i}]"].symbolic) for i in range(2)] == [20.0, -1.0]


def _unfold_views(L):
    x = L.arange(7.0).requires_grad_()
    y = x.unfold(0, 3, 2)
    z = x.detach().clone()
    z.unfold(0, 2, 2).mul_(3)  # windows that do not overlap: written through to z
    saved = {k: getattr(y.grad_fn, k) for k in dir(y.grad_fn) if k.startswith("_saved")}
    return saved, y._base is x, y.stride(), z.tolist()


def test_unfold_is_a_view_as_torchs(torch_ref):
    assert _unfold_views(sg) == _unfold_views(torch_ref)


def test_an_inplace_op_on_overlapping_windows_is_refused_by_name():
    # PyTorch writes overlapping elements one by one in its kernel's order (x[1] doubled twice
    # here); scalargrad refuses rather than give other numbers; a fill is the same either way
    x = sg.arange(5.0)
    with pytest.raises(Unsupported, match="overlap in memory"):
        x.unfold(0, 2, 1).mul_(2)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    x.unfold(0, 2, 1).fill_(2.0)
    assert x.tolist() == [2.0] * 5


def _msorted(L) -> list:
    """msort is ATen's composite ``sort(self, 0)`` values: SortBackward0, nan last, gradients scattered back."""
    x = L.tensor([[1.0, -2.0], [3.0, 0.5], [float("nan"), -1.0]], requires_grad=True)
    y = L.msort(x)
    y.backward(L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    return [repr(y), y.grad_fn.name(), repr(x.msort()), x.grad.tolist(), repr(L.msort(L.tensor([3, 1, 2]))),
            repr(L.msort(L.tensor(2.0)))]


def test_msort_as_pytorch(torch_ref):
    assert _msorted(sg) == _msorted(torch_ref)


def _taken(L) -> list:
    """take_along_dim: ATen's composite, gather of input and indices expanded to each other (ExpandBackward0
    under GatherBackward0), or of both flattened (ViewBackward0); its checks in ATen's order."""
    t = L.tensor([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]], requires_grad=True)
    out = []
    for y in (L.take_along_dim(t, L.argsort(t, dim=1), dim=1), L.take_along_dim(t, L.tensor([[0], [2]])),
              t.take_along_dim(L.tensor([0, 5])), L.take_along_dim(t, L.tensor([[1, 0, 1]]), dim=0),
              L.take_along_dim(t, L.tensor([[2], [0]]), -1), L.take_along_dim(input=t, indices=L.tensor([[1]]), dim=0)):
        out.append((repr(y), y.grad_fn.name(), [f.name() for f, _ in y.grad_fn.next_functions]))
    L.take_along_dim(t, L.tensor([[1], [0]]), dim=1).sum().backward()
    out.append(t.grad.tolist())
    for bad in (lambda: L.take_along_dim(t, L.tensor([1]), dim=0),
                lambda: L.take_along_dim(t, L.tensor([[1]], dtype=L.int32), dim=0),
                lambda: L.take_along_dim(t, L.tensor([[1]]), dim=2),
                lambda: L.take_along_dim(t, L.tensor([[1, 0], [0, 1], [1, 1]]), dim=0),
                lambda: L.take_along_dim(t, L.tensor([9]))):
        try:
            out.append(repr(bad()))
        except (RuntimeError, IndexError) as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_take_along_dim_as_pytorch(torch_ref):
    assert _taken(sg) == _taken(torch_ref)


def _running_extreme(L, name, x, dim):
    x = L.tensor(x, requires_grad=True)
    v, i = getattr(L, name)(x, dim)
    (g,) = L.autograd.grad((v * (L.arange(v.numel(), dtype=L.float32).reshape(v.shape) + 1)).sum(), x)
    return v, i, g, v.grad_fn._saved_dim, type(getattr(L, name)(x, dim)).__name__


# ties (a later equal element takes over), nans (the first takes over and holds), dims, dtypes
CUMMAX = {
    "max": lambda L: _running_extreme(L, "cummax", [[1.0, 3, 2, 3], [0, -1, 5, 5]], 1),
    "min": lambda L: _running_extreme(L, "cummin", [[1.0, 3, 2, 3], [0, -1, 5, -1]], 1),
    "dim0": lambda L: _running_extreme(L, "cummax", [[1.0, 3], [0, 5], [2, 2]], 0),
    "nan": lambda L: _running_extreme(L, "cummax", [1.0, math.nan, 3, math.nan, 0], 0),
    "nan-first": lambda L: _running_extreme(L, "cummin", [math.nan, 1.0, 3], -1),
    "0-d": lambda L: _running_extreme(L, "cummax", 3.0, 0),
    "ints": lambda L: (L.cummax(L.tensor([1, 3, 2, 5]), 0), L.tensor([False, True, False]).cummin(dim=0)),
    "repr": lambda L: repr(L.cummax(L.tensor([1, 3, 2]), 0)),
    "bad-dim": lambda L: L.cummax(L.tensor([1, 3, 2]), 1),
    "empty": lambda L: L.cummax(L.zeros(0, 3), 0),
}


def test_cummax_cummin_as_pytorch(torch_ref):
    assert {k: described(f, sg) for k, f in CUMMAX.items()} == {k: described(f, torch_ref) for k, f in CUMMAX.items()}


def test_cummax_gradient_is_proved():
    x = sg.tensor([1.0, 3.0, 2.0, 4.0], requires_grad=True)
    v, i = sg.cummax(x, 0)
    assert v.tolist() == [1.0, 3.0, 3.0, 4.0] and i.tolist() == [0, 1, 1, 3]
    report = sympy_check((v * sg.tensor([1.0, 2.0, 3.0, 4.0])).sum(), {x: "x"})
    assert report.ok and report.verified, str(report)
    # x1 is the running maximum at positions 1 and 2: 2 + 3
    assert [float(report[f"x[{k}]"].symbolic) for k in range(4)] == [1.0, 5.0, 0.0, 4.0]


def _diagflat(L):
    a = L.tensor([[1.0, -2.0], [3.0, 4.5]], requires_grad=True)
    y = L.diagflat(a, -1)
    (y * L.arange(25.0).reshape(5, 5)).sum().backward()
    edges = [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()]
    return (y.tolist(), edges, a.grad.tolist(), L.diagflat(L.tensor(3.0)).tolist(),
            L.diagflat(L.tensor([1, 2]), 1).tolist(), a.t().diagflat().tolist())


def test_diagflat_is_torchs(torch_ref):
    assert _diagflat(sg) == _diagflat(torch_ref)
