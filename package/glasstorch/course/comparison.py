"""Compare two observations (plain data, see :mod:`observation`) and say where they first differ,
in words a learner can act on: "at grad_a: expected shape (3, 1), got shape (3, 4)"."""
from __future__ import annotations

from typing import Any

import numpy as np

from .observation import Opaque, Raised


def first_difference(expected: Any, got: Any, *, rtol: float, atol: float, where: str = "") -> str | None:
    """``None`` when ``got`` matches ``expected``; otherwise one sentence describing the first
    difference found (depth first, in order)."""
    at = f"at {where}: " if where else ""
    if isinstance(expected, Raised):
        return _compare_raised(expected, got, at)
    if isinstance(got, Raised):
        return f"{at}expected {_describe(expected)}, but it raised {got}"
    if isinstance(expected, np.ndarray):
        return _compare_arrays(expected, got, at, rtol=rtol, atol=atol)
    if isinstance(expected, dict):
        return _compare_dicts(expected, got, where, rtol=rtol, atol=atol)
    if isinstance(expected, list):
        return _compare_lists(expected, got, where, rtol=rtol, atol=atol)
    if isinstance(expected, float) and not isinstance(expected, bool):
        return _compare_floats(expected, got, at, rtol=rtol, atol=atol)
    if _same_plain(expected, got):
        return None
    return f"{at}expected {_describe(expected)}, got {_describe(got)}"


def _same_plain(expected: Any, got: Any) -> bool:
    if isinstance(expected, Opaque) or isinstance(got, Opaque):
        return isinstance(expected, Opaque) and isinstance(got, Opaque) and expected.text == got.text
    if isinstance(got, np.ndarray) and got.ndim == 0:
        got = got.item()
    if expected is None or got is None or isinstance(expected, bool) or isinstance(got, bool):
        return expected is got or (type(expected) is type(got) and expected == got)
    if isinstance(expected, int) and isinstance(got, (int, float)):
        return expected == got
    return type(expected) is type(got) and expected == got


def _compare_raised(expected: Raised, got: Any, at: str) -> str | None:
    if not isinstance(got, Raised):
        return f"{at}expected it to raise {expected.type_name} ({expected.message}), got {_describe(got)}"
    if got.type_name != expected.type_name:
        return f"{at}expected {expected.type_name} ({expected.message}), but it raised {got}"
    return None


def _compare_floats(expected: float, got: Any, at: str, *, rtol: float, atol: float) -> str | None:
    if isinstance(got, np.ndarray) and got.ndim == 0:
        got = got.item()
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return f"{at}expected the number {expected!r}, got {_describe(got)}"
    if np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True):
        return None
    return f"{at}expected {expected:.6g}, got {got:.6g}"


def _compare_arrays(expected: np.ndarray, got: Any, at: str, *, rtol: float, atol: float) -> str | None:
    if isinstance(got, list):  # a list where an array was expected: its values, and their dtype too
        try:
            values = np.asarray(got)
        except (TypeError, ValueError):  # ragged, or not numbers
            return f"{at}expected an array of shape {expected.shape}, got a list that is not one: {_describe(got)}"
        if values.dtype != expected.dtype:
            return f"{at}expected an array of dtype {expected.dtype}, got a list (of {values.dtype} values)"
        got = values
    elif isinstance(got, (bool, int, float)):
        got = np.asarray(got)  # a number where an array was expected: judge the value
    elif not isinstance(got, np.ndarray):
        return f"{at}expected an array of shape {expected.shape}, got {_describe(got)}"
    elif got.dtype != expected.dtype:
        return f"{at}expected dtype {expected.dtype}, got dtype {got.dtype}"
    if got.shape != expected.shape:
        return f"{at}expected shape {expected.shape}, got shape {got.shape}"
    if expected.dtype.kind in "fc":
        try:
            close = np.isclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        except (TypeError, ValueError):
            return f"{at}expected numbers, got an array of {got.dtype}"
    else:
        close = np.asarray(got == expected)
    if close.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~close)[0])
    spot = f" (first at index {index}: expected {expected[index].item()!r}, got {got[index].item()!r})" if index else ""
    return f"{at}values differ{spot}\n    expected {_array_text(expected)}\n    got      {_array_text(got)}"


def _compare_lists(expected: list, got: Any, where: str, *, rtol: float, atol: float) -> str | None:
    at = f"at {where}: " if where else ""
    if not isinstance(got, list):
        return f"{at}expected a sequence of {len(expected)}, got {_describe(got)}"
    if len(got) != len(expected):
        return f"{at}expected {len(expected)} items, got {len(got)}: {_describe(got)}"
    for i, (e, g) in enumerate(zip(expected, got)):
        found = first_difference(e, g, rtol=rtol, atol=atol, where=f"{where}[{i}]")
        if found:
            return found
    return None


def _compare_dicts(expected: dict, got: Any, where: str, *, rtol: float, atol: float) -> str | None:
    at = f"at {where}: " if where else ""
    if not isinstance(got, dict):
        return f"{at}expected a dict with keys {list(expected)}, got {_describe(got)}"
    missing = [k for k in expected if k not in got]
    unexpected = [k for k in got if k not in expected]
    if missing or unexpected:
        parts = ([f"missing keys {missing}"] if missing else []) + ([f"unexpected keys {unexpected}"] if unexpected else [])
        return f"{at}{' and '.join(parts)}"
    if list(got) != list(expected):
        return f"{at}keys in the wrong order: expected {list(expected)}, got {list(got)}"
    for key in expected:
        found = first_difference(expected[key], got[key], rtol=rtol, atol=atol, where=f"{where}.{key}" if where else key)
        if found:
            return found
    return None


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} ({value.dtype}): {_array_text(value)}"
    if isinstance(value, Raised):
        return f"an error ({value})"
    if isinstance(value, Opaque):
        return value.text
    if isinstance(value, dict):
        return f"a dict with keys {list(value)}"
    if isinstance(value, list):
        text = repr([_describe(v) if isinstance(v, (np.ndarray, Raised, Opaque)) else v for v in value])
        return text if len(text) < 200 else text[:197] + "..."
    return repr(value)


def _array_text(array: np.ndarray) -> str:
    text = np.array2string(array, precision=4, threshold=24, edgeitems=3, separator=", ")
    return text.replace("\n", "\n" + " " * 13)
