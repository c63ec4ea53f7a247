"""``glasstorch.functional``: the tensor functions PyTorch keeps in ``torch/functional.py``.

PyTorch writes these in Python on top of other ops, and ``torch.X`` is the same object as
``torch.functional.X``. Code that does ``import torch.functional as F`` (PyTorch's introyt
tutorial does, by mistake for ``torch.nn.functional``) finds this module. glasstorch keeps most of
them with their op family (``einsum`` in ``ops/einsum.py``, ``meshgrid`` in ``ops/shape.py``, ...);
this module gathers them under PyTorch's names and adds the two that are only compositions
here: ``broadcast_tensors`` and ``tensordot``. Simplified: ``stft``/``istft``, ``lu``,
``cdist``, ``block_diag``, ``cartesian_prod``, ``chain_matmul``, ``pca_lowrank``, ``svd_lowrank``,
``unique_consecutive``, ``unravel_index`` and ``align_tensors`` are not provided.
"""
from __future__ import annotations

from typing import Any

from ._tensor import Size, Tensor
from .ops import atleast_1d, atleast_2d, atleast_3d, einsum, meshgrid, norm, split, unique  # as torch.X

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "einsum", "meshgrid",
           "norm", "split", "tensordot", "unique"]


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape every one of ``shapes`` broadcasts to (PyTorch's broadcasting rules)."""
    from .nn.functional import _broadcast_shapes

    return Size(_broadcast_shapes(*shapes))


def broadcast_tensors(*tensors: Any) -> tuple:
    """Each tensor expanded to the common broadcast shape (views, ``ExpandBackward0``), as PyTorch's."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape: tuple = ()
    for t in tensors:  # pairwise, as PyTorch's infer_size, with its message
        shape = _broadcast_pair(shape, tuple(t.shape))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)  # as PyTorch: itself if it fits


def _broadcast_pair(a: tuple, b: tuple) -> tuple:
    """The shape ``a`` and ``b`` broadcast to (aligned at their last dims)."""
    ndim = max(len(a), len(b))
    a, b = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
    for dim, (m, n) in enumerate(zip(a, b)):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(f"The size of tensor a ({m}) must match the size of tensor b ({n}) at non-singleton "
                               f"dimension {dim}")
    return tuple(n if m == 1 else m for m, n in zip(a, b))


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    """Contract the last ``dims`` dims of ``a`` with the first ``dims`` of ``b`` (``dims`` an int),
    or the listed pairs (``dims=([1, 0], [0, 1])``). As PyTorch's (Linear.cpp): permute the
    contracted dims together, reshape both into matrices, one ``mm``, then a view to the free dims."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    dims_a = [d % a.dim() for d in dims_a]
    dims_b = [d % b.dim() for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    size = 1
    for d in dims_a:
        size *= a.shape[d]
    rows = a.permute(*free_a, *dims_a).reshape(-1, size)
    cols = b.permute(*dims_b, *free_b).reshape(size, -1)
    result = rows.mm(cols).view([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])
    if out is not None:
        from .ops._arguments import write_out

        return write_out(out, result)
    return result
