#!/usr/bin/env python3
"""The quantization ``>>>`` examples of PyTorch's docstrings, run under PyTorch and scalargrad (issue 23).

Every docstring of ``torch/_torch_docs.py`` and ``torch/_tensor_docs.py`` (the installed torch 2.13)
whose name or example mentions quantization (``quantiz``, ``dequantize``, ``int_repr``, ``q_scale``,
``q_zero_point``, ``q_per_channel``, ``qscheme``, ``is_quantized``) is made a program as
``tools/heldout.py`` makes a docstring one (its harness), run with PyTorch and with
``python -m scalargrad run`` (scalargrad from ``--source``, this worktree by default), and counted
exact when both succeed and print the same stdout. Examples on unseeded random tensors
(``torch.rand``, ``randn``) cannot print alike.

    python tools/quantized_doctests.py [--source DIR] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import api_census  # noqa: E402 - beside this file
import heldout  # noqa: E402

KEYS = ("quantiz", "dequantize", "int_repr", "q_scale", "q_zero_point", "q_per_channel", "qscheme", "is_quantized")


def programs() -> list:
    """(file, documented name, line, code) of each quantization example."""
    out = []
    for rel in ("_torch_docs.py", "_tensor_docs.py"):
        text = (heldout.torch_root() / rel).read_text(encoding="utf-8")
        for node, name in heldout.docstring_nodes(text):
            code = "\n".join(api_census.doctest_blocks(api_census._dedent_docstring(node.value)))
            if code.strip() and any(k in name or k in code for k in KEYS):
                out.append((rel, name, node.lineno, code))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=str(REPO), help="the scalargrad source tree to run")
    parser.add_argument("--work", default=None, help="where the programs are written (a temporary directory)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="quantized-doctests-"))
    env = {k: v for k, v in os.environ.items() if k not in ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "PYTHONWARNINGS")}
    exact, found = 0, programs()
    for rel, name, line, code in found:
        directory = work / f"{rel}_{line}"
        directory.mkdir(parents=True, exist_ok=True)
        program = directory / "main.py"
        program.write_text(heldout.DOCTEST_HARNESS.format(id=name, origin=f"{rel}:{line}", source=code),
                           encoding="utf-8")
        theirs = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=env,
                                cwd=directory)
        ours = subprocess.run([sys.executable, "-m", "scalargrad", "run", str(program)], capture_output=True,
                              text=True, env={**env, "PYTHONPATH": args.source}, cwd=directory)
        same = theirs.returncode == 0 and ours.returncode == 0 and theirs.stdout == ours.stdout
        exact += same
        why = "" if same else ((ours.stderr.strip().splitlines() or ["prints otherwise"])[-1] if ours.returncode
                               else "prints otherwise")
        print(f"{'exact' if same else 'not  '} {rel}:{line} {name} {why[:140]}")
    print(f"{exact} of {len(found)} print exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
