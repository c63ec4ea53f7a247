"""Tests of ``glasstorch.save`` / ``glasstorch.load`` (package/glasstorch/serialization.py, with
_inline_container.py, _utils.py and _weights_only_unpickler.py): PyTorch's file format.

Round trips of every kind of value, the format itself (the records, their layout, the pickle's
names), tensors that share memory, whole modules, load's options, and damaged files: truncated,
flipped, entries that repeat or overlap, sizes that do not fit (each a ``RuntimeError``, found before
any memory is allocated), with a deterministic fuzz over every truncation and byte flip. Then both
directions against real PyTorch 2.13 (marker ``torch``): a file of each library loads in the other,
``glasstorch.save`` writes the very bytes ``torch.save`` writes, and ``torch.load(mmap=True)``
finds every storage where PyTorch's own writer would have put it.

Saving to paths (atomic writes, killed saves, devices, FIFOs, modes) is in
test_serialization_save.py; hostile pickles and the allow-list in test_weights_only_unpickler.py.
"""
from __future__ import annotations

import collections
import io
import math
import os
import pickle
import pickletools
import random
import struct
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest
from serialization_support import (central_entry, checkpoint, describe, floats, local_entry, raw_zip, records_of,
                                   rewrite, round_trip, save_to_bytes, shares_memory, tensor_pickle, torch,
                                   torch_round_trip, write_checkpoint)

import glasstorch
from glasstorch import _inline_container, serialization
from glasstorch.nn import Parameter

needs_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)"
)


def with_torch(test):
    return pytest.mark.torch(needs_torch(test))


def assert_identical(got, want, where="obj"):
    """Same types (exactly), same values bit for bit, same autograd flags, all the way down."""
    assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__}"
    if isinstance(want, glasstorch.Tensor):
        assert got.dtype is want.dtype, f"{where}: dtype"
        assert got.shape == want.shape, f"{where}: shape"
        assert got.requires_grad == want.requires_grad, f"{where}: requires_grad"
        assert got.is_leaf, f"{where}: a loaded tensor is a leaf"
        assert np.ascontiguousarray(got._data).tobytes() == np.ascontiguousarray(want._data).tobytes(), f"{where}: values"
    elif isinstance(want, dict):
        assert [(type(k), k) for k in got] == [(type(k), k) for k in want], f"{where}: keys"
        for (key, g), w in zip(got.items(), want.values()):
            assert_identical(g, w, f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)):  # also Size
        assert len(got) == len(want), f"{where}: length"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_identical(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert struct.pack("<d", got) == struct.pack("<d", want), f"{where}: {got!r} != {want!r}"  # nan, -0.0
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


# --- round trips ------------------------------------------------------------------------------
SPECIAL_FLOATS = [0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), 1e-3]


def values_of(dtype: glasstorch.dtype, shape: tuple) -> np.ndarray:
    n = math.prod(shape)
    if dtype.is_floating_point:
        values = np.resize(np.array(SPECIAL_FLOATS, dtype=np.float64), n)
    elif dtype is glasstorch.bool:
        values = np.arange(n) % 3 == 0
    else:
        info = np.iinfo(dtype.numpy_dtype)
        values = np.resize(np.array([info.min, info.max, 0, 1, -1 if info.min else 2]), n)
    return values.astype(dtype.numpy_dtype).reshape(shape)


@pytest.mark.parametrize("dtype", glasstorch.dtypes.ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (5,), (2, 3, 4)], ids=str)
def test_tensor_round_trip_every_dtype_and_shape(dtype, shape):
    original = glasstorch.from_numpy(values_of(dtype, shape))
    loaded = round_trip(original)
    assert_identical(loaded, original)
    assert loaded._data.flags.writeable


@pytest.mark.parametrize("dtype", [glasstorch.float16, glasstorch.bfloat16, glasstorch.float32, glasstorch.float64])
def test_float_tensor_keeps_requires_grad_and_owns_its_memory(dtype):
    original = glasstorch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    loaded = round_trip(original)
    assert_identical(loaded, original)
    with glasstorch.no_grad():
        loaded[0] = 10.0  # the loaded tensor is writable and independent of the original
    assert original[0].item() == 1.0


def test_python_values_round_trip_exactly():
    obj = {
        "ints": [0, -7, 255, 256, 65535, 65536, 2**31 - 1, -(2**31), 2**100, -(2**70)],
        "floats": SPECIAL_FLOATS + [0.1, 1 / 3, 5e-324, 1.7976931348623157e308],
        "flags": (True, False, None),
        "text": ["", "weight", "résumé ✓", "quote \" and \\ backslash", "\ud800 lone surrogate"],
        "bytes": [b"\x00\xff\x80 binary", bytearray(b"ab")],  # (b"" pickles as a call of bytes(): refused, as by PyTorch)
        "empty": ([], (), {}, collections.OrderedDict(), set()),
        "tuple_vs_list": ((1, 2), [1, 2], [(1,), [2]]),
        "size": [glasstorch.Size([2, 3]), glasstorch.Size([])],
        "dtypes": list(glasstorch.dtypes.ALL_DTYPES),
        "others": [{1, 2}, 1 - 2j, collections.Counter("aab"), glasstorch.device("cpu"), glasstorch.device("cuda", 1)],
    }
    loaded = round_trip(obj)
    assert_identical({k: v for k, v in loaded.items() if k != "others"}, {k: v for k, v in obj.items() if k != "others"})
    assert loaded["others"] == obj["others"] and type(loaded["others"][2]) is collections.Counter
    assert all(d is o for d, o in zip(loaded["dtypes"], glasstorch.dtypes.ALL_DTYPES))  # the singletons
    assert type(loaded["size"][0]) is glasstorch.Size


def test_shared_containers_stay_shared_and_dict_keys_keep_their_types():
    inner = [1, 2]
    obj = {"a": inner, "b": inner, "keys": collections.OrderedDict([(3, "int"), ("a", "str"), (1.5, "float"),
                                                                     (True, "bool"), (None, "none"), ((1, 2), "tuple")])}
    loaded = round_trip(obj)
    assert loaded["a"] is loaded["b"]  # a pickle keeps one object one object
    assert [(type(k), k) for k in loaded["keys"]] == [(type(k), k) for k in obj["keys"]]


def test_parameters_load_as_parameters_with_their_requires_grad():
    trainable = Parameter(glasstorch.tensor([1.0, 2.0]))
    frozen = Parameter(glasstorch.tensor([1.0, 2.0]), requires_grad=False)
    integer = Parameter(glasstorch.tensor([1, 2]), requires_grad=False)
    loaded = round_trip([trainable, frozen, integer, trainable.detach()])
    assert [type(t) for t in loaded] == [Parameter, Parameter, Parameter, glasstorch.Tensor]
    assert [t.requires_grad for t in loaded] == [True, False, False, False]
    assert_identical(loaded[:3], [trainable, frozen, integer])
    assert shares_memory(loaded[0], loaded[3])  # a Parameter and its detached twin: one storage


def test_computed_tensor_loads_as_a_leaf_that_requires_grad_and_grad_is_not_saved():
    leaf = glasstorch.tensor([1.0, 2.0], requires_grad=True)
    leaf.grad = glasstorch.tensor([0.5, 0.5])
    computed = leaf * 3
    loaded_leaf, loaded_computed = round_trip([leaf, computed])
    assert loaded_computed.grad_fn is None and loaded_computed.is_leaf and loaded_computed.requires_grad  # as torch
    assert loaded_computed.tolist() == [3.0, 6.0]
    assert loaded_leaf.grad is None  # torch.save does not store .grad either
    loaded_computed.sum().backward()  # a usable leaf: its gradient accumulates in .grad
    assert loaded_computed.grad.tolist() == [1.0, 1.0]


def test_tensor_attributes_are_saved_but_not_hooks():
    buffer = glasstorch.nn.Buffer(glasstorch.ones(2), persistent=False)  # carries .persistent and ._is_buffer
    hooked = glasstorch.ones(2, requires_grad=True)
    hooked.register_hook(lambda grad: grad * 2)
    with pytest.warns(UserWarning, match="backward hook .* on tensor will not be serialized"):
        loaded_buffer, loaded_hooked = round_trip([buffer, hooked])
    assert isinstance(loaded_buffer, glasstorch.nn.Buffer) and loaded_buffer.persistent is False
    assert not loaded_hooked._backward_hooks


def test_tensors_sharing_memory_share_it_after_loading():
    weight = Parameter(glasstorch.ones(2, 2))
    base = glasstorch.arange(12.0)
    obj = {"model": {"w": weight}, "tied": [weight, weight], "base": base, "every_other": base[1::2],
           "matrix": base.reshape(3, 4), "transposed": base.reshape(3, 4).t(), "equal": base.clone()}
    data = save_to_bytes(obj)
    loaded = glasstorch.load(io.BytesIO(data))
    assert loaded["model"]["w"] is loaded["tied"][0] is loaded["tied"][1]  # one object stays one object
    assert [shares_memory(loaded["base"], loaded[k]) for k in ("every_other", "matrix", "transposed", "equal")] == [
        True, True, True, False]
    assert loaded["transposed"].tolist() == base.reshape(3, 4).t().tolist() and not loaded["transposed"].is_contiguous()
    loaded["base"][1] = 100.0
    assert loaded["every_other"][0].item() == 100.0 and loaded["transposed"][1, 0].item() == 100.0
    # base, its three views: one storage of 12 floats; the clone: another; the weight: a third
    assert sorted(len(v) for k, v in records_of(data).items() if k.startswith("data/")) == [16, 48, 48]


def test_views_of_a_negative_stride_or_another_dtype_are_saved_as_copies():
    array = np.arange(6.0, dtype=np.float32)
    flipped = glasstorch.from_numpy(array[::-1])
    as_int = glasstorch.from_numpy(array.view(np.int32))
    loaded = round_trip({"flipped": flipped, "as_int": as_int, "base": glasstorch.from_numpy(array)})
    assert loaded["flipped"].tolist() == array[::-1].tolist() and loaded["as_int"].tolist() == array.view(np.int32).tolist()
    assert not shares_memory(loaded["base"], loaded["flipped"])  # PyTorch has no negative strides: a copy


def test_saving_a_view_saves_its_whole_storage_as_pytorch_does():
    big = glasstorch.arange(1000.0)
    records = records_of(save_to_bytes(big[:10]))
    assert len(records["data/0"]) == 4000  # save big[:10].clone() to store ten elements
    assert len(records_of(save_to_bytes(big[:10].clone()))["data/0"]) == 40


def test_paths_and_file_objects(tmp_path):
    obj = {"w": glasstorch.tensor([[1.0, 2.0]]), "epoch": 3}
    glasstorch.save(obj, str(tmp_path / "as_str.pt"))
    glasstorch.save(obj, tmp_path / "as_pathlib.pt")
    with open(tmp_path / "as_file.pt", "wb") as file:
        glasstorch.save(obj, file)
    for name in ["as_str.pt", "as_pathlib.pt", "as_file.pt"]:
        assert_identical(glasstorch.load(str(tmp_path / name)), obj, name)
        assert_identical(glasstorch.load(tmp_path / name), obj, name)
        with open(tmp_path / name, "rb") as file:
            assert_identical(glasstorch.load(file), obj, name)
    assert sorted(os.listdir(tmp_path)) == ["as_file.pt", "as_pathlib.pt", "as_str.pt"]  # no temporaries left
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like object"):
        glasstorch.save(obj, 3)


class Stream(io.RawIOBase):
    """A pipe-like stream: readable or writable, but not seekable; it takes at most 100 bytes a write."""

    def __init__(self, data: bytes = b"") -> None:
        self.inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self.inner.readinto(buffer)

    def write(self, data) -> int:
        return self.inner.write(bytes(data[:100]))


def test_unseekable_streams_and_partial_writes():
    obj = {"w": glasstorch.arange(100.0), "ids": [1, 2]}
    sink = Stream()
    glasstorch.save(obj, sink)
    assert not sink.seekable() and sink.inner.getvalue() == save_to_bytes(obj)
    assert_identical(glasstorch.load(Stream(sink.inner.getvalue())), obj)


def test_a_file_object_not_at_its_start():
    buffer = io.BytesIO(b"header")
    buffer.seek(0, io.SEEK_END)
    glasstorch.save([1, 2], buffer)
    buffer.seek(len(b"header"))
    assert glasstorch.load(buffer) == [1, 2]


def test_same_object_gives_the_same_bytes(monkeypatch):
    obj = {"w": glasstorch.tensor([1.0, 2.0]), "step": 1}
    monkeypatch.setattr(time, "time", lambda: 1_000_000_000.0)
    first = save_to_bytes(obj)
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.0)  # saved years later: the zip dates do not change
    assert save_to_bytes(obj) == first


def test_a_failing_pickle_writes_nothing():
    buffer = io.BytesIO()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        glasstorch.save({"w": glasstorch.ones(2), "f": lambda x: x}, buffer)  # a lambda cannot be pickled
    assert buffer.getvalue() == b""


def test_resuming_training_from_a_checkpoint(tmp_path):
    """The use the format exists for: state_dicts of a model and its optimizer, saved and restored."""
    def train_step(model, optimizer):
        optimizer.zero_grad()
        model(glasstorch.tensor([[1.0, -2.0, 0.5]])).pow(2).sum().backward()
        optimizer.step()

    glasstorch.manual_seed(0)
    model = glasstorch.nn.Linear(3, 2)
    optimizer = glasstorch.optim.Adam(model.parameters(), lr=0.1)
    train_step(model, optimizer)
    glasstorch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 1}, tmp_path / "ckpt.pt")
    train_step(model, optimizer)

    checkpoint_ = glasstorch.load(tmp_path / "ckpt.pt")
    assert type(checkpoint_["model"]) is collections.OrderedDict and list(checkpoint_["optimizer"]["state"]) == [0, 1]
    resumed = glasstorch.nn.Linear(3, 2)
    resumed.load_state_dict(checkpoint_["model"])
    resumed_optimizer = glasstorch.optim.Adam(resumed.parameters(), lr=0.5)
    resumed_optimizer.load_state_dict(checkpoint_["optimizer"])  # lr 0.1 and Adam's moments come back too
    train_step(resumed, resumed_optimizer)
    for name, value in model.state_dict().items():
        assert resumed.state_dict()[name].tolist() == value.tolist(), name


def test_state_dict_metadata_and_counters_round_trip(tmp_path):
    """A state_dict keeps its ``_metadata`` (module versions) and MultiStepLR's milestones stay a Counter."""
    model = glasstorch.nn.Sequential(glasstorch.nn.Linear(2, 2), glasstorch.nn.BatchNorm1d(2))
    optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = glasstorch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 2, 5])
    path = tmp_path / "ckpt.pt"
    glasstorch.save({"model": model.state_dict(), "scheduler": scheduler.state_dict()}, path)
    loaded = glasstorch.load(path)
    assert loaded["model"]._metadata == model.state_dict()._metadata
    assert loaded["model"]._metadata["1"] == {"version": 2}
    milestones = loaded["scheduler"]["milestones"]
    assert type(milestones) is collections.Counter and milestones == collections.Counter({2: 2, 5: 1})
    fresh = glasstorch.optim.lr_scheduler.MultiStepLR(glasstorch.optim.SGD(model.parameters(), lr=0.1), [1])
    fresh.load_state_dict(loaded["scheduler"])
    assert fresh.milestones == scheduler.milestones


# --- the file format --------------------------------------------------------------------------
def test_records_are_pytorchs_in_pytorchs_order():
    weight = glasstorch.tensor([[1.0, -2.0]], requires_grad=True)
    data = save_to_bytes(collections.OrderedDict(w=weight, lr=0.1, step=glasstorch.tensor(3)))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == [
            "archive/data.pkl", "archive/.format_version", "archive/.storage_alignment", "archive/byteorder",
            "archive/data/0", "archive/data/1", "archive/version", "archive/.data/serialization_id"]
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        assert [archive.read(f"archive/{name}") for name in (".format_version", ".storage_alignment", "byteorder",
                                                              "version")] == [b"1", b"64", b"little", b"3\n"]
        assert archive.read("archive/data/0") == floats(1.0, -2.0)
        assert archive.read("archive/data/1") == struct.pack("<q", 3)
        assert archive.read("archive/.data/serialization_id").isdigit()
        assert len(archive.read("archive/.data/serialization_id")) == 40
        globals_named = [arg for op, arg, _ in pickletools.genops(archive.read("archive/data.pkl")) if op.name == "GLOBAL"]
    assert globals_named == ["collections OrderedDict", "torch._utils _rebuild_tensor_v2", "torch FloatStorage",
                             "torch LongStorage"]
    for record in ("data.pkl", "data/0", ".format_version", "version", "byteorder"):
        assert f"archive/{record}" in serialization.__doc__.replace("ckpt/", "archive/")


def test_each_record_starts_at_a_multiple_of_64_and_the_headers_are_minizs():
    data = save_to_bytes({"a": glasstorch.ones(3), "name": "x" * 77, "b": glasstorch.zeros(0)})
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
            start = info.header_offset + 30 + name_length + extra_length
            assert start % 64 == 0, info.filename
            assert data[start - extra_length:start][:2] == b"FB"  # the extra field: padding
            assert info.flag_bits == (0x808 if info.file_size else 0x800)  # data descriptor, UTF-8 names
            if info.file_size:
                assert data[start + info.file_size:start + info.file_size + 4] == b"PK\x07\x08"
    assert data[-22:-18] == b"PK\x05\x06" and b"PK\x06\x06" in data[-120:]  # zip64's end records, then zip's


@pytest.mark.parametrize("path, folder", [("ckpt.pt", "ckpt"), ("sub/model.tar.gz", "model.tar"), ("noext", "noext"),
                                          ("naïve.pt", "archive"), (".pt", "archive")])
def test_the_folder_is_named_after_the_file(tmp_path, path, folder):
    (tmp_path / "sub").mkdir()
    glasstorch.save(1, tmp_path / path)
    with zipfile.ZipFile(tmp_path / path) as archive:
        assert {name.split("/")[0] for name in archive.namelist()} == {folder}
    assert glasstorch.load(tmp_path / path) == 1


def test_large_records_use_zip64_fields(monkeypatch):
    """Past 4 GiB a size or an offset needs zip64's 8 bytes: lowered here to 100 bytes, the same code."""
    monkeypatch.setattr(_inline_container, "ZIP64_LIMIT", 100)
    obj = {"w": glasstorch.arange(50.0), "i": glasstorch.arange(3)}
    data = save_to_bytes(obj)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.getinfo("archive/data/0").file_size == 200 and archive.testzip() is None
    assert b"PK\x07\x08" + struct.pack("<IQQ", zlib.crc32(records_of(data)["data/0"]), 200, 200) in data
    assert_identical(glasstorch.load(io.BytesIO(data)), obj)


# --- whole modules ----------------------------------------------------------------------------
def test_a_whole_module_saves_and_needs_weights_only_false_to_load(tmp_path):
    glasstorch.manual_seed(0)
    net = glasstorch.nn.Sequential(glasstorch.nn.Linear(2, 3), glasstorch.nn.ReLU(), glasstorch.nn.BatchNorm1d(3))
    net.eval()
    path = tmp_path / "model.pt"
    glasstorch.save(net, path)
    with pytest.raises(pickle.UnpicklingError) as error:
        glasstorch.load(path)
    message = str(error.value)
    assert message.startswith("Weights only load failed. This file can still be loaded")
    assert "Re-running `torch.load` with `weights_only` set to `False` will likely succeed" in message
    assert ("WeightsUnpickler error: Unsupported global: GLOBAL glasstorch.nn.modules.container.Sequential was not an "
            "allowed global by default. Please use `torch.serialization.add_safe_globals([glasstorch.nn.modules."
            "container.Sequential])`") in message
    loaded = glasstorch.load(path, weights_only=False)
    x = glasstorch.randn(4, 2)
    assert type(loaded) is glasstorch.nn.Sequential and not loaded.training
    assert loaded(x).tolist() == net(x).tolist()
    assert loaded.state_dict().keys() == net.state_dict().keys()
    assert "can run any code" in glasstorch.load.__doc__ and "weights_only=False" in glasstorch.load.__doc__


def test_the_allow_list_can_be_extended_for_trusted_classes(tmp_path):
    net = glasstorch.nn.Linear(2, 1)
    path = tmp_path / "model.pt"
    glasstorch.save(net, path)
    with glasstorch.serialization.safe_globals([glasstorch.nn.Linear]):
        loaded = glasstorch.load(path)
    assert type(loaded) is glasstorch.nn.Linear and loaded.weight.tolist() == net.weight.tolist()
    with pytest.raises(pickle.UnpicklingError):
        glasstorch.load(path)  # the block is over
    assert glasstorch.serialization.get_safe_globals() == []


def test_pickle_module_means_weights_only_false_and_the_two_clash():
    data = save_to_bytes(glasstorch.nn.ReLU())
    assert type(glasstorch.load(io.BytesIO(data), pickle_module=pickle)) is glasstorch.nn.ReLU
    with pytest.raises(RuntimeError, match="^Can not safely load weights when explicit pickle_module is specified$"):
        glasstorch.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)


# --- load options -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "map_location", [None, "cpu", "cpu:0", glasstorch.device("cpu"), {"cuda:0": "cpu"}, lambda storage, location: storage]
)
def test_map_location_meaning_the_cpu_is_accepted(map_location):
    assert_identical(round_trip({"w": glasstorch.ones(2)}, map_location=map_location), {"w": glasstorch.ones(2)})


@pytest.mark.parametrize("map_location", ["cuda", "cuda:1", glasstorch.device("cuda"), {"cpu": "cuda:0"}])
def test_map_location_cuda_says_there_is_no_cuda_device(map_location):
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device.*map_location='cpu'"):
        round_trip(1, map_location=map_location)


def test_a_storage_saved_on_a_gpu_needs_a_map_location():
    data = write_checkpoint(tensor_pickle(location="cuda:0"), {"0": floats(1, 2)})
    with pytest.raises(RuntimeError, match=r"Attempting to deserialize object on a CUDA device \('cuda:0'\)"):
        glasstorch.load(io.BytesIO(data))
    for map_location in ("cpu", {"cuda:0": "cpu"}, lambda storage, location: storage):
        assert glasstorch.load(io.BytesIO(data), map_location=map_location).tolist() == [1.0, 2.0]


def test_map_location_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="map_location must be"):
        round_trip(1, map_location=3)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):  # as in PyTorch
        glasstorch.load(tmp_path / "nope.pt")


def test_pickle_load_args_warn_with_weights_only_and_mmap_is_accepted():
    data = save_to_bytes({"a": 1})
    with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
        assert glasstorch.load(io.BytesIO(data), encoding="utf-8") == {"a": 1}
    assert glasstorch.load(io.BytesIO(data), mmap=False, weights_only=False, encoding="latin1") == {"a": 1}


# --- damaged, hostile and foreign files -------------------------------------------------------
def valid_bytes() -> bytes:
    return save_to_bytes({"w": glasstorch.tensor([1.0, 2.0]), "step": 3})


def flip_inside(data: bytes, marker: bytes, shift: int = 0) -> bytes:
    position = data.index(marker) + shift
    return data[:position] + bytes([data[position] ^ 0xFF]) + data[position + 1:]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: b"", "is empty (0 bytes)"),
        (lambda: random.Random(0).randbytes(500), "it is not a zip archive (failed finding central directory)"),
        (lambda: valid_bytes()[:-30], "is damaged (truncated or corrupted)"),
        (lambda: valid_bytes()[:200], "failed finding central directory"),
        (lambda: flip_inside(valid_bytes(), b"step"), "the CRC-32 of the record 'archive/data.pkl' does not match"),
        (lambda: flip_inside(valid_bytes(), floats(1.0, 2.0)), "the CRC-32 of the record 'archive/data/0'"),
        (lambda: flip_inside(valid_bytes(), b"archive/data/0"), "file name in directory"),
        (lambda: flip_inside(valid_bytes(), b"3\n", 0), "the CRC-32 of the record 'archive/version'"),
        (lambda: pickle.dumps({"a": 1}, protocol=2), "is a plain pickle, not a checkpoint written by torch.save"),
    ],
    ids=["empty", "random-bytes", "truncated-end", "truncated-middle", "flipped-pickle", "flipped-storage",
         "flipped-entry-name", "flipped-version", "plain-pickle"],
)
def test_damaged_files_raise_runtime_error_naming_the_file(tmp_path, make, message):
    path = tmp_path / "model.pt"
    path.write_bytes(make())
    with pytest.raises(RuntimeError) as error:
        glasstorch.load(path)
    assert message in str(error.value)
    assert str(error.value).startswith(f"glasstorch.load: {str(path)!r} ")


def storage_record(numel: int = 2) -> dict:
    return {"0": floats(*range(numel))}


# Each: a checkpoint (bytes), what the RuntimeError says. Sizes and offsets in the pickle are
# checked against the bytes present: nothing is allocated for a size the file does not have.
DAMAGED = {
    "no-version": (lambda: write_checkpoint(tensor_pickle(), storage_record(), without=("version",)),
                   'Expected hasRecord("version") to be true'),
    "version-too-new": (lambda: rewrite(write_checkpoint(tensor_pickle(), storage_record()), version=b"11\n"),
                        "Attempted to read a PyTorch file with version 11"),
    "version-not-a-number": (lambda: rewrite(write_checkpoint(tensor_pickle(), storage_record()), version=b"x"),
                             "its version record holds 'x'"),
    "no-data-pkl": (lambda: write_checkpoint(b"", without=("data.pkl",)), "file not found: archive/data.pkl"),
    "byteorder": (lambda: rewrite(write_checkpoint(tensor_pickle(), storage_record()), byteorder=b"middle"),
                  "Unknown endianness type"),
    "missing-storage": (lambda: write_checkpoint(tensor_pickle(), {}), "file not found: archive/data/0"),
    "record-smaller-than-claimed": (lambda: write_checkpoint(tensor_pickle(numel=1000), storage_record()),
                                    "record size 8 mismatch with dst size 4000"),
    "huge-storage-claim": (lambda: write_checkpoint(tensor_pickle(numel=2**61), storage_record()),
                           "record size 8 mismatch with dst size"),
    "view-past-the-storage": (lambda: write_checkpoint(tensor_pickle(size=(2, 3), stride=(3, 1)), storage_record()),
                              "setStorage: sizes [2, 3], strides [3, 1], storage offset 0, and itemsize 4 requiring a "
                              "storage size of 24 are out of bounds for storage of size 8"),
    "offset-past-the-storage": (lambda: write_checkpoint(tensor_pickle(offset=2), storage_record()), "out of bounds"),
    "huge-dims-stride-0": (lambda: write_checkpoint(tensor_pickle(size=(2**40, 2**40), stride=(0, 0)), storage_record()),
                           "has more than 2**63 - 1 elements"),
    "too-many-dims": (lambda: write_checkpoint(tensor_pickle(size=(1,) * 65, stride=(1,) * 65), storage_record()),
                      "a tensor of 65 dimensions"),
    "negative-size": (lambda: write_checkpoint(tensor_pickle(size=(-2,)), storage_record()), "invalid tensor size"),
    "size-stride-mismatch": (lambda: write_checkpoint(tensor_pickle(size=(2,), stride=(1, 1)), storage_record()),
                             "mismatch in length of strides and shape"),
    "key-with-a-path": (lambda: write_checkpoint(tensor_pickle(key="../0"), storage_record()), "invalid storage key '../0'"),
    "int-requires-grad": (lambda: write_checkpoint(tensor_pickle(storage="LongStorage", requires_grad=True),
                                                   {"0": b"\0" * 16}), "only Tensors of floating point"),
    "bool-not-0-or-1": (lambda: write_checkpoint(tensor_pickle(storage="BoolStorage"), {"0": b"\x01\x02"}),
                        "holds bytes other than 0 and 1"),
    "two-types-one-key": (lambda: write_checkpoint(b"\x80\x02(" + tensor_pickle()[2:-1] + tensor_pickle(
        storage="IntStorage")[2:-1] + b"t.", storage_record()), "storage 0 is named twice, with different types"),
    "stack-underflow": (lambda: write_checkpoint(b"\x80\x02t."), "its data.pkl is not a valid checkpoint pickle"),
    "memo-miss": (lambda: write_checkpoint(b"\x80\x02h\x05."), "KeyError"),
    "truncated-pickle": (lambda: write_checkpoint(b"\x80\x02X\xff\xff\xff\x7fabc"), "pickle data was truncated"),
    "no-stop": (lambda: write_checkpoint(b"\x80\x02N"), "EOFError"),
    "dtype-glasstorch-lacks": (lambda: write_checkpoint(b"\x80\x02ctorch\ncomplex64\n."),
                               "a tensor of dtype torch.complex64 (torch.complex64), which glasstorch does not have"),
    "sparse-tensor": (lambda: write_checkpoint(b"\x80\x02ctorch._utils\n_rebuild_sparse_tensor\n."), "a sparse tensor"),
    "neg-bit": (lambda: write_checkpoint(tensor_pickle()[:-3] + b"}X\x03\x00\x00\x00neg\x88stR.", storage_record()),
                "PyTorch's neg bit set"),
    "torchscript": (lambda: write_checkpoint(b"\x80\x02N.", extra={"constants.pkl": b""}),
                    "Cannot use ``weights_only=True`` with TorchScript archives"),
}


@pytest.mark.parametrize("name", DAMAGED)
def test_damaged_or_hostile_checkpoints_raise_runtime_error_before_allocating(name):
    make, message = DAMAGED[name]
    data = make()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(RuntimeError) as error:
            glasstorch.load(io.BytesIO(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert message in str(error.value)
    assert str(error.value).startswith("glasstorch.load: the file object ")
    assert time.perf_counter() - started < 2.0 and peak < 10 * len(data) + 2**20  # nothing huge was made


def storages_zip(entries: list[tuple[str, bytes, int | None]], body: bytes | None = None) -> bytes:
    """A zip with these (name, data, offset) entries; data placed one after the other unless an
    offset is given (to point an entry into another's bytes)."""
    parts, directory, offset = [], [], 0
    for name, data, at in entries:
        if at is None:
            at = offset
            parts.append(local_entry(name, data))
            offset += len(parts[-1])
        directory.append(central_entry(name, data, at))
    return raw_zip(b"".join(parts) if body is None else body, directory)


def test_entries_that_repeat_are_refused():
    data = storages_zip([("archive/data.pkl", b"\x80\x02N.", None), ("archive/version", b"3\n", None),
                         ("archive/data.pkl", b"\x80\x02K\x01.", None)])
    with pytest.raises(RuntimeError, match="the entry 'archive/data.pkl' appears twice"):
        glasstorch.load(io.BytesIO(data))


def test_entries_that_overlap_are_refused():
    """An entry whose bytes lie inside another's (a zip "bomb" reuses bytes this way): the data of
    data/1 is hidden inside data/0, a valid local header included."""
    inner = local_entry("archive/data/1", floats(1, 2))
    outer = local_entry("archive/data/0", inner)
    directory = [central_entry("archive/data/0", inner, 0), central_entry("archive/data/1", floats(1, 2), len(outer) - len(inner))]
    with pytest.raises(RuntimeError, match="the entries 'archive/data/0' and 'archive/data/1' overlap"):
        glasstorch.load(io.BytesIO(raw_zip(outer, directory)))


def test_an_entry_larger_than_the_file_is_refused():
    body = local_entry("archive/data/0", floats(1, 2))
    directory = [central_entry("archive/data/0", floats(1, 2), 0, size=10**9)]
    with pytest.raises(RuntimeError, match="runs past the end of the data"):
        glasstorch.load(io.BytesIO(raw_zip(body, directory)))


@pytest.mark.parametrize("name, message", [("data.pkl", "is not in a subdirectory"), ("../data.pkl", "folder is named '../'")])
def test_records_outside_one_folder_are_refused(name, message):
    with pytest.raises(RuntimeError, match=message):
        glasstorch.load(io.BytesIO(storages_zip([(name, b"\x80\x02N.", None)])))


def test_compressed_and_encrypted_entries_are_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02N.")
    with pytest.raises(RuntimeError, match="is compressed, and torch.save never compresses"):
        glasstorch.load(io.BytesIO(buffer.getvalue()))
    data = bytearray(storages_zip([("archive/data.pkl", b"\x80\x02N.", None)]))
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 1  # the central directory's flag: encrypted
    with pytest.raises(RuntimeError, match="is encrypted"):
        glasstorch.load(io.BytesIO(bytes(data)))


def test_entries_the_format_does_not_name_are_never_read(monkeypatch):
    data = write_checkpoint(tensor_pickle(), storage_record(), extra={"../../etc/passwd": b"x", "data/9": b"?" * 10})
    read = []
    original = _inline_container.PyTorchStreamReader._locate
    monkeypatch.setattr(_inline_container.PyTorchStreamReader, "_locate",
                        lambda self, name: read.append(name) or original(self, name))
    assert glasstorch.load(io.BytesIO(data)).tolist() == [0.0, 1.0]
    assert read == ["version", "byteorder", "data.pkl", "data/0"]


def test_the_legacy_format_is_named_in_the_error(tmp_path):
    path = tmp_path / "legacy.pt"
    with open(path, "wb") as file:
        pickle.dump(serialization.LEGACY_MAGIC_NUMBER, file, protocol=2)  # how a legacy torch.save file starts
        pickle.dump(1001, file, protocol=2)
    with pytest.raises(RuntimeError, match="was written in PyTorch's legacy format"):
        glasstorch.load(path)
    with pytest.raises(RuntimeError, match="is a pickle, not PyTorch's zip format"):
        glasstorch.load(path, weights_only=False)  # (never unpickled, either way)


# --- fuzz -------------------------------------------------------------------------------------
def test_fuzz_truncated_and_flipped_files_load_correctly_or_raise_runtime_error():
    """Every truncation, a byte flip at every position, and seeded random bit flips: each load gives
    back the original object (a flip in bytes nothing reads, e.g. padding) or a RuntimeError."""
    weight = Parameter(glasstorch.tensor([[1.0, -2.0]]))
    obj = collections.OrderedDict(w=weight, tied=weight, mask=glasstorch.tensor([True, False]), step=3, lr=0.1,
                                  half=glasstorch.tensor([1.5], dtype=glasstorch.bfloat16), meta=(None, "x", b"y"))
    data = save_to_bytes(obj)
    rng = random.Random(1234)
    variants = [data[:cut] for cut in range(len(data))]
    for position in range(len(data)):
        for mask in (0xFF, 1 << rng.randrange(8)):
            variants.append(data[:position] + bytes([data[position] ^ mask]) + data[position + 1:])
    outcomes = collections.Counter()
    started = time.perf_counter()
    for variant in variants:
        try:
            loaded = glasstorch.load(io.BytesIO(variant))
        except RuntimeError as error:
            assert str(error).startswith("glasstorch.load: the file object "), error
            outcomes["error"] += 1
        else:
            assert_identical(loaded, obj)
            assert loaded["w"] is loaded["tied"]
            outcomes["loaded"] += 1
    assert time.perf_counter() - started < 20.0  # no hang (it takes a few seconds)
    assert outcomes["error"] > 0.6 * len(variants) and outcomes["loaded"] > 0, outcomes


# --- against real PyTorch ---------------------------------------------------------------------
@with_torch
def test_a_glasstorch_checkpoint_loads_in_pytorch_as_pytorchs_own_does():
    theirs = describe(torch_round_trip(checkpoint(torch), weights_only=True), torch)
    buffer = io.BytesIO(save_to_bytes(checkpoint(glasstorch)))
    assert describe(torch.load(buffer, weights_only=True), torch) == theirs
    computed = dict(theirs[1])[("str", "'computed'")]
    assert computed[3:5] == (True, True)  # a computed tensor comes back as a leaf requiring grad


@with_torch
def test_a_pytorch_checkpoint_loads_in_glasstorch():
    buffer = io.BytesIO()
    torch.save(checkpoint(torch), buffer)
    buffer.seek(0)
    assert describe(glasstorch.load(buffer), glasstorch) == describe(torch_round_trip(checkpoint(torch)), torch)


@with_torch
@pytest.mark.parametrize("direction", ["glasstorch->torch", "torch->glasstorch"])
def test_views_saved_together_share_memory_after_loading_in_either_library(direction):
    def program(lib):
        base = lib.arange(12.0)
        return {"base": base, "odd": base[1::2], "t": base.reshape(3, 4).t(), "row": base.reshape(3, 4)[1],
                "expanded": base[:1].expand(3), "copy": base.clone()}

    save_lib, load_lib = (glasstorch, torch) if direction == "glasstorch->torch" else (torch, glasstorch)
    buffer = io.BytesIO()
    save_lib.save(program(save_lib), buffer)
    buffer.seek(0)
    loaded = load_lib.load(buffer, weights_only=True)
    expected = program(load_lib)
    for key in expected:
        assert loaded[key].tolist() == expected[key].tolist(), key
        assert tuple(loaded[key].stride()) == tuple(expected[key].stride()) if load_lib is torch else True
    assert [shares_memory(loaded["base"], loaded[k]) for k in ("odd", "t", "row", "expanded", "copy")] == [
        True, True, True, True, False]


@with_torch
def test_glasstorch_writes_the_bytes_torch_save_writes(tmp_path):
    """The same objects, saved by each library to a file of the same name: the files are equal byte
    for byte but for the 20 digits of the serialization id that hash the record names (PyTorch hashes
    them with C++'s std::hash, see _inline_container.py), and the id record's CRC-32 in its data
    descriptor and in the central directory."""
    def objects(lib):
        state = checkpoint(lib)
        del state["device"]  # (pickled alike, but PyTorch makes a new 'cpu' string each time: memo numbers differ)
        return state

    (tmp_path / "ours").mkdir()
    (tmp_path / "theirs").mkdir()
    glasstorch.save(objects(glasstorch), tmp_path / "ours" / "ckpt.pt")
    torch.save(objects(torch), tmp_path / "theirs" / "ckpt.pt")
    ours, theirs = (tmp_path / "ours" / "ckpt.pt").read_bytes(), (tmp_path / "theirs" / "ckpt.pt").read_bytes()
    assert len(ours) == len(theirs)
    with zipfile.ZipFile(io.BytesIO(theirs)) as archive:
        info = archive.getinfo("ckpt/.data/serialization_id")
    data_start = info.header_offset + 30 + len(info.filename) + struct.unpack_from("<H", theirs, info.header_offset + 28)[0]
    allowed = set(range(data_start, data_start + 20))  # the digits
    allowed |= set(range(data_start + 44, data_start + 48))  # the CRC-32 in the data descriptor after them
    entry = theirs.rindex(b"PK\x01\x02", 0, theirs.rindex(b"ckpt/.data/serialization_id"))
    allowed |= set(range(entry + 16, entry + 20))  # and in the central directory
    differences = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert set(differences) <= allowed, [i for i in differences if i not in allowed][:10]
    assert ours[data_start + 20:data_start + 40] == theirs[data_start + 20:data_start + 40]  # the records' CRCs


@with_torch
@pytest.mark.parametrize("calculate_offsets", [False, True])
def test_torch_load_with_mmap_finds_every_storage_in_place(tmp_path, calculate_offsets, monkeypatch):
    """mmap=True views each storage inside the file. With calculate_storage_offsets PyTorch does not
    even read the local headers: it computes where miniz put each record, so the layout must be
    miniz's; TORCH_SERIALIZATION_DEBUG=1 makes it check each computed offset against the header."""
    from torch.utils.serialization import config

    monkeypatch.setenv("TORCH_SERIALIZATION_DEBUG", "1")
    obj = {"a": glasstorch.arange(10.0), "b": glasstorch.tensor([1, 2, 3]), "e": glasstorch.zeros(0),
           "c": glasstorch.ones(70, dtype=glasstorch.float16), "p": Parameter(glasstorch.ones(2, 2)), "n": "x" * 99}
    glasstorch.save(obj, tmp_path / "ckpt.pt")
    with config.patch({"load.calculate_storage_offsets": calculate_offsets}):
        for mmap in (True, False):
            loaded = torch.load(tmp_path / "ckpt.pt", mmap=mmap, weights_only=True)
            assert {k: v if k == "n" else v.tolist() for k, v in loaded.items()} == {
                k: v if k == "n" else v.tolist() for k, v in obj.items()}


@with_torch
def test_torch_reads_records_with_zip64_fields(monkeypatch):
    monkeypatch.setattr(_inline_container, "ZIP64_LIMIT", 100)
    obj = {"w": glasstorch.arange(50.0), "i": glasstorch.arange(3)}
    loaded = torch.load(io.BytesIO(save_to_bytes(obj)), weights_only=True)
    assert {k: v.tolist() for k, v in loaded.items()} == {k: v.tolist() for k, v in obj.items()}


@with_torch
def test_pytorch_tensors_with_attributes_and_odd_layouts_load():
    t = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[1:, :, ::2]
    tagged = torch.ones(2)
    tagged.note = "hello"
    state = {"permuted": t, "tagged": tagged, "scalar": torch.tensor(2.5), "big_int": torch.tensor([2**40])}
    loaded = glasstorch.load(io.BytesIO(save_with_torch(state)))
    assert loaded["permuted"].tolist() == t.tolist() and loaded["permuted"].shape == tuple(t.shape)
    assert loaded["tagged"].note == "hello" and loaded["scalar"].item() == 2.5 and loaded["big_int"].tolist() == [2**40]


def save_with_torch(obj, **kwargs) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer, **kwargs)
    return buffer.getvalue()


@with_torch
def test_a_pytorch_optimizer_state_resumes_in_glasstorch():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.ones(1, 3)).pow(2).sum().backward()
        optimizer.step()
    state = glasstorch.load(io.BytesIO(save_with_torch({"model": model.state_dict(), "opt": optimizer.state_dict()})))
    ours = glasstorch.nn.Linear(3, 2)
    ours.load_state_dict(state["model"])
    our_optimizer = glasstorch.optim.Adam(ours.parameters(), lr=0.5)
    our_optimizer.load_state_dict(state["opt"])
    for opt, net, lib in ((optimizer, model, torch), (our_optimizer, ours, glasstorch)):
        opt.zero_grad()
        net(lib.ones(1, 3)).pow(2).sum().backward()
        opt.step()
    np.testing.assert_allclose(ours.weight.detach().numpy(), model.weight.detach().numpy(), rtol=1e-6)


@with_torch
def test_a_pytorch_whole_module_refused_with_pytorchs_message_and_loaded_when_trusted():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    data = save_with_torch(net)
    messages = []
    for lib in (torch, glasstorch):
        with pytest.raises(pickle.UnpicklingError) as error:
            lib.load(io.BytesIO(data))
        messages.append(str(error.value))
    assert messages[0] == messages[1]  # PyTorch's message, word for word
    loaded = glasstorch.load(io.BytesIO(data), weights_only=False)  # torch.nn.X is read as glasstorch.nn.X
    assert type(loaded) is glasstorch.nn.Sequential
    x = np.random.default_rng(0).normal(size=(4, 2)).astype(np.float32)
    np.testing.assert_allclose(loaded(glasstorch.from_numpy(x)).detach().numpy(),
                               net(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)


@with_torch
@pytest.mark.parametrize("zipfile_format", [True, False], ids=["zip", "legacy"])
def test_truncated_files_raise_runtime_error_in_both(zipfile_format):
    data = save_with_torch({"w": torch.ones(2)}, _use_new_zipfile_serialization=zipfile_format)
    for lib, payload in [(torch, data), (glasstorch, data)] if zipfile_format else [(glasstorch, data)]:
        with pytest.raises(RuntimeError):
            lib.load(io.BytesIO(payload[: len(payload) // 2]))
    if not zipfile_format:
        with pytest.raises(RuntimeError, match="legacy format"):
            glasstorch.load(io.BytesIO(data))


@with_torch
def test_cuda_map_location_raises_runtime_error_in_both():
    for lib, data in [(torch, save_with_torch({"w": torch.ones(2)})), (glasstorch, save_to_bytes({"w": glasstorch.ones(2)}))]:
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
            lib.load(io.BytesIO(data), map_location="cuda")
