"""nn.utils.rnn (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpack_sequence, unpad_sequence, PackedSequence), nn.init.dirac_, IterableDataset with the
DataLoader, get_worker_info, torch.typename and Node.register_prehook: found missing or untested by
running PyTorch's docstring examples and walking issue 14's list. Compared with PyTorch 2.13."""
from __future__ import annotations

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

from test_nn_vs_torch import outcomes, same_in_both  # noqa: E402

RNG = np.random.default_rng(3)
SEQS = [RNG.standard_normal((n, 2)) for n in (3, 5, 1, 4)]


def test_pad_sequence_as_pytorch():
    def program(lib):
        seqs = [lib.tensor(s) for s in SEQS]
        return [lib.nn.utils.rnn.pad_sequence(seqs), lib.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0),
                lib.nn.utils.rnn.pad_sequence(seqs, True, 7.0, "left"), lib.nn.utils.rnn.pad_sequence([lib.ones(2), lib.ones(3)]).shape,
                [u.shape for u in lib.nn.utils.rnn.unpad_sequence(lib.nn.utils.rnn.pad_sequence(seqs), lib.tensor([3, 5, 1, 4]))]]
    same_in_both(program)


def test_unpad_sequence_transposes_in_place_as_pytorch():
    def program(lib):
        padded = lib.nn.utils.rnn.pad_sequence([lib.tensor(s) for s in SEQS])
        pieces = lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor([3, 5, 1, 4]))
        return [padded.shape, pieces]
    same_in_both(program)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_pack_and_pad_back_as_pytorch(batch_first, enforce_sorted):
    def program(lib):
        rnn = lib.nn.utils.rnn
        seqs = [lib.tensor(s, requires_grad=True) for s in (SEQS if not enforce_sorted else sorted(SEQS, key=len, reverse=True))]
        padded = rnn.pad_sequence(seqs, batch_first=batch_first)
        lengths = [len(s) for s in seqs]
        packed = rnn.pack_padded_sequence(padded, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        back, back_lengths = rnn.pad_packed_sequence(packed, batch_first=batch_first, padding_value=0.5, total_length=6)
        (back * lib.arange(back.numel(), dtype=back.dtype).reshape(back.shape).sin()).sum().backward()
        return [packed.data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, back, back_lengths,
                [s.grad for s in seqs], type(packed).__name__]
    same_in_both(program)


def test_pack_sequence_and_reprs_as_pytorch():
    def program(lib):
        rnn = lib.nn.utils.rnn
        a, b, c = lib.tensor([1, 2, 3]), lib.tensor([4, 5]), lib.tensor([6])
        packed = rnn.pack_sequence([a, b, c])
        unsorted = rnn.pack_sequence([b, a, c], enforce_sorted=False)
        return [repr(packed), repr(unsorted), rnn.unpack_sequence(packed), rnn.unpack_sequence(unsorted),
                repr(rnn.pad_packed_sequence(unsorted)), str(packed.to(lib.float64).data.dtype)]
    same_in_both(program)


def test_packing_gradcheck():
    x = gt.tensor(RNG.standard_normal((4, 3, 2)), requires_grad=True)

    def round_trip(padded):
        packed = gt.nn.utils.rnn.pack_padded_sequence(padded, [2, 4, 1], enforce_sorted=False)
        return packed.data, gt.nn.utils.rnn.pad_packed_sequence(packed)[0]
    assert gradcheck(round_trip, (x,), eps=1e-6, atol=1e-5)


def test_rnn_errors_as_pytorch():
    def program(lib):
        rnn = lib.nn.utils.rnn
        return outcomes([lambda: rnn.pack_padded_sequence(lib.ones(3, 2), [1, 3]),
                         lambda: rnn.pack_padded_sequence(lib.ones(3, 2), [2, 0]),
                         lambda: rnn.pad_packed_sequence(rnn.pack_sequence([lib.ones(3)]), total_length=2),
                         lambda: rnn.pad_sequence([lib.ones(2)], padding_side="middle")])
    same_in_both(program)
    # lengths longer than the padded batch: PyTorch 2.13 packs without a word (reading past the end);
    # glasstorch refuses, with the message PyTorch gives for the sorted case
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than or equal to 4 but got 3"):
        gt.nn.utils.rnn.pack_padded_sequence(gt.ones(3, 2), [4, 1])


def test_dirac_as_pytorch():
    def program(lib):
        weights = [lib.empty(3, 16, 5, 5), lib.empty(3, 24, 5, 5), lib.empty(4, 2, 3), lib.empty(2, 2, 3, 4, 2)]
        lib.nn.init.dirac_(weights[0])
        lib.nn.init.dirac_(weights[1], 3)
        lib.nn.init.dirac_(weights[2], 2)
        lib.nn.init.dirac_(weights[3])
        conv = lib.nn.Conv2d(3, 3, 3, padding=1, bias=False)
        lib.nn.init.dirac_(conv.weight)
        x = lib.arange(27.0).reshape(1, 3, 3, 3)
        return weights + [conv(x), outcomes([lambda: lib.nn.init.dirac_(lib.empty(3, 3)),
                                              lambda: lib.nn.init.dirac_(lib.empty(3, 2, 2), groups=2)])]
    same_in_both(program)


def test_iterable_dataset_as_pytorch():
    def program(lib):
        data = lib.utils.data

        class Range(data.IterableDataset):
            def __init__(self, start, end):
                super().__init__()
                self.start, self.end = start, end

            def __iter__(self):
                assert data.get_worker_info() is None
                return iter(range(self.start, self.end))

        class Sized(Range):
            def __len__(self):
                return self.end - self.start

        loaders = [data.DataLoader(Range(3, 7)), data.DataLoader(Range(3, 10), batch_size=3),
                   data.DataLoader(Range(3, 10), batch_size=3, drop_last=True), data.DataLoader(Range(0, 4), batch_size=None),
                   data.DataLoader(Range(3, 7) + Range(0, 2), batch_size=4)]
        return ([list(loader) for loader in loaders] + [len(data.DataLoader(Sized(0, 7), batch_size=3)),
                len(data.DataLoader(Sized(0, 7), batch_size=3, drop_last=True))]
                + outcomes([lambda: data.DataLoader(Range(0, 3), shuffle=True),
                            lambda: data.DataLoader(Range(0, 3), sampler=[0, 1]),
                            lambda: data.DataLoader(Range(0, 3), batch_sampler=[[0]]),
                            lambda: len(data.DataLoader(Range(0, 3))),
                            lambda: iter(data.IterableDataset()).__next__()]))
    same_in_both(program)


def test_typename_as_pytorch():
    def program(lib):
        return [lib.typename(lib.ones(2)), lib.typename(lib.ones(2, dtype=lib.int64)), lib.typename(lib.ones(1, dtype=lib.bool)),
                lib.typename(lib.nn.Linear(2, 2)), lib.typename(3), lib.typename("x"), lib.typename(lib.nn.Parameter(lib.ones(1)))]
    same_in_both(program)


def test_node_register_prehook_as_pytorch():
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        z = y.sum()
        calls = []
        handle = y.grad_fn.register_prehook(lambda grad_outputs: calls.append(("pre", grad_outputs[0].tolist())) or (grad_outputs[0] * 10,))
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: calls.append(("post", [g.tolist() for g in grad_inputs])))
        z.backward(retain_graph=True)
        first = x.grad.tolist()
        handle.remove()
        x.grad = None
        z.backward()
        return calls, first, x.grad.tolist()
    same_in_both(program)
