"""The backward engine: one sweep over the graph in PyTorch's order, no recursion.

PyTorch's CPU engine runs, among the nodes whose consumers have all delivered, the most
recently created one first (a max-heap on ``sequence_nr``, ``CompareNodeTaskTime``). A node's
inputs are always older than the node, so creation order is a topological order, and the
newest node not yet run is always ready. PyTorch's order is therefore simply: every reachable
node, newest first. The engine collects the reachable nodes with an iterative walk, sorts them
by creation number (the walk yields nearly sorted runs, which Timsort merges in linear time)
and sweeps. Gradients arriving at a node are summed in arrival order, as PyTorch's InputBuffer
does, so float32 sums round exactly as PyTorch's.

Leaves are where PyTorch's AccumulateGrad runs: with the highest priority, as soon as the last
gradient for the leaf has arrived. Leaves therefore keep a count of pending deliveries, so that
their hooks fire at the same moment as in PyTorch. That moment can only be observed by code
that runs during backward (hooks, custom Functions), so a plain backward call starts in
``_fast_sweep``, which needs neither the walk nor the counts, and hands over to the exact sweep
at the first node where it could matter.

Nodes without hooks take a short path; anything recorded in a Value's ``_ext`` (tensor
hooks, retain_grad, node hooks, outputs of multi-output Functions) goes through
``_run_hooked``.
"""

from __future__ import annotations

from heapq import heappop, heappush
from operator import attrgetter

from .. import ops
from ..value import MANY, Value, _ext, leaf, make
from . import grad_mode
from .groups import Pending
from .kernels import GraphKernel

_VERSION_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{kind} []]{which} is at version {now}; expected version {then} instead. Hint: "
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
_TENSOR_KIND = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor"}
_ABSENT = object()  # no gradient reached the node (None means an undefined gradient did)


def _route(u: Value, v: Value, check: bool) -> Value:
    """The version of ``u`` that ``v`` consumed: ``u`` was changed in place after ``v`` was made
    (its stamp is newer). A rebased Value's older versions hang off its first input."""
    versions = 0
    w = u
    while w._seq > v._seq and w._op is not None:
        w = w._a
        versions += 1
    if check and v._op.saves_inputs:
        which = ""
        if u._op is not None:
            which = f", which is output 0 of {u.grad_fn.name().replace('Backward0', '')},"
        raise RuntimeError(_VERSION_ERROR.format(
            kind=_TENSOR_KIND.get(u._t.dtype.name, "torch.Tensor"), which=which,
            now=max(versions, 1), then=0))
    return w


def _discover(roots) -> tuple[list, dict, set]:
    """The reachable non-leaf nodes, newest first, each reachable leaf's delivery count, and the
    set of reachable non-leaf nodes."""
    seen = set()
    leaves: dict = {}
    order = []
    stack = []
    for r in roots:
        if r._op is None:
            leaves.setdefault(r, 0)
        elif r not in seen:
            seen.add(r)
            stack.append(r)
    mark = seen.add
    push = stack.append
    pop = stack.pop
    emit = order.append
    # Other inputs go on the stack; the first input is walked to next, so a chain never
    # touches the stack (a loop over a tuple of inputs per node was a third of the walk).
    while stack:
        v = pop()
        while True:
            emit(v)
            vseq = v._seq
            b = v._b
            if b is not None:
                for u in (b,) if b is not MANY else v._a:
                    if u._rg:
                        if u._seq > vseq:
                            u = _route(u, v, False)
                        if u._op is None:
                            leaves[u] = leaves.get(u, 0) + 1
                        elif u not in seen:
                            mark(u)
                            push(u)
                if b is MANY:
                    break
            u = v._a
            if not u._rg:
                break
            if u._seq > vseq:
                u = _route(u, v, False)
            if u._op is None:
                leaves[u] = leaves.get(u, 0) + 1
                break
            if u in seen:
                break
            mark(u)
            v = u
    order.sort(key=_seq_key, reverse=True)
    return order, leaves, seen


_seq_key = attrgetter("_seq")


def _needed(order: list, inputs) -> set:
    """Nodes from which one of ``inputs`` can be reached (autograd.grad prunes the rest)."""
    need = set(inputs)
    for v in reversed(order):  # oldest first: a node's inputs are decided before it
        if v in need:
            continue
        vseq = v._seq
        for u in v._in:
            if u._rg and (_route(u, v, False) if u._seq > vseq else u) in need:
                need.add(v)
                break
    return need


def _wrap(g, t):
    return g if isinstance(g, Value) else leaf(g, t)


def _unwrap(g, graph: bool):
    if g is None or graph:
        return g
    return g._val if isinstance(g, Value) else g


class _Run:
    """State of one backward call (so that a hook may itself call backward)."""

    __slots__ = ("graph", "keep", "capture", "accumulate", "captured", "need", "nodes", "leaves",
                 "pending")

    def __init__(self, graph, keep, capture, accumulate, need, nodes, leaves):
        self.graph = graph
        self.keep = keep
        self.capture = capture  # the inputs of autograd.grad / backward(inputs=...), or None
        self.accumulate = accumulate
        self.captured = {}
        self.need = need
        self.nodes = nodes  # the reachable non-leaf nodes
        self.leaves = leaves  # reachable leaf -> deliveries still to come
        self.pending = Pending()  # element gradients held back for whole-tensor hooks


observers: list = []
"""Callables ``obs(roots, grads, keep_graph, create_graph, inputs, accumulate)`` told of every
backward call on entry, before any saved value is freed (``symbolic.check_every_backward``).
One may return a callable, called with the call's result once it has finished. When the list
is empty a backward call pays one truth test for it, not one per node."""


def run_backward(roots, grads, keep_graph: bool, create_graph: bool, inputs=None,
                 accumulate: bool = True, allow_unused: bool = False):
    """Backpropagate ``grads`` from ``roots`` (see ``_run_backward``), telling ``observers``."""
    if not observers:
        return _run_backward(roots, grads, keep_graph, create_graph, inputs, accumulate, allow_unused)
    finish = [f for f in [obs(roots, grads, keep_graph, create_graph, inputs, accumulate)
                          for obs in list(observers)] if f is not None]
    result = _run_backward(roots, grads, keep_graph, create_graph, inputs, accumulate, allow_unused)
    for f in finish:
        f(result)
    return result


def _run_backward(roots, grads, keep_graph: bool, create_graph: bool, inputs=None,
                  accumulate: bool = True, allow_unused: bool = False):
    """Backpropagate ``grads`` (floats, or Values with create_graph) from ``roots``.

    With ``inputs``, only gradients reaching them are computed; ``accumulate=False`` returns
    them (autograd.grad) instead of adding them to ``.grad``.
    """
    plain = inputs is None and not create_graph and all(r._ext is None and g is not None
                                                          for r, g in zip(roots, grads))
    if plain:
        run = _Run(False, keep_graph, None, True, None, None, None)
    else:
        order, leaves, nodes = _discover(roots)
        need = None
        if inputs is not None:
            need = _needed(order, inputs)
            for i in inputs:
                if i._op is not None:
                    _ext(i)  # a non-leaf input is captured on the hooked path
        run = _Run(create_graph, keep_graph, set(inputs) if inputs is not None else None, accumulate, need,
                   nodes, leaves)
    prev_mode = grad_mode._state.enabled
    grad_mode._state.enabled = create_graph
    try:
        if plain:
            _fast_sweep(run, roots, grads)
        else:
            _execute(run, roots, grads, order, leaves)
    finally:
        grad_mode._state.enabled = prev_mode
    if inputs is not None and not accumulate:
        return [run.captured.get(i) for i in inputs]
    return None


def _execute(run: _Run, roots, grads, order: list, leaves: dict) -> None:
    buf = _root_buffer(roots, grads, run.graph)
    for r in list(buf):
        if r._op is None and leaves[r] == 0:
            _accumulate(run, r, buf.pop(r))
    _sweep(run, order, buf)


def _root_buffer(roots, grads, graph: bool) -> dict:
    """The roots' gradients, summed where a root is given twice."""
    buf: dict = {}
    for r, g in zip(roots, grads):
        b = buf.get(r)
        buf[r] = g if b is None else (GraphKernel if graph else r._t.dtype.kernel).add(b, g)
    return buf


def _fast_sweep(run: _Run, roots, grads) -> None:
    """A plain backward call (no ``inputs``, no ``create_graph``) run without the discovery pass.

    Discovery exists for the moment each leaf accumulates: PyTorch's AccumulateGrad runs as
    soon as the leaf's last gradient has arrived, which hooks, custom Functions and anything
    else that runs user code during backward can observe. Until such a thing is met, nothing
    can observe it, so this sweep needs no delivery counts: it keeps the nodes that have a
    gradient in a heap by creation number (the same newest-first order as the sorted sweep:
    a node's consumers are all newer than it), sums gradients as they arrive, as ``_sweep``
    does, and adds the leaves' sums to ``.grad`` at the end. Less the heap's cost, that saves
    13-17% of a backward (W1, W2, W3 in bench/).

    Before the first node that has ``_ext`` (hooks, retain_grad, grad_fn objects, tensor
    groups), runs user code, has 3+ inputs, got an undefined gradient, or has an input with
    ``_ext``, changed in place since, or of another dtype, it hands over: ``_handover`` puts
    the engine in the state the exact sweep would have reached, and ``_sweep`` goes on. An
    error from a node's backward (second backward, stale saved value) hands over too, so the
    exact sweep raises it with the leaves accumulated as PyTorch leaves them.
    """
    buf = _root_buffer(roots, grads, False)
    heap = []  # minus the creation numbers of the nodes with a gradient and not yet run
    nodes = {}  # creation number -> node
    for r in buf:
        if r._op is not None:
            heappush(heap, -r._seq)
            nodes[r._seq] = r
    keep = run.keep
    get = buf.get
    # The newest node made pending by the node just run is kept aside in ``nxt``: when it is
    # newer than all the heap holds, it runs next without going through the heap (always,
    # in a chain).
    nxt = None
    while True:
        if nxt is not None and (not heap or nxt._seq > -heap[0]):
            v = nxt
            s = v._seq
        else:
            if nxt is not None:
                heappush(heap, -nxt._seq)
                nodes[nxt._seq] = nxt
            if not heap:
                break
            s = -heappop(heap)
            v = nodes.pop(s)
        nxt = None
        op = v._op
        b = v._b
        if v._ext is not None or b is MANY or op.runs_user_code:
            return _handover(run, buf, heap, nodes, [v])
        vt = v._t
        k = vt.dtype.kernel
        try:
            grads = op.backward(k, buf[v], v)
        except Exception:
            return _handover(run, buf, heap, nodes, [v])  # the exact sweep raises it again
        del buf[v]
        if not keep and op.saves:
            v._op = op.freed
        u = v._a
        i = 0
        while True:  # once for the first input, again for the second if there is one
            gi = grads[i]
            if u._rg:
                if gi is None or u._seq > s or u._ext is not None or (u._t is not vt and u._t.dtype is not vt.dtype):
                    return _handover(run, buf, heap, nodes, [] if nxt is None else [nxt], (v, grads[i:]))
                prev = get(u)
                if prev is None:
                    buf[u] = gi
                    if u._op is not None:
                        if nxt is None:
                            nxt = u
                        else:  # the older of the two goes to the heap
                            if u._seq > nxt._seq:
                                u, nxt = nxt, u
                            heappush(heap, -u._seq)
                            nodes[u._seq] = u
                else:
                    buf[u] = k.add(prev, gi)
            elif u._seq > s:  # a saved constant changed in place: _deliver_one raises PyTorch's error
                return _handover(run, buf, heap, nodes, [] if nxt is None else [nxt], (v, grads[i:]))
            if b is None:
                break
            u = b
            b = None
            i = 1
    # only leaves are left, all without hooks (_accumulate leaves buf alone; iterating the
    # items view, not a list of them, allocates no tuple per leaf for the collector to count)
    for u, g in buf.items():
        _accumulate(run, u, g)


def _handover(run: _Run, buf: dict, heap: list, nodes: dict, first: list, rest: tuple = ()) -> None:
    """Finish a backward begun by ``_fast_sweep`` with the exact sweep.

    The nodes still to run are those in the heap and ``first`` (a node popped but not run).
    ``rest``, if given, is ``(v, grads)``: node ``v`` has run and ``grads`` are the gradients
    for its inputs not yet delivered (the last one or two). Discovery from the nodes still to
    run, and from the inputs those gradients go to, counts the deliveries each leaf has still
    to receive. A leaf with none left had its last gradient earlier, so the exact sweep would
    have accumulated it already: that is done now (no hook or user code has run yet, so in
    which order cannot be observed). Then ``v``'s remaining edges are delivered, and the
    exact sweep goes on."""
    pending = first + [nodes[-s] for s in heap]
    edges = ()
    to_leaves = []
    if rest:
        v, grads = rest
        edges = tuple(zip(v._in[len(v._in) - len(grads):], grads))
        for u, _ in edges:
            if u._rg:
                u = _route(u, v, False) if u._seq > v._seq else u  # the version v consumed
                (to_leaves if u._op is None else pending).append(u)
    order, leaves, reachable = _discover(pending)
    for u in to_leaves:
        leaves[u] = leaves.get(u, 0) + 1
    run.leaves = leaves
    run.nodes = reachable
    for u in [u for u in buf if u._op is None and not leaves.get(u)]:
        _accumulate(run, u, buf.pop(u))
    for u, gi in edges:
        _deliver_one(run, v, u, gi, buf)
    _sweep(run, order, buf)


def _sweep(run: _Run, order: list, buf: dict) -> None:
    """Run the nodes of ``order`` (newest first) on the gradients in ``buf``."""
    graph = run.graph
    keep = run.keep
    need = run.need
    leaves = run.leaves
    pop = buf.pop
    get = buf.get
    for v in order:
        g = pop(v, _ABSENT)
        if g is _ABSENT:
            continue  # nothing arrived (pruned by autograd.grad)
        if v._ext is not None:
            if v._ext.group is not None:
                _hold_element(run, v, g, buf)
            else:
                _deliver(run, v, _run_hooked(run, v, g, buf), buf)
            continue
        b = v._b
        if g is None or b is MANY:
            _deliver(run, v, (None,) * len(v._in) if g is None else
                     v._op.backward(GraphKernel if graph else v._t.dtype.kernel, g, v), buf)
            continue
        # A hook-free node with one or two inputs, nearly every node: the common edge is
        # delivered here, inline (a call per node or edge is a third of a chain's backward);
        # anything unusual about an edge goes to _deliver_one.
        op = v._op
        dt = v._t.dtype
        k = GraphKernel if graph else dt.kernel
        grads = op.backward(k, g, v)
        if not keep and op.saves:
            v._op = op.freed
        vseq = v._seq
        u = v._a
        gi = grads[0]
        while True:  # once for the first input, again for the second if there is one
            if gi is None or not u._rg or u._seq > vseq or u._t.dtype is not dt \
                    or (need is not None and u not in need):
                _deliver_one(run, v, u, gi, buf)
            else:
                prev = get(u)
                buf[u] = gi if prev is None else k.add(prev, gi)
                if u._op is None:
                    n = leaves[u] - 1
                    leaves[u] = n
                    if n == 0:
                        _accumulate(run, u, pop(u))
            if b is None:
                break
            u = b
            gi = grads[1]
            b = None
    for grp, held in run.pending.leftover():
        _release(run, grp, held, buf)


def _deliver(run: _Run, v: Value, grads, buf: dict) -> None:
    """Send the gradients ``v`` computed to its inputs (None: ``v`` forwarded nothing): the
    path of hooked nodes and nodes with three or more inputs."""
    if grads is None:
        return
    op = v._op
    if not run.keep and op.saves:
        v._op = op.freed
    for u, gi in zip(v._in, grads):
        _deliver_one(run, v, u, gi, buf)


def _deliver_one(run: _Run, v: Value, u: Value, gi, buf: dict) -> None:
    """Add the gradient ``gi`` that ``v`` computed for its input ``u`` into ``u``'s buffer."""
    if not u._rg:
        if u._seq > v._seq:  # a constant this node saved was changed in place since
            _route(u, v, True)
        return
    if u._seq > v._seq:
        u = _route(u, v, True)
    if run.need is not None and u not in run.need:
        return
    if gi is None:
        # an undefined gradient (None from a Function or a hook) still counts as a
        # delivery, as in PyTorch: the leaf's other gradients must not wait for it
        if u not in buf:
            buf[u] = None
    else:
        ut = u._t
        vt = v._t
        if ut is not vt and ut.dtype is not vt.dtype and not run.graph:
            gi = ut.dtype.round(gi)
        b = buf.get(u)
        if b is None:
            buf[u] = gi
        else:
            buf[u] = (GraphKernel if run.graph else ut.dtype.kernel).add(b, gi)
    if u._op is None:
        leaves = run.leaves
        n = leaves[u] - 1
        leaves[u] = n
        if n == 0:
            _accumulate(run, u, buf.pop(u))


def _hold_element(run: _Run, v: Value, g, buf: dict) -> None:
    """An element of a multi-element tensor: wait for the whole tensor's gradient."""
    grp = v._ext.group
    held = run.pending.arrive(grp, v, g, run.nodes.__contains__)
    if held is not None:
        _release(run, grp, held, buf)


def _release(run: _Run, grp, held: list, buf: dict) -> None:
    """Every element of ``grp`` has its gradient: run the tensor's hooks on the whole gradient,
    then each element, newest first (the order in which the sweep met them)."""
    held = grp.call_hooks(held, run.graph)
    members = [(e, g) for e, g in zip(grp.elements, held) if e in run.nodes]
    members.sort(key=lambda eg: eg[0]._seq, reverse=True)
    for e, g in members:
        if e._ext.hooks or e._ext.retain or e._ext.node is not None or e._ext.pick is not None:
            _deliver(run, e, _run_hooked(run, e, g, buf), buf)
        elif g is None:
            _deliver(run, e, (None,) * len(e._in), buf)
        else:
            _deliver(run, e, e._op.backward(GraphKernel if run.graph else e._t.dtype.kernel, g, e), buf)


def _tensor_hooks(v: Value, g, graph: bool):
    """Run ``v``'s tensor hooks; an undefined gradient (None) is passed to them as None."""
    hooks = v._ext.hooks
    if hooks:
        t = v._t
        gv = None if g is None else _wrap(g, t)
        for hook in list(hooks.values()):
            res = hook(gv)
            if res is not None:
                if not isinstance(res, Value):
                    raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
                gv = res
        g = None if gv is None else (gv if graph else gv._val)
    return g


def _hook_result(hook, res, expected: int) -> tuple:
    res = tuple(res)
    if len(res) != expected:
        raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number "
                           f"of values (got {len(res)}, but expected {expected})")
    return res


def _store_grad(v: Value, g, graph: bool, in_place: bool) -> None:
    """Add ``g`` into ``v.grad`` as AccumulateGrad does (in place unless building a graph)."""
    old = v._grad
    t = v._t
    if old is None:
        if graph and isinstance(g, Value):
            v._grad = make(ops.Copy, t, g._val, (g,)) if g._rg else g
        else:
            v._grad = leaf(g._val if isinstance(g, Value) else g, t)
    elif graph or old._rg or not in_place:
        v._grad = old + _wrap(g, t)
    else:
        old._val = t.dtype.round(old._val + (g._val if isinstance(g, Value) else g))


def _accumulate(run: _Run, u: Value, g) -> None:
    """A leaf's turn; an element of a multi-element leaf tensor waits for the whole tensor."""
    ext = u._ext
    if ext is None and run.capture is None and not run.graph and g is not None:
        # a leaf without hooks in plain backward: _store_grad's in-place accumulation, inline,
        # on the bare float that Value._grad turns into a tensor when it is read
        old = u._g
        if old is None:
            u._g = g
            return
        if not isinstance(old, Value):
            u._g = u._t.dtype.round(old + g)
            return
        if not old._rg:
            old._val = u._t.dtype.round(old._val + g)
            return
    if ext is not None and ext.group is not None:
        grp = ext.group
        held = run.pending.arrive(grp, u, g, run.leaves.__contains__)
        if held is None:
            return
        held = grp.call_hooks(held, run.graph)
        for e, ge in zip(grp.elements, held):
            if e in run.leaves:
                _accumulate_leaf(run, e, ge)
        if grp.post_acc and run.capture is None:
            for hook in list(grp.post_acc.values()):
                hook(grp.tensor)
        return
    _accumulate_leaf(run, u, g)


def _accumulate_leaf(run: _Run, u: Value, g) -> None:
    """A leaf's turn: tensor hooks, then capture or accumulation, then post-accumulate hooks."""
    ext = u._ext
    node = None
    if ext is not None:
        g = _tensor_hooks(u, g, run.graph)
        node = ext.node  # the AccumulateGrad node, if one was asked for (it may hold hooks)
        if g is not None and node is not None and node._pre:
            gv = (_wrap(g, u._t),)
            for hook in list(node._pre.values()):
                res = hook(gv)
                if res is not None:
                    gv = _hook_result(hook, res, 1)
            g = _unwrap(gv[0], run.graph)
    if g is None:
        return  # undefined: AccumulateGrad does nothing
    if run.capture is not None:
        if u in run.capture:
            if run.accumulate:
                _store_grad(u, g, run.graph, True)
            else:
                prev = run.captured.get(u)
                run.captured[u] = g if prev is None else prev + g
        return
    _store_grad(u, g, run.graph, True)
    if ext is not None and ext.post_acc:
        for hook in list(ext.post_acc.values()):
            hook(u)
    if node is not None and node._post:
        g_out = (_wrap(g, u._t),)
        for hook in list(node._post.values()):
            hook((), g_out)


def _run_hooked(run: _Run, v: Value, g, buf: dict):
    """A node with something in ``_ext``. Returns its input gradients, or None when the node
    only forwarded its gradient (an output of a multi-output Function)."""
    graph = run.graph
    ext = v._ext
    pick = ext.pick
    if not isinstance(g, list):
        g = _tensor_hooks(v, g, graph)
    if ext.retain and g is not None:
        _store_grad(v, g, graph, False)
    if run.capture is not None and v in run.capture and g is not None:
        if run.accumulate:  # backward(inputs=[non-leaf]) accumulates into its .grad
            _store_grad(v, g, graph, True)
        else:
            prev = run.captured.get(v)
            run.captured[v] = g if prev is None else prev + g
        need = run.need
        if not any(u._rg and u in need for u in v._in):
            return None
    if pick is not None:
        # an output of a multi-output Function hands its gradient to the shared hidden node
        h, i = pick
        slots = buf.get(h)
        if slots is None:
            slots = buf[h] = [None] * len(h._c.outputs_types)
        slots[i] = g
        return None
    node = ext.node
    k = GraphKernel if graph else v._t.dtype.kernel
    multi = isinstance(g, list)
    layout = getattr(v._c, "_layout", None)  # a Function over multi-element tensors
    if node is not None and node._pre:
        outs = tuple(g) if multi else (g,)
        types = v._c.outputs_types if multi else (v._t,)
        if layout is not None:
            gv = layout.pack(list(outs), layout.outputs, False)
        else:
            gv = tuple(None if x is None else _wrap(x, t) for x, t in zip(outs, types))
        for hook in list(node._pre.values()):
            res = hook(gv)
            if res is not None:
                gv = _hook_result(hook, res, len(gv))
        if layout is not None:
            gv = layout.unpack(gv, layout.outputs)
        vals = [_unwrap(x, graph) for x in gv]
        g = vals if multi else vals[0]
    if g is None:
        return [None] * len(v._in)  # undefined: nothing to differentiate
    grads = v._op.backward(k, g, v)
    if node is not None and node._post:
        outs = tuple(g) if multi else (g,)
        types = v._c.outputs_types if multi else (v._t,)
        g_out = tuple(None if x is None else _wrap(x, t) for x, t in zip(outs, types))
        # built-in ops compute no gradient for inputs that do not require one (None, as in
        # PyTorch); a custom Function's hooks see whatever its backward returned
        custom = getattr(v._op, "function", None) is not None
        g_in = tuple(None if (x is None or (not u._rg and not custom)) else _wrap(x, u._t)
                     for u, x in zip(v._in, grads))
        g_in = g_in + (None,) * v._op.extra_none
        if layout is not None:  # hooks see whole tensors, as the Function's user does
            g_out = layout.pack(list(outs), layout.outputs, False)
            g_in = layout.pack(list(g_in), layout.inputs, False)
        for hook in list(node._post.values()):
            res = hook(g_in, g_out)
            if res is not None:
                g_in = _hook_result(hook, res, len(g_in))
        if layout is not None:
            g_in = layout.unpack(g_in, layout.inputs)
        grads = [_unwrap(x, graph) for x in g_in[:len(v._in)]]
    return grads
