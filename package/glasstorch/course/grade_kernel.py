"""What the grader runs inside a submission's kernel, after the submission's own cells: call the
learner's function on the grader's cases and write down what it did (observations), nothing more.

No verdict is formed here. The observations are compared with glasstorch's own answers in the
grader's process, which has run no learner code: a submission that patches numpy, the checks or
glasstorch in its kernel can change what its functions return, not how they are judged.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .checking import get_exercise
from .observation import dumps

GRADING = "GLASSTORCH_GRADING"  # set in the kernel's environment while a notebook is graded

# Far more than any honest observation (the largest, chapter 17's, are about 20 kB); a bigger one is
# cut short rather than filling the disk, and the grader reads no more than this.
MAX_OBSERVATION_BYTES = 8_000_000


def collect(exercise_id: str, seed: int, path: str, namespace: dict[str, Any]) -> None:
    """Observe the function the notebook defined for ``exercise_id`` on the cases of ``seed``;
    write them to ``path`` as JSON (one line per case, so a case that never ends still leaves
    the ones before it)."""
    ex = get_exercise(exercise_id)
    out = Path(path)
    impl = namespace.get(ex.entry)
    with _fresh(out) as file:
        if not callable(impl):
            file.write(dumps({"missing": f"the notebook defines no function `{ex.entry}`"}) + "\n")
            return
        written = 0
        for case in ex.make_cases(seed):
            line = dumps({"case": case.name, "observed": ex.observe_case(impl, case)}) + "\n"
            written += len(line)
            if written > MAX_OBSERVATION_BYTES:
                file.write(dumps({"missing": "the observations are too large to be graded"}) + "\n")
                return
            file.write(line)
            file.flush()


def _fresh(path: Path) -> Any:
    """``path``, opened for writing as a new file: whatever the notebook left there (a file of
    forged answers, a link, a FIFO) is removed, and a link put back in the meantime is not followed."""
    if os.path.lexists(path):
        os.unlink(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags, 0o600), "w", encoding="utf-8")


def grading() -> bool:
    """True inside a kernel that the grader runs."""
    return os.environ.get(GRADING) == "1"
