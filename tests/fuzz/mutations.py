"""Derivative mutations: a wrong derivative injected into scalargrad, in this process only.

Issue 26 asks that the fuzzer's judge cannot be fooled: with a derivative made 0.1% wrong on
purpose, the fuzzer must fail its bars and accept no wrong gradient. ``mutated(name)`` patches
one op of scalargrad's op table for the duration of a ``with`` block, the way a bug in the
formula would read: the scalar formula and its tensor twin (``_ops.table._bulk``) both.

``MUTATIONS``: cos's derivative, the second operand's derivative of a product, and the
derivative of a sum (every reduction over all or some dimensions).
"""

from __future__ import annotations

import contextlib

__all__ = ["MUTATIONS", "mutated"]

FACTOR = 1.001  # 0.1% wrong


def _scaled(outputs: tuple, which, k) -> tuple:
    return tuple(k.mul(g, k.const(FACTOR)) if (which is None or i in which) and g is not None else g
                 for i, g in enumerate(outputs))


# name -> (op classes, which outputs of their backward are scaled: None for all)
MUTATIONS = {
    "cos": (("elementwise", "Cos"), None),
    "mul_other": (("elementwise", "Mul"), (1,)),
    "sum": (("reductions", "Sum", "SumDim"), None),
}


@contextlib.contextmanager
def mutated(name: str):
    """scalargrad with derivative ``name`` of ``MUTATIONS`` made 0.1% wrong."""
    import importlib

    from scalargrad._ops.table import _bulk

    (module, *classes), which = MUTATIONS[name]
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
    """Run ``programs`` programs with derivative ``name`` mutated and count how the judge took
    the programs whose outcome the mutation changed: ``changed`` (scalargrad's outcome differs
    from the unmutated one), ``failed`` (judged a divergence), ``accepted`` (judged agreement,
    strictly or by the kernel rule: a wrong gradient let through), and the campaign's stats."""
    from .campaign import Campaign, program_for, run_pair
    from .compare import _walk
    from .interpreter import load_library, run_program

    sg = sg or load_library("scalargrad")
    torch = torch or load_library("torch")
    campaign = Campaign(seed, kind, sg=sg, torch=torch)
    changed, failed, accepted = [], [], []
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
    return {"mutation": name, "programs": programs, "changed": len(changed), "failed": len(failed),
            "accepted": accepted, "stats": campaign.stats}
