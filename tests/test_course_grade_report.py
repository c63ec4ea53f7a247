"""The grader's report stage and its reading of what it does not trust, without kernels (fast):
text made safe per format, one notebook's error boundary, atomic files, feedback files, answers
validated (malformed: 0 with the reason), files read without following links or blocking,
submissions refused in words that never quote them. The same attacks, run for real by notebooks in
a sandbox, are in test_grade_sandbox.py."""
from __future__ import annotations

import csv
import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from glasstorch.course import grade, grade_report
from glasstorch.course.checking import FAILED, MISSING, CheckResult, get_exercise
from glasstorch.course.comparison import first_difference
from glasstorch.course.grade_files import Refused, read_untrusted
from glasstorch.course.grade_sandbox import Limits, parse_size
from glasstorch.course.observation import Raised

EXERCISES = [get_exercise(i) for i in ("05.mul_backward", "05.mm_backward", "05.run_backward")]
RUN = grade_report.RunInfo(seed=4242, sandbox="bubblewrap 0.8.0", limits=Limits().describe())


# -- safe text ------------------------------------------------------------------------------------

def test_lone_surrogates_are_escaped_as_the_bytes_or_code_points_they_were() -> None:
    assert grade_report.clean("a\udcff\udcfeb") == "a\\xff\\xfeb"      # a non-UTF-8 file name's bytes
    assert grade_report.clean("x\ud800y") == "x\\ud800y"               # a lone surrogate a string holds
    assert grade_report.clean("été ✔") == "été ✔"


def test_xml_loses_only_what_it_cannot_hold() -> None:
    assert grade_report.xml_text("a\x00b\x01\x1b[2J\tc\nd\ufffe\ud800") == "ab[2J\tc\nd\\ud800"


@pytest.mark.parametrize("cell", ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"])
def test_a_csv_cell_is_never_a_formula(cell: str) -> None:
    assert grade_report.csv_cell(cell) == "'" + cell
    assert grade_report.csv_cell("alice/05.ipynb") == "alice/05.ipynb" and grade_report.csv_cell(3) == 3


def test_the_terminal_gets_no_escape_sequences() -> None:
    assert grade_report.terminal_text("\x1b[2Jok\x07\n\tx\x9b") == "\\x1b[2Jok\\x07\n\tx\\x9b"
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    grade_report.show("✔ \udcff", out)
    out.flush()
    assert raw.getvalue() == b"\\u2714 \\xff\n"


# -- the reports ----------------------------------------------------------------------------------

def _grades() -> list:
    good = grade.NotebookGrade(Path("alice/05.ipynb"), "alice/05.ipynb", chapter="03", seed=4242,
                               results=[CheckResult(ex, MISSING, detail="x") for ex in EXERCISES],
                               code={"cell 1": "def mul_backward(grad, a, b):\n    ..."},
                               steps={"cell 1": {"status": "error", "error": "ValueError: \x1b[2J\ud800"}})
    broken = grade.NotebookGrade(Path("=evil\udcff.ipynb"), "=evil\udcff.ipynb", chapter="03",
                                 results=[CheckResult(EXERCISES[0], FAILED, cases=[])])  # summary() raises
    ungraded = grade.NotebookGrade(Path("@bob.ipynb"), "@bob.ipynb", error="not a valid notebook: it is not JSON")
    return [good, broken, ungraded]


def test_a_notebook_that_cannot_be_shown_does_not_sink_the_others(tmp_path: Path) -> None:
    grades = _grades()
    for writer, name in ((grade_report.write_json, "g.json"), (grade_report.write_junit, "g.xml"),
                         (grade_report.write_csv, "g.csv"), (grade_report.write_feedback, "feedback")):
        writer(grades, tmp_path / name, RUN)
    entries = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    assert [e["notebook"] for e in entries] == ["alice/05.ipynb", "=evil\\xff.ipynb", "@bob.ipynb"]
    assert entries[1]["error"] == "the report could not show this notebook (StopIteration)"
    assert entries[0]["cells"]["cell 1"]["error"] == "ValueError: \x1b[2J\\ud800"
    suites = ET.parse(tmp_path / "g.xml").getroot()
    assert [s.get("name") for s in suites] == ["alice/05.ipynb", "=evil\\xff.ipynb", "@bob.ipynb"]
    rows = list(csv.reader((tmp_path / "g.csv").open(encoding="utf-8")))
    assert [row[0] for row in rows[1:]] == ["alice/05.ipynb", "'=evil\\xff.ipynb", "'@bob.ipynb"]
    assert rows[0][-1] == "seed" and rows[1][-1] == "4242"
    table = grade_report.table(grades, RUN)
    assert "seed 4242 (to repeat this grading: --seed 4242)" in table and "could not show" in table
    assert sorted(p.name for p in (tmp_path / "feedback").iterdir()) == [
        "_bob.html", "_bob.md", "_evil_xff.html", "_evil_xff.md", "alice"]


def test_the_json_report_keeps_each_graded_cells_code() -> None:
    entry = grade_report.as_dict(_grades()[0], RUN)
    assert entry["cells"]["cell 1"]["code"].startswith("def mul_backward(")
    assert entry["seed"] == 4242


def test_a_report_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "grades.json"
    path.write_text("the previous report\n")
    path.chmod(0o640)

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(grade_report.os, "replace", interrupted)
        with pytest.raises(KeyboardInterrupt):
            grade_report.write_json(_grades(), path)
    assert path.read_text() == "the previous report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["grades.json"]  # no temporary file left
    grade_report.write_atomic(path, b"new\n")
    assert path.read_bytes() == b"new\n" and path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["grades.json"]  # no temporary file left


def test_feedback_shows_what_check_shows(tmp_path: Path) -> None:
    ex = EXERCISES[0]
    cases = ex.make_cases(7)
    result = grade.judge(ex, cases, [Raised("ValueError", "<b>no</b>")] * len(cases))
    notebook = grade.NotebookGrade(Path("x"), "../../etc/.passwd", chapter="03", results=[result], seed=7)
    grade_report.write_feedback([notebook], tmp_path / "fb", RUN)
    md = (tmp_path / "fb" / "_" / "_" / "etc" / "passwd.md").read_text()
    assert "0/1" in md and "Case '" in md and "Hint:" in md and "graded with seed 7" in md
    assert "\n    " + str(result).splitlines()[0] in md  # check()'s words, as a block nothing can break out of
    page = (tmp_path / "fb" / "_" / "_" / "etc" / "passwd.html").read_text()
    assert "&lt;b&gt;no&lt;/b&gt;" in page and "<b>no</b>" not in page


# -- answers --------------------------------------------------------------------------------------

def _judged(answer: bytes | None, **run: object) -> grade.NotebookGrade:
    notebook = grade.NotebookGrade(Path("x"), "x", chapter="03", code={"cell 0": "pass"})
    grade._judge_run(notebook, grade._Run(answer=answer, **run), EXERCISES, seed=3, cell_timeout=60, timeout=600,
                     limits=Limits())
    return notebook


def _answer(steps: object = None, observations: object = None) -> bytes:
    lines = {ex.id: {"lines": []} for ex in EXERCISES} if observations is None else observations
    return json.dumps({"steps": {"cell 0": {"status": "ok", "error": None}} if steps is None else steps,
                       "observations": lines}).encode()


@pytest.mark.parametrize("answer, why", [
    (None, "larger than 64 MB"),
    (b"{not json", "it is not JSON"),
    (b"\xff\xfe", "it is not JSON"),
    (b"[1, 2]", "it is not a JSON object"),
    (b"[" * 100_000, "it is not JSON"),
    (_answer(steps={"cell 99": {"status": "ok"}}), "names steps the notebook does not have"),
    (_answer(steps={"cell 0": {"status": "great"}}), "has no known status"),
    (_answer(steps={"cell 0": {"status": "ok", "error": 3}}), "an error that is not text"),
    (_answer(observations={}), "it does not have the observations of each exercise"),
    (_answer(observations={ex.id: {"lines": ["{}"]} for ex in EXERCISES}), "line 1 of the observations of 05.mul"),
    (_answer(observations={ex.id: {"problem": "it is a symbolic link"} for ex in EXERCISES}), "it is a symbolic link"),
])
def test_a_malformed_answer_is_zero_with_the_reason(answer: bytes | None, why: str) -> None:
    judged = _judged(answer)
    assert judged.score == 0 and judged.error.startswith("its answer was malformed") and why in judged.error
    assert {r.detail for r in judged.results} == {f"not graded: {judged.error}"}


def test_no_answer_is_zero_with_the_reason() -> None:
    assert "stopped without an answer (killed)" in _judged(b"", log=b"...\nkilled\n", status=-9).error
    assert _judged(b"", cgroup_hits=["memory"]).error == "exceeded the memory limit (2 GiB)"
    assert _judged(b"x", timed_out=True).error == "the notebook ran longer than 600 s and was stopped"


@pytest.mark.parametrize("error, reason", [
    ("MemoryError: ", "exceeded the memory limit (2 GiB)"),
    ("OSError: [Errno 27] File too large", "exceeded the limit on files written (256 MiB)"),
    ("OSError: [Errno 28] No space left on device", "exceeded the limit on files written (256 MiB)"),
    ("OSError: [Errno 24] Too many open files", "exceeded the open-file limit (256)"),
    ("BlockingIOError: [Errno 11] Resource temporarily unavailable", "exceeded the process limit (64 processes"),
])
def test_a_broken_limit_is_zero_with_the_limit_named(error: str, reason: str) -> None:
    judged = _judged(_answer(steps={"cell 0": {"status": "error", "error": error}}))
    assert judged.score == 0 and judged.error.startswith(reason)


def test_a_list_where_an_array_is_expected_gets_the_dtype_check() -> None:
    expected = np.array([1.0, 2.0], np.float32)
    assert "expected an array of dtype float32, got a list (of float64 values)" in first_difference(
        expected, [1.0, 2.0], rtol=1e-5, atol=1e-6)
    assert first_difference(np.array([1, 2]), [1, 2], rtol=1e-5, atol=1e-6) is None
    assert "a list that is not one" in first_difference(expected, [1.0, [2.0, 3.0]], rtol=1e-5, atol=1e-6)


# -- files the grader does not trust --------------------------------------------------------------

def test_untrusted_files_are_read_without_links_blocking_or_end(tmp_path: Path) -> None:
    (tmp_path / "ok").write_bytes(b"12345")
    assert read_untrusted(tmp_path / "ok", 5) == b"12345"
    (tmp_path / "link").symlink_to(tmp_path / "ok")
    (tmp_path / "zero").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo")
    for name, why in (("link", "it is a symbolic link"), ("zero", "it is a symbolic link"),
                      ("fifo", "it is not a regular file"), ("missing", "it does not exist")):
        with pytest.raises(Refused, match=why):
            read_untrusted(tmp_path / name, 100)
    with pytest.raises(Refused, match="it is not a regular file"):
        read_untrusted("/dev/zero", 100)
    with pytest.raises(Refused, match="larger than 4 bytes"):
        read_untrusted(tmp_path / "ok", 4)
    (tmp_path / "class").mkdir()
    with pytest.raises(Refused, match="outside the folder"):
        read_untrusted(tmp_path / "class" / ".." / "ok", 100, within=tmp_path / "class")


def test_a_submission_is_refused_in_words_that_never_quote_it(tmp_path: Path) -> None:
    for content in (b"TOP-SECRET line one\nline two", b'{"cells": "TOP-SECRET"}', b'"TOP-SECRET"',
                    b"\xffTOP-SECRET", json.dumps({"metadata": {"glasstorch": {"chapter": "TOP-SECRET"}},
                                                   "nbformat": 4, "nbformat_minor": 5, "cells": []}).encode()):
        path = tmp_path / "x.ipynb"
        path.write_bytes(content)
        with pytest.raises(grade.SubmissionError) as refused:
            grade.read_submission(path)
        assert "SECRET" not in str(refused.value) and "line two" not in str(refused.value)


def test_folders_list_links_so_that_they_are_refused_and_skip_hidden_ones(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "n.ipynb").write_text("{}")
    (tmp_path / "a" / "notes.txt").write_text("")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "n.ipynb").write_text("{}")
    (tmp_path / "b.ipynb").symlink_to(tmp_path / "a" / "n.ipynb")
    (tmp_path / "c").symlink_to(tmp_path / "a", target_is_directory=True)
    found = grade.find_notebooks([tmp_path])
    assert [(name, within) for _, name, within in found] == [("a/n.ipynb", tmp_path), ("b.ipynb", tmp_path),
                                                            ("c", tmp_path)]


def test_limits_are_read_as_sizes() -> None:
    assert parse_size("2G") == 2 << 30 and parse_size("512MiB") == 512 << 20 and parse_size("4096") == 4096
    with pytest.raises(ValueError):
        parse_size("-1G")
