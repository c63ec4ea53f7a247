"""Plausible wrong answers to chapter 14's exercises: each must be caught by its check."""
import os
import pickle
import pickletools
import zipfile

import numpy as np

import glasstorch as torch

# -- 14.resume -------------------------------------------------------------------------------------

def resume_model_only(path, model, optimizer):
    """Forgets the optimizer's state: momentum (or Adam's averages) start again from nothing."""
    checkpoint = torch.load(path)
    model.load_state_dict(checkpoint["model_state_dict"])
    model.train()
    return checkpoint["epoch"] + 1


def resume_saved_epoch(path, model, optimizer):
    """Returns the saved epoch, which was already completed: it is trained twice."""
    checkpoint = torch.load(path)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    return checkpoint["epoch"]


def resume_with_assign(path, model, optimizer):
    """assign=True puts new Parameters into the model; the optimizer built before keeps the old ones."""
    checkpoint = torch.load(path)
    model.load_state_dict(checkpoint["model_state_dict"], assign=True)
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    return checkpoint["epoch"] + 1


# -- 14.read_storage -------------------------------------------------------------------------------

def read_storage_archive_folder(path, key, dtype):
    """Assumes every archive's folder is 'archive/' (it is so only for a file object)."""
    with zipfile.ZipFile(path) as archive:
        return np.frombuffer(archive.read("archive/data/" + key), dtype=dtype)


def read_storage_folder_from_file_name(path, key, dtype):
    """Builds the folder from the file's name: wrong for a file written through a file object."""
    folder = os.path.splitext(os.path.basename(path))[0]
    with zipfile.ZipFile(path) as archive:
        return np.frombuffer(archive.read(f"{folder}/data/{key}"), dtype=dtype)


def read_storage_default_dtype(path, key, dtype):
    """Forgets dtype=: np.frombuffer reads float64."""
    with zipfile.ZipFile(path) as archive:
        name = next(n for n in archive.namelist() if n.endswith("/data/" + key))
        return np.frombuffer(archive.read(name))


def read_storage_loose_match(path, key, dtype):
    """Finds the record with `endswith(key)`: 'data/11' ends with '1' too, and comes later."""
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if "/data/" in n and n.endswith(key)]
        return np.frombuffer(archive.read(names[-1]), dtype=dtype)


# -- 14.unsafe_globals -----------------------------------------------------------------------------

def _globals(pickled):
    return [argument for opcode, argument, _ in pickletools.genops(pickled) if opcode.name == "GLOBAL"]


def unsafe_with_space(pickled, allowed):
    """Keeps pickletools' 'module name', with a space, so nothing matches the allow-list."""
    found = []
    for name in _globals(pickled):
        if name not in allowed and name not in found:
            found.append(name)
    return found


def unsafe_no_builtin_mapping(pickled, allowed):
    """Reads '__builtin__ set' as '__builtin__.set', which is not on the list: a false alarm."""
    found = []
    for argument in _globals(pickled):
        name = argument.replace(" ", ".", 1)
        if name not in allowed and name not in found:
            found.append(name)
    return found


def _mapped(argument):
    module, name = argument.split(" ", 1)
    return ("builtins" if module == "__builtin__" else module) + "." + name


def unsafe_every_time(pickled, allowed):
    """Reports a name each time the pickle names it."""
    return [name for name in map(_mapped, _globals(pickled)) if name not in allowed]


def unsafe_sorted(pickled, allowed):
    """Sorted, not in the order the pickle names them."""
    return sorted({name for name in map(_mapped, _globals(pickled)) if name not in allowed})


def unsafe_trusts_torch_prefix(pickled, allowed):
    """Takes every name that starts with 'torch.' for PyTorch's, and so for safe."""
    found = []
    for name in map(_mapped, _globals(pickled)):
        if name not in allowed and not name.startswith("torch.") and name not in found:
            found.append(name)
    return found


def unsafe_by_loading(pickled, allowed):
    """Finds the globals by unpickling, recording each find_class: the pickle's calls then run."""
    found = []

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            full = ("builtins" if module == "__builtin__" else module) + "." + name
            if full not in allowed and full not in found:
                found.append(full)
            return super().find_class(module, name)

        def persistent_load(self, pid):
            return None

    import io
    try:
        Recorder(io.BytesIO(pickled)).load()
    except Exception:
        pass
    return found


WRONG = {
    "14.resume": [resume_model_only, resume_saved_epoch, resume_with_assign],
    "14.read_storage": [read_storage_archive_folder, read_storage_folder_from_file_name, read_storage_default_dtype,
                        read_storage_loose_match],
    "14.unsafe_globals": [unsafe_with_space, unsafe_no_builtin_mapping, unsafe_every_time, unsafe_sorted,
                          unsafe_trusts_torch_prefix, unsafe_by_loading],
}
