"""Every reference to a chapter resolves: what keeps renumbering (tools/renumber.py) honest.

Across every tracked text file: links to a chapter's notebook name a chapter that exists; a link
text "NN · Title" carries the number and the title of the chapter it links; exercise ids
("05.run_backward") are declared exercises of an existing chapter; "chapter NN" in prose names an
existing chapter; each chapter's exercise module and wrong answers (chNN.py) belong to a chapter;
the chapter map lists exactly the chapters in book/. Each check returns what it finds, and is run on
a broken sample too, so that a check which could never fail would fail here.
"""
import json
import re
import subprocess
from pathlib import Path

import pytest

from glasstorch.course.chapter_map import BUILDS_ON, CHAPTERS as MAP_CHAPTERS
from glasstorch.course.checking import get_exercise, REGISTRY

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {"tools/renumber.py", "tests/test_renumber.py", "tests/test_chapter_references.py"}  # samples

NOTEBOOK_LINK = re.compile(r"(?<![A-Za-z0-9.])(\d\d_[a-z0-9_]+)\.ipynb")
TITLED_LINK = re.compile(r"\[(\d\d) · ([^\]]+)\]\((?:[^)]*/)?(\d\d_[a-z0-9_]+)\.ipynb\)")
EXERCISE_ID = re.compile(r"[\"'](\d\d)\.([A-Za-z_]\w*)[\"']")
BARE_LINK = re.compile(r"\[(\d\d)\]\((?:[^)]*/)?(\d\d_[a-z0-9_]+)\.ipynb\)")  # [05](05_backward_engine.ipynb)
SECTIONS = re.compile(r"\]\((?:[^)]*/)?(\d\d_[a-z0-9_]+)\.ipynb\)((?:,? ?§\d+(?:[–-]\d+)?)+)")
PROSE = re.compile(r"\b[Cc]hapters?\s+(\d\d(?:(?:,\s+and\s+|,\s*|\s+and\s+|\s+or\s+|\s+to\s+|\s*[–-]\s*)\d\d)*)\b")
# Names made up on purpose (whatever their number): samples in tests, the recipe in CONTRIBUTING.md
MADE_UP_EXERCISES = {"nope", "square", "rmsprop_step"}
MADE_UP_CHAPTERS = {"x", "no_such_chapter", "missing"}


def sections(stem: str) -> set[int]:
    """The numbered sections of a chapter: "## 3. ..." gives 3."""
    cells = json.loads((ROOT / "book" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return {int(n) for n in re.findall(r"^## (\d+)\.", text, re.M)}


def chapters() -> dict[str, str]:
    """{"02": "The computational graph", ...} from each chapter's first line, "# 04 · Title"."""
    found = {}
    for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        first = next("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        found[path.stem] = re.match(r"# \d\d · (.+)", first.split("\n")[0]).group(1).strip()
    return found


def texts() -> dict[str, str]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    found = {}
    for name in listing.decode().split("\0"):
        path = ROOT / name
        # the catalogs repeat the pages' English (tests/test_translation.py keeps them in step)
        if not name or name in SKIPPED or name.startswith("book/locales/") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if name.endswith(".ipynb"):
            text = notebook_text(json.loads(text))
        found[name] = text
    return found


def notebook_text(node) -> str:
    """Every string of a notebook as it reads (a cell's source lines joined), not its JSON."""
    if isinstance(node, str):
        return node
    if isinstance(node, list):
        return "".join(notebook_text(item) for item in node)
    if isinstance(node, dict):
        return "\n".join(notebook_text(value) for value in node.values())
    return ""


def first_word(title: str) -> str:
    return re.search(r"\w+", title).group(0).lower()


def reference_problems(name: str, text: str, stems: dict[str, str], exercise_ids: set[str]) -> list[str]:
    problems = []
    numbers = {stem[:2] for stem in stems}
    for stem in NOTEBOOK_LINK.findall(text):
        if stem not in stems and stem[3:] not in MADE_UP_CHAPTERS:
            problems.append(f"{name}: links {stem}.ipynb, which is no chapter")
    for number, title, stem in TITLED_LINK.findall(text):
        # the number must be the chapter's; the words may be shortened, not the first one
        if stem in stems and (number != stem[:2] or first_word(title) != first_word(stems[stem])):
            problems.append(f"{name}: the link text '{number} · {title}' is not chapter {stem}'s "
                            f"'{stem[:2]} · {stems[stem]}'")
    for number, stem in BARE_LINK.findall(text):
        if stem in stems and number != stem[:2]:
            problems.append(f"{name}: the link text [{number}] leads to chapter {stem}")
    for stem, cited in SECTIONS.findall(text):
        if stem in stems:
            have = sections(stem)
            for first, last in re.findall(r"§(\d+)(?:[–-](\d+))?", cited):
                for section in {int(first), int(last or first)} - have:
                    problems.append(f"{name}: chapter {stem} has no section {section}")
    for number, rest in EXERCISE_ID.findall(text):
        exercise_id = f"{number}.{rest}"
        if exercise_id not in exercise_ids and rest not in MADE_UP_EXERCISES:
            problems.append(f"{name}: no exercise {exercise_id!r} is declared")
    for listed in PROSE.findall(text):
        for number in re.findall(r"\d\d", listed):
            if number not in numbers:
                problems.append(f"{name}: names chapter {number}, which does not exist")
    return problems


def all_exercise_ids() -> set[str]:
    get_exercise("01.infer")  # importing the exercises registers them all
    return set(REGISTRY)


def test_every_reference_to_a_chapter_resolves():
    stems, ids = chapters(), all_exercise_ids()
    problems = [p for name, text in texts().items() for p in reference_problems(name, text, stems, ids)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("sample, found", [
    ("see 02_nonexistent_chapter.ipynb", "which is no chapter"),
    ("[05 · The computational graph](04_computational_graph.ipynb)", "is not chapter"),
    ("[04 · Backward: the engine](04_computational_graph.ipynb)", "is not chapter"),
    ('check("04.no_such_exercise", f)', "no exercise"),
    ("as chapters 05 and 99 show", "chapter 99"),
])
def test_the_reference_check_finds_broken_references(sample, found):
    stems, ids = chapters(), all_exercise_ids()
    assert not reference_problems("sample", "[04 · The computational graph](04_computational_graph.ipynb)",
                                  stems, ids), "the good sample should pass"
    assert any(found in p for p in reference_problems("sample", sample, stems, ids))


def test_every_exercise_belongs_to_a_chapter_with_its_module():
    numbers = {stem[:2] for stem in chapters()}
    for exercise_id in all_exercise_ids():
        assert exercise_id[:2] in numbers, f"exercise {exercise_id} belongs to no chapter"
    for folder in ("package/glasstorch/course/exercises", "tests/wrong_answers"):
        modules = {p.stem[2:] for p in (ROOT / folder).glob("ch[0-9][0-9].py")}
        assert modules <= numbers, f"{folder} has modules of no chapter: {sorted(modules - numbers)}"


def test_the_chapter_map_lists_the_chapters_in_book():
    stems = chapters()
    assert [c.number for c in MAP_CHAPTERS] == sorted(stem[:2] for stem in stems)
    for earlier, later in BUILDS_ON:
        assert earlier < later, f"chapter {later} builds on {earlier}, which comes after it"


def test_each_exercise_notebook_names_its_own_chapter():
    for folder in ("solutions", "exercises"):
        for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb")):
            metadata = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("glasstorch", {})
            assert metadata.get("chapter") == path.name[:2], f"{folder}/{path.name} says chapter {metadata.get('chapter')}"
