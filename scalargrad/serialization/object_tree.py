"""The saved object tree as JSON, with its tensors in a table and their elements in storages.

The tree keeps JSON's own values for ``None``, ``bool``, ``int``, finite ``float``, ``str`` and
``list``; every other value is a JSON object tagged by ``"kind"``:

========================  ==========================================================
``{"kind": "float"}``     ``"value"``: ``"nan"``, ``"inf"`` or ``"-inf"``
``tuple`` / ``Size``      ``"items"``: the elements
``set`` / ``frozenset``   ``"items"``: the elements
``dict`` / ``OrderedDict``  ``"items"``: ``[key, value]`` pairs in order (keys of any kind:
/ ``Counter``             an optimizer's state has int keys); an OrderedDict's
                          ``_metadata`` (a state_dict's versions) as ``"metadata"``
``bytes``                 ``"hex"``
``dtype``                 ``"name"`` (``"float32"``)
``device``                ``"type"``, ``"index"``
``tensor``                ``"index"``: its row in the tensor table
``global``                ``"name"``: a class or function by its module and qualified
                          name (``__main__.Net``, ``torch.nn.functional.relu``): a reference
                          only, never code
``object``                ``"class"``: a ``global``; ``"state"``: its ``__dict__`` (a whole
                          ``nn.Module``, or an instance of a plain class without a
                          ``__reduce__``, ``__getstate__`` or ``__slots__`` of its own)
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

import importlib
import math
import pickle
import sys
import types
from collections import Counter, OrderedDict

from .._base import dtypes
from .._base.errors import Unsupported
from .._tensor.factories import device
from .._tensor.storage import alias
from .._tensor.tensor import Tensor, leaf
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..optim.optimizer import Optimizer

__all__ = ["Encoder", "decode", "shown_name"]

MAX_DEPTH = 200
# collections.Counter is plain data too: PyTorch's weights_only loader allows it (MultiStepLR's milestones)
_CONTAINERS = (list, tuple, dtypes.Size, set, frozenset, dict, OrderedDict, Counter)
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
        if cls in _CONTAINERS or _instance_kind(obj):
            if depth >= MAX_DEPTH:
                raise Unsupported(f"torch.save of containers nested more than {MAX_DEPTH} deep")
            if id(obj) in self._open:
                raise Unsupported("torch.save of a container that contains itself")
            self._open.add(id(obj))
            try:
                if cls in _CONTAINERS:
                    return self._container(obj, cls, depth + 1)
                return {"kind": "object", "class": global_name(cls),
                        "state": self._container(dict(obj.__dict__), dict, depth + 1)}
            finally:
                self._open.discard(id(obj))
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            return {"kind": "global", "name": global_name(obj)}
        raise _refusal(obj)

    def _container(self, obj, cls, depth: int):
        if cls is list:
            return [self._value(v, depth) for v in obj]
        if cls in (dict, OrderedDict, Counter):
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


def _instance_kind(obj) -> bool:
    """Is ``obj`` saved as an object (class reference and ``__dict__``), as pickle's default
    protocol would save it: a Module, or a plain class's instance? An optimizer stays refused."""
    if isinstance(obj, Optimizer) or isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return False
    if isinstance(obj, Module):
        return True
    cls = type(obj)
    if cls.__module__ == "builtins" or not hasattr(obj, "__dict__") or "__slots__" in vars(cls):
        return False
    return (cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
            and getattr(cls, "__getstate__", object.__getstate__) is object.__getstate__)


def global_name(obj) -> str:
    """``module.qualname`` of a class or function that can be found again by that name (what
    pickle stores); pickle's errors for one that cannot (a local function, a lambda)."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if module is None or qualname is None:
        raise pickle.PicklingError(f"Can't pickle {obj!r}: it has no module or qualified name")
    if "<locals>" in qualname:
        raise AttributeError(f"Can't pickle local object '{qualname}'")
    if module == "scalargrad" or module.startswith("scalargrad."):
        module = "torch" + module[len("scalargrad"):]  # scalargrad's functions under PyTorch's names
    if find_global(module, qualname) is not obj:
        raise pickle.PicklingError(f"Can't pickle {obj!r}: attribute lookup {qualname} on {module} failed")
    return f"{module}.{qualname}"


def shown_name(value) -> str:
    """The name a scalargrad class or function goes by in PyTorch (``torch.nn.modules.linear.Linear``)."""
    module = getattr(value, "__module__", None) or ""
    if module == "scalargrad" or module.startswith("scalargrad."):
        module = "torch" + module[len("scalargrad"):]
    return f"{module}.{getattr(value, '__qualname__', '')}"


_torch_names: dict = {}  # "torch.nn.modules.linear.Linear" -> scalargrad's class shown under that path


def find_global(module: str, qualname: str):
    """The class or function ``module.qualname`` among modules already imported (and
    scalargrad's own, whose classes show PyTorch's paths); None if there is none. Nothing is
    imported on a file's say."""
    if module == "torch" or module.startswith("torch."):
        name = f"{module}.{qualname}"
        found = _torch_names.get(name)
        if found is None:
            for mod in list(sys.modules.values()):
                if getattr(mod, "__name__", "").startswith("scalargrad"):
                    for value in list(vars(mod).values()):
                        if isinstance(value, (type, types.FunctionType)) and shown_name(value) == name:
                            _torch_names[name] = found = value
            if found is None and module in sys.modules:
                found = _walk(sys.modules[module], qualname)
        return found
    if module.startswith("scalargrad"):
        try:
            return _walk(importlib.import_module(module), qualname)  # scalargrad's own code only
        except ImportError:
            return None
    mod = sys.modules.get(module)
    return None if mod is None else _walk(mod, qualname)


def _walk(obj, qualname: str):
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _set_order(v) -> tuple:
    # a set's elements in a stable order, so that saving the same set twice writes the same bytes
    return (type(v).__name__, repr(v))


def _refusal(obj) -> Unsupported:
    cls = type(obj)
    if isinstance(obj, Optimizer):
        return Unsupported(f"torch.save of a whole optimizer ({cls.__name__})",
                           "save optimizer.state_dict() and restore it with "
                           "optimizer.load_state_dict(torch.load(f))")
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    return Unsupported(f"torch.save of a {name} object",
                       f"scalargrad saves plain data, never pickled objects: {_PLAIN}")


WEIGHTS_ONLY = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those steps "
    "only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default value of "
    "the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
    "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please check "
    "the recommended steps in the following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL "
    "{name} was not an allowed global by default. Please use `torch.serialization.add_safe_globals([{name}])` or "
    "the `torch.serialization.safe_globals([{name}])` context manager to allowlist this global if you trust this "
    "class/function.\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def decode(tree, tensor_rows: list, storages: list, weights_only: bool = True, allowed: frozenset = frozenset()):
    """The object that ``Encoder`` turned into ``tree``; ``storages`` holds each storage's
    elements (a list per storage number). With ``weights_only``, a class or function not in
    ``allowed`` (``module.qualname`` names) raises PyTorch's UnpicklingError, the first one met
    in the order pickle would meet it."""
    tensors = _rebuild_tensors(tensor_rows, storages)
    return _object(tree, tensors, (weights_only, allowed))


def _global(name: str, rules):
    weights_only, allowed = rules
    if weights_only and name not in allowed:
        raise pickle.UnpicklingError(WEIGHTS_ONLY.format(name=name))
    module, _, qualname = name.rpartition(".")
    found = find_global(module, qualname)
    while found is None and "." in module:  # a nested class: split the name further left
        module, _, head = module.rpartition(".")
        qualname = f"{head}.{qualname}"
        found = find_global(module, qualname)
    if found is None:
        raise Unsupported(f"torch.load of an object whose class or function {name} the program has not defined or "
                          "imported", "scalargrad never imports or runs code a file names: define or import it "
                          "before loading, as pickle would need it too")
    return found


def _instance(node, tensors: list, rules):
    cls = _global(node["class"], rules)
    # only what save writes: a Module, or a plain class (pickle's default protocol, no slots); the
    # object is made without calling __init__ and given its attributes, as pickle does
    plain = isinstance(cls, type) and (issubclass(cls, Module) or (
        cls.__module__ != "builtins" and "__slots__" not in vars(cls) and cls.__reduce_ex__ is object.__reduce_ex__
        and cls.__reduce__ is object.__reduce__))
    if not plain:
        raise Unsupported(f"torch.load of an object of {node['class']}",
                          "scalargrad rebuilds only Modules and plain classes' instances from a file")
    obj = cls.__new__(cls)
    state = _object(node["state"], tensors, rules)
    setstate = getattr(cls, "__setstate__", None)
    if setstate is not None and setstate is not getattr(object, "__setstate__", None):
        obj.__setstate__(state)  # the class's own way, as pickle lets it decide
    else:
        obj.__dict__.update(state)
    return obj


def _object(node, tensors: list, rules):
    cls = node.__class__
    if node is None or cls in (bool, int, float, str):
        return node
    if cls is list:
        return [_object(v, tensors, rules) for v in node]
    if cls is not dict:
        raise _corrupt(f"a value of JSON type {cls.__name__}")
    kind = node.get("kind")
    if kind in _MAPPINGS:
        out = _MAPPINGS[kind](
            (_object(k, tensors, rules), _object(v, tensors, rules)) for k, v in node["items"])
        if "metadata" in node:
            out._metadata = _object(node["metadata"], tensors, rules)
        return out
    if kind == "tensor":
        return tensors[node["index"]]
    if kind == "object":
        return _instance(node, tensors, rules)
    if kind == "global":
        return _global(node["name"], rules)
    if kind in _SEQUENCES:
        return _SEQUENCES[kind](_object(v, tensors, rules) for v in node["items"])
    if kind == "float":
        return float(node["value"])
    if kind == "dtype":
        return dtypes.by_name(node["name"])
    if kind == "device":
        return device(node["type"], node["index"])
    if kind == "bytes":
        return bytes.fromhex(node["hex"])
    raise _corrupt(f"an unknown kind of value {kind!r}")


_MAPPINGS = {"dict": dict, "OrderedDict": OrderedDict, "Counter": lambda pairs: Counter(dict(pairs))}
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
