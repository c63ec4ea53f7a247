"""The grader against notebooks that attack the machine, the class and the reports (issue 15): each
attack is a cell in tests/hostile/ that a notebook really runs, graded beside two honest notebooks
in one run of ``glasstorch-grade`` (in its own process, as a teacher runs it, with its own home,
temporary folder and a secret in its environment).

Every test checks its attack changed nothing but its own notebook's score: the honest notebooks'
grades, the reports (still there and unchanged seconds after the grader ended), the other
submissions, the environment (glasstorch's files, site-packages, scikit-learn, the home folder)
and the grader (it ended normally); and that the offender got 0 with the reason.

These tests need the sandbox: they skip, saying why, where it cannot run, and fail in CI.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from course_support import EXERCISES, ROOT, SOLUTIONS, require_sandbox, sandbox_required
from glasstorch.course import grade_sandbox

HOSTILE = Path(__file__).parent / "hostile"
TEMPLATE = "05_backward_engine.ipynb"
IDS = ["05.mul_backward", "05.mm_backward", "05.run_backward"]
# every exercise has a case drawn from the seed (tests/test_exercises.py): the answers for seed 1 fail them all
FORGED = IDS
SECRET_NAME = "GLASSTORCH_TEST_SECRET"
BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from glasstorch.course.grade import main; "
        "sys.exit(main(sys.argv[2:]))")
PACKAGE = grade_sandbox.package_root()

# folder: (the notebook it starts from, the hostile cell added at its end). Folders sort so that
# the attacks run first and the honest notebooks ("z_...") last: an attack on later runs shows.
ATTACKS = {
    "a_appends_to_library": ("exercise", "appends_to_library"),
    "a_writes_pth": ("exercise", "writes_pth"),
    "a_rewrites_glasstorch": ("exercise", "rewrites_glasstorch"),
    "a_ipython_startup": ("exercise", "ipython_startup"),
    "b_sabotages_classmates": ("exercise", "sabotages_classmates"),
    "b_outlives_kernel": ("exercise", "outlives_kernel"),
    "b_reads_secrets": ("exercise", "reads_secrets"),
    "b_network": ("exercise", "network"),
    "c_memory_hog": ("solution", "memory_hog"),
    "c_fork_bomb": ("solution", "fork_bomb"),
    "c_fills_disk": ("solution", "fills_disk"),
    "d_forges_answers": ("exercise", "forges_answers"),
    "d_answers_table": ("exercise", "answers_table"),
    "d_fifo_observation": ("solution", "fifo_observation"),
    "d_dev_zero_observation": ("solution", "dev_zero_observation"),
    "d_malformed_observations": ("solution", "malformed_observations"),
    "d_writes_answer_pipe": ("exercise", "writes_answer_pipe"),
    "e_surrogate_messages": ("exercise", "surrogate_messages"),
    "e_control_characters": ("exercise", "control_characters"),
}
FORMULA_FOLDER, FORMULA_NAME = "@SUM(1+1)", '=HYPERLINK("https:example.invalid","click me").ipynb'
NOT_UTF8_NAME = b"\xff\xfe-\xe9t\xe9.ipynb"   # Latin-1, not UTF-8


def _notebook(base: str, cells: list[str] = (), marker: str = "") -> nbformat.NotebookNode:
    notebook = nbformat.read((SOLUTIONS if base == "solution" else EXERCISES) / TEMPLATE, as_version=4)
    if marker:  # a classmate's words, which no other notebook may read
        notebook.cells.insert(0, new_markdown_cell(f"classmate-secret-{marker}"))
    notebook.cells += [new_code_cell(source) for source in cells]
    return notebook


def _hostile_cell(name: str, **params: object) -> str:
    values = "\n".join(f"{key} = {value!r}" for key, value in params.items())
    return f"{values}\n{(HOSTILE / '_find.py').read_text()}\n{(HOSTILE / f'{name}.py').read_text()}"


def _tree_hashes(folder: Path) -> dict:
    """Every file under ``folder`` (links not followed) and a hash of its bytes."""
    hashes = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = Path(root, name)
            hashes[os.fsdecode(path.relative_to(folder))] = (
                "link" if path.is_symlink() else "fifo" if path.is_fifo()
                else hashlib.sha256(path.read_bytes()).hexdigest())
    return hashes


def _environment() -> dict:
    """What an attack on the environment would change: glasstorch's course files (what grading
    trusts), the listing of every site-packages folder, scikit-learn's __init__."""
    import site

    import sklearn

    return {"package": _tree_hashes(PACKAGE / "glasstorch" / "course"),
            "site-packages": {folder: sorted(os.listdir(folder)) for folder in site.getsitepackages()
                              if os.path.isdir(folder)},
            "sklearn": hashlib.sha256(Path(sklearn.__file__).read_bytes()).hexdigest()}


class _Listener:
    """A TCP server on the machine's loopback that records what reaches it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.received: list[bytes] = []
        self.server.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(2)
                try:
                    self.received.append(connection.recv(4096) or b"(connected)")
                except OSError:
                    self.received.append(b"(connected)")

    def close(self) -> None:
        self.running = False
        self.thread.join(5)
        self.server.close()


def _grade(folder: Path, out: Path, env: dict, *extra: str, timeout: int = 900) -> subprocess.CompletedProcess:
    command = [sys.executable, "-I", "-c", BOOT, str(PACKAGE), str(folder), *extra,
               "--json", str(out / "grades.json"), "--csv", str(out / "grades.csv"),
               "--junit", str(out / "grades.xml"), "--feedback", str(out / "feedback")]
    return subprocess.run(command, env=env, capture_output=True, timeout=timeout, cwd=out)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One class, every attack in it, graded in one run (-j 2); and what the machine looked like
    before and after."""
    require_sandbox()
    marker = f"hostile{uuid.uuid4().hex[:10]}"
    base = tmp_path_factory.mktemp(f"gt-{marker}")
    folder, out, home, tmp = (base / name for name in ("class", "out", "home", "tmp"))
    for path in (folder, out, home, tmp):
        path.mkdir()
    listener = _Listener()
    secret = f"gt-secret-{uuid.uuid4().hex}"
    params = {"MARKER": marker, "PORT": listener.port, "SECRET_NAME": SECRET_NAME, "IDS": IDS}
    for name, (start, attack) in ATTACKS.items():
        (folder / name).mkdir()
        cell = _hostile_cell(attack, **{**params, "IDS": FORGED if attack == "forges_answers" else IDS})
        nbformat.write(_notebook(start, [cell]), folder / name / TEMPLATE)
    honest = {"z_honest_solution": "solution", "z_honest_exercise": "exercise"}
    for name, start in honest.items():
        (folder / name).mkdir()
        nbformat.write(_notebook(start, marker=f"{name}-{marker}"), folder / name / TEMPLATE)
    # the submissions that are not what they claim to be
    secret_file = base / "secret.txt"
    secret_file.write_text(f"TOP-SECRET-{marker}: the first line of a file no submission may show\n")
    for name, target in {"f_links_to_solution": SOLUTIONS / TEMPLATE, "f_links_to_secret": secret_file,
                         "f_links_to_dev_zero": Path("/dev/zero")}.items():
        (folder / name).mkdir()
        (folder / name / TEMPLATE).symlink_to(target)
    (folder / "f_linked_folder").symlink_to(SOLUTIONS, target_is_directory=True)
    (folder / "f_fifo").mkdir()
    os.mkfifo(folder / "f_fifo" / TEMPLATE)
    (folder / FORMULA_FOLDER).mkdir()
    nbformat.write(_notebook("exercise"), folder / FORMULA_FOLDER / FORMULA_NAME)
    (folder / "g_not_utf8").mkdir()
    with open(os.path.join(os.fsencode(folder / "g_not_utf8"), NOT_UTF8_NAME), "w") as file:
        nbformat.write(_notebook("exercise"), file)

    before = {"class": _tree_hashes(folder), "environment": _environment(), "home": _tree_hashes(home)}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TMPDIR": str(tmp),
           "LANG": "C.UTF-8", SECRET_NAME: secret}
    start = time.monotonic()
    try:
        result = _grade(folder, out, env, "-j", "2", "--cell-timeout", "20")  # (the table too, on stdout)
    finally:
        seconds = time.monotonic() - start
        time.sleep(6)  # a process that outlived the grader would rewrite the reports now
        listener.close()
    reports = {name: (out / name).read_bytes() if (out / name).exists() else None
               for name in ("grades.json", "grades.csv", "grades.xml")}
    return {
        "marker": marker, "secret": secret, "folder": folder, "out": out, "home": home, "result": result,
        "seconds": seconds, "before": before, "reports": reports, "received": list(listener.received),
        "after": {"class": _tree_hashes(folder), "environment": _environment(), "home": _tree_hashes(home)},
        "json": {entry["notebook"].split("/")[0]: entry for entry in json.loads(reports["grades.json"] or b"[]")},
    }


def _unharmed(run: dict) -> None:
    """What every attack must leave as an honest run would."""
    result = run["result"]
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-3000:]
    assert run["after"]["class"] == run["before"]["class"], "a submission was changed"
    assert run["after"]["environment"] == run["before"]["environment"], "the environment was changed"
    assert run["after"]["home"] == run["before"]["home"], "the home folder was changed"
    for name, data in run["reports"].items():
        assert data is not None and data == (run["out"] / name).read_bytes(), f"{name} was rewritten"
    json.loads(run["reports"]["grades.json"])
    ET.fromstring(run["reports"]["grades.xml"])
    solution, exercise = run["json"]["z_honest_solution"], run["json"]["z_honest_exercise"]
    assert (solution["score"], solution["max_score"], solution["error"]) == (3, 3, None), solution
    assert (exercise["score"], exercise["error"]) == (0, None)
    assert {ex["status"] for ex in exercise["exercises"]} == {"not written"}


def _zero(run: dict, name: str, *reasons: str) -> dict:
    """The offender got 0; its report (error, exercises, cells) says each of ``reasons``."""
    entry = run["json"][name]
    assert entry["score"] == 0, json.dumps(entry["exercises"], indent=1)
    said = json.dumps([entry["error"], entry["problems"], [ex["summary"] for ex in entry["exercises"]]])
    for reason in reasons:
        assert reason in said, f"{name}: {reason!r} not in {said}"
    return entry


def _everything_written(run: dict) -> str:
    out = run["out"]
    texts = [data.decode("utf-8", "replace") for data in run["reports"].values() if data]
    texts += [path.read_text(errors="replace") for path in (out / "feedback").rglob("*") if path.is_file()]
    texts += [run["result"].stdout.decode(errors="replace"), run["result"].stderr.decode(errors="replace")]
    return "\n".join(texts)


# -- the environment and the grader's own process -------------------------------------------------

def test_appending_to_a_library_the_grader_imports_is_refused(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "a_appends_to_library", "Read-only file system")


def test_a_pth_file_cannot_be_put_into_the_environment(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "a_writes_pth", "Read-only file system")


def test_glasstorch_cannot_be_rewritten(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "a_rewrites_glasstorch", "Read-only file system")


def test_an_ipython_startup_file_reaches_no_later_kernel(attacked: dict) -> None:
    _unharmed(attacked)  # (the home folder is unchanged, and the notebooks graded after it pass)
    _zero(attacked, "a_ipython_startup", "still raises NotImplementedError")
    assert not list(attacked["home"].rglob("startup/*"))


# -- the class ------------------------------------------------------------------------------------

def test_classmates_are_neither_read_nor_sabotaged(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "b_sabotages_classmates", "reached 0 files of classmates; leaked: ''")
    assert f"z_honest_solution-{attacked['marker']}" not in _everything_written(attacked)


def test_no_process_outlives_its_kernel_to_rewrite_the_reports(attacked: dict) -> None:
    _unharmed(attacked)  # (each report is unchanged 6 s after the grader ended)
    _zero(attacked, "b_outlives_kernel", "still raises NotImplementedError")


def test_the_teachers_environment_cannot_be_read(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "b_reads_secrets", "no token found")
    assert attacked["secret"] not in _everything_written(attacked)
    assert attacked["received"] == []


def test_the_network_is_out_of_reach(attacked: dict) -> None:
    _unharmed(attacked)
    entry = _zero(attacked, "b_network", "network: ")
    assert not [problem for problem in entry["problems"] if "'127.0.0.1'" in problem]  # (sent, it would say so)
    assert attacked["received"] == []


# -- the machine's limits -------------------------------------------------------------------------

def test_memory_is_limited(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "c_memory_hog", "exceeded the memory limit (2 GiB)")


def test_processes_are_limited(attacked: dict) -> None:
    enforced = grade_sandbox.support().enforced()["processes"]
    if enforced.startswith("not enforced"):
        (pytest.fail if sandbox_required() else pytest.skip)(f"the process limit is {enforced}")
    _unharmed(attacked)
    _zero(attacked, "c_fork_bomb", "exceeded the process limit (64 processes and threads)")


def test_files_written_are_limited(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "c_fills_disk", "exceeded the limit on files written (256 MiB)")


# -- the answers ----------------------------------------------------------------------------------

def test_forged_observations_and_run_json_give_nothing(attacked: dict) -> None:
    _unharmed(attacked)
    entry = _zero(attacked, "d_forges_answers")
    assert [ex["status"] for ex in entry["exercises"] if ex["id"] in FORGED] == ["failed"] * len(FORGED)  # seed 1's


def test_a_table_of_answers_for_the_public_seed_gives_nothing(attacked: dict) -> None:
    _unharmed(attacked)
    entry = _zero(attacked, "d_answers_table", "KeyError")
    assert entry["seed"] != 1 and all(e["seed"] == entry["seed"] for e in attacked["json"].values())


def test_a_fifo_where_the_observations_are_read_hangs_nothing(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "d_fifo_observation", "its answer was malformed", "it is not a regular file")


def test_a_link_to_dev_zero_where_the_observations_are_read_is_refused(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "d_dev_zero_observation", "its answer was malformed", "it is a symbolic link")


def test_malformed_observations_give_zero_with_a_reason(attacked: dict) -> None:
    _unharmed(attacked)
    _zero(attacked, "d_malformed_observations", "its answer was malformed",
          "line 1 of the observations of 05.mul_backward is not an observation")


def test_the_kernel_cannot_write_to_the_graders_pipe(attacked: dict) -> None:
    _unharmed(attacked)
    entry = _zero(attacked, "d_writes_answer_pipe", "wrote a forged answer into 0 pipes")
    assert entry["error"] is None  # its own answer arrived, whole


# -- the report stage -----------------------------------------------------------------------------

def test_a_lone_surrogate_does_not_sink_the_reports(attacked: dict) -> None:
    _unharmed(attacked)
    entry = _zero(attacked, "e_surrogate_messages")
    assert "but it raised ValueError: broken \\ud800 here" in entry["exercises"][0]["summary"]
    assert "got odd \\xff\\ud800" in entry["exercises"][1]["summary"]
    assert "e_surrogate_messages" in attacked["reports"]["grades.csv"].decode("utf-8")


def test_control_characters_do_not_make_the_junit_report_invalid(attacked: dict) -> None:
    _unharmed(attacked)  # (it parses)
    _zero(attacked, "e_control_characters")
    junit = attacked["reports"]["grades.xml"].decode()
    assert "[2J cleared" in junit and "\x1b" not in junit
    table = attacked["result"].stdout.decode()
    assert "e_control_characters" in table and "\x1b" not in table and "\\x1b[2J cleared" in table


def test_a_file_name_that_is_not_utf8_is_reported(attacked: dict) -> None:
    _unharmed(attacked)
    name = "g_not_utf8/\\xff\\xfe-\\xe9t\\xe9.ipynb"
    assert attacked["json"]["g_not_utf8"]["notebook"] == name
    assert name in attacked["reports"]["grades.csv"].decode("utf-8")


def test_a_formula_never_reaches_the_csv(attacked: dict) -> None:
    _unharmed(attacked)
    rows = list(csv.reader(attacked["reports"]["grades.csv"].decode("utf-8").splitlines()))
    assert f"'{FORMULA_FOLDER}/{FORMULA_NAME}" in [row[0] for row in rows]
    assert not [cell for row in rows for cell in row if cell[:1] in ("=", "+", "-", "@")]


# -- submissions that are not what they claim -----------------------------------------------------

def test_a_link_to_a_solution_is_refused(attacked: dict) -> None:
    _unharmed(attacked)
    entry = attacked["json"]["f_links_to_solution"]
    assert (entry["score"], entry["error"]) == (0, "not graded: it is a symbolic link")


def test_a_link_to_a_secret_file_does_not_show_it(attacked: dict) -> None:
    _unharmed(attacked)
    entry = attacked["json"]["f_links_to_secret"]
    assert (entry["score"], entry["error"]) == (0, "not graded: it is a symbolic link")
    assert f"TOP-SECRET-{attacked['marker']}" not in _everything_written(attacked)


def test_a_link_to_dev_zero_as_a_submission_is_refused(attacked: dict) -> None:
    _unharmed(attacked)
    assert attacked["json"]["f_links_to_dev_zero"]["error"] == "not graded: it is a symbolic link"


def test_a_linked_folder_is_refused_not_followed(attacked: dict) -> None:
    _unharmed(attacked)
    assert attacked["json"]["f_linked_folder"]["error"] == "not graded: it is a symbolic link"
    assert not [name for name in attacked["json"] if name.startswith("f_linked_folder/")]


def test_a_fifo_as_a_submission_hangs_nothing(attacked: dict) -> None:
    _unharmed(attacked)
    assert attacked["json"]["f_fifo"]["error"] == "not graded: it is not a regular file"


def test_every_notebook_has_a_feedback_file_in_markdown_and_html(attacked: dict) -> None:
    feedback = attacked["out"] / "feedback"
    solution = (feedback / "z_honest_solution" / "05_backward_engine.md").read_text()
    assert "3/3 points" in solution and f"seed {attacked['json']['z_honest_solution']['seed']}" in solution
    exercise = (feedback / "z_honest_exercise" / "05_backward_engine.html").read_text()
    assert "not written yet" in exercise and "<pre>" in exercise
    table = (feedback / "d_answers_table" / "05_backward_engine.md").read_text()
    assert "Case '" in table and "Hint:" in table  # the failing case, expected versus got, the hint
    assert len(list(feedback.rglob("*.md"))) == len(list(feedback.rglob("*.html"))) == len(attacked["json"])


# -- the grader itself, and the seed --------------------------------------------------------------

def test_a_notebook_cannot_kill_the_grader(tmp_path: Path) -> None:
    require_sandbox()
    marker = f"hostile{uuid.uuid4().hex[:10]}"
    folder, out = tmp_path / f"class-{marker}", tmp_path / "out"
    (folder / "a_stops_grader").mkdir(parents=True)
    out.mkdir()
    cell = _hostile_cell("stops_grader", MARKER=marker, PORT=0, SECRET_NAME=SECRET_NAME, IDS=IDS)
    nbformat.write(_notebook("exercise", [cell]), folder / "a_stops_grader" / TEMPLATE)
    (folder / "z_honest").mkdir()
    nbformat.write(_notebook("solution"), folder / "z_honest" / TEMPLATE)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TMPDIR": str(tmp_path), "LANG": "C.UTF-8"}
    result = _grade(folder, out, env, "-j", "2", "-q")
    assert result.returncode == 0, result.returncode
    graded = {entry["notebook"].split("/")[0]: entry for entry in json.loads((out / "grades.json").read_text())}
    assert graded["z_honest"]["score"] == 3
    _zero({"json": graded}, "a_stops_grader", "LookupError: the grader is not in sight")


def test_the_seed_is_random_printed_and_repeatable(tmp_path: Path) -> None:
    require_sandbox()
    (tmp_path / "class").mkdir()
    notebook = tmp_path / "class" / TEMPLATE
    nbformat.write(_notebook("solution", ["def mul_backward(grad, a, b):\n    return grad * b, grad * a\n"]), notebook)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TMPDIR": str(tmp_path), "LANG": "C.UTF-8"}
    runs = []
    for extra in ([], [], "the first run's seed"):
        out = tmp_path / f"out{len(runs)}"
        out.mkdir()
        if isinstance(extra, str):
            extra = ["--seed", str(runs[0][1]["seed"])]
        result = _grade(notebook, out, env, *extra)
        assert result.returncode == 0, result.stderr.decode()
        entry = json.loads((out / "grades.json").read_text())[0]
        runs.append((result.stdout.decode(), entry))
    seeds = [entry["seed"] for _, entry in runs]
    assert seeds[0] != seeds[1] and seeds[2] == seeds[0] and 1 not in seeds
    for text, entry in runs:
        assert f"seed {entry['seed']} (to repeat this grading: --seed {entry['seed']})" in text
    first, repeated = runs[0][1]["exercises"], runs[2][1]["exercises"]
    assert first == repeated and first[0]["status"] == "failed"   # the same cases, the same verdicts


# -- without bubblewrap ---------------------------------------------------------------------------

def _without_bwrap(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "class").mkdir(exist_ok=True)
    nbformat.write(_notebook("exercise"), tmp_path / "class" / TEMPLATE)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TMPDIR": str(tmp_path), "LANG": "C.UTF-8",
           "GLASSTORCH_BWRAP": str(tmp_path / "no-such-bwrap")}
    return subprocess.run([sys.executable, "-I", "-c", BOOT, str(PACKAGE), str(tmp_path / "class"), *extra],
                          env=env, capture_output=True, text=True, timeout=300)


def test_without_bubblewrap_it_refuses_to_grade_others_notebooks(tmp_path: Path) -> None:
    result = _without_bwrap(tmp_path)
    assert result.returncode == 2 and "cannot sandbox the notebooks here" in result.stderr
    assert "apt-get install -y bubblewrap" in result.stderr and "--no-sandbox" in result.stderr
    assert "points" not in result.stdout


def test_without_bubblewrap_no_sandbox_grades_trusted_notebooks(tmp_path: Path) -> None:
    result = _without_bwrap(tmp_path, "--no-sandbox", "-q", "--json", str(tmp_path / "grades.json"))
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "grades.json").read_text())[0]["sandbox"] == "none"


def test_make_grade_on_your_own_exercises_says_it_runs_without_a_sandbox(tmp_path: Path) -> None:
    result = _without_bwrap(tmp_path, "--sandbox", "auto")
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: no sandbox")]
    assert len(notes) == 1 and "0/3 points" in result.stdout


def test_make_grade_runs_the_grader_isolated_and_sandboxes_all_but_your_exercises() -> None:
    recipe = (ROOT / "Makefile").read_text().split("\ngrade:")[1].split("\n\n")[0]
    assert "python -I -m glasstorch.course.grade" in recipe
    assert "--sandbox auto" in recipe and "exercises" in recipe


def test_the_sandbox_hides_the_class_folder_even_inside_the_environment(tmp_path: Path) -> None:
    support = grade_sandbox.Support(True, "", "bwrap", "0", frozenset({"--size"}))
    inside = grade_sandbox.package_root() / "glasstorch"
    command = grade_sandbox.bwrap_command(support, grade_sandbox.Limits(), notebook=None,
                                          package_root=grade_sandbox.package_root(), command=["true"],
                                          hidden=(inside,))
    shown = {command[i + 1] for i, arg in enumerate(command) if arg == "--ro-bind"}
    assert str(grade_sandbox.package_root()) not in shown and "/" not in shown
    assert {"--unshare-all", "--unshare-user", "--die-with-parent", "--clearenv", "--new-session"} <= set(command)


def test_an_environment_under_tmp_is_shown_over_the_private_tmp(monkeypatch: pytest.MonkeyPatch) -> None:
    support = grade_sandbox.Support(True, "", "bwrap", "0", frozenset())
    monkeypatch.setattr(grade_sandbox, "_python_paths", lambda: ("/tmp/ci/venv",))
    command = grade_sandbox.bwrap_command(support, grade_sandbox.Limits(), notebook=None,
                                          package_root=Path("/tmp/ci/package"), command=["true"])
    tmpfs = command.index("/tmp", command.index("--tmpfs"))
    assert tmpfs < command.index("/tmp/ci/venv") and tmpfs < command.index("/tmp/ci/package")
    monkeypatch.setattr(grade_sandbox.sys, "executable", "/tmp/ci/repo/../venv/bin/python")
    assert grade_sandbox.python() == "/tmp/ci/venv/bin/python"  # (inside, /tmp/ci/repo does not exist)
