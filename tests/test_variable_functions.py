"""``torch.conv2d``, ``torch.dropout``, ``torch.embedding`` ...: the nn.functional ops under their
ATen names (glasstorch/_variable_functions.py), called with ATen's arguments, against PyTorch 2.13:
values, grad_fn names and the gradients of every input."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: comparisons with real PyTorch are skipped "
                                            "(pip install torch==2.13.0)")

from pytorch_oracle import assert_same, grad_fn_name, run_both  # noqa: E402

pytestmark = pytest.mark.torch


def values(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def leaf(lib, *shape, seed=0, low=-1.0, high=1.0):
    return lib.tensor(values(*shape, seed=seed, low=low, high=high), dtype=lib.float64, requires_grad=True)


def image(lib):
    return leaf(lib, 1, 2, 5, 5)


# name: (args(lib) -> tuple of positional arguments)
CALLS = {
    "conv1d": lambda lib: (leaf(lib, 1, 2, 6), leaf(lib, 3, 2, 3, seed=1), leaf(lib, 3, seed=2), 2, 1),
    "conv2d": lambda lib: (image(lib), leaf(lib, 3, 2, 3, 3, seed=1), None, 1, 1),
    "conv3d": lambda lib: (leaf(lib, 1, 1, 3, 3, 3), leaf(lib, 2, 1, 2, 2, 2, seed=1)),
    "conv_transpose1d": lambda lib: (leaf(lib, 1, 2, 4), leaf(lib, 2, 3, 3, seed=1), None, 2, 1, 1),
    "conv_transpose2d": lambda lib: (image(lib), leaf(lib, 2, 1, 2, 2, seed=1)),
    "conv_transpose3d": lambda lib: (leaf(lib, 1, 1, 2, 2, 2), leaf(lib, 1, 2, 2, 2, 2, seed=1)),
    "pixel_shuffle": lambda lib: (leaf(lib, 1, 4, 2, 3), 2),
    "pixel_unshuffle": lambda lib: (leaf(lib, 1, 1, 4, 6), 2),
    "channel_shuffle": lambda lib: (leaf(lib, 1, 4, 2, 2), 2),
    "prelu": lambda lib: (image(lib), leaf(lib, 2, seed=1, low=0.1, high=0.3)),
    "selu": lambda lib: (image(lib),),
    "celu": lambda lib: (image(lib), 0.7),
    "rrelu": lambda lib: (image(lib), 0.1, 0.3),
    "threshold": lambda lib: (image(lib), 0.2, -1.0),
    "hardshrink": lambda lib: (image(lib), 0.3),
    "cosine_similarity": lambda lib: (leaf(lib, 3, 4), leaf(lib, 3, 4, seed=1), 1),
    "pairwise_distance": lambda lib: (leaf(lib, 3, 4), leaf(lib, 3, 4, seed=1), 3.0),
    "pdist": lambda lib: (leaf(lib, 4, 3), 2.0),
    "bilinear": lambda lib: (leaf(lib, 2, 3), leaf(lib, 2, 4, seed=1), leaf(lib, 5, 3, 4, seed=2), leaf(lib, 5, seed=3)),
    "max_pool1d": lambda lib: (leaf(lib, 1, 2, 7), 3, 2),
    "max_pool2d": lambda lib: (image(lib), 2),
    "max_pool3d": lambda lib: (leaf(lib, 1, 1, 4, 4, 4), 2),
    "avg_pool1d": lambda lib: (leaf(lib, 1, 2, 7), 3, 2, 1, False, False),
    "adaptive_avg_pool1d": lambda lib: (leaf(lib, 1, 2, 7), 3),
    "adaptive_max_pool1d": lambda lib: (leaf(lib, 1, 2, 7), 3),
    "rms_norm": lambda lib: (leaf(lib, 2, 3, 4), (4,), leaf(lib, 4, seed=1)),
    "dropout": lambda lib: (image(lib), 0.5, False),
    "alpha_dropout": lambda lib: (image(lib), 0.5, False),
    "feature_alpha_dropout": lambda lib: (image(lib), 0.5, False),
    "layer_norm": lambda lib: (leaf(lib, 2, 3, 4), (3, 4), leaf(lib, 3, 4, seed=1), leaf(lib, 3, 4, seed=2), 1e-5, False),
    "group_norm": lambda lib: (leaf(lib, 2, 4, 3), 2, leaf(lib, 4, seed=1), leaf(lib, 4, seed=2), 1e-5, True),
    "batch_norm": lambda lib: (leaf(lib, 4, 3), leaf(lib, 3, seed=1), leaf(lib, 3, seed=2), lib.zeros(3, dtype=lib.float64),
                               lib.ones(3, dtype=lib.float64), True, 0.1, 1e-5, False),
    "instance_norm": lambda lib: (leaf(lib, 2, 3, 5), leaf(lib, 3, seed=1), None, None, None, True, 0.1, 1e-5, False),
    "embedding": lambda lib: (leaf(lib, 5, 3), lib.tensor([[0, 4, 2], [2, 2, 1]]), 2),
    "kl_div": lambda lib: (leaf(lib, 3, 4).log_softmax(1), leaf(lib, 3, 4, seed=1).softmax(1), 2),
    "binary_cross_entropy_with_logits": lambda lib: (leaf(lib, 3, 4), lib.tensor(values(3, 4, seed=1, low=0, high=1)),
                                                     None, lib.tensor(values(4, seed=2, low=0.5, high=2)), 0),
    "cosine_embedding_loss": lambda lib: (leaf(lib, 3, 4), leaf(lib, 3, 4, seed=1), lib.tensor([1, -1, 1]), 0.1, 2),
    "hinge_embedding_loss": lambda lib: (leaf(lib, 3, 4), lib.tensor(np.sign(values(3, 4, seed=1))), 0.5, 1),
    "margin_ranking_loss": lambda lib: (leaf(lib, 5), leaf(lib, 5, seed=1), lib.tensor([1.0, -1, 1, 1, -1]), 0.2, 0),
    "poisson_nll_loss": lambda lib: (leaf(lib, 3, 4), lib.tensor(values(3, 4, seed=1, low=0, high=3)), True, True, 1e-8, 1),
    "triplet_margin_loss": lambda lib: (leaf(lib, 3, 4), leaf(lib, 3, 4, seed=1), leaf(lib, 3, 4, seed=2), 1.0, 2.0, 1e-6,
                                        True, 2),
}
IN_PLACE = {"selu_": "selu", "celu_": "celu", "threshold_": "threshold", "rrelu_": "rrelu"}


def _tensors(result):
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_aten_name_matches_pytorch(name):
    def program(lib):
        args = CALLS[name](lib)
        outputs = _tensors(getattr(lib, name)(*args))
        loss = sum((out * lib.tensor(values(*out.shape, seed=7))).sum() for out in outputs if out.dtype.is_floating_point)
        loss.backward()
        leaves = [a for a in args if isinstance(a, lib.Tensor) and a.is_leaf and a.requires_grad]
        return {"out": outputs, "grad_fn": [grad_fn_name(out) for out in outputs], "grads": [a.grad for a in leaves]}

    got, want = run_both(program)
    assert_same(got, want)


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_aten_in_place_names_match_pytorch(name):
    def program(lib):
        x, *rest = CALLS[IN_PLACE[name]](lib)
        target = x * 1
        result = getattr(lib, name)(target, *rest)
        return result is target, target, grad_fn_name(target)

    got, want = run_both(program)
    assert got[0]
    assert_same(got, want)


def test_the_same_function_where_the_arguments_are_the_same():
    import glasstorch

    assert glasstorch.conv2d is glasstorch.nn.functional.conv2d
    assert glasstorch.dropout is not glasstorch.nn.functional.dropout  # ATen's (input, p, train)
