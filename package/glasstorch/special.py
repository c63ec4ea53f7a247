"""``glasstorch.special``: special functions under the names of ``torch.special`` (many are the
ordinary functions under a second name: ``expit`` is ``sigmoid``, ``psi`` is ``digamma``)."""
from __future__ import annotations

import math

from ._tensor import Tensor
from .ops import (digamma, expm1, lgamma as gammaln, log1p, log_softmax, logsumexp, polygamma, round, sigmoid as expit,
                  softmax, xlogy)
from .ops.special import entr, erf, erfc, erfinv, exp2, logit, sinc

psi = digamma


def ndtr(input: Tensor) -> Tensor:
    """The standard normal distribution's CDF, (1 + erf(x / sqrt(2))) / 2, composed as in PyTorch."""
    return (1 + erf(input * (1 / math.sqrt(2)))) * 0.5


__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p", "log_softmax",
           "logit", "logsumexp", "ndtr", "polygamma", "psi", "round", "sinc", "softmax", "xlogy"]
