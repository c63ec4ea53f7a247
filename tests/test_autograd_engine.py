"""The backward engine's behaviours, one focused test each.

Every expected gradient is worked out by hand in the test (the derivative is written next to it),
and the worked examples of the course's seed notes are checked number for number, with PyTorch
2.x semantics (``retain_grad`` stores the gradient after the tensor's other hooks have run).
"""
from __future__ import annotations

import gc
import math
import re
import warnings
import weakref

import numpy as np
import pytest

import glasstorch as gt
from glasstorch import autograd


def scalar(value: float, dtype=gt.float64, requires_grad: bool = True) -> gt.Tensor:
    return gt.tensor(value, dtype=dtype, requires_grad=requires_grad)


def values(t: gt.Tensor) -> list:
    return t.detach().tolist()


# --- accumulation and which tensors keep a .grad ---------------------------------------------
def test_gradients_accumulate_across_backward_calls():
    x = scalar(3.0)
    (x * x).backward()  # d(x^2)/dx = 2x = 6
    assert x.grad.item() == 6.0
    (x * x).backward()
    assert x.grad.item() == 12.0
    (x * 5).backward()
    assert x.grad.item() == 17.0


def test_gradients_of_several_paths_add_up():
    x = scalar(2.0)
    y = x * 2
    z = y * 3 + y * 4 + x  # dz/dx = 2*3 + 2*4 + 1 = 15
    z.backward()
    assert x.grad.item() == 15.0


def test_a_tensor_used_on_several_paths_gets_one_summed_gradient_in_its_hook():
    x = scalar(2.0)
    y = x * 2
    seen = []
    y.register_hook(lambda grad: seen.append(grad.item()))
    (y * 3 + y * 4).backward()
    assert seen == [7.0]  # the hook runs once, after both paths delivered (3 + 4)


def test_leaf_gradients_do_not_share_memory():
    x, w = scalar(1.0), scalar(2.0)
    (x + w).backward()  # both receive the same gradient of 1
    x.grad.add_(10)
    assert w.grad.item() == 1.0


def test_grad_is_a_writable_tensor_with_memory_of_its_own():
    x = gt.ones(3, requires_grad=True)
    x.sum().backward()  # sum's backward broadcasts one number over the shape (no memory of its own)
    x.grad[0] = 5.0
    assert values(x.grad) == [5.0, 1.0, 1.0]
    x.sum().backward()
    assert values(x.grad) == [6.0, 2.0, 2.0]


def test_grad_is_laid_out_as_its_leaf_even_when_it_arrives_transposed():
    # PyTorch's layout contract (accumulate_grad.h): Linear's weight is used as weight.t(), so its
    # gradient arrives transposed; .grad is copied into the weight's own (contiguous) layout
    weight = gt.randn(4, 3, requires_grad=True)
    x = gt.randn(5, 3)
    (x @ weight.t()).sum().backward()
    assert weight.grad.is_contiguous() and weight.grad._data.strides == weight._data.strides
    np.testing.assert_allclose(weight.grad.numpy(), np.tile(x.numpy().sum(0), (4, 1)), rtol=1e-6)
    # a leaf stored transposed (Fortran order) keeps its order: the contract is "as the leaf"
    column_major = gt.from_numpy(np.asfortranarray(np.ones((3, 2), np.float32))).requires_grad_()
    (column_major * 2).sum().backward()
    assert column_major.grad._data.strides == column_major._data.strides
    assert values(column_major.grad.reshape(-1)) == [2.0] * 6


def test_a_given_gradient_is_not_aliased_by_grad():
    x = gt.ones(2, requires_grad=True)
    given = gt.tensor([1.0, 2.0])
    (x + 0).backward(given)  # add passes the gradient on unchanged
    (x + 0).backward(gt.tensor([10.0, 10.0]))  # accumulating must not write into `given`
    assert values(given) == [1.0, 2.0] and values(x.grad) == [11.0, 12.0]
    given.zero_()
    assert values(x.grad) == [11.0, 12.0]


def test_retain_grad_keeps_the_gradient_of_a_non_leaf():
    x = gt.tensor([1.0, 2.0], dtype=gt.float64, requires_grad=True)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()  # d(sum y^2)/dy = 2y = [6, 12]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a retained gradient is read without a warning
        assert values(y.grad) == [6.0, 12.0]
    assert values(x.grad) == [18.0, 36.0]  # dy/dx = 3


def test_a_non_leaf_grad_is_none_and_reading_it_warns():
    x = scalar(1.0)
    y = x * 2
    y.backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a leaf's .grad never warns
        assert x.grad.item() == 2.0


# --- the graph is freed after backward ----------------------------------------------------
def test_saved_tensors_are_freed_after_backward():
    x, w = scalar(2.0), scalar(3.0)
    y = x * w
    node = y.grad_fn
    assert node._saved_self.item() == 2.0 and node._saved_other.item() == 3.0
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        node._saved_self


def test_a_second_backward_through_a_freed_graph_raises():
    x = scalar(2.0)
    y = x.exp() * x
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = scalar(2.0)
    y = x * x * x
    y.backward(retain_graph=True)  # 3x^2 = 12
    y.backward()
    assert x.grad.item() == 24.0


# --- where backward may start -------------------------------------------------------------
def test_backward_on_a_non_scalar_needs_a_gradient():
    x = gt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(gradient=gt.tensor([1.0, 10.0, 100.0]))  # vector-Jacobian product: 2 * v
    assert values(x.grad) == [2.0, 20.0, 200.0]


def test_backward_on_a_one_element_tensor_needs_no_gradient():
    x = gt.tensor([4.0], requires_grad=True)
    (x * x).backward()
    assert values(x.grad) == [8.0]


def test_backward_on_a_tensor_that_does_not_require_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        gt.ones(2).sum().backward()
    x = gt.ones(2, requires_grad=True)
    with gt.no_grad():
        y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


# --- in-place operations and the version counter --------------------------------------------
def test_in_place_on_a_leaf_that_requires_grad_raises():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    leaf_message = "a leaf Variable that requires grad is being used in an in-place operation."
    with pytest.raises(RuntimeError, match=re.escape(leaf_message)):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x[0] = 5.0
    assert values(x) == [1.0, 2.0]  # nothing was written


def test_in_place_on_a_leaf_is_allowed_under_no_grad():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    with gt.no_grad():
        x.mul_(3)
        x[0] = -1.0
    assert values(x) == [-1.0, 6.0]
    assert x.is_leaf and x.requires_grad and x.grad_fn is None


def test_changing_a_saved_tensor_in_place_is_caught_at_backward():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # exp saves its output for backward
    y.add_(1)  # allowed now...
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()  # ...but backward would use the wrong values


def test_changing_a_saved_input_in_place_is_caught_at_backward():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    b = a * a  # saves a
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_an_in_place_change_of_an_unsaved_tensor_is_fine():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    y = x + 1  # add saves nothing
    y.mul_(3)  # y = 3 (x + 1): dy/dx = 3
    y.sum().backward()
    assert values(x.grad) == [3.0, 3.0]


def test_version_counts_in_place_changes():
    x = gt.zeros(3)
    assert x._version == 0
    x.add_(1)
    x.mul_(2)
    assert x._version == 2
    x[1] = 7.0
    assert x._version == 3
    y = x + 1  # an out-of-place op leaves x alone and starts y at 0
    assert x._version == 3 and y._version == 0


def test_views_share_the_version_counter():
    x = gt.zeros(2, 3)
    x[0].add_(1)
    assert x._version == 1
    assert values(x) == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]  # the view wrote into x's memory
    v = gt.zeros(3)
    v[0].add_(1)  # a 0-d view of a vector
    assert v._version == 1 and values(v) == [1.0, 0.0, 0.0]
    flat = x.view(6)
    flat.mul_(2)
    assert x._version == 2 and flat._version == 2
    x.t().sub_(1)
    assert flat._version == 3
    d = x.detach()  # detach shares memory and the counter too
    d.zero_()
    assert x._version == 4 and values(x) == [[0.0] * 3, [0.0] * 3]


# --- hooks -----------------------------------------------------------------------------------
def test_hooks_run_in_registration_order():
    x = scalar(1.0)
    y = x * 2
    calls = []
    for name in "abc":
        y.register_hook(lambda grad, name=name: calls.append(name))
    (y * 5).backward()
    assert calls == ["a", "b", "c"]


def test_a_hook_can_replace_the_gradient_of_a_non_leaf():
    x = scalar(1.0)
    y = x * 2
    y.register_hook(lambda grad: grad * 10)
    (y * 5).backward()  # dy = 5, replaced by 50; dx = 2 * 50
    assert x.grad.item() == 100.0


def test_each_hook_sees_the_gradient_the_previous_one_returned():
    x = scalar(1.0)
    y = x * 1
    seen = []
    y.register_hook(lambda grad: grad + 1)
    y.register_hook(lambda grad: seen.append(grad.item()))  # returns None: keeps the gradient
    y.register_hook(lambda grad: grad * 3)
    y.backward()
    assert seen == [2.0] and x.grad.item() == 6.0


def test_a_hook_on_a_leaf_changes_what_is_accumulated():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda grad: seen.append(values(grad)))
    x.register_hook(lambda grad: grad * 10)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]] and values(x.grad) == [30.0, 30.0]


def test_removed_hooks_no_longer_run():
    x = scalar(1.0)
    y = x * 2
    calls = []
    handle = y.register_hook(lambda grad: calls.append("removed"))
    y.register_hook(lambda grad: calls.append("kept"))
    leaf_handle = x.register_hook(lambda grad: grad * 100)
    handle.remove()
    leaf_handle.remove()
    y.backward()
    assert calls == ["kept"] and x.grad.item() == 2.0


def test_a_hook_needs_a_tensor_that_requires_grad():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        gt.ones(2).register_hook(lambda grad: grad)


# --- the seeds' worked examples --------------------------------------------------------------
def test_seed_example_retain_grad_autograd_grad_and_hooks(capsys):
    x = gt.tensor(2.0, dtype=float, requires_grad=True)
    y = gt.tensor(6.0, dtype=float, requires_grad=True)
    y_ = y / 2
    z = x ** 2 + y_ * 2  # dz/dx = 2x = 4, dz/dy_ = 2, dz/dy = 2 * 1/2 = 1

    z.backward(retain_graph=True)
    assert (x.grad.item(), y.grad.item()) == (4.0, 1.0)

    grads = autograd.grad(z, [x, y, y_], retain_graph=True)
    assert [g.item() for g in grads] == [4.0, 1.0, 2.0]
    assert (x.grad.item(), y.grad.item()) == (4.0, 1.0)  # autograd.grad touches no .grad

    y_.retain_grad()
    z.backward(retain_graph=True)
    assert (x.grad.item(), y.grad.item(), y_.grad.item()) == (8.0, 2.0, 2.0)

    x.grad.zero_()
    z.backward(retain_graph=True)
    assert (x.grad.item(), y.grad.item(), y_.grad.item()) == (4.0, 3.0, 4.0)

    capsys.readouterr()
    h1 = y_.register_hook(lambda grad: print(grad.item()))
    h2 = y_.register_hook(lambda grad: 2 * grad)
    z.backward()
    assert capsys.readouterr().out == "2.0\n"  # the first hook sees the true gradient
    # the doubled gradient (4) flows on to y (4 / 2 = 2 more) and, in PyTorch 2.x, is what
    # retain_grad stores (4 more), because it runs after the tensor's other hooks
    assert (y.grad.item(), y_.grad.item()) == (5.0, 8.0)
    h1.remove()
    h2.remove()


def test_seed_example_is_leaf_and_gradients():
    w = gt.tensor([1.0], requires_grad=True)
    x = gt.tensor([2.0], requires_grad=True)
    a = gt.add(w, x)
    b = gt.add(w, 1)
    y = gt.mul(a, b)  # y = (x + w)(w + 1): dy/dw = (w + 1) + (x + w) = 5, dy/dx = w + 1 = 2
    y.backward()
    assert values(w.grad) == [5.0] and values(x.grad) == [2.0]
    assert [t.is_leaf for t in (w, x, a, b, y)] == [True, True, False, False, False]
    with pytest.warns(UserWarning, match="is not a leaf Tensor"):
        assert a.grad is None and b.grad is None and y.grad is None


def test_an_op_on_tensors_that_need_no_grad_gives_a_leaf():
    a = gt.tensor([1.0])
    b = a + 1
    assert a.is_leaf and b.is_leaf
    assert not b.requires_grad and b.grad_fn is None


# --- autograd.grad ---------------------------------------------------------------------------
def test_autograd_grad_returns_gradients_without_accumulating():
    x = gt.tensor([1.0, -2.0], dtype=gt.float64, requires_grad=True)
    (gx,) = autograd.grad((x * x).sum(), x)  # 2x
    assert values(gx) == [2.0, -4.0]
    assert x.grad is None


def test_autograd_grad_allow_unused():
    x, unused = scalar(1.0), scalar(2.0)
    y = x * 3
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = autograd.grad(y, [x, unused], allow_unused=True)
    assert gx.item() == 3.0 and gu is None


def test_autograd_grad_create_graph_gives_second_derivatives():
    x = scalar(2.0)
    (first,) = autograd.grad(x ** 3, x, create_graph=True)  # 3x^2 = 12
    assert first.item() == 12.0 and first.requires_grad
    (second,) = autograd.grad(first, x)  # 6x = 12
    assert second.item() == 12.0
    x = scalar(-1.5)
    (first,) = autograd.grad(x ** 3, x, create_graph=True)
    first.backward()  # 6x = -9, accumulated into x.grad
    assert x.grad.item() == -9.0


def test_second_derivative_through_a_saved_output():
    x = scalar(0.5)
    (first,) = autograd.grad(x.exp(), x, create_graph=True)  # exp saves its output: d exp = exp
    (second,) = autograd.grad(first, x)  # the saved output must lead back to ExpBackward0
    assert math.isclose(second.item(), math.exp(0.5), rel_tol=1e-12)


def test_autograd_grad_with_grad_outputs():
    x = gt.tensor([1.0, 2.0, 3.0], dtype=gt.float64, requires_grad=True)
    v = gt.tensor([1.0, 0.5, -1.0], dtype=gt.float64)
    (g,) = autograd.grad(x * x, x, grad_outputs=v)  # v * 2x
    assert values(g) == [2.0, 2.0, -6.0]
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        autograd.grad(x * x, x, grad_outputs=gt.ones(2, dtype=gt.float64))


def test_autograd_grad_of_several_outputs_sums_them():
    x = scalar(2.0)
    (g,) = autograd.grad([x * x, x * 3], [x])  # 2x + 3
    assert g.item() == 7.0


def test_backward_inputs_accumulates_only_into_those():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    w = gt.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    y.sum().backward(inputs=[x], retain_graph=True)
    assert values(x.grad) == [3.0, 4.0] and w.grad is None
    (y * y).sum().backward(inputs=[y])  # a non-leaf input gets its gradient too: 2y
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a .grad that was filled is read without a warning
        assert values(y.grad) == [6.0, 16.0]
    assert values(x.grad) == [3.0, 4.0] and w.grad is None


# --- grad mode -------------------------------------------------------------------------------
def test_no_grad_and_enable_grad_as_context_managers():
    x = gt.ones(2, requires_grad=True)
    with gt.no_grad():
        assert not gt.is_grad_enabled()
        y = x * 2
        with gt.enable_grad():
            z = x * 2
        assert not gt.is_grad_enabled()
    assert gt.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn is not None


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with gt.no_grad():
            raise ValueError
    assert gt.is_grad_enabled()


def test_no_grad_and_enable_grad_as_decorators():
    x = gt.ones(2, requires_grad=True)

    @gt.no_grad()
    def without(t):
        return t * 2

    @gt.enable_grad()
    def with_(t):
        return t * 2

    assert gt.is_grad_enabled()  # decorating changes nothing yet
    assert not without(x).requires_grad
    assert without.__name__ == "without"
    with gt.no_grad():
        assert with_(x).requires_grad
    assert gt.is_grad_enabled()


def test_set_grad_enabled():
    x = gt.ones(2, requires_grad=True)
    with gt.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert gt.is_grad_enabled()
    try:
        gt.set_grad_enabled(False)  # a plain call takes effect at once
        assert not gt.is_grad_enabled() and not (x * 2).requires_grad
        with gt.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not gt.is_grad_enabled()
    finally:
        gt.set_grad_enabled(True)

    @gt.set_grad_enabled(False)
    def doubled(t):
        return t * 2

    assert gt.is_grad_enabled()  # as a decorator it does not switch the mode when applied
    assert not doubled(x).requires_grad
    assert gt.is_grad_enabled()


# --- detach and requires_grad -----------------------------------------------------------------
def test_detach_shares_memory_but_not_history():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    with gt.no_grad():
        d[0] = 100.0
    assert values(y) == [100.0, 4.0]  # same memory


def test_detach_in_place_makes_a_leaf():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert y.detach_() is y
    assert y.is_leaf and not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        x.detach()[0:1].detach_()


def test_requires_grad_():
    x = gt.tensor([1.0, 2.0])
    assert x.requires_grad_() is x and x.requires_grad
    x.requires_grad_(False)
    assert not x.requires_grad
    (x.requires_grad_() * 3).sum().backward()
    assert values(x.grad) == [3.0, 3.0]


def test_only_floating_point_tensors_can_require_grad():
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        gt.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        gt.tensor([True]).requires_grad = True
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        gt.tensor([1, 2], requires_grad=True)  # (the factories' wording, as in PyTorch)


def test_requires_grad_flags_of_non_leaves_cannot_be_switched_off():
    y = gt.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    assert y.requires_grad_() is y  # already requires grad: PyTorch allows this no-op


# --- scale and memory ------------------------------------------------------------------------
def test_a_very_long_chain_backpropagates_without_recursion():
    x = scalar(1.0)
    y = x
    for _ in range(100_001):  # a chain of 100,001 Nodes (neg is the cheapest op to record)
        y = -y
    y.backward()  # y = (-1)^100001 x = -x
    assert x.grad.item() == -1.0


def test_a_long_multiplicative_chain_is_exact_enough():
    x = scalar(1.0)
    y = x
    for _ in range(1000):
        y = y * 1.001
    y.backward()
    assert math.isclose(x.grad.item(), 1.001 ** 1000, rel_tol=1e-12)


def test_no_reference_cycles_in_the_common_case():
    """Tensors point at Nodes (grad_fn) and Nodes at the next Nodes; nothing points back, so
    dropping the output frees the whole graph at once, without waiting for the garbage collector."""
    gc.collect()
    gc.disable()
    try:
        x = gt.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2 + 1).exp().sum()
        nodes, stack = [], [y.grad_fn]
        while stack:
            node = stack.pop()
            nodes.append(weakref.ref(node))
            stack.extend(n for n, _ in node.next_functions if n is not None)
        assert len(nodes) == 5  # Sum, Exp, Add, Mul, AccumulateGrad
        del y, node, stack
        assert [ref() for ref in nodes] == [None] * 5

        y = (x * 2 + 1).exp().sum()
        y.backward()
        refs = [weakref.ref(y.grad_fn), weakref.ref(y)]
        del y
        assert [ref() for ref in refs] == [None, None]
        assert np.allclose(values(x.grad), 2 * np.exp(2 * np.array([1.0, 2.0]) + 1))
    finally:
        gc.enable()
