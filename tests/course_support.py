"""Run a solution or exercise notebook's code in-process, to get at the functions it defines."""
from __future__ import annotations

import contextlib
import functools
import io
import os
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"


@functools.cache
def notebook_namespace(path: Path) -> dict:
    """Execute the notebook's code cells in order in a fresh namespace (silencing what they
    print); a cell that raises, as an exercise's stub does, is skipped and the rest still run."""
    namespace: dict = {"__name__": f"notebook:{path.name}"}
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        code = compile(cell.source, f"{path.name}[cell {index}]", "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(code, namespace)  # noqa: S102 - our own notebooks
            except NotImplementedError:
                pass
    return namespace


def solution_paths() -> list[Path]:
    return sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))


# -- the grader's sandbox in tests ----------------------------------------------------------------

def sandbox_required() -> bool:
    """In CI (CI=true) or with GLASSTORCH_REQUIRE_SANDBOX=1, the sandbox tests must run: a machine
    that cannot sandbox fails them instead of skipping them."""
    return (os.environ.get("CI", "").lower() in ("true", "1", "yes")
            or os.environ.get("GLASSTORCH_REQUIRE_SANDBOX", "") not in ("", "0"))


def sandbox_reason() -> str | None:
    """Why notebooks cannot be sandboxed on this machine (None: they can)."""
    from glasstorch.course import grade_sandbox

    support = grade_sandbox.support()
    return None if support.usable else support.reason


def require_sandbox() -> None:
    """Skip the calling test (with the reason) where notebooks cannot be sandboxed; fail it in CI."""
    import pytest

    reason = sandbox_reason()
    if reason is None:
        return
    message = f"the grader cannot sandbox notebooks here: {reason}"
    if sandbox_required():
        pytest.fail(message + " (CI=true or GLASSTORCH_REQUIRE_SANDBOX=1: the sandbox tests must run)")
    print(message, "- skipping; install bubblewrap to run these tests")
    pytest.skip(message)


def grading_sandboxed() -> bool:
    """For the grader's other tests: grade in the sandbox where it works; where it does not, fail
    in CI, elsewhere say so and grade without it (those tests are not about the sandbox)."""
    reason = sandbox_reason()
    if reason is None:
        return True
    if sandbox_required():
        import pytest

        pytest.fail(f"the grader cannot sandbox notebooks here: {reason}")
    print(f"the grader cannot sandbox notebooks here ({reason}): grading without it")
    return False


def assert_same_observations(ours: dict, theirs: dict) -> None:
    """A chapter's programs run in glasstorch (``ours``) and PyTorch (``theirs``), each a dict of
    what was observed: the same keys in the same order, the same values, else each difference."""
    assert list(ours) == list(theirs)
    different = {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}
    assert not different, "glasstorch (left) and PyTorch (right) differ:\n" + "\n".join(
        f"  {key}: {pair[0]!r}\n  {' ' * len(key)}  {pair[1]!r}" for key, pair in different.items())
