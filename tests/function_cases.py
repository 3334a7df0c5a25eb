"""Custom autograd.Function plumbing: the program test_function_plumbing.py runs on scalargrad and on
PyTorch (``lib``)."""


def run(lib) -> list:
    out = []
    Function = lib.autograd.Function

    def rec(f):
        try:
            out.append(repr(f()))
        except Exception as exc:  # the message is what is compared
            out.append(f"{type(exc).__name__} {exc}")

    class NewStyle(Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.k = k
            ctx.save_for_backward(x)
            out.append(("setup", type(output).__name__, ctx.needs_input_grad))

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.k, None

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = NewStyle.apply(x, 3.0)
    out.append(repr(y))
    y.sum().backward()
    out.append(repr(x.grad))
    rec(lambda: NewStyle.apply(lib.tensor([1.0]), 2.0))

    class NonDiff(Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax()
            mx = x.max()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return mx, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            x, idx = ctx.saved_tensors
            out.append(("nondiff grads", repr(g), repr(g_idx)))
            r = lib.zeros_like(x)
            r[idx] = g
            return r

    x = lib.tensor([1.0, 5.0, 2.0], requires_grad=True)
    mx, idx = NonDiff.apply(x)
    out.append((repr(mx), repr(idx), idx.requires_grad, mx.requires_grad))
    mx.backward()
    out.append(repr(x.grad))

    class NoMaterialize(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, g1, g2):
            out.append(("materialize", g1 is None, g2 is None))
            return g1 if g1 is not None else g2

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b = NoMaterialize.apply(x)
    a.sum().backward()
    out.append(repr(x.grad))

    class Materialize(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, g1, g2):
            out.append(("materialized", repr(g2)))
            return g1 + g2

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a, b = Materialize.apply(x)
    a.sum().backward()

    class Dirty(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    rec(lambda: Dirty.apply(x))
    h = x.clone()
    v0 = h._version
    r = Dirty.apply(h)
    out.append((r is h, repr(r), h._version - v0, repr(h.grad_fn)[:30]))
    r.sum().backward()
    out.append(repr(x.grad))

    class Saves(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = Saves.apply(h)
    with lib.no_grad():
        h.add_(1)
    rec(lambda: y.sum().backward())
    y = Saves.apply(x)
    y.sum().backward()
    rec(lambda: y.grad_fn.saved_tensors)
    rec(lambda: y.sum().backward())

    class Needs(Function):
        @staticmethod
        def forward(ctx, a, b, c):
            out.append(("needs", ctx.needs_input_grad))
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    Needs.apply(lib.tensor(1.0, requires_grad=True), lib.tensor(2.0), 3)

    class Once(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            out.append(("once grad mode", lib.is_grad_enabled(), g.requires_grad))
            return g * 3

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = lib.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
    out.append((repr(gx), gx.requires_grad))
    rec(lambda: gx.sum().backward())
    (gx,) = lib.autograd.grad(Once.apply(x).sum(), x)
    out.append(repr(gx))

    class NonTensor(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 7, "label"

        @staticmethod
        def backward(ctx, g, g2, g3):
            out.append(("nontensor grads", repr(g), g2, g3))
            return g * 2

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    r = NonTensor.apply(x)
    out.append(repr(r))
    r[0].sum().backward()
    out.append(repr(x.grad))

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            return y, y

        @staticmethod
        def backward(ctx, g1, g2):
            out.append(("twice", repr(g1), repr(g2)))
            return g1 * 2 + g2 * 2

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    p, q = Twice.apply(x)
    out.append((p is q, p.output_nr, q.output_nr))
    (p.sum() + 10 * q.sum()).backward()
    out.append(repr(x.grad))

    class Trailing(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    Trailing.apply(x).sum().backward()
    out.append(repr(x.grad))

    class TooMany(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    rec(lambda: TooMany.apply(x).sum().backward())

    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = Identity.apply(x)
    out.append((y is x, repr(y), y._base is x, y.is_leaf))
    y.sum().backward()
    out.append(repr(x.grad))

    class Plain(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b + 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    rec(lambda: Plain.apply(2.0, 3))
    rec(lambda: Plain.apply(lib.tensor(2.0, requires_grad=True), 3.0))

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out.append((x.output_nr, (x * 2).output_nr))
    a, b = (x * 1).unbind()
    out.append((a.output_nr, b.output_nr))
    p = lib.nn.Parameter()
    out.append((repr(p), p.shape, p.requires_grad))
    return out
