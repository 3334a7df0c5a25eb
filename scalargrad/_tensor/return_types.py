"""``torch.return_types``: the named pairs functions with two results return (``x.max(0)``,
``torch.sort``, ``torch.max(x, 0, out=(v, i))``'s ``max_out``): one class per function, made by
``return_type(name)``."""

from __future__ import annotations

__all__ = ["ReturnTypes", "return_type"]


class ReturnTypes(tuple):
    """A (values, indices) pair, as PyTorch's ``torch.return_types`` structseqs: one class per
    function, named after it (``type(x.max(0)).__name__ == "max"``)."""

    __slots__ = ()
    _name = "max"

    def __new__(cls, name: str, values, indices):
        return tuple.__new__(return_type(name), (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


_RETURN_TYPES: dict[str, type] = {}
_FIELDS = {"slogdet": ("sign", "logabsdet"), "linalg_slogdet": ("sign", "logabsdet"),
           "linalg_lu_factor": ("LU", "pivots"), "linalg_lu_factor_ex": ("LU", "pivots", "info"),
           "linalg_cholesky_ex": ("L", "info"),
           "linalg_inv_ex": ("inverse", "info"),
           "_lu_with_info": ("LU", "pivots", "info"), "lu_unpack": ("P", "L", "U"), "linalg_lu": ("P", "L", "U"),
           "qr": ("Q", "R"), "linalg_qr": ("Q", "R"), "histogram": ("hist", "bin_edges"), "aminmax": ("min", "max"),
           "histogramdd": ("hist", "bin_edges"), "frexp": ("mantissa", "exponent"),
           "triangular_solve": ("solution", "cloned_coefficient")}
"""The field names of the pairs that are not (values, indices)."""


def _field(i: int) -> property:
    return property(lambda self: self[i])


def _fields_repr(self) -> str:
    body = ",\n".join(f"{f}={x!r}" for f, x in zip(_FIELDS[self._name], self))
    return f"torch.return_types.{self._name}(\n{body})"


def _fields_new(cls, name: str, *vals):
    return tuple.__new__(cls, vals)


def return_type(name: str) -> type:
    """The class ``torch.return_types.<name>``, made on first need."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        body = {"__slots__": (), "_name": name, "__module__": "torch.return_types", "__qualname__": name}
        fields = _FIELDS.get(name)
        if fields is not None:
            body.update({f: _field(i) for i, f in enumerate(fields)})
            body.update({"__repr__": _fields_repr, "__new__": _fields_new})
        cls = _RETURN_TYPES[name] = type(name, (ReturnTypes,), body)
    return cls
