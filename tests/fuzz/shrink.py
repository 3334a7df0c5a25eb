"""Shrink a failing program to a minimal one that fails the same way.

Greedy step deletion to a fixed point: a step is dropped (with every step that reads what it
bound) when the smaller program still has a divergence of the same cause (``cause``). The
programs are at most a few dozen steps and run in milliseconds on both libraries, so the
quadratic worst case costs well under a second.
"""

from __future__ import annotations

from .program import Program

__all__ = ["shrink"]


def shrink(program: Program, same_failure, max_rounds: int = 6) -> Program:
    """The smallest program found for which ``same_failure(p)`` is still true."""
    best = program
    for _ in range(max_rounds):
        changed = False
        i = len(best.steps) - 1
        while i >= 0:
            candidate = best.without({i})
            if len(candidate.steps) < len(best.steps) and candidate.steps and same_failure(candidate):
                best = candidate
                changed = True
            i = min(i - 1, len(best.steps) - 1)
        if not changed:
            break
    return best
