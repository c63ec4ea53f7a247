"""Loss layers. Mirrors torch/nn/modules/loss.py.

A loss with class or element weights keeps them as a *buffer* (``_WeightedLoss``), as PyTorch
does: ``state_dict`` saves them and ``.to()`` converts them, but no optimizer trains them.
``size_average`` and ``reduce`` are PyTorch's deprecated flags, turned into ``reduction``.
"""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    """The mean (``reduction='mean'``), sum or elementwise squared error."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


def _reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return F.legacy_get_string(size_average, reduce)
    return reduction


class _WeightedLoss(_Loss):
    """A loss with an optional ``weight`` tensor, registered as a buffer (None allowed)."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """The mean (``reduction='mean'``), sum or elementwise absolute error."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """The negative log-likelihood of class indices under log-probabilities (e.g. LogSoftmax's)."""

    ignore_index: int

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """LogSoftmax then NLLLoss, in one: the loss of logits against class indices (or class
    probabilities), with optional class weights and label smoothing."""

    ignore_index: int
    label_smoothing: float

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100,
                 reduce: bool | None = None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """The binary cross entropy of probabilities (e.g. Sigmoid's outputs) against 0/1 targets."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid then BCELoss, in one numerically stable step; ``pos_weight`` (a buffer, like
    ``weight``) scales the loss of the positive class."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", pos_weight: Tensor | None = None) -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class HuberLoss(_Loss):
    """Quadratic for |input - target| < delta, linear beyond."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SmoothL1Loss(_Loss):
    """HuberLoss / beta: quadratic below ``beta``, |input - target| - beta / 2 above."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class KLDivLoss(_Loss):
    """The KL divergence of ``target`` from log-probabilities ``input`` (use ``reduction='batchmean'``)."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    """max(0, -target * (x1 - x2) + margin)."""

    def __init__(self, margin: float = 0.0, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) for similar pairs (target 1), max(0, cos(x1, x2) - margin) for dissimilar ones (-1)."""

    def __init__(self, margin: float = 0.0, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-target * input)) for targets ±1."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """input where target is 1, max(0, margin - input) where it is -1."""

    def __init__(self, margin: float = 1.0, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """A binary cross entropy per class, averaged over the classes."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """The negative log-likelihood of counts under a Poisson distribution."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average: bool | None = None,
                 eps: float = 1e-8, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The negative log-likelihood of the target under N(input, var)."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, margin + d(anchor, positive) - d(anchor, negative))."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


# --- found missing by running PyTorch's docstring examples (issue 14); the ops are in ops/margin_losses.py
class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss: each wrong class should score at least ``margin`` below the right one."""

    __constants__ = ["p", "margin", "reduction"]

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss: every target class should score at least 1 above every other class."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(_reduction(size_average, reduce, reduction))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class CTCLoss(_Loss):
    """The Connectionist Temporal Classification loss: -log of the total probability of every
    alignment of the input sequence to the (shorter) target (``ops/ctc_loss.py``)."""

    __constants__ = ["blank", "reduction"]

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)
