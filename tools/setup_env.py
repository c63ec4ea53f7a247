#!/usr/bin/env python3
"""Create or update the project's virtual environment in .venv (called by every Makefile target).

    python3 tools/setup_env.py [EXTRA ...]      e.g.  python3 tools/setup_env.py book test

The `course` extra (JupyterLab, ipykernel, ...) is always installed; `book` and `test` are added on request.

What it does, in order:
  1. makes sure Graphviz's `dot` program exists (the book draws autograd graphs with it): when it is
     missing and we are root on a system with apt-get, installs Debian's `graphviz`; otherwise stops
     with the install command for apt, brew, conda and winget;
     with the `test` extra, does the same for Chromium (the browser tests drive it), but a missing
     Chromium is not an error: it says so once, and the browser tests skip, saying how to install it;
     on Linux, does the same for bubblewrap (`bwrap`, the grader's sandbox): missing, it is a note,
     not an error (`make grade` still grades your own exercises/; others' notebooks need it);
  2. creates .venv with `python -m venv` if it does not exist;
  3. installs this package editable with the requested extras (`pip install -e .[course,...]`);
  4. registers the Jupyter kernel `glasstorch` inside .venv (the book's notebooks name it).

It is idempotent and fast when nothing changed: a stamp file in .venv records a hash of
pyproject.toml and the extras installed, and steps 2-4 are skipped while they still match.
Two set-ups never run at once (`make book` and `make exercises` started together on a fresh clone
would both build .venv and break it): the second waits on a lock file, .venv.lock, then finds the
environment ready.

Environment: GLASSTORCH_NO_APT=1 never runs apt-get (only reports what to install);
GLASSTORCH_CHROMIUM=/path/to/chromium names the browser for the tests when it is not on PATH.
Only the standard library is used, so it runs on any Python >= 3.10 before anything is installed.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator, NoReturn, Optional

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / "glasstorch-setup.json"
LOCK = ROOT / ".venv.lock"  # beside .venv, not in it: it must exist before .venv does
KERNEL_NAME = "glasstorch"
KERNEL_DISPLAY_NAME = "Python (glasstorch)"
KNOWN_EXTRAS = ("course", "book", "test")
MIN_PYTHON = (3, 10)

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Also the skip reason of the browser tests (tests/browser/browser_env.py reads it from here).
CHROMIUM_INSTALL = (
    "install Chromium (Debian/Ubuntu: `sudo apt-get install -y --no-install-recommends chromium`; "
    "elsewhere any Chromium or Chrome, then `export GLASSTORCH_CHROMIUM=/path/to/it`). "
    "Never `playwright install`: the tests use the system's browser"
)

DOT_HELP = """\
glasstorch draws autograd graphs with Graphviz, but its `dot` program was not found on PATH.
Install Graphviz with one of these, then run the command again:
  Debian/Ubuntu:     sudo apt-get update && sudo apt-get install -y --no-install-recommends graphviz
  macOS (Homebrew):  brew install graphviz
  conda:             conda install -c conda-forge graphviz
  Windows:           winget install --id Graphviz.Graphviz   (then open a new terminal so PATH is updated)
"""


def say(message: str) -> None:
    print(f"[setup] {message}", flush=True)


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"[setup] ERROR: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def run(*cmd: str, env: Optional[dict] = None) -> None:
    say("$ " + " ".join(cmd))
    result = subprocess.run(cmd, env=env)
    if result.returncode != 0:
        fail(f"command failed with exit code {result.returncode}: {' '.join(cmd)}", result.returncode)


def can_apt() -> bool:
    """True when we may install Debian packages ourselves: root, apt-get present, GLASSTORCH_NO_APT unset."""
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    apt_allowed = os.environ.get("GLASSTORCH_NO_APT", "") in ("", "0")
    return is_root and apt_allowed and shutil.which("apt-get") is not None


_apt_updated = False


def apt_install(package: str) -> bool:
    """`apt-get install` one Debian package (the package lists are updated once per run); True if it worked."""
    global _apt_updated
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    say(f"$ apt-get install -y --no-install-recommends {package}")
    if not _apt_updated:
        _apt_updated = subprocess.run(["apt-get", "update"], env=env).returncode == 0
    return subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", package], env=env).returncode == 0


def ensure_dot() -> None:
    if shutil.which("dot"):
        return
    if can_apt():
        say("Graphviz's `dot` is missing; installing Debian's graphviz package with apt-get")
        if apt_install("graphviz") and shutil.which("dot"):
            return
        fail("apt-get could not install graphviz, or `dot` is still not on PATH.\n" + DOT_HELP)
    fail(DOT_HELP)


BWRAP_INSTALL = (
    "install bubblewrap, the sandbox the grader runs each notebook in (Debian/Ubuntu: "
    "`sudo apt-get install -y bubblewrap`; Fedora: `sudo dnf install bubblewrap`; Arch: "
    "`sudo pacman -S bubblewrap`). Without it, `make grade` grades your own exercises/ unsandboxed "
    "and refuses other people's notebooks"
)


def ensure_bwrap() -> None:
    """bubblewrap for the grader's sandbox (Linux only): installed with apt-get where we may, else a note."""
    if not sys.platform.startswith("linux") or shutil.which("bwrap"):
        return
    if can_apt():
        say("bubblewrap is missing (the grader's sandbox); installing Debian's bubblewrap package with apt-get")
        if apt_install("bubblewrap") and shutil.which("bwrap"):
            return
    say("NOTE: no `bwrap` found: " + BWRAP_INSTALL)


def find_chromium() -> Optional[str]:
    """The browser the browser tests drive: $GLASSTORCH_CHROMIUM, else the first one on PATH (None: none).
    tests/browser/browser_env.py uses this function too."""
    chosen = os.environ.get("GLASSTORCH_CHROMIUM")
    if chosen:
        return chosen if Path(chosen).is_file() and os.access(chosen, os.X_OK) else None
    return next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)


def ensure_chromium() -> None:
    """Chromium for the browser tests: installed with apt-get where we may, else a note (not an error)."""
    if find_chromium():
        return
    if can_apt():
        say("Chromium is missing (the browser tests drive it); installing Debian's chromium package with apt-get")
        if apt_install("chromium") and find_chromium():
            return
    say("NOTE: no Chromium found, so the browser tests (tests/browser) will be skipped. To run them, "
        + CHROMIUM_INSTALL)


@contextmanager
def one_setup_at_a_time(lock_path: Path = LOCK) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path`` for the set-up; wait, saying so, while another holds it.
    The operating system drops the lock when its holder exits, even if it crashed."""
    with open(lock_path, "a") as handle:
        if not _try_lock(handle):
            say("another set-up of .venv is running (started by another make command): waiting for it")
            while not _try_lock(handle):
                time.sleep(0.2)
        yield


def _try_lock(handle: IO) -> bool:
    try:
        if os.name == "nt":
            import msvcrt

            handle.seek(0)  # every process locks the same byte: the first
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held by another process
        return False
    return True


def venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def ensure_venv() -> None:
    if venv_python().exists():
        return
    say(f"creating the virtual environment {VENV}")
    result = subprocess.run([sys.executable, "-m", "venv", str(VENV)])
    if result.returncode != 0:
        fail(
            "`python -m venv` failed. On Debian/Ubuntu the venv module is a separate package:\n"
            "  sudo apt-get install -y python3-venv\n"
            "then delete .venv and run the command again."
        )


def read_stamp() -> dict:
    try:
        return json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return {}


def kernel_installed() -> bool:
    return (VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").exists()


def main(argv: list) -> int:
    if sys.version_info < MIN_PYTHON:
        fail(
            f"glasstorch needs Python {'.'.join(map(str, MIN_PYTHON))} or newer, this is "
            f"{sys.version.split()[0]} ({sys.executable}).\n"
            "Run make with a newer interpreter, e.g.  make test PYTHON=python3.11"
        )
    extras = {"course"}  # every target needs JupyterLab's kernel machinery; book/test add to it
    for arg in argv:
        for extra in filter(None, arg.split(",")):
            if extra not in KNOWN_EXTRAS:
                fail(f"unknown extra {extra!r}; known: {', '.join(KNOWN_EXTRAS)}")
            extras.add(extra)
    with one_setup_at_a_time():
        return set_up(extras)


def set_up(extras: set) -> int:
    """Steps 1-4 of the module's docstring, for these extras."""
    ensure_dot()
    ensure_bwrap()
    if "test" in extras:
        ensure_chromium()

    pyproject_hash = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = read_stamp()
    if (
        venv_python().exists()
        and stamp.get("pyproject_sha256") == pyproject_hash
        and extras <= set(stamp.get("extras", []))
        and kernel_installed()
    ):
        return 0  # nothing changed: the fast path

    ensure_venv()
    # Keep what an earlier run installed: asking for [test] after [book] must not drop book's packages
    # from the stamp (pip never uninstalls them anyway).
    wanted = sorted(extras | set(stamp.get("extras", [])))
    target = str(ROOT) + (f"[{','.join(wanted)}]" if wanted else "")
    python = str(venv_python())
    run(python, "-m", "pip", "install", "--disable-pip-version-check", "-e", target)
    # The notebooks name the kernel `glasstorch`; --sys-prefix keeps the registration inside .venv.
    run(python, "-m", "ipykernel", "install", "--sys-prefix",
        "--name", KERNEL_NAME, "--display-name", KERNEL_DISPLAY_NAME)

    STAMP.write_text(json.dumps({"pyproject_sha256": pyproject_hash, "extras": wanted}, indent=2) + "\n")
    say(f"environment ready: {VENV} (extras: {', '.join(wanted) or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
