"""Run a solution or exercise notebook's code in-process, to get at the functions it defines."""
from __future__ import annotations

import contextlib
import functools
import io
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"


@functools.cache
def notebook_namespace(path: Path) -> dict:
    """Execute the notebook's code cells in order in a fresh namespace (silencing what they
    print); a cell that raises, as an exercise's stub does, is skipped and the rest still run."""
    namespace: dict = {"__name__": f"notebook:{path.name}"}
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        code = compile(cell.source, f"{path.name}[cell {index}]", "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(code, namespace)  # noqa: S102 - our own notebooks
            except NotImplementedError:
                pass
    return namespace


def solution_paths() -> list[Path]:
    return sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
