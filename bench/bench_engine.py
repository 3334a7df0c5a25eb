"""Benchmark scalargrad's engine against micrograd, PyTorch (0-dim tensors) and a lean yardstick.

    python3 bench/bench_engine.py                 # full run, a few minutes on 2 cores
    python3 bench/bench_engine.py --quick         # smoke run, under 30 s
    python3 bench/bench_engine.py --workload W1,W4 --repeat 7 --json out.json
    python3 bench/bench_engine.py --profile --workload W1,W4   # cProfile of scalargrad

All peers run in one process, interleaved round by round (the starting peer rotates), so
machine noise hits them alike; the cyclic garbage collector stays on, as users have it, and
is run to completion (untimed) before each measurement so no peer pays for another's
garbage. Memory and the depth probe run one peer per child process. See bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import hashlib
import importlib.util
import io
import json
import math
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
import tracemalloc

from peers import ALL_PEERS, MicrogradPeer, PeerUnavailable, make_peer
from workloads import GRAPH_WORKLOADS, Chain, make_moons, mlp_layout, ops_per_step, svm_loss

# CPU time of this process: other jobs on a shared machine stretch wall time, not CPU time
# (on an idle machine the two agree; the wall-clock fwd+bwd is kept in the JSON as "wall")
clock = time.process_time_ns
wall = time.perf_counter_ns
REF = "scalargrad-f64"
MICRO = "micrograd"
LEAN_QUOTE = ('issue 6 quotes "a lean pure-Python design (slotted nodes, no closures, creation-ordered sweep) '
              '~1,500 ns and 310 bytes per node on this machine"; not run here: lean-ref is our own such design')

SIZES = {
    "full": {"W1": 200_000, "W2": 100_000, "W4": 30_000, "W3_points": 100, "W3_steps": 2,
             "MEM": 200_000, "DEPTH": 2_000_000, "repeat": 5},
    "quick": {"W1": 10_000, "W2": 5_000, "W4": 3_000, "W3_points": 10, "W3_steps": 1,
              "MEM": 10_000, "DEPTH": 10_000, "repeat": 2},
}
ALL_WORKLOADS = ("W1", "W2", "W4", "W3", "W3OPT", "MEM", "DEPTH")


# ---------------------------------------------------------------- helpers


def rss_bytes() -> int:
    """Current resident set size of this process."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak_rss() -> None:
    """Restart the kernel's resident high-water mark (VmHWM) from the current RSS."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def peak_rss_bytes() -> int:
    """This process's resident high-water mark since the last reset_peak_rss (not inherited at exec)."""
    return _status_kb("VmHWM") * 1024


def rotated(items: list, k: int) -> list:
    k %= len(items)
    return items[k:] + items[:k]


def median(xs):
    return statistics.median(xs) if xs else math.nan


def paired_ratio(num: list, den: list) -> float:
    """Median over rounds of num/den: each round's peers ran back to back."""
    rs = [a / b for a, b in zip(num, den) if b]
    return statistics.median(rs) if rs else math.nan


def load_peers(names) -> tuple[list, dict]:
    peers, missing = [], {}
    for n in names:
        try:
            peers.append(make_peer(n))
        except PeerUnavailable as e:
            missing[n] = str(e)
    return peers, missing


def versions() -> dict:
    from importlib import metadata

    out = {}
    for dist in ("scalargrad", "micrograd", "torch"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def source_state() -> dict:
    """Which scalargrad source is measured: its git commit, and a digest of its .py files
    (the tree may be edited while a run goes on; the digest is compared at the end)."""
    spec = importlib.util.find_spec("scalargrad")
    if spec is None or not spec.submodule_search_locations:
        return {}
    pkg = list(spec.submodule_search_locations)[0]
    h = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(pkg)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                with open(os.path.join(root, f), "rb") as fh:
                    h.update(f.encode() + fh.read())
    out = {"path": pkg, "digest": h.hexdigest()[:12]}
    try:
        git = ["git", "-C", os.path.dirname(pkg)]
        out["commit"] = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                       timeout=10).stdout.strip()
        dirty = subprocess.run(git + ["status", "--porcelain", "--", pkg], capture_output=True, text=True,
                               timeout=10).stdout.strip()
        out["dirty"] = bool(dirty)
    except (OSError, subprocess.SubprocessError):
        pass
    return out


# ---------------------------------------------------------------- timed workloads


def time_graph(wl, peers: list, repeat: int, log) -> dict:
    """Forward, backward and release of one graph, ``repeat`` interleaved rounds."""
    res = {p.name: {"fwd": [], "bwd": [], "free": [], "wall": [], "check": None} for p in peers}
    warm = type(wl)(max(30, wl.nodes // 20))
    for p in peers:
        x = warm.inputs(p)
        p.backward(warm.build(p, x))
    for rnd in range(repeat):
        for p in rotated(peers, rnd):
            x = wl.inputs(p)
            gc.collect()
            w0 = wall()
            t0 = clock()
            y = wl.build(p, x)
            t1 = clock()
            p.backward(y)
            t2 = clock()
            w2 = wall()
            if rnd == 0:
                res[p.name]["check"] = wl.check(p, x, y)
            gc.collect()
            t3 = clock()
            del y
            gc.collect()
            t4 = clock()
            gc.collect()
            t5 = clock()
            del x
            r = res[p.name]
            r["fwd"].append(t1 - t0)
            r["bwd"].append(t2 - t1)
            r["wall"].append(w2 - w0)
            # releasing the graph (refcounting, or the collector for micrograd's closure cycles),
            # less what a full collection of the rest of the heap costs anyway
            r["free"].append(max(0, (t4 - t3) - (t5 - t4)))
        log(f"  {wl.key} round {rnd + 1}/{repeat} done")
    return res


def time_demo(peers: list, points: int, steps: int, repeat: int, log) -> dict:
    """W3: micrograd's demo step (loss over the moons, zero_grad, backward, SGD, release)."""
    xs, ys = make_moons(points)
    layout = mlp_layout()
    res = {p.name: {"fwd": [], "bwd": [], "upd": [], "wall": [], "loss": []} for p in peers}
    for p in peers:  # warm-up on a few points
        model = p.mlp(layout)
        p.backward(svm_loss(p, model, xs[:5], ys[:5]))
    for rnd in range(repeat):
        for p in rotated(peers, rnd):
            model = p.mlp(layout)
            params = model.parameters()
            gc.collect()
            losses = []
            for k in range(steps):
                w0 = wall()
                t0 = clock()
                loss = svm_loss(p, model, xs, ys)
                t1 = clock()
                p.zero_grad(params)
                p.backward(loss)
                t2 = clock()
                p.sgd(params, 1.0 - 0.9 * k / 100)
                lv = p.value(loss)
                loss = None
                t3 = clock()
                w3 = wall()
                r = res[p.name]
                r["fwd"].append(t1 - t0)
                r["bwd"].append(t2 - t1)
                r["upd"].append(t3 - t2)
                r["wall"].append(w3 - w0)
                losses.append(lv)
            if rnd == 0:
                res[p.name]["loss"] = losses
            del model, params
        log(f"  W3 round {rnd + 1}/{repeat} done")
    return res


def time_demo_optim(peers: list, points: int, steps: int, repeat: int, log) -> dict:
    """W3OPT: micrograd's demo step with the engine's ``torch.optim.SGD`` (``opt.zero_grad()``,
    backward, the group's lr set, ``opt.step()``) beside the hand-written update, back to back
    in each round (their order alternating), for the peers that have ``torch.optim``."""
    xs, ys = make_moons(points)
    layout = mlp_layout()
    capable = [p for p in peers if p.sgd_optimizer(p.mlp(layout).parameters()) is not None]
    res = {(p.name, v): {"fwd": [], "bwd": [], "upd": [], "wall": [], "loss": []}
           for p in capable for v in ("hand", "optim")}
    for rnd in range(repeat):
        for p in rotated(capable, rnd):
            for variant in (("hand", "optim") if rnd % 2 == 0 else ("optim", "hand")):
                model = p.mlp(layout)
                params = model.parameters()
                opt = p.sgd_optimizer(params) if variant == "optim" else None
                gc.collect()
                losses = []
                r = res[(p.name, variant)]
                for k in range(steps):
                    lr = 1.0 - 0.9 * k / 100
                    w0 = wall()
                    t0 = clock()
                    loss = svm_loss(p, model, xs, ys)
                    t1 = clock()
                    if opt is None:
                        p.zero_grad(params)
                    else:
                        opt.zero_grad()
                    p.backward(loss)
                    t2 = clock()
                    if opt is None:
                        p.sgd(params, lr)
                    else:
                        for group in opt.param_groups:
                            group["lr"] = lr
                        opt.step()
                    lv = p.value(loss)
                    loss = None
                    t3 = clock()
                    w3 = wall()
                    r["fwd"].append(t1 - t0)
                    r["bwd"].append(t2 - t1)
                    r["upd"].append(t3 - t2)
                    r["wall"].append(w3 - w0)
                    losses.append(lv)
                if rnd == 0:
                    r["loss"] = losses
                del model, params, opt
        log(f"  W3OPT round {rnd + 1}/{repeat} done")
    return res


# ---------------------------------------------------------------- child processes


def child_memory(peer_name: str, nodes: int) -> dict:
    """W1's graph: bytes per node held after forward and at the fwd+bwd peak."""
    peer = make_peer(peer_name)
    if isinstance(peer, MicrogradPeer):
        peer.recursion_limit = nodes + 1000
    wl = Chain(nodes)
    warm = Chain(200)
    peer.backward(warm.build(peer, warm.inputs(peer)))
    gc.collect()
    out = {"peer": peer_name, "nodes": nodes}
    # pass 1, resident memory (what torch's C++ graph shows up in)
    x = wl.inputs(peer)
    gc.collect()
    r0 = rss_bytes()
    reset_peak_rss()
    y = wl.build(peer, x)
    r1 = rss_bytes()
    peer.backward(y)
    r2 = rss_bytes()
    out["rss_fwd"] = (r1 - r0) / nodes
    out["rss_bwd"] = (r2 - r0) / nodes
    out["rss_peak"] = (peak_rss_bytes() - r0) / nodes
    del x, y
    gc.collect()
    # pass 2, tracemalloc: the Python allocations (all of them for the pure-Python peers)
    tracemalloc.start()
    x = wl.inputs(peer)
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    y = wl.build(peer, x)
    held = tracemalloc.get_traced_memory()[0] - base
    out["tm_fwd"] = held / nodes
    if isinstance(peer, MicrogradPeer):
        # tracemalloc turns micrograd's node-deep recursion quadratic (minutes at 50,000 nodes):
        # its backward peak is left to the RSS column
        tracemalloc.stop()
        out["tm_peak"] = None
        return out
    peer.backward(y)
    cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out["tm_bwd"] = (cur - base) / nodes
    out["tm_peak"] = (peak - base) / nodes
    return out


def _probe(peer, n: int, measure: bool = False) -> dict:
    wl = Chain(n)
    x = wl.inputs(peer)
    gc.collect()
    r0 = rss_bytes()
    reset_peak_rss()
    t0 = clock()
    try:
        y = wl.build(peer, x)
        t1 = clock()
        r1 = rss_bytes()
        peer.backward(y)
        t2 = clock()
    except (RecursionError, MemoryError) as e:
        return {"n": n, "ok": False, "error": type(e).__name__}
    out = {"n": n, "ok": True}
    if measure:
        chk = wl.check(peer, x, y)
        out.update(fwd_s=(t1 - t0) / 1e9, bwd_s=(t2 - t1) / 1e9, rss_fwd=(r1 - r0) / n,
                   peak_rss=peak_rss_bytes() - r0,
                   grad=chk["grad"], want=chk["want"], grad_ok=chk["ok"])
        t3 = clock()
        del y
        gc.collect()
        out["free_s"] = (clock() - t3) / 1e9
    return out


def child_depth(peer_name: str, cap: int) -> dict:
    """The deepest W1 chain (in nodes, up to ``cap``) whose backward works, as shipped."""
    peer = make_peer(peer_name)
    tried = []
    if peer.any_depth:
        r = _probe(peer, cap, measure=True)
        tried.append(r)
        if r["ok"]:
            return {"peer": peer_name, "deepest": cap, "capped": True, "at_cap": r, "probes": len(tried)}
        lo, hi = 0, cap
    else:
        lo, hi, n = 0, None, 250
        while n < cap:
            r = _probe(peer, n)
            tried.append(r)
            if not r["ok"]:
                hi = n
                break
            lo, n = n, n * 2
        if hi is None:
            r = _probe(peer, cap, measure=True)
            tried.append(r)
            if r["ok"]:
                return {"peer": peer_name, "deepest": cap, "capped": True, "at_cap": r, "probes": len(tried)}
            hi = cap
    error = tried[-1].get("error")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        r = _probe(peer, mid)
        tried.append(r)
        if r["ok"]:
            lo = mid
        else:
            hi, error = mid, r["error"]
    return {"peer": peer_name, "deepest": lo, "capped": False, "first_failure": hi, "error": error,
            "recursion_limit": sys.getrecursionlimit(), "probes": len(tried)}


def run_child(kind: str, peer_name: str, n: int, timeout: float) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--child-peer", peer_name, "--child-n", str(n)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"peer": peer_name, "failed": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"peer": peer_name, "failed": f"exit {proc.returncode}: {tail}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- profile


def profile(names: list, workloads: list, sizes: dict, top: int = 15) -> None:
    peers, missing = load_peers([n for n in names if n.startswith("scalargrad")])
    for p in peers:
        for key in workloads:
            if key not in GRAPH_WORKLOADS:
                continue
            wl = GRAPH_WORKLOADS[key](sizes[key])
            x = wl.inputs(p)
            gc.collect()
            prof = cProfile.Profile()
            prof.enable()
            y = wl.build(p, x)
            p.backward(y)
            prof.disable()
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("tottime").print_stats(top)
            lines = [ln for ln in buf.getvalue().splitlines() if ln.strip()]
            print(f"\n=== cProfile {p.name} {wl.title} ({wl.nodes:,} nodes, fwd+bwd), top {top} by tottime")
            start = next(i for i, ln in enumerate(lines) if "function calls" in ln)
            print("\n".join(lines[start:]))
            del x, y


# ---------------------------------------------------------------- report


def fmt(x, digits: int = 0) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:,.{digits}f}"


def summarize_graph(wl, res: dict) -> list:
    rows = []
    ref = res.get(REF)
    mic = res.get(MICRO)
    tot = {name: [f + b for f, b in zip(r["fwd"], r["bwd"])] for name, r in res.items()}
    for name, r in res.items():
        n = wl.nodes
        chk = r["check"] or {}
        rows.append({
            "workload": wl.key, "title": wl.title, "peer": name, "unit": "ns/node", "nodes": n,
            "total": median(tot[name]) / n, "fwd": median(r["fwd"]) / n, "bwd": median(r["bwd"]) / n,
            "free": median(r["free"]) / n,
            "x_ref": paired_ratio(tot[name], tot[REF]) if ref else math.nan,
            "x_micro": paired_ratio(tot[name], tot[MICRO]) if mic else math.nan,
            "ok": chk.get("ok"), "grad": chk.get("grad"),
        })
    return rows


def summarize_demo(res: dict, ops: int) -> list:
    rows = []
    tot = {name: [f + b + u for f, b, u in zip(r["fwd"], r["bwd"], r["upd"])] for name, r in res.items()}
    for name, r in res.items():
        rows.append({
            "workload": "W3", "title": "W3 demo", "peer": name, "unit": "ms/step", "nodes": ops,
            "total": median(tot[name]) / 1e6, "fwd": median(r["fwd"]) / 1e6, "bwd": median(r["bwd"]) / 1e6,
            "upd": median(r["upd"]) / 1e6, "ns_op": median(tot[name]) / ops,
            "x_ref": paired_ratio(tot[name], tot[REF]) if REF in tot else math.nan,
            "x_micro": paired_ratio(tot[name], tot[MICRO]) if MICRO in tot else math.nan,
            "loss": r["loss"],
        })
    return rows


def summarize_demo_optim(res: dict) -> list:
    rows = []
    tot = {key: [f + b + u for f, b, u in zip(r["fwd"], r["bwd"], r["upd"])] for key, r in res.items()}
    for (name, variant), r in res.items():
        hand = tot[(name, "hand")]
        rows.append({
            "workload": "W3OPT", "title": "W3 optim", "peer": name, "variant": variant, "unit": "ms/step optim",
            "total": median(tot[(name, variant)]) / 1e6, "fwd": median(r["fwd"]) / 1e6,
            "bwd": median(r["bwd"]) / 1e6, "upd": median(r["upd"]) / 1e6,
            "x_hand": paired_ratio(tot[(name, variant)], hand),
            "upd_share": median([u / t for u, t in zip(r["upd"], hand)]), "loss": r["loss"],
        })
    return rows


def print_tables(rows: list, memory: list, depth: list, micro_limited: bool) -> None:
    graph = [r for r in rows if r["unit"] == "ns/node"]
    demo = [r for r in rows if r["unit"] == "ms/step"]
    demo_optim = [r for r in rows if r["unit"] == "ms/step optim"]
    mark = "*" if micro_limited else ""

    def peer_label(name):
        return name + mark if name == MICRO else name

    if graph:
        print("\nGraph workloads: median CPU ns per node (fwd+bwd = forward + backward; free = dropping the graph and")
        print("collecting it, less a bare gc.collect()); x sg-f64 / x micrograd = median over rounds of this peer's")
        print("fwd+bwd time divided by that peer's in the same round (>1 = slower).")
        hdr = (f"{'workload':<10} {'peer':<15} {'nodes':>9} {'fwd+bwd':>9} {'fwd':>8} {'bwd':>8} {'free':>7} "
               f"{'x sg-f64':>9} {'x micrograd':>11}  grad ok")
        print(hdr)
        print("-" * len(hdr))
        for r in graph:
            print(f"{r['title']:<10} {peer_label(r['peer']):<15} {r['nodes']:>9,} {fmt(r['total']):>9} "
                  f"{fmt(r['fwd']):>8} {fmt(r['bwd']):>8} {fmt(r['free']):>7} {fmt(r['x_ref'], 2):>9} "
                  f"{fmt(r['x_micro'], 2):>11}  {r['ok']}")
    if demo:
        print(f"\nW3, micrograd's demo (MLP 2-16-16-1, {demo[0]['nodes']:,} ops a step in scalargrad/torch): "
              "median CPU ms per training step")
        hdr = (f"{'workload':<10} {'peer':<15} {'ms/step':>9} {'fwd':>8} {'bwd':>8} {'upd':>6} {'ns/op':>7} "
               f"{'x sg-f64':>9} {'x micrograd':>11}  loss after each step")
        print("(fwd = the loss over all points; bwd = zero_grad + backward; upd = SGD update + dropping the graph;")
        print(" ns/op = ms/step over the op count; peers compute the same losses: float64 and float32 groups agree)")
        print(hdr)
        print("-" * len(hdr))
        for r in demo:
            losses = ", ".join(f"{v:.10f}" for v in r["loss"])
            print(f"{r['title']:<10} {peer_label(r['peer']):<15} {fmt(r['total'], 1):>9} {fmt(r['fwd'], 1):>8} "
                  f"{fmt(r['bwd'], 1):>8} {fmt(r['upd'], 2):>6} {fmt(r['ns_op']):>7} {fmt(r['x_ref'], 2):>9} "
                  f"{fmt(r['x_micro'], 2):>11}  {losses}")
    if demo_optim:
        print("\nW3OPT, micrograd's demo with torch.optim.SGD: median CPU ms per training step, the hand-written")
        print("update (hand: p -= lr * p.grad under no_grad, grads set to None) and the optimizer (optim:")
        print("opt.zero_grad(), backward, opt.step()) back to back in each round; x hand = median over rounds of")
        print("this variant's step time / the hand-written step's in the same round; upd % = update time / the")
        print("hand-written step time)")
        hdr = (f"{'workload':<10} {'peer':<15} {'variant':<8} {'ms/step':>9} {'fwd':>8} {'bwd':>8} {'upd':>6} "
               f"{'upd %':>6} {'x hand':>7}  loss after each step")
        print(hdr)
        print("-" * len(hdr))
        for r in demo_optim:
            losses = ", ".join(f"{v:.10f}" for v in r["loss"])
            print(f"{r['title']:<10} {r['peer']:<15} {r['variant']:<8} {fmt(r['total'], 1):>9} {fmt(r['fwd'], 1):>8} "
                  f"{fmt(r['bwd'], 1):>8} {fmt(r['upd'], 2):>6} {fmt(100 * r['upd_share'], 2):>6} "
                  f"{fmt(r['x_hand'], 3):>7}  {losses}")
    if memory:
        n = next((m["nodes"] for m in memory if "nodes" in m), 0)
        print(f"\nMemory, W1 chain of {n:,} nodes, bytes per node, one child process per peer")
        print("(tracemalloc: Python allocations; RSS: resident memory growth, the only view of torch's C++ graph;")
        print(" held = graph alive after forward, peak = highest point during forward + backward)")
        hdr = (f"{'peer':<15} {'tracemalloc held':>17} {'tracemalloc peak':>17} {'RSS held':>9} "
               f"{'RSS after bwd':>14} {'RSS peak':>9}")
        print(hdr)
        print("-" * len(hdr))
        for m in memory:
            if "failed" in m:
                print(f"{m['peer']:<15} failed: {m['failed']}")
                continue
            tm_fwd, tm_peak = fmt(m["tm_fwd"]), fmt(m["tm_peak"])
            if m["peer"] == "torch":  # its graph lives in C++, outside tracemalloc's view
                tm_fwd = tm_peak = "(C++)"
            print(f"{peer_label(m['peer']):<15} {tm_fwd:>17} {tm_peak:>17} "
                  f"{fmt(m['rss_fwd']):>9} {fmt(m['rss_bwd']):>14} {fmt(m['rss_peak']):>9}")
    if depth:
        print("\nDeepest W1 chain whose backward works, as shipped (default recursion limit), one child per peer")
        print("(CPU seconds for forward, backward and dropping the graph at the cap; RSS held after forward)")
        hdr = (f"{'peer':<15} {'deepest':>11}  {'fwd s':>6} {'bwd s':>6} {'free s':>6} {'RSS B/node':>10} "
               f"{'peak RSS MB':>11}  result")
        print(hdr)
        print("-" * len(hdr))
        for d in depth:
            if "failed" in d:
                print(f"{d['peer']:<15} failed: {d['failed']}")
                continue
            if d["capped"]:
                a = d["at_cap"]
                note = f"cap reached, grad {a['grad']:.6g} (expected {a['want']:.6g}) ok={a['grad_ok']}"
                print(f"{d['peer']:<15} {'>= ' + format(d['deepest'], ','):>11}  {a['fwd_s']:>6.1f} "
                      f"{a['bwd_s']:>6.1f} {a['free_s']:>6.1f} {fmt(a['rss_fwd']):>10} "
                      f"{fmt(a['peak_rss'] / 2**20):>11}  {note}")
            else:
                note = (f"{d['error']} at {d['first_failure']:,} nodes "
                        f"(recursion limit {d['recursion_limit']}; {d['probes']} probes)")
                print(f"{d['peer']:<15} {d['deepest']:>11,}  {'-':>6} {'-':>6} {'-':>6} {'-':>10} {'-':>11}  {note}")
    if micro_limited:
        print("\n* micrograd's backward recurses once per node of depth: for W1/W2/W4 and the memory run it is given")
        print("  sys.setrecursionlimit(depth + 1000) around backward; as shipped it raises RecursionError (see depth).")
    if any(m.get("peer") == MICRO and m.get("tm_peak", 0) is None for m in memory):
        print("  micrograd's tracemalloc peak is not measured: tracemalloc makes its recursive backward quadratic.")
    print("\nReference, not a peer: " + LEAN_QUOTE + ".")


# ---------------------------------------------------------------- main


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, a smoke run under 30 s")
    ap.add_argument("--workload", help=f"comma-separated subset of {','.join(ALL_WORKLOADS)} "
                    "(default: all; with --profile: W1,W4)")
    ap.add_argument("--peers", default=",".join(ALL_PEERS), help=f"comma-separated subset of {','.join(ALL_PEERS)}")
    ap.add_argument("--repeat", type=int, help="interleaved rounds per workload (default 5, quick 2)")
    ap.add_argument("--json", metavar="OUT", help="also write every sample and summary to this JSON file")
    ap.add_argument("--no-gc", action="store_true",
                    help="diagnostic: turn the cyclic collector off (explicit collections between runs still happen)")
    ap.add_argument("--profile", action="store_true",
                    help="instead of timing, cProfile scalargrad on the chosen graph workloads (top 15 by tottime)")
    ap.add_argument("--child", choices=("memory", "depth"), help=argparse.SUPPRESS)
    ap.add_argument("--child-peer", help=argparse.SUPPRESS)
    ap.add_argument("--child-n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        fn = child_memory if args.child == "memory" else child_depth
        print(json.dumps(fn(args.child_peer, args.child_n)))
        return 0

    sizes = dict(SIZES["quick" if args.quick else "full"])
    repeat = args.repeat or sizes["repeat"]
    default = "W1,W4" if args.profile else ",".join(ALL_WORKLOADS)
    chosen = [w.strip().upper() for w in (args.workload or default).split(",") if w.strip()]
    bad = [w for w in chosen if w not in ALL_WORKLOADS]
    if bad:
        ap.error(f"unknown workload(s) {', '.join(bad)}; choose from {', '.join(ALL_WORKLOADS)}")
    names = [n.strip() for n in args.peers.split(",") if n.strip()]
    for n in names:
        if n not in ALL_PEERS:
            ap.error(f"unknown peer {n!r}; choose from {', '.join(ALL_PEERS)}")

    if args.profile:
        profile(names, [w for w in chosen if w in GRAPH_WORKLOADS], sizes)
        return 0

    started = time.time()
    if args.no_gc:
        gc.disable()
    else:
        gc.enable()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    peers, missing = load_peers(names)
    env = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "python": sys.version.split()[0], "implementation": platform.python_implementation(),
        "platform": platform.platform(), "cpus": os.cpu_count(), "versions": versions(),
        "gc_enabled": gc.isenabled(), "gc_threshold": gc.get_threshold(), "loadavg_start": os.getloadavg(),
        "mode": "quick" if args.quick else "full", "repeat": repeat, "sizes": sizes,
    }
    print(f"bench_engine {env['mode']} run, {env['date']}, Python {env['python']} on {env['platform']}, "
          f"{env['cpus']} CPUs, load average {' '.join(f'{x:.2f}' for x in env['loadavg_start'])}")
    v = env["versions"]
    print(f"peers: {', '.join(p.name for p in peers)} (scalargrad {v['scalargrad'] or 'source tree'}, "
          f"micrograd {v['micrograd']}, torch {v['torch']} with 1 thread); "
          f"{'gc OFF (diagnostic)' if args.no_gc else 'gc on'}, thresholds {gc.get_threshold()}; "
          f"{repeat} rounds")
    src = env["scalargrad_source"] = source_state()
    if src:
        dirty = " + uncommitted changes" if src.get("dirty") else ""
        print(f"scalargrad source: commit {src.get('commit', '?')}{dirty}, digest {src['digest']}")
    for n, why in missing.items():
        print(f"peer {n} skipped: not installed ({why}); pip install -e \".[bench]\"")

    micro = next((p for p in peers if isinstance(p, MicrogradPeer)), None)
    rows, raw = [], {}
    for key in ("W1", "W2", "W4"):
        if key in chosen:
            wl = GRAPH_WORKLOADS[key](sizes[key])
            if micro is not None:
                micro.recursion_limit = wl.nodes + 1000
            log(f"{wl.title}: {wl.nodes:,} nodes")
            res = time_graph(wl, peers, repeat, log)
            raw[key] = res
            rows += summarize_graph(wl, res)
    if micro is not None:
        micro.recursion_limit = None
    if "W3" in chosen:
        log(f"W3 demo: {sizes['W3_points']} points, {sizes['W3_steps']} steps a round")
        res = time_demo(peers, sizes["W3_points"], sizes["W3_steps"], repeat, log)
        raw["W3"] = res
        rows += summarize_demo(res, ops_per_step(mlp_layout(), sizes["W3_points"]))
    if "W3OPT" in chosen:
        log(f"W3OPT demo with torch.optim.SGD: {sizes['W3_points']} points, {sizes['W3_steps']} steps a round")
        res = time_demo_optim(peers, sizes["W3_points"], sizes["W3_steps"], repeat, log)
        raw["W3OPT"] = {f"{name} {variant}": r for (name, variant), r in res.items()}
        rows += summarize_demo_optim(res)

    memory, depth = [], []
    if "MEM" in chosen:
        for p in peers:
            log(f"memory: {p.name}")
            memory.append(run_child("memory", p.name, sizes["MEM"], timeout=600))
    if "DEPTH" in chosen:
        for p in peers:
            log(f"depth: {p.name}")
            depth.append(run_child("depth", p.name, sizes["DEPTH"], timeout=900))

    env["loadavg_end"] = os.getloadavg()
    env["seconds"] = round(time.time() - started, 1)
    print_tables(rows, memory, depth, micro is not None and any(k in chosen for k in ("W1", "W2", "W4", "MEM")))
    if src and source_state().get("digest") != src["digest"]:
        print("\nWARNING: scalargrad's source changed during this run; the child processes (memory, depth) "
              "may have measured a different version than the timed workloads")
    print(f"\nran {env['seconds']} s; load average at the end {' '.join(f'{x:.2f}' for x in env['loadavg_end'])}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"env": env, "summary": rows, "samples_ns": raw, "memory": memory, "depth": depth,
                       "missing": missing}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
