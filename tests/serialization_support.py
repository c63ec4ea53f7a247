"""Helpers of the serialization tests (test_serialization*.py, test_weights_only_unpickler.py):
round trips, a library-independent picture of a loaded object, the same checkpoint built with
either library, and hand-made archives: a checkpoint with any data.pkl and storages (valid CRCs),
and raw zips whose entries can repeat or overlap."""
from __future__ import annotations

import collections
import io
import pickle
import struct
import zlib

import numpy as np

import glasstorch
from glasstorch._inline_container import PyTorchStreamWriter
from glasstorch.testing import real_torch

torch = real_torch()


def save_to_bytes(obj, folder: str = "archive", **kwargs) -> bytes:
    """What ``glasstorch.save`` writes; ``folder``: as it would to a file of that name."""
    buffer = io.BytesIO()
    glasstorch.save(obj, buffer, **kwargs)
    if folder == "archive":
        return buffer.getvalue()
    records = records_of(buffer.getvalue())
    buffer = io.BytesIO()
    writer = PyTorchStreamWriter(buffer, folder)
    for name, value in records.items():
        if name != ".data/serialization_id":
            writer.write_record(name, value)
    writer.write_end_of_file()
    return buffer.getvalue()


def round_trip(obj, **load_kwargs):
    return glasstorch.load(io.BytesIO(save_to_bytes(obj)), **load_kwargs)


def torch_round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_kwargs)


def checkpoint(lib):
    """A training checkpoint as code writes it, built the same way in either library: a state_dict
    (a Parameter, bfloat16, a transposed view, a 0-dim int, bool, float16, a base and its view, an
    empty tensor), optimizer state, and the usual numbers, strings and containers around them."""
    weight = lib.nn.Parameter(lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.25]]))
    leaf = lib.tensor([1.5, -2.0], requires_grad=True)
    leaf.grad = lib.tensor([1.0, 1.0])
    base = lib.arange(6.0)
    model = collections.OrderedDict([
        ("layer.weight", weight),
        ("layer.bias", lib.tensor([0.25, -0.5, 1.0], dtype=lib.bfloat16)),
        ("bn.running_mean", lib.arange(6.0).reshape(2, 3).t()),
        ("bn.num_batches_tracked", lib.tensor(7)),
        ("frozen", lib.nn.Parameter(lib.tensor([1, 2, 3]), requires_grad=False)),
        ("mask", lib.tensor([True, False])),
        ("half", lib.tensor([0.5], dtype=lib.float16)),
        ("base", base),
        ("every_other", base[1::2]),
        ("small", lib.tensor([-3, 4], dtype=lib.int8)),
    ])
    optimizer = {
        "state": {0: {"step": lib.tensor(3.0), "exp_avg": lib.zeros(2, 3)}, 1: {"momentum_buffer": None}},
        "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "params": [0, 1], "nesterov": False, "name": None}],
    }
    return {
        "epoch": 5, "model": model, "optimizer": optimizer, "tied": weight, "leaf": leaf, "computed": leaf * 2,
        "empty": lib.zeros(0, 4), "shape": lib.Size([2, 3]), "dtype": lib.float16, "note": "résumé",
        "blob": b"\x00\x01", "loss": float("nan"), "keys": {1.5: "a", True: "b", None: "c"},
        "milestones": collections.Counter({2: 2, 5: 1}), "ids": {3, 1}, "z": 1 + 2j, "device": lib.device("cpu"),
        "nested": [(1, [2, {"x": (3,)}])], "big": 2**100,
    }


def describe(obj, lib, seen=None):
    """A library-independent picture of a loaded object: types, values, autograd flags, and which
    tensors are one object (``first_seen_as``) or share memory (``memory``)."""
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
    if isinstance(obj, lib.device):
        return ("device", str(obj))
    if isinstance(obj, dict):
        return (type(obj).__name__, [(describe(k, lib, seen), describe(v, lib, seen)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [describe(item, lib, seen) for item in obj])
    if isinstance(obj, set):
        return ("set", sorted(obj))
    return (type(obj).__name__, repr(obj))


def shares_memory(a, b) -> bool:
    """Do two loaded tensors (of either library) share memory?"""
    if isinstance(a, glasstorch.Tensor):
        return bool(np.shares_memory(a._data, b._data))
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# --- hand-made archives ---------------------------------------------------------------------------
def write_checkpoint(data_pkl: bytes, storages: dict[str, bytes] = (), *, extra: dict[str, bytes] = (),
                     without: tuple[str, ...] = (), archive: str = "archive") -> bytes:
    """A checkpoint with this data.pkl and these storage records (``{"0": raw bytes}``), laid out by
    glasstorch's writer: every record valid, every CRC right. ``extra`` adds records, ``without``
    leaves standard ones out."""
    records = [("data.pkl", data_pkl), (".format_version", b"1"), (".storage_alignment", b"64"),
               ("byteorder", b"little")]
    records += [(f"data/{key}", data) for key, data in dict(storages).items()]
    records += [("version", b"3\n")] + list(dict(extra).items())
    buffer = io.BytesIO()
    writer = PyTorchStreamWriter(buffer, archive)
    for name, data in records:
        if name not in without:
            writer.write_record(name, data)
    writer.write_end_of_file()
    return buffer.getvalue()


def records_of(data: bytes) -> dict[str, bytes]:
    """The records of a valid checkpoint, by name without the folder (to change one and write again)."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename.split("/", 1)[1]: archive.read(info) for info in archive.infolist()}


def rewrite(data: bytes, **changes: bytes) -> bytes:
    """The checkpoint ``data`` written again with some records replaced (``data_pkl=b"..."`` for
    data.pkl, ``version=b"11"``): every CRC right, so only what changed is wrong."""
    records = records_of(data)
    records.update({name.replace("_", "."): value for name, value in changes.items()})
    buffer = io.BytesIO()
    writer = PyTorchStreamWriter(buffer, "archive")
    for name, value in records.items():
        if name != ".data/serialization_id":
            writer.write_record(name, value)
    writer.write_end_of_file()
    return buffer.getvalue()


def local_entry(name: str, data: bytes) -> bytes:
    """A zip local header (stored, sizes in the header) and the data."""
    raw = name.encode()
    return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0x800, 0, 0, 0, zlib.crc32(data), len(data), len(data),
                       len(raw), 0) + raw + data


def central_entry(name: str, data: bytes, offset: int, size: int | None = None) -> bytes:
    raw = name.encode()
    size = len(data) if size is None else size
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0x800, 0, 0, 0, zlib.crc32(data), size, size,
                       len(raw), 0, 0, 0, 0, 0, offset) + raw


def raw_zip(body: bytes, directory: list[bytes]) -> bytes:
    """A zip of ``body`` (local entries) and these central directory entries, with a plain end record."""
    cd = b"".join(directory)
    return body + cd + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(directory), len(directory), len(cd),
                                   len(body), 0)


def pickle_bytes(obj, protocol: int = 2) -> bytes:
    return pickle.dumps(obj, protocol=protocol)


def tensor_pickle(key: str = "0", numel: int = 2, offset: int = 0, size=(2,), stride=(1,), storage="FloatStorage",
                  location: str = "cpu", requires_grad: bool = False, func: str = "_rebuild_tensor_v2") -> bytes:
    """The data.pkl of one tensor, written opcode by opcode as torch.save writes it, with every
    number open to change: how a damaged or hostile description of a tensor looks."""
    def tup(values):
        return b"(" + b"".join(b"J" + struct.pack("<i", v) if v < 2**31 else b"\x8a\x08" + struct.pack("<q", v)
                              for v in values) + b"t"

    def string(text: str) -> bytes:
        raw = text.encode()
        return b"X" + struct.pack("<I", len(raw)) + raw

    return (b"\x80\x02ctorch._utils\n" + func.encode() + b"\n(" + b"(" + string("storage") + b"ctorch\n"
            + storage.encode() + b"\n" + string(key) + string(location) + b"\x8a\x08" + struct.pack("<q", numel)
            + b"tQ" + b"\x8a\x08" + struct.pack("<q", offset) + tup(size) + tup(stride)
            + (b"\x88" if requires_grad else b"\x89") + b"ccollections\nOrderedDict\n)RtR.")


def floats(*values) -> bytes:
    return np.array(values, dtype="<f4").tobytes()
