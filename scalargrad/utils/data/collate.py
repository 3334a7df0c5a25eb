"""How a DataLoader turns a list of samples into a batch: ``default_collate`` and, without
automatic batching, ``default_convert`` (``torch/utils/data/_utils/collate.py`` in PyTorch 2.13).

Tensors are stacked along a new first dimension; Python floats become a float64 tensor, ints
(and bools) a tensor as ``torch.tensor`` makes it; strings and bytes stay a list; a mapping,
named tuple or sequence is collated field by field (a tuple of fields gives a list, as in
PyTorch).
"""

from __future__ import annotations

import collections.abc
import copy

from ..._base import dtypes
from ..._tensor.factories import as_tensor, tensor
from ..._tensor.joins import stack
from ..._tensor.tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_NOT_COLLATABLE = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_collate(batch):
    """One batch from the list of samples ``batch``."""
    elem = batch[0]
    cls = type(elem)
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if cls.__module__ == "numpy" and cls.__name__ not in ("str_", "string_"):
        if cls.__name__ in ("ndarray", "memmap"):
            return default_collate([as_tensor(b) for b in batch])
        return as_tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: default_collate([d[key] for d in batch]) for key in elem}
        return _same_mapping(elem, fields)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple
        return cls(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _same_sequence(elem, columns)
    raise TypeError(_NOT_COLLATABLE.format(cls))


def default_convert(data):
    """A sample as a DataLoader without automatic batching returns it (numpy arrays as tensors)."""
    cls = type(data)
    if isinstance(data, Tensor):
        return data
    if cls.__module__ == "numpy" and cls.__name__ not in ("str_", "string_"):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _same_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return cls(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _same_sequence(data, [default_convert(d) for d in data])
    return data


def _same_mapping(elem, fields: dict):
    """``fields`` in a mapping of ``elem``'s type when that type can be copied or built from a
    dict (keeping what else it carries), a plain dict otherwise."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(fields)
            return clone
        return type(elem)(fields)
    except TypeError:
        return fields


def _same_sequence(elem, items: list):
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, v in enumerate(items):
                clone[i] = v
            return clone
        return type(elem)(items)
    except TypeError:
        return items
