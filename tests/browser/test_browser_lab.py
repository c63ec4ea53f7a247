"""The course in JupyterLab, driven through headless Chromium: a chapter runs top to bottom with
the project's kernel and draws its graph; an exercise typed in through the page passes its check.

The notebooks are copies, outputs cleared, in a temporary folder the Lab server serves.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
import pytest

from browser_env import ROOT, TIMEOUT_MS, artifact_path
from lab_page import LabNotebook, copy_without_outputs, error_outputs
from lab_server import LabServer

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

pytestmark = pytest.mark.browser

CHAPTER = next(ROOT.glob("book/04_*.ipynb"))
EXERCISES = next(ROOT.glob("exercises/05_*.ipynb"))
SOLUTIONS = ROOT / "solutions" / EXERCISES.name
CHECK_CALL = re.compile(r"""^\s*check\(\s*["']([^"']+)["']""")
# JupyterLab 4 shows an SVG output as an <img> of a data: URL (older versions inlined the <svg>).
RENDERED_SVG = ".jp-RenderedSVG img, .jp-RenderedSVG svg"
IS_A_DRAWN_GRAPH = """element => {
    const svg = element.tagName === 'IMG' ? decodeURIComponent(element.src) : element.outerHTML;
    const drawn = element.tagName !== 'IMG' || (element.complete && element.naturalWidth > 0);
    return drawn && svg.includes('<svg') && svg.includes('class="graph"');  // Graphviz's top group
}"""
STDERR_ON_PAGE = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"


def open_notebook(context: "BrowserContext", lab: LabServer, lab_root: Path, notebook: Path) -> LabNotebook:
    """Open ``notebook`` (a file under the server's root folder) in a new tab of ``context``."""
    page = context.new_page()
    opened = LabNotebook(page, lab, notebook.relative_to(lab_root).as_posix())
    opened.open()
    return opened


def test_chapter_02_runs_in_lab_and_draws_its_graph(lab, lab_root, lab_context):
    from playwright.sync_api import expect

    notebook = open_notebook(lab_context, lab, lab_root, copy_without_outputs(CHAPTER, lab_root / "book"))
    notebook.run("notebook:run-all-cells")
    notebook.wait_until_idle()

    cells = notebook.cells()
    errors = error_outputs(cells)
    assert not errors, f"{CHAPTER.name} in JupyterLab:\n" + "\n".join(errors)
    unrun = [index for index, cell in enumerate(cells) if cell["type"] == "code" and cell["executionCount"] is None]
    assert not unrun, f"{CHAPTER.name}: cells {unrun} did not run"
    shown = notebook.page.locator(STDERR_ON_PAGE)
    assert shown.count() == 0, f"error output on the page: {shown.all_inner_texts()}"

    graph = notebook.page.locator(RENDERED_SVG).first
    graph.scroll_into_view_if_needed()
    expect(graph).to_be_visible(timeout=TIMEOUT_MS)
    assert graph.evaluate(IS_A_DRAWN_GRAPH), "the first SVG output is not a drawn Graphviz graph"
    box = graph.bounding_box()
    assert box and box["width"] > 50 and box["height"] > 50, f"the graph is drawn at {box}"
    notebook.screenshot(artifact_path("lab_04_computational_graph.png"), centre=graph)


def first_exercise(exercises: nbformat.NotebookNode) -> "tuple[int, int, str]":
    """(the exercise's cell, its check cell, the exercise id) of the notebook's first exercise."""
    for index, cell in enumerate(exercises.cells):
        if cell.cell_type == "code" and "raise NotImplementedError" in cell.source:
            check = next(i for i in range(index + 1, len(exercises.cells)) if exercises.cells[i].cell_type == "code")
            match = CHECK_CALL.match(exercises.cells[check].source)
            assert match, f"{EXERCISES.name}: cell {check} after exercise cell {index} is not a check(...) cell"
            return index, check, match.group(1)
    raise AssertionError(f"{EXERCISES.name} has no exercise cell")


def pass_message(exercise_id: str) -> str:
    """What the check cell prints when every case passes (glasstorch's own answer passes them all)."""
    from glasstorch.course.checking import get_exercise, run_check

    verdict = run_check(exercise_id, get_exercise(exercise_id).reference)
    assert verdict.passed, f"the reference of {exercise_id} fails its own check: {verdict}"
    return str(verdict)


def test_exercise_filled_through_the_page_passes_its_check(lab, lab_root, lab_context):
    from playwright.sync_api import expect

    exercises = nbformat.read(EXERCISES, as_version=4)
    cell, check, exercise_id = first_exercise(exercises)
    # solutions/ is the single source of exercises/: the cells correspond one to one
    solution = nbformat.read(SOLUTIONS, as_version=4).cells[cell].source
    assert "### BEGIN SOLUTION" in solution, f"{SOLUTIONS.name}, cell {cell} is not the solution of {exercise_id}"

    notebook = open_notebook(lab_context, lab, lab_root, copy_without_outputs(EXERCISES, lab_root / "exercises"))
    notebook.type_into(cell, solution)
    assert notebook.cells()[cell]["source"] == solution, "the cell does not hold exactly what was typed"

    code_cells_up_to_check = [i for i in range(check + 1) if exercises.cells[i].cell_type == "code"]
    for index in code_cells_up_to_check:  # the imports, the exercise, its check
        notebook.run("notebook:run-cell", index)

    expected = pass_message(exercise_id)
    expect(notebook.cell(check).locator(".jp-OutputArea-output")).to_contain_text(expected, timeout=TIMEOUT_MS)
    errors = error_outputs(notebook.cells())
    assert not errors, f"{EXERCISES.name} in JupyterLab:\n" + "\n".join(errors)
    notebook.screenshot(artifact_path(f"lab_exercise_{exercise_id}.png"), centre=notebook.cell(check))
