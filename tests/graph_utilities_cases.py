"""register_multi_grad_hook, get_gradient_edge, increment_version, Node: the program
test_graph_utilities.py runs on scalargrad and on PyTorch (``lib``)."""


def run(lib) -> list:
    graph = lib.autograd.graph
    out = []

    def rec(f):
        try:
            out.append(repr(f()))
        except Exception as exc:  # the message is what is compared
            out.append(f"{type(exc).__name__} {exc}")

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    d = a * b

    def fn(grads):
        out.append(("all", [None if g is None else g.tolist() for g in grads]))

    h = graph.register_multi_grad_hook((a, b, c, d), fn)
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c.sum() + d.sum()).backward(retain_graph=True)
    rec(lambda: lib.autograd.grad(d.sum(), (b,), retain_graph=True))
    h.remove()
    c.sum().backward(retain_graph=True)
    out.append("removed")

    def first(g):
        out.append(("any", g.tolist()))

    h = graph.register_multi_grad_hook((a, c), first, mode="any")
    (c * 2).sum().backward(retain_graph=True)
    (a * 3).sum().backward()
    h.remove()
    rec(lambda: graph.register_multi_grad_hook((a,), first, mode="some"))

    # hooks on a chain: the multi hook fires when the last of them has its gradient
    x = lib.tensor(2.0, requires_grad=True)
    y = x * x
    z = y.exp()
    events = []
    y.register_hook(lambda g: events.append("y"))
    graph.register_multi_grad_hook((x, y, z), lambda gs: events.append(("multi", [float(g) for g in gs])))
    x.register_hook(lambda g: events.append("x"))
    (z * 1).backward()
    out.append(events)

    e = graph.get_gradient_edge(c)
    out.append((e.node.name(), e.output_nr, type(e).__name__))
    e = graph.get_gradient_edge(a)
    out.append((e.node.name(), e.output_nr))
    rec(lambda: graph.get_gradient_edge(lib.tensor(1.0)))
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    m = w * 3
    loss = (m * m).sum()
    out.append(repr(lib.autograd.grad(loss, graph.get_gradient_edge(m), retain_graph=True)))
    out.append(repr(lib.autograd.grad(loss, (graph.get_gradient_edge(w), m))))

    v = lib.tensor([1.0, 2.0])
    out.append(v._version)
    graph.increment_version(v)
    graph.increment_version([v, v])
    out.append(v._version)
    s = lib.tensor([1.0, 2.0], requires_grad=True)
    t = s * s
    graph.increment_version(s)
    rec(lambda: t.sum().backward())

    out.append((isinstance(c.grad_fn, graph.Node), isinstance(a, graph.Node),
                issubclass(type(c.grad_fn), graph.Node)))
    return out
