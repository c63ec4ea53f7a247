"""Run one submitted notebook for the grader, in a fresh kernel, and collect what its functions do.

    python -I -c BOOT PACKAGE_ROOT --answer-fd N   < job (JSON: notebook, workdir, exercises, seed, ...)

The grader starts this in its own process (on Linux inside the notebook's sandbox, see
``grade_sandbox``), under a time limit for the whole notebook, so that nothing a submission does can
stall or crash the grader itself. It runs the notebook's code cells top to bottom (a cell that
raises does not stop the others), in a kernel whose current directory is the work directory, then
one collecting cell per exercise (``grade_kernel.collect``, which writes the observations to
``WORKDIR/<exercise id>.jsonl``). Its answer goes to the grader on the pipe ``--answer-fd``, never
through a file: what happened to every cell, and each exercise's observation lines, read back with
``grade_files.read_untrusted`` (no link followed, regular files only, size-capped).

The job comes on stdin, not the command line, which every process can read: the seed stays unknown
to the submission until its functions are called. Before the kernel starts, this process makes
itself non-dumpable (the kernel, though it runs as the same user, can then neither read its memory
and files through /proc nor write to its pipe) and sets the sandbox's setrlimit limits, which the
kernel inherits.

What it survives: a cell that raises or calls ``sys.exit``; a cell that runs past the time limit
(interrupted; if it ignores the interrupt, the kernel is restarted and the notebook run again
without that cell); a cell that kills the kernel (run again without it); floods of output (kept
to the first ``MAX_OUTPUT_BYTES`` per cell); a kernel that dies before it answers (started
again: kernels started at the same moment, as ``glasstorch-grade -j 4`` starts them, can be given the
same free port, and then one of them dies).
"""
from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_code_cell

from .grade_files import Refused, read_untrusted
from .grade_kernel import GRADING, MAX_OBSERVATION_BYTES

MAX_OUTPUT_BYTES = 100_000   # per cell: a grader needs the start of an output, not a flood
PROBE_TIMEOUT = 15           # seconds a timed-out kernel gets to show it listens again
MAX_RUNS = 4                 # runs of one notebook, each without the cells that broke the one before
START_TRIES = 3              # kernels started for one run, when one dies before it answers
MAX_JOB_BYTES = 1_000_000


class _KernelStuck(Exception):
    """The step ``key`` killed the kernel, or ran on after its time limit and an interrupt."""

    def __init__(self, key: str) -> None:
        self.key = key


class _KernelDidNotStart(Exception):
    """The kernel died, or did not answer, before the first cell: nothing of the notebook ran."""


class _GradingClient(NotebookClient):
    """nbclient's runner, keeping only the start of each cell's output and noting timeouts."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timed_out: set[int] = set()
        self._output_bytes: dict[int, int] = {}

    async def _async_handle_timeout(self, timeout: int, cell: Any = None) -> Any:
        if cell is not None:
            self.timed_out.add(id(cell))
        return await super()._async_handle_timeout(timeout, cell)

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int) -> Any:
        size = len(json.dumps(msg.get("content", {})))
        used = self._output_bytes.get(cell_index, 0)
        self._output_bytes[cell_index] = used + size
        if used + size > MAX_OUTPUT_BYTES:
            return None  # dropped: the report says the output was cut
        return super().output(outs, msg, display_id, cell_index)

    def truncated(self, cell_index: int) -> bool:
        return self._output_bytes.get(cell_index, 0) > MAX_OUTPUT_BYTES


def _prelude() -> str:
    # bound before any submitted code runs
    return "from glasstorch.course.grade_kernel import collect as __glasstorch_collect__"


def _collector(exercise_id: str, seed: int, path: Path) -> str:
    return f"__glasstorch_collect__({exercise_id!r}, {seed}, {str(path)!r}, globals())"


def _step_report(cell: Any, client: _GradingClient, position: int) -> dict:
    errors = [f"{out.get('ename')}: {out.get('evalue')}" for out in cell.get("outputs", []) if out.output_type == "error"]
    status = "timed out" if id(cell) in client.timed_out else "error" if errors else "ok"
    report = {"status": status, "error": errors[0] if errors else None}
    if client.truncated(position):
        report["output_truncated"] = True
    return report


async def _run_once(steps: list[tuple[str, str]], skip: dict[str, str], *, cwd: Path, cell_timeout: int) -> dict:
    """One run of ``steps`` (key, source) in a fresh kernel, after the prelude; the steps in
    ``skip`` are left out. Returns a report for every step, by key."""
    cells = [new_code_cell(_prelude())] + [new_code_cell("" if key in skip else source) for key, source in steps]
    notebook = nbformat.v4.new_notebook(cells=cells)
    client = _GradingClient(
        notebook, timeout=cell_timeout, kernel_name="python3", allow_errors=True, interrupt_on_timeout=True,
        error_on_timeout={"ename": "TimeoutError", "evalue": f"the cell ran longer than {cell_timeout} s", "traceback": []},
        record_timing=False, resources={"metadata": {"path": str(cwd)}},
    )
    reports: dict = {}
    started = False
    try:
        async with client.async_setup_kernel():
            started = True
            await _run_cells(client, cells, steps, skip, reports)
    except Exception as error:
        if started:
            raise
        atexit.unregister(client._cleanup_kernel)  # nbclient's, for a kernel it has already cleaned up
        raise _KernelDidNotStart(f"{type(error).__name__}: {error}") from None
    return reports


async def _run_cells(client: _GradingClient, cells: list, steps: list[tuple[str, str]], skip: dict[str, str],
                     reports: dict) -> None:
    for position, cell in enumerate(cells):
        key = steps[position - 1][0] if position else "prelude"
        if key in skip:
            reports[key] = {"status": "skipped", "error": skip[key]}
            continue
        try:
            await client.async_execute_cell(cell, position)
        except DeadKernelError:
            raise _KernelStuck(key) from None
        reports[key] = _step_report(cell, client, position)
        if id(cell) in client.timed_out:
            await _probe(client, key, position)


async def _probe(client: _GradingClient, key: str, position: int) -> None:
    """After a timeout: does the kernel answer again? If the interrupt was ignored, it does not."""
    probe, timed_out_cell = new_code_cell("pass"), client.nb.cells[position]
    saved, client.timeout = client.timeout, PROBE_TIMEOUT
    try:
        await client.async_execute_cell(probe, position)  # (nbclient stores it at that position)
    finally:
        client.timeout = saved
        client.nb.cells[position] = timed_out_cell
    if id(probe) in client.timed_out:
        raise _KernelStuck(key)


def run_notebook(path: Path, workdir: Path, exercise_ids: list[str], *, seed: int, cell_timeout: int) -> dict:
    """Run the notebook's code cells, then the collecting cells, in a kernel whose current
    directory is ``workdir``; returns every step's report.
    Keys: ``"cell N"`` (N: the cell's index in the notebook) and ``"exercise ID"``."""
    notebook = nbformat.read(path, as_version=4)
    steps = [(f"cell {i}", cell.source) for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    steps += [(f"exercise {ex_id}", _collector(ex_id, seed, workdir / f"{ex_id}.jsonl")) for ex_id in exercise_ids]
    skip: dict[str, str] = {}
    for _ in range(MAX_RUNS):
        try:
            return _run_started(steps, skip, cwd=workdir, cell_timeout=cell_timeout)
        except _KernelStuck as stuck:
            if stuck.key == "prelude":
                raise RuntimeError("the grading kernel could not start glasstorch") from None
            skip[stuck.key] = "killed the kernel, or ignored the time limit (left out of a second run)"
    raise RuntimeError(f"gave up after {MAX_RUNS} runs of the notebook")


def _run_started(steps: list[tuple[str, str]], skip: dict[str, str], *, cwd: Path, cell_timeout: int) -> dict:
    """``_run_once``, in a new kernel when one dies before the first cell (up to START_TRIES)."""
    failure = None
    for _ in range(START_TRIES):
        try:
            return asyncio.run(_run_once(steps, skip, cwd=cwd, cell_timeout=cell_timeout))
        except _KernelDidNotStart as error:
            failure = error
    raise RuntimeError(f"the kernel did not start ({START_TRIES} tries): {failure}")


def read_observations(workdir: Path, exercise_ids: list[str]) -> dict:
    """Each exercise's observation lines, as text, or the reason they cannot be read. The kernel
    wrote these files: they are read without following links, regular files only, size-capped."""
    found: dict = {}
    for ex_id in exercise_ids:
        path = workdir / f"{ex_id}.jsonl"
        if not os.path.lexists(path):
            found[ex_id] = {"lines": []}
            continue
        try:
            text = read_untrusted(path, MAX_OBSERVATION_BYTES + 4096).decode("utf-8")
        except Refused as refused:
            found[ex_id] = {"problem": f"its observations of {ex_id} could not be read: {refused}"}
        except UnicodeDecodeError:
            found[ex_id] = {"problem": f"its observations of {ex_id} are not UTF-8 text"}
        else:
            lines = text.split("\n")
            # the last line is complete only when the file ends with a newline: a case cut short by
            # a time limit leaves a partial line, which is dropped (not an observation, not forged)
            found[ex_id] = {"lines": lines[:-1]}
    return found


def _answer(job: dict) -> dict:
    workdir = Path(job["workdir"])
    exercises = [str(ex_id) for ex_id in job["exercises"]]
    for ex_id in exercises:  # nothing of a file that was there before the run counts
        with contextlib.suppress(OSError):
            (workdir / f"{ex_id}.jsonl").unlink()
    steps = run_notebook(Path(job["notebook"]), workdir, exercises,
                         seed=int(job["seed"]), cell_timeout=int(job["cell_timeout"]))
    return {"steps": steps, "observations": read_observations(workdir, exercises)}


def _not_dumpable() -> None:
    """The kernel runs as this process's user: without this it could open /proc/<this>/fd/N (the
    answer pipe), /proc/<this>/environ or /proc/<this>/mem, or ptrace this process. (A process with
    capabilities ignores it: a kernel run as root with ``--no-sandbox``; in the sandbox none has any.)"""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_DUMPABLE = 4
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def _set_limits(rlimits: dict) -> None:
    import resource

    for name, value in rlimits.items():
        limit = getattr(resource, str(name), None)
        if limit is None:
            continue
        with contextlib.suppress(ValueError, OSError):  # (a limit above the hard one stays the hard one)
            soft, hard = resource.getrlimit(limit)
            value = int(value) if hard == resource.RLIM_INFINITY else min(int(value), hard)
            resource.setrlimit(limit, (value, value))


def _send(fd: int, answer: dict) -> None:
    data = json.dumps(answer, ensure_ascii=True).encode("ascii")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answer-fd", type=int, required=True)
    args = parser.parse_args(argv)
    _not_dumpable()
    os.set_inheritable(args.answer_fd, False)  # the kernel must not have the grader's pipe
    job = json.loads(sys.stdin.buffer.read(MAX_JOB_BYTES))
    sys.stdin.close()
    os.environ[GRADING] = "1"
    os.environ.setdefault("MPLBACKEND", "Agg")  # plots are drawn, never shown
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    _set_limits(job.get("rlimits") or {})
    try:
        answer = _answer(job)
    except Exception as error:  # noqa: BLE001 - reported to the grader, which carries on with the class
        answer = {"fatal": f"{type(error).__name__}: {error}"}
    _send(args.answer_fd, answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
