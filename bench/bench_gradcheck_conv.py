"""gradcheck of conv2d on a 10x3x7x7 float64 input: scalargrad against PyTorch.

    python3 bench/bench_gradcheck_conv.py                  # batch 10 (issue 25's case), 1 round
    python3 bench/bench_gradcheck_conv.py --batch 2 --rounds 3
    python3 bench/bench_gradcheck_conv.py --batch 2 --profile   # cProfile of scalargrad, top 25

The check is ``torch.autograd.gradcheck(F.conv2d, (x, w, b))`` with x of shape (batch, 3, 7, 7),
a 4x3x3x3 weight and a bias of 4, all float64 and requiring grad, drawn from
``manual_seed(0)`` (the same numbers in both libraries: scalargrad reproduces PyTorch's
generator); the output is (batch, 4, 5, 5). Slow mode (the default): the numerical Jacobian
nudges each of the batch*147 + 112 input elements both ways (two forward convolutions each),
the analytical one runs one backward call per output element (batch*100), twice. Rounds are
interleaved in one process (CPU time, garbage collector on); the ratio is the median over
rounds of scalargrad's time / PyTorch's in the same round. Both must pass the check.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import statistics
import sys
import time

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
clock = time.process_time


def _scalargrad():
    try:
        import scalargrad
    except ImportError:
        sys.path.insert(0, _REPO)
        import scalargrad
    return scalargrad


def inputs(lib, batch: int) -> tuple:
    lib.manual_seed(0)
    dt = lib.float64
    x = lib.randn(batch, 3, 7, 7, dtype=dt, requires_grad=True)
    w = lib.randn(4, 3, 3, 3, dtype=dt, requires_grad=True)
    b = lib.randn(4, dtype=dt, requires_grad=True)
    return x, w, b


def check(lib, batch: int, fast_mode: bool = False) -> float:
    """One gradcheck; its CPU seconds (it must pass)."""
    args = inputs(lib, batch)
    gc.collect()
    t0 = clock()
    ok = lib.autograd.gradcheck(lib.nn.functional.conv2d, args, fast_mode=fast_mode)
    t = clock() - t0
    assert ok is True
    return t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=10, help="the input's batch size (default 10)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--fast-mode", action="store_true", help="gradcheck(fast_mode=True) instead of slow mode")
    ap.add_argument("--profile", action="store_true", help="cProfile one scalargrad check instead of timing")
    args = ap.parse_args(argv)
    sg = _scalargrad()
    print(f"bench_gradcheck_conv: Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; gradcheck(conv2d) on ({args.batch}, 3, 7, 7) float64, "
          f"weight (4, 3, 3, 3), bias (4,), {'fast' if args.fast_mode else 'slow'} mode")
    if args.profile:
        pr = cProfile.Profile()
        pr.enable()
        t = check(sg, args.batch, args.fast_mode)
        pr.disable()
        print(f"scalargrad: {t:.2f} s CPU under the profiler")
        pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(25)
        return 0
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
        print("PyTorch is not installed: scalargrad alone")
    times: dict = {"scalargrad": [], "torch": []}
    for r in range(args.rounds):
        order = [("scalargrad", sg), ("torch", torch)]
        if r % 2:
            order.reverse()
        for name, lib in order:
            if lib is not None:
                times[name].append(check(lib, args.batch, args.fast_mode))
                print(f"  round {r + 1}: {name} {times[name][-1]:.2f} s CPU", file=sys.stderr, flush=True)
    print(f"{'peer':12} {'CPU s (median)':>15} {'min':>8}")
    for name, t in times.items():
        if t:
            print(f"{name:12} {statistics.median(t):15.3f} {min(t):8.3f}")
    if times["torch"]:
        ratio = statistics.median(a / b for a, b in zip(times["scalargrad"], times["torch"]))
        print(f"scalargrad / PyTorch (median over rounds, same round): {ratio:.0f}x")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
