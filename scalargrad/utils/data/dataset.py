"""``torch.utils.data`` datasets: Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset,
and ``random_split``, as PyTorch 2.13 defines them (``torch/utils/data/dataset.py``)."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Generic, TypeVar

from ..._tensor.random_factories import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "Subset", "ConcatDataset", "ChainDataset",
           "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses give ``__getitem__`` (and usually ``__len__``).
    Generic, as PyTorch's is: ``class Pairs(Dataset[tuple])`` works."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """An iterable-style dataset: subclasses give ``__iter__``; a DataLoader batches what it yields."""

    def __iter__(self):
        raise NotImplementedError(f"Subclasses of IterableDataset should implement __iter__. "
                                  f"{type(self).__name__} does not.")

    def __add__(self, other) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """``TensorDataset(*tensors)``: sample ``i`` is ``(t[i] for t in tensors)``; all tensors
    must have the same first dimension."""

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """``StackDataset(*datasets)`` or ``StackDataset(**datasets)``: sample ``i`` is the tuple
    (or dict) of the datasets' samples ``i``; all must have the same length."""

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class Subset(Dataset):
    """``Subset(dataset, indices)``: the samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        many = getattr(self.dataset, "__getitems__", None)
        if callable(many):
            return many([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """``ConcatDataset(datasets)``: the samples of each dataset, one dataset after the other."""

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """``ChainDataset(datasets)``: the iterable datasets one after the other, lazily."""

    def __init__(self, datasets) -> None:
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


def random_split(dataset, lengths: Sequence, generator=None) -> list:
    """Split ``dataset`` into Subsets of the given ``lengths`` (or fractions summing to 1) over
    one ``randperm`` of its indices drawn from ``generator`` (the default generator if None)."""
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * frac))
        # what flooring left over goes one by one to the splits in turn
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    out = []
    end = 0
    for n in lengths:
        out.append(Subset(dataset, indices[end:end + n]))
        end += n
    return out
