"""Matrix products at real sizes (issue 25): forward and backward of ``a @ b`` and ``nn.Linear``,
scalargrad against PyTorch, and scalargrad's bulk float32 kernel against its per-element one.

    python3 bench/bench_products.py              # every shape, 3 interleaved rounds
    python3 bench/bench_products.py --rounds 1 --shapes rnn,mlp

Peers, interleaved round by round in one process, CPU time, garbage collector on:

* ``scalargrad``: float32 tensors, ``kernel_order.gemm_f32`` (a row or column of the result at a
  time: list comprehensions and ``struct``'s float32 cast, the rare halfway sums redone exactly);
* ``per-element``: the same with ``gemm_f32`` switched off, every element through ``fma_chain``
  or ``mkl_lanes8`` (what scalargrad did before); the same bits (checked);
* ``torch``: PyTorch 2.13, one thread.

A case is the forward (``a @ b``, or ``linear(x, w, bias)``) then ``out.sum().backward()``
(sum's own cost is timed apart and left out). The ratio columns are medians over rounds of this
peer's time / scalargrad's in the same round.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
clock = time.process_time_ns

# name: (what it is, a's shape, b's shape, linear: b is a weight (out, in) used as x @ w.T + bias)
SHAPES = {
    "rnn": ("a @ b, 3200x20 @ 20x50 (an RNN's inputs at once)", (3200, 20), (20, 50), False),
    "mlp": ("Linear(784, 128) on a batch of 64 (an MNIST MLP)", (64, 784), (128, 784), True),
    "head": ("Linear(128, 10) on a batch of 64 (its output layer; MKL's 8-lane kernel)", (64, 128), (10, 128), True),
    "lstm": ("Linear(20, 200) on a batch of 32 (an LSTM cell's four gates)", (32, 20), (200, 20), True),
    "fc1": ("Linear(9216, 128) on 8 images (MNIST example's fc1, a short batch)", (8, 9216), (128, 9216), True),
}


def _scalargrad():
    try:
        import scalargrad
    except ImportError:
        sys.path.insert(0, _REPO)
        import scalargrad
    return scalargrad


def _case(L, shape_a, shape_b, linear, seed=0):
    L.manual_seed(seed)
    a = L.randn(*shape_a, requires_grad=True)
    b = L.randn(*shape_b, requires_grad=True)
    bias = L.randn(shape_b[0], requires_grad=True) if linear else None

    def run():
        t0 = clock()
        out = L.nn.functional.linear(a, b, bias) if linear else a @ b
        t1 = clock()
        s = out.sum()
        t2 = clock()
        s.backward()
        t3 = clock()
        grads = [x.grad.flatten().tolist() for x in (a, b) + ((bias,) if linear else ())]
        for x in (a, b) + ((bias,) if linear else ()):
            x.grad = None
        return (t1 - t0) / 1e6, (t3 - t2) / 1e6, out.flatten().tolist(), grads
    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    args = ap.parse_args(argv)
    sg = _scalargrad()
    from scalargrad._tensor import products
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    bulk = products.gemm_f32
    print(f"bench_products, {time.strftime('%Y-%m-%dT%H:%M:%S')}, Python {sys.version.split()[0]}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.rounds} rounds; CPU ms")
    print(f"{'shape':6} {'peer':12} {'fwd':>9} {'bwd':>9} {'x sg':>7}  same bits as scalargrad")
    for name in args.shapes.split(","):
        what, sa, sb, linear = SHAPES[name]
        peers = {"scalargrad": _case(sg, sa, sb, linear), "per-element": _case(sg, sa, sb, linear)}
        if torch is not None:
            peers["torch"] = _case(torch, sa, sb, linear)
        times = {p: [] for p in peers}
        results = {}
        for r in range(args.rounds):
            order = list(peers)[r % len(peers):] + list(peers)[:r % len(peers)]
            for p in order:
                products.gemm_f32 = bulk if p != "per-element" else (lambda *args: None)
                gc.collect()
                try:
                    fwd, bwd, out, grads = peers[p]()
                finally:
                    products.gemm_f32 = bulk
                times[p].append((fwd, bwd))
                results[p] = (out, grads)
        print(f"-- {name}: {what}")
        base = [f + b for f, b in times["scalargrad"]]
        for p in peers:
            fwd = statistics.median(f for f, _ in times[p])
            bwd = statistics.median(b for _, b in times[p])
            ratio = statistics.median((f + b) / s for (f, b), s in zip(times[p], base))
            same = "" if p == "torch" else str(results[p] == results["scalargrad"])
            print(f"{name:6} {p:12} {fwd:9.1f} {bwd:9.1f} {ratio:6.2f}x  {same}")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
