"""The benchmark's floor (benchmarks/floor.py) computes true gradients: a floor that skipped work
would make every comparison with it meaningless."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import floor  # noqa: E402


def test_a_product_gives_each_input_the_other() -> None:
    a, b = floor.tensor([1.5], requires_grad=True), floor.tensor([-2.0], requires_grad=True)
    (a * b).backward()
    assert a.grad.tolist() == [-2.0] and b.grad.tolist() == [1.5]


def test_a_tensor_used_twice_gets_both_gradients() -> None:
    a, b = floor.tensor([3.0], requires_grad=True), floor.tensor([4.0], requires_grad=True)
    (a * b + a * a).backward()  # d/da = b + 2a, d/db = a
    assert a.grad.tolist() == [10.0] and b.grad.tolist() == [3.0]


def test_an_input_without_grad_gets_none() -> None:
    a, b = floor.tensor([3.0], requires_grad=True), floor.tensor([4.0])
    (a * b + 1.0).backward()
    assert a.grad.tolist() == [4.0] and b.grad is None


@pytest.mark.parametrize("length", [2, 10, 1000])
def test_the_benchmark_chain_has_the_gradient_of_its_formula(length: int) -> None:
    x = floor.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(length // 2):
        y = y * 1.0001
        y = y + 0.5
    y.backward()
    np.testing.assert_allclose(x.grad, [1.0001 ** (length // 2)], rtol=1e-5)


def test_gradients_accumulate_across_backward_calls() -> None:
    a = floor.tensor([3.0], requires_grad=True)
    (a * 2.0).backward()
    (a * 5.0).backward()
    assert a.grad.tolist() == [7.0]


def test_a_sum_sends_its_gradient_to_every_element() -> None:
    x = floor.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
