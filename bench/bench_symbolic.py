"""How fast scalargrad.symbolic proves gradients, and where whole-expression SymPy gives up.

    python3 bench/bench_symbolic.py            # full run, about a minute
    python3 bench/bench_symbolic.py --quick    # 1k and 10k nodes only

Part 1 times ``sympy_check(strategy="local")`` on chains and DAGs of 1k, 10k and 100k nodes
(float32), split into autograd.grad (the engine) and the verification itself (per-node rule
checks and the float64 chain rule), and gives the cost per node.
Part 2 times ``sympy_check(strategy="whole")`` on growing chains until one takes more than
``--limit`` seconds or SymPy gives up (its recursion runs out and the check falls back to the
local pass): the size where differentiating the whole expression stops being practical
(``symbolic.WHOLE_MAX_NODES`` is the automatic switch).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import scalargrad as torch
from scalargrad.symbolic import WHOLE_MAX_NODES, sympy_check


def chain(n: int):
    """A chain of n nodes cycling through *c, exp, log, +c (each node used once)."""
    x = torch.tensor(0.5, requires_grad=True)
    y = x
    for i in range(n):
        k = i % 4
        y = y * 0.9999 if k == 0 else y.exp() if k == 1 else y.log() if k == 2 else y + 0.001
    return x, y


def dag(n: int):
    """y = (y*y + y) * 0.25 repeated: 3 nodes per step, every node used twice."""
    x = torch.tensor(0.7, requires_grad=True)
    y = x
    for _ in range(n // 3):
        y = (y * y + y) * 0.25
    return x, y


def chain_mixed(n: int):
    """A chain of sin, tanh, *c, +x: n nodes, the input reused along the way."""
    x = torch.tensor(0.5, requires_grad=True)
    y = x
    for i in range(n):
        k = i % 4
        y = y.sin() if k == 0 else y.tanh() if k == 1 else y * 1.5 if k == 2 else y + x
    return x, y


def local_table(sizes) -> list:
    rows = []
    for name, build in (("chain", chain), ("dag", dag)):
        for n in sizes:
            x, y = build(n)
            t0 = time.perf_counter()
            torch.autograd.grad(y, [x], retain_graph=True)
            t1 = time.perf_counter()
            report = sympy_check(y, strategy="local")
            t2 = time.perf_counter()
            assert report.ok, str(report)
            check = (t2 - t1) - (t1 - t0)  # sympy_check runs autograd.grad itself
            rows.append((name, report.nodes, t1 - t0, t2 - t1, 1e6 * check / report.nodes))
    return rows


def whole_table(limit: float) -> list:
    rows = []
    n = 20
    while True:
        x, y = chain_mixed(n)
        t0 = time.perf_counter()
        report = sympy_check(y, strategy="whole")
        dt = time.perf_counter() - t0
        assert report.ok, str(report)
        # the report says 'local' when SymPy gave up on the whole expression
        rows.append((n, dt, report.strategy, report.notes[0] if report.notes else ""))
        if dt > limit or report.strategy != "whole" or n >= 6400:
            return rows
        n = int(n * 1.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1k and 10k nodes only, short whole-strategy run")
    parser.add_argument("--limit", type=float, default=3.0, help="seconds at which the whole strategy stops")
    args = parser.parse_args()
    sizes = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    print(f"scalargrad {torch.__version__}, Python {sys.version.split()[0]}")
    print("\nlocal strategy (float32): sympy_check = autograd.grad + verification")
    print(f"{'graph':6} {'nodes':>8} {'autograd.grad':>14} {'sympy_check':>12} {'verify/node':>12}")
    for name, nodes, tg, tc, per in local_table(sizes):
        print(f"{name:6} {nodes:8d} {tg:13.3f}s {tc:11.3f}s {per:10.1f}us")
    print(f"\nwhole-expression strategy on a chain of sin, tanh, *c, +x (auto switch at {WHOLE_MAX_NODES} nodes)")
    print(f"{'nodes':>8} {'sympy_check':>12}  strategy used")
    for n, dt, used, note in whole_table(1.0 if args.quick else args.limit):
        print(f"{n:8d} {dt:11.3f}s  {used}{'  (' + note + ')' if note else ''}")


if __name__ == "__main__":
    main()
