"""Run a piece of the fuzzer in a forked child, so that a crash of PyTorch is a finding, not the end.

PyTorch itself can die of a signal on a program it runs fine on its own (seed 9719: a double
backward through ``norm(inf)`` and ``amin`` segfaults inside the kernel rule's
``TorchDispatchMode``). ``forked(work)`` runs ``work()`` in a child made by ``os.fork`` (a
copy of this process: the libraries already imported, no start-up paid) and returns what it
returned, sent back through a pipe as JSON (plain data only: no pickle anywhere in the
project), or the name of the signal that killed the child. Where ``os.fork`` is missing the
work runs in this process.
"""

from __future__ import annotations

import faulthandler
import json
import os
import select
import signal
import time
from collections.abc import Callable

__all__ = ["Died", "forked"]


class Died(Exception):
    """The child ended without an answer: ``how`` is the signal's name (``SIGSEGV``), ``timeout``,
    or ``exit N``."""

    def __init__(self, how: str) -> None:
        super().__init__(f"the child process died ({how})")
        self.how = how


def forked(work: Callable[[], object], limit: float = 120.0) -> object:
    """``work()``'s JSON-ready result, computed in a forked child; raises ``Died`` when the child
    dies of a signal or has not answered after ``limit`` seconds (it is then killed), and
    RuntimeError with the child's exception when ``work`` raised."""
    if not hasattr(os, "fork"):
        return work()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, then leave without running the parent's exit handlers
        code = 0
        try:
            os.close(r)
            faulthandler.disable()  # its death is reported by the parent, by the signal's name
            try:
                data = json.dumps(["ok", work()])
            except BaseException as e:  # every failure goes back to the parent
                data = json.dumps(["raised", f"{type(e).__name__}: {e}"])
            view = memoryview(data.encode())
            while view:
                view = view[os.write(w, view):]
        except BaseException:  # the pipe broke: the parent sees a short answer
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + limit
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise Died("timeout")
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        raise Died(signal.Signals(os.WTERMSIG(status)).name)
    if not chunks or os.WEXITSTATUS(status) != 0:
        raise Died(f"exit {os.WEXITSTATUS(status)}")
    tag, value = json.loads(b"".join(chunks))
    if tag == "raised":
        raise RuntimeError(f"the forked child raised {value}")
    return value
