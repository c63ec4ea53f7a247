"""Sequences of different lengths in one batch: ``pad_sequence`` and its inverse ``unpad_sequence``,
and the packed form (``PackedSequence``) made by ``pack_padded_sequence``/``pack_sequence`` and
undone by ``pad_packed_sequence``/``unpack_sequence``. Mirrors torch/nn/utils/rnn.py.

A packed batch stores the sequences time step by time step, longest first: ``data`` holds the
first element of every sequence, then the second element of every sequence that has one, and so
on; ``batch_sizes[t]`` says how many sequences are still running at step ``t``. Everything here is
composed of differentiable ops (``index_select``, ``cat``, ``pad``), so gradients flow through.

The recurrent layers (``nn.LSTM``, ...) take a ``PackedSequence`` as it is (nn/modules/rnn.py).
"""
from __future__ import annotations

from collections import namedtuple
from typing import Any, Iterable

import numpy as np

from ..._tensor import Tensor, _wrap
from ...ops.shape import cat, stack

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequence = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequence):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``: a batch of sequences packed time
    step by time step (see the module docstring). Made by ``pack_padded_sequence``, never by hand."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> "PackedSequence":
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """``data`` converted (dtype or device); the index tensors stay as they are."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes, self.sorted_indices,
                                                           self.unsorted_indices)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (``output[permutation[i]] = i``)."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation._data)
    inverse[permutation._data] = np.arange(permutation._data.size)
    return _wrap(inverse)


def _lengths_array(lengths: Any) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return lengths._data.astype(np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) whose sequence ``b`` has
    ``lengths[b]`` real steps. ``enforce_sorted=False`` sorts the batch by length first and records
    the order in ``sorted_indices``."""
    lengths_np = _lengths_array(lengths)
    if enforce_sorted:
        if (np.diff(lengths_np) > 0).any():
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = np.argsort(-lengths_np, kind="stable")
        sorted_indices = _wrap(order.astype(np.int64))
        lengths_np = lengths_np[order]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths_np.size and lengths_np[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    steps = input if not batch_first else input.transpose(0, 1)  # (T, B, *)
    if lengths_np.size and lengths_np[0] > steps.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to {lengths_np[0]} but got "
                           f"{steps.shape[0]}")
    batch_sizes = np.array([(lengths_np > t).sum() for t in range(int(lengths_np[0]) if lengths_np.size else 0)],
                           dtype=np.int64)
    data = cat([steps[t, :int(size)] for t, size in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _wrap(batch_sizes), sorted_indices, invert_permutation(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple:
    """``(padded, lengths)``: the inverse of ``pack_padded_sequence``, in the batch's original order."""
    batch_sizes = sequence.batch_sizes._data
    max_batch = int(batch_sizes[0])
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
    rows, start = [], 0
    for size in batch_sizes:
        step = sequence.data[start:start + int(size)]
        start += int(size)
        if int(size) < max_batch:
            fill = step.new_full((max_batch - int(size), *step.shape[1:]), padding_value)
            step = cat([step, fill], 0)
        rows.append(step)
    for _ in range((total_length or steps) - steps):
        rows.append(sequence.data.new_full((max_batch, *sequence.data.shape[1:]), padding_value))
    padded = stack(rows, 0)  # (T, B, *)
    lengths = np.array([(batch_sizes > b).sum() for b in range(max_batch)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data]
    return (padded.transpose(0, 1) if batch_first else padded), _wrap(lengths)


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths (L_i, *) into (T, B, *) (or (B, T, *)), padding each
    with ``padding_value`` after its end (before its start with ``padding_side='left'``)."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences) if not isinstance(sequences, Tensor) else list(sequences.unbind(0))
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            fill = s.new_full((missing, *s.shape[1:]), padding_value)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The list of sequences ``pad_sequence`` stacked: each one cut to its length. As PyTorch's, it
    transposes a time-first ``padded_sequences`` *in place* (``transpose_``): afterwards it is batch-first."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    return [padded_sequences[i, :int(length)] for i, length in enumerate(_lengths_array(lengths))]


def pack_sequence(sequences: Iterable[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences of different lengths (longest first, unless ``enforce_sorted=False``)."""
    sequences = list(sequences)
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a ``PackedSequence`` holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
