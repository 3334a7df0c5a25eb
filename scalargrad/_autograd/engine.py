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
from .._ops import shape as S
from .._ops.table import saved_node_name, version_error
from .._tensor import anomaly_trace, views
from .._tensor.nodes import consumed_version, saves_input
from .._tensor.saved_hooks import unpacked
from .._tensor.storage import version_then, write
from .._tensor.tensor import INFERENCE_VIEW, MANY, Tensor, ext, leaf, make, next_seq
from .kernels import EFFICIENT_ZERO, EfficientZero, GraphKernel, TensorKernel, ZeroTensor, sum_to
from .kernels import running as kernels_running

_ABSENT = object()  # no gradient reached the node (None means an undefined gradient did)


def _route(u: Tensor, v: Tensor, check: bool) -> Tensor:
    """The version of ``u`` that ``v`` consumed: ``u`` was changed in place after ``v`` was made
    (its stamp is newer). A rebased tensor's older versions hang off its first input (a view
    regenerated over its changed base keeps it in ``_c.prev``). With ``check``, a node that
    saved the tensor refuses (PyTorch's version error)."""
    w = consumed_version(u, v)
    if check and _saves(v, u) and not _packed(v):
        raise _version_error(u, v)
    return w


def _packed(v: Tensor) -> bool:
    """``v`` saved its tensors through saved-tensor hooks (PyTorch checks no version then)."""
    e = v._ext
    return e is not None and e.packed is not None


def _saves(v: Tensor, u: Tensor) -> bool:
    """Whether node ``v`` saved its input ``u`` (and so refuses a changed one)."""
    return saves_input(v._op, v._in, u)


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
    if isinstance(g, Tensor):
        return g
    return leaf(g, t, cls=ZeroTensor) if g.__class__ is EfficientZero else leaf(g, t)


def _materialised(g):
    """A gradient as AccumulateGrad stores it: an efficient zero (sgn's derivative) becomes
    ordinary +0.0 zeros, as ATen materialises a ZeroTensor."""
    if g.__class__ is EfficientZero:
        return 0.0
    if g.__class__ is ZeroTensor:
        return leaf([0.0] * g._t.numel if g._t.ndim else 0.0, g._t)
    return g


def _unwrap(g, graph: bool):
    if g is None or graph or not isinstance(g, Tensor) or g._t.ndim:
        return g
    return EFFICIENT_ZERO if g.__class__ is ZeroTensor else g._val


def _expandable(shape: tuple, to: tuple) -> bool:
    if len(shape) > len(to):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(shape), reversed(to)))


def _adapt(g, u: Tensor, v, graph: bool):
    """The gradient ``g`` for input ``u``, in ``u``'s shape, dtype and representation (a float
    for a 0-dim tensor in plain backward). A gradient that cannot be summed to ``u``'s shape is
    refused in PyTorch's words."""
    t = u._t
    if isinstance(g, Tensor):
        gt = g._t
        if gt.shape != t.shape:
            try:
                # PyTorch's is_expandable_to: u's shape must broadcast to the gradient's
                g = sum_to(g, tuple(t.shape)) if _expandable(tuple(t.shape), tuple(gt.shape)) else None
            except RuntimeError:
                g = None
            if g is None or tuple(g._t.shape) != tuple(t.shape):
                name = v.grad_fn.name() if v is not None and v._op is not None else "backward"
                i = list(v._in).index(u) if v is not None and u in v._in else 0
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - got "
                                   f"{list(gt.shape)} but expected shape compatible with {list(t.shape)}")
        if g._t.dtype is not t.dtype:
            g = views.to_dtype(g, t.dtype)
        if not graph and not t.ndim:
            return g._val
        return g
    if graph:
        return leaf(t.dtype.round(g), t)
    if t.ndim:
        return views.expand(leaf(t.dtype.round(g), t.with_shape(())), t.shape)
    return t.dtype.round(g)


running = kernels_running
"""The backward calls under way, innermost last (read by ``graph_task``, and by the kernels:
what a call wants computed)."""
_tasks = itertools.count()  # each backward call's id (PyTorch's graph task id)


class _Run:
    """State of one backward call (so that a hook may itself call backward)."""

    __slots__ = ("graph", "keep", "capture", "accumulate", "captured", "need", "nodes", "leaves", "task")

    def __init__(self, graph, keep, capture, accumulate, need, nodes, leaves):
        self.graph = graph
        self.keep = keep
        self.capture = capture  # the inputs of autograd.grad / backward(inputs=...), or None
        self.accumulate = accumulate
        self.captured = {}
        self.need = need
        self.nodes = nodes  # the reachable non-leaf nodes
        self.leaves = leaves  # reachable leaf -> deliveries still to come


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
                    ext(i)  # a non-leaf input is captured on the hooked path
        run = _Run(create_graph, keep_graph, set(inputs) if inputs is not None else None, accumulate, need,
                   nodes, leaves)
        if anomaly.state.enabled:
            for v in order:
                ext(v)
    prev_mode = grad_mode._state.enabled
    grad_mode._state.enabled = create_graph
    run.task = next(_tasks)
    running.append(run)
    try:
        if plain:
            _fast_sweep(run, roots, grads)
        else:
            _execute(run, roots, grads, order, leaves)
    finally:
        running.pop()
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
        buf[r] = g if b is None else (GraphKernel if graph else r._t.kernel).add(b, g)
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
    tensor hooks), runs user code, has 3+ inputs, got an undefined gradient, or has an input with
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
                gi = _adapt(gi, u, v, False)
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
                gi = _adapt(gi, b, v, False)
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
            if x._seq <= start or x in seen:
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
    if not u._rg:
        if u._seq > v._seq:  # a constant this node saved was changed in place since
            _route(u, v, True)
        return
    if u._seq > v._seq:
        u = _route(u, v, True)
    elif u._op is not None and _modified_since(u, v) and _saves(v, u) and not _packed(v):
        raise _version_error(u, v)
    if run.need is not None and u not in run.need:
        return
    graph = run.graph
    if gi is None:
        # an undefined gradient (None from a Function or a hook) still counts as a
        # delivery, as in PyTorch: the leaf's other gradients must not wait for it
        if u not in buf:
            buf[u] = None
    else:
        if u._t is not v._t or graph or isinstance(gi, Tensor) != (graph or bool(u._t.ndim)):
            gi = _adapt(gi, u, v, graph)
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


def _legacy_type(t) -> str:
    return t._t.dtype.legacy


def _tensor_hooks(v: Tensor, g, graph: bool):
    """Run ``v``'s tensor hooks; an undefined gradient (None) is passed to them as None. A hook
    may return a replacement of the same shape and dtype."""
    hooks = v._ext.hooks
    if hooks:
        t = v._t
        gv = None if g is None else _wrap(g, t)
        for hook in list(hooks.values()):
            res = hook(gv)
            if res is not None:
                name = getattr(hook, "__name__", hook)
                if not isinstance(res, Tensor):
                    raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
                if gv is not None and res._t.dtype is not gv._t.dtype:
                    raise RuntimeError(f"hook '{name}' has changed the type of value (was {gv._t.dtype.legacy} "
                                       f"got {res._t.dtype.legacy})")
                if gv is not None and tuple(res._t.shape) != tuple(gv._t.shape):
                    raise RuntimeError(f"hook '{name}' has changed the size of value")
                gv = res
        g = None if gv is None else (gv if graph else _unwrap(gv, False))
    return g


def _hook_result(hook, res, prev: tuple) -> tuple:
    """A node hook's returned gradients, checked as PyTorch checks them: a tuple of as many
    values, each None or a tensor of the replaced gradient's type and size."""
    if not isinstance(res, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(res).__name__}'")
    name = getattr(hook, "__name__", None)
    name = name if isinstance(name, str) else "<unknown>"
    if len(res) != len(prev):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(res)}, but "
                           f"expected {len(prev)})")
    for old, new in zip(prev, res):
        if new is None:
            continue
        if old is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        if new._t.dtype is not old._t.dtype:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was {old._t.dtype.legacy} got "
                               f"{new._t.dtype.legacy})")
        if tuple(new._t.shape) != tuple(old._t.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
    return res


def _fresh(g, t):
    """A gradient stored into ``.grad``: a tensor of its own (a formula may hand the same
    tensor to several inputs)."""
    if isinstance(g, Tensor):
        return leaf(list(g._val) if g._t.ndim else g._val, t)
    return leaf(g, t)


def _store_grad(v: Tensor, g, graph: bool, in_place: bool) -> None:
    """Add ``g`` into ``v.grad`` as AccumulateGrad does (in place unless building a graph)."""
    old = v._grad
    t = v._t
    if old is None:
        if graph and isinstance(g, Tensor) and g._rg:
            # PyTorch copies the first gradient into new zeros: CopyBackwards(None, grad)
            zeros = leaf([t.dtype.round(0)] * t.numel if t.ndim else t.dtype.round(0), t)
            v._grad = make(S.CopyInto, t, list(g._val) if t.ndim else g._val, (zeros, g), S.Layout(t.shape, t.dtype))
        elif graph and isinstance(g, Tensor):
            v._grad = g
        else:
            v._grad = _fresh(g, t)
    elif graph or not in_place:
        v._grad = old + _wrap(g, t)
    else:
        _add_into(old, g)  # in place, even a gradient that requires grad (no grad mode here)


def _add_into(old: Tensor, g) -> None:
    """``old += g`` in place (AccumulateGrad: the ``.grad`` tensor a user holds sees it)."""
    k = old._t.kernel
    if old._t.ndim:
        new = k.add(old, g if isinstance(g, Tensor) else _wrap(g, old._t))
        write(old, list(new._val))
    else:
        write(old, old._t.dtype.round(old._val + (g._val if isinstance(g, Tensor) else g)))


def _accumulate(run: _Run, u: Tensor, g) -> None:
    """A leaf's turn: tensor hooks, then capture or accumulation, then post-accumulate hooks."""
    if u._c is INFERENCE_VIEW:
        return  # a view made in inference mode: PyTorch's edge to it leads nowhere
    e = u._ext
    if e is None and run.capture is None and not run.graph and g is not None:
        # a leaf without hooks in plain backward: _store_grad's in-place accumulation, inline,
        # on the bare number that Tensor._grad turns into a tensor when it is read
        g = _materialised(g)
        old = u._g
        if old is None:
            u._g = g if not isinstance(g, Tensor) else _fresh(g, u._t)
            return
        if not isinstance(old, Tensor):
            u._g = u._t.dtype.round(old + g)
            return
        _add_into(old, g)
        return
    node = None
    if e is not None:
        g = _tensor_hooks(u, g, run.graph)
        node = e.node  # the AccumulateGrad node, if one was asked for (it may hold hooks)
        if g is not None and node is not None and node._pre:
            gv = (_wrap(g, u._t),)
            for hook in list(node._pre.values()):
                res = hook(gv)
                if res is not None:
                    gv = _hook_result(hook, res, gv)
            g = _unwrap(gv[0], run.graph)
    if g is None:
        return  # undefined: AccumulateGrad does nothing
    g = _materialised(g)
    if run.capture is not None:
        if u not in run.capture:
            return
        if not run.accumulate:
            prev = run.captured.get(u)
            run.captured[u] = g if prev is None else (GraphKernel if run.graph else u._t.kernel).add(prev, g)
            return
        # backward(inputs=[leaf]): AccumulateGrad runs as in a plain backward, hooks included
    _store_grad(u, g, run.graph, True)
    if e is not None and e.post_acc:
        for hook in list(e.post_acc.values()):
            res = hook(u)
            if res is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
    if node is not None and node._post:
        g_out = (_wrap(g, u._t),)
        for hook in list(node._post.values()):
            hook((), g_out)


def _n_outputs(h: Tensor) -> int:
    c = h._c
    outs = getattr(c, "outputs", None)
    if outs is None:
        outs = c.outputs_types
    return len(outs)


def _output_types(v: Tensor, multi: bool) -> tuple:
    if not multi:
        return (v._t,)
    c = v._c
    types = getattr(c, "outputs_types", None)
    if types is not None:
        return tuple(types)
    return tuple(None for _ in c.outputs)


def _run_hooked(run: _Run, v: Tensor, g, buf: dict):
    """A node with something in ``_ext``. Returns its input gradients, or None when the node
    only forwarded its gradient (an output of a multi-output node)."""
    graph = run.graph
    e = v._ext
    pick = e.pick
    if not isinstance(g, list):
        g = _tensor_hooks(v, g, graph)
    if e.retain and g is not None:
        _store_grad(v, g, graph, False)
    if run.capture is not None and v in run.capture and g is not None:
        if run.accumulate:  # backward(inputs=[non-leaf]) accumulates into its .grad
            _store_grad(v, g, graph, True)
        else:
            prev = run.captured.get(v)
            run.captured[v] = g if prev is None else (GraphKernel if graph else v._t.kernel).add(prev, g)
        need = run.need
        if not any(u._rg and u in need for u in v._in):
            return None
    if pick is not None:
        # an output of a multi-output node hands its gradient to the shared hidden node
        h, i = pick
        slots = buf.get(h)
        if slots is None:
            slots = buf[h] = [None] * _n_outputs(h)
        slots[i] = g
        return None
    node = e.node
    multi = isinstance(g, list)
    if node is not None and node._pre:
        outs = tuple(g) if multi else (g,)
        types = _output_types(v, multi)
        gv = tuple(None if x is None else _wrap(x, t) for x, t in zip(outs, types))
        for hook in list(node._pre.values()):
            res = hook(gv)
            if res is not None:
                gv = _hook_result(hook, res, gv)
        vals = [_unwrap(x, graph) for x in gv]
        g = vals if multi else vals[0]
    if g is None:
        return [None] * len(v._in)  # undefined: nothing to differentiate
    if e.packed is not None and not v._op.is_freed:
        grads = _backward(v, g, graph, unpacked(v))  # saved tensors read through the unpack hooks
    else:
        grads = _backward(v, g, graph)
    if node is not None and node._post:
        outs = tuple(g) if multi else (g,)
        types = _output_types(v, multi)
        g_out = tuple(None if x is None else _wrap(x, t) for x, t in zip(outs, types))
        # built-in ops compute no gradient for inputs that do not require one (None, as in
        # PyTorch); a custom Function's hooks see whatever its backward returned
        custom = getattr(v._op, "function", None) is not None
        g_in = tuple(None if (x is None or (not u._rg and not custom)) else
                     _wrap(_adapt(x, u, v, graph) if u._rg else x, u._t) for u, x in zip(v._in, grads))
        g_in = g_in + (None,) * v._op.extra_none
        for hook in list(node._post.values()):
            res = hook(g_in, g_out)
            if res is not None:
                g_in = _hook_result(hook, res, g_in)
        grads = [_unwrap(x, graph) for x in g_in[:len(v._in)]]
    return grads
