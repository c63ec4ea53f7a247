"""The package's source in the book: a page per file, and links to it from ``show_source``.

Chapters print source with ``glasstorch.course.show_source``, whose output starts with a header
line ``# glasstorch/<path>.py  (PyTorch: <file>)``. This extension

* writes a page for every file of package/glasstorch, highlighted with line numbers and an
  anchor per line (``#L-12``), at ``package/glasstorch/<path>.py.html`` (the repository's path);
* turns each header in a chapter's output into a link to that page, at the line where the shown
  source starts in the file (found by matching the printed lines), so a reader lands on it.

Only the HTML is changed, after it is written: the notebooks and their outputs stay as they are.
A header naming a file that does not exist is a build warning (an error under -W).
"""
from __future__ import annotations

import html
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

from .layout import PACKAGE

logger = logging.getLogger(__name__)

PAGES = "package"  # the pages' folder in the built site, as the files' folder in the repository
LINE_ANCHOR = "L"  # Pygments wraps line 12 in <span id="L-12">: a link can target (and CSS mark) it

# A stream output block as myst-nb writes it (text from print), and a show_source header inside.
STREAM_BLOCK = re.compile(r'(<div class="output stream[^"]*"><div class="highlight"><pre>)(.*?)(</pre>)', re.DOTALL)
HEADER = re.compile(r"^((?:<span></span>)?# )(glasstorch/[\w/]+\.py)(?=  \(PyTorch: |$)", re.MULTILINE)


def package_files() -> list[Path]:
    """Every .py file of package/glasstorch, by path."""
    root = PACKAGE / "glasstorch"
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def pagename(shown_path: str) -> str:
    """"glasstorch/autograd/engine.py" -> "package/glasstorch/autograd/engine.py"."""
    return f"{PAGES}/{shown_path}"


@lru_cache(maxsize=None)
def source_lines(shown_path: str) -> "tuple[str, ...] | None":
    path = PACKAGE / shown_path
    return tuple(path.read_text(encoding="utf-8").splitlines()) if path.is_file() else None


def first_line(file_lines: "tuple[str, ...]", shown: "list[str]") -> int | None:
    """The 1-based line where ``shown`` starts in the file: the candidates matching its first
    line, narrowed by each next line while several remain (a file holds many ``def forward``)."""
    if not shown:
        return None
    candidates = [i for i, line in enumerate(file_lines) if line == shown[0]]
    for offset, line in enumerate(shown[1:], start=1):
        if len(candidates) <= 1:
            break
        narrowed = [i for i in candidates if i + offset < len(file_lines) and file_lines[i + offset] == line]
        if not narrowed:  # the output goes on with something else than the source
            break
        candidates = narrowed
    return candidates[0] + 1 if candidates else None


def link_headers(pre: str, page: str, app: Sphinx) -> str:
    """The HTML of one output block with each show_source header linked to its source page."""
    headers = list(HEADER.finditer(pre))
    pieces, start = [], 0
    for index, header in enumerate(headers):
        shown_path = header.group(2)
        lines = source_lines(shown_path)
        pieces.append(pre[start:header.start()])
        start = header.end()
        if lines is None:
            logger.warning(f"show_source names {shown_path}, which is not a file of package/", location=page)
            pieces.append(header.group(0))
            continue
        # The printed source: from the line after the header up to the next header.
        end = headers[index + 1].start() if index + 1 < len(headers) else len(pre)
        printed = html.unescape(re.sub(r"<[^>]+>", "", pre[header.end():end])).split("\n")[1:]
        line = first_line(lines, printed)
        href = app.builder.get_relative_uri(page, pagename(shown_path))
        if line is not None:
            href += f"#{LINE_ANCHOR}-{line}"
        pieces.append(f'{header.group(1)}<a class="reference internal glasstorch-source-link" href="{href}" '
                      f'title="the whole file, at this source">{shown_path}</a>')
    pieces.append(pre[start:])
    return "".join(pieces)


def link_source_headers(app: Sphinx, page: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context: link the show_source headers of a book page's outputs."""
    if doctree is None or "body" not in context:
        return
    context["body"] = STREAM_BLOCK.sub(
        lambda block: block.group(1) + link_headers(block.group(2), page, app) + block.group(3),
        context["body"],
    )


def source_page(app: Sphinx, path: Path) -> "tuple[str, dict, str]":
    shown_path = path.relative_to(PACKAGE).as_posix()
    code = app.builder.highlighter.highlight_block(
        path.read_text(encoding="utf-8"), "python", linenos="inline", linespans=LINE_ANCHOR,
    )
    body = (
        f'<h1>{shown_path}</h1>\n'
        f'<p class="glasstorch-source-intro">The file <code class="docutils literal notranslate">'
        f'package/{shown_path}</code> of the glasstorch repository, as this book was built from it.</p>\n'
        f'<div class="highlight-python notranslate glasstorch-source">{code}</div>\n'
    )
    return pagename(shown_path), {"title": shown_path, "body": body}, "page.html"


def source_pages(app: Sphinx) -> Iterator["tuple[str, dict, str]"]:
    """html-collect-pages: a page per package file."""
    if app.builder.format != "html":
        return
    for path in package_files():
        yield source_page(app, path)


def setup(app: Sphinx) -> dict:
    app.connect("html-collect-pages", source_pages)
    app.connect("html-page-context", link_source_headers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
