#!/usr/bin/env python3
"""(Re)generate the PyTorch-captured fields of the reference catalogue.

For every ``reference/<docstem>/examples.json`` this runs each entry's
``program`` under real PyTorch with ``run_with_torch.run`` and writes the
normalised results into the entry's ``torch_output`` (stdout) and
``torch_stderr`` (warnings and the exception's last line) fields.  All other
fields (document_output, status, differences, needs, ...) are hand-written
and are kept exactly as they are.

Usage::

    python3 reference/capture.py            # rewrite the torch_* fields
    python3 reference/capture.py --check    # re-run, report drift, write nothing
    python3 reference/capture.py 003_abae214ff6de8937   # only these documents

Under Python 3.10 or 3.11 (PyTorch 2.13's wheel is for 3.11). Each program runs once more
with Python's own reprs printing as Python 3.12's (``python_reprs.py``: OrderedDict); where that
changes the output, the entry's ``torch_output_python`` holds it, labelled with how it was
captured.

Exit status: 0 if everything was captured (or, with --check, nothing
drifted), 1 otherwise.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run_with_torch  # noqa: E402

KEY_ORDER = [
    "id", "program", "title", "variant_of", "document_lines",
    "document_output", "document_claim", "torch_output", "torch_stderr",
    "torch_output_python", "status", "differences", "needs", "notes",
]
STATUSES = {"reproduced", "named_difference", "document_error"}
EXPECTED_TORCH = "2.13"


def ordered(entry):
    out = {k: entry[k] for k in KEY_ORDER if k in entry}
    for k, v in entry.items():
        if k not in out:
            out[k] = v
    return out


def doc_dirs(selected):
    for name in sorted(os.listdir(HERE)):
        path = os.path.join(HERE, name)
        if not os.path.isfile(os.path.join(path, "examples.json")):
            continue
        if selected and name not in selected:
            continue
        yield name, path


def main(argv):
    check = "--check" in argv
    selected = [a for a in argv[1:] if not a.startswith("--")]
    if sys.version_info >= (3, 12):
        print("the base capture is what Python 3.10 and 3.11 print: run this under one of them",
              file=sys.stderr)
        return 1
    import torch
    if not torch.__version__.startswith(EXPECTED_TORCH):
        print("warning: torch %s, the catalogue is for %s"
              % (torch.__version__, EXPECTED_TORCH), file=sys.stderr)
    problems = 0
    for name, path in doc_dirs(selected):
        json_path = os.path.join(path, "examples.json")
        with open(json_path, encoding="utf-8") as f:
            entries = json.load(f)
        listed = set()
        for entry in entries:
            program = os.path.join(path, entry["program"])
            listed.add(entry["program"])
            if entry.get("status") not in STATUSES:
                print("%s/%s: bad status %r" % (name, entry["id"], entry.get("status")))
                problems += 1
            if not os.path.isfile(program):
                print("%s/%s: missing program %s" % (name, entry["id"], entry["program"]))
                problems += 1
                continue
            out, err, ok = run_with_torch.run(program)
            # what a newer Python prints (its own reprs changed): README.md
            variants = run_with_torch.python_variants(program, (out, err))
            if check:
                for field, new in (("torch_output", out), ("torch_stderr", err),
                                   ("torch_output_python", variants)):
                    if entry.get(field, []) != new:
                        print("%s/%s: %s drifted" % (name, entry["id"], field))
                        problems += 1
            else:
                entry["torch_output"] = out
                entry["torch_stderr"] = err
                entry.pop("torch_output_python", None)
                if variants:
                    entry["torch_output_python"] = variants
            print("%-22s %-45s %-16s %s" % (
                name, entry["program"], entry.get("status"),
                "ran" if ok else "raised: " + (err.strip().splitlines() or ["?"])[-1][:60]))
        for prog in sorted(os.listdir(path)):
            if prog.endswith(".py") and prog not in listed:
                print("%s: program %s is not in examples.json" % (name, prog))
                problems += 1
        if not check:
            with open(json_path, "w", encoding="utf-8") as f:
                json.dump([ordered(e) for e in entries], f, ensure_ascii=False, indent=2)
                f.write("\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
