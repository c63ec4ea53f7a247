"""Shape and view ops: reshape, cat, split, flip, diag... (ops/shape.py, shape_more.py)."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput  # noqa: F401

OPS: list = []
