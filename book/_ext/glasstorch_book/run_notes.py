"""A note under the title of every chapter and exercise page: how to run it yourself.

Inserted into the doctree when a page is read, so the notebooks stay as they are and the note
names each page's real notebook file. Chapter pages get "Run this chapter" (JupyterLab with
`make lab`, or the page's download button); exercise pages get "Work on this exercise" (where to
write, the check cells, `make grade`). Each links to its twin (chapter <-> exercises) when it exists.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from .layout import EXERCISE_PAGES, chapter_notebooks, chapter_number, exercise_notebooks, exercise_number


class Note(NamedTuple):
    """The text of a kind of note. Sentences are formatted with {notebook} (the page's notebook
    file), {twin} and {twin_notebook} (the docname and file of the chapter's exercises, or of the
    exercises' chapter); `code` becomes a literal, [[DOCNAME]] a link titled with that page's title."""
    title: str
    sentences: list[str]
    twin_sentence: str  # added when the twin exists
    css_class: str


CHAPTER_NOTE = Note(
    title="Run this chapter",
    sentences=[
        "In JupyterLab: run `make lab` in the repository, open `book/{notebook}` and run its cells "
        "from the top (Run › Run All Cells).",
        "Or download this notebook with the download button at the top of the page (.ipynb) and open "
        "it in any Jupyter where glasstorch is installed.",
    ],
    twin_sentence="Then practise: [[{twin}]], in `exercises/{twin_notebook}`.",
    css_class="glasstorch-run-note",
)
EXERCISE_NOTE = Note(
    title="Work on this exercise",
    sentences=[
        "This page shows `exercises/{notebook}` as you get it, not run: the cells you complete raise "
        "`NotImplementedError` until you write them.",
        "Run `make lab` in the repository and open `exercises/{notebook}`. Write your code where a cell "
        "says `raise NotImplementedError`, run that cell, then run the check cell below it: it tells you "
        "at once whether your code works and, if not, which case failed, what was expected and a hint.",
        "`make grade` scores all your exercise notebooks, as a teacher's grader would.",
    ],
    twin_sentence="The chapter it practises: [[{twin}]], `book/{twin_notebook}`.",
    css_class="glasstorch-exercise-note",
)

_MARKUP = re.compile(r"(`[^`]+`|\[\[[^\]]+\]\])")


def inline(text: str, refdoc: str) -> list[nodes.Node]:
    """Docutils nodes for a note's sentence (see the markup above)."""
    parts: list[nodes.Node] = []
    for piece in _MARKUP.split(text):
        if piece.startswith("`"):
            parts.append(nodes.literal(piece[1:-1], piece[1:-1]))
        elif piece.startswith("[["):
            # resolved later by Sphinx: the link text becomes the target page's title
            parts.append(addnodes.pending_xref("", nodes.inline(), refdomain="std", reftype="doc",
                                               reftarget="/" + piece[2:-2], refexplicit=False,
                                               refdoc=refdoc, refwarn=True))
        elif piece:
            parts.append(nodes.Text(piece))
    return parts


def twin(number: str, notebooks: list[Path]) -> Path | None:
    """The notebook with this chapter number, if there is one."""
    return next((notebook for notebook in notebooks if notebook.name.startswith(number + "_")), None)


def note_for(docname: str) -> nodes.admonition | None:
    """The note of a chapter or exercise page; None for other pages."""
    if number := chapter_number(docname):
        kind, other, other_docname = CHAPTER_NOTE, twin(number, exercise_notebooks()), f"{EXERCISE_PAGES}/{{}}"
    elif number := exercise_number(docname):
        kind, other, other_docname = EXERCISE_NOTE, twin(number, chapter_notebooks()), "{}"
    else:
        return None
    sentences = kind.sentences + ([kind.twin_sentence] if other else [])
    names = {
        "notebook": docname.rsplit("/", 1)[-1] + ".ipynb",
        "twin": other_docname.format(other.stem) if other else "",
        "twin_notebook": other.name if other else "",
    }
    admonition = nodes.admonition(classes=["tip", "glasstorch-note", kind.css_class])
    admonition += nodes.title(kind.title, kind.title)
    for sentence in sentences:
        admonition += nodes.paragraph("", "", *inline(sentence.format(**names), docname))
    return admonition


def insert_note(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read: put the page's note right under its title."""
    admonition = note_for(app.env.docname)
    section = doctree.next_node(nodes.section)
    if admonition is None or section is None:
        return
    below_title = 1 if section.children and isinstance(section[0], nodes.title) else 0
    section.insert(below_title, admonition)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", insert_note)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
