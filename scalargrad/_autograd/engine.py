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

Nodes without hooks take a short path; anything recorded in a tensor's ``_ext`` (tensor
hooks, retain_grad, node hooks, outputs of multi-output nodes) goes through ``_run_hooked``.

Gradients are floats for 0-dim tensors and tensors for the others (plain backward); with
``create_graph`` they are all tensors. A gradient reaching an input of another shape or
dtype is summed back to the input's shape and cast to its dtype (``_adapt``), as PyTorch's
``validate_outputs`` does.
"""

from __future__ import annotations

import itertools
from heapq import heappop, heappush
from operator import attrgetter

from .._base import anomaly, grad_mode
from .._ops.table import saved_node_name, version_error
from .._tensor import anomaly_trace
from .._tensor.nodes import consumed_version, detached_since, saves_input
from .._tensor.saved_hooks import STAND_INS, hooks_state, restore_hooks_state, unpacked
from .._tensor.storage import version_then
from .._tensor.tensor import GRADLESS_VIEW, MANY, Tensor, ext, leaf, next_seq
from .._tensor.tensor_kernel import GraphKernel, TensorKernel
from .._tensor.tensor_kernel import running as kernels_running
from .gradients import adapt, add_into, fresh, materialised, steal_grad, store_grad, unwrap, wrap
from .hooks import (
    n_outputs,
    node_pre_hooks,
    output_hooks,
    output_types,
    post_accumulate_hooks,
    post_hooks,
    pre_hooks,
    tensor_hooks,
)
from .reentrant import deep, on_fresh_thread

_ABSENT = object()  # no gradient reached the node (None means an undefined gradient did)


def route(u: Tensor, v: Tensor, check: bool) -> Tensor:
    """The version of ``u`` that ``v`` consumed: ``u`` was changed in place after ``v`` was made
    (its stamp is newer). A rebased tensor's older versions hang off its first input (a view
    regenerated over its changed base keeps it in ``_c.prev``). With ``check``, a node that
    saved the tensor refuses (PyTorch's version error)."""
    w = consumed_version(u, v)
    if check and u._op not in STAND_INS and _saves(v, u) and not _packed(v):  # a stand-in was never changed
        raise RuntimeError(DETACHED_SAVED) if detached_since(u, v) else _version_error(u, v)
    return w


DETACHED_SAVED = ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not "
                  "supported, please use out-of-place `.detach()` instead")


def _packed(v: Tensor) -> bool:
    """``v`` saved its tensors through saved-tensor hooks (PyTorch checks no version then)."""
    e = v._ext
    return e is not None and e.packed is not None


def _saves(v: Tensor, u: Tensor) -> bool:
    """Whether node ``v`` saved its input ``u`` (and so refuses a changed one), the inputs'
    requires_grad taken as they were when ``v`` was made (a tensor detached in place since)."""
    ins = v._in
    return saves_input(v._op, ins, u, tuple((consumed_version(x, v) if x._seq > v._seq else x)._rg for x in ins))


def _version_error(u: Tensor, v: Tensor) -> RuntimeError:
    which = ""
    if u._op is not None:
        which = f", which is output 0 of {saved_node_name(u.grad_fn.name())},"
    now = u._version
    return version_error(u, which, max(now, 1), min(version_then(u, v._seq), max(now, 1) - 1))


def _modified_since(u: Tensor, v: Tensor) -> bool:
    """A node ``u`` changed in place under no_grad after ``v`` was made."""
    e = u._ext
    return e is not None and e.modified > v._seq


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
                    if u._seq > vseq:  # changed or detached in place since: the version v consumed
                        u = route(u, v, False)
                    if u._rg:
                        if u._op is None:
                            leaves[u] = leaves.get(u, 0) + 1
                        elif u not in seen:
                            mark(u)
                            push(u)
                if b is MANY:
                    break
            u = v._a
            if u._seq > vseq:
                u = route(u, v, False)
            if not u._rg:
                break
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
            if (route(u, v, False) if u._seq > vseq else u) in need:
                need.add(v)
                break
    return need


running = kernels_running
"""The backward calls under way, innermost last (read by ``graph_task``, and by the kernels:
what a call wants computed)."""
_tasks = itertools.count()  # each backward call's id (PyTorch's graph task id)


class _Run:
    """State of one backward call (so that a hook may itself call backward)."""

    __slots__ = ("graph", "keep", "capture", "accumulate", "captured", "need", "nodes", "leaves", "task",
                 "retained_outputs", "current")

    def __init__(self, graph, keep, capture, accumulate, need, nodes, leaves):
        self.graph = graph
        self.keep = keep
        self.capture = capture  # the inputs of autograd.grad / backward(inputs=...), or None
        self.accumulate = accumulate
        self.captured = {}
        self.need = need
        self.nodes = nodes  # the reachable non-leaf nodes
        self.leaves = leaves  # reachable leaf -> deliveries still to come
        self.retained_outputs = {}  # multi-output node -> its retained outputs that got a gradient
        self.current = None  # the node whose saved tensors the unpack hooks are reading


observers: list = []
"""Callables ``obs(roots, grads, keep_graph, create_graph, inputs, accumulate)`` told of every
backward call on entry, before any saved value is freed (``symbolic.check_every_backward``).
One may return a callable, called with the call's result once it has finished. When the list
is empty a backward call pays one truth test for it, not one per node."""


def run_backward(roots, grads, keep_graph: bool, create_graph: bool, inputs=None,
                 accumulate: bool = True, allow_unused: bool = False):
    """Backpropagate ``grads`` from ``roots`` (see ``_run_backward``), telling ``observers``."""
    if running and deep():  # a reentrant call on a deep stack goes on with a fresh one (reentrant.py)
        return on_fresh_thread(run_backward, roots, grads, keep_graph, create_graph, inputs, accumulate,
                               allow_unused)
    state = hooks_state()
    try:
        if not observers:
            return _run_backward(roots, grads, keep_graph, create_graph, inputs, accumulate, allow_unused)
        finish = [f for f in [obs(roots, grads, keep_graph, create_graph, inputs, accumulate)
                              for obs in list(observers)] if f is not None]
        result = _run_backward(roots, grads, keep_graph, create_graph, inputs, accumulate, allow_unused)
        for f in finish:
            f(result)
        return result
    finally:
        restore_hooks_state(state)  # hook blocks entered or left by hooks inside end with the backward


def _run_backward(roots, grads, keep_graph: bool, create_graph: bool, inputs=None,
                  accumulate: bool = True, allow_unused: bool = False):
    """Backpropagate ``grads`` (floats for 0-dim roots, tensors otherwise) from ``roots``.

    With ``inputs``, only gradients reaching them are computed; ``accumulate=False`` returns
    them (autograd.grad) instead of adding them to ``.grad``.
    """
    plain = inputs is None and not create_graph and all(r._ext is None and g is not None
                                                          for r, g in zip(roots, grads))
    if anomaly.state.enabled:
        plain = False  # every node takes the exact path, where anomaly mode checks it
    if plain:
        run = _Run(False, keep_graph, None, True, None, None, None)
    else:
        order, leaves, nodes = _discover(roots)
        need = None
        if inputs is not None:
            need = _needed(order, inputs)
            for i in inputs:
                if i._op is not None:
                    if accumulate:
                        i.retain_grad()  # as PyTorch's backward(inputs=...): for good
                    e = ext(i)  # a non-leaf input is captured on the hooked path
                    if e.pick is not None:
                        ext(e.pick[0])  # an output's capture is at its shared node
        run = _Run(create_graph, keep_graph, set(inputs) if inputs is not None else None, accumulate, need,
                   nodes, leaves)
        if anomaly.state.enabled:
            for v in order:
                ext(v)
    prev_mode = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    run.task = next(_tasks)
    running.append(run)
    try:
        if plain:
            _fast_sweep(run, roots, grads)
        else:
            _execute(run, roots, grads, order, leaves)
    finally:
        running.pop()
        grad_mode.state.enabled = prev_mode
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
        buf[r] = g if b is None else (GraphKernel if graph else r._t.kernel).add(b, g)
    return buf


# The fast sweep. Discovery exists for the moment each leaf accumulates: PyTorch's
# AccumulateGrad runs as soon as the leaf's last gradient has arrived, which hooks, custom
# Functions and anything else that runs user code during backward can observe. Until such a
# thing is met, nothing can observe it, so this sweep needs no delivery counts: it keeps the
# nodes that have a gradient in a heap by creation number (the same newest-first order as the
# sorted sweep: a node's consumers are all newer than it), sums gradients as they arrive, as
# ``_sweep`` does, and adds the leaves' sums to ``.grad`` at the end. Less the heap's cost, that
# saves 13-17% of a backward (W1, W2, W3 in bench/).
#
# Before the first node that has ``_ext`` (hooks, retain_grad, grad_fn objects, tensor hooks),
# runs user code, has 3+ inputs, got an undefined gradient, or has an input with ``_ext``,
# changed in place since, or of another dtype, it hands over: ``_handover`` puts the engine in
# the state the exact sweep would have reached, and ``_sweep`` goes on. An error from a node's
# backward (second backward, stale saved value) hands over too, so the exact sweep raises it with
# the leaves accumulated as PyTorch leaves them. ``tests/test_engine_sweeps.py`` runs both sweeps
# on random graphs and compares the gradients bit for bit.


def _pending_roots(buf: dict) -> tuple:
    """The fast sweep's heap (minus the creation numbers of the nodes with a gradient, not yet
    run) and its nodes by creation number, from the roots' gradients."""
    heap = []
    nodes = {}
    for r in buf:
        if r._op is not None:
            heappush(heap, -r._seq)
            nodes[r._seq] = r
    return heap, nodes


def _fast_sweep(run: _Run, roots, grads) -> None:
    """A plain backward call (no ``inputs``, no ``create_graph``) run without the discovery pass
    (see the comment above)."""
    buf = _root_buffer(roots, grads, False)
    heap, nodes = _pending_roots(buf)
    keep = run.keep
    get = buf.get
    pop = buf.pop
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
        b = v._b
        vt = v._t
        a = v._a
        if v._ext is not None or b is MANY or (a._t is not vt and a._t.dtype is not vt.dtype) or \
                (b is not None and b._t is not vt and b._t.dtype is not vt.dtype):
            # (a custom Function's node always has an _ext; an input of another dtype: _mixed)
            return _handover(run, buf, heap, nodes, [v])
        op = v._op
        k = vt.kernel
        g = pop(v)
        try:
            grads = op.backward(k, g, v)
        except Exception:
            grads = None
        if grads is None:
            # the exact sweep raises it again; outside the except block, so that the user's
            # traceback is PyTorch's one error, not this one chained to its repetition
            buf[v] = g
            return _handover(run, buf, heap, nodes, [v])
        if not keep and op.saves:
            v._op = op.freed
        # the first input, then the second if there is one (written out twice: this loop is
        # most of a backward, and a loop over the inputs costs a tenth of it)
        u = v._a
        gi = grads[0]
        if u._rg:
            if gi is None or u._seq > s or u._ext is not None:
                return _handover(run, buf, heap, nodes, [] if nxt is None else [nxt], (v, grads))
            if u._t is not vt:  # another shape or dtype: summed and cast to the input's
                gi = adapt(gi, u, v, False)
                prev = get(u)
                buf[u] = gi if prev is None else u._t.kernel.add(prev, gi)
                if prev is None and u._op is not None:
                    nxt = u
            else:
                prev = get(u)
                if prev is None:
                    buf[u] = gi
                    if u._op is not None:
                        nxt = u
                else:
                    buf[u] = k.add(prev, gi)
        elif u._seq > s:  # a saved constant changed in place: _deliver_one raises PyTorch's error
            return _handover(run, buf, heap, nodes, [] if nxt is None else [nxt], (v, grads))
        if b is None:
            continue
        gi = grads[1]
        if b._rg:
            if gi is None or b._seq > s or b._ext is not None:
                return _handover(run, buf, heap, nodes, [] if nxt is None else [nxt], (v, grads[1:]))
            if b._t is not vt:
                gi = adapt(gi, b, v, False)
                prev = get(b)
                buf[b] = gi if prev is None else b._t.kernel.add(prev, gi)
            else:
                prev = get(b)
                if prev is None:
                    buf[b] = gi
                else:
                    buf[b] = k.add(prev, gi)
            if prev is None and b._op is not None:
                if nxt is None:
                    nxt = b
                else:  # the older of the two goes to the heap
                    if b._seq > nxt._seq:
                        b, nxt = nxt, b
                    heappush(heap, -b._seq)
                    nodes[b._seq] = b
        elif b._seq > s:
            return _handover(run, buf, heap, nodes, [] if nxt is None else [nxt], (v, grads[1:]))
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
            u = route(u, v, False) if u._seq > v._seq else u  # the version v consumed
            if u._rg:
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
    checked = anomaly.state.enabled
    for v in order:
        g = pop(v, _ABSENT)
        if g is _ABSENT:
            continue  # nothing arrived (pruned by autograd.grad)
        if v._ext is not None:
            if checked:
                _checked_step(run, v, g, buf)
            else:
                _deliver(run, v, _run_hooked(run, v, g, buf), buf)
            continue
        b = v._b
        if g is None or b is MANY or (not graph and _mixed(v)):
            _deliver(run, v, (None,) * len(v._in) if g is None else _backward(v, g, graph), buf)
            continue
        # A hook-free node with one or two inputs, nearly every node: the common edge is
        # delivered here, inline (a call per node or edge is a third of a chain's backward);
        # anything unusual about an edge goes to _deliver_one.
        op = v._op
        vt = v._t
        k = GraphKernel if graph else vt.kernel
        grads = _graph_backward(v, g, v) if graph else op.backward(k, g, v)
        if not keep and op.saves:
            v._op = op.freed
        vseq = v._seq
        u = v._a
        gi = grads[0]
        while True:  # once for the first input, again for the second if there is one
            if gi is None or not u._rg or u._seq > vseq or u._t is not vt or u._ext is not None \
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


def _checked_step(run: _Run, v: Tensor, g, buf: dict) -> None:
    """Anomaly mode's run of node ``v``: an error from its backward (or from handing its
    gradients on) and, with check_nan, a NaN among its results are reported with the traceback
    of the forward call that made ``v``."""
    try:
        grads = _run_hooked(run, v, g, buf)
        bad = _nan_output(v, grads) if grads is not None and anomaly.state.check_nan else None
        if bad is None:
            _deliver(run, v, grads, buf)
    except Exception:
        anomaly_trace.report(v)
        raise
    if bad is not None:
        anomaly_trace.report(v)
        raise RuntimeError(f"Function '{v.grad_fn.name()}' returned nan values in its {bad}th output.")


def _nan_output(v: Tensor, grads) -> int | None:
    """The first input whose gradient (if that input needs one) holds a NaN."""
    for i, (u, x) in enumerate(zip(v._in, grads)):
        if x is None or not u._rg:
            continue
        vals = x._val if isinstance(x, Tensor) else x
        if isinstance(vals, list) and any(e != e for e in vals) or not isinstance(vals, list) and vals != vals:
            return i
    return None


def _mixed(v: Tensor) -> bool:
    """A 0-dim node with an input of another dtype (``f32 ** f64``, a float32 tensor divided in
    place by a float64 one). Its formula's ops promote operand by operand in PyTorch (the log of
    a float32 base is taken in float32 inside a float64 gradient), which a float kernel, rounding
    everything to the node's dtype, cannot do: such a node's backward runs on 0-dim tensors."""
    t = v._t
    if t.ndim or v._b is MANY:
        return False
    return any(u._t.dtype is not t.dtype for u in v._in)


def _backward(v: Tensor, g, graph: bool, saved=None):
    """The gradients ``v``'s formula gives its inputs, on the kernel ``v`` runs on (``saved``:
    the node as read through saved-tensor unpack hooks)."""
    saved = v if saved is None else saved
    if graph:
        return _graph_backward(v, g, saved)
    if not isinstance(g, list) and not isinstance(g, Tensor) and _mixed(v):
        return v._op.backward(TensorKernel, leaf(g, v._t), saved)  # Tensor grads: _deliver_one adapts them
    return v._op.backward(v._t.kernel, g, saved)


def _graph_backward(v: Tensor, g, saved: Tensor):
    """``v``'s formula under create_graph, its new nodes numbered as PyTorch's would be.

    PyTorch's generated backward computes the inputs' gradients one after the other, in the
    alphabetical order of the derivative's argument names (``other`` before ``self``,
    ``exponent`` before ``self``: ``Op.grad_order``), so the nodes recorded for the first have
    the lower sequence numbers, which decide the order a later backward through them runs in
    (and so the order its gradients are summed in). A formula here may compute them in another
    order: the new nodes' numbers are handed out again, each gradient's in turn."""
    order = v._op.grad_order
    if order is None:
        return v._op.backward(GraphKernel, g, saved)
    start = next_seq()
    grads = v._op.backward(GraphKernel, g, saved)
    groups, seen = [], set()
    for i in order:
        x = grads[i] if i < len(grads) else None
        if not isinstance(x, Tensor) or x._seq <= start:
            continue
        group, stack = [], [x]
        while stack:
            x = stack.pop()
            if x._seq <= start or x in seen or x._op in STAND_INS:  # a stand-in is its (older) input
                continue
            seen.add(x)
            group.append(x)
            stack.extend(x._in)
        group.sort(key=_seq_of)
        groups.append(group)
    if len(groups) > 1:
        nodes = [x for group in groups for x in group]
        for x, number in zip(nodes, sorted(x._seq for x in nodes)):
            x._seq = number
    return grads


_seq_of = attrgetter("_seq")


def _deliver(run: _Run, v: Tensor, grads, buf: dict) -> None:
    """Send the gradients ``v`` computed to its inputs (None: ``v`` forwarded nothing): the
    path of hooked nodes and nodes with three or more inputs."""
    if grads is None:
        return
    op = v._op
    if not run.keep and op.saves:
        v._op = op.freed
    for u, gi in zip(v._in, grads):
        _deliver_one(run, v, u, gi, buf)


def _deliver_one(run: _Run, v: Tensor, u: Tensor, gi, buf: dict) -> None:
    """Add the gradient ``gi`` that ``v`` computed for its input ``u`` into ``u``'s buffer."""
    if u._seq > v._seq:  # changed in place since (a constant this node saved: an error), or detached
        u = route(u, v, True)
    elif u._rg and u._op is not None and _modified_since(u, v) and _saves(v, u) and not _packed(v):
        raise _version_error(u, v)
    if not u._rg or run.need is not None and u not in run.need:
        return
    graph = run.graph
    if gi is None:
        # an undefined gradient (None from a Function or a hook) still counts as a
        # delivery, as in PyTorch: the leaf's other gradients must not wait for it
        if u not in buf:
            buf[u] = None
    else:
        if u._t is not v._t or graph or isinstance(gi, Tensor) != (graph or bool(u._t.ndim)):
            gi = adapt(gi, u, v, graph)
        b = buf.get(u)
        if b is None:
            buf[u] = gi
        else:
            buf[u] = (GraphKernel if graph else u._t.kernel).add(b, gi)
    if u._op is None:
        leaves = run.leaves
        n = leaves[u] - 1
        leaves[u] = n
        if n == 0:
            _accumulate(run, u, buf.pop(u))


def _accumulate(run: _Run, u: Tensor, g) -> None:
    """A leaf's turn: tensor hooks, then capture or accumulation, then post-accumulate hooks."""
    if u._c is GRADLESS_VIEW:
        return  # a view made in inference mode: PyTorch's edge to it leads nowhere
    e = u._ext
    if e is None and run.capture is None and not run.graph and g is not None:
        g = materialised(g)
        # a leaf without hooks in plain backward: _store_grad's in-place accumulation, inline,
        # on the bare number that Tensor._grad turns into a tensor when it is read
        old = u._g
        if old is None:
            u._g = g if not isinstance(g, Tensor) else fresh(g, u._t, steal=True)
            return
        if not isinstance(old, Tensor):
            u._g = u._t.dtype.round(old + g)
            return
        add_into(old, g)
        return
    node = None
    if e is not None:
        g = tensor_hooks(u, g, run.graph)
        node = e.node  # the AccumulateGrad node, if one was asked for (it may hold hooks)
        # autograd.grad captures a leaf's gradient without running its AccumulateGrad node:
        # the tensor hooks run, the node's pre-hooks do not (nor its post-hooks, below)
        if node is not None and node._pre and (run.capture is None or run.accumulate):
            g = pre_hooks(node, (g,), (u._t,), run.graph)[0]
    if run.capture is not None:
        if u not in run.capture:
            return
        if not run.accumulate:
            if g is not None:
                g = materialised(g)
                prev = run.captured.get(u)
                run.captured[u] = g if prev is None else (GraphKernel if run.graph else u._t.kernel).add(prev, g)
            return
        # backward(inputs=[leaf]): AccumulateGrad runs as in a plain backward, hooks included
    # an undefined gradient: AccumulateGrad runs (engine.cpp calls every node it reaches), adds
    # nothing, and its hooks fire (the post-accumulate hook sees .grad as it was)
    stolen = False
    if g is not None:
        g = materialised(g)
        stolen = steal_grad(u, g, run.graph)  # .grad is g's memory: the post-hooks below see it
        if not stolen:
            store_grad(u, g, run.graph, True)
    if e is not None and e.post_acc:
        post_accumulate_hooks(u, e.post_acc)
    if node is not None and node._post:
        post_hooks(node, (), (None if g is None else g if stolen else wrap(g, u._t),))


def _computed(run: _Run, v: Tensor, u: Tensor) -> bool:
    """Whether a built-in node ``v`` computes a gradient for its input ``u``: ``u`` requires
    one and, under autograd.grad or backward(inputs=...), leads to one of the inputs."""
    if u._seq > v._seq:
        u = route(u, v, False)
    need = run.need
    return u._rg and (need is None or u in need)


def _run_hooked(run: _Run, v: Tensor, g, buf: dict):
    """A node with something in ``_ext``. Returns its input gradients, or None when the node
    only forwarded its gradient (an output of a multi-output node) or autograd.grad needs
    nothing from it beyond the captured gradients."""
    graph = run.graph
    e = v._ext
    pick = e.pick
    if pick is not None:
        # an output of a multi-output node hands its gradient to the shared hidden node, where
        # its hooks, retain_grad and capture are PyTorch's (that node's tensor pre-hooks)
        h, i = pick
        slots = buf.get(h)
        if slots is None:
            slots = buf[h] = [None] * n_outputs(h)
        slots[i] = g
        if e.retain:  # stored there after every output's hooks
            ext(h)
            run.retained_outputs.setdefault(h, []).append(v)
        return None
    if isinstance(g, list):
        if not _multi_hooked(run, v, g):
            return None
    else:
        # autograd.grad captures the gradient before the tensor hooks when the node runs on (an
        # input of it leads to another input), after them (and retain_grad) when it stops here
        capture = run.capture is not None and not run.accumulate and v in run.capture
        needed = not capture or any((route(u, v, False) if u._seq > v._seq else u) in run.need for u in v._in)
        if capture and needed and g is not None:
            _capture(run, v, g)
        g = tensor_hooks(v, g, graph)
        if e.retain and g is not None:
            store_grad(v, g, graph, False)
        if not needed:
            if g is not None:
                _capture(run, v, g)
            return None
    node = e.node
    multi = isinstance(g, list)
    if node is not None and node._pre:
        vals = node_pre_hooks(node, v, tuple(g) if multi else (g,), output_types(v, multi), graph)
        g = vals if multi else vals[0]
    had_post = node is not None and bool(node._post)
    if g is None and getattr(v._op, "function", None) is None:
        # undefined: a built-in node computes nothing, but it runs, so its post-hooks fire; a
        # custom Function's backward is called (with zeros, or None per set_materialize_grads)
        grads = [None] * len(v._in)
    elif e.packed is not None and not v._op.is_freed:
        prev, run.current = run.current, v  # torch._C._current_autograd_node() in the unpack hooks
        try:
            grads = _backward(v, g, graph, unpacked(v, graph))  # saved tensors read through the unpack hooks
        finally:
            run.current = prev
        node = e.node
    else:
        grads = _backward(v, g, graph)
    if node is not None and node._post:
        outs = tuple(g) if multi else (g,)
        # post-hooks registered while the node ran (by an unpack hook) are given no output
        # gradients (an empty tuple): PyTorch's engine did not keep them
        g_out = tuple(None if x is None else wrap(x, t)
                      for x, t in zip(outs, output_types(v, multi))) if had_post else ()
        # built-in ops compute no gradient for inputs that do not require one (None, as in
        # PyTorch), nor for an edge that autograd.grad or backward(inputs=...) prunes (its
        # task_should_compute_output is false); a custom Function's hooks see whatever its
        # backward returned
        custom = getattr(v._op, "function", None) is not None
        g_in = tuple(None if (x is None or (not custom and not _computed(run, v, u))) else
                     wrap(adapt(x, u, v, graph) if u._rg else x, u._t) for u, x in zip(v._in, grads))
        g_in = post_hooks(node, g_in + (None,) * v._op.extra_none, g_out)
        grads = [unwrap(x, graph) for x in g_in[:len(v._in)]]
    return grads


def _capture(run: _Run, v: Tensor, g) -> None:
    prev = run.captured.get(v)
    run.captured[v] = g if prev is None else (GraphKernel if run.graph else v._t.kernel).add(prev, g)


def _multi_hooked(run: _Run, h: Tensor, slots: list) -> bool:
    """The tensor hooks, retain_grad and captures of multi-output node ``h``'s outputs, as
    PyTorch's engine runs them on the node's gradient slots: all outputs' hooks, then the
    retained outputs. autograd.grad captures an output's gradient before the hooks when the
    node runs on (its inputs lead to another input), after them when it does not; the node
    then stops there. Returns whether the node runs on."""
    graph = run.graph
    captured = ()
    needed = True
    if run.capture is not None and not run.accumulate:
        captured = [(o, o._ext.pick[1]) for o in run.capture
                    if o._op is not None and o._ext.pick is not None and o._ext.pick[0] is h]
        need = run.need
        needed = not captured or any(u._rg and u in need for u in h._in)
        if captured and needed:
            for o, i in captured:
                if slots[i] is not None:
                    _capture(run, o, slots[i])
    output_hooks(h, slots, graph)
    for o in run.retained_outputs.pop(h, ()):
        i = o._ext.pick[1]
        if slots[i] is not None:
            store_grad(o, slots[i], graph, False)
    if not needed:
        for o, i in captured:
            if slots[i] is not None:
                _capture(run, o, slots[i])
    return needed
