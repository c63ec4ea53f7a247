"""Elementwise ops: functions of one tensor, arithmetic and functions of two (ops/pointwise*.py,
ops/arithmetic.py, ops/comparison.py)."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput, binary, unary  # noqa: F401

OPS = [
    OpInfo("exp", unary(), inplace="exp_", supports_out=True, other_dtypes=("int64", "bool")),
    OpInfo("log", unary("positive"), inplace="log_", supports_out=True, other_dtypes=("int64",)),
    OpInfo("abs", unary("nonzero"), inplace="abs_", supports_out=True, other_dtypes=("int64",)),
    OpInfo("mul", binary(scalar_other=True), inplace="mul_", aliases=("multiply",)),
    OpInfo("add", binary(scalar_other=True), inplace="add_", supports_out=True, other_dtypes=("int64", "bool")),
    OpInfo("add", binary(alpha=2.5), variant="alpha", inplace="add_"),
    OpInfo("lerp", binary(weight=0.3), op=lambda lib, a, b, weight: lib.lerp(a, b, weight), inplace="lerp_"),
]
