"""Tests of ``glasstorch.save`` / ``glasstorch.load`` (package/glasstorch/serialization.py).

Round trips of every supported value, the documented file format, atomic writes, clear errors for
damaged, hostile and foreign files (a torch.save file, a pickle that would run a shell command),
a deterministic fuzz over truncated and bit-flipped files, and comparisons with real PyTorch's
``torch.save`` / ``torch.load`` where it is installed.
"""
from __future__ import annotations

import collections
import io
import json
import math
import os
import pickle
import random
import shlex
import struct
import time
import zipfile

import numpy as np
import pytest

import glasstorch
from glasstorch import serialization
from glasstorch.nn import Parameter
from glasstorch.testing import real_torch

torch = real_torch()
needs_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)"
)


def round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    glasstorch.save(obj, buffer)
    buffer.seek(0)
    return glasstorch.load(buffer, **load_kwargs)


def assert_identical(got, want, where="obj"):
    """Same types (exactly), same values bit for bit, same autograd flags, all the way down."""
    assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__}"
    if isinstance(want, glasstorch.Tensor):
        assert got.dtype is want.dtype, f"{where}: dtype"
        assert got.shape == want.shape, f"{where}: shape"
        assert got.requires_grad == want.requires_grad, f"{where}: requires_grad"
        assert got.is_leaf, f"{where}: a loaded tensor is a leaf"
        assert got._data.tobytes() == np.ascontiguousarray(want._data).tobytes(), f"{where}: values"
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
        "ints": [0, -7, 2**100, -(2**70)],
        "floats": SPECIAL_FLOATS + [0.1, 1 / 3, 5e-324, 1.7976931348623157e308],
        "flags": (True, False, None),
        "text": ["", "weight", "résumé ✓", "quote \" and \\ backslash", "\ud800 lone surrogate"],
        "bytes": [b"", b"\x00\xff\x80 binary"],
        "empty": ([], (), {}, collections.OrderedDict()),
        "tuple_vs_list": ((1, 2), [1, 2], [(1,), [2]]),
        "size": [glasstorch.Size([2, 3]), glasstorch.Size([])],
        "dtypes": list(glasstorch.dtypes.ALL_DTYPES),
    }
    loaded = round_trip(obj)
    assert_identical(loaded, obj)
    assert all(d is o for d, o in zip(loaded["dtypes"], glasstorch.dtypes.ALL_DTYPES))  # the singletons


def test_dict_keys_and_ordering_are_preserved():
    obj = collections.OrderedDict([(3, "int"), ("a", "str"), (1.5, "float"), (True, "bool"), (None, "none"), (0, "zero")])
    plain = {"z": 1, "a": 2, 1: 3}
    loaded = round_trip({"ordered": obj, "plain": plain, "optimizer_state": {0: {"step": 1}, 1: {"step": 2}}})
    assert type(loaded["ordered"]) is collections.OrderedDict and type(loaded["plain"]) is dict
    assert [(type(k), k) for k in loaded["ordered"]] == [(type(k), k) for k in obj]  # True stays True, not 1
    assert list(loaded["plain"]) == ["z", "a", 1]
    assert list(loaded["optimizer_state"]) == [0, 1] and loaded["optimizer_state"][1] == {"step": 2}


def test_parameters_load_as_parameters_with_their_requires_grad():
    trainable = Parameter(glasstorch.tensor([1.0, 2.0]))
    frozen = Parameter(glasstorch.tensor([1.0, 2.0]), requires_grad=False)
    integer = Parameter(glasstorch.tensor([1, 2]), requires_grad=False)
    loaded = round_trip([trainable, frozen, integer, trainable.detach()])
    assert [type(t) for t in loaded] == [Parameter, Parameter, Parameter, glasstorch.Tensor]
    assert [t.requires_grad for t in loaded] == [True, False, False, False]
    assert_identical(loaded[:3], [trainable, frozen, integer])


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


def test_same_tensor_twice_loads_as_one_object_but_views_become_copies():
    weight = Parameter(glasstorch.ones(2, 2))
    base = glasstorch.arange(6.0)
    obj = {"model": {"w": weight}, "tied": [weight, weight], "base": base, "view": base[::2], "equal": base.clone()}
    loaded = round_trip(obj)
    assert loaded["model"]["w"] is loaded["tied"][0] is loaded["tied"][1]
    assert loaded["equal"] is not loaded["base"]
    assert loaded["view"].tolist() == [0.0, 2.0, 4.0] and loaded["view"].is_contiguous()
    loaded["base"][0] = 100.0
    assert loaded["view"][0].item() == 0.0  # documented difference: PyTorch would keep the view sharing memory


def test_non_contiguous_tensor_is_saved_as_a_compact_copy():
    matrix = glasstorch.arange(12.0).reshape(3, 4)
    transposed = matrix.t()
    loaded = round_trip(transposed)
    assert not transposed.is_contiguous() and loaded.is_contiguous()
    assert loaded.tolist() == transposed.tolist()
    with zipfile.ZipFile(save_to_bytes(transposed)) as archive:  # 12 floats, not the base's storage
        assert archive.getinfo("glasstorch/tensors/0").file_size == 12 * 4


def save_to_bytes(obj) -> io.BytesIO:
    buffer = io.BytesIO()
    glasstorch.save(obj, buffer)
    buffer.seek(0)
    return buffer


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


class Stream(io.RawIOBase):
    """A pipe-like stream: readable or writable, but not seekable."""

    def __init__(self, data: bytes = b"") -> None:
        self.inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self.inner.readinto(buffer)

    def write(self, data) -> int:
        return self.inner.write(data)


def test_unseekable_streams():
    obj = {"w": glasstorch.tensor([1.0, 2.0]), "ids": [1, 2]}
    sink = Stream()
    glasstorch.save(obj, sink)
    assert not sink.seekable()
    assert_identical(glasstorch.load(Stream(sink.inner.getvalue())), obj)


def test_same_object_gives_the_same_bytes(monkeypatch):
    obj = {"w": glasstorch.tensor([1.0, 2.0]), "step": 1}
    monkeypatch.setattr(time, "time", lambda: 1_000_000_000.0)
    first = save_to_bytes(obj).getvalue()
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.0)  # saved years later: the zip dates do not change
    assert save_to_bytes(obj).getvalue() == first


def test_file_format_is_what_the_docstring_describes():
    weight = glasstorch.tensor([[1.0, -2.0]], requires_grad=True)
    with zipfile.ZipFile(save_to_bytes(collections.OrderedDict(w=weight, lr=0.1))) as archive:
        assert archive.namelist() == ["glasstorch/format", "glasstorch/manifest.json", "glasstorch/tensors/0"]
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        assert archive.read("glasstorch/format") == b"1"
        assert json.loads(archive.read("glasstorch/manifest.json")) == {
            "root": {"type": "dict", "ordered": True, "items": [
                [{"type": "str", "value": "w"}, {"type": "tensor", "id": 0}],
                [{"type": "str", "value": "lr"}, {"type": "float", "value": "0.1"}],
            ]},
            "tensors": [{"dtype": "float32", "shape": [1, 2], "requires_grad": True, "class": "Tensor"}],
        }
        assert archive.read("glasstorch/tensors/0") == np.array([1.0, -2.0], dtype="<f4").tobytes()
    assert "glasstorch/manifest.json" in serialization.__doc__ and '"type": "tensor"' in serialization.__doc__


def test_resuming_training_from_a_checkpoint(tmp_path):
    """The use the format exists for: state_dicts of a model and its optimizer, saved and restored."""
    if not hasattr(glasstorch, "optim") or not hasattr(glasstorch.nn, "Linear"):
        pytest.skip("glasstorch.nn.Linear and glasstorch.optim are not there yet")

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

    checkpoint = glasstorch.load(tmp_path / "ckpt.pt")
    assert type(checkpoint["model"]) is collections.OrderedDict and list(checkpoint["optimizer"]["state"]) == [0, 1]
    resumed = glasstorch.nn.Linear(3, 2)
    resumed.load_state_dict(checkpoint["model"])
    resumed_optimizer = glasstorch.optim.Adam(resumed.parameters(), lr=0.5)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])  # lr 0.1 and Adam's moments come back too
    train_step(resumed, resumed_optimizer)
    for name, value in model.state_dict().items():
        assert resumed.state_dict()[name].tolist() == value.tolist(), name


# --- what save refuses ------------------------------------------------------------------------
class FakeModule:
    def state_dict(self):
        return {}


@pytest.mark.parametrize(
    "obj, message",
    [
        ({"optimizer": {"lr_lambda": lambda epoch: 0.9}}, "an object of type 'function' at ['optimizer']['lr_lambda']"),
        ({"ids": {1, 2}}, "an object of type 'set' at ['ids']"),
        ([1, 2, object()], "an object of type 'object' at [2]"),
        (FakeModule(), "type 'FakeModule' at the top level; save tensors, numbers, strings, None and dicts/lists/tuples"),
        ({"m": FakeModule()}, "save its state_dict() instead"),
        ({"a": np.zeros(2)}, "of type 'ndarray' at ['a']; save tensors"),
        ({"a": np.float64(1.0)}, "convert numpy values first"),
        ({"nested": {(1, 2): "tuple key"}}, "a dict key of type 'tuple' ((1, 2)) at ['nested']"),
        ({"d": collections.defaultdict(list)}, "type 'defaultdict' at ['d']"),
        ({"t": glasstorch.device("cpu")}, "type 'device' at ['t']"),
    ],
)
def test_unsupported_objects_raise_type_error_naming_type_and_path(obj, message):
    buffer = io.BytesIO()
    with pytest.raises(TypeError) as error:
        glasstorch.save(obj, buffer)
    assert message in str(error.value)
    assert buffer.getvalue() == b""  # the object is checked before anything is written


def nested_lists(depth: int):
    obj = 1
    for _ in range(depth):
        obj = [obj]
    return obj


def test_nesting_limit_and_self_containing_list():
    assert round_trip(nested_lists(serialization.MAX_DEPTH)) == nested_lists(serialization.MAX_DEPTH)
    with pytest.raises(ValueError, match="nested more than 100 levels deep"):
        glasstorch.save(nested_lists(serialization.MAX_DEPTH + 1), io.BytesIO())
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="does a list or dict contain itself"):
        glasstorch.save(loop, io.BytesIO())


# --- atomic writes ----------------------------------------------------------------------------
def test_failed_save_of_unsupported_object_leaves_the_old_file(tmp_path):
    path = tmp_path / "checkpoint.pt"
    glasstorch.save({"epoch": 1}, path)
    with pytest.raises(TypeError):
        glasstorch.save({"epoch": 2, "deep": [{"x": [glasstorch.ones(2), print]}]}, path)
    assert glasstorch.load(path) == {"epoch": 1}
    assert os.listdir(tmp_path) == ["checkpoint.pt"]


def test_save_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "checkpoint.pt"
    glasstorch.save({"epoch": 1}, path)
    original_writestr = zipfile.ZipFile.writestr
    seen_during_write = []

    def failing_writestr(archive, info, data, *args, **kwargs):
        if info.filename.startswith("glasstorch/tensors/"):
            seen_during_write.append(sorted(os.listdir(tmp_path)))
            raise OSError(28, "No space left on device")
        return original_writestr(archive, info, data, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", failing_writestr)
    with pytest.raises(OSError, match="No space left"):
        glasstorch.save({"epoch": 2, "w": glasstorch.ones(3)}, path)
    monkeypatch.undo()
    (listing,) = seen_during_write
    assert len(listing) == 2 and listing[0].startswith(".checkpoint.pt.") and listing[0].endswith(".tmp")  # half written
    assert os.listdir(tmp_path) == ["checkpoint.pt"]
    assert glasstorch.load(path) == {"epoch": 1}


def test_save_through_a_symlink_keeps_the_link(tmp_path):
    target, link = tmp_path / "real.pt", tmp_path / "link.pt"
    glasstorch.save(1, target)
    link.symlink_to(target)
    glasstorch.save(2, link)
    assert link.is_symlink() and glasstorch.load(target) == 2


def test_save_into_a_missing_directory(tmp_path):
    with pytest.raises(RuntimeError, match="Parent directory .*missing does not exist"):  # PyTorch's message
        glasstorch.save(1, tmp_path / "missing" / "x.pt")


# --- load options -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "map_location", [None, "cpu", "cpu:0", glasstorch.device("cpu"), {"cuda:0": "cpu"}, lambda storage, location: storage]
)
def test_map_location_meaning_the_cpu_is_accepted(map_location):
    assert_identical(round_trip({"w": glasstorch.ones(2)}, map_location=map_location), {"w": glasstorch.ones(2)})


@pytest.mark.parametrize("map_location", ["cuda", "cuda:1", glasstorch.device("cuda"), {"cpu": "cuda:0"}])
def test_map_location_cuda_says_there_is_no_cuda_device(map_location):
    with pytest.raises(RuntimeError, match="this machine has no CUDA device.*map_location='cpu'"):
        round_trip(1, map_location=map_location)


def test_map_location_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="map_location must be"):
        round_trip(1, map_location=3)


@pytest.mark.parametrize("weights_only", [True, False, None])
def test_weights_only_makes_no_difference_and_pickle_options_are_ignored(weights_only):
    obj = {"w": Parameter(glasstorch.ones(2)), "step": 3}
    assert_identical(round_trip(obj, weights_only=weights_only, pickle_module=pickle, mmap=False), obj)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):  # as in PyTorch
        glasstorch.load(tmp_path / "nope.pt")


# --- damaged, hostile and foreign files -------------------------------------------------------
def valid_bytes() -> bytes:
    return save_to_bytes({"w": glasstorch.tensor([1.0, 2.0]), "step": 3}).getvalue()


def flip_inside(data: bytes, marker: bytes) -> bytes:
    position = data.index(marker)
    return data[:position] + bytes([data[position] ^ 0xFF]) + data[position + 1:]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: b"", "is empty (0 bytes)"),
        (lambda: random.Random(0).randbytes(500), "not a zip archive (failed finding central directory)"),
        (lambda: valid_bytes()[:-30], "damaged zip archive (truncated or corrupted"),
        (lambda: valid_bytes()[:200], "damaged zip archive (truncated or corrupted"),
        (lambda: flip_inside(valid_bytes(), b'"root"'), "reading the entry 'glasstorch/manifest.json' failed: Bad CRC-32"),
        (lambda: flip_inside(valid_bytes(), b"glasstorch/tensors/0"), "damaged"),
    ],
    ids=["empty", "random-bytes", "truncated-end", "truncated-middle", "flipped-manifest", "flipped-entry-name"],
)
def test_damaged_files_raise_runtime_error_naming_the_file(tmp_path, make, message):
    path = tmp_path / "model.pt"
    path.write_bytes(make())
    with pytest.raises(RuntimeError) as error:
        glasstorch.load(path)
    assert message in str(error.value)
    assert str(error.value).startswith(f"glasstorch.load: {str(path)!r} ")


def write_archive(path, manifest, entries=(), *, version="1", compression=zipfile.ZIP_STORED):
    """A hand-made archive: how a hostile or broken file would look."""
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("glasstorch/format", version)
        archive.writestr("glasstorch/manifest.json", manifest if isinstance(manifest, str) else json.dumps(manifest))
        for name, data in dict(entries).items():
            archive.writestr(name, data)


def tensor_file(record: dict, data: bytes, root=None) -> tuple:
    record = {"dtype": "float32", "shape": [2], "requires_grad": False, "class": "Tensor", **record}
    root = root or {"type": "tensor", "id": 0}
    return {"root": root, "tensors": [record]}, {"glasstorch/tensors/0": data}


def deep_list_node(depth: int) -> dict:
    node = {"type": "none"}
    for _ in range(depth):
        node = {"type": "list", "items": [node]}
    return node


def str_node(text):
    return {"type": "str", "value": text}


HOSTILE = {
    "malformed-json": ('{"root": ', {}, "its manifest is not valid JSON"),
    "json-nesting-bomb": ("[" * 100_000, {}, "its manifest is not valid JSON"),
    "manifest-not-object": ("[1, 2]", {}, "its manifest is not a JSON object"),
    "no-root": ({"tensors": []}, {}, "the manifest has no valid 'root' field"),
    "unknown-node-type": ({"root": {"type": "function", "name": "os.system"}, "tensors": []}, {}, "unknown type 'function'"),
    "node-not-object": ({"root": {"type": "list", "items": [5]}, "tensors": []}, {}, "holds 5 where an object node belongs"),
    "bool-as-int": ({"root": {"type": "int", "value": True}, "tensors": []}, {}, "'value' should be of type int"),
    "bad-float": ({"root": {"type": "float", "value": "pi"}, "tensors": []}, {}, "holds 'pi', not a number"),
    "bad-base64": ({"root": {"type": "bytes", "base64": "!!"}, "tensors": []}, {}, "not hold valid base64"),
    "unknown-dtype": ({"root": {"type": "dtype", "name": "complex64"}, "tensors": []}, {}, "not a glasstorch dtype"),
    "bad-size": ({"root": {"type": "size", "value": [2, "x"]}, "tensors": []}, {}, "not a list of ints"),
    "duplicate-keys": (
        {"root": {"type": "dict", "ordered": False, "items": [[str_node("a"), str_node("1")], [str_node("a"), str_node("2")]]},
         "tensors": []}, {}, "the same key twice"),
    "list-key": (
        {"root": {"type": "dict", "ordered": False, "items": [[{"type": "list", "items": []}, str_node("v")]]},
         "tensors": []}, {}, "a key of type 'list'"),
    "bad-pair": ({"root": {"type": "dict", "ordered": False, "items": [[str_node("a")]]}, "tensors": []}, {},
                 "where a [key, value] pair belongs"),
    "deep-nesting": ({"root": deep_list_node(150), "tensors": []}, {}, "nested more than 100 levels deep"),
    "tensor-id-out-of-range": ({"root": {"type": "tensor", "id": 5}, "tensors": []}, {}, "refers to tensor 5"),
    "tensor-size-mismatch": (*tensor_file({"shape": [2, 3]}, b"\0" * 8), "holds 8 bytes, but the dtype and shape"),
    "huge-shape": (*tensor_file({"shape": [2**40, 2**40, 2**40]}, b"\0" * 8), "holds 8 bytes, but the dtype and shape"),
    "missing-tensor-entry": (tensor_file({}, b"")[0], {}, "it has no entry 'glasstorch/tensors/0'"),
    "negative-shape": (*tensor_file({"shape": [-2]}, b""), "invalid shape [-2]"),
    "too-many-dims": (*tensor_file({"shape": [1] * 65}, b"\0" * 4), "is not valid"),
    "unknown-class": (*tensor_file({"class": "Module"}, b"\0" * 8), "is not valid"),
    "int-requires-grad": (*tensor_file({"dtype": "int64", "requires_grad": True}, b"\0" * 16), "requires grad"),
    "bool-not-0-or-1": (*tensor_file({"dtype": "bool"}, b"\x01\x02"), "bytes other than 0 and 1"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_broken_or_hostile_archives_raise_runtime_error(tmp_path, name):
    manifest, entries, message = HOSTILE[name]
    write_archive(tmp_path / "x.pt", manifest, entries)
    started = time.perf_counter()
    with pytest.raises(RuntimeError) as error:
        glasstorch.load(tmp_path / "x.pt")
    assert message in str(error.value)
    assert time.perf_counter() - started < 2.0  # nothing huge was allocated or read


@pytest.mark.parametrize(
    "version, message",
    [("2", "file format 2, but this glasstorch reads format 1: upgrade glasstorch"), ("\0abc", "not a version")],
)
def test_unknown_format_version(tmp_path, version, message):
    write_archive(tmp_path / "x.pt", {"root": {"type": "none"}, "tensors": []}, version=version)
    with pytest.raises(RuntimeError, match=message):
        glasstorch.load(tmp_path / "x.pt")


def test_compressed_entries_are_refused(tmp_path):
    write_archive(tmp_path / "x.pt", {"root": {"type": "none"}, "tensors": []}, compression=zipfile.ZIP_DEFLATED)
    with pytest.raises(RuntimeError, match="is compressed, and glasstorch.save never compresses"):
        glasstorch.load(tmp_path / "x.pt")


def test_zip_without_the_format_entry(tmp_path):
    with zipfile.ZipFile(tmp_path / "x.zip", "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(RuntimeError, match="a zip archive but not a file written by glasstorch.save"):
        glasstorch.load(tmp_path / "x.zip")


def test_load_reads_only_the_entries_the_format_names(tmp_path, monkeypatch):
    manifest, entries = tensor_file({}, np.array([1.0, 2.0], dtype="<f4").tobytes())
    entries.update({"../../etc/passwd": b"x", "archive/data.pkl": b"\x80\x02cos\nsystem\n.", "glasstorch/tensors/9": b"?"})
    write_archive(tmp_path / "x.pt", manifest, entries)
    read = []
    original_read = zipfile.ZipFile.read
    monkeypatch.setattr(zipfile.ZipFile, "read", lambda self, name, *a: read.append(getattr(name, "filename", name))
                        or original_read(self, name, *a))
    assert glasstorch.load(tmp_path / "x.pt").tolist() == [1.0, 2.0]
    assert read == ["glasstorch/format", "glasstorch/manifest.json", "glasstorch/tensors/0"]


class RunsShellCommand:
    """What a malicious checkpoint holds: unpickling it calls os.system."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_hostile_pickle_is_refused_and_never_executed(tmp_path, protocol):
    marker = tmp_path / "pwned"
    payload = pickle.dumps({"model": RunsShellCommand(f"touch {shlex.quote(str(marker))}")}, protocol=protocol)
    path = tmp_path / "model.pt"
    path.write_bytes(payload)
    with pytest.raises(RuntimeError) as error:
        glasstorch.load(path, weights_only=False)
    assert "never unpickles" in str(error.value) or "not a zip archive" in str(error.value)  # protocol 0 has no header
    assert not marker.exists()
    pickle.loads(payload)  # the payload is live: an ordinary unpickler runs the command
    assert marker.exists()


# --- fuzz -------------------------------------------------------------------------------------
def test_fuzz_truncated_and_flipped_files_load_correctly_or_raise_runtime_error():
    """Every truncation, a byte flip at every position, and seeded random bit flips: each load gives
    back the original object (a flip in bytes nothing reads, e.g. a timestamp) or a RuntimeError."""
    weight = Parameter(glasstorch.tensor([[1.0, -2.0]]))
    obj = collections.OrderedDict(w=weight, tied=weight, mask=glasstorch.tensor([True, False]), step=3, lr=0.1,
                                  half=glasstorch.tensor([1.5], dtype=glasstorch.bfloat16), meta=(None, "x", b"y"))
    data = save_to_bytes(obj).getvalue()
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
    assert time.perf_counter() - started < 10.0  # no hang (it takes well under a second)
    assert outcomes["error"] > 0.8 * len(variants) and outcomes["loaded"] > 0, outcomes


# --- against real PyTorch ---------------------------------------------------------------------
def checkpoint(lib):
    """A training checkpoint as code writes it, in either library."""
    weight = lib.nn.Parameter(lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.25]]))
    leaf = lib.tensor([1.5, -2.0], requires_grad=True)
    leaf.grad = lib.tensor([1.0, 1.0])
    model = collections.OrderedDict([
        ("layer.weight", weight),
        ("layer.bias", lib.tensor([0.25, -0.5, 1.0], dtype=lib.bfloat16)),
        ("bn.running_mean", lib.arange(6.0).reshape(2, 3).t()),
        ("bn.num_batches_tracked", lib.tensor(7)),
        ("frozen", lib.nn.Parameter(lib.tensor([1, 2, 3]), requires_grad=False)),
        ("mask", lib.tensor([True, False])),
        ("half", lib.tensor([0.5], dtype=lib.float16)),
    ])
    optimizer = {
        "state": {0: {"step": lib.tensor(3.0), "exp_avg": lib.zeros(2, 3)}, 1: {"momentum_buffer": None}},
        "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "params": [0, 1], "nesterov": False, "name": None}],
    }
    return {
        "epoch": 5, "model": model, "optimizer": optimizer, "tied": weight, "leaf": leaf, "computed": leaf * 2,
        "empty": lib.zeros(0, 4), "shape": lib.Size([2, 3]), "dtype": lib.float16, "note": "résumé",
        "blob": b"\x00\x01", "loss": float("nan"), "keys": {1.5: "a", True: "b", None: "c"},
    }


def describe(obj, lib, seen=None):
    """A library-independent picture of a loaded object: types, values, autograd flags, sharing."""
    seen = {} if seen is None else seen
    if isinstance(obj, lib.Tensor):
        first_seen_as = seen.setdefault(id(obj), len(seen))
        values = (obj.detach().double() if obj.is_floating_point() else obj.detach()).tolist()
        kind = "Parameter" if isinstance(obj, lib.nn.Parameter) else "Tensor"
        return (kind, str(obj.dtype).split(".")[-1], tuple(obj.shape), obj.requires_grad, obj.is_leaf,
                obj.grad is not None, first_seen_as, values)
    if isinstance(obj, lib.Size):
        return ("Size", tuple(obj))
    if isinstance(obj, lib.dtype):
        return ("dtype", str(obj).split(".")[-1])
    if isinstance(obj, dict):
        return (type(obj).__name__, [(describe(k, lib, seen), describe(v, lib, seen)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [describe(item, lib, seen) for item in obj])
    return (type(obj).__name__, repr(obj))


def torch_round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_kwargs)


@pytest.mark.torch
@needs_torch
def test_checkpoint_round_trip_matches_torch():
    ours = describe(round_trip(checkpoint(glasstorch)), glasstorch)
    theirs = describe(torch_round_trip(checkpoint(torch)), torch)
    assert ours == theirs
    computed = dict(ours[1])[("str", "'computed'")]
    assert computed[3:5] == (True, True)  # both: a computed tensor comes back as a leaf requiring grad


@pytest.mark.torch
@needs_torch
def test_views_share_memory_after_torch_load_but_not_after_glasstorch_load():
    """The documented difference: PyTorch stores a storage once for a base and its views."""
    def program(lib, round_trip_function):
        base = lib.arange(6.0)
        loaded = round_trip_function({"base": base, "view": base[::2]})
        loaded["base"][0] = 100.0
        return loaded["view"][0].item()

    assert program(torch, torch_round_trip) == 100.0
    assert program(glasstorch, round_trip) == 0.0


@pytest.mark.torch
@needs_torch
@pytest.mark.parametrize("zipfile_format", [True, False], ids=["zip", "legacy-pickle"])
def test_a_torch_save_file_gives_a_clear_message(tmp_path, zipfile_format):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.ones(2)}, path, _use_new_zipfile_serialization=zipfile_format)
    expected = "looks like a file written by torch.save" if zipfile_format else "glasstorch.load never unpickles"
    with pytest.raises(RuntimeError, match=expected):
        glasstorch.load(path)


@pytest.mark.torch
@needs_torch
def test_cuda_map_location_and_truncated_file_raise_runtime_error_in_both():
    good_torch, good_ours = io.BytesIO(), save_to_bytes({"w": glasstorch.ones(2)})
    torch.save({"w": torch.ones(2)}, good_torch)
    for lib, data in [(torch, good_torch.getvalue()), (glasstorch, good_ours.getvalue())]:
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
            lib.load(io.BytesIO(data), map_location="cuda")
        with pytest.raises(RuntimeError, match="failed finding central directory"):
            lib.load(io.BytesIO(data[: len(data) // 2]))


@pytest.mark.torch
@needs_torch
def test_torch_load_weights_only_refuses_the_hostile_pickle_too(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "model.pt"
    path.write_bytes(pickle.dumps({"model": RunsShellCommand(f"touch {shlex.quote(str(marker))}")}, protocol=2))
    with pytest.raises(pickle.UnpicklingError):  # PyTorch's allow-list; glasstorch has nothing to allow
        torch.load(path, weights_only=True)
    assert not marker.exists()


def test_state_dict_metadata_and_counters_round_trip(tmp_path):
    """A state_dict keeps its ``_metadata`` (module versions) and MultiStepLR's milestones stay a Counter."""
    import collections

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
