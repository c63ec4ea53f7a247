"""Issue 14's losses against PyTorch 2.13: HuberLoss, SmoothL1Loss, KLDivLoss, MarginRankingLoss,
CosineEmbeddingLoss, BCEWithLogitsLoss(pos_weight=), CrossEntropyLoss with class weights,
ignore_index, label_smoothing and probability targets: values, gradients, grad_fn names, reprs,
errors; gradcheck in float64 for the new Nodes."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.autograd import gradcheck, gradgradcheck
from test_nn_layers_more import run_both
from test_nn_vs_torch import outcomes, same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
X, Y = rng.standard_normal((4, 5)) * 2, rng.standard_normal((4, 5))
LOGITS = rng.standard_normal((6, 4))
CLASSES = np.array([0, 3, 1, 1, 2, 3])
PROBS = rng.random((6, 4))
PROBS /= PROBS.sum(1, keepdims=True)
SIGNS = np.array([1.0, -1.0, 1.0, -1.0])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name, kwargs", [("huber_loss", {}), ("huber_loss", {"delta": 0.5}),
                                          ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 2.5}),
                                          ("smooth_l1_loss", {"beta": 0.0})])
def test_robust_losses(name, kwargs, reduction):
    run_both(lambda lib, x, y: getattr(lib.nn.functional, name)(x, y, reduction=reduction, **kwargs), X, Y)
    args = (gt.tensor(X[:2], requires_grad=True), gt.tensor(Y[:2], requires_grad=True))
    f = lambda x, y: getattr(gt.nn.functional, name)(x, y, reduction=reduction, **kwargs)  # noqa: E731
    assert gradcheck(f, args)
    if kwargs.get("beta") != 0.0:
        assert gradgradcheck(f, args)


def test_robust_losses_broadcast_with_pytorch_s_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_both(lambda lib, x, y: lib.nn.functional.huber_loss(x, y), X, Y[0])


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    target = np.log(PROBS) if log_target else PROBS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_both(lambda lib, x, t: lib.nn.functional.kl_div(x.log_softmax(1), t, reduction=reduction,
                                                             log_target=log_target), LOGITS, target)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_margin_losses(reduction):
    run_both(lambda lib, a, b, t: lib.nn.functional.margin_ranking_loss(a, b, t, margin=0.3, reduction=reduction),
             X[:, 0], Y[:, 0], SIGNS)
    run_both(lambda lib, a, b, t: lib.nn.functional.cosine_embedding_loss(a, b, t, margin=0.2, reduction=reduction),
             X, Y + X * 0.5, SIGNS)
    run_both(lambda lib, a, b, t: lib.nn.functional.cosine_embedding_loss(a, b, t, reduction=reduction),
             X[0], Y[0], np.array(-1.0))


@pytest.mark.parametrize("kwargs", [{"weight": np.array([0.2, 1.0, 2.0, 0.5])}, {"ignore_index": 1},
                                    {"label_smoothing": 0.1}, {"weight": np.array([0.2, 1.0, 2.0, 0.5]),
                                                               "label_smoothing": 0.2, "ignore_index": 3}])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_options(kwargs, reduction):
    def loss(lib, x, weight=None):
        options = dict(kwargs, weight=weight) if weight is not None else kwargs
        return lib.nn.CrossEntropyLoss(reduction=reduction, **options)(x, lib.tensor(CLASSES))

    if "weight" in kwargs:  # class weights are constants (PyTorch refuses one that requires grad)
        run_both(lambda lib, x: loss(lib, x, lib.tensor(kwargs["weight"])), LOGITS)
    else:
        run_both(loss, LOGITS)
    # probabilities as targets ('mean' ends in a division by a number: PyTorch's DivBackward1, which
    # glasstorch's arithmetic does not name yet, another item of issue 14)
    smoothing = kwargs.get("label_smoothing", 0.0)
    run_both(lambda lib, x, p: lib.nn.CrossEntropyLoss(reduction=reduction, label_smoothing=smoothing)(x, p),
             LOGITS, PROBS, names=reduction != "mean")


def test_bce_with_logits_pos_weight():
    pos_weight = np.array([0.5, 1.0, 2.0, 3.0, 1.5])
    target = (rng.random((4, 5)) > 0.5).astype(np.float64)
    for reduction in ("mean", "none"):
        run_both(lambda lib, x, t: lib.nn.BCEWithLogitsLoss(pos_weight=lib.tensor(pos_weight),
                                                            reduction=reduction)(x, t), X, target)


def test_loss_modules_reprs_and_errors():
    def program(lib):
        nn, F = lib.nn, lib.nn.functional
        modules = [nn.HuberLoss(delta=0.5), nn.SmoothL1Loss(beta=2.0), nn.KLDivLoss(reduction="batchmean",
                                                                                   log_target=True),
                   nn.MarginRankingLoss(margin=0.1), nn.CosineEmbeddingLoss(margin=0.5),
                   nn.BCEWithLogitsLoss(pos_weight=lib.ones(3)), nn.CrossEntropyLoss(label_smoothing=0.1)]
        results = [(repr(m), m.reduction, list(m.state_dict())) for m in modules]
        results += [(m.delta if hasattr(m, "delta") else None) for m in modules[:1]]
        calls = [lambda: F.huber_loss(lib.ones(2), lib.ones(2), delta=0),
                 lambda: F.smooth_l1_loss(lib.ones(2), lib.ones(2), beta=-1),
                 lambda: F.huber_loss(lib.ones(2), lib.ones(3)),
                 lambda: F.huber_loss(lib.ones(2), lib.ones(2), reduction="bad"),
                 lambda: F.kl_div(lib.ones(2), lib.ones(2), reduction="bad"),
                 lambda: F.margin_ranking_loss(lib.ones(2), lib.ones(2), lib.ones(2, 1)),
                 lambda: F.cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 1)),
                 lambda: F.cosine_embedding_loss(lib.ones(3), lib.ones(3), lib.ones(2)),
                 lambda: F.cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3), lib.tensor(1.0))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results += outcomes(calls)
        return results

    same_in_both(program)


def test_kl_div_mean_warns_as_pytorch():
    def program(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.kl_div(lib.zeros(2, 3), lib.ones(2, 3) / 3)
        return [str(w.message) for w in caught]

    same_in_both(program)


# --- the margin and likelihood losses --------------------------------------------------------------
SIGNS_2D = np.sign(rng.standard_normal((4, 5)))
LABELS = (rng.random((4, 5)) > 0.5).astype(np.float64)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_margin_and_likelihood_losses(reduction):
    cases = [
        (lambda lib, x: lib.nn.functional.soft_margin_loss(x, lib.tensor(SIGNS_2D), reduction=reduction), (X,)),
        (lambda lib, x, t: lib.nn.functional.hinge_embedding_loss(x, t, margin=0.5, reduction=reduction),
         (X, SIGNS_2D)),
        (lambda lib, x, t: lib.nn.functional.multilabel_soft_margin_loss(x, t, reduction=reduction), (X, LABELS)),
        (lambda lib, x, t: lib.nn.functional.multilabel_soft_margin_loss(
            x, t, weight=lib.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=lib.float64), reduction=reduction), (X, LABELS)),
        (lambda lib, x, t: lib.nn.functional.poisson_nll_loss(x, t, reduction=reduction), (X, np.abs(Y) * 3)),
        (lambda lib, x, t: lib.nn.functional.poisson_nll_loss(x.exp(), t, log_input=False, full=True,
                                                               reduction=reduction), (X, np.abs(Y) * 3)),
        (lambda lib, x, t, v: lib.nn.functional.gaussian_nll_loss(x, t, v, reduction=reduction),
         (X, Y, np.abs(Y) + 0.1)),
        (lambda lib, x, t, v: lib.nn.functional.gaussian_nll_loss(x, t, v, full=True, reduction=reduction),
         (X, Y, np.abs(Y[:, :1]) + 0.1)),  # one variance per sample
        (lambda lib, a, p, n: lib.nn.functional.triplet_margin_loss(a, p, n, reduction=reduction), (X, Y, np.ascontiguousarray(Y[::-1]))),
        (lambda lib, a, p, n: lib.nn.functional.triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True,
                                                                    reduction=reduction), (X, Y, np.ascontiguousarray(Y[::-1]) * 0.5)),
    ]
    for f, arrays in cases:
        # (triplet: PyTorch's pairwise_distance records NormBackward1, glasstorch's norm
        # LinalgVectorNormBackward0 - under a 'none' reduction the last Node is clamp_min's all the same)
        run_both(f, *arrays)
    args = (gt.tensor(X[:2], requires_grad=True), gt.tensor(SIGNS_2D[:2]))
    assert gradcheck(lambda x, t: gt.nn.functional.soft_margin_loss(x, t, reduction=reduction), args)
    assert gradgradcheck(lambda x, t: gt.nn.functional.soft_margin_loss(x, t, reduction=reduction), args)


def test_margin_and_likelihood_modules_and_errors():
    def program(lib):
        nn, F = lib.nn, lib.nn.functional
        modules = [nn.SoftMarginLoss(), nn.HingeEmbeddingLoss(margin=2.0), nn.MultiLabelSoftMarginLoss(),
                   nn.PoissonNLLLoss(log_input=False, full=True), nn.GaussianNLLLoss(full=True, eps=1e-3),
                   nn.TripletMarginLoss(margin=0.5, p=1, swap=True)]
        results = [(repr(m), m.reduction, sorted(k for k in vars(m) if not k.startswith("_"))) for m in modules]
        x = lib.ones(2, 3)
        calls = [lambda: F.soft_margin_loss(x, lib.ones(2, 3, requires_grad=True)),
                 lambda: F.gaussian_nll_loss(x, x, -lib.ones(2, 3)), lambda: F.gaussian_nll_loss(x, x, lib.ones(3, 2)),
                 lambda: F.gaussian_nll_loss(x, x, 1.0, reduction="bad"),
                 lambda: F.poisson_nll_loss(x, x, reduction="bad"), lambda: F.triplet_margin_loss(x, x, x, margin=0),
                 lambda: F.triplet_margin_loss(x, x, lib.ones(3)), lambda: nn.TripletMarginLoss(margin=-1),
                 lambda: F.multilabel_soft_margin_loss(x, x, reduction="bad")]
        results += outcomes(calls)
        return results

    same_in_both(program)
