"""``Muon``: momentum, then the update orthogonalised by a Newton-Schulz iteration. Mirrors
torch/optim/_muon.py (PyTorch 2.9+).

One step, for each 2-D parameter p with a gradient g (``_single_tensor_muon``)::

    B = B + (1 - momentum) * (g - B)                the momentum buffer (``lerp_``)
    U = g + momentum * (B - g)   if nesterov, else B
    O = NS(U)                                       about U's "zeroth power" U V^T (see below)
    p = p * (1 - lr * weight_decay)                 decoupled weight decay
    p = p - adjusted_lr * O,  adjusted_lr = lr * sqrt(max(1, rows / cols))   (or 0.2 * sqrt(max(rows, cols))
                                                    with adjust_lr_fn="match_rms_adamw")

NS: X = U / ||U|| (transposed if tall), then ``ns_steps`` times: A = X X^T, B = b A + c A A,
X = a X + B X. As PyTorch, the iteration runs in bfloat16 (each product accumulated in float32 and
rounded to bfloat16, as PyTorch's CPU kernel does), so its numbers agree with PyTorch's to
bfloat16's precision. Muon is for the 2-D weights of hidden layers: other parameters (biases,
embeddings) go to another optimizer such as AdamW; a parameter of another rank is refused.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import numpy as np

from .. import dtypes
from .._creation import zeros_like
from .._tensor import Tensor, _wrap
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5

_BF16 = dtypes.bfloat16.numpy_dtype


def _bf16(values: np.ndarray) -> np.ndarray:
    """Round to bfloat16 and back to float32 (the precision PyTorch's iteration keeps)."""
    return values.astype(_BF16).astype(np.float32)


def _zeropower_via_newtonschulz(grad: Tensor, ns_coefficients: tuple, ns_steps: int, eps: float) -> Tensor:
    """The quintic Newton-Schulz iteration: roughly U S' V^T with S' near 1, for grad = U S V^T."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = _bf16(grad._data.astype(np.float32))
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    norm = _bf16(np.sqrt(np.sum(x * x, dtype=np.float32)))
    x = _bf16(x / max(norm, np.float32(_bf16(np.float32(eps)))))
    for _ in range(ns_steps):
        gram = _bf16(x @ x.T)
        gram_update = _bf16(b * gram + c * (gram @ gram))  # addmm(gram, gram, gram, beta=b, alpha=c)
        x = _bf16(a * x + gram_update @ x)  # addmm(x, gram_update, x, beta=a)
    if tall:
        x = x.T
    return _wrap(np.ascontiguousarray(x).astype(_BF16))


def _adjust_lr(lr: float, adjust_lr_fn: str | None, param_shape: Any) -> float:
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Implements Muon (Jordan et al., 2024) for 2-D parameters."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple = (DEFAULT_A, DEFAULT_B, DEFAULT_C), eps: float = EPS,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                lr, weight_decay, momentum = group["lr"], group["weight_decay"], group["momentum"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = zeros_like(grad)
                    buf = state["momentum_buffer"]
                    buf.add_(grad - buf, alpha=1 - momentum)  # lerp_(grad, 1 - momentum)
                    update = grad + momentum * (buf - grad) if group["nesterov"] else buf  # grad.lerp(buf, momentum)
                    update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"],
                                                         group["eps"])
                    adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
                    p.mul_(1 - lr * weight_decay)
                    p.add_(update.to(p.dtype), alpha=-adjusted_lr)
        return loss
