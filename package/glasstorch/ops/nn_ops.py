"""The ops behind Part III's layers and losses, each recorded as PyTorch records it.

PyTorch implements these as fused kernels with one backward Node each: ``layer_norm``
(``NativeLayerNormBackward0``), ``group_norm`` (``NativeGroupNormBackward0``), ``embedding``
(``EmbeddingBackward0``), ``leaky_relu`` (``LeakyReluBackward0``), ``gelu`` (``GeluBackward0``),
``nll_loss`` (``NllLossBackward0``, ``NllLoss2DBackward0`` for images), ``binary_cross_entropy``
(``BinaryCrossEntropyBackward0``) and ``binary_cross_entropy_with_logits``. Two losses it
*composes* from other ops, and so do we: ``cross_entropy`` (``log_softmax`` then ``nll_loss``, plus
a few ops for label smoothing or class-probability targets) and ``l1_loss`` (``(a - b).abs().mean()``).

Mirrors aten/src/ATen/native/{layer_norm,group_norm,Embedding,Activation,LossNLL,LossNLL2d,Loss}.cpp
and the backward formulas of tools/autograd/derivatives.yaml and FunctionsManual.cpp.

Each backward is written with tensor ops, so ``create_graph=True`` differentiates it again.
Simplified: PyTorch's second-order Nodes have names of their own (``NativeLayerNormBackwardBackward0``,
``NllLossBackwardBackward0``, ``GeluBackwardBackward0`` ...); here a double backward goes through the
ordinary ops the backward is made of (``EmbeddingDenseBackwardBackward0`` is the one kept).
``erf`` has no numpy function: glasstorch evaluates polynomials fitted once to ``math.erf``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..autograd.grad_mode import _GradMode
from ..autograd.graph import Node
from ._util import set_history, broadcast_error, floating_data, compute_requires_grad, reduce_grad_to
from .loss import _check_reduction, _reduce


# --- what several ops share -------------------------------------------------------------------
def _scalar_name(value: Any) -> str:
    """PyTorch's C++ name of a dtype, as its messages print it: Float, Double, Long ..."""
    return value.dtype.legacy_name.replace("Tensor", "")


def _check_floating(input: Tensor, kernel: str) -> None:
    """PyTorch's kernels exist for floating point only; its error names the kernel."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_name(input)}\'')


def _check_not_differentiable(value: Tensor | None, argument: str, function: str) -> None:
    """Class weights are constants for PyTorch: a weight that requires grad is refused."""
    if value is not None and _GradMode.enabled and value.requires_grad:
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument "
                           f"'{argument}'. This input cannot have requires_grad True.")


def _work(data: np.ndarray) -> np.ndarray:
    """float16 and bfloat16 are computed in float32 and rounded once at the end, as PyTorch does."""
    return data.astype(np.float32) if data.dtype.itemsize < 4 else data


def _normalize(x: Tensor, dims: tuple, eps: float) -> tuple:
    """``((x - mean) * rstd, rstd)`` over ``dims``, with tensor ops: the backward of the norms
    recomputes them this way so that a double backward also differentiates the statistics."""
    centred = x - x.mean(dims, keepdim=True)
    rstd = ((centred * centred).mean(dims, keepdim=True) + eps) ** -0.5
    return centred * rstd, rstd


def _normalize_backward(grad_hat: Tensor, x_hat: Tensor, rstd: Tensor, dims: tuple) -> Tensor:
    """The gradient through ``x_hat = (x - mean) * rstd``, given ``grad_hat`` = d loss / d x_hat:
    rstd * (grad_hat - mean(grad_hat) - x_hat * mean(grad_hat * x_hat)), means over ``dims``."""
    return rstd * (grad_hat - grad_hat.mean(dims, keepdim=True) - x_hat * (grad_hat * x_hat).mean(dims, keepdim=True))


def _sum_over(value: Tensor, dims: tuple) -> Tensor:
    return value.sum(dims) if dims else value


# --- layer_norm --------------------------------------------------------------------------------
class NativeLayerNormBackward0(Node):
    """out = x_hat * weight + bias, with x_hat = (x - mean) * rstd over the last dims:
    grad_input through ``_normalize_backward`` with grad_hat = grad * weight,
    grad_weight = sum of grad * x_hat and grad_bias = sum of grad, over the leading dims."""

    def backward(self, grad: Tensor) -> tuple:
        input, weight = self.saved_tensors
        x_hat, rstd = _normalize(input, self.dims, self.eps)
        leading = tuple(range(input.dim() - len(self.dims)))
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_hat = grad * weight if weight is not None else grad
            grad_input = _normalize_backward(grad_hat, x_hat, rstd, self.dims)
        if self.needs_input_grad(1):
            grad_weight = _sum_over(grad * x_hat, leading)
        if self.needs_input_grad(2):
            grad_bias = _sum_over(grad, leading)
        return grad_input, grad_weight, grad_bias


def _check_layer_norm(input: Tensor, shape: tuple, weight: Tensor | None, bias: Tensor | None) -> None:
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(shape)}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and tuple(param.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(param.shape)} and normalized_shape = {list(shape)}")
    if tuple(input.shape[input.dim() - len(shape):]) != shape or input.dim() < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(str(n) for n in shape)}], but got input of size{list(input.shape)}")
    _check_floating(input, "LayerNormKernelImpl")
    for param in (weight, bias):
        if param is not None and param.dtype is not input.dtype:
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of {_scalar_name(input)}")


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims to mean 0 and variance 1 (the biased
    variance, as PyTorch), then scale by ``weight`` and shift by ``bias`` elementwise."""
    shape = tuple(int(n) for n in normalized_shape)
    _check_layer_norm(input, shape, weight, bias)
    dims = tuple(range(-len(shape), 0))
    data = _work(input._data)
    centred = data - data.mean(axis=dims, keepdims=True)
    values = centred / np.sqrt((centred * centred).mean(axis=dims, keepdims=True) + eps)
    if weight is not None:
        values *= weight._data
    if bias is not None:
        values += bias._data
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input, weight, bias):
        node = NativeLayerNormBackward0(input, weight, bias)
        node.save_for_backward(input, weight)
        node.dims, node.eps = dims, eps
        set_history(out, node)
    return out


# --- group_norm --------------------------------------------------------------------------------
class NativeGroupNormBackward0(Node):
    """The input (N, C, *) is viewed as (N, G, C/G * spatial) and each group normalised, then
    scaled and shifted per channel: the layer-norm backward inside each group, and grad_weight,
    grad_bias summed over the batch and the spatial dims."""

    def backward(self, grad: Tensor) -> tuple:
        input, weight = self.saved_tensors
        grouped_shape, channel_shape = self.grouped_shape, self.channel_shape
        x_hat_grouped, rstd = _normalize(input.reshape(grouped_shape), (-1,), self.eps)
        x_hat = x_hat_grouped.reshape(input.shape)
        not_channel = (0, *range(2, input.dim()))
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_hat = grad * weight.reshape(channel_shape) if weight is not None else grad
            grad_input = _normalize_backward(grad_hat.reshape(grouped_shape), x_hat_grouped, rstd, (-1,))
            grad_input = grad_input.reshape(input.shape)
        if self.needs_input_grad(1):
            grad_weight = (grad * x_hat).sum(not_channel)
        if self.needs_input_grad(2):
            grad_bias = grad.sum(not_channel)
        return grad_input, grad_weight, grad_bias


def _check_group_norm(input: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None) -> None:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    channels = input.shape[1]
    if channels % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.dim() != 1 or param.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(param.shape)} and input of shape {list(input.shape)}")
    _check_floating(input, "GroupNormKernelImpl")


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Split the channels (dim 1) into ``num_groups`` groups and normalise each group of each
    sample over its channels and spatial positions; then scale and shift per channel."""
    _check_group_norm(input, num_groups, weight, bias)
    shape = input._data.shape
    grouped_shape = (shape[0], num_groups, int(np.prod(shape[1:], dtype=np.int64)) // num_groups)
    channel_shape = (1, shape[1]) + (1,) * (len(shape) - 2)  # broadcasts a per-channel vector
    grouped = _work(input._data).reshape(grouped_shape)
    centred = grouped - grouped.mean(axis=-1, keepdims=True)
    values = (centred / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps)).reshape(shape)
    if weight is not None:
        values = values * weight._data.reshape(channel_shape)
    if bias is not None:
        values = values + bias._data.reshape(channel_shape)
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input, weight, bias):
        node = NativeGroupNormBackward0(input, weight, bias)
        node.save_for_backward(input, weight)
        node.grouped_shape, node.channel_shape, node.eps = grouped_shape, channel_shape, eps
        set_history(out, node)
    return out


# --- embedding ---------------------------------------------------------------------------------
class EmbeddingBackward0(Node):
    """out = weight[indices]: each looked-up row's gradient is added back into its row of the
    weight (rows looked up twice get both); the padding row gets none."""

    def backward(self, grad: Tensor) -> tuple:
        return (embedding_dense_backward(grad, self.indices, self.num_weights, self.padding_idx,
                                         self.scale_grad_by_freq),)


class EmbeddingDenseBackwardBackward0(Node):
    """The dense backward is linear in ``grad``: its own gradient reads ``grad_grad`` back at the
    indices (an embedding lookup), zero at the padding index, scaled like the forward."""

    def backward(self, grad: Tensor) -> tuple:
        looked_up = embedding(grad, self.indices)
        return (looked_up * _wrap(self.row_scale[..., None].astype(grad._data.dtype)),)


def _row_scale(indices: Tensor, num_weights: int, padding_idx: int, scale_grad_by_freq: bool) -> np.ndarray:
    """The factor of each looked-up row's gradient: 0 at the padding index, and with
    ``scale_grad_by_freq`` one over how often the index occurs in this batch."""
    idx = indices._data
    scale = (idx != padding_idx).astype(np.float64)
    if scale_grad_by_freq:
        scale /= np.bincount(idx.reshape(-1), minlength=num_weights)[idx]
    return scale


def embedding_dense_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int = -1,
                             scale_grad_by_freq: bool = False) -> Tensor:
    """The gradient of an embedding's weight: ``grad``'s rows added into a (num_weights, dim)
    table of zeros at ``indices`` (``np.add.at``, so repeated indices accumulate), the padding
    index skipped."""
    idx = indices._data.reshape(-1)
    dim = grad._data.shape[-1]
    rows = grad._data.reshape(-1, dim)
    row_scale = _row_scale(indices, num_weights, padding_idx, scale_grad_by_freq)
    if scale_grad_by_freq:
        rows = rows * row_scale.reshape(-1, 1).astype(rows.dtype)
    keep = idx != padding_idx
    values = np.zeros((num_weights, dim), dtype=grad._data.dtype)
    np.add.at(values, idx[keep], rows[keep])
    out = _wrap(values)
    if compute_requires_grad(grad):
        node = EmbeddingDenseBackwardBackward0(grad)
        node.indices, node.row_scale = indices, row_scale
        set_history(out, node)
    return out


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``weight[indices]``: one row of ``weight`` per index (``torch.embedding``'s argument order;
    ``padding_idx=-1`` means none: ``F.embedding`` has already turned a negative index positive)."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got glasstorch.{indices.dtype.legacy_name} instead (while checking "
                           "arguments for embedding)")
    if sparse:
        raise NotImplementedError("glasstorch has no sparse tensors, so no sparse gradients: use sparse=False")
    idx = indices._data
    num_weights = weight._data.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= num_weights):
        raise IndexError("index out of range in self")
    out = _wrap(weight._data[idx])
    if compute_requires_grad(weight):
        node = EmbeddingBackward0(weight)
        node.indices, node.num_weights = indices, num_weights
        node.padding_idx, node.scale_grad_by_freq = padding_idx, scale_grad_by_freq
        set_history(out, node)
    return out


# --- leaky_relu and gelu -----------------------------------------------------------------------
class LeakyReluBackward0(Node):
    """out = x where x > 0, else negative_slope * x:  grad_input = grad * (1 or negative_slope)."""

    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        return (grad * _slopes(self_, self.negative_slope),)


class LeakyReluBackward1(Node):
    """The in-place form: it saves the *result*, whose sign tells the input's only when the slope
    is not negative (PyTorch's error otherwise)."""

    def backward(self, grad: Tensor) -> tuple:
        if self.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
                "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
                "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope")
        (result,) = self.saved_tensors
        return (grad * _slopes(result, self.negative_slope),)


def _slopes(tensor: Tensor, negative_slope: float) -> Tensor:
    """The derivative of leaky_relu: 1 where positive, ``negative_slope`` elsewhere (a constant)."""
    data = tensor._data
    return _wrap(np.where(data > 0, np.ones((), data.dtype), np.asarray(negative_slope, data.dtype)))


def _leaky_relu(input: Tensor, negative_slope: float, node_class: type) -> Tensor:
    _check_floating(input, "leaky_relu_cpu")
    data = input._data
    out = _wrap(np.where(data > 0, data, data * np.asarray(negative_slope, data.dtype)))
    if compute_requires_grad(input):
        node = node_class(input)
        node.negative_slope = negative_slope
        node.save_for_backward(*((input,) if node_class is LeakyReluBackward0 else ()),
                               output=out if node_class is LeakyReluBackward1 else None)
        set_history(out, node)
    return out


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x where x > 0, else ``negative_slope * x``."""
    return _leaky_relu(input, float(negative_slope), LeakyReluBackward0)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu`` written into ``input`` itself (``LeakyReluBackward1``)."""
    from .inplace import apply_inplace

    slope = float(negative_slope)
    return apply_inplace(input, lambda old: _leaky_relu(old, slope, LeakyReluBackward1))


def _fit_erf_pieces(width: float, degree: int = 10, top: float = 6.0) -> np.ndarray:
    """Polynomials fitted once (at import) to ``math.erf``. Piece k covers x in [(k - 1/2) width,
    (k + 1/2) width), where erf is a polynomial in the local variable t = (x - k width) * 2 / width,
    which runs over [-1, 1]. Interpolated at Chebyshev points, degree 10 is within 2e-15 of erf
    everywhere; beyond ``top`` = 6, erf(x) is +-1 in float64. Row j of the result holds every
    piece's coefficient of t**(degree - j): highest power first, as Horner's rule reads them."""
    from numpy.polynomial import chebyshev

    count = int(round(top / width))
    pieces = []
    for k in range(-count, count + 1):
        fitted = chebyshev.Chebyshev.interpolate(np.vectorize(math.erf), degree,
                                                 domain=[(k - 0.5) * width, (k + 0.5) * width])
        coefficients = chebyshev.cheb2poly(fitted.coef)
        if k == 0:  # erf is odd: make the middle piece exactly odd, so erf(0) = 0 and tiny x keep their precision
            coefficients[0::2] = 0.0
        pieces.append(coefficients[::-1])
    return np.ascontiguousarray(np.array(pieces).T)


_ERF_WIDTH = 0.25
_ERF_POWERS = {np.dtype(np.float64): _fit_erf_pieces(_ERF_WIDTH)}
_ERF_POWERS[np.dtype(np.float32)] = _ERF_POWERS[np.dtype(np.float64)].astype(np.float32)  # within 1 ulp of float32


def _erf_values(data: np.ndarray) -> np.ndarray:
    """erf, vectorised: find each element's piece, then Horner's rule over the powers, gathering
    each power's coefficient with ``take`` (float16 and bfloat16 are computed in float32)."""
    x = _work(data)
    powers = _ERF_POWERS[x.dtype]
    count = powers.shape[1] // 2  # pieces -count .. count
    # the nearest piece centre (fmax/fmin rather than clip: a nan goes to a piece, and stays nan)
    centre = np.fmin(np.fmax(np.rint(x * (1 / _ERF_WIDTH)), -count), count)
    t = (x - centre * _ERF_WIDTH) * (2 / _ERF_WIDTH)
    piece = centre.astype(np.intp) + count
    values = powers[0].take(piece)
    for row in powers[1:]:
        values *= t
        values += row.take(piece)
    beyond = np.abs(x) >= (count + 0.5) * _ERF_WIDTH
    values[beyond] = np.sign(x[beyond])
    return values


class ErfBackward0(Node):
    """d erf(x) / dx = 2 / sqrt(pi) * exp(-x**2)."""

    def backward(self, grad: Tensor) -> tuple:
        (self_,) = self.saved_tensors
        return (grad * (2 / math.sqrt(math.pi)) * (-(self_ * self_)).exp(),)


def erf(input: Tensor) -> Tensor:
    """The error function, 2/sqrt(pi) times the integral of exp(-t**2) from 0 to x."""
    data = floating_data(input)  # integers become the default float dtype, as in PyTorch
    out = _wrap(_erf_values(data).astype(data.dtype, copy=False))
    if compute_requires_grad(input):
        node = ErfBackward0(input)
        node.save_for_backward(input)
        set_history(out, node)
    return out


_SQRT1_2 = 1 / math.sqrt(2)
_TANH_BETA = math.sqrt(2 / math.pi)  # PyTorch's kBeta = M_SQRT2 * M_2_SQRTPI * 0.5
_TANH_KAPPA = 0.044715


class GeluBackward0(Node):
    """'none': out = x * Phi(x), so grad_input = grad * (Phi(x) + x * phi(x)) with Phi the normal
    CDF and phi its density. 'tanh': the derivative of 0.5 x (1 + tanh(beta (x + kappa x**3)))."""

    def backward(self, grad: Tensor) -> tuple:
        (x,) = self.saved_tensors
        if self.approximate == "tanh":
            tanh_inner = (_TANH_BETA * (x + _TANH_KAPPA * x * x * x)).tanh()
            inner_derivative = _TANH_BETA * (1 + 3 * _TANH_KAPPA * x * x)
            derivative = 0.5 * (1 + tanh_inner) + 0.5 * x * (1 - tanh_inner * tanh_inner) * inner_derivative
        else:
            cdf = 0.5 * (1 + erf(x * _SQRT1_2))
            pdf = (-0.5 * x * x).exp() * (1 / math.sqrt(2 * math.pi))
            derivative = cdf + x * pdf
        return (grad * derivative,)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x), Phi the standard normal CDF; ``approximate='tanh'``: PyTorch's tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _check_floating(input, "GeluKernelImpl")
    x = _work(input._data)
    if approximate == "tanh":
        values = 0.5 * x * (1 + np.tanh(_TANH_BETA * (x + _TANH_KAPPA * x * x * x)))
    else:
        values = 0.5 * x * (1 + _erf_values(x * _SQRT1_2))
    out = _wrap(values.astype(input._data.dtype, copy=False))
    if compute_requires_grad(input):
        node = GeluBackward0(input)
        node.approximate = approximate
        node.save_for_backward(input)
        set_history(out, node)
    return out


# --- nll_loss ----------------------------------------------------------------------------------
class NllLossBackward0(Node):
    """out = -weight[t] * input[t] per sample (summed, or divided by the sum of the weights of the
    targets not ignored): the gradient is -weight[t] (/ that sum) at each target class, 0 elsewhere."""

    def backward(self, grad: Tensor) -> tuple:
        coefficients = np.zeros(self.self_shape, dtype=grad._data.dtype)
        per_sample = -self.target_weights
        if self.reduction == "mean":
            with np.errstate(divide="ignore", invalid="ignore"):  # all ignored: no gradient anywhere
                per_sample = np.where(self.kept, per_sample / self.total_weight, 0)
        axis = self.class_axis
        np.put_along_axis(coefficients, np.expand_dims(self.safe_target, axis), np.expand_dims(per_sample, axis), axis)
        if self.reduction == "none" and grad.dim():
            grad = grad.unsqueeze(axis)
        return (grad * _wrap(coefficients),)


class NllLoss2DBackward0(NllLossBackward0):
    """The same for a (N, C, H, W) input with a (N, H, W) target."""


def _nll_loss_forward(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str, ignore_index: int,
                      class_axis: int, node_class: type) -> Tensor:
    """The kernel both NLL Nodes share: pick each target's log-probability along ``class_axis``."""
    _check_floating(input, "nll_loss_out_frame")
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_scalar_name(target)}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input)} but found {_scalar_name(weight)}")
    _check_not_differentiable(weight, "weight", "nll_loss_forward" if node_class is NllLossBackward0 else "nll_loss2d_forward")
    data, classes = input._data, input._data.shape[class_axis]
    t = target._data.astype(np.int64)
    kept = t != ignore_index
    out_of_range = kept & ((t < 0) | (t >= classes))
    if out_of_range.any():
        raise IndexError(f"Target {t.reshape(-1)[np.flatnonzero(out_of_range)[0]]} is out of bounds.")
    safe = np.where(kept, t, 0)  # ignored targets read class 0, then count for nothing
    picked = np.take_along_axis(data, np.expand_dims(safe, class_axis), class_axis).squeeze(class_axis)
    target_weights = (weight._data[safe] if weight is not None else np.ones(safe.shape, data.dtype)) * kept
    losses = -target_weights * picked
    total_weight = target_weights.sum(dtype=data.dtype)
    if reduction == "none":
        values = losses
    else:
        values = losses.sum(dtype=data.dtype)
        if reduction == "mean":
            with np.errstate(divide="ignore", invalid="ignore"):  # nothing counted: 0/0 = nan, as PyTorch
                values = values / total_weight
    out = _wrap(np.asarray(values, dtype=data.dtype))
    if compute_requires_grad(input):
        node = node_class(input)
        node.self_shape, node.class_axis, node.reduction = data.shape, class_axis, reduction
        node.safe_target, node.kept, node.target_weights, node.total_weight = safe, kept, target_weights, total_weight
        set_history(out, node)
    return out


def _nll_loss_1d_2d(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.dim() == 1 and target.dim() == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    if input.dim() == 2 and (target.dim() == 0 or input.shape[0] != target.shape[0]):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)}, target: {list(target.shape)})")
    _check_class_weight(input.shape[-1], weight, "")
    if input.dim() == 1:  # one sample: a 0-d (or one-element) target and a 0-d result
        return _nll_loss_forward(input, target.reshape(()), weight, reduction, ignore_index, 0, NllLossBackward0)
    return _nll_loss_forward(input, target, weight, reduction, ignore_index, 1, NllLossBackward0)


def _check_class_weight(classes: int, weight: Tensor | None, prefix: str) -> None:
    if weight is not None and (weight.dim() != 1 or weight.numel() != classes):
        raise RuntimeError(f"{prefix}weight tensor should be defined either for all {classes} classes or no classes "
                           f"but got weight tensor of shape: {list(weight.shape)}")


def _nll_loss2d(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    if target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.dim()}")
    if weight is not None and weight.numel() != input.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    n, _, h, w = input.shape
    if tuple(target.shape) != (n, h, w):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    return _nll_loss_forward(input, target, weight, reduction, ignore_index, 1, NllLoss2DBackward0)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean",
             ignore_index: int = -100) -> Tensor:
    """The negative log-likelihood of class indices ``target`` under log-probabilities ``input``
    (classes along dim 1, or dim 0 for one sample). PyTorch's ``nll_loss_nd``: 1-D and 2-D inputs
    go to ``nll_loss``, 4-D to ``nll_loss2d``, any other rank is viewed as (N, C, 1, -1) first."""
    _check_reduction(reduction)
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1 and (target.dim() == 0 or input.shape[0] != target.shape[0]):
        # (PyTorch reports a 0-d target's batch size as 0)
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.dim() else 0}).")
    if input.dim() <= 2:
        return _nll_loss_1d_2d(input, target, weight, reduction, ignore_index)
    if input.dim() == 4:
        return _nll_loss2d(input, target, weight, reduction, ignore_index)
    n, c = input.shape[:2]
    out_size = [n, *input.shape[2:]]
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    empty = input.numel() == 0
    flat_input = input.contiguous().view(n, c, 0, 0) if empty else input.contiguous().view(n, c, 1, -1)
    flat_target = target.reshape(n, 0, 0) if target.numel() == 0 else target.reshape(n, 1, -1)
    out = _nll_loss2d(flat_input, flat_target, weight, reduction, ignore_index)
    return out.view(out_size) if reduction == "none" else out


# --- cross_entropy -----------------------------------------------------------------------------
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean",
                  ignore_index: int = -100, label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input, class dim), target)``, composed as PyTorch composes it.
    A float ``target`` of the input's shape holds class probabilities instead of class indices;
    ``label_smoothing`` mixes the target with the uniform distribution over the classes."""
    _check_reduction(reduction)
    class_dim = 0 if input.dim() == 1 else 1
    # PyTorch's log_softmax refuses integers (glasstorch's converts them): keep its error here
    _check_floating(input, "log_softmax_lastdim_kernel_impl" if class_dim == input.dim() - 1 else "log_softmax_kernel_impl")
    if tuple(input.shape) == tuple(target.shape):  # same shape: class probabilities
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_scalar_name(target)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        return _cross_entropy_label_smoothing(input, target, weight, reduction, ignore_index, label_smoothing,
                                              class_dim)
    return nll_loss(input.log_softmax(class_dim), target, weight, reduction, ignore_index)


def _check_label_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


def _class_weight_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """The class weights shaped to broadcast along the class dim: (1, C, 1, ...)."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_label_smoothing(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
                                   ignore_index: int, label_smoothing: float, class_dim: int) -> Tensor:
    """(1 - eps) * nll_loss + eps / C * (the loss against the uniform distribution), where the
    second term sums -log p over the classes (weighted by class), skips ignored targets and, for
    'mean', is divided as nll_loss divides: by the summed weight of the targets kept."""
    log_probs = input.log_softmax(class_dim)
    nll = nll_loss(log_probs, target, weight, reduction, ignore_index)
    classes = log_probs.shape[class_dim]
    if weight is not None:
        smooth = -(log_probs * _class_weight_view(weight, log_probs.dim(), class_dim)).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        kept = ~ignored._data
        if weight is not None:
            denominator = _wrap(np.asarray(weight._data[target._data[kept]].sum(dtype=weight._data.dtype)))
        else:
            denominator = _wrap(np.asarray(kept.sum(), dtype=np.int64))
        smooth = smooth.sum() / denominator
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _cross_entropy_probabilities(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
                                 label_smoothing: float, class_dim: int) -> Tensor:
    """-sum over classes of target * log_softmax(input) (* class weight); 'mean' divides by the
    number of samples (input.numel() / C), not by any weight."""
    classes = input.shape[class_dim]
    _check_class_weight(classes, weight, "cross_entropy: ")
    log_probs = input.log_softmax(class_dim)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        target = target * (1 - label_smoothing) + label_smoothing / classes
    products = log_probs * target
    if weight is not None:
        products = products * (_class_weight_view(weight, input.dim(), class_dim) if input.dim() > 1 else weight)
    if reduction == "none":
        return -products.sum(class_dim)
    total = products.sum()
    if reduction == "sum":
        return -total
    if input.numel() == 0:  # the mean over no samples: nan, as PyTorch fills it
        return -total.fill_(float("nan"))
    return -total / (input.numel() // classes)


# --- l1_loss -----------------------------------------------------------------------------------
def _broadcast_pair(input: Tensor, target: Tensor) -> tuple:
    """``torch.broadcast_tensors``: each side expanded (``ExpandBackward0``) only if it must grow."""
    try:
        shape = np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({input.shape[-1]}) must match the size of tensor b "
                           f"({target.shape[-1]}) at non-singleton dimension {max(input.dim(), target.dim()) - 1}") from None
    return tuple(t if t._data.shape == shape else t.expand(shape) for t in (input, target))


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """The mean (or sum, or elementwise) absolute error, composed as PyTorch 2.13 composes it:
    ``(input - target).abs()`` then ``mean``/``sum`` (``MeanBackward0`` on top). With ``weight``
    (elementwise, the input's shape), 'mean' is the weighted mean sum(w |e|) / sum(w)."""
    if weight is None:
        _check_reduction(reduction)
    input, target = _broadcast_pair(input, target)
    errors = (input - target).abs()
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        errors = errors * weight
        if reduction == "none":
            return errors
        if reduction == "sum":
            return errors.sum()
        if reduction == "mean":
            return errors.sum() / weight.sum()
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    if reduction == "mean":
        return errors.mean()
    return errors.sum() if reduction == "sum" else errors


# --- binary_cross_entropy ----------------------------------------------------------------------
_BCE_EPSILON = 1e-12  # PyTorch's floor for x (1 - x) in the gradient, where it would divide by 0


class BinaryCrossEntropyBackward0(Node):
    """loss = -w (t log x + (1 - t) log(1 - x)):
    grad_input  = grad * w (x - t) / max(x (1 - x), 1e-12)
    grad_target = grad * w (log(1 - x) - log x)          (each / numel for 'mean')."""

    def backward(self, grad: Tensor) -> tuple:
        self_, target, weight = self.saved_tensors
        scale = grad if self.reduction != "mean" else grad / self.numel
        if weight is not None:
            scale = scale * weight
        grad_input = grad_target = None
        if self.needs_input_grad(0):
            grad_input = scale * (self_ - target) / ((1 - self_) * self_).clamp(min=_BCE_EPSILON)
        if self.needs_input_grad(1):
            grad_target = scale * ((1 - self_).log() - self_.log())
        return grad_input, grad_target


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """-w (t log x + (1 - t) log(1 - x)) for probabilities ``x`` in [0, 1]; each log is clamped
    at -100 (as PyTorch), so x = 0 or 1 gives a large loss, never inf. ``weight`` is already
    broadcast to the input's shape (``F.binary_cross_entropy`` expands it)."""
    _check_reduction(reduction)
    _check_floating(input, "binary_cross_entropy")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_scalar_name(target)} but expected {_scalar_name(input)}")
    _check_not_differentiable(weight, "weight", "binary_cross_entropy")
    x, t = _work(input._data), _work(target._data)
    if not np.all((x >= 0) & (x <= 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not np.all((t >= 0) & (t <= 1)):
        raise RuntimeError("all elements of target should be between 0 and 1")
    with np.errstate(divide="ignore"):  # log(0) = -inf, then clamped
        losses = (t - 1) * np.maximum(np.log1p(-x), -100) - t * np.maximum(np.log(x), -100)
    if weight is not None:
        losses = losses * weight._data.astype(losses.dtype, copy=False)
    out = _wrap(np.asarray(_reduce(losses, reduction), dtype=input._data.dtype))
    if compute_requires_grad(input, target):
        node = BinaryCrossEntropyBackward0(input, target)
        node.save_for_backward(input, target, weight)
        node.reduction, node.numel = reduction, input.numel()
        set_history(out, node)
    return out


def _log_sigmoid_values(x: np.ndarray) -> np.ndarray:
    """log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)): exp never overflows."""
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _log_sigmoid(x: Tensor) -> Tensor:
    """The same with tensor ops (for a backward that create_graph can differentiate)."""
    return x.clamp(max=0) - ((-x.abs()).exp() + 1).log()


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """loss = w ((1 - t) x - l log sigmoid(x)) with l = 1 + (pos_weight - 1) t:
    grad_input  = grad * w ((pos_weight t + 1 - t) sigmoid(x) - pos_weight t)   (sigmoid(x) - t without pos_weight)
    grad_target = grad * w (log sigmoid(-x) - pos_weight log sigmoid(x))        (-x without pos_weight)."""

    def backward(self, grad: Tensor) -> tuple:
        self_, target, weight, pos_weight = self.saved_tensors
        scale = grad if self.reduction != "mean" else grad / self.numel
        if weight is not None:
            scale = scale * weight
        grad_input = grad_target = None
        if self.needs_input_grad(0):
            if pos_weight is not None:
                weighted_target = pos_weight * target
                grad_input = (weighted_target + 1 - target) * self_.sigmoid() - weighted_target
            else:
                grad_input = self_.sigmoid() - target
            grad_input = reduce_grad_to(grad_input * scale, self_.shape)
        if self.needs_input_grad(1):
            if pos_weight is not None:
                grad_target = _log_sigmoid(-self_) - _log_sigmoid(self_) * pos_weight
            else:
                grad_target = -self_
            grad_target = reduce_grad_to(grad_target * scale, target.shape)
        return grad_input, grad_target


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy of ``sigmoid(input)``, computed from the logits without ever forming
    the sigmoid (``log sigmoid`` is evaluated stably). ``pos_weight`` scales the positive term,
    ``weight`` each element; both broadcast."""
    _check_reduction(reduction)
    _check_floating(input, "binary_cross_entropy_with_logits")
    if not target.dtype.is_floating_point:
        result = dtypes.result_type(input, target)
        raise RuntimeError(f"result type {result.legacy_name.replace('Tensor', '')} can't be cast to the desired "
                           f"output type {_scalar_name(target)}")
    _check_not_differentiable(weight, "weight", "binary_cross_entropy_with_logits")
    _check_not_differentiable(pos_weight, "pos_weight", "binary_cross_entropy_with_logits")
    _check_logits_shapes(input, target, weight, pos_weight)
    x, t = input._data, target._data
    log_sigmoid = _log_sigmoid_values(x)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight._data - 1) * t + 1)
    losses = (1 - t) * x - log_sigmoid
    if weight is not None:
        losses = losses * weight._data
    out = _wrap(np.asarray(_reduce(losses, reduction)))
    if compute_requires_grad(input, target):
        node = BinaryCrossEntropyWithLogitsBackward0(input, target)
        node.save_for_backward(input, target, weight, pos_weight)
        node.reduction, node.numel = reduction, int(losses.size)
        set_history(out, node)
    return out


def _check_logits_shapes(input: Tensor, target: Tensor, weight: Tensor | None, pos_weight: Tensor | None) -> None:
    """PyTorch's message for the first product whose shapes do not broadcast: pos_weight with the
    target, then the loss with the weight."""
    loss_shape = _broadcast_or_raise(input._data.shape, target._data.shape)
    if pos_weight is not None:
        loss_shape = np.broadcast_shapes(loss_shape, _broadcast_or_raise(pos_weight._data.shape, target._data.shape))
    if weight is not None:
        _broadcast_or_raise(loss_shape, weight._data.shape)


def _broadcast_or_raise(a: tuple, b: tuple) -> tuple:
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
