"""Reading files the grader does not trust: a submission in a class folder, what a notebook's run
left in its work directory.

Such a file may be a symbolic link (to ``solutions/``, to ``/dev/zero``, to a secret whose first
line an error message would show), a FIFO that blocks whoever opens it, a device that never ends,
or a regular file that keeps growing. :func:`read_untrusted` opens without following links and
without blocking, accepts regular files only, and reads at most ``limit`` bytes; what it refuses
is said in words that never quote the file.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class Refused(Exception):
    """The file was not read; the message says why (and never contains the file's bytes)."""


def read_untrusted(path: Path | str, limit: int, *, within: Path | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them, or :class:`Refused`.

    ``within``: a folder the file must really be in (after resolving every link of its parents).
    """
    path = Path(path)
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):  # (O_NOFOLLOW says the same where it exists)
            raise Refused("it is a symbolic link")
    except FileNotFoundError:
        raise Refused("it does not exist") from None
    except OSError as error:
        raise Refused(f"it cannot be read ({os.strerror(error.errno or errno.EIO)})") from None
    if within is not None and not _inside(path, within):
        raise Refused("it is outside the folder being graded")
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise Refused("it is a symbolic link") from None
        raise Refused(f"it cannot be read ({os.strerror(error.errno or errno.EIO)})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused("it is not a regular file")
        if info.st_size > limit:
            raise Refused(f"it is larger than {_size(limit)}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file: reads never wait on a writer
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while being read
                raise Refused(f"it is larger than {_size(limit)}")
    except OSError as error:
        raise Refused(f"it cannot be read ({os.strerror(error.errno or errno.EIO)})") from None
    finally:
        os.close(fd)


def _inside(path: Path, folder: Path) -> bool:
    try:
        real, root = os.path.realpath(path), os.path.realpath(folder)
    except (OSError, ValueError):
        return False
    return os.path.commonpath([real, root]) == root


def _size(limit: int) -> str:
    return f"{limit / 1e6:g} MB" if limit >= 1_000_000 else f"{limit} bytes"
