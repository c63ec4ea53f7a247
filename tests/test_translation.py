"""The Chinese edition's notebooks (issue 18): made from the English ones and the catalogs.

tools/translate_notebooks.py replaces each markdown block that has a translation and copies
everything else. These tests check that a translated block keeps its markdown around it (title
marks, list marks, table pipes, HTML), that the generated notebooks' code cells and outputs are the
English ones, and that every message of a chapter's catalog is a block the tool can find in the
notebook (else its translation would never reach JupyterLab); math blocks are the exception, since
formulas are not translated.
"""
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import translate_notebooks as tn  # noqa: E402

CATALOGS = ROOT / "book" / "locales" / "zh_CN" / "LC_MESSAGES"
PAGES = [(p, CATALOGS / f"{p.stem}.po", "book") for p in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))] + [
    (p, CATALOGS / "_exercises" / f"{p.stem}.po", "exercises") for p in sorted((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb"))]

SAMPLE = """# 04 · The graph

* say what a `grad_fn` is, and read
  a graph through it;
* draw it

| name | meaning |
|---|---|
| leaf | made by `you` |

<details><summary>Answer</summary>

Three Nodes,
in a row.

</details>

$$y = (x + w)\\,(w + 1)$$

**Exercises:** [exercises 04](../exercises/04_x.ipynb): leaves.
"""
CATALOG = {
    "04 · The graph": "04 · 计算图",
    "say what a `grad_fn` is, and read a graph through it;": "说出 `grad_fn` 是什么，并借助它读图；",
    "leaf": "叶子", "made by `you`": "由 `你` 创建",
    "Three Nodes, in a row.": "三个节点，排成一行。",
    "**Exercises:** [exercises 04](_exercises/04_x.ipynb): leaves.": "**练习：** [练习 04](_exercises/04_x.ipynb)：叶子。",
}


def test_a_block_is_replaced_with_its_markdown_kept():
    out = tn.translate_markdown(SAMPLE, CATALOG, tn.LINK_FORMS["book"])
    assert out.startswith("# 04 · 计算图\n")
    assert "* 说出 `grad_fn` 是什么，并借助它读图；\n* draw it\n" in out       # untranslated stays English
    assert "| 叶子 | 由 `你` 创建 |" in out and "| name | meaning |" in out
    assert "<details><summary>Answer</summary>\n\n三个节点，排成一行。\n\n</details>" in out
    assert "$$y = (x + w)\\,(w + 1)$$" in out
    # the catalog has the link as the book reads it; the notebook keeps JupyterLab's
    assert "**练习：** [练习 04](../exercises/04_x.ipynb)：叶子。" in out


def test_no_translation_changes_nothing():
    assert tn.translate_markdown(SAMPLE, {}) == SAMPLE


def test_fuzzy_and_empty_messages_are_not_used(tmp_path):
    po = tmp_path / "x.po"
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgid "a"\nmsgstr "甲"\n\n#, fuzzy\nmsgid "b"\nmsgstr "乙"\n\nmsgid "c"\nmsgstr ""\n',
                  encoding="utf-8")
    assert tn.load_catalog(po) == {"a": "甲"}


def test_generated_notebooks_keep_the_english_code_and_outputs(tmp_path):
    tn.main(out=tmp_path)
    for folder in ("book", "exercises"):
        english = sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))
        assert [p.name for p in sorted((tmp_path / folder).glob("*.ipynb"))] == [p.name for p in english]
        for path in english:
            original = json.loads(path.read_text(encoding="utf-8"))["cells"]
            made = json.loads((tmp_path / folder / path.name).read_text(encoding="utf-8"))["cells"]
            assert [c["cell_type"] for c in made] == [c["cell_type"] for c in original], path.name
            for a, b in zip(original, made):
                if a["cell_type"] == "code":
                    assert (a["source"], a.get("outputs")) == (b["source"], b.get("outputs")), path.name
                else:
                    assert "<summary>Answer</summary>" not in "".join(b["source"]), "a folded answer's label in English"


def test_exercise_notebooks_with_a_learners_work_are_kept(tmp_path):
    mine = tmp_path / "exercises" / "05_backward_engine.ipynb"
    mine.parent.mkdir(parents=True)
    mine.write_text('{"my": "work"}', encoding="utf-8")
    tn.main(out=tmp_path)
    assert mine.read_text(encoding="utf-8") == '{"my": "work"}'


def blocks_and_math(notebook: Path, folder: str) -> tuple[set, set]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    text = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    blocks = {tn.message_of(t.content) for t in tn._MARKDOWN.parse(text) if t.type == "inline"}
    book_form = {b.replace(*tn.LINK_FORMS[folder]) for b in blocks}
    math = {re.sub(r"\s+", " ", m).strip() for m in re.findall(r"\$\$(.*?)\$\$", text, flags=re.S)}
    return blocks | book_form, math


@pytest.mark.parametrize("notebook, po, folder", PAGES, ids=[f"{f}/{p.stem}" for p, _po, f in PAGES])
def test_every_message_of_a_page_is_a_block_of_its_notebook(notebook: Path, po: Path, folder: str):
    if not po.exists():
        pytest.fail(f"{notebook.name} has no catalog: run make catalogs")
    with po.open("rb") as file:
        ids = {m.id for m in tn.read_po(file) if m.id}
    blocks, math = blocks_and_math(notebook, folder)
    lost = [m for m in ids if m not in blocks and re.sub(r"\s+", " ", m).strip() not in math]
    assert not lost, f"{len(lost)} messages the notebook has no block for (stale catalog?): {lost[:3]}"


def test_every_message_is_translated_and_every_catalog_up_to_date(tmp_path):
    """The Chinese edition is complete and in step with the English: the prose of every page is
    extracted afresh, and each message must be in its page's catalog, translated, not fuzzy, and
    free of the markdown that breaks in Chinese; the same for the checks' messages (course.po).
    Changing English prose therefore needs `make catalogs` and its translation (CONTRIBUTING.md)."""
    import catalogs

    catalogs.extract(tmp_path)
    problems = catalogs.problems(tmp_path) + catalogs.course_problems()
    assert not problems, f"{len(problems)} problems, first:\n  " + "\n  ".join(problems[:10])


def test_the_completeness_check_finds_what_is_missing(tmp_path, monkeypatch):
    import catalogs

    pot = tmp_path / "pot"
    pot.mkdir()
    (pot / "page.pot").write_text('msgid ""\nmsgstr ""\n\nmsgid "A new paragraph."\nmsgstr ""\n\n'
                                  'msgid "Old."\nmsgstr ""\n\nmsgid "Bold."\nmsgstr ""\n', encoding="utf-8")
    folder = tmp_path / "catalogs"
    folder.mkdir()
    (folder / "page.po").write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                                    '#, fuzzy\nmsgid "Old."\nmsgstr "旧。"\n\n'
                                    'msgid "Bold."\nmsgstr "**时间：**阅读"\n', encoding="utf-8")
    monkeypatch.setattr(catalogs, "CATALOGS", folder)
    found = "\n".join(catalogs.problems(pot))
    assert "not in the catalog" in found and "fuzzy: 'Old.'" in found and "markdown that breaks" in found
