"""Reentrant backward (a backward called while another runs) without growing one thread's stack.

A custom Function's backward may itself call backward, which runs a Function's backward, and so
on. Each level costs the Python stack a dozen frames, so a chain of nested calls would hit the
interpreter's recursion limit after a few dozen levels. PyTorch's engine (engine.cpp,
``Engine::execute`` with ``max_recursion_depth``) runs a reentrant call on the calling thread
until that thread is too deep, then hands the call to a thread of its own and waits for it: the
depth of nested calls is bounded by memory, not by one stack. Here the same: a reentrant call
made when the calling thread's stack is past half the recursion limit runs on a fresh thread
(whose stack starts empty) with the caller's grad mode, and the caller waits for its result or
error. No graph is walked recursively either way.
"""

from __future__ import annotations

import sys
import threading

from .._base import grad_mode


def deep() -> bool:
    """True when the calling thread's Python stack is past half the recursion limit."""
    limit = sys.getrecursionlimit() // 2
    f = sys._getframe(1)
    n = 0
    while f is not None:
        n += 1
        if n > limit:
            return True
        f = f.f_back
    return False


def on_fresh_thread(fn, *args):
    """``fn(*args)`` run on a new thread that starts in the caller's grad mode; its result, or
    its error raised here."""
    enabled, inference = grad_mode.state.enabled, grad_mode.state.inference
    out: list = [None, None]

    def target() -> None:
        grad_mode.state.enabled, grad_mode.state.inference = enabled, inference
        try:
            out[0] = fn(*args)
        except BaseException as e:  # handed to the waiting caller, as PyTorch's engine does
            out[1] = e

    t = threading.Thread(target=target, name="scalargrad reentrant backward")
    t.start()
    t.join()
    if out[1] is not None:
        raise out[1]
    return out[0]
