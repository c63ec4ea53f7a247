"""The book's two editions (issue 18): English in _build/html, Chinese in _build/html/zh_CN.

The first tests check the link each page carries to its twin in the other language; the others read
the last `make book` (skipped with a reason when there is none): every page of either edition
links a twin that exists, the Chinese pages say they are Chinese, and the Chinese search index is
segmented into Chinese words (jieba), so that searching 叶子节点 finds the glossary.
"""
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from glasstorch_book.editions import edition_link, translated_summaries, twin_href  # noqa: E402

HTML = Path(os.environ.get("GLASSTORCH_BOOK_HTML", ROOT / "_build" / "html")).resolve()
CHINESE = HTML / "zh_CN"
EDITION_LINK = re.compile(r'<p class="glasstorch-edition"><a href="([^"]+)"')


@pytest.mark.parametrize("docname, language, href", [
    ("04_computational_graph", "en", "zh_CN/04_computational_graph.html"),
    ("04_computational_graph", "zh_CN", "../04_computational_graph.html"),
    ("_exercises/05_backward_engine", "en", "../zh_CN/_exercises/05_backward_engine.html"),
    ("_exercises/05_backward_engine", "zh_CN", "../../_exercises/05_backward_engine.html"),
])
def test_the_twin_is_the_same_page_in_the_other_folder(docname, language, href):
    assert twin_href(docname, language) == href


def test_the_link_names_the_other_language_in_that_language():
    assert ">中文</a>" in edition_link("index", "en") and 'hreflang="zh-CN"' in edition_link("index", "en")
    assert ">English</a>" in edition_link("index", "zh_CN") and 'hreflang="en"' in edition_link("index", "zh_CN")


def test_the_folded_answers_labels_are_translated():
    text = "<details><summary>Answer</summary>\n\nSo.\n</details>\n<details><summary>Why</summary>"
    assert translated_summaries(text) == "<details><summary>答案</summary>\n\nSo.\n</details>\n<details><summary>原因</summary>"
    assert translated_summaries("<summary>Answers</summary>") == "<summary>Answers</summary>"


built = pytest.mark.skipif(not (CHINESE / "index.html").exists(),
                           reason=f"the two editions were not built (run `make book`; this test checks {HTML})")


def document_pages(site: Path) -> list[Path]:
    # the package's source pages (book/_ext/glasstorch_book/source_pages.py) are code, the same in both
    skipped = {"_static", "_sources", "_modules", "zh_CN", "package", "genindex.html", "search.html"}
    return sorted(p for p in site.rglob("*.html")
                  if p.relative_to(site).parts[0] not in skipped)


@built
@pytest.mark.parametrize("site", [HTML, CHINESE], ids=["English", "Chinese"])
def test_every_page_links_its_twin_in_the_other_edition(site: Path):
    pages = document_pages(site)
    assert len(pages) > 20, f"only {len(pages)} pages in {site}"
    problems = []
    for page in pages:
        found = EDITION_LINK.search(page.read_text(encoding="utf-8"))
        if not found:
            problems.append(f"{page.relative_to(HTML)}: no link to the other edition")
        elif not (page.parent / found.group(1)).resolve().exists():
            problems.append(f"{page.relative_to(HTML)}: links {found.group(1)}, which does not exist")
        elif site == CHINESE and (page.parent / found.group(1)).resolve() != HTML / page.relative_to(CHINESE):
            problems.append(f"{page.relative_to(HTML)}: links another page than its English twin")
    assert not problems, "\n".join(problems[:20])


@built
def test_chinese_pages_say_they_are_chinese():
    index = (CHINESE / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<html[^>]*lang="zh[-_]CN"', index), "the Chinese edition's pages should declare lang=zh-CN"


@built
def test_chinese_search_segments_words():
    text = (CHINESE / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    glossary = index["docnames"].index("glossary")
    hits = index["terms"].get("叶子")
    assert hits is not None, "叶子 (from 叶子节点) is not a search term: was jieba installed for the build?"
    assert glossary in (hits if isinstance(hits, list) else [hits])


def test_the_run_notes_speak_the_editions_language():
    from glasstorch_book.run_notes import note_for

    english = note_for("05_backward_engine").astext()
    chinese = note_for("05_backward_engine", "zh_CN").astext()
    assert "Run this chapter" in english and "make lab" in english
    assert "运行本章" in chinese and "make lab-zh" in chinese and "zh_CN/book/05_backward_engine.ipynb" in chinese
    assert "完成本练习" in note_for("_exercises/05_backward_engine", "zh_CN").astext()


def page_contents(page: Path) -> dict:
    """What a translation must keep: pictures, math, and links to other pages and to sites."""
    html = page.read_text(encoding="utf-8")
    main = html[html.find("<main"):html.find("</main>")]
    return {"pictures": len(re.findall(r"<img\b", main)) + len(re.findall(r"<svg\b", main)),
            "math": len(re.findall(r'class="math', main)),
            "links to pages": sorted(re.findall(r'<a class="reference internal" href="([^"#]+)', main)),
            "links to sites": sorted(re.findall(r'<a class="reference external" href="([^"]+)"', main))}


@built
def test_a_chinese_page_keeps_the_pictures_math_and_links_of_its_english_twin():
    problems = []
    for page in document_pages(HTML):
        twin = CHINESE / page.relative_to(HTML)
        english, chinese = page_contents(page), page_contents(twin)
        for what in english:
            if english[what] != chinese[what]:
                problems.append(f"{page.relative_to(HTML)}: {what} differ: English {english[what]!r:.120}, "
                                f"Chinese {chinese[what]!r:.120}")
    assert not problems, "\n".join(problems[:20])


def test_the_glossarys_chinese_terms_become_search_words():
    from glasstorch_book.editions import glossary_words

    sample = ("leaf tensor\n  A tensor. 中文: 叶子节点. Chapter: [04](04_x.ipynb).\n"
              "training mode\n  A flag. 中文: 训练模式 / 评估模式. Chapter: [11](11_x.ipynb).\n"
              "activation checkpointing\n  Recompute. 中文: 激活检查点（重计算）. Chapter: [08](08_x.ipynb).\n"
              "CopySlices\n  A Node. 中文: CopySlices（切片复制节点）. Chapter: [02](02_x.ipynb).\n")
    assert glossary_words(sample) == ["叶子节点", "训练模式", "评估模式", "激活检查点", "重计算", "切片复制节点"]
    words = glossary_words((ROOT / "book" / "glossary.md").read_text(encoding="utf-8"))
    assert "叶子节点" in words and "计算图" in words and len(words) >= 40
