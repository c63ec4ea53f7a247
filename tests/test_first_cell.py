"""The first code cell of every notebook finds glasstorch, installed or not.

A learner may open a chapter from a fresh clone in a Jupyter that does not have glasstorch
installed (``make lab`` installs it; another JupyterLab does not). The first code cell then puts
the clone's ``package/`` folder on the path, so every later ``import glasstorch`` works.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for folder in ("book", "solutions", "exercises") for p in (ROOT / folder).glob("*.ipynb"))
CELL_ID = "find-glasstorch"

# Make this interpreter unable to import glasstorch, as a Python without it installed would be: drop
# the path entries and the import finder of its (editable) installation.
HIDE_INSTALLED_GLASSTORCH = f"""
import sys
package = {str(ROOT / "package")!r}
sys.path[:] = [p for p in sys.path if p.rstrip("/") != package]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__ + getattr(f, "__name__", "")]
try:
    import glasstorch
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("glasstorch is still importable: the test cannot hide it")
"""


def _first_code_cell(path: Path) -> nbformat.NotebookNode:
    return next(cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_notebook_starts_with_the_cell_that_finds_glasstorch(path: Path) -> None:
    cell = _first_code_cell(path)
    assert cell.get("id") == CELL_ID, f"{path.name}: the first code cell should be the '{CELL_ID}' cell"
    assert cell.source == _first_code_cell(NOTEBOOKS[0]).source, "every notebook has the same cell"
    assert "remove-cell" in cell.metadata.get("tags", []), "the HTML book leaves it out (it is about running)"


@pytest.mark.parametrize("folder", ["book", "solutions", "exercises"])
def test_the_cell_finds_the_clones_package_when_glasstorch_is_not_installed(folder: str) -> None:
    cell = _first_code_cell(sorted((ROOT / folder).glob("*.ipynb"))[0])
    code = HIDE_INSTALLED_GLASSTORCH + cell.source + "\nimport glasstorch\nprint(glasstorch.__file__)\n"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT / folder, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).resolve().is_relative_to(ROOT / "package")
