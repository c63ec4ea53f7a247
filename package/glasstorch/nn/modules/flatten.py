"""``Flatten`` merges a range of dims into one, ``Unflatten`` splits one back. Mirrors torch/nn/modules/flatten.py."""
from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .module import Module


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)``; by default keeps the batch dim and merges the rest."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (a tuple of ints, one of them may be -1)."""

    def __init__(self, dim: int | str, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(dim, int):
            self._require_tuple_int(unflattened_size)
        else:
            raise TypeError("invalid argument type for dim parameter (glasstorch has no named tensors)")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input: Any) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                    f"{type(elem).__name__} at pos {idx}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}")

    def forward(self, input: Tensor) -> Tensor:
        dim = self.dim % input.dim() if self.dim < 0 else self.dim
        sizes = list(self.unflattened_size)
        if -1 in sizes:  # infer it from the others, as Tensor.unflatten does
            known = 1
            for n in sizes:
                known *= n if n != -1 else 1
            sizes[sizes.index(-1)] = input.shape[dim] // known
        product = 1
        for n in sizes:
            product *= n
        if product != input.shape[dim]:
            raise RuntimeError(f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to the size "
                               f"of dim {self.dim} ({input.shape[dim]}) in the input tensor")
        return input.view(*input.shape[:dim], *sizes, *input.shape[dim + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
