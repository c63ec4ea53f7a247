"""``glasstorch.distributions``: probability distributions whose parameters can be tensors that
require grad. Mirrors torch/distributions/: Normal, Uniform, Bernoulli, Categorical, Multinomial."""
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .multinomial import Multinomial
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Multinomial", "Normal", "Uniform"]
