"""One linalg node with several outputs (slogdet's sign and log|det|, qr's Q and R), none a view.

The node itself is a hidden tensor holding every output's elements one after another; each output
is a tensor whose op hands its gradient to it (``_ext.pick``), as joins' unbind does, so hooks,
``output_nr`` and ``next_functions`` are PyTorch's. The node's backward receives the outputs'
gradients as a list (None for an output that got none), or, from the SymPy check's probe, one
tensor of the hidden node's shape."""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._ops.table import version_error
from .._ops.views import Layout
from .joins import _pick_op
from .tensor import ext, leaf, make, next_seq

__all__ = ["several_outputs", "remember_versions", "check_versions"]


def several_outputs(op, A, parts: list, types: list, c) -> list:
    """The outputs (flat values ``parts[i]`` of type ``types[i]``) of one node of ``op`` on ``A``
    (a tensor, or a tuple of them); ``c`` (with slots ``outputs`` and ``outputs_types``) is the
    node's. Plain tensors when no gradient is recorded."""
    flat = [x for p in parts for x in p]
    dt = types[0].dtype
    hidden = make(op, TensorType(dt, (len(flat),)), flat, A if isinstance(A, tuple) else (A,), c)
    outs = []
    start = 0
    for i, (vals, t) in enumerate(zip(parts, types)):
        value = vals if t.ndim else vals[0]
        if hidden._op is None:
            outs.append(leaf(value, t))
            continue
        o = make(_pick_op(op), t, value, (hidden,), Layout((len(flat),), dt, map=list(range(start, start + len(vals)))))
        o._op = o._op.base  # a pick is handed its gradient by the engine, whatever its shape
        o._seq = next_seq()
        ext(o).pick = (hidden, i)
        outs.append(o)
        start += len(vals)
    if hidden._op is not None:
        c.outputs = c.outputs_types = tuple(types)
    return outs


def remember_versions(c, saved: list, outputs: bool = True) -> None:
    """Record the versions of the tensors the node saves (``c.versions``), as PyTorch's
    SavedVariables do: its own outputs (named by their number), or other tensors (pivots)."""
    c.versions = [(o, o._version, outputs) for o in saved]


def check_versions(c, name: str) -> None:
    """PyTorch's error when a saved tensor was changed in place since the node saved it."""
    for i, (o, then, output) in enumerate(getattr(c, "versions", ())):
        now = o._version
        if now != then:
            raise version_error(o, f", which is output {i} of {name}," if output else "", now, then)
