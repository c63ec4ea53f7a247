"""The Connectionist Temporal Classification loss (Graves et al., 2006): ``ctc_loss``. Found missing
by running the examples in PyTorch's own docstrings (issue 14).

Mirrors ``aten/src/ATen/native/LossCTC.cpp``. The target is extended with blanks
(``_ l1 _ l2 _ ... _``), and alpha[t, s], the log-probability of all the alignments of the first
t + 1 inputs that end in extended label s, follows

    alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] if l'[s] is not blank
                            and l'[s] != l'[s-2]) + log_probs[t, l'[s]]

and the loss is -logsumexp of the last two alphas at the input's last step. ``_ctc_loss`` records
PyTorch's ``CtcLossBackward0``; its backward runs the same recursion backwards in time (beta[t, s]:
the alignments of the inputs from t on that start in s) and gives each input its posterior:

    d loss / d log_probs[t, c] = -sum over s with l'[s] = c of exp(alpha[t, s] + beta[t, s]
                                 - log_probs[t, c] + nll)

Both recursions run over time with tensor ops on the whole batch, so a second derivative works.
Unlike PyTorch, whose kernel returns the gradient with respect to the logits behind a log_softmax
(it adds exp(log_probs)), this is the gradient with respect to ``log_probs`` itself; through a
log_softmax, as CTC is used, the two agree. Impossible alignments (a target too long for its
input) give inf, or 0 with ``zero_infinity``, whose ``where`` PyTorch records too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history
from .indexing import where
from .shape import cat, stack

_NEG = -1e30  # stands for log(0): finite, so that logsumexp's gradient stays 0 instead of nan


def _lengths(value: Any) -> np.ndarray:
    return np.asarray(value._data if isinstance(value, Tensor) else list(value), dtype=np.int64).reshape(-1)


@dataclass
class _Alignments:
    """The blank-extended targets of a batch and which steps between their labels are allowed."""

    extended: np.ndarray  # (N, W): blank, l1, blank, l2, ..., blank (padded with blanks)
    can_skip: np.ndarray  # (N, W): s may be reached from s - 2 (a label different from the one before)
    valid: np.ndarray  # (N, W): s is inside the sample's extended target
    input_lengths: np.ndarray
    target_lengths: np.ndarray

    @classmethod
    def of(cls, targets: np.ndarray, input_lengths: np.ndarray, target_lengths: np.ndarray,
           blank: int) -> "_Alignments":
        if targets.ndim == 1:  # concatenated targets
            offsets = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
            rows = [targets[o:o + n] for o, n in zip(offsets, target_lengths)]
        else:
            rows = [targets[b, :n] for b, n in enumerate(target_lengths)]
        batch, width = len(rows), 2 * int(target_lengths.max(initial=0)) + 1
        extended = np.full((batch, width), blank, dtype=np.int64)
        can_skip = np.zeros((batch, width), dtype=bool)
        for b, row in enumerate(rows):
            extended[b, 1:2 * len(row):2] = row
            s = np.arange(2, 2 * len(row) + 1)
            can_skip[b, s] = (extended[b, s] != blank) & (extended[b, s] != extended[b, s - 2])
        valid = np.arange(width)[None, :] < (2 * target_lengths + 1)[:, None]
        return cls(extended, can_skip, valid, input_lengths, target_lengths)

    def emissions(self, log_probs: Tensor) -> Tensor:
        """log_probs[t, n, l'[n, s]]: (T, N, W)."""
        steps = log_probs.shape[0]
        index = _wrap(np.broadcast_to(self.extended, (steps, *self.extended.shape)).copy())
        return log_probs.gather(2, index)

    def ends(self) -> np.ndarray:
        """(N, W): the two extended labels an alignment may end in (the last label, the last blank)."""
        width = self.extended.shape[1]
        last = 2 * self.target_lengths
        return (np.arange(width)[None, :] == last[:, None]) | (
            (np.arange(width)[None, :] == last[:, None] - 1) & (self.target_lengths > 0)[:, None])


def _logsumexp3(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    return stack([a, b, c], 0).logsumexp(0)


def _log_alpha(emissions: Tensor, align: _Alignments) -> Tensor:
    """alpha (T, N, W), forward in time from the first blank or the first label."""
    batch, width = align.extended.shape
    neg_col = _wrap(np.full((batch, 1), _NEG, dtype=emissions._data.dtype))
    starts = align.valid & (np.arange(width)[None, :] < 2)
    alpha = where(_wrap(starts), emissions[0], _NEG)
    alphas = [alpha]
    skip, valid = _wrap(align.can_skip), _wrap(align.valid)
    for t in range(1, emissions.shape[0]):
        shift1 = cat([neg_col, alpha[:, :-1]], 1)
        shift2 = where(skip, cat([neg_col, neg_col, alpha[:, :-2]], 1), _NEG) if width > 2 else shift1 * 0 + _NEG
        alpha = where(valid, _logsumexp3(alpha, shift1, shift2) + emissions[t], _NEG)
        alphas.append(alpha)
    return stack(alphas, 0)


def _log_beta(emissions: Tensor, align: _Alignments) -> Tensor:
    """beta (T, N, W), backward in time from each sample's last input (-inf after it)."""
    steps = emissions.shape[0]
    batch, width = align.extended.shape
    neg = _wrap(np.full((batch, width), _NEG, dtype=emissions._data.dtype))
    neg_col = neg[:, :1]
    # s + 2 may be reached from s where s + 2 may skip back to s
    skip_ahead = _wrap(np.concatenate([align.can_skip[:, 2:], np.zeros((batch, 2), bool)], 1))
    valid, ends = _wrap(align.valid), _wrap(align.ends())
    beta, betas = neg, []
    for t in range(steps - 1, -1, -1):
        shift1 = cat([beta[:, 1:], neg_col], 1)
        shift2 = where(skip_ahead, cat([beta[:, 2:], neg_col, neg_col], 1), _NEG) if width > 2 else neg
        inner = where(valid, _logsumexp3(beta, shift1, shift2) + emissions[t], _NEG)
        last = _wrap((align.input_lengths - 1 == t)[:, None])
        after = _wrap((align.input_lengths - 1 < t)[:, None])
        beta = where(last, where(ends, emissions[t], _NEG), where(after, neg, inner))
        betas.append(beta)
    return stack(betas[::-1], 0)


def _neg_log_likelihood(alpha: Tensor, align: _Alignments) -> Tensor:
    """-log p(target | input) of each sample: the alphas at its last input, at the two end labels."""
    batch = align.extended.shape[0]
    last = alpha[_wrap(np.maximum(align.input_lengths - 1, 0)), _wrap(np.arange(batch))]  # (N, W)
    return -where(_wrap(align.ends()), last, _NEG).logsumexp(1)


class CtcLossBackward0(Node):
    """out_n = -log p_n. d out_n / d log_probs[t, n, c] = -(the posterior of being at a label c
    at step t): alpha and beta meet at (t, s); the emission counted in both is taken out once."""

    blank: int
    input_lengths: tuple
    target_lengths: tuple
    zero_infinity: bool
    log_probs_: SavedTensor
    targets_: SavedTensor
    result0_: SavedTensor
    result1_: SavedTensor

    def backward(self, grad: Tensor) -> tuple:
        log_probs = self._saved_log_probs
        align = _Alignments.of(self._saved_targets._data, np.array(self.input_lengths),
                               np.array(self.target_lengths), self.blank)
        emissions = align.emissions(log_probs)
        alpha, beta = _log_alpha(emissions, align), _log_beta(emissions, align)
        nll = _neg_log_likelihood(alpha, align)
        possible = _wrap(nll._data < -_NEG / 2)
        nll = where(possible, nll, 0.0)
        posterior = (alpha + beta - emissions + nll.reshape(1, -1, 1)).exp()  # (T, N, W)
        classes = log_probs.shape[2]
        to_class = _wrap((align.extended[:, :, None] == np.arange(classes)).astype(log_probs._data.dtype))
        per_class = (posterior.unsqueeze(-1) * to_class).sum(2)  # (T, N, C)
        weight = where(possible, grad, 0.0).reshape(1, -1, 1)
        return (-per_class * weight, None)


def _check_lengths(steps: int, batch: int, targets: np.ndarray, input_lengths: np.ndarray,
                   target_lengths: np.ndarray) -> None:
    """PyTorch's argument checks (``ctc_loss_allocate_outputs``)."""
    where_ = "(while checking arguments for ctc_loss_allocate_outputs)"
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if targets.ndim == 2 and targets.shape[1] < target_lengths.max(initial=0):
        raise RuntimeError(f"Expected tensor to have size at least {int(target_lengths.max())} at dimension 1, but "
                           f"got size {targets.shape[1]} for argument #2 'targets' {where_}")
    if (input_lengths > steps).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value "
                           f"{int(input_lengths.max())} {where_}")


def _ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: np.ndarray, target_lengths: np.ndarray,
              blank: int, zero_infinity: bool) -> Tensor:
    """ATen's ``_ctc_loss`` on a batch (T, N, C): each sample's negative log-likelihood (inf where
    impossible), recorded as ``CtcLossBackward0``."""
    target_data = targets._data.astype(np.int64)
    _check_lengths(log_probs.shape[0], log_probs.shape[1], target_data, input_lengths, target_lengths)
    align = _Alignments.of(target_data, input_lengths, target_lengths, blank)
    alpha = _log_alpha(align.emissions(log_probs.detach()), align)
    nll = _neg_log_likelihood(alpha, align)._data
    out = _wrap(np.where(nll > -_NEG / 2, np.inf, nll).astype(log_probs._data.dtype))
    if compute_requires_grad(log_probs):
        node = CtcLossBackward0(log_probs, targets)
        node.blank, node.zero_infinity = blank, zero_infinity
        node.input_lengths, node.target_lengths = tuple(input_lengths.tolist()), tuple(target_lengths.tolist())
        node.log_probs_, node.targets_ = SavedTensor(log_probs), SavedTensor(targets)
        node.result0_ = SavedTensor(out, is_output=True)
        node.result1_ = SavedTensor(_wrap(alpha._data.transpose(1, 0, 2)))  # PyTorch's log_alpha is (N, T, W)
        set_history(out, node)
    return out


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of ``log_probs`` (T, N, C) (or (T, C) unbatched; log-softmax outputs) for
    ``targets`` (N, S) padded or 1-D concatenated, with each sample's input and target length."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    batch = log_probs.unsqueeze(1) if unbatched else log_probs
    if unbatched:
        targets = targets.unsqueeze(0)
    in_len, tgt_len = _lengths(input_lengths), _lengths(target_lengths)
    losses = _ctc_loss(batch, targets, in_len, tgt_len, blank, zero_infinity)
    if zero_infinity:
        losses = where(losses == float("inf"), 0.0, losses)
    if reduction == "none":
        return losses.squeeze(0) if unbatched else losses
    if reduction == "sum":
        return losses.sum()
    return (losses / _wrap(np.maximum(tgt_len, 1).astype(losses._data.dtype))).mean()
