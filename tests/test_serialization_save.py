"""``glasstorch.save`` to a path (serialization._write_file): the old checkpoint survives any
failure, a killed save leaves a temporary file that the next save removes, the file keeps its mode
and owner, the directory is synced, and a target that is not a regular file is written in place
(a character device, a FIFO) or refused (a directory, a socket), never replaced.
"""
from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from serialization_support import save_to_bytes

import glasstorch
from glasstorch import _inline_container

ROOT = Path(__file__).resolve().parent.parent


def temporaries(directory: Path) -> list[str]:
    return sorted(name for name in os.listdir(directory) if name.endswith(".tmp"))


def test_failed_pickle_leaves_the_old_file(tmp_path):
    path = tmp_path / "checkpoint.pt"
    glasstorch.save({"epoch": 1}, path)
    with pytest.raises(Exception):
        glasstorch.save({"epoch": 2, "deep": [{"x": [glasstorch.ones(2), lambda: 0]}]}, path)
    assert glasstorch.load(path) == {"epoch": 1}
    assert os.listdir(tmp_path) == ["checkpoint.pt"]


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()], ids=["disk-full", "ctrl-c"])
def test_save_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, error):
    path = tmp_path / "checkpoint.pt"
    glasstorch.save({"epoch": 1}, path)
    original = _inline_container.PyTorchStreamWriter.write_record
    seen_during_write = []

    def failing_write_record(writer, name, data):
        if name.startswith("data/"):
            seen_during_write.append(sorted(os.listdir(tmp_path)))
            raise error
        return original(writer, name, data)

    monkeypatch.setattr(_inline_container.PyTorchStreamWriter, "write_record", failing_write_record)
    with pytest.raises(type(error)):
        glasstorch.save({"epoch": 2, "w": glasstorch.ones(3)}, path)
    monkeypatch.undo()
    (listing,) = seen_during_write
    assert len(listing) == 2 and listing[0].startswith(f".checkpoint.pt.{os.getpid()}.")  # half written, beside it
    assert os.listdir(tmp_path) == ["checkpoint.pt"]
    assert glasstorch.load(path) == {"epoch": 1}


KILLED_SAVE = textwrap.dedent("""
    import sys, time
    import glasstorch
    from glasstorch import _inline_container

    original = _inline_container.PyTorchStreamWriter.write_record

    def write_record(writer, name, data):
        original(writer, name, data)
        if name == "data/0":  # half the checkpoint is on disk: say so, and wait to be killed
            writer.file.flush()
            print("writing", flush=True)
            time.sleep(60)

    _inline_container.PyTorchStreamWriter.write_record = write_record
    glasstorch.save({"epoch": 2, "w": glasstorch.ones(1000)}, sys.argv[1])
""")


@pytest.mark.skipif(os.name == "nt", reason="SIGKILL")
def test_a_killed_save_leaves_the_old_file_and_the_next_save_removes_its_temporary(tmp_path):
    path = tmp_path / "checkpoint.pt"
    glasstorch.save({"epoch": 1}, path)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "package")}
    process = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(path)], stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert process.stdout.readline() == "writing\n"
        (orphan,) = temporaries(tmp_path)
        assert orphan.startswith(f".checkpoint.pt.{process.pid}.") and (tmp_path / orphan).stat().st_size > 4000
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        process.stdout.close()
    assert glasstorch.load(path) == {"epoch": 1}  # the old checkpoint, whole
    assert temporaries(tmp_path) == [orphan]  # a killed process cleans nothing up ...
    glasstorch.save({"epoch": 3}, path)
    assert os.listdir(tmp_path) == ["checkpoint.pt"]  # ... the next save does
    assert glasstorch.load(path) == {"epoch": 3}


def test_temporaries_of_running_saves_and_of_other_files_are_left_alone(tmp_path):
    path = tmp_path / "checkpoint.pt"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead_pid = os.getpid() + 10**6  # (beyond any pid: no such process)
        names = [f".checkpoint.pt.{sleeper.pid}.0123abcd.tmp",  # a save still running
                 f".checkpoint.pt.{dead_pid}.0123abcd.tmp",  # a save that was killed
                 f".other.pt.{dead_pid}.0123abcd.tmp",  # another target's
                 ".checkpoint.pt.notes.tmp"]  # not a temporary of ours at all
        for name in names:
            (tmp_path / name).write_bytes(b"half")
        glasstorch.save(1, path)
        assert temporaries(tmp_path) == sorted(names[:1] + names[2:])
    finally:
        sleeper.kill()
        sleeper.wait()


def test_mode_is_kept(tmp_path):
    path = tmp_path / "checkpoint.pt"
    glasstorch.save(1, path)
    os.chmod(path, 0o640)
    glasstorch.save(2, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and glasstorch.load(path) == 2
    new = tmp_path / "new.pt"
    umask = os.umask(0o027)
    try:
        glasstorch.save(3, new)
    finally:
        os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o640  # a new file: 0o666 less the umask, as open() makes it


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_and_group_are_kept(tmp_path):
    path = tmp_path / "checkpoint.pt"
    glasstorch.save(1, path)
    os.chown(path, 1234, 5678)
    glasstorch.save(2, path)
    assert (path.stat().st_uid, path.stat().st_gid) == (1234, 5678) and glasstorch.load(path) == 2


def test_the_file_and_its_directory_are_synced(tmp_path, monkeypatch):
    synced = []
    original = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(stat.S_ISDIR(os.fstat(fd).st_mode)) or original(fd))
    glasstorch.save(1, tmp_path / "checkpoint.pt")
    assert synced == [False, True]  # the temporary file before the rename, the directory after it


def test_save_through_a_symlink_keeps_the_link(tmp_path):
    target, link = tmp_path / "real.pt", tmp_path / "link.pt"
    glasstorch.save(1, target)
    link.symlink_to(target)
    glasstorch.save(2, link)
    assert link.is_symlink() and glasstorch.load(target) == 2


def test_save_into_a_missing_directory(tmp_path):
    with pytest.raises(RuntimeError, match="Parent directory .*missing does not exist"):  # PyTorch's message
        glasstorch.save(1, tmp_path / "missing" / "x.pt")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_dev_null_is_written_in_place_not_replaced(monkeypatch):
    """A rename over /dev/null would replace the device by a regular file (as root it succeeds)."""
    before = os.stat("/dev/null")
    replaced = []
    monkeypatch.setattr(os, "replace", lambda *args: replaced.append(args))
    glasstorch.save({"w": glasstorch.ones(3)}, "/dev/null")
    after = os.stat("/dev/null")
    assert not replaced and stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    glasstorch.save({"w": glasstorch.arange(3.0)}, fifo)
    reader.join(timeout=10)
    assert received[0] == save_to_bytes({"w": glasstorch.arange(3.0)}, folder="pipe")
    assert stat.S_ISFIFO(fifo.stat().st_mode) and os.listdir(tmp_path) == ["pipe"]


def test_a_directory_or_a_socket_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        glasstorch.save(1, tmp_path)
    if hasattr(socket, "AF_UNIX"):
        path = tmp_path / "sock"
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
            with pytest.raises(RuntimeError, match="is not a regular file"):
                glasstorch.save(1, path)
            assert stat.S_ISSOCK(path.stat().st_mode)
