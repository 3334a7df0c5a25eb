"""Compare scalargrad's outcome of a program with PyTorch's and classify it as issue 14 does.

The comparator walks the steps in order and records *divergences*. Some propagate: a value
(bits, dtype, shape), an error on one side only or different errors end the walk, since
later steps follow from them; a different requires_grad or is_leaf is recorded and the walk
goes on, because what it causes (a gradient missing, a hook refused) is worth seeing too.
Others are only what is shown about a value (grad_fn name, repr, warnings, the names of a
gradient's graph): recorded, and the walk goes on. The first propagating divergence is the
program's *root* (``Verdict.root``); ``campaign.causes_of`` files every divergence under a
cause of ``causes.CATALOGUE``. ``SEVERITY`` orders the classes.

The 1-ulp rule: a step whose result PyTorch takes from its math library (``libm_call``) may
differ in the last bit when scalargrad's result is the correctly rounded one (mpmath), element
by element. Then PyTorch's run is repeated with scalargrad's bits written into that result
(``patches``), so the rest of the program is still compared bit for bit. A gradient through
sin, cos or pow calls the math library in PyTorch's backward too; there a gradient counts as
agreement when PyTorch's library is shown not correctly rounded at one of those calls (mpmath
on the same operands) and the gradients differ by at most 8 ulps of the largest value the
program met (a last-bit difference of a derivative term, magnified at most by cancellation
against the other terms).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from . import libm
from .outcome import ErrorRecord, Outcome
from .program import GRAD, GRAD_GRAPH, Program

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
    "wrong_requires_grad": (9, "other"),
    "wrong_grad_graph": (10, "other"),
    "libm_last_bit": (11, "other"),
    "wrong_metadata": (12, "other"),
    "wrong_repr": (13, "other"),
    "wrong_warning": (14, "other"),
    "timeout": (15, "other"),
    "pytorch_bug": (16, "other"),  # PyTorch failed an internal assertion: not scalargrad's fault
}
GROUPS = ["silently wrong", "raw Python error", "wrong message", "other"]
_VALUE_FIELDS = {"val", "dtype", "shape", "structure"}
_FLAG_FIELDS = {"rg", "leaf", "param"}  # they change what later steps do
_MAX_PATCHES = 8
_GRAD_ULPS = 8  # how far a gradient through a math-library derivative may drift, in ulps of the
# largest value the program met (see the module doc)
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

    case: str  # "value", "error", "module", or "excluded" (PyTorch failed an internal assertion)
    divergences: list[Divergence] = field(default_factory=list)
    libm_steps: list[int] = field(default_factory=list)  # steps accepted under the 1-ulp rule
    libm_backward: bool = False  # gradients accepted as PyTorch's C-library drift

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


def _error_divergence(i: int, step, es: ErrorRecord | None, et: ErrorRecord | None,
                      later_grads: bool) -> Divergence:
    detail = f"scalargrad: {_error(es)} | PyTorch: {_error(et)}"
    if et is not None and _pytorch_bug(et.message):
        cls = "pytorch_bug"
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


def _operand(x, names: dict, sg: Outcome, dtype: str) -> list | None:
    """An operand's numbers: a tensor's elements rounded to the computation dtype (as PyTorch
    converts them), or the Python number itself."""
    if isinstance(x, str):
        rec = sg.record(names.get(x, -1))
        vals = _elements(rec.obs)[0] if rec is not None else None
        return None if vals is None else [libm.round_to(v, dtype) for v in vals]
    return [float(x)]


def _libm_args(call: tuple, names: dict, sg: Outcome, dtype: str, n: int = 1) -> list | None:
    """The operands of each of the ``n`` elements of a math-library call (a one-element operand
    broadcast), or None."""
    ops = [_operand(a, names, sg, dtype) for a in call[1]]
    if any(o is None or len(o) not in (1, n) for o in ops):
        return None
    return [[o[i] if len(o) == n else o[0] for o in ops] for i in range(n)]


def _backward_calls(program: Program, names: dict, sg: Outcome) -> list[tuple[str, list, str, bool]]:
    """The math-library calls PyTorch's backward makes: (function, operands, dtype, whether a
    pow's exponent is a Python number: ``self.pow(exponent - 1)`` then takes ATen's Scalar
    path, where 0.5 is a sqrt and 2 a multiplication)."""
    calls = []
    for i, s in enumerate(program.steps):
        call = libm_call(s.code) if s.name else None
        if not call or call[0] not in ("sin", "cos", "pow"):
            continue
        rec = sg.record(i)
        if rec is None or rec.obs is None:
            continue
        vals, dt = _elements(rec.obs)
        if dt not in ("float32", "float64"):
            continue
        number = not isinstance(call[1][1], str) if call[0] == "pow" else False
        for args in _libm_args(call, names, sg, dt, len(vals)) or []:
            if call[0] in ("sin", "cos"):
                calls += [("sin", args[:1], dt, False), ("cos", args[:1], dt, False)]
            else:
                a, b = args
                calls += [("pow", [a, b - 1], dt, number), ("pow", [a, b], dt, number), ("log", [a], dt, False),
                          ("pow", [a, b - 2], dt, number)]
    return calls


def _last_bit(call: tuple, a, b, names: dict, sg: Outcome) -> str | None:
    """How a math-library step's results differ, element by element: "correct" when every
    difference is one ulp with scalargrad correctly rounded (the 1-ulp rule), "off" when they are
    at most two ulps but scalargrad is not correctly rounded, else None (a real difference)."""
    s_vals, dt = _elements(a)
    t_vals, _ = _elements(b)
    if s_vals is None or t_vals is None or len(s_vals) != len(t_vals) or dt not in ("float32", "float64"):
        return None
    args = _libm_args(call, names, sg, dt, len(s_vals))
    if args is None:
        return None
    result = "correct"
    for i, (x, y) in enumerate(zip(a["val"], b["val"])):
        if x == y:
            continue
        s, t = s_vals[i], t_vals[i]
        if libm.sg_is_correct(call[0], args[i], dt, s, t):
            continue
        ulps = libm.ulps_apart(s, t, dt)
        if ulps is None or ulps > 2:
            return None
        result = "off"
    return result


def _torch_libm_is_off(calls: list, torch) -> bool:
    """Whether PyTorch's C library misses the correctly rounded result on one of ``calls``."""
    for fn, args, dt, number in calls:
        if any(not math.isfinite(a) for a in args) or (fn == "log" and args[0] <= 0):
            continue
        want = libm.correctly_rounded(fn, args, dt)
        if want is None:
            continue
        t = [torch.tensor(a, dtype=getattr(torch, dt)) for a in args]
        if fn == "pow":
            got = (t[0] ** (args[1] if number else t[1])).item()
        else:
            got = getattr(torch, fn)(t[0]).item()
        if got != want and not (got != got and want != want):
            return True
    return False


def _magnitude(out: Outcome, upto: int) -> float:
    """The largest finite number among the values the program bound up to step ``upto``."""
    m = 0.0
    stack = [r.obs for r in out.records if r.index <= upto]
    while stack:
        x = stack.pop()
        if isinstance(x, dict) and "val" in x:
            for v in x["val"] or []:
                f = _number(v)
                if f is not None and math.isfinite(f):
                    m = max(m, abs(f))
        elif isinstance(x, list):
            stack.extend(y for y in x if isinstance(y, (dict, list)))
    return m


def _gradient_drift(a, b, scale: float) -> bool:
    """Two encoded gradients that differ only in values at most ``_GRAD_ULPS`` ulps of ``scale``
    apart (a derivative's last-bit difference, magnified at most by the values it met)."""
    if isinstance(a, dict) and isinstance(b, dict) and "dtype" in a:
        if {k for k in set(a) | set(b) if a.get(k) != b.get(k)} - {"val", "repr"}:
            return False
        dt = a["dtype"].replace("torch.", "")
        for x, y in zip(a["val"], b["val"]):
            nx, ny = _number(x), _number(y)
            if x == y or nx == ny:  # (the encoded values are equal for two nans)
                continue
            if nx is None or ny is None or not (math.isfinite(nx) and math.isfinite(ny)):
                return False
            if abs(nx - ny) > _GRAD_ULPS * libm.ulp(max(scale, abs(nx), abs(ny)), dt):
                return False
        return True
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) == 2 and a[0] == b[0] \
            and a[0] in ("tuple", "list") and len(a[1]) == len(b[1]):
        return all(x == y or _gradient_drift(x, y, scale) for x, y in zip(a[1], b[1]))
    return a == b


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


def _listed(obs) -> list:
    """The items of an encoded list (``['list', [...]]``)."""
    return obs[1] if isinstance(obs, list) and len(obs) == 2 and isinstance(obs[1], list) else []


def _walk(program: Program, sg: Outcome, th: Outcome, verdict: Verdict, names: dict, torch) -> tuple:
    """Compare step by step. Returns (divergences, patch) where patch = (name, value) asks the
    caller to rerun PyTorch with scalargrad's bits at a step accepted under the 1-ulp rule."""
    found: list[Divergence] = []
    backward_off = None
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
            return found, None
        if step.op == "changed" and _load_failed(program, sg, i):
            # a failed load must leave the module as it was (issue 14); PyTorch's own partial
            # load is not the reference here
            if _listed(rs.obs):
                found.append(Divergence("failed_load_changed_state", i, f"after a failed load scalargrad changed "
                                        f"{rs.obs} (PyTorch changed {rt.obs})", rs.obs, rt.obs))
            continue
        if rs.warnings != rt.warnings:
            found.append(Divergence("wrong_warning", i, f"scalargrad warns {rs.warnings} | PyTorch warns "
                                    f"{rt.warnings}", rs.warnings, rt.warnings, propagates=False))
        if rs.obs == rt.obs:
            continue
        diffs = _diff(rs.obs, rt.obs)
        fields = {f for f, _ in diffs}
        detail = f"{step.name}: scalargrad {_short(rs.obs)} | PyTorch {_short(rt.obs)}"
        if step.tag == GRAD_GRAPH:
            found.append(Divergence("wrong_grad_graph", i, detail, rs.obs, rt.obs, propagates=False))
            continue
        if fields & _VALUE_FIELDS:
            # the 1-ulp rule at a C-library step
            call = libm_call(step.code) if fields & _VALUE_FIELDS == {"val"} else None
            if call:
                last_bit = _last_bit(call, rs.obs, rt.obs, names, sg)
                if last_bit == "correct":
                    verdict.libm_steps.append(i)
                    return found, (step.name, _elements(rs.obs)[0])
                if last_bit == "off":
                    s_vals, dt = _elements(rs.obs)
                    found.append(Divergence("libm_last_bit", i, f"{detail} (scalargrad not correctly rounded)",
                                            rs.obs, rt.obs))
                    return found, (step.name, s_vals)
            if step.tag == GRAD and _gradient_drift(rs.obs, rt.obs, _magnitude(sg, i)):
                if backward_off is None:
                    backward_off = _torch_libm_is_off(_backward_calls(program, names, sg), torch)
                if backward_off:
                    verdict.libm_backward = True
                    continue
            cls = "silently_wrong_grad" if step.tag == GRAD else "silently_wrong_value"
            found.append(Divergence(cls, i, detail, rs.obs, rt.obs))
            return found, None
        if fields & _FLAG_FIELDS:
            found.append(Divergence("wrong_requires_grad", i, detail, rs.obs, rt.obs))
        elif "fn" in fields:
            cls = "wrong_grad_graph" if step.tag == GRAD else "wrong_metadata"
            found.append(Divergence(cls, i, detail, rs.obs, rt.obs, propagates=False))
        elif "repr" in fields:
            found.append(Divergence("wrong_repr", i, detail, rs.obs, rt.obs, propagates=False))
    return found, None


def compare(program: Program, sg: Outcome, th: Outcome, rerun_torch=None, torch=None) -> Verdict:
    """Classify ``program`` from scalargrad's outcome ``sg`` and PyTorch's ``th``.

    ``rerun_torch(patches)`` reruns PyTorch with results overwritten (the 1-ulp rule); without
    it a last-bit difference at a C-library step ends the comparison there.
    """
    names = {s.name: i for i, s in enumerate(program.steps) if s.name}
    torch_raised = th.error is not None or any(r.error is not None for r in th.records)
    case = "module" if program.kind == "modules" else ("error" if torch_raised else "value")
    if any(e is not None and _pytorch_bug(e.message) for e in [th.error] + [r.error for r in th.records]):
        case = "excluded"  # a bug of PyTorch's (e.g. ``False ** x``): nothing to compare with
    verdict = Verdict(case)
    patches: dict = {}
    carried: list[Divergence] = []  # last-bit differences already patched over
    while True:
        found, patch = _walk(program, sg, th, verdict, names, torch)
        if patch is None or rerun_torch is None or len(patches) >= _MAX_PATCHES or patch[0] in patches:
            break
        carried += [d for d in found if d.cls == "libm_last_bit"]
        patches[patch[0]] = patch[1]
        th = rerun_torch(dict(patches))
    verdict.divergences = _dedup(carried + found)
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
