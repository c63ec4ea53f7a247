"""The exercises: every check passes on its solution, says "not written" on the learner's stub,
and catches the plausible wrong answers of tests/wrong_answers/chNN.py."""
from __future__ import annotations

import functools
import importlib
from pathlib import Path

import pytest

from course_support import EXERCISES, SOLUTIONS, notebook_namespace, solution_paths
from glasstorch.course.checking import FAILED, NOT_WRITTEN, PASSED, exercises_of, get_exercise, run_check

CHAPTERS = [path.name[:2] for path in solution_paths()]


def _wrong_answers(chapter: str) -> dict:
    return importlib.import_module(f"wrong_answers.ch{chapter}").WRONG


def _exercise_params() -> list:
    params = []
    for path in solution_paths():
        for ex in exercises_of(path.name[:2]):
            params.append(pytest.param(path, ex.id, id=ex.id))
    return params


@pytest.mark.parametrize("path, exercise_id", _exercise_params())
def test_the_solution_passes(path: Path, exercise_id: str) -> None:
    result = run_check(exercise_id, notebook_namespace(path)[get_exercise(exercise_id).entry])
    assert result.status == PASSED, str(result)


@pytest.mark.parametrize("path, exercise_id", _exercise_params())
def test_the_stub_is_not_written_yet(path: Path, exercise_id: str) -> None:
    result = run_check(exercise_id, notebook_namespace(EXERCISES / path.name)[get_exercise(exercise_id).entry])
    assert result.status == NOT_WRITTEN, str(result)


def _wrong_params() -> list:
    params = []
    for chapter in CHAPTERS:
        for exercise_id, wrongs in _wrong_answers(chapter).items():
            params.extend(pytest.param(exercise_id, wrong, id=f"{exercise_id}-{wrong.__name__}") for wrong in wrongs)
    return params


@pytest.mark.parametrize("exercise_id, wrong", _wrong_params())
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # some wrong answers overflow: that is their mistake
def test_a_plausible_wrong_answer_is_caught(exercise_id: str, wrong) -> None:
    result = run_check(exercise_id, wrong)
    assert result.status == FAILED, f"{wrong.__name__} was not caught:\n{result}"
    failing = next(case for case in result.cases if not case.passed)
    assert failing.message and (failing.hint or result.exercise.hint)  # specific feedback, never just "wrong"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_exercise_has_a_wrong_answer_and_each_chapter_three_exercises(chapter: str) -> None:
    ids = [ex.id for ex in exercises_of(chapter)]
    assert len(ids) >= 3
    wrong = _wrong_answers(chapter)
    assert sorted(ids) == sorted(wrong), "every exercise needs at least one wrong answer in the tests"
    assert all(wrong.values())


def test_the_exercise_notebooks_are_up_to_date(tmp_path: Path) -> None:
    """exercises/ is generated from solutions/ (`make exercises`): never edited by hand, never stale."""
    from glasstorch.course.generate import generate

    written = generate(SOLUTIONS, tmp_path)
    committed = sorted(path.name for path in EXERCISES.glob("[0-9][0-9]_*.ipynb"))
    assert committed == [path.name for path in written], "run `make exercises`"
    for path in written:
        assert path.read_bytes() == (EXERCISES / path.name).read_bytes(), f"exercises/{path.name} is stale: run `make exercises`"
def test_every_chapter_from_01_has_a_solution_notebook() -> None:
    book = sorted(path.name for path in (Path(__file__).parents[1] / "book").glob("[0-9][0-9]_*.ipynb"))
    assert CHAPTERS == [name[:2] for name in book if name[:2] != "00"]




# The cases whose right answer is an error. Anywhere else, a reference that raises would make the
# case pass for every answer that raises the same error type (a check that checks nothing).
CASES_EXPECTING_AN_ERROR = {
    ("01.infer", "ragged nested lists"),
    ("01.broadcast_shapes", "inside glasstorch: binary_cross_entropy of (4, 3) with a mismatched weight (2,)"),
    ("06.call_tensor_pre_hooks", "a hook that returns a different shape"),
    ("06.grad", "an unused input"),
    ("06.grad", "an input that does not require grad"),
    ("06.grad", "an output that does not require grad"),
    ("06.grad", "a vector output without grad_outputs"),
    ("07.detach", "backward notices an in-place change made through detach()"),
    ("07.requires_grad_", "an int64 leaf, requires_grad_(True)"),
    ("07.requires_grad_", "a computed tensor, requires_grad_(False)"),
    ("11.train", "train('False') is refused"),
    ("11.train", "train(0) is refused"),
    ("11.train", "train(None) is refused"),
    ("12._call_impl", "a with_kwargs pre-hook that returns something other than an (args, kwargs) pair"),
    ("15.batch_norm", "training on one value per channel raises ValueError"),
}


@functools.lru_cache(maxsize=None)
def _reference_observations(seed: int) -> dict:
    """{(exercise id, case name): what glasstorch's own implementation does}, for the grader's seed."""
    from glasstorch.course.checking import REGISTRY, get_exercise

    get_exercise("05.mul_backward")  # registers every chapter
    return {(ex.id, case.name): ex.observe_case(ex.reference, case)
            for ex in REGISTRY.values() for case in ex.make_cases(seed)}


@pytest.mark.parametrize("seed", [0, 1])
def test_a_reference_raises_only_where_an_error_is_the_answer(seed: int) -> None:
    from glasstorch.course.observation import Raised

    raising = {key for key, observed in _reference_observations(seed).items() if isinstance(observed, Raised)}
    assert raising == CASES_EXPECTING_AN_ERROR


def test_every_exercise_has_answers_that_change_with_the_seed() -> None:
    """A table of the right answers for one seed (the grader prints it) must fail under another:
    each exercise has at least one case whose right answer differs between two seeds."""
    from glasstorch.course.observation import dumps

    first, second = _reference_observations(0), _reference_observations(1)
    ids = sorted({exercise_id for exercise_id, _case in first})
    unchanged = [exercise_id for exercise_id in ids
                 if all(key in second and dumps(first[key]) == dumps(second[key])
                        for key in first if key[0] == exercise_id)]
    assert not unchanged, f"these exercises answer the same whatever the seed: {unchanged}"
