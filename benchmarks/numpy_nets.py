"""Hand-written numpy training steps: the practical limit for a numpy framework.

Forward and backward are written out by hand, with no framework: what glasstorch's layers and
autograd engine are measured against. Both nets use SGD with momentum, as the framework versions do,
and update the ``params`` dict they are given in place.

* ``mlp_step``: 784-256-128-10, ReLU, cross-entropy.
* ``cnn_step``: the seeds' MNIST ``Net`` (conv 1->10 5x5, max-pool 2, ReLU, conv 10->20 5x5, Dropout2d,
  max-pool 2, ReLU, Linear 320->50, ReLU, dropout, Linear 50->10, log_softmax, NLL loss); with
  ``dropout=False``, the same Net without its two dropouts.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


class Momentum:
    """SGD with momentum over a dict of arrays (PyTorch's update: v = mu v + g; p -= lr v)."""

    def __init__(self, params: dict, lr: float = 0.01, momentum: float = 0.9) -> None:
        self.params, self.lr, self.momentum = params, lr, momentum
        self.velocity = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, grads: dict) -> None:
        for k, g in grads.items():
            v = self.velocity[k]
            v *= self.momentum
            v += g
            self.params[k] -= self.lr * v


def softmax_cross_entropy_grad(logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """d(mean NLL of log_softmax)/d logits = (softmax - onehot) / N."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    probs[np.arange(len(labels)), labels] -= 1
    return probs / len(labels)


def mlp_step(params: dict, x: np.ndarray, labels: np.ndarray) -> Callable[[], None]:
    optimizer = Momentum(params)

    def run() -> None:
        p = params
        z0 = x @ p["W0"] + p["b0"]
        h0 = np.maximum(z0, 0)
        z1 = h0 @ p["W1"] + p["b1"]
        h1 = np.maximum(z1, 0)
        g = softmax_cross_entropy_grad(h1 @ p["W2"] + p["b2"], labels)
        grads = {"W2": h1.T @ g, "b2": g.sum(0)}
        g = (g @ p["W2"].T) * (z1 > 0)
        grads.update(W1=h0.T @ g, b1=g.sum(0))
        g = (g @ p["W1"].T) * (z0 > 0)
        grads.update(W0=x.T @ g, b0=g.sum(0))
        optimizer.step(grads)

    return run


def conv_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Valid convolution by im2col: one (N*OH*OW, C*KH*KW) matrix of windows times the kernels."""
    n, c = x.shape[:2]
    o, _, kh, kw = w.shape
    windows = sliding_window_view(x, (kh, kw), axis=(2, 3))  # N, C, OH, OW, KH, KW
    oh, ow = windows.shape[2:4]
    cols = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    out = cols @ w.reshape(o, -1).T + b
    return out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2), cols


def conv_backward(grad: np.ndarray, x_shape: tuple, cols: np.ndarray, w: np.ndarray,
                  need_input: bool = True) -> tuple:
    n, o, oh, ow = grad.shape
    g = grad.transpose(0, 2, 3, 1).reshape(-1, o)
    grad_w = (g.T @ cols).reshape(w.shape)
    grad_b = g.sum(axis=0)
    if not need_input:  # the first layer: nobody needs the gradient of the images
        return None, grad_w, grad_b
    kh, kw = w.shape[2:]
    grad_cols = (g @ w.reshape(o, -1)).reshape(n, oh, ow, -1, kh, kw)
    grad_x = np.zeros(x_shape, dtype=grad.dtype)
    for i in range(kh):  # scatter back: one slice-add per kernel offset
        for j in range(kw):
            grad_x[:, :, i:i + oh, j:j + ow] += grad_cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return grad_x, grad_w, grad_b


def maxpool2_forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n, c, h, w = x.shape
    blocks = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = blocks.max(axis=(3, 5))
    mask = blocks == out[:, :, :, None, :, None]  # (ties would double count: random data has none)
    return out, mask


def maxpool2_backward(grad: np.ndarray, mask: np.ndarray) -> np.ndarray:
    n, c, h2, _, w2, _ = mask.shape
    return (mask * grad[:, :, :, None, :, None]).reshape(n, c, h2 * 2, w2 * 2)


def cnn_step(params: dict, x: np.ndarray, labels: np.ndarray, seed: int = 0,
             dropout: bool = True) -> Callable[[], None]:
    optimizer = Momentum(params)
    rng = np.random.default_rng(seed)

    def run() -> None:
        p = params
        c1, win1 = conv_forward(x, p["conv1.weight"], p["conv1.bias"])
        m1, mask1 = maxpool2_forward(c1)
        a1 = np.maximum(m1, 0)
        c2, win2 = conv_forward(a1, p["conv2.weight"], p["conv2.bias"])
        if dropout:  # Dropout2d: whole channels kept (and doubled) or zeroed
            keep2 = (rng.random(c2.shape[:2], dtype=np.float32) >= 0.5).astype(np.float32)[:, :, None, None] * 2
            c2 = c2 * keep2
        m2, mask2 = maxpool2_forward(c2)
        a2 = np.maximum(m2, 0)
        flat = a2.reshape(len(x), -1)
        z3 = flat @ p["fc1.weight"].T + p["fc1.bias"]
        h3 = np.maximum(z3, 0)
        if dropout:
            keep3 = (rng.random(z3.shape, dtype=np.float32) >= 0.5).astype(np.float32) * 2
            h3 = h3 * keep3
        g = softmax_cross_entropy_grad(h3 @ p["fc2.weight"].T + p["fc2.bias"], labels)
        grads = {"fc2.weight": g.T @ h3, "fc2.bias": g.sum(0)}
        g = (g @ p["fc2.weight"]) * (z3 > 0)
        if dropout:
            g = g * keep3
        grads.update({"fc1.weight": g.T @ flat, "fc1.bias": g.sum(0)})
        g = (g @ p["fc1.weight"]).reshape(a2.shape) * (m2 > 0)
        g = maxpool2_backward(g, mask2)
        if dropout:
            g = g * keep2
        g, grads["conv2.weight"], grads["conv2.bias"] = conv_backward(g, a1.shape, win2, p["conv2.weight"])
        g = maxpool2_backward(g * (m1 > 0), mask1)
        _, grads["conv1.weight"], grads["conv1.bias"] = conv_backward(g, x.shape, win1, p["conv1.weight"], need_input=False)
        optimizer.step(grads)

    return run
