"""``load(..., weights_only=True)`` against hostile pickles (package/glasstorch/_weights_only_unpickler.py).

Each payload tries to run a command (``touch`` a marker file) or to build something the allow-list
does not allow, through each instruction that can call: GLOBAL + REDUCE, INST and OBJ (protocol 0/1),
NEWOBJ, BUILD, STACK_GLOBAL (protocol 4), EXT, persistent ids. Every one is refused, as a
``pickle.UnpicklingError`` with PyTorch's "Weights only load failed" (a refusal) or a
``RuntimeError`` (a broken file), and the marker is never made. One test shows that the payloads
are live: plain ``pickle.loads`` runs them. With PyTorch installed (marker ``torch``), PyTorch's
``weights_only=True`` refuses the same files with the same message, and the allow-list is a part of
PyTorch's.
"""
from __future__ import annotations

import collections
import io
import os
import pickle
import shlex
import struct

import pytest
from serialization_support import save_to_bytes, tensor_pickle, torch, write_checkpoint

import glasstorch
from glasstorch import _weights_only_unpickler, serialization

needs_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)"
)


def with_torch(test):
    return pytest.mark.torch(needs_torch(test))


class RunsShellCommand:
    """What a malicious checkpoint holds: unpickling it calls os.system."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def string(text: str) -> bytes:
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def touch(marker) -> str:
    return f"touch {shlex.quote(str(marker))}"


def code(marker) -> str:
    return f"open({str(marker)!r}, 'w').close()"


# Each payload: a function of the marker's path giving data.pkl's bytes, and what the refusal says.
PAYLOADS = {
    "os.system, protocol 2": (lambda m: pickle.dumps({"model": RunsShellCommand(touch(m))}, protocol=2),
                              "Trying to load unsupported GLOBAL posix.system whose module posix is blocked."),
    "os.system, protocol 0": (lambda m: pickle.dumps(RunsShellCommand(touch(m)), protocol=0),
                              "whose module posix is blocked"),
    "builtins.exec": (lambda m: b"\x80\x02c__builtin__\nexec\n" + string(code(m)) + b"\x85R.",
                      "Unsupported global: GLOBAL exec was not an allowed global by default. Please use "
                      "`torch.serialization.add_safe_globals([exec])`"),
    "builtins.eval": (lambda m: b"\x80\x02cbuiltins\neval\n" + string(f"__import__('os').system({touch(m)!r})") + b"\x85R.",
                      "GLOBAL eval was not an allowed global"),
    "builtins.getattr": (lambda m: b"\x80\x02cbuiltins\ngetattr\n.", "GLOBAL getattr was not an allowed global"),
    "subprocess": (lambda m: b"\x80\x02csubprocess\ncall\n" + string(touch(m)) + b"\x88\x86R.",
                   "GLOBAL subprocess.call was not an allowed global"),
    "sys.modules": (lambda m: b"\x80\x02csys\nmodules\n.", "whose module sys is blocked"),
    "nt.system": (lambda m: b"\x80\x02cnt\nsystem\n.", "whose module nt is blocked"),
    "intern, a Python 2 name for sys.intern": (lambda m: b"\x80\x02c__builtin__\nintern\n.", "GLOBAL sys.intern whose module sys"),
    "numpy's reconstruct": (lambda m: pickle.dumps(__import__("numpy").zeros(2), protocol=2),
                            "multiarray._reconstruct was not an allowed global"),
    "a torch function that is not a rebuild": (lambda m: b"\x80\x02ctorch\nload\n.", "GLOBAL torch.load was not an allowed"),
    "glasstorch's own internals": (lambda m: b"\x80\x02cglasstorch.serialization\n_write_file\n.",
                                   "GLOBAL glasstorch.serialization._write_file was not an allowed global"),
    "INST (protocol 0)": (lambda m: b"(S'" + touch(m).encode() + b"'\nios\nsystem\n.", "Unsupported operand 83"),
    "INST after a MARK of nothing": (lambda m: b"\x80\x02(ios\nsystem\n.", "Unsupported operand 105"),
    "OBJ (protocol 1)": (lambda m: b"\x80\x02(ccollections\nOrderedDict\no.", "Unsupported operand 111"),
    "STACK_GLOBAL (protocol 4)": (lambda m: pickle.dumps(RunsShellCommand(touch(m)), protocol=4), "Unsupported operand 149"),
    "protocol 5": (lambda m: pickle.dumps(RunsShellCommand(touch(m)), protocol=5), "Unsupported operand 149"),
    "EXT1": (lambda m: b"\x80\x02\x82\x01.", "Unsupported operand 130"),
    "NEWOBJ_EX": (lambda m: b"\x80\x02ccollections\nOrderedDict\n)}\x92.", "Unsupported operand 146"),
    "REDUCE of a string": (lambda m: b"\x80\x02" + string("os.system") + b")R.",
                           "Trying to call reduce for unrecognized function os.system"),
    "NEWOBJ of a function": (lambda m: b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n)\x81.",
                             "Can only create new object for nn.Parameter or classes allowlisted"),
    "NEWOBJ + BUILD of a class with __setstate__": (lambda m: b"\x80\x02cglasstorch.nn.modules.linear\nLinear\n)\x81}b.",
                                                     "GLOBAL glasstorch.nn.modules.linear.Linear was not an allowed"),
    "BUILD on a list": (lambda m: b"\x80\x02]}b.", "Can only build Tensor, Parameter, OrderedDict"),
    "BUILD of dunder state on an OrderedDict": (lambda m: b"\x80\x02ccollections\nOrderedDict\n)R}" + string("__class__")
                                                + b"Nsb.", "Invalid state for an OrderedDict"),
    "APPEND to a dict": (lambda m: b"\x80\x02}K\x01a.", "Can only append to lists"),
    "SETITEM on a list": (lambda m: b"\x80\x02]K\x01K\x02s.", "Can only SETITEM for dict"),
    "a persistent id that is not a storage": (lambda m: b"\x80\x02(" + string("module") + string("os") + b"tQ.",
                                              "Only persistent_load of storage is allowed"),
    "a persistent id that is a string": (lambda m: b"\x80\x02" + string("os.system") + b"Q.",
                                         "persistent_load id must be tuple or int"),
    "_codecs.encode with another codec": (lambda m: b"\x80\x02c_codecs\nencode\n" + string("x") + string("rot13")
                                          + b"\x86R.", "_codecs.encode is allowed for protocol 2's bytes only"),
}


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "pwned"
    yield path
    assert not path.exists(), "the payload ran"


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")  # (protocols 4 and 5: PyTorch warns, then refuses)
@pytest.mark.parametrize("name", PAYLOADS)
@pytest.mark.parametrize("container", ["checkpoint", "plain-pickle"])
def test_hostile_pickles_are_refused_and_nothing_runs(name, container, marker, tmp_path):
    make, message = PAYLOADS[name]
    payload = make(marker)
    if container == "plain-pickle" and payload[:1] not in (b"\x80", b"c", b"("):
        pytest.skip("not recognisable as a pickle without its zip")
    path = tmp_path / "model.pt"
    path.write_bytes(write_checkpoint(payload) if container == "checkpoint" else payload)
    with pytest.raises(pickle.UnpicklingError) as error:
        glasstorch.load(path)
    assert str(error.value).startswith("Weights only load failed.")
    assert message in str(error.value)
    assert "Check the documentation of torch.load" in str(error.value)


def test_the_payloads_are_live_plain_pickle_runs_them(marker):
    """An ordinary unpickler obeys the file: each of these runs the command while loading."""
    for name in ("os.system, protocol 2", "os.system, protocol 0", "INST (protocol 0)", "builtins.exec",
                 "STACK_GLOBAL (protocol 4)"):
        pickle.loads(PAYLOADS[name][0](marker))
        assert marker.exists(), name
        marker.unlink()


@pytest.mark.parametrize("weights_only", [True, False])
def test_a_hostile_plain_pickle_is_never_unpickled_even_with_weights_only_false(tmp_path, marker, weights_only):
    path = tmp_path / "model.pt"
    path.write_bytes(PAYLOADS["os.system, protocol 2"][0](marker))
    with pytest.raises((pickle.UnpicklingError, RuntimeError)):
        glasstorch.load(path, weights_only=weights_only)  # (PyTorch's weights_only=False would run it)


# What a refusal turns into when the names are allowed but misused: a broken file, RuntimeError.
MISUSED = {
    "_rebuild_from_type_v2 with OrderedDict as the function": (
        b"\x80\x02ctorch._tensor\n_rebuild_from_type_v2\n(ccollections\nOrderedDict\nctorch\nTensor\n)Nt R.".replace(b" ", b""),
        "expects a tensor rebuild function"),
    "a tensor attribute that replaces its data": (
        b"\x80\x02ctorch._tensor\n_rebuild_from_type_v2\n(ctorch._utils\n_rebuild_tensor_v2\nctorch\nTensor\n"
        + tensor_pickle()[len(b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n"):-2] + b"}" + string("_data") + string("x")
        + b"stR.", "a saved tensor attribute may not be named '_data'"),
    "a tensor attribute that shadows a method": (
        b"\x80\x02ctorch._tensor\n_rebuild_from_type_v2\n(ctorch._utils\n_rebuild_tensor_v2\nctorch\nTensor\n"
        + tensor_pickle()[len(b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n"):-2] + b"}" + string("backward") + b"N"
        + b"stR.", "may not be named 'backward'"),
    "_rebuild_parameter of a string": (b"\x80\x02ctorch._utils\n_rebuild_parameter\n" + string("x") + b"\x88}\x87R.",
                                       "_rebuild_parameter expects a tensor and a bool"),
    "REDUCE with arguments that are not a tuple": (b"\x80\x02ccollections\nOrderedDict\n]R.",
                                                  "the arguments of a call must be a tuple"),
    "a legacy BUILD on a tensor": (tensor_pickle()[:-1] + b"(NK\x00tb.", "legacy form"),
}


@pytest.mark.parametrize("name", MISUSED)
def test_allowed_names_misused_are_refused_as_broken_files(name):
    payload, message = MISUSED[name]
    storages = {"0": b"\0" * 8} if b"FloatStorage" in payload else {}
    with pytest.raises(RuntimeError) as error:
        glasstorch.load(io.BytesIO(write_checkpoint(payload, storages)))
    assert message in str(error.value)


def test_blocked_modules_stay_blocked_even_when_allow_listed(marker):
    data = write_checkpoint(PAYLOADS["os.system, protocol 2"][0](marker))
    with serialization.safe_globals([os.system, (os.system, "posix.system")]):
        with pytest.raises(pickle.UnpicklingError, match="whose module posix is blocked"):
            glasstorch.load(io.BytesIO(data))


def test_add_safe_globals_get_and_clear():
    class Point:
        pass

    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([Point])
    try:
        assert serialization.get_safe_globals() == [Point]
        assert _weights_only_unpickler._get_user_allowed_globals() == {f"{__name__}.{Point.__qualname__}": Point}
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


def test_every_allowed_name_is_a_glasstorch_object_and_saving_uses_those_names():
    allowed = _weights_only_unpickler._get_allowed_globals()
    usable = {name: obj for name, obj in allowed.items() if not isinstance(obj, _weights_only_unpickler._Unsupported)}
    assert {name for name in usable if name.startswith("torch._utils.")} == {
        "torch._utils._rebuild_tensor", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor_v3",
        "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state"}
    assert all(usable[f"torch.{d.name}"] is d for d in glasstorch.dtypes.ALL_DTYPES)
    names = serialization._torch_names()
    assert names[id(glasstorch.Size)] == "torch.Size" and names[id(glasstorch.float32)] == "torch.float32"
    assert id(collections.OrderedDict) not in names  # (pickled under its own name, as by PyTorch)


def test_a_state_dict_with_everything_weights_only_allows():
    """What PyTorch's weights_only accepts by default, all in one file: it loads."""
    obj = {"t": glasstorch.ones(2), "p": glasstorch.nn.Parameter(glasstorch.ones(1)), "od": collections.OrderedDict(a=1),
           "c": collections.Counter("ab"), "s": {1}, "b": b"x", "ba": bytearray(b"y"), "z": 1j, "size": glasstorch.Size([1]),
           "d": glasstorch.float16, "dev": glasstorch.device("cpu"), "n": None, "f": 1.5, "i": -(2**70), "u": "✓"}
    loaded = glasstorch.load(io.BytesIO(save_to_bytes(obj)))
    assert {k: v for k, v in loaded.items() if k not in ("t", "p")} == {k: v for k, v in obj.items() if k not in ("t", "p")}


# --- against PyTorch ------------------------------------------------------------------------------
def torch_load_error(data: bytes) -> BaseException | None:
    try:
        torch.load(io.BytesIO(data), weights_only=True)
    except Exception as error:  # noqa: BLE001 - whatever PyTorch raises
        return error
    return None


@with_torch
@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("name", PAYLOADS)
def test_pytorch_refuses_the_same_files_with_the_same_message(name, marker):
    make, _ = PAYLOADS[name]
    data = write_checkpoint(make(marker))
    theirs = torch_load_error(data)
    with pytest.raises(Exception) as ours:
        glasstorch.load(io.BytesIO(data))
    if name in ("BUILD of dunder state on an OrderedDict", "_codecs.encode with another codec"):
        assert theirs is None  # glasstorch is stricter here: PyTorch sets any attribute, calls any codec
        return
    if name == "NEWOBJ of a function":  # PyTorch tries function.__new__, which fails; glasstorch refuses first
        assert isinstance(theirs, TypeError) and isinstance(ours.value, pickle.UnpicklingError)
        return
    assert isinstance(theirs, pickle.UnpicklingError) and isinstance(ours.value, pickle.UnpicklingError)
    if name != "REDUCE of a string":  # (PyTorch's message has the string's repr where glasstorch's has its text)
        assert str(ours.value) == str(theirs)


@with_torch
def test_what_pytorch_refuses_by_default_glasstorch_refuses_too():
    for obj in (b"", frozenset([1]), RunsShellCommand("true"), glasstorch.nn.ReLU(), __import__("numpy").ones(1)):
        data = save_to_bytes(obj)
        assert isinstance(torch_load_error(data), pickle.UnpicklingError), obj
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            glasstorch.load(io.BytesIO(data))
    for protocol in (3, 4):  # protocol 3's BINBYTES and 4's FRAME are outside PyTorch's instruction set
        data = save_to_bytes({"b": b"x", "w": glasstorch.ones(1)}, pickle_protocol=protocol)
        with pytest.warns(UserWarning, match=f"Detected pickle protocol {protocol}"):
            assert isinstance(torch_load_error(data), pickle.UnpicklingError)
        with pytest.warns(UserWarning, match=f"Detected pickle protocol {protocol}"), pytest.raises(pickle.UnpicklingError):
            glasstorch.load(io.BytesIO(data))
        assert glasstorch.load(io.BytesIO(data), weights_only=False)["b"] == b"x"


@with_torch
def test_the_allow_list_is_a_part_of_pytorchs():
    theirs = set(torch._weights_only_unpickler._get_allowed_globals())
    ours = set(_weights_only_unpickler._get_allowed_globals())
    assert ours <= theirs, sorted(ours - theirs)
    # and the names a glasstorch file uses are the ones PyTorch's pickler writes
    names = set(serialization._torch_names().values())
    assert names <= theirs and "torch._utils._rebuild_tensor_v2" in names and "torch.BFloat16Storage" in names
