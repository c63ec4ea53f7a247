"""Attention and the Transformer layers real PyTorch code uses (issue 14): nn.MultiheadAttention,
F.multi_head_attention_forward, F.scaled_dot_product_attention, nn.TransformerEncoderLayer /
DecoderLayer / Encoder / Decoder / Transformer. Each compared with PyTorch 2.13 after copying the same
parameters into both (outputs, attention weights, gradients, grad_fn names, state_dict keys, reprs,
warnings, errors), and gradchecked in float64."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.autograd import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")


def _values(seed: int, shape: tuple, scale: float = 1.0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape) * scale


def _same_parameters(module_gt, module_torch, dtype=np.float64) -> None:
    """Give both modules the same (random, seeded) parameters, checking their names agree."""
    names_gt = [name for name, _ in module_gt.named_parameters()]
    names_torch = [name for name, _ in module_torch.named_parameters()]
    assert names_gt == names_torch
    for i, ((_, p_gt), (_, p_torch)) in enumerate(zip(module_gt.named_parameters(), module_torch.named_parameters())):
        values = _values(100 + i, tuple(p_torch.shape), 0.4).astype(dtype)
        with gt.no_grad():
            p_gt.copy_(gt.tensor(values))
        with torch.no_grad():
            p_torch.copy_(torch.tensor(values))


def _build(lib, cls_name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(lib.nn, cls_name)(*args, **kwargs).double()


MHA_CASES = {
    "self": dict(options={}, call=dict(), cross=False),
    "cross": dict(options={}, call=dict(), cross=True),
    "kdim_vdim": dict(options=dict(kdim=5, vdim=3), call=dict(), cross=True),
    "bias_kv_zero_attn": dict(options=dict(add_bias_kv=True, add_zero_attn=True), call=dict(), cross=False),
    "no_bias": dict(options=dict(bias=False), call=dict(average_attn_weights=False), cross=False),
    "masks": dict(options={}, call=dict(attn_mask="bool", key_padding_mask=True), cross=False),
    "float_mask_no_weights": dict(options={}, call=dict(attn_mask="float", need_weights=False), cross=False),
    "batch_first": dict(options=dict(batch_first=True), call=dict(key_padding_mask=True), cross=True),
    "causal_no_weights": dict(options={}, call=dict(attn_mask="causal", is_causal=True, need_weights=False),
                              cross=False),
}


def _mha_run(lib, case, unbatched=False):
    spec = MHA_CASES[case]
    module = _build(lib, "MultiheadAttention", 8, 2, **spec["options"])
    length, source, batch = 4, 5 if spec["cross"] else 4, 3
    batch_first = spec["options"].get("batch_first", False)
    shape = (lambda n: (batch, n, 8) if batch_first else (n, batch, 8)) if not unbatched else (lambda n: (n, 8))
    query = lib.tensor(_values(1, shape(length)), requires_grad=True)
    if spec["cross"]:
        kdim, vdim = spec["options"].get("kdim", 8), spec["options"].get("vdim", 8)
        key = lib.tensor(_values(2, shape(source)[:-1] + (kdim,)), requires_grad=True)
        value = key if kdim == vdim == 8 else lib.tensor(_values(3, shape(source)[:-1] + (vdim,)))
    else:
        key = value = query
    call = dict(spec["call"])
    if call.get("attn_mask") == "bool":
        allowed = _values(4, (length, source)) > -0.5
        allowed[:, 0] = True  # a row with every place masked would be all NaN, in both
        call["attn_mask"] = lib.tensor(~allowed)
    elif call.get("attn_mask") == "float":
        call["attn_mask"] = lib.tensor(_values(5, (batch * 2, length, source)))
    elif call.get("attn_mask") == "causal":
        call["attn_mask"] = lib.nn.Transformer.generate_square_subsequent_mask(length, dtype=lib.float64)
    if call.get("key_padding_mask"):
        padding = np.zeros((batch, source), dtype=bool)
        padding[1, -2:] = True
        call["key_padding_mask"] = lib.tensor(padding[0] if unbatched else padding)
    return module, query, key, value, call


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention_as_pytorch(case):
    results = []
    for lib in (gt, torch):
        module, query, key, value, call = _mha_run(lib, case)
        results.append(module)
    _same_parameters(*results)
    outcomes = []
    for lib, module in zip((gt, torch), results):
        _, query, key, value, call = _mha_run(lib, case)
        output, weights = module(query, key, value, **call)
        (output * lib.tensor(_values(9, tuple(output.shape)))).sum().backward()
        grads = [p.grad.numpy() for p in module.parameters()]
        outcomes.append((output.detach().numpy(), None if weights is None else weights.detach().numpy(),
                         query.grad.numpy(), grads, output.grad_fn.name(), repr(module)))
    got, want = outcomes
    np.testing.assert_allclose(got[0], want[0], atol=1e-10)
    assert (got[1] is None) == (want[1] is None)
    if got[1] is not None:
        np.testing.assert_allclose(got[1], want[1], atol=1e-10)
    np.testing.assert_allclose(got[2], want[2], atol=1e-10)
    for g, w in zip(got[3], want[3]):
        np.testing.assert_allclose(g, w, atol=1e-10)
    assert got[4:] == want[4:]


@pytest.mark.parametrize("case", ["self", "masks", "float_mask_no_weights"])
def test_multihead_attention_unbatched_as_pytorch(case):
    modules = [_mha_run(lib, case, unbatched=True) for lib in (gt, torch)]
    _same_parameters(modules[0][0], modules[1][0])
    results = []
    for module, query, key, value, call in modules:
        if case == "float_mask_no_weights":
            call["attn_mask"] = call["attn_mask"][:2]  # (heads, L, S) for one sequence
        output, weights = module(query, key, value, **call)
        results.append((output.detach().numpy(), None if weights is None else weights.detach().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], atol=1e-10)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], atol=1e-10)


def test_multihead_attention_parameters_state_dict_and_init_as_pytorch():
    for options in ({}, dict(kdim=5, vdim=3, add_bias_kv=True), dict(bias=False)):
        m_gt, m_torch = gt.nn.MultiheadAttention(8, 4, **options), torch.nn.MultiheadAttention(8, 4, **options)
        assert list(m_gt.state_dict()) == list(m_torch.state_dict())
        for (name, p_gt), (_, p_torch) in zip(m_gt.named_parameters(), m_torch.named_parameters()):
            assert p_gt.shape == tuple(p_torch.shape), name
            if name.endswith("bias") and not name.startswith("bias_"):
                assert not p_gt.detach().numpy().any()  # zero, as PyTorch's _reset_parameters leaves them
        assert type(m_gt.out_proj).__name__ == type(m_torch.out_proj).__name__
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ on the packed (3E, E) weight
    weight = gt.nn.MultiheadAttention(8, 2).in_proj_weight.detach().numpy()
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > bound * 0.8


def test_multihead_attention_gradients_by_finite_differences():
    module = gt.nn.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True).double()
    mask = gt.tensor([[0.0, -1.0, 0.5], [0.3, 0.0, -0.2]], dtype=gt.float64)

    def attend(query, key, value):
        return module(query, key, value, attn_mask=mask)[0]
    inputs = [gt.tensor(_values(i, shape), requires_grad=True) for i, shape in
              enumerate([(2, 2, 4), (3, 2, 3), (3, 2, 2)])]
    assert gradcheck(attend, inputs)
    assert gradcheck(lambda q: module(q, inputs[1], inputs[2], need_weights=True)[1], (inputs[0],))


def test_multihead_attention_errors_as_pytorch():
    for lib in (gt, torch):
        with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
            lib.nn.MultiheadAttention(10, 3)
        with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
            lib.nn.MultiheadAttention(0, 2)
        module = lib.nn.MultiheadAttention(4, 2)
        x = lib.ones(3, 2, 4)
        with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
            module(x, x, x, attn_mask=lib.zeros(2, 2))
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
            module(x, x, x, is_causal=True)


# --- scaled_dot_product_attention -----------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, dict(is_causal=True), dict(attn_mask="bool"), dict(attn_mask="float"),
                                     dict(scale=0.3), dict(attn_mask="float", scale=2.0)],
                         ids=["plain", "causal", "bool_mask", "float_mask", "scale", "mask_scale"])
def test_scaled_dot_product_attention_as_pytorch(options):
    results = []
    for lib in (gt, torch):
        q, k, v = (lib.tensor(_values(i, shape), requires_grad=True) for i, shape in
                   enumerate([(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)]))
        call = dict(options)
        if call.get("attn_mask") == "bool":
            allowed = _values(7, (4, 6)) > -0.3
            allowed[:, 0] = True
            call["attn_mask"] = lib.tensor(allowed)
        elif call.get("attn_mask") == "float":
            call["attn_mask"] = lib.tensor(_values(8, (3, 4, 6)))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **call)
        (out * lib.tensor(_values(9, tuple(out.shape)))).sum().backward()
        results.append([out.detach().numpy(), q.grad.numpy(), k.grad.numpy(), v.grad.numpy()])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, atol=1e-10)


def test_scaled_dot_product_attention_gradients_and_errors():
    q, k, v = (gt.tensor(_values(i, (2, 3, 4)), requires_grad=True) for i in range(3))
    assert gradcheck(lambda q, k, v: gt.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v))
    for lib in (gt, torch):
        x = lib.ones(2, 3, 4)
        with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
            lib.nn.functional.scaled_dot_product_attention(x, x, x, attn_mask=lib.ones(3, 3), is_causal=True)


# --- the Transformer layers -------------------------------------------------------------------------
def _encoder_layer(lib, **options):
    return lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **options)


TRANSFORMER_CASES = {
    "encoder_layer": lambda lib: _build(lib, "TransformerEncoderLayer", 8, 2, 16, dropout=0.0),
    "encoder_layer_gelu_norm_first": lambda lib: _build(lib, "TransformerEncoderLayer", 8, 2, 16, dropout=0.0,
                                                        activation="gelu", norm_first=True, batch_first=True),
    "encoder": lambda lib: _build(lib, "TransformerEncoder", _encoder_layer(lib), 2, norm=lib.nn.LayerNorm(8)),
    "decoder_layer": lambda lib: _build(lib, "TransformerDecoderLayer", 8, 2, 16, dropout=0.0),
    "decoder": lambda lib: _build(lib, "TransformerDecoder",
                                  lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True), 2),
    "transformer": lambda lib: _build(lib, "Transformer", 8, 2, 1, 2, 16, dropout=0.0),
}


@pytest.mark.parametrize("case", list(TRANSFORMER_CASES))
@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
def test_transformer_layers_as_pytorch(case, masked):
    modules = [TRANSFORMER_CASES[case](lib) for lib in (gt, torch)]
    _same_parameters(*modules)
    outcomes = []
    for lib, module in zip((gt, torch), modules):
        batch_first = "norm_first" in case
        src = lib.tensor(_values(1, (3, 5, 8) if batch_first else (5, 3, 8)), requires_grad=True)
        tgt = lib.tensor(_values(2, (4, 3, 8)), requires_grad=True)
        causal = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64)
        padding = lib.tensor(np.array([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]]))
        if case.startswith("encoder"):
            kwargs = dict(src_key_padding_mask=padding) if masked else {}
            output = module(src, **kwargs)
        elif case.startswith("decoder"):
            kwargs = dict(tgt_mask=causal, memory_key_padding_mask=padding) if masked else {}
            output = module(tgt, src, **kwargs)
        else:
            kwargs = dict(tgt_mask=causal, src_key_padding_mask=padding) if masked else {}
            output = module(src, tgt, **kwargs)
        (output * lib.tensor(_values(3, tuple(output.shape)))).sum().backward()
        outcomes.append((output.detach().numpy(), src.grad.numpy(), [p.grad.numpy() for p in module.parameters()],
                         output.grad_fn.name(), list(module.state_dict())))
    got, want = outcomes
    np.testing.assert_allclose(got[0], want[0], atol=1e-9)
    np.testing.assert_allclose(got[1], want[1], atol=1e-9)
    for g, w in zip(got[2], want[2]):
        np.testing.assert_allclose(g, w, atol=1e-9)
    assert got[3:] == want[3:]


def test_transformer_reprs_masks_and_warnings_as_pytorch():
    def build(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            encoder = lib.nn.TransformerEncoder(_encoder_layer(lib), 2)
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, batch_first=True), 1)
        return (repr(encoder), [str(w.message) for w in caught],
                lib.nn.Transformer.generate_square_subsequent_mask(3).tolist())
    assert build(gt) == build(torch)


def test_transformer_initialisation_and_errors_as_pytorch():
    model = gt.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)
    weight = model.encoder.layers[0].linear1.weight.detach().numpy()  # xavier_uniform_ (16, 8) after the Linear's own
    assert np.abs(weight).max() <= np.sqrt(6 / 24)
    for lib in (gt, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = lib.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                       dim_feedforward=16)
        with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
            model(lib.ones(3, 2, 8), lib.ones(3, 4, 8))
        with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
            model(lib.ones(3, 2, 6), lib.ones(3, 2, 6))
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
            lib.nn.TransformerEncoderLayer(8, 2, activation="tanh")


def test_encoder_layer_gradients_by_finite_differences():
    layer = gt.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0).double()
    src = gt.tensor(_values(5, (3, 2, 4)), requires_grad=True)
    mask = gt.nn.Transformer.generate_square_subsequent_mask(3, dtype=gt.float64)
    assert gradcheck(lambda x: layer(x, src_mask=mask), (src,))


# --- Fold / Unfold (im2col / col2im) --------------------------------------------------------------
FOLD_GEOMETRIES = [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                   dict(kernel_size=3, padding=(0, 2), stride=2), dict(kernel_size=(1, 2), dilation=2)]


@pytest.mark.parametrize("geometry", FOLD_GEOMETRIES, ids=["plain", "all", "stride_pad", "dilated"])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
def test_unfold_and_fold_as_pytorch(geometry, batched):
    shape = (2, 3, 6, 7) if batched else (3, 6, 7)
    outcomes = []
    for lib in (gt, torch):
        x = lib.tensor(_values(1, shape), requires_grad=True)
        columns = lib.nn.functional.unfold(x, **geometry)
        image = lib.nn.Fold((6, 7), **geometry)(columns * 2)
        (image * lib.tensor(_values(2, shape))).sum().backward()
        node = columns.grad_fn
        outcomes.append((columns.detach().numpy(), image.detach().numpy(), x.grad.numpy(),
                         columns.grad_fn.name(), image.grad_fn.name(), node._saved_kernel_size,
                         node._saved_dilation, node._saved_padding, node._saved_stride,
                         node._saved_self_sym_argsize_minus_2, node._saved_self_sym_argsize_minus_1,
                         repr(lib.nn.Unfold(**geometry))))
    got, want = outcomes
    for g, w in zip(got[:3], want[:3]):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, atol=1e-12)
    assert got[3:] == want[3:]


def test_unfold_and_fold_gradients_by_finite_differences():
    geometry = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    x = gt.tensor(_values(3, (2, 2, 5, 6)), requires_grad=True)
    assert gradcheck(lambda x: gt.nn.functional.unfold(x, **geometry), (x,))
    columns = gt.tensor(_values(4, (2, 12, 12)), requires_grad=True)
    assert gradcheck(lambda c: gt.nn.functional.fold(c, (5, 6), **geometry), (columns,))
    from glasstorch.autograd import gradgradcheck
    assert gradgradcheck(lambda x: gt.nn.functional.unfold(x, **geometry) ** 2, (x,))


def test_unfold_and_fold_errors_as_pytorch():
    for lib in (gt, torch):
        F = lib.nn.functional
        with pytest.raises(RuntimeError, match="calculated shape of the array of sliding blocks as \\(0, 0\\)"):
            F.unfold(lib.ones(1, 2, 3, 3), 4)
        with pytest.raises(RuntimeError, match="Expected 3D or 4D \\(batch mode\\) tensor"):
            F.unfold(lib.ones(1, 2, 3, 3, 3), 2)
        with pytest.raises(RuntimeError, match="to be divisible by the product of kernel_size"):
            F.fold(lib.ones(2, 7, 4), (3, 3), 2)
        with pytest.raises(RuntimeError, match="to match the calculated number of sliding blocks 2 \\* 2 = 4"):
            F.fold(lib.ones(2, 12, 5), (3, 3), 2)
        with pytest.raises(RuntimeError, match="Expected 2D or 3D \\(batch mode\\) tensor"):
            F.fold(lib.ones(2, 2, 12, 5), (3, 3), 2)


# --- EmbeddingBag ----------------------------------------------------------------------------------
BAG_CASES = {
    "mean_offsets": dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 4], mode="mean"),
    "sum_2d": dict(input=[[1, 2, 4], [4, 3, 2]], mode="sum"),
    "max_offsets_empty_bag": dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 3, 3, 6], mode="max"),
    "max_ties": dict(input=[[1, 1, 2], [3, 3, 3]], mode="max"),
    "sum_weights": dict(input=[1, 2, 4, 5, 4, 3], offsets=[0, 2], mode="sum", weights=True),
    "mean_padding": dict(input=[[1, 0, 2], [0, 0, 0]], mode="mean", padding_idx=0),
    "sum_last_offset": dict(input=[1, 2, 4, 5, 4, 3], offsets=[0, 2, 6], mode="sum", include_last_offset=True),
    "max_padding": dict(input=[[1, 0, 2], [0, 0, 5]], mode="max", padding_idx=0),
}


@pytest.mark.parametrize("case", list(BAG_CASES))
def test_embedding_bag_as_pytorch(case):
    spec = dict(BAG_CASES[case])
    table = _values(21, (10, 3))
    table[1, 0] = table[2, 0]  # a tie inside a bag for max
    outcomes = []
    for lib in (gt, torch):
        weight = lib.tensor(table, requires_grad=True)
        indices = lib.tensor(spec["input"])
        kwargs = {k: spec[k] for k in ("mode", "padding_idx", "include_last_offset", "scale_grad_by_freq")
                  if k in spec}
        if "offsets" in spec:
            kwargs["offsets"] = lib.tensor(spec["offsets"])
        weights = None
        if spec.get("weights"):
            weights = lib.tensor(_values(22, (len(spec["input"]),)), requires_grad=True)
            kwargs["per_sample_weights"] = weights
        out = lib.nn.functional.embedding_bag(indices, weight, **kwargs)
        (out * lib.tensor(_values(23, tuple(out.shape)))).sum().backward()
        outcomes.append((out.detach().numpy(), weight.grad.numpy(), None if weights is None else weights.grad.numpy(),
                         out.grad_fn.name()))
    got, want = outcomes
    np.testing.assert_allclose(got[0], want[0], atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], atol=1e-12)
    if want[2] is not None:
        np.testing.assert_allclose(got[2], want[2], atol=1e-12)
    assert got[3] == want[3]


def test_embedding_bag_module_as_pytorch():
    def run(lib):
        bag = lib.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=-1)
        with lib.no_grad():
            bag.weight.copy_(lib.tensor(_values(24, (10, 3)).astype(np.float32)))
        out = bag(lib.tensor([1, 9, 3, 9]), lib.tensor([0, 2]))
        frozen = lib.nn.EmbeddingBag.from_pretrained(lib.tensor([[1.0, 2.0], [3.0, 4.0]]), mode="max")
        return (out.detach().numpy(), repr(bag), repr(frozen), frozen.weight.requires_grad,
                frozen(lib.tensor([[0, 1]])).tolist(), list(bag.state_dict()))
    got, want = run(gt), run(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert got[1:] == want[1:]


def test_embedding_bag_gradients_by_finite_differences():
    indices, offsets = gt.tensor([1, 2, 4, 5, 4, 3]), gt.tensor([0, 2, 2])
    weight = gt.tensor(_values(25, (6, 3)), requires_grad=True)
    per_sample = gt.tensor(_values(26, (6,)), requires_grad=True)
    for mode in ("sum", "mean", "max"):
        assert gradcheck(lambda w: gt.nn.functional.embedding_bag(indices, w, offsets, mode=mode), (weight,))
    assert gradcheck(lambda w, p: gt.nn.functional.embedding_bag(indices, w, offsets, mode="sum",
                                                                 per_sample_weights=p), (weight, per_sample))


def test_embedding_bag_errors_as_pytorch():
    for lib in (gt, torch):
        F, w = lib.nn.functional, lib.ones(10, 3)
        with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
            F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 1]), mode="mean", per_sample_weights=lib.ones(2))
        with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
            F.embedding_bag(lib.tensor([[1, 2]]), w, lib.tensor([0]))
        with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
            F.embedding_bag(lib.tensor([1, 2]), w)
        with pytest.raises(RuntimeError, match="Index 1 of input takes value 12 which is not in the valid range"):
            F.embedding_bag(lib.tensor([1, 12]), w, lib.tensor([0]))
        with pytest.raises(ValueError, match="must have the same shape as the input"):
            F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0]), mode="sum", per_sample_weights=lib.ones(3))
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq=False only"):
        gt.nn.functional.embedding_bag(gt.tensor([1, 2]), gt.ones(10, 3), gt.tensor([0]), scale_grad_by_freq=True)


# --- fractional max pooling ------------------------------------------------------------------------
@pytest.mark.parametrize("dims, shape, kernel, size", [
    (2, (2, 3, 9, 11), (2, 3), dict(output_size=(5, 4))),
    (2, (3, 9, 11), 3, dict(output_ratio=(0.5, 0.7))),
    (2, (1, 2, 6, 6), 2, dict(output_size=5)),
    (3, (2, 6, 5, 7), 2, dict(output_size=(3, 2, 4))),
    (3, (1, 2, 7, 6, 5), (3, 2, 2), dict(output_ratio=0.5)),
], ids=["2d", "2d_unbatched_ratio", "2d_overlapping", "3d_unbatched", "3d_ratio"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool_as_pytorch(dims, shape, kernel, size, dtype):
    values = _values(31, shape).astype(dtype)
    flat = values.reshape(-1)
    flat[::7][:len(flat[1::7])] = flat[1::7]  # equal neighbours: ties inside windows
    planes = (1 if len(shape) == dims + 1 else shape[0], shape[-dims - 1], dims)
    samples = np.random.default_rng(32).random(planes).astype(dtype)
    outcomes = []
    for lib in (gt, torch):
        x = lib.tensor(values, requires_grad=True)
        function = getattr(lib.nn.functional, f"fractional_max_pool{dims}d")
        out, indices = function(x, kernel, return_indices=True, _random_samples=lib.tensor(samples), **size)
        (out * lib.tensor(_values(33, tuple(out.shape)).astype(dtype))).sum().backward()
        module = getattr(lib.nn, f"FractionalMaxPool{dims}d")(kernel, _random_samples=lib.tensor(samples), **size)
        outcomes.append((out.detach().numpy(), indices.numpy(), x.grad.numpy(), out.grad_fn.name(),
                         module(x).detach().numpy(), repr(module), list(module.state_dict())))
    got, want = outcomes
    for g, w in zip(got[:3], want[:3]):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[4], want[4])
    assert got[3] == want[3] and got[5:] == want[5:]


def test_fractional_max_pool_gradients_and_errors():
    x = gt.tensor(_values(34, (1, 2, 7, 6)), requires_grad=True)
    samples = gt.tensor(np.random.default_rng(35).random((1, 2, 2)))
    assert gradcheck(lambda x: gt.nn.functional.fractional_max_pool2d(x, 2, output_size=(4, 3),
                                                                      _random_samples=samples), (x,))
    out = gt.nn.functional.fractional_max_pool2d(x, 2, output_size=3)  # windows from the generator: in range
    assert out.shape == (1, 2, 3, 3)
    for lib in (gt, torch):
        F, y = lib.nn.functional, lib.ones(1, 2, 7, 9)
        with pytest.raises(ValueError, match="requires specifying either an output_size or an output_ratio"):
            F.fractional_max_pool2d(y, 2)
        with pytest.raises(RuntimeError, match="pool height 5 too large relative to input height 7"):
            F.fractional_max_pool2d(y, 5, output_size=(5, 5))
        with pytest.raises(ValueError, match="output_ratio must be between 0 and 1 \\(got 1.5\\)"):
            lib.nn.FractionalMaxPool2d(2, output_ratio=1.5)
        with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
            lib.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
        with pytest.raises(ValueError, match="FractionalMaxPool3d requires specifying either an output size"):
            lib.nn.FractionalMaxPool3d(2)
