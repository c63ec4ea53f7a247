"""Reductions, cumulative ops, statistics, sorting, histograms (ops/reduction.py, statistics.py, sorting.py)."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput  # noqa: F401

OPS: list = []
