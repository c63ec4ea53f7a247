"""The book in two languages: a link on every page to the same page in the other edition.

The English edition is built into _build/html/ and the Chinese one (``-D language=zh_CN``, from the
catalogs in book/locales/) into _build/html/zh_CN/, so a page ``04_computational_graph.html`` has
its twin at ``zh_CN/04_computational_graph.html``. Each page gets, above its content, a link to its
twin, written relative to the page, so the two editions work from any folder, offline.
"""
from __future__ import annotations

from html import escape

from sphinx.application import Sphinx

CHINESE = "zh_CN"
LABELS = {"en": ("中文", "阅读本页的中文版"), CHINESE: ("English", "Read this page in English")}
# The labels of the folded answers are raw HTML, which gettext does not extract: translated here.
SUMMARIES = {"Answer": "答案", "Why": "原因", "A solution": "参考解答"}


def translated_summaries(text: str) -> str:
    """``text`` with the course's <summary> labels in Chinese."""
    for english, chinese in SUMMARIES.items():
        text = text.replace(f"<summary>{english}</summary>", f"<summary>{chinese}</summary>")
    return text


def chinese_summaries(app: Sphinx, docname: str, source: list[str]) -> None:
    """source-read: in the Chinese edition, the folded answers' labels in Chinese."""
    if app.config.language == CHINESE:
        source[0] = translated_summaries(source[0])


def twin_href(docname: str, language: str) -> str:
    """The other edition's page, relative to this page's own file."""
    up = "../" * docname.count("/")
    if language == CHINESE:
        return f"{up}../{docname}.html"
    return f"{up}{CHINESE}/{docname}.html"


def edition_link(docname: str, language: str) -> str:
    """The HTML of the link to the other edition."""
    label, title = LABELS[CHINESE if language == CHINESE else "en"]
    other = "en" if language == CHINESE else "zh-CN"
    return (f'<p class="glasstorch-edition"><a href="{escape(twin_href(docname, language))}" '
            f'hreflang="{other}" lang="{other}" title="{escape(title)}">{escape(label)}</a></p>\n')


def add_edition_link(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context: pages made from documents (not search or the index) get the link."""
    if doctree is None or "body" not in context:
        return
    context["body"] = edition_link(pagename, app.config.language or "en") + context["body"]


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", add_edition_link)
    app.connect("source-read", chinese_summaries)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
