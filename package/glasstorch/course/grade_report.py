"""The grader's reports: a table for people, a class summary, and JSON, JUnit XML and CSV for
learning platforms, spreadsheets and CI."""
from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

from .checking import NOT_WRITTEN, PASSED

if TYPE_CHECKING:
    from .grade import NotebookGrade

_MARKS = {PASSED: "✔", NOT_WRITTEN: "…"}


def table(grades: list["NotebookGrade"]) -> str:
    """Per notebook: its score, one line per exercise, and its cells that went wrong."""
    blocks = []
    for grade in grades:
        if grade.error and not grade.results:
            blocks.append(f"{grade.name}: not graded: {grade.error}")
            continue
        lines = [f"{grade.name} (chapter {grade.chapter}): {grade.score}/{grade.max_score} points, {grade.seconds:.1f} s"]
        width = max(len(result.exercise.id) for result in grade.results)
        for result in grade.results:
            lines.append(f"  {_MARKS.get(result.status, '✘')} {result.exercise.id:<{width}}  "
                         f"{result.points}/{result.exercise.points}  {result.status}: {result.summary()}")
        if grade.error:
            lines.append(f"  note: {grade.error}")
        lines.extend(f"  note: {problem}" for problem in grade.problems())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


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
        lines.append(f"  {exercise_id:<28} passed by {passed}/{len(results)} ({100 * passed / len(results):.0f}%)")
    return "\n".join(lines)


def as_dict(grade: "NotebookGrade") -> dict:
    return {
        "notebook": grade.name, "path": str(grade.path), "chapter": grade.chapter,
        "score": grade.score, "max_score": grade.max_score, "error": grade.error,
        "seconds": round(grade.seconds, 2), "problems": grade.problems(),
        "exercises": [{
            "id": r.exercise.id, "title": r.exercise.title, "status": r.status,
            "points": r.points, "max_points": r.exercise.points, "summary": r.summary(), "feedback": str(r),
            "cases": [{"name": c.name, "passed": c.passed, "message": c.message} for c in r.cases],
        } for r in grade.results],
        "cells": grade.steps,
    }


def write_json(grades: list["NotebookGrade"], path: Path) -> None:
    path.write_text(json.dumps([as_dict(grade) for grade in grades], indent=1, ensure_ascii=False) + "\n")


def write_junit(grades: list["NotebookGrade"], path: Path) -> None:
    """One ``<testsuite>`` per notebook, one ``<testcase>`` per exercise (the form CI servers read)."""
    suites = ET.Element("testsuites", name="glasstorch-grade")
    for grade in grades:
        failing = sum(not r.passed for r in grade.results)
        suite = ET.SubElement(suites, "testsuite", name=grade.name, tests=str(max(1, len(grade.results))),
                              failures=str(failing), errors="1" if grade.error and not grade.results else "0",
                              time=f"{grade.seconds:.2f}")
        if grade.error and not grade.results:
            case = ET.SubElement(suite, "testcase", classname=grade.name, name="notebook")
            ET.SubElement(case, "error", message=grade.error)
        for r in grade.results:
            case = ET.SubElement(suite, "testcase", classname=grade.name, name=r.exercise.id)
            if not r.passed:
                ET.SubElement(case, "failure", message=f"{r.status}: {r.summary()}").text = str(r)
    ET.indent(suites)
    ET.ElementTree(suites).write(path, encoding="unicode", xml_declaration=True)


def write_csv(grades: list["NotebookGrade"], path: Path) -> None:
    """A spreadsheet of the class: one row per notebook, one column per exercise."""
    ids = exercise_ids(grades)
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["notebook", "chapter", "score", "max_score", *ids, "error"])
        for grade in grades:
            points = {r.exercise.id: r.points for r in grade.results}
            writer.writerow([grade.name, grade.chapter or "", grade.score, grade.max_score,
                             *[points.get(i, "") for i in ids], grade.error or ""])
