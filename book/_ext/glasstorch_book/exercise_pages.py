"""The exercise notebooks as pages of the book, shown as the learner gets them (not executed).

Sphinx reads only files under book/, and the exercises live in exercises/ (generated from
solutions/). So at every build, before Sphinx looks for documents, each exercises/NN_*.ipynb is
copied to book/_exercises/, with one change: notebook metadata that turns myst-nb's execution off
for that file, because the stubs raise NotImplementedError until a learner writes them. When the
build ends the folder goes again, so that a learner never finds (and starts working in) a second
copy of the exercises next to the chapters in JupyterLab. (Should a build be killed before that,
the folder is git-ignored and in pytest's norecursedirs: nbval never runs the stubs.)
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

from .layout import EXERCISE_PAGES, exercise_notebooks

logger = logging.getLogger(__name__)

def page_text(notebook: Path) -> str:
    """The exercise notebook, with myst-nb told (file-level config) never to execute it."""
    content = json.loads(notebook.read_text(encoding="utf-8"))
    content.setdefault("metadata", {}).setdefault("mystnb", {})["execution_mode"] = "off"
    return json.dumps(content, indent=1, ensure_ascii=False) + "\n"


def write_exercise_pages(app: Sphinx) -> None:
    """builder-inited: make book/_exercises/ hold exactly the current exercises."""
    folder = Path(app.srcdir) / EXERCISE_PAGES
    folder.mkdir(exist_ok=True)
    wanted = {notebook.name: page_text(notebook) for notebook in exercise_notebooks()}
    for stale in folder.iterdir():
        if stale.is_file() and stale.name not in wanted:
            stale.unlink()
    for name, text in wanted.items():
        page = folder / name
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
    logger.info(f"[glasstorch] {len(wanted)} exercise pages in book/{EXERCISE_PAGES}/")


def remove_exercise_pages(app: Sphinx, exception: Exception | None) -> None:
    """build-finished: the copies have been read; remove them (see the module's docstring)."""
    shutil.rmtree(Path(app.srcdir) / EXERCISE_PAGES, ignore_errors=True)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", write_exercise_pages)
    app.connect("build-finished", remove_exercise_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
