"""torch.func (scalargrad/func): grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call,
against live PyTorch: PyTorch's tutorial patterns (per-sample gradients with functional_call and
vmap(grad), Jacobians and Hessians of a small MLP), the values within a bound (the kernels of
tanh, exp, matmul differ between processors; float64 here, 1e-12 relative), the shapes, dtypes and
requires_grad exactly; PyTorch's error texts where its batching refuses; ``Unsupported`` where
scalargrad cannot give what PyTorch gives (a result requiring grad through functorch's kernels).
"""

from __future__ import annotations

import pytest

import scalargrad as sg
from scalargrad import func as F
from scalargrad.errors import Unsupported

pytestmark = pytest.mark.no_sympy_check  # transforms of ops whose backwards other tests prove

X = [[0.5, -1.25, 2.0], [1.5, 0.25, -0.75], [-2.0, 1.0, 0.125], [0.0, -0.5, 1.75]]
Y = [1, 0, 1, 1]


def _close(a, b, rel: float = 1e-12) -> None:
    """``a`` (scalargrad) and ``b`` (PyTorch): the same tree, shapes, dtypes; values within ``rel``
    of the largest element, signs of zeros aside."""
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, rel)
        return
    if isinstance(b, dict):
        assert list(a) == list(b)
        for k in b:
            _close(a[k], b[k], rel)
        return
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
    assert a.requires_grad == b.requires_grad
    av, bv = a.detach().reshape(-1).tolist(), b.detach().reshape(-1).tolist()
    scale = max([abs(v) for v in bv] + [1e-300])
    assert all(abs(x - y) <= rel * scale for x, y in zip(av, bv)), (av, bv)


def _mlp(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2)).double()
    with lib.no_grad():  # the same weights in both libraries
        for i, p in enumerate(model.parameters()):
            n = p.numel()
            p.copy_(lib.tensor([((k * 7 + i * 3) % 11 - 5) / 8 for k in range(n)], dtype=lib.float64).reshape(p.shape))
    return model


def _per_sample_grads(lib, fn):
    model = _mlp(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def loss(params, buffers, sample, target):
        out = fn.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, target.unsqueeze(0))

    x, y = lib.tensor(X, dtype=lib.float64), lib.tensor(Y)
    grads = fn.vmap(fn.grad(loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)
    return grads, [p.requires_grad for p in model.parameters()]


def test_per_sample_gradients_tutorial(torch_ref):
    import torch.func

    got, rg = _per_sample_grads(sg, F)
    want, want_rg = _per_sample_grads(torch_ref, torch.func)
    _close(got, want)
    assert rg == want_rg  # functional_call put the module's own parameters back


def test_per_sample_gradients_equal_one_backward_per_sample():
    """Without PyTorch: each row is the gradient of that sample's loss by ordinary backward."""
    grads, _ = _per_sample_grads(sg, F)
    model = _mlp(sg)
    for i in range(len(X)):
        model.zero_grad()
        sg.nn.functional.cross_entropy(model(sg.tensor([X[i]], dtype=sg.float64)), sg.tensor([Y[i]])).backward()
        for name, p in model.named_parameters():
            assert grads[name][i].tolist() == p.grad.tolist()


def _jacobians(lib, fn):
    model = _mlp(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = lib.tensor(X[0], dtype=lib.float64)

    def f(x):
        return fn.functional_call(model, params, (x,))

    def scalar(x):
        return f(x).pow(2).sum()

    def by_params(p, x):
        return fn.functional_call(model, p, (x,)).sum()

    return (fn.jacrev(f)(x), fn.jacfwd(f)(x), fn.hessian(scalar)(x), fn.jacrev(fn.jacrev(scalar))(x),
            fn.jacfwd(fn.jacrev(scalar))(x), fn.jacrev(by_params)(params, x), fn.vmap(fn.jacrev(f))(
                lib.tensor(X, dtype=lib.float64)), fn.vmap(fn.hessian(scalar))(lib.tensor(X[:2], dtype=lib.float64)))


def test_jacobians_and_hessians_of_an_mlp(torch_ref):
    import torch.func

    _close(_jacobians(sg, F), _jacobians(torch_ref, torch.func))


def _small(lib, fn):
    x = lib.tensor([0.5, -1.25, 2.0], dtype=lib.float64)
    y = x * 2 - 1
    g = lambda a, b: lib.stack([a.sin() * b, a ** 2]).reshape(2, 3)
    out, vjp_fn = fn.vjp(g, x, y)
    aux = fn.grad(lambda a: ((a ** 3).sum(), a.cos()), has_aux=True)(x)
    return (fn.grad(lambda a: (a.sin() * a.exp()).sum())(x), fn.grad_and_value(lambda a, b: (a * b).sum(),
                                                                                 argnums=(0, 1))(x, y),
            aux, fn.grad(lambda d: (d["a"] * d["b"]).sum())({"a": x, "b": y}), out, vjp_fn(lib.ones(2, 3,
                                                                                                  dtype=lib.float64)),
            fn.jvp(g, (x, y), (lib.ones(3, dtype=lib.float64), y)), fn.jacfwd(g, argnums=(0, 1))(x, y),
            fn.grad(lambda a: fn.grad(lambda b: (b ** 3).sum())(a).sum())(x),
            fn.vmap(lambda a, b: a * b, in_dims=(1, None), out_dims=1)(lib.tensor(X, dtype=lib.float64), y[:1]),
            fn.vmap(lambda r: (r.sum(), r * 2), out_dims=(0, 1))(lib.tensor(X, dtype=lib.float64)),
            fn.vmap(fn.vmap(lambda a: a.exp()))(lib.tensor(X, dtype=lib.float64)),
            fn.grad(lambda a: fn.vmap(lambda r: (r ** 2).sin().sum())(a).sum())(lib.tensor(X, dtype=lib.float64)),
            fn.vmap(lambda r: fn.grad(lambda s: (s * r).sum())(r * 2))(lib.tensor(X, dtype=lib.float64)),
            fn.vmap(lambda r: lib.ones(2))(x))


def test_transforms_match_pytorch(torch_ref):
    import torch.func

    got, want = _small(sg, F), _small(torch_ref, torch.func)
    _close(got, want)
    assert got[-1].stride() == want[-1].stride()  # an output of no batched input: PyTorch's expanded view


def test_jacfwd_keeps_signed_zeros_as_pytorch(torch_ref):
    """Forward mode gives cat/stack the tangents joined (derivatives.yaml), so -0.0 stays -0.0."""
    import torch.func

    def run(lib, fn):
        x = lib.tensor([0.5, -1.25, 2.0], dtype=lib.float64)
        j = fn.jacfwd(lambda a, b: lib.stack([a.sin() * b, a ** 2]), argnums=(0, 1))(x, x + 1)
        return [str(v) for t in j for v in t.reshape(-1).tolist()]

    assert run(sg, F) == run(torch_ref, torch.func)


def _errors(lib, fn):
    x = lib.tensor(X, dtype=lib.float64)
    y = lib.zeros(3, dtype=lib.float64)
    cases = [lambda: fn.vmap(lambda r: r.sum().item())(x), lambda: fn.vmap(lambda r: r if r.sum() > 0 else -r)(x),
             lambda: fn.vmap(lambda r: float(r.sum()))(x), lambda: fn.vmap(lambda r: y.add_(r))(x),
             lambda: fn.vmap(lambda r: r + lib.randn(3))(x), lambda: fn.vmap(lambda r: lib.nn.functional.dropout(r))(x),
             lambda: fn.vmap(lambda r: r.sum(), in_dims=2)(x), lambda: fn.vmap(lambda r: 3)(x),
             lambda: fn.vmap(lambda r, s: r + s)(x, lib.ones(2, 3)), lambda: fn.vmap(lambda r: r)(3.0),
             lambda: fn.vmap(lambda r: r.sum(), out_dims=None)(x), lambda: fn.vmap(lambda r: r, randomness="no")(x),
             lambda: fn.vmap(lambda r: r)(), lambda: fn.grad(lambda r: r)(x), lambda: fn.grad(lambda r: (r,))(x),
             lambda: fn.grad(lambda r: r.sum(), argnums=1)(x), lambda: fn.grad(lambda r: r.sum(), has_aux=True)(x),
             lambda: fn.grad(lambda r: r.sum(), argnums=(0, 0))(x), lambda: fn.jvp(lambda r: r, [x], [x]),
             lambda: fn.vjp(lambda r: (r > 0).long(), x), lambda: fn.jacrev(lambda r: r, chunk_size=0)]
    out = []
    for case in cases:
        try:
            case()
            out.append(None)
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_errors_are_pytorchs(torch_ref):
    import torch.func

    assert _errors(sg, F) == _errors(torch_ref, torch.func)


def _setitem_errors(lib) -> list:
    """Item assignment of a batched value into an unbatched tensor inside vmap: PyTorch's
    BatchedFallback refuses it (copy_ for a basic index, index_put_ for an advanced one)."""
    out = []
    for index in (0, slice(1, None), lib.tensor([0, 1]), lib.tensor([True, False, True])):
        def f(v, index=index):
            buf = lib.zeros(3)
            buf[index] = v.sum() if isinstance(index, int) else v[:2]
            return buf
        try:
            out.append(lib.vmap(f)(lib.ones(2, 3)).tolist())
        except RuntimeError as e:
            out.append(str(e))
    return out


def test_item_assignment_of_a_batched_value_is_refused_as_pytorch(torch_ref):
    want = _setitem_errors(torch_ref)
    assert all(isinstance(w, str) for w in want)
    assert _setitem_errors(sg) == want


def _prints_inside(lib, capsys) -> str:
    def f(x):
        print("per element:", x.shape, x.dim())
        return x * 2
    lib.vmap(f)(lib.ones(4, 3))
    return capsys.readouterr().out


def test_what_the_function_prints_appears_once_as_pytorch(torch_ref, capsys):
    # PyTorch runs the function once, on a batched tensor that shows one element's shape
    want = _prints_inside(torch_ref, capsys)
    assert want == "per element: torch.Size([3]) 1\n"
    assert _prints_inside(sg, capsys) == want


def test_printing_a_batched_tensor_is_refused_by_name():
    # PyTorch prints its BatchedTensor wrapper of the whole batch, which scalargrad does not have
    with pytest.raises(Unsupported, match="printing a batched tensor inside torch.func.vmap"):
        sg.vmap(lambda x: print(x) or x)(sg.ones(2, 3))
    assert repr(sg.vmap(lambda x: x * 2)(sg.ones(1, 2))) == "tensor([[2., 2.]])"  # outside vmap: as always


def _functional_call(lib, fn):
    model = lib.nn.Linear(2, 2).double()
    x = lib.ones(1, 2, dtype=lib.float64)
    w = lib.full((2, 2), 0.5, dtype=lib.float64)
    out = [fn.functional_call(model, {"weight": w, "bias": lib.zeros(2, dtype=lib.float64)}, x)]
    out.append(model.weight is next(model.parameters()) and isinstance(model.weight, lib.nn.Parameter))
    for bad in ({"weight": w, "nope": w}, {"weight": w}):
        try:
            fn.functional_call(model, bad, x, strict=True)
        except RuntimeError as e:
            out.append(str(e))
    try:
        fn.functional_call(model, ({"weight": w}, {"weight": w}), x)
    except ValueError as e:
        out.append(str(e))
    tied = lib.nn.Module()
    tied.a = lib.nn.Linear(2, 2, bias=False).double()
    tied.b = lib.nn.Linear(2, 2, bias=False).double()
    tied.b.weight = tied.a.weight
    tied.forward = lambda x: tied.b(tied.a(x))
    out.append(fn.functional_call(tied, {"a.weight": w}, x))
    out.append(tuple(fn.functional_call(tied, {"a.weight": w}, x, tie_weights=False).shape))
    try:
        fn.functional_call(tied, {"a.weight": w, "b.weight": w * 2}, x)
    except ValueError as e:
        out.append(str(e))
    return out


def test_functional_call_as_pytorch(torch_ref):
    import torch.func

    got, want = _functional_call(sg, F), _functional_call(torch_ref, torch.func)
    assert len(got) == len(want) == 8
    _close(got[0], want[0])
    _close(got[5], want[5])
    assert got[1:5] + got[6:] == want[1:5] + want[6:]


def test_refused_by_name():
    """Results PyTorch gives through functorch's own kernels (their grad_fn) are refused."""
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    w = sg.tensor([3.0, 4.0], requires_grad=True)
    models = [sg.nn.Linear(2, 2) for _ in range(2)]
    params, buffers = F.stack_module_state(models)
    cases = [lambda: F.grad(lambda a: (a * a).sum())(x), lambda: F.grad(lambda a: (a * w).sum())(x.detach()),
             lambda: F.vmap(lambda r: r * w)(sg.ones(3, 2)),
             lambda: F.jvp(lambda a: a * w, (x.detach(),), (x.detach(),)),
             lambda: F.vmap(lambda p, b, d: F.functional_call(models[0], (p, b), (d,)), in_dims=(0, 0, None))(
                 params, buffers, sg.ones(3, 2)),
             lambda: F.vmap(lambda r: r + sg.randn(2), randomness="same")(sg.ones(3, 2)),
             lambda: F.jacfwd(F.jacfwd(lambda a: a.exp()))(x.detach()),
             lambda: F.vmap(lambda r: r.masked_fill(r > 0, r.sum()))(sg.ones(3, 2))]  # an op's item()
    for case in cases:
        with pytest.raises(Unsupported):
            case()
    with sg.no_grad():  # no grad outside: PyTorch's results do not require grad either
        assert F.vmap(lambda r: r * w)(sg.ones(3, 2)).tolist() == [[3.0, 4.0]] * 3
    assert F.grad(lambda a: (a * a).sum())(x.detach()).tolist() == [2.0, 4.0]
