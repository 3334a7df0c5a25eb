"""Derivative mutations: a wrong derivative injected into scalargrad, in this process only.

Issue 26 asks that the fuzzer's judge cannot be fooled: with a derivative made 0.1% wrong on
purpose, the fuzzer must fail its bars and accept no wrong gradient. ``mutated(name)`` patches
one op of scalargrad's op table for the duration of a ``with`` block, the way a bug in the
formula would read: the scalar formula and its tensor twin (``_ops.table._bulk``) both.

``MUTATIONS``: eighteen derivatives, each with the family of programs that exercises it -
elementwise math on 0-dim graphs, each operand of a product, a quotient and a power, and the
reductions, softmax, matrix products and norms of the ``ops`` family. tanh's, softmax's and the
matrix products' derivatives run through kernels the kernel rule substitutes (tanh_backward,
_softmax_backward_data, mm): there the wrong bits reach PyTorch's re-run, and the kernel's
machine-independent check must refuse them. ``score`` runs them all: a mutation is caught when the programs it changes
fail the fuzzer's bars and none of them is judged to agree.
"""

from __future__ import annotations

import contextlib

__all__ = ["MUTATIONS", "mutated", "judge", "score"]

FACTOR = 1.001  # 0.1% wrong


def _scaled(outputs: tuple, which, k) -> tuple:
    return tuple(k.mul(g, k.const(FACTOR)) if (which is None or i in which) and g is not None else g
                 for i, g in enumerate(outputs))


# name -> ((module, op classes...), which outputs of their backward are scaled (None: all),
# the family of programs that exercises it)
MUTATIONS = {
    "cos": (("unary", "Cos"), None, "graphs"),
    "sin": (("unary", "Sin"), None, "graphs"),
    "exp": (("unary", "Exp"), None, "graphs"),
    "log": (("unary", "Log"), None, "graphs"),
    "sqrt": (("unary", "Sqrt"), None, "graphs"),
    "tanh": (("unary", "Tanh"), None, "graphs"),
    "sigmoid": (("unary", "Sigmoid"), None, "graphs"),
    "reciprocal": (("unary", "Reciprocal"), None, "graphs"),
    "mul_self": (("arithmetic", "Mul"), (0,), "graphs"),
    "mul_other": (("arithmetic", "Mul"), (1,), "graphs"),
    "div_self": (("arithmetic", "Div"), (0,), "graphs"),
    "div_other": (("arithmetic", "Div"), (1,), "graphs"),
    "pow": (("arithmetic", "Pow", "PowC"), None, "graphs"),
    "sum": (("reductions", "Sum", "SumDim"), None, "ops"),
    "mean": (("reductions", "Mean", "MeanDim"), None, "ops"),
    "softmax": (("softmax", "Softmax", "LogSoftmax"), None, "ops"),
    "matmul": (("products", "Mm", "Bmm", "Mv", "Dot"), None, "ops"),
    "norm": (("norms", "VectorNorm"), None, "ops"),
}


@contextlib.contextmanager
def mutated(name: str):
    """scalargrad with derivative ``name`` of ``MUTATIONS`` made 0.1% wrong."""
    import importlib

    from scalargrad._ops.table import _bulk

    (module, *classes), which, _ = MUTATIONS[name]
    mod = importlib.import_module(f"scalargrad._ops.{module}")
    saved = []
    try:
        for cls_name in classes:
            cls = getattr(mod, cls_name)
            formula = cls.__dict__.get("backward") or cls.backward
            original = formula.__func__ if isinstance(formula, staticmethod) else formula

            def wrong(k, g, v, original=original):
                return _scaled(tuple(original(k, g, v)), which, k)

            saved.append((cls, "backward", cls.__dict__.get("backward")))
            saved.append((cls.tensor, "backward", cls.tensor.__dict__.get("backward")))
            cls.backward = staticmethod(wrong)
            cls.tensor.backward = staticmethod(_bulk(wrong))
        yield
    finally:
        for owner, attr, value in reversed(saved):
            if value is None:
                delattr(owner, attr)
            else:
                setattr(owner, attr, value)


def judge(name: str, seed: int, programs: int, kind: str | None = None, sg=None, torch=None) -> dict:
    """Run ``programs`` programs (of ``kind``, by default the mutation's family) with derivative
    ``name`` mutated and count how the judge took the programs whose outcome the mutation
    changed: ``changed`` (scalargrad's outcome differs from the unmutated one), ``failed``
    (judged a divergence), ``defects`` (of those, judged a silently wrong value or gradient or
    another defect: what fails the bars), ``accepted`` (judged agreement, strictly or by the
    kernel rule: a wrong gradient let through), and the campaign's stats."""
    from .campaign import Campaign, program_for, run_pair
    from .compare import _walk
    from .interpreter import load_library, run_program

    kind = kind or MUTATIONS[name][2]
    sg = sg or load_library("scalargrad")
    torch = torch or load_library("torch")
    campaign = Campaign(seed, kind, sg=sg, torch=torch)
    changed, failed, defects, accepted = [], [], [], []
    for i in range(programs):
        p = program_for(seed, i, kind)
        before = run_program(p, sg)
        with mutated(name):
            verdict, after, t = run_pair(p, sg, torch)
        campaign.account(p, verdict, after, t)
        if not _walk(p, before, after):
            continue  # the mutation changed nothing this program observes
        changed.append(p.ident)
        (accepted if verdict.agrees else failed).append(p.ident)
        if verdict.category == "defect":
            defects.append(p.ident)
    return {"mutation": name, "kind": kind, "programs": programs, "changed": len(changed), "failed": len(failed),
            "defects": len(defects), "accepted": accepted, "stats": campaign.stats,
            "caught": bool(changed) and not accepted and bool(defects)}


def score(seed: int, programs: int, names=None, sg=None, torch=None) -> list[dict]:
    """``judge`` for each mutation of ``names`` (all by default); the mutation score is how many
    are ``caught``."""
    return [judge(name, seed, programs, sg=sg, torch=torch) for name in (names or MUTATIONS)]
