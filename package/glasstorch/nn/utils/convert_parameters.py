"""All the parameters as one vector and back. Mirrors torch/nn/utils/convert_parameters.py."""
from __future__ import annotations

from typing import Iterable

from ..._tensor import Tensor
from ..._typename import typename
from ...ops.shape import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One vector: every parameter flattened, in order (differentiable: a ``cat`` of views)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters (their ``.data`` is replaced)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view(*param.shape).data
        pointer += num_param
