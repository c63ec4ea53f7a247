"""The book in two languages: a link on every page to the same page in the other edition.

The English edition is built into _build/html/ and the Chinese one (``-D language=zh_CN``, from the
catalogs in book/locales/) into _build/html/zh_CN/, so a page ``04_computational_graph.html`` has
its twin at ``zh_CN/04_computational_graph.html``. Each page gets, above its content, a link to its
twin, written relative to the page, so the two editions work from any folder, offline.
"""
from __future__ import annotations

import re
from html import escape
from pathlib import Path

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


def glossary_words(glossary: str) -> list[str]:
    """The Chinese terms of the glossary ("中文: 叶子节点." lines), each alternative on its own:
    "训练模式 / 评估模式" gives both, "激活检查点（重计算）" gives 激活检查点 and 重计算."""
    words = []
    for found in re.findall(r"中文: (.+?)\. Chapter:", glossary):
        words += [w.strip() for w in re.split(r"[/（）()、，]", found) if re.search(r"[\u4e00-\u9fff]", w)]
    return list(dict.fromkeys(words))


def add_glossary_to_search(app: Sphinx, config) -> None:
    """config-inited: in the Chinese edition, jieba learns the glossary's terms as words, so that
    the index holds 叶子节点 itself (and its parts), and a search for the whole term finds pages."""
    if config.language != CHINESE:
        return
    words = glossary_words((Path(app.srcdir) / "glossary.md").read_text(encoding="utf-8"))
    dictionary = Path(app.doctreedir) / "glossary-words.txt"  # beside the build's pickles, not published
    dictionary.parent.mkdir(parents=True, exist_ok=True)
    dictionary.write_text("".join(f"{word} 100000 n\n" for word in words), encoding="utf-8")
    config.html_search_options = {**(config.html_search_options or {}), "dict": str(dictionary)}


def _chinese_search_language() -> type:
    """Sphinx's Chinese search, with the name of the stemmer it ships.

    Sphinx 9.0's Chinese search (jieba for Chinese words) stems the Latin words of a page with the
    English stemmer and ships english-stemmer.js, but its language_data.js then says
    `window.Stemmer = ChineseStemmer;`, a name nothing defines: every page of the Chinese edition
    logs "ChineseStemmer is not defined" and the search page finds nothing. Naming the language
    after the stemmer it uses makes that line `window.Stemmer = EnglishStemmer;`."""
    from sphinx.search.zh import SearchChinese

    class SearchChineseStemmedInEnglish(SearchChinese):
        language_name = "English"  # only names the JavaScript stemmer (and a log line)

    return SearchChineseStemmedInEnglish


def setup(app: Sphinx) -> dict:
    app.add_search_language(_chinese_search_language())
    app.connect("config-inited", add_glossary_to_search)
    app.connect("html-page-context", add_edition_link)
    app.connect("source-read", chinese_summaries)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
