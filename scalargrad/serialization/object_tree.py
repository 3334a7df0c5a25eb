"""The saved object tree as JSON, with its tensors in a table and their elements in storages.

The tree keeps JSON's own values for ``None``, ``bool``, ``int``, finite ``float``, ``str`` and
``list``; every other value is a JSON object tagged by ``"kind"``:

========================  ==========================================================
``{"kind": "float"}``     ``"value"``: ``"nan"``, ``"inf"`` or ``"-inf"``
``tuple`` / ``Size``      ``"items"``: the elements
``set`` / ``frozenset``   ``"items"``: the elements
``dict`` / ``OrderedDict``  ``"items"``: ``[key, value]`` pairs in order (keys of any kind:
                          an optimizer's state has int keys); an OrderedDict's
                          ``_metadata`` (a state_dict's versions) as ``"metadata"``
``bytes``                 ``"hex"``
``dtype``                 ``"name"`` (``"float32"``)
``device``                ``"type"``, ``"index"``
``tensor``                ``"index"``: its row in the tensor table
========================  ==========================================================

A tensor row: ``dtype``, ``shape``, ``stride``, ``storage_offset``, ``requires_grad``,
``parameter`` (an ``nn.Parameter``), ``storage`` (its storage's number) and ``positions``
(where its elements sit in the storage, row-major; absent when they are the whole storage in
order). Tensors that share memory when saved (views, ``detach()``, a state_dict's entries and
their parameters) share one storage, and share memory again when loaded, as in PyTorch; one
tensor object saved twice is loaded as one object. Like PyTorch, a saved tensor loads as a
leaf: its ``grad_fn`` and ``.grad`` are not saved, its ``requires_grad`` is.
"""

from __future__ import annotations

import math
from collections import OrderedDict

from .._base import dtypes
from .._base.errors import Unsupported
from .._tensor.factories import device
from .._tensor.storage import alias
from .._tensor.tensor import Tensor, leaf
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..optim.optimizer import Optimizer

__all__ = ["Encoder", "decode"]

MAX_DEPTH = 200
_PLAIN = ("tensors, numbers, strings, None, booleans, dtypes, devices, and lists, tuples, dicts and sets of "
          "them")


class Encoder:
    """Turns one object into its JSON tree; ``tensors`` and ``storages`` fill as it goes."""

    def __init__(self) -> None:
        self.tensors: list = []  # tensor rows
        self.storages: list = []  # (dtype, elements) per storage
        self._tensor_index: dict = {}  # id(tensor) -> row
        self._kept: list = []  # the tensors seen, alive while their ids are keys
        self._storage_index: dict = {}  # (id(store), dtype name) -> storage number
        self._open: set = set()  # ids of the containers being encoded (a cycle check)

    def encode(self, obj) -> object:
        """The JSON tree of ``obj`` (raises Unsupported for what is not plain data)."""
        return self._value(obj, 0)

    def _value(self, obj, depth: int):
        cls = obj.__class__
        if obj is None or cls is bool or cls is int or cls is str:
            return obj
        if cls is float:
            if math.isfinite(obj):
                return obj
            return {"kind": "float", "value": "nan" if obj != obj else ("inf" if obj > 0 else "-inf")}
        if isinstance(obj, Tensor):
            return {"kind": "tensor", "index": self._tensor(obj)}
        if cls is dtypes.dtype:
            return {"kind": "dtype", "name": obj.name}
        if cls is device:
            return {"kind": "device", "type": obj.type, "index": obj.index}
        if cls is bytes:
            return {"kind": "bytes", "hex": obj.hex()}
        if cls in (list, tuple, dtypes.Size, set, frozenset, dict, OrderedDict):
            if depth >= MAX_DEPTH:
                raise Unsupported(f"torch.save of containers nested more than {MAX_DEPTH} deep")
            if id(obj) in self._open:
                raise Unsupported("torch.save of a container that contains itself")
            self._open.add(id(obj))
            try:
                return self._container(obj, cls, depth + 1)
            finally:
                self._open.discard(id(obj))
        raise _refusal(obj)

    def _container(self, obj, cls, depth: int):
        if cls is list:
            return [self._value(v, depth) for v in obj]
        if cls in (dict, OrderedDict):
            out = {"kind": cls.__name__, "items": [[self._value(k, depth), self._value(v, depth)]
                                                  for k, v in obj.items()]}
            meta = getattr(obj, "_metadata", None)
            if meta is not None:
                out["metadata"] = self._value(meta, depth)
            return out
        name = "Size" if cls is dtypes.Size else cls.__name__
        items = sorted(obj, key=_set_order) if cls in (set, frozenset) else obj
        return {"kind": name, "items": [self._value(v, depth) for v in items]}

    def _tensor(self, t: Tensor) -> int:
        row = self._tensor_index.get(id(t))
        if row is not None:
            return row
        tt = t._t
        dt = tt.dtype
        numel = tt.numel
        s = t._s
        st = s.store if s is not None else None
        positions = None
        offset = 0
        if st is None:
            storage = len(self.storages)
            self.storages.append((dt, list(t._val) if tt.ndim else [t._val]))
        else:
            key = (id(st), dt.name)
            storage = self._storage_index.get(key)
            if storage is None:
                storage = self._storage_index[key] = len(self.storages)
                self.storages.append((dt, list(st.data)))
            if s.index is not None:
                positions = list(s.index)
            elif numel != len(st.data):
                positions = list(range(numel))
            offset = s.offset
        rec = {"dtype": dt.name, "shape": list(tt.shape), "stride": list(tt.strides), "storage_offset": offset,
               "requires_grad": t._rg, "parameter": isinstance(t, Parameter), "storage": storage}
        if positions is not None:
            rec["positions"] = positions
        row = self._tensor_index[id(t)] = len(self.tensors)
        self.tensors.append(rec)
        self._kept.append(t)
        return row


def _set_order(v) -> tuple:
    # a set's elements in a stable order, so that saving the same set twice writes the same bytes
    return (type(v).__name__, repr(v))


def _refusal(obj) -> Unsupported:
    cls = type(obj)
    if isinstance(obj, Module):
        return Unsupported(f"torch.save of a whole Module ({cls.__name__})",
                           "scalargrad saves plain data, never pickled objects: save model.state_dict() and "
                           "restore it with model.load_state_dict(torch.load(f))")
    if isinstance(obj, Optimizer):
        return Unsupported(f"torch.save of a whole optimizer ({cls.__name__})",
                           "save optimizer.state_dict() and restore it with "
                           "optimizer.load_state_dict(torch.load(f))")
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    return Unsupported(f"torch.save of a {name} object",
                       f"scalargrad saves plain data, never pickled objects: {_PLAIN}")


def decode(tree, tensor_rows: list, storages: list) -> object:
    """The object that ``Encoder`` turned into ``tree``; ``storages`` holds each storage's
    elements (a list per storage number)."""
    tensors = _rebuild_tensors(tensor_rows, storages)
    return _object(tree, tensors)


def _object(node, tensors: list):
    cls = node.__class__
    if node is None or cls in (bool, int, float, str):
        return node
    if cls is list:
        return [_object(v, tensors) for v in node]
    if cls is not dict:
        raise _corrupt(f"a value of JSON type {cls.__name__}")
    kind = node.get("kind")
    if kind in ("dict", "OrderedDict"):
        out = (dict if kind == "dict" else OrderedDict)(
            (_object(k, tensors), _object(v, tensors)) for k, v in node["items"])
        if "metadata" in node:
            out._metadata = _object(node["metadata"], tensors)
        return out
    if kind == "tensor":
        return tensors[node["index"]]
    if kind in _SEQUENCES:
        return _SEQUENCES[kind](_object(v, tensors) for v in node["items"])
    if kind == "float":
        return float(node["value"])
    if kind == "dtype":
        return dtypes.by_name(node["name"])
    if kind == "device":
        return device(node["type"], node["index"])
    if kind == "bytes":
        return bytes.fromhex(node["hex"])
    raise _corrupt(f"an unknown kind of value {kind!r}")


_SEQUENCES = {"tuple": tuple, "Size": dtypes.Size, "set": set, "frozenset": frozenset}


def _rebuild_tensors(rows: list, storages: list) -> list:
    users: dict = {}
    for rec in rows:
        users[rec["storage"]] = users.get(rec["storage"], 0) + 1
    roots: dict = {}  # storage number -> a hidden tensor over the whole storage (when shared)
    out = []
    for rec in rows:
        dt = dtypes.by_name(rec["dtype"])
        shape = tuple(rec["shape"])
        k = rec["storage"]
        data = storages[k]
        positions = rec.get("positions")
        values = list(data) if positions is None else [data[p] for p in positions]
        tt = dtypes.TensorType(dt, shape, tuple(rec["stride"]))
        if tt.numel != len(values):
            raise _corrupt(f"a tensor of shape {list(shape)} with {len(values)} elements")
        t = leaf(values if shape else values[0], tt)
        if users[k] > 1:
            root = roots.get(k)
            if root is None:
                root = roots[k] = leaf(data, dtypes.TensorType(dt, (len(data),)))
            # loaded tensors share memory as PyTorch's do, each with its own version counter
            alias(root, t, index=positions, share_version=False, offset=rec["storage_offset"])
        if rec["parameter"]:
            t = Parameter(t, requires_grad=rec["requires_grad"])
        elif rec["requires_grad"]:
            t._rg = True
        out.append(t)
    return out


def _corrupt(what: str) -> RuntimeError:
    return RuntimeError(f"torch.load: the file is damaged: its object tree holds {what}")
