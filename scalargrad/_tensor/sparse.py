"""Sparse tensors: PyTorch 2.13's COO, CSR, CSC, BSR and BSC layouts, built, converted and printed.

A sparse tensor is a ``SparseTensor``, a subclass of ``Tensor`` (``isinstance(s, torch.Tensor)``
holds, as in PyTorch) that has none of a dense tensor's storage: its numbers live in dense
component tensors, ``_ind`` (COO: the ``(sparse_dim, nnz)`` indices; compressed layouts: the
compressed and the plain indices) and ``_vals`` (the values). No dense op can read it as if it
were dense: ``SparseTensor.__getattribute__`` answers only the names the class itself defines,
so a dense kernel reading ``_val`` or ``_t`` (its elements, its type) raises ``SparseRead``, and
every other Tensor method or operator raises ``Unsupported`` naming it and the layout. The ops
sparse tensors do have are in ``sparse_ops.py``, the conversions in ``sparse_conversion.py``.

Like PyTorch (without ``check_invariants=True``), the constructors accept indices out of range;
scalargrad then refuses any op that reads the elements (``to_dense``, ``coalesce``, arithmetic)
with PyTorch's invariant message instead of PyTorch's unspecified result. A tensor may be hybrid
(PyTorch's dense dimensions after the sparse ones: each stored element is a dense block, the values
``(nnz, *dense_shape)``, or ``(nnz, block rows, block columns, *dense_shape)`` for BSR and BSC).
Compressed layouts have two sparse dimensions and no batch dimensions here: batched ones are
refused by name. Nothing sparse requires grad: scalargrad has no sparse gradients, and refuses
``requires_grad`` by name.
"""

from __future__ import annotations

import warnings

from .._base import warn_once
from .._base.dtypes import Size, int64, round_list
from .._base.errors import Unsupported
from .._base.formatting import add_suffixes, format_data
from .._base.grad_mode import state as grad_state
from .._base.layout import contiguous_strides, numel
from .._base.program_frame import program_stacklevel
from .._base.refusals import SPARSE
from .factories import as_tensor, check_dtype, device, from_values, layout
from .tensor import Tensor, defaults, flat

__all__ = ["SparseTensor", "SparseRead", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
           "LAYOUTS", "ROW_COMPRESSED", "COL_COMPRESSED", "BLOCKED", "C_NAME", "new_sparse", "coo_entries",
           "check_coo", "check_compressed", "compressed_blocks", "refused", "dense_tensor", "ints", "finish",
           "layout_error", "index_tensor", "sparse_size", "with_values", "block_shape", "dense_shape", "DEVICE",
           "warn_unchecked", "warn_beta"]

sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
LAYOUTS = (sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc)
# how PyTorch's messages name a layout (c10::Layout's printing)
C_NAME = {"strided": "Strided", "sparse_coo": "Sparse", "sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc",
          "sparse_bsr": "SparseBsr", "sparse_bsc": "SparseBsc"}
ROW_COMPRESSED = (sparse_csr, sparse_bsr)
COL_COMPRESSED = (sparse_csc, sparse_bsc)
BLOCKED = (sparse_bsr, sparse_bsc)
_HINT = SPARSE + " (other ops need the dense tensor: to_dense())"


class SparseRead(Unsupported):
    """A dense operation reached a sparse tensor's (absent) dense storage."""

    def __init__(self, layout_name: str, op: str = "") -> None:
        self.layout_name = layout_name
        what = f"{op} on a torch.{layout_name} tensor" if op else f"a dense operation on a torch.{layout_name} tensor"
        super().__init__(what, _HINT)

    def named(self, op: str) -> SparseRead:
        """The same refusal naming the op the program called (``torch.exp``)."""
        return SparseRead(self.layout_name, op)


def refused(s: SparseTensor, name: str) -> Unsupported:
    """The refusal of ``name`` (a Tensor attribute) on sparse ``s``."""
    lay = object.__getattribute__(s, "_lay").name
    if name in Tensor.__slots__ or name == "_in":  # a dense kernel reading the storage it does not have
        return SparseRead(lay)
    return Unsupported(f"Tensor.{name} on a torch.{lay} tensor", _HINT)


class SparseTensor(Tensor):
    """A sparse tensor of any of PyTorch's sparse layouts (see the module's docstring)."""

    __slots__ = ("_lay", "_size", "_dt", "_ind", "_vals", "_coal")

    def __getattribute__(self, name: str):
        if name in _OWN:
            return object.__getattribute__(self, name)
        raise refused(self, name)

    # ------------------------------------------------------------ metadata

    @property
    def layout(self):
        return self._lay

    @property
    def dtype(self):
        return self._dt

    @property
    def shape(self) -> Size:
        return Size(self._size)

    @property
    def ndim(self) -> int:
        return len(self._size)

    def dim(self) -> int:
        return len(self._size)

    ndimension = dim

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._size)
        n = len(self._size)
        if not -max(n, 1) <= dim < max(n, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, {max(n, 1) - 1}], "
                             f"but got {dim})")
        return self._size[dim]

    def numel(self) -> int:
        return numel(self._size)

    nelement = numel

    def __len__(self) -> int:
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    @property
    def is_sparse(self) -> bool:
        return self._lay is sparse_coo

    @property
    def is_sparse_csr(self) -> bool:
        return self._lay is sparse_csr

    is_cuda = is_meta = is_quantized = is_nested = property(lambda self: False)

    @property
    def device(self):
        return DEVICE

    def get_device(self) -> int:
        return -1

    def is_floating_point(self) -> bool:
        return self._dt.is_floating_point

    def is_complex(self) -> bool:
        return False

    def element_size(self) -> int:
        return self._dt.itemsize

    # ------------------------------------------------------------ autograd: nothing sparse requires grad

    requires_grad = property(lambda self: False, lambda self, flag: self.requires_grad_(flag))
    grad_fn = grad = property(lambda self: None)
    is_leaf = property(lambda self: True)

    def requires_grad_(self, requires_grad: bool = True) -> SparseTensor:
        if requires_grad:
            raise Unsupported(f"requires_grad on a torch.{self._lay.name} tensor", "scalargrad has no sparse gradients")
        return self

    @property
    def data(self) -> SparseTensor:
        """The tensor outside any graph (a sparse tensor is in none): one sharing its components."""
        return self.detach()

    def detach(self) -> SparseTensor:
        """A new sparse tensor sharing this one's components."""
        return new_sparse(self._lay, self._size, self._ind, self._vals, self._coal)

    # ------------------------------------------------------------ components

    def _nnz(self) -> int:
        return self._ind[-1]._t.shape[-1] if self._lay is not sparse_coo else self._ind[0]._t.shape[1]

    def sparse_dim(self) -> int:
        return self._ind[0]._t.shape[0] if self._lay is sparse_coo else 2

    def dense_dim(self) -> int:
        return self._vals._t.ndim - (3 if self._lay in BLOCKED else 1)

    def is_coalesced(self) -> bool:
        self._need(sparse_coo, "is_coalesced")
        return self._coal

    def _indices(self) -> Tensor:
        if self._lay is not sparse_coo:
            raise Unsupported(f"Tensor._indices of a torch.{self._lay.name} tensor", _HINT)
        return self._ind[0]

    def _values(self) -> Tensor:
        if self._lay is not sparse_coo:
            raise Unsupported(f"Tensor._values of a torch.{self._lay.name} tensor", _HINT)
        return self._vals

    def indices(self) -> Tensor:
        self._need(sparse_coo, "indices")
        if not self._coal:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._ind[0]

    def values(self) -> Tensor:
        if self._lay is sparse_coo and not self._coal:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def crow_indices(self) -> Tensor:
        self._need(ROW_COMPRESSED, "crow_indices")
        return self._ind[0]

    def col_indices(self) -> Tensor:
        self._need(ROW_COMPRESSED, "col_indices")
        return self._ind[1]

    def ccol_indices(self) -> Tensor:
        self._need(COL_COMPRESSED, "ccol_indices")
        return self._ind[0]

    def row_indices(self) -> Tensor:
        self._need(COL_COMPRESSED, "row_indices")
        return self._ind[1]

    def _need(self, layouts, what: str) -> None:
        if self._lay is layouts or (layouts.__class__ is tuple and self._lay in layouts):
            return
        raise layout_error(what, layouts, self._lay)

    # ------------------------------------------------------------ printing

    def __repr__(self, *, tensor_contents=None) -> str:
        return _repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return _repr(self)

    def __bool__(self) -> bool:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous") if self.numel() != 1 \
            else Unsupported(f"bool() of a torch.{self._lay.name} tensor", _HINT)


# PyTorch has one class for every layout: type(s) prints as torch.Tensor's does
SparseTensor.__name__ = SparseTensor.__qualname__ = "Tensor"
SparseTensor.__module__ = "torch"


def layout_error(what: str, layouts, actual) -> RuntimeError:
    """PyTorch's refusal of an accessor on a tensor of another layout."""
    if layouts == "values":
        expected = "sparse tensor"
    elif layouts is sparse_coo:
        expected = "sparse coordinate tensor"
    elif layouts is ROW_COMPRESSED:
        expected = "sparse row compressed tensor"
    else:
        expected = "sparse column compressed tensor"
    return RuntimeError(f"{what} expected {expected} layout but got {C_NAME[actual.name]}")


DEVICE = device("cpu")
_OWN: frozenset = frozenset()


def finish() -> None:
    """Close the class once every family has bound Tensor's surface: the names a sparse tensor
    answers are those of its own class, and every dunder of Tensor it does not define refuses
    (Python finds an operator on the type, past ``__getattribute__``)."""
    global _OWN
    keep = {"__module__", "__doc__", "__slots__", "__new__", "__init__", "__weakref__", "__hash__",
            "__array_priority__", "__dict__", "__init_subclass__", "__class_getitem__"}
    own = set(vars(SparseTensor)) | {"__class__"}
    for name in list(vars(Tensor)):
        if name.startswith("__") and name.endswith("__") and name not in keep and name not in own:
            setattr(SparseTensor, name, _refusing(name))
    _OWN = frozenset(own)


def _refusing(name: str):
    def refuse(self, *args, **kwargs):
        raise refused(self, name)

    refuse.__name__ = name
    return refuse


def new_sparse(lay, size, ind: tuple, vals: Tensor, coalesced: bool = False) -> SparseTensor:
    """A sparse tensor of layout ``lay`` from its components (no check)."""
    s = object.__new__(SparseTensor)
    set_ = object.__setattr__
    set_(s, "_lay", lay)
    set_(s, "_size", tuple(size))
    set_(s, "_dt", vals._t.dtype)
    set_(s, "_ind", tuple(ind))
    set_(s, "_vals", vals)
    set_(s, "_coal", coalesced)
    return s


def ints(t: Tensor) -> list:
    """The elements of a dense integer tensor."""
    return flat(t)


def dense_tensor(x, dtype=None, what: str = "sparse_coo_tensor") -> Tensor:
    """``x`` (a dense tensor or nested lists) as a dense tensor of ``dtype`` (a tensor of that
    dtype itself: PyTorch's sparse tensor aliases the values it is given)."""
    if isinstance(x, SparseTensor):
        raise Unsupported(f"{what} with a sparse component", _HINT)
    dtype = check_dtype(dtype, what)
    t = x if isinstance(x, Tensor) else as_tensor(x)
    if t._rg and grad_state.enabled:
        raise Unsupported(f"{what} with values that require grad", "scalargrad has no sparse gradients")
    if dtype is not None and t._t.dtype is not dtype:
        t = from_values(round_list(dtype, flat(t)), t._t.shape, dtype)
    return t


# ---------------------------------------------------------------- PyTorch's warnings

_AT = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/{}.)"


def warn_unchecked(check_invariants) -> None:
    """PyTorch's once-per-process warning of a constructor called without ``check_invariants``."""
    if check_invariants is None and warn_once.first_time("sparse invariants"):
        warnings.warn("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur "
                      "when operating on a sparse tensor which violates the invariants, but checks incur performance "
                      "overhead. To silence this warning, explicitly opt in or out. See "
                      "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance. "
                      + _AT.format("Context.cpp:816"), UserWarning, stacklevel=program_stacklevel())


def warn_beta(layout) -> None:
    """PyTorch's once-per-process warning at the first compressed tensor (naming its layout)."""
    if warn_once.first_time("sparse compressed beta"):
        warnings.warn(f"Sparse {layout.name[7:].upper()} tensor support is in beta state. If you miss a functionality "
                      "in the sparse tensor support, please submit a feature request to "
                      "https://github.com/pytorch/pytorch/issues." + _AT.format("SparseCsrTensorImpl.cpp:49"),
                      UserWarning, stacklevel=program_stacklevel())


# ---------------------------------------------------------------- COO: entries and invariants


def coo_entries(s: SparseTensor) -> list:
    """[(sparse index tuple, block of values)] in storage order; the indices checked."""
    check_coo(s)
    ind, vals = s._ind[0], s._vals
    sd, nnz = ind._t.shape
    idx = ints(ind)
    vs = flat(vals)
    block = numel(vals._t.shape[1:])
    return [(tuple(idx[d * nnz + k] for d in range(sd)), vs[k * block:(k + 1) * block]) for k in range(nnz)]


def check_coo(s: SparseTensor) -> None:
    """PyTorch's invariants of a COO tensor's indices (``check_invariants=True``'s messages)."""
    ind = s._ind[0]
    sd, nnz = ind._t.shape
    idx = ints(ind)
    for d in range(sd):
        row = idx[d * nnz:(d + 1) * nnz]
        if row and min(row) < 0:
            raise RuntimeError(f"found negative index {min(row)} for dim {d}")
    for d in range(sd):
        row = idx[d * nnz:(d + 1) * nnz]
        if row and max(row) >= s._size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {s._size[d]} but found "
                               f"index {max(row)}")


def linear(index: tuple, strides: tuple) -> int:
    return sum(i * st for i, st in zip(index, strides))


def coo_strides(s: SparseTensor) -> tuple:
    return contiguous_strides(s._size[:s._ind[0]._t.shape[0]])


# ---------------------------------------------------------------- compressed layouts: blocks and invariants


def block_shape(s: SparseTensor) -> tuple:
    return tuple(s._vals._t.shape[1:3]) if s._lay in BLOCKED else (1, 1)


def dense_shape(s: SparseTensor) -> tuple:
    """The shape of the dense part of each stored element (``()`` unless hybrid)."""
    return tuple(s._vals._t.shape[3 if s._lay in BLOCKED else 1:])


def check_compressed(s: SparseTensor) -> None:
    """PyTorch's invariants of a compressed tensor (``check_invariants=True``'s messages)."""
    row = s._lay in ROW_COMPRESSED
    cname, pname = ("crow_indices", "col_indices") if row else ("ccol_indices", "row_indices")
    bh, bw = block_shape(s)
    nrows, ncols = s._size[0] // bh, s._size[1] // bw
    ncomp, nplain = (nrows, ncols) if row else (ncols, nrows)
    comp, plain = ints(s._ind[0]), ints(s._ind[1])
    if comp[0] != 0:
        raise RuntimeError(f"`{cname}[..., 0] == 0` is not satisfied.")
    if comp[-1] != len(plain):
        raise RuntimeError(f"`{cname}[..., -1] == nnz` is not satisfied.")
    if any(not 0 <= b - a <= nplain for a, b in zip(comp, comp[1:])):
        raise RuntimeError(f"`0 <= {cname}[..., 1:] - {cname}[..., :-1] <= {'ncols' if row else 'nrows'}` is not "
                           "satisfied.")
    if any(not 0 <= p < nplain for p in plain):
        raise RuntimeError(f"`0 <= {pname} < {'ncols' if row else 'nrows'}` is not satisfied.")
    for i in range(ncomp):
        seg = plain[comp[i]:comp[i + 1]]
        if any(a >= b for a, b in zip(seg, seg[1:])):
            raise RuntimeError(f"`{pname}[..., {cname}[..., i - 1]:{cname}[..., i]] for all i = 1, ..., "
                               f"{'nrows' if row else 'ncols'} are sorted and distinct along the last dimension "
                               "values` is not satisfied.")


def compressed_blocks(s: SparseTensor) -> list:
    """[(block row, block column, block values)] in storage order (a block's values row-major,
    each element's dense part after it: ``bh * bw * numel(dense_shape)`` numbers); the invariants
    checked."""
    check_compressed(s)
    row = s._lay in ROW_COMPRESSED
    comp, plain = ints(s._ind[0]), ints(s._ind[1])
    vs = flat(s._vals)
    bh, bw = block_shape(s)
    n = bh * bw * numel(dense_shape(s))
    out = []
    for c in range(len(comp) - 1):
        for k in range(comp[c], comp[c + 1]):
            r, col = (c, plain[k]) if row else (plain[k], c)
            out.append((r, col, vs[k * n:(k + 1) * n]))
    return out


# ---------------------------------------------------------------- printing


def _component(t: Tensor, indent: int) -> str:
    shape = t._t.shape
    text = format_data(flat(t), shape, t._t.dtype.is_floating_point, indent)
    return text + (f", size={tuple(shape)!r}" if numel(shape) == 0 else "")


def _repr(s: SparseTensor) -> str:
    """``torch/_tensor_str.py``'s print of a sparse tensor: its components, then size, nnz,
    dtype (when not implied) and layout, the first suffix on a line of its own for COO."""
    indent = len("tensor(")
    dt = s._dt
    suffixes = [f"size={tuple(s._size)!r}", f"nnz={s._nnz()}"]
    if not (dt is defaults["dtype"] or dt.name in ("int64", "bool")):
        suffixes.append(f"dtype={dt!r}")
    pad = ",\n" + " " * indent
    if s._lay is sparse_coo:
        text = ("indices=tensor(" + _component(s._ind[0], indent + 15) + ")" + pad + "values=tensor("
                + _component(s._vals, indent + 14) + ")")
    else:
        c, p = ("crow", "col") if s._lay in ROW_COMPRESSED else ("ccol", "row")
        text = (f"{c}_indices=tensor(" + _component(s._ind[0], indent + len(c) + 16) + ")" + pad
                + f"{p}_indices=tensor(" + _component(s._ind[1], indent + len(p) + 16) + ")" + pad
                + "values=tensor(" + _component(s._vals, indent + 14) + ")")
    suffixes.append(f"layout={s._lay!r}")
    return add_suffixes("tensor(" + text, suffixes, indent, force_newline=s._lay is sparse_coo)


def sparse_size(size, what: str) -> tuple:
    """A constructor's ``size`` as a tuple of non-negative ints."""
    if isinstance(size, int) or not isinstance(size, (tuple, list)):
        raise TypeError(f"{what}(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    out = tuple(int(n) if isinstance(n, int) and not isinstance(n, bool) else n for n in size)
    for n in out:
        if not isinstance(n, int):
            raise TypeError(f"{what}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(n).__name__}")
    if any(n < 0 for n in out):
        raise RuntimeError("numel: integer multiplication overflow")
    return out


def index_tensor(x, what: str) -> Tensor:
    """Indices as an int64 dense tensor (floats truncated, as PyTorch's conversion does)."""
    t = dense_tensor(x, None, what)
    if t._t.dtype is not int64:
        t = from_values([int(v) for v in flat(t)], t._t.shape, int64)
    return t


def with_values(s: SparseTensor, vals: Tensor, coalesced: bool | None = None) -> SparseTensor:
    """``s``'s structure (its index tensors, shared) with new values."""
    return new_sparse(s._lay, s._size, s._ind, vals, s._coal if coalesced is None else coalesced)


_OWN = frozenset(vars(SparseTensor)) | {"__class__"}  # until finish() runs
