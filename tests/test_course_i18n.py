"""The checks speak the learner's language (issue 18): glasstorch/course/i18n.py.

The course's catalog (glasstorch/course/locales/zh_CN/LC_MESSAGES/course.po) must hold every
message the checks can print, as tools/catalogs.py collects them; a translated message replaces
the English one when the language is zh_CN, and nothing changes in English.
"""
import sys
from pathlib import Path

import pytest

from glasstorch.course import i18n
from glasstorch.course.checking import run_check

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

PO = r'''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

msgid "{head}: all {total} cases pass."
msgstr "{head}：全部 {total} 个用例通过。"

msgid ""
"{head}: {passed} of {total} "
"cases pass."
msgstr "{head}：{total} 个用例中通过 {passed} 个。"

#, fuzzy
msgid "Hint: {hint}"
msgstr "提示：{hint}"

msgid "Case '{case}' fails:"
msgstr ""

msgid "say \"hi\"\n"
msgstr "说\u201c你好\u201d\n"
'''


@pytest.fixture
def chinese(tmp_path, monkeypatch):
    folder = tmp_path / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "course.po").write_text(PO, encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALES", tmp_path)
    i18n.catalog.cache_clear()
    i18n.set_language("zh_CN")
    yield
    i18n.set_language("en")
    i18n.catalog.cache_clear()


def test_the_po_reader_keeps_translated_messages_only():
    messages = i18n.read_po(PO)
    assert messages == {"{head}: all {total} cases pass.": "{head}：全部 {total} 个用例通过。",
                        "{head}: {passed} of {total} cases pass.": "{head}：{total} 个用例中通过 {passed} 个。",
                        'say "hi"\n': "说\u201c你好\u201d\n"}


def test_the_po_reader_agrees_with_babel_on_the_course_catalog():
    from babel.messages.pofile import read_po

    path = i18n.LOCALES / "zh_CN" / "LC_MESSAGES" / "course.po"
    with path.open("rb") as file:
        babel = {m.id: m.string for m in read_po(file) if m.id and m.string and not m.fuzzy}
    assert i18n.read_po(path.read_text(encoding="utf-8")) == babel


def square(x):
    return x * x


def test_a_check_speaks_chinese_when_asked(chinese):
    import numpy as np
    from glasstorch.course.checking import Case, Exercise

    ex = Exercise(id="99.square", entry="square", title="square", reference=square, hint="multiply x by itself",
                  cases=lambda rng: [Case("two", (np.float64(2.0),)), Case("three", (np.float64(3.0),))])
    from glasstorch.course.checking import judge

    good = judge(ex, ex.make_cases(0), [ex.observe_case(square, c) for c in ex.make_cases(0)])
    assert str(good) == "✔ 99.square — square：全部 2 个用例通过。"
    bad = judge(ex, ex.make_cases(0), [ex.observe_case(lambda x: x + 2, c) for c in ex.make_cases(0)])
    text = str(bad)
    assert "99.square — square：2 个用例中通过 1 个。" in text
    assert "Case 'three' fails:" in text          # untranslated: English
    assert "Hint:" in text and "提示" not in text  # fuzzy: English


def test_english_is_the_default_and_unchanged():
    assert i18n.get_language() == "en"
    text = str(run_check("05.mul_backward", lambda grad, a, b: (grad * b, grad * a)))  # no broadcasting: fails
    assert text.startswith("✘ 05.mul_backward — the backward of mul") and "cases pass.\n  Case '" in text
    assert "\n  Hint: " in text


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="zh_CN"):
        i18n.set_language("fr")


def test_the_course_catalog_holds_every_message():
    import catalogs

    have = catalogs.messages(catalogs.COURSE_CATALOG)
    missing = [m for m in catalogs.course_messages() if m not in have]
    assert not missing, f"{len(missing)} messages not in course.po (run make catalogs), first: {missing[:3]}"


def test_the_grader_writes_feedback_in_the_language_asked(chinese):
    from glasstorch.course import grade_report
    from glasstorch.course.grade import NotebookGrade

    grade = NotebookGrade(Path("alice/05.ipynb"), "alice/05.ipynb", chapter="05", seed=7, error="it broke")
    with_catalog = {"Feedback: {notebook}": "反馈：{notebook}", "Not graded:": "未评分："}
    i18n.catalog.cache_clear()
    (i18n.LOCALES / "zh_CN" / "LC_MESSAGES" / "course.po").write_text(
        'msgid ""\nmsgstr ""\n\n' + "".join(f'msgid "{k}"\nmsgstr "{v}"\n\n' for k, v in with_catalog.items()),
        encoding="utf-8")
    markdown = grade_report.feedback_markdown(grade)
    page = grade_report.feedback_html(grade)
    assert markdown.startswith("# 反馈：alice/05.ipynb") and "**未评分：**" in markdown
    assert '<html lang="zh-CN">' in page and "<strong>未评分：</strong>" in page


def test_the_grader_takes_its_language_from_the_command_line():
    from glasstorch.course import grade

    with pytest.raises(SystemExit):
        grade.main(["--language", "fr", "x.ipynb"])
    try:
        grade.main(["--language", "zh_CN", "--no-sandbox", "-q", str(ROOT / "no-such-folder")])
    except SystemExit:
        pass  # no notebooks there: the grader stops, after taking the language
    assert i18n.get_language() == "zh_CN"
    i18n.set_language("en")
