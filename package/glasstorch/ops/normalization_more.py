"""``rms_norm`` and ``local_response_norm``, found missing by running the examples in PyTorch's own
docstrings (issue 14).

Mirrors ``torch/nn/functional.py`` (``local_response_norm`` is composed there too) and
``aten/src/ATen/native/layer_norm.cpp`` (``rms_norm``, a composite in PyTorch's CPU path as well:
its ``grad_fn`` is the final ``MulBackward0``).
"""
from __future__ import annotations

from typing import Any

from .. import dtypes
from .._tensor import Tensor


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x², over the last len(normalized_shape) dims) + eps) * weight; ``eps`` defaults
    to the dtype's machine epsilon, as in PyTorch."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, "
                           f"{', '.join(str(s) for s in shape)}], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(shape)}")
    if eps is None:
        import numpy as np

        eps = float(np.finfo(input._data.dtype if input._data.dtype.kind == "f" else
                             dtypes.get_default_dtype().numpy_dtype).eps)
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    result = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return result * weight if weight is not None else result


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Each value divided by (k + alpha / size * sum of squares over ``size`` neighbouring channels) ** beta
    (AlexNet's normalisation across channels), as PyTorch composes it from pad and avg_pool."""
    from ..nn import functional as F

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = (input * input).unsqueeze(1)
    if dim == 3:
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        # PyTorch averages over (size, 1, 1) windows with avg_pool3d; the same, one channel window at a time
        windows = div.unfold(2, size, 1).mean(-1)
        div = windows.squeeze(1).reshape(sizes)
    div = (div * alpha + k) ** beta
    return input / div
