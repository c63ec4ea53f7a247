"""glasstorch.utils.data: datasets, samplers, default_collate and DataLoader — unit tests, the
properties of shuffling, the TensorDataset fast path against the sample-by-sample path, and
differential tests against torch.utils.data for everything deterministic."""
from __future__ import annotations

import collections
import warnings
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import glasstorch
from glasstorch import nn
from glasstorch.testing import real_torch
from glasstorch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, RandomSampler, Sampler,
                                   SequentialSampler, Subset, TensorDataset, default_collate, default_convert,
                                   random_split)
from glasstorch.utils.data._collate import collate, default_collate_fn_map

TORCH = real_torch()
needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed: comparisons with real PyTorch "
                                                       "are skipped (pip install torch==2.13.0)")
vs_torch = [pytest.mark.torch, needs_torch]

Point = namedtuple("Point", ["x", "y"])


# --- helpers -------------------------------------------------------------------------------------
def plain(value):
    """A structure of plain Python values, comparable between glasstorch and PyTorch results:
    tensors become (dtype name, shape, values); containers keep their type's name."""
    if isinstance(value, glasstorch.Tensor) or (TORCH is not None and isinstance(value, TORCH.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, {key: plain(v) for key, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, tuple(plain(v) for v in value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    return value


def both(make):
    """``make(lib)`` run with glasstorch and with PyTorch."""
    return make(glasstorch), make(TORCH)


def error_of(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


def assert_same_error(make):
    """``make(lib)`` raises the same exception type and message in both libraries."""
    ours, theirs = error_of(lambda: make(glasstorch)), error_of(lambda: make(TORCH))
    assert ours == theirs


def tensors_of(seed=0, n=10, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 3)).astype(dtype), rng.integers(0, 5, n).astype(np.int64)


def loader_batches(lib, n=10, **kwargs):
    x, y = tensors_of(n=n)
    dataset = lib.utils.data.TensorDataset(lib.from_numpy(x.copy()), lib.from_numpy(y.copy()))
    return plain(list(lib.utils.data.DataLoader(dataset, **kwargs)))


class Squares(Dataset):
    """A map-style dataset of dicts, as many real datasets are."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __getitem__(self, i):
        return {"x": glasstorch.tensor([float(i), float(i * i)]), "label": i % 3, "name": f"s{i}"}

    def __len__(self) -> int:
        return self.n


# --- Dataset, TensorDataset, ConcatDataset, Subset ----------------------------------------------
def test_dataset_getitem_must_be_implemented():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__"):
        Dataset()[0]


def test_dataset_add_gives_a_concat_dataset():
    joined = Squares(2) + Squares(3)
    assert isinstance(joined, ConcatDataset)
    assert len(joined) == 5
    assert [joined[i]["name"] for i in range(5)] == ["s0", "s1", "s0", "s1", "s2"]


def test_tensor_dataset_indexes_every_tensor_along_dim_0():
    x, y = tensors_of()
    dataset = TensorDataset(glasstorch.from_numpy(x), glasstorch.from_numpy(y))
    assert len(dataset) == 10
    sample = dataset[3]
    assert isinstance(sample, tuple) and len(sample) == 2
    np.testing.assert_array_equal(sample[0].numpy(), x[3])
    assert sample[1].item() == y[3]


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(glasstorch.zeros(3, 2), glasstorch.zeros(4))


def test_concat_dataset_indexing_and_errors():
    joined = ConcatDataset([[0, 1, 2], [10, 11], [20]])
    assert joined.cumulative_sizes == [3, 5, 6]
    assert [joined[i] for i in range(6)] == [0, 1, 2, 10, 11, 20]
    assert joined[-1] == 20 and joined[-6] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        joined[-7]
    with pytest.raises(IndexError):
        joined[6]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])


def test_subset_maps_indices():
    subset = Subset(list("abcdef"), [5, 0, 2])
    assert len(subset) == 3
    assert [subset[i] for i in range(3)] == ["f", "a", "c"]
    assert subset.__getitems__([2, 0]) == ["c", "f"]
    inner = Subset(Subset(list("abcdef"), [5, 4, 3, 2]), [1, 3])
    assert [inner[0], inner[1]] == ["e", "c"]


def test_subset_getitems_uses_the_datasets_own():
    class Batched(Dataset):
        def __getitem__(self, i):
            raise AssertionError("should fetch the batch at once")

        def __getitems__(self, indices):
            return [("batch", i) for i in indices]

    assert Subset(Batched(), [7, 8, 9]).__getitems__([0, 2]) == [("batch", 7), ("batch", 9)]


def test_subset_subclass_overriding_only_getitem_is_refused():
    class Doubled(Subset):
        def __getitem__(self, idx):
            return 2 * super().__getitem__(idx)

    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        Doubled([1, 2, 3], [0])


# --- random_split -----------------------------------------------------------------------------------
SPLITS = [(10, [3, 7]), (10, [0.3, 0.7]), (10, [0.33, 0.33, 0.34]), (7, [0.5, 0.5]), (30, [0.3, 0.3, 0.4]),
          (11, [0.25, 0.25, 0.25, 0.25]), (5, [5, 0]), (13, [0.1, 0.1, 0.8])]


@pytest.mark.parametrize("n, lengths", SPLITS)
def test_random_split_is_a_partition(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pieces = random_split(range(n), lengths, generator=glasstorch.Generator().manual_seed(0))
    members = [list(piece) for piece in pieces]
    assert sorted(sum(members, [])) == list(range(n))
    assert all(isinstance(piece, Subset) for piece in pieces)


@pytest.mark.parametrize("n, lengths", SPLITS)
@pytest.mark.torch
@needs_torch
def test_random_split_lengths_as_pytorch(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = both(lambda lib: [len(p) for p in lib.utils.data.random_split(range(n), lengths)])
    assert ours == theirs


def test_random_split_round_robin_remainder():
    assert [len(p) for p in random_split(range(10), [0.33, 0.33, 0.34])] == [4, 3, 3]


def test_random_split_is_reproducible_with_a_seed():
    def split(seed):
        return [list(p) for p in random_split(range(20), [0.5, 0.5], generator=glasstorch.Generator().manual_seed(seed))]

    assert split(1) == split(1)
    assert split(1) != split(2)
    glasstorch.manual_seed(5)
    first = [list(p) for p in random_split(range(20), [10, 10])]
    glasstorch.manual_seed(5)
    assert [list(p) for p in random_split(range(20), [10, 10])] == first


def test_random_split_warns_on_an_empty_piece():
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0. This might result in an empty dataset."):
        pieces = random_split(range(3), [0.9, 0.1])
    assert [len(p) for p in pieces] == [3, 0]


@pytest.mark.parametrize("lengths, message", [([3, 8], "Sum of input lengths does not equal"),
                                              ([0.5, 0.6], "Sum of input lengths does not equal"),
                                              ([1.5, -0.5], "Fraction at index 0 is not between 0 and 1")])
def test_random_split_errors(lengths, message):
    with pytest.raises(ValueError, match=message):
        random_split(range(10), lengths)


@pytest.mark.parametrize("lengths", [[3, 8], [0.5, 0.6], [1.5, -0.5], [0.2, 1.2, -0.4]])
@pytest.mark.torch
@needs_torch
def test_random_split_errors_as_pytorch(lengths):
    assert_same_error(lambda lib: lib.utils.data.random_split(range(10), lengths))


# --- samplers ----------------------------------------------------------------------------------------
def test_sequential_sampler():
    sampler = SequentialSampler(range(5))
    assert list(sampler) == [0, 1, 2, 3, 4] == list(sampler)
    assert len(sampler) == 5


def test_sampler_base_needs_iter():
    with pytest.raises(NotImplementedError):
        iter(Sampler())


@pytest.mark.parametrize("n", [1, 7, 32])
def test_random_sampler_is_a_permutation_each_pass_and_passes_differ(n):
    glasstorch.manual_seed(0)
    sampler = RandomSampler(range(n))
    passes = [list(sampler) for _ in range(4)]
    assert all(sorted(p) == list(range(n)) for p in passes)
    assert len(sampler) == n
    if n > 1:
        assert len({tuple(p) for p in passes}) > 1


def test_random_sampler_is_reproducible_under_manual_seed_and_with_a_generator():
    def epochs(sampler):
        return [list(sampler) for _ in range(3)]

    glasstorch.manual_seed(3)
    first = epochs(RandomSampler(range(20)))
    glasstorch.manual_seed(3)
    assert epochs(RandomSampler(range(20))) == first
    glasstorch.manual_seed(4)
    assert epochs(RandomSampler(range(20))) != first

    with_generator = epochs(RandomSampler(range(20), generator=glasstorch.Generator().manual_seed(9)))
    glasstorch.manual_seed(123)  # the global seed must not matter with an explicit generator
    assert epochs(RandomSampler(range(20), generator=glasstorch.Generator().manual_seed(9))) == with_generator


def test_random_sampler_num_samples_without_replacement():
    sampler = RandomSampler(range(4), num_samples=10, generator=glasstorch.Generator().manual_seed(0))
    drawn = list(sampler)
    assert len(drawn) == len(sampler) == 10
    assert sorted(drawn[:4]) == sorted(drawn[4:8]) == [0, 1, 2, 3]  # two whole permutations first
    assert len(set(drawn[8:])) == 2


def test_random_sampler_with_replacement():
    sampler = RandomSampler(range(3), replacement=True, num_samples=200, generator=glasstorch.Generator().manual_seed(0))
    drawn = list(sampler)
    assert len(drawn) == 200 and set(drawn) == {0, 1, 2}


@pytest.mark.parametrize("kwargs, error, message", [
    ({"replacement": 1}, TypeError, "replacement should be a boolean value, but got replacement=1"),
    ({"num_samples": 0}, ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    ({"num_samples": 2.5}, ValueError, "num_samples should be a positive integer value, but got num_samples=2.5"),
])
def test_random_sampler_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        RandomSampler(range(3), **kwargs)


@pytest.mark.parametrize("source, kwargs", [(range(3), {"replacement": 1}), (range(3), {"num_samples": 0}),
                                            (range(3), {"num_samples": -2}), (range(3), {"num_samples": 2.5}),
                                            (range(0), {})])
@pytest.mark.torch
@needs_torch
def test_random_sampler_errors_as_pytorch(source, kwargs):
    assert_same_error(lambda lib: lib.utils.data.RandomSampler(source, **kwargs))


@pytest.mark.parametrize("kwargs", [{}, {"num_samples": 3}, {"num_samples": 9}, {"replacement": True, "num_samples": 40}])
@pytest.mark.torch
@needs_torch
def test_random_sampler_len_as_pytorch(kwargs):
    ours, theirs = both(lambda lib: (len(lib.utils.data.RandomSampler(range(5), **kwargs)),
                                     len(list(lib.utils.data.RandomSampler(range(5), **kwargs)))))
    assert ours == theirs


@pytest.mark.parametrize("n", [0, 1, 9, 10, 11])
@pytest.mark.parametrize("batch_size", [1, 3, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler(n, batch_size, drop_last):
    batches = list(BatchSampler(SequentialSampler(range(n)), batch_size, drop_last))
    assert len(batches) == len(BatchSampler(range(n), batch_size, drop_last))
    assert sum(batches, []) == list(range(n if not drop_last else n - n % batch_size))
    assert all(len(b) == batch_size for b in batches[:-1])


@pytest.mark.parametrize("n", [0, 1, 9, 10, 11])
@pytest.mark.parametrize("batch_size", [1, 3, 10])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.torch
@needs_torch
def test_batch_sampler_as_pytorch(n, batch_size, drop_last):
    ours, theirs = both(lambda lib: (list(lib.utils.data.BatchSampler(lib.utils.data.SequentialSampler(range(n)),
                                                                    batch_size, drop_last)),
                                     len(lib.utils.data.BatchSampler(range(n), batch_size, drop_last))))
    assert ours == theirs


@pytest.mark.parametrize("batch_size, drop_last", [(0, False), (-1, False), (True, False), (2.0, False), (2, "yes"),
                                                   (2, 1)])
@pytest.mark.torch
@needs_torch
def test_batch_sampler_errors_as_pytorch(batch_size, drop_last):
    assert_same_error(lambda lib: lib.utils.data.BatchSampler(range(4), batch_size, drop_last))


def test_batch_sampler_errors():
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(4), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=yes"):
        BatchSampler(range(4), 2, "yes")


# --- default_collate and default_convert ----------------------------------------------------------------
def collate_cases(lib):
    """Batches of many kinds, built the same way in both libraries."""
    t = lib.from_numpy
    return {
        "ints": [1, 2, 3],
        "floats": [1.5, 2.0],
        "bools": [True, False, True],
        "int_then_float": [1, 2.5],
        "float_then_int": [1.5, 2],
        "strings": ["a", "bc"],
        "bytes": [b"a", b"b"],
        "np_float32": [np.float32(1.5), np.float32(2)],
        "np_int32": [np.int32(1), np.int32(2)],
        "np_int64": [np.int64(1), np.int64(2)],
        "np_float64": [np.float64(1.5), np.float64(-2)],
        "np_bool": [np.bool_(True), np.bool_(False)],
        "np_arrays": [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
        "np_int_arrays": [np.arange(4).reshape(2, 2), np.zeros((2, 2), dtype=np.int64)],
        "np_0d": [np.array(1.5), np.array(2.5)],
        "tensors_f32": [t(np.ones((2, 3), np.float32)), t(np.zeros((2, 3), np.float32))],
        "tensors_i64": [t(np.arange(3)), t(np.arange(3, 6))],
        "tensors_0d": [t(np.array(1.0)), t(np.array(2.0))],
        "tensors_mixed_dtype": [t(np.arange(2)), t(np.ones(2, np.float32))],
        "tuples": [(1, "a", 2.0), (2, "b", 3.0)],
        "lists": [[1, 2], [3, 4]],
        "namedtuples": [Point(1, [1.0, 2.0]), Point(2, [3.0, 4.0])],
        "dicts": [{"a": 1, "b": {"c": (1.5, True)}}, {"a": 2, "b": {"c": (2.5, False)}}],
        "ordered_dict": [OrderedDict(z=1, a=2.0), OrderedDict(z=3, a=4.0)],
        "dict_of_tensors": [{"x": t(np.ones(2, np.float32)), "y": 0}, {"x": t(np.zeros(2, np.float32)), "y": 1}],
        "nested": [([t(np.ones(1, np.float32)), {"k": [np.int32(1), "s"]}],), ([t(np.zeros(1, np.float32)),
                                                                              {"k": [np.int32(2), "t"]}],)],
    }


CASE_NAMES = ["ints", "floats", "bools", "int_then_float", "float_then_int", "strings", "bytes", "np_float32",
              "np_int32", "np_int64", "np_float64", "np_bool", "np_arrays", "np_int_arrays", "np_0d", "tensors_f32",
              "tensors_i64", "tensors_0d", "tensors_mixed_dtype", "tuples", "lists", "namedtuples", "dicts",
              "ordered_dict", "dict_of_tensors", "nested"]


def test_collate_case_names_are_complete():
    assert sorted(CASE_NAMES) == sorted(collate_cases(glasstorch))


@pytest.mark.parametrize("name", CASE_NAMES)
@pytest.mark.torch
@needs_torch
def test_default_collate_as_pytorch(name):
    ours = plain(default_collate(collate_cases(glasstorch)[name]))
    theirs = plain(TORCH.utils.data.default_collate(collate_cases(TORCH)[name]))
    assert ours == theirs


@pytest.mark.parametrize("name", CASE_NAMES)
@pytest.mark.torch
@needs_torch
def test_default_convert_as_pytorch(name):
    ours = plain(default_convert(collate_cases(glasstorch)[name]))
    theirs = plain(TORCH.utils.data.default_convert(collate_cases(TORCH)[name]))
    assert ours == theirs


def test_default_collate_dtypes():
    assert default_collate([1, 2]).dtype is glasstorch.int64
    assert default_collate([1.0, 2.0]).dtype is glasstorch.float64
    assert default_collate([True, False]).dtype is glasstorch.bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype is glasstorch.float32
    assert default_collate([np.int32(1), np.int32(2)]).dtype is glasstorch.int32
    assert default_collate(["a", "b"]) == ["a", "b"]


def test_default_collate_stacks_tensors_and_structures():
    batch = [{"x": glasstorch.ones(2, 3), "p": Point(1, "a")}, {"x": glasstorch.zeros(2, 3), "p": Point(2, "b")}]
    out = default_collate(batch)
    assert out["x"].shape == (2, 2, 3)
    np.testing.assert_array_equal(out["x"].numpy()[0], np.ones((2, 3)))
    assert isinstance(out["p"], Point) and out["p"].x.tolist() == [1, 2] and out["p"].y == ("a", "b")
    assert default_collate([(1, 2), (3, 4)])[1].tolist() == [2, 4]
    assert isinstance(default_collate([(1, 2), (3, 4)]), list)  # tuples become lists, as in PyTorch
    factory = collections.defaultdict(list, {"a": 1})
    assert isinstance(default_collate([factory, collections.defaultdict(list, {"a": 2})]), collections.defaultdict)


def test_default_collate_keeps_the_graph():
    a = glasstorch.ones(2, requires_grad=True)
    out = default_collate([a, a * 2])
    assert type(out.grad_fn).__name__ == "StackBackward0"
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        default_collate([glasstorch.zeros(2), glasstorch.zeros(3)])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, "
                                        "dicts or lists; found <class 'object'>"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


ERROR_BATCHES = {
    "tensor_sizes": lambda lib: [lib.zeros(2), lib.zeros(3)],
    "tensor_ranks": lambda lib: [lib.zeros(2, 2), lib.zeros(4)],
    "list_lengths": lambda lib: [[1, 2], [3]],
    "object": lambda lib: [object(), object()],
    "none": lambda lib: [None, None],
    "string_array": lambda lib: [np.array(["a"]), np.array(["b"])],
    "object_array": lambda lib: [np.array([None]), np.array([None])],
    "nested_sizes": lambda lib: [{"a": (lib.zeros(1),)}, {"a": (lib.zeros(2),)}],
}


@pytest.mark.parametrize("name", list(ERROR_BATCHES))
@pytest.mark.torch
@needs_torch
def test_default_collate_errors_as_pytorch(name):
    assert_same_error(lambda lib: lib.utils.data.default_collate(ERROR_BATCHES[name](lib)))


def test_collate_with_a_custom_map():
    class Box:
        def __init__(self, v):
            self.v = v

    custom = {Box: lambda batch, *, collate_fn_map: sum(b.v for b in batch), **default_collate_fn_map}
    assert collate([{"b": Box(1), "n": 1}, {"b": Box(2), "n": 2}], collate_fn_map=custom)["b"] == 3
    with pytest.raises(TypeError, match="found <class"):
        default_collate([Box(1)])


def test_default_convert():
    out = default_convert({"a": np.arange(3), "b": (np.float32(1.5), "s"), "c": 2})
    assert isinstance(out["a"], glasstorch.Tensor) and out["a"].dtype is glasstorch.int64
    assert isinstance(out["b"], list) and out["b"][0].dtype is glasstorch.float32 and out["b"][1] == "s"
    assert out["c"] == 2
    strings = np.array(["x"])
    assert default_convert(strings) is strings


# --- DataLoader: batches, lengths, options ----------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 9, 10, 11])
@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 32])
@pytest.mark.parametrize("drop_last", [False, True])
def test_dataloader_sequential_batches(n, batch_size, drop_last):
    x, y = tensors_of(n=n)
    loader = DataLoader(TensorDataset(glasstorch.from_numpy(x), glasstorch.from_numpy(y)), batch_size=batch_size,
                        drop_last=drop_last)
    batches = list(loader)
    expected = n // batch_size if drop_last else -(-n // batch_size)
    assert len(loader) == len(batches) == expected
    if batches:
        np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in batches]), x[:expected * batch_size] if
                                      drop_last else x)
        assert all(isinstance(b, list) and len(b) == 2 for b in batches)


@pytest.mark.parametrize("n", [1, 9, 10, 11])
@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 32])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.torch
@needs_torch
def test_dataloader_sequential_batches_as_pytorch(n, batch_size, drop_last):
    def run(lib):
        x, y = tensors_of(n=n)
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.from_numpy(x), lib.from_numpy(y)),
                                           batch_size=batch_size, drop_last=drop_last)
        return len(loader), plain(list(loader))

    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.torch
@needs_torch
def test_dataloader_of_a_dict_dataset_as_pytorch():
    class TorchSquares:
        def __getitem__(self, i):
            return {"x": TORCH.tensor([float(i), float(i * i)]), "label": i % 3, "name": f"s{i}"}

        def __len__(self):
            return 7

    ours = plain(list(DataLoader(Squares(7), batch_size=3)))
    theirs = plain(list(TORCH.utils.data.DataLoader(TorchSquares(), batch_size=3)))
    assert ours == theirs


@pytest.mark.parametrize("kwargs", [
    {"batch_size": None},
    {"batch_size": 2, "sampler": [4, 0, 3, 1]},
    {"batch_sampler": [[3, 1], [0], [2, 4, 5]]},
    {"batch_size": 4, "num_workers": 2},
    {"batch_size": 3, "collate_fn": lambda batch: batch},
])
@pytest.mark.torch
@needs_torch
def test_dataloader_options_as_pytorch(kwargs):
    ours, theirs = both(lambda lib: loader_batches(lib, n=6, **kwargs))
    assert ours == theirs


@pytest.mark.torch
@needs_torch
def test_dataloader_unbatched_numpy_samples_as_pytorch():
    samples = [np.arange(3) + i for i in range(4)]
    ours, theirs = both(lambda lib: plain(list(lib.utils.data.DataLoader(samples, batch_size=None))))
    assert ours == theirs
    assert ours[1][0][0] == "tensor"


def test_dataloader_unbatched():
    loader = DataLoader(Squares(3), batch_size=None)
    samples = list(loader)
    assert len(loader) == 3 and [s["name"] for s in samples] == ["s0", "s1", "s2"]
    assert samples[1]["x"].shape == (2,)


def test_dataloader_with_a_batch_sampler_and_a_sampler():
    assert [b.tolist() for b in DataLoader(range(10), batch_sampler=[[9, 8], [1]])] == [[9, 8], [1]]
    loader = DataLoader(range(10), batch_size=2, sampler=[5, 6, 7])
    assert [b.tolist() for b in loader] == [[5, 6], [7]] and len(loader) == 2


def test_dataloader_uses_getitems_for_a_batch():
    class Batched(Dataset):
        def __getitem__(self, i):
            raise AssertionError("should fetch the batch at once")

        def __getitems__(self, indices):
            return [i * 10 for i in indices]

        def __len__(self):
            return 5

    assert [b.tolist() for b in DataLoader(Batched(), batch_size=2)] == [[0, 10], [20, 30], [40]]


def test_dataloader_len_follows_the_index_sampler():
    assert len(DataLoader(range(10), batch_size=3)) == 4
    assert len(DataLoader(range(10), batch_size=3, drop_last=True)) == 3
    assert len(DataLoader(range(10), batch_size=None)) == 10
    iterator = iter(DataLoader(range(10), batch_size=4))
    assert len(iterator) == 3
    assert next(iterator).tolist() == [0, 1, 2, 3]


DATALOADER_ERRORS = [
    ({"sampler": [0, 1], "shuffle": True}, ValueError, "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, ValueError, "batch_sampler option is mutually exclusive with "
                                                            "batch_size, shuffle, sampler, and drop_last"),
    ({"batch_sampler": [[0]], "shuffle": True}, ValueError, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "sampler": [0]}, ValueError, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "drop_last": True}, ValueError, "batch_sampler option is mutually exclusive"),
    ({"batch_size": None, "drop_last": True}, ValueError, "batch_size=None option disables auto-batching and is "
                                                          "mutually exclusive with drop_last"),
    ({"batch_size": 0}, ValueError, "batch_size should be a positive integer value, but got batch_size=0"),
    ({"num_workers": -1}, ValueError, "num_workers option should be non-negative; use num_workers=0 to disable"),
    ({"timeout": -1}, ValueError, "timeout option should be non-negative"),
    ({"prefetch_factor": 2}, ValueError, "prefetch_factor option could only be specified in multiprocessing"),
    ({"num_workers": 1, "prefetch_factor": -1}, ValueError, "prefetch_factor option should be non-negative"),
    ({"persistent_workers": True}, ValueError, "persistent_workers option needs num_workers > 0"),
    ({"multiprocessing_context": "spawn"}, ValueError, "multiprocessing_context can only be used with multi-process"),
    ({"num_workers": 1, "multiprocessing_context": "nope"}, ValueError, "should specify a valid start method in"),
    ({"num_workers": 1, "multiprocessing_context": 3}, TypeError, "should be a valid context object or a string"),
    ({"drop_last": "yes"}, ValueError, "drop_last should be a boolean value"),
]


@pytest.mark.parametrize("kwargs, error, message", DATALOADER_ERRORS)
def test_dataloader_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        DataLoader(range(4), **kwargs)


@pytest.mark.parametrize("kwargs", [k for k, _, _ in DATALOADER_ERRORS])
@pytest.mark.torch
@needs_torch
def test_dataloader_errors_as_pytorch(kwargs):
    assert_same_error(lambda lib: lib.utils.data.DataLoader(range(4), **kwargs))


@pytest.mark.parametrize("attr", ["batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                  "persistent_workers"])
def test_dataloader_attributes_are_frozen_after_init(attr):
    loader = DataLoader(range(4))
    with pytest.raises(ValueError, match=f"{attr} attribute should not be set after DataLoader is initialized"):
        setattr(loader, attr, None)
    loader.num_workers = 0  # the others stay settable, as in PyTorch


@pytest.mark.torch
@needs_torch
def test_dataloader_frozen_attribute_error_as_pytorch():
    assert_same_error(lambda lib: setattr(lib.utils.data.DataLoader(range(4)), "batch_size", 3))


def test_dataloader_timeout_needs_workers_when_iterating():
    loader = DataLoader(range(4), timeout=5)
    with pytest.raises(AssertionError, match="requires timeout == 0"):
        iter(loader)
    assert [b.tolist() for b in DataLoader(range(4), batch_size=2, timeout=5, num_workers=2)] == [[0, 1], [2, 3]]


def test_dataloader_num_workers_loads_in_the_main_process():
    calls = []
    loader = DataLoader(Squares(5), batch_size=2, num_workers=3, worker_init_fn=calls.append,
                        multiprocessing_context="spawn", persistent_workers=True)
    assert loader.prefetch_factor == 2
    assert plain(list(loader)) == plain(list(DataLoader(Squares(5), batch_size=2)))
    assert calls == []  # there are no workers to initialise


def test_dataloader_pin_memory_warns_and_changes_nothing():
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        batches = list(DataLoader(range(3), batch_size=2, pin_memory=True))
    assert [b.tolist() for b in batches] == [[0, 1], [2]]


# --- DataLoader: shuffling ---------------------------------------------------------------------------------
def shuffled_epochs(loader, epochs=3):
    return [[i for batch in loader for i in batch[1].tolist()] for _ in range(epochs)]


def index_loader(n=23, **kwargs):
    return DataLoader(TensorDataset(glasstorch.zeros(n, 1), glasstorch.arange(n)), batch_size=5, shuffle=True, **kwargs)


def test_shuffle_visits_every_index_once_per_epoch_in_a_new_order():
    glasstorch.manual_seed(0)
    epochs = shuffled_epochs(index_loader())
    assert all(sorted(epoch) == list(range(23)) for epoch in epochs)
    assert len({tuple(epoch) for epoch in epochs}) == 3
    assert epochs[0] != list(range(23))


def test_shuffle_is_reproducible_under_manual_seed():
    glasstorch.manual_seed(11)
    first = shuffled_epochs(index_loader())
    glasstorch.manual_seed(11)
    assert shuffled_epochs(index_loader()) == first
    glasstorch.manual_seed(12)
    assert shuffled_epochs(index_loader()) != first


def test_shuffle_with_an_explicit_generator():
    first = shuffled_epochs(index_loader(generator=glasstorch.Generator().manual_seed(7)))
    glasstorch.manual_seed(999)
    assert shuffled_epochs(index_loader(generator=glasstorch.Generator().manual_seed(7))) == first
    assert shuffled_epochs(index_loader(generator=glasstorch.Generator().manual_seed(8))) != first


def test_shuffle_with_drop_last():
    loader = index_loader(drop_last=True, generator=glasstorch.Generator().manual_seed(0))
    epochs = shuffled_epochs(loader)
    assert len(loader) == 4
    assert all(len(epoch) == 20 and len(set(epoch)) == 20 for epoch in epochs)


# --- DataLoader: the TensorDataset fast path ---------------------------------------------------------------
def sample_by_sample(batch):
    """default_collate behind a lambda: the same collation, but the loader cannot take the fast path."""
    return default_collate(batch)


def fast_and_slow(dataset, **kwargs):
    fast = DataLoader(dataset, **kwargs)
    slow = DataLoader(dataset, collate_fn=sample_by_sample, **kwargs)
    assert iter(fast)._tensor_rows is not None and iter(slow)._tensor_rows is None
    return fast, slow


def assert_same_batches(fast, slow):
    assert plain(list(fast)) == plain(list(slow))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (4, False), (4, True), (50, False)])
def test_fast_path_equals_the_sample_by_sample_path(dtype, batch_size, drop_last):
    x, y = tensors_of(n=13)
    dataset = TensorDataset(glasstorch.from_numpy(x.astype(dtype)), glasstorch.from_numpy(y),
                            glasstorch.arange(13.0).reshape(13, 1, 1))
    assert_same_batches(*fast_and_slow(dataset, batch_size=batch_size, drop_last=drop_last))


def test_fast_path_equals_the_slow_path_when_shuffled():
    x, y = tensors_of(n=17)
    dataset = TensorDataset(glasstorch.from_numpy(x), glasstorch.from_numpy(y))
    fast, slow = fast_and_slow(dataset, batch_size=4, shuffle=True, generator=glasstorch.Generator().manual_seed(0))
    slow.generator.manual_seed(0)  # both loaders share one generator: replay it for the slow loader
    fast_batches = plain(list(fast))
    slow.generator.manual_seed(0)
    assert fast_batches == plain(list(slow))


def test_fast_path_through_random_split_subsets():
    x, y = tensors_of(n=20)
    dataset = TensorDataset(glasstorch.from_numpy(x), glasstorch.from_numpy(y))
    train, _ = random_split(dataset, [0.75, 0.25], generator=glasstorch.Generator().manual_seed(0))
    nested = Subset(train, [14, 0, 3, 7, -1])
    for subset in (train, nested, Subset(dataset, glasstorch.tensor([4, 2, 9])), Subset(dataset, range(3, 9))):
        assert_same_batches(*fast_and_slow(subset, batch_size=3))
    np.testing.assert_array_equal(next(iter(DataLoader(nested, batch_size=5)))[0].numpy(),
                                  x[[train.indices[i] for i in [14, 0, 3, 7, -1]]])


def test_fast_path_is_not_taken_when_it_could_change_the_result():
    x, y = tensors_of()
    plain_dataset = TensorDataset(glasstorch.from_numpy(x), glasstorch.from_numpy(y))

    class Augmented(TensorDataset):
        def __getitem__(self, i):
            return tuple(t * 2 for t in super().__getitem__(i))

    class Remapped(Subset):
        def __getitem__(self, i):
            return self.dataset[0]

        def __getitems__(self, indices):
            return [self.dataset[0] for _ in indices]

    loaders = [DataLoader(Augmented(*plain_dataset.tensors), batch_size=2),
               DataLoader(Remapped(plain_dataset, [1, 2, 3]), batch_size=2),
               DataLoader(plain_dataset, batch_size=2, sampler=[0, 1]),
               DataLoader(plain_dataset, batch_sampler=[[0, 1]]),
               DataLoader(plain_dataset, batch_size=None),
               DataLoader(TensorDataset(glasstorch.ones(4, requires_grad=True)), batch_size=2)]
    assert all(iter(loader)._tensor_rows is None for loader in loaders)
    np.testing.assert_array_equal(next(iter(loaders[0]))[0].numpy(), 2 * x[:2])
    np.testing.assert_array_equal(next(iter(loaders[1]))[0].numpy(), x[[0, 0]])
    assert type(next(iter(loaders[5]))[0].grad_fn).__name__ == "StackBackward0"


@pytest.mark.torch
@needs_torch
def test_fast_path_as_pytorch():
    def run(lib):
        x, y = tensors_of(n=21)
        dataset = lib.utils.data.TensorDataset(lib.from_numpy(x), lib.from_numpy(y))
        head = lib.utils.data.Subset(dataset, list(range(20, 2, -2)))
        return plain(list(lib.utils.data.DataLoader(head, batch_size=4)))

    ours, theirs = both(run)
    assert ours == theirs


# --- end to end: training a model with a DataLoader ------------------------------------------------------
def regression_data(n=64):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = (x @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


def train(lib, shuffle, epochs=2):
    """Two epochs of SGD on a linear regression, batches from a DataLoader; returns the losses and weights."""
    x, y = regression_data()
    model = lib.nn.Linear(3, 1)
    with lib.no_grad():
        model.weight.copy_(lib.from_numpy(np.array([[0.1, 0.2, -0.1]], np.float32)))
        model.bias.copy_(lib.from_numpy(np.array([0.0], np.float32)))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.from_numpy(x), lib.from_numpy(y)),
                                       batch_size=8, shuffle=shuffle)
    losses = []
    for _ in range(epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = lib.nn.functional.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses, model.weight.detach().numpy().copy(), model.bias.detach().numpy().copy()


def test_training_two_epochs_with_a_shuffled_dataloader():
    glasstorch.manual_seed(0)
    losses, weight, bias = train(glasstorch, shuffle=True)
    assert len(losses) == 16
    assert np.mean(losses[-4:]) < 0.1 * np.mean(losses[:4])
    np.testing.assert_allclose(weight, [[1.5, -2.0, 0.5]], atol=0.3)
    assert isinstance(nn.Linear(3, 1)(next(iter(DataLoader(TensorDataset(glasstorch.ones(4, 3)), batch_size=2)))[0]),
                      glasstorch.Tensor)


@pytest.mark.torch
@needs_torch
def test_training_two_epochs_as_pytorch():
    (ours, our_w, our_b), (theirs, their_w, their_b) = both(lambda lib: train(lib, shuffle=False))
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(our_w, their_w, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(our_b, their_b, rtol=1e-4, atol=1e-6)
