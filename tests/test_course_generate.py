"""The generator of exercise notebooks: markers become stubs, outputs are cleared."""
from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from glasstorch.course.generate import MarkerError, exercise_notebook, strip_solutions


def test_a_region_becomes_a_stub_at_the_markers_indentation() -> None:
    source = "def f(x):\n    \"\"\"doc\"\"\"\n    ### BEGIN SOLUTION\n    y = x + 1\n    return y\n    ### END SOLUTION\n"
    assert strip_solutions(source) == (
        "def f(x):\n    \"\"\"doc\"\"\"\n    # YOUR CODE HERE\n"
        "    raise NotImplementedError(\"write this part, then run the check below\")"
    )


def test_code_outside_the_markers_is_kept_and_several_regions_work() -> None:
    source = "a = 1\n### BEGIN SOLUTION\nb = 2\n### END SOLUTION\nc = 3\n  ### BEGIN SOLUTION\n  d\n  ### END SOLUTION"
    lines = strip_solutions(source).splitlines()
    assert lines[0] == "a = 1" and lines[3] == "c = 3" and "b = 2" not in lines and "  d" not in lines
    assert lines[4] == "  # YOUR CODE HERE"


@pytest.mark.parametrize("source, phrase", [
    ("### BEGIN SOLUTION\nx", "never closed"),
    ("x\n### END SOLUTION", "without a ### BEGIN SOLUTION"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside another"),
])
def test_unbalanced_markers_are_a_clear_error(source: str, phrase: str) -> None:
    with pytest.raises(MarkerError, match=phrase):
        strip_solutions(source, "x.ipynb, cell 3")


def test_outputs_are_cleared_and_the_solution_is_untouched() -> None:
    cell = new_code_cell("### BEGIN SOLUTION\nsecret = 42\n### END SOLUTION", execution_count=3,
                         outputs=[nbformat.v4.new_output("stream", text="42\n")])
    solution = new_notebook(cells=[new_markdown_cell("### BEGIN SOLUTION is prose here"), cell])
    exercise = exercise_notebook(solution, "01_x.ipynb")
    assert exercise.cells[1].outputs == [] and exercise.cells[1].execution_count is None
    assert "secret" not in exercise.cells[1].source
    assert exercise.cells[0].source == "### BEGIN SOLUTION is prose here"  # markdown is never touched
    assert "secret = 42" in solution.cells[1].source and solution.cells[1].outputs
    assert exercise.metadata.glasstorch.generated_from == "solutions/01_x.ipynb"
