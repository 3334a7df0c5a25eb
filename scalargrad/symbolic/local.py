"""The local pass: every element's rule verified, then the chain rule redone in float64.

For each op kind, its SymPy form is differentiated once (``rules``) and, at every element, its
partial derivatives evaluated at the element's input values are compared with the local gradient
the op's own ``backward`` formula gives on the element's numbers (the float kernel, as a 0-dim
node runs it) for a unit incoming gradient; the chain rule is then redone in float64 from the
verified partials, element by element in reverse creation order. Each element's forward value is
proved against its form too. Structural elements have their declared partials, proved against
their form by SymPy once; custom Functions are checked by ``functions``, the bulk formulas of
nodes with dimensions by ``bulk``. Notes met on the way (PyTorch's conventions at kinks, hooks,
custom Functions) are carried down to the inputs below them.
"""

from __future__ import annotations

import math

import sympy as sp

from .._base import dtypes
from .bulk import BulkChecks
from .forms import FUNCTION, ROW, STRUCT, op_kind, op_kinds, opaque_name
from .functions import FunctionChecks
from .graph import Elem, ElementGraph
from .notes import NO_TAGS, Tags, hook_tag, union
from .rules import (
    EPS,
    NODE_RTOL,
    RULES,
    TINY,
    TINY_OF_EPS,
    c_shape,
    dt_name,
    element_proof,
    exact_forward,
    exact_partial,
    op_title,
    operand_floats,
    rule_of,
    same,
    within_rounding,
)

__all__ = ["LocalPass", "overwritten"]

_EDGE_ROUNDINGS = 4  # roundings one backward edge may add (the rule's own ops and the product)
_MAX_FAILURES = 20  # rule failures listed in a report; more are counted


def overwritten(v, ins) -> bool:
    """The node (or the tensor of an element), or one of its inputs, was changed in place after
    the node was made, through an alias PyTorch allows to change it (``c.detach().zero_()`` where
    no node saved ``c``'s values): the numbers there now are not the ones its forward computed
    with, so there is no forward value to compare (its gradient is still checked)."""
    seq = v._seq
    last = None
    for x in (v, *ins):
        t = x.node if x.__class__ is Elem else x
        if t is last:  # an element's inputs come in runs of one tensor's elements
            continue
        last = t
        s = t._s
        if s is not None and s.store is not None and s.store.written > seq:
            return True  # written through an alias with a version counter of its own (x.data *= 100)
        if t._op is None:
            if t is not v and t._seq > seq:  # a leaf's _seq is its last change
                return True
            continue
        e = t._ext
        if e is not None and e.modified > seq:
            return True
    return False


def _any_nan(vals: list) -> bool:
    try:
        return any(map(math.isnan, vals))
    except TypeError:  # not all floats
        return any(x != x for x in vals)


class LocalPass(FunctionChecks, BulkChecks):
    """The local pass: verify every element's rule, then redo the chain rule in float64.

    For each target element: ``G`` the reference gradient, ``A`` the sum of the absolute values
    of its contributions (the scale of the result), ``B`` a bound on the rounding autograd may
    do along the way, ``T`` the notes met on the paths above it, ``D`` its depth.
    """

    def __init__(self, graph: ElementGraph, roots, weights, targets) -> None:
        self.failures: list = []
        self.failure_count = 0
        self.tags = Tags()
        self.graph = graph
        self.dtype = "float64"
        self.G, self.A, self.B, self.T, self.D = {}, {}, {}, {}, {}
        self.functions: dict = {}  # custom Function node with a declared form -> _FnInfo
        self._hooks: dict = {}  # tensor -> its hook tag id, or None
        self._proofs_seen: set = set()  # structural element ops met in this pass
        state: dict = {}  # element -> [gradient, scale, rounding bound, tags, depth]
        for r, w in zip(roots, weights):
            st = state.get(r)
            if st is None:
                state[r] = [w, abs(w), 0.0, NO_TAGS, 0]
            else:
                st[0] += w
                st[1] += abs(w)
            if r._t.dtype is not dtypes.float64:
                self._coarse(r._t.dtype)
        wanted = set(targets)
        self._sweep(state, wanted)
        self._left(state, wanted)
        self._check_bulk()

    def _sweep(self, state: dict, wanted: set) -> None:
        """The chain rule in float64, element by element in reverse creation order, each
        element's rule verified on the way (``state``: element -> [gradient, scale, rounding
        bound, tags, depth], the gradients delivered so far)."""
        graph = self.graph
        tags = self.tags
        ins_of = graph.ins
        f32, f64 = dtypes.float32, dtypes.float64
        eps32, eps64 = EPS["float32"], EPS["float64"]
        k_edge = _EDGE_ROUNDINGS
        info = op_kinds
        for v in reversed(graph.order):
            st = state.pop(v, None)
            if st is None:
                continue
            g, a_v, b_v, t_v, d_v = st
            vdt = v._t.dtype
            if vdt is f32:
                eps = eps32
                if self.dtype == "float64":
                    self.dtype = "float32"
            elif vdt is f64:
                eps = eps64
            else:
                eps = self._coarse(vdt)
            nd = v.node if v.__class__ is Elem else v
            if nd._ext is not None:
                h = self._hook(nd)
                if h is not None:
                    t_v = union(t_v, frozenset((h,)))
            if v in wanted:
                self._keep(v, g, a_v, b_v, t_v, d_v)
            ins = ins_of[v]
            op = v._op
            got = info.get(op)
            live, kind, c_kind = got if got is not None else op_kind(op)
            if kind == ROW:
                parts, errs, t_v = self._node(v, live, c_kind, ins, eps, t_v)
            elif kind == STRUCT:
                parts, errs, t_v = self._struct(v, live, ins, eps, t_v)
            elif kind == FUNCTION:
                parts, t_v = self._function(v, nd, ins, eps, t_v)
                errs = [0.0] * len(ins)
            else:
                t_v = union(t_v, frozenset((tags.id("custom", f"{opaque_name(live)} at {graph.describe(nd)} "
                                                               "(no element-level symbolic form)"),)))
                parts = [math.nan] * len(ins)
                errs = [0.0] * len(ins)
            ag = abs(g)
            d_u = d_v + 1
            k_eps = k_edge * eps
            last_t = ueps = None
            for u, s, err in zip(ins, parts, errs):
                if not u._rg:
                    continue
                contrib = g * s
                abs_s = abs(s)
                bound = b_v * abs_s + ag * (err + k_eps * abs_s if err else k_eps * abs_s)
                ut = u._t
                if ut is not last_t:  # an element's inputs mostly share a tensor (and its dtype)
                    last_t = ut
                    udt = ut.dtype
                    ueps = eps32 if udt is f32 else eps64 if udt is f64 else EPS.get(udt.name, eps64)
                su = state.get(u)
                if su is None:
                    state[u] = [contrib, a_v * abs_s, bound + ueps * abs(contrib), t_v, d_u]
                else:
                    total = su[0] + contrib
                    su[0] = total
                    su[1] += a_v * abs_s
                    su[2] += bound + ueps * abs(total)
                    if su[3] is not t_v:
                        su[3] = union(su[3], t_v)
                    if d_u > su[4]:
                        su[4] = d_u

    def _left(self, state: dict, wanted: set) -> None:
        """The leaves (and targets) left in the buffers once the sweep is done."""
        graph = self.graph
        for u, (g, a, b, t, d) in state.items():
            if u in wanted and u not in self.G:
                nd = graph.node_of(u)
                if nd is not None and nd._ext is not None:
                    h = self._hook(nd)
                    if h is not None:
                        t = union(t, frozenset((h,)))
                self._keep(u, g, a, b, t, d)

    def _coarse(self, dt) -> float:
        """Note a dtype met on the graph (the report's tolerance is the coarsest's); its epsilon."""
        name = dt.name if dt.name in EPS else "float64"
        if EPS[name] > EPS[self.dtype]:
            self.dtype = name
        return EPS[name]

    def _hook(self, nd):
        try:
            return self._hooks[nd]
        except KeyError:
            h = self._hooks[nd] = hook_tag(nd, self.tags, self.graph)
            return h

    def _keep(self, v, g, a, b, t, d) -> None:
        self.G[v] = g
        self.A[v] = a
        self.B[v] = b
        self.T[v] = t
        self.D[v] = d

    def _fail(self, text: str) -> None:
        self.failure_count += 1
        if len(self.failures) < _MAX_FAILURES:
            self.failures.append(text)

    # ------------------------------------------------------------ an op's own rule

    def _node(self, v, op, c_kind, ins, eps: float, t_v: frozenset):
        """Verify one element: its forward value and local partials against its SymPy form.

        The local partials are what the op's own backward formula gives on the element's
        numbers (the float kernel, as the engine runs a 0-dim node). Returns the partials for
        the chain rule (SymPy's, or PyTorch's convention), each one's distance from
        autograd's, and the element's tags."""
        n = len(ins)
        c = v._c if c_kind is not None else None
        vals = [u._val for u in ins]
        cvals = () if c is None else operand_floats(c)
        engine_parts = op.backward(v._t.kernel, 1.0, v)
        rule = RULES.get(op if c is None else (op, c_shape(c)))
        if rule is None or rule.arity != n:
            rule = rule_of(op, n, c)
        try:
            fast = rule.fast(*vals, *cvals)
        except (ArithmeticError, ValueError, TypeError):
            fast = None
        tiny = TINY_OF_EPS[eps]
        y = v._val
        if fast is not None:
            f = fast[n]
            try:
                fwd_ok = -(NODE_RTOL * eps * abs(f) + tiny) <= y - f <= NODE_RTOL * eps * abs(f) + tiny
            except TypeError:  # complex
                fwd_ok = False
        else:
            fwd_ok = False
        if not fwd_ok and not overwritten(v, ins):
            self._check_forward(v, op, rule, vals, c, cvals, eps, tiny)
        conv = op.convention(*vals, *cvals) if op.convention is not None else None
        parts = []
        errs = []
        for i in range(n):
            e = engine_parts[i]
            if not ins[i]._rg:
                parts.append(0.0)
                errs.append(0.0)
                continue
            if e is None:
                e = 0.0
            if conv is None and fast is not None:
                s = fast[i]
                try:
                    d = e - s
                    if -(NODE_RTOL * eps * abs(s) + tiny) <= d <= NODE_RTOL * eps * abs(s) + tiny:
                        parts.append(s)
                        errs.append(abs(d))
                        continue
                except TypeError:  # complex
                    pass
            s, err, t_v = self._slow_partial(v, op, rule, vals, c, cvals, i, e, eps, tiny, conv, fast, t_v)
            parts.append(s)
            errs.append(err)
        return parts, errs, t_v

    def _check_forward(self, v, op, rule, vals, c, cvals, eps, tiny) -> None:
        y = v._val
        if any(x != x for x in vals) or any(x != x for x in cvals):
            return
        kind, r = exact_forward(op, vals, c)
        dt = dt_name(v._t)
        scale = abs(r) if kind == "real" else 0.0
        if kind == "real" and op.forward_scale is not None:
            try:
                scale = max(scale, abs(op.forward_scale(*vals, c) if c is not None else op.forward_scale(*vals)))
            except (ArithmeticError, ValueError, TypeError):
                pass
        if kind == "real" and len(vals) > 2:
            # an n-ary op (sum, mean, addmm, dot: sums of products) rounds relative to its terms,
            # not to its result: with cancellation, float32's error is eps times sum |term|
            k2, m = exact_forward(op, [abs(x) for x in vals], c)
            if k2 == "real":
                scale = max(scale, abs(m))
        magnitude = getattr(op, "magnitude", None)
        if kind == "real" and magnitude is not None:
            # an op with intermediate roundings declares the size of the terms they touch
            scale = max(scale, magnitude(vals, c))
        ok = (kind == "real" and same(y, r, dt, NODE_RTOL * eps * scale + tiny)) or \
             (kind in ("nan", "complex") and y != y) or (kind == "inf" and math.isinf(y)) or kind == "unknown"
        if not ok:
            self._fail(f"{self.graph.describe(v)}: forward value {y!r}, but its SymPy form "
                       f"{sp.sstr(rule.forward)} gives {r!r} at {vals + list(cvals)}")

    def _slow_partial(self, v, op, rule, vals, c, cvals, i, e, eps, tiny, conv, fast, t_v):
        """Partial ``i`` where the quick float comparison did not settle it."""
        tags = self.tags
        dt = dt_name(v._t)
        at = vals + list(cvals)
        title = op_title(op)
        if conv is not None and conv[1][i] is not None:
            ref = conv[1][i]
            t_v = union(t_v, frozenset((tags.id("convention", conv[0]),)))
            if not same(e, ref, dt, tiny):
                self._fail(f"{self.graph.describe(v)}: d/d(input {i}) is {e!r}, but PyTorch's convention "
                           f"there is {ref!r}")
            return ref, 0.0, t_v
        if any(x != x for x in at):
            # nan in, nan out: calculus has nothing to say; take the engine's partial
            return e, 0.0, t_v
        s = fast[i] if fast is not None else None
        if s is not None and not isinstance(s, complex) and math.isfinite(s) and math.isfinite(e) and \
                within_rounding(rule, v, vals, cvals, i, e, dt):
            return s, abs(e - s), t_v
        kind, r = exact_partial(op, vals, c, i)
        if kind == "real":
            scale = abs(r)
            if op.backward_scale is not None:  # a formula whose terms cancel: errors relative to them
                try:
                    scale = max(scale, abs(op.backward_scale(i, *vals, c) if c is not None else
                                           op.backward_scale(i, *vals)))
                except (ArithmeticError, ValueError, TypeError):
                    pass
            if math.isinf(e) and math.isfinite(r) and same(e, r, dt, 0.0):
                note = (f"{title}: the derivative {r:.6g} at {at} is beyond the range of {dt}; "
                        f"PyTorch returns {e!r}")
                return e, 0.0, union(t_v, frozenset((tags.id("convention", note),)))
            if same(e, r, dt, NODE_RTOL * eps * scale + tiny) or \
                    (math.isfinite(e) and math.isfinite(r) and within_rounding(rule, v, vals, cvals, i, e, dt)):
                return r, (abs(e - r) if math.isfinite(e - r) else 0.0), t_v
            if v._val != v._val and e != e:
                # the op itself is undefined here (0/0, inf - inf...): so is its derivative,
                # whatever SymPy's substitution makes of the formula (-a0/a1**2 at (0, 0) gives 0)
                note = f"{title}: the op is undefined at {at} (its value is nan); PyTorch returns nan"
                return e, 0.0, union(t_v, frozenset((tags.id("convention", note),)))
            self._fail(f"{self.graph.describe(v)}: d/d(input {i}) is {e!r} in autograd, {r!r} by SymPy "
                       f"({sp.sstr(rule.partials[i])} at {at})")
            return r, 0.0, t_v
        if kind == "inf" and math.isinf(e) and (r != r or r == e):
            note = f"{title}: the derivative is unbounded at {at}; PyTorch returns {e!r}"
        elif kind in ("nan", "unknown"):
            note = f"{title}: calculus gives no derivative at {at} (SymPy: nan); PyTorch returns {e!r}"
        elif kind == "complex" and e != e:
            note = f"{title}: the derivative is not real at {at}; PyTorch returns nan"
        else:
            self._fail(f"{self.graph.describe(v)}: d/d(input {i}) is {e!r} in autograd, but SymPy gives "
                       f"{'an unbounded value' if kind == 'inf' else 'a complex value'} "
                       f"({sp.sstr(rule.partials[i])} at {at})")
            return e, 0.0, t_v
        return e, 0.0, union(t_v, frozenset((tags.id("convention", note),)))

    # ------------------------------------------------------------ structural elements

    def _struct(self, v, op, ins, eps: float, t_v: frozenset):
        """A structural element (a sum, a dot product, a copy...): its declared partials,
        proved against its SymPy form once per op, and its forward value."""
        if op not in self._proofs_seen:  # proved once per op (element_proof caches), failed once per pass
            self._proofs_seen.add(op)
            problem = element_proof(op)
            if problem is not None:
                self._fail(f"{self.graph.describe(v)}: {problem}")
        vals = [u._val for u in ins]
        c = v._c
        parts = op.partials(vals, c)
        conv = op.convention(vals, c)
        if conv is not None:
            t_v = union(t_v, frozenset((self.tags.id("convention", conv[0]),)))
        if op.c_kind != "number" and not _any_nan(vals) and not overwritten(v, ins):
            y = v._val
            value, scale = op.value(vals, c)
            dt = dt_name(v._t)
            tol = (NODE_RTOL + len(vals)) * eps * scale + TINY[dt]
            if not (same(y, value, dt, tol) or (math.isinf(value) and math.isinf(y))):
                self._fail(f"{self.graph.describe(v)}: forward value {y!r}, but its SymPy form "
                           f"{sp.sstr(op.sympy(sp, [sp.Symbol(f'a{i}') for i in range(min(len(vals), 4))], c))}"
                           f"{'...' if len(vals) > 4 else ''} gives {value!r} at its inputs")
        return parts, [0.0] * len(parts), t_v

    # ------------------------------------------------------------ custom Functions
