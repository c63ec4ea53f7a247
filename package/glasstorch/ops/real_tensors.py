"""PyTorch's complex-number API on real tensors, glasstorch's only kind: ``conj``, ``real``,
``H``, ``adjoint`` and the queries ``is_complex``, ``is_conj``, ``isreal``...

Code written for complex tensors runs on real ones in PyTorch, and it should here: the conjugate
of a real tensor is the tensor itself (PyTorch returns the same object, no copy, no Node), its
real part too, and the conjugate transpose is the transpose. ``imag`` has no meaning and is an
error, as in PyTorch.
"""
from __future__ import annotations

import warnings

from .. import dtypes
from .._creation import ones_like
from .._tensor import Tensor
from .shape import transpose


def conj(input: Tensor) -> Tensor:
    """The complex conjugate: for a real tensor, the tensor itself."""
    return input


resolve_conj = resolve_neg = real = conj


def imag(input: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def is_complex(input: Tensor) -> bool:
    return False


def is_conj(input: Tensor) -> bool:
    return False


is_neg = is_conj


def isreal(input: Tensor) -> Tensor:
    """True wherever the imaginary part is 0: everywhere, for a real tensor (a bool tensor)."""
    return ones_like(input, dtype=dtypes.bool)


def _only_matrices(input: Tensor, name: str) -> bool:
    """Refuse a vector; a 0-dim tensor passes with PyTorch's deprecation warning (it is returned as is)."""
    if input.dim() == 0:
        warnings.warn(f"{'Tensor.' if name == 'mH' else ''}{name} is deprecated on 0-D tensors. Consider using "
                      "x.conj().", UserWarning, stacklevel=3)
        return False
    if input.dim() < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. "
                           f"Got {input.dim()}-D tensor.")
    return True


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of a (batch of) matrices: for real ones, the last two dims swapped."""
    return transpose(input, -2, -1) if _only_matrices(input, "adjoint()") else input


def mH(input: Tensor) -> Tensor:  # noqa: N802 - the property's name
    return transpose(input, -2, -1) if _only_matrices(input, "mH") else input


def H(input: Tensor) -> Tensor:  # noqa: N802 - the property's name
    """``tensor.H``: the conjugate transpose of a matrix (2-D only, as in PyTorch)."""
    if input.dim() != 2:
        hint = " For batches of matrices, consider using tensor.mH" if input.dim() > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {input.dim()}-D tensor.{hint}")
    return transpose(input, 0, 1)
