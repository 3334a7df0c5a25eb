"""Real programs at their real sizes, end to end: scalargrad against PyTorch, same-run ratios.

    python3 bench/bench_programs.py                          # every program, 3 interleaved rounds
    python3 bench/bench_programs.py --rounds 1 --programs polynomial_autograd,ngram_language_model
    python3 bench/bench_programs.py --json out.json --variants   # also PyTorch under other CPU kernels

Each program of ``bench/programs/`` (PyTorch tutorials and examples, written in their shape at
their sizes; see each file's header) runs as a user runs it, in a fresh process:
``python PROGRAM`` with PyTorch, ``python -m scalargrad run PROGRAM`` with scalargrad. Wall time
is measured around the whole process, so PyTorch's includes its import (about 1.6 s here) as
scalargrad's includes its own. Rounds are interleaved (every program under both, the order of
the two alternating from round to round), and a program's ratio is the median over rounds of
(scalargrad's wall time / PyTorch's in the same round); the set's figure is the geometric mean
of those ratios over the programs that run under both. CPU time (user + system of the child) and
peak resident memory (the child's ``ru_maxrss``) come from ``os.wait4``. PyTorch runs with one
thread (``OMP_NUM_THREADS=1``, ``MKL_NUM_THREADS=1``; ``--torch-threads`` changes it), as
scalargrad has one: on a shared machine PyTorch's OpenMP threads spin while other jobs hold the
cores (measured here under a load average of 25: polynomial_nn took 164 s of wall time and 31 s
of CPU with two threads).

Start-up is a program that only imports torch, timed the same way. scalargrad's source tree is
byte-compiled first (untimed; ``--no-compile`` leaves it), as ``pip install`` leaves a package and
left PyTorch: on machines that set PYTHONDONTWRITEBYTECODE every run would otherwise compile it.

Output check: each program's standard output under scalargrad is compared with PyTorch's, line
by line: ``exact``, or ``digits`` (same lines and words, numbers differing in their last
digits: the largest relative difference is shown) or ``DIFFERS``. Where PyTorch's own result
depends on the processor's kernels, the program's header names them (``MACHINE_KERNELS``
below); ``--variants`` also runs PyTorch (untimed) under ``ATEN_CPU_CAPABILITY=default`` and
``MKL_CBWR=COMPATIBLE`` (how other processors compute: see the developers' guide) and shows
how far PyTorch's own outputs move, and whether scalargrad's equals one of them.

A program that scalargrad cannot run yet is reported with the reason it stops (its last line
of standard error) and left out of the geometric mean.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(_HERE)
PROGRAM_DIR = os.path.join(_HERE, "programs")

# (file stem, what it is, the processor-dependent kernels on its path in PyTorch)
PROGRAMS = [
    ("polynomial_tensor", "examples_tensor: cubic fit, gradients by hand, 2,000 points x 2,000 steps",
     "sin (vectorised, not correctly rounded); 1-D @ 1-D of 2,000 (MKL sdot)"),
    ("polynomial_autograd", "examples_autograd: cubic fit with autograd, 2,000 points x 2,000 steps",
     "sin; sum of 2,000 (vectorised order)"),
    ("polynomial_custom_function", "examples_autograd: Legendre P3 as a custom Function, 2,000 x 2,000",
     "sin; sum of 2,000"),
    ("polynomial_nn", "examples_nn: Sequential(Linear(3, 1), Flatten), MSELoss, hand SGD, 2,000 x 2,000",
     "sin; Linear(3, 1) = a one-column mm (MKL sgemv); mse_loss sum"),
    ("polynomial_optim", "examples_nn: the nn model with torch.optim.RMSprop, 2,000 x 2,000",
     "sin; Linear(3, 1) (MKL sgemv); mse_loss sum; RMSprop's sqrt"),
    ("polynomial_module", "examples_nn: custom Module, 4 Parameters, SGD, 2,000 x 2,000",
     "sin; mse_loss sum"),
    ("dynamic_net", "examples_nn: control flow + weight sharing, SGD momentum, 2,000 x 3,000",
     "sin; mse_loss sum"),
    ("ngram_language_model", "word embeddings: N-gram LM, Embedding(97, 10), 1,130 SGD steps",
     "mm of one row (MKL); log_softmax (vectorised exp and log)"),
    ("blitz_neural_networks", "60-minute blitz 'Neural Networks': LeNet 1x32x32, 5 backward passes",
     "conv2d (oneDNN / MKL GEMM order); mm (MKL)"),
    ("blitz_cifar10_lenet", "60-minute blitz 'Training a Classifier': LeNet on synthetic CIFAR, 20 steps of 4",
     "conv2d (oneDNN / MKL GEMM order); mm (MKL); log_softmax"),
    ("mnist_cnn", "pytorch/examples mnist: Net (conv 1-32-64, Linear(9216, 128)), synthetic, 10 batches of 64",
     "conv2d; mm (MKL); log_softmax"),
    ("lstm_tagger", "sequence models: LSTM part-of-speech tagger, Embedding(9, 6), LSTM(6, 6), 600 SGD steps",
     "mm (MKL); sigmoid and tanh (vectorised); log_softmax"),
]
MACHINE_KERNELS = {name: kernels for name, _, kernels in PROGRAMS}
VARIANTS = {"ATEN_CPU_CAPABILITY=default": {"ATEN_CPU_CAPABILITY": "default"},
            "MKL_CBWR=COMPATIBLE": {"MKL_CBWR": "COMPATIBLE"}}
STARTUP = "import torch\n"


# ---------------------------------------------------------------- running one process


def run_once(cmd: list, cwd: str, env: dict, timeout: float) -> dict:
    """Run ``cmd`` to the end: wall seconds, CPU seconds (user + system), peak RSS bytes, exit
    status, standard output and the tail of standard error."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    timed_out = wall >= timeout and p.returncode < 0
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss * 1024, "status": p.returncode,
            "stdout": stdout, "stderr_tail": stderr.strip().splitlines()[-3:], "timed_out": timed_out}


def commands(path: str, python: str) -> dict:
    return {"torch": [python, path], "scalargrad": [python, "-m", "scalargrad", "run", path]}


TORCH_THREADS = {"n": 1}


def child_env(extra: dict | None = None) -> dict:
    n = str(TORCH_THREADS["n"])
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONHASHSEED="0", OMP_NUM_THREADS=n, MKL_NUM_THREADS=n)
    env.pop("PYTHONWARNINGS", None)
    # scalargrad from this source tree even without `pip install -e .`
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_REPO, env.get("PYTHONPATH")) if p)
    env.update(extra or {})
    return env


# ---------------------------------------------------------------- comparing outputs

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")


def compare_output(want: str, got: str) -> dict:
    """``exact``; ``digits`` (the same lines and words, only numbers differ: how many lines, the
    largest relative difference and the first such line); or ``differs`` (the first difference)."""
    if want == got:
        return {"verdict": "exact", "lines": len(want.splitlines())}
    a, b = want.splitlines(), got.splitlines()
    if len(a) != len(b):
        return {"verdict": "differs", "why": f"{len(a)} lines from PyTorch, {len(b)} from scalargrad",
                "first": _first_difference(a, b)}
    worst, differing, first = 0.0, 0, None
    for x, y in zip(a, b):
        if x == y:
            continue
        if _NUMBER.sub("#", x) != _NUMBER.sub("#", y):
            return {"verdict": "differs", "why": "a line differs in more than its numbers", "first": (x, y)}
        differing += 1
        first = first or (x, y)
        for u, v in zip(_NUMBER.findall(x), _NUMBER.findall(y)):
            if u == v:
                continue
            fu, fv = float(u), float(v)
            if fu != fu or fv != fv or math.isinf(fu) or math.isinf(fv):
                worst = math.inf
                continue
            worst = max(worst, abs(fu - fv) / max(abs(fu), abs(fv), 1e-300))
    return {"verdict": "digits", "lines": len(a), "differing": differing, "max_rel": worst, "first": first}


def _first_difference(a: list, b: list):
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<missing>"
        y = b[i] if i < len(b) else "<missing>"
        if x != y:
            return (x, y)
    return None


def describe(cmp: dict) -> str:
    if cmp["verdict"] == "exact":
        return f"exact ({cmp['lines']} lines)"
    if cmp["verdict"] == "digits":
        return (f"digits: {cmp['differing']} of {cmp['lines']} lines, largest relative difference "
                f"{cmp['max_rel']:.2g}")
    return f"DIFFERS: {cmp['why']}"


# ---------------------------------------------------------------- the benchmark


def precompile(python: str, log) -> None:
    """Write the bytecode of scalargrad's source tree (``__pycache__``, untimed), as ``pip install``
    does for an installed package and did for PyTorch's: without it, on a machine that sets
    PYTHONDONTWRITEBYTECODE, every scalargrad run compiles its whole source (about 0.5 s of CPU)."""
    res = subprocess.run([python, "-m", "compileall", "-q", os.path.join(_REPO, "scalargrad")],
                         capture_output=True, text=True, timeout=600)
    log(f"compileall scalargrad: exit {res.returncode}")


def measure(names: list, rounds: int, timeout: float, python: str, log) -> dict:
    """Interleaved rounds over the programs; returns the samples per program and peer."""
    env = child_env()
    samples = {n: {"torch": [], "scalargrad": []} for n in ["(start-up)", *names]}
    with tempfile.TemporaryDirectory() as work:
        startup = os.path.join(work, "startup.py")
        with open(startup, "w") as f:
            f.write(STARTUP)
        for r in range(rounds):
            for name in ["(start-up)", *names]:
                path = startup if name == "(start-up)" else os.path.join(PROGRAM_DIR, name + ".py")
                cmds = commands(path, python)
                order = ["torch", "scalargrad"] if r % 2 == 0 else ["scalargrad", "torch"]
                for peer in order:
                    res = run_once(cmds[peer], work, env, timeout)
                    samples[name][peer].append(res)
                    log(f"round {r + 1}/{rounds} {name:28} {peer:10} {res['wall']:8.2f} s wall "
                        f"{res['cpu']:8.2f} s CPU {res['rss'] / 2**20:7.0f} MB exit {res['status']}")
    return samples


def variants(names: list, timeout: float, python: str, log) -> dict:
    """PyTorch's output under each of VARIANTS, untimed."""
    out: dict = {}
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            path = os.path.join(PROGRAM_DIR, name + ".py")
            out[name] = {}
            for label, extra in VARIANTS.items():
                res = run_once(commands(path, python)["torch"], work, child_env(extra), timeout)
                out[name][label] = res["stdout"] if res["status"] == 0 else None
                log(f"variant {name:28} {label}: exit {res['status']}")
    return out


def summarise(samples: dict, torch_variants: dict | None) -> dict:
    rows = {}
    for name, peers in samples.items():
        t, s = peers["torch"], peers["scalargrad"]
        row = {"torch_wall": statistics.median(x["wall"] for x in t),
               "torch_cpu": statistics.median(x["cpu"] for x in t),
               "torch_rss": max(x["rss"] for x in t),
               "sg_wall": statistics.median(x["wall"] for x in s),
               "sg_cpu": statistics.median(x["cpu"] for x in s),
               "sg_rss": max(x["rss"] for x in s),
               "torch_status": t[0]["status"], "sg_status": s[0]["status"]}
        ran = all(x["status"] == 0 for x in s) and all(x["status"] == 0 for x in t)
        row["ran"] = ran
        if ran:
            row["ratio"] = statistics.median(b["wall"] / a["wall"] for a, b in zip(t, s))
            row["cpu_ratio"] = statistics.median(b["cpu"] / a["cpu"] for a, b in zip(t, s))
            if name != "(start-up)":
                row["output"] = compare_output(t[0]["stdout"], s[0]["stdout"])
                stable = all(x["stdout"] == t[0]["stdout"] for x in t) and all(x["stdout"] == s[0]["stdout"] for x in s)
                row["output"]["same_every_round"] = stable
        else:
            bad = next((x for x in s if x["status"] != 0), None) or next(x for x in t if x["status"] != 0)
            who = "scalargrad" if any(x["status"] != 0 for x in s) else "PyTorch"
            why = "timed out" if bad["timed_out"] else (bad["stderr_tail"] or ["(no message)"])[-1]
            row["failure"] = f"{who} stops (exit {bad['status']}): {why}"
        if torch_variants and name in torch_variants and ran:
            base = t[0]["stdout"]
            got = s[0]["stdout"]
            v = {}
            for label, text in torch_variants[name].items():
                if text is None:
                    v[label] = None
                    continue
                v[label] = {"torch_vs_default": compare_output(base, text),
                            "scalargrad_vs_it": compare_output(text, got)}
            row["variants"] = v
        rows[name] = row
    ran = [r["ratio"] for n, r in rows.items() if n != "(start-up)" and r["ran"]]
    geo = math.exp(sum(math.log(x) for x in ran) / len(ran)) if ran else math.nan
    return {"rows": rows, "geomean": geo, "programs_in_geomean": len(ran)}


def print_report(summary: dict, env: dict) -> None:
    rows = summary["rows"]
    print(f"\nReal programs end to end: median wall seconds per run; ratio = median over rounds of "
          f"(scalargrad / PyTorch, same round); PyTorch's time includes its import. {env['rounds']} rounds.")
    hdr = (f"{'program':28} {'PyTorch s':>10} {'sg s':>9} {'sg/PT':>7} {'CPU sg/PT':>10} {'PT MB':>7} "
           f"{'sg MB':>7}  output against PyTorch")
    print(hdr)
    print("-" * len(hdr))
    for name, r in rows.items():
        if r["ran"]:
            out = "-" if name == "(start-up)" else describe(r["output"])
            if name != "(start-up)" and not r["output"].get("same_every_round", True):
                out += " (outputs changed between rounds)"
            print(f"{name:28} {r['torch_wall']:10.2f} {r['sg_wall']:9.2f} {r['ratio']:7.2f} {r['cpu_ratio']:10.2f} "
                  f"{r['torch_rss'] / 2**20:7.0f} {r['sg_rss'] / 2**20:7.0f}  {out}")
        else:
            print(f"{name:28} {r['torch_wall']:10.2f} {r['sg_wall']:9.2f} {'-':>7} {'-':>10} "
                  f"{r['torch_rss'] / 2**20:7.0f} {r['sg_rss'] / 2**20:7.0f}  cannot run: {r['failure']}")
    n = summary["programs_in_geomean"]
    print(f"\ngeometric mean of scalargrad / PyTorch over the {n} programs that run under both: "
          + (f"{summary['geomean']:.2f}x" if n else "-"))
    print("(a program that cannot run shows the seconds until it stopped)")
    print("\nProcessor-dependent kernels on each program's path in PyTorch (where 'digits' comes from):")
    for name, r in rows.items():
        if name == "(start-up)":
            continue
        print(f"  {name}: {MACHINE_KERNELS.get(name, '-')}")
        for label, v in (r.get("variants") or {}).items():
            if v is None:
                print(f"    PyTorch under {label}: failed")
                continue
            print(f"    PyTorch under {label}: vs its default {describe(v['torch_vs_default'])}; "
                  f"scalargrad vs it {describe(v['scalargrad_vs_it'])}")
        first = (r.get("output") or {}).get("first")
        if first:
            print(f"    first differing line: PyTorch {first[0]!r}, scalargrad {first[1]!r}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    names = [n for n, _, _ in PROGRAMS]
    ap.add_argument("--programs", default=",".join(names), help="comma-separated subset of " + ", ".join(names))
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed to one run (default 3600)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter (with torch and scalargrad)")
    ap.add_argument("--variants", action="store_true",
                    help="also run PyTorch (untimed) under ATEN_CPU_CAPABILITY=default and MKL_CBWR=COMPATIBLE")
    ap.add_argument("--json", metavar="OUT", help="write every sample and the summary to OUT")
    ap.add_argument("--torch-threads", type=int, default=1, help="PyTorch's threads (default 1)")
    ap.add_argument("--no-compile", action="store_true",
                    help="leave scalargrad's bytecode uncompiled (each run compiles its source if the "
                         "environment sets PYTHONDONTWRITEBYTECODE)")
    args = ap.parse_args(argv)
    TORCH_THREADS["n"] = args.torch_threads
    chosen = [n.strip() for n in args.programs.split(",") if n.strip()]
    bad = [n for n in chosen if n not in names]
    if bad:
        ap.error(f"unknown program(s) {', '.join(bad)}; choose from {', '.join(names)}")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    env = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "python": sys.version.split()[0],
           "platform": platform.platform(), "cpus": os.cpu_count(), "loadavg_start": os.getloadavg(),
           "rounds": args.rounds, "torch_threads": args.torch_threads}
    try:
        env["commit"] = subprocess.run(["git", "-C", _REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                                       text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        env["commit"] = "?"
    print(f"bench_programs {env['date']}, Python {env['python']} on {env['platform']}, {env['cpus']} CPUs, "
          f"commit {env['commit']}, PyTorch with {args.torch_threads} thread(s), load average "
          f"{' '.join(f'{x:.2f}' for x in env['loadavg_start'])}")
    started = time.perf_counter()
    env["precompiled"] = not args.no_compile
    if not args.no_compile:
        precompile(args.python, log)
    print("scalargrad's bytecode: " + ("not compiled beforehand (--no-compile)" if args.no_compile else
                                       "compiled beforehand, untimed, as an installed package has it"))
    samples = measure(chosen, args.rounds, args.timeout, args.python, log)
    runs = [n for n in chosen if all(x["status"] == 0 for x in samples[n]["scalargrad"])]
    tv = variants(runs, args.timeout, args.python, log) if args.variants else None
    summary = summarise(samples, tv)
    env["loadavg_end"] = os.getloadavg()
    env["seconds"] = round(time.perf_counter() - started, 1)
    print_report(summary, env)
    print(f"\nran {env['seconds']} s; load average at the end {' '.join(f'{x:.2f}' for x in env['loadavg_end'])}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"env": env, "summary": summary, "samples": samples, "variants": tv}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
