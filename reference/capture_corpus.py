#!/usr/bin/env python3
"""(Re)generate PyTorch's captured output for the corpus of real-program patterns.

The corpus (``reference/corpus/programs/``) holds small programs written in the patterns
PyTorch's tutorials, docs, blog posts and forum answers use; they ``import torch`` as those
sources do (``scalargrad run`` resolves ``torch`` to scalargrad).  Each has an entry in
``reference/corpus/programs/examples.json`` (the catalogue format of ``scalargrad verify``,
so ``scalargrad verify --corpus`` runs them).

For every program this runs it under real PyTorch four times with ``run_with_torch.run``:

* on this machine's best CPU kernels (``ATEN_CPU_CAPABILITY`` unset: AVX512 here), then
* with ``ATEN_CPU_CAPABILITY=default`` (ATen's scalar, non-vectorised kernels),
  ``ATEN_CPU_CAPABILITY=avx2``, and ``default`` with ``MKL_CBWR=COMPATIBLE``,

and writes ``torch_output`` / ``torch_stderr`` from the first run.  If another run prints
something else, the program's output depends on the processor (the last bits of a
vectorised transcendental or of an MKL product reached the printed digits): the entry gets
``machine_dependent: true`` and each other output in ``torch_other_cpu`` (a list of
``{"environment", "stdout", "stderr"}``); a comparison accepts any of them.  Otherwise
``machine_dependent`` is false.  The last run sets ``MKL_CBWR=COMPATIBLE`` (MKL's
processor-independent code path) since ``ATEN_CPU_CAPABILITY`` does not switch MKL's own
dispatch.  This is as far as one machine can play other processors: an AMD processor's
libm or MKL last bits are not seen here.

Hand-written fields (``title``, ``source``, ``needs``, ``notes``) are kept; a program new
to the directory gets an entry whose ``title`` and ``source`` come from its first line
(``# source: <kind of source>: <pattern>``).

Usage::

    python3 reference/capture_corpus.py            # rewrite the captured fields
    python3 reference/capture_corpus.py --check    # re-run, report drift, write nothing
    python3 reference/capture_corpus.py 015 023    # only programs whose name starts so

Exit status: 0 if everything was captured (with --check: nothing drifted), 1 otherwise.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run_with_torch  # noqa: E402

CORPUS = os.path.join(HERE, "corpus", "programs")
KEY_ORDER = [
    "id", "program", "title", "source", "status", "machine_dependent", "torch_output",
    "torch_stderr", "torch_other_cpu", "torch_output_python", "needs", "notes",
]
CAPTURED = ("machine_dependent", "torch_output", "torch_stderr", "torch_other_cpu", "torch_output_python")
# other processors, as far as one machine can play them: ATen's scalar kernels, its AVX2
# kernels (on an AVX512 machine), and MKL's processor-independent code path (MKL_CBWR)
OTHER_CPUS = (
    {"ATEN_CPU_CAPABILITY": "default"},
    {"ATEN_CPU_CAPABILITY": "avx2"},
    {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"},
)
EXPECTED_TORCH = "2.13"


def ordered(entry):
    out = {k: entry[k] for k in KEY_ORDER if k in entry}
    out.update((k, v) for k, v in entry.items() if k not in out)
    return out


def source_line(program):
    """(title, source) from the program's first line ``# source: Kind: pattern``."""
    with open(program, encoding="utf-8") as f:
        first = f.readline().strip()
    if not first.startswith("# source:"):
        raise SystemExit("%s: the first line must be '# source: <kind>: <pattern>'" % program)
    source = first[len("# source:"):].strip()
    title = source.split(": ", 1)[-1]
    return title, source


def capture(program):
    """The captured fields of one program (see the module docstring)."""
    saved = {k: os.environ.pop(k) for k in ("ATEN_CPU_CAPABILITY", "MKL_CBWR") if k in os.environ}
    try:
        out, err, _ = run_with_torch.run(program)
        others = _others(program, (out, err))
        # what a newer Python prints (its own reprs changed: ../README.md), on every kernel set
        variants = run_with_torch.python_variants(program, (out, err))
        for v in variants:
            python = tuple(int(x) for x in v["python"].split("."))
            v_others = _others(program, (v["torch_output"], v["torch_stderr"]), python)
            if v_others:
                v["torch_other_cpu"] = v_others
    finally:
        os.environ.update(saved)
    fields = {"machine_dependent": bool(others), "torch_output": out, "torch_stderr": err}
    if others:
        fields["torch_other_cpu"] = others
    if variants:
        fields["torch_output_python"] = variants
    return fields


def _others(program, base, python=None):
    others = []
    for env in OTHER_CPUS:
        o, e, _ = run_with_torch.run(program, extra_env=env, python=python)
        if (o, e) != tuple(base) and not any((x["stdout"], x["stderr"]) == (o, e) for x in others):
            label = " ".join("%s=%s" % kv for kv in env.items())
            others.append({"environment": label, "stdout": o, "stderr": e})
    return others


def main(argv):
    check = "--check" in argv
    selected = [a for a in argv[1:] if not a.startswith("--")]
    if sys.version_info >= (3, 12):
        print("the base capture is what Python 3.10 and 3.11 print: run this under one of them",
              file=sys.stderr)
        return 1
    import torch
    if not torch.__version__.startswith(EXPECTED_TORCH):
        print("warning: torch %s, the corpus is for %s" % (torch.__version__, EXPECTED_TORCH),
              file=sys.stderr)
    json_path = os.path.join(CORPUS, "examples.json")
    entries = []
    if os.path.exists(json_path):
        with open(json_path, encoding="utf-8") as f:
            entries = json.load(f)
    by_program = {e["program"]: e for e in entries}
    programs = sorted(p for p in os.listdir(CORPUS) if p.endswith(".py"))
    problems = 0
    for gone in sorted(set(by_program) - set(programs)):
        print("%s: listed but missing; dropped" % gone)
        problems += check
    result = []
    for prog in programs:
        path = os.path.join(CORPUS, prog)
        entry = by_program.get(prog)
        if entry is None:
            title, source = source_line(path)
            entry = {"id": prog[:-3], "program": prog, "title": title, "source": source,
                     "status": "corpus", "needs": [], "notes": ""}
            if check:
                print("%s: not in examples.json" % prog)
                problems += 1
        result.append(entry)
        if selected and not any(prog.startswith(s) for s in selected):
            continue
        fields = capture(path)
        if check:
            for k in CAPTURED:
                if entry.get(k) != fields.get(k):
                    print("%s: %s drifted" % (prog, k))
                    problems += 1
        else:
            for k in CAPTURED:
                entry.pop(k, None)
            entry.update(fields)
        last = (fields["torch_stderr"].strip().splitlines() or [""])[-1]
        print("%-45s %-18s %s" % (prog, "MACHINE-DEPENDENT" if fields["machine_dependent"] else "",
                                  last[:70]))
    if not check:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump([ordered(e) for e in result], f, ensure_ascii=False, indent=2)
            f.write("\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
