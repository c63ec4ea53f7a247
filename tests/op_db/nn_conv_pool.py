"""nn.functional: convolutions, pooling, padding, upsampling, fold/unfold, pixel shuffles and
attention (ops/conv.py, conv_transpose.py, pooling*.py, adaptive_pooling.py, fractional_pooling.py,
upsampling.py, fold.py).

Shapes stay tiny (batch 1-2, channels 1-3, spatial sides 2-5, 3-D inputs the smallest) so that
gradgradcheck stays fast. Max pooling draws ``distinct`` values: a tie has no derivative.
Random ops are out of scope: fractional max pooling is checked only with its random numbers given
(``_random_samples``); dropout in attention is 0. ``grid_sample`` and ``affine_grid`` are not in
glasstorch.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from .core import ErrorInput, NoGrad, OpInfo, SampleInput, array


def _zeros(*shape: int) -> np.ndarray:
    return np.zeros(shape)


def _batch(draw: Callable) -> tuple:
    """() for an unbatched input a quarter of the time, else (N,) with N in 1-2."""
    return () if draw(st.integers(0, 3)) == 0 else (draw(st.integers(1, 2)),)


# --- convolution ------------------------------------------------------------------------------
def conv_samples(dims: int, transposed: bool = False) -> Callable:
    """F.conv{dims}d (or conv_transpose{dims}d): groups 1-2, 1-2 channels per group, kernel 1-2
    (1-3 in 1-D), stride 1-2, dilation 1-2, a bias half the time; padding an int or a tuple, or
    "same" (then stride 1) or "valid"; output_padding below the stride or the dilation."""
    side = 2 if dims == 3 else 3

    def samples(draw: Callable) -> SampleInput:
        groups = draw(st.integers(1, 2))
        c_in, c_out = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2 if dims < 3 else 1))
        kernel = tuple(draw(st.integers(1, 3 if dims == 1 else 2)) for _ in range(dims))
        dilation = draw(st.integers(1, 2))
        padding: Any = draw(st.sampled_from(["int", "tuple"] if transposed else ["int", "tuple", "same", "valid"]))
        stride = 1 if padding == "same" else draw(st.integers(1, 2))
        kwargs: dict[str, Any] = {"stride": stride, "dilation": dilation, "groups": groups}
        if transposed:
            size = tuple(draw(st.integers(1, side)) for _ in range(dims))
            extra = draw(st.integers(0, max(stride, dilation) - 1))
            # the output side, (n - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1, stays >= 1
            room = min(((n - 1) * stride + dilation * (k - 1) + extra) // 2 for n, k in zip(size, kernel))
            pads = tuple(draw(st.integers(0, min(1, room))) for _ in range(dims))
            kwargs.update(padding=pads if padding == "tuple" else pads[0], output_padding=extra)
            weight_shape = (c_in, c_out // groups) + kernel
        else:
            size = tuple(dilation * (k - 1) + 1 + draw(st.integers(0, side - 1)) for k in kernel)
            pads = tuple(draw(st.integers(0, 1)) for _ in range(dims))
            kwargs["padding"] = {"int": pads[0], "tuple": pads}.get(padding, padding)
            weight_shape = (c_out, c_in // groups) + kernel
        bias = array(draw, (c_out,)) if draw(st.booleans()) else None
        x = array(draw, _batch(draw) + (c_in,) + size)
        return SampleInput(x, (array(draw, weight_shape), bias), kwargs)

    return samples


def _conv_errors(dims: int) -> Callable:
    name = f"conv{dims}d"

    def errors() -> list:
        kernel = (1,) * dims
        return [
            ErrorInput(SampleInput(_zeros(2, *(3,) * (dims + 1)), (_zeros(2, 2, *kernel),)), RuntimeError,
                       "to have 2 channels, but got 3 channels instead"),
            ErrorInput(SampleInput(_zeros(3), (_zeros(2, 2, *kernel),)), RuntimeError,
                       f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}"),
            ErrorInput(SampleInput(_zeros(1, 1, *(2,) * dims), (_zeros(1, 1, *(3,) * dims),)), RuntimeError,
                       "Kernel size can't be greater than actual input size"),
        ]

    return errors


def _conv_transpose_errors(dims: int) -> Callable:
    def errors() -> list:
        kernel = (1,) * dims
        return [
            ErrorInput(SampleInput(_zeros(1, 3, *(2,) * dims), (_zeros(2, 2, *kernel),)), RuntimeError,
                       "to have 2 channels, but got 3 channels instead"),
            ErrorInput(SampleInput(_zeros(1, 2, *(2,) * dims), (_zeros(2, 2, *kernel),), {"output_padding": 1}),
                       RuntimeError, "output padding must be smaller than either stride or dilation"),
        ]

    return errors


def _padded_conv(lib: Any, x: Any, weight: Any, bias: Any, mode: str) -> Any:
    """A Conv2d layer's ``padding_mode``: F.pad, then a convolution without padding."""
    F = lib.nn.functional
    return F.conv2d(F.pad(x, (1, 1, 1, 1), mode=mode), weight, bias)


def _padding_mode_samples(draw: Callable) -> SampleInput:
    mode = draw(st.sampled_from(["reflect", "replicate", "circular"]))
    return SampleInput(array(draw, (1, 2, 2, 3)), (array(draw, (2, 2, 2, 2)), array(draw, (2,)), mode))


CONV_OPS = [
    op
    for dims in (1, 2, 3)
    for op in (
        OpInfo(f"nn.functional.conv{dims}d", conv_samples(dims), error_inputs=_conv_errors(dims),
               other_dtypes=("int64",)),
        OpInfo(f"nn.functional.conv_transpose{dims}d", conv_samples(dims, transposed=True),
               error_inputs=_conv_transpose_errors(dims)),
    )
] + [
    OpInfo("nn.functional.conv2d", _padding_mode_samples, variant="padding_mode",
           op=_padded_conv),
]


# --- max, average and power pooling -------------------------------------------------------------
def pool_samples(dims: int, kind: str = "any", *, dilation: bool = True, avg: bool = False) -> Callable:
    """A pooling of ``dims`` spatial dims: kernel 1-2 (1-3 in 1-D), stride None or 1-2, padding at
    most half the kernel, ceil_mode; dilation 1-2 and return_indices (max pooling); for average pooling
    count_include_pad and divisor_override (2-D and 3-D)."""
    side = 2 if dims == 3 else 3

    def samples(draw: Callable) -> SampleInput:
        kernel = draw(st.integers(1, 3 if dims == 1 else 2))
        d = draw(st.integers(1, 2)) if dilation else 1
        kwargs: dict[str, Any] = {"stride": draw(st.sampled_from([None, 1, 2])),
                                  "padding": draw(st.integers(0, kernel // 2)),
                                  "ceil_mode": draw(st.booleans())}
        if dilation:
            kwargs["dilation"] = d
        if avg:
            kwargs["count_include_pad"] = draw(st.booleans())
            if dims > 1 and draw(st.booleans()):
                kwargs["divisor_override"] = draw(st.integers(1, 3))
        span = d * (kernel - 1) + 1
        size = tuple(span + draw(st.integers(0, side - 1)) for _ in range(dims))
        if not avg:
            kwargs["return_indices"] = draw(st.booleans())
        return SampleInput(array(draw, _batch(draw) + (draw(st.integers(1, 2)),) + size, kind), (kernel,), kwargs)

    return samples


_TOO_SMALL = {"max_pool1d": "Invalid computed output size", "avg_pool3d": "smaller than kernel size"}


def _pool_errors(name: str, dims: int) -> Callable:
    """A kernel larger than the input; a padding more than half the kernel."""
    def errors() -> list:
        return [ErrorInput(SampleInput(_zeros(1, 1, *(2,) * dims), (3,)), RuntimeError,
                           _TOO_SMALL.get(name, "Output size is too small")),
                ErrorInput(SampleInput(_zeros(1, 1, *(4,) * dims), (2,), {"padding": 2}), RuntimeError,
                           "should be at most half of")]

    return errors


def lp_samples(dims: int) -> Callable:
    """lp_pool: norm 1, 2 or 3 over positive values (x ** p of a negative x with a fractional p
    is NaN, and |x| has no derivative at 0)."""
    side = 2 if dims == 3 else 3

    def samples(draw: Callable) -> SampleInput:
        kernel = draw(st.integers(1, 2))
        size = tuple(kernel + draw(st.integers(0, side - 1)) for _ in range(dims))
        kwargs = {"stride": draw(st.sampled_from([None, 1, 2])), "ceil_mode": draw(st.booleans())}
        return SampleInput(array(draw, (1, draw(st.integers(1, 2))) + size, "positive"),
                           (draw(st.sampled_from([1.0, 2.0, 3.0])), kernel), kwargs)

    return samples


POOL_OPS = [
    op
    for dims in (1, 2, 3)
    for op in (
        OpInfo(f"nn.functional.max_pool{dims}d", pool_samples(dims, "distinct"),
               error_inputs=_pool_errors(f"max_pool{dims}d", dims), other_dtypes=("int64", "bool")),
        OpInfo(f"nn.functional.avg_pool{dims}d", pool_samples(dims, dilation=False, avg=True),
               error_inputs=_pool_errors(f"avg_pool{dims}d", dims), other_dtypes=("int64",)),
        OpInfo(f"nn.functional.lp_pool{dims}d", lp_samples(dims)),
        OpInfo(f"nn.functional.max_pool{dims}d_with_indices", pool_samples(dims, "distinct")),
    )
]


# --- adaptive pooling ----------------------------------------------------------------------------
def adaptive_samples(dims: int, kind: str = "any", indices: bool = False) -> Callable:
    """Input sides 1-5 (1-3 in 3-D), output sides 1-4 that need not divide them; an int
    ``output_size`` a third of the time, and a None (keep that side) now and then; ``indices``:
    return_indices drawn too (adaptive max pooling)."""
    side = 3 if dims == 3 else 5

    def samples(draw: Callable) -> SampleInput:
        size = tuple(draw(st.integers(1, side)) for _ in range(dims))
        out: Any = tuple(draw(st.one_of(st.integers(1, 4), st.none()) if dims > 1 else st.integers(1, 4))
                         for _ in range(dims))
        if draw(st.integers(0, 2)) == 0:
            out = draw(st.integers(1, 4))
        kwargs = {"return_indices": draw(st.booleans())} if indices else {}
        return SampleInput(array(draw, _batch(draw) + (draw(st.integers(1, 2)),) + size, kind), (out,), kwargs)

    return samples


def _adaptive_errors(dims: int) -> Callable:
    """An input of the wrong rank (to an output of 2: PyTorch averages to 1 with ``mean``, any rank)."""
    phrase = "Expected 2 to 3 dimensions" if dims == 1 else f"Expected {dims + 1}D or {dims + 2}D tensor"

    def errors() -> list:
        return [ErrorInput(SampleInput(_zeros(*(2,) * (dims + 3)), (2,)), RuntimeError, phrase)]

    return errors


ADAPTIVE_OPS = [
    op
    for dims in (1, 2, 3)
    for op in (
        OpInfo(f"nn.functional.adaptive_avg_pool{dims}d", adaptive_samples(dims),
               error_inputs=_adaptive_errors(dims), other_dtypes=("int64",)),
        OpInfo(f"nn.functional.adaptive_max_pool{dims}d", adaptive_samples(dims, "distinct", indices=True),
               error_inputs=_adaptive_errors(dims)),
        OpInfo(f"nn.functional.adaptive_max_pool{dims}d_with_indices", adaptive_samples(dims, "distinct")),
    )
]


# --- max unpooling ---------------------------------------------------------------------------------
def unpool_samples(dims: int) -> Callable:
    """What max_pool{dims}d(kernel 2) returns: values, and in each 2 x 2 window one position
    (a flat index into the unpooled plane); the output size given a third of the time."""
    def samples(draw: Callable) -> SampleInput:
        pooled = tuple(draw(st.integers(1, 2)) for _ in range(dims))
        full = tuple(2 * n for n in pooled)
        seed = draw(st.integers(0, 2**32 - 1))
        lead = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        offsets = np.random.default_rng(seed).integers(0, 2, lead + pooled + (dims,))
        grids = np.meshgrid(*(np.arange(n) for n in pooled), indexing="ij")
        coords = [2 * grids[d] + offsets[..., d] for d in range(dims)]
        indices = np.ravel_multi_index(coords, full).astype(np.int64)
        kwargs: dict[str, Any] = {}
        if draw(st.integers(0, 2)) == 0:
            kwargs["output_size"] = tuple(n + draw(st.integers(0, 1)) for n in full)
        return SampleInput(array(draw, lead + pooled), (indices, 2), kwargs)

    return samples


def _unpool_errors(dims: int) -> Callable:
    def errors() -> list:
        shape = (1, 1) + (1,) * dims
        return [ErrorInput(SampleInput(_zeros(*shape), (np.full(shape, 2 ** dims + 5, dtype=np.int64), 2)),
                           RuntimeError, "Found an invalid max index")]

    return errors


UNPOOL_OPS = [OpInfo(f"nn.functional.max_unpool{dims}d", unpool_samples(dims), error_inputs=_unpool_errors(dims))
              for dims in (1, 2, 3)]


# --- fractional max pooling (random windows, given here) ----------------------------------------------
def fractional_samples(dims: int) -> Callable:
    """Windows of 2 placed by given random numbers (one per plane and dim), output sides 1-2,
    return_indices drawn. (PyTorch's 3-D pooling wants one input position to spare.)"""
    def samples(draw: Callable) -> SampleInput:
        lead = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        out = draw(st.integers(1, 2))
        smallest = out + 1 + (dims == 3)
        size = tuple(draw(st.integers(smallest, smallest + (dims == 2))) for _ in range(dims))
        seed = draw(st.integers(0, 2**32 - 1))
        u = np.random.default_rng(seed).uniform(0, 1, lead + (dims,))
        return SampleInput(array(draw, lead + size, "distinct"), (2,),
                           dict(output_size=out, _random_samples=NoGrad(u), return_indices=draw(st.booleans())))

    return samples


def _fractional_errors(dims: int) -> Callable:
    def errors() -> list:
        given = {"output_size": 3, "_random_samples": NoGrad(_zeros(1, 1, dims))}
        return [ErrorInput(SampleInput(_zeros(1, 1, *(3,) * dims), (2,), given), RuntimeError,
                           "too large relative to input")]

    return errors


FRACTIONAL_OPS = [
    op
    for dims in (2, 3)
    for op in (OpInfo(f"nn.functional.fractional_max_pool{dims}d", fractional_samples(dims),
                      error_inputs=_fractional_errors(dims)),
               OpInfo(f"nn.functional.fractional_max_pool{dims}d_with_indices", fractional_samples(dims)))
]


# --- padding -------------------------------------------------------------------------------------------
def pad_samples(mode: str) -> Callable:
    """F.pad of the last 1-3 dims: reflect pads less than the side, circular at most the side;
    constant may crop (a negative padding) and fill with a value."""
    def samples(draw: Callable) -> SampleInput:
        dims = draw(st.integers(1, 3))
        size = tuple(draw(st.integers(2 if dims < 3 else 1, 3)) for _ in range(dims))
        if mode == "reflect":
            size = tuple(max(n, 2) for n in size)
        lead = (draw(st.integers(1, 2)),) * draw(st.integers(1, 2))
        limits = {"reflect": [n - 1 for n in size], "circular": list(size), "replicate": [2] * dims,
                  "constant": [2] * dims}[mode]
        if dims == 3:  # a 3-D padding grows the tensor fast (and gradgradcheck with it)
            lead, limits = lead[:1], [min(limit, 1) for limit in limits]
        pad: tuple = ()
        for n, limit in zip(size[::-1], limits[::-1]):  # F.pad's order: the last dim first
            before = draw(st.integers(-1 if mode == "constant" else 0, limit))
            # a crop keeps at least one element (glasstorch's gradgradcheck refuses an empty output)
            after = draw(st.integers(max(-1, 1 - n - before) if mode == "constant" else 0, limit))
            pad += (before, after)
        kwargs: dict[str, Any] = {"mode": mode}
        if mode == "constant" and draw(st.booleans()):
            kwargs["value"] = 1.5
        return SampleInput(array(draw, lead + size), (pad,), kwargs)

    return samples


def _pad_errors() -> list:
    return [
        ErrorInput(SampleInput(_zeros(1, 2, 3), ((3, 0),), {"mode": "reflect"}), RuntimeError,
                   "Padding size should be less than the corresponding input dimension"),
        ErrorInput(SampleInput(_zeros(1, 2, 3), ((1,),)), RuntimeError, "Padding length must be divisible by 2"),
        ErrorInput(SampleInput(_zeros(2, 3), ((1, 1, 1, 1, 1, 1),)), RuntimeError,
                   "Padding length should be less than or equal to two times the input dimension"),
    ]


PAD_OPS = [
    OpInfo("nn.functional.pad", pad_samples("constant"), variant="constant", error_inputs=_pad_errors,
           other_dtypes=("int64", "bool")),
    OpInfo("nn.functional.pad", pad_samples("reflect"), variant="reflect", other_dtypes=("int64",)),
    OpInfo("nn.functional.pad", pad_samples("replicate"), variant="replicate"),
    OpInfo("nn.functional.pad", pad_samples("circular"), variant="circular"),  # slice copies: CopySlices
]


# --- interpolation -----------------------------------------------------------------------------------
_MODE_DIMS = {"linear": (1,), "bilinear": (2,), "bicubic": (2,), "trilinear": (3,)}


def interpolate_samples(mode: str) -> Callable:
    """F.interpolate: sides 1-3 to sides 1-5 (down and up), by ``size`` or by ``scale_factor``
    (0.5-2.5, one or one per dim, recomputed now and then); align_corners drawn where the mode
    takes it; 1-3 spatial dims where the mode takes any."""
    def samples(draw: Callable) -> SampleInput:
        dims = draw(st.sampled_from(_MODE_DIMS.get(mode, (1, 2, 3))))
        kwargs: dict[str, Any] = {"mode": mode}
        if draw(st.booleans()):
            size = tuple(draw(st.integers(2, 3 if dims < 3 else 2)) for _ in range(dims))
            factors = tuple(draw(st.sampled_from([0.5, 1.5, 2.0, 2.5])) for _ in range(dims))
            kwargs["scale_factor"] = factors if draw(st.booleans()) else factors[0]
            if draw(st.booleans()):
                kwargs["recompute_scale_factor"] = True
        else:
            size = tuple(draw(st.integers(1, 3 if dims < 3 else 2)) for _ in range(dims))
            kwargs["size"] = tuple(draw(st.integers(1, 5 if dims < 3 else 3)) for _ in range(dims))
        if mode in _MODE_DIMS and draw(st.booleans()):
            kwargs["align_corners"] = True
        return SampleInput(array(draw, (draw(st.integers(1, 2)), draw(st.integers(1, 2))) + size), (), kwargs)

    return samples


def _interpolate_errors() -> list:
    return [
        ErrorInput(SampleInput(_zeros(1, 1, 2), (), {"size": 3, "mode": "bilinear"}), NotImplementedError,
                   "Got 3D input, but bilinear mode needs 4D input"),
        ErrorInput(SampleInput(_zeros(1, 1, 2), (), {"size": 3, "scale_factor": 2.0}), ValueError,
                   "only one of size or scale_factor should be defined"),
        ErrorInput(SampleInput(_zeros(1, 1, 2), (), {"size": 3, "align_corners": True}), ValueError,
                   "align_corners option can only be set with the interpolating modes"),
    ]


INTERPOLATE_OPS = [
    OpInfo("nn.functional.interpolate", interpolate_samples(mode), variant=mode,
           error_inputs=_interpolate_errors if mode == "nearest" else list,
           other_dtypes=("int64",) if mode in ("nearest", "bilinear") else (),
           # float32 gradients: PyTorch adds the taps' shares in another order (a few ulps)
           tolerances={"float32": (1e-5, 1e-5)} if mode in ("bicubic", "trilinear") else {})
    for mode in ("nearest", "nearest-exact", "area", "linear", "bilinear", "bicubic", "trilinear")
] + [
    OpInfo("nn.functional.upsample", interpolate_samples("bilinear"),  # (it has no recompute_scale_factor)
           op=lambda lib, x, recompute_scale_factor=None, **kwargs: lib.nn.functional.upsample(x, **kwargs)),
    # the deprecated shorthands take neither a mode nor align_corners
    OpInfo("nn.functional.upsample_nearest", interpolate_samples("nearest"),
           op=lambda lib, x, size=None, scale_factor=None, **_:
           lib.nn.functional.upsample_nearest(x, size, scale_factor)),
    OpInfo("nn.functional.upsample_bilinear", interpolate_samples("bilinear"),
           op=lambda lib, x, size=None, scale_factor=None, **_:
           lib.nn.functional.upsample_bilinear(x, size, scale_factor)),
]


# --- fold, unfold, pixel and channel shuffles ----------------------------------------------------------
def _block_geometry(draw: Callable) -> dict:
    return {"dilation": draw(st.integers(1, 2)), "padding": draw(st.integers(0, 1)), "stride": draw(st.integers(1, 2))}


def unfold_samples(draw: Callable) -> SampleInput:
    kernel = tuple(draw(st.integers(1, 2)) for _ in range(2))
    kwargs = _block_geometry(draw)
    size = tuple(kwargs["dilation"] * (k - 1) + 1 + draw(st.integers(0, 2)) for k in kernel)
    lead = (draw(st.integers(1, 2)),) * draw(st.integers(0, 1))
    return SampleInput(array(draw, lead + (draw(st.integers(1, 2)),) + size), (kernel,), kwargs)


def fold_samples(draw: Callable) -> SampleInput:
    kernel = tuple(draw(st.integers(1, 2)) for _ in range(2))
    kwargs = _block_geometry(draw)
    size = tuple(kwargs["dilation"] * (k - 1) + 1 + draw(st.integers(0, 2)) for k in kernel)
    blocks = [(n + 2 * kwargs["padding"] - kwargs["dilation"] * (k - 1) - 1) // kwargs["stride"] + 1
              for n, k in zip(size, kernel)]
    lead = (draw(st.integers(1, 2)),) * draw(st.integers(0, 1))
    columns = lead + (draw(st.integers(1, 2)) * kernel[0] * kernel[1], blocks[0] * blocks[1])
    return SampleInput(array(draw, columns), (size, kernel), kwargs)


def _shuffle_samples(up: bool) -> Callable:
    def samples(draw: Callable) -> SampleInput:
        r = draw(st.integers(1, 2))
        lead = (draw(st.integers(1, 2)),) * draw(st.integers(0, 1))
        h, w = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        shape = (draw(st.integers(1, 2)) * r * r, h, w) if up else (draw(st.integers(1, 2)), h * r, w * r)
        return SampleInput(array(draw, lead + shape), (r,))

    return samples


def channel_shuffle_samples(draw: Callable) -> SampleInput:
    groups = draw(st.integers(1, 3))
    shape = (draw(st.integers(1, 2)), groups * draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    return SampleInput(array(draw, shape), (groups,))


def _fold_errors() -> list:
    return [ErrorInput(SampleInput(_zeros(1, 3, 4), ((3, 3), 2)), RuntimeError,
                       "to be divisible by the product of kernel_size")]


def _unfold_errors() -> list:
    return [ErrorInput(SampleInput(_zeros(1, 1, 2, 2), (3,)), RuntimeError, "its components must be at least one")]


def _pixel_shuffle_errors() -> list:
    return [ErrorInput(SampleInput(_zeros(1, 3, 2, 2), (2,)), RuntimeError,
                       "to be divisible by the square of upscale_factor")]


def _pixel_unshuffle_errors() -> list:
    return [ErrorInput(SampleInput(_zeros(1, 1, 3, 2), (2,)), RuntimeError,
                       "expects height to be divisible by downscale_factor")]


def _channel_shuffle_errors() -> list:
    return [ErrorInput(SampleInput(_zeros(1, 3, 2), (2,)), RuntimeError,
                       "Number of channels must be divisible by groups")]


SHUFFLE_OPS = [
    OpInfo("nn.functional.unfold", unfold_samples, error_inputs=_unfold_errors, other_dtypes=("int64",)),
    OpInfo("nn.functional.fold", fold_samples, error_inputs=_fold_errors, other_dtypes=("int64",)),
    OpInfo("nn.functional.pixel_shuffle", _shuffle_samples(up=True), error_inputs=_pixel_shuffle_errors,
           other_dtypes=("int64", "bool")),
    OpInfo("nn.functional.pixel_unshuffle", _shuffle_samples(up=False), error_inputs=_pixel_unshuffle_errors),
    OpInfo("nn.functional.channel_shuffle", channel_shuffle_samples, error_inputs=_channel_shuffle_errors),
    # PyTorch records a Node without a backward for it ("NotImplemented"): values only
    OpInfo("nn.functional.native_channel_shuffle", channel_shuffle_samples, supports_grad=False),
]


# --- attention -----------------------------------------------------------------------------------------
def sdpa_samples(draw: Callable) -> SampleInput:
    """query (B, L, E), key (B, S, E), value (B, S, Ev); a bool or float mask, or is_causal;
    a given ``scale`` now and then. (dropout_p stays 0: dropout is random.)"""
    mask = draw(st.sampled_from(["none", "bool", "float", "causal"]))
    lead = (draw(st.integers(1, 2)),)  # 3-D: PyTorch's CPU flash kernel (another Node) takes 4-D only
    length, source, e, ev = (draw(st.integers(1, 3)) for _ in range(4))
    kwargs: dict[str, Any] = {}
    if draw(st.booleans()):
        kwargs["scale"] = 0.7
    if mask == "bool":
        allowed = np.random.default_rng(draw(st.integers(0, 99))).random((length, source)) < 0.7
        allowed[:, 0] = True  # every row attends somewhere (an all -inf row is NaN in both)
        kwargs["attn_mask"] = allowed
    elif mask == "float":
        kwargs["attn_mask"] = array(draw, (length, source))
    elif mask == "causal":
        kwargs["is_causal"] = True
    return SampleInput(array(draw, lead + (length, e)), (array(draw, lead + (source, e)),
                                                         array(draw, lead + (source, ev))), kwargs)


def _sdpa_errors() -> list:
    return [ErrorInput(SampleInput(_zeros(1, 2, 3), (_zeros(1, 2, 3), _zeros(1, 2, 3)),
                                   {"attn_mask": _zeros(2, 2), "is_causal": True}), RuntimeError,
                       "Explicit attn_mask should not be set when is_causal=True")]


def mha_samples(draw: Callable) -> SampleInput:
    """multi_head_attention_forward on (L, N, E) or unbatched (L, E) inputs: 1-2 heads of size 1-2,
    packed in-projection with or without bias, self- or cross-attention, a float attn_mask now and
    then, the weights averaged over the heads or not. (dropout_p 0, training False.)"""
    heads = draw(st.integers(1, 2))
    embed = heads * draw(st.integers(1, 2))
    length, source = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    batch = (draw(st.integers(1, 2)),) * draw(st.integers(0, 1))
    query = array(draw, (length,) + batch + (embed,))
    key = query if draw(st.booleans()) and length == source else array(draw, (source,) + batch + (embed,))
    value = key if key is query else array(draw, (source,) + batch + (embed,))
    in_bias = array(draw, (3 * embed,)) if draw(st.booleans()) else None
    kwargs: dict[str, Any] = {"training": False, "average_attn_weights": draw(st.booleans())}
    if draw(st.booleans()):
        kwargs["attn_mask"] = array(draw, (length, source))
    return SampleInput(query, (key, value, embed, heads, array(draw, (3 * embed, embed)), in_bias, None, None, False,
                               0.0, array(draw, (embed, embed)), array(draw, (embed,))), kwargs)


ATTENTION_OPS = [
    # glasstorch's matmul of batched operands records one MatmulBackward0; PyTorch's folds the batch
    # dims into one bmm and views the result back (_unsafe_view): the last Node differs
    OpInfo("nn.functional.scaled_dot_product_attention", sdpa_samples, error_inputs=_sdpa_errors,
           grad_fn_difference=("MatmulBackward0", "UnsafeViewBackward0")),
    # the key's share of in_proj_bias shifts every score of a row alike, which softmax ignores: its
    # gradient is 0 up to rounding, and the two libraries round differently
    OpInfo("nn.functional.multi_head_attention_forward", mha_samples,
           tolerances={"float64": (1e-12, 1e-13), "float32": (2e-6, 1e-5)}),
]


OPS: list = CONV_OPS + POOL_OPS + ADAPTIVE_OPS + UNPOOL_OPS + FRACTIONAL_OPS + PAD_OPS + INTERPOLATE_OPS + \
    SHUFFLE_OPS + ATTENTION_OPS
