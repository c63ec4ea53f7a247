"""The Connectionist Temporal Classification loss (Graves et al., 2006): ``ctc_loss``. Found missing
by running the examples in PyTorch's own docstrings (issue 14).

Mirrors ``aten/src/ATen/native/LossCTC.cpp``'s forward: the target is extended with blanks
(``_ l1 _ l2 _ ... _``), and alpha[t, s], the log-probability of all the alignments of the first
t + 1 inputs that end in extended label s, follows

    alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] if l'[s] is not blank
                            and l'[s] != l'[s-2]) + log_probs[t, l'[s]]

and the loss is -logsumexp of the last two alphas at the input's last step. The recursion runs
over time with tensor ops on the whole batch, so autograd differentiates it (PyTorch computes the
gradient with the beta recursion in one ``CtcLossBackward0``; glasstorch's ``grad_fn`` is the
reduction's). Impossible alignments (a target too long for its input) give inf, or 0 with
``zero_infinity``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from .indexing import where
from .shape import cat, stack

_NEG = -1e30  # stands for log(0): finite, so that logsumexp's gradient stays 0 instead of nan


def _lengths(value: Any, name: str) -> np.ndarray:
    return np.asarray(value._data if isinstance(value, Tensor) else list(value), dtype=np.int64).reshape(-1)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of ``log_probs`` (T, N, C) (or (T, C) unbatched; log-softmax outputs) for
    ``targets`` (N, S) padded or 1-D concatenated, with each sample's input and target length."""
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    steps, batch, classes = lp.shape
    in_len, tgt_len = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if len(in_len) != batch:
        raise RuntimeError(f"input_lengths must be of size batch_size")
    if len(tgt_len) != batch:
        raise RuntimeError(f"target_lengths must be of size batch_size")
    if (in_len > steps).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {int(in_len.max())} "
                           f"(while checking arguments for ctc_loss_cpu)")
    target_data = targets._data.astype(np.int64)
    if unbatched:
        target_data = target_data.reshape(1, -1)
    if target_data.ndim == 1:  # concatenated targets
        offsets = np.concatenate([[0], np.cumsum(tgt_len)[:-1]])
        rows = [target_data[o:o + n] for o, n in zip(offsets, tgt_len)]
    else:
        rows = [target_data[b, :n] for b, n in enumerate(tgt_len)]
    width = 2 * int(tgt_len.max(initial=0)) + 1
    extended = np.full((batch, width), blank, dtype=np.int64)
    can_skip = np.zeros((batch, width), dtype=bool)
    for b, row in enumerate(rows):
        extended[b, 1:2 * len(row):2] = row
        labels = extended[b]
        s = np.arange(2, 2 * len(row) + 1)
        can_skip[b, s] = (labels[s] != blank) & (labels[s] != labels[s - 2])
    valid = np.arange(width)[None, :] < (2 * tgt_len + 1)[:, None]
    index = _wrap(extended)

    def emissions(t: int) -> Tensor:  # log_probs[t, n, l'[n, s]], shape (N, width)
        return lp[t].gather(1, index)

    start = np.full((batch, width), _NEG)
    start[:, :2] = 0.0
    start[~valid] = _NEG
    alpha = where(_wrap(start > _NEG / 2), emissions(0), _NEG)
    alphas = [alpha]
    neg_col = _wrap(np.full((batch, 1), _NEG, dtype=lp._data.dtype))
    skip_mask, valid_mask = _wrap(can_skip), _wrap(valid)
    for t in range(1, steps):
        shift1 = cat([neg_col, alpha[:, :-1]], 1)
        shift2 = where(skip_mask, cat([neg_col, neg_col, alpha[:, :-2]], 1), _NEG) if width > 2 else shift1 * 0 + _NEG
        alpha = stack([alpha, shift1, shift2], 0).logsumexp(0) + emissions(t)
        alpha = where(valid_mask, alpha, _NEG)
        alphas.append(alpha)
    history = stack(alphas, 0)  # (T, N, width)
    last = history[_wrap(np.maximum(in_len - 1, 0)), _wrap(np.arange(batch))]  # (N, width)
    ends = np.stack([2 * tgt_len, np.maximum(2 * tgt_len - 1, 0)], 1)
    end_values = last.gather(1, _wrap(ends))
    end_values = where(_wrap(np.stack([np.ones(batch, bool), tgt_len > 0], 1)), end_values, _NEG)
    losses = -end_values.logsumexp(1)
    impossible = _wrap((losses._data > -_NEG / 2))
    losses = where(impossible, 0.0 if zero_infinity else float("inf"), losses)
    if reduction == "none":
        return losses.reshape(()) if unbatched else losses
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        return (losses / _wrap(np.maximum(tgt_len, 1).astype(losses._data.dtype))).mean()
    raise ValueError(f"{reduction} is not a valid value for reduction")
