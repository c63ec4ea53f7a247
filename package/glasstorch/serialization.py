"""``save`` and ``load``: checkpoints in PyTorch's own file format, loaded without running the file's code.

Mirrors ``torch/serialization.py``. A file written by ``glasstorch.save`` is a file ``torch.save``
would write: real PyTorch reads it with ``torch.load(f, weights_only=True)``, and ``glasstorch.load``
reads the checkpoints PyTorch writes (state_dicts, optimizer state, the usual checkpoint dict).

The file format
---------------
A zip archive (``_inline_container.py`` writes and reads it) whose records sit in one folder, named
after the file (``ckpt.pt`` -> ``ckpt/``; ``archive/`` for a file object)::

    ckpt/data.pkl                the saved object, pickled (protocol 2); tensors refer to storages
    ckpt/.format_version         "1": storages are numbered 0, 1, 2 ... in the order they are met
    ckpt/.storage_alignment      "64": each record's bytes start at a multiple of 64
    ckpt/byteorder               "little": the byte order of the storages
    ckpt/data/0                  the raw bytes of storage 0, then data/1, data/2 ...
    ckpt/version                 "3\\n": the version of the container
    ckpt/.data/serialization_id  40 digits identifying the contents

``data.pkl`` is an ordinary pickle of the object, with tensors written as calls. A tensor becomes
"call ``torch._utils._rebuild_tensor_v2`` with (storage, storage_offset, size, stride,
requires_grad, OrderedDict())", where the storage is a *persistent id*, a tuple
``('storage', torch.FloatStorage, '0', 'cpu', 6)`` (type, key, location, number of elements) that
the loader resolves to the record ``data/0``. A Parameter becomes "call ``_rebuild_parameter`` with
(that tensor, requires_grad, OrderedDict())"; a dtype is the global ``torch.float32``, a Size
``torch.Size((2, 3))``. The names are PyTorch's, so PyTorch can resolve them; glasstorch's own
functions (``_utils.py``) stand behind the same names when glasstorch loads.

Tensors that share memory (a tensor and a view of it, tied weights) share one storage and share
memory again after loading, as in PyTorch; and as in PyTorch, saving a view saves the whole
storage it views (save ``x[:10].clone()`` to store ten elements). Hooks and ``.grad`` are not
saved; a computed tensor loads as a leaf with its ``requires_grad``.

Saving and loading
------------------
``save`` pickles any object, as ``torch.save`` does: a state_dict, a checkpoint dict, or a whole
module (its class is stored by name, so loading it needs the same code). The object is pickled in
memory before anything is written, so a failure leaves the target untouched; a path is written
atomically (``_write_file``): a crash midway leaves the old file.

``load`` reads ``data.pkl`` with ``weights_only=True`` by default: a restricted unpickler
(``_weights_only_unpickler.py``) that can name only an allow-list (tensor rebuild functions,
storage types, dtypes, ``OrderedDict`` ...). A file that names anything else, a whole module
included, is refused with PyTorch's ``UnpicklingError`` before anything is called; loading it
needs ``weights_only=False``, which unpickles as ``pickle.load`` does and so runs what the file
says: only for files you trust. A damaged file (cut off, bytes changed, entries that overlap,
sizes that do not fit) raises ``RuntimeError``, checked before any memory is allocated for it.

What glasstorch does not do: PyTorch's legacy format (``_use_new_zipfile_serialization=False``,
PyTorch before 1.6), TorchScript archives, ``mmap`` (accepted, storages are read into memory),
dtypes it lacks (complex, uint16 ...), sparse and quantized tensors.
"""
from __future__ import annotations

import contextlib
import errno
import io
import os
import pickle
import re
import secrets
import stat
import warnings
from collections import OrderedDict
from typing import IO, Any, Callable, Union

import numpy as np

from . import _weights_only_unpickler, dtypes as _dtypes
from ._inline_container import FileProblem as _FileProblem, PyTorchStreamReader, PyTorchStreamWriter
from ._tensor import Size, Tensor, device
from ._utils import (TypedStorage, _rebuild_from_type_v2, _rebuild_parameter, _rebuild_parameter_with_state,
                     _rebuild_tensor_v2, is_tensor_internal)
from .nn.parameter import Parameter

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]

DEFAULT_PROTOCOL = 2
PRODUCED_FILE_FORMAT_VERSION = "3\n"  # the container's version, as torch.save writes it
SUPPORTED_FILE_FORMAT_VERSIONS = range(1, 11)  # what PyTorch 2.13's reader accepts
LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the first pickle of PyTorch's legacy (pre-1.6) format

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)


# --- storage types --------------------------------------------------------------------------------
class StorageType:
    """A storage type as a checkpoint names it (``torch.FloatStorage`` ...): which dtype the bytes of
    a storage hold. (PyTorch's ``torch.serialization.StorageType`` plays the same part.)"""

    def __init__(self, name: str, dtype: _dtypes.dtype) -> None:
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype=torch.{self.dtype.name})"


_STORAGE_TYPES = tuple(StorageType(name, dtype) for name, dtype in [
    ("DoubleStorage", _dtypes.float64), ("FloatStorage", _dtypes.float32), ("HalfStorage", _dtypes.float16),
    ("BFloat16Storage", _dtypes.bfloat16), ("LongStorage", _dtypes.int64), ("IntStorage", _dtypes.int32),
    ("ShortStorage", _dtypes.int16), ("CharStorage", _dtypes.int8), ("ByteStorage", _dtypes.uint8),
    ("BoolStorage", _dtypes.bool),
])
_STORAGE_TYPE_OF = {storage_type.dtype: storage_type for storage_type in _STORAGE_TYPES}
_UNTYPED_STORAGE = StorageType("UntypedStorage", _dtypes.uint8)  # raw bytes (for _rebuild_tensor_v3)


# --- the user's allow-list (torch.serialization's functions of the same names) --------------------
def add_safe_globals(safe_globals: list) -> None:
    """Allow ``load(..., weights_only=True)`` to name these objects too (classes or functions, or
    ``(object, "its.full.name")`` pairs). Only for what you trust: an allowed class can be
    instantiated and given any state, an allowed function called with any arguments."""
    _weights_only_unpickler._add_safe_globals(safe_globals)


def get_safe_globals() -> list:
    """The objects added by ``add_safe_globals``."""
    return _weights_only_unpickler._get_safe_globals()


def clear_safe_globals() -> None:
    """Forget every object added by ``add_safe_globals``."""
    _weights_only_unpickler._clear_safe_globals()


class safe_globals(_weights_only_unpickler._safe_globals):
    """``with safe_globals([Net]): load(...)``: ``add_safe_globals`` for the block only."""


# --- save ----------------------------------------------------------------------------------------
def save(
    obj: object,
    f: FileLike,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` to ``f`` (a path or a binary file object) in PyTorch's format: ``torch.load``
    reads the file, and so does ``load``.

    ``obj`` is anything picklable, as for ``torch.save``. A state_dict or a dict of state_dicts,
    numbers and strings loads with ``weights_only=True``; a whole module (``save(model, PATH)``)
    needs ``weights_only=False`` and the module's class when it is loaded. ``pickle_module`` is
    accepted and not used (the pickler is glasstorch's own, which writes tensors as PyTorch does).

    A path is written atomically (see ``_write_file``); a file object gets the bytes as they come."""
    _check_save_filelike(f)
    if not _use_new_zipfile_serialization:
        raise RuntimeError(
            "glasstorch.save writes only PyTorch's zip format (the default since PyTorch 1.6), "
            "not the legacy format of _use_new_zipfile_serialization=False"
        )
    records = _serialize(obj, pickle_protocol, _disable_byteorder_record)  # before anything is written

    def write(file: IO[bytes], archive_name: str) -> None:
        writer = PyTorchStreamWriter(file, archive_name)
        for name, data in records:
            writer.write_record(name, data)
        writer.write_end_of_file()

    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        _write_file(path, lambda file: write(file, _archive_name(path)))
    else:
        write(f, "archive")
        if callable(getattr(f, "flush", None)):
            f.flush()


def _check_save_filelike(f: Any) -> None:
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")


def _serialize(obj: Any, protocol: int, disable_byteorder_record: bool) -> list[tuple[str, Any]]:
    """The records of the archive, in the order ``torch.save`` writes them."""
    data = io.BytesIO()
    pickler = _Pickler(data, protocol)
    pickler.dump(obj)
    records: list[tuple[str, Any]] = [
        ("data.pkl", data.getvalue()),
        (".format_version", b"1"),
        (".storage_alignment", b"64"),
    ]
    byteorder = [("byteorder", b"little")]  # glasstorch writes little-endian bytes on every machine
    if not disable_byteorder_record:
        records += byteorder
    records += [(f"data/{key}", _little_endian_bytes(storage.array)) for key, storage in pickler.storages.items()]
    records.append(("version", PRODUCED_FILE_FORMAT_VERSION.encode("ascii")))
    if disable_byteorder_record:
        records += byteorder  # PyTorch's writer adds it at the end all the same
    return records


def _archive_name(path: str) -> str:
    """The folder of the records: the file's name without its directory and last extension, as
    PyTorch's writer names it ('archive' when the path is not ASCII, as PyTorch does then)."""
    if not path.isascii():
        return "archive"
    name = re.split(r"[\\/]", path)[-1]
    stem = name[:name.rindex(".")] if "." in name else name
    return stem or "archive"  # (PyTorch refuses a name like '.pt': "invalid file name")


def _little_endian_bytes(array: np.ndarray) -> memoryview:
    # Seen as unsigned integers of the same width, every dtype (bfloat16 too) follows one rule for
    # byte order; on a little-endian machine none of this copies.
    flat = np.ascontiguousarray(array).reshape(-1)
    as_unsigned = flat.view(f"u{flat.itemsize}").astype(f"<u{flat.itemsize}", copy=False)
    return memoryview(as_unsigned).cast("B")


class _Pickler(pickle._Pickler):
    """Python's pickler, plus what ``torch.save`` adds to it: tensors pickled as calls of PyTorch's
    rebuild functions, storages as persistent ids, and PyTorch's names for glasstorch's dtypes,
    ``Size``, ``device`` and rebuild functions.

    (``pickle._Pickler`` is the pure-Python twin of ``pickle.Pickler``, same output: it lets a
    subclass write a ``GLOBAL`` itself, which is how a glasstorch function is written under the name
    ``torch._utils._rebuild_tensor_v2`` without importing torch.)"""

    def __init__(self, file: IO[bytes], protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[str, TypedStorage] = {}  # key ('0', '1' ...) -> storage, in the order met
        self.keys: dict[int, str] = {}  # id(storage) -> its key
        self.memory: dict[tuple[int, _dtypes.dtype], TypedStorage] = {}  # (id(array), dtype) -> storage
        self.torch_names = _torch_names()

    def persistent_id(self, obj: Any) -> tuple | None:
        if type(obj) is not TypedStorage:
            return None
        key = self.keys.setdefault(id(obj), str(len(self.keys)))
        self.storages[key] = obj
        return ("storage", _STORAGE_TYPE_OF[obj.dtype], key, "cpu", obj.size())

    def reducer_override(self, obj: Any) -> Any:
        name = self.torch_names.get(id(obj))
        if name is not None:
            return name  # a string: save_global (below) writes GLOBAL with this name
        if isinstance(obj, Tensor) and not _reduces_itself(type(obj)):
            return self.reduce_tensor(obj)
        if type(obj) is Size:
            return (Size, (tuple(obj),))
        if type(obj) is device:
            return (device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def save_global(self, obj: Any, name: str | None = None) -> None:
        torch_name = self.torch_names.get(id(obj))
        if torch_name is None:
            return super().save_global(obj, name)
        module, _, qualname = torch_name.rpartition(".")
        self.write(pickle.GLOBAL + f"{module}\n{qualname}\n".encode("utf-8"))
        self.memoize(obj)

    def reduce_tensor(self, tensor: Tensor) -> tuple:
        """What ``Tensor.__reduce_ex__`` and ``Parameter.__reduce_ex__`` return in PyTorch."""
        _warn_if_has_hooks(tensor)
        state = {k: v for k, v in vars(tensor).items() if not is_tensor_internal(k)}  # the user's attributes
        if isinstance(tensor, Parameter):
            args = (tensor.data, tensor.requires_grad, OrderedDict())
            return (_rebuild_parameter_with_state, args + (state,)) if state else (_rebuild_parameter, args)
        storage, offset, stride = self.storage_view(tensor)
        args = (storage, offset, tuple(tensor.shape), stride, tensor.requires_grad, OrderedDict())
        if type(tensor) is Tensor and not state:
            return (_rebuild_tensor_v2, args)
        return (_rebuild_from_type_v2, (_rebuild_tensor_v2, type(tensor), args, state or None))

    def storage_view(self, tensor: Tensor) -> tuple[TypedStorage, int, tuple[int, ...]]:
        """The storage a tensor views, its offset and strides in elements. Tensors over the same
        numpy memory (views of one array) get one storage; a tensor PyTorch could not describe as
        a view (negative strides, a base of another layout) gets a compact copy of its own."""
        array, dtype = tensor._data, tensor.dtype
        itemsize = dtype.itemsize
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base  # the array that holds the memory
        start = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        if (array.size and root.flags.c_contiguous and root.nbytes % itemsize == 0 and start >= 0
                and start % itemsize == 0 and all(s >= 0 and s % itemsize == 0 for s in array.strides)):
            storage = self.memory.get((id(root), dtype))
            if storage is None:  # (the storage holds a view of root: root stays alive, its id stays its own)
                flat = root.reshape(-1).view(np.uint8).view(dtype.numpy_dtype)
                storage = self.memory[(id(root), dtype)] = TypedStorage(flat, dtype)
            return storage, start // itemsize, tuple(s // itemsize for s in array.strides)
        strides, step = [], 1
        for n in reversed(array.shape):  # PyTorch's contiguous strides (a size-0 dim counts as 1)
            strides.insert(0, step)
            step *= max(n, 1)
        return TypedStorage(array.reshape(-1).copy(), dtype), 0, tuple(strides)


def _reduces_itself(cls: type) -> bool:
    """Does a tensor subclass say how it is pickled (``__reduce_ex__``, as ``UninitializedParameter``
    does)? Then pickle asks it, as in PyTorch; Tensor and Parameter are pickled as above."""
    return any("__reduce_ex__" in vars(k) or "__reduce__" in vars(k) for k in cls.__mro__
               if k not in (Tensor, Parameter, object))


def _warn_if_has_hooks(tensor: Tensor) -> None:
    for hook in (tensor._backward_hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this warning",
                stacklevel=4,
            )


_TORCH_NAMES: dict[int, str] = {}


def _torch_names() -> dict[int, str]:
    """id(object) -> PyTorch's name for it, for the glasstorch objects a pickle names as PyTorch's."""
    if not _TORCH_NAMES:
        for name, obj in _weights_only_unpickler._get_allowed_globals().items():
            if name.startswith("torch.") and not isinstance(obj, _weights_only_unpickler._Unsupported):
                _TORCH_NAMES.setdefault(id(obj), name)  # (these objects live as long as the program)
    return _TORCH_NAMES


# --- writing a file -------------------------------------------------------------------------------
def _write_file(path: str, write: Callable[[IO[bytes]], None]) -> None:
    """Write a checkpoint to ``path`` so that an interruption never leaves half a checkpoint.

    - A regular file (or a new one) is written to a temporary file beside it, flushed to disk, and
      renamed over the target in one step; then the directory is synced, so the rename itself
      survives a power cut. An error or a crash midway leaves the old file as it was. The new file
      keeps the old one's mode bits, and its owner and group where this process may set them.
    - A process killed midway (SIGKILL, a power cut) cannot remove its temporary file. Its name
      carries the process id, ``.NAME.PID.RANDOM.tmp``, and the next save to the same target removes
      those whose process is gone.
    - A character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named pipe) is written in
      place: it holds no old checkpoint to keep, and a rename would replace the device itself. A
      block device, a socket or a directory is refused.
    - Through a symbolic link, the file it points to is written (as ``open`` would), not the link.
    """
    target = os.path.realpath(path)
    directory, name = os.path.split(target)
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {os.path.dirname(os.path.abspath(path))} does not exist.")
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        if stat.S_ISCHR(old.st_mode) or stat.S_ISFIFO(old.st_mode):
            with open(target, "wb") as file:
                write(file)
            return
        if stat.S_ISDIR(old.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        raise RuntimeError(f"glasstorch.save: {path!r} is not a regular file (a block device or a socket): "
                           "refusing to write a checkpoint onto it")
    stem = name[:200]  # (room for the suffix within a file name's 255 bytes)
    _remove_stale_temporaries(directory, stem)
    temporary = os.path.join(directory, f".{stem}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # O_EXCL: never reuse a file that exists; mode 0o666 less the umask, as open() gives a new file
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        with open(descriptor, "wb") as file:
            if old is not None:
                _copy_owner_and_mode(file.fileno(), old)
            write(file)
            file.flush()
            os.fsync(file.fileno())  # on disk before the rename makes it visible
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise
    _fsync_directory(directory)


def _copy_owner_and_mode(descriptor: int, old: os.stat_result) -> None:
    if hasattr(os, "fchown"):
        for uid in (old.st_uid, -1):  # owner and group; else the group alone; else neither
            try:
                os.fchown(descriptor, uid, old.st_gid)
                break
            except PermissionError:
                continue
    if hasattr(os, "fchmod"):
        os.fchmod(descriptor, stat.S_IMODE(old.st_mode))  # (after chown, which may clear set-id bits)


def _fsync_directory(directory: str) -> None:
    if os.name == "nt":
        return  # a directory cannot be opened there; NTFS journals the rename
    descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    except OSError as error:  # some file systems cannot sync a directory
        if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(descriptor)


def _remove_stale_temporaries(directory: str, stem: str) -> None:
    """Remove the temporary files that saves to this target left when they were killed."""
    if os.name == "nt":
        return  # (os.kill cannot ask there whether a process exists)
    pattern = re.compile(re.escape(f".{stem}.") + r"(\d+)\.[0-9a-f]{8}\.tmp")
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            match = pattern.fullmatch(entry.name)
            if match and int(match.group(1)) != os.getpid() and not _process_exists(int(match.group(1))):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(entry.path)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or a number no process has: keep the file, to be safe)
    return True


# --- load ----------------------------------------------------------------------------------------
def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load an object saved by ``save`` or by PyTorch's ``torch.save`` from ``f``, a path or a
    binary file object.

    ``weights_only=True`` (the default, as in PyTorch since 2.6) reads the pickle with a restricted
    unpickler: it can build tensors, Parameters, numbers, strings, bytes, lists, tuples, dicts,
    ``OrderedDict``, ``Counter``, sets, dtypes, ``Size`` and ``device``, and nothing else. A file
    that names anything else (a module's class, ``os.system``) is refused with PyTorch's
    ``pickle.UnpicklingError`` before anything is called.

    ``weights_only=False`` is needed for a whole module saved with ``save(model, PATH)``. It
    unpickles as ``pickle.load`` does, and **that can run any code**: a pickle is a program, whose
    instructions may import any function (``os.system``) and call it with any arguments, and
    ``pickle.load`` obeys them while it reads. Use it only for files you made yourself or trust as
    much as code you would run. (``add_safe_globals([Net, ...])`` is the middle way: the restricted
    unpickler, allowed to name your classes too.) Passing ``pickle_module`` means
    ``weights_only=False`` unless it is given.

    ``map_location`` may be None, ``'cpu'``, a ``device``, a dict or a function, as in PyTorch;
    glasstorch has only the CPU, so every storage loads there (a function is not called) and
    asking for another device is an error. ``mmap`` is accepted; storages are read into memory.

    Raises ``RuntimeError`` for a file that is damaged or not a checkpoint, saying why.
    """
    if weights_only is None:
        weights_only = pickle_module is None  # PyTorch's _default_to_weights_only
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    restore_location = _get_restore_location(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _load_file(file, repr(os.fspath(f)), restore_location, weights_only, pickle_module,
                              pickle_load_args)
    name = getattr(f, "name", None)
    return _load_file(f, repr(name) if isinstance(name, str) else "the file object", restore_location,
                      weights_only, pickle_module, pickle_load_args)


def _get_wo_message(message: str) -> str:
    """PyTorch's explanation around a refusal of the weights-only unpickler."""
    docs_message = (
        "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
        "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
    )
    has_unsafe_global = re.search(r"GLOBAL (\S+) was not an allowed global by default.", message) is not None
    has_blocklist = re.search(r"whose module (\S+) is blocked", message) is not None
    if has_unsafe_global:
        updated_message = (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message
        )
    else:
        updated_message = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if not has_blocklist:
            updated_message += (
                "Please file an issue with the following so that we can make "
                "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
            )
        updated_message += "\n\n" + message
    return updated_message + docs_message


def _get_restore_location(map_location: Any) -> Callable[[str], None]:
    """A function that checks a storage's saved location (``'cpu'``, ``'cuda:0'`` ...) against
    ``map_location``: glasstorch can restore a storage only on the CPU."""
    if map_location is None:
        def where(location: str) -> Any:
            return location
    elif isinstance(map_location, (str, device)):
        _check_cpu(map_location)

        def where(location: str) -> Any:
            return map_location
    elif isinstance(map_location, dict):
        def where(location: str) -> Any:
            return map_location.get(location, location)
    elif callable(map_location):
        def where(location: str) -> Any:
            return "cpu"  # PyTorch calls it with each storage; glasstorch's are on the CPU already
    else:
        raise TypeError(f"map_location must be None, a string, a device, a dict or a function, "
                        f"not {type(map_location).__name__}")
    if isinstance(map_location, dict):
        _check_cpu(map_location.get("cpu", "cpu"))  # a dict that moves 'cpu' elsewhere fails at once

    def restore_location(location: str) -> None:
        if type(location) is not str:
            raise RuntimeError(f"a storage's location is {location!r}, not a string")
        _check_cpu(where(location))

    return restore_location


def _check_cpu(where: Any) -> None:
    kind = device(where).type
    if kind != "cpu":
        raise RuntimeError(
            f"Attempting to deserialize object on a {kind.upper()} device ('{where}'), but glasstorch runs on the "
            f"CPU only: this machine has no {kind.upper()} device for glasstorch. If you are running on a "
            "CPU-only machine, please use torch.load with map_location='cpu' to map your storages to the CPU."
        )


def _load_file(file: IO[bytes], name: str, restore_location: Callable, weights_only: bool, pickle_module: Any,
               pickle_load_args: dict) -> Any:
    if not getattr(file, "seekable", lambda: False)() or file.tell() != 0:
        file = io.BytesIO(file.read())  # the zip reader jumps around, from the archive's first byte
    head = file.read(4)
    file.seek(0)
    try:
        if head.startswith(b"PK"):
            return _load(PyTorchStreamReader(file), restore_location, weights_only, pickle_module, pickle_load_args)
        _refuse_other_file(file, head, weights_only)
    except pickle.UnpicklingError as error:
        if not weights_only:
            raise
        raise pickle.UnpicklingError(_get_wo_message(str(error))) from None
    except _FileProblem as problem:
        raise RuntimeError(f"glasstorch.load: {name} {problem}") from problem.__cause__
    except RuntimeError as error:
        raise RuntimeError(f"glasstorch.load: {name} cannot be loaded: {error}") from error


def _refuse_other_file(file: IO[bytes], head: bytes, weights_only: bool) -> None:
    """Say what a file that is not a zip archive is. A pickle (PyTorch's legacy format starts with
    one) is read as far as its first object by the restricted unpickler, as PyTorch reads it: a
    hostile one is refused as PyTorch refuses it, and nothing in it runs."""
    if not head:
        raise _FileProblem("is empty (0 bytes), not a checkpoint. Was the save interrupted?")
    if head[:1] in (b"\x80", b"c", b"("):  # PROTO (protocol 2 and later), or a protocol-0 GLOBAL or MARK
        if not weights_only:
            raise _FileProblem("is a pickle, not PyTorch's zip format: glasstorch does not read plain pickles "
                               "or PyTorch's legacy format")
        unpickler = _weights_only_unpickler.Unpickler(file, encoding="utf-8")
        try:
            magic_number = unpickler.load()
        except pickle.UnpicklingError:
            raise
        except Exception as error:
            raise _FileProblem(f"is not a checkpoint: it is not a zip archive, nor a pickle ({error})") from None
        if magic_number == LEGACY_MAGIC_NUMBER:
            raise _FileProblem(
                "was written in PyTorch's legacy format (torch.save with _use_new_zipfile_serialization=False, "
                "or PyTorch before 1.6), which glasstorch does not read: load it with PyTorch and save it again."
            )
        raise _FileProblem("is a plain pickle, not a checkpoint written by torch.save (Invalid magic number; "
                           "corrupt file?)")
    raise _FileProblem("is not a checkpoint written by torch.save: it is not a zip archive "
                       "(failed finding central directory).")


def _load(reader: PyTorchStreamReader, restore_location: Callable, weights_only: bool, pickle_module: Any,
          pickle_load_args: dict) -> Any:
    """Read ``data.pkl``, resolving each storage it names to its record ``data/<key>``."""
    _check_records(reader, weights_only)
    byteorder = reader.get_record("byteorder") if reader.has_record("byteorder") else b"little"
    if byteorder not in (b"little", b"big"):
        raise _FileProblem(f"is damaged: Unknown endianness type: {byteorder[:20]!r}")
    loaded_storages: dict[str, TypedStorage] = {}

    def persistent_load(saved_id: Any) -> TypedStorage:
        if type(saved_id) is not tuple or len(saved_id) != 5:
            raise RuntimeError(
                f"a persistent id must be ('storage', type, key, location, size), not {saved_id!r}"[:200])
        typename, storage_type, key, location, numel = saved_id
        if _weights_only_unpickler._maybe_decode_ascii(typename) != "storage":
            raise RuntimeError(f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'")
        if not isinstance(storage_type, StorageType):
            raise RuntimeError(f"a storage of type {storage_type!r}: not a storage type glasstorch has")
        if type(key) is not str or not re.fullmatch(r"[0-9]{1,20}", key):
            raise RuntimeError(f"invalid storage key {key!r}: the records of storages are data/0, data/1 ..."[:200])
        if type(numel) is not int or not 0 <= numel < 2**62:
            raise RuntimeError(f"invalid storage size {numel!r}")
        dtype = storage_type.dtype
        if key in loaded_storages:
            storage = loaded_storages[key]
            if storage.dtype is not dtype or storage.size() != numel:
                raise RuntimeError(f"storage {key} is named twice, with different types or sizes")
            return storage
        restore_location(_weights_only_unpickler._maybe_decode_ascii(location))
        raw = reader.get_record_as_array(f"data/{key}", numel * dtype.itemsize)  # the size is checked first
        array = raw.view(f"{'<' if byteorder == b'little' else '>'}u{dtype.itemsize}").astype(
            f"=u{dtype.itemsize}", copy=False).view(dtype.numpy_dtype)
        if dtype is _dtypes.bool and raw.max(initial=0) > 1:
            raise RuntimeError(f"the bool storage {key} holds bytes other than 0 and 1")
        storage = loaded_storages[key] = TypedStorage(array, dtype)
        return storage

    data_file = io.BytesIO(reader.get_record("data.pkl"))
    if weights_only:
        unpickler = _weights_only_unpickler.Unpickler(data_file, encoding=pickle_load_args["encoding"])
        unpickler.persistent_load = persistent_load
        try:
            return unpickler.load()
        except (pickle.UnpicklingError, RuntimeError):
            raise
        except Exception as error:  # a stack that runs empty, a missing memo entry, bad arguments ...
            raise _FileProblem(f"is damaged: its data.pkl is not a valid checkpoint pickle "
                               f"({type(error).__name__}: {error})"[:500]) from error

    class UnpicklerWrapper((pickle_module or pickle).Unpickler):  # type: ignore[misc,name-defined]
        """``pickle``'s unpickler, with PyTorch's names resolved to glasstorch's objects: the allow-list's
        names first, then ``torch.X`` as ``glasstorch.X`` (``torch.nn.modules.linear.Linear``)."""

        def find_class(self, mod_name: str, name: str) -> Any:
            allowed = _weights_only_unpickler._get_allowed_globals().get(f"{mod_name}.{name}")
            if isinstance(allowed, _weights_only_unpickler._Unsupported):
                raise allowed.fail()
            if allowed is not None:
                return allowed
            if mod_name == "torch" or mod_name.startswith("torch."):
                mod_name = "glasstorch" + mod_name[len("torch"):]
            return super().find_class(mod_name, name)

        def persistent_load(self, saved_id: Any) -> Any:
            return persistent_load(saved_id)

    return UnpicklerWrapper(data_file, **pickle_load_args).load()


def _check_records(reader: PyTorchStreamReader, weights_only: bool) -> None:
    """The records every checkpoint has, as PyTorch's reader checks them."""
    if reader.has_record("constants.pkl"):
        if weights_only:
            raise RuntimeError("Cannot use ``weights_only=True`` with TorchScript archives passed to ``torch.load``. "
                               + UNSAFE_MESSAGE)
        raise _FileProblem("is a TorchScript archive (torch.jit.save), which glasstorch does not read.")
    version_record = ".data/version" if reader.has_record(".data/version") else "version"
    if not reader.has_record(version_record):
        raise _FileProblem(
            "is not a checkpoint written by torch.save: Expected hasRecord(\"version\") to be true, but got false."
        )
    text = reader.get_record(version_record).decode("ascii", errors="replace").strip()
    if not text.isdigit() or len(text) > 20:
        raise _FileProblem(f"is damaged: its version record holds {text[:20]!r}, not a number.")
    if int(text) not in SUPPORTED_FILE_FORMAT_VERSIONS:
        raise _FileProblem(
            f"is not readable: Attempted to read a PyTorch file with version {int(text)}, but the supported versions "
            f"are {SUPPORTED_FILE_FORMAT_VERSIONS.start} to {SUPPORTED_FILE_FORMAT_VERSIONS.stop - 1}."
        )
    if not reader.has_record("data.pkl"):
        raise _FileProblem(f"is damaged or not a checkpoint: file not found: {reader.prefix}data.pkl")

