"""The conformance run shared by the composite ops' tests (issue 23): a call on a 2x3 float32
tensor that requires grad, described as PyTorch would be asked (each result's dtype, shape,
values, node name, strides, contiguity), then the gradient of a weighted sum of squares of every
output and that gradient's own gradient (create_graph); an exception's type and first line."""

from __future__ import annotations


def describe(r):
    if isinstance(r, (tuple, list)):
        return tuple(describe(a) for a in r)
    if hasattr(r, "tolist") and hasattr(r, "dtype"):
        return (str(r.dtype), tuple(r.shape), repr(r.tolist()), None if r.grad_fn is None else r.grad_fn.name(),
                r.stride(), r.is_contiguous())
    return repr(r)


def _grads(L, f):
    x = L.tensor([[0.5, 1.5, -2.0], [3.0, 4.25, -0.0]], requires_grad=True)
    r = f(L, x)
    rs = r if isinstance(r, tuple) else (r,)
    tot = None
    for y in rs:
        if y.numel() == 0 or not y.requires_grad:
            continue
        w = L.arange(y.numel(), dtype=y.dtype).reshape(y.shape) * 0.5 - 1
        t = (y * y * w).sum()
        tot = t if tot is None else tot + t
    if tot is None:
        return describe(r), None
    (g,) = L.autograd.grad(tot, x, create_graph=True)
    (h,) = L.autograd.grad(g.sum(), x, allow_unused=True)
    return describe(r), g.tolist(), None if h is None else h.tolist(), g.grad_fn.name() if g.grad_fn else None


def run(L, f):
    """``f(L, x)`` described with its gradients, or its exception's type and first line."""
    try:
        return _grads(L, f)
    except Exception as e:  # the refusal is compared
        return (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
