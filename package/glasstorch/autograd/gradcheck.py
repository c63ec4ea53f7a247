"""Finite-difference gradient checks: ``gradcheck`` and ``gradgradcheck``.

Mirrors ``torch/autograd/gradcheck.py`` (its slow, "full Jacobian" mode). The idea fits in a line:
a backward formula is right when the Jacobian it implies equals the one finite differences measure,

    d out[j] / d x[i]  ~=  (f(x + eps e_i)[j] - f(x - eps e_i)[j]) / (2 eps)      (central differences)

* the **numerical** Jacobian nudges each input element by +-eps and watches every output move;
* the **analytical** Jacobian asks autograd: one ``autograd.grad`` per output element, with a
  one-hot ``grad_outputs``, gives one column (a vector-Jacobian product with a basis vector).

Both are matrices of shape ``(input.numel(), output.numel())``, as in PyTorch.

Simplified: PyTorch also checks forward-mode AD, complex inputs, sparse layouts, batched grads and
"fast mode" (random projections instead of full Jacobians). And PyTorch only *warns* when an input
that requires grad is not float64; glasstorch refuses it, because in float32 the finite
differences are too coarse for the comparison to mean anything.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

# both used at call time only: _tensor imports autograd, whose __init__ imports this file
from .. import _tensor, autograd

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a gradient is wrong."""


# --- inputs and outputs ---------------------------------------------------------------------
def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _check_inputs(inputs: tuple) -> list[int]:
    """The positions of the inputs to differentiate, with PyTorch's errors for unusable ones."""
    positions = []
    for i, value in enumerate(inputs):
        if not (isinstance(value, _tensor.Tensor) and value.requires_grad):
            continue
        if value.dtype.name != "float64":
            raise ValueError(
                f"Input #{i} requires gradient and is not a double precision floating point "
                f"(it is {value.dtype.name}). Finite differences in lower precision are too coarse to "
                "check anything: pass float64 inputs (.double())."
            )
        data = value._data
        # (an empty tensor has no element to overlap: numpy may give it 0 strides)
        if data.size and any(stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape)):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                "non-overlapping to be able to compute the numerical gradients correctly. You should "
                "call .clone() on the input before passing it to gradcheck."
            )
        positions.append(i)
    if not positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )
    return positions


def _outputs(func: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    outputs = _as_tuple(func(*inputs))
    for i, output in enumerate(outputs):
        if not isinstance(output, _tensor.Tensor):
            raise TypeError(f"gradcheck: output {i} of the function is a {type(output).__name__}, not a Tensor")
    return outputs


def _values(func: Callable, inputs: tuple) -> list[np.ndarray]:
    """The outputs' values as float64 copies. Grad mode stays on: ``func`` may itself need
    autograd (``gradgradcheck``'s does)."""
    return [np.array(output._data, dtype=np.float64) for output in _outputs(func, inputs)]


# --- the two Jacobians ----------------------------------------------------------------------
def numerical_jacobian(func: Callable, inputs: tuple, position: int, eps: float) -> list[np.ndarray]:
    """For the input at ``position``: one ``(input.numel(), output.numel())`` matrix per output,
    by central differences. The input's memory is nudged in place and restored afterwards."""
    data = inputs[position]._data
    columns_per_output: list[list[np.ndarray]] = []
    for k in range(data.size):
        original = data.flat[k]
        data.flat[k] = original + eps
        plus = _values(func, inputs)
        data.flat[k] = original - eps
        minus = _values(func, inputs)
        data.flat[k] = original
        if not columns_per_output:
            columns_per_output = [[] for _ in plus]
        for rows, high, low in zip(columns_per_output, plus, minus):
            rows.append(((high - low) / (2 * eps)).ravel())
    if not columns_per_output:  # an empty input: no rows at all
        return [np.zeros((0, out.size)) for out in _values(func, inputs)]
    return [np.stack(rows) for rows in columns_per_output]


def analytical_jacobian(output: Tensor, inputs: tuple, positions: Sequence[int]) -> list[np.ndarray]:
    """For one output: one ``(input.numel(), output.numel())`` matrix per differentiated input,
    column j being the gradient autograd computes for the one-hot ``grad_output`` e_j."""
    targets = [inputs[p] for p in positions]
    jacobians = [np.zeros((t.numel(), output.numel())) for t in targets]
    for j in range(output.numel()):
        one_hot = np.zeros(output._data.size, dtype=output._data.dtype)
        one_hot[j] = 1
        grads = autograd.grad(output, targets, grad_outputs=_tensor._wrap(one_hot.reshape(output._data.shape)),
                              retain_graph=True, allow_unused=True)
        for jacobian, target, grad, position in zip(jacobians, targets, grads, positions):
            if grad is None:
                continue  # an unused input: its column stays zero
            _check_grad_matches(grad, target, position)
            jacobian[:, j] = np.asarray(grad._data, dtype=np.float64).ravel()
    return jacobians


def _check_grad_matches(grad: Tensor, input: Tensor, position: int) -> None:
    if grad.shape != input.shape:
        raise GradcheckError(
            f"Analytical gradient has incorrect size: the gradient of input {position} has shape "
            f"{list(grad.shape)}, the input has shape {list(input.shape)}"
        )
    if grad.dtype is not input.dtype:
        raise GradcheckError(
            f"Gradient has dtype mismatch: the gradient of input {position} is {grad.dtype.name}, "
            f"the input is {input.dtype.name}"
        )


# --- the comparison -------------------------------------------------------------------------
def _mismatch_message(output_index: int, position: int, input: Tensor, numerical: np.ndarray,
                      analytical: np.ndarray) -> str:
    worst = np.unravel_index(np.argmax(np.abs(numerical - analytical)), numerical.shape)
    with np.printoptions(precision=6, suppress=True, linewidth=120, threshold=400):
        return (
            f"Jacobian mismatch for output {output_index} with respect to input {position} "
            f"(shape {list(input.shape)}),\n"
            f"numerical:\n{numerical}\nanalytical:\n{analytical}\n"
            f"largest difference at (input element {worst[0]}, output element {worst[1]}): "
            f"numerical {numerical[worst]:.6g}, analytical {analytical[worst]:.6g}"
        )


def gradcheck(
    func: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Any],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against central finite differences.

    ``inputs``: a tensor or a sequence of arguments; the tensors among them with
    ``requires_grad=True`` (float64) are differentiated, anything else is passed through.
    ``func`` returns a tensor or a tuple of tensors. An output that does not require grad must not
    depend on the differentiated inputs. Entries match when
    ``|analytical - numerical| <= atol + rtol * |numerical|``.

    Returns True when every Jacobian matches. Otherwise raises :class:`GradcheckError` naming the
    output and input and showing both Jacobians (or returns False if ``raise_exception=False``).
    """
    inputs = _as_tuple(inputs)
    positions = _check_inputs(inputs)  # bad input is a ValueError, whatever raise_exception says
    try:
        _compare_jacobians(func, inputs, positions, eps, atol, rtol)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _compare_jacobians(func: Callable, inputs: tuple, positions: list[int], eps: float, atol: float,
                       rtol: float) -> None:
    """Raise GradcheckError at the first output and input whose Jacobians differ."""
    outputs = _outputs(func, inputs)
    numerical = {p: numerical_jacobian(func, inputs, p, eps) for p in positions}  # numerical[p][output]
    for o, output in enumerate(outputs):
        if not output.requires_grad:
            if any(np.any(numerical[p][o] != 0) for p in positions):
                raise GradcheckError(f"Numerical gradient for function expected to be zero: output {o} does "
                                     "not require grad, yet it changes when the inputs do")
            continue
        analytical = analytical_jacobian(output, inputs, positions)
        for position, found in zip(positions, analytical):
            expected = numerical[position][o]
            if not np.allclose(found, expected, rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch_message(o, position, inputs[position], expected, found))


def gradgradcheck(
    func: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Any],
    grad_outputs: Tensor | Sequence[Tensor] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check second derivatives: gradcheck the function that maps ``(inputs, grad_outputs)`` to
    the gradients of ``func`` computed with ``create_graph=True``.

    ``grad_outputs`` default to random float64 tensors (fixed seed) that require grad, so the
    check covers the derivatives with respect to them too, as PyTorch's does.
    """
    inputs = _as_tuple(inputs)
    positions = _check_inputs(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _tensor._wrap(rng.standard_normal(o._data.shape)).requires_grad_() for o in outputs if o.requires_grad
        )
    grad_outputs = _as_tuple(grad_outputs)
    count = len(inputs)

    def first_derivatives(*values: Any) -> tuple:
        outs = [o for o in _outputs(func, values[:count]) if o.requires_grad]
        differentiated = [values[p] for p in positions]
        grads = autograd.grad(outs, differentiated, grad_outputs=list(values[count:]),
                              create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
