"""Compare two observations (plain data, see :mod:`observation`) and say where they first differ,
in words a learner can act on: "at grad_a: expected shape (3, 1), got shape (3, 4)"."""
from __future__ import annotations

from typing import Any

import numpy as np

from .i18n import _
from .observation import Opaque, Raised


def first_difference(expected: Any, got: Any, *, rtol: float, atol: float, where: str = "") -> str | None:
    """``None`` when ``got`` matches ``expected``; otherwise one sentence describing the first
    difference found (depth first, in order)."""
    at = _at(where)
    if isinstance(expected, Raised):
        return _compare_raised(expected, got, at)
    if isinstance(got, Raised):
        return at + _("expected {expected}, but it raised {error}").format(expected=_describe(expected), error=got)
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
    return at + _("expected {expected}, got {got}").format(expected=_describe(expected), got=_describe(got))


def _at(where: str) -> str:
    """Where in the observation: "at grad_a: "."""
    return _("at {where}: ").format(where=where) if where else ""


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
        return at + _("expected it to raise {error}, got {got}").format(
            error=f"{expected.type_name} ({expected.message})", got=_describe(got))
    if got.type_name != expected.type_name:
        return at + _("expected {expected}, but it raised {error}").format(
            expected=f"{expected.type_name} ({expected.message})", error=got)
    return None


def _compare_floats(expected: float, got: Any, at: str, *, rtol: float, atol: float) -> str | None:
    if isinstance(got, np.ndarray) and got.ndim == 0:
        got = got.item()
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return at + _("expected the number {expected}, got {got}").format(expected=repr(expected), got=_describe(got))
    if np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True):
        return None
    return at + _("expected {expected}, got {got}").format(expected=f"{expected:.6g}", got=f"{got:.6g}")


def _compare_arrays(expected: np.ndarray, got: Any, at: str, *, rtol: float, atol: float) -> str | None:
    if isinstance(got, list):  # a list where an array was expected: its values, and their dtype too
        try:
            values = np.asarray(got)
        except (TypeError, ValueError):  # ragged, or not numbers
            return at + _("expected an array of shape {shape}, got a list that is not one: {got}").format(
                shape=expected.shape, got=_describe(got))
        if values.dtype != expected.dtype:
            return at + _("expected an array of dtype {dtype}, got a list (of {got} values)").format(
                dtype=expected.dtype, got=values.dtype)
        got = values
    elif isinstance(got, (bool, int, float)):
        got = np.asarray(got)  # a number where an array was expected: judge the value
    elif not isinstance(got, np.ndarray):
        return at + _("expected an array of shape {shape}, got {got}").format(shape=expected.shape, got=_describe(got))
    elif got.dtype != expected.dtype:
        return at + _("expected dtype {expected}, got dtype {got}").format(expected=expected.dtype, got=got.dtype)
    if got.shape != expected.shape:
        return at + _("expected shape {expected}, got shape {got}").format(expected=expected.shape, got=got.shape)
    if expected.dtype.kind in "fc":
        try:
            close = np.isclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        except (TypeError, ValueError):
            return at + _("expected numbers, got an array of {dtype}").format(dtype=got.dtype)
    else:
        close = np.asarray(got == expected)
    if close.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~close)[0])
    spot = _(" (first at index {index}: expected {expected}, got {got})").format(
        index=index, expected=repr(expected[index].item()), got=repr(got[index].item())) if index else ""
    return at + _("values differ{spot}").format(spot=spot) + "\n    " + _("expected") + f" {_array_text(expected)}" \
        + "\n    " + _("got") + f"      {_array_text(got)}"


def _compare_lists(expected: list, got: Any, where: str, *, rtol: float, atol: float) -> str | None:
    at = _at(where)
    if not isinstance(got, list):
        return at + _("expected a sequence of {count}, got {got}").format(count=len(expected), got=_describe(got))
    if len(got) != len(expected):
        return at + _("expected {count} items, got {got_count}: {got}").format(
            count=len(expected), got_count=len(got), got=_describe(got))
    for i, (e, g) in enumerate(zip(expected, got)):
        found = first_difference(e, g, rtol=rtol, atol=atol, where=f"{where}[{i}]")
        if found:
            return found
    return None


def _compare_dicts(expected: dict, got: Any, where: str, *, rtol: float, atol: float) -> str | None:
    at = _at(where)
    if not isinstance(got, dict):
        return at + _("expected a dict with keys {keys}, got {got}").format(keys=list(expected), got=_describe(got))
    missing = [k for k in expected if k not in got]
    unexpected = [k for k in got if k not in expected]
    if missing or unexpected:
        parts = (([_("missing keys {keys}").format(keys=missing)] if missing else [])
                 + ([_("unexpected keys {keys}").format(keys=unexpected)] if unexpected else []))
        return at + _(" and ").join(parts)
    if list(got) != list(expected):
        return at + _("keys in the wrong order: expected {expected}, got {got}").format(
            expected=list(expected), got=list(got))
    for key in expected:
        found = first_difference(expected[key], got[key], rtol=rtol, atol=atol, where=f"{where}.{key}" if where else key)
        if found:
            return found
    return None


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return _("an array of shape {shape} ({dtype}): {values}").format(
            shape=value.shape, dtype=value.dtype, values=_array_text(value))
    if isinstance(value, Raised):
        return _("an error ({error})").format(error=value)
    if isinstance(value, Opaque):
        return value.text
    if isinstance(value, dict):
        return _("a dict with keys {keys}").format(keys=list(value))
    if isinstance(value, list):
        text = repr([_describe(v) if isinstance(v, (np.ndarray, Raised, Opaque)) else v for v in value])
        return text if len(text) < 200 else text[:197] + "..."
    return repr(value)


def _array_text(array: np.ndarray) -> str:
    text = np.array2string(array, precision=4, threshold=24, edgeitems=3, separator=", ")
    return text.replace("\n", "\n" + " " * 13)
