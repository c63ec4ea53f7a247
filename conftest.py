"""pytest set-up for the whole project: nbval's kernels survive a port clash at start.

nbval starts one kernel per notebook. Under ``make test`` two xdist workers start kernels at the
same time, and the grader's tests start more. jupyter_client picks each kernel's ports by asking
the OS for free ones and closing them again before the kernel binds them, so two kernels started
in the same moment can be handed the same port: one of them dies before it answers ("Kernel died
before replying to kernel_info", jupyter_client issue 154). As the grader does
(``glasstorch.course.grade_run``), a kernel that dies at start is started again.
"""
from __future__ import annotations

from typing import Any

import pytest

try:
    import nbval.kernel
except ImportError:  # nbval comes with the test extra; without it there are no notebook tests
    nbval = None

START_TRIES = 3


def _start_new_kernel(*args: Any, **kwargs: Any) -> Any:
    for attempt in range(1, START_TRIES + 1):
        try:
            return _nbval_start_new_kernel(*args, **kwargs)
        except RuntimeError:  # (nbval has shut the dead kernel down)
            if attempt == START_TRIES:
                raise


if nbval is not None:
    _nbval_start_new_kernel = nbval.kernel.start_new_kernel
    nbval.kernel.start_new_kernel = _start_new_kernel


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    """Hypothesis 6.170's pytest plugin wraps a parametrized test's settings in new settings at each
    call, each the parent of the next. The op table has over a thousand calls of one test
    function: with CI=true (no example database, so nothing is cached along the chain) reading the
    settings then recursed past Python's limit. Each call gets back the settings it started with."""
    function = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
    settings = getattr(function, "_hypothesis_internal_use_settings", None)
    yield
    if settings is not None:
        function._hypothesis_internal_use_settings = settings
