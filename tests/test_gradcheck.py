"""Finite differences in float64: the checker itself, and what the op table does not vary.

``glasstorch.autograd.gradcheck`` compares the Jacobian autograd computes (one backward per output
element) with the one finite differences measure, so every expected value here comes from
evaluating the forward function, never from the backward formula under test. Every op's own
gradient and second derivative are checked from the op table (tests/op_db, driven by
``test_ops_gradcheck.py``); this file checks the checker, operands that do or do not require
grad, a catalogue of indexing keys, in-place ops in the middle of a graph, user-defined Functions
and second derivatives through compositions. ``TestChecksCanFail`` breaks backward formulas on
purpose and shows the checks catch it.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import glasstorch as gt
from glasstorch.autograd import Function
from glasstorch.testing import GradcheckError, gradcheck, gradgradcheck
from op_db.core import NONEMPTY_DIMS, values_of

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(0, 2**32 - 1)
SHAPES = array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
PAIRS = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3)


# --- inputs (value kinds: op_db/core.py's values_of) -------------------------------------------
def leaf(shape: tuple, rng: np.random.Generator, kind: str = "any") -> gt.Tensor:
    return gt.tensor(values_of(shape, rng, kind), dtype=gt.float64, requires_grad=True)


@st.composite
def shrunk_to(draw: Callable, shape: tuple) -> tuple:
    """A shape that broadcasts *up to* ``shape`` (fewer leading dims, some sizes 1)."""
    kept = draw(st.integers(0, len(shape)))
    return tuple(draw(st.sampled_from((n, 1))) for n in shape[len(shape) - kept:])


def check(func: Callable, *inputs: gt.Tensor, **tolerances: float) -> None:
    assert gradcheck(func, inputs, **tolerances)


# =============================================================================================
class TestGradcheckItself:
    """The checker must accept right gradients and reject wrong ones with a clear message."""

    class WrongSquare(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x  # should be 2 * x * grad

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return grad.reshape(1)  # a gradient of the wrong shape

    def test_accepts_a_correct_gradient(self):
        x = gt.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=gt.float64, requires_grad=True)
        assert gradcheck(lambda t: (t * t).sum(1), (x,)) is True

    def test_a_wrong_gradient_raises_naming_the_input_and_showing_both_jacobians(self):
        x = gt.tensor([1.0, 2.0, 3.0], dtype=gt.float64, requires_grad=True)
        w = gt.tensor([0.5, 0.5, 0.5], dtype=gt.float64, requires_grad=True)
        with pytest.raises(GradcheckError, match="with respect to input 1") as info:
            gradcheck(lambda a, b: a + self.WrongSquare.apply(b), (x, w))
        message = str(info.value)
        assert "numerical" in message and "analytical" in message
        assert "1. " in message and "0.5" in message  # d(b*b)/db = 2b = 1 measured, b = 0.5 claimed
        assert isinstance(info.value, RuntimeError)

    def test_an_expanded_input_is_refused_but_an_empty_one_is_not(self):
        """Expanded memory (stride 0 over several elements) cannot be perturbed one element at a
        time; an empty tensor has no element at all, whatever strides numpy gives it (PyTorch
        accepts both empty inputs and empty outputs, and so must gradgradcheck's grad_outputs)."""
        expanded = gt.tensor([1.0], dtype=gt.float64).expand(3).requires_grad_()
        with pytest.raises(RuntimeError, match="stride 0"):
            gradcheck(lambda t: t * 2, (expanded,))
        assert gradcheck(lambda t: t * 2, (gt.empty(0, 3, dtype=gt.float64, requires_grad=True),))
        x = gt.tensor([1.0, 2.0], dtype=gt.float64, requires_grad=True)
        assert gradgradcheck(lambda t: (t * t)[:0], (x,))

    def test_raise_exception_false_returns_false(self):
        x = gt.tensor([1.0, 2.0], dtype=gt.float64, requires_grad=True)
        assert gradcheck(self.WrongSquare.apply, (x,), raise_exception=False) is False
        assert gradgradcheck(lambda t: self.WrongSquare.apply(t) * t, (x,), raise_exception=False) is False

    def test_a_gradient_of_the_wrong_shape_is_an_error(self):
        # as in PyTorch, the engine refuses it (validate_outputs) before gradcheck can compare,
        # raise_exception=False or not
        x = gt.tensor([1.0, 2.0], dtype=gt.float64, requires_grad=True)
        for raise_exception in (True, False):
            with pytest.raises(RuntimeError, match=r"WrongShapeBackward returned an invalid gradient at index 0 - "
                                                   r"got \[1\] but expected shape compatible with \[2\]"):
                gradcheck(self.WrongShape.apply, (x,), raise_exception=raise_exception)

    def test_float32_inputs_are_refused_with_pytorchs_phrase(self):
        x = gt.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(ValueError, match="requires gradient and is not a double precision floating point"):
            gradcheck(lambda t: t * 2, (x,))

    def test_needs_an_input_that_requires_grad(self):
        x = gt.tensor([1.0, 2.0], dtype=gt.float64)
        with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
            gradcheck(lambda t: t * 2, (x,))

    def test_an_output_cut_from_the_graph_must_not_depend_on_the_input(self):
        x = gt.tensor([1.0, 2.0], dtype=gt.float64, requires_grad=True)
        with pytest.raises(GradcheckError, match="expected to be zero"):
            gradcheck(lambda t: (t * 3).detach(), (x,))

    def test_non_tensor_arguments_pass_through_and_inputs_are_restored(self):
        x = gt.tensor([1.0, 2.0, 3.0], dtype=gt.float64, requires_grad=True)
        before = x.detach().numpy().copy()
        assert gradcheck(lambda t, k: t ** k, (x, 3))
        np.testing.assert_array_equal(x.detach().numpy(), before)

    def test_gradgradcheck_catches_a_backward_that_is_not_differentiable(self):
        class DetachedSquare(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 2 * x.detach()  # right first derivative, no second derivative

        x = gt.tensor([1.0, -2.0], dtype=gt.float64, requires_grad=True)
        assert gradcheck(DetachedSquare.apply, (x,))
        with pytest.raises(GradcheckError, match="mismatch"):
            gradgradcheck(DetachedSquare.apply, (x,))


# =============================================================================================
# Each op's own gradient is checked from the op table (tests/op_db, test_ops_gradcheck.py); here,
# what a table entry does not vary: which operands require grad, and one tensor on both sides.
ONE_SIDE = {
    "add": (lambda x, y: x + y, "any", "any"),
    "mul": (lambda x, y: x * y, "any", "any"),
    "div": (lambda x, y: x / y, "any", "nonzero"),
    "pow": (lambda x, y: x ** y, "positive", "any"),
}


class TestOperands:
    @pytest.mark.parametrize("name", ONE_SIDE)
    @FEW
    @given(shapes=PAIRS, seed=SEEDS)
    def test_binary_when_only_one_side_requires_grad(self, name, shapes, seed):
        func, kind_x, kind_y = ONE_SIDE[name]
        rng = np.random.default_rng(seed)
        shape_x, shape_y = shapes.input_shapes
        x, y = leaf(shape_x, rng, kind_x), leaf(shape_y, rng, kind_y)
        check(func, x, y.detach())
        check(func, x.detach(), y)

    @FEW
    @given(shape=SHAPES, seed=SEEDS)
    def test_the_same_tensor_on_both_sides(self, shape, seed):
        x = leaf(shape, np.random.default_rng(seed), "positive")
        check(lambda t: t * t + t / t + t ** t, x)

    def test_matmul_with_one_side_constant(self):
        rng = np.random.default_rng(0)
        a, c = leaf((2, 3, 4), rng), leaf((1, 4, 2), rng)
        check(lambda x: x @ c.detach(), a)
        check(lambda y: a.detach() @ y, c)


# =============================================================================================
SHAPE_345 = (3, 4, 5)
_MASK_RNG = np.random.default_rng(7)
GETITEM_KEYS = {
    "int": 1,
    "negative_int": -1,
    "two_ints": (1, -2),
    "three_ints": (2, 3, -5),
    "zero_d_tensor": gt.tensor(2),
    "slice_step": slice(None, None, 2),
    "slices_with_steps": (slice(1, None, 2), slice(None, 3), slice(-4, None, 3)),
    "negative_slice_bounds": (slice(-2, None), slice(-3, -1)),
    "slice_then_int": (slice(None), -1),
    "ellipsis_int": (Ellipsis, 1),
    "int_ellipsis": (0, Ellipsis),
    "none": None,
    "none_int_ellipsis_none": (None, 0, Ellipsis, None),
    "slice_none_int": (slice(None), None, 2),
    "all": slice(None),
    "ellipsis": Ellipsis,
    "int_list_repeated": [0, 2, 0, 0],
    "tensor_repeated": gt.tensor([2, 0, 2, 2]),
    "negative_int_list": [-1, -3],
    "two_int_lists": ([0, 2, 2], [1, 3, 1]),
    "slice_and_list": (slice(None), [3, 1, 1]),
    "int_and_list": (1, [0, 0, 3]),
    "ellipsis_and_list": (Ellipsis, [4, 0]),
    "tensor_2d": gt.tensor([[0, 1], [2, 2]]),
    "mask_full": gt.tensor(_MASK_RNG.random(SHAPE_345) > 0.5),
    "mask_first_dim": gt.tensor([True, False, True]),
    "mask_two_dims": gt.tensor(_MASK_RNG.random((3, 4)) > 0.5),
    "slice_and_mask": (slice(None), gt.tensor([True, False, False, True])),
}


@st.composite
def basic_keys(draw: Callable, shape: tuple) -> tuple:
    """A basic-indexing key for ``shape``: per dim an int (maybe negative) or a slice with a
    positive step, with None and ... mixed in."""
    key = []
    for size in shape:
        if draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
        else:
            start = draw(st.none() | st.integers(-size, size - 1))
            stop = draw(st.none() | st.integers(-size, size))
            key.append(slice(start, stop, draw(st.integers(1, 3))))
        if draw(st.integers(0, 4)) == 0:
            key.append(None)
    cut = draw(st.integers(0, len(key)))
    if draw(st.booleans()):
        key = key[:cut] + [Ellipsis] + key[cut + 1:]  # ... stands for one dim here
    return tuple(key)


class TestIndexing:
    @pytest.mark.parametrize("name", GETITEM_KEYS)
    def test_getitem(self, name):
        key = GETITEM_KEYS[name]
        x = leaf(SHAPE_345, np.random.default_rng(len(name)))
        check(lambda t: t[key], x)

    @FEW
    @given(data=st.data(), shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), seed=SEEDS)
    def test_getitem_basic_keys(self, data, shape, seed):
        key = data.draw(basic_keys(shape))
        check(lambda t: t[key], leaf(shape, np.random.default_rng(seed)))

    @FEW
    @given(shape=NONEMPTY_DIMS, data=st.data(), seed=SEEDS)
    def test_getitem_with_repeated_random_indices(self, shape, data, seed):
        rng = np.random.default_rng(seed)
        index = gt.tensor(rng.integers(0, shape[0], size=data.draw(st.integers(1, 6))))
        mask = gt.tensor(rng.random(shape) > 0.5)
        x = leaf(shape, rng)
        check(lambda t: t[index], x)
        check(lambda t: t[mask], x)


# =============================================================================================
class TestInPlace:
    """In-place ops on non-leaf tensors: recorded, so the gradient flows through them."""

    @pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_", "add_alpha", "iadd", "imul", "itruediv"])
    @FEW
    @given(shape=SHAPES, data=st.data(), seed=SEEDS)
    def test_arithmetic_in_place(self, name, shape, data, seed):
        rng = np.random.default_rng(seed)
        x = leaf(shape, rng)
        y = leaf(data.draw(shrunk_to(shape)), rng, "nonzero")

        def func(a, b):
            z = a * 1.0  # a non-leaf to change in place
            if name == "add_alpha":
                return z.add_(b, alpha=-2.0)
            if name == "iadd":
                z += b
            elif name == "imul":
                z *= b
            elif name == "itruediv":
                z /= b
            else:
                getattr(z, name)(b)
            return z

        check(func, x, y)
        check(lambda a: func(a, 3.0) if name != "add_alpha" else a.clone().add_(3.0, alpha=2.0), x)

    @FEW
    @given(shape=SHAPES, seed=SEEDS)
    def test_clamp_(self, shape, seed):
        x = leaf(shape, np.random.default_rng(seed), "clamp")
        check(lambda t: (t * 1.0).clamp_(-0.5, 0.5), x)
        check(lambda t: t.clone().clamp_(min=-0.5) * t, x)

    @FEW
    @given(shape=SHAPES, seed=SEEDS)
    def test_zero_and_fill(self, shape, seed):
        x = leaf(shape, np.random.default_rng(seed))
        check(lambda t: (t * 2).zero_() + t * t, x)
        check(lambda t: (t * 3).fill_(2.0) * t, x)
        check(lambda t: t.sin().fill_(gt.tensor(0.5)) + t, x)  # sin saves its input, not its output

    @FEW
    @given(shape=SHAPES, data=st.data(), seed=SEEDS)
    def test_copy_(self, shape, data, seed):
        rng = np.random.default_rng(seed)
        x, y = leaf(shape, rng), leaf(data.draw(shrunk_to(shape)), rng)

        def func(a, b):
            z = a.clone()
            z.copy_(b)  # the old values of z get no gradient, b gets it
            return z * a

        check(func, x, y)

    @FEW
    @given(shape=SHAPES, seed=SEEDS)
    def test_in_place_then_used_again(self, shape, seed):
        x = leaf(shape, np.random.default_rng(seed), "positive")

        def func(t):
            z = t * 2
            z.add_(1).mul_(t)  # z = (2t + 1) * t, changed twice in place
            return z * z + z.exp()

        check(func, x)

    SETITEM_KEYS = {
        "int": (1, (4, 5)),
        "negative_int": (-1, (5,)),
        "slice_step": (slice(None, None, 2), (2, 4, 5)),
        "int_and_slice": ((0, slice(1, None, 2)), (2, 5)),
        "ellipsis": ((Ellipsis, 3), (3, 4)),
        "int_list": ([2, 0], (2, 4, 5)),
        "two_lists": (([0, 2], [3, 1]), (2, 5)),
        "mask": (gt.tensor([[True, False, True, True]] * 3), (9, 5)),
        "scalar_value": ((slice(None), 2), ()),
        "broadcast_value": ((slice(None), slice(1, 3)), (5,)),
    }

    @pytest.mark.parametrize("name", SETITEM_KEYS)
    def test_setitem_with_a_value_that_requires_grad(self, name):
        key, value_shape = self.SETITEM_KEYS[name]
        rng = np.random.default_rng(len(name))
        x, v = leaf(SHAPE_345[:3], rng), leaf(value_shape, rng)

        def func(a, b):
            z = a * 1.5
            z[key] = b
            return z * a

        def write_number(a):
            z = a.clone()
            z[key] = 2.0  # those places no longer depend on a
            return z

        check(func, x, v)
        check(write_number, x)


# =============================================================================================
class Cube(Function):
    """A user-defined op: x ** 3 * scale, with its backward written by hand."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.scale, None


class MulAdd(Function):
    """x * y + x for two tensors of one shape."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y + x

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (y + 1), grad * x


class TestCustomFunction:
    @FEW
    @given(shape=SHAPES, seed=SEEDS)
    def test_one_input_and_a_number(self, shape, seed):
        x = leaf(shape, np.random.default_rng(seed))
        check(lambda t: Cube.apply(t, -1.5), x)
        check(lambda t: Cube.apply(t.sin(), 2.0).exp(), x)

    @FEW
    @given(shape=SHAPES, seed=SEEDS)
    def test_two_inputs(self, shape, seed):
        rng = np.random.default_rng(seed)
        x, y = leaf(shape, rng), leaf(shape, rng)
        check(MulAdd.apply, x, y)
        check(lambda a: MulAdd.apply(a, y.detach()), x)

    def test_second_derivative_through_a_differentiable_backward(self):
        x = leaf((2, 3), np.random.default_rng(0))
        assert gradgradcheck(lambda t: Cube.apply(t, 0.5), (x,))


# =============================================================================================
GRADGRAD = {  # each op's own second derivative: the op table (test_ops_gradcheck.py::test_gradgradcheck)
    "composite": (lambda x, y: (x * y).exp().sum(), "any", "any"),
    "chain": (lambda x, y: (x.sin() * y + x / (1 + y * y)).tanh(), "any", "any"),
}


class TestSecondDerivatives:
    @pytest.mark.parametrize("name", GRADGRAD)
    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3), seed=SEEDS)
    def test_gradgradcheck(self, name, shapes, seed):
        func, kind_x, kind_y = GRADGRAD[name]
        rng = np.random.default_rng(seed)
        shape_x, shape_y = shapes.input_shapes
        x, y = leaf(shape_x, rng, kind_x), leaf(shape_y, rng, kind_y)
        assert gradgradcheck(func, (x, y))

    @pytest.mark.parametrize("name", ["int", "slices_with_steps", "int_list_repeated", "mask_two_dims", "ellipsis"])
    def test_indexing_twice(self, name):
        key = GETITEM_KEYS[name]
        x = leaf(SHAPE_345, np.random.default_rng(0))
        assert gradgradcheck(lambda t: t[key] * t[key], (x,))

    def test_given_grad_outputs(self):
        x = gt.tensor([0.3, -1.2, 2.0], dtype=gt.float64, requires_grad=True)
        v = gt.tensor([1.0, 2.0, -0.5], dtype=gt.float64, requires_grad=True)
        assert gradgradcheck(lambda t: t.sin() * t, (x,), (v,))


# =============================================================================================
class TestChecksCanFail:
    """Break a backward formula on purpose: the corresponding check must then fail."""

    @staticmethod
    def _break(monkeypatch, node_class, wrong_backward):
        monkeypatch.setattr(node_class, "backward", wrong_backward)

    def test_a_wrong_elementwise_derivative_is_caught(self, monkeypatch):
        from glasstorch.ops.pointwise import ExpBackward0

        x = leaf((2, 3), np.random.default_rng(0))
        assert gradcheck(lambda t: t.exp(), (x,))
        self._break(monkeypatch, ExpBackward0, lambda self, grad: (grad,))  # forgot the factor exp(x)
        with pytest.raises(GradcheckError):
            gradcheck(lambda t: t.exp(), (x,))

    def test_a_broadcast_gradient_that_is_not_summed_back_is_caught(self, monkeypatch):
        from glasstorch.autograd import engine

        x, y = leaf((2, 3), np.random.default_rng(0)), leaf((3,), np.random.default_rng(1))
        monkeypatch.setattr(engine, "_sum_to", lambda grad, shape, node, i: grad)  # the engine forgets
        with pytest.raises(GradcheckError, match="incorrect size"):
            gradcheck(lambda a, b: a * b, (x, y))

    def test_swapped_matrix_gradients_are_caught(self, monkeypatch):
        from glasstorch.ops.linalg import MmBackward0

        a, b = leaf((2, 2), np.random.default_rng(0)), leaf((2, 2), np.random.default_rng(1))

        def swapped(self, grad):
            return grad.mm(self._saved_mat2), self._saved_self.mm(grad)  # transposes forgotten

        self._break(monkeypatch, MmBackward0, swapped)
        with pytest.raises(GradcheckError):
            gradcheck(gt.mm, (a, b))

    def test_a_wrong_reduction_gradient_is_caught(self, monkeypatch):
        from glasstorch.ops.reduction import MeanBackward1

        x = leaf((3, 4), np.random.default_rng(0))
        original = MeanBackward1.backward
        self._break(monkeypatch, MeanBackward1, lambda self, grad: (original(self, grad)[0] * 4,))  # forgot to divide by the row length
        with pytest.raises(GradcheckError):
            gradcheck(lambda t: t.mean(1), (x,))

    def test_a_second_derivative_that_is_lost_is_caught(self, monkeypatch):
        from glasstorch.ops.pointwise import SinBackward0

        x, y = leaf((3,), np.random.default_rng(0)), leaf((3,), np.random.default_rng(1))

        def detached(self, grad):
            return (grad * self._saved_self.detach().cos(),)  # right value, but cut from the graph

        self._break(monkeypatch, SinBackward0, detached)
        assert gradcheck(lambda a, b: (a * b).sin(), (x, y))  # first derivatives still right
        with pytest.raises(GradcheckError):
            gradgradcheck(lambda a, b: (a * b).sin(), (x, y))
