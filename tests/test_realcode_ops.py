"""Names that real PyTorch code pasted by learners needed (issue 14), compared with PyTorch 2.13:
torch.svd / torch.linalg.svd / svdvals (values, reconstruction, grad_fn names, gradients by finite
differences in float64, errors), the torch.functional module with tensordot and broadcast_tensors,
and the Generator's repr that the tutorials print after torch.manual_seed."""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.autograd import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")


def _matrix(seed: int, shape: tuple) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# --- svd --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (4, 2), (2, 5, 3)], ids=["2x2", "3x3", "tall", "batch"])
@pytest.mark.parametrize("some", [True, False])
def test_svd_as_pytorch(shape, some):
    values = _matrix(1, shape).astype(np.float32)
    got, want = gt.svd(gt.tensor(values), some=some), torch.svd(torch.tensor(values), some=some)
    for name in ("U", "S", "V"):
        assert getattr(got, name).shape == tuple(getattr(want, name).shape), name
        np.testing.assert_allclose(getattr(got, name).numpy(), getattr(want, name).numpy(), atol=1e-5)
    assert repr(got).startswith("glasstorch.return_types.svd(\nU=tensor(")


@pytest.mark.parametrize("shape", [(2, 4), (3, 5)], ids=["2x4", "3x5"])
def test_svd_of_a_wide_matrix_reconstructs_it(shape):
    # PyTorch's LAPACK may choose other signs for a wide matrix's singular vectors; U S Vh is A in both
    values = _matrix(2, shape)
    got = gt.linalg.svd(gt.tensor(values), full_matrices=False)
    want = torch.linalg.svd(torch.tensor(values), full_matrices=False)
    np.testing.assert_allclose(got.S.numpy(), want.S.numpy(), atol=1e-12)
    np.testing.assert_allclose((got.U.numpy() * got.S.numpy()) @ got.Vh.numpy(), values, atol=1e-12)
    np.testing.assert_allclose(np.abs(got.U.numpy()), np.abs(want.U.numpy()), atol=1e-12)


def test_svd_compute_uv_false_and_svdvals_as_pytorch():
    values = _matrix(3, (2, 3)).astype(np.float32)
    got, want = gt.svd(gt.tensor(values), compute_uv=False), torch.svd(torch.tensor(values), compute_uv=False)
    assert got.U.shape == tuple(want.U.shape) and got.V.shape == tuple(want.V.shape)
    assert not got.U.numpy().any() and not got.V.numpy().any()
    np.testing.assert_allclose(got.S.numpy(), want.S.numpy(), atol=1e-6)
    np.testing.assert_allclose(gt.linalg.svdvals(gt.tensor(values)).numpy(),
                               torch.linalg.svdvals(torch.tensor(values)).numpy(), atol=1e-6)
    np.testing.assert_allclose(gt.tensor(values).svd().S.numpy(), want.S.numpy(), atol=1e-6)


def test_svd_grad_fn_names_as_pytorch():
    def names(lib):
        a = lib.tensor(_matrix(4, (3, 2)), requires_grad=True)
        u, s, v = lib.svd(a)
        return [type(t.grad_fn).__name__ for t in (u, s, v)], type(lib.linalg.svd(a).Vh.grad_fn).__name__
    assert names(gt) == names(torch)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)], ids=["square", "tall", "wide", "batch"])
def test_svd_gradients_as_pytorch_and_by_finite_differences(shape):
    values = _matrix(5, shape)
    weights = [_matrix(6 + i, size) for i, size in enumerate(
        [shape[:-1] + (min(shape[-2:]),), shape[:-2] + (min(shape[-2:]),), shape[:-2] + (min(shape[-2:]), shape[-1])])]

    def loss(lib, a):
        u, s, vh = lib.linalg.svd(a, full_matrices=False)
        # a loss that does not depend on the signs LAPACK picks: U and Vh enter through U diag(w) Vh
        w = lib.tensor(weights[1])
        return (lib.tensor(weights[0]).sum(-1, keepdim=True) * (u * w.unsqueeze(-2)) @ vh).sum() + (s ** 3).sum()

    grads = []
    for lib in (gt, torch):
        a = lib.tensor(values, requires_grad=True)
        loss(lib, a).backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-9)
    assert gradcheck(lambda a: loss(gt, a), (gt.tensor(values, requires_grad=True),))
    assert gradcheck(lambda a: gt.svd(a).U.sum() + gt.svd(a).V[..., 0, :].sum() + gt.svd(a).S.sum(),
                     (gt.tensor(values, requires_grad=True),))


def test_svd_errors_as_pytorch():
    for lib in (gt, torch):
        with pytest.raises(RuntimeError, match="linalg.svd: input should have at least 2 dimensions"):
            lib.svd(lib.tensor([1.0, 2.0]))
        with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
            lib.linalg.svd(lib.tensor([[1, 2]]))


# --- torch.functional -------------------------------------------------------------------------------
def test_functional_module_has_pytorchs_names():
    import glasstorch.functional as gf
    import torch.functional as tf

    for name in gf.__all__:
        assert name in tf.__all__, name
    for name in gf.__all__:
        assert getattr(gf, name) is getattr(gt, name), name


@pytest.mark.parametrize("dims", [2, 1, ([1, 2], [1, 0]), ([0], [2])], ids=["2", "1", "pairs", "one_pair"])
def test_tensordot_as_pytorch(dims):
    a_values, b_values = _matrix(7, (2, 3, 4)), _matrix(8, (4, 3, 2)) if dims != 2 else _matrix(8, (3, 4, 2))
    if dims == 1:
        b_values = _matrix(8, (4, 5))
    results = []
    for lib in (gt, torch):
        a, b = lib.tensor(a_values, requires_grad=True), lib.tensor(b_values, requires_grad=True)
        out = lib.tensordot(a, b, dims=dims)
        (out * out).sum().backward()
        results.append((out.detach().numpy(), a.grad.numpy(), b.grad.numpy(), type(out.grad_fn).__name__))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, atol=1e-10) if isinstance(got, np.ndarray) else None
    assert results[0][3] == results[1][3]
    a, b = gt.tensor(a_values, requires_grad=True), gt.tensor(b_values, requires_grad=True)
    assert gradcheck(lambda a, b: gt.tensordot(a, b, dims=dims), (a, b))


def test_tensordot_errors_as_pytorch():
    for lib in (gt, torch):
        with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
            lib.tensordot(lib.ones(2, 3), lib.ones(2, 3), dims=([0], [1]))
        with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
            lib.tensordot(lib.ones(2, 3), lib.ones(2, 3), dims=([0, 1], [0]))


def test_broadcast_tensors_as_pytorch():
    def run(lib):
        a = lib.tensor([[1.0], [2.0]], requires_grad=True)
        x, y = lib.broadcast_tensors(a, lib.tensor([1.0, 2.0, 3.0]))
        (x * y).sum().backward()
        return x.shape, y.shape, type(x.grad_fn).__name__, a.grad.tolist()
    got, want = run(gt), run(torch)
    assert (tuple(got[0]), tuple(got[1]), got[2], got[3]) == (tuple(want[0]), tuple(want[1]), want[2], want[3])


# --- Generator ----------------------------------------------------------------------------------------
def test_generator_repr_as_pytorchs():
    def shape_of(text):
        return re.sub(r"0x[0-9a-f]+", "0x", text).replace("glasstorch", "torch")
    assert shape_of(repr(gt.manual_seed(1))) == shape_of(repr(torch.manual_seed(1)))
    assert shape_of(repr(gt.Generator())) == shape_of(repr(torch.Generator()))


# --- the random stream consumed as PyTorch consumes it ----------------------------------------------
@pytest.mark.parametrize("lib", [gt, torch], ids=["glasstorch", "torch"])
def test_a_dataloader_pass_draws_one_base_seed_as_pytorchs(lib):
    # PyTorch's _BaseDataLoaderIter draws empty((), dtype=int64).random_() per pass, shuffled or not;
    # so the numbers drawn after a pass follow that one draw
    from importlib import import_module

    data = import_module(lib.__name__ + ".utils.data")
    lib.manual_seed(0)
    assert [b.tolist() for b in data.DataLoader(list(range(6)), batch_size=4)] == [[0, 1, 2, 3], [4, 5]]
    after_pass = lib.rand(3)
    lib.manual_seed(0)
    lib.empty((), dtype=lib.int64).random_()
    assert lib.equal(after_pass, lib.rand(3))


@pytest.mark.parametrize("lib", [gt, torch], ids=["glasstorch", "torch"])
def test_one_multinomial_draw_is_the_exponential_race_as_pytorchs(lib):
    # PyTorch's multinomial_out, one sample (with or without replacement): argmax(p / q), q ~ Exp(1)
    probs = lib.tensor([[0.1, 0.5, 0.2, 0.2], [0.7, 0.1, 0.1, 0.1]])
    for replacement in (True, False):
        lib.manual_seed(3)
        drawn = lib.multinomial(probs, 1, replacement=replacement)
        lib.manual_seed(3)
        race = (probs / lib.empty_like(probs).exponential_()).argmax(-1, keepdim=True)
        assert drawn.tolist() == race.tolist()


# --- batch_norm as one Node (PyTorch's native_batch_norm) ---------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 3)], ids=["1d", "2d_seq", "4d"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
def test_batch_norm_as_pytorch(shape, training, affine):
    values = _matrix(11, shape)
    stats = np.abs(_matrix(12, (2, shape[1]))) + 0.5
    upstream = _matrix(13, shape)
    results = []
    for lib in (gt, torch):
        x = lib.tensor(values, requires_grad=True)
        w = lib.tensor(stats[1] * 2, requires_grad=True) if affine else None
        b = lib.tensor(stats[0] - 1, requires_grad=True) if affine else None
        mean, var = lib.tensor(stats[0]), lib.tensor(stats[1])
        out = lib.nn.functional.batch_norm(x, mean, var, w, b, training=training, momentum=0.3, eps=1e-3)
        node = out.grad_fn
        saved = [node._saved_result1.numpy(), node._saved_result2.numpy()]  # before backward frees them
        (out * lib.tensor(upstream)).sum().backward()
        results.append([out.detach().numpy(), x.grad.numpy(), mean.numpy(), var.numpy()] + saved
                       + ([w.grad.numpy(), b.grad.numpy()] if affine else [])
                       + [type(node).__name__, node._saved_training, node._saved_eps])
    for got, want in zip(*results):
        if isinstance(got, np.ndarray):
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, atol=1e-10, rtol=1e-10)
        else:
            assert got == want


def test_batch_norm_module_grad_fn_and_float32_as_pytorch():
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.BatchNorm1d(4)
        x = lib.tensor(_matrix(14, (1, 4, 4)).astype(np.float32) * 5 + 10)
        out = layer(x)
        return type(out.grad_fn).__name__, out.detach().numpy(), layer.running_var.numpy()
    got, want = run(gt), run(torch)
    assert got[0] == want[0] == "NativeBatchNormBackward0"
    np.testing.assert_allclose(got[1], want[1], atol=1e-5)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batch_norm_gradients_by_finite_differences(training):
    from glasstorch.autograd import gradgradcheck

    x = gt.tensor(_matrix(15, (3, 2, 4)), requires_grad=True)
    w = gt.tensor([0.7, -1.3], dtype=gt.float64, requires_grad=True)
    b = gt.tensor([0.1, 0.2], dtype=gt.float64, requires_grad=True)
    mean, var = gt.tensor([0.3, -0.2], dtype=gt.float64), gt.tensor([1.5, 0.6], dtype=gt.float64)

    def f(x, w, b):
        return gt.nn.functional.batch_norm(x, mean, var, w, b, training=training, momentum=0.0)
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_batch_norm_errors_as_pytorch():
    for lib in (gt, torch):
        with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
            lib.nn.functional.batch_norm(lib.ones(4, 3), None, None, training=False)
        with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
            lib.nn.functional.batch_norm(lib.ones(1, 3), None, None, training=True)


# --- torch.sin_(x) and friends, factories with out=, std_mean / var_mean ------------------------------
INPLACE_NAMESPACE = ["abs_", "acos_", "asin_", "atan_", "ceil_", "cos_", "cosh_", "exp_", "expm1_", "floor_", "frac_",
                     "log10_", "log1p_", "log2_", "log_", "neg_", "reciprocal_", "relu_", "round_", "rsqrt_",
                     "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_", "fix_",
                     "arcsin_", "arccos_", "arctan_", "asinh_", "arcsinh_"]


@pytest.mark.parametrize("name", INPLACE_NAMESPACE)
def test_namespace_inplace_twins_as_pytorch(name):
    values = np.array([0.1, 0.45, 0.7, 0.95], dtype=np.float32)
    results = []
    for lib in (gt, torch):
        x = lib.tensor(values)
        returned = getattr(lib, name)(x)
        assert returned is x
        results.append(x.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def test_namespace_inplace_twins_with_arguments_as_pytorch():
    for lib in (gt, torch):
        x = lib.tensor([-2.0, 0.5, 3.0])
        lib.clamp_(x, -1, 1)
        lib.fill_(y := lib.zeros(2), 7)
        assert x.tolist() == [-1.0, 0.5, 1.0] and y.tolist() == [7.0, 7.0]


@pytest.mark.parametrize("make", [
    lambda lib, out: lib.zeros(2, 3, out=out), lambda lib, out: lib.ones(2, 3, out=out),
    lambda lib, out: lib.full((2, 3), 4.5, out=out), lambda lib, out: lib.arange(6, out=out),
    lambda lib, out: lib.linspace(0, 1, 6, out=out), lambda lib, out: lib.eye(3, out=out),
    lambda lib, out: lib.empty(2, 3, out=out).fill_(2),
], ids=["zeros", "ones", "full", "arange", "linspace", "eye", "empty"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_factories_write_into_out_as_pytorch(make, dtype):
    results = []
    for lib in (gt, torch):
        out = lib.zeros(2, 3, dtype=getattr(lib, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an out of another shape is resized with a warning, in both
            returned = make(lib, out)
        assert returned is out
        results.append((out.numpy(), str(out.dtype).split(".")[-1]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1]


@pytest.mark.parametrize("lib", [gt, torch], ids=["glasstorch", "torch"])
def test_random_factories_write_into_out(lib):
    out = lib.zeros(2, 2)
    assert lib.rand(2, 2, out=out) is out and (out > 0).all() and (out < 1).all()
    ints = lib.zeros(5, dtype=lib.int64)
    assert lib.randint(0, 3, (5,), out=ints) is ints and ints.dtype == lib.int64
    assert sorted(lib.randperm(5, out=ints).tolist()) == [0, 1, 2, 3, 4]
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        lib.zeros(2, out=[0, 0])


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.std_mean(x), lambda lib, x: lib.var_mean(x),
    lambda lib, x: lib.std_mean(x, 1), lambda lib, x: lib.var_mean(x, 0, keepdim=True),
    lambda lib, x: lib.std_mean(x, False), lambda lib, x: lib.var_mean(x, [0, 1], correction=0),
    lambda lib, x: lib.std_mean(x, dim=1, unbiased=False, keepdim=True), lambda lib, x: lib.var_mean(x, keepdim=True),
], ids=["std", "var", "std_dim", "var_keepdim", "std_unbiased", "var_correction", "std_keywords", "var_all_keepdim"])
def test_std_mean_and_var_mean_as_pytorch(call):
    values = _matrix(16, (3, 4))
    results = []
    for lib in (gt, torch):
        x = lib.tensor(values, requires_grad=True)
        spread, centre = call(lib, x)
        (spread * 2 + centre).sum().backward()
        results.append((spread.detach().numpy(), centre.detach().numpy(), x.grad.numpy()))
    for got, want in zip(*results):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12)


# --- the recurrent layers' output grad_fn, as the nlp tutorials print it -----------------------------
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("options", [{}, {"num_layers": 2}, {"bidirectional": True}, {"batch_first": True},
                                     {"batch_first": True, "bidirectional": True, "num_layers": 2}],
                         ids=["plain", "two_layers", "bidirectional", "batch_first", "all"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_recurrent_output_grad_fn_names_as_pytorch(kind, options, dtype):
    def names(lib):
        lib.manual_seed(0)
        layer = getattr(lib.nn, kind)(3, 4, **options).to(getattr(lib, dtype))
        x = lib.tensor(_matrix(17, (5, 2, 3)), dtype=getattr(lib, dtype), requires_grad=True)
        output, state = layer(x)
        first_state = state[0] if kind == "LSTM" else state
        (output.sum() + first_state.sum()).backward()
        return output.grad_fn.name(), first_state.grad_fn.name(), tuple(output.shape), tuple(x.grad.shape)
    assert names(gt) == names(torch)


# --- optimizers round as PyTorch's kernels (examples_nn/polynomial_optim.py) -------------------------
@pytest.mark.parametrize("name", ["RMSprop", "Adam", "NAdam"])
def test_polynomial_fit_follows_pytorch_for_2000_steps(name):
    # PyTorch's examples_nn/polynomial_optim.py with fixed initial weights: RMSprop divides tiny gradients
    # by tiny sqrt(v), so addcmul_'s rounding order (value * t1 * t2) decides where the run ends
    def fit(lib):
        x = lib.linspace(-math.pi, math.pi, 2000)
        xx = x.unsqueeze(-1).pow(lib.tensor([1, 2, 3]))
        model = lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1))
        with lib.no_grad():
            model[0].weight.copy_(lib.tensor([[0.3, -0.2, 0.1]]))
            model[0].bias.fill_(0.05)
        optimizer = getattr(lib.optim, name)(model.parameters(), lr=1e-3)
        for _ in range(2000):
            loss = lib.nn.MSELoss(reduction="sum")(model(xx), lib.sin(x))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.item(), model[0].weight.detach().numpy().copy(), model[0].bias.item()
    got, want = fit(gt), fit(torch)
    assert got[0] == pytest.approx(want[0], rel=5e-5)
    np.testing.assert_allclose(got[1], want[1], atol=2e-6)
    assert got[2] == pytest.approx(want[2], abs=2e-6)


@pytest.mark.parametrize("lib", [gt, torch], ids=["glasstorch", "torch"])
def test_random_sampler_seeds_its_generator_as_pytorchs(lib):
    # PyTorch's RandomSampler: seed = empty((), dtype=int64).random_() from the default generator,
    # then randperm(n) from a generator with that seed
    from importlib import import_module

    data = import_module(lib.__name__ + ".utils.data")
    lib.manual_seed(5)
    order = list(data.RandomSampler(range(10)))
    lib.manual_seed(5)
    seed = int(lib.empty((), dtype=lib.int64).random_().item())
    assert order == lib.randperm(10, generator=lib.Generator().manual_seed(seed)).tolist()


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_rounding_mode_records_divbackward2_as_pytorch(mode):
    def run(lib):
        x = lib.tensor([[1.5, -2.5, 3.0]], requires_grad=True)
        y = lib.tensor([2.0], requires_grad=True)
        out = lib.div(x, y, rounding_mode=mode)
        node = out.grad_fn
        saved = (node._saved_rounding_mode, node._saved_self.tolist(), node._saved_other.tolist())
        (out * 3).sum().backward()
        scalar = lib.div(x, 2, rounding_mode=mode)
        return (type(node).__name__, saved, out.tolist(), x.grad.tolist(), y.grad.tolist(),
                type(scalar.grad_fn).__name__, type((x / 2).grad_fn).__name__, type(lib.div(x, 2).grad_fn).__name__)
    assert run(gt) == run(torch)


def test_sgn_as_pytorch():
    def run(lib):
        x = lib.tensor([[3.0, -1.5, 0.0], [-0.0, 2.0, -7.0]], requires_grad=True)
        out = lib.sgn(x)
        (out * 2).sum().backward()
        grad = (x.grad + 0).tolist()  # PyTorch's zero gradient here has no storage of its own
        return out.tolist(), x.sgn().tolist(), type(out.grad_fn).__name__, grad, lib.sgn(lib.tensor([2, -3])).tolist()
    assert run(gt) == run(torch)
