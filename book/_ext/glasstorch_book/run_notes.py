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

# The same notes in the Chinese edition (-D language=zh_CN), for the notebooks make lab-zh makes.
CHAPTER_NOTE_ZH = Note(
    title="运行本章",
    sentences=[
        "在 JupyterLab 中：在仓库中运行 `make lab-zh`，打开 `zh_CN/book/{notebook}`，从头依次运行各单元格"
        "（Run › Run All Cells）。",
        "也可以用页面顶部的下载按钮下载这个笔记本（.ipynb），在任何装有 glasstorch 的 Jupyter 中打开。",
    ],
    twin_sentence="然后练习：[[{twin}]]，即 `zh_CN/exercises/{twin_notebook}`。",
    css_class="glasstorch-run-note",
)
EXERCISE_NOTE_ZH = Note(
    title="完成本练习",
    sentences=[
        "本页展示你拿到的 `zh_CN/exercises/{notebook}`，未运行：需要你补全的单元格在写好之前会抛出 "
        "`NotImplementedError`。",
        "在仓库中运行 `make lab-zh`，打开 `zh_CN/exercises/{notebook}`。在写着 `raise NotImplementedError` 的"
        "单元格里写你的代码，运行它，再运行下方的检查单元格：它会立刻告诉你代码是否正确；若不正确，会指出哪个用例"
        "失败、期望什么、实际得到什么，并给出提示。",
        "`make grade GRADE=zh_CN/exercises GRADE_ARGS=\"--language zh_CN\"` 为你所有的练习笔记本评分，"
        "就像老师的评分程序一样。",
    ],
    twin_sentence="它练习的章节：[[{twin}]]，即 `zh_CN/book/{twin_notebook}`。",
    css_class="glasstorch-exercise-note",
)
NOTES = {"en": (CHAPTER_NOTE, EXERCISE_NOTE), "zh_CN": (CHAPTER_NOTE_ZH, EXERCISE_NOTE_ZH)}

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


def note_for(docname: str, language: str = "en") -> nodes.admonition | None:
    """The note of a chapter or exercise page, in the edition's language; None for other pages."""
    chapter_note, exercise_note = NOTES.get(language, NOTES["en"])
    if number := chapter_number(docname):
        kind, other, other_docname = chapter_note, twin(number, exercise_notebooks()), f"{EXERCISE_PAGES}/{{}}"
    elif number := exercise_number(docname):
        kind, other, other_docname = exercise_note, twin(number, chapter_notebooks()), "{}"
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
    admonition = note_for(app.env.docname, app.config.language or "en")
    section = doctree.next_node(nodes.section)
    if admonition is None or section is None:
        return
    below_title = 1 if section.children and isinstance(section[0], nodes.title) else 0
    section.insert(below_title, admonition)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", insert_note)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
