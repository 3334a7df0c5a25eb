"""Hook order during backward, written as PyTorch's own hook tests are: every scenario records
the events it sees in a list, which is compared with the exact expected order.

Each scenario takes the library as its argument (``L`` is scalargrad, or real PyTorch under
the ``torch_ref`` fixture), so the same code and the same expected list are checked against
both. The expected lists were printed by PyTorch 2.13.0 (CPU) running these scenarios; the
first six are the measurements of section 3c of /work/shared/notes/pytorch-semantics.md.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad

from faithfulness import ulps

SCENARIOS: dict = {}
EXPECTED: dict = {}


def scenario(expected):
    def register(fn):
        SCENARIOS[fn.__name__] = fn
        EXPECTED[fn.__name__] = expected
        return fn

    return register


def _v(t):
    """A tensor (or tuple of tensors / None) as plain numbers, for the event lists."""
    if isinstance(t, (tuple, list)):
        return tuple(_v(x) for x in t)
    return None if t is None else t.item()


def events(L, name: str) -> list:
    ev: list = []
    SCENARIOS[name](L, ev)
    return ev


# ---------------------------------------------------------------- the notes' measurements


@scenario([("h1", 12.0), ("h2", 24.0), ("y.grad", 25.0), ("x.grad", 75.0)])
def retain_grad_stores_after_all_tensor_hooks(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = 3 * x
    z = y * y
    y.register_hook(lambda g: (ev.append(("h1", _v(g))), g * 2)[1])
    y.retain_grad()  # registered between the hooks, it still stores the value after both
    y.register_hook(lambda g: (ev.append(("h2", _v(g))), g + 1)[1])
    z.backward()
    ev.append(("y.grad", _v(y.grad)))
    ev.append(("x.grad", _v(x.grad)))


@scenario([("grad b", ["tensor b"]), ("grad a,b", ["tensor b", "pre mul", "post mul", "tensor a"]),
           ("backward", ["tensor b", "pre mul", "post mul", "tensor a", "pre acc", "post acc"]),
           ("backward inputs", ["tensor b", "pre mul", "post mul", "tensor a", "pre acc", "post acc"])])
def autograd_grad_does_not_run_the_accumulate_grad_node(L, ev):
    # autograd.grad captures a leaf's gradient: its tensor hook runs, its AccumulateGrad node's
    # pre- and post-hooks do not; backward (with or without inputs) runs the node
    a = L.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    log: list = []
    a.register_hook(lambda g: log.append("tensor a"))
    b.register_hook(lambda g: log.append("tensor b"))
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: log.append("post acc"))
    acc.register_prehook(lambda g: log.append("pre acc"))
    b.grad_fn.register_hook(lambda gi, go: log.append("post mul"))
    b.grad_fn.register_prehook(lambda g: log.append("pre mul"))
    for name, call in (("grad b", lambda: L.autograd.grad(c, inputs=(b,), retain_graph=True)),
                       ("grad a,b", lambda: L.autograd.grad(c, inputs=(a, b), retain_graph=True)),
                       ("backward", lambda: c.backward(retain_graph=True)),
                       ("backward inputs", lambda: c.backward(inputs=(a, b), retain_graph=True))):
        log.clear()
        call()
        ev.append((name, list(log)))


@scenario([("hook", 75.0, None), ("post-accumulate", 750.0), ("x.grad", 750.0)])
def leaf_hook_runs_before_accumulate_grad(L, ev):
    x = L.tensor(5.0, requires_grad=True)
    z = x * x * x

    def hook(g):
        ev.append(("hook", _v(g), _v(x.grad)))  # .grad is still None inside the hook
        return g * 10  # what is returned is what gets accumulated

    x.register_hook(hook)
    x.register_post_accumulate_grad_hook(lambda t: ev.append(("post-accumulate", _v(t.grad))))
    z.backward()
    ev.append(("x.grad", _v(x.grad)))


@scenario([("y", 7.0), ("x", 22.0), ("x.grad", 22.0)])
def tensor_used_twice_fires_once_with_the_sum(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: ev.append(("y", _v(g))))
    x.register_hook(lambda g: ev.append(("x", _v(g))))
    z = 2 * y + 5 * y + x
    z.backward()
    ev.append(("x.grad", _v(x.grad)))


@scenario([("x", 3.0), ("x", 4.0), ("x.grad", 7.0)])
def leaf_hook_sees_each_call_while_grad_accumulates(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    x.register_hook(lambda g: ev.append(("x", _v(g))))
    (x * 3).backward()
    (x * 4).backward()
    ev.append(("x.grad", _v(x.grad)))


@scenario([("tensor hook", 2.0), ("node pre-hook", (2.0,)), ("node post-hook", (14.778112411499023,), (2.0,))])
def tensor_hook_then_node_prehook_then_node_posthook(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x.exp()
    z = y * 2
    # registered in the reverse of the order they fire
    y.grad_fn.register_hook(lambda gi, go: ev.append(("node post-hook", _v(gi), _v(go))))
    y.grad_fn.register_prehook(lambda go: ev.append(("node pre-hook", _v(go))))
    y.register_hook(lambda g: ev.append(("tensor hook", _v(g))))
    z.backward()


@scenario([("y.grad", 2.0), ("x.grad", 753.6837158203125)])
def node_prehook_return_is_not_in_retained_grad(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x.exp()
    y.retain_grad()
    y.register_hook(lambda g: g * 2)
    y.grad_fn.register_prehook(lambda go: (go[0] + 100,))
    y.backward()
    ev.append(("y.grad", _v(y.grad)))  # after the tensor hook, before the pre-hook
    ev.append(("x.grad", _v(x.grad)))  # (2 + 100) * e**2


# ---------------------------------------------------------------- order over a whole graph


@scenario([
    ("d", 1.0), ("pre d", (1.0,)), ("post d", (1.0, 1.0)),
    ("c", 1.0), ("pre c", (1.0,)), ("post c", (3.0, 2.0)),
    ("b", 2.0), ("pre b", (2.0,)), ("post b", (6.0, None)),
    ("a", 4.0), ("pre a", (4.0,)), ("post a", (8.0, None)),
    ("x", 14.0), ("accumulated", 14.0),
])
def every_hook_of_a_diamond_in_engine_order(L, ev):
    x = L.tensor(1.0, requires_grad=True)
    a = x * 2
    b = x * 3
    c = a * b
    d = c + a
    for name, t in (("x", x), ("a", a), ("b", b), ("c", c), ("d", d)):
        t.register_hook(lambda g, n=name: ev.append((n, _v(g))))
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
        t.grad_fn.register_prehook(lambda go, n=name: ev.append(("pre " + n, _v(go))))
        # the Python number of ``x * 2`` shows up as a None input gradient
        t.grad_fn.register_hook(lambda gi, go, n=name: ev.append(("post " + n, _v(gi))))
    x.register_post_accumulate_grad_hook(lambda t: ev.append(("accumulated", _v(t.grad))))
    d.backward()


@scenario([("retain hook", 8.0, None), ("pre", (8.0,), 8.0)])
def retained_grad_is_stored_before_the_node_prehook(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 2
    z = y * y
    y.retain_grad()
    y.grad_fn.register_prehook(lambda go: ev.append(("pre", _v(go), _v(y.grad))))
    y.register_hook(lambda g: ev.append(("retain hook", _v(g), _v(y.grad))))
    z.backward()


@scenario([("tensor", 2.0), ("AccumulateGrad pre", (2.0,)), ("post-accumulate", 20.0),
           ("AccumulateGrad post", (), (20.0,)), ("x.grad", 20.0)])
def accumulate_grad_node_hooks(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is x
    acc.register_prehook(lambda go: (ev.append(("AccumulateGrad pre", _v(go))), (go[0] * 10,))[1])
    acc.register_hook(lambda gi, go: ev.append(("AccumulateGrad post", _v(gi), _v(go))))
    x.register_hook(lambda g: ev.append(("tensor", _v(g))))
    x.register_post_accumulate_grad_hook(lambda t: ev.append(("post-accumulate", _v(t.grad))))
    y.backward()
    ev.append(("x.grad", _v(x.grad)))


# ---------------------------------------------------------------- return values


@scenario([("first", 1.0), ("second", 1.0), ("third", 10.0), ("fourth", 10.0), ("x.grad", 20.0)])
def none_keeps_the_gradient_a_tensor_replaces_it(L, ev):
    x = L.tensor(1.0, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: ev.append(("first", _v(g))))  # returns None
    y.register_hook(lambda g: (ev.append(("second", _v(g))), g * 10)[1])
    y.register_hook(lambda g: ev.append(("third", _v(g))))  # sees the replacement
    y.register_hook(lambda g: (ev.append(("fourth", _v(g))), None)[1])
    y.backward()
    ev.append(("x.grad", _v(x.grad)))


@scenario([("post", (2.0, 2.0), (1.0,)), ("x.grad", 7.0)])
def node_posthook_replaces_input_gradients(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x * x
    z = y + 1

    def post(gi, go):
        ev.append(("post", _v(gi), _v(go)))
        return (gi[0] * 0 + 7, None)  # None: that input gets no gradient from here

    y.grad_fn.register_hook(post)
    z.backward()
    ev.append(("x.grad", _v(x.grad)))


@scenario([("a hook", None), ("x.grad", 4.0)])
def a_path_cut_by_a_posthook_reaches_hooks_as_none(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    a = x * 2
    y = a * x
    a.register_hook(lambda g: ev.append(("a hook", _v(g))))
    y.grad_fn.register_hook(lambda gi, go: (None, gi[1]))
    y.backward()
    ev.append(("x.grad", _v(x.grad)))  # only through the second factor: a = 4


@scenario([("w hook", None), ("y hook", None), ("grads", 1.0, None)])
def an_undefined_gradient_from_a_function_reaches_hooks_as_none(L, ev):
    class KeepFirst(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = L.tensor(2.0, requires_grad=True)
    y = L.tensor(3.0, requires_grad=True)
    w = y * 2
    w.register_hook(lambda g: ev.append(("w hook", _v(g))))
    y.register_hook(lambda g: ev.append(("y hook", _v(g))))
    KeepFirst.apply(x, w).backward()
    ev.append(("grads", _v(x.grad), _v(y.grad)))


@scenario([("y hook", 1.0), ("grads", 1.0, 1.0)])
def an_undefined_gradient_does_not_hold_back_the_others(L, ev):
    class KeepFirst(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = L.tensor(2.0, requires_grad=True)
    y = L.tensor(3.0, requires_grad=True)
    y.register_hook(lambda g: ev.append(("y hook", _v(g))))
    (KeepFirst.apply(x, y) + y).backward()
    ev.append(("grads", _v(x.grad), _v(y.grad)))


# ---------------------------------------------------------------- removal


@scenario([("a", 2.0), ("b", 2.0), ("a", 3.0), ("x.grad", 9.0)])
def removal_is_idempotent_and_works_as_a_context_manager(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    h = x.register_hook(lambda g: ev.append(("a", _v(g))))
    with x.register_hook(lambda g: ev.append(("b", _v(g)))):
        (x * 2).backward()
    (x * 3).backward()  # b is gone
    h.remove()
    h.remove()  # removing twice is harmless
    (x * 4).backward()  # no hook left
    ev.append(("x.grad", _v(x.grad)))


@scenario([("pre", (1.0,)), ("post", (3.0, None), (1.0,)), ("x.grad", 9.0)])
def node_hook_handles_remove(L, ev):
    x = L.tensor(1.0, requires_grad=True)
    y = x * 3
    h1 = y.grad_fn.register_prehook(lambda go: ev.append(("pre", _v(go))))
    h2 = y.grad_fn.register_hook(lambda gi, go: ev.append(("post", _v(gi), _v(go))))
    y.backward(retain_graph=True)
    h1.remove()
    h2.remove()
    y.backward(L.tensor(2.0))  # no event
    ev.append(("x.grad", _v(x.grad)))


@scenario([("h", 1.0), ("h2", 1.0), ("h2", 1.0)])
def a_hook_may_remove_itself(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 2
    handles = []

    def once(g):
        ev.append(("h", _v(g)))
        handles[0].remove()

    handles.append(y.register_hook(once))
    y.register_hook(lambda g: ev.append(("h2", _v(g))))
    y.backward(retain_graph=True)
    y.backward()


@scenario([("z", 1.0), ("y, registered during backward", 3.0)])
def a_hook_registered_during_backward_fires_in_that_backward(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 2
    z = y * 3

    def hook(g):
        ev.append(("z", _v(g)))
        y.register_hook(lambda g2: ev.append(("y, registered during backward", _v(g2))))

    z.register_hook(hook)
    z.backward()


@scenario([("x", 4.0), ("grad", 4.0, None)])
def autograd_grad_runs_leaf_hooks_but_accumulates_nothing(L, ev):
    x = L.tensor(2.0, requires_grad=True)
    y = x * x
    x.register_hook(lambda g: ev.append(("x", _v(g))))
    x.register_post_accumulate_grad_hook(lambda t: ev.append(("post-accumulate",)))
    (g,) = L.autograd.grad(y, x)
    ev.append(("grad", _v(g), _v(x.grad)))


# backward(inputs=[x]) accumulates through AccumulateGrad as a plain backward: its post-accumulate
# hook runs and its in-place change of .grad is what stays (1 * 3), then 3 + 1 * 3 tripled
@scenario([("post-accumulate", 1.0), ("x.grad", 3.0), ("post-accumulate", 4.0), ("x.grad", 12.0)])
def backward_with_inputs_runs_post_accumulate_hooks(L, ev):
    x = L.tensor(2.0, requires_grad=True)

    def triple(t):
        ev.append(("post-accumulate", _v(t.grad)))
        t.grad.mul_(3)

    x.register_post_accumulate_grad_hook(triple)
    L.autograd.backward([x * 1.0], inputs=[x])
    ev.append(("x.grad", _v(x.grad)))
    (x * 1.0).backward(inputs=[x])
    ev.append(("x.grad", _v(x.grad)))


# ---------------------------------------------------------------- issue 22: the fuzzer's hook defects


def _l(t):
    return None if t is None else t.tolist()


# an unbind node's pre-hook sees a 0-dim tensor for the used output and None for the others
# (scalargrad handed its hooks a tensor of no type: AttributeError, hooks:5151:301)
@scenario([("pre", (None, 3.0, None)), ("x.grad", [0.0, 12.0, 0.0])])
def unbind_node_prehook_sees_each_output(L, ev):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * 2).unbind(0)
    z = y[1] * 3
    y[1].grad_fn.register_prehook(lambda go: (ev.append(("pre", _v(go))), tuple(None if t is None else t * 2
                                                                                 for t in go))[1])
    z.backward()
    ev.append(("x.grad", _l(x.grad)))


@scenario([("pre", (None, None, 3.0)), ("grad", [0.0, 0.0, 12.0])])
def unbind_node_prehook_under_autograd_grad(L, ev):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * 2).unbind(0)
    z = y[2] * 3
    y[2].grad_fn.register_prehook(lambda go: (ev.append(("pre", _v(go))), tuple(None if t is None else t * 2
                                                                                 for t in go))[1])
    (g,) = L.autograd.grad(z, [x])
    ev.append(("grad", _l(g)))


# a node's post-hook sees None for an input whose edge backward(inputs=...) or autograd.grad
# prunes: PyTorch does not compute it (task_should_compute_output), hooks:5151:9
@scenario([("post", (3.0, None), (1.0,)), ("a.grad", 3.0), ("b.grad", None),
           ("post", (None, 2.0), (1.0,)), ("grad", 2.0)])
def node_posthook_sees_none_for_pruned_inputs(L, ev):
    a = L.tensor(2.0, requires_grad=True)
    b = L.tensor(3.0, requires_grad=True)
    c = a * b
    c.grad_fn.register_hook(lambda gi, go: ev.append(("post", _v(gi), _v(go))))
    c.backward(inputs=[a], retain_graph=True)
    ev.append(("a.grad", _v(a.grad)))
    ev.append(("b.grad", _v(b.grad)))
    (g,) = L.autograd.grad(c, [b])
    ev.append(("grad", _v(g)))


# register_multi_grad_hook counts each tensor by the node it had when the hook was registered:
# y changed in place afterwards (through a view) still fires on its old node (hooks:5151:35)
@scenario([("multi", ([0.0, 6.0], [0.0, 2.0])), ("x.grad", [0.0, 6.0])])
def multi_grad_hook_counts_the_node_at_registration(L, ev):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    s = y.select(0, 1)
    out = s * 2
    L.autograd.graph.register_multi_grad_hook([x, y], lambda gs: ev.append(("multi", tuple(_l(g) for g in gs))))
    s.mul_(5)
    out.backward()
    ev.append(("x.grad", _l(x.grad)))


# under create_graph AccumulateGrad stores a copy of the gradient (clone_obey_contract): a
# post-accumulate hook changing a.grad in place does not reach b, which got the same gradient
# from AddBackward0 (scalargrad stored that very tensor, and b.grad read 1.25: hooks:14:63)
@scenario([("post", [0.25]), ("a.grad", [1.25], False), ("b.grad", [0.25])])
def create_graph_accumulates_a_copy_of_a_shared_gradient(L, ev):
    a = L.tensor([-1.0], requires_grad=True)
    b = L.tensor([2.0], requires_grad=True)
    c = ((a + b) * L.tensor([0.25])).sum()
    a.register_post_accumulate_grad_hook(lambda p: (ev.append(("post", _l(p.grad))), p.grad.add_(1))[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True)'s reference-cycle warning
        c.backward(create_graph=True)
    ev.append(("a.grad", _l(a.grad), a.grad.requires_grad))
    ev.append(("b.grad", _l(b.grad)))


# ---------------------------------------------------------------- issue 22: outputs of a multi-output node
# PyTorch keeps a tensor hook on an output of split, chunk, unbind or a several-output Function as
# a tensor pre-hook of the shared node: when that node runs, every hooked output's hooks run, in
# the order the outputs got their first hook, each on its output's gradient (None where none came),
# then the retained outputs' .grad is stored, then the node's pre-hooks run.


def _hook(ev, name, times=None):
    def hook(g):
        ev.append((name, _l(g)))
        return None if times is None or g is None else g * times
    return hook


@scenario([("y1", None), ("y0", [1.0, 1.0]), ("u2", None), ("e1", None)])
def every_hooked_output_fires_with_none_for_an_unused_one(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(_hook(ev, "y1"))
    y0.register_hook(_hook(ev, "y0"))
    y0.sum().backward()
    u = (a * 3).unbind()
    u[2].register_hook(_hook(ev, "u2"))
    (u[0] * 2).backward()
    e0, e1 = (a * 1).chunk(2)
    e1.register_hook(_hook(ev, "e1"))
    L.autograd.grad(e0.sum(), a)
    g0, g1 = (a * 1)[:2], (a * 1)[2:]  # slices are nodes of their own: g1's hook does not fire
    g1.register_hook(_hook(ev, "g1"))
    g0.sum().backward()


@scenario([("y2a", None), ("y2b", None), ("y0", [1.0, 1.0]), ("y1", [3.0, 3.0])])
def output_hooks_run_in_the_order_outputs_got_their_first_hook(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
    y = (a * 2).split(2)
    y[2].register_hook(_hook(ev, "y2a"))
    y[0].register_hook(_hook(ev, "y0"))
    y[2].register_hook(_hook(ev, "y2b"))
    y[1].register_hook(_hook(ev, "y1"))
    (y[1].sum() * 3 + y[0].sum()).backward()


@scenario([("y0 new", None), ("y1", [1.0, 1.0])])
def a_removed_hook_leaves_its_output_in_its_place(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    handle = y0.register_hook(_hook(ev, "y0 old"))
    y1.register_hook(_hook(ev, "y1"))
    handle.remove()
    y0.register_hook(_hook(ev, "y0 new"))
    y1.sum().backward()


@scenario([("u1", None), ("u1b", None), ("u0", 3.0)])
def several_hooks_on_an_unbind_output(L, ev):
    a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    u = (a * 1).unbind()
    u[1].register_hook(_hook(ev, "u1"))
    u[0].register_hook(_hook(ev, "u0"))
    u[1].register_hook(_hook(ev, "u1b"))
    (u[0] * u[2]).backward()


@scenario([("y1", None)])
def a_hooked_output_dropped_by_the_program_still_fires(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(_hook(ev, "y1"))
    del y1
    y0.sum().backward()


@scenario([("y1", [1.0, 1.0], None), ("y0", [2.0, 2.0], None), ("pre", ([2.0, 2.0], [1.0, 1.0]), [2.0, 2.0]),
           ("y0.grad", [2.0, 2.0])])
def a_retained_output_is_stored_after_every_outputs_hooks(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y0.retain_grad()
    y1.register_hook(lambda g: ev.append(("y1", _l(g), _l(y0.grad))))
    y0.register_hook(lambda g: ev.append(("y0", _l(g), _l(y0.grad))))
    y0.grad_fn.register_prehook(lambda go: ev.append(("pre", tuple(map(_l, go)), _l(y0.grad))))
    (y0.sum() * 2 + y1.sum()).backward()
    ev.append(("y0.grad", _l(y0.grad)))


@scenario([("y1", None), ("y1.grad", None)])
def a_retained_output_without_a_gradient_keeps_none(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.retain_grad()
    y1.register_hook(_hook(ev, "y1"))
    y0.backward(L.ones(2))
    ev.append(("y1.grad", _l(y1.grad)))


@scenario([("y1", [1.0, 1.0]), ("y1b", [10.0, 10.0]), ("y0", [1.0, 1.0]),
           ("a.grad", [2.0, 2.0, 20.0, 20.0]), ("y1.grad", [10.0, 10.0])])
def an_output_hooks_replacement_reaches_its_later_hooks_grad_and_the_node(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(_hook(ev, "y1", 10))
    y1.register_hook(_hook(ev, "y1b"))
    y0.register_hook(_hook(ev, "y0"))
    y1.retain_grad()
    (y1.sum() + y0.sum()).backward()
    ev.append(("a.grad", _l(a.grad)))
    ev.append(("y1.grad", _l(y1.grad)))


# autograd.grad with an output among its inputs captures that output's gradient at the shared
# node: after the hooks when the node stops there, before them when it runs on to another input
@scenario([("y1", None), ("y0", [2.0, 2.0]), ("grad", ([20.0, 20.0],)),
           ("y1", None), ("y0", [2.0, 2.0]), ("grad", ([2.0, 2.0], [40.0, 40.0, 0.0, 0.0]))])
def autograd_grad_of_an_output_runs_every_outputs_hooks(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(_hook(ev, "y1"))
    y0.register_hook(_hook(ev, "y0", 10))
    ev.append(("grad", tuple(map(_l, L.autograd.grad(y0.sum() * 2, [y0])))))
    ev.append(("grad", tuple(map(_l, L.autograd.grad(y0.sum() * 2, [y0, a])))))


@scenario([("y1", [2.0, 4.0]), ("grad", ([20.0, 40.0], [6.0, 8.0])),
           ("y1", [2.0, 4.0]), ("grad", ([2.0, 4.0], [6.0, 8.0], [12.0, 16.0, 40.0, 80.0]))])
def autograd_grad_of_both_outputs(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(_hook(ev, "y1", 10))
    ev.append(("grad", tuple(map(_l, L.autograd.grad((y0 * y1).sum(), [y1, y0])))))
    ev.append(("grad", tuple(map(_l, L.autograd.grad((y0 * y1).sum(), [y1, y0, a])))))


@scenario([("b", [2.0, 2.0]), ("grad", ([2.0, 2.0], [40.0, 40.0]))])
def autograd_grad_captures_a_single_output_before_its_hooks_when_its_node_runs_on(L, ev):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b.register_hook(_hook(ev, "b", 10))
    ev.append(("grad", tuple(map(_l, L.autograd.grad((b * 2).sum(), [b, a])))))


@scenario([("y1", None), ("y0", [4.0, 8.0], True), ("grad", [8.0, 16.0, 0.0, 0.0], True)])
def output_hooks_under_create_graph(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(_hook(ev, "y1"))
    y0.register_hook(lambda g: ev.append(("y0", _l(g), g.requires_grad)))
    (g,) = L.autograd.grad((y0 ** 2).sum(), a, create_graph=True)
    ev.append(("grad", _l(g), g.requires_grad))


# backward(inputs=[t]) calls t.retain_grad() for good (and runs t's node), as PyTorch's does
@scenario([("y1", None), ("y0", [2.0, 2.0]), ("pre", ([20.0, 20.0], None)), ("y0.grad", [20.0, 20.0], True, None),
           ("y1", None), ("y0", [2.0, 2.0]), ("pre", ([20.0, 20.0], None)), ("y0.grad", [40.0, 40.0], True, None)])
def backward_with_an_output_as_input_retains_it(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(_hook(ev, "y1"))
    y0.register_hook(_hook(ev, "y0", 10))
    y0.grad_fn.register_prehook(lambda go: ev.append(("pre", tuple(map(_l, go)))))
    for _ in range(2):
        (y0.sum() * 2).backward(inputs=[y0])
        ev.append(("y0.grad", _l(y0.grad), y0.retains_grad, _l(a.grad)))


@scenario([("y0.grad", [2.0, 2.0]), ("b.grad", [2.0, 2.0])])
def backward_with_a_retained_input_stores_once(L, ev):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y0.retain_grad()
    (y0.sum() * 2).backward(inputs=[y0])
    ev.append(("y0.grad", _l(y0.grad)))
    b = a[:2] * 2
    b.retain_grad()
    (b.sum() * 2).backward(inputs=[b])
    ev.append(("b.grad", _l(b.grad)))


@scenario([("b", [2.0, 2.0]), ("pre", ([2.0, 2.0],)), ("post", (None, None)), ("b.grad", [2.0, 2.0], None, True)])
def backward_with_a_non_leaf_input_runs_its_node(L, ev):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b.grad_fn.register_prehook(lambda go: ev.append(("pre", tuple(map(_l, go)))))
    b.grad_fn.register_hook(lambda gi, go: ev.append(("post", tuple(map(_l, gi)))))
    b.register_hook(_hook(ev, "b"))
    (b * 2).sum().backward(inputs=[b])
    ev.append(("b.grad", _l(b.grad), _l(a.grad), b.retains_grad))


def _two_outputs(L, ev):
    class TwoOutputs(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g0, g1):
            ev.append(("backward", _l(g0), _l(g1)))
            return g0 * 2 + g1 * 3

    return TwoOutputs


@scenario([("q", None), ("p", [4.0, 8.0]), ("backward", [4.0, 8.0], [0.0, 0.0]), ("a.grad", [8.0, 16.0])])
def a_functions_unused_output_hook_sees_none_its_backward_zeros(L, ev):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    p, q = _two_outputs(L, ev).apply(a)
    q.register_hook(_hook(ev, "q"))
    p.register_hook(_hook(ev, "p"))
    (p * p).sum().backward()
    ev.append(("a.grad", _l(a.grad)))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    assert events(scalargrad, name) == EXPECTED[name]


# scenarios whose figures hold PyTorch's exp(2), whose last bit depends on the processor (MKL):
# a figure there is exp(2) times one or two roundings, within 2 ulp of the capture machine's
MACHINE_DEPENDENT = {"tensor_hook_then_node_prehook_then_node_posthook", "node_prehook_return_is_not_in_retained_grad"}


def _close(got, want) -> bool:
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(map(_close, got, want))
    if isinstance(want, float) and isinstance(got, float):
        return ulps(got, want) <= 2
    return got == want


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_matches_torch(name, torch_ref):
    got = events(torch_ref, name)
    if name in MACHINE_DEPENDENT:
        assert _close(tuple(got), tuple(EXPECTED[name])), got
    else:
        assert got == EXPECTED[name]


# ---------------------------------------------------------------- errors, in PyTorch's words

ERRORS = {
    "hook on a tensor that does not require grad": (
        lambda L: L.tensor(2.0).register_hook(lambda g: g),
        RuntimeError, "cannot register a hook on a tensor that doesn't require gradient"),
    "post-accumulate hook on a non-leaf": (
        lambda L: (L.tensor(2.0, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda t: None),
        RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf tensors"),
}


def _hook_returns_float(L):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: 5.0)
    y.backward()


def _prehook_returns_two(L):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    y.backward()


def _posthook_returns_two(L):
    x = L.tensor(2.0, requires_grad=True)
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    y.backward()


def _output_hook_replaces_none(L):
    a = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y0, y1 = (a * 2).split(2)
    y1.register_hook(lambda g: L.ones(2))
    y0.sum().backward()


ERRORS.update({
    "hook replacing an unused output's None gradient": (
        _output_hook_replaces_none, RuntimeError, "can't replace a None gradient with a non-None value"),
    "tensor hook returning a float": (_hook_returns_float, TypeError, "expected Variable, but hook returned 'float'"),
    "pre-hook returning two values for one": (
        _prehook_returns_two, RuntimeError,
        "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"),
    "post-hook returning two values for one": (
        _posthook_returns_two, RuntimeError,
        "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"),
})


def _raised(L, fn, exc_type):
    with pytest.raises(exc_type) as info:
        fn(L)
    return str(info.value)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name):
    fn, exc_type, text = ERRORS[name]
    assert _raised(scalargrad, fn, exc_type) == text


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(name, torch_ref):
    fn, exc_type, text = ERRORS[name]
    assert _raised(torch_ref, fn, exc_type) == text


# ---------------------------------------------------------------- a multi-output Function (issue 22)


def _multi_output_hooks(L):
    ev: list = []

    class Split(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, a, b):
            ev.append(("backward", _v(a), _v(b)))
            return a * 2 + b * 3

    x = L.tensor(1.0, requires_grad=True)
    p, q = Split.apply(x)
    p.register_hook(lambda g: ev.append(("p", _v(g))))
    q.register_hook(lambda g: ev.append(("q", _v(g))))
    (p * 5 + q * 7).backward()
    return ev


MULTI_OUTPUT_EXPECTED = [("p", 5.0), ("q", 7.0), ("backward", 5.0, 7.0)]


def test_multi_output_function_hooks_match_torch(torch_ref):
    assert _multi_output_hooks(torch_ref) == MULTI_OUTPUT_EXPECTED


def test_multi_output_function_hooks_run_in_registration_order():
    assert _multi_output_hooks(scalargrad) == MULTI_OUTPUT_EXPECTED
