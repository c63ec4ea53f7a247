"""The grader: score exercise notebooks, one learner's or a whole class's.

    glasstorch-grade NOTEBOOK_OR_FOLDER... [-j 4] [--json F] [--junit F] [--csv F] [--feedback DIR]
    python -I -m glasstorch.course.grade ...        make grade            (your own exercises/)

For every notebook: check that it is a glasstorch exercise notebook, run it top to bottom in a
fresh kernel (``grade_run``), with a time limit per cell and per notebook, inside a sandbox of its
own (``grade_sandbox``: bubblewrap on Linux), then judge what its functions did, here, with
glasstorch's own answers. A folder is searched for notebooks and graded in parallel, with a
progress bar and a class summary.

Why it can be trusted with what students submit:

* submitted code only ever runs in the kernel, in the sandbox: the machine's files read-only (the
  environment and glasstorch included), its own notebook and a private work folder only (not the
  class, not the reports), no network, no view of the grader or of a classmate, a clean
  environment, limits on memory, processes, files and CPU; everything it started dies with it;
* the kernel only reports *observations* (what the functions returned on the grader's inputs,
  drawn from a seed that is random unless ``--seed`` is given), which come back on a pipe this
  process owns, read with a byte cap and checked (a malformed answer is that notebook's 0, with the
  reason); comparing them with the right answers happens in this process, which never runs
  submitted code and computed every expected answer before the first notebook ran; so redefining
  ``check``, patching ``np.allclose`` or patching glasstorch's reference inside a submission
  changes nothing here;
* submissions are read without following links (a link to ``solutions/`` is refused), without
  blocking, size-capped, and refused in words that never quote them; every report is made safe for
  its format and written whole, after every sandbox has ended.

(A submission that calls glasstorch's own implementation instead of writing one is a copy, not a
trick: the JSON report lists each notebook's cells, with their code, for a teacher who wants to
read them.)
"""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import functools
import json
import os
import re
import secrets
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

from . import grade_sandbox, i18n
from .checking import MISSING, TIMED_OUT, CheckResult, Exercise, exercises_of, get_exercise, judge
from .grade_files import Refused, read_untrusted
from .grade_run import MAX_OUTPUT_BYTES
from .grade_sandbox import Limits, Support
from .observation import loads

DEFAULT_CELL_TIMEOUT = 60   # seconds per cell
DEFAULT_TIMEOUT = 600       # seconds per notebook
MAX_NOTEBOOK_BYTES = 20_000_000
MAX_ANSWER_BYTES = 64_000_000   # what the grader reads of one run's answer (observations included)
LOG_TAIL_BYTES = 4000           # what it keeps of a run's own output, for the report when it fails
MAX_SEED = 2**31 - 1
STATUSES = ("ok", "error", "timed out", "skipped")
# grade_run's own run of the notebook: how to start it, in or out of a sandbox
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from glasstorch.course.grade_run import main; "
         "sys.exit(main(sys.argv[2:]))")


class SubmissionError(Exception):
    """The file cannot be graded (not a notebook, not from this course, ...)."""


class Malformed(Exception):
    """A run's answer that does not have the form the grader expects."""


def random_seed() -> int:
    """A fresh seed for the grader's cases (never 0, the seed of the cases learners see)."""
    return 1 + secrets.randbelow(MAX_SEED)


@dataclass
class NotebookGrade:
    path: Path
    name: str
    chapter: str | None = None
    results: list[CheckResult] = field(default_factory=list)
    error: str | None = None
    steps: dict = field(default_factory=dict)
    seconds: float = 0.0
    seed: int | None = None
    code: dict = field(default_factory=dict)   # "cell N": the source the grader ran
    sandbox: str = ""                          # how it was run ("bubblewrap", "none")

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

    def zero(self, exercises: list[Exercise], reason: str) -> None:
        """No points for this notebook, for ``reason`` (a limit it broke, an answer that cannot be
        trusted): every exercise is reported as not graded."""
        self.error = reason
        self.results = [CheckResult(ex, MISSING, detail=f"not graded: {reason}") for ex in exercises]


# -- reading a submission -------------------------------------------------------------------------

def read_submission(path: Path, within: Path | None = None) -> tuple[nbformat.NotebookNode, str, bytes]:
    """The notebook, its chapter and its bytes, or a :class:`SubmissionError` that says what is
    wrong, in words of the grader's own: never quoting the file (a link to a secret would show it).
    ``within``: the class folder, which the file must really be in."""
    try:
        data = read_untrusted(path, MAX_NOTEBOOK_BYTES, within=within)
    except Refused as refused:
        if "larger than" in str(refused):
            raise SubmissionError(f"{refused}; an exercise notebook is far smaller (clear its outputs)") from None
        raise SubmissionError(f"not graded: {refused}") from None
    return (*parse_submission(data), data)


def parse_submission(data: bytes) -> tuple[nbformat.NotebookNode, str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SubmissionError(f"not a valid notebook: it is not UTF-8 text (byte {error.start})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise SubmissionError(f"not a valid notebook: it is not JSON (line {error.lineno}, "
                              f"column {error.colno})") from None
    except RecursionError:
        raise SubmissionError("not a valid notebook: its JSON is nested too deeply") from None
    if not isinstance(raw, dict):
        raise SubmissionError("not a valid notebook: it is not a JSON object")
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except nbformat.ValidationError:
        raise SubmissionError("not a valid notebook: it does not follow the notebook format") from None
    except Exception:  # noqa: BLE001 - nbformat raises several kinds for broken files
        raise SubmissionError("not a valid notebook: nbformat cannot read it") from None
    metadata = notebook.metadata.get("glasstorch")
    chapter = metadata.get("chapter") if isinstance(metadata, dict) else None
    if not isinstance(chapter, str):
        raise SubmissionError("not a glasstorch exercise notebook (it has no glasstorch metadata): "
                              "start from the notebooks in exercises/")
    if not re.fullmatch(r"\d\d", chapter) or not exercises_of(chapter):
        raise SubmissionError("its glasstorch metadata names no chapter with exercises")
    return notebook, chapter


# -- the expected answers, computed here ----------------------------------------------------------

# glasstorch keeps global state (grad mode, the random generator, classes the checks patch for a
# moment): the references are computed one at a time, and before any submission runs.
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


def prepare(chapters: Iterable[str], seed: int) -> None:
    """Import what the references of ``chapters`` need and compute their answers, in this process,
    before the first submission runs (nothing a run does can then reach them)."""
    for chapter in sorted(set(chapters)):
        for ex in exercises_of(chapter):
            _expected(ex.id, seed)


# -- judging a run's answer -----------------------------------------------------------------------

def _judge_collected(ex: Exercise, seed: int, records: list[dict], step: dict | None, cell_timeout: int) -> CheckResult:
    cases, expected = _expected(ex.id, seed)
    missing = next((record["missing"] for record in records if "missing" in record), None)
    if missing:
        return CheckResult(ex, MISSING, detail=str(missing))
    observed = [record.get("observed") for record in records]
    status = (step or {}).get("status")
    if len(observed) < len(cases) and status in ("timed out", "skipped"):
        return CheckResult(ex, TIMED_OUT, detail=f"stopped after {len(observed)} of {len(cases)} cases: "
                                                  f"your function ran longer than {cell_timeout} s")
    if not observed:
        why = (step or {}).get("error") or "the notebook stopped before this exercise"
        return CheckResult(ex, MISSING, detail=f"not graded: {why}")
    return judge(ex, list(cases), observed[:len(cases)], list(expected))


def decode_observations(ex_id: str, lines: Any) -> list[dict]:
    """One exercise's observation lines (text, as the kernel wrote them) as records; any line that
    is not a well-formed record makes the whole answer :class:`Malformed`."""
    if not isinstance(lines, list):
        raise Malformed(f"the observations of {ex_id} are not a list of lines")
    records = []
    for number, line in enumerate(lines, 1):
        try:
            record = loads(line) if isinstance(line, str) else None
        except Exception:  # noqa: BLE001 - RecursionError, ValueError, binascii.Error, ...: not an observation
            record = None
        if not isinstance(record, dict) or not ({"observed", "case"} <= set(record) or "missing" in record):
            raise Malformed(f"line {number} of the observations of {ex_id} is not an observation")
        records.append(record)
    return records


def check_steps(steps: Any, code_keys: set[str], exercises: list[Exercise]) -> dict:
    """The run's report of its steps, checked: known keys, known statuses, text where text belongs."""
    known = {"prelude"} | code_keys | {f"exercise {ex.id}" for ex in exercises}
    if not isinstance(steps, dict) or not set(steps) <= known:
        raise Malformed("its report names steps the notebook does not have")
    checked = {}
    for key, step in steps.items():
        if not isinstance(step, dict) or step.get("status") not in STATUSES:
            raise Malformed(f"its report of {key} has no known status")
        error = step.get("error")
        if error is not None and not isinstance(error, str):
            raise Malformed(f"its report of {key} has an error that is not text")
        checked[key] = {"status": step["status"], "error": None if error is None else _short(error, 500)}
        if step.get("output_truncated") is True:
            checked[key]["output_truncated"] = True
    return checked


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# Errors the limits cause, as a cell reports them ("OSError: [Errno 27] File too large")
_LIMIT_ERRORS = (
    ("memory", re.compile(r"^MemoryError\b|\[Errno 12\]")),
    ("file size", re.compile(r"\[Errno 27\]|\[Errno 28\]")),
    ("open files", re.compile(r"\[Errno 24\]")),
    ("processes", re.compile(r"^BlockingIOError: \[Errno 11\]|can't start new thread")),
)


def limits_exceeded(steps: dict, cgroup_hits: list[str]) -> list[str]:
    """The sandbox's limits that a run ran into: as its cgroup counted them, or as its cells report."""
    hit = list(cgroup_hits)
    for step in steps.values():
        for name, pattern in _LIMIT_ERRORS:
            if step.get("error") and pattern.search(step["error"]) and name not in hit:
                hit.append(name)
    return hit


def _limit_reason(hit: list[str], limits: Limits) -> str:
    words = {"memory": f"the memory limit ({grade_sandbox._bytes(limits.memory)})",
             "processes": f"the process limit ({limits.processes} processes and threads)",
             "file size": f"the limit on files written ({grade_sandbox._bytes(limits.file_size)})",
             "open files": f"the open-file limit ({limits.open_files})"}
    return "exceeded " + " and ".join(words[name] for name in hit)


# -- running a notebook ---------------------------------------------------------------------------

@dataclass
class _Run:
    answer: bytes | None = None      # what came on the answer pipe (None: more than MAX_ANSWER_BYTES)
    status: int | None = None
    timed_out: bool = False
    log: bytes = b""                 # the end of its own output
    cgroup_hits: list = field(default_factory=list)


def _drain(stream: Any, keep_tail: bool, limit: int, out: dict) -> None:
    """Read ``stream`` to its end; keep its first ``limit`` bytes (or, ``keep_tail``, its last), or
    note that it was larger (then stop reading: the writer gets a broken pipe)."""
    kept, total = bytearray(), 0
    try:
        while chunk := stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16):
            total += len(chunk)
            if keep_tail:
                kept += chunk
                del kept[:-limit]
            elif total > limit:
                out["too_large"] = True
                break
            else:
                kept += chunk
    except (OSError, ValueError):
        pass
    finally:
        out["data"] = bytes(kept)
        stream.close()


def _run(job: dict, copy: Path, *, support: Support | None, limits: Limits, timeout: int,
         hidden: tuple[Path, ...], workdir: Path) -> _Run:
    """Run ``grade_run`` on the job, in a sandbox when ``support`` is given; its answer comes on a
    pipe, read here with a byte cap."""
    read_end, write_end = os.pipe()
    root = grade_sandbox.package_root()
    inner = [grade_sandbox.python(), "-I", "-c", _BOOT, str(root), "--answer-fd", str(write_end)]
    cgroup = None
    if support is not None:
        job = {**job, "notebook": grade_sandbox.INSIDE_NOTEBOOK, "workdir": grade_sandbox.INSIDE_WORKDIR,
               "rlimits": limits.rlimits(timeout)}
        command = grade_sandbox.bwrap_command(support, limits, notebook=copy, package_root=root,
                                              command=inner, hidden=hidden)
        cgroup = grade_sandbox.Cgroup.create(limits) if support.cgroup else None
        if cgroup is not None:
            command = cgroup.wrap(command)
        env = grade_sandbox.outer_env()
    else:
        job = {**job, "notebook": str(copy), "workdir": str(workdir)}
        command, env = inner, _worker_env()
    run = _Run()
    answer: dict = {}
    log: dict = {}
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   pass_fds=(write_end,), env=env, cwd=str(copy.parent), start_new_session=True)
    except BaseException:
        os.close(read_end)
        if cgroup is not None:
            cgroup.remove()
        raise
    finally:
        os.close(write_end)
    answer_pipe = os.fdopen(read_end, "rb", buffering=0)
    readers = [threading.Thread(target=_drain, args=(answer_pipe, False, MAX_ANSWER_BYTES, answer), daemon=True),
               threading.Thread(target=_drain, args=(process.stdout, True, LOG_TAIL_BYTES, log), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        try:
            process.stdin.write(json.dumps(job).encode())
            process.stdin.close()
        except OSError:  # it died at once; its status says why
            pass
        try:
            run.status = process.wait(timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
    finally:
        if process.poll() is None or support is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # in a sandbox, everything in it dies with it
            process.wait()
        for reader in readers:
            reader.join(10)  # (unsandboxed, a process the kernel left may hold its output open)
        if cgroup is not None:
            run.cgroup_hits = cgroup.exceeded()
            cgroup.remove()
    run.answer = None if answer.get("too_large") else answer.get("data", b"")
    run.log = log.get("data", b"")
    return run


def _worker_env() -> dict:
    env = dict(os.environ)
    package_root = str(grade_sandbox.package_root())  # so the kernel imports this glasstorch
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    return env


def grade_notebook(path: Path, name: str | None = None, *, seed: int | None = None,
                   cell_timeout: int = DEFAULT_CELL_TIMEOUT, timeout: int = DEFAULT_TIMEOUT,
                   sandbox: bool = True, limits: Limits = Limits(), within: Path | None = None,
                   hidden: tuple[Path, ...] = ()) -> NotebookGrade:
    """Grade one notebook. Never raises for anything about the submission: problems are reported
    in the returned grade. ``sandbox``: run it in bubblewrap (when this machine cannot, it is not
    graded); ``within``: the class folder it must be in; ``hidden``: folders the sandbox must not
    show."""
    seed = random_seed() if seed is None else seed
    grade = NotebookGrade(Path(path), name or Path(path).name, seed=seed)
    start = time.monotonic()
    try:
        notebook, grade.chapter, data = read_submission(Path(path), within)
    except SubmissionError as error:
        grade.error = str(error)
        return grade
    grade.code = {f"cell {i}": cell.source for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"}
    exercises = exercises_of(grade.chapter)
    support = None
    if sandbox:
        support = grade_sandbox.support()
        if not support.usable:
            grade.zero(exercises, f"no sandbox to run it in: {support.reason}")
            return grade
    grade.sandbox = f"bubblewrap {support.version}" if support else "none"
    prepare([grade.chapter], seed)
    job = {"exercises": [ex.id for ex in exercises], "seed": seed, "cell_timeout": cell_timeout}
    hidden = (*hidden, Path(path).parent)
    with tempfile.TemporaryDirectory(prefix="glasstorch-grade-") as tmp:
        copy, workdir = Path(tmp) / "notebook.ipynb", Path(tmp) / "work"
        copy.write_bytes(data)   # what was checked is what runs: the original may change meanwhile
        copy.chmod(0o444)
        workdir.mkdir()
        run = _run(job, copy, support=support, limits=limits, timeout=timeout, hidden=hidden, workdir=workdir)
    _judge_run(grade, run, exercises, seed=seed, cell_timeout=cell_timeout, timeout=timeout,
               limits=limits if support else None)
    grade.seconds = time.monotonic() - start
    return grade


def _judge_run(grade: NotebookGrade, run: _Run, exercises: list[Exercise], *, seed: int, cell_timeout: int,
               timeout: int, limits: Limits | None) -> None:
    """Turn a run's answer into the grade (a malformed answer, a limit broken: 0, with the reason)."""
    if run.timed_out:
        grade.zero(exercises, f"the notebook ran longer than {timeout} s and was stopped")
        return
    if run.answer is None:
        grade.zero(exercises, f"its answer was malformed (larger than {MAX_ANSWER_BYTES // 1_000_000} MB)")
        return
    if limits is not None and "memory" in run.cgroup_hits and not run.answer:
        grade.zero(exercises, _limit_reason(["memory"], limits))
        return
    if not run.answer:
        tail = run.log.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {run.status}"]
        grade.zero(exercises, f"the grader could not run the notebook: it stopped without an answer ({_short(tail[0], 300)})")
        return
    try:
        answer = json.loads(run.answer.decode("ascii"))
        if not isinstance(answer, dict):
            raise Malformed("it is not a JSON object")
        if answer.get("fatal") is not None:
            grade.zero(exercises, _short(str(answer["fatal"]), 500))
            return
        grade.steps = check_steps(answer.get("steps"), set(grade.code), exercises)
        observations = answer.get("observations")
        if not isinstance(observations, dict) or set(observations) != {ex.id for ex in exercises}:
            raise Malformed("it does not have the observations of each exercise")
        records = {}
        for ex in exercises:
            found = observations[ex.id]
            if not isinstance(found, dict):
                raise Malformed(f"the observations of {ex.id} are not a record")
            if "problem" in found:
                raise Malformed(_short(str(found["problem"]), 300))
            records[ex.id] = decode_observations(ex.id, found.get("lines"))
    except (Malformed, ValueError, RecursionError) as error:  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
        why = str(error) if isinstance(error, Malformed) else "it is not JSON"
        grade.zero(exercises, f"its answer was malformed ({why})")
        return
    if limits is not None:
        hit = limits_exceeded(grade.steps, run.cgroup_hits)
        if hit:
            grade.zero(exercises, _limit_reason(hit, limits))
            return
    for ex in exercises:
        grade.results.append(_judge_collected(ex, seed, records[ex.id], grade.steps.get(f"exercise {ex.id}"), cell_timeout))


# -- many notebooks -------------------------------------------------------------------------------

def find_notebooks(paths: Iterable[Path]) -> list[tuple[Path, str, Path]]:
    """Every notebook named by ``paths`` (folders searched recursively, hidden ones skipped), with
    a display name and the folder it must be in. A symbolic link met in a folder (to a notebook or
    to a folder) is listed too, so that the report says it was refused; it is never followed."""
    found = []
    for given in map(Path, paths):
        if given.is_dir() and not given.is_symlink():
            here_found = []
            for folder, dirs, files in os.walk(given, followlinks=False):
                here = Path(folder)
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for entry in [*dirs, *files]:
                    path = here / entry
                    is_link = path.is_symlink()
                    if entry in files and not entry.startswith(".") and (entry.endswith(".ipynb") or is_link) \
                            or entry in dirs and is_link:
                        here_found.append((path, path.relative_to(given).as_posix(), given))
            found += sorted(here_found, key=lambda item: item[1])
        else:
            found.append((given, given.as_posix(), given.parent))
    return found


def grade_all(notebooks: list[tuple], *, jobs: int, progress: bool = True, seed: int | None = None,
              **options: Any) -> list[NotebookGrade]:
    """Grade ``notebooks`` ((path, name) or (path, name, folder)) with ``jobs`` in parallel; the
    result is in the order given. The expected answers of every chapter met are computed first,
    before any submission runs."""
    seed = random_seed() if seed is None else seed
    entries = [(Path(n[0]), n[1], n[2] if len(n) > 2 else None) for n in notebooks]
    chapters = set()
    for path, _, within in entries:
        try:
            chapters.add(read_submission(path, within)[1])
        except SubmissionError:
            pass  # reported when it is graded
    prepare(chapters, seed)
    hidden = tuple(dict.fromkeys(within for _, _, within in entries if within is not None))
    grades: dict[int, NotebookGrade] = {}
    bar = _progress_bar(len(entries)) if progress and len(entries) > 1 else None
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(grade_notebook, path, name, seed=seed, within=within, hidden=hidden, **options): i
                   for i, (path, name, within) in enumerate(entries)}
        for future in concurrent.futures.as_completed(futures):
            index = futures[future]
            try:
                grades[index] = future.result()
            except Exception as error:  # noqa: BLE001 - one notebook's failure must not end the class's grading
                path, name, _ = entries[index]
                grades[index] = NotebookGrade(path, name, seed=seed,
                                              error=f"the grader failed on this notebook: {type(error).__name__}")
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return [grades[i] for i in range(len(entries))]


def _progress_bar(total: int) -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm comes with the course's extras; without it, grade quietly
        return None
    return tqdm(total=total, desc="grading", unit="notebook", file=sys.stderr)


def _size_arg(text: str) -> int:
    try:
        return grade_sandbox.parse_size(text)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (say 2G, 512M or a number of bytes)") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"not a positive number: {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    from . import grade_report

    parser = argparse.ArgumentParser(prog="glasstorch-grade", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="notebooks, or folders of notebooks")
    parser.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1), help="notebooks graded at once")
    parser.add_argument("--seed", type=int, help="draws the grader's test inputs (default: a random seed, "
                                                 "printed in the report; give it to repeat a run)")
    parser.add_argument("--cell-timeout", type=_positive, default=DEFAULT_CELL_TIMEOUT, help="seconds per cell")
    parser.add_argument("--timeout", type=_positive, default=DEFAULT_TIMEOUT, help="seconds per notebook")
    parser.add_argument("--json", type=Path, help="write the full report as JSON")
    parser.add_argument("--junit", type=Path, help="write a JUnit XML report (one test per exercise)")
    parser.add_argument("--csv", type=Path, help="write the class's scores as CSV (one row per notebook)")
    parser.add_argument("--feedback", type=Path, metavar="DIR",
                        help="write one feedback file per notebook into DIR (Markdown and HTML)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no table, no progress bar")
    parser.add_argument("--language", choices=i18n.LANGUAGES, default=i18n.get_language(),
                        help="the language of the verdicts and the feedback (default: GLASSTORCH_LANG, else en)")
    box = parser.add_argument_group("the sandbox (Linux, bubblewrap) and its limits, per notebook")
    box.add_argument("--no-sandbox", dest="sandbox", action="store_const", const="off", default="on",
                     help="run the notebooks with your own rights, unconfined: for trusted notebooks only")
    box.add_argument("--sandbox", choices=("on", "off", "auto"), dest="sandbox",
                     help="on (the default): refuse to grade without one; auto: without one, say so and grade "
                          "anyway (make grade does this for your own exercises/)")
    defaults = Limits()
    box.add_argument("--memory", type=_size_arg, default=defaults.memory, help="memory (default 2G)")
    box.add_argument("--processes", type=_positive, default=defaults.processes,
                     help=f"processes and threads (default {defaults.processes})")
    box.add_argument("--open-files", type=_positive, default=defaults.open_files,
                     help=f"open files per process (default {defaults.open_files})")
    box.add_argument("--file-size", type=_size_arg, default=defaults.file_size,
                     help="largest file written, and size of each writable folder (default 256M)")
    box.add_argument("--cpu-time", type=_positive, help="CPU seconds per process (default: --timeout)")
    args = parser.parse_args(argv)
    i18n.set_language(args.language)

    notebooks = find_notebooks(args.paths)
    if not notebooks:
        parser.error("no notebooks found in " + ", ".join(map(str, args.paths)))
    sandbox = args.sandbox != "off"
    if sandbox and not grade_sandbox.support().usable:
        reason = grade_sandbox.support().reason
        if args.sandbox == "on":
            print(f"glasstorch-grade: cannot sandbox the notebooks here: {reason}.\nTo grade other people's "
                  f"notebooks, {grade_sandbox.INSTALL_HELP}.\nFor notebooks you trust (your own), pass "
                  "--no-sandbox: they then run with your rights, unconfined.", file=sys.stderr)
            return 2
        print(f"note: no sandbox ({reason}); grading your own notebooks without one", file=sys.stderr)
        sandbox = False
    seed = random_seed() if args.seed is None else args.seed
    limits = Limits(memory=args.memory, processes=args.processes, open_files=args.open_files,
                    file_size=args.file_size, cpu_seconds=args.cpu_time)
    grades = grade_all(notebooks, jobs=args.jobs, progress=not args.quiet, seed=seed, cell_timeout=args.cell_timeout,
                       timeout=args.timeout, sandbox=sandbox, limits=limits)
    # every sandbox has ended: from here on, only this process writes
    run = grade_report.RunInfo(seed=seed, sandbox=grade_sandbox.support().describe() if sandbox else "none",
                               limits=limits.describe() if sandbox else "none")
    if not args.quiet:
        grade_report.show(grade_report.table(grades, run) + ("\n" + grade_report.summary(grades) if len(grades) > 1 else ""))
    status = 0
    for path, writer in ((args.json, grade_report.write_json), (args.junit, grade_report.write_junit),
                         (args.csv, grade_report.write_csv), (args.feedback, grade_report.write_feedback)):
        if path is not None:
            try:
                writer(grades, path, run)
            except OSError as error:
                print(f"glasstorch-grade: could not write {path}: {error.strerror}", file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
