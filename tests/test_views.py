"""View ops against live PyTorch (issues 22 and 23): movedim/moveaxis, diagonal of any dims (a strided view:
writes reach the base), and the 0-dim refusals of unbind and unflatten. Expected values,
strides, node names and messages are PyTorch's own, read at test time."""

from __future__ import annotations

import pytest

import scalargrad
import scalargrad as torch

_MOVES = [(0, 2), ((0, 1), (2, 0)), (-1, 0), (1, 1), ([], []), ((0, 2), (-1, 0)), ((0, 0), (1, 2)),
          ((0, 1), (1, 1)), ((0, 1), (1,)), (3, 0), (0, -4)]
_DIAGONALS = [(0, 0, 1), (1, 0, 2), (-1, 2, 0), (2, 1, 2), (0, -1, -3), (-2, 1, 0), (5, 0, 2), (0, 2, 1), (0, 1, -2)]


def _outcome(f):
    try:
        r = f()
    except Exception as exc:  # the message is what is compared
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    if isinstance(r, tuple):
        return [_outcome(lambda t=t: t) for t in r]
    return (tuple(r.shape), r.stride(), r.storage_offset(), r.flatten().tolist(),
            None if r.grad_fn is None else r.grad_fn.name(), r._is_view())


def _moved(lib) -> list:
    x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
    out = [_outcome(lambda m=m: x.movedim(*m)) for m in _MOVES]
    out += [_outcome(lambda: lib.moveaxis(x, 0, 1)), _outcome(lambda: lib.movedim(x, -1, 0)),
            _outcome(lambda: lib.tensor(1.0, requires_grad=True).movedim(0, -1)),
            x.movedim(0, 2).grad_fn._saved_dims]
    y = x.movedim((0, 2), (1, 0))
    (y * lib.arange(24.0).reshape(y.shape)).sum().backward()
    return out + [x.grad.flatten().tolist()]


def test_movedim_as_pytorch(torch_ref):
    assert _moved(torch) == _moved(torch_ref)


def _diagonals(lib) -> list:
    x = lib.arange(60.0).reshape(3, 4, 5).requires_grad_()
    out = []
    for c in _DIAGONALS:
        out.append(_outcome(lambda c=c: x.diagonal(*c)))
        out.append(_outcome(lambda c=c: x.transpose(0, 2).diagonal(*c)))  # strides of a non-contiguous base
        if c[1:] == (1, -2):
            continue  # refused (the same dim twice)
        x.grad = None
        r = x.diagonal(*c)
        (r * lib.arange(float(r.numel())).reshape(r.shape)).sum().backward()
        out.append(x.grad.flatten().tolist())
    b = lib.zeros(2, 3, 3)
    b.diagonal(0, 1, 2).fill_(1.0)  # through the view into the base
    b[1].diagonal(1).add_(5.0)
    out.append(b.tolist())
    g = x.diagonal(1, 0, 2)
    gg, = lib.autograd.grad((g * g).sum(), x, create_graph=True)
    out.append((gg.grad_fn.name(), gg.sum().item()))
    out.append(_outcome(lambda: lib.zeros(3).diagonal()))
    return out


def test_diagonal_of_any_dims_as_pytorch(torch_ref):
    assert _diagonals(torch) == _diagonals(torch_ref)


def _zero_dim(lib) -> list:
    x = lib.tensor(-0.5, requires_grad=True)
    return [_outcome(f) for f in (lambda: x.unbind(), lambda: x.unbind(-1), lambda: lib.unbind(x), lambda: x.unbind(2),
                                  lambda: x.unflatten(0, (1,)), lambda: x.unflatten(-3, (1,)))]


def test_zero_dim_unbind_and_unflatten_refuse_as_pytorch(torch_ref):
    got, want = _zero_dim(torch), _zero_dim(torch_ref)
    assert got == want  # unflatten's first line: PyTorch's message goes on with its C++ backtrace


@pytest.mark.parametrize("dims", [(0, 1), (1, 2), (2, 0)])
def test_a_diagonal_is_a_view_of_its_base(dims):
    x = torch.zeros(2, 3, 3)
    d = x.diagonal(0, *dims)
    assert d._base is x and d._is_view()


def _shape_refusals(lib) -> list:
    return [_outcome(f) for f in (lambda: lib.zeros(12).expand(2, -1, 3, 2), lambda: lib.zeros(3).expand(-1, 3),
                                  lambda: lib.zeros(0).view(0, -1), lambda: lib.zeros(0).reshape(-1, 0),
                                  lambda: lib.zeros(3).view(0, -1), lambda: lib.zeros(2, 0).reshape(3, -1, 0),
                                  lambda: lib.zeros(0).view(-1))]


def test_expand_and_view_refuse_in_pytorchs_order_and_words(torch_ref):
    # expand checks from the last dim; a -1 among sizes whose product is 0, for 0 elements, is ambiguous
    assert _shape_refusals(torch) == _shape_refusals(torch_ref)


_SQUEEZES = [((1,), lambda t: t.unsqueeze(1)), ((2, 1, 3), lambda t: t.squeeze()), ((2, 1, 3), lambda t: t.squeeze(1)),
             ((2, 1, 3), lambda t: t.squeeze(0)), ((1, 2, 1), lambda t: t.squeeze((0, 2))),
             ((1, 2, 1), lambda t: t.squeeze(-1)), ((2, 3), lambda t: t.unsqueeze(-1)), ((1,), lambda t: t.squeeze()),
             ((1, 1), lambda t: t.clone().squeeze_()), ((1, 2), lambda t: t.clone().squeeze_(0)),
             ((2,), lambda t: t.clone().unsqueeze_(0)), ((1, 2, 1), lambda t: t.clone().squeeze_((0, 2))),
             ((), lambda t: t.unsqueeze(0)), ((), lambda t: t.squeeze())]


def _node_names(f, out: list, depth: int = 0) -> list:
    if f is not None and depth < 6:
        out.append(f.name())
        for n, _ in f.next_functions:
            _node_names(n, out, depth + 1)
    return out


def _squeeze_graphs(lib) -> list:
    out = []
    for shape, fn in _SQUEEZES:
        x = lib.arange(float(lib.zeros(shape).numel())).reshape(shape).requires_grad_()
        y = fn(x)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        g2, = lib.autograd.grad((g * g).sum(), x)
        out.append((_node_names(g.grad_fn, []), tuple(g.shape), g.stride(), g2.tolist()))
    return out


def test_squeeze_and_unsqueeze_backward_nodes_as_pytorch(torch_ref):
    # unsqueeze's gradient is squeezed (SqueezeBackward1), squeeze's unsqueezed at each dim of size 1
    assert _squeeze_graphs(torch) == _squeeze_graphs(torch_ref)


_LAYOUTS = {"permute": lambda t: t.permute(0, 3, 1, 2), "transpose": lambda t: t.transpose(1, 3),
            "movedim": lambda t: t.movedim(1, 3), "mT": lambda t: t.mT, "select": lambda t: t[1],
            "expand": lambda t: t[:1].expand(3, 3, 2, 3), "unsqueeze": lambda t: t.unsqueeze(1),
            "diagonal": lambda t: t.diagonal(0, 1, 3), "view": lambda t: t.view(6, 6),
            "contiguous": lambda t: t.mT.contiguous()}


def _gradient_layouts(lib) -> list:
    out = []
    for name, f in _LAYOUTS.items():
        x = lib.arange(36.0).reshape(2, 3, 2, 3).requires_grad_()
        y = f(x)
        w = lib.arange(float(y.numel())).reshape(y.shape)
        for z in ((y * w).sum(), y.sum()):
            g, = lib.autograd.grad(z, x, retain_graph=True)
            z.backward()
            out.append((name, g.stride(), g.is_contiguous(), x.grad.stride()))
            x.grad = None
    col = lib.tensor([[1.0], [2.0], [3.0]], requires_grad=True)  # a (3, 1) leaf, its gradient from a (1, 3) row
    (col.t() * lib.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    out.append(("size-1 dim", col.grad.stride()))
    return out


def test_gradients_keep_pytorchs_layout(torch_ref):
    # autograd.grad hands the gradient out as its formula laid it out (a permuted view, sum's
    # expanded zeros-stride tensor); .grad keeps it when it obeys AccumulateGrad's layout contract
    assert _gradient_layouts(torch) == _gradient_layouts(torch_ref)


# movedim as the api branch tested it
MOVES = [lambda lib, x: x.movedim(0, 2), lambda lib, x: x.movedim((0, 1), (2, 0)),
         lambda lib, x: lib.movedim(x, -1, 0), lambda lib, x: lib.moveaxis(x, 0, 1),
         lambda lib, x: x.moveaxis([2, 0], [0, -1]), lambda lib, x: x.movedim((), ()),
         lambda lib, x: x.movedim(source=1, destination=-1)]
BAD_MOVES = [lambda lib, x: x.movedim((0, 1), (2,)), lambda lib, x: x.movedim(0, 3),
             lambda lib, x: x.movedim((0, 0), (1, 2)), lambda lib, x: x.movedim((0, 1), (1, 1))]


@pytest.mark.parametrize("i", range(len(MOVES)))
def test_movedim_is_pytorchs(torch_ref, i):
    out = []
    for lib in (scalargrad, torch_ref):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = MOVES[i](lib, x)
        (y * lib.arange(24.0).reshape(y.shape)).sum().backward()
        out.append((tuple(y.shape), y.stride(), y.grad_fn.name(), y.tolist(), x.grad.tolist()))
    assert out[0] == out[1]


@pytest.mark.parametrize("i", range(len(BAD_MOVES)))
def test_movedim_refuses_as_pytorch(torch_ref, i):
    out = []
    for lib in (scalargrad, torch_ref):
        with pytest.raises((RuntimeError, IndexError)) as e:
            BAD_MOVES[i](lib, lib.zeros(2, 3, 4))
        out.append((type(e.value).__name__, str(e.value)))
    assert out[0] == out[1]


def test_movedim_of_a_0dim_tensor_is_its_alias(torch_ref):
    out = []
    for lib in (scalargrad, torch_ref):
        x = lib.tensor(2.0, requires_grad=True)
        y = x.movedim(0, -1)
        out.append((y.grad_fn.name(), y._base is x, y.item()))
    assert out[0] == out[1]


def _linear_gradient_strides(lib) -> list:
    # mm's backward computes a column-major operand's gradient transposed (FunctionsManual's
    # mm_mat1/mm_mat2_backward), sizes of 1 included: a Linear(n, 1) weight's .grad is (n, 1)
    out = []
    for n_in, n_out, batch in ((3, 1, 5), (1, 2, 4), (3, 2, 1), (1, 1, 3)):
        w = lib.ones(n_out, n_in, requires_grad=True)
        x = lib.arange(float(batch * n_in)).reshape(batch, n_in).requires_grad_()
        lib.nn.functional.linear(x, w).sum().backward()
        out.append((w.grad.stride(), x.grad.stride()))
        g = lib.autograd.grad((x @ w.t()).sum(), (x, w))
        out.append(tuple(t.stride() for t in g))
    return out


def test_linear_gradients_keep_pytorchs_layout(torch_ref):
    assert _linear_gradient_strides(torch) == _linear_gradient_strides(torch_ref)


def _broadcast_to(L) -> list:
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = L.broadcast_to(x, (2, 3))
    (g,) = L.autograd.grad((y * y).sum(), x)
    try:
        L.broadcast_to(x, (2, 2))
    except RuntimeError as e:
        err = str(e)
    return [y.tolist(), y.stride(), y.grad_fn.name(), g.tolist(), err]


def test_torch_broadcast_to_is_torchs(torch_ref):
    # the function beside the method (issue 23: a docstring example stopped on it)
    assert _broadcast_to(scalargrad) == _broadcast_to(torch_ref)


def _raveled(L) -> list:
    """ravel is contiguous().view(-1): a ViewBackward0 (over CloneBackward0 when not contiguous), never
    reshape's UnsafeViewBackward0 or ReshapeAliasBackward0; gradients back through the copy."""
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = []
    for y in (x.ravel(), x.t().ravel(), L.ravel(x.t()), x[:, 0].ravel(), L.ravel(input=x[0])):
        below = y.grad_fn.next_functions[0][0]
        out.append((y.tolist(), y.grad_fn.name(), below.name() if below is not None else None, y.is_contiguous()))
    x.t().ravel().backward(L.tensor([1.0, 2.0, 3.0, 4.0]))
    return out + [x.grad.tolist(), repr(L.ravel(L.tensor(3))), repr(L.ravel(L.zeros(0, 2)))]


def test_ravel_as_pytorch(torch_ref):
    assert _raveled(torch) == _raveled(torch_ref)


def _same_shape_view_graphs(lib) -> list:
    out = []
    x = lib.arange(1.0, 3.0).reshape(1, 1, 2).requires_grad_()
    w = lib.tensor([[[0.5, -2.0]]], requires_grad=True)
    for y in (x.view(1, 1, 2), x.expand(1, 1, 2).view(1, 1, 2), x.mT.reshape(1, 2, 1)):
        g, = lib.autograd.grad(y, x, w.reshape(y.shape) if y.shape != w.shape else w, create_graph=True)
        out.append((_node_names(g.grad_fn, []), g.stride(), g.tolist()))
    k = lib.tensor([[[0.5, 2.25], [-1.5, 0.0]]], requires_grad=True)  # 3-D matmul: expand, view, bmm
    g, = lib.autograd.grad((x @ k.mT * w).sum(), x, create_graph=True)
    out.append((_node_names(g.grad_fn, []), g.stride(), g.tolist()))
    return out


def test_view_backward_of_the_same_shape_under_create_graph(torch_ref):
    """ATen's reshape has no same-shape shortcut: the backward of a view (of _reshape_alias, of
    _unsafe_view) under create_graph records a ViewBackward0 even when the shapes are equal, as in
    3-D matmul's graph (scaled_dot_product_attention's math path: newer:9403:57)."""
    assert _same_shape_view_graphs(torch) == _same_shape_view_graphs(torch_ref)


def _gradient_views(lib) -> list:
    out = []
    a, s = lib.ones(2, 3, requires_grad=True), lib.ones(3, requires_grad=True)
    b, c = lib.ones(1, 2, requires_grad=True), lib.ones(2, 1, requires_grad=True)
    for y, ins in ((lib.select_scatter(a, s, 0, 1), (a, s)), (a.slice_scatter(s.reshape(1, 3), 0, 1), (a, s)),
                   (a.diagonal_scatter(s[:2], 1), (a, s)), (lib.block_diag(b, c), (b, c))):
        w = lib.arange(float(y.numel())).reshape(y.shape)
        for g in lib.autograd.grad((y * w).sum(), ins):
            out.append((g.stride(), g.storage_offset(), g.tolist()))
    return out


def test_gradients_that_are_views_keep_their_offset(torch_ref):
    """The view scatters' src gradient and block_diag's are views of the incoming gradient
    (``grad.select(...)``, ``grad.slice(...)``): autograd.grad hands that view out, storage
    offset included (newer:9403:557, :262)."""
    assert _gradient_views(torch) == _gradient_views(torch_ref)


def _stolen_grads(lib) -> list:
    a, s = lib.ones(2, 3, requires_grad=True), lib.ones(3, requires_grad=True)
    w = lib.arange(6.0).reshape(2, 3)
    lib.select_scatter(a, s, 0, 1).backward(w)
    out = [(s.grad.stride(), s.grad.storage_offset(), s.grad.tolist())]
    s.grad.add_(1)  # AccumulateGrad stole grad.select(0, 1): a view of w
    lib.select_scatter(a, s, 0, 1).backward(w)  # accumulated in place, into w's memory
    out.append((s.grad.storage_offset(), s.grad.tolist(), w.tolist()))
    b, c = lib.ones(1, 2, requires_grad=True), lib.ones(2, 1, requires_grad=True)
    (lib.block_diag(b, c) * lib.arange(9.0).reshape(3, 3)).sum().backward()
    out.append((c.grad.storage_offset(), c.grad.stride(), c.grad.tolist()))
    return out


def test_grad_steals_a_view_into_another_gradient(torch_ref):
    """AccumulateGrad keeps a gradient nothing else holds as it is (grad mode off): the view
    scatters' src gradient is a view of the incoming one, even of the user's ``backward(w)``,
    which then sees later accumulation (newer:9403:203, :626)."""
    assert _stolen_grads(torch) == _stolen_grads(torch_ref)


def _zero_dim_gradient_views(lib) -> list:
    """0-dim leaves whose gradient is a select of a larger one (stack's, unbind's and
    select_scatter's backward): offset, view-ness, values and shared memory of what they get."""
    def seen(t):
        return t.tolist(), t.storage_offset(), t._is_view(), str(t.dtype)

    out = []
    a, b = lib.tensor(1., requires_grad=True), lib.tensor(2., requires_grad=True)
    lib.stack([a, b]).mul(lib.tensor([3., 4.])).sum().backward()
    out += [seen(a.grad), seen(b.grad)]
    s, w = lib.tensor(5., requires_grad=True), lib.tensor([3., 4., 5.])
    lib.select_scatter(lib.tensor([1., 2., 3.]), s, 0, 2).backward(w)
    out.append(seen(s.grad))
    s.grad.add_(1)  # AccumulateGrad stole w.select(0, 2): w sees it
    out.append(w.tolist())
    lib.select_scatter(lib.tensor([1., 2., 3.]), s, 0, 2).backward(lib.tensor([1., 7., 3.]))
    out.append(seen(s.grad))  # accumulated in place, into w's memory
    b = lib.tensor(2., requires_grad=True)
    lib.stack([a, b, b * 2]).mul(lib.tensor([3., 4.1, 5.])).sum().backward()  # a view plus a number
    out.append(seen(b.grad))
    b, events = lib.tensor(2., requires_grad=True), []
    b.register_hook(lambda g: events.append((g.tolist(), g.storage_offset())))
    b.register_post_accumulate_grad_hook(lambda t: events.append(("post", t.grad.storage_offset())))
    lib.stack([a, b]).mul(lib.tensor([3., 4.])).sum().backward()
    out += [seen(b.grad), events]
    x = lib.tensor([1., 2., 3.], dtype=lib.float64, requires_grad=True)
    (x.unbind(0)[2] * 3).backward()
    out.append(seen(x.grad))
    b = lib.tensor(2., requires_grad=True)
    out.append(seen(lib.autograd.grad(lib.stack([a, b]).mul(lib.tensor([3., 4.])).sum(), [b])[0]))
    return out


def test_zero_dim_gradient_keeps_its_view_offset(torch_ref):
    """A 0-dim leaf's gradient that is a view into a larger one keeps its storage offset and
    memory, as for tensors of any shape: the engine no longer turns it into a bare number."""
    got = _zero_dim_gradient_views(torch)
    assert got[1][1] == 1 and got[2][1] == 2
    assert got == _zero_dim_gradient_views(torch_ref)


def test_two_d_transposes_gather_by_column_slices_and_refresh_after_a_write():
    # a transpose of 16 or more rows is gathered (and, as a view, refreshed after an in-place
    # write to its base: an optimizer step on a Linear weight) a column slice at a time; the
    # elements are the definition's, w.t()[j][i] = w[i][j], for a whole base, a column slice
    # (strides (1, 40) over 17 columns) and a row slice (an offset) alike
    w = scalargrad.arange(20 * 40.0).reshape(20, 40)
    views = {(0, 20, 40): w.t(), (0, 20, 17): w[:, :17].t(), (2, 20, 40): w[2:].t(), (0, 3, 40): w[:3].t()}
    for shift in (0.0, 1.0):
        for (r0, r1, cols), v in views.items():
            assert v.tolist() == [[40.0 * i + j + shift for i in range(r0, r1)] for j in range(cols)]
        w.add_(1.0)


def test_a_transposed_view_of_a_transposed_root_refreshes_in_the_roots_order():
    # a root laid out column-major (an op on a transposed input keeps its layout) keeps its
    # elements in logical order: r.t().t() has strides (1, 40) like a weight's transpose, yet
    # reads r's elements in r's own order after a write
    r = scalargrad.arange(800.0).reshape(20, 40).t() * 1
    a, b = r.t().t(), r.t()
    r.add_(1.0)
    want = [[40.0 * i + j + 1.0 for i in range(20)] for j in range(40)]
    assert r.tolist() == want and a.tolist() == want
    assert b.tolist() == [list(col) for col in zip(*want)]
