"""torch.utils.data: datasets, samplers, collation and the DataLoader, in PyTorch's exact order.

Orders that depend on the random generator are PyTorch 2.13's figures (noted where they come
from) and are also compared with live PyTorch, with the generator state after the loop (the
seeds a DataLoader draws for its workers are drawn even without workers).
"""

from __future__ import annotations

import warnings
from collections import namedtuple

import pytest

import scalargrad as torch
from scalargrad.errors import Unsupported
from scalargrad.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    default_collate,
    random_split,
)

Point = namedtuple("Point", ["x", "y"])


def test_tensor_dataset_indexes_every_tensor_along_the_first_dimension():
    X = torch.arange(6.0).reshape(3, 2)
    y = torch.tensor([10, 20, 30])
    ds = TensorDataset(X, y)
    assert len(ds) == 3
    x1, y1 = ds[1]
    assert x1.tolist() == [2.0, 3.0] and y1.item() == 20
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        TensorDataset(X, torch.tensor([1, 2]))


def test_sequential_batches_drop_last_and_len():
    ds = TensorDataset(torch.arange(7))
    loader = DataLoader(ds, batch_size=3)
    assert len(loader) == 3
    assert [b[0].tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    loader = DataLoader(ds, batch_size=3, drop_last=True)
    assert len(loader) == 2
    assert [b[0].tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]]
    # batch_size=None: no batching, each sample as it is (a tuple becomes a list, as in PyTorch)
    samples = list(DataLoader(ds, batch_size=None))
    assert len(samples) == 7 and type(samples[0]) is list and samples[0][0].item() == 0


def test_default_collate_of_numbers_strings_mappings_and_sequences():
    assert default_collate([1, 2]).dtype is torch.int64
    assert default_collate([1.5, 2.0]).dtype is torch.float64
    assert default_collate([True, False]).dtype is torch.bool
    assert default_collate(["a", "b"]) == ["a", "b"]
    out = default_collate([{"x": 1.0, "s": ("p", 2)}, {"x": 2.0, "s": ("q", 3)}])
    assert list(out) == ["x", "s"] and out["x"].tolist() == [1.0, 2.0]
    assert out["s"][0] == ("p", "q") and out["s"][1].tolist() == [2, 3]  # strings stay the tuple zip made
    pts = default_collate([Point(0, 1.0), Point(2, 3.0)])
    assert type(pts) is Point and pts.x.tolist() == [0, 2] and pts.y.dtype is torch.float64
    stacked = default_collate([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])])
    assert stacked.shape == (2, 2) and stacked.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                                        "or lists; found <class 'object'>"):
        default_collate([object()])


def test_shuffled_order_is_pytorchs():
    # PyTorch 2.13: torch.manual_seed(0); list(RandomSampler(range(10))) == [6, 9, 0, 7, 3, 5, 4, 2, 1, 8]
    torch.manual_seed(0)
    assert list(RandomSampler(range(10))) == [6, 9, 0, 7, 3, 5, 4, 2, 1, 8]
    # PyTorch 2.13: two epochs of DataLoader(range(10), batch_size=3, shuffle=True) after manual_seed(0)
    torch.manual_seed(0)
    loader = DataLoader(range(10), batch_size=3, shuffle=True)
    assert [b.tolist() for b in loader] == [[6, 7, 1], [4, 2, 0], [9, 8, 3], [5]]
    assert [b.tolist() for b in loader] == [[2, 4, 7], [0, 8, 9], [5, 3, 6], [1]]
    # ... and torch.rand(2) then gives PyTorch's tensor([0.4556, 0.6323])
    assert repr(torch.rand(2)) == "tensor([0.4556, 0.6323])"


def test_a_loader_draws_one_seed_per_epoch_even_unshuffled():
    torch.manual_seed(3)
    for _ in DataLoader(range(4), batch_size=2):
        pass
    after_loop = torch.rand(1).item()
    torch.manual_seed(3)
    torch.random.default_generator.random64()  # one 64-bit draw: random_() on an int64 tensor
    assert torch.rand(1).item() == after_loop


def test_random_split_lengths_and_fractions():
    g = torch.Generator().manual_seed(42)
    a, b = random_split(range(10), [3, 7], generator=g)
    assert len(a) == 3 and len(b) == 7 and sorted(list(a) + list(b)) == list(range(10))
    parts = random_split(range(11), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(1))
    # floor(3.3), floor(3.3), floor(4.4) = 3, 3, 4; the one left over goes to the first split
    assert [len(p) for p in parts] == [4, 3, 4]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(5), [2, 2])
    with pytest.raises(ValueError, match="Fraction at index 2 is not between 0 and 1"):
        random_split(range(5), [0.5, 0.7, -0.2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        random_split(range(2), [0.0, 1.0])
    assert "Length of split at index 0 is 0. This might result in an empty dataset." in str(caught[0].message)


def test_subset_concat_and_samplers():
    ds = TensorDataset(torch.arange(5) * 10)
    sub = Subset(ds, [4, 0])
    assert len(sub) == 2 and sub[0][0].item() == 40
    assert [b[0].tolist() for b in DataLoader(sub, batch_size=2)] == [[40, 0]]
    cat = ConcatDataset([range(3), range(10, 12)])
    assert len(cat) == 5 and [cat[i] for i in range(5)] == [0, 1, 2, 10, 11] and cat[-1] == 11
    assert list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)) == \
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)) == \
        [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert sorted(SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]


class _Squares(Dataset):
    def __len__(self) -> int:
        return 5

    def __getitem__(self, i):
        return {"x": float(i), "y": i * i}


class _Count(IterableDataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self) -> int:
        return self.n


def test_custom_and_iterable_datasets():
    batches = list(DataLoader(_Squares(), batch_size=2))
    assert [b["y"].tolist() for b in batches] == [[0, 1], [4, 9], [16]]
    assert batches[0]["x"].dtype is torch.float64
    loader = DataLoader(_Count(5), batch_size=2)
    assert len(loader) == 3 and [b.tolist() for b in loader] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in DataLoader(_Count(5), batch_size=2, drop_last=True)] == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspecified shuffle option, "
                                         "but got shuffle=True"):
        DataLoader(_Count(2), shuffle=True)


def test_bad_arguments_in_pytorchs_words():
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        DataLoader(range(3), batch_size=0)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(range(3), sampler=SequentialSampler(range(3)), shuffle=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(range(3), num_workers=-1)
    loader = DataLoader(range(3))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 2
    with pytest.raises(Unsupported, match="worker_init_fn"):
        DataLoader(range(3), num_workers=1, worker_init_fn=print)


def test_workers_load_in_this_process_with_the_same_batches():
    torch.manual_seed(0)
    loader = DataLoader(range(10), batch_size=3, shuffle=True, num_workers=1)
    assert [b.tolist() for b in loader] == [[6, 7, 1], [4, 2, 0], [9, 8, 3], [5]]


def test_imports_under_the_torch_alias(tmp_path):
    from scalargrad.runner import run_path

    prog = tmp_path / "prog.py"
    prog.write_text("import torch\nimport torch.utils.data\nfrom torch.utils.data import DataLoader\n"
                    "assert torch.utils.data.DataLoader is DataLoader\n"
                    "assert [b.tolist() for b in DataLoader([1, 2, 3], batch_size=2)] == [[1, 2], [3]]\n")
    assert run_path(str(prog)).ok


# ---------------------------------------------------------------- against PyTorch


def _program(torch_mod, data, seed: int, **kwargs) -> str:
    torch_mod.manual_seed(seed)
    X = torch_mod.arange(22, dtype=torch_mod.float32).reshape(11, 2) / 4
    y = torch_mod.arange(11) % 3
    ds = data.TensorDataset(X, y)
    out = [repr(ds[3])]
    loader = data.DataLoader(ds, **kwargs)
    out.append(str(len(loader)))
    for epoch in range(2):
        for xb, yb in loader:
            out.append(f"{epoch} {xb!r} {yb!r}")
    train, val = data.random_split(ds, [0.7, 0.3])
    out.append(repr((train.indices, val.indices)))
    out.append(repr([b[1] for b in data.DataLoader(val, batch_size=2, shuffle=True)]))
    out.append(repr(torch_mod.rand(3)))
    return "\n".join(out)


@pytest.mark.parametrize("seed, kwargs", [
    (0, {"batch_size": 4, "shuffle": False}),
    (0, {"batch_size": 4, "shuffle": True}),
    (7, {"batch_size": 3, "shuffle": True, "drop_last": True}),
    (123, {"batch_size": 1, "shuffle": True}),
    (5, {"batch_size": 5, "sampler": None, "shuffle": True, "num_workers": 0}),
])
def test_batches_and_random_state_are_pytorchs(torch_ref, seed, kwargs):
    import torch.utils.data as ref_data

    from scalargrad.utils import data

    assert _program(torch, data, seed, **kwargs) == _program(torch_ref, ref_data, seed, **kwargs)


def test_replacement_and_subset_samplers_are_pytorchs(torch_ref):
    import torch.utils.data as ref_data

    from scalargrad.utils import data

    def run(torch_mod, d):
        torch_mod.manual_seed(11)
        a = list(d.RandomSampler(range(7), replacement=True, num_samples=40))
        b = list(d.RandomSampler(range(7), num_samples=17))
        c = list(d.SubsetRandomSampler([3, 5, 8, 13]))
        g = torch_mod.Generator().manual_seed(2)
        e = list(d.RandomSampler(range(9), generator=g))
        return a, b, c, e, torch_mod.rand(1).item()

    assert run(torch, data) == run(torch_ref, ref_data)


def test_size_mismatch_message_is_pytorchs(torch_ref):
    import torch.utils.data as ref_data

    with pytest.raises(AssertionError) as theirs:
        ref_data.TensorDataset(torch_ref.zeros(2), torch_ref.zeros(3))
    with pytest.raises(AssertionError) as ours:
        TensorDataset(torch.zeros(2), torch.zeros(3))
    assert str(ours.value) == str(theirs.value)


def test_datasets_samplers_and_loaders_are_generic_as_pytorchs():
    class Pairs(Dataset[tuple]):
        def __len__(self) -> int:
            return 3

        def __getitem__(self, i):
            return i, float(i) / 2

    assert DataLoader[int] is not None and RandomSampler is not None
    ints, halves = next(iter(DataLoader(Pairs(), batch_size=3)))
    assert ints.tolist() == [0, 1, 2] and halves.tolist() == [0.0, 0.5, 1.0] and halves.dtype is torch.float64
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]


def _worker_warnings(data_mod, workers: int) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(2):
            loader = data_mod.DataLoader(list(range(4)), batch_size=2, num_workers=workers, pin_memory=True)
            for _ in range(2):
                list(loader)
    return [(w.category.__name__, str(w.message)) for w in caught]


def test_worker_count_and_pin_memory_warnings_are_pytorchs(torch_ref):
    import os

    import torch.utils.data as ref_data

    from scalargrad.utils import data

    too_many = len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1
    theirs = _worker_warnings(ref_data, too_many)
    assert len(theirs) == 3  # once when made, once when iterated, pin_memory once
    assert _worker_warnings(data, too_many) == theirs


def test_stack_and_chain_datasets():
    from scalargrad.utils.data import ChainDataset, StackDataset

    pairs = StackDataset(range(3), ["a", "b", "c"])
    assert len(pairs) == 3 and pairs[1] == (1, "b")
    named = StackDataset(x=range(2), y=[0.5, 1.5])
    assert next(iter(DataLoader(named, batch_size=2)))["y"].tolist() == [0.5, 1.5]
    with pytest.raises(ValueError, match="^Size mismatch between datasets$"):
        StackDataset(range(2), range(3))
    with pytest.raises(ValueError, match="^At least one dataset should be passed$"):
        StackDataset()
    chained = _Count(2) + _Count(3)
    assert isinstance(chained, ChainDataset) and len(chained) == 5 and list(chained) == [0, 1, 0, 1, 2]
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([range(2)]))


def test_unimplemented_samplers_import_and_refuse_by_name(tmp_path):
    from scalargrad.runner import run_path

    prog = tmp_path / "prog.py"
    prog.write_text("from torch.utils.data import WeightedRandomSampler\nWeightedRandomSampler([0.5, 0.5], 4)\n")
    result = run_path(str(prog))
    assert result.unsupported and "torch.utils.data.WeightedRandomSampler is not supported" in result.summary


def test_persistent_workers_draw_one_seed_for_all_epochs(torch_ref):
    import torch.utils.data as ref_data

    from scalargrad.utils import data

    def run(torch_mod, d):
        torch_mod.manual_seed(4)
        loader = d.DataLoader(list(range(6)), batch_size=4, shuffle=True, num_workers=1, persistent_workers=True)
        epochs = [[b.tolist() for b in loader] for _ in range(3)]
        return epochs, torch_mod.rand(2).tolist()

    assert run(torch, data) == run(torch_ref, ref_data)


def _iterable_workers(lib) -> list:
    """IterableDatasets under num_workers=2: one that shards itself by get_worker_info() (the
    DataLoader docs' example), one that does not, one that reads each worker's random states."""
    import math
    import random

    data = lib.utils.data

    class Range(data.IterableDataset):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            info = data.get_worker_info()
            if info is None:
                return iter(range(self.start, self.end))
            per = int(math.ceil((self.end - self.start) / info.num_workers))
            lo = self.start + info.id * per
            return iter(range(lo, min(lo + per, self.end)))

    class Three(data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    class Random(data.IterableDataset):
        def __iter__(self):
            info = data.get_worker_info()
            for _ in range(2):
                yield info.id, lib.initial_seed() == info.seed, lib.rand(2), random.random()

    lib.manual_seed(3)
    random.seed(1)
    out = [[x.tolist() for x in data.DataLoader(Range(3, 7), num_workers=2)],
           [x.tolist() for x in data.DataLoader(Range(3, 12), num_workers=2, batch_size=2)],
           [x.tolist() for x in data.DataLoader(Range(3, 12), num_workers=2, batch_size=2, drop_last=True)],
           list(data.DataLoader(Range(3, 7), num_workers=2, batch_size=None)),
           [x.tolist() for x in data.DataLoader(Three(), num_workers=2)],
           [[x.tolist() for x in batch] for batch in data.DataLoader(Random(), num_workers=2, batch_size=2)],
           lib.rand(1).tolist(), random.random(), data.get_worker_info()]
    return out


def test_iterable_dataset_workers_by_hand():
    got = _iterable_workers(torch)
    # worker 0 has 3, 4 and worker 1 has 5, 6; batches come from the workers in turn
    assert got[0] == [[3], [5], [4], [6]]
    assert got[1] == [[3, 4], [8, 9], [5, 6], [10, 11], [7]]
    assert got[2] == [[3, 4], [8, 9], [5, 6], [10, 11]]  # each worker drops its own short batch
    assert got[3] == [3, 5, 4, 6]
    assert got[4] == [[0], [0], [1], [1], [2], [2]]  # not sharded: each worker yields it all
    ids, seeded = got[5][0][0], got[5][0][1]
    assert ids == [0, 0] and seeded == [True, True] and got[5][1][0] == [1, 1]
    assert got[8] is None  # outside the workers


def test_iterable_dataset_workers_match_torch(torch_ref):
    assert _iterable_workers(torch) == _iterable_workers(torch_ref)
