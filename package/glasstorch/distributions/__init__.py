"""``glasstorch.distributions``: probability distributions whose parameters can be tensors that
require grad. Mirrors torch/distributions/ (only ``Normal`` so far)."""
from .normal import Normal

__all__ = ["Normal"]
