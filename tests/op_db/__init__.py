"""The op table: one entry per op (or per way of calling it), in the spirit of PyTorch's OpInfo
(``torch/testing/_internal/common_methods_invocations.py``).

Every check of an op runs from here: gradcheck and gradgradcheck in float64
(``test_ops_gradcheck.py``); values, dtypes, gradients and ``grad_fn`` names against PyTorch
(``test_ops_vs_torch.py``); the method, in-place and ``out=`` variants, integer and bool inputs,
and the errors (``test_ops_variants.py``). Adding an op is adding one entry to its family's file.

Families follow PyTorch's grouping of its ops (and glasstorch's ``ops/`` files).
"""
from __future__ import annotations

import dataclasses

from . import indexing, linalg, linalg_functions, nn_conv_pool, nn_functional, pointwise, reductions, shapes, special
from .core import EXAMPLES, ErrorInput, NoGrad, OpInfo, SampleInput  # noqa: F401
from .graph_differences import GRAPH_DIFFERENCES
from .saved_differences import SAVED_DIFFERENCES

FAMILIES = (pointwise, special, reductions, shapes, indexing, linalg, linalg_functions, nn_functional, nn_conv_pool)
OP_DB: list[OpInfo] = [dataclasses.replace(info, family=family.__name__.rsplit(".", 1)[-1])
                       for family in FAMILIES for info in family.OPS]


def _with_differences(table: list, check: str, differences: dict, source: str) -> list:
    """Each documented difference as a skip of ``check`` (with its reason) on its entry."""
    unknown = set(differences) - {info.id for info in table}
    if unknown:
        raise ValueError(f"{source} names entries the op table does not have: {sorted(unknown)}")
    return [dataclasses.replace(info, skips={**info.skips, check: differences[info.id]})
            if info.id in differences else info for info in table]


OP_DB = _with_differences(OP_DB, "graph", GRAPH_DIFFERENCES, "graph_differences.py")
OP_DB = _with_differences(OP_DB, "saved", SAVED_DIFFERENCES, "saved_differences.py")


def _check_unique_ids() -> None:
    seen: set = set()
    for info in OP_DB:
        if info.id in seen:
            raise ValueError(f"two entries of the op table are both called {info.id!r}: give one a variant")
        seen.add(info.id)


_check_unique_ids()
