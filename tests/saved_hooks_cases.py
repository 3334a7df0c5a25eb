"""The program test_saved_tensor_hooks.py runs on scalargrad and on PyTorch (``lib``)."""


def run(lib) -> list:
    graph = lib.autograd.graph
    out = []
    log = []

    def rec(f):
        try:
            out.append(repr(f()))
        except Exception as exc:  # the message is what is compared
            out.append(f"{type(exc).__name__} {exc}")

    def pack(t):
        log.append(("pack", tuple(t.shape), t.tolist()))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape), t.tolist()))
        return t

    def flush(*extra):
        out.append(repr((*extra, list(log))))
        log.clear()

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        y = a * b
        z = y.exp()
        w = (z * 2).sum()
        a.pow(2)
        lib.tensor(1.5, requires_grad=True) * lib.tensor(2.0)
    flush()
    w.backward(retain_graph=True)
    flush()
    flush(y.grad_fn._saved_self)
    flush(z.grad_fn._saved_result)
    out.append(repr((a.grad, b.grad)))

    x = lib.tensor([0.5, 1.5], requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: t.tolist(), lambda p: lib.tensor(p)):
        y = (x * x).sum()
    y.backward()
    out.append(repr(x.grad))

    x = lib.tensor([0.5, 1.5], requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t * 10):
        y = x.sin().sum()
    y.backward()
    out.append(repr(x.grad))

    outer, inner = [], []
    with graph.saved_tensors_hooks(lambda t: outer.append(1) or t, lambda t: t):
        with graph.saved_tensors_hooks(lambda t: inner.append(1) or t, lambda t: t):
            x.exp()
        x.sin()
    out.append(repr((outer, inner)))

    with graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.exp().sum()
    rec(lambda: y.backward())
    with graph.saved_tensors_hooks(lambda t: t, lambda t: lib.ones(3)):
        y = (x * x).sum()
    rec(lambda: y.backward())
    with graph.disable_saved_tensors_hooks("no hooks here"):
        rec(lambda: graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())

    x = lib.tensor([0.5, 1.5], requires_grad=True)
    with graph.save_on_cpu():
        y = (x * x).sum()
    y.backward()
    out.append(repr(x.grad))
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (x * x).sum()
    y.backward()
    rec(lambda: y.backward())
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (x * x).sum()
    with lib.no_grad():
        x.mul_(2)
    rec(lambda: y.backward())
    out.append(repr(x.grad))
    return out
