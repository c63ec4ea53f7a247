"""The box each submission runs in: bubblewrap (``bwrap``) around the notebook's run and its kernel,
a cgroup for memory and processes where one can be made, and setrlimit for the rest.

What a sandbox sees and may do (see :func:`bwrap_command`):

* the system's programs and libraries, the Python environment and glasstorch's package, read-only;
  nothing else of the machine (not the teacher's home, not the class folder, not the reports);
* its own notebook, read-only (a copy the grader made), at ``/grade/notebook.ipynb``;
* a private, size-limited, writable work directory (``/grade/work``, the kernel's current
  directory), ``/tmp`` and home, all on tmpfs: nothing it writes outlives it;
* its own user, PID, network, IPC and UTS namespaces: an unprivileged uid with no capabilities,
  only its own processes (it can neither see nor signal the grader or a classmate, and they all
  die with it), no network but its own loopback (where its kernel and the notebook's runner talk);
* a clean environment (none of the teacher's variables);
* limits: memory and processes for the whole sandbox (a cgroup, where the grader may make one),
  memory per process, open files, file size and CPU time per process (setrlimit, set by
  ``grade_run`` inside, before any submitted code runs).

Its answers come back on a pipe the grader owns (``grade_run --answer-fd``), never through a file.
"""
from __future__ import annotations

import functools
import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

MIB, GIB = 1 << 20, 1 << 30

# Inside the sandbox
INSIDE_NOTEBOOK = "/grade/notebook.ipynb"
INSIDE_WORKDIR = "/grade/work"
INSIDE_HOME = "/home/grader"
INSIDE_UID = 1000

# Of /etc, only what programs need to start (not passwd files, keys or the machine's configuration)
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "fonts", "nsswitch.conf",
        "hosts", "mime.types", "ssl/certs")
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@dataclass(frozen=True)
class Limits:
    """What one notebook's sandbox may use. ``cpu_seconds``: per process (None: the notebook's
    time limit)."""

    memory: int = 2 * GIB
    processes: int = 64
    open_files: int = 256
    file_size: int = 256 * MIB   # the largest file, and the size of each writable folder
    cpu_seconds: int | None = None

    def rlimits(self, timeout: int) -> dict[str, int]:
        """The setrlimit limits ``grade_run`` sets on itself (and so on the kernel) inside."""
        return {"RLIMIT_AS": self.memory, "RLIMIT_NPROC": self.processes, "RLIMIT_NOFILE": self.open_files,
                "RLIMIT_FSIZE": self.file_size, "RLIMIT_CPU": self.cpu_seconds or timeout, "RLIMIT_CORE": 0}

    def describe(self) -> str:
        return (f"memory {_bytes(self.memory)}, {self.processes} processes, {self.open_files} open files, "
                f"files up to {_bytes(self.file_size)}")


def _bytes(n: int) -> str:
    for unit, size in (("GiB", GIB), ("MiB", MIB)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"


def parse_size(text: str) -> int:
    """'2G', '512M', '300k' or a number of bytes (for the command line's limits)."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": MIB, "G": GIB}.get(text[-1:], 1)
    number = float(text[:-1] if scale != 1 else text)
    if number <= 0:
        raise ValueError("a size must be positive")
    return int(number * scale)


# -- can we sandbox here? -------------------------------------------------------------------------

INSTALL_HELP = ("install bubblewrap (Debian/Ubuntu: `sudo apt-get install -y bubblewrap`; Fedora: "
                "`sudo dnf install bubblewrap`; Arch: `sudo pacman -S bubblewrap`), on Linux with user "
                "namespaces enabled; it does not exist for macOS or Windows")


@dataclass(frozen=True)
class Support:
    """Whether notebooks can be sandboxed here, and how."""

    usable: bool
    reason: str                 # why not, when not usable
    bwrap: str | None = None
    version: str = ""
    options: frozenset = frozenset()   # optional bwrap options this version has (--size, --disable-userns)
    cgroup: str | None = None   # "v1" or "v2" when the grader can make a cgroup per sandbox
    root: bool = False

    def enforced(self) -> dict[str, str]:
        """Each limit and how it is enforced (or that it is not)."""
        whole = f"for the whole sandbox (cgroup {self.cgroup})" if self.cgroup else None
        per_process = "per process (setrlimit)"
        processes = whole or ("not enforced: running as root without a cgroup (root ignores RLIMIT_NPROC)"
                              if self.root else "for the sandbox's user (setrlimit)")
        return {"memory": whole + ", and " + per_process if whole else per_process, "processes": processes,
                "open files": per_process, "file size": per_process
                + ("; each writable folder is size-limited" if "--size" in self.options else ""),
                "CPU time": per_process}

    def describe(self) -> str:
        if not self.usable:
            return f"no sandbox: {self.reason}"
        return f"bubblewrap {self.version}" + (f", cgroup {self.cgroup}" if self.cgroup else ", setrlimit only")


def find_bwrap() -> str | None:
    return os.environ.get("GLASSTORCH_BWRAP") or shutil.which("bwrap")


@functools.lru_cache(maxsize=None)
def support() -> Support:
    """Probe once: is bubblewrap here, and can it make a sandbox (user namespaces may be off)?"""
    if not sys.platform.startswith("linux"):
        return Support(False, f"bubblewrap needs Linux (this is {sys.platform})")
    bwrap = find_bwrap()
    if bwrap is None:
        return Support(False, "bubblewrap (`bwrap`) is not installed")
    try:
        help_text = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=30).stdout
        version = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as error:
        return Support(False, f"`{bwrap}` cannot be run ({error})")
    options = frozenset(option for option in ("--size", "--disable-userns", "--die-with-parent")
                        if option in help_text)
    if "--die-with-parent" not in options:
        return Support(False, f"`{bwrap}` is too old (it has no --die-with-parent)")
    found = Support(True, "", bwrap, version.split()[-1] if version.split() else "?", options,
                    Cgroup.kind(), hasattr(os, "geteuid") and os.geteuid() == 0)
    probe = bwrap_command(found, Limits(), notebook=None, package_root=package_root(),
                          command=[python(), "-I", "-S", "-c", "print('sandboxed')"])
    try:
        result = subprocess.run(probe, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                                env=_outer_env())
    except (OSError, subprocess.SubprocessError) as error:
        return Support(False, f"bubblewrap cannot start a sandbox here ({error})", bwrap)
    if result.stdout.strip() != "sandboxed":
        why = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
        return Support(False, f"bubblewrap cannot make a sandbox here ({why[:200]}); in a container, "
                              "user namespaces are often turned off", bwrap)
    return found


def python() -> str:
    """This Python, as a path the sandbox can resolve too (``..`` taken out; links kept: a
    virtual environment's python is a link that finds its environment by where it is)."""
    return os.path.abspath(sys.executable)


def package_root() -> Path:
    """The folder that holds the ``glasstorch`` package this grader runs."""
    return Path(__file__).resolve().parents[2]


# -- the bwrap command ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _python_paths() -> tuple[str, ...]:
    """Where this Python's interpreter, standard library and packages live: what it reads when it
    starts isolated (``-I``), plus its prefixes."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(python()),
             os.path.dirname(os.path.realpath(sys.executable))}
    try:
        found = subprocess.run([python(), "-I", "-c", "import sys, json; print(json.dumps(sys.path))"],
                               capture_output=True, text=True, timeout=60).stdout
        paths.update(p for p in json.loads(found) if isinstance(p, str))
    except (OSError, subprocess.SubprocessError, ValueError):
        paths.update(sys.path)
    real = set()
    for path in filter(None, paths):
        if os.path.isabs(path) and os.path.exists(path):
            real.update({os.path.abspath(path), os.path.realpath(path)})
    for path in list(real):  # a zip on sys.path: its folder need not be visible
        if os.path.isfile(path):
            real.discard(path)
    # the smallest set: drop what an ancestor in the set already shows, and never the whole root
    keep = sorted(p for p in real if p != "/")
    return tuple(p for p in keep if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in keep))


def bwrap_command(support: Support, limits: Limits, *, notebook: Path | None, package_root: Path,
                  command: list[str], hidden: tuple[Path, ...] = ()) -> list[str]:
    """The bwrap command that runs ``command`` in a sandbox; ``notebook`` (the grader's copy) is
    shown read-only at :data:`INSIDE_NOTEBOOK`. Paths in ``hidden`` (the class's folders) are never
    shown, even where they lie inside the Python environment."""
    args = [support.bwrap or "bwrap", "--unshare-all", "--unshare-user", "--uid", str(INSIDE_UID),
            "--gid", str(INSIDE_UID), "--hostname", "grader", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL"]
    if "--disable-userns" in support.options:
        args.append("--disable-userns")  # no namespaces nested inside: less of the kernel to attack
    for path in _SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    size = (lambda: ["--size", str(limits.file_size)]) if "--size" in support.options else list
    args += ["--dev", "/dev", "--proc", "/proc"]
    for folder in ("/tmp", "/dev/shm", INSIDE_HOME, INSIDE_WORKDIR):
        args += [*size(), "--tmpfs", folder]
    # after the private folders: an environment that lives under /tmp is shown over the new /tmp
    hidden_real = [os.path.realpath(p) for p in hidden]
    shown = sorted({*_python_paths(), str(package_root)})
    for path in shown:
        if any(os.path.commonpath([path, h]) in (path, h) for h in hidden_real):
            continue  # it holds, or is inside, a folder of submissions
        args += ["--ro-bind", path, path]
    if notebook is not None:
        args += ["--ro-bind", str(notebook), INSIDE_NOTEBOOK]
    args += ["--remount-ro", "/", "--chdir", INSIDE_WORKDIR, "--clearenv"]
    for key, value in _inside_env(package_root).items():
        args += ["--setenv", key, value]
    return args + ["--", *command]


def _inside_env(package_root: Path) -> dict[str, str]:
    bin_dir = os.path.dirname(python())
    return {
        "PATH": os.pathsep.join(dict.fromkeys([bin_dir, "/usr/local/bin", "/usr/bin", "/bin"])),
        "HOME": INSIDE_HOME, "USER": "grader", "LOGNAME": "grader", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
        "PYTHONPATH": str(package_root),   # the kernel imports this grader's glasstorch
        "PYTHONDONTWRITEBYTECODE": "1",    # the file system is read-only anyway
        "MPLBACKEND": "Agg", "PYDEVD_DISABLE_FILE_VALIDATION": "1", "JUPYTER_PLATFORM_DIRS": "1",
        # one BLAS thread per kernel: notebooks are graded side by side, and threads count as processes
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    }


def _outer_env() -> dict[str, str]:
    """bwrap's own environment (the sandbox gets none of it: --clearenv)."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}


def outer_env() -> dict[str, str]:
    return _outer_env()


# -- cgroups: memory and processes for the whole sandbox -----------------------------------------

_PREFIX = "glasstorch-grade-"
_COUNTER = itertools.count()
_LOCK = threading.Lock()


@dataclass
class Cgroup:
    """One cgroup (per controller, on cgroup v1) holding one sandbox."""

    kind: str
    dirs: dict[str, Path] = field(default_factory=dict)   # controller -> the cgroup's folder

    @staticmethod
    def _places() -> tuple[str | None, dict[str, Path]]:
        """Where this process's cgroups are, per controller (memory, pids), and the version."""
        try:
            own = Path("/proc/self/cgroup").read_text().splitlines()
            mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        except OSError:
            return None, {}
        v1, v2 = {}, None
        for line in mounts:
            fields = line.split()
            if " - " not in line:
                continue
            after = line.split(" - ", 1)[1].split()
            fstype, options = after[0], after[2] if len(after) > 2 else ""
            root, point = fields[3], fields[4].replace("\\040", " ")
            if fstype == "cgroup":
                for controller in ("memory", "pids"):
                    if controller in options.split(","):
                        v1[controller] = (root, point)
            elif fstype == "cgroup2" and v2 is None:
                v2 = (root, point)
        places: dict[str, Path] = {}
        for line in own:
            hierarchy, controllers, path = (line.split(":", 2) + ["", ""])[:3]
            for controller in controllers.split(","):
                if controller in v1:
                    places[controller] = _join(*v1[controller], path)
        if places:
            return "v1", places
        for line in own:
            if line.startswith("0::") and v2 is not None:
                folder = _join(*v2, line[3:])
                try:
                    enabled = (folder / "cgroup.subtree_control").read_text().split()
                except OSError:
                    return None, {}
                if "memory" in enabled and "pids" in enabled:  # (enabling them is the system's call)
                    return "v2", {"memory": folder, "pids": folder}
        return None, {}

    @classmethod
    @functools.lru_cache(maxsize=None)
    def kind(cls) -> str | None:
        """"v1" or "v2" when this process may make cgroups with memory and process limits."""
        probe = cls.create(Limits())
        if probe is None:
            return None
        probe.remove()
        return probe.kind

    @classmethod
    def create(cls, limits: Limits) -> "Cgroup | None":
        kind, places = cls._places()
        if kind is None or not places:
            return None
        with _LOCK:
            name = f"{_PREFIX}{os.getpid()}-{next(_COUNTER)}"
        group = cls(kind)
        try:
            for controller, parent in places.items():
                folder = parent / name
                if folder in group.dirs.values():
                    continue
                _remove_stale(parent)
                folder.mkdir()
                group.dirs[controller] = folder
            if kind == "v1":
                memory, pids = group.dirs.get("memory"), group.dirs.get("pids")
                if memory is None or pids is None:
                    raise OSError("both the memory and the pids controllers are needed")
                (memory / "memory.limit_in_bytes").write_text(str(limits.memory))
                if (memory / "memory.memsw.limit_in_bytes").exists():  # no swapping past the limit
                    (memory / "memory.memsw.limit_in_bytes").write_text(str(limits.memory))
                (pids / "pids.max").write_text(str(limits.processes))
            else:
                folder = group.dirs["memory"]
                (folder / "memory.max").write_text(str(limits.memory))
                if (folder / "memory.swap.max").exists():
                    (folder / "memory.swap.max").write_text("0")
                (folder / "pids.max").write_text(str(limits.processes))
        except OSError:
            group.remove()
            return None
        return group

    def procs_files(self) -> list[str]:
        return sorted({str(folder / "cgroup.procs") for folder in self.dirs.values()})

    def exceeded(self) -> list[str]:
        """The limits that were hit: "memory" (a process was killed for it), "processes" (a fork
        was refused)."""
        hit = []
        memory, pids = self.dirs.get("memory"), self.dirs.get("pids")
        if memory is not None:
            counts = _counters(memory / ("memory.oom_control" if self.kind == "v1" else "memory.events"))
            if counts.get("oom_kill", 0) > 0:
                hit.append("memory")
        if pids is not None and _counters(pids / "pids.events").get("max", 0) > 0:
            hit.append("processes")
        return hit

    def remove(self) -> None:
        for folder in set(self.dirs.values()):
            _rmdir_when_empty(folder)
        self.dirs.clear()

    def wrap(self, command: list[str]) -> list[str]:
        """``command``, started inside this cgroup (joined before it starts, so every process it
        makes is inside too)."""
        join = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
        return ["/bin/sh", "-c", join, "sh", *self.procs_files(), "--", *command]


def _join(root: str, point: str, path: str) -> Path:
    relative = path[len(root):] if root != "/" and path.startswith(root) else path
    return Path(point) / relative.lstrip("/")


def _counters(path: Path) -> dict[str, int]:
    counts = {}
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if value.strip().isdigit():
                counts[key] = int(value)
    except OSError:
        pass
    return counts


def _rmdir_when_empty(folder: Path, tries: int = 50) -> None:
    import time

    for _ in range(tries):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # its last processes are still exiting
            time.sleep(0.05)


def _remove_stale(parent: Path) -> None:
    """Cgroups left by a grader that was killed (empty ones, whose grader is gone)."""
    try:
        entries = list(parent.glob(f"{_PREFIX}*"))
    except OSError:
        return
    for entry in entries:
        pid = entry.name[len(_PREFIX):].split("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            try:
                entry.rmdir()
            except OSError:
                pass
