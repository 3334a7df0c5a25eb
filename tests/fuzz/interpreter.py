"""Run one program against one library in this process and record its outcome.

The program's source runs with ``torch`` bound to the library (``scalargrad`` or PyTorch).
Each step runs under ``warnings.catch_warnings`` so that its warnings are recorded; a step
that binds a name has that value encoded. Global state a program may change (default dtype,
grad mode) is reset before each run, so programs are independent of their order.
"""

from __future__ import annotations

import functools
import os
import signal
import threading
import warnings

from .outcome import Outcome, StepRecord, encode, error_record
from .program import HELPERS, HIDDEN, Program

__all__ = ["run_program", "load_library", "warm_up", "ProgramTimeout"]


class ProgramTimeout(Exception):
    """A program ran longer than its budget (recorded like an error)."""


@functools.lru_cache(maxsize=8192)
def _compiled(source: str, mode: str = "exec"):
    return compile(source, "<fuzz program>", mode)


def load_library(name: str):
    """``scalargrad`` or ``torch``, imported with the parts programs use, so that no program's
    time budget pays for a first import (PyTorch imports torch._dynamo on its first optimizer)."""
    import importlib

    return warm_up(importlib.import_module(name))


@functools.cache
def warm_up(lib):
    """``lib`` after the imports a program's first optimizer or DataLoader would make."""
    lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
    lib.utils.data.DataLoader([1])
    if lib.__name__ == "torch":
        from torch.utils._python_dispatch import TorchDispatchMode  # noqa: F401 - the kernel rule's
    return lib


@functools.cache
def _package_dir(lib) -> str | None:
    """The source directory whose ``raise`` statements count as deliberate (scalargrad's)."""
    if lib.__name__ == "torch":
        return None
    return os.path.dirname(os.path.abspath(lib.__file__)) + os.sep


# Warnings both libraries give once per process (PyTorch's TORCH_WARN_ONCE): whether a program
# sees one depends on the programs that ran before it, so they are not compared
ONCE_PER_PROCESS = ("Using backward() with create_graph=True will create a reference cycle",
                    "The use of `x.T` on tensors of dimension other than 2", "Tensor.T is deprecated on 0-D tensors",
                    "torch.cholesky is deprecated in favor of torch.linalg.cholesky",
                    "Using torch.cross without specifying the dim arg is deprecated")


def _warning_text(message) -> str:
    # PyTorch's C++ warnings end with " (Triggered internally at <its build path>.)", a detail
    # of the build that the project does not reproduce (as tests/test_engine.py)
    return str(message).split(" (Triggered internally at ")[0]


def _reset(lib) -> None:
    lib.set_default_dtype(lib.float32)
    lib.set_grad_enabled(True)


def _alarm(signum, frame):
    raise ProgramTimeout("the program ran out of time")


def run_program(program: Program, lib, timeout: float = 20.0, namespace: dict | None = None,
                mode=None) -> Outcome:
    """Run ``program`` with ``torch`` bound to ``lib``; ``namespace``: a dict to run it in (to read
    its variables afterwards); ``mode``: a context entered around the whole run (the kernel
    rule's ``kernels.Substitution`` for PyTorch).
    """
    _reset(lib)
    pkg = _package_dir(lib)
    out = Outcome(lib.__name__)
    ns: dict = namespace if namespace is not None else {}
    ns.update({"torch": lib, "__name__": "__fuzz__"})
    for h in program.helpers():
        exec(_compiled(HELPERS[h]), ns)
    use_alarm = timeout and threading.current_thread() is threading.main_thread()
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        if mode is not None:
            mode.__enter__()
        for i, step in enumerate(program.steps):
            rec = StepRecord(i)
            out.records.append(rec)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    exec(_compiled(f"{step.name} = {step.code}" if step.name else step.code), ns)
                    if step.name and step.tag != HIDDEN:
                        rec.obs = encode(ns[step.name], lib, step.show)
                except ProgramTimeout as e:
                    rec.error = error_record(e, None)
                except RecursionError as e:  # keep the traceback walk short
                    rec.error = error_record(e.with_traceback(None), pkg)
                    rec.error.deliberate = False
                except Exception as e:
                    rec.error = error_record(e, pkg)
            rec.warnings = [[w.category.__name__, _warning_text(w.message)] for w in caught
                            if not str(w.message).startswith(ONCE_PER_PROCESS)]
            if rec.error is not None:
                if not step.guard or rec.error.type == "ProgramTimeout":
                    out.error, out.error_step = rec.error, i
                    break
    finally:
        if mode is not None:
            mode.__exit__(None, None, None)
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        _reset(lib)
    return out
