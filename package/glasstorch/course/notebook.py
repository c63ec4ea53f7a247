"""Helpers the chapters call: show the package's own source next to the PyTorch file it mirrors."""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def show_source(obj: Any, mirrors: str | None = None) -> None:
    """Print the source of a glasstorch function, class or method, headed by its file (and the
    PyTorch file it mirrors, when given), so a learner can hold the two side by side."""
    target = inspect.unwrap(obj.fget if isinstance(obj, property) else obj)
    path = Path(inspect.getsourcefile(target)).resolve()
    try:
        where = "glasstorch/" + path.relative_to(_PACKAGE_ROOT).as_posix()
    except ValueError:
        where = path.name
    header = f"# {where}" + (f"  (PyTorch: {mirrors})" if mirrors else "")
    print(header)
    print(inspect.getsource(target).rstrip())
