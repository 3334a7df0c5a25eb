"""Custom ``autograd.Function`` nodes in the local pass.

A Function is proved like an op when its class declares its form with a static ``sympy(sp,
*args)``; on tensors with dimensions, element by element when it says so
(``sympy_elementwise``). The chain rule goes through the derivative of the declared form; the
user's backward is never called by the check (it may print or record, and is often not linear in
its gradient). Instead the engine's own call is compared, after it ran: what the backward
returned against the declared form's partials times the gradient it received (``deviations``).
"""

from __future__ import annotations

import math

import sympy as sp

from .forms import at_values, evaluate, function_of
from .graph import NO_ELEMENT, Elem, element_index
from .notes import union
from .rules import EPS, NODE_RTOL, TINY, TINY_OF_EPS, dt_name, function_rule, same

__all__ = ["FunctionChecks"]

_MAX_DEPARTURES = 5  # departures of one custom backward listed, element by element


class _FnInfo:
    """The local pass's view of one custom Function node: its declared rule, name, place,
    the tag marking the inputs below it, and its partials at each output element's inputs."""

    __slots__ = ("node", "name", "where", "rule", "tag", "bad", "rows")

    def __init__(self, node, name: str, where: str) -> None:
        self.node = node
        self.name = name
        self.where = where
        self.rule = None
        self.tag = -1
        self.bad = None  # the tag of a form that failed
        self.rows: dict = {}  # input elements -> (values, partials per output, forward values, tags per output)


class FunctionChecks:
    """The local pass's checks of custom Function nodes (a part of ``local.LocalPass``)."""

    def _function(self, v, nd, ins, eps: float, t_v: frozenset):
        """An output element of a custom Function (its node's, or a Pick's of a multi-output
        one). With a declared form: checks the element's value and returns the partials of its
        output's form by the Function's input elements (its backward is compared after the
        engine ran it, ``deviations``). Without one: unverifiable."""
        fnode, slot = function_of(v)
        if fnode is not nd and fnode._ext is not None:  # hooks on the shared grad_fn node
            h = self._hook(fnode)
            if h is not None:
                t_v = union(t_v, frozenset((h,)))
        mode = self.graph.fn_mode.get(fnode)
        if mode != "declared":
            name = fnode._op.function.__name__
            why = "(no symbolic form)" if mode == "opaque" else \
                "(on tensors with dimensions, and its form is not declared elementwise: sympy_elementwise)"
            t_v = union(t_v, frozenset((self.tags.id("custom", f"custom autograd.Function {name} {why}"),)))
            return [math.nan] * len(ins), t_v
        info = self.functions.get(fnode)
        if info is None:
            info = self.functions[fnode] = self._prepare(fnode)
        if info.rule is None:
            return [math.nan] * len(ins), union(t_v, frozenset((info.bad,)))
        vals, parts, values, slot_tags = self._row(info, ins)
        t_v = union(t_v, slot_tags[slot])
        self._check_declared_forward(v, info, slot, vals, values, eps)
        return parts[slot], t_v

    def _prepare(self, fnode) -> _FnInfo:
        info = _FnInfo(fnode, fnode._op.function.__name__, self.graph.describe(fnode))
        try:
            info.rule = function_rule(fnode)
        except Exception as exc:  # the user's form is broken: say so, and prove nothing through it
            self._fail(f"{info.where}: its declared SymPy form failed: {exc!r}")
            info.bad = self.tags.id("custom", f"custom autograd.Function {info.name} (its declared SymPy form "
                                              "failed)")
            return info
        info.tag = self.tags.id("function", info.where)
        return info

    def _row(self, info: _FnInfo, ins) -> tuple:
        """(values, partials[output][input], forward values or None, tags per output) of the
        Function's declared form at the input elements ``ins``."""
        key = tuple(ins)
        got = info.rows.get(key)
        if got is not None:
            return got
        rule = info.rule
        tags = self.tags
        vals = [u._val for u in ins]
        fast = None
        if rule.fast is not None:
            try:
                fast = rule.fast(*vals)
            except (ArithmeticError, ValueError, TypeError):
                fast = None
        subs = dict(zip(rule.symbols, vals))
        nan_in = any(x != x for x in vals)
        n_in = len(ins)
        n_out = len(rule.forms)
        parts = []
        slot_tags = []
        pos = info.node._c._tensor_positions
        for i in range(n_out):
            row = []
            these = {info.tag}
            for j, u in enumerate(ins):
                if u is NO_ELEMENT:
                    if rule.uses[i][j]:
                        these.add(tags.id("custom", f"custom autograd.Function {info.name}: its output {i} uses "
                                                    f"argument {pos[j]}, whose shape does not broadcast to the "
                                                    "output's"))
                        row.append(math.nan)
                    else:
                        row.append(0.0)
                    continue
                if not u._rg:
                    row.append(0.0)
                    continue
                p = fast[i * n_in + j] if fast is not None else None
                if isinstance(p, int):  # a constant partial: lambdify gives a Python int
                    p = float(p)
                if not (isinstance(p, float) and math.isfinite(p)):
                    kind, p = evaluate(at_values(rule.partials[i][j], subs))
                    if kind != "real" and not nan_in:
                        these.add(tags.id("custom", f"custom autograd.Function {info.name}: the derivative of its "
                                                    f"declared form by argument {pos[j]} is not a real number at "
                                                    f"{vals} (SymPy: {kind})"))
                        p = math.nan
                row.append(math.nan if p is None else p)
            parts.append(row)
            slot_tags.append(frozenset(these))
        values = [fast[n_out * n_in + i] for i in range(n_out)] if fast is not None else None
        got = info.rows[key] = (vals, parts, values, slot_tags)
        return got

    def _check_declared_forward(self, v, info: _FnInfo, slot: int, vals, values, eps: float) -> None:
        """Does the Function's forward give what its declared form does?"""
        y = v._val
        if y is None or any(x != x for x in vals):
            return
        tiny = TINY_OF_EPS[eps]
        f = values[slot] if values is not None else None
        if isinstance(f, int):
            f = float(f)
        if isinstance(f, float) and -(NODE_RTOL * eps * abs(f) + tiny) <= y - f <= NODE_RTOL * eps * abs(f) + tiny:
            return
        form = info.rule.forms[slot]
        kind, r = evaluate(at_values(form, dict(zip(info.rule.symbols, vals))))
        dt = dt_name(v._t)
        ok = (kind == "real" and same(y, r, dt, NODE_RTOL * eps * abs(r) + tiny)) or \
             (kind in ("nan", "complex") and y != y) or (kind == "inf" and math.isinf(y)) or kind == "unknown"
        if not ok:
            out = "" if len(info.rule.forms) == 1 else f" (output {slot})"
            where = info.where if v.__class__ is not Elem else self.graph.describe(v)
            self._fail(f"{where}{out}: forward value {y!r}, but its declared SymPy form "
                       f"{sp.sstr(form)} gives {r!r} at {vals}")

    def deviations(self) -> dict:
        """For each custom Function node with a declared form whose backward, as the engine
        ran it, differs from its form's partials times the gradients it received: its tag id
        -> the notes saying so."""
        found = {}
        graph = self.graph
        for fnode, info in self.functions.items():
            seen = getattr(fnode._c, "_backward_seen", None)
            if info.rule is None or seen is None:
                continue
            g_in, g_out = seen
            g_in = [0.0 if g is None else g for g in g_in]
            want: dict = {}  # (argument, element) -> [sum, scale, values, partials]
            zero_d = all(not isinstance(g, list) for g in g_in) and all(not isinstance(g, list) for g in g_out)
            for e, slot, pos_in in graph.functions.get(fnode, ()):
                if pos_in is None:
                    continue
                ins = graph.ins[e]
                vals, parts, _, _ = self._row(info, ins)
                g = g_in[slot]
                gj = g[e.index] if isinstance(g, list) else g
                for i, q in enumerate(pos_in):
                    if q is None or not ins[i]._rg:
                        continue
                    p = parts[slot][i]
                    w = want.get((i, q))
                    if w is None:
                        w = want[(i, q)] = [0.0, 0.0, vals, False]
                    if p != p:
                        w[3] = True  # no derivative to compare with: reported unverifiable
                        continue
                    w[0] += gj * p
                    w[1] += abs(gj * p)
            notes = []
            more = 0
            for (i, q), (total, scale, vals, unknown) in sorted(want.items()):
                if unknown or i >= len(g_out):
                    continue
                got = g_out[i]
                if isinstance(got, list):
                    got = got[q]
                u = fnode._in[i]
                dt = dt_name(u._t)
                tol = NODE_RTOL * EPS[dt] * scale + TINY[dt]
                if same(0.0 if got is None else got, total, dt, tol):
                    continue
                if len(notes) >= _MAX_DEPARTURES:
                    more += 1
                    continue
                if zero_d:
                    notes.append(self._departure(info, i, got, total, vals, g_in))
                else:
                    idx = ", ".join(str(k) for k in element_index(u._t.shape, q))
                    notes.append(f"custom backward of {info.name}, at {info.where}, returned {got!r} for argument "
                                 f"{fnode._c._tensor_positions[i]}, element [{idx}]; the calculus of its declared "
                                 f"form gives {total!r}")
            if more:
                notes.append(f"custom backward of {info.name}: {more} more elements depart likewise")
            if notes:
                found[info.tag] = notes
        return found

    def _departure(self, info: _FnInfo, j: int, got, want: float, vals, g_in: list) -> str:
        """The note for argument ``j`` of a Function of 0-dim tensors: what its custom
        backward returned, what calculus gives."""
        pos = info.node._c._tensor_positions[j]
        rows = info.rule.partials
        parts = self._row_at(info, vals)
        if len(rows) == 1:
            calc = (f"d/d(argument {pos}) = {sp.sstr(rows[0][j])} = {parts[0][j]!r} at {vals}, times "
                    f"the incoming gradient {g_in[0]!r}")
        else:
            ds = ", ".join(sp.sstr(r[j]) for r in rows)
            vs = ", ".join(repr(r[j]) for r in parts)
            gs = ", ".join(repr(g) for g in g_in)
            calc = (f"d/d(argument {pos}) of its outputs = ({ds}) = ({vs}) at {vals}, dotted with the "
                    f"incoming gradients ({gs})")
        return (f"custom backward of {info.name}, at {info.where}, returned {got!r} for argument {pos}; "
                f"the calculus of its declared form gives {want!r} ({calc})")

    def _row_at(self, info: _FnInfo, vals) -> list:
        for got_vals, parts, _, _ in info.rows.values():
            if got_vals == vals:
                return parts
        return [[math.nan] * len(vals) for _ in info.rule.forms]
