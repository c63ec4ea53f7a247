"""Pooling: max pooling (1-D, 2-D, 3-D, with the positions of the maxima), average pooling (2-D,
3-D) and adaptive average pooling, each forward next to its backward.

Mirrors aten/src/ATen/native/Pool.h (output sizes and shape checks), DilatedMaxPool2d.cpp,
DilatedMaxPool3d.cpp, MaxPooling.cpp (``max_pool1d_with_indices``), AveragePool2d.cpp,
AveragePool3d.cpp and AdaptiveAveragePooling.cpp, with the CPU kernels of native/cpu/MaxPoolKernel.cpp,
AvgPoolKernel.cpp and AdaptiveAvgPoolKernel.cpp.

**Windows.** Along each spatial dim, output position ``o`` reads the window that starts at
``o * stride - padding`` and takes ``kernel_size`` values ``dilation`` apart. With
``ceil_mode`` the output size is rounded up instead of down, but the last window must still start
inside the input or its left padding (``pooling_output_shape``).

**Max pooling** pads the input with -inf and walks the kernel's few offsets: for each offset, one
strided slice gives that offset's value in *every* window at once, and a running maximum keeps
the first strict maximum (a NaN always wins, as in PyTorch). The output remembers where each
maximum came from (``indices``, a flat position within its (H, W) or (T, H, W) plane).
**Its backward** sends each output gradient to that position (a scatter-add: windows that overlap
may pick the same input). With ``create_graph=True`` the scatter is itself recorded; its backward
reads the gradient back at the same positions (a gather), so derivatives of any order work.

**Average pooling** sums each window (one dim at a time: a box sum is separable) and divides by
the window's size: counted with the padding (``count_include_pad``), without it, or a fixed
``divisor_override``. **Its backward** spreads each gradient / divisor evenly over the window:
the same loops over kernel offsets, run backwards.

**Adaptive average pooling** chooses windows from the sizes alone: output ``i`` of ``out``
averages input positions ``floor(i * in / out)`` to ``ceil((i + 1) * in / out)``. Written as 0/1
matrices, the whole pooling is two matrix products, ``A_h @ x @ A_w.T`` (divided by the counts),
and its backward the transposed products.

Simplified: PyTorch's kernels run in channels-last layout too and have no double loop over kernel
offsets in Python; the numbers are the same (sums in another order may round differently in the
last bit). float16/bfloat16 are summed in float32, as PyTorch does. A window that lies wholly in
the padding (possible with dilation) gets -inf and an index past the plane's end, as in PyTorch;
glasstorch's backward sends it nothing (PyTorch's writes out of bounds).
"""
from __future__ import annotations

import functools
import itertools
import math
import operator
from typing import Any, Sequence

import numpy as np

from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history


# --- arguments, read as PyTorch's argument parser reads them ----------------------------------
def _int_tuple(value: Any, name: str, function: str, size: int, position: int | None = None) -> tuple:
    """An ``int[size]`` argument: one int stands for ``size`` equal ints; a sequence is kept as
    it is (its length is checked later, with the op's own message)."""
    where = f" (position {position})" if position is not None else ""
    if isinstance(value, (list, tuple)):
        return tuple(_element(v, i, name, function) for i, v in enumerate(value))
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        raise TypeError(f"{function}(): argument '{name}'{where} must be tuple of ints, not {type(value).__name__}")
    return (operator.index(value),) * size


def _element(value: Any, i: int, name: str, function: str) -> int:
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{function}(): argument '{name}' failed to unpack the object at pos {i + 1} with error "
                        f"\"type must be tuple of ints,but got {type(value).__name__}\"") from None


def _check_bool(value: Any, name: str, function: str, position: int | None = None) -> None:
    if not isinstance(value, (bool, np.bool_)):
        where = f" (position {position})" if position is not None else ""
        raise TypeError(f"{function}(): argument '{name}'{where} must be bool, not {type(value).__name__}")


def _check_tensor(value: Any, function: str) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}")


def _expand(value: tuple, dims: int, message: str, default: tuple | None = None) -> tuple:
    """One value per spatial dim: a 1-tuple is repeated; an empty stride means ``default``."""
    if not value and default is not None:
        return default
    if len(value) == 1:
        return value * dims
    if len(value) != dims:
        raise RuntimeError(message)
    return value


def _c_div(a: int, b: int) -> int:
    """C++ integer division, which truncates toward zero (Python's // rounds down)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _shape_list(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _check_dim_size(tensor: np.ndarray, ndim: int, dim: int, size: int) -> None:
    """PyTorch's ``check_dim_size``."""
    if tensor.ndim != ndim or tensor.shape[dim] != size:
        got = tensor.shape[dim] if dim < tensor.ndim else "?"
        raise RuntimeError(f"Expected a tensor of dimension {ndim} and tensor.size[{dim}] == {size} but got: "
                           f"dimension {tensor.ndim} and tensor.size[{dim}] = {got}")


def _check_grad_shape(grad: np.ndarray, expected: tuple, dims: int) -> None:
    """A backward's ``grad_output`` must have the output's shape: PyTorch checks the planes and
    the spatial sizes, then the batch. (Its average pooling skips the batch, and may crash.)"""
    ndim = len(expected)
    for dim in list(range(ndim - dims - 1, ndim)) + ([0] if ndim == dims + 2 else []):
        _check_dim_size(grad, ndim, dim, expected[dim])


# --- the geometry of the windows --------------------------------------------------------------
def pooling_output_shape(size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """How many windows fit along one dim (PyTorch's ``pooling_output_shape``, with its checks)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > _c_div((kernel - 1) * dilation + 1, 2):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    out = (size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1  # the last window must start inside the input or its left padding
    return out


class _Windows:
    """Where the pooling windows sit, per spatial dim (the last ``len(kernel)`` dims)."""

    def __init__(self, in_sizes: tuple, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                 out_sizes: tuple) -> None:
        self.in_sizes, self.kernel, self.stride = in_sizes, kernel, stride
        self.padding, self.dilation, self.out_sizes = padding, dilation, out_sizes
        self.dims = len(kernel)

    def padded(self, data: np.ndarray, fill: Any) -> np.ndarray:
        """``data`` with ``fill`` on the left (``padding``) and on the right (as far as the last
        window reaches, which ``ceil_mode`` may take past the padding)."""
        lengths = [max(p + n, (o - 1) * s + (k - 1) * d + 1)
                   for n, k, s, p, d, o in self._per_dim()]
        if all(p == 0 and length == n for p, length, n in zip(self.padding, lengths, self.in_sizes)):
            return data
        out = np.full(data.shape[:-self.dims] + tuple(lengths), fill, dtype=data.dtype)
        out[self._inside()] = data
        return out

    def _inside(self) -> tuple:
        return (Ellipsis, *(slice(p, p + n) for n, p in zip(self.in_sizes, self.padding)))

    def crop(self, padded: np.ndarray) -> np.ndarray:
        return padded[self._inside()]

    def at(self, offset: Sequence[int]) -> tuple:
        """The index (into the padded input) of kernel offset ``offset`` in every window."""
        return (Ellipsis, *(slice(j * d, j * d + (o - 1) * s + 1, s)
                            for j, (n, k, s, p, d, o) in zip(offset, self._per_dim())))

    def offsets(self) -> list:
        """The kernel offsets in the order PyTorch's kernels visit them (row-major)."""
        return list(itertools.product(*(range(k) for k in self.kernel)))

    def starts(self, dim: int) -> np.ndarray:
        return np.arange(self.out_sizes[dim]) * self.stride[dim] - self.padding[dim]

    def _per_dim(self) -> zip:
        return zip(self.in_sizes, self.kernel, self.stride, self.padding, self.dilation, self.out_sizes)

    def plane_strides(self) -> list:
        """How far apart neighbours along each spatial dim are in a flattened plane."""
        return [math.prod(self.in_sizes[d + 1:]) for d in range(self.dims)]

    def outer_sum(self, per_dim: list) -> np.ndarray:
        """``sum_d per_dim[d][o_d]`` over the output grid, by broadcasting."""
        total = np.zeros((1,) * self.dims, dtype=np.int64)
        for d, values in enumerate(per_dim):
            total = total + values.reshape((-1,) + (1,) * (self.dims - d - 1))
        return total

    def first_inside(self, dim: int) -> np.ndarray:
        """The first position of each window that is not padding (PyTorch steps a window's start
        forward by ``dilation`` until it is >= 0; it may then lie past the end of the input)."""
        start, d = self.starts(dim), self.dilation[dim]
        return np.where(start < 0, start + (-start + d - 1) // d * d, start)

    def has_empty_windows(self) -> bool:
        return any((self.first_inside(d) >= self.in_sizes[d]).any() for d in range(self.dims))


# --- max pooling: shape checks ------------------------------------------------------------------
_WORDS = {2: "two", 3: "three"}


def _max_pool_args(dims: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: Any,
                   function: str) -> tuple:
    """The arguments as tuples of ``dims`` ints, with PyTorch's messages for wrong lengths."""
    name, words = f"max_pool{dims}d", _WORDS[dims]
    kernel = _int_tuple(kernel_size, "kernel_size", function, dims, 2)
    stride = _int_tuple(() if stride is None else stride, "stride", function, dims, 3)
    padding = _int_tuple(padding, "padding", function, dims, 4)
    dilation = _int_tuple(dilation, "dilation", function, dims, 5)
    _check_bool(ceil_mode, "ceil_mode", function, 6)
    kernel = _expand(kernel, dims, f"{name}: kernel_size must either be a single int, or a tuple of {words} ints")
    stride = _expand(stride, dims, f"{name}: stride must either be omitted, a single int, or a tuple of {words} ints",
                     default=kernel)
    padding = _expand(padding, dims, f"{name}: padding must either be a single int, or a tuple of {words} ints")
    dilation = _expand(dilation, dims, f"{name}: dilation must be either a single int, or a tuple of {words} ints")
    return kernel, stride, padding, dilation


def _pool2d_shape_check(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                        out_sizes: tuple) -> None:
    """PyTorch's ``pool2d_shape_check``, in its order."""
    (kH, kW), (dH, dW), (padH, padW), (dilH, dilW) = kernel, stride, padding, dilation
    if kW <= 0 or kH <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kH} kW: {kW}")
    if dW <= 0 or dH <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {dH} dW: {dW}")
    if dilH <= 0 or dilW <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilH} dilationW: {dilW}")
    shape = tuple(input.shape)
    if not ((len(shape) == 3 and shape[0] != 0 and shape[1] != 0 and shape[2] != 0)
            or (len(shape) == 4 and shape[1] != 0 and shape[2] != 0 and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{_shape_list(shape)}")
    if _c_div(kW, 2) < padW or _c_div(kH, 2) < padH:
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {padW}, padH = {padH}, kW = {kW}, kH = {kH}")
    (oH, oW), (iH, iW), planes = out_sizes, shape[-2:], shape[-3]
    if oW < 1 or oH < 1:
        raise RuntimeError(f"Given input size: ({planes}x{iH}x{iW}). Calculated output size: ({planes}x{oH}x{oW}). "
                           "Output size is too small")


def _pool3d_shape_check(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                        out_sizes: tuple, function: str, check_input_size: bool = False) -> None:
    """PyTorch's ``pool3d_shape_check``, in its order."""
    (kT, kH, kW), (dT, dH, dW), (pT, pH, pW), (dilT, dilH, dilW) = kernel, stride, padding, dilation
    if kT <= 0 or kW <= 0 or kH <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kT} kH: {kH} kW: {kW}")
    if dT <= 0 or dW <= 0 or dH <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {dT} dH: {dH} dW: {dW}")
    if dilT <= 0 or dilW <= 0 or dilH <= 0:
        raise RuntimeError("dilation should be greater than zero, but got "
                           f"dilationT: {dilT} dilationH: {dilH} dilationW: {dilW}")
    shape = tuple(input.shape)
    for i, n in enumerate(shape):
        if n <= 0 and not (len(shape) == 5 and i == 0):  # only the batch may be empty
            # (PyTorch's message prints the dimension's length where it means its index)
            raise RuntimeError(f"{function}: Expected input's non-batch dimensions to have positive length, but "
                               f"input has a shape of {_shape_list(shape)} and non-batch dimension {n} has length zero!")
    if _c_div(kT, 2) < pT or _c_div(kW, 2) < pW or _c_div(kH, 2) < pH:
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kT} kW: {kW} kH: {kH} padT: {pT} padW: {pW} padH: {pH}")
    (oT, oH, oW), (iT, iH, iW), planes = out_sizes, shape[-3:], shape[-4]
    if check_input_size and (iT < kT or iH < kH or iW < kW):  # average pooling: the kernel must fit unpadded
        raise RuntimeError(f"input image (T: {iT} H: {iH} W: {iW}) smaller than kernel size (kT: {kT} kH: {kH} "
                           f"kW: {kW})")
    if oT < 1 or oW < 1 or oH < 1:
        raise RuntimeError(f"Given input size: ({planes}x{iT}x{iH}x{iW}). Calculated output size: "
                           f"({planes}x{oT}x{oH}x{oW}). Output size is too small")


def _max_pool_windows(input: Tensor, dims: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                      ceil_mode: Any) -> _Windows:
    """Every check ``max_pool{2,3}d_with_indices`` makes, in PyTorch's order; then the windows."""
    function = f"max_pool{dims}d_with_indices"
    _check_tensor(input, function)
    kernel, stride, padding, dilation = _max_pool_args(dims, kernel_size, stride, padding, dilation, ceil_mode,
                                                       function)
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input")
    in_sizes = tuple(input.shape[-dims:])
    out_sizes = tuple(pooling_output_shape(n, k, p, s, d, ceil_mode)
                      for n, k, p, s, d in zip(in_sizes, kernel, padding, stride, dilation))
    if dims == 2:
        _pool2d_shape_check(input, kernel, stride, padding, dilation, out_sizes)
    else:
        _pool3d_shape_check(input, kernel, stride, padding, dilation, out_sizes,
                            "max_pool3d_with_indices_out_cpu_template()")
    if input.dtype.name == "bool":
        raise NotImplementedError(f"\"max_pool{dims}d\" not implemented for 'Bool'")
    return _Windows(in_sizes, kernel, stride, padding, dilation, out_sizes)


# --- max pooling: forward -----------------------------------------------------------------------
def _lowest(data: np.ndarray, floating: bool) -> Any:
    return -np.inf if floating else np.iinfo(data.dtype).min


def _max_over_windows(data: np.ndarray, windows: _Windows, floating: bool) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of every window and its flat position in the (H, W) or (T, H, W) plane.

    One pass per kernel offset, each over all windows at once. ``better`` marks the windows where
    this offset beats the best so far: strictly greater (the first maximum wins) or NaN (a NaN
    always wins, the last one in the window)."""
    fill = _lowest(data, floating)
    padded = windows.padded(data, fill)
    strides = windows.plane_strides()
    check_nan = floating and bool(np.isnan(data).any())
    plane = math.prod(windows.in_sizes)
    place_dtype = np.int32 if plane < 2**31 else np.int64
    offsets = windows.offsets()
    best = padded[windows.at(offsets[0])].copy()
    place = np.zeros(best.shape, dtype=place_dtype)  # the winner's flat offset within its window
    with np.errstate(invalid="ignore"):  # comparing with NaN is what we mean to do
        for offset in offsets[1:]:
            values = padded[windows.at(offset)]
            better = values > best
            if check_nan:
                better |= np.isnan(values)
            np.maximum(best, values, out=best)
            shift = sum(j * d * step for j, d, step in zip(offset, windows.dilation, strides))
            # place = where(better, shift, place), without branches (np.where is slow on a random mask)
            place *= ~better
            place += better * place_dtype(shift)
    origin = windows.outer_sum([windows.starts(d) * strides[d] for d in range(windows.dims)])
    indices = origin + place
    if any(windows.padding):
        indices = _first_inside_if_stuck(indices, place, best, fill, windows, strides)
    return best, indices


def _first_inside_if_stuck(indices: np.ndarray, place: np.ndarray, best: np.ndarray, fill: Any,
                           windows: _Windows, strides: list) -> np.ndarray:
    """A window whose values are all -inf keeps PyTorch's starting index: its first position
    inside the input (our running maximum started at offset 0, which may be padding)."""
    stuck = (place == 0) & (best == fill)
    if not stuck.any():
        return indices
    first = windows.outer_sum([windows.first_inside(d) * strides[d] for d in range(windows.dims)])
    return np.where(stuck, first, indices)


class _MaxPoolBackward(Node):
    """out, indices = max_pool(self): each output gradient goes to its argmax position
    (``result1`` is PyTorch's name for the indices, the op's second output)."""

    self_: SavedTensor
    result1_: SavedTensor
    kernel_size: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    ceil_mode: bool
    dims = 2

    def backward(self, grad: Tensor) -> tuple:
        return (_max_pool_backward(self.dims, grad, self._saved_self, self._saved_result1),)


class MaxPool2DWithIndicesBackward0(_MaxPoolBackward):
    dims = 2


class MaxPool3DWithIndicesBackward0(_MaxPoolBackward):
    dims = 3


def _max_pool_with_indices(dims: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                           ceil_mode: Any) -> tuple[Tensor, Tensor]:
    windows = _max_pool_windows(input, dims, kernel_size, stride, padding, dilation, ceil_mode)
    values, positions = _max_over_windows(input._data, windows, input.dtype.is_floating_point)
    out, indices = _wrap(values), _wrap(positions.astype(np.int64, copy=False))
    if compute_requires_grad(input):
        node = (MaxPool2DWithIndicesBackward0 if dims == 2 else MaxPool3DWithIndicesBackward0)(input)
        node.self_, node.result1_ = SavedTensor(input), SavedTensor(indices)
        # the arguments as parsed, as PyTorch saves them
        node.kernel_size = _int_tuple(kernel_size, "kernel_size", "", dims)
        node.stride = _int_tuple(() if stride is None else stride, "stride", "", dims)
        node.padding = _int_tuple(padding, "padding", "", dims)
        node.dilation = _int_tuple(dilation, "dilation", "", dims)
        node.ceil_mode = ceil_mode
        set_history(out, node)
    return out, indices


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """The maximum of each window of a (C, H, W) or (N, C, H, W) input, and where it was (a flat
    index into its H x W plane)."""
    return _max_pool_with_indices(2, input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """The 3-D twin of ``max_pool2d_with_indices``, for (C, T, H, W) or (N, C, T, H, W) inputs."""
    return _max_pool_with_indices(3, input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """1-D max pooling as PyTorch runs it: a 2-D pooling of height 1 (so the graph shows
    ``UnsqueezeBackward0``, ``MaxPool2DWithIndicesBackward0``, ``SqueezeBackward1``)."""
    function = "max_pool1d_with_indices"
    _check_tensor(input, function)
    kernel = _int_tuple(kernel_size, "kernel_size", function, 1, 2)
    stride = _int_tuple(() if stride is None else stride, "stride", function, 1, 3) or kernel
    padding = _int_tuple(padding, "padding", function, 1, 4)
    dilation = _int_tuple(dilation, "dilation", function, 1, 5)
    _check_bool(ceil_mode, "ceil_mode", function, 6)
    if not 2 <= input.dim() <= 3:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for max_pool1d)")
    for name, value in (("kernel_size", kernel), ("stride", stride), ("padding", padding), ("dilation", dilation)):
        if len(value) != 1:
            raise RuntimeError(f"max_pool1d() argument '{name}' should contain one int (got {len(value)})")
    out, indices = max_pool2d_with_indices(input.unsqueeze(-2), (1, kernel[0]), (1, stride[0]), (0, padding[0]),
                                           (1, dilation[0]), ceil_mode)
    return out.squeeze(-2), _wrap(indices._data.squeeze(-2))


# --- max pooling: backward, and its backward ----------------------------------------------------
def _global_positions(indices: np.ndarray, input_shape: tuple, dims: int) -> np.ndarray:
    """Plane-local indices as positions in the whole flattened input."""
    plane = math.prod(input_shape[-dims:])
    planes = math.prod(input_shape[:-dims])
    per_plane = indices.size // planes if planes else 0
    return indices.reshape(planes, per_plane) + (np.arange(planes, dtype=np.int64) * plane)[:, None]


class _MaxPoolBackwardBackward(Node):
    """grad_input = scatter(grad_output at indices): linear in grad_output, so its backward reads
    the incoming gradient back at the same positions (a gather). Its gradient for ``self`` is 0."""

    indices_: SavedTensor
    dims = 2

    def backward(self, grad: Tensor) -> tuple:
        from .._creation import zeros_like

        gathered = None
        if self.needs_input_grad(0):
            indices, input_shape = self._saved_indices._data, self._self.shape
            inside = indices < math.prod(input_shape[-self.dims:])
            positions = _global_positions(np.where(inside, indices, 0), input_shape, self.dims)
            gathered = grad.reshape(-1)[_wrap(positions.reshape(-1))].view(indices.shape)
            if not inside.all():  # a window wholly in the padding got no gradient, so gives none back
                gathered = gathered * _wrap(inside.astype(grad._data.dtype))
        return gathered, (zeros_like(self._self) if self.needs_input_grad(1) else None)


class MaxPool2DWithIndicesBackwardBackward0(_MaxPoolBackwardBackward):
    dims = 2


class MaxPool3DWithIndicesBackwardBackward0(_MaxPoolBackwardBackward):
    dims = 3


def _max_pool_backward(dims: int, grad_output: Tensor, input: Tensor, indices: Tensor) -> Tensor:
    """Zeros of the input's shape, with each output gradient added at its argmax position."""
    shape, positions, grad = input._data.shape, indices._data, grad_output._data
    if dims == 2:
        _check_grad_shape(grad, positions.shape, dims)
    else:  # PyTorch's 3-D backward reads the output's sizes from grad_output, then checks the indices
        ndim = len(shape)
        _check_dim_size(grad, ndim, ndim - 4, shape[-4])
        for dim in range(ndim - 4, ndim):
            _check_dim_size(positions, ndim, dim, shape[-4] if dim == ndim - 4 else grad.shape[dim])
        _check_dim_size(grad, ndim, 0, shape[0])  # (PyTorch does not check the batch)
    flat = _global_positions(positions, shape, dims).reshape(-1)
    values = grad.reshape(-1)
    if flat.size and positions.max() >= math.prod(shape[-dims:]):
        keep = positions.reshape(-1) < math.prod(shape[-dims:])  # a window wholly in the padding
        flat, values = flat[keep], values[keep]
    grad_input = np.zeros(math.prod(shape), dtype=grad.dtype)
    np.add.at(grad_input, flat, values)  # windows may overlap: add, never overwrite
    out = _wrap(grad_input.reshape(shape))
    if compute_requires_grad(grad_output, input):
        node = (MaxPool2DWithIndicesBackwardBackward0 if dims == 2 else MaxPool3DWithIndicesBackwardBackward0)(
            grad_output, input)
        node.indices_, node._self = SavedTensor(indices), input
        set_history(out, node)
    return out


def max_pool2d_with_indices_backward(grad_output: Tensor, input: Tensor, kernel_size: Any, stride: Any,
                                     padding: Any, dilation: Any, ceil_mode: bool, indices: Tensor) -> Tensor:
    """The gradient of ``max_pool2d_with_indices`` (the window arguments are PyTorch's, unused:
    ``indices`` already says where every gradient goes)."""
    return _max_pool_backward(2, grad_output, input, indices)


def max_pool3d_with_indices_backward(grad_output: Tensor, input: Tensor, kernel_size: Any, stride: Any,
                                     padding: Any, dilation: Any, ceil_mode: bool, indices: Tensor) -> Tensor:
    return _max_pool_backward(3, grad_output, input, indices)


# --- average pooling --------------------------------------------------------------------------
def _check_int_or_none(value: Any, name: str, function: str) -> None:
    if value is not None and (isinstance(value, bool) or not hasattr(value, "__index__")):
        raise TypeError(f"{function}(): argument '{name}' must be int, not {type(value).__name__}")


def _avg_pool_windows(dims: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: Any,
                      count_include_pad: Any, divisor_override: Any) -> _Windows:
    """Every check ``avg_pool2d`` / ``avg_pool3d`` makes, in PyTorch's order; then the windows."""
    function, words = f"avg_pool{dims}d", _WORDS[dims]
    _check_tensor(input, function)
    kernel = _int_tuple(kernel_size, "kernel_size", function, dims, 2)
    stride = _int_tuple(() if stride is None else stride, "stride", function, dims)
    padding = _int_tuple(padding, "padding", function, dims)
    _check_bool(ceil_mode, "ceil_mode", function)
    _check_bool(count_include_pad, "count_include_pad", function)
    _check_int_or_none(divisor_override, "divisor_override", function)
    # (the 2-D messages say "either", the 3-D ones do not)
    either = "either " if dims == 2 else ""
    kernel = _expand(kernel, dims, f"{function}: kernel_size must {either}be a single int, or a tuple of {words} ints")
    stride = _expand(stride, dims, f"{function}: stride must {either}be omitted, a single int, or a tuple of {words} "
                                   "ints", default=kernel)
    padding = _expand(padding, dims, f"{function}: padding must {either}be a single int, or a tuple of {words} ints")
    if dims == 2 and divisor_override is not None and operator.index(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    if dims == 2 and input.dim() < 3:  # PyTorch reads input.size(-3)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.dim(), 1)}, "
                         f"{max(input.dim(), 1) - 1}], but got -3)")
    if dims == 3 and input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    in_sizes = tuple(input.shape[-dims:])
    out_sizes = tuple(pooling_output_shape(n, k, p, s, 1, ceil_mode)
                      for n, k, p, s in zip(in_sizes, kernel, padding, stride))
    if dims == 2:
        _pool2d_shape_check(input, kernel, stride, padding, (1, 1), out_sizes)
    else:
        _pool3d_shape_check(input, kernel, stride, padding, (1, 1, 1), out_sizes, "avg_pool3d()",
                            check_input_size=True)
        if divisor_override is not None and operator.index(divisor_override) == 0:
            raise RuntimeError("divisor must be not zero")
    if not input.dtype.is_floating_point and input.dtype.name != "int64":
        raise NotImplementedError(f"\"{function}\" not implemented for '{scalar_type_name(input.dtype)}'")
    return _Windows(in_sizes, kernel, stride, padding, (1,) * dims, out_sizes)


def _divisors(windows: _Windows, count_include_pad: bool, divisor_override: int | None) -> Any:
    """What each window's sum is divided by: its size counting the padding (but not what
    ``ceil_mode`` adds past it), its size inside the input, or ``divisor_override``. A window is
    a box, so its size is the product of its lengths along each dim (an outer product)."""
    if divisor_override is not None:
        return int(divisor_override)
    lengths = []
    for d in range(windows.dims):
        start, n, p = windows.starts(d), windows.in_sizes[d], windows.padding[d]
        end = np.minimum(start + windows.kernel[d], n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        lengths.append(end - start)
    return functools.reduce(np.multiply.outer, lengths)


def _sum_dim(data: np.ndarray, windows: _Windows, dim: int) -> np.ndarray:
    """Sum the windows along one spatial dim: one strided slice per kernel offset."""
    axis = data.ndim - windows.dims + dim
    k, s, o = windows.kernel[dim], windows.stride[dim], windows.out_sizes[dim]
    total = None
    for j in range(k):
        key = (slice(None),) * axis + (slice(j, j + (o - 1) * s + 1, s),)
        total = data[key].copy() if total is None else total.__iadd__(data[key])
    return total


def _spread_dim(grad: np.ndarray, windows: _Windows, dim: int, length: int) -> np.ndarray:
    """The transpose of ``_sum_dim``: add each window's gradient to every position it summed."""
    axis = grad.ndim - windows.dims + dim
    k, s, o = windows.kernel[dim], windows.stride[dim], windows.out_sizes[dim]
    out = np.zeros(grad.shape[:axis] + (length,) + grad.shape[axis + 1:], dtype=grad.dtype)
    for j in range(k):
        out[(slice(None),) * axis + (slice(j, j + (o - 1) * s + 1, s),)] += grad
    return out


def _compute_dtype(data: np.ndarray) -> Any:
    # half precision is summed in float32 and rounded once, as PyTorch's kernels do
    return np.float32 if data.dtype.itemsize == 2 else data.dtype


def _divide(sums: np.ndarray, divisor: Any) -> np.ndarray:
    if sums.dtype.kind in "iu":  # an integer average truncates toward zero (C++ division)
        quotient = np.abs(sums) // np.abs(divisor)
        return np.where((sums < 0) != (np.asarray(divisor) < 0), -quotient, quotient)
    return sums / np.asarray(divisor, dtype=sums.dtype)


class _AvgPoolBackward(Node):
    """out = avg_pool(self): each window's gradient, divided by its divisor, spread evenly."""

    self_: SavedTensor
    kernel_size: tuple
    stride: tuple
    padding: tuple
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: int | None
    dims = 2

    def backward(self, grad: Tensor) -> tuple:
        return (_avg_pool_backward(self.dims, grad, self._saved_self, self.kernel_size, self.stride, self.padding,
                                   self.ceil_mode, self.count_include_pad, self.divisor_override),)


class AvgPool2DBackward0(_AvgPoolBackward):
    dims = 2


class AvgPool3DBackward0(_AvgPoolBackward):
    dims = 3


def _avg_pool(dims: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: int | None) -> Tensor:
    windows = _avg_pool_windows(dims, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                divisor_override)
    data = input._data
    sums = windows.padded(data.astype(_compute_dtype(data), copy=False), 0)
    for d in range(dims):
        sums = _sum_dim(sums, windows, d)
    values = _divide(sums, _divisors(windows, count_include_pad, divisor_override))
    out = _wrap(values.astype(data.dtype, copy=False))
    if compute_requires_grad(input):
        node = (AvgPool2DBackward0 if dims == 2 else AvgPool3DBackward0)(input)
        node.self_ = SavedTensor(input)
        node.kernel_size = _int_tuple(kernel_size, "kernel_size", "", dims)
        node.stride = _int_tuple(() if stride is None else stride, "stride", "", dims)
        node.padding = _int_tuple(padding, "padding", "", dims)
        node.ceil_mode, node.count_include_pad = ceil_mode, count_include_pad
        node.divisor_override = divisor_override
        set_history(out, node)
    return out


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The average of each window of a (C, H, W) or (N, C, H, W) input."""
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The average of each window of a (C, T, H, W) or (N, C, T, H, W) input."""
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


class _AvgPoolBackwardBackward(Node):
    """grad_input = avg_pool_backward(grad_output): linear in grad_output, and its transpose is
    average pooling again. Its gradient for ``self`` is 0."""

    kernel_size: tuple
    stride: tuple
    padding: tuple
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: int | None
    dims = 2

    def backward(self, grad: Tensor) -> tuple:
        from .._creation import zeros_like

        pooled = None
        if self.needs_input_grad(0):
            pooled = _avg_pool(self.dims, grad, self.kernel_size, self.stride or None, self.padding, self.ceil_mode,
                               self.count_include_pad, self.divisor_override)
        return pooled, (zeros_like(self._self) if self.needs_input_grad(1) else None)


class AvgPool2DBackwardBackward0(_AvgPoolBackwardBackward):
    dims = 2


class AvgPool3DBackwardBackward0(_AvgPoolBackwardBackward):
    dims = 3


def _avg_pool_backward(dims: int, grad_output: Tensor, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                       ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:
    """The gradient of average pooling: every window's gradient / divisor, added over the window."""
    arguments = (kernel_size, stride if stride else None, padding, ceil_mode, count_include_pad, divisor_override)
    windows = _avg_pool_windows(dims, input, *arguments)
    grad = grad_output._data
    _check_grad_shape(grad, input._data.shape[:-dims] + windows.out_sizes, dims)
    grad = grad.astype(_compute_dtype(grad), copy=False) / np.asarray(
        _divisors(windows, count_include_pad, divisor_override), dtype=_compute_dtype(grad))
    lengths = [max(p + n, (o - 1) * s + k) for n, k, s, p, o in
               zip(windows.in_sizes, windows.kernel, windows.stride, windows.padding, windows.out_sizes)]
    for d in reversed(range(dims)):
        grad = _spread_dim(grad, windows, d, lengths[d])
    out = _wrap(np.ascontiguousarray(windows.crop(grad)).astype(grad_output._data.dtype, copy=False))
    if compute_requires_grad(grad_output, input):
        node = (AvgPool2DBackwardBackward0 if dims == 2 else AvgPool3DBackwardBackward0)(grad_output, input)
        node.kernel_size, node.stride, node.padding = kernel_size, stride, padding
        node.ceil_mode, node.count_include_pad, node.divisor_override = ceil_mode, count_include_pad, divisor_override
        node._self = input
        set_history(out, node)
    return out


def avg_pool2d_backward(grad_output: Tensor, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                        ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:
    """The gradient of ``avg_pool2d``."""
    return _avg_pool_backward(2, grad_output, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override)


def avg_pool3d_backward(grad_output: Tensor, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                        ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:
    """The gradient of ``avg_pool3d``."""
    return _avg_pool_backward(3, grad_output, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override)


# --- adaptive average pooling ---------------------------------------------------------------------
def _adaptive_windows(in_size: int, out_size: int, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """A 0/1 matrix (out_size x in_size) whose row i marks the inputs window i averages, and the
    windows' sizes. Windows run from floor(i * in / out) to ceil((i + 1) * in / out)."""
    i = np.arange(out_size)
    start = i * in_size // out_size
    end = -(-(i + 1) * in_size // out_size)
    j = np.arange(in_size)
    matrix = ((j >= start[:, None]) & (j < end[:, None])).astype(dtype)
    return matrix, end - start


class AdaptiveAvgPool2DBackward0(Node):
    """out = A_h @ self @ A_w.T / counts: grad_self = A_h.T @ (grad / counts) @ A_w."""

    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (_adaptive_avg_pool2d_backward(grad, self._saved_self),)


def _adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive average pooling proper (``adaptive_avg_pool2d`` sends (1, 1) to ``mean``)."""
    size = _int_tuple(output_size, "output_size", "_adaptive_avg_pool2d", 2)
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_shape_list(shape)}")
    for i in (-2, -1):
        if shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {_shape_list(shape)} with dimension {i + len(shape)} being empty")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for '{scalar_type_name(input.dtype)}'")
    data = input._data
    compute = _compute_dtype(data)
    rows, row_counts = _adaptive_windows(shape[-2], size[0], compute)
    cols, col_counts = _adaptive_windows(shape[-1], size[1], compute)
    sums = rows @ data.astype(compute, copy=False) @ cols.T
    values = sums / (row_counts[:, None] * col_counts[None, :]).astype(compute)
    out = _wrap(values.astype(data.dtype, copy=False))
    if compute_requires_grad(input):
        node = AdaptiveAvgPool2DBackward0(input)
        node.self_ = SavedTensor(input)
        set_history(out, node)
    return out


class AdaptiveAvgPool2DBackwardBackward0(Node):
    """grad_input is linear in grad_output; its transpose is adaptive pooling to grad_output's
    size. Its gradient for ``self`` is 0."""

    grad_output_sym_argsize_minus_2: int  # the pooled height
    grad_output_sym_argsize_minus_1: int  # the pooled width

    def backward(self, grad: Tensor) -> tuple:
        from .._creation import zeros_like

        pooled = None
        if self.needs_input_grad(0):
            pooled = _adaptive_avg_pool2d(grad, (self.grad_output_sym_argsize_minus_2,
                                                 self.grad_output_sym_argsize_minus_1))
        return pooled, (zeros_like(self._self) if self.needs_input_grad(1) else None)


def _adaptive_avg_pool2d_backward(grad_output: Tensor, input: Tensor) -> Tensor:
    grad, shape = grad_output._data, input._data.shape
    if grad.ndim != len(shape):
        raise RuntimeError(f"adaptive_avg_pool2d_backward_out_cpu_template: Expected dimensions {len(shape)} for "
                           f"`grad_output` but got dimensions {grad.ndim}")
    if grad.shape[:-2] != shape[:-2]:  # (PyTorch does not check, and may crash)
        raise RuntimeError(f"adaptive_avg_pool2d_backward(): Expected grad_output of sizes "
                           f"{_shape_list(shape[:-2] + grad.shape[-2:])}, but got {_shape_list(grad.shape)}")
    for i in range(1, grad.ndim):
        if grad.shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for "
                               f"non-batch dimensions, but grad_output has sizes {_shape_list(grad.shape)} with "
                               f"dimension {i} being empty")
    compute = _compute_dtype(grad)
    rows, row_counts = _adaptive_windows(shape[-2], grad.shape[-2], compute)
    cols, col_counts = _adaptive_windows(shape[-1], grad.shape[-1], compute)
    scaled = grad.astype(compute, copy=False) / (row_counts[:, None] * col_counts[None, :]).astype(compute)
    out = _wrap((rows.T @ scaled @ cols).astype(grad.dtype, copy=False))
    if compute_requires_grad(grad_output, input):
        node = AdaptiveAvgPool2DBackwardBackward0(grad_output, input)
        node.grad_output_sym_argsize_minus_2, node.grad_output_sym_argsize_minus_1 = grad.shape[-2:]
        node._self = input
        set_history(out, node)
    return out


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a given output size: the windows are chosen to fit. An output of
    (1, 1) is just the mean over (H, W), and PyTorch computes it so (``MeanBackward1``)."""
    _check_tensor(input, "adaptive_avg_pool2d")
    size = _int_tuple(output_size, "output_size", "adaptive_avg_pool2d", 2)
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{size[0]}, {size[1]}}}")
    if size == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    return _adaptive_avg_pool2d(input, size)
