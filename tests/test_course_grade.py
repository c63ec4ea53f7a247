"""The grader, on what students really submit: solutions (full marks), untouched exercises (0),
and notebooks that raise, loop, flood, exit, kill their kernel, are not notebooks, come from another
course, or try to make the checks pass by patching them, numpy or glasstorch.

Chapter 05's notebook is the template; each hostile submission is it with a few cells changed.
All of them are graded in one run of the command line, as a teacher would, in parallel, each in its
sandbox (where this machine has none: a failure in CI, elsewhere a note and no sandbox). The
attacks on the machine, the class and the reports are in test_grade_sandbox.py.
"""
from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from course_support import EXERCISES, SOLUTIONS, grading_sandboxed
from glasstorch.course import grade

TEMPLATE = "05_backward_engine.ipynb"
IDS = ["05.mul_backward", "05.mm_backward", "05.run_backward"]
CELL_TIMEOUT = 6

WRONG_MUL = "def mul_backward(grad, a, b):\n    return grad * b, grad * a\n"  # no unbroadcast
CHEATS = {
    "patches_numpy": "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, bool)\nnp.array_equal = lambda *a, **k: True\n",
    "redefines_check": "def check(*args, **kwargs):\n    print('✔ all cases pass.')\n",
    "patches_the_checker": (
        "import glasstorch.course.checking as c, glasstorch.course.comparison as cmp\n"
        "cmp.first_difference = lambda *a, **k: None\n"
        "c.first_difference = lambda *a, **k: None\n"
        "c.CheckResult.passed = property(lambda self: True)\n"),
    "patches_the_reference": (
        "from glasstorch.ops.arithmetic import MulBackward0\n"
        "def _wrong(node, grad):\n    a, b = node._saved_self, node._saved_other\n    return grad * b, grad * a\n"
        "MulBackward0.backward = _wrong\n"
        "import glasstorch.course.exercises.ch05 as ch05\n"
        "ch05.exercise = None\n"),
}


def _solution() -> nbformat.NotebookNode:
    return nbformat.read(SOLUTIONS / TEMPLATE, as_version=4)


def _cell_defining(notebook: nbformat.NotebookNode, name: str) -> int:
    return next(i for i, cell in enumerate(notebook.cells) if f"def {name}(" in cell.source)


def _with_cell_after(after: str, source: str) -> nbformat.NotebookNode:
    """The solution with a cell of ``source`` inserted after the one defining ``after``."""
    notebook = _solution()
    notebook.cells.insert(_cell_defining(notebook, after) + 1, new_code_cell(source))
    return notebook


def _cheating(key: str) -> nbformat.NotebookNode:
    notebook = _solution()
    index = _cell_defining(notebook, "mul_backward")
    notebook.cells[index].source += "\n\n" + WRONG_MUL
    notebook.cells.insert(index + 1, new_code_cell(CHEATS[key]))
    return notebook


def _looping_mul() -> nbformat.NotebookNode:
    notebook = _solution()
    index = _cell_defining(notebook, "mul_backward")
    notebook.cells[index].source += "\n\ndef mul_backward(grad, a, b):\n    while True:\n        pass\n"
    return notebook


def _submissions() -> dict:
    """name: a notebook, or raw bytes for files that are not notebooks."""
    foreign = nbformat.v4.new_notebook(cells=[new_code_cell("print('homework for another course')")])
    return {
        "solution": _solution(),
        "exercise": nbformat.read(EXERCISES / TEMPLATE, as_version=4),
        "raises": _with_cell_after("mul_backward", "raise ValueError('a bug in a cell of my own')"),
        "loops": _with_cell_after("mul_backward", "while True:\n    pass"),
        "ignores_interrupts": _with_cell_after("mul_backward", "import time\nwhile True:\n    try:\n        time.sleep(0.1)\n    except BaseException:\n        pass"),
        "function_loops": _looping_mul(),
        "floods": _with_cell_after("mul_backward", "for _ in range(200):\n    print('x' * 100_000)"),
        "exits": _with_cell_after("mul_backward", "import sys\nsys.exit(3)"),
        "kills_kernel": _with_cell_after("mm_backward", "import os\nos._exit(1)"),
        "not_json": b"{ this is not a notebook",
        "not_a_notebook": json.dumps({"hello": "world"}).encode(),
        "other_course": foreign,
        **{f"cheat_{key}": _cheating(key) for key in CHEATS},
    }


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("class")
    for name, content in _submissions().items():
        (folder / name).mkdir()
        path = folder / name / TEMPLATE
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            nbformat.write(content, path)
    out = tmp_path_factory.mktemp("reports")
    sandbox = [] if grading_sandboxed() else ["--no-sandbox"]
    status = grade.main([str(folder), *sandbox, "-j", "2", "-q", "--cell-timeout", str(CELL_TIMEOUT),
                         "--json", str(out / "grades.json"), "--junit", str(out / "grades.xml"),
                         "--csv", str(out / "grades.csv")])
    assert status == 0
    graded = {entry["notebook"].split("/")[0]: entry for entry in json.loads((out / "grades.json").read_text())}
    return {"json": graded, "junit": ET.parse(out / "grades.xml").getroot(),
            "csv": list(csv.DictReader((out / "grades.csv").open()))}


def _points(entry: dict) -> dict:
    return {ex["id"]: ex["points"] for ex in entry["exercises"]}


def test_the_solution_gets_full_marks(report: dict) -> None:
    entry = report["json"]["solution"]
    assert (entry["score"], entry["max_score"], entry["error"]) == (3, 3, None)


def test_the_untouched_exercise_gets_zero_and_says_not_written(report: dict) -> None:
    entry = report["json"]["exercise"]
    assert entry["score"] == 0 and entry["max_score"] == 3
    assert {ex["status"] for ex in entry["exercises"]} == {"not written"}


@pytest.mark.parametrize("name", ["raises", "loops", "ignores_interrupts", "floods", "exits", "kills_kernel"])
def test_a_broken_cell_does_not_stop_the_other_exercises(report: dict, name: str) -> None:
    entry = report["json"][name]
    assert entry["score"] == 3, json.dumps(entry["exercises"], indent=1)
    assert entry["problems"], "the report must say which cell went wrong"


def test_the_reports_say_what_went_wrong_in_each_cell(report: dict) -> None:
    problems = {name: " ".join(report["json"][name]["problems"]) for name in
                ("raises", "loops", "ignores_interrupts", "floods", "exits", "kills_kernel")}
    assert "ValueError: a bug in a cell of my own" in problems["raises"]
    assert "timed out" in problems["loops"]
    assert "left out of a second run" in problems["ignores_interrupts"]
    assert "output cut" in problems["floods"]
    assert "SystemExit" in problems["exits"]
    assert "killed the kernel" in problems["kills_kernel"]


def test_a_flood_of_output_is_not_kept(report: dict) -> None:
    assert len(json.dumps(report["json"]["floods"])) < 200_000


def test_a_function_that_never_returns_is_timed_out_and_scored_zero(report: dict) -> None:
    entry = report["json"]["function_loops"]
    assert _points(entry) == {"05.mul_backward": 0, "05.mm_backward": 1, "05.run_backward": 1}
    assert entry["exercises"][0]["status"] == "timed out"


@pytest.mark.parametrize("name, phrase", [
    ("not_json", "not a valid notebook"),
    ("not_a_notebook", "not a valid notebook"),
    ("other_course", "not a glasstorch exercise notebook"),
])
def test_a_file_that_is_not_an_exercise_notebook_gets_a_clear_error(report: dict, name: str, phrase: str) -> None:
    entry = report["json"][name]
    assert phrase in entry["error"] and entry["score"] == 0


@pytest.mark.parametrize("key", sorted(CHEATS))
def test_patching_the_checks_numpy_or_glasstorch_does_not_help(report: dict, key: str) -> None:
    entry = report["json"][f"cheat_{key}"]
    assert _points(entry)["05.mul_backward"] == 0 and _points(entry)["05.mm_backward"] == 1
    assert "expected shape" in entry["exercises"][0]["summary"]
    if key != "patches_the_reference":  # (that patch also breaks the engine the third exercise uses)
        assert _points(entry)["05.run_backward"] == 1


def test_junit_has_one_testcase_per_exercise_and_an_error_for_ungradable_files(report: dict) -> None:
    suites = {suite.get("name").split("/")[0]: suite for suite in report["junit"]}
    assert len(suites["solution"].findall("testcase")) == 3 and suites["solution"].get("failures") == "0"
    assert suites["exercise"].get("failures") == "3"
    assert suites["not_json"].find("testcase/error") is not None


def test_the_class_csv_has_a_row_per_notebook_and_a_column_per_exercise(report: dict) -> None:
    rows = {row["notebook"].split("/")[0]: row for row in report["csv"]}
    assert len(rows) == len(_submissions())
    assert [rows["solution"][i] for i in IDS] == ["1", "1", "1"]
    assert rows["function_loops"]["05.mul_backward"] == "0" and rows["function_loops"]["score"] == "2"
    assert "not a glasstorch exercise notebook" in rows["other_course"]["error"]


def test_a_notebook_past_its_time_limit_is_stopped(tmp_path: Path) -> None:
    path = tmp_path / TEMPLATE
    nbformat.write(_with_cell_after("mul_backward", "import time\ntime.sleep(60)"), path)
    result = grade.grade_notebook(path, cell_timeout=120, timeout=15, sandbox=grading_sandboxed())
    assert "ran longer than 15 s" in result.error and result.score == 0
    assert {r.detail for r in result.results} == {"not graded: the notebook ran longer than 15 s and was stopped"}


@pytest.fixture
def grader_kernels(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """Counts the kernels the grader starts (``started``); the first ``deaths`` of them die before
    they answer, as a kernel does when another one started at the same moment took its port."""
    from glasstorch.course import grade_run

    kernels = SimpleNamespace(started=0, deaths=0)
    start = grade_run._GradingClient.async_start_new_kernel

    async def start_or_die(client, **kwargs):
        kernels.started += 1
        if kernels.started <= kernels.deaths:
            client.extra_arguments = [*client.extra_arguments, "--IPKernelApp.exec_lines=import os; os._exit(1)"]
        return await start(client, **kwargs)

    monkeypatch.setattr(grade_run._GradingClient, "async_start_new_kernel", start_or_die)
    monkeypatch.setenv("PYTHONPATH", grade._worker_env()["PYTHONPATH"])
    return kernels


def _run_small_notebook(tmp_path: Path) -> dict:
    from glasstorch.course import grade_run

    path = tmp_path / "small.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[new_code_cell("print(6 * 7)")]), path)
    return grade_run.run_notebook(path, tmp_path, [], seed=1, cell_timeout=60)


def test_a_kernel_that_dies_before_it_answers_is_started_again(tmp_path: Path, grader_kernels: SimpleNamespace) -> None:
    grader_kernels.deaths = 1
    assert _run_small_notebook(tmp_path) == {"prelude": {"status": "ok", "error": None},
                                             "cell 0": {"status": "ok", "error": None}}
    assert grader_kernels.started == 2


def test_a_kernel_that_never_starts_is_reported_after_three_tries(tmp_path: Path, grader_kernels: SimpleNamespace) -> None:
    grader_kernels.deaths = 99
    with pytest.raises(RuntimeError, match=r"the kernel did not start \(3 tries\): .*Kernel died before replying"):
        _run_small_notebook(tmp_path)
    assert grader_kernels.started == 3


@pytest.fixture(scope="module")
def every_notebook() -> dict:
    """Every solution and every generated exercise notebook, graded in one parallel run."""
    notebooks = [(path, f"solutions/{path.name}") for path in sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))]
    notebooks += [(path, f"exercises/{path.name}") for path in sorted(EXERCISES.glob("[0-9][0-9]_*.ipynb"))]
    return {g.name: g for g in grade.grade_all(notebooks, jobs=2, progress=False, sandbox=grading_sandboxed())}


def test_every_solution_gets_full_marks(every_notebook: dict) -> None:
    solutions = {name: g for name, g in every_notebook.items() if name.startswith("solutions/")}
    assert solutions
    for name, g in solutions.items():
        assert g.error is None and g.score == g.max_score >= 3, f"{name}: {[str(r) for r in g.results]}"


def test_every_generated_exercise_gets_zero(every_notebook: dict) -> None:
    exercises = {name: g for name, g in every_notebook.items() if name.startswith("exercises/")}
    assert len(exercises) == len([n for n in every_notebook if n.startswith("solutions/")])
    for name, g in exercises.items():
        assert g.error is None and g.score == 0 and g.max_score >= 3, name
        assert {r.status for r in g.results} == {"not written"}, name


def test_a_malformed_observation_makes_the_whole_answer_malformed() -> None:
    from glasstorch.course.observation import dumps

    good = dumps({"case": "one", "observed": [1.0]})
    for bad in (json.dumps({"__ndarray__": "float32"}), "{not json", json.dumps([1, 2]), json.dumps({"case": "x"})):
        with pytest.raises(grade.Malformed, match="line 2 of the observations of 05.mul_backward is not an observation"):
            grade.decode_observations("05.mul_backward", [good, bad, good])
    ex = grade.get_exercise("05.mul_backward")
    result = grade._judge_collected(ex, 1, grade.decode_observations(ex.id, [good]), {"status": "ok"}, 60)
    assert result.status == "failed" and len(result.cases) == 6
    assert all(case.message.startswith("not tried") for case in result.cases[1:])
