"""Measure how far det's values lie from the exact rational determinant, for scalargrad and live
PyTorch: the worst |det - exact| / (n eps prod_i sum_j |a_ij|) over random matrices of sizes 1..6
in float32 and float64 (the bound tests/test_linalg.py uses is 2). Run by hand with PyTorch
installed, also under ATEN_CPU_CAPABILITY=default and MKL_CBWR=COMPATIBLE:

    python tools/det_bound.py [--draws 400]
"""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction
from pathlib import Path

import torch

import scalargrad as sg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from faithfulness import exact_det

EPS = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}


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
