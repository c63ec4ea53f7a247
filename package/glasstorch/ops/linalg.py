"""Matrix products: ``matmul`` (the ``@`` operator), ``mm``, ``mv``, ``dot``, ``addmm``.

For out = a @ b the gradients are  grad_a = grad @ b.T  and  grad_b = a.T @ grad : the chain rule
for a product of matrices. ``matmul`` dispatches on the inputs' dimensions as PyTorch does:
1-D @ 1-D is ``dot``, 2-D @ 2-D is ``mm``, 2-D @ 1-D is ``mv``, 1-D @ 2-D is a row vector times a
matrix, and anything with more dimensions is a batched product that broadcasts the batch dims.

Simplified: PyTorch computes a batched product by reshaping it into ``bmm`` or ``mm`` calls, so its
graph shows ``UnsafeViewBackward0``/``BmmBackward0`` (``CloneBackward0`` on top for 2-D @ 3-D);
glasstorch records one ``MatmulBackward0``. For 1-D @ 2-D both unsqueeze, ``mm`` and squeeze.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node
from ._util import set_history, compute_requires_grad, reduce_grad_to
from .shape import SqueezeBackward4, squeeze


def _check_dtypes(a: Tensor, b: Tensor) -> None:
    # PyTorch's matrix products do not promote: both operands must have the same dtype
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_c_name(a)} != {_c_name(b)}"
        )


def _c_name(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int"}.get(t.dtype.name, t.dtype.name)


def _shape_text(shape: tuple) -> str:
    return "x".join(str(n) for n in shape)


class MmBackward0(Node):
    """out = self @ mat2 (both 2-D)."""

    def backward(self, grad: Tensor) -> tuple:
        self_, mat2 = self.saved_tensors
        return (
            _mat1_grad(grad, mat2, self.column_major[0]) if self.needs_input_grad(0) else None,
            _mat2_grad(grad, self_, self.column_major[1]) if self.needs_input_grad(1) else None,
        )


def _column_major(matrix: Tensor) -> bool:
    """Is this matrix stored column by column, as ``weight.t()`` is? (PyTorch's test in
    ``mm_mat1_backward``: strides (1, rows).)"""
    data = matrix._data
    return data.strides == (data.itemsize, data.shape[0] * data.itemsize)


# The gradients of a product, each computed so that it comes out laid out as its input was
# (PyTorch's mm_mat1_backward / mm_mat2_backward). For a Linear layer, whose weight enters as
# weight.t(), the weight's gradient is then born contiguous, with no transposing copy.
def _mat1_grad(grad: Tensor, mat2: Tensor, column_major: bool) -> Tensor:
    """grad @ mat2.T, as a transposed (column-major) result when mat1 was column-major."""
    return mat2.mm(grad.t()).t() if column_major else grad.mm(mat2.t())


def _mat2_grad(grad: Tensor, mat1: Tensor, column_major: bool) -> Tensor:
    """mat1.T @ grad, as a transposed (column-major) result when mat2 was column-major."""
    return grad.t().mm(mat1).t() if column_major else mat1.t().mm(grad)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        bad = input if input._data.ndim != 2 else mat2
        raise RuntimeError(f"{'self' if bad is input else 'mat2'} must be a matrix")
    _check_dtypes(input, mat2)
    if input._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(input._data.shape)} and {_shape_text(mat2._data.shape)})"
        )
    out = _wrap(input._data @ mat2._data)
    if compute_requires_grad(input, mat2):
        node = MmBackward0(input, mat2)
        # grad_input needs mat2 and grad_mat2 needs input: keep only what will be used
        node.save_for_backward(input if node.needs_input_grad(1) else None,
                               mat2 if node.needs_input_grad(0) else None)
        node.column_major = (_column_major(input), _column_major(mat2))
        set_history(out, node)
    return out


class AddmmBackward0(Node):
    """out = beta * self + alpha * (mat1 @ mat2), ``self`` broadcast: what ``nn.Linear`` records."""

    def backward(self, grad: Tensor) -> tuple:
        mat1, mat2 = self.saved_tensors
        alpha, beta = self.alpha, self.beta
        grad_self = grad_mat1 = grad_mat2 = None
        if self.needs_input_grad(0):
            grad_self = reduce_grad_to(grad if beta == 1 else grad * beta, self.self_shape)
        if self.needs_input_grad(1):
            grad_mat1 = _mat1_grad(grad, mat2, self.column_major[0])
            grad_mat1 = grad_mat1 if alpha == 1 else grad_mat1 * alpha
        if self.needs_input_grad(2):
            grad_mat2 = _mat2_grad(grad, mat1, self.column_major[1])
            grad_mat2 = grad_mat2 if alpha == 1 else grad_mat2 * alpha
        return grad_self, grad_mat1, grad_mat2


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` in one op; ``input`` broadcasts to the product."""
    product = mm(mat1.detach(), mat2.detach())  # the checks and the product, without recording
    _check_dtypes(input, product)
    try:
        shape = np.broadcast_shapes(input._data.shape, product._data.shape)
    except ValueError:
        shape = None
    if shape != product._data.shape:
        raise RuntimeError(f"The expanded size of the tensor ({product._data.shape[-1]}) must match the existing "
                           f"size ({input._data.shape[-1]}) at non-singleton dimension 1.  Target sizes: "
                           f"{list(product._data.shape)}.  Tensor sizes: {list(input._data.shape)}")
    values = product._data
    values = values * alpha if alpha != 1 else values
    values += input._data if beta == 1 else beta * input._data
    out = _wrap(values)
    if compute_requires_grad(input, mat1, mat2):
        node = AddmmBackward0(input, mat1, mat2)
        node.save_for_backward(mat1 if node.needs_input_grad(2) else None,
                               mat2 if node.needs_input_grad(1) else None)
        node.self_shape, node.alpha, node.beta = input._data.shape, alpha, beta
        node.column_major = (_column_major(mat1), _column_major(mat2))
        set_history(out, node)
    return out


class MvBackward0(Node):
    """out = self @ vec (matrix times vector)."""

    def backward(self, grad: Tensor) -> tuple:
        self_, vec = self.saved_tensors
        return (
            grad.unsqueeze(1) * vec if self.needs_input_grad(0) else None,
            self_.t().mv(grad) if self.needs_input_grad(1) else None,
        )


def mv(input: Tensor, vec: Tensor) -> Tensor:
    _check_dtypes(input, vec)
    if input._data.ndim != 2 or vec._data.ndim != 1 or input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({input._data.shape[0]}), mat ({_shape_text(input._data.shape)}), vec ({vec._data.shape[0]})"
        )
    out = _wrap(input._data @ vec._data)
    if compute_requires_grad(input, vec):
        node = MvBackward0(input, vec)
        node.save_for_backward(input, vec)
        set_history(out, node)
    return out


class DotBackward0(Node):
    """out = self . other (two vectors):  grad_self = grad * other,  grad_other = grad * self."""

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self.saved_tensors
        return (
            grad * other if self.needs_input_grad(0) else None,
            grad * self_ if self.needs_input_grad(1) else None,
        )


def dot(input: Tensor, other: Tensor) -> Tensor:
    _check_dtypes(input, other)
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.shape != other._data.shape:
        n, m = input._data.shape[0], other._data.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of "
            f"elements, but got {n} and {m} elements respectively"
        )
    out = _wrap(np.asarray(input._data @ other._data))
    if compute_requires_grad(input, other):
        node = DotBackward0(input, other)
        node.save_for_backward(input, other)
        set_history(out, node)
    return out


class MatmulBackward0(Node):
    """Batched out = self @ other, the batch dims broadcast:
    grad_self = grad @ other^T,  grad_other = self^T @ grad, each summed over broadcast batch dims."""

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self.saved_tensors
        a = self_.unsqueeze(0) if self_.ndim == 1 else self_
        b = other.unsqueeze(-1) if other.ndim == 1 else other
        g = grad
        if self_.ndim == 1:
            g = g.unsqueeze(-2)
        if other.ndim == 1:
            g = g.unsqueeze(-1)
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = reduce_grad_to(g.matmul(b.transpose(-1, -2)), a.shape).reshape(self_.shape)
        if self.needs_input_grad(1):
            grad_b = reduce_grad_to(a.transpose(-1, -2).matmul(g), b.shape).reshape(other.shape)
        return grad_a, grad_b


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """The ``@`` operator: a product whose kind depends on the inputs' dimensions."""
    n, m = input._data.ndim, other._data.ndim
    if n == 0 or m == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {n}D and {m}D")
    if n == 1 and m == 1:
        return dot(input, other)
    if n == 2 and m == 2:
        return mm(input, other)
    if n == 2 and m == 1:
        return mv(input, other)
    if n == 1 and m == 2:
        if input._data.shape[0] != other._data.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{input._data.shape[0]} and {_shape_text(other._data.shape)})"
            )
        # PyTorch squeezes the added dim away in place (squeeze_), hence SqueezeBackward4
        return squeeze(mm(input.unsqueeze(0), other), 0, _node_class=SqueezeBackward4)
    return _batched_matmul(input, other)


def _batched_matmul(input: Tensor, other: Tensor) -> Tensor:
    _check_dtypes(input, other)
    try:
        values = np.matmul(input._data, other._data)
    except ValueError:
        raise RuntimeError(
            f"matmul: shapes {list(input._data.shape)} and {list(other._data.shape)} cannot be multiplied "
            "(the last dim of the first must equal the second-to-last of the second, and the batch dims must broadcast)"
        ) from None
    out = _wrap(values)
    if compute_requires_grad(input, other):
        node = MatmulBackward0(input, other)
        node.save_for_backward(input, other)
        set_history(out, node)
    return out
