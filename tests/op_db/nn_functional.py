"""nn.functional: activations, losses, normalization, embeddings, distances (ops/activation.py,
elementwise_activation.py, loss.py, margin_losses.py, robust_loss.py, ctc_loss.py,
normalization*.py, embedding.py and nn/functional.py).

Out of scope: the random ops (``gumbel_softmax``, ``rrelu`` in training, dropout in training:
their values depend on each library's random stream); dropout is checked where it is the
identity (``training=False``, ``p=0``). Attention is elsewhere.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from .core import (NONEMPTY_DIMS, SHAPES, ErrorInput, NoGrad, OpInfo, SampleInput, array, dim_of, index_array,
                   unary)

F = "nn.functional."
REDUCTIONS = st.sampled_from(["none", "mean", "sum"])
BATCHES = array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=3)  # (N, C, *)


def _f(name: str, **fixed: Any) -> Callable:
    """``lib.nn.functional.<name>(*args, **fixed, **kwargs)``."""
    def call(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib.nn.functional, name)(*args, **fixed, **kwargs)

    return call


def _inplace(name: str, **fixed: Any) -> Callable:
    """``F.<name>(x.clone(), inplace=True)``: the in-place form on a non-leaf (its own Node)."""
    def call(lib: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib.nn.functional, name)(x.clone(), *args, inplace=True, **fixed, **kwargs)

    return call


def _and_inplace(info: OpInfo) -> list:
    """The entry and its ``inplace=True`` twin (on a clone: a leaf cannot change in place)."""
    variant = f"{info.variant}-inplace" if info.variant else "inplace"
    return [info, info.with_variant(variant, op=_inplace(info.method_name), error_inputs=list, inplace=None,
                                    other_dtypes=(), method=False, aliases=())]


def _sign(draw: Callable, shape: tuple) -> np.ndarray:
    """+-1 targets (float), as the margin losses take them."""
    return np.asarray(np.where(array(draw, shape) > 0, 1.0, -1.0))


def _probabilities(draw: Callable, shape: tuple) -> np.ndarray:
    """Values in [0.2, 0.8]: a probability away from 0 and 1."""
    return np.asarray(array(draw, shape, "positive") * 0.4)



def _errors(*cases: tuple) -> Callable:
    """``error_inputs`` from (SampleInput, error, match) triples."""
    return lambda: [ErrorInput(sample, error, match) for sample, error, match in cases]


def _a(*shape: int) -> np.ndarray:
    return np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape) if shape else np.array(0.5)


def _i(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


# --- activations -------------------------------------------------------------------------------
def _softmax_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    return SampleInput(array(draw, shape), (dim_of(draw, shape),))


def _glu_samples(draw: Callable) -> SampleInput:
    shape = list(draw(NONEMPTY_DIMS))
    dim = dim_of(draw, tuple(shape))
    shape[dim] = 2 * draw(st.integers(1, 2))
    return SampleInput(array(draw, tuple(shape)), (dim,))


def _prelu_samples(draw: Callable) -> SampleInput:
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    channels = 1 if draw(st.booleans()) or len(shape) < 2 else shape[1]
    return SampleInput(array(draw, shape, "nonzero"), (array(draw, (channels,)),))


INT = ("int64",)  # integer input: PyTorch's promotion or PyTorch's error
DIM_OUT_OF_RANGE = _errors((SampleInput(_a(2, 3), (2,)), IndexError, "Dimension out of range"))

ACTIVATIONS = [
    *_and_inplace(OpInfo(F + "relu", unary("nonzero"), inplace="relu_", method=True, other_dtypes=INT,
                         aliases=("relu",), error_inputs=_errors(
        (SampleInput(np.array([True])), RuntimeError, "Boolean inputs not supported for relu")))),
    *_and_inplace(OpInfo(F + "relu6", unary("nonzero"), other_dtypes=INT)),
    *_and_inplace(OpInfo(F + "elu", unary("nonzero", alpha=0.7), other_dtypes=INT)),
    *_and_inplace(OpInfo(F + "selu", unary("nonzero"), other_dtypes=INT, aliases=("selu",))),
    *_and_inplace(OpInfo(F + "celu", unary("nonzero", alpha=1.5), other_dtypes=INT, aliases=("celu",),
                         error_inputs=_errors(
        (SampleInput(_a(3), kwargs={"alpha": 0.0}), RuntimeError, "ZeroDivisionError")))),
    OpInfo(F + "gelu", unary(), other_dtypes=INT, error_inputs=_errors(
        (SampleInput(_a(3), kwargs={"approximate": "fast"}), RuntimeError, "approximate argument must be either"))),
    OpInfo(F + "gelu", unary(approximate="tanh"), variant="tanh"),
    *_and_inplace(OpInfo(F + "silu", unary(), other_dtypes=INT)),
    *_and_inplace(OpInfo(F + "mish", unary(), other_dtypes=INT)),
    OpInfo(F + "softplus", unary(beta=2.0, threshold=1.5), other_dtypes=INT),
    OpInfo(F + "softsign", unary(), other_dtypes=INT),
    OpInfo(F + "softshrink", unary("clamp", lambd=0.5), other_dtypes=INT, error_inputs=_errors(
        (SampleInput(_a(3), kwargs={"lambd": -1.0}), RuntimeError, "lambda must be in range [0, 3.40282e+38]"))),
    OpInfo(F + "hardshrink", unary("clamp", lambd=0.5), other_dtypes=INT, method=True, aliases=("hardshrink",)),
    OpInfo(F + "tanhshrink", unary(), other_dtypes=INT),
    *_and_inplace(OpInfo(F + "hardtanh", unary("clamp", min_val=-0.5, max_val=0.5), other_dtypes=INT,
                         error_inputs=_errors(
        (SampleInput(_a(3), kwargs={"min_val": 1.0, "max_val": 0.0}), ValueError, "min_val cannot be greater")))),
    *_and_inplace(OpInfo(F + "hardsigmoid", unary("nonzero"), other_dtypes=INT)),
    *_and_inplace(OpInfo(F + "hardswish", unary("nonzero"), other_dtypes=INT)),
    *_and_inplace(OpInfo(F + "leaky_relu", unary("nonzero", negative_slope=0.2), other_dtypes=INT)),
    OpInfo(F + "prelu", _prelu_samples, method=True, aliases=("prelu",), error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2),)), RuntimeError, "Mismatch of parameter numbers and input channel size"))),
    # rrelu draws a random slope in training: only evaluation (the mean slope) is deterministic
    *_and_inplace(OpInfo(F + "rrelu", unary("nonzero", training=False), variant="eval", aliases=("rrelu",))),
    OpInfo(F + "glu", _glu_samples, error_inputs=_errors(
        (SampleInput(_a(3)), RuntimeError, "Halving dimension must be even"))),
    OpInfo(F + "logsigmoid", unary(), other_dtypes=INT),
    *_and_inplace(OpInfo(F + "threshold", unary("clamp", threshold=0.5, value=-2.0), other_dtypes=INT,
                         aliases=("threshold",))),
    OpInfo(F + "sigmoid", unary(), other_dtypes=INT, method=True, aliases=("sigmoid",)),
    OpInfo(F + "tanh", unary(), other_dtypes=INT, method=True, aliases=("tanh",)),
    OpInfo(F + "softmax", _softmax_samples, other_dtypes=INT, method=True, aliases=("softmax",),
           error_inputs=DIM_OUT_OF_RANGE),
    OpInfo(F + "softmax", _softmax_samples, variant="dtype", other_dtypes=INT,
           op=lambda lib, x, dim: lib.nn.functional.softmax(x, dim, dtype=lib.float64)),
    OpInfo(F + "log_softmax", _softmax_samples, other_dtypes=INT, method=True, aliases=("log_softmax",),
           error_inputs=DIM_OUT_OF_RANGE),
    OpInfo(F + "log_softmax", _softmax_samples, variant="dtype", other_dtypes=INT,
           op=lambda lib, x, dim: lib.nn.functional.log_softmax(x, dim, dtype=lib.float64)),
    OpInfo(F + "softmin", _softmax_samples, other_dtypes=INT, error_inputs=DIM_OUT_OF_RANGE),
    # gumbel_softmax is random (Gumbel noise from each library's own stream): out of scope
]


# --- linear, bilinear, dropout -----------------------------------------------------------------
def _linear_samples(draw: Callable) -> SampleInput:
    batch = draw(array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    n_in, n_out = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    bias = array(draw, (n_out,)) if draw(st.booleans()) else None
    return SampleInput(array(draw, (*batch, n_in)), (array(draw, (n_out, n_in)), bias))


def _bilinear_samples(draw: Callable) -> SampleInput:
    batch = draw(array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    n1, n2, n_out = (draw(st.integers(1, 3)) for _ in range(3))
    bias = array(draw, (n_out,)) if draw(st.booleans()) else None
    return SampleInput(array(draw, (*batch, n1)), (array(draw, (*batch, n2)), array(draw, (n_out, n1, n2)), bias))


def _dropout(name: str, dims: tuple) -> list:
    """Dropout where it is deterministic: in evaluation, and (for ``dropout``) p=0 in training."""
    shapes = array_shapes(min_dims=dims[0], max_dims=dims[-1], min_side=1, max_side=3)
    entries = [OpInfo(F + name, unary(shapes=shapes, p=0.5, training=False), variant="eval", error_inputs=_errors(
        (SampleInput(_a(*(2,) * dims[0]), kwargs={"p": 1.5}), ValueError, "dropout probability has to be between")))]
    return entries


LINEAR_AND_DROPOUT = [
    OpInfo(F + "linear", _linear_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(4, 2),)), RuntimeError, "cannot be multiplied"))),
    OpInfo(F + "bilinear", _bilinear_samples, aliases=("bilinear",), error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 2), _a(1, 2, 2))), RuntimeError, "input1 size does not match weight size"))),
    *_dropout("dropout", (0, 3)),
    # in training dropout draws a random mask (out of scope); with p = 0 it keeps every element
    OpInfo(F + "dropout", unary(p=0.0, training=True), variant="p0"),
    *_dropout("dropout1d", (2, 3)),
    *_dropout("dropout2d", (3, 4)),
    *_dropout("dropout3d", (4, 5)),
    *_dropout("alpha_dropout", (0, 3)),
    *_dropout("feature_alpha_dropout", (2, 3)),
]


# --- losses ------------------------------------------------------------------------------------
def _pair_loss(target_kind: str = "any", input_kind: str = "any", *, weighted: bool = False,
               **kwargs: Any) -> Callable:
    """(input, target) of one shape, both leaves; a reduction drawn; ``weighted``: an elementwise
    weight (a leaf too: PyTorch composes the weighted losses, so it gets a gradient)."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        weight = {"weight": array(draw, shape, "positive")} if weighted else {}
        return SampleInput(array(draw, shape, input_kind), (array(draw, shape, target_kind),),
                           {"reduction": draw(REDUCTIONS), **weight, **kwargs})

    return samples


def _class_samples(log_probabilities: bool, **fixed: Any) -> Callable:
    """(input (N, C, *d) or (C,), class indices (N, *d) or ()) with a weight, ignore_index, reduction."""
    def samples(draw: Callable) -> SampleInput:
        shape = draw(st.one_of(st.tuples(st.integers(1, 3)), BATCHES))
        classes = shape[0] if len(shape) == 1 else shape[1]
        target_shape = () if len(shape) == 1 else (shape[0], *shape[2:])
        target = index_array(draw, classes, target_shape)
        kwargs: dict = {"reduction": draw(REDUCTIONS), **fixed}
        if draw(st.booleans()):
            kwargs["weight"] = NoGrad(array(draw, (classes,), "positive"))
        if draw(st.booleans()) and (target != target.flat[0]).any():  # some targets left: a mean of none is nan
            kwargs["ignore_index"] = int(target.flat[0])
        values = array(draw, shape)
        if log_probabilities:
            values = values - np.log(np.exp(values).sum(axis=0 if len(shape) == 1 else 1, keepdims=True))
        return SampleInput(values, (target,), kwargs)

    return samples


def _cross_entropy_probabilities(draw: Callable) -> SampleInput:
    shape = draw(st.one_of(st.tuples(st.integers(1, 3)), BATCHES))
    classes = shape[0] if len(shape) == 1 else shape[1]
    kwargs: dict = {"reduction": draw(REDUCTIONS), "label_smoothing": draw(st.sampled_from([0.0, 0.2]))}
    if draw(st.booleans()):
        kwargs["weight"] = NoGrad(array(draw, (classes,), "positive"))
    return SampleInput(array(draw, shape), (np.asarray(array(draw, shape, "positive") / 2),), kwargs)


def _linear_cross_entropy_samples(draw: Callable) -> SampleInput:
    """input (N, in) or (in,), a weight (C, in) or (C, d, in) (K-dimensional, batched only), class
    indices or probabilities."""
    batched = draw(st.booleans())
    n, n_in, classes = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    extra = (draw(st.integers(1, 2)),) if batched and draw(st.booleans()) else ()
    batch = (n,) if batched else ()
    kwargs: dict = {"reduction": draw(REDUCTIONS), "label_smoothing": draw(st.sampled_from([0.0, 0.2]))}
    if draw(st.booleans()):
        kwargs["linear_bias"] = array(draw, (classes, *extra))
    if draw(st.booleans()):
        target: Any = index_array(draw, classes, (*batch, *extra))
    else:
        target = np.asarray(array(draw, (*batch, classes, *extra), "positive") / 2)
    return SampleInput(array(draw, (*batch, n_in)), (array(draw, (classes, *extra, n_in)), target), kwargs)


def _bce_samples(logits: bool) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        kwargs: dict = {"reduction": draw(REDUCTIONS)}
        if draw(st.booleans()):
            kwargs["weight"] = NoGrad(array(draw, shape[draw(st.integers(0, len(shape))):], "positive"))
        if logits and draw(st.booleans()) and shape:
            kwargs["pos_weight"] = NoGrad(array(draw, shape[-1:], "positive"))
        first = array(draw, shape) if logits else _probabilities(draw, shape)
        return SampleInput(first, (_probabilities(draw, shape),), kwargs)

    return samples


def _kl_div_samples(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    log_target = draw(st.booleans())
    target = array(draw, shape) if log_target else array(draw, shape, "positive")
    reduction = draw(st.sampled_from(["none", "mean", "sum", "batchmean"]))
    return SampleInput(array(draw, shape), (target,), {"reduction": reduction, "log_target": log_target})


def _poisson_samples(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    log_input = draw(st.booleans())
    first = array(draw, shape) if log_input else array(draw, shape, "positive")
    target = np.asarray(np.round(array(draw, shape, "positive") * 2))  # counts, 1 to 4: full's Stirling term where > 1
    return SampleInput(first, (NoGrad(target),), {"log_input": log_input, "full": draw(st.booleans()),
                                                  "reduction": draw(REDUCTIONS)})


def _gaussian_nll_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    var_shape = draw(st.sampled_from([shape, shape[:-1] + (1,), shape[:-1]]))
    return SampleInput(array(draw, shape), (array(draw, shape), array(draw, var_shape, "positive")),
                       {"full": draw(st.booleans()), "reduction": draw(REDUCTIONS)})


def _ranking_samples(draw: Callable) -> SampleInput:
    shape = draw(SHAPES)
    return SampleInput(array(draw, shape, "odd"), (array(draw, shape, "even"), NoGrad(_sign(draw, shape))),
                       {"margin": 0.05, "reduction": draw(REDUCTIONS)})


def _sign_target_samples(input_kind: str = "any", **fixed: Any) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shape = draw(SHAPES)
        return SampleInput(array(draw, shape, input_kind), (NoGrad(_sign(draw, shape)),),
                           {"reduction": draw(REDUCTIONS), **fixed})

    return samples


def _cosine_embedding_samples(draw: Callable) -> SampleInput:
    batched = draw(st.booleans())
    n, d = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    shape, target_shape = ((n, d), (n,)) if batched else ((d,), ())
    return SampleInput(array(draw, shape), (array(draw, shape), NoGrad(_sign(draw, target_shape))),
                       {"margin": 0.1, "reduction": draw(REDUCTIONS)})


def _multilabel_margin_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(3,), (2, 3), (1, 4), (3, 2)]))
    classes = shape[-1]
    rows = []
    for _ in range(int(np.prod(shape[:-1]))):  # each row: some classes, then -1 (the end)
        count = draw(st.integers(0, classes))
        row = list(draw(st.permutations(range(classes))))[:count] + [-1] * (classes - count)
        rows.append(row)
    target = np.array(rows, dtype=np.int64).reshape(shape)
    return SampleInput(array(draw, shape, "distinct") * 0.3, (target,), {"reduction": draw(REDUCTIONS)})


def _multilabel_soft_margin_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(2, 3), (1, 4), (3, 2)]))
    kwargs: dict = {"reduction": draw(REDUCTIONS)}
    if draw(st.booleans()):
        kwargs["weight"] = NoGrad(array(draw, shape[-1:], "positive"))
    return SampleInput(array(draw, shape), (NoGrad((array(draw, shape) > 0).astype(np.float64)),), kwargs)


def _multi_margin_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(3,), (2, 3), (1, 4), (3, 2)]))
    target = index_array(draw, shape[-1], shape[:-1])
    kwargs: dict = {"p": draw(st.sampled_from([1, 2])), "margin": 0.7, "reduction": draw(REDUCTIONS)}
    if draw(st.booleans()):
        kwargs["weight"] = NoGrad(array(draw, shape[-1:], "positive"))
    return SampleInput(array(draw, shape, "distinct") * 0.37, (target,), kwargs)


def _three_apart(draw: Callable, shape: tuple) -> tuple:
    """Three arrays no two of which are close (a distance near 0 has no derivative): near odd
    multiples of 0.1, near even ones, and even ones shifted by 0.05."""
    return array(draw, shape, "odd"), array(draw, shape, "even"), array(draw, shape, "even") + 0.05


def _triplet_samples(draw: Callable) -> SampleInput:
    anchor, positive, negative = _three_apart(draw, draw(st.sampled_from([(3,), (2, 3), (1, 2), (3, 2)])))
    return SampleInput(anchor, (positive, negative),
                       {"margin": 2.0, "p": draw(st.sampled_from([1.0, 2.0, 3.0])), "swap": draw(st.booleans()),
                        "reduction": draw(REDUCTIONS)})


def _triplet_distance_samples(draw: Callable) -> SampleInput:
    anchor, positive, negative = _three_apart(draw, draw(st.sampled_from([(3,), (2, 3), (1, 2), (3, 2)])))
    return SampleInput(anchor, (positive, negative), {"margin": 2.0, "swap": draw(st.booleans()),
                                                      "reduction": draw(REDUCTIONS)})


def _ctc_samples(draw: Callable) -> SampleInput:
    """log-probabilities (T, N, C) or (T, C), targets (N, S) padded, lengths as tensors or tuples."""
    batched = draw(st.booleans())
    n, classes, longest = (draw(st.integers(1, 2)) if batched else 1), draw(st.integers(2, 4)), 2
    target_lengths = [draw(st.integers(0, longest)) for _ in range(n)]
    input_lengths = [draw(st.integers(2 * t + 1, 2 * longest + 1)) for t in target_lengths]
    steps = max(input_lengths)
    targets = np.array([index_array(draw, classes - 1, (longest,)) + 1 for _ in range(n)], dtype=np.int64)
    log_probs = array(draw, (steps, n, classes))  # logits: the entry takes their log_softmax
    if not batched:
        log_probs, targets = log_probs[:, 0], targets[0, :target_lengths[0]]
        lengths: Any = (_i(input_lengths[0]).reshape(()), _i(target_lengths[0]).reshape(()))
    elif draw(st.booleans()):
        lengths = (_i(*input_lengths), _i(*target_lengths))
    else:
        lengths = (tuple(input_lengths), tuple(target_lengths))
    return SampleInput(log_probs, (targets, *lengths), {"reduction": draw(REDUCTIONS),
                                                        "zero_infinity": draw(st.booleans())})


BAD_REDUCTION = _errors(
    (SampleInput(_a(2, 3), (_a(2, 3),), {"reduction": "average"}), ValueError, "is not a valid value for reduction"))

LOSSES = [
    OpInfo(F + "mse_loss", _pair_loss(), error_inputs=_errors(
        (SampleInput(_a(2), (_a(3),)), RuntimeError, "must match the size"))),
    OpInfo(F + "mse_loss", _pair_loss(weighted=True), variant="weight", error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 3),), {"weight": _a(3)}), ValueError,
         "Weights and input must have the same size"))),
    OpInfo(F + "l1_loss", _pair_loss("odd", "even"), error_inputs=_errors(
        (SampleInput(_a(2), (_a(3),)), RuntimeError, "must match the size"))),
    OpInfo(F + "l1_loss", _pair_loss("odd", "even", weighted=True), variant="weight"),
    OpInfo(F + "smooth_l1_loss", _pair_loss("odd", "even", beta=0.25), error_inputs=_errors(
        (SampleInput(_a(2), (_a(3),)), RuntimeError, "must match the size"))),
    OpInfo(F + "smooth_l1_loss", _pair_loss("odd", "even", beta=0.0), variant="beta0"),
    OpInfo(F + "huber_loss", _pair_loss("odd", "even", delta=0.25), error_inputs=_errors(
        (SampleInput(_a(2), (_a(3),)), RuntimeError, "must match the size"))),
    OpInfo(F + "huber_loss", _pair_loss("odd", "even", weighted=True, delta=0.25), variant="weight"),
    OpInfo(F + "cross_entropy", _class_samples(False), error_inputs=_errors(
        (SampleInput(_a(2, 3), (_i(0, 3),)), IndexError, "out of bounds"),
        (SampleInput(_a(2, 3), (_i(0, 1, 1),)), ValueError, "Expected input batch_size"))),
    OpInfo(F + "cross_entropy", _class_samples(False, label_smoothing=0.2), variant="label_smoothing"),
    OpInfo(F + "cross_entropy", _cross_entropy_probabilities, variant="probabilities"),
    OpInfo(F + "linear_cross_entropy", _linear_cross_entropy_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(4, 2), _i(0, 1))), RuntimeError, "expected equal input and linear_weight last"))),
    OpInfo(F + "nll_loss", _class_samples(True), error_inputs=_errors(
        (SampleInput(_a(2, 3), (_i(0, 3),)), IndexError, "out of bounds"),
        (SampleInput(_a(2, 3), (_a(2),)), RuntimeError, "expected target dtype to be Long"))),
    OpInfo(F + "binary_cross_entropy", _bce_samples(False), error_inputs=_errors(
        (SampleInput(_a(2) / 4 + 0.5, (_a(3) / 4 + 0.5,)), ValueError, "Using a target size"))),
    OpInfo(F + "binary_cross_entropy_with_logits", _bce_samples(True), error_inputs=_errors(
        (SampleInput(_a(2), (_a(3),)), ValueError, "must be the same as input size"))),
    OpInfo(F + "kl_div", _kl_div_samples, error_inputs=BAD_REDUCTION),
    OpInfo(F + "poisson_nll_loss", _poisson_samples, error_inputs=BAD_REDUCTION),
    OpInfo(F + "gaussian_nll_loss", _gaussian_nll_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 3), -np.ones((2, 3)))), ValueError, "var has negative entry"),
        (SampleInput(_a(2, 3), (_a(2, 3), np.ones((3, 3)))), ValueError, "var is of incorrect size"))),
    OpInfo(F + "margin_ranking_loss", _ranking_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 3), _a(2))), RuntimeError, "All input tensors should have same dimension"))),
    OpInfo(F + "hinge_embedding_loss", _sign_target_samples("clamp", margin=0.5), error_inputs=BAD_REDUCTION),
    # float32: the cosine of vectors of one element is +-1, its gradient 0 up to rounding
    # (1 - cos of one-element vectors: a tiny gradient left after cancellation, to 1e-8 relative)
    OpInfo(F + "cosine_embedding_loss", _cosine_embedding_samples,
           tolerances={"float32": (2e-6, 1e-5), "float64": (1e-7, 1e-14)},
           error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 3), np.ones((2, 1)))), RuntimeError, "0D or 1D target tensor expected"))),
    OpInfo(F + "multilabel_margin_loss", _multilabel_margin_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_i(0, 1, -1),)), RuntimeError, "inconsistent target size"))),
    OpInfo(F + "multilabel_soft_margin_loss", _multilabel_soft_margin_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 3),), {"reduction": "average"}), ValueError, "is not valid"))),
    OpInfo(F + "multi_margin_loss", _multi_margin_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_i(0, 1),), {"p": 3}), ValueError, "only p == 1 and p == 2 supported"))),
    OpInfo(F + "soft_margin_loss", _sign_target_samples(), error_inputs=BAD_REDUCTION),
    OpInfo(F + "triplet_margin_loss", _triplet_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 3), _a(2, 3)), {"margin": 0.0}), ValueError, "margin must be greater than 0"))),
    OpInfo(F + "triplet_margin_with_distance_loss", _triplet_distance_samples, error_inputs=_errors(
        (SampleInput(_a(2, 3), (_a(2, 3), _a(2, 3)), {"margin": -1.0}), ValueError, "margin must be greater than 0"))),
    # PyTorch's CTC backward returns the gradient with respect to the logits *behind* log_softmax
    # (it assumes its input is log_softmax's output: exp(log_probs) - posteriors), not the true
    # gradient with respect to log_probs, which glasstorch returns (gradcheck measures it). Through
    # a log_softmax, as CTC is used, both are the gradient of the logits and agree.
    OpInfo(F + "ctc_loss", _ctc_samples, op=lambda lib, logits, *args, **kwargs: lib.nn.functional.ctc_loss(
        logits.log_softmax(-1), *args, **kwargs), error_inputs=_errors(
        (SampleInput(_a(3, 1, 3), (_i(1, 2).reshape(1, 2), (5,), (2,))), RuntimeError,
         "Expected input_lengths to have value at most 3"),
        (SampleInput(_a(3, 1, 3), (_i(1, 2).reshape(1, 2), (3,), (4,))), RuntimeError,
         "Expected tensor to have size at least 4 at dimension 1"))),
]


# --- normalization -----------------------------------------------------------------------------
def _batch_norm_samples(training: bool) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        shape = draw(BATCHES)
        channels = (shape[1],)
        if training and np.prod(shape) == channels[0]:
            shape = (2, *shape[1:])
        affine = draw(st.booleans())
        weight, bias = (array(draw, channels), array(draw, channels)) if affine else (None, None)
        if training and draw(st.booleans()):
            running: tuple = (None, None)
        else:
            running = (NoGrad(array(draw, channels)), NoGrad(array(draw, channels, "positive")))
        return SampleInput(array(draw, shape), running, {"weight": weight, "bias": bias, "training": training,
                                                         "momentum": 0.2, "eps": 1e-3})

    return samples


def _layer_norm_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    normalized = shape[draw(st.integers(0, len(shape) - 1)):]
    affine = draw(st.booleans())
    weight, bias = (array(draw, normalized), array(draw, normalized)) if affine else (None, None)
    return SampleInput(array(draw, shape), (normalized, weight, bias), {"eps": 1e-3})


def _rms_norm_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    normalized = shape[draw(st.integers(0, len(shape) - 1)):]
    weight = array(draw, normalized) if draw(st.booleans()) else None
    return SampleInput(array(draw, shape), (list(normalized), weight), {"eps": draw(st.sampled_from([None, 1e-3]))})


def _group_norm_samples(draw: Callable) -> SampleInput:
    groups, per_group = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    shape = (draw(st.integers(1, 2)), groups * per_group, *draw(array_shapes(min_dims=0, max_dims=1, max_side=3)))
    if np.prod(shape) // groups // shape[0] == 1:
        shape = (*shape[:2], 2)
    affine = draw(st.booleans())
    channels = (shape[1],)
    weight, bias = (array(draw, channels), array(draw, channels)) if affine else (None, None)
    return SampleInput(array(draw, shape), (groups, weight, bias), {"eps": 1e-3})


def _instance_norm_samples(draw: Callable) -> SampleInput:
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(2, 3)))
    channels = (shape[1],)
    affine = draw(st.booleans())
    weight, bias = (array(draw, channels), array(draw, channels)) if affine else (None, None)
    use_input_stats = draw(st.booleans())
    running = (NoGrad(array(draw, channels)), NoGrad(array(draw, channels, "positive")))
    if use_input_stats and draw(st.booleans()):
        running = (None, None)
    return SampleInput(array(draw, shape), running, {"weight": weight, "bias": bias, "eps": 1e-3,
                                                     "use_input_stats": use_input_stats})


def _local_response_samples(draw: Callable) -> SampleInput:
    shape = draw(array_shapes(min_dims=3, max_dims=4, min_side=1, max_side=3))
    return SampleInput(array(draw, shape), (draw(st.integers(1, 3)),), {"alpha": 0.5, "beta": 0.75, "k": 1.5})


def _normalize_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    return SampleInput(array(draw, shape, "nonzero"), (), {"p": draw(st.sampled_from([1.0, 2.0, 3.0])),
                                                           "dim": dim_of(draw, shape)})


def _with_running_stats(name: str) -> Callable:
    """The op's output and the running statistics it updated in place (compared with PyTorch's too)."""
    def call(lib: Any, input: Any, running_mean: Any = None, running_var: Any = None, **kwargs: Any) -> tuple:
        out = getattr(lib.nn.functional, name)(input, running_mean, running_var, **kwargs)
        return out, running_mean, running_var

    return call


NORM_TOLERANCES = {"float32": (1e-4, 2e-5)}  # few values per group: float32 rounding in the statistics shows

NORMALIZATION = [
    OpInfo(F + "batch_norm", _batch_norm_samples(True), tolerances=NORM_TOLERANCES, variant="training",
           op=_with_running_stats("batch_norm"), error_inputs=_errors(
        (SampleInput(_a(1, 3), (None, None), {"training": True}), ValueError,
         "Expected more than 1 value per channel"))),
    OpInfo(F + "batch_norm", _batch_norm_samples(False), tolerances=NORM_TOLERANCES, variant="eval",
           error_inputs=_errors(
        (SampleInput(_a(2, 3), (None, None)), RuntimeError, "running_mean must be defined in evaluation mode"))),
    OpInfo(F + "layer_norm", _layer_norm_samples, tolerances=NORM_TOLERANCES, aliases=("layer_norm",),
           error_inputs=_errors((SampleInput(_a(2, 3), ((2,),)), RuntimeError, "Given normalized_shape="))),
    OpInfo(F + "group_norm", _group_norm_samples, tolerances=NORM_TOLERANCES, aliases=("group_norm",),
           error_inputs=_errors(
        (SampleInput(_a(2, 3, 2), (2,)), RuntimeError, "Expected number of channels in input to be divisible"))),
    OpInfo(F + "instance_norm", _instance_norm_samples, tolerances=NORM_TOLERANCES,
           op=_with_running_stats("instance_norm"), error_inputs=_errors(
        (SampleInput(_a(2, 3, 1)), ValueError, "Expected more than 1 spatial element when training"))),
    OpInfo(F + "local_response_norm", _local_response_samples, tolerances=NORM_TOLERANCES, error_inputs=_errors(
        (SampleInput(_a(2, 3), (2,)), ValueError, "Expected 3D or higher dimensionality"))),
    OpInfo(F + "rms_norm", _rms_norm_samples, tolerances=NORM_TOLERANCES, aliases=("rms_norm",),
           error_inputs=_errors((SampleInput(_a(2, 3), ([2],)), RuntimeError, "Given normalized_shape="))),
    OpInfo(F + "normalize", _normalize_samples, tolerances=NORM_TOLERANCES, supports_out=True, error_inputs=_errors(
        (SampleInput(_a(2, 3), (), {"dim": 2}), IndexError, "Dimension out of range"))),
]


# --- embeddings, one_hot -----------------------------------------------------------------------
def _embedding_samples(padding: bool = False, max_norm: bool = False) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        rows, dim = draw(st.integers(1, 4)), draw(st.integers(1, 3))
        indices = index_array(draw, rows, draw(array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)))
        kwargs: dict = {"padding_idx": draw(st.sampled_from([0, -1]))} if padding else {}
        if max_norm:
            kwargs.update(max_norm=0.8, norm_type=draw(st.sampled_from([1.0, 2.0, 3.0])))
        return SampleInput(indices, (array(draw, (rows, dim)) * 2,), kwargs)

    return samples


def _embedding_bag_samples(draw: Callable) -> SampleInput:
    rows, dim = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    mode = draw(st.sampled_from(["sum", "mean", "max"]))
    kwargs: dict = {"mode": mode}
    if draw(st.booleans()):  # (B, N): bags of equal length
        indices = index_array(draw, rows, (draw(st.integers(1, 3)), draw(st.integers(1, 3))))
        args: tuple = (array(draw, (rows, dim), "distinct"),)
    else:
        indices = index_array(draw, rows, (draw(st.integers(1, 5)),))
        starts = sorted(draw(st.lists(st.integers(1, len(indices)), max_size=2)))
        if draw(st.booleans()):  # the offsets end with the end of the last bag
            kwargs["include_last_offset"], starts = True, [*starts, len(indices)]
        args = (array(draw, (rows, dim), "distinct"), np.array([0, *starts], dtype=np.int64))
    if mode == "sum" and draw(st.booleans()):
        kwargs["per_sample_weights"] = array(draw, indices.shape)
    if draw(st.booleans()):  # left out of its bag: it gets no gradient, and makes no output
        kwargs["padding_idx"] = 0
    return SampleInput(indices, args, kwargs)


def _one_hot_samples(draw: Callable) -> SampleInput:
    indices = index_array(draw, 4, draw(SHAPES))
    return SampleInput(indices, (draw(st.sampled_from([-1, 4, 5])),))


EMBEDDINGS = [
    OpInfo(F + "embedding", _embedding_samples(), error_inputs=_errors(
        (SampleInput(_i(0, 3), (_a(3, 2),)), IndexError, "index out of range"),
        (SampleInput(_i(0, 1), (_a(3, 2),), {"padding_idx": 3}), AssertionError, "Padding_idx must be within"))),
    OpInfo(F + "embedding", _embedding_samples(padding=True), variant="padding_idx", skips=dict.fromkeys(
        ("gradcheck", "gradgradcheck"), "the padding row gets no gradient by definition, though the output is made "
        "of it: finite differences see its slope")),
    # max_norm renormalises the looked-up rows of weight in place (unrecorded) before the lookup: the values and
    # the gradient after it are compared with PyTorch's; finite differences would perturb rows it then rescales
    OpInfo(F + "embedding", _embedding_samples(max_norm=True), variant="max_norm", skips=dict.fromkeys(
        ("gradcheck", "gradgradcheck"), "the op changes its weight in place before using it: no function of its "
        "inputs for finite differences")),
    OpInfo(F + "embedding_bag", _embedding_bag_samples, error_inputs=_errors(
        (SampleInput(_i(0, 1, 0).reshape(1, 1, 3), (_a(2, 2),)), ValueError, "input has to be 1D or 2D Tensor"),
        (SampleInput(_i(0, 1).reshape(1, 2), (_a(2, 2),), {"mode": "min"}), ValueError,
         "mode has to be one of sum, mean or max"))),
    OpInfo(F + "one_hot", _one_hot_samples, supports_grad=False, dtypes=("float64",), error_inputs=_errors(
        (SampleInput(_i(0, 3), (2,)), RuntimeError, "Class values must be smaller than num_classes"),
        (SampleInput(_i(-1, 0)), RuntimeError, "Class values must be non-negative"))),
]


# --- distances and similarities ----------------------------------------------------------------
def _cosine_similarity_samples(draw: Callable) -> SampleInput:
    shape = draw(NONEMPTY_DIMS)
    other = tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in shape)
    return SampleInput(array(draw, shape), (array(draw, other),), {"dim": dim_of(draw, shape)})


def _pairwise_distance_samples(draw: Callable) -> SampleInput:
    shape = draw(st.sampled_from([(3,), (2, 3), (1, 2), (3, 1)]))
    other = shape if draw(st.booleans()) else shape[-1:]
    return SampleInput(array(draw, shape, "odd"), (array(draw, other, "even"),),
                       {"p": draw(st.sampled_from([1.0, 2.0, 3.0, float("inf")])), "keepdim": draw(st.booleans())})


def _pdist_samples(draw: Callable) -> SampleInput:
    shape = (draw(st.integers(2, 4)), draw(st.integers(1, 3)))
    return SampleInput(array(draw, shape, "distinct"), (draw(st.sampled_from([0.0, 1.0, 2.0, 3.0, float("inf")])),))


def _affine_grid_samples(draw: Callable) -> SampleInput:
    """A batch of 2-D (N, 2, 3) or 3-D (N, 3, 4) affine matrices and the output size (N, C, *spatial)."""
    dims, n = draw(st.integers(2, 3)), draw(st.integers(1, 2))
    spatial = tuple(draw(st.integers(1, 3)) for _ in range(dims))
    return SampleInput(array(draw, (n, dims, dims + 1)), ((n, 1, *spatial),),
                       {"align_corners": draw(st.booleans())})


SHAPE_MISMATCH = _errors((SampleInput(_a(2, 3), (_a(2, 2),)), RuntimeError, "must match the size"))

DISTANCES = [
    # float32: along a dim of size 1 the cosine is +-1 and its gradient 0, up to rounding
    # (a gradient that is 0 up to rounding: parallel vectors, whose cosine is flat; compared absolutely)
    OpInfo(F + "cosine_similarity", _cosine_similarity_samples,
           tolerances={"float32": (2e-6, 5e-5), "float64": (1e-12, 1e-12)},
           aliases=("cosine_similarity",), error_inputs=SHAPE_MISMATCH),
    OpInfo(F + "pairwise_distance", _pairwise_distance_samples, aliases=("pairwise_distance",),
           error_inputs=SHAPE_MISMATCH),
    OpInfo(F + "affine_grid", _affine_grid_samples, error_inputs=_errors(
        (SampleInput(_a(1, 3, 4), ((1, 1, 2, 2),)), ValueError, "Expected a batch of 2D affine matrices"),
        (SampleInput(_a(1, 2, 3), ((1, 2, 2),)), NotImplementedError, "affine_grid only supports 4D and 5D sizes"))),
    OpInfo(F + "pdist", _pdist_samples, error_inputs=_errors(
        (SampleInput(_a(3)), RuntimeError, "pdist only supports 2D tensors")), aliases=("pdist",)),
]

OPS = [*ACTIVATIONS, *LINEAR_AND_DROPOUT, *LOSSES, *NORMALIZATION, *EMBEDDINGS, *DISTANCES]
