"""Compare scalargrad's outcome of a program with PyTorch's and classify it as issue 14 does.

The comparator walks the steps in order and records *divergences*. Some propagate: a value
(bits, dtype, shape), an error on one side only or different errors end the walk, since
later steps follow from them; a different requires_grad or is_leaf is recorded and the walk
goes on, because what it causes (a gradient missing, a hook refused) is worth seeing too.
Others are only what is shown about a value (grad_fn name, repr, warnings, the names of a
gradient's graph): recorded, and the walk goes on. The first propagating divergence is the
program's *root* (``Verdict.root``); ``campaign.causes_of`` files every divergence under a
cause of ``causes.CATALOGUE``. ``SEVERITY`` orders the classes.

The judge is strict: every value bit for bit, every error by type and message. Where
scalargrad differs, PyTorch runs the program again with scalargrad's result written into each
call of a machine-dependent kernel (``kernels.Substitution``: exp, log, sin, cos, tanh,
sigmoid, sqrt, pow, matrix products, softmax, tanh_backward - forward and backward alike); if
scalargrad then agrees in every observable and its value at each replaced call passes that
kernel's machine-independent check (correctly rounded, or within the classical error bound of
that element's own terms), the case is *admitted by the kernel rule* and attributed to the
kernels whose bits were replaced (``Verdict.kernels``). Nothing else is tolerated: IEEE
arithmetic around those kernels (every derivative formula) must agree bit for bit. A program
whose only difference is where a tensor lies in memory (strides, storage offset,
is_contiguous) is *layout-only*.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

from .outcome import ErrorRecord, Outcome
from .program import EVENTS, GRAD, GRAD_GRAPH, Program

__all__ = ["Divergence", "Verdict", "compare", "SEVERITY", "RAW_TYPES", "GROUPS"]

# Python's own exceptions: from scalargrad they are raw errors unless a ``raise`` statement
# of scalargrad raised them on purpose
RAW_TYPES = {"ZeroDivisionError", "OverflowError", "ValueError", "AttributeError", "RecursionError", "IndexError",
             "KeyError", "TypeError", "NameError", "UnboundLocalError", "AssertionError", "StopIteration"}

# class -> (rank, severity group); lower rank is more severe
SEVERITY = {
    "silently_wrong_grad": (0, "silently wrong"),
    "silently_wrong_value": (1, "silently wrong"),
    "missing_error": (2, "silently wrong"),
    "failed_load_changed_state": (3, "silently wrong"),
    "raw_error": (4, "raw Python error"),
    "wrong_type": (5, "wrong message"),
    "wrong_message": (6, "wrong message"),
    "refused": (7, "other"),
    "unsupported": (8, "other"),
    "wrong_requires_grad": (9, "silently wrong"),
    "wrong_events": (9, "silently wrong"),  # hooks fired in another order, twice, or not at all
    "wrong_grad_graph": (10, "other"),
    "libm_last_bit": (11, "other"),
    "wrong_metadata": (12, "other"),
    "wrong_layout": (12, "layout"),
    "wrong_repr": (13, "other"),
    "wrong_warning": (14, "other"),
    "timeout": (15, "other"),
    "pytorch_bug": (16, "other"),  # PyTorch failed an internal assertion: not scalargrad's fault
}
GROUPS = ["silently wrong", "raw Python error", "wrong message", "other", "layout"]
_VALUE_FIELDS = {"val", "dtype", "shape", "structure"}
_FLAG_FIELDS = {"rg", "leaf", "param"}  # they change what later steps do
_LAYOUT_FIELDS = {"stride", "offset", "contig"}
_GRAPH_FIELDS = {"fn", "next"}
BACKWARD_STEPS = ("backward", "gradient", "backward_create_graph", "autograd.grad", "load_state_dict")


@dataclass
class Divergence:
    cls: str
    step: int
    detail: str
    sg: object = None
    torch: object = None
    propagates: bool = True  # later steps may follow from it (values, errors, flags)

    @property
    def rank(self) -> int:
        return SEVERITY[self.cls][0]

    def to_json(self) -> dict:
        return {"class": self.cls, "step": self.step, "detail": self.detail, "sg": self.sg, "torch": self.torch,
                "propagates": self.propagates}


@dataclass
class Verdict:
    """A program's classification: its case, its divergences (empty when the libraries agree)."""

    case: str  # "value", "error", "module", or "excluded" (PyTorch failed an internal assertion, died of
    # a signal in the kernel rule's re-run, or half-applied an index write that raised before any
    # difference: partial_write_step)
    divergences: list[Divergence] = field(default_factory=list)
    admitted: str | None = None  # "kernel": agrees once machine-dependent kernels give scalargrad's bits
    kernels: list = field(default_factory=list)  # kernels.KernelCall of the rerun that changed bits
    died: str | None = None  # the signal that killed PyTorch in the kernel rule's re-run (the case is "excluded")

    @property
    def agrees(self) -> bool:
        return not self.divergences

    @property
    def worst(self) -> Divergence | None:
        return min(self.divergences, key=lambda d: (d.rank, d.step)) if self.divergences else None

    @property
    def cls(self) -> str:
        return self.worst.cls if self.divergences else "agree"

    @property
    def strict(self) -> bool:
        """Agrees bit for bit without any rule."""
        return not self.divergences and self.admitted is None

    @property
    def category(self) -> str:
        """issue 22's classification of the program: agree (strictly), kernel (a last-bit
        difference of a machine-dependent kernel), layout (only where tensors lie in memory),
        defect (silently wrong), raw, error (a wrong error), other (what is shown differs); a
        program PyTorch's own fault leaves nothing to judge by is excluded."""
        if self.case == "excluded":
            return "excluded"
        if not self.divergences:
            return "agree" if self.admitted is None else "kernel"
        group = SEVERITY[self.cls][1]
        return {"silently wrong": "defect", "raw Python error": "raw", "wrong message": "error",
                "layout": "layout"}.get(group, "other")

    @property
    def root(self) -> Divergence | None:
        """The first divergence later steps may follow from."""
        return next((d for d in self.divergences if d.propagates), None)


# ---------------------------------------------------------------- value differences


def _diff(a, b, path: str = "") -> list[tuple[str, str]]:
    """The differing fields of two encoded values: [(field, path)]."""
    if isinstance(a, dict) and isinstance(b, dict) and "dtype" in a and "dtype" in b:
        return [(k, path) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and a[:1] == b[:1] and len(a) >= 2 \
            and isinstance(a[-1], list) and isinstance(b[-1], list) and len(a[-1]) == len(b[-1]) \
            and a[0] in ("tuple", "list", "dict"):
        out = []
        for i, (x, y) in enumerate(zip(a[-1], b[-1])):
            out += _diff(x, y, f"{path}[{i}]")
        if a[:-1] != b[:-1]:
            out.append(("structure", path))
        return out
    return [] if a == b else [("structure", path)]


def _number(v) -> float | None:
    if isinstance(v, str):
        return math.nan if v == "nan" else float.fromhex(v)
    if isinstance(v, (bool, int, float)):
        return float(v)
    return None


def _elements(rec) -> tuple[list | None, str | None]:
    """(numbers, dtype name) of a tensor record, elements in order."""
    if isinstance(rec, dict) and rec.get("val") is not None:
        return [_number(v) for v in rec["val"]], rec["dtype"].replace("torch.", "")
    return None, None


def _short(obs, limit: int = 300) -> str:
    if isinstance(obs, dict) and "dtype" in obs:
        vals = obs.get("val")
        shown = [(_number(v) if isinstance(v, str) else v) for v in (vals or [])]
        s = f"{obs.get('repr') or ''} [{obs['dtype']} {tuple(obs['shape'])} {shown} rg={obs['rg']} fn={obs['fn']}]"
    else:
        s = repr(obs)
    return s if len(s) <= limit else s[:limit] + "..."


def _error(e: ErrorRecord | None) -> str:
    if e is None:
        return "no error"
    s = f"{e.type}: {e.message}"
    return s if len(s) < 400 else s[:400] + "..."


def _raw(e: ErrorRecord, t: ErrorRecord | None) -> bool:
    """A raw Python error: Python raised it (not a raise statement of scalargrad), and PyTorch
    does not raise the same; a TypeError only counts when PyTorch raises another type or nothing."""
    if e.deliberate or e.type not in RAW_TYPES:
        return False
    if t is not None and t.key() == e.key():
        return False
    return not (e.type == "TypeError" and t is not None and t.type == "TypeError")


# PyTorch's own faults, not behaviour to reproduce: a failed internal assertion (``False ** x``
# backward), and a storage-less ZeroTensor that abs's double backward hands to the user (sgn's
# derivative is ``_efficientzerotensor``; printing it or reading it raises)
_PYTORCH_BUGS = ("INTERNAL ASSERT FAILED", "shouldn't be called on a tensor with unallocated storage")


def _pytorch_bug(message: str) -> bool:
    return any(m in message for m in _PYTORCH_BUGS)


# PyTorch's CPU index kernels check each index inside their write loop (IndexKernelUtils.h,
# ``Indexer::get``): a write with an out-of-bounds index stores the elements before it, in the
# iterator's order, then raises, without bumping the version counter (and above the kernel's
# 3000-element grain, which other elements land depends on the thread count). scalargrad checks
# every index before it writes anything: the tensor keeps its values. What follows such a step is
# PyTorch's half-applied write, not behaviour to reproduce (see TRIAGE.md, "partial index writes").
_OUT_OF_BOUNDS = re.compile(r"^index -?\d+ is out of bounds for dimension \d+ with size \d+")
_INDEX_WRITE = re.compile(r"\]\s*=(?!=)|\.(index_put|index_fill|index_copy|index_add|put)_\(")


def partial_write_step(program: Program, sg: Outcome, th: Outcome) -> int | None:
    """The first step where both libraries refused an out-of-bounds index write with the same
    IndexError (PyTorch having written part of it), else None."""
    for r in th.records:
        e = r.error
        if e is None or e.type != "IndexError" or not _OUT_OF_BOUNDS.match(e.message):
            continue
        if r.index < len(program.steps) and _INDEX_WRITE.search(program.steps[r.index].code):
            rs = sg.record(r.index)
            if rs is not None and rs.error is not None and rs.error.key() == e.key():
                return r.index
    return None


def _error_divergence(i: int, step, es: ErrorRecord | None, et: ErrorRecord | None,
                      later_grads: bool) -> Divergence:
    detail = f"scalargrad: {_error(es)} | PyTorch: {_error(et)}"
    if et is not None and _pytorch_bug(et.message):
        cls = "pytorch_bug"
    elif et is not None and et.type == "ProgramTimeout":
        cls = "timeout"  # PyTorch ran out of time (a slow first import): nothing to judge scalargrad by
    elif es is None:  # PyTorch refuses, scalargrad goes on
        cls = "silently_wrong_grad" if (step.op in BACKWARD_STEPS or step.tag == GRAD) and later_grads \
            else "missing_error"
    elif es.type == "ProgramTimeout":
        cls = "timeout"
    elif _raw(es, et):
        cls = "raw_error"
    elif es.unsupported:
        cls = "unsupported"
    elif et is None:
        cls = "refused"
    elif es.type == et.type:
        cls = "wrong_message"
    else:
        cls = "wrong_type"
    return Divergence(cls, i, detail, es.to_json() if es else None, et.to_json() if et else None)


# ---------------------------------------------------------------- the C library


LIBM = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt")


def _literal(node):
    """A number written in the source (``2``, ``-0.5``, ``float('inf')``), else None."""
    try:
        v = ast.literal_eval(node)
        return v if isinstance(v, (int, float)) else None
    except ValueError:
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "float" and node.args:
            return float(ast.literal_eval(node.args[0]))
        return None


def libm_call(code: str) -> tuple | None:
    """``(function, operands)`` when ``code`` is one call PyTorch computes with its math library:
    ``x.exp()``, ``torch.sin(x)``, ``x ** c``, ``x.pow(y)``, ``torch.pow(x, y)``; operands are
    variable names or numbers."""
    try:
        node = ast.parse(code, mode="eval").body
    except SyntaxError:
        return None

    def operand(n):
        return n.id if isinstance(n, ast.Name) else _literal(n)

    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        args = [operand(node.left), operand(node.right)]
        return ("pow", args) if None not in args else None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    fn, owner = node.func.attr, node.func.value
    args = [operand(a) for a in node.args]
    if None in args:
        return None
    if isinstance(owner, ast.Name) and owner.id == "torch":
        if fn in LIBM and len(args) == 1 or fn == "pow" and len(args) == 2:
            return fn, args
        return None
    if isinstance(owner, ast.Name) and (fn in LIBM and not args or fn == "pow" and len(args) == 1):
        return fn, [owner.id] + args
    return None


# ---------------------------------------------------------------- the walk


def _load_failed(program: Program, out: Outcome, i: int) -> bool:
    """Whether the load this ``changed(m, before)`` step checks (the last ``m.load_state_dict``
    before it) raised."""
    module = program.steps[i].code.split("(", 1)[1].split(",", 1)[0].strip()
    for j in range(i - 1, -1, -1):
        s = program.steps[j]
        if s.op == "load_state_dict" and s.code.startswith(module + ".load_state_dict("):
            rec = out.record(j)
            return rec is not None and rec.error is not None
    return False


def _walk(program: Program, sg: Outcome, th: Outcome) -> list[Divergence]:
    """Compare step by step; a propagating divergence ends the walk."""
    found: list[Divergence] = []
    n = max(len(sg.records), len(th.records))
    for i in range(n):
        rs, rt = sg.record(i), th.record(i)
        step = program.steps[i]
        if rs is None or rt is None:  # one side stopped earlier: already reported at that step
            break
        es, et = rs.error, rt.error
        if es is not None or et is not None:
            if es is not None and et is not None and es.key() == et.key():
                continue
            later_grads = any(program.steps[r.index].tag == GRAD and r.obs is not None and r.error is None
                              for r in sg.records[i + 1:]) or (step.tag == GRAD and es is None)
            found.append(_error_divergence(i, step, es, et, later_grads))
            if step.guard and es is not None and et is not None:
                continue  # both refused and both went on: what follows is still comparable
            return found
        if step.op == "changed" and _load_failed(program, sg, i):
            # a failed load leaves the module half loaded, as PyTorch's does (issue 22): what it
            # changed must be what PyTorch changed
            if rs.obs != rt.obs:
                found.append(Divergence("failed_load_changed_state", i, f"after a failed load scalargrad changed "
                                        f"{rs.obs} (PyTorch changed {rt.obs})", rs.obs, rt.obs))
            continue
        if rs.warnings != rt.warnings:
            found.append(Divergence("wrong_warning", i, f"scalargrad warns {rs.warnings} | PyTorch warns "
                                    f"{rt.warnings}", rs.warnings, rt.warnings, propagates=False))
        if rs.obs == rt.obs:
            continue
        detail = f"{step.name}: scalargrad {_short(rs.obs)} | PyTorch {_short(rt.obs)}"
        if step.tag == EVENTS:
            found.append(Divergence("wrong_events", i, detail, rs.obs, rt.obs))
            continue
        fields = {f for f, _ in _diff(rs.obs, rt.obs)}
        if step.tag == GRAD_GRAPH:
            found.append(Divergence("wrong_grad_graph", i, detail, rs.obs, rt.obs, propagates=False))
            continue
        if fields & _VALUE_FIELDS:
            cls = "silently_wrong_grad" if step.tag == GRAD else "silently_wrong_value"
            found.append(Divergence(cls, i, detail, rs.obs, rt.obs))
            return found
        if fields & _FLAG_FIELDS:
            found.append(Divergence("wrong_requires_grad", i, detail, rs.obs, rt.obs))
        elif fields & _GRAPH_FIELDS:
            cls = "wrong_grad_graph" if step.tag == GRAD else "wrong_metadata"
            found.append(Divergence(cls, i, detail, rs.obs, rt.obs, propagates=False))
        elif "repr" in fields:
            found.append(Divergence("wrong_repr", i, detail, rs.obs, rt.obs, propagates=False))
        elif fields & _LAYOUT_FIELDS:
            found.append(Divergence("wrong_layout", i, detail, rs.obs, rt.obs, propagates=False))
        else:
            found.append(Divergence("wrong_metadata", i, detail, rs.obs, rt.obs, propagates=False))
    return found


def compare(program: Program, sg: Outcome, th: Outcome, rerun_torch=None) -> Verdict:
    """Classify ``program`` from scalargrad's outcome ``sg`` and PyTorch's ``th``.

    ``rerun_torch(alternative=False)`` runs the program on PyTorch again under
    ``kernels.Substitution`` and returns (outcome, the mode): the kernel rule (see the module
    doc). Without it the comparison is strict. An outcome that ``died`` (the re-run's forked
    child killed by a signal, or hung: ``campaign.rerun_isolated``) decides the verdict: ``_died``.
    """
    torch_raised = th.error is not None or any(r.error is not None for r in th.records)
    case = "module" if program.kind == "modules" else ("error" if torch_raised else "value")
    if any(e is not None and _pytorch_bug(e.message) for e in [th.error] + [r.error for r in th.records]):
        case = "excluded"  # a bug of PyTorch's (e.g. ``False ** x``): nothing to compare with
    verdict = Verdict(case)
    found = _walk(program, sg, th)
    if found and rerun_torch is not None:
        th2, mode = rerun_torch()
        if th2.died:
            return _died(verdict, found[0].step, th2.died)
        again = _walk(program, sg, th2)
        if again and getattr(mode, "alternatives", False):
            # a kernel with two legitimate forms met: the other form for every call of it, kept
            # if scalargrad then agrees further into the program
            th3, mode3 = rerun_torch(alternative=True)
            if th3.died:
                return _died(verdict, found[0].step, th3.died)
            again3 = _walk(program, sg, th3)
            if not again3 or again3[0].step > again[0].step:
                th2, mode, again = th3, mode3, again3
        if mode.calls:  # some machine-dependent kernel gave PyTorch other bits than scalargrad
            verdict.kernels = list(mode.calls)
            unsound = [c for c in mode.calls if not c.sg_ok]
            if unsound:
                # scalargrad's own value at a kernel fails the kernel's check: not PyTorch's
                # machine, scalargrad's fault (a float64 libm result not correctly rounded)
                first = (again or found)[0].step
                names = ", ".join(sorted({f"{c.kernel} ({c.dtype})" for c in unsound}))
                again = [Divergence("libm_last_bit", first, f"scalargrad's {names} fails the kernel's check (not "
                                    f"correctly rounded, outside its error bound, or not a value its formula "
                                    f"gives)", None, None)] + again
            elif not again:
                verdict.admitted = "kernel"
            found = again
    verdict.divergences = _dedup(found)
    written = partial_write_step(program, sg, th) if found else None
    if written is not None and min(d.step for d in found) > written:
        verdict.case = "excluded"  # every difference comes after PyTorch's half-applied write
    return verdict


def _died(verdict: Verdict, step: int, how: str) -> Verdict:
    """The verdict on a program whose kernel-rule re-run died (``Outcome.died``): killed by a
    signal, PyTorch's own fault (it ran the program to the end without the substitution, and
    the dispatch mode only calls its ops), which excludes the program; hung past the child's
    limit, a timeout. ``step``: the program's first difference, which the re-run was to judge."""
    if how == "timeout":
        detail = "the kernel rule's re-run on PyTorch hung (killed after its time limit)"
        verdict.divergences = [Divergence("timeout", step, detail, None,
                                          {"type": "ProgramTimeout", "message": detail})]
        return verdict
    detail = f"PyTorch died of {how} in the kernel rule's re-run (a forked child)"
    verdict.case, verdict.died = "excluded", how
    verdict.divergences = [Divergence("pytorch_bug", step, detail, None, {"type": how, "message": detail})]
    return verdict


def _dedup(ds: list[Divergence]) -> list[Divergence]:
    seen = set()
    out = []
    for d in ds:
        k = (d.cls, d.step)
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out
