"""Exercise checks: run a learner's implementation on a set of cases, compare what it does with
what glasstorch's own implementation does, and say precisely which case failed, expected versus
got, and a hint.

An :class:`Exercise` is declared in ``glasstorch/course/exercises/chNN.py`` with:

* ``entry``: the name the notebook defines (``mul_backward``);
* ``cases(rng)``: the inputs to try, as plain data (arrays, numbers, strings), from a seeded
  generator, so the grader can use fresh inputs a submission cannot have memorised;
* ``reference``: glasstorch's own implementation, which the learner's is compared with;
* ``observe(impl, *inputs)``: runs an implementation on one case and returns what to compare
  (by default the return value). A case may bring its own ``observe``: the cases that plug the
  learner's code into the real package (train a small network with it) do.

In a notebook, ``check("05.mul_backward", mul_backward)`` prints the verdict at once.
"""
from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .comparison import first_difference
from .i18n import _
from .observation import Raised, to_plain

NOTEBOOK_SEED = 0  # the cases a learner sees; the grader draws its own


@dataclass(frozen=True)
class Case:
    """One input to try. ``observe`` overrides the exercise's (for cases run inside the package);
    ``hint`` is shown, instead of the exercise's, when this case fails."""

    name: str
    inputs: tuple = ()
    observe: Callable[..., Any] | None = None
    hint: str | None = None


@dataclass(frozen=True)
class Exercise:
    id: str
    entry: str
    title: str
    cases: Callable[[np.random.Generator], Sequence[Case]]
    reference: Callable[..., Any]
    hint: str
    observe: Callable[..., Any] | None = None
    points: int = 1
    rtol: float = 1e-5
    atol: float = 1e-6

    @property
    def chapter(self) -> str:
        return self.id.split(".", 1)[0]

    def make_cases(self, seed: int) -> list[Case]:
        return list(self.cases(np.random.default_rng(seed)))

    def observe_case(self, impl: Callable[..., Any], case: Case) -> Any:
        """What ``impl`` does on ``case``, as plain data; an exception is an observation too."""
        observe = case.observe or self.observe or _call
        inputs = copy.deepcopy(case.inputs)  # an implementation that edits its inputs edits a copy
        try:
            return to_plain(observe(impl, *inputs))
        except Exception as error:  # noqa: BLE001 - any error of the learner's code is reported, not raised
            return Raised(type(error).__name__, _first_line(str(error)))


def _call(impl: Callable[..., Any], *inputs: Any) -> Any:
    return impl(*inputs)


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


REGISTRY: dict[str, Exercise] = {}


def exercise(**fields: Any) -> Exercise:
    """Declare an exercise and register it under its id."""
    ex = Exercise(**fields)
    if ex.id in REGISTRY:
        raise ValueError(f"exercise {ex.id!r} is declared twice")
    REGISTRY[ex.id] = ex
    return ex


def get_exercise(exercise_id: str) -> Exercise:
    from . import exercises  # noqa: F401 - importing it registers every chapter's exercises

    try:
        return REGISTRY[exercise_id]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"there is no exercise {exercise_id!r}; the exercises are: {known}") from None


def exercises_of(chapter: str) -> list[Exercise]:
    """The exercises of chapter ``"03"``, in the order they were declared."""
    from . import exercises  # noqa: F401

    return [ex for ex in REGISTRY.values() if ex.chapter == chapter]


# -- verdicts -------------------------------------------------------------------------------------

PASSED, FAILED, NOT_WRITTEN, MISSING, TIMED_OUT = "passed", "failed", "not written", "missing", "timed out"


@dataclass
class CaseResult:
    name: str
    passed: bool
    message: str | None = None
    hint: str | None = None


@dataclass
class CheckResult:
    exercise: Exercise
    status: str
    cases: list[CaseResult] = field(default_factory=list)
    detail: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def points(self) -> int:
        return self.exercise.points if self.passed else 0

    @property
    def cases_passed(self) -> int:
        return sum(case.passed for case in self.cases)

    def summary(self) -> str:
        """One line: the status and, for a failure, the first failing case."""
        if self.status == FAILED:
            first = next(case for case in self.cases if not case.passed)
            return _("{passed}/{total} cases; case '{case}': {message}").format(
                passed=self.cases_passed, total=len(self.cases), case=_(first.name),
                message=first.message.splitlines()[0])
        if self.status == NOT_WRITTEN:
            return _("`{entry}` still raises NotImplementedError").format(entry=self.exercise.entry)
        return self.detail or _("{passed}/{total} cases").format(passed=self.cases_passed, total=len(self.cases))

    def __str__(self) -> str:
        ex = self.exercise
        head = f"{ex.id} — {_(ex.title)}"
        if self.status == PASSED:
            return "✔ " + _("{head}: all {total} cases pass.").format(head=head, total=len(self.cases))
        if self.status == NOT_WRITTEN:
            return "… " + _("{head}: not written yet. Replace the `raise NotImplementedError` in `{entry}` with "
                            "your code, run its cell, then this one.").format(head=head, entry=ex.entry)
        if self.status in (MISSING, TIMED_OUT):
            return f"✘ {head}: {self.detail}"
        failing = [case for case in self.cases if not case.passed]
        first = failing[0]
        lines = ["✘ " + _("{head}: {passed} of {total} cases pass.").format(
                     head=head, passed=self.cases_passed, total=len(self.cases)),
                 "  " + _("Case '{case}' fails:").format(case=_(first.name)),
                 "    " + first.message.replace("\n", "\n    ")]
        if len(failing) > 1:
            lines.append("  " + _("Also failing: {cases}").format(cases=", ".join(f"'{_(case.name)}'" for case in failing[1:])))
        lines.append("  " + _("Hint: {hint}").format(hint=_(first.hint or ex.hint)))
        return "\n".join(lines)


def judge(ex: Exercise, cases: Sequence[Case], observed: Sequence[Any],
          expected: Sequence[Any] | None = None) -> CheckResult:
    """Compare the observations of a learner's implementation with the reference's, case by case
    (``expected``: the reference's observations, when already known)."""
    if expected is None:
        expected = [ex.observe_case(ex.reference, case) for case in cases]
    if not observed:
        return CheckResult(ex, MISSING, detail=_("the implementation was never tried on a case"))
    results = []
    for case, got, want in zip(cases, observed, expected):
        if isinstance(got, Raised) and got.type_name == "NotImplementedError" and not isinstance(want, Raised):
            return CheckResult(ex, NOT_WRITTEN)
        message = first_difference(want, got, rtol=ex.rtol, atol=ex.atol)
        results.append(CaseResult(case.name, message is None, message, case.hint))
    # cases the implementation never got to (its run stopped early) fail: nothing shows they pass
    results += [CaseResult(case.name, False, _("not tried: the run stopped before this case"))
                for case in cases[len(observed):]]
    return CheckResult(ex, PASSED if all(r.passed for r in results) else FAILED, results)


def run_check(exercise_id: str, impl: Callable[..., Any], seed: int = NOTEBOOK_SEED) -> CheckResult:
    """Check ``impl`` against exercise ``exercise_id`` and return the verdict."""
    ex = get_exercise(exercise_id)
    if not callable(impl):
        return CheckResult(ex, MISSING, detail=_("expected a function (`{entry}`), got {got}").format(
            entry=ex.entry, got=type(impl).__name__))
    cases = ex.make_cases(seed)
    return judge(ex, cases, [ex.observe_case(impl, case) for case in cases])


def check(exercise_id: str, impl: Callable[..., Any]) -> None:
    """The check cell of an exercise: prints whether ``impl`` is right and, if not, where not."""
    from .grade_kernel import grading

    if grading():  # the grader judges with its own cases, in its own process: save the time
        print(_("{exercise}: checked by the grader").format(exercise=exercise_id))
        return
    print(run_check(exercise_id, impl))


@contextlib.contextmanager
def replaced(owner: Any, name: str, value: Any) -> Iterator[None]:
    """Temporarily set ``owner.name = value`` (to plug a learner's piece into the package)."""
    own = vars(owner) if isinstance(owner, type) else owner.__dict__
    had_own, original = name in own, own.get(name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        if had_own:
            setattr(owner, name, original)
        else:  # it was inherited: remove ours, and the inherited one shows through again
            delattr(owner, name)
