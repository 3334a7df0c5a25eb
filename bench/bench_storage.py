"""What a tensor's elements cost as Python lists, against ``array('d')`` / ``array('f')``, and the
building blocks a faster core could use. A measurement for planning, not a peer comparison.

    python3 bench/bench_storage.py                 # 1M elements (scalargrad's cap today), 3 rounds
    python3 bench/bench_storage.py --n 16777216    # 16M (an MNIST model's sizes): ~1 GB for the lists

Part 1, storage: bytes per element held (tracemalloc) and CPU ns per element to build, to add
two tensors elementwise, to sum, and to read every element back as a Python float, for
* ``list``: a list of Python floats (scalargrad's storage today: 8 bytes of pointer + a 24-byte
  float object per element, unless elements share objects);
* ``array('d')``: 8 bytes per element, C doubles (a read makes a new float object);
* ``array('f')``: 4 bytes per element, C floats: storing rounds to float32 in C.
Part 2, float32 rounding of a computed list: ``struct`` pack/unpack of the whole list (what
``dtypes.round_f32_list`` does) against ``array('f', values)`` (and ``.tolist()``).
Part 3, a float64 dot of 27 products (a 3x3x3 convolution tap), rounded once: scalargrad's
``exact_sum.rounded_dot`` (Dekker two-products, each operand split for every product it is in,
then ``fsum``) against the same arithmetic with every operand split once beforehand (a
convolution reads each input element in up to 9 * C_out products, each weight in hundreds) and
the products' exact errors computed in one comprehension. Both must give the same double on
every sample (checked).
"""

from __future__ import annotations

import argparse
import gc
import math
import operator
import os
import random
import statistics
import struct
import sys
import time
import tracemalloc
from array import array
from functools import reduce

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
clock = time.process_time_ns


def _timed(fn, rounds: int, n: int) -> float:
    """Median CPU ns per element of ``fn()`` over ``rounds`` runs."""
    out = []
    for _ in range(rounds):
        gc.collect()
        t0 = clock()
        fn()
        out.append((clock() - t0) / n)
    return statistics.median(out)


def _held(make) -> float:
    """Bytes held by what ``make()`` returns (tracemalloc), per element."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    obj = make()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    n = len(obj)
    del obj
    return held / n


def storage(n: int, rounds: int) -> None:
    rng = random.Random(0)
    src = [rng.gauss(0.0, 1.0) for _ in range(n)]
    other = [rng.gauss(0.0, 1.0) for _ in range(n)]
    add = operator.add
    kinds = {
        "list": (lambda: [x * 1.0 for x in src], lambda a, b: list(map(add, a, b))),
        "array('d')": (lambda: array("d", src), lambda a, b: array("d", map(add, a, b))),
        "array('f')": (lambda: array("f", src), lambda a, b: array("f", map(add, a, b))),
    }
    print(f"\nPart 1: {n:,} elements; median CPU ns per element over {rounds} rounds; bytes per element held")
    print(f"{'storage':12} {'bytes/elem':>10} {'build':>8} {'a + b':>8} {'sum':>8} {'read all':>9}")
    for name, (make, plus) in kinds.items():
        held = _held(make)
        a = make()
        b = array(a.typecode, other) if isinstance(a, array) else list(other)
        t_build = _timed(make, rounds, n)
        t_add = _timed(lambda plus=plus, a=a, b=b: plus(a, b), rounds, n)
        t_sum = _timed(lambda a=a: reduce(add, a, 0.0), rounds, n)
        t_read = _timed(lambda a=a: sum(1 for _ in a), rounds, n)
        print(f"{name:12} {held:10.1f} {t_build:8.1f} {t_add:8.1f} {t_sum:8.1f} {t_read:9.1f}")


def rounding(n: int, rounds: int) -> None:
    rng = random.Random(1)
    vals = [rng.gauss(0.0, 1.0) for _ in range(n)]
    pk = struct.Struct(f"{n}f")

    def with_struct():
        return list(pk.unpack(pk.pack(*vals)))

    same = with_struct() == array("f", vals).tolist()
    print(f"\nPart 2: float32 rounding of a computed list of {n:,} doubles, median CPU ns per element "
          f"(results identical: {same})")
    print(f"  struct pack/unpack -> list      {_timed(with_struct, rounds, n):8.1f}")
    print(f"  array('f', values)              {_timed(lambda: array('f', vals), rounds, n):8.1f}")
    print(f"  array('f', values).tolist()     {_timed(lambda: array('f', vals).tolist(), rounds, n):8.1f}")


_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter


def _split(vals: list) -> tuple:
    """Each double as hi + lo with 26-bit halves (Veltkamp), for exact products (Dekker)."""
    his = [t - (t - v) for v, t in zip(vals, map(operator.mul, vals, [_SPLIT] * len(vals)))]
    return his, list(map(operator.sub, vals, his))


def _dot_presplit(x, xh, xl, w, wh, wl) -> float:
    """The exact sum of the products rounded once, from operands split beforehand (once per
    tensor, not once per product as rounded_dot does): the rounded products and their exact
    errors, summed by fsum. Valid away from overflow and underflow (checked once per tensor)."""
    ps = list(map(operator.mul, x, w))
    ps += [((ah * bh - p) + ah * bl + al * bh) + al * bl for p, ah, al, bh, bl in zip(ps, xh, xl, wh, wl)]
    return math.fsum(ps)


def dots(samples: int, k: int, rounds: int) -> None:
    try:
        from scalargrad._base.exact_sum import rounded_dot
    except ImportError:
        sys.path.insert(0, _REPO)
        from scalargrad._base.exact_sum import rounded_dot
    rng = random.Random(2)
    data = [([rng.gauss(0.0, 1.0) for _ in range(k)], [rng.gauss(0.0, 1.0) for _ in range(k)]) for _ in range(samples)]

    def current():
        return [rounded_dot(zip(x, w), False) for x, w in data]

    split = [(x, *_split(x), w, *_split(w)) for x, w in data]

    def presplit():
        return [_dot_presplit(*args) for args in split]

    same = current() == presplit()
    n = samples * k
    print(f"\nPart 3: {samples:,} float64 dots of {k} products, rounded once; median CPU ns per product "
          f"(results identical: {same})")
    print(f"  exact_sum.rounded_dot (split per product)           {_timed(current, rounds, n):8.1f}")
    print(f"  operands split once, products + errors, one fsum    {_timed(presplit, rounds, n):8.1f}")
    print(f"  fsum(map(mul)): the rounded products summed exactly "
          f"{_timed(lambda: [math.fsum(map(operator.mul, x, w)) for x, w in data], rounds, n):8.1f}")
    print(f"  plain sum(map(mul)) (not rounded once: a floor)     "
          f"{_timed(lambda: [sum(map(operator.mul, x, w)) for x, w in data], rounds, n):8.1f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1 << 20, help="elements for parts 1 and 2 (default 1,048,576)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"bench_storage: Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    storage(args.n, args.rounds)
    rounding(min(args.n, 1 << 20), args.rounds)
    dots(20_000, 27, args.rounds)
    print(f"\nload average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
