"""tools/renumber.py: renumbering chapters is one command, and it keeps every reference.

The samples below are a small course in a temporary git repository; the real course's references
are checked by tests/test_chapter_references.py.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import renumber  # noqa: E402

SLUGS = {"01": "01_tensors", "02": "02_graph", "03": "03_engine"}


def rewrite(text, moves, **kw):
    return renumber.rewrite_text(text, moves, SLUGS, **kw)


@pytest.mark.parametrize("before, after", [
    ("see [02 · The graph](02_graph.ipynb)", "see [03 · The graph](03_graph.ipynb)"),
    ('check("02.walk_graph", walk_graph)', 'check("03.walk_graph", walk_graph)'),
    ("from .ch02 import cases", "from .ch03 import cases"),
    ("as chapter 02 showed", "as chapter 03 showed"),
    ("Chapters 01, 02 and 03 build it", "Chapters 01, 03 and 02 build it"),
    ("chapters 02–03", "chapters 03–02"),
    ("chapters 01 to 03 form a part", "chapters 01 to 02 form a part"),
    ('"glasstorch": {"chapter": "02"}', '"glasstorch": {"chapter": "03"}'),  # a notebook's metadata
    ("# Exercises 02 · The graph", "# Exercises 03 · The graph"),  # prose and a title at once: moved once
    ("see chapter 02 · The graph", "see chapter 03 · The graph"),
    ("| 002 | leaves | [02](02_graph.ipynb) §7 |", "| 002 | leaves | [03](03_graph.ipynb) §7 |"),
    ('next(ROOT.glob("book/02_*.ipynb"))', 'next(ROOT.glob("book/03_*.ipynb"))'),  # a test's glob
    ("- 02 The graph\n- 03 The engine", "- 03 The graph\n- 02 The engine"),
    ('    "- 02 The graph\\n",', '    "- 03 The graph\\n",'),
    ("screenshot lab_02_graph.png", "screenshot lab_03_graph.png"),
    ('"[02 \\u00b7 The graph]"', '"[03 \\u00b7 The graph]"'),  # a notebook written with ensure_ascii
])
def test_a_swap_rewrites_every_kind_of_reference(before, after):
    assert rewrite(before, {"02": "03", "03": "02"}) == after


@pytest.mark.parametrize("text", [
    "torch 2.13.0 and 0.02 and 1e-02",      # numbers that are not chapters
    "x = t[02:03]; 12.5 and v1.02.3",
    "02_graphics.png and b02_graph",          # another name that merely starts like a slug
    "the value 02 and '03'",                  # a bare or quoted number outside the chapter map
])
def test_other_numbers_stay(text):
    assert rewrite(text, {"02": "03", "03": "02"}) == text


def test_quoted_numbers_change_only_in_the_chapter_map():
    assert rewrite('("02", "03")', {"02": "04"}, quoted=True) == '("04", "03")'
    assert rewrite('("02", "03")', {"02": "04"}) == '("02", "03")'


@pytest.mark.parametrize("moves, message", [
    ({"07": "08"}, "no chapter 07"),
    ({"01": "04", "02": "04"}, "same number"),
    ({"01": "02"}, "is not moved"),
    ({"1": "02"}, "two-digit"),
])
def test_bad_moves_are_refused(moves, message):
    with pytest.raises(ValueError, match=message):
        renumber.check_moves(moves, set(SLUGS))


def test_parse_moves():
    assert renumber.parse_moves(["02:04", "03:05"]) == {"02": "04", "03": "05"}
    with pytest.raises(ValueError, match="OLD:NEW"):
        renumber.parse_moves(["0204"])
    with pytest.raises(ValueError, match="twice"):
        renumber.parse_moves(["02:04", "02:05"])


def notebook(*lines):
    # as nbformat writes it: one JSON string per line, non-ASCII characters as they are
    return json.dumps({"cells": [{"cell_type": "markdown", "source": list(lines)}]}, indent=1, ensure_ascii=False)


def test_renumber_moves_files_and_rewrites_a_small_course(tmp_path):
    files = {
        "book/01_tensors.ipynb": notebook("# 01 · Tensors\n", "Next: [02 · The graph](02_graph.ipynb)"),
        "book/02_graph.ipynb": notebook("# 02 · The graph\n", "After chapter 01."),
        "book/03_engine.ipynb": notebook("# 03 · The engine\n", "Runs chapter 02's graph."),
        "solutions/02_graph.ipynb": notebook('check("02.walk_graph", walk_graph)'),
        "package/glasstorch/course/exercises/ch02.py": 'exercise(id="02.walk_graph")\n',
        "package/glasstorch/course/chapter_map.py": 'CHAPTERS = (Chapter("02", "The graph"), Chapter("03", "x"))\n',
        "tests/wrong_answers/ch03.py": "# wrong answers for 03.run_backward\n",
        "README.md": "- 02 The graph\n- 03 The engine\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)

    renumber.renumber(tmp_path, {"02": "03", "03": "04"}, execute=False, log=lambda *_: None)

    names = sorted(str(p) for p in renumber.tracked_files(tmp_path))
    assert names == sorted(["README.md", "book/01_tensors.ipynb", "book/03_graph.ipynb", "book/04_engine.ipynb",
                            "package/glasstorch/course/chapter_map.py", "package/glasstorch/course/exercises/ch03.py",
                            "solutions/03_graph.ipynb", "tests/wrong_answers/ch04.py"])
    read = lambda name: (tmp_path / name).read_text(encoding="utf-8")  # noqa: E731
    assert "[03 · The graph](03_graph.ipynb)" in read("book/01_tensors.ipynb")
    assert "# 04 · The engine" in read("book/04_engine.ipynb") and "chapter 03's graph" in read("book/04_engine.ipynb")
    assert read("package/glasstorch/course/exercises/ch03.py") == 'exercise(id="03.walk_graph")\n'
    assert read("package/glasstorch/course/chapter_map.py") == 'CHAPTERS = (Chapter("03", "The graph"), Chapter("04", "x"))\n'
    assert read("tests/wrong_answers/ch04.py") == "# wrong answers for 04.run_backward\n"
    assert read("README.md") == "- 03 The graph\n- 04 The engine\n"
    json.loads(read("book/03_graph.ipynb"))  # still a notebook
