"""Links between a chapter and its exercises: written for JupyterLab, rewritten for the book.

In the repository a chapter (book/05_backward_engine.ipynb) links its exercises as
``../exercises/05_backward_engine.ipynb`` and the exercise notebook links back as
``../book/05_backward_engine.ipynb``: that is what JupyterLab opens. In the book the exercises are
pages under book/_exercises/ (see ``exercise_pages``), so before a page is parsed its links are
pointed there: ``_exercises/05_...`` from a chapter, ``../05_...`` from an exercise page.
"""
from __future__ import annotations

from sphinx.application import Sphinx

from .layout import chapter_number, exercise_number

FROM_CHAPTER = ("](../exercises/", "](_exercises/")
FROM_EXERCISES = ("](../book/", "](../")


def book_links(docname: str, text: str) -> str:
    """``text`` (a page's source) with its chapter<->exercises links as the book needs them."""
    if chapter_number(docname) is not None:
        return text.replace(*FROM_CHAPTER)
    if exercise_number(docname) is not None:
        return text.replace(*FROM_EXERCISES)
    return text


def rewrite_links(app: Sphinx, docname: str, source: list[str]) -> None:
    """source-read: the page's text, as the parser (myst-nb) will read it."""
    source[0] = book_links(docname, source[0])


def setup(app: Sphinx) -> dict:
    app.connect("source-read", rewrite_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
