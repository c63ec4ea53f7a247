"""The grader's reports: a table for people, a class summary, JSON, JUnit XML and CSV for learning
platforms, spreadsheets and CI, and a feedback file (Markdown and HTML) per learner and notebook.

Everything in a report that a submission could have chosen (its file name, the messages its code
raised, what its functions returned) is made safe for each format here: lone surrogates (from a
non-UTF-8 file name, or a string a notebook built) are escaped, characters XML forbids are dropped,
a CSV cell that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``) is neutralised,
terminal control characters never reach the screen, Markdown and HTML are escaped. Each notebook is
reported inside its own error boundary: one that cannot be shown is reported as such, and the
others still are. Files are written whole or not at all (a temporary file, then a rename), by the
grader alone, after every sandbox of the run has ended.
"""
from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .checking import NOT_WRITTEN, PASSED
from .i18n import _, get_language

if TYPE_CHECKING:
    from .grade import NotebookGrade

_MARKS = {PASSED: "✔", NOT_WRITTEN: "…"}


@dataclass(frozen=True)
class RunInfo:
    """What every report of one run says about the run itself."""

    seed: int | None = None
    sandbox: str = ""
    limits: str = ""


# -- safe text ------------------------------------------------------------------------------------

def clean(text: Any) -> str:
    """``text`` as a string that can be encoded: a lone surrogate becomes an escape (``\\xff`` for
    a byte of a non-UTF-8 file name, which ``os.fsdecode`` turned into one; ``\\ud800`` for one a
    string holds)."""
    text = text if isinstance(text, str) else str(text)
    return _SURROGATE.sub(_escape_surrogate, text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


_XML_FORBIDDEN = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def xml_text(text: Any) -> str:
    """Text XML 1.0 allows (it has no escape for control characters: they are dropped)."""
    return _XML_FORBIDDEN.sub("", clean(text))


def csv_cell(value: Any) -> Any:
    """A cell no spreadsheet runs as a formula: text starting with = + - @ (or a tab or carriage
    return, which some strip first) gets a leading apostrophe."""
    if not isinstance(value, str):
        return value
    value = clean(value)
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def terminal_text(text: Any) -> str:
    """Text for the terminal: no escape sequences (they could rewrite what the teacher sees)."""
    return _TERMINAL_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", clean(text))


def _cleaned(value: Any) -> Any:
    """``value`` (JSON data) with every string cleaned."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(key): _cleaned(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cleaned(item) for item in value]
    return value


def show(text: str, stream: Any = None) -> None:
    """Print ``text`` safely on any terminal, whatever its encoding."""
    stream = stream or sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    print(terminal_text(text).encode(encoding, "backslashreplace").decode(encoding), file=stream)


def _each(grades: list["NotebookGrade"], make: Callable[["NotebookGrade"], Any],
          fallback: Callable[["NotebookGrade", Exception], Any]) -> list:
    """``make(grade)`` for each grade; a grade it fails on gets ``fallback(grade, error)`` instead."""
    made = []
    for grade in grades:
        try:
            made.append(make(grade))
        except Exception as error:  # noqa: BLE001 - one notebook must not sink the class's report
            made.append(fallback(grade, error))
    return made


def _unshowable(error: Exception) -> str:
    return f"the report could not show this notebook ({type(error).__name__})"


def _name(grade: "NotebookGrade") -> str:
    try:
        return clean(grade.name)
    except Exception:  # noqa: BLE001
        return "?"


# -- for people -----------------------------------------------------------------------------------

def header(run: RunInfo) -> str:
    lines = []
    if run.seed is not None:
        lines.append(f"seed {run.seed} (to repeat this grading: --seed {run.seed})")
    if run.sandbox:
        lines.append(f"sandbox: {run.sandbox}" + (f"; limits per notebook: {run.limits}" if run.limits != "none" else ""))
    return "\n".join(lines)


def table(grades: list["NotebookGrade"], run: RunInfo | None = None) -> str:
    """Per notebook: its score, one line per exercise, and its cells that went wrong."""
    blocks = _each(grades, _table_block, lambda grade, error: f"{_name(grade)}: {_unshowable(error)}")
    head = header(run) if run is not None else ""
    return "\n\n".join(([head] if head else []) + blocks)


def _table_block(grade: "NotebookGrade") -> str:
    if grade.error and not grade.results:
        return f"{clean(grade.name)}: not graded: {clean(grade.error)}"
    lines = [f"{clean(grade.name)} (chapter {grade.chapter}): {grade.score}/{grade.max_score} points, {grade.seconds:.1f} s"]
    width = max(len(result.exercise.id) for result in grade.results)
    for result in grade.results:
        lines.append(f"  {_MARKS.get(result.status, '✘')} {result.exercise.id:<{width}}  "
                     f"{result.points}/{result.exercise.points}  {result.status}: {clean(result.summary())}")
    if grade.error:
        lines.append(f"  note: {clean(grade.error)}")
    lines.extend(f"  note: {clean(problem)}" for problem in grade.problems())
    return "\n".join(lines)


def exercise_ids(grades: list["NotebookGrade"]) -> list[str]:
    """Every exercise met in ``grades``, in chapter order (and in each chapter, the notebook's)."""
    ids = dict.fromkeys(result.exercise.id for grade in grades for result in grade.results)
    return sorted(ids, key=lambda exercise_id: (exercise_id.split(".")[0], list(ids).index(exercise_id)))


def summary(grades: list["NotebookGrade"]) -> str:
    """The class: how many notebooks were graded, the mean score and each exercise's pass rate."""
    graded = [grade for grade in grades if grade.results]
    lines = [f"\nclass summary: {len(grades)} notebooks, {len(graded)} graded, {len(grades) - len(graded)} not gradable"]
    for exercise_id in exercise_ids(grades):
        results = [r for grade in graded for r in grade.results if r.exercise.id == exercise_id]
        passed = sum(r.passed for r in results)
        share = f" ({100 * passed / len(results):.0f}%)" if results else ""
        lines.append(f"  {exercise_id:<28} passed by {passed}/{len(results)}{share}")
    return "\n".join(lines)


# -- JSON, JUnit, CSV -----------------------------------------------------------------------------

def as_dict(grade: "NotebookGrade", run: RunInfo | None = None) -> dict:
    cells = {}
    for key, code in grade.code.items():  # every code cell, with what the grader ran
        cells[key] = {**grade.steps.get(key, {"status": "not run", "error": None}), "code": code}
    cells.update({key: step for key, step in grade.steps.items() if key not in cells})
    return _cleaned({
        "notebook": grade.name, "path": os.fsdecode(grade.path), "chapter": grade.chapter,
        "score": grade.score, "max_score": grade.max_score, "error": grade.error,
        "seconds": round(grade.seconds, 2), "seed": grade.seed if grade.seed is not None else (run and run.seed),
        "sandbox": grade.sandbox, "problems": grade.problems(),
        "exercises": [{
            "id": r.exercise.id, "title": r.exercise.title, "status": r.status,
            "points": r.points, "max_points": r.exercise.points, "summary": r.summary(), "feedback": str(r),
            "cases": [{"name": c.name, "passed": c.passed, "message": c.message} for c in r.cases],
        } for r in grade.results],
        "cells": cells,
    })


def write_json(grades: list["NotebookGrade"], path: Path, run: RunInfo | None = None) -> None:
    """A list with one object per notebook (its cells' code included: what was graded)."""
    entries = _each(grades, lambda grade: as_dict(grade, run), lambda grade, error: {
        "notebook": _name(grade), "score": 0, "max_score": 0, "error": _unshowable(error),
        "seed": run.seed if run else None})
    write_atomic(path, (json.dumps(entries, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


def write_junit(grades: list["NotebookGrade"], path: Path, run: RunInfo | None = None) -> None:
    """One ``<testsuite>`` per notebook, one ``<testcase>`` per exercise (the form CI servers read)."""
    suites = ET.Element("testsuites", name="glasstorch-grade")
    for suite in _each(grades, _junit_suite, _junit_fallback):
        if run is not None and run.seed is not None:
            properties = ET.Element("properties")
            ET.SubElement(properties, "property", name="seed", value=str(run.seed))
            suite.insert(0, properties)
        suites.append(suite)
    ET.indent(suites)
    out = io.BytesIO()
    ET.ElementTree(suites).write(out, encoding="utf-8", xml_declaration=True)
    write_atomic(path, out.getvalue())


def _junit_suite(grade: "NotebookGrade") -> ET.Element:
    name = xml_text(grade.name)
    failing = sum(not r.passed for r in grade.results)
    suite = ET.Element("testsuite", name=name, tests=str(max(1, len(grade.results))), failures=str(failing),
                       errors="1" if grade.error and not grade.results else "0", time=f"{grade.seconds:.2f}")
    if grade.error and not grade.results:
        case = ET.SubElement(suite, "testcase", classname=name, name="notebook")
        ET.SubElement(case, "error", message=xml_text(grade.error))
    for r in grade.results:
        case = ET.SubElement(suite, "testcase", classname=name, name=r.exercise.id)
        if not r.passed:
            ET.SubElement(case, "failure", message=xml_text(f"{r.status}: {r.summary()}")).text = xml_text(str(r))
    return suite


def _junit_fallback(grade: "NotebookGrade", error: Exception) -> ET.Element:
    name = xml_text(_name(grade))
    suite = ET.Element("testsuite", name=name, tests="1", failures="0", errors="1", time="0")
    case = ET.SubElement(suite, "testcase", classname=name, name="notebook")
    ET.SubElement(case, "error", message=_unshowable(error))
    return suite


def write_csv(grades: list["NotebookGrade"], path: Path, run: RunInfo | None = None) -> None:
    """A spreadsheet of the class: one row per notebook, one column per exercise."""
    ids = exercise_ids(grades)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["notebook", "chapter", "score", "max_score", *ids, "error", "seed"])
    seed = run.seed if run is not None and run.seed is not None else ""

    def row(grade: "NotebookGrade") -> list:
        points = {r.exercise.id: r.points for r in grade.results}
        return [grade.name, grade.chapter or "", grade.score, grade.max_score,
                *[points.get(i, "") for i in ids], grade.error or "", grade.seed if grade.seed is not None else seed]

    for cells in _each(grades, row, lambda grade, error: [_name(grade), "", 0, 0, *[""] * len(ids),
                                                          _unshowable(error), seed]):
        writer.writerow([csv_cell(cell) for cell in cells])
    write_atomic(path, out.getvalue().encode("utf-8"))


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temporary file beside it, then a rename
    (an existing report keeps its permissions)."""
    path = Path(path)
    folder = path.parent
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


# -- feedback, one file per learner and notebook --------------------------------------------------

def write_feedback(grades: list["NotebookGrade"], folder: Path, run: RunInfo | None = None) -> None:
    """``folder/<the notebook's path>.md`` and ``.html``: each exercise's score, the failing case,
    expected versus got and the hint, as ``check()`` shows them, and the notebook's problems."""
    folder = Path(folder)
    taken: set[str] = set()
    for grade in grades:
        relative = _feedback_path(_name(grade), taken)
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            markdown, page = feedback_markdown(grade, run), feedback_html(grade, run)
        except Exception as error:  # noqa: BLE001 - one notebook must not sink the others' feedback
            markdown = f"# Feedback: {_md(_name(grade))}\n\n{_unshowable(error)}\n"
            page = _html_page(_name(grade), f"<p>{html.escape(_unshowable(error))}</p>")
        write_atomic(target.with_suffix(".md"), markdown.encode("utf-8"))
        write_atomic(target.with_suffix(".html"), page.encode("utf-8"))


def _feedback_path(name: str, taken: set[str]) -> str:
    """A safe relative path for a notebook's feedback: its own path, each part stripped of what a
    file name should not hold (no '..', no hidden files, no separators)."""
    parts = [re.sub(r"[^\w.\- ]", "_", part).lstrip(". ") or "_" for part in name.split("/")]
    parts[-1] = parts[-1].removesuffix(".ipynb") or "_"
    relative, n = "/".join(parts), 1
    while relative.lower() in taken:
        n += 1
        relative = "/".join(parts[:-1] + [f"{parts[-1]}-{n}"])
    taken.add(relative.lower())
    return relative


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~!])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", terminal_text(text).replace("\n", " "))


def _block(text: str) -> str:
    """Text shown as is in Markdown: an indented code block (nothing in it can end the block)."""
    return "\n".join("    " + line for line in terminal_text(text).splitlines())


def _facts(grade: "NotebookGrade", run: RunInfo | None) -> list[str]:
    facts = []
    if grade.chapter:
        facts.append(_("chapter {chapter}").format(chapter=grade.chapter))
    if grade.results:
        facts.append(_("{score}/{max_score} points").format(score=grade.score, max_score=grade.max_score))
    seed = grade.seed if grade.seed is not None else (run.seed if run else None)
    if seed is not None:
        facts.append(_("graded with seed {seed}").format(seed=seed))
    return facts


def feedback_markdown(grade: "NotebookGrade", run: RunInfo | None = None) -> str:
    lines = ["# " + _("Feedback: {notebook}").format(notebook=_md(grade.name)), "", " · ".join(_facts(grade, run)), ""]
    if grade.error:
        lines += [f"**{_('Not graded:')}**", "", _block(grade.error), ""]
    for r in grade.results:
        lines += [f"## {_md(r.exercise.id)}: {_md(_(r.exercise.title))} ({r.points}/{r.exercise.points})", "",
                  _block(str(r)), ""]
    problems = grade.problems()
    if problems:
        lines += ["## " + _("Cells that went wrong"), "", _block("\n".join(problems)), ""]
    return "\n".join(lines)


def feedback_html(grade: "NotebookGrade", run: RunInfo | None = None) -> str:
    def esc(text: Any) -> str:
        return html.escape(terminal_text(text))

    body = [f"<h1>{esc(_('Feedback: {notebook}').format(notebook=grade.name))}</h1>",
            f"<p>{esc(' · '.join(_facts(grade, run)))}</p>"]
    if grade.error:
        body.append(f'<p class="error"><strong>{esc(_("Not graded:"))}</strong> {esc(grade.error)}</p>')
    for r in grade.results:
        mark = "passed" if r.passed else "failed"
        body.append(f'<section class="{mark}"><h2>{esc(r.exercise.id)}: {esc(_(r.exercise.title))} '
                    f"({r.points}/{r.exercise.points})</h2><pre>{esc(str(r))}</pre></section>")
    problems = grade.problems()
    if problems:
        body.append(f"<h2>{esc(_('Cells that went wrong'))}</h2><pre>" + esc("\n".join(problems)) + "</pre>")
    return _html_page(grade.name, "\n".join(body))


def _html_page(title: str, body: str) -> str:
    lang = get_language().replace("_", "-")
    return (f"<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(terminal_text(_('Feedback: {notebook}').format(notebook=title)))}</title><style>"
            "body{font-family:system-ui,sans-serif;max-width:52em;margin:2em auto;padding:0 1em;line-height:1.45}"
            "pre{background:#f5f5f5;padding:.8em;overflow-x:auto;white-space:pre-wrap}"
            "section.passed h2{color:#1a7f37}section.failed h2{color:#b3261e}.error{color:#b3261e}"
            "</style></head><body>\n" + body + "\n</body></html>\n")
