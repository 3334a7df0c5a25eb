"""The check: ``sympy_check`` of one output, and ``check_every_backward`` of every backward call.

Everything is planned before the engine runs (it frees saved values): the element graph, the
local pass and, for small graphs, the whole expression's derivatives. autograd's gradients are
then compared with them element by element.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import sympy as sp

from .._autograd import engine
from .._autograd.api import grad
from .._tensor.tensor import Tensor
from .forms import (
    FUNCTION,
    ROW,
    STRUCT,
    at_values,
    base_names,
    declared_function,
    element_names,
    evaluate,
    exact,
    expressions,
    function_of,
    name_symbols,
    op_kind,
    shown,
)
from .graph import ElementGraph
from .local import LocalPass
from .notes import NO_TAGS
from .report import BackwardChecks, InputCheck, SymbolicMismatch, SymbolicReport
from .rules import EPS, TINY, dt_name, function_rule, rule_of, same

__all__ = ["sympy_check", "check_every_backward", "WHOLE_MAX_NODES", "WHOLE_MAX_TREE"]

WHOLE_MAX_NODES = 60
"""Graphs with more elements are checked by the local strategy only."""
WHOLE_MAX_TREE = 600
"""... and so are graphs whose expression, written out as a tree (shared nodes repeated), is
bigger than this: differentiating it would blow up."""


def _whole_ok(graph: ElementGraph) -> bool:
    """Small enough to differentiate whole: few elements, a small expression tree, and no kink
    (relu, clamp, minimum, maximum, max) of an expression that has a kink itself, on which
    SymPy tries to solve inequalities (slow, and SymPy 1.14 may fail)."""
    if len(graph.order) > WHOLE_MAX_NODES:
        return False
    size: dict = {}
    kinked: set = set()
    for v in graph.order:
        ins = graph.ins[v]
        total = 1
        below = False
        for u in ins:
            total += size.get(u, 1)
            below = below or u in kinked
        if total > WHOLE_MAX_TREE:
            return False
        size[v] = total
        op, kind, c_kind = op_kind(v._op)
        if kind == ROW:
            kink = isinstance(rule_of(op, len(ins), v._c if c_kind else None).forward, sp.Piecewise)
        elif kind == STRUCT:
            kink = op.name in ("max", "min")
        elif kind == FUNCTION:
            fnode, _ = function_of(v)
            kink = declared_function(graph, fnode) is not None and _declared_kink(fnode)
        else:
            kink = False
        if kink:
            if below:
                return False
            kinked.add(v)
        elif below:
            kinked.add(v)
    return True


def _declared_kink(fnode) -> bool:
    try:
        return any(f.has(sp.Piecewise) for f in function_rule(fnode).forms)
    except Exception:  # a broken form: the local pass reports it
        return False


def _flat(g) -> list | None:
    """A gradient as the engine or autograd hands it (a float, a Tensor, None) as a list of
    element values (None: no gradient)."""
    if g is None:
        return None
    if isinstance(g, Tensor):
        g = g._val
    return list(g) if isinstance(g, list) else [g]


class _Plan:
    """Everything the check needs, taken before the engine runs (and frees saved values).

    ``tensors``/``names``: the tensors to differentiate by and their names; ``targets`` and
    ``element_names`` the same, element by element."""

    def __init__(self, graph: ElementGraph, roots, weights, tensors, names, strategy: str, rtol, atol) -> None:
        self.tensors = tensors
        self.base_names = names
        self.targets = []
        self.names = []
        for t, base in zip(tensors, names):
            es = graph.elements(t)
            self.targets.extend(es)
            self.names.extend(element_names(base, t, es))
        self.graph = graph
        root_elems = []
        root_weights = []
        for r, w in zip(roots, weights):
            es = graph.elements(r)
            if w is None or len(w) != len(es):
                raise RuntimeError(f"the gradient of a root of {len(es)} elements has {len(w or ())}")
            root_elems.extend(es)
            root_weights.extend(float(x) for x in w)
        self.local = LocalPass(graph, root_elems, root_weights, self.targets)
        dt = self.local.dtype
        self.dtype = dt
        self.rtol = 16 * EPS[dt] if rtol is None else rtol
        self.atol = 16 * TINY[dt] if atol is None else atol
        self.whole: dict = {}
        self.expression = None
        self.notes: list = []
        if strategy == "auto":
            strategy = "whole" if _whole_ok(graph) else "local"
        self.strategy = strategy
        if strategy == "whole":
            try:
                self._whole(root_elems, root_weights)
            except Exception as exc:  # SymPy gave up: the local pass still answers
                self.strategy = "local"
                self.whole = {}
                self.expression = None
                self.notes.append(f"SymPy could not differentiate the whole expression ({type(exc).__name__}); "
                                  "checked locally")

    def _whole(self, roots, weights) -> None:
        graph = self.graph
        symbols = {t: n for t, n in zip(self.tensors, self.base_names) if t._op is None}
        syms = name_symbols(graph, graph.leaves, symbols)
        expr = expressions(graph, syms)
        out = 0
        for r, w in zip(roots, weights):
            e = syms.get(r)
            if e is None:
                e = expr.get(r)
            if e is None:
                e = exact(r._val)
            out = out + (e if w == 1.0 else exact(w) * e)
        self.expression = sp.sstr(out)
        values = {s: leaf_e._val for leaf_e, s in syms.items()}
        for t in self.targets:
            if t._op is not None or t not in syms:
                continue  # a non-leaf input: the local strategy answers for it
            s = syms[t]
            d = sp.diff(out, s)
            others = {o: shown(values[o]) for o in values if o is not s}
            at_point = d.xreplace(others)
            self.whole[t] = (sp.sstr(d), sp.sstr(at_point), evaluate(at_values(d, values)))

    def flatten(self, per_tensor: list) -> list:
        """Values given per tensor (None, or a list of element values) as one per element."""
        out = []
        for t, vals in zip(self.tensors, per_tensor):
            n = len(self.graph.elements(t))
            out.extend([None] * n if vals is None else vals)
        return out

    def report(self, got: list, extra_tol=None, label: str = "sympy_check", notes=()) -> SymbolicReport:
        """Compare autograd's values (per tensor: None, or the list of its element values)
        with the references."""
        got = self.flatten(got)
        extra_tol = None if extra_tol is None else self.flatten(extra_tol)
        local = self.local
        texts = local.tags.texts
        departures = local.deviations()
        checks = []
        for k, (t, name, a) in enumerate(zip(self.targets, self.names, got)):
            ref = local.G.get(t, 0.0)
            scale = local.A.get(t, 0.0)
            bound = local.B.get(t, 0.0)
            depth = local.D.get(t, 0)
            tag_ids = local.T.get(t, NO_TAGS)
            if tag_ids:
                kinds = {texts[i][0] for i in tag_ids}
                tnotes = sorted(texts[i][1] for i in tag_ids if texts[i][0] != "function")
                departed = sorted(n for i in tag_ids for n in departures.get(i, ()))
            else:  # most elements: no note on their paths
                kinds = NO_TAGS
                tnotes = []
                departed = []
            tol = self.atol + self.rtol * scale + 2 * bound
            if extra_tol is not None:
                tol += extra_tol[k] or 0.0
            expression = at_point = None
            value = ref
            status = "ok"
            whole = self.whole.get(t)
            a_val = 0.0 if a is None else a
            if whole is not None:
                expression, at_point, (kind, w) = whole
                if kind == "real" and "convention" not in kinds:
                    wtol = tol + self.rtol * (1 + depth) * max(scale, abs(w))
                    if same(a_val, w, self.dtype, wtol):
                        value, tol = w, wtol
                    elif same(a_val, ref, self.dtype, tol) and "hook" not in kinds:
                        tnotes.append(f"the exact derivative {w!r} differs from the derivative of the float "
                                      f"computation {ref!r} (rounding of the forward values, e.g. near a kink); "
                                      "every op rule and the chain rule check out")
                    else:
                        value, tol = w, wtol
            if "custom" in kinds:
                status = "unverifiable"
                value = None
            elif not same(a_val, value, self.dtype, tol):
                status = "custom backward" if departed else "hook" if "hook" in kinds else "mismatch"
            elif "convention" in kinds:
                status = "convention"
            if "hook" in kinds and status in ("ok", "convention"):
                tnotes.append("a hook on its path left this gradient as calculus gives it")
            tnotes.extend(departed)
            checks.append(InputCheck(name, a, value, expression, at_point, status, tol, tnotes))
        if local.failure_count > len(local.failures):
            notes = [*notes, f"{local.failure_count - len(local.failures)} more rule failures not listed"]
        graph = self.graph
        elements = len(graph.order) if graph.expanded else 0
        return SymbolicReport(checks, self.strategy, len(graph.nodes), self.dtype, self.expression,
                              list(local.failures), self.notes + list(notes), label, elements)


def _targets_and_names(graph: ElementGraph, inputs, symbols) -> tuple:
    """The tensors to differentiate by (default: every leaf tensor requiring grad, in order
    of first use) and their names."""
    if inputs is None:
        tensors = []
        seen = set()
        for e in graph.leaves:
            t = graph.node_of(e)
            if t not in seen:
                seen.add(t)
                tensors.append(t)
        names = None
    elif isinstance(inputs, Mapping):
        tensors = list(inputs)
        names = [str(inputs[t]) for t in tensors]
    else:
        tensors = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        names = None
    if names is None:
        given = symbols or {}
        named = base_names(graph, [t for t in tensors if t not in given], None)
        names = [str(given[t]) if t in given else named[t] for t in tensors]
    return tensors, names


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused: the check allocates an element, a list or two per
    element of the graph (millions for a CNN), none of them in a cycle the check leaves behind,
    and each collection of the oldest generation would walk them all again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def _unobserved() -> Iterator[None]:
    saved = engine.observers[:]
    engine.observers.clear()
    try:
        yield
    finally:
        engine.observers[:] = saved


_IMPLICIT = "grad can be implicitly created only for scalar outputs"


def sympy_check(output: Tensor, inputs=None, rtol: float | None = None, atol: float | None = None,
                raise_on_mismatch: bool = False, symbols: Mapping | None = None,
                strategy: str = "auto", gradient=None) -> SymbolicReport:
    """Check autograd's gradients of ``output`` against SymPy's derivative, element by element.

    ``inputs``: the tensors to differentiate by (default: every leaf requiring grad, in order
    of first use), or a mapping {Tensor: name}; a tensor with dimensions gets one check per
    element (``x[0, 1]``). ``gradient``: the weights of ``output``'s elements (as
    ``backward(gradient)``; needed when it has more than one). autograd's values come from
    ``autograd.grad(output, inputs, gradient, retain_graph=True)``, so ``.grad`` is untouched
    (hooks on the path do run); if an earlier ``backward()`` freed the graph, the inputs'
    ``.grad`` are compared instead. ``rtol``/``atol`` default to 16 epsilons / 16 smallest
    normals of the coarsest dtype on the graph; the rounding autograd may do along the graph
    is added. ``strategy``: 'auto', 'whole' or 'local' (see ``scalargrad.symbolic``). Returns a
    ``SymbolicReport``; with ``raise_on_mismatch`` a disagreement raises ``SymbolicMismatch``.
    """
    if strategy not in ("auto", "whole", "local"):
        raise ValueError(f"strategy must be 'auto', 'whole' or 'local', not {strategy!r}")
    if not isinstance(output, Tensor):
        raise TypeError(f"sympy_check expects a scalargrad Tensor, got {type(output).__name__}")
    if not output._rg:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if output._t.numel != 1:
            raise RuntimeError(_IMPLICIT)
        weights = [1.0]
    else:
        weights = _flat(gradient)
    graph = ElementGraph([output])
    tensors, names = _targets_and_names(graph, inputs, symbols)
    plan = _Plan(graph, [output], [weights], tensors, names, strategy, rtol, atol)
    notes = []
    try:
        with _unobserved():
            got = grad(output, tensors, grad_outputs=gradient, retain_graph=True, allow_unused=True) \
                if tensors else ()
        values = [_flat(g) for g in got]
    except RuntimeError as exc:
        if "backward through the graph a second time" not in str(exc):
            raise
        values = [_flat(t._grad) for t in tensors]
        notes.append("the graph was freed by an earlier backward(): compared with the inputs' .grad")
    report = plan.report(values, notes=notes)
    if raise_on_mismatch and not report.ok:
        raise SymbolicMismatch(str(report))
    return report


class _Observer:
    """Plans a check on entry to each backward call, compares once it has finished."""

    def __init__(self, log: BackwardChecks, rtol, atol, strategy, raise_on_mismatch) -> None:
        self.log = log
        self.rtol = rtol
        self.atol = atol
        self.strategy = strategy
        self.raise_on_mismatch = raise_on_mismatch

    limit = None

    def __call__(self, roots, grads, keep_graph, create_graph, inputs, accumulate):
        if self.limit is not None and len(self.log) >= self.limit:
            return None
        label = f"backward #{len(self.log) + 1}" if accumulate else f"autograd.grad #{len(self.log) + 1}"
        try:
            with _no_cycle_collection():
                graph = ElementGraph(list(roots))
                tensors, names = _targets_and_names(graph, None if inputs is None else list(inputs), None)
                plan = _Plan(graph, list(roots), [_flat(g) for g in grads], tensors, names, self.strategy,
                             self.rtol, self.atol)
        except Exception as exc:  # a checker failure must not break the user's program
            crash = SymbolicReport([], "none", 0, "-", None, [f"the check itself failed: {exc!r}"], [], label)
            # reported once the backward call has finished: a backward that raises (the version
            # error a walk of the same graph met first, say) leaves nothing to check
            return lambda result: self.log.append(crash)
        before = [_flat(t._grad) for t in tensors]

        def finish(result) -> None:
            extra = None
            if accumulate:
                values = []
                extra = []
                for t, old in zip(tensors, before):
                    new = _flat(t._grad)
                    if new is None:
                        values.append(None)
                        extra.append(None)
                        continue
                    old = old or [0.0] * len(new)
                    values.append([x - y for x, y in zip(new, old)])
                    eps = EPS[dt_name(t._t)]
                    extra.append([eps * (abs(x) + abs(y)) for x, y in zip(new, old)])
            else:
                values = [_flat(g) for g in result]
            try:
                with _no_cycle_collection():
                    report = plan.report(values, extra, label)
            except Exception as exc:  # as above: report, do not break the program
                report = SymbolicReport([], plan.strategy, len(plan.graph.nodes), plan.dtype, None,
                                        [f"the check itself failed: {exc!r}"], [], label)
            self.log.append(report)
            if self.raise_on_mismatch and not report.ok:
                raise SymbolicMismatch(str(report))

        return finish


@contextmanager
def check_every_backward(rtol: float | None = None, atol: float | None = None, strategy: str = "auto",
                         raise_on_mismatch: bool = False, limit: int | None = None) -> Iterator[BackwardChecks]:
    """Cross-check every backward call (``backward()``, ``autograd.grad``) made inside.

    ``limit`` caps the number of calls checked (the first ones); later calls run unchecked.

    Yields a ``BackwardChecks`` list that receives one ``SymbolicReport`` per call, for the
    gradient w.r.t. every leaf element that requires grad (or the call's ``inputs``). The
    check is planned on entry to the call, before any saved value is freed, so
    ``retain_graph=False`` is fine; nothing is run twice (hooks fire once), and ``.grad`` is
    compared by difference.
    """
    log = BackwardChecks()
    obs = _Observer(log, rtol, atol, strategy, raise_on_mismatch)
    obs.limit = limit
    engine.observers.append(obs)
    try:
        yield log
    finally:
        engine.observers.remove(obs)
