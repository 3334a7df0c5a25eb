"""Threads: grad mode is per thread, the default dtype is global, backward works from any thread.

Each program changes a piece of global state in one thread and reads it in another
(``HELPERS["in_thread"]`` runs a function in a new thread and returns what it returned or
raised), or runs backward from several threads into one leaf.
"""

from __future__ import annotations

import random

from . import operands as O
from .program import GRAD, STATE, VALUE, Program, Step, lit

__all__ = ["generate_thread"]

_T = ("in_thread",)


def generate_thread(seed: int, index: int) -> Program:
    """Thread program ``index`` of campaign ``seed``."""
    rng = random.Random(f"threads:{seed}:{index}")
    x = lit(O.ordinary(rng))
    steps = [Step(f"torch.tensor({x}, requires_grad=True)", "v0", (), "tensor", VALUE, True)]
    form = rng.randrange(7)
    mode = rng.choice(["torch.set_grad_enabled(False)", "torch.set_grad_enabled(True)",
                       "torch.inference_mode().__enter__()", "torch.no_grad().__enter__()"])
    if form == 0:  # main thread without grad, the new thread starts with grad enabled
        ctx = rng.choice(["torch.no_grad()", "torch.inference_mode()", "torch.set_grad_enabled(False)",
                          "torch.enable_grad()"])
        steps.append(Step(f"with {ctx}:\n    there = in_thread(lambda: ((v0 * 2).requires_grad, "
                          "torch.is_grad_enabled()))\n    here = ((v0 * 2).requires_grad, torch.is_grad_enabled())",
                          None, ("v0",), "thread", STATE, helpers=_T))
        steps.append(Step("(there, here)", "v1", (), "read", STATE))
    elif form == 1:  # the new thread turns grad off; the main thread keeps it
        steps.append(Step(f"in_thread(lambda: {mode})", "v1", (), "thread", STATE, helpers=_T))
        steps.append(Step("(v0 * 2).requires_grad", "v2", ("v0",), "read", STATE))
        steps.append(Step("torch.is_grad_enabled()", "v3", (), "read", STATE))
    elif form == 2:  # the default dtype is process-wide
        steps.append(Step("in_thread(lambda: torch.set_default_dtype(torch.float64))", "v1", (), "thread", STATE,
                          helpers=_T))
        steps.append(Step("torch.tensor(1.5).dtype", "v2", (), "read", STATE))
        steps.append(Step("torch.set_default_dtype(torch.float32)", None, (), "reset", STATE))
    elif form == 3:  # backward from several threads into one leaf
        k = rng.randint(2, 4)
        steps.append(Step(f"[in_thread(lambda: (v0 * (c + 1)).backward()) for c in range({k})]", "v1", ("v0",),
                          "thread", STATE, helpers=_T))
        steps.append(Step("v0.grad", "v2", ("v0",), "read_grad", GRAD, True))
    elif form == 4:  # a graph built in one thread, backward in another
        steps.append(Step("(v0 * v0) * 3 + v0", "v1", ("v0",), "op", VALUE, True))
        steps.append(Step("in_thread(lambda: v1.backward())", "v2", ("v1",), "thread", STATE, helpers=_T))
        steps.append(Step("v0.grad", "v3", ("v0",), "read_grad", GRAD, True))
    elif form == 5:  # no_grad as a decorator runs in the thread that calls the function
        steps.append(Step("torch.no_grad()(lambda: (v0 * 2).requires_grad)", "v1", ("v0",), "decorate", STATE))
        steps.append(Step("in_thread(v1)", "v2", ("v1",), "thread", STATE, helpers=_T))
        steps.append(Step("v1()", "v3", ("v1",), "read", STATE))
    else:  # a hook running in the backward's thread sees that thread's grad mode
        steps.append(Step("[]", "v1", (), "list", STATE))
        steps.append(Step("v0.register_hook(lambda g: v1.append(torch.is_grad_enabled()))", None, ("v0", "v1"),
                          "hook", STATE))
        steps.append(Step("in_thread(lambda: (v0 * 3).backward())", "v2", ("v0",), "thread", STATE, helpers=_T))
        steps.append(Step("(v0 * 3).backward()", None, ("v0",), "backward", VALUE))
        steps.append(Step("v1", "v3", ("v1",), "read", STATE))
        steps.append(Step("v0.grad", "v4", ("v0",), "read_grad", GRAD, True))
    return Program("threads", seed, index, steps)
