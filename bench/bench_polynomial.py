"""W5: PyTorch's "polynomial_autograd" tutorial step, scalargrad against PyTorch and a floor.

    python3 bench/bench_polynomial.py                # 5 interleaved rounds of 20 steps per peer
    python3 bench/bench_polynomial.py --quick        # 2 rounds of 5 steps
    python3 bench/bench_polynomial.py --tutorial     # also: the tutorial's 2000 steps under `scalargrad run`
    python3 bench/bench_polynomial.py --profile      # cProfile of 50 scalargrad steps per dtype, top 25

The step (Learning PyTorch with Examples, "PyTorch: Tensors and autograd"): 2000 points on
[-pi, pi], y = sin(x), a cubic a + b x + c x^2 + d x^3 with 0-dim parameters, the sum of squared
errors, backward, and SGD under no_grad. Peers, interleaved round by round in one process (the
starting peer rotates), CPU time, garbage collector on:

* ``scalargrad-f64`` / ``scalargrad-f32``: scalargrad tensors of 2000 elements;
* ``torch-f32`` / ``torch-f64``: PyTorch 2.13, one thread;
* ``floor``: the same step written by hand over Python lists of floats (float64), derivatives
  worked out on paper: what pure Python costs with no autograd at all.

Each peer's losses over the run are compared with PyTorch's of the same dtype, bit for bit:
the peers start from the same parameters (PyTorch's ``manual_seed(0)`` draws, reproduced by
scalargrad's generator) and the same data. ``x`` is ``linspace``, which both compute alike;
``y = sin(x)`` goes through PyTorch's vectorised sin (MKL/SLEEF), which is not correctly rounded
and differs from machine to machine, so every peer is given PyTorch's y values when PyTorch is
installed (how many of them differ from scalargrad's own sin is printed): the comparison is
then of the training arithmetic alone, which PyTorch computes the same way on every machine.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import math
import os
import pstats
import statistics
import subprocess
import sys
import time

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
clock = time.process_time_ns
N_POINTS = 2000
LR = 1e-6


def _scalargrad():
    try:
        import scalargrad
    except ImportError:
        sys.path.insert(0, _REPO)
        import scalargrad
    return scalargrad


def shared_y(dtype_name: str):
    """PyTorch's sin of the points (None without PyTorch), and how many of scalargrad's differ."""
    try:
        import torch
    except ImportError:
        return None, None
    sg = _scalargrad()
    dt = getattr(torch, dtype_name)
    ty = torch.sin(torch.linspace(-math.pi, math.pi, N_POINTS, dtype=dt)).tolist()
    sy = sg.sin(sg.linspace(-math.pi, math.pi, N_POINTS, dtype=getattr(sg, dtype_name))).tolist()
    return ty, sum(1 for a, b in zip(ty, sy) if a != b)


class TensorPeer:
    """scalargrad or PyTorch, running the tutorial's code."""

    def __init__(self, lib, dtype_name: str, name: str) -> None:
        self.lib = lib
        self.name = name
        self.dtype = getattr(lib, dtype_name)
        lib.manual_seed(0)
        self.x = lib.linspace(-math.pi, math.pi, N_POINTS, dtype=self.dtype)
        y, _ = shared_y(dtype_name)
        self.y = lib.sin(self.x) if y is None else lib.tensor(y, dtype=self.dtype)
        self.params = [lib.randn((), dtype=self.dtype, requires_grad=True) for _ in range(4)]
        self.losses: list = []

    def step(self) -> None:
        a, b, c, d = self.params
        x = self.x
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - self.y).pow(2).sum()
        self.losses.append(loss.item())
        loss.backward()
        with self.lib.no_grad():
            for p in self.params:
                p -= LR * p.grad
                p.grad = None


class FloorPeer:
    """The step over Python lists (float64): forward, the four derivatives by hand, SGD."""

    name = "floor"

    def __init__(self) -> None:
        lib = _scalargrad()
        lib.manual_seed(0)  # the same starting parameters as the others (PyTorch's draws)
        self.x = [-math.pi + (2 * math.pi) * i / (N_POINTS - 1) for i in range(N_POINTS)]
        self.y = [math.sin(v) for v in self.x]
        self.params = [lib.randn((), dtype=lib.float64).item() for _ in range(4)]
        self.losses: list = []

    def step(self) -> None:
        a, b, c, d = self.params
        x, y = self.x, self.y
        x2 = [v * v for v in x]
        x3 = [s * v for s, v in zip(x2, x)]
        diff = [a + b * v + c * s + d * t - w for v, s, t, w in zip(x, x2, x3, y)]
        self.losses.append(sum(e * e for e in diff))
        g = [2.0 * e for e in diff]  # d loss / d y_pred
        grads = (sum(g), sum(e * v for e, v in zip(g, x)), sum(e * s for e, s in zip(g, x2)),
                 sum(e * t for e, t in zip(g, x3)))
        self.params = [p - LR * q for p, q in zip(self.params, grads)]


def _peers(names: list) -> list:
    sg = _scalargrad()
    out = []
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    for n in names:
        if n == "floor":
            out.append(FloorPeer())
        elif n.startswith("scalargrad"):
            out.append(TensorPeer(sg, "float64" if n.endswith("f64") else "float32", n))
        elif torch is not None:
            out.append(TensorPeer(torch, "float64" if n.endswith("f64") else "float32", n))
        else:
            print(f"skipped {n}: PyTorch is not installed")
    return out


def run(rounds: int, steps: int, names: list) -> dict:
    peers = _peers(names)
    times: dict = {p.name: [] for p in peers}
    for p in peers:  # warm-up step, not timed (and not compared)
        p.step()
        p.losses.clear()
    for r in range(rounds):
        order = peers[r % len(peers):] + peers[:r % len(peers)]
        for p in order:
            gc.collect()
            t0 = clock()
            for _ in range(steps):
                p.step()
            times[p.name].append((clock() - t0) / steps / 1e6)
        print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
    return {"peers": peers, "times": times}


def report(res: dict) -> None:
    peers, times = res["peers"], res["times"]
    print(f"W5 polynomial step, {N_POINTS} points: median CPU ms per step; ratio = median over rounds of "
          "(this peer / the floor, same round)")
    floor = times.get("floor")
    print(f"{'peer':16} {'ms/step':>9} {'min':>8} {'x floor':>8}  losses vs PyTorch (same dtype)")
    by_name = {p.name: p for p in peers}
    for p in peers:
        t = times[p.name]
        ratio = statistics.median(a / b for a, b in zip(t, floor)) if floor else float("nan")
        ref = by_name.get("torch-f64" if p.name.endswith("f64") else "torch-f32")
        if p.name == "floor" or p.name.startswith("torch"):
            same = "-"
        elif ref is None:
            same = "(no PyTorch)"
        else:
            n = min(len(p.losses), len(ref.losses))
            diff = sum(1 for a, b in zip(p.losses[:n], ref.losses[:n]) if a != b)
            same = f"bit-equal ({n} steps)" if diff == 0 else f"{diff} of {n} differ"
        print(f"{p.name:16} {statistics.median(t):9.3f} {min(t):8.3f} {ratio:8.2f}  {same}")


def tutorial() -> None:
    """The tutorial file, unchanged, run for its 2000 steps under ``scalargrad run``."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "polynomial_autograd.py")
    t0 = time.perf_counter()
    c0 = os.times()
    out = subprocess.run([sys.executable, "-m", "scalargrad", "run", path], capture_output=True, text=True)
    c1 = os.times()
    wall = time.perf_counter() - t0
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    print(f"\nthe tutorial file (2000 steps) under `scalargrad run`: {wall:.1f} s wall, {cpu:.1f} s CPU, "
          f"exit {out.returncode}")
    print("last lines:", *out.stdout.strip().splitlines()[-2:], sep="\n  ")


def profile(steps: int = 50) -> None:
    """cProfile of scalargrad's step in each dtype (after a warm-up), top 25 by own time."""
    sg = _scalargrad()
    for dt in ("float64", "float32"):
        peer = TensorPeer(sg, dt, f"scalargrad-{dt}")
        for _ in range(3):
            peer.step()
        gc.collect()
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(steps):
            peer.step()
        pr.disable()
        print(f"\nscalargrad {dt}: {steps} steps under cProfile (shares of the total, not times to quote)")
        pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(25)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--steps", type=int)
    ap.add_argument("--peers", default="scalargrad-f64,scalargrad-f32,torch-f32,torch-f64,floor")
    ap.add_argument("--tutorial", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile scalargrad's step instead of timing")
    args = ap.parse_args()
    if args.profile:
        profile()
        return
    rounds = args.rounds or (2 if args.quick else 5)
    steps = args.steps or (5 if args.quick else 20)
    print(f"bench_polynomial: Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {rounds} rounds of {steps} steps")
    for dt in ("float32", "float64"):
        y, differ = shared_y(dt)
        if y is not None:
            print(f"sin(x), {dt}: {differ} of {N_POINTS} values differ between PyTorch's kernel and scalargrad's "
                  "(all peers are given PyTorch's)")
    report(run(rounds, steps, args.peers.split(",")))
    if args.tutorial:
        tutorial()


if __name__ == "__main__":
    main()
