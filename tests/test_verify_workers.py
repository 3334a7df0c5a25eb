"""The catalogue run by forks of a warm worker: each example still isolated, its stdout, stderr,
SymPy report and unsupported feature seen as a fresh interpreter would show them, the same
outcomes as the fresh-interpreter path, and a progress line only on a terminal.

The programs here are small scratch examples whose expected output is written by hand from
PyTorch's documented behaviour (default dtype float32, DeprecationWarning shown when raised
in __main__, the last traceback line on stderr).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

from scalargrad import verify as v
from scalargrad import warm_worker

PROGRAMS = {
    # changes process-wide state: the default dtype and a global module hook
    "leaky": ("""
        import torch
        torch.set_default_dtype(torch.float64)
        torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: print("global hook"))
        torch.nn.Identity()(torch.tensor(1.0))
        print(torch.tensor(1.0).dtype)
        """, "global hook\ntorch.float64\n", "", []),
    # ... which the next example must not see
    "clean": ("""
        import torch
        torch.nn.Identity()(torch.tensor(1.0))
        print(torch.tensor(1.0).dtype)
        """, "torch.float32\n", "", []),
    # a DeprecationWarning raised in __main__ is shown by a fresh interpreter's filters
    "warns": ("""
        import warnings
        print("before")
        warnings.warn("old API", DeprecationWarning)
        """, "before\n", "warns.py:4: DeprecationWarning: old API\n", []),
    # the program's own error: its output so far, and the last traceback line on stderr
    "raises": ("""
        print("partial")
        raise ValueError("boom")
        """, "partial\n", "ValueError: boom\n", []),
    # a part of PyTorch scalargrad does not implement, listed in needs
    "optim": ("""
        import torch
        print("start")
        torch.optim.Adafactor([])
        """, "start\n", "", ["torch.optim"]),
    # a backward proved by SymPy: d(x*x*x)/dx = 3 x**2 = 12 at 2
    "grad": ("""
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        (x * x * x).backward()
        print(x.grad)
        """, "tensor(12.)\n", "", []),
}


@pytest.fixture
def scratch(tmp_path) -> list[v.Example]:
    examples = []
    for name, (source, out, err, needs) in PROGRAMS.items():
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
        examples.append(v.Example(document="scratch", id=name, program=str(path), title=name, status="reproduced",
                                  torch_output=out, torch_stderr=err, needs=needs))
    return examples


def outcomes(examples, **kwargs) -> dict:
    return {o.example.id: (o.result, o.detail, o.sympy) for o in v.verify(examples, **kwargs)}


EXPECTED = {
    "leaky": ("reproduced", "", "no backward"),
    "clean": ("reproduced", "", "no backward"),
    "warns": ("reproduced", "", "no backward"),
    "raises": ("reproduced", "", "no backward"),
    "optim": ("not supported", "torch.optim.Adafactor", "no backward"),
    "grad": ("reproduced", "", "1 backward: 1 grad agrees"),
}


FORK = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="no os.fork here")


@FORK
def test_forked_examples_are_isolated_and_captured(scratch, monkeypatch):
    # pytest's process may run PyTorch's thread pool (the conformance tests): verify would then
    # use fresh interpreters; these children run only scalargrad, so the forks are safe here
    monkeypatch.setattr(warm_worker, "_threads", lambda: 1)
    assert warm_worker.fork_available()
    assert outcomes(scratch, jobs=2) == EXPECTED
    assert outcomes(list(reversed(scratch)), jobs=1) == EXPECTED  # the order does not matter


@pytest.mark.slow
def test_fresh_interpreters_give_the_same_outcomes(scratch, monkeypatch):
    monkeypatch.setattr(warm_worker, "fork_available", lambda: False)
    assert outcomes(scratch, jobs=2) == EXPECTED


@FORK
def test_no_fork_while_another_thread_runs():
    # a fork copies only the calling thread: a lock another thread holds would never be released
    # in the child (Python 3.12 warns); verify then runs fresh interpreters
    import threading

    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert warm_worker._threads() >= 2 and not warm_worker.fork_available()
    finally:
        release.set()
        other.join()


@FORK
def test_warm_worker_tasks(tmp_path):
    def task(n):
        print("out", n)
        print("err", n, file=sys.stderr)
        if n == 2:
            raise KeyError("task failed")
        if n == 3:
            time.sleep(30)
        return {"n": n, "cwd": os.getcwd(), "pid": os.getpid()}

    done = []
    tasks = [warm_worker.Task(task, (n,), cwd=str(tmp_path)) for n in range(4)]
    results = warm_worker.run_tasks(tasks, jobs=2, timeout=2, on_done=lambda i, f: done.append(i))
    assert sorted(done) == [0, 1, 2, 3]
    assert [r.ending for r in results] == ["ok", "ok", "crashed: KeyError: 'task failed'", "timed out after 2 s"]
    assert [r.stdout for r in results[:3]] == ["out 0\n", "out 1\n", "out 2\n"]
    assert [r.stderr.splitlines()[0] for r in results[:3]] == ["err 0", "err 1", "err 2"]
    assert results[0].result["cwd"] == str(tmp_path) and results[0].result["n"] == 0
    assert len({results[0].result["pid"], results[1].result["pid"], os.getpid()}) == 3


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a pseudo-terminal")
def test_progress_line_only_on_a_terminal(tmp_path):
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "scalargrad", "verify", "--no-check", "-k", "hook_code_3"],
                            stdout=subprocess.PIPE, stderr=slave, cwd=str(tmp_path))
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        seen += chunk
    out = proc.communicate(timeout=300)[0].decode()
    os.close(master)
    text = seen.decode()
    assert "\r\x1b[Kverifying [1/4] 003_abae214ff6de8937 " in text and "verifying [4/4]" in text
    assert text.endswith("\r\x1b[K")  # the line is cleared before the table
    assert "hook_code_3_full" in out and "verifying" not in out
