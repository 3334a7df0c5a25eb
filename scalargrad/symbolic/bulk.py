"""The bulk formulas, as the engine runs them: each node of a tensor with dimensions is run on a
probe gradient with its bulk ``backward``, and the result (a vector-Jacobian product) compared
with the one its elements' verified partials give: a wrong bulk formula is found at its node."""

from __future__ import annotations

from .._autograd.function import Pick as FunctionPick
from .._autograd.gradients import adapt
from .._base import grad_mode
from .._base.dtypes import TensorType
from .._ops.joins import Unbind
from .._tensor.tensor import Tensor, leaf
from .forms import ROW, STRUCT, op_kind
from .graph import element_index, shape_pick
from .rules import EPS, NODE_RTOL, TINY, dt_name, same

__all__ = ["BulkChecks"]

# the probe gradient a bulk backward is run on: powers of two, so that scaling by them is exact
_PROBE = (1.0, -0.5, 2.0, -1.0, 0.5, -2.0, 0.25)


class BulkChecks:
    """The local pass's check of bulk backward formulas (a part of ``local.LocalPass``)."""

    def _check_bulk(self) -> None:
        """Run each node of a tensor with dimensions as the engine runs it, its bulk backward
        on a probe gradient, and compare the result (a vector-Jacobian product) with the one
        its elements' verified partials give."""
        if not self.graph.expanded:
            return
        with grad_mode.no_grad():  # the tensor kernel's ops must record nothing
            for v in self.graph.expanded:
                self._vjp(v)

    def _vjp(self, v) -> None:
        op = v._op
        if op.runs_user_code or op is FunctionPick or shape_pick(v):
            return
        base = op.base
        if op is base.tensor or op is base:
            live = op
        elif op.is_freed:
            live = base.tensor if (v._t.ndim or any(u._t.ndim for u in v._in)) else base
        else:
            return  # its saved result was changed in place: the engine refuses to run it
        vin = self.graph.node_ins[v]
        unbind = issubclass(base, Unbind)
        g, probes, elems = _unbind_probe(v) if unbind else _probe(v, self.graph)
        try:
            grads = live.backward(v._t.kernel, g, v)
        except (RuntimeError, NotImplementedError, ArithmeticError, AttributeError, TypeError):
            return  # the engine raises it too (and reports it), running the same formula
        got: dict = {}
        for u, gi in zip(vin, grads):
            if gi is None or not u._rg:
                continue
            gi = adapt(gi, u, v, False)
            vals = gi._val if isinstance(gi, Tensor) else gi
            vals = list(vals) if isinstance(vals, list) else [vals]
            prev = got.get(u)
            got[u] = vals if prev is None else [x + y for x, y in zip(prev, vals)]
        ref = _unbind_reference(self.graph, v, vin, probes) if unbind else _reference(self.graph, elems, probes)
        if ref is not None:
            self._compare(v, vin, got, ref)

    def _compare(self, v, vin, got: dict, ref: dict) -> None:
        """Fail at the first element where the engine's vector-Jacobian product ``got`` departs
        from the elements' ``ref`` (input element -> [value, scale, terms])."""
        graph = self.graph
        node_of = graph.node_of
        for u in {node_of(e) for e in ref} | set(got):
            if not u._rg:
                continue
            have = got.get(u)
            dtu = dt_name(u._t)
            eps, tiny = EPS[dtu], TINY[dtu]
            for q, e in enumerate(graph.elements(u)):
                r = ref.get(e)
                want, scale, cnt = (0.0, 0.0, 0) if r is None else r
                x = 0.0 if have is None else have[q]
                if want != want and x != x:
                    continue
                if same(x, want, dtu, (NODE_RTOL + cnt) * eps * scale + tiny):
                    continue
                i = next(k for k, w in enumerate(vin) if w is u)
                where = ""
                if u._t.ndim:
                    where = " at [" + ", ".join(str(k) for k in element_index(u._t.shape, q)) + "]"
                self._fail(f"{self.graph.describe(v)}: its backward, run as the engine runs it on a probe gradient, "
                           f"gives {x!r} for input {i}{where}; the derivatives of its elements give {want!r}")
                return


def _probe(v, graph) -> tuple:
    """(the probe gradient of node ``v``, its values, ``v``'s elements)."""
    elems = graph.many.get(v) if v._t.ndim else [graph.single.get(v, v)]
    probes = [_PROBE[j % len(_PROBE)] for j in range(len(elems))]
    g = leaf(list(probes), TensorType(v._t.dtype, tuple(v._t.shape))) if v._t.ndim else probes[0]
    return g, probes, elems


def _unbind_probe(v) -> tuple:
    """The same for a multi-output shape op (unbind, split): one probe gradient per output."""
    probes = []
    gs = []
    k = 0
    for shape, _m in v._c.outputs:
        n = 1
        for s in shape:
            n *= s
        ps = [_PROBE[(k + j) % len(_PROBE)] for j in range(n)]
        k += n
        probes.append(ps)
        gs.append(leaf(ps if shape else ps[0], TensorType(v._t.dtype, tuple(shape))))
    return gs, probes, None


def _add(ref: dict, key, t: float, a: float) -> None:
    r = ref.get(key)
    if r is None:
        ref[key] = [t, a, 1]
    else:
        r[0] += t
        r[1] += a
        r[2] += 1


def _unbind_reference(graph, v, vin, probes) -> dict:
    """What the probe gradients of an unbind/split give its input: each lands where it was taken."""
    ref: dict = {}
    es = graph.elements(vin[0])
    for (_shape, m), ps in zip(v._c.outputs, probes):
        for j, p in enumerate(ps):
            _add(ref, es[j if m is None else m[j]], p, abs(p))
    return ref


def _reference(graph, elems, probes) -> dict | None:
    """The vector-Jacobian product the elements' verified partials give for the probe gradient
    (input element -> [value, scale, terms]), or None where an element has no partials."""
    ref: dict = {}
    get = ref.get
    for e, p in zip(elems, probes):
        ins = graph.ins[e]
        live_e, kind, _ = op_kind(e._op)
        if kind == ROW:
            try:
                parts = live_e.backward(e._t.kernel, 1.0, e)
            except (RuntimeError, NotImplementedError, ArithmeticError):
                return None
        elif kind == STRUCT:
            parts = live_e.partials([u._val for u in ins], e._c)
        else:
            return None
        # an element op whose backward formula cancels says what its rounding errors are
        # relative to (``partial_scales``); otherwise the partials themselves
        if kind == STRUCT and getattr(live_e, "partial_scales", None) is not None:
            scales = live_e.partial_scales([u._val for u in ins], e._c)
            for u, s, m in zip(ins, parts, scales):
                if s is None or not u._rg:
                    continue
                t = p * s
                a = abs(p * m)
                r = get(u)  # _add inlined: this loop runs once per partial of every element
                if r is None:
                    ref[u] = [t, a, 1]
                else:
                    r[0] += t
                    r[1] += a
                    r[2] += 1
            continue
        for u, s in zip(ins, parts):  # the scale of each term is the term itself: |p * s|
            if s is None or not u._rg:
                continue
            t = p * s
            r = get(u)
            if r is None:
                ref[u] = [t, abs(t), 1]
            else:
                r[0] += t
                r[1] += abs(t)
                r[2] += 1
    return ref
