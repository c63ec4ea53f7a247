"""Observations: what an implementation did on one case, as plain data that can be compared,
written to JSON and read back.

An exercise's check never compares a learner's objects directly. It first *observes* them (calls
the learner's function on a case and keeps the result), turns the result into plain data with
:func:`to_plain`, and compares that with the same observation of glasstorch's own implementation.
The grader relies on this split: a submission's kernel only produces observations; the comparison
runs in the grader's own process, where no learner code has run (so patching numpy, the checks or
glasstorch inside a submission changes nothing about how it is judged).
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..dtypes import dtype as _dtype


@dataclass(frozen=True)
class Raised:
    """The implementation raised ``type_name`` with ``message`` (an observation like any other:
    some cases expect an error)."""

    type_name: str
    message: str

    def __str__(self) -> str:
        return f"{self.type_name}: {self.message}" if self.message else self.type_name


@dataclass(frozen=True)
class Opaque:
    """Something that is not plain data (an arbitrary object), kept as its ``repr``."""

    text: str


def to_plain(value: Any) -> Any:
    """Turn an observed value into plain data: arrays, numbers, strings, None, lists, dicts
    (string keys, order kept), :class:`Raised` and :class:`Opaque`."""
    if isinstance(value, Tensor):
        value = value.detach().numpy()
    if isinstance(value, np.ndarray):  # a copy, in native byte order
        return np.array(value, dtype=value.dtype.newbyteorder("="), copy=True)
    if isinstance(value, np.generic):
        return np.asarray(value)
    if value is None or isinstance(value, (bool, int, float, str, Raised, Opaque)):
        return value
    if isinstance(value, _dtype):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_plain(item) for key, item in value.items()}
    return Opaque(_short(repr(value)))


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- JSON: how the grader's kernel hands observations back ---------------------------------------

def dumps(value: Any) -> str:
    """Plain data (see :func:`to_plain`) as JSON. Arrays travel as raw little-endian bytes."""
    return json.dumps(_encode(to_plain(value)))


def loads(text: str) -> Any:
    """The inverse of :func:`dumps`. Builds only plain data: never calls a constructor the text
    names, so a tampered file can make a wrong answer, not run code."""
    return _decode(json.loads(text))


def _encode(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        little = value.astype(value.dtype.newbyteorder("<"), copy=False)
        return {"__ndarray__": value.dtype.name, "shape": list(value.shape),
                "data": base64.b64encode(np.ascontiguousarray(little).tobytes()).decode("ascii")}
    if isinstance(value, Raised):
        return {"__raised__": [value.type_name, value.message]}
    if isinstance(value, Opaque):
        return {"__opaque__": value.text}
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        # a list of pairs: keeps the order, and cannot be confused with the tagged forms above
        return {"__dict__": [[key, _encode(item)] for key, item in value.items()]}
    if isinstance(value, float) and not np.isfinite(value):
        return {"__float__": repr(value)}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        dtype = _numpy_dtype(str(value["__ndarray__"]))
        shape = tuple(int(n) for n in value["shape"])
        data = base64.b64decode(str(value["data"]))
        return np.frombuffer(data, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)
    if "__raised__" in value:
        type_name, message = value["__raised__"]
        return Raised(str(type_name), str(message))
    if "__opaque__" in value:
        return Opaque(str(value["__opaque__"]))
    if "__float__" in value:
        return float(value["__float__"])  # float() parses 'nan'/'inf' and nothing else executable
    if "__dict__" in value:
        return {str(key): _decode(item) for key, item in value["__dict__"]}
    raise ValueError(f"unknown observation record with keys {sorted(value)}")


def _numpy_dtype(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16 and friends are named by ml_dtypes, not numpy

        return np.dtype(getattr(ml_dtypes, name))
