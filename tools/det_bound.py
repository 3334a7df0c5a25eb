"""Measure how far det's values lie from the exact rational determinant, for scalargrad and live
PyTorch: the worst |det - exact| / (n eps prod_i sum_j |a_ij|) over random matrices of sizes 1..6
in float32 and float64 (the bound tests/test_linalg.py uses is 2). Run by hand with PyTorch
installed, also under ATEN_CPU_CAPABILITY=default and MKL_CBWR=COMPATIBLE:

    python tools/det_bound.py [--draws 400]
"""

from __future__ import annotations

import argparse
import random
from fractions import Fraction

import torch

import scalargrad as sg

EPS = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}


def exact_det(m: list) -> Fraction:
    n = len(m)
    a = [[Fraction(x) for x in row] for row in m]
    d = Fraction(1)
    for j in range(n):
        p = next((i for i in range(j, n) if a[i][j] != 0), None)
        if p is None:
            return Fraction(0)
        if p != j:
            a[p], a[j] = a[j], a[p]
            d = -d
        d *= a[j][j]
        for i in range(j + 1, n):
            f = a[i][j] / a[j][j]
            for c in range(j, n):
                a[i][c] -= f * a[j][c]
    return d


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=400)
    draws = ap.parse_args().draws
    rnd = random.Random(1)
    worst: dict = {}
    for _ in range(draws):
        n = rnd.randint(1, 6)
        for dt, eps in EPS.items():
            m = torch.tensor([[rnd.uniform(-2, 2) for _ in range(n)] for _ in range(n)], dtype=getattr(torch, dt))
            m = m.tolist()
            exact = exact_det(m)
            h = 1.0
            for row in m:
                h *= sum(abs(x) for x in row)
            for name, lib in (("pytorch", torch), ("scalargrad", sg)):
                got = lib.det(lib.tensor(m, dtype=getattr(lib, dt))).item()
                ratio = float(abs(Fraction(got) - exact) / Fraction(h * eps)) / n
                worst[(name, dt)] = max(worst.get((name, dt), 0.0), ratio)
    for (name, dt), w in sorted(worst.items()):
        print(f"{name:11} {dt}: worst {w:.3f} n eps prod_i sum_j |a_ij|")


if __name__ == "__main__":
    main()
