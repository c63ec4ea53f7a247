"""The unpickler of ``load(..., weights_only=True)``: a pickle interpreter that can name only an allow-list.

Mirrors ``torch/_weights_only_unpickler.py``, opcode by opcode, with the same allow-list, the same
refusals and the same error messages.

A pickle is a program for a small stack machine (Python's ``pickle.py`` is its reference
interpreter). Most instructions only build values: push an int, push a string, make a tuple of
the last three items, set a dict item. Two are dangerous: ``GLOBAL module name`` pushes *any*
importable object (``os.system``, ``builtins.eval``), and ``REDUCE`` calls the object below its
arguments. ``pickle.load`` runs both for whatever the file names, so loading a pickle can run any
code; ``BUILD``, ``NEWOBJ`` and the protocol-0 ``INST`` and ``OBJ`` call methods or constructors too.

This interpreter knows fewer instructions (those ``torch.save``'s protocol 2 writes: anything else is
refused as an "Unsupported operand") and restricts the dangerous ones:

- ``GLOBAL`` never imports. It looks the name up in a table, ``_get_allowed_globals()``: the tensor
  rebuild functions, the storage types, the dtypes, ``torch.Size``, ``torch.device``,
  ``collections.OrderedDict`` and ``Counter``, and the few builtins protocol 2 needs for bytes, sets
  and complex numbers. The names are PyTorch's (``torch._utils._rebuild_tensor_v2``), the objects
  glasstorch's. Anything else is refused before any object is made: a name from ``os``, ``sys``,
  ``posix`` or ``nt`` always, other names unless the user allow-listed them with
  ``add_safe_globals``. So a refused file never gets as far as calling anything.
- ``REDUCE`` and ``NEWOBJ`` call only objects from that table (nothing else can be on the stack);
  ``BUILD`` sets state only on Parameters, ``OrderedDict`` (a state_dict's ``_metadata``) and
  allow-listed types; ``APPEND`` works only on lists, ``SETITEM`` only on dicts.
- ``BINPERSID`` (a tensor's storage, stored beside ``data.pkl``) accepts only ``('storage', ...)``.

A refusal is a ``pickle.UnpicklingError``; ``load`` puts PyTorch's explanation around it ("Weights
only load failed ..."). A file that is merely broken (cut short, a stack that runs empty) raises
other exceptions, which ``load`` reports as a damaged file.
"""
from __future__ import annotations

import warnings
from _codecs import encode
from collections import Counter, OrderedDict
from pickle import (APPEND, APPENDS, BINFLOAT, BINGET, BININT, BININT1, BININT2, BINPERSID, BINPUT, BINUNICODE,
                    BUILD, EMPTY_DICT, EMPTY_LIST, EMPTY_SET, EMPTY_TUPLE, GLOBAL, LONG1, LONG_BINGET, LONG_BINPUT,
                    MARK, NEWFALSE, NEWOBJ, NEWTRUE, NONE, PROTO, REDUCE, SETITEM, SETITEMS, SHORT_BINSTRING, STOP,
                    TUPLE, TUPLE1, TUPLE2, TUPLE3, UnpicklingError, decode_long)
from struct import unpack
from typing import Any, Callable

# Modules never allowed, even when the user allow-lists something from them.
_blocklisted_modules = ["sys", "os", "posix", "nt"]

# Python 2 names that protocol 2 still writes (pickle's fix_imports): `__builtin__ set` is `builtins.set`.
# PyTorch keeps this short list (adapted from CPython's _compat_pickle) rather than the whole table.
IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"),
    ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"),
    ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"),
    ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"),
    ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"),
    ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
    ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"),
    ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"),
    ("UserDict", "UserDict"): ("collections", "UserDict"),
}


# --- the user's allow-list: torch.serialization.add_safe_globals and friends ----------------------
_marked_safe_globals_set: set = set()


def _add_safe_globals(safe_globals: list) -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set.union(set(safe_globals))


def _get_safe_globals() -> list:
    return list(_marked_safe_globals_set)


def _clear_safe_globals() -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = set()


def _remove_safe_globals(globals_to_remove: list) -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set - set(globals_to_remove)


class _safe_globals:
    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        _add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info: Any) -> None:
        _remove_safe_globals(self.safe_globals)


def _get_user_allowed_globals() -> dict[str, Any]:
    """The user's additions, by the name a pickle gives them: ``f"{module}.{qualname}"``, or the
    name given in a ``(object, "full.name")`` pair."""
    rc: dict[str, Any] = {}
    for f in _marked_safe_globals_set:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


# --- the allow-list ------------------------------------------------------------------------------
class _Unsupported:
    """A name PyTorch allows but glasstorch cannot build (a complex dtype, a sparse tensor ...):
    naming it is not refused as unsafe, it fails as unsupported, with a RuntimeError."""

    def __init__(self, full_path: str, what: str) -> None:
        self.full_path, self.what = full_path, what

    def fail(self) -> RuntimeError:
        return RuntimeError(
            f"the checkpoint holds {self.what} ({self.full_path}), which glasstorch does not have: "
            "load it with PyTorch"
        )


_allowed_globals: dict[str, Any] | None = None


def _get_allowed_globals() -> dict[str, Any]:
    """PyTorch's allow-list: each name a ``torch.save`` file may give, and glasstorch's object for it."""
    global _allowed_globals
    if _allowed_globals is not None:
        return _allowed_globals
    from . import _utils, dtypes, serialization
    from ._tensor import Size, Tensor, device
    from .nn.parameter import Parameter

    rc: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": encode,  # for bytes
        "builtins.bytearray": bytearray,  # for bytearray
        "builtins.set": set,  # for set
        "builtins.complex": complex,  # for complex
    }
    # dtypes: str(torch.float32) is 'torch.float32'
    for d in dtypes.ALL_DTYPES:
        rc[f"torch.{d.name}"] = d
    # storage types: the legacy typed storages (torch.FloatStorage ...) and the untyped one
    for storage_type in serialization._STORAGE_TYPES:
        rc[f"torch.{storage_type.name}"] = storage_type
    rc["torch.storage.UntypedStorage"] = serialization._UNTYPED_STORAGE
    # the rebuild functions
    for f in _utils._TENSOR_REBUILD_FUNCTIONS:
        rc[f"torch._utils.{f.__name__}"] = f
    rc["torch._tensor._rebuild_from_type_v2"] = _utils._rebuild_from_type_v2
    # what PyTorch allows and glasstorch cannot build
    for name in ("complex32", "complex64", "complex128", "uint16", "uint32", "uint64", "float8_e4m3fn",
                 "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "qint8", "quint8", "qint32"):
        rc[f"torch.{name}"] = _Unsupported(f"torch.{name}", f"a tensor of dtype torch.{name}")
    for name in ("ComplexFloatStorage", "ComplexDoubleStorage", "QInt8Storage", "QUInt8Storage", "QInt32Storage",
                 "QUInt4x2Storage", "QUInt2x4Storage"):
        rc[f"torch.{name}"] = _Unsupported(f"torch.{name}", f"a tensor stored as {name}")
    for name, what in [("_rebuild_qtensor", "a quantized tensor"), ("_rebuild_sparse_tensor", "a sparse tensor"),
                       ("_rebuild_nested_tensor", "a nested tensor"),
                       ("_rebuild_meta_tensor_no_storage", "a tensor on the meta device"),
                       ("_rebuild_wrapper_subclass", "a tensor subclass"),
                       ("_rebuild_device_tensor_from_numpy", "a tensor of another device"),
                       ("_rebuild_device_tensor_from_cpu_tensor", "a tensor of another device")]:
        rc[f"torch._utils.{name}"] = _Unsupported(f"torch._utils.{name}", what)
    rc["torch.serialization._get_layout"] = _Unsupported("torch.serialization._get_layout", "a tensor layout")
    _allowed_globals = rc
    return rc


def _is_allowed(obj: Any) -> bool:
    """Is ``obj`` one of the allowed globals? (Compared by identity: ``in`` would call ``==``, and a
    value from the file may be a tensor, whose ``==`` is elementwise.)"""
    global _allowed_ids
    if _allowed_ids is None:
        _allowed_ids = {id(v) for v in _get_allowed_globals().values()}
    return id(obj) in _allowed_ids or any(obj is v for v in _get_user_allowed_globals().values())


_allowed_ids: set[int] | None = None  # (the allowed objects live as long as the program: ids stay theirs)


def _read_global_instruction(readline: Callable[[], bytes]) -> tuple[str, str]:
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    # torch.save's default protocol is 2, which writes Python 2 names for some builtins
    if (module, name) in NAME_MAPPING:
        module, name = NAME_MAPPING[(module, name)]
    elif module in IMPORT_MAPPING:
        module = IMPORT_MAPPING[module]
    return module, name


# --- the interpreter -----------------------------------------------------------------------------
class Unpickler:
    """Reads one pickle from ``file``, running only the instructions above."""

    def __init__(self, file: Any, *, encoding: str = "bytes") -> None:
        self.encoding = encoding
        self.readline = file.readline
        self._read = file.read
        self.memo: dict[int, Any] = {}
        self.proto: int = -1

    def read(self, n: int) -> bytes:
        data = self._read(n)
        if len(data) != n:  # a length from the file that runs past its end
            raise EOFError("pickle data was truncated")
        return data

    def load(self) -> Any:
        """Read a pickled object representation from the open file.

        Return the reconstituted object hierarchy specified in the file.
        """
        self.metastack: list[list[Any]] = []
        self.stack: list[Any] = []
        self.append = self.stack.append
        read = self.read
        while True:
            key = self._read(1)
            if not key:
                raise EOFError
            # Risky operators
            if key[0] == GLOBAL[0]:
                module, name = _read_global_instruction(self.readline)
                full_path = f"{module}.{name}"
                if module in _blocklisted_modules:
                    raise UnpicklingError(
                        f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
                    )
                if full_path in _get_allowed_globals():
                    allowed = _get_allowed_globals()[full_path]
                    if isinstance(allowed, _Unsupported):
                        raise allowed.fail()
                    self.append(allowed)
                elif full_path in _get_user_allowed_globals():
                    self.append(_get_user_allowed_globals()[full_path])
                else:
                    if full_path.startswith("builtins."):  # PyTorch's message says `eval`, not `builtins.eval`
                        full_path = full_path[len("builtins."):]
                    raise UnpicklingError(
                        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
                        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
                        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
                        "if you trust this class/function."
                    )
            elif key[0] == NEWOBJ[0]:
                args = _arguments(self.stack.pop())
                cls = self.stack.pop()
                from .nn.parameter import Parameter

                if cls is Parameter:
                    self.append(Parameter(*args))
                elif isinstance(cls, type) and _is_allowed(cls):
                    self.append(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError(
                        "Can only create new object for nn.Parameter or classes allowlisted "
                        f"via `add_safe_globals` but got {cls}"
                    )
            elif key[0] == REDUCE[0]:
                args = _arguments(self.stack.pop())
                func = self.stack[-1]
                if not _is_allowed(func):
                    raise UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
                if func is encode and args[1:] not in (("latin1",), ("latin-1",)):
                    raise UnpicklingError(f"_codecs.encode is allowed for protocol 2's bytes only, not {args[1:]}")
                self.stack[-1] = func(*args)
            elif key[0] == BUILD[0]:
                state = self.stack.pop()
                inst = self.stack[-1]
                if type(inst) is OrderedDict:  # a state_dict's _metadata
                    if type(state) is not dict or not all(type(k) is str and not k.startswith("__") for k in state):
                        raise UnpicklingError(f"Invalid state for an OrderedDict: {type(state)}")
                    inst.__dict__.update(state)
                elif _is_allowed(type(inst)) and not _is_tensor(inst):
                    if hasattr(inst, "__setstate__"):
                        inst.__setstate__(state)
                    else:
                        # mimics load_build in pickle
                        slotstate = None
                        if isinstance(state, tuple) and len(state) == 2:
                            state, slotstate = state
                        if state:
                            inst.__dict__.update(state)
                        if slotstate:
                            for k, v in slotstate.items():
                                setattr(inst, k, v)
                elif _is_tensor(inst):
                    # PyTorch's legacy form (tensor.set_(*state), Parameter.__setstate__): files from
                    # before the rebuild functions existed.
                    raise RuntimeError("the checkpoint stores a tensor in a legacy form that glasstorch does not read")
                else:
                    raise UnpicklingError(
                        "Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                        f"via `add_safe_globals`, but got {type(inst)}"
                    )
            # Stack manipulation
            elif key[0] == APPEND[0]:
                item = self.stack.pop()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(list_obj)}")
                list_obj.append(item)
            elif key[0] == APPENDS[0]:
                items = self.pop_mark()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(list_obj)}")
                list_obj.extend(items)
            elif key[0] == SETITEM[0]:
                (v, k) = (self.stack.pop(), self.stack.pop())
                self._check_set_item_target("SETITEM")
                self.stack[-1][k] = v
            elif key[0] == SETITEMS[0]:
                items = self.pop_mark()
                self._check_set_item_target("SETITEMS")
                if len(items) % 2:
                    raise ValueError("SETITEMS with an odd number of items")
                for i in range(0, len(items), 2):
                    self.stack[-1][items[i]] = items[i + 1]
            elif key[0] == MARK[0]:
                self.metastack.append(self.stack)
                self.stack = []
                self.append = self.stack.append
            elif key[0] == TUPLE[0]:
                items = self.pop_mark()
                self.append(tuple(items))
            elif key[0] == TUPLE1[0]:
                self.stack[-1] = (self.stack[-1],)
            elif key[0] == TUPLE2[0]:
                if len(self.stack) < 2:
                    raise IndexError("TUPLE2 on a stack of fewer than 2 items")
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif key[0] == TUPLE3[0]:
                if len(self.stack) < 3:
                    raise IndexError("TUPLE3 on a stack of fewer than 3 items")
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            # Basic types construction
            elif key[0] == NONE[0]:
                self.append(None)
            elif key[0] == NEWFALSE[0]:
                self.append(False)
            elif key[0] == NEWTRUE[0]:
                self.append(True)
            elif key[0] == EMPTY_TUPLE[0]:
                self.append(())
            elif key[0] == EMPTY_LIST[0]:
                self.append([])
            elif key[0] == EMPTY_DICT[0]:
                self.append({})
            elif key[0] == EMPTY_SET[0]:
                self.append(set())
            elif key[0] == BININT[0]:
                self.append(unpack("<i", read(4))[0])
            elif key[0] == BININT1[0]:
                self.append(read(1)[0])
            elif key[0] == BININT2[0]:
                self.append(unpack("<H", read(2))[0])
            elif key[0] == BINFLOAT[0]:
                self.append(unpack(">d", read(8))[0])
            elif key[0] == BINUNICODE[0]:
                strlen = unpack("<I", read(4))[0]
                self.append(str(read(strlen), "utf-8", "surrogatepass"))
            elif key[0] == SHORT_BINSTRING[0]:
                strlen = read(1)[0]
                strdata = read(strlen)
                self.append(strdata if self.encoding == "bytes" else strdata.decode(self.encoding, "strict"))
            elif key[0] == BINPERSID[0]:
                pid = self.stack.pop()
                # Only allow persistent load of storage
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and len(pid) > 0 and _maybe_decode_ascii(pid[0]) != "storage":
                    raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
                self.append(self.persistent_load(pid))
            elif key[0] in (BINGET[0], LONG_BINGET[0]):
                idx = (read(1)[0] if key[0] == BINGET[0] else unpack("<I", read(4))[0])
                self.append(self.memo[idx])
            elif key[0] in (BINPUT[0], LONG_BINPUT[0]):
                i = (read(1)[0] if key[0] == BINPUT[0] else unpack("<I", read(4))[0])
                self.memo[i] = self.stack[-1]
            elif key[0] == LONG1[0]:
                n = read(1)[0]
                self.append(decode_long(read(n)))
            # First and last deserializer ops
            elif key[0] == PROTO[0]:
                self.proto = read(1)[0]
                if self.proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {self.proto} in the checkpoint, which was "
                        "not the default pickle protocol used by `torch.load` (2). The weights_only "
                        "Unpickler might not support all instructions implemented by this protocol, "
                        "please file an issue for adding support if you encounter this.",
                        stacklevel=2,
                    )
            elif key[0] == STOP[0]:
                return self.stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {key[0]}")

    # Return a list of items pushed in the stack after last MARK instruction.
    def pop_mark(self) -> list[Any]:
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def _check_set_item_target(self, opcode: str) -> None:
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, "
                f"collections.Counter, but got {type(self.stack[-1])}"
            )

    def persistent_load(self, pid: Any) -> Any:
        raise UnpicklingError("unsupported persistent id encountered")


def _arguments(args: Any) -> tuple:
    if type(args) is not tuple:
        raise TypeError(f"the arguments of a call must be a tuple, not {type(args).__name__}")
    return args


def _is_tensor(obj: Any) -> bool:
    from ._tensor import Tensor

    return isinstance(obj, Tensor)


def _maybe_decode_ascii(bytes_str: bytes | str) -> str:
    # Python 2's pickles (and encoding='bytes') give the internal keys as bytes
    if isinstance(bytes_str, bytes):
        return bytes_str.decode("ascii")
    return bytes_str


def load(file: Any, *, encoding: str = "ASCII") -> Any:
    return Unpickler(file, encoding=encoding).load()
