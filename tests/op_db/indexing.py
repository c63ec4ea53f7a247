"""Indexing, masking, gather and scatter (ops/indexing*.py, scatter_gather.py)."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput  # noqa: F401

OPS: list = []
