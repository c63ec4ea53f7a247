"""The losses, each recorded as PyTorch records it.

PyTorch implements most as fused kernels with one backward Node each, so the graph and the gradient
match PyTorch's rather than those of the composite formula: ``mse_loss`` (``MseLossBackward0``),
``nll_loss`` (``NllLossBackward0``, ``NllLoss2DBackward0`` for images), ``binary_cross_entropy``
(``BinaryCrossEntropyBackward0``) and ``binary_cross_entropy_with_logits``. Two losses it
*composes* from other ops, and so do we: ``cross_entropy`` (``log_softmax`` then ``nll_loss``, plus
a few ops for label smoothing or class-probability targets) and ``l1_loss`` (``(a - b).abs().mean()``).

Mirrors aten/src/ATen/native/{Loss,LossNLL,LossNLL2d}.cpp and the backward formulas of
tools/autograd/derivatives.yaml. The Python-level signatures (``size_average``, ``reduce``) are in
``nn/functional.py``.

Each backward is written with tensor ops, so ``create_graph=True`` differentiates it again.
Simplified: PyTorch's second-order Nodes have names of their own (``NllLossBackwardBackward0`` ...);
here a double backward goes through the ordinary ops the backward is made of.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from .._typename import scalar_type_name
from ._nn_checks import _check_floating, _check_not_differentiable, _work
from ._elementwise import broadcast_error
from ._util import compute_requires_grad, saved_optional, set_history

_REDUCTIONS = ("none", "mean", "sum")  # in the order of PyTorch's at::Reduction enum (0, 1, 2)
_MEAN = _REDUCTIONS.index("mean")  # a loss Node saves ``reduction`` as that enum's int, as PyTorch does


def _reduce(values: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":
        return np.asarray(values.mean(), dtype=values.dtype)
    if reduction == "sum":
        return np.asarray(values.sum(), dtype=values.dtype)
    return values


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


# --- mse_loss -----------------------------------------------------------------------------------
class MseLossBackward0(Node):
    """loss = reduce((self - target)²): d loss / d self = 2 (self - target) · grad [/ N for mean],
    d loss / d target = -(d loss / d self)."""

    reduction: int
    self_: SavedTensor
    target_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, target = self._saved_self, self._saved_target
        scale = 2.0 / self_.numel() if self.reduction == _MEAN else 2.0
        diff = (self_ - target) * (grad * scale)
        return (diff if self.needs_input_grad(0) else None,
                -diff if self.needs_input_grad(1) else None)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """The mean (or sum, or elementwise) squared error; ``target`` broadcasts to ``input``. With
    ``weight`` (elementwise), composed as PyTorch composes it: ``pow(input - target, 2) * weight``,
    'mean' the weighted mean sum(w e²) / sum(w)."""
    if weight is not None:
        input, target = _broadcast_pair(input, target)
        return weighted_reduction((input - target).pow(2), weight, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). This will "
            "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3)
    try:
        shape = np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({input.shape[-1]}) must match the size of tensor b "
                           f"({target.shape[-1]}) at non-singleton dimension {input.dim() - 1}") from None
    input_, target_ = (t if t.shape == shape else t.expand(shape) for t in (input, target))
    diff = input_._data - target_._data
    out = _wrap(_reduce(diff * diff, reduction))
    if compute_requires_grad(input, target):
        node = MseLossBackward0(input_, target_)
        node.self_, node.target_ = SavedTensor(input_), SavedTensor(target_)
        node.reduction = _REDUCTIONS.index(reduction)
        set_history(out, node)
    return out


# --- nll_loss ---------------------------------------------------------------------------------
class NllLossBackward0(Node):
    """out = -weight[t] * input[t] per sample (summed, or divided by the sum of the weights of the
    targets not ignored): the gradient is -weight[t] (/ that sum) at each target class, 0 elsewhere.
    (The target and weight are saved as in PyTorch; the backward reads the per-sample weights the
    forward computed from them.)"""

    ignore_index: int
    reduction: int
    self_: SavedTensor
    target_: SavedTensor
    total_weight_: SavedTensor  # the sum of the weights of the targets not ignored (a 0-d tensor)
    weight_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        coefficients = np.zeros(self._saved_self._data.shape, dtype=grad._data.dtype)
        per_sample = -self._target_weights
        if self.reduction == _MEAN:
            with np.errstate(divide="ignore", invalid="ignore"):  # all ignored: no gradient anywhere
                per_sample = np.where(self._kept, per_sample / self._saved_total_weight._data, 0)
        axis = self._class_axis
        np.put_along_axis(coefficients, np.expand_dims(self._safe_target, axis), np.expand_dims(per_sample, axis), axis)
        if self.reduction == _REDUCTIONS.index("none") and grad.dim():
            grad = grad.unsqueeze(axis)
        return (grad * _wrap(coefficients),)


class NllLoss2DBackward0(NllLossBackward0):
    """The same for a (N, C, H, W) input with a (N, H, W) target."""


def _nll_loss_forward(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str, ignore_index: int,
                      class_axis: int, node_class: type) -> Tensor:
    """The kernel both NLL Nodes share: pick each target's log-probability along ``class_axis``."""
    _check_floating(input, "nll_loss_out_frame")
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_type_name(target.dtype)}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input.dtype)} but found {scalar_type_name(weight.dtype)}")
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
        node.self_, node.target_, node.weight_ = SavedTensor(input), SavedTensor(target), saved_optional(weight)
        # (PyTorch's kernel leaves the total weight at 0 when it does not reduce)
        node.total_weight_ = SavedTensor(_wrap(np.asarray(0 if reduction == "none" else total_weight, dtype=data.dtype)))
        node.ignore_index, node.reduction = ignore_index, _REDUCTIONS.index(reduction)
        node._class_axis, node._safe_target, node._kept, node._target_weights = class_axis, safe, kept, target_weights
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


# --- cross_entropy ----------------------------------------------------------------------------
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
                               f"{scalar_type_name(target.dtype)}")
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


class DivBackward1(Node):
    """out = self / other for a number ``other`` (ATen's ``div.Scalar``, which C++ code such as
    cross_entropy calls; Python's ``x / 2`` wraps the 2 in a tensor and records DivBackward0):
    d/dself = grad / other."""

    other: Any

    def backward(self, grad: Tensor) -> tuple:
        return (grad / self.other,)


def _div_scalar(input: Tensor, other: Any) -> Tensor:
    """``input / other`` recorded as PyTorch's C++ code records it (DivBackward1, saving the number)."""
    out = _wrap(np.true_divide(input._data, other).astype(input._data.dtype, copy=False))
    if compute_requires_grad(input):
        node = DivBackward1(input)
        node.other = other
        set_history(out, node)
    return out


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
    return _div_scalar(-total, input.numel() // classes)


# --- l1_loss ----------------------------------------------------------------------------------
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
        return weighted_reduction(errors, weight, reduction)
    if reduction == "mean":
        return errors.mean()
    return errors.sum() if reduction == "sum" else errors


def weighted_reduction(errors: Tensor, weight: Tensor, reduction: str, *, mean_by_weight: bool = True) -> Tensor:
    """PyTorch's Python-level weighted losses (l1, mse, huber): ``errors * weight`` (the input's
    shape), then summed, or averaged: by the sum of the weights, or (``huber_loss``) by the count."""
    if tuple(weight.shape) != tuple(errors.shape):
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return errors.sum() / weight.sum() if mean_by_weight else errors.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# --- binary_cross_entropy ---------------------------------------------------------------------
_BCE_EPSILON = 1e-12  # PyTorch's floor for x (1 - x) in the gradient, where it would divide by 0


class BinaryCrossEntropyBackward0(Node):
    """loss = -w (t log x + (1 - t) log(1 - x)):
    grad_input  = grad * w (x - t) / max(x (1 - x), 1e-12)
    grad_target = grad * w (log(1 - x) - log x)          (each / numel for 'mean')."""

    reduction: int
    self_: SavedTensor
    target_: SavedTensor
    weight_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, target, weight = self._saved_self, self._saved_target, self._saved_weight
        scale = grad if self.reduction != _MEAN else grad / self_.numel()
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
        raise RuntimeError(f"Found dtype {scalar_type_name(target.dtype)} but expected {scalar_type_name(input.dtype)}")
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
        node.self_, node.target_, node.weight_ = SavedTensor(input), SavedTensor(target), saved_optional(weight)
        node.reduction = _REDUCTIONS.index(reduction)
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

    pos_weight_: SavedTensor
    reduction: int
    self_: SavedTensor
    target_: SavedTensor
    weight_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, target, weight, pos_weight = (self._saved_self, self._saved_target, self._saved_weight,
                                             self._saved_pos_weight)
        scale = grad if self.reduction != _MEAN else grad / self._numel
        if weight is not None:
            scale = scale * weight
        grad_input = grad_target = None
        if self.needs_input_grad(0):
            if pos_weight is not None:
                weighted_target = pos_weight * target
                grad_input = (weighted_target + 1 - target) * self_.sigmoid() - weighted_target
            else:
                grad_input = self_.sigmoid() - target
            grad_input = grad_input * scale
        if self.needs_input_grad(1):
            if pos_weight is not None:
                grad_target = _log_sigmoid(-self_) - _log_sigmoid(self_) * pos_weight
            else:
                grad_target = -self_
            grad_target = grad_target * scale
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
        raise RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired "
                           f"output type {scalar_type_name(target.dtype)}")
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
        node.self_, node.target_ = SavedTensor(input), SavedTensor(target)
        node.weight_, node.pos_weight_ = saved_optional(weight), saved_optional(pos_weight)
        node.reduction, node._numel = _REDUCTIONS.index(reduction), int(losses.size)
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
