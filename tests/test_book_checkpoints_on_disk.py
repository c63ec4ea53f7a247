"""Chapter 14 (checkpoints on disk) against real PyTorch: every result the chapter shows.

The optimizer's state_dict, the interrupted and resumed training run (each library with its own
``save`` and ``load``; the losses agree to float32 rounding, and within each library the resumed run
equals the uninterrupted one exactly), the records of a checkpoint file, files crossing from one
library to the other, the refusals of ``weights_only=True`` (a hostile pickle, a whole module) with
nothing run, and a whole module loaded with ``weights_only=False``. Printouts are compared with
"glasstorch" read as "torch". The chapter keeps one short comparison cell; this file is the long
one. Named after the chapter's slug, so renumbering never renames it.
"""
from __future__ import annotations

import contextlib
import io
import os
import pickle
import pickletools
import re
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)"
)

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def printed(program, *args) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        program(*args)
    return buffer.getvalue().replace("glasstorch", "torch")


def fixed_(lib, module):
    """The same weights in every library: a fixed pattern instead of random numbers."""
    with lib.no_grad():
        for p in module.parameters():
            p.copy_((((lib.arange(p.numel()) * 7) % 11 - 5) / 10).reshape(p.shape))
    return module


# -- section 1: the optimizer's state_dict ---------------------------------------------------------

def optimizers(lib):
    nn = lib.nn
    tiny = fixed_(lib, nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1)))
    for optimizer in (lib.optim.SGD(tiny.parameters(), lr=0.1, momentum=0.9),
                      lib.optim.Adam(tiny.parameters(), lr=0.01)):
        for _ in range(2):
            optimizer.zero_grad()
            tiny(lib.ones(4, 2)).pow(2).mean().backward()
            optimizer.step()
        osd = optimizer.state_dict()
        print(type(next(iter(optimizer.state))).__name__, list(osd), osd["param_groups"])
        for index, state in osd["state"].items():
            print(index, {key: tuple(value.shape) for key, value in state.items()})


def test_the_optimizers_state_dicts_print_as_pytorchs():
    assert printed(optimizers, glasstorch) == printed(optimizers, torch)


# -- section 2: a checkpoint, saved, restored, resumed ---------------------------------------------

def training_run(lib, folder):
    """The chapter's run: uninterrupted; stopped after six epochs, saved, resumed from the file;
    resumed with the model's state only. Returns the three lists of losses and what it printed."""
    nn, F = lib.nn, lib.nn.functional
    rng = np.random.default_rng(0)
    X = lib.from_numpy(rng.uniform(-2, 2, size=(64, 1)).astype(np.float32))
    Y = lib.sin(2 * X) + 0.1 * lib.from_numpy(rng.normal(size=(64, 1)).astype(np.float32))

    class TheModelClass(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Linear(1, 16)
            self.out = nn.Linear(16, 1)

        def forward(self, x):
            return self.out(lib.tanh(self.hidden(x)))

    def new():
        model = TheModelClass()
        return model, lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def epoch_loss(model, optimizer):
        model.train()
        for start in range(0, 64, 16):
            optimizer.zero_grad()
            loss = F.mse_loss(model(X[start:start + 16]), Y[start:start + 16])
            loss.backward()
            optimizer.step()
        return loss

    model, optimizer = new()
    fixed_(lib, model)
    full = [epoch_loss(model, optimizer).item() for _ in range(12)]
    model, optimizer = new()
    fixed_(lib, model)
    first = []
    for epoch in range(6):
        loss = epoch_loss(model, optimizer)
        first.append(loss.item())
    path = os.path.join(folder, "checkpoint.pt")
    lib.save({'epoch': epoch, 'model_state_dict': model.state_dict(),
              'optimizer_state_dict': optimizer.state_dict(), 'loss': loss}, path)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        checkpoint = lib.load(path)
        model, optimizer = new()
        print(model.load_state_dict(checkpoint['model_state_dict']))
        optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
        print(checkpoint['epoch'], checkpoint['loss'].requires_grad, checkpoint['loss'].grad_fn,
              checkpoint['model_state_dict']._metadata)
    resumed = first + [epoch_loss(model, optimizer).item() for _ in range(6, 12)]
    model, optimizer = new()
    model.load_state_dict(checkpoint['model_state_dict'])
    no_state = first + [epoch_loss(model, optimizer).item() for _ in range(6, 12)]
    return full, resumed, no_state, buffer.getvalue().replace("glasstorch", "torch")


def test_a_resumed_run_equals_the_uninterrupted_one_in_both_libraries(tmp_path):
    (tmp_path / "ours").mkdir()
    (tmp_path / "theirs").mkdir()
    ours = training_run(glasstorch, str(tmp_path / "ours"))
    theirs = training_run(torch, str(tmp_path / "theirs"))
    for full, resumed, no_state, _ in (ours, theirs):
        assert resumed == full, "resuming from the checkpoint must give the very same losses"
        assert no_state[:6] == full[:6] and no_state[6:] != full[6:], "without the optimizer's state: another path"
    for our_losses, their_losses in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(our_losses, their_losses, rtol=1e-5, atol=0)
    assert ours[3] == theirs[3]


# -- section 3: inside the file --------------------------------------------------------------------

def checkpoint_of(lib):
    nn = lib.nn
    model = fixed_(lib, nn.Sequential(nn.Linear(1, 4), nn.Linear(4, 1)))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model(lib.ones(2, 1)).sum().backward()
    optimizer.step()
    return {"epoch": 5, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict(),
            "loss": model(lib.ones(2, 1)).sum()}


def records(path):
    """The records' names without the folder, the small records' contents, data.pkl's globals."""
    with zipfile.ZipFile(path) as archive:
        contents = {info.filename.split("/", 1)[1]: archive.read(info) for info in archive.infolist()}
    small = {name: contents[name] for name in (".format_version", ".storage_alignment", "byteorder", "version")}
    globals_ = sorted({arg for op, arg, _ in pickletools.genops(contents["data.pkl"]) if op.name == "GLOBAL"})
    return sorted(contents), small, globals_, {n: len(v) for n, v in contents.items() if n.startswith("data/")}


def test_the_file_has_pytorchs_records_storages_and_globals(tmp_path):
    ours, theirs = str(tmp_path / "checkpoint.pt"), str(tmp_path / "theirs" / "checkpoint.pt")
    (tmp_path / "theirs").mkdir()
    glasstorch.save(checkpoint_of(glasstorch), ours)
    torch.save(checkpoint_of(torch), theirs)
    assert records(ours) == records(theirs)
    with zipfile.ZipFile(ours) as archive:
        assert {name.split("/")[0] for name in archive.namelist()} == {"checkpoint"}


def test_storages_read_by_numpy_are_the_tensors(tmp_path):
    path = str(tmp_path / "checkpoint.pt")
    glasstorch.save(checkpoint_of(glasstorch), path)
    loaded = torch.load(path, weights_only=True)
    with zipfile.ZipFile(path) as archive:
        first = np.frombuffer(archive.read("checkpoint/data/0"), dtype="<f4")
    assert np.array_equal(first, loaded["model_state_dict"]["0.weight"].numpy().ravel())


def test_shared_storages_and_views_are_saved_as_pytorch_saves_them(tmp_path):
    def shared_and_view(lib, path):
        shared = fixed_(lib, lib.nn.Linear(2, 2))
        lib.save(lib.nn.Sequential(shared, lib.nn.ReLU(), shared).state_dict(), path)
        loaded = lib.load(path)
        with lib.no_grad():
            loaded["0.weight"][0, 0] = 9.
        x = lib.arange(100.)
        view_path = os.path.join(os.path.dirname(path), "view.pt")
        lib.save(x[:10], view_path)
        with zipfile.ZipFile(path) as archive, zipfile.ZipFile(view_path) as view:
            return loaded["2.weight"][0, 0].item(), archive.namelist(), len(view.read("view/data/0"))

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ours = shared_and_view(glasstorch, str(tmp_path / "a" / "shared.pt"))
    theirs = shared_and_view(torch, str(tmp_path / "b" / "shared.pt"))
    assert ours[0] == theirs[0] == 9.0
    assert [n for n in ours[1] if "/data/" in n] == [n for n in theirs[1] if "/data/" in n]
    assert ours[2] == theirs[2] == 400, "a view is saved with its whole storage"


# -- the file crosses over, both ways --------------------------------------------------------------

def test_pytorch_reads_glasstorchs_checkpoint_and_glasstorch_reads_pytorchs(tmp_path):
    ours, theirs = str(tmp_path / "ours.pt"), str(tmp_path / "theirs.pt")
    glasstorch.save(checkpoint_of(glasstorch), ours)
    torch.save(checkpoint_of(torch), theirs)
    for written, reader in ((ours, torch.load), (theirs, glasstorch.load)):
        other = reader(written, weights_only=True)
        same = (glasstorch if reader is torch.load else torch).load(written, weights_only=True)
        assert other["epoch"] == same["epoch"] == 5
        assert list(other["model_state_dict"]) == list(same["model_state_dict"])
        for key, value in same["model_state_dict"].items():
            assert np.array_equal(value.numpy(), other["model_state_dict"][key].numpy()), key
        assert dict(other["model_state_dict"]._metadata) == dict(same["model_state_dict"]._metadata)
        assert other["optimizer_state_dict"]["param_groups"] == same["optimizer_state_dict"]["param_groups"]
        for index, state in same["optimizer_state_dict"]["state"].items():
            assert np.array_equal(state["momentum_buffer"].numpy(),
                                  other["optimizer_state_dict"]["state"][index]["momentum_buffer"].numpy())
        assert other["loss"].requires_grad and other["loss"].grad_fn is None


# -- sections 4 and 5: what weights_only=True refuses, and nothing runs ----------------------------

class Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (io.open, (self.marker, "w"))


def refusal(lib, path):
    try:
        lib.load(path, weights_only=True)
    except Exception as e:  # noqa: BLE001 - the refusal is what we compare
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
        return type(e).__name__, text.replace(os.path.dirname(path), "<tmp>")
    return "loaded!"


def test_a_hostile_pickle_is_refused_with_pytorchs_message_and_nothing_runs(tmp_path):
    marker = str(tmp_path / "I_WAS_HERE")
    plain = str(tmp_path / "pretrained_model.pt")
    with open(plain, "wb") as f:
        pickle.dump({"fc.weight": Payload(marker)}, f, protocol=2)
    ours, theirs = refusal(glasstorch, plain), refusal(torch, plain)
    assert ours == theirs
    assert ours[0] == "UnpicklingError" and "Unsupported global: GLOBAL io.open" in ours[1]
    assert not os.path.exists(marker), "the payload ran"


def test_a_fake_archive_with_a_payload_is_refused_and_nothing_runs(tmp_path):
    marker = str(tmp_path / "I_WAS_HERE")
    fake = str(tmp_path / "model_from_the_internet.pt")
    with zipfile.ZipFile(fake, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(Payload(marker), protocol=2))
    ours, theirs = refusal(glasstorch, fake), refusal(torch, fake)
    assert ours[0] == theirs[0] == "RuntimeError"
    assert 'Expected hasRecord("version") to be true, but got false' in ours[1]
    assert 'hasRecord("version")' in theirs[1]
    assert not os.path.exists(marker), "the payload ran"


def test_a_whole_module_needs_weights_only_false_in_both(tmp_path):
    path = str(tmp_path / "whole_module.pt")
    glasstorch.save(fixed_(glasstorch, glasstorch.nn.Linear(2, 1)), path)
    ours, theirs = refusal(glasstorch, path), refusal(torch, path)
    assert ours == theirs
    assert "GLOBAL glasstorch.nn.modules.linear.Linear was not an allowed global" in ours[1]
    restored = glasstorch.load(path, weights_only=False)
    assert type(restored) is glasstorch.nn.Linear and np.allclose(restored.weight.tolist(), [[-0.5, 0.2]])
    theirs_path = str(tmp_path / "theirs_whole_module.pt")
    torch.save(fixed_(torch, torch.nn.Linear(2, 1)), theirs_path)
    message = refusal(torch, theirs_path)[1]
    assert "GLOBAL torch.nn.modules.linear.Linear was not an allowed global" in message
    assert type(torch.load(theirs_path, weights_only=False)) is torch.nn.Linear
