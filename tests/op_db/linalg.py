"""Matrix products and linear algebra (ops/linalg*.py, einsum.py, glasstorch.linalg)."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput  # noqa: F401

OPS: list = []
