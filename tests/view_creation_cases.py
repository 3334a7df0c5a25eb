"""The program test_view_creation_meta.py runs on scalargrad and on PyTorch (``lib``): views
made with grad mode off (no_grad, set_grad_enabled(False), inference_mode), then used, changed
in place, or left while their base changes, with every flag, error and gradient recorded."""

MODES = ("no_grad", "set_grad_enabled", "inference_mode")
VIEWS = {"view": lambda t: t.view(-1), "select": lambda t: t[0], "t": lambda t: t.t(),
         "slice": lambda t: t[:, 1:], "detach_select": lambda t: t.detach()[0]}


def _mode(lib, name):
    if name == "no_grad":
        return lib.no_grad()
    if name == "set_grad_enabled":
        return lib.set_grad_enabled(False)
    return lib.inference_mode()


def _flags(t):
    return (t.requires_grad, t.is_leaf, None if t.grad_fn is None else t.grad_fn.name(), t.is_inference(),
            t._is_view())


def _edges(t):
    return [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]


def _listed(t):
    return None if t is None else t.tolist()


def _one(lib, rec, mode: str, make, base: str) -> None:
    """One view maker on one kind of base under one mode: every observation, in order."""

    def fresh():
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=base != "constant")
        return x, (x * 1 if base == "non-leaf" else x)

    x, b = fresh()
    with _mode(lib, mode):
        v = make(b)
    rec("flags", lambda: _flags(v))
    rec("base", lambda: (v._base is b, v._base is x))
    w = lib.tensor(2.0, requires_grad=True)
    rec("used", lambda: (_flags(v * w), _edges(v * w)))
    rec("changed", lambda: _flags(v.mul_(2)))
    rec("changed by a requires-grad operand", lambda: _flags(v.mul_(w)))
    rec("view of it changed", lambda: _flags(v[0].mul_(2)))
    x, b = fresh()
    with _mode(lib, mode):
        c = make(b)
        c.add_(1)  # changed inside the mode
    rec("changed inside, read", lambda: (repr(c), _flags(c)))
    rec("changed inside, used", lambda: _flags(c * w))
    x, b = fresh()
    with _mode(lib, mode):
        d = make(b)
    u = d[0]
    rec("base changed", lambda: _flags(b.add_(1)) if base == "non-leaf" else None)
    rec("then read", lambda: (repr(d), _flags(d)))
    rec("then used", lambda: _flags(d * w))
    rec("its view read", lambda: _flags(u))
    x, b = fresh()
    with _mode(lib, mode):
        e = make(b)
    rec("backward", lambda: ((e * w).sum().backward(), _listed(x.grad), _listed(e.grad), _listed(w.grad)))


def run(lib) -> list:
    out = []
    for mode in MODES:
        for vname, make in VIEWS.items():
            for base in ("leaf", "non-leaf", "constant"):
                at = f"{mode}/{vname}/{base} "

                def rec(label, f, at=at):
                    try:
                        r = f()
                    except Exception as exc:  # the message is what is compared
                        r = f"{type(exc).__name__}: {exc}"
                    out.append((at + label, r))

                _one(lib, rec, mode, make, base)
    return out


def run_follow(lib) -> list:
    """Views made before their base's requires_grad changes: their flag follows the base's (no
    history, no AccumulateGrad), unless it was set on the view itself."""
    out = []

    def rec(label, f):
        try:
            r = f()
        except Exception as exc:  # the message is what is compared
            r = f"{type(exc).__name__}: {exc}"
        out.append((label, r))

    x = lib.ones(2, 2)
    v = x[0]
    x.requires_grad_()
    rec("view", lambda: _flags(v))
    rec("used", lambda: (_flags(v * 2), _edges(v * 2)))
    rec("backward", lambda: ((v * 3).sum().backward(), _listed(v.grad), _listed(x.grad)))
    rec("changed", lambda: v.mul_(2))
    x.requires_grad_(False)
    rec("base off", lambda: (_flags(v), _listed(v.mul_(2))))
    y = lib.ones(2, 2)
    w = y[1]
    w.requires_grad_()
    y.requires_grad = True
    rec("own flag", lambda: ((w * 2).sum().backward(), _listed(w.grad), _listed(y.grad)))
    return out
