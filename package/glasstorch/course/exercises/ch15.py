"""Chapter 15 exercises: the arithmetic under three layers.

* ``15.conv2d_forward``: a 2-D convolution by im2col (padding, stride, dilation, groups) and one
  matrix product, the numpy kernel under ``F.conv2d``;
* ``15.max_pool2d``: max pooling with ``-inf`` padding, ``ceil_mode`` and the indices of the maxima;
* ``15.batch_norm``: ``F.batch_norm`` in training and evaluation, with the running statistics.

Each is checked on its own and then plugged into glasstorch, where a small network with
``Conv2d``, ``MaxPool2d`` or ``BatchNorm2d`` trains with the learner's piece in place of the
package's. The training helper :func:`fit` is shared with chapters 16 and 17.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import glasstorch
import glasstorch.nn.functional as F
import glasstorch.ops.conv as conv_ops
import glasstorch.ops.pooling as pooling_ops
from glasstorch import nn
from glasstorch._tensor import Tensor

from ..checking import Case, exercise, replaced
from ._harness import fit, normal

# -- 15.conv2d_forward ----------------------------------------------------------------------------

_CONV_KERNEL = conv_ops._forward_values  # the package's numpy kernel, kept before any replacement


def _conv_reference(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, stride: tuple,
                    padding: tuple, dilation: tuple, groups: int) -> np.ndarray:
    """glasstorch's own im2col forward (what ``F.conv2d`` runs once its arguments are checked)."""
    geometry = conv_ops._Geometry(tuple(stride), tuple(padding), tuple(dilation), int(groups))
    return _CONV_KERNEL(x, weight, bias, geometry)[0]


def _plugged_conv(impl: Callable[..., np.ndarray]) -> Callable[..., tuple]:
    """A stand-in for ``ops.conv._forward_values`` that runs ``impl`` for 2-D convolutions."""
    def forward_values(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, geometry: Any) -> tuple:
        if x.ndim != 4:  # Conv1d / Conv3d: not the exercise's
            return _CONV_KERNEL(x, w, b, geometry)
        out = impl(x, w, b, geometry.stride, geometry.padding, geometry.dilation, geometry.groups)
        return np.asarray(out), None  # no columns kept: the backward recomputes them for grad_weight
    return forward_values


class _ConvNet(nn.Module):
    """Two convolutions with every argument of the exercise: padding, stride, dilation, groups."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(4, 6, kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
        self.fc = nn.Linear(6 * 3 * 5, 1)

    def forward(self, x: Tensor) -> Tensor:
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


def _train_conv(impl: Callable[..., np.ndarray], x: np.ndarray, y: np.ndarray) -> dict:
    with replaced(conv_ops, "_forward_values", _plugged_conv(impl)):
        model, _, losses = fit(_ConvNet, x, y, steps=5)
        return {"losses": losses, "weights after 5 steps": model.state_dict()}


def _conv_case(name: str, rng: np.random.Generator, x_shape: tuple, w_shape: tuple, *, bias: bool = True,
               stride: tuple = (1, 1), padding: tuple = (0, 0), dilation: tuple = (1, 1), groups: int = 1,
               dtype: Any = np.float32, hint: str | None = None) -> Case:
    b = normal(rng, w_shape[0], dtype=dtype) if bias else None
    inputs = (normal(rng, *x_shape, dtype=dtype), normal(rng, *w_shape, dtype=dtype), b, stride, padding,
              dilation, groups)
    return Case(name, inputs, hint=hint)


def _conv_cases(rng: np.random.Generator) -> list[Case]:
    x = rng.standard_normal((8, 2, 6, 7)).astype(np.float32)
    return [
        _conv_case("one channel, a 3x3 kernel, no padding (section 3)", rng, (1, 1, 5, 5), (1, 1, 3, 3),
                   bias=False, dtype=np.float64,
                   hint="a convolution layer computes a cross-correlation: out[i, j] is the sum of "
                        "weight[a, b] * x[i + a, j + b]; the kernel is not flipped."),
        _conv_case("float32 in, float32 out", rng, (1, 1, 4, 4), (1, 1, 2, 2), bias=False,
                   hint="return an array of the input's dtype: float32 here (np.zeros and float64 "
                        "arrays promote the result to float64; .astype(x.dtype) at the end)."),
        _conv_case("3 -> 4 channels with a bias, a batch of 2", rng, (2, 3, 4, 4), (4, 3, 3, 3),
                   hint="the product gives one row per output channel and one column per (sample, "
                        "position): move the batch axis back in front (transpose) before reshaping to "
                        "(N, O, H_out, W_out), and add the bias per output channel."),
        _conv_case("padding (1, 2): zeros around the image", rng, (1, 2, 5, 5), (3, 2, 3, 3), padding=(1, 2),
                   hint="pad the input with zeros first: padding (ph, pw) adds ph rows above and below "
                        "and pw columns left and right (np.pad on the last two axes)."),
        _conv_case("stride (2, 1): every second window along the height", rng, (1, 2, 7, 6), (2, 2, 3, 3),
                   stride=(2, 1),
                   hint="a stride s keeps every s-th window position: slice the window positions with "
                        "::s. The output size is floor((H + 2p - d(k-1) - 1) / s) + 1."),
        _conv_case("dilation (2, 2): the taps are two pixels apart", rng, (2, 2, 8, 9), (3, 2, 3, 3),
                   dilation=(2, 2),
                   hint="a dilated kernel spans d(k-1)+1 pixels: take windows of that span, then every "
                        "d-th pixel inside each window (slice the window axes with ::d)."),
        _conv_case("groups=2: each half of the channels has its own weights", rng, (2, 4, 5, 5), (6, 2, 3, 3),
                   groups=2,
                   hint="with groups g the input channels split into g blocks of C/g and the output "
                        "channels into g blocks of O/g; output block j sees only input block j. The "
                        "weight (O, C/g, kh, kw) already has one block of O/g rows per group."),
        _conv_case("everything at once: a (2, 3) kernel, stride 2, padding 1, dilation (1, 2), groups 3",
                   rng, (2, 6, 7, 8), (6, 2, 2, 3), stride=(2, 2), padding=(1, 1), dilation=(1, 2), groups=3),
        Case("inside glasstorch: a network of two Conv2d layers trains 5 steps with your forward",
             (x, rng.standard_normal((8, 1)).astype(np.float32)),
             observe=lambda impl, xx, yy: _train_conv(impl, xx, yy),
             hint="the cases above pass but training does not match: return the input's dtype "
                  "(float32 here), and an array of shape (N, O, H_out, W_out)."),
    ]


exercise(
    id="15.conv2d_forward",
    entry="conv2d_forward",
    title="a 2-D convolution by im2col and one matrix product",
    cases=_conv_cases,
    reference=_conv_reference,
    hint="pad with zeros, take every window with sliding_window_view (span d(k-1)+1, every s-th "
         "position, every d-th tap), lay the windows out as a matrix with one row per (channel, "
         "kernel offset), multiply by the weight seen as an (O, C/g * kh * kw) matrix, per group, "
         "then reshape to (N, O, H_out, W_out) and add the bias.",
    atol=1e-5,  # float32 sums in another order than the package's product
)


# -- 15.max_pool2d --------------------------------------------------------------------------------

_MAX_KERNEL = pooling_ops._max_over_windows  # the package's kernel, kept before any replacement


def _output_sizes(sizes: tuple, kernel: tuple, stride: tuple, padding: tuple, ceil_mode: bool) -> tuple:
    return tuple(pooling_ops.pooling_output_shape(n, k, p, s, 1, ceil_mode)
                 for n, k, s, p in zip(sizes, kernel, stride, padding))


def _pool_reference(x: np.ndarray, kernel_size: tuple, stride: tuple, padding: tuple,
                    ceil_mode: bool) -> tuple:
    """glasstorch's own max pooling kernel (what ``F.max_pool2d_with_indices`` runs after its checks)."""
    kernel_size, stride, padding = tuple(kernel_size), tuple(stride), tuple(padding)
    out_sizes = _output_sizes(x.shape[2:], kernel_size, stride, padding, ceil_mode)
    windows = pooling_ops._Windows(x.shape[2:], kernel_size, stride, padding, (1, 1), out_sizes)
    values, indices = _MAX_KERNEL(x, windows, True)
    return values, indices.astype(np.int64)


def _plugged_pool(impl: Callable[..., tuple]) -> Callable[..., tuple]:
    """A stand-in for ``ops.pooling._max_over_windows`` that runs ``impl`` for 2-D pooling."""
    def max_over_windows(data: np.ndarray, windows: Any, floating: bool) -> tuple:
        if data.ndim != 4 or windows.dims != 2 or windows.dilation != (1, 1) or not floating:
            return _MAX_KERNEL(data, windows, floating)
        floor_sizes = _output_sizes(data.shape[2:], windows.kernel, windows.stride, windows.padding, False)
        ceil_mode = tuple(windows.out_sizes) != floor_sizes  # (when both agree, either is right)
        values, indices = impl(data, windows.kernel, windows.stride, windows.padding, ceil_mode)
        return np.asarray(values), np.asarray(indices)
    return max_over_windows


class _PoolNet(nn.Module):
    """A convolution, then the module MaxPool2d and the function F.max_pool2d with padding."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 3, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(3 * 2 * 2, 1)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool(F.relu(self.conv(x)))                     # (N, 3, 4, 4): ties at 0 after relu
        x = F.max_pool2d(x, 3, stride=2, padding=1)             # (N, 3, 2, 2)
        return self.fc(x.flatten(1))


def _train_pool(impl: Callable[..., tuple], x: np.ndarray, y: np.ndarray) -> dict:
    with replaced(pooling_ops, "_max_over_windows", _plugged_pool(impl)):
        model, _, losses = fit(_PoolNet, x, y, steps=5)
        return {"losses": losses, "weights after 5 steps": model.state_dict()}


def _pool_cases(rng: np.random.Generator) -> list[Case]:
    grid = rng.permutation(25).reshape(1, 1, 5, 5).astype(np.float32)
    negative = -np.abs(normal(rng, 2, 2, 5, 6))
    relu = np.maximum(normal(rng, 1, 3, 6, 6), 0)
    relu[0, 0, :2, :2] = 0  # a whole window of zeros
    return [
        Case("2x2 windows, stride 2 (section 5's grid)", (grid, (2, 2), (2, 2), (0, 0), False),
             hint="indices are positions in the input's H x W plane, row * W + column, not positions "
                  "inside the window."),
        Case("3x3 windows, stride 1: the windows overlap", (normal(rng, 2, 3, 6, 6, dtype=np.float64), (3, 3),
                                                             (1, 1), (0, 0), False)),
        Case("a (2, 3) kernel with stride (2, 1)", (normal(rng, 1, 2, 7, 6), (2, 3), (2, 1), (0, 0), False)),
        Case("padding 1 around negative inputs: the padding is -inf", (negative, (3, 3), (2, 2), (1, 1), False),
             hint="pad with -inf, not 0: a zero in the padding would beat every negative input. And the "
                  "indices count positions of the unpadded input: subtract the padding."),
        Case("ceil_mode=True: the last, partial window is kept", (normal(rng, 1, 2, 5, 5), (2, 2), (2, 2),
                                                                  (0, 0), True),
             hint="with ceil_mode the output size rounds up: ceil((H + 2p - k) / s) + 1, and the "
                  "windows that hang over the right or bottom edge see only the inside of the image "
                  "(pad there with -inf as far as the last window reaches)."),
        Case("ceil_mode with padding: no window may start in the right padding",
             (normal(rng, 1, 1, 5, 5), (3, 3), (3, 3), (1, 1), True),
             hint="PyTorch drops a last window that would start in the right padding: if "
                  "(out - 1) * stride >= H + padding, the output has one window fewer."),
        Case("ties after a ReLU: the first maximum (in row-major order) wins", (relu, (2, 2), (2, 2), (0, 0), False),
             hint="when several values in a window are equal, the index is the first one in row-major "
                  "order (np.argmax picks the first)."),
        Case("inside glasstorch: MaxPool2d and F.max_pool2d in a network, 5 training steps",
             (normal(rng, 6, 1, 8, 8), normal(rng, 6, 1)),
             observe=lambda impl, xx, yy: _train_pool(impl, xx, yy),
             hint="the backward sends each output gradient to the position your indices name: check "
                  "them (and their dtype, int64) on the cases above."),
    ]


exercise(
    id="15.max_pool2d",
    entry="max_pool2d_with_indices",
    title="max pooling with -inf padding, ceil_mode, and the indices of the maxima",
    cases=_pool_cases,
    reference=_pool_reference,
    hint="compute the output size, pad with -inf, take the windows with sliding_window_view "
         "(every stride-th position), and per window the max and its argmax; turn the argmax into "
         "(row, column) of the input: row = out_row * stride - padding + argmax // kw.",
)


# -- 15.batch_norm --------------------------------------------------------------------------------

_BATCH_NORM = F.batch_norm  # the package's own, kept before any replacement


def _optional(array: np.ndarray | None, requires_grad: bool = False) -> Tensor | None:
    if array is None:
        return None
    t = glasstorch.from_numpy(array)
    return t.requires_grad_() if requires_grad else t


def _observe_batch_norm(impl: Callable[..., Tensor], x: np.ndarray, running_mean: np.ndarray | None,
                        running_var: np.ndarray | None, weight: np.ndarray | None, bias: np.ndarray | None,
                        training: bool, momentum: float, eps: float, upstream: np.ndarray) -> dict:
    """Call ``impl`` positionally, as ``_BatchNorm.forward`` calls ``F.batch_norm``; then backward."""
    inp = glasstorch.from_numpy(x).requires_grad_()
    rm, rv = _optional(running_mean), _optional(running_var)
    w, b = _optional(weight, True), _optional(bias, True)
    out = impl(inp, rm, rv, w, b, training, momentum, eps)
    (out * glasstorch.from_numpy(upstream)).sum().backward()
    observed = {"output": out, "input.grad": inp.grad}
    if w is not None:
        observed["weight.grad"], observed["bias.grad"] = w.grad, b.grad
    if rm is not None:
        observed["running_mean (after the call)"] = rm
        observed["running_var (after the call)"] = rv
        observed["running_mean.requires_grad"] = rm.requires_grad
    return observed


def _bn_inputs(rng: np.random.Generator, shape: tuple, *, running: bool = True, affine: bool = True,
               training: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> tuple:
    c = shape[1]
    x = (normal(rng, *shape) * 2 + 1).astype(np.float32)
    stats = (normal(rng, c), (rng.uniform(0.5, 2.0, c)).astype(np.float32)) if running else (None, None)
    params = (rng.uniform(0.5, 1.5, c).astype(np.float32), normal(rng, c)) if affine else (None, None)
    return (x, *stats, *params, training, momentum, eps, normal(rng, *shape))


class _NormNet(nn.Module):
    """BatchNorm2d after a convolution, and a BatchNorm1d with ``momentum=None`` (a cumulative
    average: the module passes 1 / num_batches_tracked as the momentum)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 3, kernel_size=3, padding=1)
        self.bn2d = nn.BatchNorm2d(3)
        self.fc1 = nn.Linear(3 * 4 * 4, 6)
        self.bn1d = nn.BatchNorm1d(6, momentum=None)
        self.fc2 = nn.Linear(6, 1)

    def forward(self, x: Tensor) -> Tensor:
        x = F.relu(self.bn2d(self.conv(x)))
        x = F.relu(self.bn1d(self.fc1(x.flatten(1))))
        return self.fc2(x)


def _train_norm(impl: Callable[..., Tensor], x: np.ndarray, y: np.ndarray, x_test: np.ndarray) -> dict:
    with replaced(F, "batch_norm", impl):
        model, _, losses = fit(_NormNet, x, y, steps=4)
        model.eval()
        with glasstorch.no_grad():
            test_output = model(glasstorch.from_numpy(x_test))
        return {"losses": losses, "state_dict after 4 steps (buffers included)": model.state_dict(),
                "output in eval mode": test_output}


def _bn_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("training, (N, C, H, W) = (3, 2, 2, 2)", _bn_inputs(rng, (3, 2, 2, 2)),
             hint="in training: normalise with the batch's mean and *biased* variance (divide by n), "
                  "then update running = (1 - momentum) * running + momentum * batch statistic, with "
                  "the *unbiased* variance (n - 1), in place, on the tensors you were given."),
        Case("training, (N, C) = (6, 4), as BatchNorm1d", _bn_inputs(rng, (6, 4))),
        Case("training with momentum 0.5 and eps 0.5", _bn_inputs(rng, (5, 2, 3), momentum=0.5, eps=0.5),
             hint="eps goes under the square root: (x - mean) / sqrt(var + eps)."),
        Case("evaluation: the running statistics normalise, and do not change",
             _bn_inputs(rng, (3, 2, 2, 2), training=False),
             hint="with training=False, use running_mean and running_var (reshaped to broadcast along "
                  "dim 1) and leave them untouched."),
        Case("affine=False: no weight and no bias", _bn_inputs(rng, (3, 2, 2, 2), affine=False)),
        Case("no running statistics (track_running_stats=False)", _bn_inputs(rng, (4, 3, 2), running=False),
             hint="running_mean and running_var may be None: then there is nothing to update, and the "
                  "batch's statistics normalise."),
        Case("training on one value per channel raises ValueError", _bn_inputs(rng, (1, 3)),
             hint="with a single value per channel the variance is undefined: PyTorch raises "
                  "ValueError('Expected more than 1 value per channel when training, ...')."),
        Case("inside glasstorch: BatchNorm2d and BatchNorm1d(momentum=None) train 4 steps, then eval()",
             (normal(rng, 8, 1, 4, 4), normal(rng, 8, 1), normal(rng, 3, 1, 4, 4)),
             observe=lambda impl, xx, yy, tt: _train_norm(impl, xx, yy, tt),
             hint="the cases above pass but the network does not: the running statistics must be "
                  "updated in place and under torch.no_grad(), so that they never require grad."),
    ]


exercise(
    id="15.batch_norm",
    entry="batch_norm",
    title="F.batch_norm: batch statistics in training, running statistics in evaluation",
    cases=_bn_cases,
    reference=_BATCH_NORM,
    observe=_observe_batch_norm,
    hint="statistics over every dim but 1 (the channels). Training: normalise with the batch mean "
         "and biased variance, and update the running ones in place with the unbiased variance. "
         "Evaluation: normalise with the running ones. Then out * weight + bias, per channel.",
)
