"""torch.autograd.graph.saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks: pack at
the op (in PyTorch's order, under no_grad), unpack when backward or ``_saved_*`` reads the
tensor, for built-in ops and custom Functions."""

from __future__ import annotations

import pytest

import scalargrad as torch
from scalargrad.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks


def test_pack_at_the_op_unpack_at_backward():
    log = []

    def pack(t):
        log.append(("pack", t.tolist(), torch.is_grad_enabled()))
        return t

    def unpack(t):
        log.append(("unpack", t.tolist()))
        return t

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = a * b  # mul saves other (for self's gradient), then self
        z = y * 2  # a Python number is not packed
        s = z.sum()  # sum saves no tensor
    assert log == [("pack", [3.0, 4.0], False), ("pack", [1.0, 2.0], False)]
    log.clear()
    s.backward(retain_graph=True)
    assert log == [("unpack", [3.0, 4.0]), ("unpack", [1.0, 2.0])]
    assert a.grad.tolist() == [6.0, 8.0] and b.grad.tolist() == [2.0, 4.0]
    log.clear()
    assert y.grad_fn._saved_other.tolist() == [3.0, 4.0] and log == [("unpack", [3.0, 4.0])]


@pytest.mark.no_sympy_check  # an unpack hook that changes the values changes the gradient on purpose
def test_unpacked_values_are_what_backward_uses():
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: t.tolist(), lambda p: torch.tensor(p, dtype=torch.float64)):
        (x * x).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0]
    x.grad = None
    with saved_tensors_hooks(lambda t: t, lambda t: t * 10):  # d sin / dx read at 10 x
        x.sin().sum().backward()
    assert x.grad.tolist() == pytest.approx([0.28366218546322625, -0.7596879128588213], abs=1e-15)


def test_saved_result_is_packed():
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    seen = []
    with saved_tensors_hooks(lambda t: seen.append(t.grad_fn.name()) or t, lambda t: t):
        e = x.exp()
    assert seen == ["ExpBackward0"]
    assert e.grad_fn._saved_result.grad_fn.name() == "ExpBackward0"


def test_nesting_uses_the_innermost_pair():
    outer, inner = [], []
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with saved_tensors_hooks(lambda t: outer.append(1) or t, lambda t: t):
        with saved_tensors_hooks(lambda t: inner.append(1) or t, lambda t: t):
            x.exp()
        x.sin()
    assert (outer, inner) == ([1], [1])


def test_errors():
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.exp().sum()
    with pytest.raises(TypeError, match="^Output of saved tensor unpack_hook expected to be a Tensor but got "
                                        "result of type int$"):
        y.backward()
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


@pytest.mark.no_sympy_check  # the saved tensor changes after the forward on purpose
def test_no_version_check_through_hooks():
    # PyTorch checks no version of a tensor saved through hooks: the changed values are used
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    w = torch.tensor([2.0, 3.0])
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (x * w).sum()
    w.mul_(2)
    y.backward()
    assert x.grad.tolist() == [4.0, 6.0]


def test_save_on_cpu_and_custom_functions():
    log = []

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            log.append("forward")
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * g * a

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: log.append("pack") or t, lambda t: log.append("unpack") or t):
        y = Square.apply(x)
    y.sum().backward()
    assert log == ["forward", "pack", "unpack"] and x.grad.tolist() == [2.0, 4.0]
    x.grad = None
    with save_on_cpu():
        (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


@pytest.mark.no_sympy_check  # the program's unpack hooks change gradients on purpose
def test_matches_pytorch(torch_ref):
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location("saved_hooks_cases",
                                                  pathlib.Path(__file__).parent / "saved_hooks_cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    assert cases.run(torch) == cases.run(torch_ref)


def _double_backward_through_hooks(lib) -> list:
    """Double backward of y = a * a (or of a non-leaf b = a * 1) whose saved tensors went
    through hooks: one pair that gives the elements back (2x, x/2), one that changes them."""
    out = []
    pairs = {"2x, x/2": (lambda x: 2 * x, lambda x: x / 2), "x, 3x": (lambda x: x, lambda x: x * 3)}
    for name, (pack, unpack) in pairs.items():
        for through in ("leaf", "non-leaf"):
            a = lib.tensor([2.0, -1.0], requires_grad=True)
            with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
                b = a if through == "leaf" else a * 1
                y = (b * b).sum()
            g, = lib.autograd.grad(y, a, create_graph=True)
            g2, = lib.autograd.grad(g.sum(), a)
            out.append((name, through, g.tolist(), g2.tolist()))
    return out


@pytest.mark.no_sympy_check  # the unpack hook that triples changes the gradient on purpose
def test_double_backward_reaches_the_leaf_through_hooks():
    got = _double_backward_through_hooks(torch)
    # g = grad * other + grad * self, each read through the hooks; both reach a, so g2 = 1 + 1
    assert got == [("2x, x/2", "leaf", [4.0, -2.0], [2.0, 2.0]), ("2x, x/2", "non-leaf", [4.0, -2.0], [2.0, 2.0]),
                   ("x, 3x", "leaf", [12.0, -6.0], [2.0, 2.0]), ("x, 3x", "non-leaf", [12.0, -6.0], [2.0, 2.0])]


@pytest.mark.no_sympy_check
def test_double_backward_through_hooks_matches_pytorch(torch_ref):
    assert _double_backward_through_hooks(torch) == _double_backward_through_hooks(torch_ref)


def _graph_names(fn) -> list:
    """The graph below ``fn`` as (name, next function names) rows, depth first, without recursion."""
    rows, stack = [], [fn]
    while stack:
        f = stack.pop()
        if f is None:
            continue
        nexts = [n for n, _ in f.next_functions]
        rows.append((f.name(), [None if n is None else n.name() for n in nexts]))
        stack.extend(reversed(nexts))
    return rows


def _graph_through_changing_hooks(lib) -> list:
    """create_graph through saved tensors a pack hook changed (``2 * t``): the double backward's
    nodes lead straight to the saved tensor's own node (SavedVariable::unpack gives the unpacked
    tensor the saved one's grad_fn or grad accumulator), for a saved leaf and a saved non-leaf
    (modes:10151:263 showed an AliasBackward0 in between)."""
    out = []
    v0 = lib.tensor([-1.5, 1.75, 2.75], dtype=lib.float64, requires_grad=True)
    v1 = lib.tensor([1.75, -1.0, 0.5], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: 2 * t, lambda t: t):
        y = v0 / v1
    g, = lib.autograd.grad((y * lib.tensor([0.25, 0.5, 0.75], dtype=lib.float64)).sum(), [v0], create_graph=True)
    out.append((_graph_names(g.grad_fn), g.tolist()))
    g.sum().backward()
    out.append((v0.grad, v1.grad.tolist()))
    a = lib.tensor(1.5, requires_grad=True)
    b = a * 3
    with lib.autograd.graph.saved_tensors_hooks(lambda t: 2 * t, lambda t: t):
        c = b * b
    g, = lib.autograd.grad(c, [a], create_graph=True)
    out.append((_graph_names(g.grad_fn), g.item()))
    g.backward()
    out.append(a.grad.item())
    return out


@pytest.mark.no_sympy_check  # the pack hook changes the saved values on purpose
def test_changing_pack_hook_graph_leads_to_the_saved_node(torch_ref):
    got = _graph_through_changing_hooks(torch)
    assert "AliasBackward0" not in str(got)
    assert got == _graph_through_changing_hooks(torch_ref)


_GIVE_BACK = {"identity": (lambda t: t, lambda t: t), "clone": (lambda t: t.clone(), lambda t: t),
              "2x, x/2": (lambda t: 2 * t, lambda t: t / 2), "tuple": (lambda t: (t, 1), lambda p: p[0]),
              "detach": (lambda t: t.detach(), lambda t: t)}


def _second_order_bits(lib, pair, graph: str) -> list:
    """Second-order gradients (as hex) of a graph of products and quotients of a non-leaf ``b``
    built under the hooks ``pair`` (None: no hooks): only IEEE-exact kernels, so the bits are
    every machine's."""
    a = lib.tensor([[0.3, -1.7, 2.9], [1.1, 0.7, -0.45]], requires_grad=True)
    w = lib.tensor([1.3, -0.9, 0.35], requires_grad=True)
    b = a * w

    def build():
        return b * b * b / w if graph == "cube" else (b * w) * (b * b)

    if pair is None:
        y = build()
    else:
        with lib.autograd.graph.saved_tensors_hooks(*_GIVE_BACK[pair]):
            y = build()
    z = (y * lib.tensor([0.25, 0.5, 0.75])).sum()
    g, = lib.autograd.grad(z, a, create_graph=True)
    g.sum().backward()
    return [x.hex() for x in a.grad.flatten().tolist() + w.grad.tolist()]


@pytest.mark.parametrize("graph", ["cube", "products"])
@pytest.mark.parametrize("pair", [None, *_GIVE_BACK])
def test_double_backward_through_give_back_hooks_sums_as_pytorch(torch_ref, pair, graph):
    # a saved non-leaf read through hooks is that node itself in the double backward: its
    # gradients are summed in its input buffer, in PyTorch's order (a copy of the node ran
    # its backward apart and summed the parts in another order: the last bits differed)
    assert _second_order_bits(torch, pair, graph) == _second_order_bits(torch_ref, pair, graph)


def _unpack_events(lib) -> list:
    ev = []
    x = lib.tensor([[1.25], [-0.75]], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: ev.append(("pack", list(t.shape))) or t,
                                                lambda t: ev.append(("unpack", list(t.shape))) or t):
        y = x.exp()
    g, = lib.autograd.grad((y * lib.tensor([0.25])).sum(), [x], create_graph=True)
    ev.append("second")
    g.sum().backward()
    return ev


def test_double_backward_unpacks_a_saved_result_again(torch_ref):
    # exp's gradient reads its saved result; the double backward goes through exp's node
    # again, which unpacks it again
    assert _unpack_events(torch) == _unpack_events(torch_ref)


def _disable_inside_hooks(lib) -> str:
    graph = lib.autograd.graph
    try:
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with graph.disable_saved_tensors_hooks("no hooks here"):
                return "entered"
    except RuntimeError as exc:
        return str(exc)


def test_disable_while_hooks_are_registered_refuses(torch_ref):
    assert _disable_inside_hooks(torch) == _disable_inside_hooks(torch_ref) == "no hooks here"


def _memory_observations(L) -> list:
    """What an unpacked saved tensor shares: a custom Function's unpacked input is the pack
    hook's tensor's memory (an in-place change in backward reaches it, never the leaf), a saved
    result shares the output's version counter; hook blocks entered or left by a hook inside
    backward end with it (PyTorch's backward runs on a copy of the thread's state)."""
    seen = []
    a = L.tensor(1.0, requires_grad=True)
    replacement = a.clone()

    class Test(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            x.add_(1)
            seen.append((a._version, a.item(), replacement._version, replacement.item(), x._version, x.item()))
            return grad_output

    with L.autograd.graph.saved_tensors_hooks(lambda x: replacement, lambda x: x):
        b = Test.apply(a)
    b.backward()
    seen.append((a.item(), a.grad.item()))
    e = L.exp(L.tensor([0.0, 1.0], requires_grad=True))
    result = e.grad_fn._saved_result
    with L.no_grad():
        e += 1
    seen.append((e._version, result._version, L.equal(e, result)))

    def leave(x):
        outer.__exit__()
        return x

    def enter(x):
        outer.__enter__()
        return x

    for unpack in (leave, enter):
        outer = L.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        x = L.tensor([0.5, 1.5], requires_grad=True)
        with outer:
            x.sin().sum().backward()
        y = L.tensor(1.0, requires_grad=True).exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)  # no block is left open
        seen.append(x.grad.tolist() == L.cos(x.detach()).tolist())
    return seen


def test_unpacked_tensors_share_memory_as_pytorchs(torch_ref):
    # exact small numbers, and booleans: sin's gradient compared with cos within each library
    assert _memory_observations(torch) == _memory_observations(torch_ref)


def _function_raw_saved(L) -> list:
    """A custom Function's ``_raw_saved_tensors``: SavedTensor objects, hooks registered on one
    of them run when backward reads ``saved_tensors``, PyTorch's errors around them."""
    seen, log = [], []

    def make(save: bool):
        class MyFn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if save:
                    ctx.save_for_backward(x, None)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                if save:
                    x, none = ctx.saved_tensors
                    log.append(("backward", x.tolist(), none))
                return g * 2

        return MyFn

    def words(fn):
        try:
            fn()
        except (RuntimeError, TypeError) as e:
            return type(e).__name__ + ": " + str(e).split("\n")[0][:60]
        return "no error"

    a = L.tensor([1.0, 2.0], requires_grad=True)
    y = make(True).apply(a)
    saved = y.grad_fn._raw_saved_tensors
    seen.append([type(s).__name__ for s in saved] + [isinstance(saved[0], L._C._autograd.SavedTensor)])
    seen.append(words(lambda: saved[1].register_hooks(lambda t: t, lambda t: t)))
    seen.append(words(lambda: saved[0].register_hooks(lambda t: t)))
    saved[0].register_hooks(lambda t: log.append(("pack", t.tolist())) or t,
                            lambda t: log.append(("unpack", t.tolist())) or t)
    seen.append(words(lambda: saved[0].register_hooks(lambda t: t, lambda t: t)))
    y.sum().backward()
    seen += [log, a.grad.tolist()]
    saved = None  # PyTorch: using SavedTensor objects after the graph is freed is undefined
    seen.append(words(lambda: y.grad_fn._raw_saved_tensors))
    seen.append(make(False).apply(a).grad_fn._raw_saved_tensors)
    return seen


def test_function_raw_saved_tensors_are_pytorchs(torch_ref):
    assert _function_raw_saved(torch) == _function_raw_saved(torch_ref)


def _post_hook_from_an_unpack_hook(L) -> list:
    """An unpack hook asks torch._C._current_autograd_node() for the node reading it (None
    outside backward) and registers a post-hook there that halves the inputs' gradients: both
    hooks (a is saved twice) run in that same backward, and are given no output gradients."""
    seen = [L._C._current_autograd_node()]

    def unpack(t):
        node = L._C._current_autograd_node()
        seen.append(node.name())

        def hook(grad_inputs, grad_outputs):
            seen.append(list(grad_outputs))
            return tuple(None if g is None else g / 2 for g in grad_inputs)

        node.register_hook(hook)
        return t

    a = L.tensor([1.0, 2.0, 4.0], requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        (a * a).sum().backward()  # d/da a^2 = 2a, halved twice
    seen.append(a.grad.tolist())
    return seen


@pytest.mark.no_sympy_check  # the hook, registered during backward, halves the gradients on purpose
def test_post_hook_registered_by_an_unpack_hook_by_hand():
    assert _post_hook_from_an_unpack_hook(torch) == [None, "MulBackward0", "MulBackward0", [], [], [0.5, 1.0, 2.0]]


@pytest.mark.no_sympy_check  # the same
def test_post_hook_registered_by_an_unpack_hook_is_pytorchs(torch_ref):
    assert _post_hook_from_an_unpack_hook(torch) == _post_hook_from_an_unpack_hook(torch_ref)
