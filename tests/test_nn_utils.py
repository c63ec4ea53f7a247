"""nn.utils against PyTorch 2.13: clip_grad_norm_ (every norm type), clip_grad_value_,
get_total_norm, parameters_to_vector and vector_to_parameters."""
from __future__ import annotations

import numpy as np
import pytest

from test_nn_vs_torch import same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch


def model(lib):
    """float64, so that both libraries' gradients agree to far more digits than are compared."""
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2, bias=False)).double()
    rng = np.random.default_rng(0)
    net.load_state_dict({k: lib.tensor(rng.standard_normal(tuple(v.shape))) for k, v in net.state_dict().items()})
    net(lib.tensor(rng.standard_normal((5, 3)))).pow(2).sum().backward()
    return net


@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (0.5, 1), (2.0, float("inf")), (1e6, 2.0)])
def test_clip_grad_norm(max_norm, norm_type):
    def program(lib):
        net = model(lib)
        total = lib.nn.utils.clip_grad_norm_(net.parameters(), max_norm, norm_type=norm_type)
        return (round(float(total), 9), [np.round(p.grad.numpy(), 9).tolist() for p in net.parameters()],
                round(float(lib.nn.utils.get_total_norm([p.grad for p in net.parameters()], norm_type)), 9))

    same_in_both(program)


def test_clip_grad_value_and_vectors():
    def program(lib):
        net = model(lib)
        lib.nn.utils.clip_grad_value_(net.parameters(), 0.3)
        grads = [np.round(p.grad.numpy(), 9).tolist() for p in net.parameters()]
        vector = lib.nn.utils.parameters_to_vector(net.parameters())
        lib.nn.utils.vector_to_parameters(lib.arange(float(vector.numel())), net.parameters())
        results = [grads, tuple(vector.shape), vector.grad_fn.name(), [p.tolist() for p in net.parameters()]]
        for call in (lambda: lib.nn.utils.vector_to_parameters([1.0], net.parameters()),
                     lambda: lib.nn.utils.clip_grad_norm_([lib.tensor([float("inf")], requires_grad=True)], 1.0,
                                                          error_if_nonfinite=True)):
            try:
                call()
                results.append("no error")
            except (TypeError, RuntimeError) as error:
                results.append((type(error).__name__, str(error)))
        return results

    same_in_both(program)


def test_clip_grad_norm_with_an_infinite_gradient():
    def program(lib):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        p.grad = lib.tensor([float("inf"), 1.0])
        try:
            lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
        except RuntimeError as error:
            return str(error)
        return "no error"

    same_in_both(program)
