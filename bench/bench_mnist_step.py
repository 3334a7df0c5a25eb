"""One training step of pytorch/examples' MNIST Net at its batch size, scalargrad beside PyTorch.

    python3 bench/bench_mnist_step.py                      # batch 64, one step, both peers
    python3 bench/bench_mnist_step.py --batch 8 --steps 2 --peers scalargrad
    python3 bench/bench_mnist_step.py --profile            # cProfile of scalargrad's step, top 20 by tottime

The model of ``bench/programs/mnist_cnn.py`` (Conv2d(1, 32, 3), Conv2d(32, 64, 3), max_pool2d,
Dropout, Linear(9216, 128), Dropout, Linear(128, 10), log_softmax, nll_loss, Adadelta) on one
synthetic batch of MNIST-shaped images. Each peer runs in a fresh process (PyTorch with one
thread); a step (zero_grad, forward, loss, backward, optimizer step) is timed in wall and CPU
seconds, its forward and backward apart, and the child's peak resident memory (``ru_maxrss``)
is reported with the load average before and after. Issue 25: the whole program at batch 64 took
23 GB under scalargrad when every convolution output listed its taps.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(_HERE)


def child(peer: str, batch: int, steps: int, profile: bool) -> None:
    import resource

    if peer == "torch":
        import torch
        torch.set_num_threads(1)
    else:
        sys.path.insert(0, _REPO)
        import scalargrad as torch
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
            x = torch.flatten(self.dropout1(x), 1)
            x = self.dropout2(F.relu(self.fc1(x)))
            return F.log_softmax(self.fc2(x), dim=1)

    torch.manual_seed(1)
    model = Net()
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
    g = torch.Generator().manual_seed(2)
    data = (torch.rand(batch, 1, 28, 28, generator=g) - 0.1307) / 0.3081
    target = torch.randint(0, 10, (batch,), generator=g)
    rows = []

    def step():
        w0, c0 = time.perf_counter(), time.process_time()
        opt.zero_grad()
        loss = F.nll_loss(model(data), target)
        w1, c1 = time.perf_counter(), time.process_time()
        loss.backward()
        opt.step()
        w2, c2 = time.perf_counter(), time.process_time()
        rows.append({"loss": loss.item(), "forward_wall": w1 - w0, "forward_cpu": c1 - c0,
                     "backward_step_wall": w2 - w1, "backward_step_cpu": c2 - c1})

    if profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.runcall(step)
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(20)
    else:
        for _ in range(steps):
            step()
    print(json.dumps({"peer": peer, "batch": batch, "steps": rows,
                      "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--peers", default="scalargrad,torch")
    ap.add_argument("--profile", action="store_true", help="cProfile scalargrad's step (stderr)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.batch, args.steps, args.profile)
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    peers = ["scalargrad"] if args.profile else args.peers.split(",")
    print(f"load average before: {os.getloadavg()}")
    for peer in peers:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", peer, "--batch", str(args.batch),
               "--steps", str(args.steps)] + (["--profile"] if args.profile else [])
        w0 = time.perf_counter()
        out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                             stderr=None if args.profile else subprocess.PIPE, text=True)
        wall = time.perf_counter() - w0
        if out.returncode:
            print(f"{peer}: failed ({out.returncode}): {(out.stderr or '').strip().splitlines()[-1:]}")
            continue
        res = json.loads((out.stdout or "").strip().splitlines()[-1])
        for k, r in enumerate(res["steps"]):
            print(f"{peer:10s} batch {args.batch} step {k}: forward {r['forward_wall']:.2f} s wall "
                  f"{r['forward_cpu']:.2f} s CPU; backward+step {r['backward_step_wall']:.2f} s wall "
                  f"{r['backward_step_cpu']:.2f} s CPU; loss {r['loss']:.6f}")
        print(f"{peer:10s} process: {wall:.1f} s wall, peak RSS {res['maxrss_mb']:.0f} MB")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
