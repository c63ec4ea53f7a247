"""``nn.init``: fill a tensor in place with the starting values of a layer. Mirrors torch/nn/init.py.

Every function works under ``no_grad`` (initialising a parameter is not part of any computation
to differentiate) and returns the tensor it filled. The random numbers come from glasstorch's
generator, so they differ from PyTorch's; the distributions and their bounds are the same.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._creation import from_numpy
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..random import _generator_of

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
           "trunc_normal_"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor by which a nonlinearity changes the spread of its input: initialisations scale
    their standard deviation by it, so that the signal neither fades nor explodes with depth."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Values drawn from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Values drawn from N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (a 2-D tensor only): a layer that starts by passing its input through."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._creation import eye

    with no_grad():
        return tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The Dirac delta for a 3-, 4- or 5-D convolution weight: output channel d of each group
    copies input channel d at the kernel's centre, so the layer starts as the identity on as many
    channels as both sides have."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    centre = tuple(size // 2 for size in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """How many inputs feed each output (fan_in) and how many outputs each input feeds (fan_out).
    A weight is (out, in, *kernel): the kernel's size multiplies both."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # a uniform on [-a, a] has standard deviation a / sqrt(3)
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot: N(0, std²) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """He: U(-bound, bound) with bound = gain * sqrt(3 / fan). ``nn.Linear`` and ``nn.Conv2d`` use
    it with a = sqrt(5), which works out to bound = 1 / sqrt(fan_in)."""
    if 0 in tensor.shape:
        return tensor  # PyTorch warns "Initializing zero-element tensors is a no-op"
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """He: N(0, std²) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix (Saxe et al., 2013): the Q of the QR decomposition of a normal
    random matrix, its columns' signs fixed by R's diagonal so that Q is uniformly distributed.
    Dims after the first are flattened."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor  # no-op
    from .._creation import empty

    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator).numpy()
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q = q * np.sign(np.diag(r))  # (each column times the sign of its R diagonal entry)
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.view(q.shape).copy_(from_numpy(np.ascontiguousarray(q, dtype=tensor.numpy().dtype)))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """A 2-D tensor drawn from N(0, std²), with ``ceil(sparsity * rows)`` entries of each column
    set to zero (Martens, 2010), the rows chosen at random for each column."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        # a random permutation of the rows for every column at once: argsort of uniform noise
        zero_rows = np.argsort(_generator_of(generator).random((rows, cols)), axis=0)[:num_zeros]
        tensor.numpy()[zero_rows, np.arange(cols)] = 0
        tensor._version_counter[0] += 1  # (written through numpy: count the change as an in-place op)
    return tensor


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """N(mean, std²) truncated to [a, b], by inverse transform sampling: uniform values between
    the normal CDF's values at a and b, mapped back through the inverse CDF (``erfinv``)."""
    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        low, high = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
        tensor.uniform_(2 * low - 1, 2 * high - 1, generator=generator)
        values = _erfinv(tensor.numpy().astype(np.float64))
        tensor.copy_(from_numpy((values * (std * math.sqrt(2.0)) + mean).astype(tensor.numpy().dtype)))
        tensor.clamp_(min=a, max=b)
    return tensor


def _erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse error function, for y in (-1, 1): Giles' approximation ("Approximating the
    erfinv function", 2010), then two Newton steps on erf (numpy has no erfinv)."""
    from ..ops.activation import _erf_values

    with np.errstate(all="ignore"):  # y = ±1 gives ±inf, set below (a truncation far in a tail reaches it)
        x = _erfinv_newton(y, _erf_values)
    return np.where(np.abs(y) >= 1, np.copysign(np.inf, y), x)


def _erfinv_newton(y: np.ndarray, erf: Any) -> np.ndarray:
    """Giles' polynomial in w = -log(1 - y²) (one for the centre, one for the tails), refined."""
    w = -np.log((1.0 - y) * (1.0 + y))
    central = w < 5
    w = np.where(central, w - 2.5, np.sqrt(w) - 3.0)
    p = np.where(central, _GILES_CENTRAL[0], _GILES_TAIL[0])
    for c_central, c_tail in zip(_GILES_CENTRAL[1:], _GILES_TAIL[1:]):
        p = np.where(central, c_central, c_tail) + p * w
    x = p * y
    for _ in range(2):  # Newton: x -= (erf(x) - y) / erf'(x)
        x = x - (erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
               0.00943887047, 1.00167406, 2.83297682)
