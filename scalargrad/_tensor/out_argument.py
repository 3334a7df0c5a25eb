"""``out=``: a torch function's result written into a tensor the caller gives.

PyTorch's out= variants (``torch.add(x, y, out=z)``; the basics tutorial's ``torch.mul(t, t,
out=z3)``) compute the result, write it into ``out`` and return ``out`` itself. scalargrad
computes the result as the function without ``out`` does, then writes it, with PyTorch's checks
in PyTorch's order:

1. ``out`` is a tensor (a tuple of as many tensors for the functions returning several:
   ``torch.max(x, 0, out=(values, indices))`` returns ``torch.return_types.max_out``);
2. nothing requires grad while grad mode is on, where the result is differentiable (floating
   point): out= variants are not differentiable;
3. the dtype: an elementwise op computes in its result's dtype and casts into ``out``'s where
   PyTorch's ``can_cast`` allows it (``torch.add(x32, y32, out=z64)`` is the float32 sum
   widened), except the unary ops that keep their input's dtype (abs, floor), which take only
   that dtype; every other function writes only into ``out`` of its result's own dtype and
   refuses another by name, since there the rule is the family's own (a reduction accumulates
   in ``out``'s dtype, ``mm`` refuses it);
4. memory: an elementwise op may write over one of its inputs element for element
   (``torch.add(y, y, out=y)``), never over part of one; another function never over an input
   (the input itself included), refused in PyTorch's words where its kernel checks (cat, median);
   an elementwise op checks memory first, then that an out which is also an input has the
   result's shape (TensorIterator never resizes it), then the dtype;
5. the shape: ``out`` of another shape is resized to the result's, with PyTorch's deprecation
   warning when it had elements (a factory's, silently); a tensor sharing its memory is refused
   by name (PyTorch would move its view over the storage);
6. the write: ``out``'s version moves on once; the tensors sharing its memory see the values.
Nothing is written when a check fails.
"""

from __future__ import annotations

import warnings

from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled, no_grad
from .._base.program_frame import program_stacklevel
from .inplace import check_cast, inplace
from .return_types import ReturnTypes
from .tensor import Tensor

__all__ = ["call_with_out", "CAST", "SAME", "RESIZED"]

# an elementwise op's rule for an out of another dtype (``fn.elementwise_out``): TensorIterator
# casts its result into out (binary ops, unary ops computing in floating point), or the unary
# ops keeping their input's dtype (abs, floor) refuse it; another string is the op's own refusal
CAST, SAME = "cast", "same"

RESIZED = ("An output with one or more elements was resized since it had shape {had}, which does not match the "
            "required output shape {need}. This behavior is deprecated, and in a future PyTorch release outputs will "
            "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
            "inplace, to zero elements with t.resize_(0). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")
_PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")


def _tensors(args, kwargs) -> list:
    """The tensors among a call's arguments, a list's (``torch.cat``) included."""
    found = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(t for t in a if isinstance(t, Tensor))
    return found


def _places(t: Tensor):
    """(store, positions) of ``t``'s elements in the memory it shares; None if it shares none."""
    s = t._s
    if s is None or s.store is None:
        return None
    return s.store, (range(t._t.numel) if s.index is None else s.index)


# the functions whose kernels check that out shares no memory with an input (ATen's assert_no_overlap)
_NO_OVERLAP = frozenset(("cat", "concat", "concatenate", "median", "nanmedian"))

# functions whose results are never differentiable (derivatives.yaml: non_differentiable outputs or
# none): their autograd kernels have no out= check, so an error of the function itself comes first
_NOT_DIFFERENTIABLE = frozenset((
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "argmax", "argmin", "isin", "isneginf", "isposinf",
    "signbit", "nonzero", "bucketize", "searchsorted"))


def _overlap(name: str, elementwise: bool) -> Exception:
    if elementwise or name in _NO_OVERLAP:
        return RuntimeError(_PARTIAL)
    return Unsupported(f"torch.{name}(out=...) where out shares memory with an input",
                       "PyTorch's result there depends on its kernel's order; pass a separate tensor")


def _check_memory(name: str, out: Tensor, inputs: list, elementwise: bool) -> None:
    mine = _places(out)
    if mine is None:  # out shares no memory: an input only if it is one of them
        if not elementwise and any(x is out for x in inputs):
            raise _overlap(name, False)
        return
    for x in inputs:
        theirs = _places(x) if x is not out else mine
        if theirs is None or theirs[0] is not mine[0]:
            continue
        if elementwise and list(theirs[1]) == list(mine[1]) and x._t.shape == out._t.shape:
            continue  # element for element over itself, as an in-place op
        if set(theirs[1]).isdisjoint(mine[1]):
            continue
        raise _overlap(name, elementwise)


def _resize(name: str, out: Tensor, shape: tuple, warns: bool) -> None:
    if tuple(out._t.shape) == shape:
        return
    if out._s is not None and out._s.store is not None:
        raise Unsupported(f"torch.{name}(out=...) of another shape than the result, where out shares its memory",
                          "PyTorch moves the view over its storage; pass a tensor of the result's shape")
    if warns and out._t.numel:
        warnings.warn(RESIZED.format(had=list(out._t.shape), need=list(shape)), UserWarning,
                      stacklevel=program_stacklevel())
    dt = out._t.dtype
    out._t = TensorType(dt, shape)
    n = out._t.numel
    out._val = [dt.round(0)] * n if shape else dt.round(0)  # overwritten by the write that follows


# functions whose kernels refuse an out of another dtype, in their words: the structured kernels'
# check (set_output_raw_strided: tril, triu, sort, and max/min along a dim, whose values and
# indices are a tuple) or clamp's with number bounds ("Found dtype"; tensor bounds cast, left out)
_EXPECTED = frozenset(("tril", "triu", "sort", "msort"))
_EXPECTED_SEVERAL = frozenset(("max", "min"))
_FOUND = frozenset(("clamp", "clip"))


# reductions whose out= kernel computes in out's dtype (mean_out: sum_out(result, self, dim, keepdim,
# result.scalar_type()) / count), as the function's dtype= argument does
_IN_OUT_DTYPE = frozenset(("mean",))


def _refused_dtype(name: str, several: bool, inputs: list) -> str | None:
    """How ``name``'s kernel words its refusal of an out of another dtype (None: not here)."""
    if name in _EXPECTED or several and name in _EXPECTED_SEVERAL:
        return "expected"
    if name in _FOUND and len(inputs) == 1:
        return "found"
    return None


def _check_one(name: str, out, result: Tensor, rule: str | None, refused: str | None = None) -> None:
    rd, od = result._t.dtype, out._t.dtype
    if od is not rd and refused == "expected":
        raise RuntimeError(f"Expected out tensor to have dtype {rd.c_name}, but got {od.c_name} instead")
    if od is not rd and refused == "found":
        raise RuntimeError(f"Found dtype {od.short} but expected {rd.short}")
    if rule == CAST:
        check_cast(rd, od)
    elif od is rd:
        return
    elif rule == SAME:
        raise RuntimeError(f"Found dtype {od.short} but expected {rd.short}")
    elif rule is not None:
        raise RuntimeError(rule)  # the op's own words (heaviside)
    else:
        raise Unsupported(f"torch.{name}(out=...) of another dtype ({out.dtype}) than its result ({result.dtype})",
                          "PyTorch's rule there is the function's own; pass out of the result's dtype")


def call_with_out(name: str, fn, args: tuple, kwargs: dict, out, rule: str | None, tuples: bool,
                  factory: bool = False):
    """``fn(*args, **kwargs)`` written into ``out`` as PyTorch's ``torch.<name>(..., out=out)``
    writes it; returns ``out`` (a ``torch.return_types.<name>_out`` of the tensors given for
    a function with several results: ``tuples``, one that takes a tuple of tensors). ``rule``:
    an elementwise op's dtype rule (``CAST``, ``SAME``, its own refusal), None for the rest;
    ``factory``: a factory's out (``torch.zeros(2, out=t)``), which PyTorch resizes without a
    warning and names ``aten::zeros`` in its autograd error."""
    several = tuples and isinstance(out, (tuple, list))
    if several and not all(isinstance(o, Tensor) for o in out):
        bad = next(o for o in out if not isinstance(o, Tensor))
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(bad).__name__}")
    if not several and not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    outs = tuple(out) if several else (out,)
    inputs = _tensors(args, kwargs)
    if (name in _IN_OUT_DTYPE and not several and "dtype" not in kwargs and out._t.dtype.is_floating_point
            and inputs and all(t._t.dtype.is_floating_point for t in inputs)):
        kwargs = {**kwargs, "dtype": out.dtype}  # ATen's mean_out sums in result.scalar_type()
    autograd = RuntimeError(f"{'aten::' * factory}{name}(): functions with out=... arguments don't support automatic "
                            "differentiation, but one of the arguments requires grad.")
    tracked = is_grad_enabled() and any(t.requires_grad for t in (*inputs, *outs))
    try:
        result = fn(*args, **kwargs)
    except RuntimeError:
        if tracked and name not in _NOT_DIFFERENTIABLE:  # the autograd kernel refuses before the function
            raise autograd from None
        raise
    results = tuple(result) if isinstance(result, tuple) else (result,)
    # a differentiable result (floating point: comparisons, logical ops and argmax are not)
    if tracked and any(r._t.dtype.is_floating_point for r in results):
        raise autograd
    if len(results) != len(outs):
        if several or len(results) == 1:
            raise TypeError(f"expected tuple of {len(results)} elements but got {len(outs)}")
        raise Unsupported(f"torch.{name}(out=...) of one tensor for a function with {len(results)} results")
    refused = _refused_dtype(name, several, inputs)
    for o, r in zip(outs, results):
        if rule is None:
            _check_one(name, o, r, rule, refused)
            _check_memory(name, o, inputs, False)
            continue
        # TensorIterator's order: memory overlap, then shape (an out that is also an input is
        # read and written, never resized), then dtype
        _check_memory(name, o, inputs, True)
        if tuple(o._t.shape) != tuple(r._t.shape) and any(x is o for x in inputs):
            raise RuntimeError(f"output with shape {list(o._t.shape)} doesn't match the broadcast shape "
                               f"{list(r._t.shape)}")
        _check_one(name, o, r, rule, refused)
    with no_grad():  # outside the graph: a non-differentiable result may fill a leaf that requires grad
        for o, r in zip(outs, results):
            _resize(name, o, tuple(r._t.shape), not factory)
            inplace(o, lambda t, r=r: r)
    if not several:
        return out
    if len(outs) != 2:
        return tuple(outs)
    return ReturnTypes(name + "_out", *outs)
