"""A seeded, bounded fuzzing campaign: generate, run on both libraries, classify, group by cause.

``Campaign(seed).run(n)`` runs programs 0..n-1 (a fixed mix of kinds, or one kind) until ``n``
or the time budget is reached, and keeps the figures issue 14 asks for: agreement on value,
error and module cases, raw Python errors, silently wrong gradients, failed loads that change
the module otherwise than PyTorch's. Every divergence is filed under its cause (``causes_of``: the catalogue of
``causes.py``, or an ``unclassified`` signature with numbers and names taken out); each cause
keeps its first programs, and ``shrink_group`` turns the first one into a minimal repro.
"""

from __future__ import annotations

import collections
import json
import math
import re
import time
from dataclasses import dataclass, field

from .causes import classify, value_kind
from .compare import GROUPS, SEVERITY, Divergence, Verdict, compare
from .gen_errors import generate_error
from .gen_functions import generate_functions
from .gen_graphs import generate_graph
from .gen_hooks import generate_hooks
from .gen_indexing import generate_indexing
from .gen_inplace import generate_inplace
from .gen_modes import generate_modes
from .gen_modules import generate_module
from .gen_newer import generate_newer
from .gen_nn import generate_nn
from .gen_ops import generate_ops
from .gen_threads import generate_thread
from .gen_training import generate_training
from .gen_views import generate_views
from .interpreter import load_library, run_program, warm_up
from .isolate import Died, forked
from .kernels import KernelCall, Substitution
from .outcome import Outcome
from .program import Program
from .shrink import shrink
from .triage import printed

__all__ = ["Campaign", "GENERATORS", "KINDS", "program_for", "rerun_isolated", "run_pair", "signature"]

GENERATORS = {"graphs": generate_graph, "errors": generate_error, "modules": generate_module,
              "threads": generate_thread}
KINDS = list(GENERATORS)  # issue 14's families (the fixed mix)
FAMILIES = {"views": generate_views, "indexing": generate_indexing, "inplace": generate_inplace,
            "hooks": generate_hooks, "functions": generate_functions, "modes": generate_modes, "ops": generate_ops,
            "training": generate_training, "newer": generate_newer,
            "nn": generate_nn}
"""issue 22's families: programs over tensors of every shape, and training runs."""
GENERATORS.update(FAMILIES)
# the mix of kinds of a mixed campaign, per 50 programs: about issue 14's 20,000 / 5,000 / 3,000
MIX = ["graphs"] * 36 + ["errors"] * 9 + ["modules"] * 4 + ["threads"] * 1


def program_for(seed: int, i: int, kind: str | None = None, shapes: bool = False) -> Program:
    """Program ``i`` of a campaign: of ``kind``, or of the fixed mix when kind is None."""
    if kind is None:
        k = MIX[i % len(MIX)]
        index = (i // len(MIX)) * MIX.count(k) + MIX[: i % len(MIX)].count(k)
    else:
        k, index = kind, i
    if k == "graphs":
        return generate_graph(seed, index, shapes=shapes)
    return GENERATORS[k](seed, index)


def run_pair(program: Program, sg, torch, timeout: float = 20.0, rule: bool = True) -> tuple:
    """(verdict, scalargrad's outcome, PyTorch's outcome) of one program; ``rule``: apply the
    kernel rule (else the comparison is strict)."""
    s = run_program(program, sg, timeout=timeout)
    t = run_program(program, torch, timeout=timeout)

    def rerun(alternative: bool = False):
        return rerun_isolated(program, sg, torch, timeout, alternative)

    v = compare(program, s, t, rerun_torch=rerun if rule else None)
    return v, s, t


@dataclass
class Rerun:
    """What the kernel rule reads of a ``kernels.Substitution`` after its run."""

    calls: list = field(default_factory=list)  # kernels.KernelCall
    failed: list = field(default_factory=list)
    alternatives: bool = False


# PyTorch's autograd engine refuses to run in a child forked after it started a thread of its
# own (engine.cpp, ``track_bad_autograd_forks``: a reentrant backward deeper than its recursion
# limit, as the ``functions`` family's depth-200 custom Function, takes a pool thread)
_BAD_FORK = "Unable to handle autograd's threading in combination with fork-based multiprocessing"
FORK_STATE = {"usable": True}
"""Whether a forked child can still run PyTorch's autograd in this process (it stays so until then)."""


def rerun_isolated(program: Program, sg, torch, timeout: float = 20.0, alternative: bool = False) -> tuple:
    """(PyTorch's outcome, ``Rerun``) of the kernel rule's re-run of ``program``, made in a forked
    child (``isolate.forked``): PyTorch may die of a signal under the substitution's dispatch mode
    on a program it runs fine on its own (seed 9719, a double backward through ``norm(inf)``);
    the outcome then has no records and says how it died (``Outcome.died``). Once this process's
    autograd engine has started a thread (``_BAD_FORK``), the re-run is made in this process,
    unisolated, as before: a forked child could not judge anything."""
    def in_process() -> tuple:
        mode = Substitution(sg, alternative)
        return run_program(program, torch, timeout=timeout, mode=mode), mode

    if not FORK_STATE["usable"]:
        return in_process()

    def work() -> dict:
        # GNU OpenMP's thread team is not in a forked child: its first parallel region with 2 threads
        # waits forever (seed 9719, programs 2 and 127). One thread changes no bits here: the fuzzer's
        # tensors are far below ATen's 32768-element grain, so every kernel runs in one piece anyway
        torch.set_num_threads(1)
        mode = Substitution(sg, alternative)
        out = run_program(program, torch, timeout=timeout, mode=mode)
        return {"outcome": out.to_json(), "calls": [c.to_json() for c in mode.calls], "failed": mode.failed,
                "alternatives": mode.alternatives}

    try:
        got = forked(work, limit=2 * timeout + 30)  # the child's own alarm ends a slow program first
    except Died as e:
        return Outcome(torch.__name__, died=e.how), Rerun()
    out = Outcome.from_json(got["outcome"])
    if any(e is not None and e.message.startswith(_BAD_FORK) for e in [out.error] + [r.error for r in out.records]):
        FORK_STATE["usable"] = False
        return in_process()
    return out, Rerun([KernelCall(**c) for c in got["calls"]], got["failed"], got["alternatives"])


_NUM = re.compile(r"(?<![A-Za-z_])[-+]?(\d+\.?\d*(e[-+]?\d+)?|inf|nan)(?![A-Za-z_\d])")
_VAR = re.compile(r"\bv\d+\b")


def _norm(text: str) -> str:
    text = _VAR.sub("v", text)
    text = _NUM.sub("N", text)
    return text[:160]


def signature(program: Program, d: Divergence) -> tuple:
    """The cause of a divergence, as a grouping key."""
    op = program.steps[d.step].op if d.step < len(program.steps) else "?"
    def error(e) -> str | None:
        return f"{e['type']}: {_norm(e['message'])}" if isinstance(e, dict) and "type" in e else None

    if error(d.sg) or error(d.torch):
        return (d.cls, op, error(d.sg) or "-", error(d.torch) or "-")
    if d.cls in ("wrong_warning",):
        return (d.cls, op, _norm(str(d.sg)), _norm(str(d.torch)))
    if d.cls == "failed_load_changed_state":
        return (d.cls, op, "", "")
    return (d.cls, op, value_kind(d.sg, d.torch), "")


@dataclass
class Group:
    """Programs with one cause: how many, the worst class its consequences reached, examples."""

    key: str
    title: str = ""
    where: str = ""
    issue: str = ""
    count: int = 0
    classes: collections.Counter = field(default_factory=collections.Counter)
    cases: collections.Counter = field(default_factory=collections.Counter)  # case -> programs
    sole: collections.Counter = field(default_factory=collections.Counter)  # case -> programs with no other cause
    signatures: collections.Counter = field(default_factory=collections.Counter)
    programs: list = field(default_factory=list)
    repro: str = ""
    repro_detail: str = ""
    printed_sg: list = field(default_factory=list)
    printed_torch: list = field(default_factory=list)

    @property
    def worst(self) -> str:
        return min(self.classes, key=lambda c: SEVERITY[c][0])

    def to_json(self) -> dict:
        return {"cause": self.key, "title": self.title, "where": self.where, "issue": self.issue,
                "worst": self.worst, "severity": SEVERITY[self.worst][1], "count": self.count,
                "classes": dict(self.classes), "cases": dict(self.cases), "sole": dict(self.sole),
                "signatures": [[list(k), n] for k, n in self.signatures.most_common(12)],
                "programs": self.programs, "repro": self.repro, "repro_detail": self.repro_detail,
                "printed_sg": self.printed_sg, "printed_torch": self.printed_torch}


def cause_of(program: Program, d: Divergence, sg=None, prior: tuple = ()) -> tuple[str, object]:
    """(cause key, Cause or None) of one divergence; unclassified ones are keyed by signature."""
    cause = classify(program, d, sg, prior)
    if cause is not None:
        return cause.key, cause
    return "unclassified: " + " | ".join(str(x) for x in signature(program, d)), None


def causes_of(program: Program, verdict: Verdict, sg=None) -> list[tuple[str, object, Divergence]]:
    """Every divergence of a program with its cause. A later divergence that follows the program's
    root cause (see ``compare``) is taken as a consequence of it when no rule claims it, or when
    the root is a requires_grad difference (from then on the libraries track different tensors,
    so every autograd difference may come from it)."""
    out = []
    root_key = None
    root = verdict.root
    for i, d in enumerate(verdict.divergences):
        key, cause = cause_of(program, d, sg, tuple(verdict.divergences[:i]))
        if root_key is not None and d.propagates and (cause is None or root.cls == "wrong_requires_grad"):
            key, cause = root_key
        if d is root:
            root_key = (key, cause)
        out.append((key, cause, d))
    return out


CATEGORIES = ("agree", "kernel", "layout", "other", "error", "raw", "defect")
"""issue 22's classes of a program, from agreement to a defect (``Verdict.category``)."""


@dataclass
class Stats:
    """The campaign's figures."""

    programs: int = 0
    seconds: float = 0.0
    by_kind: collections.Counter = field(default_factory=collections.Counter)
    cases: collections.Counter = field(default_factory=collections.Counter)  # case -> programs
    strict: collections.Counter = field(default_factory=collections.Counter)  # case -> programs agreeing bit for bit
    agreeing: collections.Counter = field(default_factory=collections.Counter)  # case -> agreeing, the kernel rule too
    admitted: collections.Counter = field(default_factory=collections.Counter)  # case -> admitted by the kernel rule
    by_kernel: collections.Counter = field(default_factory=collections.Counter)  # kernel -> admitted programs
    torch_off: collections.Counter = field(default_factory=collections.Counter)  # kernel -> PyTorch calls out of spec
    categories: collections.Counter = field(default_factory=collections.Counter)  # category -> programs
    kind_categories: collections.Counter = field(default_factory=collections.Counter)  # (kind, category) -> programs
    classes: collections.Counter = field(default_factory=collections.Counter)  # worst class -> programs
    any_class: collections.Counter = field(default_factory=collections.Counter)  # class -> programs having it
    raw_types: collections.Counter = field(default_factory=collections.Counter)
    died: collections.Counter = field(default_factory=collections.Counter)  # signal -> programs whose re-run it killed
    unisolated_from: int | None = None  # the program from which re-runs ran in this process (FORK_STATE)
    torch_changed_on_failed_load: int = 0
    failed_loads: int = 0

    def rate(self, case: str) -> float:
        """Agreement under the kernel rule (issue 14's figure)."""
        return self.agreeing[case] / self.cases[case] if self.cases[case] else math.nan

    def strict_rate(self, case: str) -> float:
        return self.strict[case] / self.cases[case] if self.cases[case] else math.nan

    def share(self, *categories: str) -> float:
        """The share of programs in ``categories`` (e.g. "agree", "kernel": issue 22's agreement)."""
        counted = self.programs - self.cases["excluded"]
        return sum(self.categories[c] for c in categories) / counted if counted else math.nan

    @property
    def defects(self) -> int:
        return self.categories["defect"]

    def to_json(self) -> dict:
        return {
            "programs": self.programs, "seconds": round(self.seconds, 1), "by_kind": dict(self.by_kind),
            "cases": dict(self.cases), "strict": dict(self.strict), "agreeing": dict(self.agreeing),
            "admitted_by_kernel_rule": dict(self.admitted), "kernels": dict(self.by_kernel),
            "pytorch_out_of_spec_calls": dict(self.torch_off),
            "strict_agreement": {c: self.strict_rate(c) for c in self.cases},
            "agreement": {c: self.rate(c) for c in self.cases},
            "categories": dict(self.categories),
            "kind_categories": {f"{k}:{c}": n for (k, c), n in self.kind_categories.items()},
            "worst_class": dict(self.classes), "programs_with_class": dict(self.any_class),
            "raw_error_types": dict(self.raw_types), "pytorch_died_in_rerun": dict(self.died),
            "reruns_unisolated_from": self.unisolated_from,
            "failed_loads": self.failed_loads,
            "torch_changed_state_on_failed_load": self.torch_changed_on_failed_load,
        }

    def summary(self) -> str:
        lines = [f"{self.programs} programs in {self.seconds:.1f} s ({dict(self.by_kind)})"]
        for case in ("value", "error", "module"):
            if self.cases[case]:
                lines.append(f"  {case} cases: {self.strict[case]} / {self.cases[case]} agree bit for bit "
                             f"({100 * self.strict_rate(case):.1f}%); with the kernel rule {self.agreeing[case]} "
                             f"({100 * self.rate(case):.1f}%: {self.admitted[case]} admitted)")
        if self.by_kernel:
            lines.append("  kernel rule (PyTorch re-run with scalargrad's bits at machine-dependent kernels): "
                         + ", ".join(f"{k} {n}" for k, n in self.by_kernel.most_common())
                         + " programs" + (f"; PyTorch outside its documented accuracy at "
                                          f"{sum(self.torch_off.values())} calls {dict(self.torch_off)}"
                                          if self.torch_off else ""))
        if self.cases["excluded"]:
            lines.append(f"  excluded (PyTorch's own faults: internal assertions, storage-less "
                         f"ZeroTensors, half-applied out-of-bounds index writes, deaths by a signal in the kernel "
                         f"rule's re-run): {self.cases['excluded']}"
                         + (f" (deaths: {dict(self.died)})" if self.died else ""))
        if self.unisolated_from is not None:
            lines.append(f"  kernel-rule re-runs in this process, not a forked child, from program "
                         f"{self.unisolated_from} on (PyTorch's autograd engine had started a thread)")
        counted = self.programs - self.cases["excluded"]
        lines.append("  programs: " + ", ".join(f"{c} {self.categories[c]}" for c in CATEGORIES)
                     + f"; agree {100 * self.share('agree'):.1f}%, with kernels "
                     f"{100 * self.share('agree', 'kernel'):.1f}%, with layout "
                     f"{100 * self.share('agree', 'kernel', 'layout'):.1f}% of {counted}")
        lines.append(f"  raw Python errors: {self.any_class['raw_error']} programs {dict(self.raw_types)}")
        lines.append(f"  silently wrong gradients: {self.any_class['silently_wrong_grad']} programs; defects "
                     f"(silently wrong value, gradient, flag, hook order or missing error): {self.defects}")
        if self.failed_loads:
            lines.append(f"  failed loads that change state otherwise than PyTorch's: "
                         f"{self.any_class['failed_load_changed_state']} "
                         f"(of {self.failed_loads} failed loads; PyTorch itself changed state on "
                         f"{self.torch_changed_on_failed_load})")
        for group in GROUPS:
            members = [(c, n) for c, n in self.classes.most_common() if c in SEVERITY and SEVERITY[c][1] == group]
            if members:
                lines.append(f"  {group}: " + ", ".join(f"{c} {n}" for c, n in members))
        return "\n".join(lines)


class Campaign:
    """Run programs of one seed on scalargrad and PyTorch and keep the figures and the groups."""

    def __init__(self, seed: int, kind: str | None = None, shapes: bool = False, sg=None, torch=None,
                 dump=None, rule: bool = True) -> None:
        self.seed = seed
        self.kind = kind
        self.shapes = shapes
        self.sg = warm_up(sg or load_library("scalargrad"))
        self.torch = warm_up(torch or load_library("torch"))
        self.stats = Stats()
        self.groups: dict[str, Group] = {}
        self.dump = dump  # a file: one JSON line per program that disagrees
        self.rule = rule  # the kernel rule (else every value bit for bit)

    def program(self, i: int) -> Program:
        return program_for(self.seed, i, self.kind, self.shapes)

    def run(self, n: int, time_budget: float | None = None, progress=None) -> Stats:
        start = time.perf_counter()
        for i in range(n):
            if time_budget is not None and time.perf_counter() - start > time_budget:
                break
            program = self.program(i)
            verdict, s, t = run_pair(program, self.sg, self.torch, rule=self.rule)
            if not FORK_STATE["usable"] and self.stats.unisolated_from is None:
                self.stats.unisolated_from = i
            self.account(program, verdict, s, t)
            if progress and (i + 1) % progress == 0:
                print(f"... {i + 1} programs, {time.perf_counter() - start:.0f} s", flush=True)
        self.stats.seconds = time.perf_counter() - start
        return self.stats

    def account(self, program: Program, verdict: Verdict, s, t) -> None:
        if self.dump is not None and not verdict.agrees:
            self.dump.write(json.dumps({"program": program.ident, "case": verdict.case, "class": verdict.cls,
                                        "steps": [[st.name, st.op, st.code] for st in program.steps],
                                        "divergences": [d.to_json() for d in verdict.divergences]}) + "\n")
        st = self.stats
        st.programs += 1
        st.by_kind[program.kind] += 1
        st.cases[verdict.case] += 1
        if verdict.died:
            st.died[verdict.died] += 1
        if verdict.agrees:
            st.agreeing[verdict.case] += 1
            if verdict.admitted:
                st.admitted[verdict.case] += 1
                for k in {c.kernel for c in verdict.kernels}:
                    st.by_kernel[k] += 1
            else:
                st.strict[verdict.case] += 1
        for c in verdict.kernels:
            if not c.torch_ok:
                st.torch_off[c.kernel] += 1
        if verdict.case != "excluded":
            st.categories[verdict.category] += 1
            st.kind_categories[(program.kind, verdict.category)] += 1
        st.classes[verdict.cls] += 1  # the most severe divergence of the program
        for c in {d.cls for d in verdict.divergences}:
            st.any_class[c] += 1
        for d in verdict.divergences:
            if d.cls == "raw_error":
                st.raw_types[d.sg["type"]] += 1
        for i, step in enumerate(program.steps):
            if step.op == "load_state_dict" and step.guard:
                after = next((j for j in range(i + 1, len(program.steps)) if program.steps[j].op == "changed"), None)
                rt = t.record(i)
                if s.record(i) is not None and s.record(i).error is not None:
                    st.failed_loads += 1
                if rt is not None and rt.error is not None and after is not None and t.record(after) is not None:
                    st.torch_changed_on_failed_load += bool(t.record(after).obs and t.record(after).obs[1])
        found = causes_of(program, verdict, s)
        keys = {key for key, _, _ in found}
        seen: set = set()
        for key, cause, d in found:
            g = self.groups.get(key)
            if g is None:
                g = self.groups[key] = Group(key, *((cause.title, cause.where, cause.issue) if cause else ()))
            g.classes[d.cls] += 1
            g.signatures[signature(program, d)] += 1
            if key not in seen:  # programs are counted once per cause
                seen.add(key)
                g.count += 1
                g.cases[verdict.case] += 1
                g.sole[verdict.case] += len(keys) == 1
                if len(g.programs) < 5:
                    g.programs.append(program.ident)

    def sorted_groups(self) -> list[Group]:
        return sorted(self.groups.values(), key=lambda g: (SEVERITY[g.worst][0], -g.count))

    def shrink_group(self, g: Group) -> None:
        """Shrink the group's first program to a minimal repro of the same cause."""
        kind, seed, index = g.programs[0].split(":")
        program = program_for(int(seed), int(index), kind, self.shapes)

        def matching(p: Program):
            v, s, _ = run_pair(p, self.sg, self.torch, timeout=5.0)  # a hang need not be waited for long
            return next((d for key, _, d in causes_of(p, v, s) if key == g.key), None)

        def observe(p: Program) -> dict:
            out = run_program(p, self.sg)
            return {p.steps[r.index].name: r.obs for r in out.records if p.steps[r.index].name}

        small = shrink(program, lambda p: matching(p) is not None, observe)
        d = matching(small)
        g.repro = small.source(observe=True)
        g.repro_detail = d.detail if d else ""
        g.printed_sg = printed(g.repro, self.sg)
        g.printed_torch = printed(g.repro, self.torch)

    def report(self, shrink_limit: int = 0) -> dict:
        groups = self.sorted_groups()
        for g in groups[:shrink_limit]:
            self.shrink_group(g)
        return {
            "seed": self.seed, "kind": self.kind or "mixed", "shapes": self.shapes,
            "stats": self.stats.to_json(),
            "groups": [g.to_json() for g in groups],
        }
