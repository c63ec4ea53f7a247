"""What every chapter has (issue 16, SYLLABUS.md "What every chapter has"), checked on the files.

- at most 4,000 words of prose (the aim is 3,500): markdown, fenced code left out;
- no comparison harness in the chapter (``def chapter_NN(lib)``): those run from tests/;
- "Predict, then run": at least two per chapter from 01 on, each a question, then the code cell
  with its output folded (myst-nb's ``hide-output`` tag for the book, ``outputs_hidden`` for
  JupyterLab), then the explanation in a ``<details>`` block;
- "Check yourself" answers hidden in ``<details>``, and no pre-solved code cell there: each code
  cell in that section is a ``NotImplementedError`` stub or only calls a check (or is housekeeping
  the book does not show, tagged ``remove-cell``);
- a link from each chapter to its exercise notebook, and back from the exercise's source.

Each check returns its problems and also runs on a broken sample, so that a check which could never
fail would fail here.
"""
import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))
MAX_WORDS = 4000
PREDICT = "**Predict, then run.**"


def cells_of(notebook: Path) -> list[dict]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [dict(cell, text="".join(cell["source"])) for cell in cells]


def prose_words(cells: list[dict]) -> int:
    markdown = (c["text"] for c in cells if c["cell_type"] == "markdown")
    return sum(len(re.sub(r"```.*?```", "", text, flags=re.S).split()) for text in markdown)


def harness_problems(cells: list[dict]) -> list[str]:
    return [f"cell {i} defines a comparison harness ({m.group(0)}...): it belongs in tests/"
            for i, c in enumerate(cells) if c["cell_type"] == "code"
            for m in [re.search(r"def chapter_\d\d\(", c["text"])] if m]


def predict_problems(cells: list[dict]) -> list[str]:
    problems, count = [], 0
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown" or PREDICT not in cell["text"]:
            continue
        count += 1
        run = cells[i + 1] if i + 1 < len(cells) else None
        why = cells[i + 2] if i + 2 < len(cells) else None
        if run is None or run["cell_type"] != "code":
            problems.append(f"cell {i}: a prediction not followed by the code cell that answers it")
            continue
        if "hide-output" not in run["metadata"].get("tags", []):
            problems.append(f"cell {i + 1}: the answer's output is not folded in the book (tag hide-output)")
        if not run["metadata"].get("jupyter", {}).get("outputs_hidden"):
            problems.append(f"cell {i + 1}: the answer's output is not folded in JupyterLab (jupyter.outputs_hidden)")
        if why is None or why["cell_type"] != "markdown" or "<details>" not in why["text"]:
            problems.append(f"cell {i + 2}: no explanation in a <details> block after the answer")
    if count < 2:
        problems.append(f"{count} 'Predict, then run' questions (at least 2 wanted)")
    return problems


def calls_only_checks(code: str) -> bool:
    """True for a cell of nothing but calls like ``check_leaves_of()`` or ``check("04.walk_graph", f)``."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return False
    def is_check_call(statement):
        return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                and isinstance(statement.value.func, ast.Name) and statement.value.func.id.startswith("check"))
    return bool(body) and all(is_check_call(s) for s in body)


def check_yourself_problems(cells: list[dict]) -> list[str]:
    problems = []
    start = next((i for i, c in enumerate(cells)
                  if c["cell_type"] == "markdown" and re.search(r"^#+ .*Check yourself", c["text"], re.M)), None)
    if start is None:
        return ["no 'Check yourself' section"]
    if "<details>" not in cells[start]["text"]:
        problems.append("the 'Check yourself' questions have no hidden answers (<details>)")
    for i in range(start + 1, len(cells)):
        cell = cells[i]
        if cell["cell_type"] == "markdown" and re.match(r"## ", cell["text"]):
            break  # the next section
        housekeeping = "remove-cell" in cell["metadata"].get("tags", [])  # not shown in the book: no answer
        if cell["cell_type"] == "code" and "NotImplementedError" not in cell["text"] \
                and not calls_only_checks(cell["text"]) and not housekeeping:
            problems.append(f"cell {i} in 'Check yourself' is solved already (no NotImplementedError stub)")
    return problems


def exercise_link_problems(notebook: Path, cells: list[dict]) -> list[str]:
    target = f"](../exercises/{notebook.name})"
    if not (ROOT / "exercises" / notebook.name).exists():
        return []
    if not any(target in c["text"] for c in cells if c["cell_type"] == "markdown"):
        return [f"no link to its exercises, [...]({target[2:-1]})"]
    return []


def link_back_problems(solution: Path) -> list[str]:
    first = next(c["text"] for c in cells_of(solution) if c["cell_type"] == "markdown")
    target = f"](../book/{solution.name})"
    return [] if target in first else [f"{solution.name}'s first cell does not link its chapter, [...]({target[2:-1]})"]


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_prose_is_short_enough(notebook: Path):
    words = prose_words(cells_of(notebook))
    assert words <= MAX_WORDS, f"{notebook.name}: {words} words of prose (at most {MAX_WORDS}; aim for 3,500)"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_comparison_harnesses_live_in_tests(notebook: Path):
    assert not harness_problems(cells_of(notebook))


@pytest.mark.parametrize("notebook", CHAPTERS[1:], ids=[p.stem for p in CHAPTERS[1:]])
def test_chapter_asks_to_predict_then_run(notebook: Path):
    problems = predict_problems(cells_of(notebook))
    assert not problems, f"{notebook.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("notebook", CHAPTERS[1:], ids=[p.stem for p in CHAPTERS[1:]])
def test_check_yourself_hides_its_answers(notebook: Path):
    problems = check_yourself_problems(cells_of(notebook))
    assert not problems, f"{notebook.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_and_exercises_link_each_other(notebook: Path):
    problems = exercise_link_problems(notebook, cells_of(notebook))
    solution = ROOT / "solutions" / notebook.name
    if solution.exists():
        problems += link_back_problems(solution)
    assert not problems, f"{notebook.name}:\n  " + "\n  ".join(problems)


# --- the checks themselves, on broken samples -----------------------------------------------------

def md(text):
    return {"cell_type": "markdown", "metadata": {}, "text": text}


def code(text, tags=(), hidden=False):
    metadata = {"tags": list(tags)}
    if hidden:
        metadata["jupyter"] = {"outputs_hidden": True}
    return {"cell_type": "code", "metadata": metadata, "text": text}


GOOD_PREDICT = [md(f"{PREDICT} What is `a.grad`?"), code("a.grad", ["hide-output"], True),
                md("<details><summary>Why</summary>\n\nBecause.\n\n</details>")] * 2


def test_the_predict_check_finds_unfolded_answers():
    assert not predict_problems(GOOD_PREDICT)
    assert predict_problems(GOOD_PREDICT[:3]), "a single prediction should not be enough"
    assert any("book" in p for p in predict_problems([GOOD_PREDICT[0], code("a.grad", [], True)] + GOOD_PREDICT[2:]))
    assert any("JupyterLab" in p for p in predict_problems([GOOD_PREDICT[0], code("a.grad", ["hide-output"])]
                                                           + GOOD_PREDICT[2:]))
    assert any("explanation" in p for p in predict_problems(GOOD_PREDICT[:2] + [md("Because.")] + GOOD_PREDICT[3:]))


def test_the_check_yourself_check_finds_solved_cells():
    good = [md("## 9. Check yourself\n\n1. Why?\n\n<details><summary>Answer</summary>\n\nSo.\n\n</details>"),
            code("def f(x):\n    raise NotImplementedError('your code here')"), code("check_f()"),
            md("## 10. Read more"), code("print(1)")]
    assert not check_yourself_problems(good)
    solved = good[:1] + [code("def f(x):\n    return x + 1")] + good[2:]
    assert any("solved already" in p for p in check_yourself_problems(solved))
    assert check_yourself_problems([md("## 9. Check yourself\n\n1. Why? So.")])


def test_the_harness_and_size_checks_can_fail():
    assert harness_problems([code("def chapter_03(lib):\n    return {}")])
    assert prose_words([md("word " * (MAX_WORDS + 1))]) > MAX_WORDS
    assert prose_words([md("```python\n" + "x " * 5000 + "\n```\nthree words here")]) == 3
