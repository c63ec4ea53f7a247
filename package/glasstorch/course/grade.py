"""The grader: score exercise notebooks, one learner's or a whole class's.

    glasstorch-grade NOTEBOOK_OR_FOLDER... [-j 4] [--json F] [--junit F] [--csv F]
    python -m glasstorch.course.grade ...        make grade            (your own exercises/)

For every notebook: check that it is a glasstorch exercise notebook, run it top to bottom in a
fresh kernel of its own process (``grade_run``), with a time limit per cell and per notebook, then
judge what its functions did, here, with glasstorch's own answers. A folder is searched for
notebooks and graded in parallel, with a progress bar and a class summary.

Why it can be trusted with what students submit: submitted code only ever runs in the kernel, and
the kernel only reports *observations* (what the functions returned on the grader's inputs, drawn
from its own seed). Comparing them with the right answers happens in this process, which never
runs submitted code; so redefining ``check``, patching ``np.allclose`` or patching glasstorch's
reference inside a submission changes nothing here. (A submission that calls glasstorch's own
implementation instead of writing one is a copy, not a trick: the JSON report lists each
notebook's cells for a teacher who wants to read them.)
"""
from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import nbformat

from .checking import MISSING, TIMED_OUT, CheckResult, Exercise, exercises_of, get_exercise, judge
from .grade_run import MAX_OUTPUT_BYTES
from .observation import loads

DEFAULT_SEED = 1            # not the notebooks' seed 0: a function that memorised its cases fails
DEFAULT_CELL_TIMEOUT = 60   # seconds per cell
DEFAULT_TIMEOUT = 600       # seconds per notebook
MAX_NOTEBOOK_BYTES = 20_000_000


class SubmissionError(Exception):
    """The file cannot be graded (not a notebook, not from this course, ...)."""


@dataclass
class NotebookGrade:
    path: Path
    name: str
    chapter: str | None = None
    results: list[CheckResult] = field(default_factory=list)
    error: str | None = None
    steps: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def score(self) -> int:
        return sum(result.points for result in self.results)

    @property
    def max_score(self) -> int:
        return sum(result.exercise.points for result in self.results)

    def problems(self) -> list[str]:
        """The submitted cells that raised, timed out or were left out, in words."""
        found = []
        for key, step in self.steps.items():
            if key.startswith("cell ") and step["status"] != "ok":
                what = step["error"] if step["status"] in ("error", "skipped") else step["status"]
                found.append(f"{key}: {what}")
            if step.get("output_truncated"):
                found.append(f"{key}: output cut to its first {MAX_OUTPUT_BYTES // 1000} kB")
        return found


# -- one notebook ---------------------------------------------------------------------------------

def read_submission(path: Path) -> tuple[nbformat.NotebookNode, str]:
    """The notebook and its chapter, or a :class:`SubmissionError` that says what is wrong."""
    try:
        size = path.stat().st_size
    except OSError as error:
        raise SubmissionError(f"cannot read it: {error.strerror}") from None
    if size > MAX_NOTEBOOK_BYTES:
        raise SubmissionError(f"it is {size / 1e6:.0f} MB; an exercise notebook is far smaller (clear its outputs)")
    try:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise SubmissionError(f"not a valid notebook: it is not JSON ({error})") from None
    except nbformat.ValidationError as error:
        raise SubmissionError(f"not a valid notebook: {error.message}") from None
    except Exception as error:  # noqa: BLE001 - nbformat raises several kinds for broken files
        raise SubmissionError(f"not a valid notebook: {error}") from None
    chapter = notebook.metadata.get("glasstorch", {}).get("chapter")
    if not isinstance(chapter, str):
        raise SubmissionError("not a glasstorch exercise notebook (it has no glasstorch metadata): "
                              "start from the notebooks in exercises/")
    if not exercises_of(chapter):
        raise SubmissionError(f"chapter {chapter!r} has no exercises")
    return notebook, chapter


# glasstorch keeps global state (grad mode, the random generator, classes the checks patch for a
# moment): the references are computed one at a time, though notebooks are graded in threads.
_REFERENCE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=None)
def _expected_unlocked(exercise_id: str, seed: int) -> tuple:
    ex = get_exercise(exercise_id)
    cases = ex.make_cases(seed)
    return tuple(cases), tuple(ex.observe_case(ex.reference, case) for case in cases)


def _expected(exercise_id: str, seed: int) -> tuple:
    """The cases and the reference's observations (once per exercise and seed, in this process)."""
    with _REFERENCE_LOCK:
        return _expected_unlocked(exercise_id, seed)


def _judge_collected(ex: Exercise, seed: int, lines: list[Any], step: dict | None, cell_timeout: int) -> CheckResult:
    cases, expected = _expected(ex.id, seed)
    records = [record for record in lines if isinstance(record, dict)]
    missing = next((record["missing"] for record in records if "missing" in record), None)
    if missing:
        return CheckResult(ex, MISSING, detail=missing)
    observed = [record.get("observed") for record in records]
    status = (step or {}).get("status")
    if len(observed) < len(cases) and status in ("timed out", "skipped"):
        return CheckResult(ex, TIMED_OUT, detail=f"stopped after {len(observed)} of {len(cases)} cases: "
                                                  f"your function ran longer than {cell_timeout} s")
    if not observed:
        why = (step or {}).get("error") or "the notebook stopped before this exercise"
        return CheckResult(ex, MISSING, detail=f"not graded: {why}")
    return judge(ex, list(cases), observed, list(expected))


def _read_lines(path: Path) -> list[Any]:
    if not path.exists():
        return []
    lines = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            lines.append(loads(line))
        except Exception:  # noqa: BLE001 - a line cut short by a time limit, or tampered with: not an observation
            break
    return lines


def _worker_env() -> dict:
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])  # so the kernel imports this glasstorch
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    return env


def grade_notebook(path: Path, name: str | None = None, *, seed: int = DEFAULT_SEED,
                   cell_timeout: int = DEFAULT_CELL_TIMEOUT, timeout: int = DEFAULT_TIMEOUT) -> NotebookGrade:
    """Grade one notebook. Never raises for anything about the submission: problems are reported
    in the returned grade."""
    grade = NotebookGrade(path, name or path.name)
    start = time.monotonic()
    try:
        _, grade.chapter = read_submission(path)
    except SubmissionError as error:
        grade.error = str(error)
        return grade
    exercises = exercises_of(grade.chapter)
    with tempfile.TemporaryDirectory(prefix="glasstorch-grade-") as tmp:
        workdir = Path(tmp)
        command = [sys.executable, "-m", "glasstorch.course.grade_run", str(path), str(workdir),
                   *[ex.id for ex in exercises], "--seed", str(seed), "--cell-timeout", str(cell_timeout)]
        with open(workdir / "worker.log", "wb") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=_worker_env(), start_new_session=True)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # the kernel follows: it exits when its parent dies
                process.wait()
                grade.error = f"the notebook ran longer than {timeout} s and was stopped"
        report = json.loads((workdir / "run.json").read_text()) if (workdir / "run.json").exists() else {}
        if report.get("fatal"):
            grade.error = report["fatal"]
        elif not report and not grade.error:
            tail = (workdir / "worker.log").read_text(errors="replace")[-500:]
            grade.error = f"the grader could not run the notebook: {tail}"
        grade.steps = report.get("steps", {})
        for ex in exercises:
            lines = _read_lines(workdir / f"{ex.id}.jsonl")
            grade.results.append(_judge_collected(ex, seed, lines, grade.steps.get(f"exercise {ex.id}"), cell_timeout))
    grade.seconds = time.monotonic() - start
    return grade


# -- many notebooks -------------------------------------------------------------------------------

def find_notebooks(paths: Iterable[Path]) -> list[tuple[Path, str]]:
    """Every notebook named by ``paths`` (folders searched recursively), with a display name."""
    found = []
    for given in paths:
        if given.is_dir():
            for path in sorted(given.rglob("*.ipynb")):
                if not any(part.startswith(".") for part in path.relative_to(given).parts):
                    found.append((path, path.relative_to(given).as_posix()))
        else:
            found.append((given, given.as_posix()))
    return found


def grade_all(notebooks: list[tuple[Path, str]], *, jobs: int, progress: bool = True, **options: Any) -> list[NotebookGrade]:
    """Grade ``notebooks`` with ``jobs`` in parallel; the result is in the order given."""
    grades: dict[int, NotebookGrade] = {}
    bar = _progress_bar(len(notebooks)) if progress and len(notebooks) > 1 else None
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(grade_notebook, path, name, **options): i for i, (path, name) in enumerate(notebooks)}
        for future in concurrent.futures.as_completed(futures):
            index = futures[future]
            try:
                grades[index] = future.result()
            except Exception as error:  # noqa: BLE001 - one notebook's failure must not end the class's grading
                path, name = notebooks[index]
                grades[index] = NotebookGrade(path, name, error=f"the grader failed on this notebook: {error!r}")
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return [grades[i] for i in range(len(notebooks))]


def _progress_bar(total: int) -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm comes with the course's extras; without it, grade quietly
        return None
    return tqdm(total=total, desc="grading", unit="notebook", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    from . import grade_report

    parser = argparse.ArgumentParser(prog="glasstorch-grade", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="notebooks, or folders of notebooks")
    parser.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1), help="notebooks graded at once")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="draws the grader's test inputs")
    parser.add_argument("--cell-timeout", type=int, default=DEFAULT_CELL_TIMEOUT, help="seconds per cell")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per notebook")
    parser.add_argument("--json", type=Path, help="write the full report as JSON")
    parser.add_argument("--junit", type=Path, help="write a JUnit XML report (one test per exercise)")
    parser.add_argument("--csv", type=Path, help="write the class's scores as CSV (one row per notebook)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no table, no progress bar")
    args = parser.parse_args(argv)

    notebooks = find_notebooks(args.paths)
    if not notebooks:
        parser.error("no notebooks found in " + ", ".join(map(str, args.paths)))
    grades = grade_all(notebooks, jobs=args.jobs, progress=not args.quiet, seed=args.seed,
                       cell_timeout=args.cell_timeout, timeout=args.timeout)
    if not args.quiet:
        print(grade_report.table(grades))
        if len(grades) > 1:
            print(grade_report.summary(grades))
    for path, writer in ((args.json, grade_report.write_json), (args.junit, grade_report.write_junit),
                         (args.csv, grade_report.write_csv)):
        if path is not None:
            writer(grades, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
