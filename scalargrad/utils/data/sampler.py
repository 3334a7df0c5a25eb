"""``torch.utils.data`` samplers: which indices a DataLoader fetches, in PyTorch's exact order.

RandomSampler without a generator draws a seed from the default generator as
``torch.empty((), dtype=torch.int64).random_()`` does (``rng.random_int64``) when iteration
starts, seeds a fresh Generator with it, and takes ``randperm`` from that: the same
permutation as PyTorch after the same ``torch.manual_seed``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Generic, TypeVar

from ..._base import rng
from ..._tensor.random_factories import randint, randperm

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class of samplers: an iterable of indices (or of lists of indices); generic
    (``Sampler[int]``) as PyTorch's is."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (``num_samples`` of them, cycling through new
    permutations), or ``num_samples`` indices drawn with replacement in chunks of 32."""

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        g = self.generator
        if g is None:
            g = rng.Generator()
            g.manual_seed(rng.random_int64())
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), generator=g).tolist()
            yield from randint(0, n, (self.num_samples % 32,), generator=g).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=g).tolist()
            yield from randperm(n, generator=g).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (one ``randperm`` of their positions)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one shorter, or dropped with
    ``drop_last``."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list]:
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
