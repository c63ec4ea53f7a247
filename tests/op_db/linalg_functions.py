"""torch.linalg's functions beyond the products and solvers: norms, decompositions (qr, eigh,
slogdet, pinv, lstsq), matrix_power, matrix_exp, multi_dot, vecdot (ops/linalg_norms.py,
ops/linalg_decompositions.py, ops/linalg_functions.py)."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput  # noqa: F401

OPS: list = []
