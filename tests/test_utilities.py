"""Utilities against PyTorch 2.13: torch.backends, torch.accelerator, torch.cuda on a machine
without a GPU, torch.device as a context manager, set_default_device / set_default_dtype,
torch.utils.swap_tensors, WeightedRandomSampler, random_split and the distributions Categorical,
Multinomial, Bernoulli and Uniform."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from test_nn_vs_torch import same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch


def test_no_accelerator_anywhere():
    def program(lib):
        device = "mps" if lib.backends.mps.is_available() else "cuda" if lib.cuda.is_available() else "cpu"
        lib.cuda.manual_seed(0)
        lib.cuda.manual_seed_all(0)
        return (device, lib.backends.mps.is_built(), lib.backends.cuda.is_built(), lib.backends.cudnn.is_available(),
                lib.accelerator.current_accelerator(), lib.accelerator.is_available(), lib.accelerator.device_count(),
                lib.cuda.device_count(), str(lib.get_default_device()))

    same_in_both(program)


def test_device_context_manager_and_default_device():
    def program(lib):
        with lib.device("cpu") as d:
            inside = (str(d), str(lib.ones(1).device), str(lib.get_default_device()))
        lib.set_default_device("cpu")
        lib.set_default_device(None)
        return inside, str(lib.get_default_device())

    same_in_both(program)
    with pytest.raises(RuntimeError, match="CPU only"):
        gt.set_default_device("cuda")
    with pytest.raises(RuntimeError, match="CPU only"):
        with gt.device("mps"):
            pass


def test_set_default_dtype():
    def program(lib):
        lib.set_default_dtype(lib.float64)
        try:
            made = (str(lib.tensor([1.5]).dtype), str(lib.zeros(1).dtype), str(lib.get_default_dtype()))
        finally:
            lib.set_default_dtype(lib.float32)
        return made, str(lib.tensor([1.5]).dtype)

    same_in_both(program)


def test_swap_tensors():
    def program(lib):
        a = lib.ones(2)
        b = lib.zeros(3, requires_grad=True)
        lib.utils.swap_tensors(a, b)
        swapped = (a.tolist(), a.requires_grad, b.tolist(), b.requires_grad, type(a).__name__)
        p = lib.nn.Parameter(lib.ones(2))
        q = lib.tensor([5.0, 6.0])
        lib.utils.swap_tensors(p, q)
        swapped += (type(p).__name__, p.tolist(), type(q).__name__, q.tolist())
        return swapped

    same_in_both(program)


def test_swap_tensors_poisons_the_old_graph():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x * 2).sum()
        lib.utils.swap_tensors(x, lib.zeros(2, requires_grad=True))
        try:
            y.backward()
        except RuntimeError as error:
            return str(error)
        return "no error"

    same_in_both(program)


def test_weighted_random_sampler():
    gt.manual_seed(0)
    sampler = gt.utils.data.WeightedRandomSampler([0.1, 0.0, 0.6, 0.3], num_samples=20000)
    draws = np.array(list(sampler))
    assert len(sampler) == 20000 and len(draws) == 20000
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / 20000, [0.1, 0.0, 0.6, 0.3], atol=0.015)
    without = list(gt.utils.data.WeightedRandomSampler([1, 1, 1, 1, 1], 5, replacement=False))
    assert sorted(without) == [0, 1, 2, 3, 4]
    generator = gt.Generator().manual_seed(3)
    first = list(gt.utils.data.WeightedRandomSampler([1, 2, 3], 10, generator=generator))
    generator.manual_seed(3)
    assert list(gt.utils.data.WeightedRandomSampler([1, 2, 3], 10, generator=generator)) == first

    def program(lib):
        S = lib.utils.data.WeightedRandomSampler
        results = [S([0.5, 0.5], 3).weights.dtype.__repr__(), len(S([1.0], 7))]
        for call in (lambda: S([1, 2], 0), lambda: S([1, 2], 2.0), lambda: S([1, 2], 2, replacement=1),
                     lambda: S([[1, 2]], 2)):
            try:
                call()
            except ValueError as error:
                results.append(str(error))
        return results

    same_in_both(program)


def test_weighted_random_sampler_in_a_dataloader():
    data = gt.utils.data.TensorDataset(gt.arange(6).float())
    sampler = gt.utils.data.WeightedRandomSampler([0, 0, 0, 0, 0, 1], num_samples=4)
    batches = list(gt.utils.data.DataLoader(data, batch_size=2, sampler=sampler))
    assert [b[0].tolist() for b in batches] == [[5.0, 5.0], [5.0, 5.0]]


def test_random_split():
    def program(lib):
        data = lib.utils.data.TensorDataset(lib.arange(10))
        results = []
        for lengths in ([3, 7], [0.3, 0.7], [0.25, 0.25, 0.5], [0.33, 0.33, 0.34]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parts = lib.utils.data.random_split(data, lengths, generator=lib.Generator().manual_seed(0))
            indices = sorted(i for part in parts for i in part.indices)
            results.append(([len(p) for p in parts], indices == list(range(10)), type(parts[0]).__name__))
        for lengths in ([3, 3], [0.5, 0.6], [-1, 11]):
            try:
                lib.utils.data.random_split(data, lengths)
            except ValueError as error:
                results.append(str(error))
        return results

    same_in_both(program)


# --- distributions ---------------------------------------------------------------------------------
P = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
LOGITS = np.array([[1.0, -0.5, 0.3], [0.0, 2.0, -1.0]])


def both(array, grad=False):
    return gt.tensor(array, requires_grad=grad), torch.tensor(array, requires_grad=grad)


def close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["probs", "logits"])
def test_categorical(kind):
    g, t = both(P if kind == "probs" else LOGITS, grad=True)
    ours, theirs = gt.distributions.Categorical(**{kind: g}), torch.distributions.Categorical(**{kind: t})
    assert repr(ours).replace("glasstorch.", "torch.") == repr(theirs)
    for name in ("probs", "logits", "entropy", "mode"):
        value = getattr(ours, name)
        close(value() if callable(value) else value, getattr(theirs, name)() if callable(getattr(theirs, name))
              else getattr(theirs, name))
    close(ours.log_prob(gt.tensor([2, 1])), theirs.log_prob(torch.tensor([2, 1])))
    close(ours.log_prob(gt.tensor([[0], [1]])), theirs.log_prob(torch.tensor([[0], [1]])))  # broadcast
    (ours.log_prob(gt.tensor([2, 1])).sum() + ours.entropy().sum()).backward()
    (theirs.log_prob(torch.tensor([2, 1])).sum() + theirs.entropy().sum()).backward()
    close(g.grad, t.grad)
    assert tuple(ours.sample((5, 7)).shape) == tuple(theirs.sample((5, 7)).shape) == (5, 7, 2)
    assert tuple(ours.enumerate_support().shape) == tuple(theirs.enumerate_support().shape)
    assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape


def test_categorical_samples_follow_probs():
    gt.manual_seed(0)
    draws = gt.distributions.Categorical(probs=gt.tensor(P[0])).sample((30000,)).numpy()
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / 30000, P[0], atol=0.01)


@pytest.mark.parametrize("kind", ["probs", "logits"])
def test_bernoulli(kind):
    g, t = both(np.array([0.2, 0.9, 0.5]) if kind == "probs" else np.array([-1.0, 2.0, 0.0]), grad=True)
    ours, theirs = gt.distributions.Bernoulli(**{kind: g}), torch.distributions.Bernoulli(**{kind: t})
    value = np.array([1.0, 0.0, 1.0])
    for got, want in ((ours.probs, theirs.probs), (ours.logits, theirs.logits), (ours.mean, theirs.mean),
                      (ours.variance, theirs.variance), (ours.entropy(), theirs.entropy()),
                      (ours.log_prob(gt.tensor(value)), theirs.log_prob(torch.tensor(value)))):
        close(got, want)
    ours.log_prob(gt.tensor(value)).sum().backward()
    theirs.log_prob(torch.tensor(value)).sum().backward()
    close(g.grad, t.grad)
    assert repr(ours).replace("glasstorch.", "torch.") == repr(theirs)
    gt.manual_seed(0)
    draws = gt.distributions.Bernoulli(probs=gt.tensor([0.2, 0.9])).sample((20000,)).numpy()
    np.testing.assert_allclose(draws.mean(0), [0.2, 0.9], atol=0.01)


def test_multinomial():
    g, t = both(P, grad=True)
    ours, theirs = gt.distributions.Multinomial(5, probs=g), torch.distributions.Multinomial(5, probs=t)
    counts = np.array([[1.0, 1.0, 3.0], [2.0, 3.0, 0.0]])
    for got, want in ((ours.mean, theirs.mean), (ours.variance, theirs.variance), (ours.entropy(), theirs.entropy()),
                      (ours.log_prob(gt.tensor(counts)), theirs.log_prob(torch.tensor(counts)))):
        close(got, want)
    ours.log_prob(gt.tensor(counts)).sum().backward()
    theirs.log_prob(torch.tensor(counts)).sum().backward()
    close(g.grad, t.grad)
    gt.manual_seed(0)
    samples = ours.sample((4000,))
    assert tuple(samples.shape) == tuple(theirs.sample((4000,)).shape) == (4000, 2, 3)
    assert (samples.sum(-1).numpy() == 5).all()
    np.testing.assert_allclose(samples.numpy().mean(0), 5 * P, atol=0.08)
    assert ours.event_shape == theirs.event_shape and ours.batch_shape == theirs.batch_shape


def test_uniform():
    (gl, tl), (gh, th) = both(np.array([0.0, 1.0]), grad=True), both(np.array([2.0, 5.0]), grad=True)
    ours, theirs = gt.distributions.Uniform(gl, gh), torch.distributions.Uniform(tl, th)
    value = np.array([1.0, 4.5])
    for got, want in ((ours.mean, theirs.mean), (ours.variance, theirs.variance), (ours.stddev, theirs.stddev),
                      (ours.entropy(), theirs.entropy()), (ours.log_prob(gt.tensor(value)),
                                                          theirs.log_prob(torch.tensor(value))),
                      (ours.cdf(gt.tensor(value)), theirs.cdf(torch.tensor(value)))):
        close(got, want)
    gt.manual_seed(0)
    sample = ours.rsample((10000,))
    sample.sum().backward()
    # d sample / d low = 1 - u and d sample / d high = u, summed over 10000 draws: about 5000 each
    assert abs(gl.grad.numpy() - 5000).max() < 200 and abs(gh.grad.numpy() - 5000).max() < 200
    assert (sample.detach().numpy() >= [0.0, 1.0]).all() and (sample.detach().numpy() < [2.0, 5.0]).all()
    assert repr(ours).replace("glasstorch.", "torch.") == repr(theirs)


def test_distribution_errors():
    def program(lib):
        D = lib.distributions
        results = []
        for call in (lambda: D.Categorical(), lambda: D.Categorical(probs=lib.ones(2), logits=lib.ones(2)),
                     lambda: D.Bernoulli(), lambda: D.Uniform(lib.tensor([0.0, 1.0]), lib.tensor([2.0, 5.0])).log_prob(
                         lib.tensor([1.0, 6.0])),
                     lambda: D.Bernoulli(probs=lib.tensor([0.5])).log_prob(lib.tensor([0.5])),
                     lambda: D.Categorical(probs=lib.ones(3)).log_prob(lib.tensor(3)),
                     lambda: D.Categorical(logits=lib.tensor(1.0))):
            try:
                call()
                results.append("no error")
            except ValueError as error:
                results.append(str(error).split(" of the distribution")[0])
        return results

    same_in_both(program)


def test_multinomial_log_prob_of_one_count_vector():
    """(the example of PyTorch's Multinomial docstring: one vector of counts, a 0-d result)"""
    counts = np.array([20.0, 22.0, 33.0, 25.0])
    got = gt.distributions.Multinomial(probs=gt.tensor([1.0, 1.0, 1.0, 1.0])).log_prob(gt.tensor(counts))
    want = torch.distributions.Multinomial(100, probs=torch.tensor([1.0, 1.0, 1.0, 1.0])).log_prob(torch.tensor(counts))
    assert got.shape == () and abs(float(got) - float(want)) < 1e-4
