"""Convolution: ``convolution`` (what ``F.conv1d/2d/3d`` call) and the padding its layers use.

Mirrors aten/src/ATen/native/Convolution.cpp (``convolution``, its checks and
``convolution_backward``), the "im2col" path of aten/src/ATen/native/ConvolutionMM2d.cpp, and for
the padding modes aten/src/ATen/native/PadNd.cpp (``F.pad``).

**Forward by im2col.** Every output value is a dot product between the weights and one window of
the (zero-padded) input. ``sliding_window_view`` sees all the windows at once, without copying;
laid out as the columns of one matrix ("im2col": one row per (channel, kernel offset), one
column per (output position, sample)), the whole convolution is a single matrix product::

    out[o, (p, n)] = sum over (c, k) of  weight[o, (c, k)] * columns[(c, k), (p, n)]

Stride and dilation are only slicing steps over the windows; ``groups`` splits the channels into
independent blocks: one product per block (a batched ``matmul``).

**Backward.** The output is linear in the input and in the weight, so each gradient is the
transposed product:

* grad_weight = grad_out @ columns.T   (one more matrix product);
* grad_columns = weight.T @ grad_out, then "col2im" adds every column back onto the input
  positions it was read from. A loop over the kernel's few offsets does it with one slicing add
  each, never a loop over pixels;
* grad_bias = grad_out summed over the batch and the positions.

With ``create_graph=True`` the two gradient products are themselves recorded (as
``ConvolutionBackwardBackward0``), and *their* backwards are again convolutions and gradient
products, so derivatives of any order work.

Transposed convolution (``output_padding`` included) is in conv_transpose.py. PyTorch's CPU
convolution usually runs in oneDNN (mkldnn) kernels, not im2col; the numbers agree to float
rounding. PyTorch recomputes the columns for grad_weight; glasstorch keeps the forward's. PyTorch's
``ConvolutionBackwardBackward0`` is one Node with three outputs, glasstorch records one Node per
gradient product (same name) and the bias gradient as a ``sum``. float16/bfloat16 are computed in
float32 and rounded once. ``pad_for_convolution`` is the part of ``F.pad`` the layers' padding modes
need. ``'circular'`` is written as PyTorch writes it: slice copies into an empty tensor, so its
``grad_fn`` is ``CopySlices``, as PyTorch's.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history


# --- the geometry: stride, padding, dilation, groups -----------------------------------------
class _Geometry:
    """What, besides the tensors, decides a convolution: per spatial dim ``stride``,
    ``padding`` and ``dilation``, and the number of ``groups``."""

    __slots__ = ("stride", "padding", "dilation", "groups")

    def __init__(self, stride: tuple, padding: tuple, dilation: tuple, groups: int) -> None:
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups

    def output_size(self, size: Sequence[int], kernel: Sequence[int]) -> tuple:
        """(size + 2 padding - dilation (kernel - 1) - 1) // stride + 1, per spatial dim."""
        return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                     for n, k, s, p, d in zip(size, kernel, self.stride, self.padding, self.dilation))


def _expand(value: Any, name: str, dims: int) -> tuple:
    """PyTorch's ``expand_param_if_needed``: one number for every spatial dim, or one per dim."""
    values = [int(value)] if isinstance(value, (int, np.integer)) else [int(v) for v in value]
    if len(values) == 1:
        return tuple(values * dims)
    if len(values) != dims:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} values to match "
                           f"the convolution dimensions, but got {name}={values}")
    return tuple(values)


_SCALAR_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def _shape_list(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _check(input: Tensor, weight: Tensor, bias: Tensor | None, geometry: _Geometry) -> None:
    """PyTorch's ``check_shape_forward`` and its backend's checks, in PyTorch's order."""
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_SCALAR_NAMES[input.dtype.name]}) and bias type "
                           f"({_SCALAR_NAMES[bias.dtype.name]}) should be the same")
    if any(p < 0 for p in geometry.padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in geometry.stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in geometry.dilation):
        raise RuntimeError("dilation should be greater than zero")
    groups, w_shape, x_shape = geometry.groups, tuple(weight.shape), tuple(input.shape)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if len(x_shape) != len(w_shape):
        raise RuntimeError(f"Expected {len(w_shape)}-dimensional input for {len(w_shape)}-dimensional weight "
                           f"{_shape_list(w_shape)}, but got {len(x_shape)}-dimensional input of size "
                           f"{_shape_list(x_shape)} instead")
    if w_shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_shape_list(w_shape)} instead")
    if w_shape[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_shape_list(w_shape)}] instead")
    if x_shape[1] != w_shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_shape_list(w_shape)}, expected input"
                           f"{_shape_list(x_shape)} to have {w_shape[1] * groups} channels, but got {x_shape[1]} "
                           "channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != w_shape[0]):
        raise RuntimeError(f"Given weight of size {_shape_list(w_shape)}, expected bias to be 1-dimensional with "
                           f"{w_shape[0]} elements, but got bias of size {_shape_list(bias.shape)} instead")
    padded = [n + 2 * p for n, p in zip(x_shape[2:], geometry.padding)]
    spans = [d * (k - 1) + 1 for k, d in zip(w_shape[2:], geometry.dilation)]
    if any(n < k for n, k in zip(padded, spans)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than actual input "
                           "size")
    _check_backend(input, weight, geometry)


def _check_backend(input: Tensor, weight: Tensor, geometry: _Geometry) -> None:
    """What PyTorch's CPU kernels check last (it runs a 1-D convolution as a 2-D one of height 1)."""
    if input.dtype.name == "bool":
        raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input.dtype)} but found {scalar_type_name(weight.dtype)}")
    kernel, dilation = tuple(weight.shape[2:]), geometry.dilation
    if len(kernel) == 1:
        kernel, dilation = (1,) + kernel, (1,) + dilation
    if any(k <= 0 for k in kernel):
        sizes = (f" kernel_height: {kernel[0]} kernel_width: {kernel[1]}" if len(kernel) == 2
                 else f": {' x '.join(map(str, kernel))} (TxHxW)")
        raise RuntimeError(f"kernel size should be greater than zero, but got{sizes}")
    if any(d == 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")


# --- the numpy kernels: im2col, the three products, col2im -----------------------------------
def _compute_dtype(data: np.ndarray) -> np.dtype:
    # float16/bfloat16 matrix products are slow (or missing) in numpy: compute in float32
    return np.dtype(np.float32) if data.dtype.itemsize == 2 and data.dtype.kind not in "iu" else data.dtype


def _samples_last(x: np.ndarray, padding: tuple) -> np.ndarray:
    """``x`` (N, C, *size) as a contiguous (C, *padded_size, N) array, zero-padded.

    Why the sample last: every copy and every add of the im2col arithmetic then moves runs of
    (output positions of a row) x (samples) contiguous numbers at a time. With the sample first,
    numpy would loop over rows only as long as the image is wide (8 numbers, say), and its
    per-row overhead would cost more than the arithmetic."""
    shape = (x.shape[1],) + tuple(n + 2 * p for n, p in zip(x.shape[2:], padding)) + (x.shape[0],)
    out = np.zeros(shape, dtype=x.dtype) if any(padding) else np.empty(shape, dtype=x.dtype)
    inside = tuple(slice(p, p + n) for n, p in zip(x.shape[2:], padding))
    out[(slice(None),) + inside] = np.moveaxis(x, 0, -1)
    return out


def _columns(x: np.ndarray, kernel: tuple, geometry: _Geometry) -> np.ndarray:
    """im2col: the windows of ``x`` (N, C, *size) as an array (C, *kernel, *out_size, N), that is
    a (C * prod(kernel), prod(out_size) * N) matrix. The one copy of the forward pass."""
    dims = len(kernel)
    spatial = tuple(range(1, 1 + dims))
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, geometry.dilation))
    windows = sliding_window_view(_samples_last(x, geometry.padding), spans, axis=spatial)  # (C, *pos, N, *spans)
    steps = (tuple(slice(None, None, s) for s in geometry.stride) + (slice(None),)
             + tuple(slice(None, None, d) for d in geometry.dilation))
    windows = windows[(slice(None),) + steps]  # (C, *out_size, N, *kernel)
    order = (0,) + tuple(range(2 + dims, 2 + 2 * dims)) + spatial + (1 + dims,)
    return np.ascontiguousarray(windows.transpose(order))


def _weight_matrix(w: np.ndarray, groups: int) -> np.ndarray:
    """The weight (O, C/groups, *kernel) as (groups, O/groups, C/groups * prod(kernel))."""
    return w.reshape(groups, w.shape[0] // groups, -1)


def _positions(a: np.ndarray) -> int:
    """N * prod(out_size) of an (N, channels, *out_size) array: the columns' count. (Spelled out:
    numpy cannot infer a -1 dim of an empty array.)"""
    return a.shape[0] * int(np.prod(a.shape[2:]))


def _grad_matrix(g: np.ndarray, groups: int) -> np.ndarray:
    """grad_out (N, O, *out_size) as (groups, O/groups, prod(out_size) * N), matching the columns."""
    return np.ascontiguousarray(np.moveaxis(g, 0, -1)).reshape(groups, g.shape[1] // groups, _positions(g))


def _samples_first(a: np.ndarray) -> np.ndarray:
    """A (channels, *size, N) array back in PyTorch's layout (N, channels, *size), contiguous.

    A transposing copy reads or writes one of the two arrays with a long stride, missing the cache
    at every number; copying a block of rows at a time keeps both in cache (about 3x faster on a
    convolution's output)."""
    rows = a.reshape(math.prod(a.shape[:-1]), a.shape[-1])  # (channels * prod(size), N); no -1: it may be empty
    out = np.empty(rows.shape[::-1], dtype=a.dtype)
    for start in range(0, rows.shape[0], _TRANSPOSE_BLOCK):
        out[:, start:start + _TRANSPOSE_BLOCK] = rows[start:start + _TRANSPOSE_BLOCK].T
    return out.reshape(a.shape[-1:] + a.shape[:-1])


_TRANSPOSE_BLOCK = 256  # rows per block: 256 x N numbers fit in a core's cache for any usual batch


def _forward_values(x: np.ndarray, w: np.ndarray, b: np.ndarray | None,
                    geometry: _Geometry) -> tuple[np.ndarray, np.ndarray]:
    """out = weight @ columns (+ bias), per group, laid out back as (N, O, *out_size).
    Returns (out, columns)."""
    dtype = x.dtype
    x, w = x.astype(_compute_dtype(x), copy=False), w.astype(_compute_dtype(w), copy=False)
    columns = _columns(x, w.shape[2:], geometry)  # (C, *kernel, *out_size, N)
    dims = x.ndim - 2
    out_size = columns.shape[1 + dims:-1]
    rows = w.shape[1] * int(np.prod(w.shape[2:]))  # C/groups * prod(kernel)
    columns = columns.reshape(geometry.groups, rows, int(np.prod(out_size)) * x.shape[0])
    product = np.matmul(_weight_matrix(w, geometry.groups), columns)  # (groups, O/groups, L * N)
    if b is not None:
        product += b.astype(product.dtype, copy=False).reshape(geometry.groups, -1, 1)
    out = _samples_first(product.reshape((w.shape[0],) + out_size + (x.shape[0],)))
    return out.astype(dtype, copy=False), columns


def _weight_grad_values(x: np.ndarray, g: np.ndarray, weight_shape: tuple, geometry: _Geometry,
                        columns: np.ndarray | None = None) -> np.ndarray:
    """grad_weight = grad_out @ columns.T, per group (``columns``: the forward's, if it kept them)."""
    dtype = g.dtype
    g = g.astype(_compute_dtype(g), copy=False)
    if columns is None:
        columns = _columns(x.astype(_compute_dtype(x), copy=False), weight_shape[2:], geometry)
    rows = weight_shape[1] * int(np.prod(weight_shape[2:]))
    columns = columns.reshape(geometry.groups, rows, _positions(g))  # (groups, C/groups * K, L * N)
    # (columns @ grad_out.T).T rather than grad_out @ columns.T: the same numbers, but OpenBLAS runs
    # this long, thin product (L * N is the long side) about 1.5x faster in this orientation
    grad = np.matmul(columns, _grad_matrix(g, geometry.groups).transpose(0, 2, 1)).transpose(0, 2, 1)
    return grad.reshape(weight_shape).astype(dtype, copy=False)


def _input_grad_values(g: np.ndarray, w: np.ndarray, input_shape: tuple, geometry: _Geometry) -> np.ndarray:
    """grad_columns = weight.T @ grad_out, then col2im: add each kernel offset's column block back
    onto the input positions it was read from (one strided slice per offset)."""
    dtype = g.dtype
    g, w = g.astype(_compute_dtype(g), copy=False), w.astype(_compute_dtype(w), copy=False)
    kernel, out_size = w.shape[2:], g.shape[2:]
    grad_columns = np.matmul(_weight_matrix(w, geometry.groups).transpose(0, 2, 1), _grad_matrix(g, geometry.groups))
    grad_columns = grad_columns.reshape((input_shape[1],) + kernel + out_size + (g.shape[0],))  # (C, *k, *out, N)
    padded_size = tuple(n + 2 * p for n, p in zip(input_shape[2:], geometry.padding))
    # accumulate in the columns' layout, (C, *padded_size, N)
    grad_input = np.zeros((input_shape[1],) + padded_size + (input_shape[0],), dtype=grad_columns.dtype)
    for offset in np.ndindex(*kernel):
        window = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                       for o, d, s, m in zip(offset, geometry.dilation, geometry.stride, out_size))
        grad_input[(slice(None),) + window] += grad_columns[(slice(None),) + offset]
    inside = tuple(slice(p, p + n) for n, p in zip(input_shape[2:], geometry.padding))
    return _samples_first(grad_input[(slice(None),) + inside]).astype(dtype, copy=False)


# --- the differentiable ops -------------------------------------------------------------------
class _ConvolutionNode(Node):
    """What both convolution Nodes save besides tensors, as PyTorch names it (here ``transposed``
    is False and ``output_padding`` zeros; conv_transpose.py records the transposed one)."""

    stride: tuple
    padding: tuple
    dilation: tuple
    transposed: bool
    output_padding: tuple
    groups: int

    def _save_geometry(self, geometry: _Geometry) -> None:
        self._geometry = geometry
        self.stride, self.padding, self.dilation = geometry.stride, geometry.padding, geometry.dilation
        self.transposed, self.output_padding, self.groups = False, (0,) * len(geometry.stride), geometry.groups


class ConvolutionBackward0(_ConvolutionNode):
    """out = convolution(input, weight) + bias: what ``F.conv1d/2d/3d`` record.
    Edges in PyTorch's order: (input, weight, bias). grad_input is the convolution of grad with
    the weight transposed (``_input_grad``), grad_weight the correlation of input with grad
    (``_weight_grad``), grad_bias the sum of grad over the batch and the spatial dims."""

    input_: SavedTensor
    weight_: SavedTensor
    bias_sym_sizes_opt: tuple  # the bias's shape, (0,) without one

    def backward(self, grad: Tensor) -> tuple:
        input, weight = self._saved_input, self._saved_weight
        geometry = self._geometry
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_input = _input_grad(grad, weight, tuple(input.shape), geometry)
        if self.needs_input_grad(1):
            grad_weight = _weight_grad(input, grad, tuple(weight.shape), geometry, self._columns)
        if self.needs_input_grad(2):
            grad_bias = grad.sum(dim=(0,) + tuple(range(2, grad.dim())))
        return grad_input, grad_weight, grad_bias

    def release_variables(self) -> None:
        super().release_variables()
        self._columns = None


class ConvolutionBackwardBackward0(_ConvolutionNode):
    """One of the two gradient products of a convolution, recorded only under ``create_graph``.

    ``wrt == "input"``:  out = grad_input(grad_out, weight); edges (grad_out, weight).
    ``wrt == "weight"``: out = grad_weight(input, grad_out); edges (input, grad_out).
    Both are linear in each argument, and the adjoint of each is a convolution or the other
    product: for a gradient ``h`` of the output,
      grad_input:  d/d grad_out = conv(h, weight),   d/d weight = grad_weight(h, grad_out);
      grad_weight: d/d input = grad_input(grad_out, h), d/d grad_out = conv(input, h).
    PyTorch's Node of this name is one for both products: it saves all three tensors.
    """

    grad_output_: SavedTensor
    input_: SavedTensor
    weight_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        geometry, grad_out = self._geometry, self._saved_grad_output
        if self._wrt == "input":
            weight = self._saved_weight
            return (_convolve(grad, weight, None, geometry) if self.needs_input_grad(0) else None,
                    _weight_grad(grad, grad_out, tuple(weight.shape), geometry) if self.needs_input_grad(1) else None)
        input = self._saved_input
        return (_input_grad(grad_out, grad, tuple(input.shape), geometry) if self.needs_input_grad(0) else None,
                _convolve(input, grad, None, geometry) if self.needs_input_grad(1) else None)


def _input_grad(grad_out: Tensor, weight: Tensor, input_shape: tuple, geometry: _Geometry) -> Tensor:
    out = _wrap(_input_grad_values(grad_out._data, weight._data, input_shape, geometry))
    if compute_requires_grad(grad_out, weight):  # only under create_graph
        node = ConvolutionBackwardBackward0(grad_out, weight)
        node.grad_output_, node.weight_ = SavedTensor(grad_out), SavedTensor(weight)
        node._wrt = "input"
        node._save_geometry(geometry)
        set_history(out, node)
    return out


def _weight_grad(input: Tensor, grad_out: Tensor, weight_shape: tuple, geometry: _Geometry,
                 columns: np.ndarray | None = None) -> Tensor:
    out = _wrap(_weight_grad_values(input._data, grad_out._data, weight_shape, geometry, columns))
    if compute_requires_grad(input, grad_out):
        node = ConvolutionBackwardBackward0(input, grad_out)
        node.input_, node.grad_output_ = SavedTensor(input), SavedTensor(grad_out)
        node._wrt = "weight"
        node._save_geometry(geometry)
        set_history(out, node)
    return out


def _convolve(input: Tensor, weight: Tensor, bias: Tensor | None, geometry: _Geometry) -> Tensor:
    """The checked convolution: values, bias, and the Node."""
    values, columns = _forward_values(input._data, weight._data, None if bias is None else bias._data, geometry)
    out = _wrap(values)
    if compute_requires_grad(input, weight, bias):
        node = ConvolutionBackward0(input, weight, bias)
        node.input_, node.weight_ = SavedTensor(input), SavedTensor(weight)  # both, always, as PyTorch does
        node.bias_sym_sizes_opt = (0,) if bias is None else tuple(bias._data.shape)
        node._save_geometry(geometry)
        # the im2col matrix, kept for grad_weight: PyTorch recomputes it; keeping it costs memory
        # (prod(kernel) times the input's) and saves a tenth of the backward's time
        node._columns = columns if node.needs_input_grad(1) else None
        set_history(out, node)
    return out


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                dilation: Any = 1, groups: int = 1) -> Tensor:
    """A batched 1-D, 2-D or 3-D convolution (a cross-correlation, as in PyTorch): input
    (N, C_in, *size), weight (C_out, C_in / groups, *kernel), bias (C_out) or None. ``stride``,
    ``padding`` (zeros, on both sides) and ``dilation`` are an int or one int per spatial dim."""
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    dims = weight.dim() - 2
    geometry = _Geometry(_expand(stride, "stride", dims), _expand(padding, "padding", dims),
                         _expand(dilation, "dilation", dims), int(groups))
    _check(input, weight, bias, geometry)
    out = _convolve(input, weight, bias, geometry)
    if out.grad_fn is not None:
        # PyTorch shows the arguments as they were passed, before expanding them to every dim
        node = out.grad_fn
        node.stride, node.padding, node.dilation = map(_as_passed, (stride, padding, dilation))
    return out


def _as_passed(value: Any) -> tuple:
    return (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)


# --- padding for the layers' padding modes ---------------------------------------------------
_NUMPY_PAD_MODES = {"reflect": "reflect", "replicate": "edge"}


class ConstantPadNdBackward0(Node):
    """out = input padded with zeros (or cropped, where a padding is negative): the gradient is
    the output's gradient cropped back (or zero-padded), which is a constant padding again."""

    pad: tuple  # as F.pad takes it: (before, after) pairs, the last dim first

    def backward(self, grad: Tensor) -> tuple:
        return (pad_for_convolution(grad, [(-before, -after) for before, after in _pairs(self.pad)], "constant"),)


class _FoldPadBackward(Node):
    """out = input padded with copies of its own elements: each input element's gradient is the
    sum of the gradients at the positions it was copied to. A 0/1 matrix per padded dim folds
    them back (a ``matmul``, so that create_graph works)."""

    padding: tuple  # as F.pad takes it: (before, after) pairs, the last dim first
    self_: SavedTensor  # (PyTorch's backward reads it; glasstorch's folds only need its shape)

    def backward(self, grad: Tensor) -> tuple:
        for axis, fold in self._folds:
            grad = grad.transpose(axis, -1).matmul(fold.to(grad.dtype)).transpose(axis, -1)
        return (grad,)


class ReflectionPad1DBackward0(_FoldPadBackward):
    pass


class ReflectionPad2DBackward0(_FoldPadBackward):
    pass


class ReflectionPad3DBackward0(_FoldPadBackward):
    pass


class ReplicationPad1DBackward0(_FoldPadBackward):
    pass


class ReplicationPad2DBackward0(_FoldPadBackward):
    pass


class ReplicationPad3DBackward0(_FoldPadBackward):
    pass


_PAD_NODES = {
    ("reflect", 1): ReflectionPad1DBackward0, ("reflect", 2): ReflectionPad2DBackward0,
    ("reflect", 3): ReflectionPad3DBackward0, ("replicate", 1): ReplicationPad1DBackward0,
    ("replicate", 2): ReplicationPad2DBackward0, ("replicate", 3): ReplicationPad3DBackward0,
}


def _pairs(pad: tuple) -> list:
    """F.pad's flat (before, after, ...) padding, last dim first, as pairs in dim order."""
    return [(pad[i], pad[i + 1]) for i in range(len(pad) - 2, -1, -2)]


def _pad_node_class(mode: str, dims: int) -> type:
    if mode == "constant":
        return ConstantPadNdBackward0
    return _PAD_NODES[mode, dims]


def _check_pad(input: Tensor, pairs: Sequence[tuple], mode: str) -> None:
    """PyTorch's checks in ``F.pad`` for the non-constant modes (it checks the last dim first)."""
    dims, ndim = len(pairs), input.dim()
    if mode != "constant" and not dims + 1 <= ndim <= dims + 2:
        raise NotImplementedError(
            f"Padding size {2 * dims} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    for j, (before, after) in enumerate(reversed(pairs)):
        axis = ndim - 1 - j
        size = input.shape[axis]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({before}, {after}) at dimension {axis} of input "
                               f"{_shape_list(input.shape)}")
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")


def _fold(size: int, before: int, after: int, mode: str) -> Tensor:
    """The 0/1 matrix (padded size, size) that sends each padded position of one dim to the
    input position it copies."""
    source = np.pad(np.arange(size), (before, after), mode=_NUMPY_PAD_MODES[mode])
    matrix = np.zeros((source.size, size), dtype=np.float32)
    matrix[np.arange(source.size), source] = 1.0
    return _wrap(matrix)


def _constant_pad_values(x: np.ndarray, pairs: list) -> np.ndarray:
    """Zero padding of the last dims, where a negative padding crops (as ``constant_pad_nd``)."""
    lead = x.ndim - len(pairs)
    crop = tuple(slice(max(-before, 0), n - max(-after, 0)) for n, (before, after) in zip(x.shape[lead:], pairs))
    x = x[(slice(None),) * lead + crop]
    return np.pad(x, [(0, 0)] * lead + [(max(before, 0), max(after, 0)) for before, after in pairs])


def _pad_circular(input: Tensor, pairs: list) -> Tensor:
    """Circular padding as PyTorch's ``_pad_circular`` writes it: an empty tensor of the padded
    size; the input (cropped where a padding is negative) copied into its middle; then, one padded
    dim at a time, the last dim first, each border copied from the far side of the tensor itself.
    Every copy is into a slice (a view), so autograd records ``CopySlices``, as in PyTorch; corners
    are written once per dim, each time from a slice whose own borders are already filled."""
    from .._creation import empty

    lead = input.dim() - len(pairs)
    in_shape = tuple(input.shape)
    out_shape = in_shape[:lead] + tuple(n + before + after for n, (before, after) in zip(in_shape[lead:], pairs))
    out = empty(out_shape, dtype=input.dtype)
    middle, source = out, input
    for dim, (before, after) in enumerate(pairs, start=lead):
        middle = middle.narrow(dim, max(before, 0), out_shape[dim] - max(before, 0) - max(after, 0))
        source = source.narrow(dim, max(-before, 0), in_shape[dim] - max(-before, 0) - max(-after, 0))
    middle.copy_(source)
    for dim, (before, after) in reversed(list(enumerate(pairs, start=lead))):
        size = out_shape[dim]
        if before > 0:  # the left border: copied from the right end of the middle
            out.narrow(dim, 0, before).copy_(out.narrow(dim, size - before - max(after, 0), before))
        if after > 0:  # the right border: copied from the left end of the middle
            out.narrow(dim, size - after, after).copy_(out.narrow(dim, max(before, 0), after))
    return out


def pad_for_convolution(input: Tensor, pairs: Sequence[tuple], mode: str = "constant") -> Tensor:
    """Pad the last ``len(pairs)`` dims of ``input``, ``pairs[i] = (before, after)`` for the i-th of
    them (PyTorch's ``F.pad`` takes them flat and last dim first). ``mode``: ``'constant'``
    (zeros; a negative padding crops), ``'reflect'``, ``'replicate'`` or ``'circular'``."""
    pairs = [(int(before), int(after)) for before, after in pairs]
    _check_pad(input, pairs, mode)
    if mode == "circular":
        return _pad_circular(input, pairs)
    lead = input.dim() - len(pairs)
    if mode == "constant":
        out = _wrap(_constant_pad_values(input._data, pairs))
    else:
        out = _wrap(np.pad(input._data, [(0, 0)] * lead + pairs, mode=_NUMPY_PAD_MODES[mode]))
    if compute_requires_grad(input):
        node = _pad_node_class(mode, len(pairs))(input)
        flat = tuple(n for pair in reversed(pairs) for n in pair)
        if mode == "constant":
            node.pad = flat
        else:
            node.padding, node.self_ = flat, SavedTensor(input)
            node._folds = [(lead + i, _fold(input.shape[lead + i], before, after, mode))
                           for i, (before, after) in enumerate(pairs) if before or after]
        set_history(out, node)
    return out
