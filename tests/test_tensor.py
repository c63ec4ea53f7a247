"""Tensor basics: dtypes and their inference, conversions, the eight attributes, leaving the tensor
world (item, tolist, numpy), type promotion, creation functions and the errors for bad shapes.

Expected values are written by hand (PyTorch's documented behaviour, checked against PyTorch 2.13)
or computed with numpy.
"""
from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import glasstorch as gt


# --- dtype inference and the legacy type strings ----------------------------------------------
@pytest.mark.parametrize(
    "data, dtype, type_string",
    [
        ([1, 2], gt.int64, "glasstorch.LongTensor"),
        ([1.0, 2.0], gt.float32, "glasstorch.FloatTensor"),
        ([1, 2.5], gt.float32, "glasstorch.FloatTensor"),
        ([True, False], gt.bool, "glasstorch.BoolTensor"),
        (3, gt.int64, "glasstorch.LongTensor"),
        (3.5, gt.float32, "glasstorch.FloatTensor"),
        ([[1, 2], [3, 4]], gt.int64, "glasstorch.LongTensor"),
    ],
)
def test_tensor_infers_the_dtype(data, dtype, type_string):
    t = gt.tensor(data)
    assert t.dtype is dtype
    assert t.type() == type_string


def test_numpy_arrays_keep_their_dtype():
    assert gt.tensor(np.array([1.0], dtype=np.float64)).dtype is gt.float64
    assert gt.tensor(np.array([1], dtype=np.int32)).dtype is gt.int32
    assert gt.tensor(np.array([1], dtype=np.uint8)).type() == "glasstorch.ByteTensor"


@pytest.mark.parametrize(
    "python_type, dtype", [(float, gt.float64), (int, gt.int64), (bool, gt.bool)]
)
def test_a_python_type_as_dtype(python_type, dtype):
    assert gt.tensor([1], dtype=python_type).dtype is dtype


def test_the_legacy_constructor_is_always_float32():
    assert gt.Tensor([1, 2]).dtype is gt.float32
    assert gt.Tensor([True]).type() == "glasstorch.FloatTensor"
    assert gt.Tensor(2, 3).shape == (2, 3)
    assert gt.Tensor(2, 3).dtype is gt.float32
    assert gt.Tensor().shape == (0,)


def test_type_with_an_argument_converts():
    t = gt.tensor([1.5, -2.5])
    d = t.type("glasstorch.DoubleTensor")
    assert d.dtype is gt.float64 and d.tolist() == [1.5, -2.5]
    assert t.type(gt.int32).dtype is gt.int32
    assert t.type("torch.LongTensor").dtype is gt.int64  # PyTorch's own strings are read too
    assert gt.tensor([1, 2]).type_as(d).dtype is gt.float64
    with pytest.raises(ValueError, match="invalid type"):
        t.type("glasstorch.NoSuchTensor")


@pytest.mark.parametrize(
    "method, dtype",
    [("float", gt.float32), ("double", gt.float64), ("half", gt.float16), ("bfloat16", gt.bfloat16),
     ("long", gt.int64), ("int", gt.int32), ("short", gt.int16), ("bool", gt.bool)],
)
def test_conversion_methods(method, dtype):
    t = getattr(gt.tensor([1.75, -1.75, 0.0]), method)()
    assert t.dtype is dtype
    expected = np.array([1.75, -1.75, 0.0], dtype=np.float32).astype(dtype.numpy_dtype)  # ints truncate
    np.testing.assert_array_equal(t.numpy(), expected)


def test_conversions_round_as_the_target_dtype_does():
    third = gt.tensor(1 / 3, dtype=gt.float64)
    assert third.half().item() == float(np.float16(1 / 3))
    assert third.bfloat16().item() == float(ml_dtypes.bfloat16(1 / 3))
    assert gt.tensor([1.7, -1.7]).long().tolist() == [1, -1]
    assert gt.tensor([0.0, 2.0]).bool().tolist() == [False, True]


def test_to_dtype_and_device():
    t = gt.tensor([1, 2])
    assert t.to(gt.float64).dtype is gt.float64
    assert t.to(dtype=gt.float16).dtype is gt.float16
    assert t.to(float).dtype is gt.float64
    assert t.to(gt.tensor([1.0])).dtype is gt.float32  # to(other) takes other's dtype
    assert t.to(gt.int64) is t  # nothing to do: the same tensor
    assert t.to("cpu") is t and t.cpu() is t
    assert t.to(gt.int64, copy=True) is not t
    assert t.device == gt.device("cpu") and str(t.device) == "cpu" and not t.is_cuda
    assert t.to("cpu", gt.float64).dtype is gt.float64


@pytest.mark.parametrize("move", [lambda t: t.to("cuda"), lambda t: t.cuda(), lambda t: t.to(device="cuda:0"),
                                  lambda t: gt.zeros(2, device="cuda")])
def test_cuda_is_refused_clearly(move):
    with pytest.raises(RuntimeError, match="CUDA"):
        move(gt.tensor([1.0]))


def test_only_floating_point_tensors_can_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        gt.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        gt.zeros(2, dtype=gt.int32).requires_grad_()
    assert gt.tensor([1.0], dtype=gt.float16, requires_grad=True).requires_grad


# --- the eight attributes ---------------------------------------------------------------------
def test_the_eight_attributes_of_a_leaf():
    t = gt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert t.data.tolist() == [[1.0, 2.0], [3.0, 4.0]] and not t.data.requires_grad
    assert t.dtype is gt.float32
    assert t.shape == (2, 2) and repr(t.shape) == "glasstorch.Size([2, 2])"
    assert t.device.type == "cpu"
    assert t.requires_grad
    assert t.grad is None
    assert t.grad_fn is None
    assert t.is_leaf


def test_the_eight_attributes_of_a_computed_tensor():
    t = gt.tensor([1.0, 2.0], requires_grad=True)
    y = (t * 3).sum()
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn.name() == "SumBackward0"
    assert y.shape == () and y.dtype is gt.float32
    y.backward()
    assert t.grad.tolist() == [3.0, 3.0]


def test_data_shares_memory_and_has_no_history():
    t = gt.tensor([1.0, 2.0], requires_grad=True)
    t.data[0] = 5.0  # changes made through .data are invisible to autograd, but they happen
    assert t.tolist() == [5.0, 2.0]
    assert t.is_leaf and t.requires_grad


# --- sizes and leaving the tensor world ---------------------------------------------------------
def test_sizes():
    t = gt.zeros(2, 3, 4)
    assert t.ndim == 3 and t.dim() == 3
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.numel() == 24 and t.shape.numel() == 24
    assert len(t) == 2
    scalar = gt.tensor(7)
    assert scalar.ndim == 0 and scalar.shape == () and scalar.numel() == 1
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(scalar)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.size(3)


def test_item_and_tolist():
    assert gt.tensor(3.5).item() == 3.5
    assert type(gt.tensor(3).item()) is int
    assert type(gt.tensor(True).item()) is bool
    assert gt.tensor([[2.5]]).item() == 2.5  # any one-element tensor
    assert gt.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        gt.tensor([1.0, 2.0]).item()


def test_numpy_shares_memory():
    t = gt.tensor([1.0, 2.0])
    array = t.numpy()
    array[0] = 10.0
    assert t.tolist() == [10.0, 2.0]
    t.add_(1)
    assert array.tolist() == [11.0, 3.0]
    assert isinstance(gt.tensor(1.5).exp().numpy(), np.ndarray)  # a 0-d result is still an array


def test_numpy_refuses_a_tensor_that_requires_grad():
    t = gt.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        t.numpy()
    assert t.detach().numpy().tolist() == [1.0]


def test_T_iteration_and_indexing():
    t = gt.tensor([[1, 2, 3], [4, 5, 6]])
    assert t.T.tolist() == [[1, 4], [2, 5], [3, 6]]
    assert [row.tolist() for row in t] == [[1, 2, 3], [4, 5, 6]]
    assert t[1, 2].item() == 6 and t[-1].tolist() == [4, 5, 6]
    assert t[:, 1].tolist() == [2, 5]
    assert t[:, ::2].tolist() == [[1, 3], [4, 6]]
    assert t[..., -1].tolist() == [3, 6]
    assert t[None].shape == (1, 2, 3)
    assert t[[1, 0, 1]].tolist() == [[4, 5, 6], [1, 2, 3], [4, 5, 6]]
    assert t[t > 3].tolist() == [4, 5, 6]
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        t[2]
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(gt.tensor(1.0))


def test_basic_indexing_gives_views():
    t = gt.zeros(2, 3)
    t[1][2] = 5.0
    t[0, 1:].fill_(1.0)
    assert t.tolist() == [[0.0, 1.0, 1.0], [0.0, 0.0, 5.0]]


# --- comparisons and promotion ------------------------------------------------------------------
@pytest.mark.parametrize(
    "op, expected",
    [("__eq__", [False, True, False]), ("__ne__", [True, False, True]), ("__lt__", [True, False, False]),
     ("__le__", [True, True, False]), ("__gt__", [False, False, True]), ("__ge__", [False, True, True])],
)
def test_comparisons_give_bool_tensors(op, expected):
    a, b = gt.tensor([1, 2, 3]), gt.tensor([2.0, 2.0, 2.0])
    result = getattr(a, op)(b)
    assert result.dtype is gt.bool and result.tolist() == expected
    assert getattr(a, op)(2).tolist() == expected  # against a number too


@pytest.mark.parametrize(
    "make, dtype",
    [
        (lambda: gt.tensor([1, 2]) * 2.5, gt.float32),  # a Python float is the default dtype
        (lambda: gt.tensor([1, 2]) + gt.tensor(1.0, dtype=gt.float64), gt.float64),  # 0-d of a higher category
        (lambda: gt.tensor([1.0]) + gt.tensor(1.0, dtype=gt.float64), gt.float32),  # 0-d of the same category
        (lambda: gt.tensor([1.0]) + gt.tensor([1.0], dtype=gt.float64), gt.float64),  # dimensioned tensors
        (lambda: gt.tensor([1, 2]) / 2, gt.float32),  # true division of integers
        (lambda: gt.tensor([1, 2]) / gt.tensor([2, 2]), gt.float32),
        (lambda: gt.tensor([1, 2]) + 3, gt.int64),
        (lambda: gt.tensor([True]) + 1, gt.int64),
        (lambda: gt.tensor([1], dtype=gt.int32) + gt.tensor(5), gt.int32),
        (lambda: gt.tensor([1], dtype=gt.int32) + gt.tensor([5]), gt.int64),
        (lambda: gt.tensor([1.0], dtype=gt.float16) * 2.0, gt.float16),
    ],
)
def test_type_promotion(make, dtype):
    assert make().dtype is dtype


def test_promotion_values():
    assert (gt.tensor([1, 2]) * 2.5).tolist() == [2.5, 5.0]
    assert (gt.tensor([1, 3]) / 2).tolist() == [0.5, 1.5]


# --- creation functions -------------------------------------------------------------------------
def test_zeros_ones_full_empty():
    assert gt.zeros(2, 3).tolist() == [[0.0] * 3] * 2 and gt.zeros(2, 3).dtype is gt.float32
    assert gt.zeros((2, 3)).shape == (2, 3)
    assert gt.ones(2, dtype=gt.int64).tolist() == [1, 1]
    assert gt.full((2,), 7).dtype is gt.int64 and gt.full((2,), 7).tolist() == [7, 7]
    assert gt.full((2,), 1.5).dtype is gt.float32
    assert gt.full((1,), True).dtype is gt.bool
    assert gt.empty(3, 1).shape == (3, 1)
    assert gt.ones(2, requires_grad=True).requires_grad


def test_arange_linspace_eye():
    assert gt.arange(5).tolist() == [0, 1, 2, 3, 4] and gt.arange(5).dtype is gt.int64
    assert gt.arange(2, 8, 3).tolist() == [2, 5]
    assert gt.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert gt.arange(0, 1, 0.25).dtype is gt.float32
    np.testing.assert_allclose(gt.linspace(0, 1, 5).numpy(), [0.0, 0.25, 0.5, 0.75, 1.0])
    assert gt.linspace(0, 1, 5).dtype is gt.float32
    assert gt.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert gt.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize(
    "draw",
    [lambda: gt.rand(3, 4), lambda: gt.randn(3, 4), lambda: gt.randint(0, 10, (3, 4)), lambda: gt.randint(5, (6,))],
)
def test_random_functions_are_reproducible_under_manual_seed(draw):
    gt.manual_seed(1234)
    first, second = draw(), draw()
    gt.manual_seed(1234)
    again = draw()
    assert first.tolist() == again.tolist()
    assert first.tolist() != second.tolist()  # the generator moves on between draws


def test_random_functions_draw_from_the_right_ranges():
    gt.manual_seed(0)
    u = gt.rand(1000).numpy()
    assert u.dtype == np.float32 and 0 <= u.min() and u.max() < 1
    n = gt.randn(10_000, dtype=gt.float64).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    r = gt.randint(3, 7, (1000,))
    assert r.dtype is gt.int64 and set(r.tolist()) == {3, 4, 5, 6}


def test_like_functions_keep_shape_and_dtype():
    base = gt.tensor([[1, 2, 3]])
    assert gt.zeros_like(base).tolist() == [[0, 0, 0]] and gt.zeros_like(base).dtype is gt.int64
    assert gt.ones_like(base, dtype=gt.float64).dtype is gt.float64
    assert gt.ones_like(gt.tensor([1.5])).tolist() == [1.0]


def test_from_numpy_shares_memory():
    array = np.array([1.0, 2.0])
    t = gt.from_numpy(array)
    assert t.dtype is gt.float64
    array[0] = -1.0
    assert t.tolist() == [-1.0, 2.0]
    t.mul_(2)
    assert array.tolist() == [-2.0, 4.0]
    copy = gt.tensor(array)  # tensor() copies
    array[1] = 0.0
    assert copy.tolist() == [-2.0, 4.0]


# --- errors for shapes that do not fit -----------------------------------------------------------
def test_shapes_that_do_not_broadcast():
    message = "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}"
    with pytest.raises(RuntimeError, match=re.escape(message.format(3, 4, 0))):
        gt.ones(3) + gt.ones(4)
    with pytest.raises(RuntimeError, match=re.escape(message.format(2, 3, 1))):
        gt.ones(4, 2) * gt.ones(4, 3)


def test_matrices_that_cannot_be_multiplied():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        gt.ones(2, 3) @ gt.ones(4, 5)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        gt.mm(gt.ones(2, 3), gt.ones(4, 5))


def test_view_errors():
    with pytest.raises(RuntimeError, match=r"shape '\[4\]' is invalid for input of size 6"):
        gt.ones(2, 3).view(4)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        gt.ones(2, 3).t().view(6)
    assert gt.arange(6).reshape(2, 3).t().reshape(6).tolist() == [0, 3, 1, 4, 2, 5]  # reshape copies instead
    assert gt.arange(6).view(2, -1).shape == (2, 3)
