"""Run each task in a fresh fork of a warm parent: isolated like a new interpreter, without
paying for one.

``scalargrad verify`` runs every example (or document) on its own, so that one example's
global state (the random generator, the default dtype, global hooks, warnings already shown)
cannot leak into the next. A new interpreter per example costs its start-up and the imports of
scalargrad and SymPy, most of an example's time. Here the parent imports them once
(``warm_up``), then forks one child per task: the child starts from the parent's clean,
warm state, runs the task with its stdout and stderr sent to files, writes the task's result
(JSON) to a third, and exits. Up to ``jobs`` children run at once; a child that runs longer
than ``timeout`` is killed. Where ``os.fork`` does not exist, or the process runs other threads,
``fork_available()`` is False and callers use fresh interpreters instead.
"""

from __future__ import annotations

import gc
import io
import json
import os
import re
import select
import signal
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Task", "Finished", "fork_available", "warm_up", "run_tasks", "fresh_warning_filters"]

# A fresh interpreter's warning filters (python3 -c "import warnings; print(warnings.filters)"),
# without -W options or PYTHONWARNINGS (verify runs examples without them)
FRESH_FILTERS = [
    ("default", None, DeprecationWarning, re.compile(r"__main__\Z"), 0),
    ("ignore", None, DeprecationWarning, None, 0),
    ("ignore", None, PendingDeprecationWarning, None, 0),
    ("ignore", None, ImportWarning, None, 0),
    ("ignore", None, ResourceWarning, None, 0),
]


@dataclass
class Task:
    """``fn(*args)`` run in a child whose working directory is ``cwd``; it returns JSON data."""

    fn: Callable
    args: tuple = ()
    cwd: str | None = None


@dataclass
class Finished:
    """What a child left: its result (None if it crashed), stdout, stderr, and how it ended
    (``ok``, ``crashed: <last line>``, ``timed out after N s``)."""

    result: object
    stdout: str
    stderr: str
    ending: str
    seconds: float


def fresh_warning_filters() -> None:
    """Warnings filtered and shown as in a fresh interpreter: the default filters, printed to
    ``sys.stderr`` (whoever replaced ``showwarning``, pytest say)."""
    warnings.filters[:] = FRESH_FILTERS
    warnings.defaultaction = "default"
    warnings.onceregistry.clear()
    warnings._filters_mutated()
    warnings.showwarning = _show_warning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    try:
        (file or sys.stderr).write(warnings.formatwarning(message, category, filename, lineno, line))
    except OSError:
        pass


def fork_available() -> bool:
    """Can tasks run in forks of this process? Not without ``os.fork``, and not while this
    process runs other threads (a library's thread pool, a program's threads): a fork copies
    only the calling thread, so a lock another thread holds stays locked in the child forever
    (Python 3.12 warns about it). Then callers use fresh interpreters: slower, the same results."""
    return hasattr(os, "fork") and sys.platform != "win32" and _threads() == 1


def _threads() -> int:
    """The threads this process runs, the operating system's count where it tells (Linux's
    /proc/self/task also counts threads started by C libraries), else Python's."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def warm_up() -> None:
    """Import what every example needs and run one small SymPy proof, so that children start
    warm; then move everything the parent holds out of the garbage collector's sight
    (``gc.freeze``), so that a child neither scans nor copies it."""
    import sympy  # noqa: F401

    import scalargrad as torch  # the library, torch.nn (and its functional) and the proofs, loaded here

    torch.nn.functional, torch.autograd  # noqa: B018 - the attribute loads the module
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = torch.tensor(2.0, requires_grad=True)
        q = torch.tensor(3.0, requires_grad=True)
        str(torch.symbolic.sympy_check(torch.log(x ** q) * torch.tanh(q) / (x + 1.0), [x, q]))
    gc.collect()
    gc.freeze()


def _child(task: Task, out_fd: int, err_fd: int, result_path: str, timeout: float) -> None:
    """In the child: never returns."""
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if timeout:
            signal.alarm(int(timeout) + 1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
        sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                                       errors="backslashreplace", line_buffering=True)
        fresh_warning_filters()  # the parent's may differ (pytest, -W)
        if task.cwd:
            os.chdir(task.cwd)
        result = task.fn(*task.args)
        payload = json.dumps({"result": result})
    except BaseException:  # the task itself failed: report, do not propagate into the parent's code
        payload = json.dumps({"crash": traceback.format_exc()})
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        with open(result_path, "w", encoding="utf-8") as fh:
            fh.write(payload)
    finally:
        os._exit(status)


class _Running:
    __slots__ = ("pid", "index", "files", "result_path", "start", "pidfd")

    def __init__(self, pid, index, files, result_path, pidfd) -> None:
        self.pid = pid
        self.index = index
        self.files = files
        self.result_path = result_path
        self.start = time.perf_counter()
        self.pidfd = pidfd


def _start(task: Task, index: int, tmp: str, timeout: float) -> _Running:
    out = tempfile.TemporaryFile(dir=tmp)
    err = tempfile.TemporaryFile(dir=tmp)
    result_path = os.path.join(tmp, f"result-{index}.json")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(task, out.fileno(), err.fileno(), result_path, timeout)
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    return _Running(pid, index, (out, err), result_path, pidfd)


def _collect(r: _Running, status: int, timed_out: bool, timeout: float) -> Finished:
    seconds = time.perf_counter() - r.start
    texts = []
    for f in r.files:
        f.seek(0)
        texts.append(f.read().decode("utf-8", errors="backslashreplace"))
        f.close()
    if r.pidfd is not None:
        os.close(r.pidfd)
    payload = {}
    if os.path.exists(r.result_path):
        with open(r.result_path, encoding="utf-8") as fh:
            payload = json.load(fh)
        os.unlink(r.result_path)
    if timed_out or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM):
        return Finished(None, texts[0], texts[1], f"timed out after {timeout:.0f} s", seconds)
    if "result" in payload:
        return Finished(payload["result"], texts[0], texts[1], "ok", seconds)
    if "crash" in payload:
        last = payload["crash"].strip().splitlines()[-1]
        return Finished(None, texts[0], texts[1], f"crashed: {last}", seconds)
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"status {os.WEXITSTATUS(status)}"
    return Finished(None, texts[0], texts[1], f"crashed: the worker ended with {how}", seconds)


def run_tasks(tasks: list[Task], jobs: int = 1, timeout: float = 300.0,
              on_done: Callable[[int, Finished], None] | None = None) -> list[Finished]:
    """Run every task in its own fork, ``jobs`` at a time; results in the tasks' order.
    ``on_done(index, finished)`` is called as each one ends. Needs ``fork_available()``."""
    results: list = [None] * len(tasks)
    todo = list(range(len(tasks)))
    todo.reverse()
    running: dict[int, _Running] = {}
    with tempfile.TemporaryDirectory(prefix="scalargrad-verify-") as tmp:
        try:
            while todo or running:
                while todo and len(running) < max(1, jobs):
                    i = todo.pop()
                    r = _start(tasks[i], i, tmp, timeout)
                    running[r.pid] = r
                for r, status, timed_out in _wait_any(running, timeout):
                    del running[r.pid]
                    results[r.index] = _collect(r, status, timed_out, timeout)
                    if on_done is not None:
                        on_done(r.index, results[r.index])
        finally:
            for r in running.values():  # interrupted: no child outlives verify
                _kill(r.pid)
                if r.pidfd is not None:
                    os.close(r.pidfd)
                for f in r.files:
                    f.close()
    return results


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _wait_any(running: dict[int, _Running], timeout: float) -> list[tuple[_Running, int, bool]]:
    """Block until at least one child has ended (or overran ``timeout`` by 5 s and was killed)."""
    while True:
        done = []
        for r in list(running.values()):
            pid, status = os.waitpid(r.pid, os.WNOHANG)
            if pid:
                done.append((r, status, False))
            elif timeout and time.perf_counter() - r.start > timeout + 5:
                _kill(r.pid)
                done.append((r, 0, True))
        if done:
            return done
        fds = [r.pidfd for r in running.values() if r.pidfd is not None]
        if len(fds) == len(running):
            select.select(fds, [], [], 1.0)
        else:
            time.sleep(0.005)
