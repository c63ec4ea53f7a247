# (shared by several cells: the test prepends it) What a notebook can learn of the processes above
# it: their command lines, through /proc.
import os as _os


def _ancestors():
    """(pid, argv) of every process above this kernel that /proc shows."""
    found, pid = [], _os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                pid = int(stat.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv = [arg.decode("utf-8", "replace") for arg in cmdline.read().split(b"\0") if arg]
        except (OSError, ValueError, IndexError):
            break
        found.append((pid, argv))
    return found


def _grader():
    """The grader's pid and command line, if this kernel can see it (its command line names the
    reports: --json FILE ...)."""
    for pid, argv in _ancestors():
        if "--json" in argv and any(MARKER in arg for arg in argv):
            return pid, argv
    return None, []


def _folders_above():
    """Folders named on the command lines above (the class folder, a run's work folder)."""
    folders = []
    for _, argv in _ancestors():
        folders += [arg for arg in argv if MARKER in arg and _os.path.isdir(arg)]
    return folders
