"""Chapter 14 exercises: checkpoints on disk. The checkpoint recipe that resumes training exactly,
a storage's bytes read straight out of a ``.pt`` zip archive, and the globals a pickle names,
listed with ``pickletools`` without loading it.

The cases write real files with ``glasstorch.save`` (named, and so foldered, as the seed decides)
or assemble small pickles by hand; nothing here loads a pickle the learner's code could be fooled
by. The observations are the losses of a resumed training run, numpy arrays, and lists of names,
with a flag saying whether a payload ran.
"""
from __future__ import annotations

import io
import os
import tempfile
from typing import Any, Callable

import numpy as np

import glasstorch
import glasstorch.nn.functional as F
from glasstorch import nn

from ..checking import Case, exercise
from ._harness import random_seed, seeded

# -- 14.resume: the checkpoint recipe -------------------------------------------------------------


class _TheModelClass(nn.Module):
    """The chapter's regression network, optionally with a BatchNorm (whose buffers are state too)."""

    def __init__(self, batchnorm: bool = False) -> None:
        super().__init__()
        self.hidden = nn.Linear(1, 8)
        self.norm = nn.BatchNorm1d(8) if batchnorm else nn.Identity()
        self.out = nn.Linear(8, 1)

    def forward(self, x: glasstorch.Tensor) -> glasstorch.Tensor:
        return self.out(glasstorch.tanh(self.norm(self.hidden(x))))


def _make(kind: str, seed: int) -> tuple:
    model = seeded(seed, lambda: _TheModelClass(batchnorm=kind == "SGD, with BatchNorm"))
    if kind == "Adam":
        return model, glasstorch.optim.Adam(model.parameters(), lr=0.02)
    return model, glasstorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def _train_one_epoch(model: nn.Module, optimizer: Any, x: glasstorch.Tensor, y: glasstorch.Tensor) -> float:
    """Four mini-batches, always in the same order; the last mini-batch's loss."""
    model.train()
    for start in range(0, 32, 8):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x[start:start + 8]), y[start:start + 8])
        loss.backward()
        optimizer.step()
    return loss.item()


def resume_reference(path: str, model: nn.Module, optimizer: Any) -> int:
    """The chapter's recipe (seed 003): load both state dicts, return the next epoch."""
    checkpoint = glasstorch.load(path)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    return checkpoint["epoch"] + 1


def _observe_resume(resume: Callable, kind: str, seed: int, stop: int, x: np.ndarray, y: np.ndarray) -> dict:
    """Train ``stop`` epochs, save the chapter's checkpoint, resume with fresh objects up to epoch 6."""
    epochs = 6
    inputs, targets = glasstorch.from_numpy(x), glasstorch.from_numpy(y)
    model, optimizer = _make(kind, seed)
    for epoch in range(stop):
        loss = _train_one_epoch(model, optimizer, inputs, targets)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "checkpoint.pt")
        glasstorch.save({"epoch": epoch, "model_state_dict": model.state_dict(),
                         "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, path)
        del model, optimizer                                   # the program stops here
        model, optimizer = _make(kind, seed + 1)               # a new program: other initial weights
        start = resume(path, model, optimizer)
    if not isinstance(start, int) or not 0 <= start <= epochs:
        return {"resume returned": repr(start)}
    losses = [_train_one_epoch(model, optimizer, inputs, targets) for _ in range(start, epochs)]
    return {"resume returned (the next epoch)": start, "the losses of the resumed epochs": losses}


def _resume_cases(rng: np.random.Generator) -> list[Case]:
    def data() -> tuple:
        x = rng.uniform(-2, 2, size=(32, 1)).astype(np.float32)
        return x, (np.sin(2 * x) + 0.1 * rng.standard_normal((32, 1))).astype(np.float32)

    return [
        Case("SGD with momentum, stopped after 3 of 6 epochs", ("SGD", random_seed(rng), 3, *data())),
        Case("Adam, stopped after 2 of 6 epochs", ("Adam", random_seed(rng), 2, *data())),
        Case("SGD, a model with BatchNorm (running statistics are state too), stopped after 4",
             ("SGD, with BatchNorm", random_seed(rng), 4, *data())),
    ]


exercise(
    id="14.resume",
    entry="resume",
    title="Resume training from a checkpoint, exactly",
    cases=_resume_cases,
    reference=resume_reference,
    observe=_observe_resume,
    hint="restore both: the model's state_dict (copied into its Parameters, so the optimizer you were "
         "given still holds them: no assign=True) and the optimizer's (momentum buffers, Adam's averages and "
         "step counts). Return checkpoint['epoch'] + 1: the saved epoch is the last one completed.",
)


# -- 14.read_storage: a storage's bytes, straight from the zip archive ----------------------------

def read_storage_reference(path: str, key: str, dtype: Any) -> np.ndarray:
    """The elements of storage ``key`` of the checkpoint at ``path``, as a 1-D array of ``dtype``."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        folder = next(name for name in archive.namelist() if name.endswith("/data.pkl"))[:-len("data.pkl")]
        data = archive.read(folder + "data/" + key)
    return np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<")).copy()


def _observe_read_storage(read_storage: Callable, file_name: str, how: str, tensors: list, key: str,
                          dtype: str) -> Any:
    """Save ``tensors`` (numpy arrays; a pair (array, slice) is saved as that view of the array) as a
    dict "t0", "t1", ... under ``file_name``, directly or through a file object; then read storage
    ``key`` with ``read_storage``."""
    saved = {}
    for index, item in enumerate(tensors):
        if isinstance(item, tuple):  # a view: the whole storage of the array is written
            array, (start, stop) = item
            saved[f"t{index}"] = glasstorch.from_numpy(array)[start:stop]
        else:
            saved[f"t{index}"] = glasstorch.from_numpy(item)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, file_name)
        if how == "file object":  # torch.save(obj, f) with an open file: the folder is 'archive/'
            buffer = io.BytesIO()
            glasstorch.save(saved, buffer)
            with open(path, "wb") as f:
                f.write(buffer.getvalue())
        else:
            glasstorch.save(saved, path)
        result = read_storage(path, key, np.dtype(dtype))
    return result


def _read_storage_cases(rng: np.random.Generator) -> list[Case]:
    def values(n: int, dtype: str) -> np.ndarray:
        if dtype.startswith(("int", "uint")):
            return rng.integers(0, 100, size=n).astype(dtype)
        return rng.standard_normal(n).astype(dtype)

    stem = f"run-{int(rng.integers(10, 99))}"
    many = [values(int(rng.integers(2, 5)), "float32") for _ in range(12)]
    pick = int(rng.integers(0, 2))
    return [
        Case("a state_dict saved as 'model.pt': storage '0', float32",
             ("model.pt", "path", [values(6, "float32"), values(3, "float32")], "0", "float32"),
             hint="open the file with zipfile.ZipFile(path); the record is '<folder>/data/<key>', and "
                  "np.frombuffer(archive.read(...), dtype=dtype) reads its bytes as numbers."),
        Case(f"a file saved as '{stem}.ckpt': the folder is named after the file",
             (f"{stem}.ckpt", "path", [values(4, "float32"), values(5, "float32")], "1", "float32"),
             hint="every record sits in one folder, which save names after the file ('ckpt.pt' -> 'ckpt/'): "
                  "find it from archive.namelist(), for example from the record that ends with '/data.pkl'."),
        Case("written through a file object: the folder is 'archive', whatever the file's name",
             ("weights.pt", "file object", [values(3, "float32"), values(2, "float32")], "1", "float32"),
             hint="do not build the folder from the file's name: torch.save(obj, f) with a file object names "
                  "it 'archive/'. Read it from the archive's own names (the one ending in '/data.pkl')."),
        Case("an int64 storage", ("counts.pt", "path", [values(3, "float32"), values(4, "int64")], "1", "int64"),
             hint="use the dtype you are given: np.frombuffer without dtype= reads float64."),
        Case(f"float64 and float16 storages: storage '{pick}', {['float64', 'float16'][pick]}",
             ("mixed.pt", "path", [values(5, "float64"), values(4, "float16")], str(pick),
              ["float64", "float16"][pick]),
             hint="use the dtype you are given: np.frombuffer(data, dtype=dtype)."),
        Case("twelve storages: key '1' is not '10' or '11'", ("many.pt", "path", many, "1", "float32"),
             hint="read exactly the record '<folder>/data/' + key: a test like `key in name` or "
                  "`name.endswith(key)` also matches 'data/11'."),
        Case("a saved view: its whole storage is in the file",
             ("view.pt", "path", [(values(8, "float32"), (2, 5))], "0", "float32")),
    ]


exercise(
    id="14.read_storage",
    entry="read_storage",
    title="Read a storage's bytes out of a checkpoint's zip archive",
    cases=_read_storage_cases,
    reference=read_storage_reference,
    observe=_observe_read_storage,
    hint="with zipfile.ZipFile(path) as archive: find the folder from archive.namelist() (the name that "
         "ends with '/data.pkl'), read folder + 'data/' + key, and return np.frombuffer(data, dtype=dtype).",
)


# -- 14.unsafe_globals: what a pickle would call, without loading it ------------------------------

TRIPWIRE = {"ran": False}


def _tripwire(*args: Any) -> None:
    """What a payload in the cases calls, if anything ever runs it: the check reports it."""
    TRIPWIRE["ran"] = True


def _short_unicode(text: str) -> bytes:
    data = text.encode("utf-8")
    return b"X" + len(data).to_bytes(4, "little") + data  # BINUNICODE


def _assemble(entries: list) -> bytes:
    """A protocol-2 pickle of a dict whose values are calls: each entry is (key, "module.name", args),
    the call written as GLOBAL, its string arguments, TUPLE and REDUCE, as a __reduce__ would write it."""
    out = bytearray(b"\x80\x02}")  # PROTO 2, EMPTY_DICT
    for key, full_name, args in entries:
        module, _, name = full_name.rpartition(".")
        out += _short_unicode(key) + b"c" + module.encode() + b"\n" + name.encode() + b"\n"
        out += b"(" + b"".join(_short_unicode(arg) for arg in args) + b"tR"  # MARK ... TUPLE REDUCE
        out += b"s"  # SETITEM
    return bytes(out + b".")


def unsafe_globals_reference(pickled: bytes, allowed: list) -> list:
    """The names ("module.name") the pickle's GLOBAL instructions give that are not in ``allowed``,
    each once, in the order the pickle first names them."""
    import pickletools

    found = []
    for opcode, argument, _position in pickletools.genops(pickled):
        if opcode.name == "GLOBAL":
            module, name = argument.split(" ", 1)
            if module == "__builtin__":  # protocol 2 writes Python 2's name for the builtins module
                module = "builtins"
            name = f"{module}.{name}"
            if name not in allowed and name not in found:
                found.append(name)
    return found


def _data_pkl(obj: Any) -> bytes:
    buffer = io.BytesIO()
    glasstorch.save(obj, buffer)
    import zipfile

    with zipfile.ZipFile(buffer) as archive:
        return archive.read("archive/data.pkl")


def _observe_unsafe(unsafe_globals: Callable, kind: str, seed: int, names: list) -> dict:
    from glasstorch import _weights_only_unpickler

    allowed = sorted(_weights_only_unpickler._get_allowed_globals())
    if kind == "state_dict":
        pickled = _data_pkl(seeded(seed, lambda: nn.Linear(3, 2)).state_dict())
    elif kind == "checkpoint":
        model = seeded(seed, lambda: nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)))
        optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        pickled = _data_pkl({"epoch": seed % 7, "model_state_dict": model.state_dict(),
                             "optimizer_state_dict": optimizer.state_dict(), "loss": 0.5})
    elif kind == "whole module":
        pickled = _data_pkl(seeded(seed, lambda: nn.Sequential(nn.Linear(2, 2), nn.ReLU())))
    else:  # calls assembled by hand: (key, name, args)
        pickled = _assemble(names)
    TRIPWIRE["ran"] = False
    result = unsafe_globals(pickled, allowed)
    return {"unsafe globals": result, "the pickle's code ran": TRIPWIRE["ran"]}


def _unsafe_cases(rng: np.random.Generator) -> list[Case]:
    attacks = [("io.open", [os.devnull, "w"]), ("builtins.eval", ["1 + 1"]), ("builtins.exec", ["pass"]),
               ("os.system", ["true"]), ("subprocess.check_output", ["true"]), ("shutil.rmtree", ["/nonexistent"])]
    order = rng.permutation(len(attacks))
    first, second, third = (attacks[i] for i in order[:3])
    safe = ("collections.OrderedDict", [])
    mixed = [("a", *safe), ("b", *first), ("c", *safe), ("d", *second), ("e", *first), ("f", *third)]
    tripwire = "glasstorch.course.exercises.ch14._tripwire"
    return [
        Case("a state_dict written by save: nothing outside the allow-list", ("state_dict", random_seed(rng), []),
             hint="for opcode, argument, position in pickletools.genops(pickled): a GLOBAL's argument is "
                  "'module name'; write it 'module.name' and keep it if it is not in allowed."),
        Case("the chapter's checkpoint dict: nothing outside the allow-list", ("checkpoint", random_seed(rng), [])),
        Case("a whole module saved: its classes are named", ("whole module", random_seed(rng), []),
             hint="report every GLOBAL not in allowed, as 'module.name' (a dot between them, not a space); "
                  "protocol 2 writes the builtins module as '__builtin__' (Python 2's name): read it as "
                  "'builtins', so that '__builtin__ set' is the allowed 'builtins.set'."),
        Case(f"payloads: {first[0]}, {second[0]} and {third[0]}, one of them twice",
             ("assembled", random_seed(rng), mixed),
             hint="each name once (the first time the pickle names it), in the order the pickle names "
                  "them; the allowed ones (OrderedDict) are left out."),
        Case("a name that only looks like PyTorch's: torch.serialization.load",
             ("assembled", random_seed(rng), [("x", "torch._utils._rebuild_tensor_v2_", []),
                                              ("y", "torch.serialization.load", ["model.pt"])]),
             hint="compare the whole name with the allow-list: a name that starts with 'torch.' is not "
                  "safe for that."),
        Case("a payload that calls back: nothing may run", ("assembled", random_seed(rng),
                                                             [("fc.weight", tripwire, ["you ran me"])]),
             hint="never unpickle the bytes (pickle.loads runs what the pickle names); read the "
                  "instructions with pickletools.genops, which only lists them."),
    ]


exercise(
    id="14.unsafe_globals",
    entry="unsafe_globals",
    title="List the globals a pickle names outside an allow-list, without loading it",
    cases=_unsafe_cases,
    reference=unsafe_globals_reference,
    observe=_observe_unsafe,
    hint="walk pickletools.genops(pickled); for each GLOBAL, turn its argument 'module name' into "
         "'module.name' (with '__builtin__' read as 'builtins'); keep the names that are not in allowed, each "
         "once, in order. Never call pickle.loads.",
)
