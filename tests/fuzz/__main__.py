"""``python -m tests.fuzz --seed S --programs N [--kind K] [--shapes] [--time-budget S] [--report out.json]``."""

from __future__ import annotations

import argparse
import json
import sys

from .campaign import GENERATORS, Campaign


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=(
        "Differential fuzzer: generated programs run on scalargrad and on PyTorch, outcomes compared "
        "(issue 14). Needs PyTorch installed."))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--kind", choices=list(GENERATORS) + ["mixed"], default="mixed",
                    help="one family of programs, or issue 14's fixed mix (graphs 72%%, errors 18%%, modules 8%%, "
                         "threads 2%%)")
    ap.add_argument("--shapes", action="store_true", help="graphs also over shapes (2,), (2, 3), (1,)")
    ap.add_argument("--time-budget", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--report", help="write the figures and the cause groups as JSON")
    ap.add_argument("--shrink", type=int, default=0, help="shrink the first program of the N most severe groups")
    ap.add_argument("--groups", type=int, default=25, help="print this many cause groups")
    ap.add_argument("--triage", metavar="FILE.md", help="write the cause sections of a triage (use with --shrink)")
    ap.add_argument("--dump", help="write every disagreeing program and its divergences as JSON lines")
    ap.add_argument("--repro", metavar="KIND:SEED:INDEX", help="print one program as Python and its verdict")
    ap.add_argument("--mutate", metavar="NAME", help="make one of scalargrad's derivatives 0.1%% wrong in this process "
                    "(tests/fuzz/mutations.py; 'all': each in turn, and the mutation score) and show how the judge "
                    "takes the programs it changes (with --kind: those programs, else the mutation's family)")
    ap.add_argument("--strict", action="store_true", help="no kernel rule: every value bit for bit")
    args = ap.parse_args(argv)
    kind = None if args.kind == "mixed" else args.kind
    if args.repro:
        return _repro(args.repro, args.shapes)
    if args.mutate:
        from .mutations import MUTATIONS, judge

        names = list(MUTATIONS) if args.mutate == "all" else [args.mutate]
        caught = 0
        for name in names:
            r = judge(name, args.seed, args.programs, kind)
            if len(names) == 1:
                print(r["stats"].summary())
            caught += r["caught"]
            print(f"mutation {name} ({r['kind']}): {r['changed']} programs changed by it, {r['failed']} judged a "
                  f"divergence ({r['defects']} a defect), {len(r['accepted'])} judged to agree "
                  f"{r['accepted'][:10]}: {'caught' if r['caught'] else 'NOT CAUGHT'}", flush=True)
        print(f"mutation score: {caught} of {len(names)} caught")
        return 0
    dump = open(args.dump, "w") if args.dump else None
    campaign = Campaign(args.seed, kind, args.shapes, dump=dump, rule=not args.strict)
    stats = campaign.run(args.programs, args.time_budget, progress=max(1000, args.programs // 20))
    if dump:
        dump.close()
    report = campaign.report(shrink_limit=args.shrink)
    print(stats.summary())
    for g in report["groups"][: args.groups]:
        print(f"\n[{g['severity']}] {g['cause']}: {g['count']} programs, worst {g['worst']}  e.g. {g['programs'][0]}")
        if g["title"]:
            print(f"    {g['title']}\n    where: {g['where']}  ({g['issue']})")
        for sig, n in g["signatures"][:3]:
            print(f"    x{n} {' | '.join(str(x) for x in sig)[:300]}")
        if g["repro"]:
            print("    repro:\n" + "\n".join("      " + line for line in g["repro"].splitlines()))
            print(f"    -> {g['repro_detail'][:500]}")
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    if args.triage:
        from .triage import markdown

        with open(args.triage, "w") as f:
            f.write(markdown(report))
    return 0


def _repro(ident: str, shapes: bool) -> int:
    from .campaign import program_for, run_pair
    from .interpreter import load_library

    kind, seed, index = ident.split(":")
    program = program_for(int(seed), int(index), kind, shapes)
    print(program.source())
    from .campaign import causes_of

    verdict, s, _ = run_pair(program, load_library("scalargrad"), load_library("torch"))
    print(f"# case: {verdict.case}, class: {verdict.cls}, program: {verdict.category}")
    if verdict.kernels:
        print("# kernel rule: PyTorch re-run with scalargrad's bits at " + ", ".join(
            f"{c.kernel} ({c.dtype}, {c.elements} elements{'' if c.sg_ok else ', scalargrad fails the check'})"
            for c in verdict.kernels))
    for key, _, d in causes_of(program, verdict, s):
        print(f"# {d.cls} at step {d.step} [{key}]: {d.detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
