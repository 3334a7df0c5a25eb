"""Which tensors are batched while ``vmap`` runs, level by level, and PyTorch's refusals.

``vmap`` runs the user's function once per batch slice; each slice of a mapped input is marked
batched at its level, and ``make``'s hook (``_tensor/make_hooks.py``) marks every op result with
a batched input, so the refusals of PyTorch's batching rules can be raised where PyTorch raises
them: reading an element into Python (``.item()``, ``float()``; ``bool()``: data-dependent
control flow) and an in-place op writing a batched result into an unbatched tensor. The marks
are weak references by identity: a mark keeps no tensor alive, and a dead tensor's reused id
is not taken for it. A result made without an op
(``detach``, ``.data``) is not marked: those refusals are missed there, never raised wrongly,
and vmap's result values never depend on the marks (``vmap.py``).
"""

from __future__ import annotations

import os
import sys
import weakref

from .._base.errors import Unsupported
from .._base.rng import set_draw_guard
from .._tensor.make_hooks import set_batch_hooks
from .._tensor.tensor import Tensor

__all__ = ["push", "pop", "mark", "batched", "depth", "inherit"]

_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
         "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
         "inside PyTorch internals, please file a bug report.")
_CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We "
                 "don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")
_RANDOM = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
           "'different' randomness flags on vmap or perform the randomness operation out of vmap")

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # scalargrad's own files
_levels: list = []  # per running vmap, innermost last: (marks: id -> weakref, batch size, randomness)


def batched(t, level: int | None = None) -> bool:
    """Whether ``t`` is marked batched at ``level`` (an index into the running vmaps; None: any)."""
    levels = _levels if level is None else [_levels[level]]
    return any(_has(lv[0], t) for lv in levels)


def depth() -> int:
    """How many vmaps are running."""
    return len(_levels)


def inherit(new: Tensor, old: Tensor) -> None:
    """``new`` (made from ``old`` without an op: a transform's detached input) is batched where ``old`` is."""
    for marks, _, _ in _levels:
        if _has(marks, old):
            marks[id(new)] = weakref.ref(new)


def _has(marks: dict, t) -> bool:
    r = marks.get(id(t))
    return r is not None and r() is t


def mark(t: Tensor, level: int = -1) -> None:
    _levels[level][0][id(t)] = weakref.ref(t)


def _on_make(v, op, ins, c) -> None:
    for marks, _, _ in _levels:
        for u in ins:
            if _has(marks, u):
                marks[id(v)] = weakref.ref(v)
                break


def _on_read(t) -> None:
    if not batched(t):
        return
    frame = sys._getframe(2)  # item()'s caller
    # bool(), float(), int() read the element through item(): PyTorch names bool() data-dependent control flow
    conversion = frame.f_code.co_name if frame.f_code.co_name in ("__bool__", "__float__", "__int__", "__index__") \
        else None
    if conversion:
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        # one of scalargrad's ops reads a 0-dim tensor argument as a number (clamp's min, masked_fill's
        # value...), where PyTorch's batching rule takes the batched tensor: not the program's .item()
        raise Unsupported("an op taking a batched 0-dim tensor as a number inside torch.func.vmap",
                          "scalargrad reads that tensor's element, which a batched tensor does not have one of; "
                          "pass a number or an unbatched tensor")
    raise RuntimeError(_CONTROL_FLOW if conversion == "__bool__" else _ITEM)


def _on_write(t, res, what: str | None = None) -> None:
    for marks, size, _ in reversed(_levels):
        if _has(marks, res) and not _has(marks, t):
            if what is not None:  # BatchedFallback's refusal of an in-place op on an unbatched self
                raise RuntimeError(
                    f"vmap: {what}(self, *extra_args) is not possible because there exists a Tensor `other` in "
                    "extra_args that has more elements than `self`. This happened due to `other` being vmapped "
                    "over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators "
                    f"instead of {what}. If said operator is being called inside the PyTorch framework, please "
                    "file a bug report instead.")
            shape = list(t.shape)
            raise RuntimeError(f"output with shape {shape} doesn't match the broadcast shape {[size] + shape}")


def _on_show(t) -> None:
    if batched(t):
        raise Unsupported("printing a batched tensor inside torch.func.vmap",
                          "PyTorch prints its BatchedTensor wrapper of the whole batch, which scalargrad, running the "
                          "function one batch element at a time, does not have")


def _on_draw() -> None:
    randomness = _levels[-1][2]
    if randomness == "error":
        raise RuntimeError(_RANDOM)
    raise Unsupported(f"a random operation inside torch.func.vmap(randomness='{randomness}')",
                      "scalargrad runs the function once per batch element and cannot draw PyTorch's batched "
                      "random numbers; draw them outside vmap and pass them in")


def push(size: int, randomness: str) -> None:
    """A vmap level starts: batch size ``size``; the hooks are on while any level runs."""
    _levels.append(({}, size, randomness))
    set_batch_hooks(_on_make, _on_read, _on_write, _on_show)
    set_draw_guard(_on_draw)


def pop() -> None:
    _levels.pop()
    if not _levels:
        set_batch_hooks()
        set_draw_guard(None)
