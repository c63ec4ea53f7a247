"""The course's structure (issue 16): chapter headers, the glossary and the page for teachers.

Every chapter opens, right under its title, with "What you will learn" (3 to 5 objectives), its
new terms linked to the glossary, "Before you start" (the chapters it builds on, linked: at least
those the chapter map draws an arrow from) and "Time" (minutes to read and run; the exercises'
minutes too). book/glossary.md defines each term in a MyST glossary directive: a one-line
definition, then "中文: ... . Chapter: [..](NN_....ipynb). PyTorch: [..](https://docs.pytorch.org/...)";
the chapter it names links the term with {term}. book/teaching.md gives the same times and
documents exactly the grader's options. These tests read the files; they build nothing.

Each check is a function that returns the problems it finds, and is also run on broken samples
below, so that a check which could never fail would itself fail.
"""

import json
import re
from pathlib import Path

import pytest

from glasstorch.course.chapter_map import BUILDS_ON

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))
GLOSSARY = BOOK / "glossary.md"
TEACHING = BOOK / "teaching.md"
GRADER = ROOT / "package" / "glasstorch" / "course" / "grade.py"

CHAPTER_LINK = re.compile(r"\]\(((\d\d)_[\w]+\.ipynb)\)")
TERM_ROLE = re.compile(r"\{term\}`([^`<]+?)(?:\s*<([^`>]+)>)?`")
CJK = re.compile(r"[\u4e00-\u9fff]")


def first_markdown(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return next("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def all_markdown(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


# --- chapter headers ------------------------------------------------------------------------------

def header_problems(number: str, text: str, prerequisites: "set[str]") -> "list[str]":
    """What is wrong with chapter ``number``'s first markdown cell ``text``."""
    problems = []
    lines = text.split("\n")
    if not re.match(rf"# {number} · \S", lines[0]):
        problems.append(f"the cell does not start with the title '# {number} · ...'")
    body = "\n".join(lines[1:]).lstrip("\n")
    if not body.startswith("**What you will learn**"):
        problems.append("'**What you will learn**' does not come right after the title")
    objectives = re.search(r"\*\*What you will learn\*\*\n\n((?:\* .*\n(?: {2}.*\n)*)+)", text + "\n")
    count = len(re.findall(r"^\* ", objectives.group(1), re.MULTILINE)) if objectives else 0
    if not 3 <= count <= 5:
        problems.append(f"{count} objectives under 'What you will learn' (3 to 5 wanted)")
    before = re.search(r"^\*\*Before you start:\*\* (.+)$", text, re.MULTILINE)
    if not before:
        problems.append("no '**Before you start:**' line")
    else:
        linked = {n for _target, n in CHAPTER_LINK.findall(before.group(1))}
        if number != "00" and not linked:
            problems.append("'Before you start' links no chapter")
        missing = prerequisites - linked
        if missing:
            problems.append(f"'Before you start' misses chapters the map says it builds on: {sorted(missing)}")
        for target, _n in CHAPTER_LINK.findall(before.group(1)):
            if not (BOOK / target).exists():
                problems.append(f"'Before you start' links {target}, which does not exist")
        if number in linked:
            problems.append("'Before you start' names the chapter itself")
    time = re.search(r"^\*\*Time:\*\* about (\d+) minutes", text, re.MULTILINE)
    if not time:
        problems.append("no '**Time:** about N minutes' line")
    elif not 5 <= int(time.group(1)) <= 180:
        problems.append(f"an estimated time of {time.group(1)} minutes is not believable")
    return problems


def header_minutes(text: str) -> "tuple[int, int | None]":
    reading = re.search(r"^\*\*Time:\*\* about (\d+) minutes", text, re.MULTILINE)
    exercises = re.search(r"its exercises, about (\d+) more", text)
    return int(reading.group(1)), int(exercises.group(1)) if exercises else None


def prerequisites_of(number: str) -> "set[str]":
    return {earlier for earlier, later in BUILDS_ON if later == number}


def test_there_are_chapters():
    assert len(CHAPTERS) >= 14, f"expected the 14 chapters in book/, found {len(CHAPTERS)}"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_opens_with_objectives_prerequisites_and_time(notebook: Path):
    number = notebook.name[:2]
    problems = header_problems(number, first_markdown(notebook), prerequisites_of(number))
    assert not problems, f"{notebook.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_with_exercises_states_their_time(notebook: Path):
    if not (ROOT / "exercises" / notebook.name).exists():
        pytest.skip(f"{notebook.name} has no exercise notebook")
    _reading, exercises = header_minutes(first_markdown(notebook))
    assert exercises, f"{notebook.name}: the Time line does not say how long its exercises take"


GOOD_HEADER = """# 05 · Backward: the engine

**What you will learn**

* one;
* two, on
  two lines;
* three.

**Before you start:** [04 · The computational graph](04_computational_graph.ipynb).

**Time:** about 60 minutes to read and run; its exercises, about 45 more.

Prose."""


@pytest.mark.parametrize("broken, complaint", [
    (GOOD_HEADER.replace("**What you will learn**", "**What you learn**"), "What you will learn"),
    (GOOD_HEADER.replace("* three.\n", ""), "2 objectives"),
    (GOOD_HEADER.replace("* three.\n", "* three;\n* four;\n* five;\n* six.\n"), "6 objectives"),
    (GOOD_HEADER.replace("**Before you start:**", "Before:"), "Before you start"),
    (GOOD_HEADER.replace("[04 · The computational graph](04_computational_graph.ipynb)", "chapter 04"), "links no chapter"),
    (GOOD_HEADER.replace("04_computational_graph.ipynb", "02_no_such_chapter.ipynb"), "does not exist"),
    (GOOD_HEADER.replace("**Time:** about 60 minutes", "**Time:** an hour"), "Time"),
    (GOOD_HEADER.replace("about 60 minutes", "about 600 minutes"), "not believable"),
    (GOOD_HEADER.replace("# 05 · Backward: the engine\n\n", "# 05 · Backward: the engine\n\nIntro.\n\n"), "right after the title"),
])
def test_header_check_catches_broken_headers(broken: str, complaint: str):
    assert not header_problems("05", GOOD_HEADER, {"04"}), "the good sample header should pass"
    problems = header_problems("05", broken, {"04"})
    assert any(complaint in p for p in problems), f"expected a complaint about {complaint!r}, got {problems}"


def test_header_check_wants_the_chapter_map_prerequisites():
    problems = header_problems("05", GOOD_HEADER, {"04", "01"})
    assert any("misses chapters" in p and "01" in p for p in problems), problems


# --- the glossary ---------------------------------------------------------------------------------

def glossary_entries(text: str) -> "list[tuple[str, str]]":
    """(term, definition text) for every entry of the ```{glossary} block of ``text``."""
    block = re.search(r"```\{glossary\}\n(.*?)\n```", text, re.DOTALL)
    if not block:
        return []
    entries, term, lines = [], None, []
    for line in block.group(1).split("\n"):
        if line.startswith(":") or not line.strip():
            continue
        if not line.startswith(" "):
            if term is not None:
                entries.append((term, " ".join(lines)))
            term, lines = line.strip(), []
        else:
            lines.append(line.strip())
    if term is not None:
        entries.append((term, " ".join(lines)))
    return entries


def entry_problems(term: str, definition: str) -> "list[str]":
    problems = []
    chinese = re.search(r"中文: ([^.]+)\.", definition)
    if not chinese or not CJK.search(chinese.group(1)):
        problems.append(f"{term!r} has no Chinese term ('中文: ...')")
    chapter = re.search(r"Chapter: \[[^\]]+\]\(((\d\d)_[\w]+\.ipynb)\)", definition)
    if not chapter:
        problems.append(f"{term!r} names no chapter ('Chapter: [..](NN_....ipynb)')")
    elif not (BOOK / chapter.group(1)).exists():
        problems.append(f"{term!r}: its chapter link {chapter.group(1)} leads to no notebook in book/")
    if not re.search(r"PyTorch: \[[^\]]+\]\(https://docs\.pytorch\.org/[^)]+\)", definition):
        problems.append(f"{term!r} has no link to PyTorch's documentation ('PyTorch: [..](https://docs.pytorch.org/...)')")
    sentence = definition.split(" 中文:")[0]
    if not sentence or sentence.count(". ") > 1:
        problems.append(f"{term!r}: the definition should be one line, one sentence: {sentence!r}")
    return problems


def test_glossary_has_about_thirty_terms_each_once():
    terms = [term for term, _ in glossary_entries(GLOSSARY.read_text(encoding="utf-8"))]
    assert len(terms) >= 30, f"the glossary defines {len(terms)} terms; about 30 expected"
    duplicates = {t for t in terms if terms.count(t) > 1}
    assert not duplicates, f"terms defined twice: {duplicates}"


def test_every_glossary_entry_has_chinese_term_chapter_and_pytorch_page():
    problems = [p for term, definition in glossary_entries(GLOSSARY.read_text(encoding="utf-8"))
                for p in entry_problems(term, definition)]
    assert not problems, "\n".join(problems)


def test_each_term_is_linked_from_the_chapter_that_teaches_it():
    missing = []
    for term, definition in glossary_entries(GLOSSARY.read_text(encoding="utf-8")):
        chapter = re.search(r"Chapter: \[[^\]]+\]\((\d\d_[\w]+\.ipynb)\)", definition)
        if chapter is None:
            continue  # reported by the test above
        linked = {(target or text).strip().lower() for text, target in TERM_ROLE.findall(all_markdown(BOOK / chapter.group(1)))}
        if term.lower() not in linked:
            missing.append(f"{chapter.group(1)} does not link {{term}}`{term}`")
    assert not missing, "\n".join(missing)


def test_every_term_role_in_the_chapters_names_a_glossary_term():
    terms = {term.lower() for term, _ in glossary_entries(GLOSSARY.read_text(encoding="utf-8"))}
    unknown = [f"{notebook.name}: {{term}}`{text}`" for notebook in CHAPTERS
               for text, target in TERM_ROLE.findall(all_markdown(notebook))
               if (target or text).strip().lower() not in terms]
    assert not unknown, "these {term} links name no glossary entry:\n" + "\n".join(unknown)


GOOD_GLOSSARY = """# Glossary

```{glossary}
:sorted:

leaf tensor
  A tensor with no `grad_fn`.
  中文: 叶子节点. Chapter: [04 · The computational graph](04_computational_graph.ipynb). PyTorch: [Tensor.is_leaf](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html).
```
"""


@pytest.mark.parametrize("broken, complaint", [
    (GOOD_GLOSSARY.replace("中文: 叶子节点", "中文: leaf"), "Chinese"),
    (GOOD_GLOSSARY.replace("中文: 叶子节点. ", ""), "Chinese"),
    (GOOD_GLOSSARY.replace("04_computational_graph.ipynb", "02_missing.ipynb"), "leads to no notebook"),
    (GOOD_GLOSSARY.replace("Chapter: ", "See: "), "names no chapter"),
    (GOOD_GLOSSARY.replace("https://docs.pytorch.org/docs/stable/", "https://example.org/"), "PyTorch's documentation"),
])
def test_glossary_check_catches_broken_entries(broken: str, complaint: str):
    [(term, definition)] = glossary_entries(GOOD_GLOSSARY)
    assert term == "leaf tensor" and not entry_problems(term, definition)
    [(term, definition)] = glossary_entries(broken)
    problems = entry_problems(term, definition)
    assert any(complaint in p for p in problems), f"expected a complaint about {complaint!r}, got {problems}"


# --- the index, the page for teachers --------------------------------------------------------------

def test_glossary_teaching_page_and_index_are_in_the_toctree():
    index = (BOOK / "index.md").read_text(encoding="utf-8")
    toctrees = "\n".join(re.findall(r"```\{toctree\}\n(.*?)```", index, re.DOTALL))
    entries = {line.strip() for line in toctrees.split("\n")}
    for page in ("glossary", "teaching", "genindex"):
        assert page in entries, f"book/index.md's toctrees do not list {page}"


def teaching_minutes(text: str) -> "dict[str, tuple[int, int | None]]":
    """chapter number -> (reading minutes, exercise minutes) from the time table of teaching.md."""
    rows = re.findall(r"^\| \[(\d\d) · [^\]]*\]\(\d\d_\w+\.ipynb\) \| (\d+) min \| (?:(\d+) min|—) \|", text, re.MULTILINE)
    return {n: (int(r), int(e) if e else None) for n, r, e in rows}


def test_teaching_page_times_match_the_chapters():
    table = teaching_minutes(TEACHING.read_text(encoding="utf-8"))
    for notebook in CHAPTERS:
        number = notebook.name[:2]
        assert number in table, f"teaching.md's time table has no row for chapter {number}"
        assert table[number] == header_minutes(first_markdown(notebook)), (
            f"chapter {number}: teaching.md says {table[number]} minutes (reading, exercises), "
            f"the chapter's header says {header_minutes(first_markdown(notebook))}"
        )


def test_teaching_page_plans_cover_every_chapter_in_six_and_twelve_weeks():
    text = TEACHING.read_text(encoding="utf-8")
    for weeks, title in ((6, "A 6-week plan"), (12, "A 12-week plan")):
        section = text.split(f"## {title}")[1].split("\n## ")[0]
        rows = re.findall(r"^\| (\d+) \| (.*)$", section, re.MULTILINE)
        assert [int(week) for week, _ in rows] == list(range(1, weeks + 1)), f"{title}: weeks {[w for w, _ in rows]}"
        planned = [n for _week, row in rows for n in re.findall(r"\[(\d\d) · ", row.split(" | ")[0])]
        assert sorted(planned) == [p.name[:2] for p in CHAPTERS], f"{title} covers chapters {planned}"


def test_teaching_page_documents_exactly_the_graders_options():
    options = set(re.findall(r'add_argument\([^)]*?"(--[\w-]+)"', GRADER.read_text(encoding="utf-8")))
    assert {"--seed", "--csv", "--json", "--junit"} <= options, f"could not read grade.py's options: {options}"
    text = TEACHING.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| (?:`-\w`, )?`(--[\w-]+)", text, re.MULTILINE))
    assert documented == options, (
        f"teaching.md's option table and glasstorch-grade differ: undocumented {sorted(options - documented)}, "
        f"not real {sorted(documented - options)}"
    )
