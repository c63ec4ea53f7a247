"""``save`` and ``load``: checkpoints on disk, in a format that cannot run code when it is read.

Mirrors ``torch/serialization.py``. PyTorch pickles the object (``data.pkl``) and stores each
tensor's storage beside it in a zip archive; reading a pickle can call any function named in the
file, which is why ``torch.load`` needs ``weights_only=True`` and an allow-list. glasstorch never
pickles. It writes a zip archive whose object tree is plain JSON, so loading only ever builds
tensors, numbers, strings and containers, and ``weights_only`` has nothing left to restrict.

The price is that only these objects can be saved (PyTorch saves any picklable object):
tensors and ``nn.Parameter``; ``dict``, ``collections.OrderedDict`` and ``Counter`` (keys: str, int, float,
bool, None); ``list``, ``tuple``; ``int``, ``float``, ``bool``, ``None``, ``str``, ``bytes``;
glasstorch dtypes and ``glasstorch.Size``. That covers ``model.state_dict()``,
``optimizer.state_dict()`` and the usual checkpoint dict around them. Save a module's
``state_dict()``, never the module itself.

The file format (version 1)
---------------------------
A zip archive, entries stored uncompressed, holding exactly::

    glasstorch/format         the format version, the text "1"
    glasstorch/manifest.json  {"root": <node>, "tensors": [<tensor record>, ...]}
    glasstorch/tensors/0      the raw bytes of tensor 0, then 1, 2 ... one entry per tensor

The object tree is made of nodes, each a JSON object with a "type"::

    {"type": "none"}
    {"type": "bool",  "value": true}
    {"type": "int",   "value": 3}
    {"type": "float", "value": "0.1"}            repr() of the float: exact, and JSON has no nan/inf
    {"type": "str",   "value": "weight"}
    {"type": "bytes", "base64": "AAE="}
    {"type": "list",  "items": [<node>, ...]}   also "tuple"
    {"type": "dict",  "ordered": true, "items": [[<key node>, <value node>], ...]}
                      (optional: "counter": true for a collections.Counter; "metadata": <node>,
                      a state_dict's ``_metadata``, the per-module versions load_state_dict reads)
    {"type": "size",  "value": [2, 3]}           a glasstorch.Size
    {"type": "dtype", "name": "float32"}
    {"type": "tensor", "id": 0}                  the entry glasstorch/tensors/0

A tensor record is ``{"dtype": "float32", "shape": [2, 3], "requires_grad": true, "class":
"Tensor"}`` (or ``"Parameter"``), and its entry holds ``prod(shape) * itemsize`` bytes, the
elements in row-major order, little-endian. Open a file with ``zipfile`` to read it yourself.

How it behaves, and where it differs from PyTorch:

- The same tensor object twice in ``obj`` is stored once and loads as one object (as in PyTorch).
  Two *different* tensors that share memory (a view and its base) load as separate copies:
  PyTorch stores the shared storage once and keeps them sharing. A non-contiguous view is stored
  as a compact copy of its elements.
- Every tensor loads as a leaf with its ``requires_grad`` flag, a Parameter as a Parameter. A
  computed tensor (one with a ``grad_fn``) loads as a leaf that requires grad, exactly as it does
  in PyTorch. ``.grad`` is not saved (nor is it by PyTorch).
- Lists and dicts are written out wherever they appear: a list that appears twice loads as two
  equal lists (PyTorch's pickle keeps them one object).
- Saving to a path is atomic: a temporary file in the same directory, renamed over the target
  only once it is complete, so an interrupted save never leaves half a checkpoint behind.
- ``load`` checks everything it reads and raises ``RuntimeError`` (PyTorch's exception for a
  damaged file) saying what is wrong with which file, for damaged files and for files from
  elsewhere, including a ``torch.save`` file or a pickle.
- ``map_location`` may only mean the CPU; ``pickle_module``, ``pickle_protocol`` and ``mmap``
  are accepted so PyTorch code runs, and have no effect.
"""
from __future__ import annotations

import base64
import binascii
import contextlib
import io
import json
import math
import os
import secrets
import struct
import zipfile
from collections import Counter, OrderedDict
from typing import IO, Any, Callable, Union

import numpy as np

from . import dtypes as _dtypes
from ._tensor import Size, Tensor, _wrap, device
from .nn.parameter import Parameter

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]

FORMAT_VERSION = "1"
FORMAT_ENTRY = "glasstorch/format"
MANIFEST_ENTRY = "glasstorch/manifest.json"
TENSOR_ENTRY = "glasstorch/tensors/{}"
MAX_DEPTH = 100  # containers nested deeper than this are refused, on save and on load
MAX_DIMS = 64  # numpy's limit on the number of dimensions

_KEY_TYPES = (str, int, float, bool, type(None))
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)  # zip's earliest date: the same object always gives the same bytes


# --- save -------------------------------------------------------------------------------------
def save(obj: Any, f: FileLike, pickle_module: Any = None, pickle_protocol: int = 2) -> None:
    """Save ``obj`` (tensors, numbers, strings, None, bytes, dtypes, Sizes and dicts, lists and
    tuples of them) to ``f``, a path or a binary file object. ``pickle_module`` and
    ``pickle_protocol`` are accepted for PyTorch's sake and ignored: glasstorch never pickles.

    The whole object is checked before anything is written, so an unsupported object raises
    ``TypeError`` and leaves ``f`` untouched."""
    writer = _Writer()
    root = writer.encode(obj, "", 0)
    manifest = {"root": root, "tensors": [_tensor_record(t) for t in writer.tensors]}

    def write(file: IO[bytes]) -> None:
        _write_archive(file, manifest, writer.tensors)

    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), write)
    else:
        write(f)


class _Writer:
    """Turns an object into manifest nodes, collecting the tensors it meets on the way."""

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self.index_of: dict[int, int] = {}  # id(tensor) -> its number: the same tensor is stored once

    def encode(self, obj: Any, path: str, depth: int) -> dict:
        if depth > MAX_DEPTH:
            raise ValueError(
                f"glasstorch.save cannot store {_where(path)[:60]}...: containers are nested more than "
                f"{MAX_DEPTH} levels deep (does a list or dict contain itself?)"
            )
        encoder = _ENCODERS.get(type(obj))  # the exact type: a subclass could lose its meaning on load
        if encoder is None:
            raise TypeError(
                f"glasstorch.save cannot store an object of type '{type(obj).__name__}' at {_where(path)}; "
                f"save tensors, numbers, strings, None and dicts/lists/tuples of them{_hint(obj)}"
            )
        return encoder(self, obj, path, depth)


def _where(path: str) -> str:
    return path or "the top level"


def _hint(obj: Any) -> str:
    if hasattr(obj, "state_dict"):
        return " (save its state_dict() instead, and load that into a new object)"
    if isinstance(obj, (np.ndarray, np.generic)):
        return " (convert numpy values first: glasstorch.from_numpy(array), float(x), int(x))"
    return ""


def _encode_none(writer: _Writer, obj: None, path: str, depth: int) -> dict:
    return {"type": "none"}


def _encode_scalar(writer: _Writer, obj: bool | int | str, path: str, depth: int) -> dict:
    return {"type": type(obj).__name__, "value": obj}


def _encode_float(writer: _Writer, obj: float, path: str, depth: int) -> dict:
    return {"type": "float", "value": repr(obj)}


def _encode_bytes(writer: _Writer, obj: bytes, path: str, depth: int) -> dict:
    return {"type": "bytes", "base64": base64.b64encode(obj).decode("ascii")}


def _encode_sequence(writer: _Writer, obj: list | tuple, path: str, depth: int) -> dict:
    items = [writer.encode(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(obj)]
    return {"type": type(obj).__name__, "items": items}


def _encode_dict(writer: _Writer, obj: dict, path: str, depth: int) -> dict:
    items = []
    for key, value in obj.items():
        if type(key) not in _KEY_TYPES:
            raise TypeError(
                f"glasstorch.save cannot store a dict key of type '{type(key).__name__}' ({_short(key)}) at "
                f"{_where(path)}; "
                "dict keys must be str, int, float, bool or None"
            )
        items.append([writer.encode(key, path, depth + 1), writer.encode(value, f"{path}[{key!r}]", depth + 1)])
    node = {"type": "dict", "ordered": type(obj) is OrderedDict, "items": items}
    if type(obj) is Counter:
        node["counter"] = True  # MultiStepLR's milestones
    metadata = getattr(obj, "_metadata", None)
    if type(obj) is OrderedDict and metadata is not None:
        # a state_dict's per-module versions, which load_state_dict hands to _load_from_state_dict
        node["metadata"] = writer.encode(metadata, f"{path}._metadata", depth + 1)
    return node


def _encode_size(writer: _Writer, obj: Size, path: str, depth: int) -> dict:
    return {"type": "size", "value": [int(n) for n in obj]}


def _encode_dtype(writer: _Writer, obj: _dtypes.dtype, path: str, depth: int) -> dict:
    return {"type": "dtype", "name": obj.name}


def _encode_tensor(writer: _Writer, obj: Tensor, path: str, depth: int) -> dict:
    index = writer.index_of.get(id(obj))
    if index is None:
        index = writer.index_of[id(obj)] = len(writer.tensors)
        writer.tensors.append(obj)  # (this reference also keeps id(obj) from being reused meanwhile)
    return {"type": "tensor", "id": index}


_ENCODERS: dict[type, Callable[[_Writer, Any, str, int], dict]] = {
    type(None): _encode_none,
    bool: _encode_scalar,
    int: _encode_scalar,
    str: _encode_scalar,
    float: _encode_float,
    bytes: _encode_bytes,
    list: _encode_sequence,
    tuple: _encode_sequence,
    dict: _encode_dict,
    OrderedDict: _encode_dict,
    Counter: _encode_dict,
    Size: _encode_size,
    _dtypes.dtype: _encode_dtype,
    Tensor: _encode_tensor,
    Parameter: _encode_tensor,
}


def _tensor_record(tensor: Tensor) -> dict:
    return {
        "dtype": tensor.dtype.name,
        "shape": list(tensor.shape),
        "requires_grad": tensor.requires_grad,
        "class": "Parameter" if isinstance(tensor, Parameter) else "Tensor",
    }


def _write_archive(file: IO[bytes], manifest: dict, tensors: list[Tensor]) -> None:
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(_entry(FORMAT_ENTRY), FORMAT_VERSION)
        archive.writestr(_entry(MANIFEST_ENTRY), json.dumps(manifest))
        for index, tensor in enumerate(tensors):
            archive.writestr(_entry(TENSOR_ENTRY.format(index)), _little_endian_bytes(tensor._data))


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_FIXED_DATE)
    info.external_attr = 0o644 << 16  # readable files for someone who unzips the checkpoint
    return info


def _little_endian_bytes(array: np.ndarray) -> memoryview:
    # Seen as unsigned integers of the same width, every dtype (bfloat16 too) follows one rule for
    # byte order; on a little-endian machine none of this copies.
    flat = np.ascontiguousarray(array).reshape(-1)
    as_unsigned = flat.view(f"u{flat.itemsize}").astype(f"<u{flat.itemsize}", copy=False)
    return memoryview(as_unsigned).cast("B")


def _write_atomically(path: str, write: Callable[[IO[bytes]], None]) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path`` in one step: a
    crash or an error midway leaves any existing file as it was."""
    target = os.path.realpath(path)  # write through a symlink, as open() would, not over it
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {os.path.dirname(os.path.abspath(path))} does not exist.")
    temporary = os.path.join(directory, f".{os.path.basename(target)}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "xb") as file:  # "x": never clobber; the default mode bits, as open() gives
            write(file)
            file.flush()
            os.fsync(file.fileno())  # on disk before the rename makes it visible
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise


# --- load -------------------------------------------------------------------------------------
def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = True,
    mmap: bool | None = None,
) -> Any:
    """Load an object saved by ``glasstorch.save`` from ``f``, a path or a binary file object.

    ``map_location`` may be None, ``'cpu'``, ``glasstorch.device('cpu')``, a dict or a function as
    in PyTorch: glasstorch has only the CPU, so a function is not called and a dict matters only
    if it moves ``'cpu'`` elsewhere, which is an error. ``weights_only`` may be True or False: both
    behave the same, because nothing in a glasstorch file can run code (PyTorch's
    ``weights_only=False`` unpickles, which can). ``pickle_module`` and ``mmap`` are ignored.

    Raises ``RuntimeError`` when the file is not a complete glasstorch checkpoint, saying why.
    """
    _check_map_location(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _load_from(file, repr(os.fspath(f)))
    name = getattr(f, "name", None)
    return _load_from(f, repr(name) if isinstance(name, str) else "the file object")


def _check_map_location(map_location: Any) -> None:
    if map_location is None:
        return
    if isinstance(map_location, (str, device)):
        target = map_location
    elif isinstance(map_location, dict):
        target = map_location.get("cpu", "cpu")  # a dict renames locations; every tensor here is on 'cpu'
    elif callable(map_location):
        return  # PyTorch calls it with each storage; glasstorch's tensors are already on the CPU
    else:
        raise TypeError(
            f"map_location must be None, a string, a glasstorch.device, a dict or a function, "
            f"not {type(map_location).__name__}"
        )
    if device(target).type != "cpu":
        raise RuntimeError(
            f"Attempting to deserialize object on a {device(target).type.upper()} device ('{target}'), but "
            f"glasstorch runs on the CPU only: this machine has no {device(target).type.upper()} device for "
            "glasstorch. Load with map_location='cpu' (or leave map_location out)."
        )


class _DamagedFile(Exception):
    """Raised inside ``load``; ``load`` reports it as a RuntimeError naming the file."""


# What zipfile and the file object can raise on a damaged archive. Truncation, flipped bytes and
# hostile headers surface as any of these; load turns each into one clear RuntimeError.
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError,
    RuntimeError, struct.error, OverflowError,
)


def _load_from(file: IO[bytes], name: str) -> Any:
    if not file.seekable():
        file = io.BytesIO(file.read())  # zipfile needs to jump to the directory at the end
    try:
        return _Reader(file).load()
    except _DamagedFile as problem:
        raise RuntimeError(f"glasstorch.load: {name} {problem}") from problem.__cause__


class _Reader:
    """Reads a glasstorch archive: only the entries the format names, each checked as it is read."""

    def __init__(self, file: IO[bytes]) -> None:
        start = file.tell()
        head = file.read(4)
        self.file_size = file.seek(0, io.SEEK_END) - start
        file.seek(start)
        try:
            self.archive = zipfile.ZipFile(file)
        except _ARCHIVE_ERRORS as error:
            raise _DamagedFile(_describe_non_archive(head, self.file_size)) from error
        self.tensors: dict[int, Tensor] = {}  # number -> loaded tensor: one object per stored tensor

    def load(self) -> Any:
        with self.archive:
            self.check_origin()
            version = self.read_entry(FORMAT_ENTRY).decode("ascii", errors="replace").strip()
            if version != FORMAT_VERSION:
                if version.isdigit() and len(version) < 6 and int(version) > int(FORMAT_VERSION):
                    raise _DamagedFile(
                        f"was written in file format {version}, but this glasstorch reads format "
                        f"{FORMAT_VERSION}: upgrade glasstorch to load it."
                    )
                raise _DamagedFile(f"is damaged: its '{FORMAT_ENTRY}' entry holds {version[:20]!r}, not a version.")
            manifest = self.read_manifest()
            self.records = _field(manifest, "tensors", list, "the manifest")
            return self.decode(_field(manifest, "root", dict, "the manifest"), 0)

    def check_origin(self) -> None:
        names = set(self.archive.namelist())
        if FORMAT_ENTRY in names:
            return
        if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
            raise _DamagedFile(
                "looks like a file written by torch.save; glasstorch.load reads only files written by "
                "glasstorch.save. Load it with real PyTorch (torch.load) and convert its tensors with "
                "glasstorch.from_numpy(t.numpy())."
            )
        raise _DamagedFile(f"is a zip archive but not a file written by glasstorch.save: it has no '{FORMAT_ENTRY}' entry.")

    def read_entry(self, name: str, expected_size: int | None = None) -> bytes:
        try:
            info = self.archive.getinfo(name)
        except KeyError:
            raise _DamagedFile(f"is damaged: it has no entry '{name}'.") from None
        # Sizes are checked before anything is read or allocated: a hostile file may declare anything.
        if info.compress_type != zipfile.ZIP_STORED:
            raise _DamagedFile(f"is damaged: the entry '{name}' is compressed, and glasstorch.save never compresses.")
        if expected_size is not None and info.file_size != expected_size:
            raise _DamagedFile(
                f"is damaged: the entry '{name}' holds {info.file_size} bytes, but the dtype and shape "
                f"in the manifest need {expected_size}."
            )
        if info.file_size > self.file_size:
            raise _DamagedFile(f"is damaged: the entry '{name}' claims to be larger than the whole file.")
        try:
            return self.archive.read(info)  # zipfile checks the CRC: flipped bits are caught here
        except _ARCHIVE_ERRORS as error:
            raise _DamagedFile(
                f"is damaged (truncated or corrupted): reading the entry '{name}' failed: {error}. "
                "Save the checkpoint again, or use an intact copy."
            ) from error

    def read_manifest(self) -> dict:
        raw = self.read_entry(MANIFEST_ENTRY)
        try:
            manifest = json.loads(raw)
        except (ValueError, RecursionError) as error:  # (JSONDecodeError and UnicodeDecodeError are ValueErrors)
            raise _DamagedFile(f"is damaged: its manifest is not valid JSON ({str(error)[:200]}).") from error
        if type(manifest) is not dict:
            raise _DamagedFile("is damaged: its manifest is not a JSON object.")
        return manifest

    def decode(self, node: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise _DamagedFile(f"is damaged or hostile: its objects are nested more than {MAX_DEPTH} levels deep.")
        if type(node) is not dict:
            raise _DamagedFile(f"is damaged: the manifest holds {_short(node)} where an object node belongs.")
        kind = node.get("type")
        decoder = _DECODERS.get(kind) if type(kind) is str else None
        if decoder is None:
            raise _DamagedFile(f"is damaged: the manifest holds a node of unknown type {_short(kind)}.")
        return decoder(self, node, depth)

    def tensor(self, index: int) -> Tensor:
        if index in self.tensors:
            return self.tensors[index]
        if not 0 <= index < len(self.records):
            raise _DamagedFile(f"is damaged: the manifest refers to tensor {index}, which it does not describe.")
        what = f"tensor {index}"
        record = _field(self.records, index, dict, "the manifest's tensor list")
        dtype = _dtypes._BY_NAME.get(_field(record, "dtype", str, what))
        shape = _field(record, "shape", list, what)
        requires_grad = _field(record, "requires_grad", bool, what)
        kind = _field(record, "class", str, what)
        if dtype is None or kind not in ("Tensor", "Parameter") or len(shape) > MAX_DIMS:
            raise _DamagedFile(f"is damaged: the manifest's record of {what} is not valid: {_short(record)}.")
        if not all(type(n) is int and n >= 0 for n in shape):
            raise _DamagedFile(f"is damaged: {what} has an invalid shape {_short(shape)}.")
        if requires_grad and not dtype.is_floating_point:
            raise _DamagedFile(f"is damaged: {what} is {dtype.name} but requires grad, which only floats can.")
        raw = self.read_entry(TENSOR_ENTRY.format(index), math.prod(shape) * dtype.itemsize)
        array = _array_from_bytes(raw, dtype.numpy_dtype, shape)
        if dtype is _dtypes.bool and array.view(np.uint8).max(initial=0) > 1:
            raise _DamagedFile(f"is damaged: the bool tensor {index} holds bytes other than 0 and 1.")
        tensor = _wrap(array)
        tensor._requires_grad = requires_grad  # a leaf, however it was computed (as in PyTorch)
        if kind == "Parameter":
            tensor = Parameter(tensor, requires_grad)
        self.tensors[index] = tensor
        return tensor


def _array_from_bytes(raw: bytes, numpy_dtype: np.dtype, shape: list[int]) -> np.ndarray:
    # The reverse of _little_endian_bytes; astype copies, so the tensor owns writable memory.
    as_unsigned = np.frombuffer(raw, dtype=f"<u{numpy_dtype.itemsize}").astype(f"=u{numpy_dtype.itemsize}")
    return as_unsigned.view(numpy_dtype).reshape(shape)


def _describe_non_archive(head: bytes, size: int) -> str:
    """Why a file that zipfile cannot open is not a checkpoint, and what to do about it."""
    if size == 0:
        return "is empty (0 bytes), not a file written by glasstorch.save. Was the save interrupted?"
    if head.startswith(b"\x80"):  # pickle protocols 2 and later begin with the PROTO opcode
        return (
            "looks like a Python pickle (written by pickle.dump, or by torch.save with "
            "_use_new_zipfile_serialization=False). glasstorch.load never unpickles, because unpickling "
            "can run any code the file names; it reads only files written by glasstorch.save."
        )
    if head.startswith(b"PK"):
        return (
            "is a damaged zip archive (truncated or corrupted: failed finding central directory). "
            "Save the checkpoint again, or use an intact copy."
        )
    return "is not a file written by glasstorch.save: it is not a zip archive (failed finding central directory)."


def _field(container: Any, key: Any, expected: type, what: str) -> Any:
    """``container[key]``, which must exist and be exactly of type ``expected`` (so True is no int)."""
    try:
        value = container[key]
    except (KeyError, IndexError, TypeError):
        raise _DamagedFile(f"is damaged: {what} has no valid {key!r} field.") from None
    if type(value) is not expected:
        raise _DamagedFile(f"is damaged: in {what}, {key!r} should be of type {expected.__name__}, not {_short(value)}.")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _decode_none(reader: _Reader, node: dict, depth: int) -> None:
    return None


def _decode_scalar(reader: _Reader, node: dict, depth: int) -> bool | int | str:
    expected = {"bool": bool, "int": int, "str": str}[node["type"]]
    return _field(node, "value", expected, f"a {node['type']} node")


def _decode_float(reader: _Reader, node: dict, depth: int) -> float:
    text = _field(node, "value", str, "a float node")
    try:
        return float(text)
    except ValueError:
        raise _DamagedFile(f"is damaged: a float node holds {_short(text)}, not a number.") from None


def _decode_bytes(reader: _Reader, node: dict, depth: int) -> bytes:
    try:
        return base64.b64decode(_field(node, "base64", str, "a bytes node"), validate=True)
    except binascii.Error:
        raise _DamagedFile("is damaged: a bytes node does not hold valid base64.") from None


def _decode_sequence(reader: _Reader, node: dict, depth: int) -> list | tuple:
    items = [reader.decode(item, depth + 1) for item in _field(node, "items", list, f"a {node['type']} node")]
    return items if node["type"] == "list" else tuple(items)


def _decode_dict(reader: _Reader, node: dict, depth: int) -> dict:
    pairs = _field(node, "items", list, "a dict node")
    result = OrderedDict() if _field(node, "ordered", bool, "a dict node") else {}
    for pair in pairs:
        if type(pair) is not list or len(pair) != 2:
            raise _DamagedFile(f"is damaged: a dict node holds {_short(pair)} where a [key, value] pair belongs.")
        key = reader.decode(pair[0], depth + 1)
        if type(key) not in _KEY_TYPES:
            raise _DamagedFile(f"is damaged: a dict node has a key of type '{type(key).__name__}'.")
        result[key] = reader.decode(pair[1], depth + 1)
    if len(result) != len(pairs):
        raise _DamagedFile("is damaged: a dict node holds the same key twice.")
    if node.get("counter", False) is True:
        result = Counter(result)
    if "metadata" in node:
        metadata = reader.decode(node["metadata"], depth + 1)
        if type(result) is not OrderedDict or not isinstance(metadata, dict):
            raise _DamagedFile("is damaged: a dict node's metadata is not a dict of an ordered dict.")
        result._metadata = metadata
    return result


def _decode_size(reader: _Reader, node: dict, depth: int) -> Size:
    value = _field(node, "value", list, "a size node")
    if not all(type(n) is int for n in value):
        raise _DamagedFile(f"is damaged: a size node holds {_short(value)}, not a list of ints.")
    return Size(value)


def _decode_dtype(reader: _Reader, node: dict, depth: int) -> _dtypes.dtype:
    name = _field(node, "name", str, "a dtype node")
    if name not in _dtypes._BY_NAME:
        raise _DamagedFile(f"is damaged: a dtype node names {_short(name)}, which is not a glasstorch dtype.")
    return _dtypes._BY_NAME[name]


def _decode_tensor(reader: _Reader, node: dict, depth: int) -> Tensor:
    return reader.tensor(_field(node, "id", int, "a tensor node"))


_DECODERS: dict[str, Callable[[_Reader, dict, int], Any]] = {
    "none": _decode_none,
    "bool": _decode_scalar,
    "int": _decode_scalar,
    "str": _decode_scalar,
    "float": _decode_float,
    "bytes": _decode_bytes,
    "list": _decode_sequence,
    "tuple": _decode_sequence,
    "dict": _decode_dict,
    "size": _decode_size,
    "dtype": _decode_dtype,
    "tensor": _decode_tensor,
}
