"""Random sampling: ``normal``, ``bernoulli``, ``multinomial`` and the in-place fills ``normal_``,
``uniform_``, ``random_``, ``exponential_``, ``bernoulli_``, each taking ``generator=``.

Mirrors ``torch/_torch_docs.py``'s random sampling section and ``aten/src/ATen/native/Distributions.cpp``.
Every draw comes from a ``glasstorch.Generator`` (numpy's PCG64): a seed gives the same numbers on
every run, but not PyTorch's numbers (PyTorch draws from a Mersenne Twister).

A sample does not change smoothly with the distribution's parameters, so PyTorch defines its
gradient as zero: these ops record a Node (``NormalBackward1``, ``BernoulliBackward0`` ...) whose
backward returns zeros, so a graph through them stays connected.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _wrap
from .._typename import scalar_type_name
from ..autograd.graph import Node
from ..random import Generator, _generator_of
from ._elementwise import shape_of
from ._util import compute_requires_grad, set_history
from .inplace import apply_inplace


class _ZeroGradient(Node):
    """d sample / d parameters = 0 (PyTorch's formula for every sampling op)."""

    def input_sizes(self, grad: Tensor) -> tuple:
        """The shape of each input: the output's, unless the Node saved others."""
        return (grad._data.shape,)

    def backward(self, grad: Tensor) -> tuple:
        return tuple(_wrap(np.zeros(shape, grad._data.dtype)) if self.needs_input_grad(i) else None
                     for i, shape in enumerate(self.input_sizes(grad)))


class NormalBackward0(_ZeroGradient):
    """``normal_`` in place."""


class NormalBackward1(_ZeroGradient):
    """``normal(mean: Tensor, std: float)``."""

    mean_sym_sizes: tuple

    def input_sizes(self, grad: Tensor) -> tuple:
        return (self.mean_sym_sizes,)


class NormalBackward2(_ZeroGradient):
    """``normal(mean: float, std: Tensor)``."""

    std_sym_sizes: tuple

    def input_sizes(self, grad: Tensor) -> tuple:
        return (self.std_sym_sizes,)


class NormalBackward3(_ZeroGradient):
    """``normal(mean: Tensor, std: Tensor)``."""

    mean_sym_sizes: tuple
    std_sym_sizes: tuple

    def input_sizes(self, grad: Tensor) -> tuple:
        return self.mean_sym_sizes, self.std_sym_sizes


class UniformBackward0(_ZeroGradient):
    pass


class RandomBackward0(_ZeroGradient):
    """``random_(from, to)``; ``random_(to)`` is RandomBackward1, ``random_()`` RandomBackward2."""


class RandomBackward1(_ZeroGradient):
    pass


class RandomBackward2(_ZeroGradient):
    pass


class ExponentialBackward0(_ZeroGradient):
    pass


class BernoulliBackward0(_ZeroGradient):
    """``bernoulli(input)``."""


class BernoulliBackward1(_ZeroGradient):
    """``bernoulli_(p: Tensor)``."""


class BernoulliBackward2(_ZeroGradient):
    """``bernoulli_(p: float)``."""


def _sampled(values: np.ndarray, node_class: type, *inputs: Any) -> Tensor:
    out = _wrap(values)
    if compute_requires_grad(*inputs):
        set_history(out, node_class(*inputs))
    return out


# --- normal ---------------------------------------------------------------------------------
def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None,
           out: Tensor | None = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Samples of N(mean, std**2). ``mean`` and ``std`` may be tensors (broadcast together), or
    two numbers with ``size``."""
    rng = _generator_of(generator)
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_is_tensor and not std_is_tensor:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), "
                            "but expected (float mean, float std, tuple of ints size, *, Generator generator)")
        _check_std(std)
        from .._creation import _finish, _float_dtype, _size

        values = rng.normal(0.0, 1.0, _size((size,))) * std + mean
        result = _finish(values.astype(_float_dtype(dtype).numpy_dtype), None, device, requires_grad)
        return result if out is None else _into(out, result)
    if std_is_tensor:
        _check_std(std._data.min() if std._data.size else 0.0)
    else:
        _check_std(std)
    like = mean if mean_is_tensor else std
    if not like.dtype.is_floating_point:
        raise RuntimeError(f"normal expects floating point tensors, got {like.dtype}")
    shape = np.broadcast_shapes(shape_of(mean), shape_of(std))
    values = rng.normal(0.0, 1.0, shape) * _value(std) + _value(mean)
    node_class = NormalBackward3 if mean_is_tensor and std_is_tensor else NormalBackward1 if mean_is_tensor else NormalBackward2
    inputs = [t for t in (mean, std) if isinstance(t, Tensor)]
    result = _sampled(values.astype(like._data.dtype), node_class, *inputs)
    if result.grad_fn is not None:
        result.grad_fn.mean_sym_sizes, result.grad_fn.std_sym_sizes = shape_of(mean), shape_of(std)
    return result if out is None else _into(out, result)


def _value(value: Any) -> Any:
    return value._data if isinstance(value, Tensor) else value


def _check_std(std: Any) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")


def _into(out: Tensor, result: Tensor) -> Tensor:
    from .inplace import copy_

    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, out._data.dtype)  # out= resizes its tensor, as PyTorch's
    return copy_(out, result.detach())


# --- bernoulli and multinomial --------------------------------------------------------------
def bernoulli(input: Tensor, p: Any = None, *, generator: Generator | None = None, out: Tensor | None = None) -> Tensor:
    """1 with probability ``input`` (or ``p``), else 0, in ``input``'s dtype. (With ``p``, PyTorch
    records a Node without a derivative; glasstorch records BernoulliBackward0's zero gradient.)"""
    probabilities = input._data if p is None else np.broadcast_to(np.asarray(p, np.float64), input._data.shape)
    _check_probabilities(probabilities)
    draws = _generator_of(generator).random(input._data.shape) < probabilities
    result = _sampled(draws.astype(input._data.dtype), BernoulliBackward0, input)
    return result if out is None else _into(out, result)


def _check_probabilities(p: np.ndarray) -> None:
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (bernoulli: every "
                           "probability must lie in [0, 1])")


def bernoulli_(tensor: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill with 1 (probability ``p``, a number or a tensor that broadcasts) or 0."""
    p_values = _value(p)

    def fill(old: Tensor) -> Tensor:
        probabilities = np.broadcast_to(np.asarray(p_values, np.float64), old._data.shape)
        _check_probabilities(probabilities)
        draws = _generator_of(generator).random(old._data.shape) < probabilities
        node_class = BernoulliBackward1 if isinstance(p, Tensor) else BernoulliBackward2
        return _sampled(draws.astype(old._data.dtype), node_class, old)

    return apply_inplace(tensor, fill)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None, out: Tensor | None = None) -> Tensor:
    """Indices drawn from the categorical distributions in the rows of ``input`` (non-negative
    weights, not necessarily summing to 1). Without replacement each index is drawn at most once."""
    data = input._data
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{scalar_type_name(input.dtype)}")
    if data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > data.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    weights = np.atleast_2d(data).astype(np.float64)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (weights.sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _generator_of(generator)
    if replacement and num_samples > 1:
        indices = _with_replacement(weights, num_samples, rng)
    else:  # PyTorch's fast path for one draw too: with one draw, replacement makes no difference
        if ((weights > 0).sum(axis=1) < num_samples).any():
            raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough non-negative "
                               "category to sample)")
        indices = _without_replacement(np.atleast_2d(data), num_samples, rng)
    result = _wrap(indices.reshape(data.shape[:-1] + (num_samples,)))
    return result if out is None else _into(out, result)


def _with_replacement(weights: np.ndarray, n: int, rng: Generator) -> np.ndarray:
    """Inverse-CDF sampling of every row at once: row r's cumulative weights, scaled to [0, 1],
    are shifted by r, so one sorted array serves all rows and searchsorted finds each draw."""
    rows, k = weights.shape
    cdf = np.cumsum(weights, axis=1)
    cdf = cdf / cdf[:, -1:] + np.arange(rows)[:, None]
    cdf[:, -1] = np.arange(1, rows + 1)  # exactly r + 1 at each row's end, whatever the rounding
    draws = rng.random((rows, n)) + np.arange(rows)[:, None]
    flat = np.searchsorted(cdf.ravel(), draws.ravel(), side="right").reshape(rows, n)
    return np.minimum(flat - np.arange(rows)[:, None] * k, k - 1).astype(np.int64)


def _without_replacement(weights: np.ndarray, n: int, rng: Generator) -> np.ndarray:
    """PyTorch's method: divide each weight by an Exp(1) draw and keep the ``n`` largest (the
    exponential race: category i wins first with probability w_i / sum(w)), in the weights' dtype
    as PyTorch (``multinomial_out``: q = empty_like(self).exponential_(); argmax or topk of self / q)."""
    keys = weights / rng.exponential(1.0, weights.shape).astype(weights.dtype)
    return np.argsort(-keys, axis=1, kind="stable")[:, :n].astype(np.int64)


# --- in-place fills -------------------------------------------------------------------------
def _fill(tensor: Tensor, draw: Any, node_class: type) -> Tensor:
    """Overwrite ``tensor`` with ``draw(shape)`` (converted to its dtype), recorded as a Node of
    zero gradient when the tensor is part of a graph."""
    def fill(old: Tensor) -> Tensor:
        return _sampled(np.asarray(draw(old._data.shape)).astype(old._data.dtype), node_class, old)

    return apply_inplace(tensor, fill)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    _check_std(std)
    return _fill(tensor, lambda shape: _generator_of(generator).normal(mean, std, shape), NormalBackward0)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    return _fill(tensor, lambda shape: _generator_of(generator).uniform(a, b, shape), UniformBackward0)


def exponential_(tensor: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill(tensor, lambda shape: _generator_of(generator).exponential(lambd, shape), ExponentialBackward0)


def random_(tensor: Tensor, from_: Any = None, to: Any = None, *, generator: Generator | None = None,
            **kwargs: Any) -> Tensor:
    """Integers drawn uniformly: ``random_()`` over [0, 2**mantissa] for floats (every integer the
    dtype holds exactly) or [0, max] for integers; ``random_(to)`` over [0, to);
    ``random_(from, to)`` over [from, to)."""
    from_ = kwargs.pop("from", from_)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if from_ is not None and to is None:
        low, high, node_class = 0, from_, RandomBackward1
    elif from_ is None:
        low, high, node_class = 0, _full_range(tensor.dtype) + 1, RandomBackward2
    else:
        low, high, node_class = from_, to, RandomBackward0
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _fill(tensor, lambda shape: _generator_of(generator).integers(low, high, shape), node_class)


def _full_range(dtype: dtypes.dtype) -> int:
    if dtype is dtypes.bool:
        return 1
    if dtype.is_floating_point:
        return 2 ** (int(np.finfo(dtype.numpy_dtype).nmant) + 1) if dtype is not dtypes.bfloat16 else 2 ** 8
    return int(np.iinfo(dtype.numpy_dtype).max)
