"""Where things are: the repository's folders and the book's names for its pages.

Sphinx only reads files under book/, and names a page by its path without suffix (its docname):
chapter "04_computational_graph", exercise "_exercises/05_backward_engine".
"""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
BOOK = REPO / "book"
EXERCISES = REPO / "exercises"
PACKAGE = REPO / "package"

# The generated folder of exercise pages, under book/ (git-ignored, rewritten at every build).
EXERCISE_PAGES = "_exercises"

NUMBERED = "[0-9][0-9]_*.ipynb"  # chapters and exercises: 00_welcome.ipynb, 05_backward_engine.ipynb
_CHAPTER_DOC = re.compile(r"^(\d\d)_[^/]+$")
_EXERCISE_DOC = re.compile(rf"^{EXERCISE_PAGES}/(\d\d)_[^/]+$")


def chapter_notebooks() -> list[Path]:
    """book/NN_*.ipynb in reading order."""
    return sorted(BOOK.glob(NUMBERED))


def exercise_notebooks() -> list[Path]:
    """exercises/NN_*.ipynb in chapter order."""
    return sorted(EXERCISES.glob(NUMBERED))


def chapter_number(docname: str) -> str | None:
    """"04" for the chapter page "04_computational_graph", else None."""
    match = _CHAPTER_DOC.match(docname)
    return match.group(1) if match else None


def exercise_number(docname: str) -> str | None:
    """"05" for the exercise page "_exercises/05_backward_engine", else None."""
    match = _EXERCISE_DOC.match(docname)
    return match.group(1) if match else None
