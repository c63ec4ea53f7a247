"""Run one submitted notebook for the grader, in a fresh kernel, and collect what its functions do.

    python -m glasstorch.course.grade_run NOTEBOOK WORKDIR --seed S --cell-timeout T EXERCISE_ID...

The grader starts this in its own process, under a time limit for the whole notebook, so that
nothing a submission does can stall or crash the grader itself. It runs the notebook's code cells
top to bottom (a cell that raises does not stop the others), then one collecting cell per exercise
(``grade_kernel.collect``), and writes ``WORKDIR/run.json``: what happened to every cell. The
observations go to ``WORKDIR/<exercise id>.jsonl``.

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
import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_code_cell

from .grade_kernel import GRADING

MAX_OUTPUT_BYTES = 100_000   # per cell: a grader needs the start of an output, not a flood
PROBE_TIMEOUT = 15           # seconds a timed-out kernel gets to show it listens again
MAX_RUNS = 4                 # runs of one notebook, each without the cells that broke the one before
START_TRIES = 3              # kernels started for one run, when one dies before it answers


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
    """Run the notebook's code cells, then the collecting cells; returns every step's report.
    Keys: ``"cell N"`` (N: the cell's index in the notebook) and ``"exercise ID"``."""
    notebook = nbformat.read(path, as_version=4)
    steps = [(f"cell {i}", cell.source) for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    steps += [(f"exercise {ex_id}", _collector(ex_id, seed, workdir / f"{ex_id}.jsonl")) for ex_id in exercise_ids]
    skip: dict[str, str] = {}
    for _ in range(MAX_RUNS):
        try:
            return _run_started(steps, skip, cwd=path.parent, cell_timeout=cell_timeout)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("notebook", type=Path)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("exercises", nargs="*")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--cell-timeout", type=int, required=True)
    args = parser.parse_args(argv)
    os.environ[GRADING] = "1"
    os.environ.setdefault("MPLBACKEND", "Agg")  # plots are drawn, never shown
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    try:
        report = {"steps": run_notebook(args.notebook.resolve(), args.workdir.resolve(), args.exercises,
                                        seed=args.seed, cell_timeout=args.cell_timeout)}
    except Exception as error:  # noqa: BLE001 - reported to the grader, which carries on with the class
        report = {"fatal": f"{type(error).__name__}: {error}"}
    (args.workdir / "run.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
