"""``torch.func.vmap`` (also ``torch.vmap``): the function mapped over a dimension of its inputs.

PyTorch runs the function once on BatchedTensors; scalargrad runs it once per batch element, on
``select``ed slices (views, so an in-place change of a batched input reaches the input, as in
PyTorch), and stacks the results along ``out_dims``. The per-element results are the numbers
PyTorch's batched kernels compute for each element. Where PyTorch's batching refuses, it raises
PyTorch's error (``batching.py``: ``.item()``, data-dependent control flow, an in-place write of
a batched value into an unbatched tensor, a random op under ``randomness='error'``); random ops
under 'same'/'different' are refused by name, as is an output that requires grad at the top
level (its grad_fn would be PyTorch's batching kernels'). An output that depends on no batched
input is PyTorch's expanded view (stride 0), as PyTorch returns it. Inputs and outputs are
pytrees (tuple, list, dict, namedtuple) of tensors; ``in_dims``/``out_dims`` prefixes of them.
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable
from typing import Any

from .._base import grad_mode
from .._base.errors import Unsupported
from .._tensor import joins
from .._tensor.tensor import Tensor
from . import batching, levels
from .pytree import broadcast, flatten, unflatten

__all__ = ["vmap"]


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _flat_in_dims(func, in_dims, args: tuple) -> tuple[list, list, Any]:
    name = _name(func)
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): "
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}expected `in_dims` to be int or a (potentially nested) tuple matching the structure "
                         f"of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat, spec = flatten(args)
    dims = broadcast(in_dims, args)
    if dims is None:
        raise ValueError(f"{where}in_dims is not compatible with the structure of `inputs`.")
    for arg, d in zip(flat, dims):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"{where}Got in_dim={d} for an input but in_dim must be either an integer dimension or "
                             "None.")
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(f"{where}Got in_dim={d} for an input but the input is of type {type(arg)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(f"{where}Got in_dim={d} for some input, but that input is a Tensor of dimensionality "
                             f"{arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
    return flat, [None if d is None else d % flat[i].dim() for i, d in enumerate(dims)], spec


def _batch_size(flat: list, dims: list) -> int:
    sizes = [x.size(d) for x, d in zip(flat, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(n != sizes[0] for n in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} "
                         "for the mapped dimension")
    return sizes[0]


def _flat_out_dims(func, out_dims, output) -> list:
    def check(d):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")

    for d in flatten(out_dims)[0]:
        check(d)
    incompatible = ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                              "with the structure of `outputs`.")
    if isinstance(output, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        raise incompatible
    dims = broadcast(out_dims, output)
    if dims is None:
        raise incompatible
    return dims


def _same(outs: list) -> bool:
    """Whether every slice's output is the same tensor, element for element (bit for bit)."""
    first = outs[0]
    return all(o.shape == first.shape and o.dtype == first.dtype and
               all(a == b and (a != 0 or str(a) == str(b)) or a != a and b != b
                   for a, b in zip(o.reshape(-1).tolist(), first.reshape(-1).tolist())) for o in outs[1:])


def _combine(func, outs: list, d, size: int, level: int):
    """The output of all slices for one output leaf, as PyTorch's ``_remove_batch_dim``."""
    name = _name(func)
    marked = any(batching.batched(o, level) for o in outs)
    if d is None:
        if isinstance(outs[0], Tensor) and (marked or not _same(outs)):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return outs[0]
    if not isinstance(outs[0], Tensor):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(outs[0])}. Did you "
                         "mean to set out_dims= to None for output?")
    if not marked and _same(outs):  # depends on no batched input: PyTorch expands the one result
        if d % (outs[0].dim() + 1) != 0:
            raise Unsupported("torch.func.vmap with out_dims other than 0 for an output that depends on no mapped "
                              "input", "PyTorch expands it without moving the new dimension")
        return outs[0].expand((size,) + tuple(outs[0].shape))
    return joins.stack(outs, d)


def _run(func, in_dims, out_dims, randomness: str, args: tuple, kwargs: dict):
    flat, dims, spec = _flat_in_dims(func, in_dims, args)
    size = _batch_size(flat, dims)
    if size == 0:
        raise Unsupported("torch.func.vmap over a dimension of size 0",
                          "scalargrad runs the function once per element, and there is none to give the output's shape")
    batching.push(size, randomness)
    try:
        level = batching.depth() - 1
        per_slice = []
        out_spec = None
        for i in range(size):
            sliced = []
            for x, d in zip(flat, dims):
                if d is None:
                    sliced.append(x)
                else:
                    s = x.select(d, i)
                    batching.mark(s)
                    sliced.append(s)
            if i == 0:
                output = func(*unflatten(sliced, spec), **kwargs)
            else:
                # PyTorch runs the function once: what it prints appears once, from the first element's run
                with contextlib.redirect_stdout(io.StringIO()):
                    output = func(*unflatten(sliced, spec), **kwargs)
            leaves, out_spec = flatten(output)
            per_slice.append(leaves)
        od = _flat_out_dims(func, out_dims, output)
        result = [_combine(func, [p[j] for p in per_slice], d, size, level) for j, d in enumerate(od)]
    finally:
        batching.pop()
    if levels.depth() == 0 and grad_mode.is_grad_enabled() and any(
            isinstance(r, Tensor) and r.requires_grad for r in result):
        raise Unsupported("torch.func.vmap at the top level of a function whose output requires grad",
                          "PyTorch's output would carry the grad_fn of its batching kernels; detach the tensors that "
                          "require grad, or differentiate inside the transform (vmap(grad(f)))")
    return unflatten(result, out_spec)


def vmap(func: Callable, in_dims=0, out_dims=0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """``func`` mapped over dimension ``in_dims`` of its inputs, the results stacked along
    ``out_dims``. ``chunk_size`` only splits PyTorch's work: the same values."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _run(func, in_dims, out_dims, randomness, args, kwargs)

    return wrapped
