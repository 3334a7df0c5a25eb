"""Measure ``scalargrad verify PATH`` on the real documents of ``manifest.json``, with errors
planted in their stored outputs. Nothing here holds the documents' text: it reads the files
``collect.py`` copied out of the mirrors and writes everything under ``--work``.

    python tests/heldout/measure.py oracle [--set frozen]   # run each document on PyTorch 2.13
    python tests/heldout/measure.py plant [--set frozen]    # copies with errors planted
    python tests/heldout/measure.py judge --code DIR --name NAME [--set frozen]
    python tests/heldout/measure.py report --name NAME [--set frozen]

``oracle`` runs each document on PyTorch itself (``verify``'s runner with ``torch`` not
aliased, one fresh interpreter each): a cell whose stored output PyTorch 2.13 reproduces is a
*right* cell. ``plant`` writes copies of the documents in which right cells' stored outputs
are changed: a wrong digit, a wrong node name, a dropped line, two lines swapped, a wrong
error message, a wrong number in a cell that comes after an unseeded draw but does not
depend on it (each copy changes several cells, each in one way; a cell's verdict does not
depend on another cell's stored output). ``judge`` runs ``verify --json`` from the code tree
``DIR`` (any checkout of scalargrad: before and after a change) on the documents and the
copies; ``report`` counts: cells by status, right cells reproduced, and planted errors
caught: the planted cell (the cell whose stored output holds the planted text) is
``differs`` or ``error`` in the copy, was neither in the document, and the copy exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import collect  # noqa: E402 - beside this file

_NODE = re.compile(r"\b([A-Z][A-Za-z0-9]*?)Backward(\d*)\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+")
_SWAPS = {"Mul": "Add", "Add": "Mul", "Sum": "Mean", "Mean": "Sum", "Pow": "Exp", "Log": "Exp", "Exp": "Log",
          "Addmm": "Mm", "Mm": "Addmm", "Div": "Mul", "Sub": "Add", "Sigmoid": "Tanh", "Tanh": "Sigmoid"}


def _files(which: str, work: str) -> list[str]:
    return [collect.local_path(os.path.join(work, "files"), e) for e in collect.load_manifest(which)]


def oracle(which: str, work: str) -> None:
    """Each document run on PyTorch 2.13 (in a fresh interpreter): ``<work>/oracle-<set>.json``."""
    code = ("import json, sys; from scalargrad.documents import document_report; "
            "print(json.dumps(document_report(sys.argv[1], check=False, alias_torch=False, cell_timeout=300, "
            "doc_timeout=1200)))")
    out = {}
    for path in _files(which, work):
        start = time.time()
        proc = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                              cwd=os.path.dirname(path), timeout=3600)
        try:
            out[path] = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            out[path] = {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1], "cells": []}
        print(f"{time.time() - start:6.1f} s  {path}", file=sys.stderr)
    with open(os.path.join(work, f"oracle-{which}.json"), "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=1)


def _right(cell: dict) -> bool:
    return cell["status"] == "reproduced" and bool((cell["expected"] or "").strip() or cell["expected_error"])


def _mutations(cell: dict, after_unseeded: bool) -> list[tuple[str, str, str]]:
    """(kind, old text, new text) that this cell's stored output allows, the first a number
    change if the cell comes after an unseeded draw it does not make."""
    text = cell["expected"] or ""
    out = []
    drew = any("random generator" in n for n in cell["notes"])
    nums = [m for m in _NUMBER.finditer(text)]
    if nums and not drew:
        m = nums[len(nums) // 2]
        s = m.group()
        last = s[-1]
        changed = s[:-1] + ("1" if last != "1" else "2")
        kind = "wrong number after an unseeded draw" if after_unseeded else "wrong digit"
        out.append((kind, text[max(0, m.start() - 12):m.end()], text[max(0, m.start() - 12):m.start()] + changed))
    node = _NODE.search(text)
    if node and node.group(1) in _SWAPS:
        old = node.group()
        new = f"{_SWAPS[node.group(1)]}Backward{node.group(2)}"
        out.append(("wrong node name", old, new))
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if len(lines) >= 2 and not drew:
        out.append(("dropped line", lines[0] + "\n", ""))
        if lines[0] != lines[1]:
            out.append(("wrong order", lines[0] + "\n" + lines[1], lines[1] + "\n" + lines[0]))
    if cell["expected_error"]:
        words = cell["expected_error"].split()
        if len(words) >= 3:
            out.append(("wrong error message", " ".join(words[1:3]), " ".join(words[1:3]) + " not"))
    return out


def plant(which: str, work: str) -> None:
    """Copies of the documents with errors planted in right cells: ``<work>/planted-<set>/``
    and its ``plants.json``."""
    with open(os.path.join(work, f"oracle-{which}.json"), encoding="utf-8") as fh:
        oracle_entries = json.load(fh)
    target = os.path.join(work, f"planted-{which}")
    os.makedirs(target, exist_ok=True)
    plants = []
    for path, entry in oracle_entries.items():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        copies: dict[int, list] = {}
        unseeded_before = False
        for cell in entry.get("cells", []):
            options = _mutations(cell, unseeded_before) if _right(cell) else []
            if any("random generator" in n for n in cell["notes"]):
                unseeded_before = True
            for k, (kind, old, new) in enumerate(options[:2]):
                copies.setdefault(k, []).append((cell, kind, old, new))
        for k, changes in copies.items():
            planted = text
            done = []
            for cell, kind, old, new in changes:
                found = _replace_in_output(planted, path, cell, old, new)
                if found is None:
                    continue
                planted = found
                done.append({"cell": cell["index"], "kind": kind, "old": old, "new": new})
            if not done:
                continue
            base, ext = os.path.splitext(os.path.relpath(path, os.path.join(work, "files")))
            out = os.path.join(target, f"{base}.planted{k}{ext}")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "w", encoding="utf-8") as fh:
                fh.write(planted)
            plants.append({"document": path, "copy": out, "plants": done})
    with open(os.path.join(target, "plants.json"), "w", encoding="utf-8") as fh:
        json.dump(plants, fh, ensure_ascii=False, indent=1)
    print(f"{sum(len(p['plants']) for p in plants)} errors planted in {len(plants)} copies", file=sys.stderr)


def _replace_in_output(text: str, path: str, cell: dict, old: str, new: str) -> str | None:
    """``text`` (the whole document) with ``old`` replaced by ``new`` in the stored output of
    ``cell`` (once), or None if it is not found there exactly once."""
    if path.endswith(".ipynb"):
        nb = json.loads(text)
        code = [c for c in nb["cells"] if c.get("cell_type") == "code"][cell["index"] - 1]
        for out in code.get("outputs", []):
            for key in ("text",):
                if isinstance(out.get(key), list):
                    out[key] = "".join(out[key])
            data = out.get("data", {})
            if isinstance(data.get("text/plain"), list):
                data["text/plain"] = "".join(data["text/plain"])
        stored = json.dumps(code.get("outputs", []), ensure_ascii=False)
        old_j, new_j = json.dumps(old, ensure_ascii=False)[1:-1], json.dumps(new, ensure_ascii=False)[1:-1]
        if stored.count(old_j) != 1:
            return None
        code["outputs"] = json.loads(stored.replace(old_j, new_j))
        return json.dumps(nb, ensure_ascii=False, indent=1)
    # a page: the output block is the first place after the cell's first line that holds ``old``
    if (cell["expected"] or "").count(old) != 1 and (cell["expected_error"] or "").count(old) != 1:
        return None
    lines = text.split("\n")
    start = sum(len(ln) + 1 for ln in lines[:cell["line"] - 1])
    k = text.find(old, start)
    if k < 0:
        return None
    return text[:k] + new + text[k + len(old):]


def judge(which: str, work: str, code: str, name: str) -> None:
    """``verify --json`` from the code tree ``code`` on the documents and their planted copies:
    ``<work>/judged-<name>-<set>.json``."""
    docs = _files(which, work)
    plants_path = os.path.join(work, f"planted-{which}", "plants.json")
    copies = []
    if os.path.exists(plants_path):
        with open(plants_path, encoding="utf-8") as fh:
            copies = [p["copy"] for p in json.load(fh)]
    env = dict(os.environ, PYTHONPATH=os.path.abspath(code))
    results = {}
    for label, paths in (("documents", docs), ("copies", copies)):
        start = time.time()
        proc = subprocess.run([sys.executable, "-m", "scalargrad", "verify", "--json", *paths], capture_output=True,
                              text=True, env=env, cwd=work)
        try:
            results[label] = json.loads(proc.stdout)
        except ValueError:
            results[label] = {"error": proc.stderr[-2000:]}
        results[label + "_seconds"] = round(time.time() - start, 1)
        print(f"{label}: {results[label].get('summary', results[label].get('error'))} "
              f"({results[label + '_seconds']} s)", file=sys.stderr)
    with open(os.path.join(work, f"judged-{name}-{which}.json"), "w", encoding="utf-8") as fh:
        json.dump(results, fh, ensure_ascii=False, indent=1)


def _cell_with(entry: dict, text: str) -> dict | None:
    for c in entry.get("cells", []):
        if text and (text in (c.get("expected") or "") or text in (c.get("expected_error") or "")):
            return c
    return None


def report(which: str, work: str, name: str) -> dict:
    with open(os.path.join(work, f"judged-{name}-{which}.json"), encoding="utf-8") as fh:
        judged = json.load(fh)
    with open(os.path.join(work, f"oracle-{which}.json"), encoding="utf-8") as fh:
        oracle_entries = json.load(fh)
    docs = {os.path.abspath(os.path.join(work, d["path"])): d for d in judged["documents"].get("documents", [])}
    counts: dict = {}
    for d in docs.values():
        for c in d["cells"]:
            counts[c["status"]] = counts.get(c["status"], 0) + 1
    right = right_ok = 0
    for path, entry in oracle_entries.items():
        ours = docs.get(os.path.abspath(path))
        for cell in entry.get("cells", []):
            if not _right(cell):
                continue
            right += 1
            mine = _cell_with(ours or {}, (cell["expected"] or cell["expected_error"] or "").strip()[:200])
            right_ok += mine is not None and mine["status"] == "reproduced"
    with open(os.path.join(work, f"planted-{which}", "plants.json"), encoding="utf-8") as fh:
        plants = json.load(fh)
    copies = {os.path.abspath(os.path.join(work, d["path"])): d for d in judged["copies"].get("documents", [])}
    caught, missed = 0, []
    total = 0
    for p in plants:
        entry = copies.get(os.path.abspath(p["copy"]), {})
        original = docs.get(os.path.abspath(p["document"]), {})
        exit_one = any(c["status"] in ("differs", "error", "timed out") or c["sympy_ok"] is False
                       for c in entry.get("cells", [])) or entry.get("crashed")
        for plant_ in p["plants"]:
            total += 1
            cell = _cell_with(entry, plant_["new"]) if plant_["new"] else None
            if cell is None and not plant_["new"]:  # a dropped line: the cell at the same place
                idx = [c for c in entry.get("cells", []) if c["index"] == plant_["cell"]]
                cell = idx[0] if idx else None
            before = _cell_with(original, plant_["old"])
            ok = (cell is not None and cell["status"] in ("differs", "error") and exit_one
                  and (before is None or before["status"] not in ("differs", "error")))
            if ok:
                caught += 1
            else:
                missed.append((os.path.basename(p["document"]), plant_["cell"], plant_["kind"],
                               None if cell is None else cell["status"]))
    summary = {"cells": counts, "right cells (PyTorch reproduces)": right, "right cells reproduced": right_ok,
               "planted": total, "caught": caught, "missed": missed,
               "seconds": {k: v for k, v in judged.items() if k.endswith("_seconds")}}
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("step", choices=["oracle", "plant", "judge", "report"])
    p.add_argument("--set", default="frozen", choices=["frozen", "development"])
    p.add_argument("--work", default="/work/judge-heldout")
    p.add_argument("--code", help="judge: the scalargrad code tree to verify with (its PYTHONPATH)")
    p.add_argument("--name", default="after", help="judge, report: a name for the code tree's results")
    args = p.parse_args(argv)
    if args.step == "oracle":
        oracle(args.set, args.work)
    elif args.step == "plant":
        plant(args.set, args.work)
    elif args.step == "judge":
        judge(args.set, args.work, args.code, args.name)
    else:
        report(args.set, args.work, args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
