"""The two hooks into ``make`` (every op's result, ``tensor.py``): forward-mode AD, which gives a
result its tangent (``_autograd/forward_ad.py``), and vmap, which marks a result batched when an
input is (``func/vmap.py``). ``make`` tests one global, ``tensor._dual``; this module sets it to
whichever hook is on, or to both in turn, so neither pays for the other when alone.

vmap also watches what PyTorch's batching refuses: an element read into Python (``.item()``,
``bool()``: ``tensor._read``) and an in-place op writing a batched result into an unbatched
tensor (``batch_write``, called by ``inplace.py``).
"""

from __future__ import annotations

from . import tensor as tensor_module

__all__ = ["set_forward", "set_batch_hooks", "batch_write", "batch_show"]

_fwd = None
_batch = None
_write = None
_show = None


def _both(v, op, ins, c) -> None:
    if _fwd is not None:
        _fwd(v, op, ins, c)
    if _batch is not None:
        _batch(v, op, ins, c)


def _combine() -> None:
    tensor_module.set_dual(_fwd if _batch is None else _batch if _fwd is None else _both)


def set_forward(hook) -> None:
    """Forward-mode AD's tangent hook ``fn(v, op, ins, c)`` (None while no tangent exists)."""
    global _fwd
    _fwd = hook
    _combine()


def set_batch_hooks(mark=None, read=None, write=None, show=None) -> None:
    """vmap's hooks while it runs (all None: off): ``mark(v, op, ins, c)`` on every result,
    ``read(t)`` before an element of ``t`` is read into Python, ``write(t, res)`` before an
    in-place op makes ``t`` its result ``res``, ``show(t)`` before ``t`` is printed."""
    global _batch, _write, _show
    _batch, _write, _show = mark, write, show
    tensor_module._read = read
    _combine()


def batch_write(t, res, what: str | None = None) -> None:
    """Tell vmap (while it runs) that an in-place op makes ``t`` its result ``res``; ``what``
    names the op in PyTorch's refusal where its batching falls back (``x[i] = value``)."""
    if _write is not None:
        if what is None:
            _write(t, res)
        else:
            _write(t, res, what)


def batch_show(t) -> None:
    """Tell vmap (while it runs) that ``t`` is about to be printed."""
    if _show is not None:
        _show(t)
