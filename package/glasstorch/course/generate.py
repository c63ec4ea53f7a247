"""Write the learners' exercise notebooks from the solution notebooks (``make exercises``).

    python -m glasstorch.course.generate solutions/ exercises/

In a solution notebook's code cells, the lines between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (nbgrader's markers, familiar to teachers) are the learner's part. The
exercise notebook replaces each such region with a stub, at the marker's indentation::

    # YOUR CODE HERE
    raise NotImplementedError("write this part, then run the check below")

and clears every output, so the learner starts from a clean page. Nothing else changes: the
solution notebook is the single source, and a test fails when ``exercises/`` is out of date.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = ("# YOUR CODE HERE", 'raise NotImplementedError("write this part, then run the check below")')


class MarkerError(ValueError):
    """The solution markers of a cell do not pair up."""


def strip_solutions(source: str, where: str = "a cell") -> str:
    """``source`` with every marked solution region replaced by the stub."""
    out: list[str] = []
    inside = False
    for number, line in enumerate(source.splitlines(), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise MarkerError(f"{where}, line {number}: {BEGIN} inside another solution region")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + stub for stub in STUB)
        elif marker == END:
            if not inside:
                raise MarkerError(f"{where}, line {number}: {END} without a {BEGIN} before it")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise MarkerError(f"{where}: {BEGIN} is never closed by {END}")
    return "\n".join(out)


def exercise_notebook(solution: nbformat.NotebookNode, source_name: str) -> nbformat.NotebookNode:
    """The learner's notebook made from a solution notebook (which is left unchanged)."""
    notebook = nbformat.from_dict(solution)  # a deep copy
    for index, cell in enumerate(notebook.cells):
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.source = strip_solutions(cell.source, f"{source_name}, cell {index}")
        cell.outputs = []
        cell.execution_count = None
    notebook.metadata.setdefault("glasstorch", nbformat.NotebookNode())["generated_from"] = f"solutions/{source_name}"
    return notebook


def generate(solutions: Path, exercises: Path) -> list[Path]:
    """Write ``exercises/NN_topic.ipynb`` for every ``solutions/NN_topic.ipynb``; returns them."""
    exercises.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(solutions.glob("[0-9][0-9]_*.ipynb")):
        notebook = exercise_notebook(nbformat.read(path, as_version=4), path.name)
        target = exercises / path.name
        nbformat.write(notebook, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write exercise notebooks from solution notebooks.")
    parser.add_argument("solutions", type=Path, nargs="?", default=Path("solutions"))
    parser.add_argument("exercises", type=Path, nargs="?", default=Path("exercises"))
    args = parser.parse_args(argv)
    try:
        written = generate(args.solutions, args.exercises)
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
