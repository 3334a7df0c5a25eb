"""``torch.nn.utils.rnn``: padding a batch of sequences and packing it for the recurrent layers.

A ``PackedSequence`` holds the steps of a batch of sequences, longest first, step after step
(``data``), with how many sequences are still running at each step (``batch_sizes``, int64), and the
permutation that sorted the batch by length (``sorted_indices``) with its inverse. Padding writes each
sequence into a tensor full of ``padding_value`` (``CopySlices``, as PyTorch's); packing gathers the
running sequences' rows of each step (a ``CatBackward0`` node where PyTorch has one node of its own,
``PackPaddedSequenceBackward0``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..._base import dtypes
from ..._base.presentation import present_as_torch
from ..._tensor.factories import as_tensor, empty_like, full
from ..._tensor.joins import cat
from ..._tensor.tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "pack_sequence", "unpad_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The data and batch sizes of a packed batch of sequences (made by ``pack_padded_sequence`` or
    ``pack_sequence``, never by hand); every recurrent layer accepts one."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same sequence with ``data.to(...)`` (the batch sizes stay int64 on the CPU)."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes, self.sorted_indices,
                                                         self.unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self

    # the casts PyTorch's PackedSequence has, each ``to(dtype=...)`` of the data
    def double(self) -> PackedSequence:
        return self.to(dtype=dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=dtypes.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=dtypes.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=dtypes.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=dtypes.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=dtypes.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=dtypes.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a 1-D permutation (None for None)."""
    if permutation is None:
        return None
    out = empty_like(permutation)
    for i, j in enumerate(permutation.tolist()):
        out[j] = i
    return out


def _lengths(lengths) -> list:
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True
                         ) -> PackedSequence:
    """Pack a padded batch (T x B x *, or B x T x * with ``batch_first``) of sequences of the given
    lengths; ``enforce_sorted=False`` sorts the batch by decreasing length first."""
    lengths = as_tensor(_lengths(lengths), dtype=dtypes.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:  # ATen's _pack_padded_sequence checks this before the lengths
        raise RuntimeError("Cannot pack empty tensors.")
    if batch_first:
        input = input.transpose(0, 1)
    ls = lengths.tolist()
    if len(ls) != input.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(ls)} "
                           f"(batch_size={input.shape[1]})")
    if ls and ls[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(ls, ls[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if ls and ls[0] > input.shape[0]:
        raise RuntimeError(f"Expected max length ({ls[0]}) to be at most the padded length "
                           f"({input.shape[0]})")
    sizes = [sum(1 for n in ls if n > t) for t in range(ls[0] if ls else 0)]
    data = cat([input[t].narrow(0, 0, b) for t, b in enumerate(sizes)], 0)
    return PackedSequence(data, as_tensor(sizes, dtype=dtypes.int64), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple:
    """Undo ``pack_padded_sequence``: (the padded batch, each sequence's length as int64)."""
    sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    data = sequence.data
    batch = sizes[0] if sizes else 0
    out = full((steps, batch, *data.shape[1:]), padding_value, dtype=data.dtype)
    offset = 0
    for t, b in enumerate(sizes):
        out.select(0, t).narrow(0, 0, b).copy_(data.narrow(0, offset, b))
        offset += b
    lengths = as_tensor([sum(1 for b in sizes if b > i) for i in range(batch)], dtype=dtypes.int64)
    if batch_first:
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        return out.index_select(0 if batch_first else 1, sequence.unsorted_indices), \
            lengths[sequence.unsorted_indices]
    return out, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths (L_i x *) into one tensor padded with ``padding_value``
    (T x B x *, or B x T x * with ``batch_first``), on the right or the left."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    first = sequences[0]
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = full((*shape, *first.shape[1:]), padding_value, dtype=first.dtype)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        start = 0 if padding_side == "right" else longest - n
        out.select(0 if batch_first else 1, i).narrow(0, start, n).copy_(s)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i].narrow(0, 0, n) for i, n in enumerate(_lengths(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_i x *): ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = as_tensor([v.size(0) for v in sequences], dtype=dtypes.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a PackedSequence holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


present_as_torch(globals())  # <class 'torch.nn.utils.rnn.PackedSequence'>, as PyTorch prints it
