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

from collections import namedtuple
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ..dtypes import promoted_values
from ._elementwise import broadcast_error
from ._util import compute_requires_grad, reduce_grad_to, set_history
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
    """out = self @ mat2 (both 2-D):  d/dself = grad @ mat2.T,  d/dmat2 = self.T @ grad."""

    self_: SavedTensor
    self_sym_sizes: tuple
    self_sym_strides: tuple
    mat2_: SavedTensor
    mat2_sym_sizes: tuple
    mat2_sym_strides: tuple

    def backward(self, grad: Tensor) -> tuple:
        return (
            _mat1_grad(grad, self._saved_mat2, _column_major(self.self_sym_sizes, self.self_sym_strides))
            if self.needs_input_grad(0) else None,
            _mat2_grad(grad, self._saved_self, _column_major(self.mat2_sym_sizes, self.mat2_sym_strides))
            if self.needs_input_grad(1) else None,
        )


def _strides(matrix: Tensor) -> tuple:
    """A matrix's strides in elements, as PyTorch saves them for mm's backward."""
    data = matrix._data
    return tuple(step // data.itemsize for step in data.strides)


def _column_major(sizes: tuple, strides: tuple) -> bool:
    """Was this matrix stored column by column, as ``weight.t()`` is? (PyTorch's test in
    ``mm_mat1_backward``: strides (1, rows).)"""
    return strides == (1, sizes[0])


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
    if input._data.dtype == np.bool_:  # PyTorch has no bool kernel for matrix products
        raise NotImplementedError('"addmm_impl_cpu_" not implemented for \'Bool\'')
    if input._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(input._data.shape)} and {_shape_text(mat2._data.shape)})"
        )
    out = _wrap(input._data @ mat2._data)
    if compute_requires_grad(input, mat2):
        node = MmBackward0(input, mat2)
        # grad_input needs mat2 and grad_mat2 needs input: keep only what will be used
        if node.needs_input_grad(1):
            node.self_ = SavedTensor(input)
        if node.needs_input_grad(0):
            node.mat2_ = SavedTensor(mat2)
        node.self_sym_sizes, node.mat2_sym_sizes = input._data.shape, mat2._data.shape
        # the strides decide how a gradient is laid out: kept for an input that gets one (as PyTorch)
        node.self_sym_strides = _strides(input) if node.needs_input_grad(0) else ()
        node.mat2_sym_strides = _strides(mat2) if node.needs_input_grad(1) else ()
        set_history(out, node)
    return out


class AddmmBackward0(Node):
    """out = beta * self + alpha * (mat1 @ mat2), ``self`` broadcast: what ``nn.Linear`` records."""

    alpha: Any
    beta: Any
    mat1_: SavedTensor
    mat1_sym_sizes: tuple
    mat1_sym_strides: tuple
    mat2_: SavedTensor
    mat2_sym_sizes: tuple
    mat2_sym_strides: tuple

    def backward(self, grad: Tensor) -> tuple:
        alpha, beta = self.alpha, self.beta
        grad_self = grad_mat1 = grad_mat2 = None
        if self.needs_input_grad(0):
            grad_self = grad if beta == 1 else grad * beta
        if self.needs_input_grad(1):
            grad_mat1 = _mat1_grad(grad, self._saved_mat2, _column_major(self.mat1_sym_sizes, self.mat1_sym_strides))
            grad_mat1 = grad_mat1 if alpha == 1 else grad_mat1 * alpha
        if self.needs_input_grad(2):
            grad_mat2 = _mat2_grad(grad, self._saved_mat1, _column_major(self.mat2_sym_sizes, self.mat2_sym_strides))
            grad_mat2 = grad_mat2 if alpha == 1 else grad_mat2 * alpha
        return grad_self, grad_mat1, grad_mat2


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1, out: Any = None) -> Tensor:
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
    result = _wrap(values)
    if compute_requires_grad(input, mat1, mat2):
        node = AddmmBackward0(input, mat1, mat2)
        if node.needs_input_grad(2):
            node.mat1_ = SavedTensor(mat1)
        if node.needs_input_grad(1):
            node.mat2_ = SavedTensor(mat2)
        node.alpha, node.beta = alpha, beta
        node.mat1_sym_sizes, node.mat2_sym_sizes = mat1._data.shape, mat2._data.shape
        node.mat1_sym_strides = _strides(mat1) if node.needs_input_grad(1) else ()
        node.mat2_sym_strides = _strides(mat2) if node.needs_input_grad(2) else ()
        set_history(result, node)
    if out is not None:
        from ._arguments import write_out

        return write_out(out, result)
    return result


class MvBackward0(Node):
    """out = self @ vec (matrix times vector)."""

    self_: SavedTensor
    vec_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        return (
            grad.unsqueeze(1) * self._saved_vec if self.needs_input_grad(0) else None,
            self._saved_self.t().mv(grad) if self.needs_input_grad(1) else None,
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
        node.self_, node.vec_ = SavedTensor(input), SavedTensor(vec)
        set_history(out, node)
    return out


class DotBackward0(Node):
    """out = self . other (two vectors):  grad_self = grad * other,  grad_other = grad * self."""

    self_: SavedTensor
    tensor_: SavedTensor  # PyTorch's name for the second vector

    def backward(self, grad: Tensor) -> tuple:
        return (
            grad * self._saved_tensor if self.needs_input_grad(0) else None,
            grad * self._saved_self if self.needs_input_grad(1) else None,
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
        node.self_, node.tensor_ = SavedTensor(input), SavedTensor(other)
        set_history(out, node)
    return out


class MatmulBackward0(Node):
    """Batched out = self @ other, the batch dims broadcast:
    grad_self = grad @ other^T,  grad_other = self^T @ grad, each summed over broadcast batch dims."""

    self_: SavedTensor
    other_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self._saved_self, self._saved_other
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
        node.self_, node.other_ = SavedTensor(input), SavedTensor(other)
        set_history(out, node)
    return out


# --- batched products, outer and cross products (issue 14) --------------------------------------
def _check_batches(input: Tensor, mat2: Tensor) -> None:
    for name, t in (("batch1", input), ("batch2", mat2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    batch, _, inner = input._data.shape
    if mat2._data.shape[:2] != (batch, inner):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {inner}] but got: "
                           f"{list(mat2._data.shape[:2])}.")
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"expected scalar type {_c_name(input).title()} but found {_c_name(mat2).title()}")


class BmmBackward0(Node):
    """out[b] = self[b] @ mat2[b]:  grad_self = grad @ mat2^T,  grad_mat2 = self^T @ grad (per batch)."""

    mat2_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, mat2 = self._saved_self, self._saved_mat2
        return (grad.bmm(mat2.transpose(1, 2)) if self.needs_input_grad(0) else None,
                self_.transpose(1, 2).bmm(grad) if self.needs_input_grad(1) else None)


def bmm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """A batch of matrix products: (b, n, m) @ (b, m, p) -> (b, n, p), no broadcasting."""
    _check_batches(input, mat2)
    result = _wrap(np.matmul(input._data, mat2._data))
    if compute_requires_grad(input, mat2):
        node = BmmBackward0(input, mat2)
        node.self_ = SavedTensor(input) if node.needs_input_grad(1) else None
        node.mat2_ = SavedTensor(mat2) if node.needs_input_grad(0) else None
        set_history(result, node)
    if out is not None:
        from ._arguments import write_out

        return write_out(out, result)
    return result


class BaddbmmBackward0(Node):
    """out = beta * self + alpha * (batch1 @ batch2):  grad_self = beta * grad (summed back to its
    shape), grad_batch1 = alpha * grad @ batch2^T, grad_batch2 = alpha * batch1^T @ grad."""

    alpha: Any
    batch1_: SavedTensor
    batch2_: SavedTensor
    beta: Any

    def backward(self, grad: Tensor) -> tuple:
        batch1, batch2 = self._saved_batch1, self._saved_batch2
        scaled = grad if self.alpha == 1 else grad * self.alpha
        return (grad * self.beta if self.needs_input_grad(0) else None,  # (the engine sums it to self's shape)
                scaled.bmm(batch2.transpose(1, 2)) if self.needs_input_grad(1) else None,
                batch1.transpose(1, 2).bmm(scaled) if self.needs_input_grad(2) else None)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``; ``input`` broadcasts to the product. With
    ``beta=0`` the input is ignored (its nan and inf do not propagate), as in PyTorch."""
    product = bmm(batch1.detach(), batch2.detach())._data
    from .shape import expand

    added = expand(input.detach(), product.shape)._data  # (PyTorch's expand error if it does not fit)
    values = product * alpha if alpha != 1 else product
    if beta != 0:
        values = values + (added if beta == 1 else beta * added)
    result = _wrap(np.asarray(values, dtype=product.dtype))
    if compute_requires_grad(input, batch1, batch2):
        node = BaddbmmBackward0(input, batch1, batch2)
        node.batch1_ = SavedTensor(batch1) if node.needs_input_grad(2) else None
        node.batch2_ = SavedTensor(batch2) if node.needs_input_grad(1) else None
        node.alpha, node.beta = alpha, beta
        set_history(result, node)
    return result


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """``input[i] * vec2[j]``; recorded as PyTorch computes it: ``input.reshape(-1, 1) * vec2``."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return input.reshape(-1, 1) * vec2


ger = outer


class LinalgCrossBackward0(Node):
    """out = self x other:  grad_self = other x grad,  grad_other = grad x self (then summed over
    broadcast dims)."""

    dim: int
    other_: SavedTensor
    self_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        self_, other = self._saved_self, self._saved_other
        return (cross(other, grad, dim=self.dim) if self.needs_input_grad(0) else None,
                cross(grad, self_, dim=self.dim) if self.needs_input_grad(1) else None)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim``. Without ``dim``, as PyTorch (with its
    deprecation warning): the first dim of size 3."""
    from .._tensor import _normalize_dim
    try:
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
    except ValueError:
        raise broadcast_error(input._data.shape, other._data.shape) from None
    if dim is None:
        import warnings

        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        if 3 not in shape:
            raise RuntimeError("no dimension of size 3 in input")
        dim = shape.index(3)
    axis = _normalize_dim(dim, len(shape))
    if shape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._data.shape[axis]} "
                           f"and {other._data.shape[axis]}")
    a, b = promoted_values(input, other)
    if a.dtype == np.bool_:
        raise NotImplementedError('"cross" not implemented for \'Bool\'')
    result = _wrap(np.cross(np.broadcast_to(a, shape), np.broadcast_to(b, shape), axis=axis))
    if compute_requires_grad(input, other):
        node = LinalgCrossBackward0(input, other)
        node.dim = axis
        node.self_ = SavedTensor(input) if node.needs_input_grad(1) else None
        node.other_ = SavedTensor(other) if node.needs_input_grad(0) else None
        set_history(result, node)
    return result


# --- the determinant (issue 17): torch.det, torch.linalg.det ---------------------------------------
class LinalgDetBackward0(Node):
    """out = det(A):  d/dA = grad * adj(A)^T, the cofactor matrix. For an invertible A it is
    det(A) * inv(A)^T, written with tensor ops (so it can be differentiated again). A singular A has
    no inverse; its cofactors come from the SVD A = U S V^T:
    adj(A)^T = det(U) det(V) U diag(prod_{j != i} s_j) V^T. (PyTorch's ``linalg_det_backward``
    uses the LU factors it saved, ``_saved_LU``/``_saved_pivots``, and the SVD for singular A.)
    Simplified: the singular case is computed with numpy, so it is not differentiable again."""

    A_: SavedTensor
    result_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        A, result = self._saved_A, self._saved_result
        if np.all(result._data != 0):
            from .linalg_solve import inv

            return ((grad * result).unsqueeze(-1).unsqueeze(-1) * inv(A).mT,)
        if grad._requires_grad:
            raise RuntimeError("glasstorch: the double backward of det at a singular matrix is not implemented")
        u, s, vh = np.linalg.svd(A._data)
        n = s.shape[-1]
        others = np.where(np.eye(n, dtype=bool), 1, s[..., None, :]).prod(-1)  # prod_{j != i} s_j
        sign = np.linalg.det(u) * np.linalg.det(vh)
        cofactors = sign[..., None, None] * (u * others[..., None, :]) @ vh
        return (_wrap((grad._data[..., None, None] * cofactors).astype(grad._data.dtype)),)


def det(A: Tensor) -> Tensor:
    """The determinant of a square matrix, or of each in a batch (..., n, n)."""
    shape = A._data.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise RuntimeError(f"linalg.det: A must be batches of square matrices, but they are {shape[-2] if len(shape) > 1 else 1} "
                           f"by {shape[-1] if shape else 1} matrices")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.det: Expected a floating point or complex tensor as input. Got {A.dtype.legacy_name[:-6]}")
    out = _wrap(np.asarray(np.linalg.det(A._data), dtype=A._data.dtype))
    if compute_requires_grad(A):
        node = LinalgDetBackward0(A)
        node.A_, node.result_ = SavedTensor(A), SavedTensor(out, is_output=True)
        set_history(out, node)
    return out


# --- the singular value decomposition: torch.linalg.svd, torch.svd, torch.linalg.svdvals ----------
_svd = namedtuple("svd", ["U", "S", "V"])
_linalg_svd = namedtuple("svd", ["U", "S", "Vh"])


class return_types_svd(_svd):
    """``(U, S, V)`` of ``torch.svd``, printed as PyTorch's ``torch.return_types.svd``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"glasstorch.return_types.svd(\nU={self.U!r},\nS={self.S!r},\nV={self.V!r})"


class return_types_linalg_svd(_linalg_svd):
    """``(U, S, Vh)`` of ``torch.linalg.svd``, printed as PyTorch's ``torch.return_types.linalg_svd``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"glasstorch.return_types.linalg_svd(\nU={self.U!r},\nS={self.S!r},\nVh={self.Vh!r})"


class LinalgSvdBackward0(Node):
    """(U, S, Vh) = svd(A), A = U diag(S) Vh, k = min(m, n). PyTorch's ``svd_backward``
    (FunctionsManual.cpp), real case, with skew(X) = X - X^T and E[i, j] = S[j]^2 - S[i]^2:

        inner = (skew(U^T gU) * S[None, :] + S[:, None] * skew(Vh gV)) / E + diag(gS)
        gA    = U inner Vh + (I - U U^T) gU diag(1/S) Vh + U diag(1/S) gV^T (I - V Vh)

    where gV = gVh^T; the two projections matter only for a tall (m > k) or wide (n > k) A. With
    ``full_matrices=True`` only the first k columns of U (rows of Vh) enter, as in PyTorch. The
    gradient is undefined where two singular values are equal (E has a zero), as in PyTorch.
    Simplified: PyTorch records one Node with three outputs; glasstorch records one Node per output
    (``_output`` says which), and the gradients of the outputs add up, since the formula is linear in
    (gU, gS, gVh). Written with tensor ops, so it can be differentiated again."""

    U_: SavedTensor
    S_: SavedTensor
    Vh_: SavedTensor
    full_matrices: bool

    def backward(self, grad: Tensor) -> tuple:
        from .indexing import where

        S = self._saved_S
        k = S.shape[-1]
        U, Vh = self._saved_U[..., :k], self._saved_Vh[..., :k, :]
        if self._output == 1:  # gS alone: U diag(gS) Vh
            return ((U * grad.unsqueeze(-2)).matmul(Vh),)
        m, n = U.shape[-2], Vh.shape[-1]
        squares = S * S
        eye = _wrap(np.eye(k, dtype=bool))
        E = where(eye, 1.0, squares.unsqueeze(-2) - squares.unsqueeze(-1))  # E[i, j] = S_j^2 - S_i^2
        if self._output == 0:  # gU
            gU = grad[..., :k]
            UtgU = U.mT.matmul(gU)
            grad_A = U.matmul((UtgU - UtgU.mT) * S.unsqueeze(-2) / E)
            if m > k:  # the part of gU outside U's columns
                gU_over_S = gU / S.unsqueeze(-2)
                grad_A = grad_A + gU_over_S - U.matmul(U.mT.matmul(gU_over_S))
            return (grad_A.matmul(Vh),)
        gV = grad[..., :k, :].mT  # gVh
        VhgV = Vh.matmul(gV)
        grad_A = (S.unsqueeze(-1) * (VhgV - VhgV.mT) / E).matmul(Vh)
        if n > k:  # the part of gVh outside Vh's rows
            gVh_over_S = gV.mT / S.unsqueeze(-1)
            grad_A = grad_A + gVh_over_S - gVh_over_S.matmul(Vh.mT).matmul(Vh)
        return (U.matmul(grad_A),)


def _check_matrix(A: Tensor, name: str, deprecated_svd: bool = False) -> None:
    if A._data.ndim < 2 and deprecated_svd:  # torch.svd words it its own way
        raise RuntimeError(f"{name}: input should have at least 2 dimensions, but has {A._data.ndim} dimensions instead")
    if A._data.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")  # (svdvals says svd too)
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.legacy_name[:-6]}")


def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> return_types_linalg_svd:
    """A = U diag(S) Vh, S descending, for a matrix or a batch (..., m, n). ``full_matrices=False``
    gives the reduced U (m, k) and Vh (k, n), k = min(m, n). Simplified: numpy's LAPACK (gesdd) chooses
    the signs of the singular vectors, which may differ from PyTorch's for a wide matrix (the pair
    U[:, i], Vh[i] may both be negated; U diag(S) Vh is the same)."""
    _check_matrix(A, "linalg.svd")
    u, s, vh = np.linalg.svd(A._data, full_matrices=full_matrices)
    dtype = A._data.dtype
    outs = [_wrap(np.ascontiguousarray(x, dtype=dtype)) for x in (u, s, vh)]
    if compute_requires_grad(A):
        nodes = []
        for position, out in enumerate(outs):
            node = LinalgSvdBackward0(A)
            node.full_matrices, node._output = full_matrices, position
            set_history(out, node)
            nodes.append(node)
        for node in nodes:  # each Node's own output is saved as an output; the other two keep their Nodes
            node.U_, node.S_, node.Vh_ = (SavedTensor(saved, is_output=i == node._output)
                                          for i, saved in enumerate(outs))
    return return_types_linalg_svd(*outs)


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values of A, descending (the S of ``linalg.svd``)."""
    _check_matrix(A, "linalg.svdvals")
    if compute_requires_grad(A):
        return linalg_svd(A, full_matrices=False).S
    return _wrap(np.linalg.svd(A._data, compute_uv=False).astype(A._data.dtype))


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> return_types_svd:
    """The deprecated ``torch.svd``: (U, S, V) with V = Vh^T (a transpose, as PyTorch's), reduced
    unless ``some=False``. With ``compute_uv=False`` U and V are zero matrices of the full sizes
    (m, m) and (n, n), as PyTorch returns them."""
    _check_matrix(input, "linalg.svd", deprecated_svd=True)
    if not compute_uv:
        m, n = input._data.shape[-2:]
        batch = input._data.shape[:-2]
        zeros = [_wrap(np.zeros(batch + (size, size), dtype=input._data.dtype)) for size in (m, n)]
        return return_types_svd(zeros[0], svdvals(input), zeros[1])
    u, s, vh = linalg_svd(input, full_matrices=not some)
    return return_types_svd(u, s, vh.transpose(-2, -1))
