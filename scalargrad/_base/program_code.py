"""Addition programs (``kernel_order.Program``) compiled to straight-line Python.

A loop over a program's steps costs a list lookup and a call per addition; the compiled function
costs the additions. Each value lives in a local variable until its last use, after which the
variable takes a later value (a register allocation): a 2,000-element sum keeps some 32 to 64
intermediate floats alive instead of 2,000, which measured 30% faster in float64 and 16% in
float32 (the intermediates stay in the cache and are freed as they go).

Each lane's chain of additions (an input added to the running sum, 16 at a time in ATen's
cascade) is one ``sum()`` of a slice in float64 where ``sum`` adds in plain double order (Python
< 3.12), one small loop over the slice in float32: the same additions in less code, which under
load matters more than the bytecode count (a 2,000-element float32 sum was 2,225 lines).

float32 rounds each addition inline by Veltkamp splitting, exact in float32's normal range
(``dtypes.round_f32``). ``F32Program`` runs a version without any range check when a bound shows
that none is needed, and one that checks every result otherwise.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Sequence

from .dtypes import FLOAT32_MAX, FLOAT32_MIN_NORMAL, round_f32

__all__ = ["compile_program", "F32Program", "HALF_F32_MAX"]

HALF_F32_MAX = FLOAT32_MAX / 2
"""The bound on a float32 sum's inputs under which no addition can overflow (see F32Program)."""


class F32Program:
    """A compiled float32 program in two versions: Veltkamp splitting alone, run when no
    addition can leave float32's finite range, and with each result's range checked, made when
    first needed. The inputs are float32 values (multiples of 2**-149); a sum of two below
    2**-126 is then an exact float32 subnormal, which the split leaves unchanged, so only
    overflow (or inf/nan inputs) needs the check. An intermediate sum is at most the magnitudes
    it adds (with their uses, ``_uses``) times (1 + 2**-24) per rounding: ``sqrt(n) * hypot``
    (one C pass) bounds them; under FLT_MAX / 2 no chain of < 10**7 roundings reaches FLT_MAX
    (inf or nan inputs make hypot inf or nan)."""

    __slots__ = ("prog", "fast", "checked", "scale")

    def __init__(self, prog) -> None:
        self.prog = prog
        self.fast = compile_program(prog, True, checked=False)
        self.checked = None
        self.scale = math.sqrt(max(prog.n, 1)) * _uses(prog)

    def __call__(self, values: Sequence) -> list:
        if math.hypot(*values) * self.scale < HALF_F32_MAX:
            return self.fast(values)
        if self.checked is None:
            self.checked = compile_program(self.prog, True)
        return self.checked(values)


def _uses(prog) -> int:
    """The most times one input is added in the program (1, unless the layout repeats elements)."""
    return max(Counter(x for step in prog.steps for x in step if x < prog.n).values(), default=1)


_PLAIN_SUM = sys.version_info < (3, 12)
"""``sum(floats, start)`` adds left to right in plain double arithmetic before Python 3.12 (3.12
made it compensated): a float64 chain of additions is then one C call."""
_CHAIN_MIN = 4  # a chain this long or longer is one sum() (float64) or one loop (float32)


def _chains(prog) -> dict:
    """The chains of the program: runs of steps each adding an input to the previous step's
    result, that result used nowhere else (the accumulator of one of ATen's lanes). Returns
    {last step: (start value, [inputs in order], [steps])}, chains of at least ``_CHAIN_MIN``."""
    n = prog.n
    steps = prog.steps
    uses = Counter(x for step in steps for x in step)
    uses.update(prog.outs)
    open_chain: dict = {}  # the value a chain has reached -> (start, inputs, steps)
    for k, (a, b) in enumerate(steps):
        v = n + 1 + k
        if b < n and a in open_chain and uses[a] == 1:
            start, ins, ks = open_chain.pop(a)
        elif a < n and b in open_chain and uses[b] == 1:  # input + accumulator: the same sum
            start, ins, ks = open_chain.pop(b)
            a, b = b, a
        elif b < n:
            start, ins, ks = a, [], []
        elif a < n:
            start, ins, ks = b, [], []
            a, b = b, a
        else:
            continue
        open_chain[v] = (start, ins + [b], ks + [k])
    return {ks[-1]: (start, ins, ks) for start, ins, ks in open_chain.values() if len(ks) >= _CHAIN_MIN}


def _progression(ins: list) -> str | None:
    """``v[i:j:s]`` naming these input positions, if they are one arithmetic progression."""
    step = ins[1] - ins[0]
    if step <= 0 or any(y - x != step for x, y in zip(ins, ins[1:])):
        return None
    return f"v[{ins[0]}:{ins[-1] + 1}:{step}]"


def compile_program(prog, f32: bool, checked: bool = True):
    """``prog`` (``n`` inputs, ``steps``, ``outs``: see ``kernel_order.Program``) as one Python
    function of the input list returning the outputs' list; float32 rounds each addition and, if
    ``checked``, calls ``round_f32`` for the results outside the normal range (zero, subnormal,
    overflow), as ``dtypes.round_f32`` does. A chain (``_chains``) over inputs in arithmetic
    progression is one ``sum`` of a slice in float64 (Python < 3.12) and one loop over the slice
    in float32: the same additions in the same order, in less code."""
    n = prog.n
    steps = prog.steps
    keep = set(prog.outs)
    chains = {k: c for k, c in _chains(prog).items() if (f32 or _PLAIN_SUM) and _progression(c[1])}
    inner = {k for _, _, ks in chains.values() for k in ks[:-1]}  # steps a chain's last one computes
    last: dict = {}  # value -> the step of its last use
    direct: set = set()  # inputs read one by one
    for k, (a, b) in enumerate(steps):
        if k in inner:
            continue
        if k in chains:
            a = chains[k][0]
            last[a] = k
            direct.add(a)
            continue
        last[a] = k
        last[b] = k
        direct.update((a, b))
    direct.update(prog.outs)
    names = {i: f"r{i}" for i in range(n + 1)}  # the inputs and the starting zero keep theirs
    free: list = []
    count = 0
    lines = ["def program(v):"]
    singles = sorted(i for i in direct if i < n)
    if len(singles) * 2 < n:  # most inputs are read through slices
        lines.extend(f"    r{i} = v[{i}]" for i in singles)
    elif n:
        lines.append(f"    {', '.join(f'r{i}' if i in direct else '_' for i in range(n))}{',' if n == 1 else ''} = v")
    lines.append(f"    r{n} = 0.0")
    lo, hi = repr(FLOAT32_MIN_NORMAL), repr(FLOAT32_MAX)  # float32's normal range, as constants of the code
    for k, (a, b) in enumerate(steps):
        if k in inner:
            continue
        chain = chains.get(k)
        operands = {chain[0]} if chain else {a, b}
        x, y = (names[chain[0]], None) if chain else (names[a], names[b])
        for z in operands:  # an intermediate used for the last time frees its variable
            if z > n and last[z] == k and z not in keep:
                free.append(names[z])
        if free:
            dest = free.pop()
        else:
            dest = f"s{count}"
            count += 1
        names[n + 1 + k] = dest
        if chain:
            src = _progression(chain[1])
            if not f32:
                lines.append(f"    {dest} = sum({src}, {x})")
                continue
            lines.append(f"    t = {x}")
            lines.append(f"    for e in {src}:")
            lines.append("        u = t + e; c = 536870913.0 * u; t = c - (c - u)")
            if checked:
                lines.append(f"        if not ({lo} <= t <= {hi} or -{hi} <= t <= -{lo} or u == 0.0): t = rf(u)")
            lines.append(f"    {dest} = t")
        elif f32:
            lines.append(f"    t = {x} + {y}; c = 536870913.0 * t; {dest} = c - (c - t)")
            if checked:
                lines.append(f"    if not ({lo} <= {dest} <= {hi} or -{hi} <= {dest} <= -{lo} or t == 0.0): "
                             f"{dest} = rf(t)")
        else:
            lines.append(f"    {dest} = {x} + {y}")
    lines.append(f"    return [{', '.join(names[o] for o in prog.outs)}]")
    ns = {"rf": round_f32}
    exec(compile("\n".join(lines), "<sum program>", "exec"), ns)  # code made here, from integers
    return ns["program"]
