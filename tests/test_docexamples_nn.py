"""Layers found missing by running the examples in PyTorch's own docstrings (issue 14): interpolate
and Upsample, pixel/channel shuffle, RMSNorm, LocalResponseNorm, RReLU, gumbel_softmax, 3-D and
power-average pooling, max unpooling. Compared with PyTorch 2.13 (values, gradients, reprs,
state_dict keys), gradchecked in float64; bad input gets PyTorch's exception type and key phrase."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

from test_nn_vs_torch import outcomes  # noqa: E402

RNG = np.random.default_rng(14)
IMAGE = RNG.standard_normal((2, 4, 5, 6))
SIGNAL = RNG.standard_normal((2, 3, 7))
VOLUME = RNG.standard_normal((2, 2, 6, 5, 7))

CALLS = {
    "nearest_size": (IMAGE, lambda l, x: l.nn.functional.interpolate(x, size=(7, 4))),
    "nearest_scale": (IMAGE, lambda l, x: l.nn.functional.interpolate(x, scale_factor=1.7)),
    "nearest_exact": (IMAGE, lambda l, x: l.nn.functional.interpolate(x, size=(3, 9), mode="nearest-exact")),
    "bilinear": (IMAGE, lambda l, x: l.nn.functional.interpolate(x, size=(9, 4), mode="bilinear")),
    "bilinear_align": (IMAGE, lambda l, x: l.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)),
    "bilinear_scale": (IMAGE, lambda l, x: l.nn.functional.interpolate(x, scale_factor=(1.5, 0.5), mode="bilinear")),
    "linear": (SIGNAL, lambda l, x: l.nn.functional.interpolate(x, size=12, mode="linear")),
    "trilinear": (VOLUME, lambda l, x: l.nn.functional.interpolate(x, size=(3, 7, 4), mode="trilinear", align_corners=False)),
    "upsample_module": (IMAGE, lambda l, x: l.nn.Upsample(scale_factor=2, mode="bilinear")(x)),
    "upsampling_nearest2d": (IMAGE, lambda l, x: l.nn.UpsamplingNearest2d(scale_factor=2)(x)),
    "upsampling_bilinear2d": (IMAGE, lambda l, x: l.nn.UpsamplingBilinear2d(size=(8, 3))(x)),
    "pixel_shuffle": (IMAGE, lambda l, x: l.nn.PixelShuffle(2)(x)),
    "pixel_unshuffle": (RNG.standard_normal((1, 2, 4, 6)), lambda l, x: l.nn.functional.pixel_unshuffle(x, 2)),
    "channel_shuffle": (IMAGE, lambda l, x: l.nn.ChannelShuffle(2)(x)),
    "rms_norm": (IMAGE, lambda l, x: l.nn.functional.rms_norm(x, (5, 6), eps=1e-3)),
    "rms_norm_weight": (SIGNAL, lambda l, x: l.nn.functional.rms_norm(x, [7], l.linspace(0.5, 2, 7, dtype=x.dtype))),
    "rms_norm_module": (IMAGE, lambda l, x: l.nn.RMSNorm([6])(x)),
    "local_response_norm": (IMAGE, lambda l, x: l.nn.LocalResponseNorm(3)(x)),
    "local_response_norm_3d": (SIGNAL, lambda l, x: l.nn.functional.local_response_norm(x, 2, alpha=0.1, k=2.0)),
    "local_response_norm_5d": (VOLUME, lambda l, x: l.nn.functional.local_response_norm(x, 2)),
    "rrelu_eval": (IMAGE, lambda l, x: l.nn.RReLU(0.1, 0.3).eval()(x)),
    "avg_pool3d": (VOLUME, lambda l, x: l.nn.AvgPool3d(2, stride=(1, 2, 2))(x)),
    "avg_pool3d_padding": (VOLUME, lambda l, x: l.nn.functional.avg_pool3d(x, 3, 2, padding=1, count_include_pad=False)),
    "avg_pool3d_divisor": (VOLUME, lambda l, x: l.nn.functional.avg_pool3d(x, (2, 1, 3), padding=(1, 0, 1), divisor_override=2)),
    "adaptive_avg_pool3d": (VOLUME, lambda l, x: l.nn.AdaptiveAvgPool3d((4, None, 3))(x)),
    "adaptive_max_pool3d": (VOLUME, lambda l, x: l.nn.AdaptiveMaxPool3d((2, 3, 5))(x)),
    "lp_pool1d": (SIGNAL, lambda l, x: l.nn.LPPool1d(2, 3, stride=2)(x.abs() + 0.1)),
    "lp_pool2d": (IMAGE, lambda l, x: l.nn.LPPool2d(1.5, (2, 3))(x.abs() + 0.1)),
    "lp_pool3d": (VOLUME, lambda l, x: l.nn.functional.lp_pool3d(x.abs() + 0.1, 3.0, 2)),
    "max_unpool2d": (IMAGE, lambda l, x: l.nn.MaxUnpool2d(2)(*l.nn.functional.max_pool2d(x, 2, return_indices=True))),
    "max_unpool1d_size": (SIGNAL, lambda l, x: l.nn.functional.max_unpool1d(*l.nn.functional.max_pool1d(x, 2, return_indices=True), 2, output_size=[7])),
    "max_unpool3d": (VOLUME[:, :, :, :4, :6], lambda l, x: l.nn.MaxUnpool3d(2)(*l.nn.functional.max_pool3d(x, 2, return_indices=True))),
}


@pytest.mark.parametrize("name", CALLS)
def test_values_and_gradients_as_pytorch(name):
    values, call = CALLS[name]
    results = []
    for lib in (gt, torch):
        x = lib.tensor(values, requires_grad=True)
        out = call(lib, x)
        (out * lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape).cos()).sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), str(out.dtype).split(".")[-1]))
    (got, got_grad, got_dtype), (want, want_grad, want_dtype) = results
    assert got_dtype == want_dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", [n for n in CALLS if not n.startswith(("max_unpool", "adaptive_max"))])
def test_gradcheck_float64(name):
    values, call = CALLS[name]
    x = gt.tensor(values, requires_grad=True)
    assert gradcheck(lambda t: call(gt, t), (x,), eps=1e-6, atol=1e-5)


def test_gradcheck_unpool_and_adaptive_max():
    x = gt.tensor(VOLUME[:1, :1], requires_grad=True)
    assert gradcheck(lambda t: gt.nn.functional.adaptive_max_pool3d(t, (2, 3, 2)), (x,), eps=1e-6, atol=1e-5)
    y = gt.tensor(IMAGE[:1], requires_grad=True)
    assert gradcheck(lambda t: gt.nn.functional.max_unpool2d(*gt.nn.functional.max_pool2d(t, 2, return_indices=True), 2),
                     (y,), eps=1e-6, atol=1e-5)


def test_reprs_and_state_dicts_as_pytorch():
    for make in (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), lambda nn: nn.Upsample(size=(3, 4)),
                 lambda nn: nn.UpsamplingNearest2d(size=3), lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
                 lambda nn: nn.PixelShuffle(3), lambda nn: nn.PixelUnshuffle(2), lambda nn: nn.ChannelShuffle(2),
                 lambda nn: nn.RMSNorm([2, 3]), lambda nn: nn.RMSNorm(4, eps=1e-5, elementwise_affine=False),
                 lambda nn: nn.LocalResponseNorm(2), lambda nn: nn.RReLU(0.1, 0.3), lambda nn: nn.RReLU(inplace=True),
                 lambda nn: nn.AvgPool3d(3, stride=2), lambda nn: nn.AdaptiveAvgPool3d((5, 7, 9)),
                 lambda nn: nn.AdaptiveMaxPool3d(5), lambda nn: nn.LPPool2d(2, 3, stride=2), lambda nn: nn.LPPool1d(1.5, 3),
                 lambda nn: nn.LPPool3d(2, 2), lambda nn: nn.MaxUnpool2d(2, stride=2), lambda nn: nn.MaxUnpool1d(2),
                 lambda nn: nn.MaxUnpool3d(3, padding=1)):
        got, want = make(gt.nn), make(torch.nn)
        assert repr(got) == repr(want)
        assert list(got.state_dict()) == list(want.state_dict())
        for (name, p), (want_name, q) in zip(got.state_dict().items(), want.state_dict().items()):
            np.testing.assert_array_equal(p.numpy(), q.numpy())


def test_random_layers_keep_their_law():
    """rrelu in training and gumbel_softmax draw from glasstorch's generator: not PyTorch's numbers,
    but the same shape, dtype, and properties (slopes within [lower, upper]; a distribution, or a
    one-hot with the soft sample's gradient)."""
    gt.manual_seed(0)
    x = gt.tensor(-np.abs(RNG.standard_normal((200,))).astype(np.float32))
    slopes = (gt.nn.RReLU(0.1, 0.3)(x) / x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    assert gt.nn.RReLU(0.1, 0.3).eval()(x).allclose(x * 0.2)
    logits = gt.randn(20, 32, requires_grad=True)
    soft = gt.nn.functional.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), 1.0, rtol=1e-5)
    hard = gt.nn.functional.gumbel_softmax(logits, hard=True)
    assert set(np.unique(hard.detach().numpy())) == {0.0, 1.0} and (hard.sum(-1) == 1).all()
    hard[:, 0].sum().backward()
    assert logits.grad.abs().sum() > 0
    for lib in (gt, torch):
        assert str(lib.nn.functional.gumbel_softmax(lib.zeros(3, 4), hard=True).dtype).endswith("float32")


ERRORS = [
    lambda l: l.nn.functional.interpolate(l.ones(1, 1, 4), size=3, mode="bilinear"),
    lambda l: l.nn.functional.interpolate(l.ones(1, 1, 4, 4), size=3, scale_factor=2),
    lambda l: l.nn.functional.interpolate(l.ones(1, 1, 4, 4)),
    lambda l: l.nn.functional.interpolate(l.ones(1, 1, 4, 4), size=3, mode="nearest", align_corners=True),
    lambda l: l.nn.functional.interpolate(l.ones(1, 1, 4, 4), size=(2, 3, 4)),
    lambda l: l.nn.functional.pixel_shuffle(l.ones(1, 3, 2, 2), 2),
    lambda l: l.nn.functional.pixel_shuffle(l.ones(3, 2), 2),
    lambda l: l.nn.functional.pixel_unshuffle(l.ones(1, 1, 3, 4), 2),
    lambda l: l.nn.functional.channel_shuffle(l.ones(1, 3, 2, 2), 2),
    lambda l: l.nn.functional.rms_norm(l.ones(2, 3), [4]),
    lambda l: l.nn.functional.local_response_norm(l.ones(2, 3), 2),
    lambda l: l.nn.functional.avg_pool3d(l.ones(2, 2, 2), 2),
    lambda l: l.nn.functional.max_unpool2d(l.ones(1, 1, 2, 2), l.tensor([[[[0, 1], [2, 99]]]]), 2),
    lambda l: l.nn.functional.rrelu(l.tensor([1, -2])),
    lambda l: l.nn.functional.rrelu(l.tensor([1, -2]), training=True),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_as_pytorch(index):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = (outcomes([lambda lib=lib: ERRORS[index](lib)])[0] for lib in (gt, torch))
    assert want != "no error"
    assert got[0] == want[0] and got[1][:30] == want[1][:30], (got, want)


LOGITS = RNG.standard_normal((4, 5))
MARGIN_CALLS = {
    "multi_margin": lambda l, x: l.nn.MultiMarginLoss()(x, l.tensor([1, 0, 4, 2])),
    "multi_margin_p2_weight": lambda l, x: l.nn.functional.multi_margin_loss(
        x, l.tensor([1, 0, 4, 2]), p=2, margin=0.7, weight=l.linspace(0.5, 2.0, 5, dtype=x.dtype), reduction="none"),
    "multi_margin_sum_1d": lambda l, x: l.nn.functional.multi_margin_loss(x[0], l.tensor(3), reduction="sum"),
    "multilabel_margin": lambda l, x: l.nn.MultiLabelMarginLoss()(x, l.tensor([[3, 0, -1, 1, 2], [1, 1, 4, -1, 0],
                                                                             [0, 1, 2, 3, 4], [-1, 2, 2, 2, 2]])),
    "multilabel_margin_none_1d": lambda l, x: [l.nn.functional.multilabel_margin_loss(x, l.tensor([[2, -1, 0, 0, 0]] * 4), reduction="none"),
                                               l.nn.functional.multilabel_margin_loss(x[1], l.tensor([4, 0, -1, 2, 2]))],
}


@pytest.mark.parametrize("name", MARGIN_CALLS)
def test_margin_losses_as_pytorch(name):
    results = []
    for lib in (gt, torch):
        x = lib.tensor(LOGITS, requires_grad=True)
        outs = MARGIN_CALLS[name](lib, x)
        outs = outs if isinstance(outs, list) else [outs]
        sum(((o * (lib.arange(o.numel(), dtype=o.dtype).reshape(o.shape) + 1)).sum() for o in outs)).backward()
        results.append(([o.detach().numpy() for o in outs], x.grad.numpy()))
    for got, want in zip(results[0][0] + [results[0][1]], results[1][0] + [results[1][1]]):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10)
    x = gt.tensor(LOGITS, requires_grad=True)
    assert gradcheck(lambda t: tuple(MARGIN_CALLS[name](gt, t)) if isinstance(MARGIN_CALLS[name](gt, t), list)
                     else MARGIN_CALLS[name](gt, t), (x,), eps=1e-6, atol=1e-5)


def test_margin_loss_modules_and_errors_as_pytorch():
    for make in (lambda nn: nn.MultiMarginLoss(), lambda nn: nn.MultiMarginLoss(p=2, margin=0.5, weight=None),
                 lambda nn: nn.MultiLabelMarginLoss(reduction="sum")):
        assert repr(make(gt.nn)) == repr(make(torch.nn))
    calls = [lambda l: l.nn.MultiMarginLoss(p=3),
             lambda l: l.nn.functional.multi_margin_loss(l.ones(2, 3), l.tensor([0, 3])),
             lambda l: l.nn.functional.multi_margin_loss(l.ones(2, 3), l.tensor([0, 1, 2])),
             lambda l: l.nn.functional.multilabel_margin_loss(l.ones(2, 3), l.tensor([[0, 5, -1], [0, -1, 0]])),
             lambda l: l.nn.functional.multilabel_margin_loss(l.ones(2, 3), l.tensor([0, 1]))]
    for call in calls:
        got, want = (outcomes([lambda lib=lib: call(lib)])[0] for lib in (gt, torch))
        assert want != "no error" and got[0] == want[0] and got[1][:18] == want[1][:18], (got, want)


@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.2}, {"weight": [0.5, 1.0, 2.0, 1.5, 1.0]}],
                         ids=["plain", "label_smoothing", "weight"])
def test_cross_entropy_probabilities_graph_as_pytorch(kwargs):
    """Class-probability targets, as in CrossEntropyLoss's docstring example: PyTorch divides by the
    batch size in C++ (DivBackward1, saving the number) after the negation (NegBackward0)."""
    observed = []
    for lib in (gt, torch):
        x = lib.tensor(LOGITS, requires_grad=True)
        target = lib.tensor(LOGITS[::-1].copy()).softmax(1)
        options = {k: lib.tensor(v, dtype=x.dtype) if isinstance(v, list) else v for k, v in kwargs.items()}
        loss = lib.nn.functional.cross_entropy(x, target, **options)
        loss.backward()
        node = loss.grad_fn
        observed.append((type(node).__name__, node._saved_other, type(node.next_functions[0][0]).__name__,
                         loss.item(), x.grad.numpy()))
    (name, other, below, value, grad), want = observed
    assert (name, other, below) == want[:3] == ("DivBackward1", 4, "NegBackward0")
    np.testing.assert_allclose(value, want[3], rtol=1e-12)
    np.testing.assert_allclose(grad, want[4], rtol=1e-10, atol=1e-12)
    target = gt.tensor(LOGITS[::-1].copy()).softmax(1)
    assert gradcheck(lambda t: gt.nn.functional.cross_entropy(t, target), (gt.tensor(LOGITS, requires_grad=True),))


CTC_RNG = np.random.default_rng(21)
CTC_LOGITS = CTC_RNG.standard_normal((12, 4, 6))
CTC_TARGETS = CTC_RNG.integers(1, 6, (4, 5))
CTC_TARGETS[0, 1] = CTC_TARGETS[0, 0]  # a repeated label needs a blank between
CTC_CALLS = {
    "mean": lambda l, lp, t: l.nn.CTCLoss()(lp, t, l.tensor([12, 10, 12, 7]), l.tensor([5, 3, 0, 4])),
    "sum_blank": lambda l, lp, t: l.nn.functional.ctc_loss(lp, t.clamp(max=4), l.tensor([12, 10, 12, 7]), l.tensor([5, 3, 1, 4]),
                                                           blank=5, reduction="sum"),
    "none_concatenated": lambda l, lp, t: l.nn.functional.ctc_loss(lp, l.cat([t[0, :2], t[1, :3], t[2, :1], t[3, :4]]),
                                                                   (12, 12, 5, 9), (2, 3, 1, 4), reduction="none"),
    "unbatched": lambda l, lp, t: l.nn.functional.ctc_loss(lp[:, 0], t[0, :4], l.tensor(12), l.tensor(4), reduction="none"),
    "zero_infinity": lambda l, lp, t: l.nn.functional.ctc_loss(lp, t, l.tensor([12, 3, 12, 7]), l.tensor([5, 5, 2, 4]),
                                                               zero_infinity=True, reduction="none"),
}


@pytest.mark.parametrize("name", CTC_CALLS)
def test_ctc_loss_as_pytorch(name):
    results = []
    for lib in (gt, torch):
        x = lib.tensor(CTC_LOGITS, requires_grad=True)
        loss = CTC_CALLS[name](lib, x.log_softmax(2), lib.tensor(CTC_TARGETS))
        (loss * (lib.arange(loss.numel(), dtype=loss.dtype).reshape(loss.shape) + 1)).sum().backward()
        results.append((loss.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-12)
    if name != "zero_infinity":
        x = gt.tensor(CTC_LOGITS[:5, :2], requires_grad=True)
        call = lambda t: gt.nn.functional.ctc_loss(t.log_softmax(2), gt.tensor(CTC_TARGETS[:2, :2]), (5, 4), (2, 1))  # noqa: E731
        assert gradcheck(call, (x,), eps=1e-6, atol=1e-5)


def test_ctc_loss_impossible_alignment_and_errors_as_pytorch():
    for lib in (gt, torch):
        lp = lib.tensor(CTC_LOGITS[:3, :1]).log_softmax(2)
        assert lib.nn.functional.ctc_loss(lp, lib.tensor(CTC_TARGETS[:1]), [3], [5], reduction="none").isinf().all()
    assert repr(gt.nn.CTCLoss(blank=3)) == repr(torch.nn.CTCLoss(blank=3)) == "CTCLoss()"
    calls = [lambda l: l.nn.functional.ctc_loss(l.zeros(5, 2, 3), l.ones(2, 2, dtype=l.int64), [6, 5], [2, 2]),
             lambda l: l.nn.functional.ctc_loss(l.zeros(5, 2, 3), l.ones(2, 2, dtype=l.int64), [5], [2, 2])]
    for call in calls:
        got, want = (outcomes([lambda lib=lib: call(lib)])[0] for lib in (gt, torch))
        assert want != "no error" and got[0] == want[0] and got[1][:30] == want[1][:30], (got, want)
