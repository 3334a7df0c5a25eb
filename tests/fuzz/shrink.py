"""Shrink a failing program to a minimal one that fails the same way.

Two moves, repeated to a fixed point, each kept only while ``same_failure`` still holds:
delete a step (with every step that reads what it bound), and turn a computed value into a
literal leaf holding the number scalargrad computed for it (``torch.tensor(-1.94,
dtype=torch.float64, requires_grad=True)``), which cuts the chain of steps that led to it.
The programs are at most a few dozen steps and run in milliseconds on both libraries, so the
quadratic worst case costs seconds.
"""

from __future__ import annotations

from dataclasses import replace

from .program import Program, Step, lit

__all__ = ["shrink", "leaf_source"]

# steps that set global state every later step depends on (the random seed): never dropped, or
# the shrunk program would differ in values that have nothing to do with its failure
PINNED = ("manual_seed",)


def _number(v):
    if isinstance(v, str):
        return float("nan") if v == "nan" else float.fromhex(v)
    return v


def leaf_source(obs) -> str | None:
    """``torch.tensor(...)`` re-creating an encoded tensor as a leaf, or None if it cannot."""
    if not (isinstance(obs, dict) and "dtype" in obs and obs.get("val") is not None):
        return None
    vals = [_number(v) for v in obs["val"]]
    shape = obs["shape"]
    if len(shape) > 2 or len(vals) != (1 if not shape else shape[0] * (shape[1] if len(shape) == 2 else 1)):
        return None
    if not shape:
        data = vals[0]
    elif len(shape) == 1:
        data = vals
    else:
        data = [vals[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])]
    dtype = obs["dtype"]
    rg = obs["rg"] and dtype in ("torch.float32", "torch.float64")
    return f"torch.tensor({lit(data)}, dtype={dtype}{', requires_grad=True' if rg else ''})"


def shrink(program: Program, same_failure, observe=None, max_rounds: int = 6) -> Program:
    """The smallest program found for which ``same_failure(p)`` is still true. ``observe(p)``,
    if given, returns scalargrad's encoded value of each name (for the literal-leaf move)."""
    best = program
    for _ in range(max_rounds):
        changed = False
        i = len(best.steps) - 1
        while i >= 0:
            if best.steps[i].op in PINNED:
                i -= 1
                continue
            candidate = best.without({i})
            if len(candidate.steps) < len(best.steps) and candidate.steps and same_failure(candidate):
                best = candidate
                changed = True
            i = min(i - 1, len(best.steps) - 1)
        if observe is not None:
            values = observe(best)
            for i in range(len(best.steps) - 1, -1, -1):
                s = best.steps[i]
                src = leaf_source(values.get(s.name)) if s.name and s.uses else None
                if src is None:
                    continue
                steps = list(best.steps)
                steps[i] = Step(src, s.name, (), "tensor", s.tag, s.show, s.guard)
                candidate = replace(best, steps=steps)
                if same_failure(candidate):
                    best = candidate
                    changed = True
        if not changed:
            break
    return best
