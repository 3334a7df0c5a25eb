"""``torch.utils.data.DataLoader``: batches of a dataset in PyTorch's order, in this process.

Every iteration (each ``for batch in loader``) starts as PyTorch's does: the index sampler's
iterator is made, then one int64 seed is drawn from ``generator`` (the default generator if
None), even when nothing is shuffled, so a program's later random numbers match PyTorch's.
With ``shuffle=True`` the RandomSampler draws its own seed when the first batch is fetched.
A loader with ``persistent_workers`` restarts one iterator instead, drawing no new seed.

``num_workers > 0`` loads in this process too. For a map-style dataset PyTorch's workers fetch
the same indices and the main process hands the batches out in sampler order, so the batches
are the same; only randomness inside a dataset's ``__getitem__`` (each worker has its own seed)
and ``get_worker_info()`` (None there) would differ. An ``IterableDataset`` is iterated as by
PyTorch's workers: each worker has its own copy of the dataset (``copy.deepcopy``, where PyTorch
pickles it), its ``get_worker_info()`` (id, num_workers, seed = base seed + id, its copy), and
its own default generator and ``random`` state seeded with that seed; the batches come in turn
from each worker still yielding, so a dataset that does not shard itself by
``get_worker_info()`` is yielded once per worker, as in PyTorch. A ``worker_init_fn`` is refused.
"""

from __future__ import annotations

import copy
import math
import os
import random
import warnings
from typing import Generic, TypeVar

from ..._base import rng
from ..._base.errors import Unsupported
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]

T_co = TypeVar("T_co", covariant=True)
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: ``id``, ``num_workers``, ``seed`` and
    the worker's copy of the ``dataset``."""

    def __init__(self, id: int, num_workers: int, seed: int, dataset) -> None:
        self.id = id
        self.num_workers = num_workers
        self.seed = seed
        self.dataset = dataset

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


_current_worker: list = [None]  # the WorkerInfo of the iterable-dataset worker running now


def get_worker_info() -> WorkerInfo | None:
    """The running worker's ``WorkerInfo`` while an ``IterableDataset`` worker runs (its
    ``__iter__``, its items, the collate function); None in the main process."""
    return _current_worker[0]


class _Worker:
    """One of PyTorch's worker processes for an iterable dataset, run in this process: its copy
    of the dataset, its iterator, and its own random states, swapped in while it runs."""

    def __init__(self, loader: DataLoader, wid: int, base_seed: int) -> None:
        seed = base_seed + wid
        self.info = WorkerInfo(wid, loader.num_workers, seed, copy.deepcopy(loader.dataset))
        self.torch_state = rng.Generator().manual_seed(seed).get_state()
        saved = random.getstate()
        random.seed(seed)
        self.random_state = random.getstate()
        random.setstate(saved)
        self.iterator = None
        self.alive = True

    def run(self, fn, *args):
        """``fn(*args)`` as this worker: its WorkerInfo, its generator and ``random`` states."""
        main_torch = rng.get_rng_state()
        main_random = random.getstate()
        rng.set_rng_state(self.torch_state)
        random.setstate(self.random_state)
        _current_worker[0] = self.info
        try:
            return fn(*args)
        finally:
            _current_worker[0] = None
            self.torch_state = rng.get_rng_state()
            self.random_state = random.getstate()
            rng.set_rng_state(main_torch)
            random.setstate(main_random)

    def restart(self) -> None:
        self.iterator = self.run(iter, self.info.dataset)
        self.alive = True


class _Forever:
    """An iterable dataset's sampler: no index, as many times as asked."""

    def __iter__(self):
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """``DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, ..., generator=None)``."""

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > "
                             f"0), but got num_workers={num_workers}")
        if worker_init_fn is not None and num_workers > 0:
            raise Unsupported("DataLoader's worker_init_fn", "scalargrad loads every batch in the main process")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        iterable = isinstance(dataset, IterableDataset)
        self._iterable = iterable
        if iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            if iterable:
                sampler = _Forever()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True
        self._check_worker_number()

    def __setattr__(self, name: str, value) -> None:
        if name in _FROZEN and self.__dict__.get("_initialized"):
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        object.__setattr__(self, name, value)

    @property
    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self) -> _LoaderIterator:
        if self.num_workers:
            self._check_worker_number()
        if self.persistent_workers and self.num_workers > 0:
            # PyTorch keeps one iterator (its workers) and restarts it: no new seed is drawn
            it = self.__dict__.get("_persistent")
            if it is None:
                it = self._persistent = _LoaderIterator(self)
            else:
                it._restart()
            return it
        return _LoaderIterator(self)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def _check_worker_number(self) -> None:
        """PyTorch's warning when more workers are asked for than the processor can run at once,
        reported at its caller's line here (as PyTorch's is at its own): a default warnings filter
        shows it once for all loaders made and once for all passes, as with PyTorch."""
        if not self.num_workers:
            return
        cpuset = hasattr(os, "sched_getaffinity")
        try:
            suggest = len(os.sched_getaffinity(0)) if cpuset else os.cpu_count()
        except OSError:
            suggest = os.cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            advice = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            advice = (f"Our suggested max number of worker in current system is {suggest}"
                      f"{'' if cpuset else ' (`cpuset` is not taken into account)'}, which is smaller than what this "
                      "DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {advice} Please be "
                      "aware that excessive worker creation might get DataLoader running slow or even freeze, lower "
                      "the worker number to avoid potential slowness/freeze if necessary.", stacklevel=2)


class _LoaderIterator:
    """One pass over a DataLoader."""

    def __init__(self, loader: DataLoader) -> None:
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=2)
        self._loader = loader
        self._auto_collation = loader.batch_sampler is not None
        self._sampler_iter = iter(loader._index_sampler)
        # drawn for the workers' seeds in PyTorch, whether or not there are workers
        self._base_seed = rng.random_int64(loader.generator)
        self._dataset_iter = None
        self._workers = None
        if loader._iterable and loader.num_workers:
            self._workers = [_Worker(loader, i, self._base_seed) for i in range(loader.num_workers)]
            for w in self._workers:
                w.restart()
            self._turn = 0
        elif loader._iterable:
            self._dataset_iter = iter(loader.dataset)
        self._ended = False

    def _restart(self) -> None:
        """A new pass for a loader with persistent workers (PyTorch's ``_reset``)."""
        self._sampler_iter = iter(self._loader._index_sampler)
        if self._workers is not None:
            for w in self._workers:
                w.restart()
            self._turn = 0
            self._ended = False
        elif self._loader._iterable:
            self._dataset_iter = iter(self._loader.dataset)
            self._ended = False

    def __iter__(self) -> _LoaderIterator:
        return self

    def __len__(self) -> int:
        return len(self._loader._index_sampler)

    def __next__(self):
        index = next(self._sampler_iter)
        loader = self._loader
        if loader._iterable:
            return self._next_from_iterable(index)
        dataset = loader.dataset
        if not self._auto_collation:
            return loader.collate_fn(dataset[index])
        many = getattr(dataset, "__getitems__", None)
        data = many(index) if many else [dataset[i] for i in index]
        return loader.collate_fn(data)

    def _next_from_iterable(self, index):
        if self._workers is not None:
            return self._next_from_workers(index)
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._loader.collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if not data or (self._loader.drop_last and len(data) < len(index)):
            raise StopIteration
        return self._loader.collate_fn(data)

    def _next_from_workers(self, index):
        """The next batch from the workers in turn (PyTorch's round robin over the workers
        whose dataset iterator has not ended)."""
        workers = self._workers
        n = len(workers)
        for _ in range(n):
            w = workers[self._turn]
            self._turn = (self._turn + 1) % n
            if not w.alive:
                continue
            got = w.run(self._fetch, w.iterator, index)
            if got is not _ENDED:
                return got
            w.alive = False
        raise StopIteration

    def _fetch(self, iterator, index):
        """One batch (one item without auto-collation) from a worker's iterator, or _ENDED."""
        loader = self._loader
        if not self._auto_collation:
            try:
                return loader.collate_fn(next(iterator))
            except StopIteration:
                return _ENDED
        data = []
        for _ in index:
            try:
                data.append(next(iterator))
            except StopIteration:
                break
        if not data or (loader.drop_last and len(data) < len(index)):
            return _ENDED
        return loader.collate_fn(data)


_ENDED = object()
