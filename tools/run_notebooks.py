"""Execute notebooks in place, deterministically, with the package on the path.

    python tools/run_notebooks.py book/02_*.ipynb

Runs each notebook top to bottom in a fresh kernel of the current interpreter (working directory:
the notebook's folder), stores the outputs, numbers the cells 1, 2, 3 ..., and keeps the
kernelspec ``glasstorch``. Stops with an error if a cell fails (unless it is tagged
``raises-exception``). This is how chapters are committed "executed" for nbval.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
KERNELSPEC = {"name": "glasstorch", "display_name": "Python (glasstorch)", "language": "python"}


def run(path: Path, timeout: int = 600) -> None:
    notebook = nbformat.read(path, as_version=4)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "package"), os.environ.get("PYTHONPATH")]))
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # a debugger warning would pollute stderr
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    notebook.metadata["kernelspec"] = KERNELSPEC
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timestamps: they would change on every run
        if cell.cell_type == "code":
            cell.outputs = _merged_streams(cell.outputs)
    nbformat.write(notebook, path)


def _merged_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks: how the kernel happened to split a cell's
    printing changes from run to run, and would make every re-run a diff."""
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.output_type == "stream" and previous is not None and previous.output_type == "stream"
                and previous.name == output.name):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"running {name}", flush=True)
        run(Path(name))
