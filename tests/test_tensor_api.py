"""The Tensor API learners paste (issue 14): indexing with lists, ranges and index tensors, sorting,
gather/scatter, shape helpers, products, reductions, elementwise functions and random numbers.

One table drives two checks, in the spirit of PyTorch's OpInfo:

* ``CASES``: each entry is ``(inputs, function, differentiable)``. The function runs once with
  glasstorch and once with real PyTorch 2.13 on the same numpy inputs (leaves that require grad);
  values, dtypes, ``grad_fn`` names and the gradients of a weighted sum of the outputs must agree.
* the same entries, with ``differentiable=True``, are gradchecked in float64 (finite
  differences), so a gradient is right even where PyTorch is not installed.

Errors (``ERROR_CASES``) must have PyTorch's exception type and key phrase. Random functions
cannot be compared value for value (glasstorch draws from numpy's PCG64, PyTorch from its
Mersenne Twister), so their tests check shapes, dtypes, ranges, statistics and reproducibility.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

from test_vs_torch import assert_same, data, grad_fn_name, positive, run_both  # noqa: E402

A34 = data((3, 4))
STEPS = A34 + 0.27  # x, 3x and 30x stay 0.005 from every integer and half-integer: steps are flat there
IDX = np.array([[0, 2], [1, 1], [2, 0]])


def _set(x, key, value):
    x[key] = value
    return x


def _iadd(x, key, value):
    x[key] += value
    return x


# name: (inputs, function of (lib, *leaves), differentiable)
CASES = {
    # --- indexing: lists, nested lists, ranges, bool lists and tensors in any position ------------
    "index_range": ([A34], lambda lib, a: a[range(1, 3)], True),
    "index_range_second": ([A34], lambda lib, a: a[:, range(0, 4, 2)], True),
    "index_nested_list": ([A34], lambda lib, a: a[[[0, 2], [1, 1]]], True),
    "index_bool_list": ([A34], lambda lib, a: a[[True, False, True]], True),
    "index_embedding": ([A34], lambda lib, a: a[lib.tensor(IDX)], True),
    "index_arange_targets": ([A34], lambda lib, a: a[lib.arange(3), lib.tensor([3, 0, 3])], True),
    "index_slice_tensor": ([A34], lambda lib, a: a[1:, lib.tensor([0, 3, 3])], True),
    "index_ellipsis_tensor": ([data((2, 3, 4))], lambda lib, a: a[..., lib.tensor([1, 1])], True),
    "index_none_tensor_slice": ([A34], lambda lib, a: a[None, lib.tensor([2, 0]), 1:], True),
    "index_separated_tensors": ([data((2, 3, 4))], lambda lib, a: a[lib.tensor([0, 1]), :, lib.tensor([3, 0])], True),
    "index_int_and_list": ([data((2, 3, 4))], lambda lib, a: a[1, [0, 2], 1:3], True),
    "index_list_of_tensors": ([A34], lambda lib, a: a[[lib.tensor(1), lib.tensor(2)]], True),
    "index_list_with_slice": ([A34], lambda lib, a: a[[slice(None), [0, 3]]], True),
    "index_empty_list": ([A34], lambda lib, a: a[[]], True),
    "index_tuple_of_nested_lists": ([A34], lambda lib, a: a[[[0], [2]], [[1, 3]]], True),
    "index_numpy_array": ([A34], lambda lib, a: a[np.array([2, 0])], True),
    "index_bool_list_and_slice": ([A34], lambda lib, a: a[[True, False, True], 1:], True),
    "index_negative_list": ([A34], lambda lib, a: a[[-1, -3]], True),
    "setitem_range": ([A34, data((2, 4), 1)], lambda lib, a, b: _set(a * 1, range(2), b), True),
    "setitem_pairs": ([A34], lambda lib, a: _set(a * 1, (lib.arange(3), lib.tensor([0, 1, 3])), 0.0), True),
    # a write to a repeated index keeps only the last value, but PyTorch's gradient (matched here)
    # counts every write: not a derivative, so no gradcheck
    "setitem_tensor_2d": ([A34, data((2, 2, 4), 1)], lambda lib, a, b: _set(a * 1, lib.tensor([[0, 2], [1, 1]]), b), False),
    "iadd_repeated_pairs": ([A34], lambda lib, a: _iadd(a * 1, (lib.tensor([0, 0, 2]), lib.tensor([1, 1, 3])), 1.0), False),
    "iadd_pairs": ([A34], lambda lib, a: _iadd(a * 1, (lib.tensor([0, 1, 2]), lib.tensor([1, 1, 3])), 2.0), True),
    # --- elementwise ---------------------------------------------------------------------------
    "log10": ([positive((3, 4))], lambda lib, a: lib.log10(a), True),
    # what d2l and the tutorials use (found by running them: issue 14)
    "tan": ([A34 * 0.4], lambda lib, a: lib.tan(a), True),
    "sinh": ([A34], lambda lib, a: lib.sinh(a), True),
    "cosh": ([A34], lambda lib, a: a.cosh(), True),
    "asinh": ([A34], lambda lib, a: lib.asinh(a), True),
    "acosh": ([positive((3, 4)) + 1.5], lambda lib, a: lib.arccosh(a), True),
    "atanh": ([A34 * 0.3], lambda lib, a: a.atanh(), True),
    "sinh_": ([A34], lambda lib, a: (a * 1).sinh_(), True),
    "clamp_tensor_bounds": ([A34, A34[0] - 0.2, A34[1] + 0.3], lambda lib, a, lo, hi: lib.clamp(a, min=lo, max=hi), True),
    "clamp_tensor_min_only": ([A34, A34[:, :1] * 0.5 + 0.1], lambda lib, a, lo: a.clamp(min=lo), True),
    "clamp_min_above_max": ([A34, A34 * 0 + 1.0, A34 * 0 - 1.0], lambda lib, a, lo, hi: lib.clamp(a, lo, hi), True),
    "log2_method": ([positive((3, 4))], lambda lib, a: a.log2(), True),
    "log1p": ([positive((3, 4))], lambda lib, a: a.log1p(), True),
    "expm1": ([A34], lambda lib, a: lib.expm1(a), True),
    "asin": ([data((3, 4), low=-0.9, high=0.9)], lambda lib, a: lib.asin(a), True),
    "acos": ([data((3, 4), low=-0.9, high=0.9)], lambda lib, a: a.acos(), True),
    "arcsin": ([data((3, 4), low=-0.9, high=0.9)], lambda lib, a: lib.arcsin(a), True),
    "atan": ([A34], lambda lib, a: lib.atan(a), True),
    "atan2": ([A34, data((4,), 1)], lambda lib, a, b: lib.atan2(a, b), True),
    "ceil": ([STEPS], lambda lib, a: lib.ceil(a), True),
    "floor": ([STEPS], lambda lib, a: a.floor(), True),
    "round": ([STEPS * 3], lambda lib, a: a.round(), True),
    "round_decimals": ([STEPS * 3], lambda lib, a: lib.round(a, decimals=1), True),
    "trunc": ([STEPS * 3], lambda lib, a: a.trunc(), True),
    "frac": ([STEPS * 3], lambda lib, a: a.frac(), True),
    "sign": ([A34], lambda lib, a: a.sign(), True),
    "reciprocal": ([positive((3, 4))], lambda lib, a: lib.reciprocal(a), True),
    "rsqrt": ([positive((3, 4))], lambda lib, a: a.rsqrt(), True),
    "square": ([A34], lambda lib, a: lib.square(a), True),
    "sin_": ([A34], lambda lib, a: (a * 1).sin_(), True),
    "log10_": ([positive((3, 4))], lambda lib, a: (a * 1).log10_(), True),
    "floor_": ([STEPS], lambda lib, a: (a * 1).floor_() + a, True),
    "sigmoid_": ([A34], lambda lib, a: (a + 0).sigmoid_(), True),
    "rounding_ints": ([], lambda lib: [f(lib.tensor([-2, 0, 3])) for f in (lib.ceil, lib.floor, lib.round, lib.trunc, lib.sign)], False),
    "sign_bool": ([], lambda lib: lib.tensor([True, False]).sign(), False),
    "rsqrt_int": ([], lambda lib: lib.tensor([1, 4]).rsqrt(), False),
    "round_half_even": ([], lambda lib: lib.tensor([0.5, 1.5, 2.5, -0.5, -2.5]).round(), False),
    # --- reductions and scans ---------------------------------------------------------------------
    "norm": ([A34], lambda lib, a: a.norm(), True),
    "norm_dim": ([A34], lambda lib, a: lib.norm(a, dim=1, keepdim=True), True),
    "norm_p1": ([A34], lambda lib, a: a.norm(p=1, dim=0), True),
    "norm_p3": ([A34], lambda lib, a: a.norm(3), True),
    "norm_inf": ([A34], lambda lib, a: a.norm(float("inf"), dim=1), True),
    "norm_fro": ([A34], lambda lib, a: lib.norm(a, "fro"), True),
    "std": ([A34], lambda lib, a: a.std(), True),
    "std_dim": ([A34], lambda lib, a: lib.std(a, 1, keepdim=True), True),
    "std_correction": ([A34], lambda lib, a: a.std(dim=0, correction=0), True),
    "var_correction": ([A34], lambda lib, a: a.var(1, correction=2), True),
    "logsumexp": ([A34], lambda lib, a: a.logsumexp(1), True),
    "logsumexp_dims": ([data((2, 3, 4))], lambda lib, a: lib.logsumexp(a, (0, 2), keepdim=True), True),
    "logsumexp_int": ([], lambda lib: lib.tensor([1, 2]).logsumexp(0), False),
    "cumsum": ([A34], lambda lib, a: a.cumsum(1), True),
    "cumsum_dim0": ([A34], lambda lib, a: lib.cumsum(a, dim=0), True),
    "cumsum_int": ([], lambda lib: [lib.tensor([1, 2, 3]).cumsum(0), lib.tensor([True, True]).cumsum(0)], False),
    "cumprod": ([A34], lambda lib, a: a.cumprod(1), True),
    "cumprod_zeros": ([np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 0.0, 3.0, 0.5]], np.float32)], lambda lib, a: a.cumprod(1), True),
    "prod": ([A34], lambda lib, a: a.prod(), True),
    "prod_dim": ([A34], lambda lib, a: lib.prod(a, 1, keepdim=True), True),
    "prod_dim0": ([A34], lambda lib, a: a.prod(dim=0), True),
    "prod_zeros": ([np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [0.5, 2.0, -1.0]], np.float32)], lambda lib, a: a.prod(1), True),
    "prod_one_zero": ([np.array([1.5, 0.0, 2.0, -0.5], np.float32)], lambda lib, a: a.prod(), True),
    "prod_int": ([], lambda lib: [lib.tensor([1, 2, 3]).prod(), lib.tensor([True, True]).prod(),
                                  lib.tensor([2, 3], dtype=lib.int8).prod(0)], False),
    # --- numpy's names and out= -------------------------------------------------------------------
    "sum_keepdims": ([A34], lambda lib, a: a.sum(1, keepdims=True), True),
    "sum_axis": ([A34], lambda lib, a: lib.sum(a, axis=0), True),
    "mean_axis_keepdims": ([A34], lambda lib, a: a.mean(axis=1, keepdims=True), True),
    "amax_axis": ([A34], lambda lib, a: a.amax(axis=1), True),
    "std_axis": ([A34], lambda lib, a: a.std(axis=1, keepdims=True), True),
    "cumsum_axis": ([A34], lambda lib, a: a.cumsum(axis=1), True),
    "softmax_axis": ([A34], lambda lib, a: a.softmax(axis=1), True),
    "cat_axis": ([A34], lambda lib, a: lib.cat([a, a], axis=1), True),
    "out_add": ([], lambda lib: lib.add(lib.ones(2), lib.ones(2), out=lib.zeros(2)), False),
    "out_sum_resized": ([], lambda lib: lib.sum(lib.ones(2, 3), 1, out=lib.zeros(0, dtype=lib.float64)), False),
    "out_exp_returns_out": ([], lambda lib: (lambda o: (lib.exp(lib.zeros(3), out=o) is o, o))(lib.ones(3)), False),
    # --- sorting ---------------------------------------------------------------------------------
    "sort": ([A34], lambda lib, a: tuple(a.sort()), True),
    "sort_dim0_descending": ([A34], lambda lib, a: tuple(lib.sort(a, 0, descending=True)), True),
    "sort_0d": ([np.array(1.5, np.float32)], lambda lib, a: tuple(a.sort()), True),
    "sort_ties_stable": ([], lambda lib: tuple(lib.tensor([2, 1, 2, 1, 3]).sort(stable=True)), False),
    "sort_descending_ties": ([], lambda lib: tuple(lib.tensor([2.0, 1.0, 2.0, float("nan"), 3.0]).sort(descending=True, stable=True)), False),
    "argsort": ([A34], lambda lib, a: a.argsort(dim=0), False),
    "argsort_descending": ([A34], lambda lib, a: lib.argsort(a, descending=True), False),
    "topk": ([A34], lambda lib, a: tuple(a.topk(2)), True),
    "topk_smallest_dim0": ([A34], lambda lib, a: tuple(lib.topk(a, 2, dim=0, largest=False)), True),
    "unique": ([], lambda lib: lib.unique(lib.tensor([3, 1, 3, 2, 1])), False),
    "unique_inverse_counts": ([], lambda lib: lib.tensor([[3, 1], [3, 2]]).unique(return_inverse=True, return_counts=True), False),
    "unique_dim": ([], lambda lib: lib.unique(lib.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_counts=True), False),
    # --- indexing by mask, gather, scatter -------------------------------------------------------------
    "nonzero": ([], lambda lib: lib.tensor([[0, 1], [2, 0]]).nonzero(), False),
    "nonzero_tuple": ([], lambda lib: lib.nonzero(lib.tensor([[0, 1], [2, 0]]), as_tuple=True), False),
    "masked_select": ([A34], lambda lib, a: a.masked_select(a > 0), True),
    "masked_select_broadcast": ([A34], lambda lib, a: lib.masked_select(a, lib.tensor([True, False, True, True])), True),
    "gather": ([A34], lambda lib, a: a.gather(1, lib.tensor([[0, 0], [3, 1], [2, 2]])), True),
    "gather_dim0_smaller": ([A34], lambda lib, a: lib.gather(a, 0, lib.tensor([[2, 0, 1]])), True),
    "take_along_dim": ([A34], lambda lib, a: lib.take_along_dim(a, a.argmax(1, keepdim=True), 1), True),
    "scatter_src": ([A34, data((2, 4), 1)], lambda lib, a, b: a.scatter(0, lib.tensor([[2, 0, 1, 2], [0, 1, 2, 1]]), b), True),
    "scatter_value": ([A34], lambda lib, a: lib.scatter(a, 1, lib.tensor([[0], [3], [1]]), 2.5), True),
    "scatter_reduce_add": ([], lambda lib: lib.zeros(3).scatter_(0, lib.tensor([0, 0, 2]), lib.tensor([5.0, 6.0, 1.0]), reduce="add"), False),
    "scatter_reduce_multiply": ([], lambda lib: lib.ones(2, 3).scatter(1, lib.tensor([[0, 0]]), 2.0, reduce="multiply"), False),
    "scatter_": ([A34, data((1, 4), 1)], lambda lib, a, b: (a * 1).scatter_(0, lib.tensor([[1, 0, 2, 1]]), b), True),
    "scatter_add": ([A34, data((2, 4), 1)], lambda lib, a, b: a.scatter_add(0, lib.tensor([[2, 0, 2, 2], [2, 1, 2, 1]]), b), True),
    "one_hot_by_scatter": ([], lambda lib: lib.zeros(3, 5).scatter_(1, lib.tensor([[4], [0], [2]]), 1.0), False),
    "index_select": ([A34], lambda lib, a: a.index_select(1, lib.tensor([3, 0, 3])), True),
    "index_select_dim0": ([A34], lambda lib, a: lib.index_select(a, 0, lib.tensor([2, 2])), True),
    "index_add": ([A34, data((2, 4), 1)], lambda lib, a, b: a.index_add(0, lib.tensor([1, 1]), b, alpha=2), True),
    "index_add_": ([A34, data((3, 2), 1)], lambda lib, a, b: (a * 1).index_add_(1, lib.tensor([0, 3]), b), True),
    "index_add_int": ([], lambda lib: lib.zeros(2, dtype=lib.long).index_add_(0, lib.tensor([0, 0]), lib.tensor([5, 6]), alpha=2), False),
    # --- shapes ---------------------------------------------------------------------------------------
    "repeat": ([A34], lambda lib, a: a.repeat(2, 1, 3), True),
    "repeat_tuple": ([data((3,))], lambda lib, a: a.repeat((2, 2)), True),
    "tile": ([A34], lambda lib, a: lib.tile(a, (2,)), True),
    "repeat_interleave": ([A34], lambda lib, a: a.repeat_interleave(2, dim=0), True),
    "repeat_interleave_flat": ([A34], lambda lib, a: lib.repeat_interleave(a, 2), True),
    "repeat_interleave_counts": ([A34], lambda lib, a: a.repeat_interleave(lib.tensor([1, 0, 3]), dim=0), True),
    "repeat_interleave_index": ([], lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 1])), False),
    "chunk": ([data((5, 4))], lambda lib, a: a.chunk(3), True),
    "chunk_dim1": ([A34], lambda lib, a: lib.chunk(a, 2, dim=1), True),
    "split": ([data((5, 4))], lambda lib, a: a.split(2), True),
    "split_sizes": ([A34], lambda lib, a: lib.split(a, [1, 3], dim=1), True),
    "unbind": ([A34], lambda lib, a: a.unbind(1), True),
    "flip": ([A34], lambda lib, a: a.flip(0), True),
    "flip_dims": ([data((2, 3, 4))], lambda lib, a: lib.flip(a, [0, 2]), True),
    "fliplr": ([A34], lambda lib, a: a.fliplr(), True),
    "roll": ([A34], lambda lib, a: a.roll(1, 0), True),
    "roll_flat": ([A34], lambda lib, a: lib.roll(a, -5), True),
    "roll_dims": ([A34], lambda lib, a: a.roll((1, -1), (0, 1)), True),
    "tril": ([data((4, 4))], lambda lib, a: a.tril(), True),
    "tril_offset": ([A34], lambda lib, a: lib.tril(a, -1), True),
    "triu": ([A34], lambda lib, a: a.triu(1), True),
    "triu_batched": ([data((2, 3, 3))], lambda lib, a: lib.triu(a), True),
    "tril_ones_mask": ([], lambda lib: lib.tril(lib.ones(3, 3)) == 0, False),
    "meshgrid_ij": ([data((3,)), data((2,), 1)], lambda lib, a, b: lib.meshgrid(a, b, indexing="ij"), True),
    "meshgrid_xy": ([data((3,)), data((2,), 1)], lambda lib, a, b: lib.meshgrid(a, b, indexing="xy"), True),
    "unfold": ([data((2, 7))], lambda lib, a: a.unfold(1, 3, 2), True),
    "unfold_overlapping": ([data((6, 2))], lambda lib, a: a.unfold(0, 4, 1), True),
    "narrow": ([A34], lambda lib, a: a.narrow(1, 1, 2), True),
    "movedim": ([data((2, 3, 4))], lambda lib, a: lib.movedim(a, 0, -1), True),
    "swapaxes": ([A34], lambda lib, a: a.swapaxes(0, 1), True),
    "unsqueeze_": ([A34], lambda lib, a: (a * 1).unsqueeze_(1), True),
    "squeeze_": ([data((3, 1, 4))], lambda lib, a: (a * 1).squeeze_(), True),
    "squeeze_dim_": ([data((3, 1, 4))], lambda lib, a: (a * 1).squeeze_(1), True),
    "transpose_": ([data((2, 3, 4))], lambda lib, a: (a * 1).transpose_(0, 2), True),
    "t_": ([A34], lambda lib, a: (a * 1).t_(), True),
    # --- products -------------------------------------------------------------------------------------
    "outer": ([data((3,)), data((4,), 1)], lambda lib, a, b: lib.outer(a, b), True),
    "outer_method": ([data((3,)), data((2,), 1)], lambda lib, a, b: a.outer(b), True),
    "cross": ([data((2, 3)), data((2, 3), 1)], lambda lib, a, b: lib.cross(a, b, dim=1), True),
    "cross_broadcast": ([data((3, 2)), data((3, 1), 1)], lambda lib, a, b: a.cross(b, dim=0), True),
    "bmm": ([data((2, 3, 4)), data((2, 4, 2), 1)], lambda lib, a, b: lib.bmm(a, b), True),
    "bmm_transposed": ([data((2, 3, 4))], lambda lib, a: a.bmm(a.transpose(1, 2)), True),
    "baddbmm": ([data((3, 2)), data((2, 3, 4), 1), data((2, 4, 2), 2)], lambda lib, c, a, b: lib.baddbmm(c, a, b), True),
    "baddbmm_scaled": ([data((2, 3, 2)), data((2, 3, 4), 1), data((2, 4, 2), 2)],
                       lambda lib, c, a, b: c.baddbmm(a, b, beta=0.5, alpha=2.0), True),
    "einsum_matmul_values": ([], lambda lib: lib.einsum("ij,jk->ik", lib.tensor(A34), lib.tensor(A34.T.copy())), False),
    "einsum_trace_values": ([], lambda lib: lib.einsum("ii", lib.tensor(data((3, 3)))), False),
    # --- the other names: numpy's spellings and in-place twins -------------------------------------------
    "fix": ([STEPS], lambda lib, a: lib.fix(a), True),
    "arccos": ([data((3, 4), low=-0.9, high=0.9)], lambda lib, a: lib.arccos(a), True),
    "arctan": ([A34], lambda lib, a: a.arctan(), True),
    "arctan2": ([A34, positive((3, 4), 1)], lambda lib, a, b: lib.arctan2(a, b), True),
    "ger": ([data((3,)), data((2,), 1)], lambda lib, a, b: lib.ger(a, b), True),
    "flipud": ([A34], lambda lib, a: lib.flipud(a), True),
    "moveaxis": ([data((2, 3, 4))], lambda lib, a: a.moveaxis((0, 1), (2, 0)), True),
    "swapdims": ([data((2, 3, 4))], lambda lib, a: lib.swapdims(a, 0, 2), True),
    "argwhere": ([], lambda lib: lib.argwhere(lib.tensor([[0, 1], [2, 0]])), False),
    "msort": ([A34], lambda lib, a: lib.msort(a), True),
    "tril_": ([data((3, 3))], lambda lib, a: (a * 1).tril_(-1), True),
    "triu_": ([data((3, 3))], lambda lib, a: (a * 1).triu_(), True),
    "abs_": ([A34], lambda lib, a: (a * 1).abs_(), True),
    # (each on its own copy: an in-place op on a result that a Node saved is PyTorch's error)
    "positive_": ([positive((3, 4))], lambda lib, a: [(a * 1).sqrt_(), (a * 1).log_(), (a * 1).exp_(), (a * 1).reciprocal_(),
                                                     (a * 1).rsqrt_(), (a * 1).log2_(), (a * 1).log1p_(), (a * 1).expm1_()], True),
    "trig_": ([data((3, 4), low=-0.9, high=0.9)], lambda lib, a: [(a * 1).cos_(), (a * 1).tanh_(), (a * 1).asin_(),
                                                                   (a * 1).atan_(), (a * 1).acos_(), (a * 1).sigmoid_()], True),
    "rounding_": ([STEPS * 3], lambda lib, a: [(a * 1).ceil_(), (a * 1).round_(), (a * 1).trunc_(), (a * 1).frac_(),
                                              (a * 1).sign_(), (a * 1).square_()], True),
    "atan2_": ([A34, positive((3, 4), 1)], lambda lib, a, b: (a * 1).atan2_(b), True),
    "take_along_dim_flat": ([A34], lambda lib, a: lib.take_along_dim(a, lib.tensor([0, 11, 5])), True),
    # --- new tensors like this one --------------------------------------------------------------------
    "new_zeros": ([], lambda lib: lib.ones(2, dtype=lib.float64).new_zeros(2, 3), False),
    "new_ones_dtype": ([], lambda lib: lib.ones(2).new_ones((2,), dtype=lib.int32), False),
    "new_full": ([], lambda lib: lib.zeros(2, dtype=lib.long).new_full((2, 2), 3.5), False),
    "new_tensor": ([], lambda lib: [lib.ones(1, dtype=lib.float64).new_tensor([1, 2]), lib.ones(1).new_tensor([[1.5]])], False),
    "new_empty_shape": ([], lambda lib: lib.ones(2, dtype=lib.int8).new_empty(4).shape, False),
    "stride": ([], lambda lib: [lib.ones(2, 3).stride(), lib.ones(2, 3).t().stride(), lib.ones(3, 1).expand(3, 4).stride(),
                                lib.ones(2, 3)[:, ::2].stride(1), lib.tensor(1.0).stride()], False),
}

# einsum: PyTorch records permutes, reshapes and bmm; glasstorch one EinsumBackward0 (ops/einsum.py)
EINSUM_CASES = {
    "matmul": ("ij,jk->ik", [(3, 4), (4, 2)]),
    "implicit_output": ("ij,jk", [(3, 4), (4, 2)]),
    "batched": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    "trace": ("ii", [(3, 3)]),
    "diagonal": ("ii->i", [(3, 3)]),
    "outer": ("i,j->ij", [(3,), (2,)]),
    "sum_one_operand": ("ij->", [(3, 4)]),
    "row_sum_only_in_first": ("ij,j->j", [(3, 4), (4,)]),
    "ellipsis": ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
    "three_operands": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    "broadcast_size_one": ("ij,ij->i", [(3, 4), (1, 4)]),
    "transpose": ("ij->ji", [(3, 4)]),
}


def _program(inputs, function):
    def program(lib):
        leaves = [lib.tensor(array, requires_grad=True) for array in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = function(lib, *leaves)
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        tensors = [o for o in outputs if isinstance(o, lib.Tensor)]
        # a weighted sum, so every element's gradient counts, not only the total
        terms = [(o * lib.tensor(data(tuple(o.shape), 100 + i, dtype=np.float64)).to(o.dtype)).sum()
                 for i, o in enumerate(tensors) if o.requires_grad]
        if terms:
            sum(terms).backward()
        return {"out": list(outputs), "grad_fn": [grad_fn_name(o) for o in tensors],
                "grads": [leaf.grad for leaf in leaves]}

    return program


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_as_pytorch(case):
    inputs, function, _ = CASES[case]
    got, want = run_both(_program(inputs, function))
    assert_same(got["out"], want["out"], "output")
    assert got["grad_fn"] == want["grad_fn"], "grad_fn names"
    assert_same(got["grads"], want["grads"], "gradients")


@pytest.mark.parametrize("case", sorted(name for name, entry in CASES.items() if entry[2]))
def test_gradcheck_float64(case):
    inputs, function, _ = CASES[case]
    leaves = [gt.tensor(array.astype(np.float64), requires_grad=True) for array in inputs]

    def as_tuple(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = function(gt, *args)
        return tuple(o for o in (out if isinstance(out, (tuple, list)) else (out,)) if o.is_floating_point())

    assert gradcheck(as_tuple, tuple(leaves))


# Nodes whose saved state is declared with PyTorch's names: grad_fn._saved_<name> as in PyTorch
SAVED_STATE_CASES = ["gather", "scatter_src", "scatter_value", "scatter_add", "index_select", "index_add", "sort",
                     "topk", "masked_select", "sort_dim0_descending", "norm", "norm_dim", "norm_p3", "std", "std_dim",
                     "std_correction", "logsumexp", "logsumexp_dims", "cumsum_dim0", "cumprod", "bmm", "baddbmm_scaled",
                     "cross", "atan2", "flip_dims", "roll_dims", "repeat", "tril_offset", "triu", "unfold", "split",
                     "split_sizes", "unbind", "chunk", "prod", "prod_dim", "log10", "rsqrt", "asin", "ceil", "frac", "sign", "round_decimals"]


def _saved_state(grad_fn):
    names = sorted(name for name in dir(grad_fn) if name.startswith("_saved_"))
    return {name: getattr(grad_fn, name) for name in names}


@pytest.mark.parametrize("case", SAVED_STATE_CASES)
def test_saved_state_as_pytorch(case):
    inputs, function, _ = CASES[case]

    def program(lib):
        leaves = [lib.tensor(array, requires_grad=True) for array in inputs]
        out = function(lib, *leaves)
        return _saved_state((out[0] if isinstance(out, tuple) else out).grad_fn)

    got, want = run_both(program)
    assert set(want) <= set(got), f"missing: {set(want) - set(got)}"
    for name in want:
        assert_same(got[name], _signed(want[name]), name)


def _signed(value):
    """PyTorch shows a saved negative int (dim=-1, shifts=-1) as an unsigned 64-bit number."""
    if isinstance(value, (tuple, list)):
        return tuple(_signed(v) for v in value)
    return value - 2**64 if isinstance(value, int) and value >= 2**63 else value


@pytest.mark.parametrize("case", sorted(EINSUM_CASES))
def test_einsum_same_as_pytorch_and_gradcheck(case):
    equation, shapes = EINSUM_CASES[case]
    inputs = [data(shape, i) for i, shape in enumerate(shapes)]
    got, want = run_both(_program(inputs, lambda lib, *ops: lib.einsum(equation, *ops)))
    assert_same(got["out"], want["out"], "output")
    assert_same(got["grads"], want["grads"], "gradients")
    assert got["grad_fn"] == ["EinsumBackward0"]
    leaves = tuple(gt.tensor(a.astype(np.float64), requires_grad=True) for a in inputs)
    assert gradcheck(lambda *ops: gt.einsum(equation, *ops), leaves)


def test_einsum_sublist_form():
    def program(lib):
        a = lib.tensor(data((2, 3, 4)), requires_grad=True)
        b = lib.tensor(data((4, 5), 1), requires_grad=True)
        out = lib.einsum(a, [..., 0, 1], b, [1, 2], [..., 0, 2])
        (out * lib.tensor(data((2, 3, 5), 2))).sum().backward()
        return out, a.grad, b.grad

    got, want = run_both(program)
    assert_same(got, want)


def test_einsum_second_derivative():
    from glasstorch.testing import gradgradcheck

    a = gt.tensor(data((2, 3), 0, dtype=np.float64), requires_grad=True)
    b = gt.tensor(data((3, 2), 1, dtype=np.float64), requires_grad=True)
    assert gradgradcheck(lambda x, y: gt.einsum("ij,jk->ik", x, y) ** 2, (a, b))


@pytest.mark.parametrize("case", ["cumsum", "cumprod", "cumprod_zeros", "prod", "prod_zeros", "gather", "scatter_add", "index_select", "sort", "norm", "logsumexp",
                                  "atan2", "unfold", "baddbmm"])
def test_second_derivatives(case):
    """The backward formulas are written with tensor ops, so create_graph records them."""
    from glasstorch.testing import gradgradcheck

    inputs, function, _ = CASES[case]
    leaves = tuple(gt.tensor(array.astype(np.float64), requires_grad=True) for array in inputs)

    def squared(*args):
        out = function(gt, *args)
        out = out[0] if isinstance(out, tuple) else out
        return out * out

    assert gradgradcheck(squared, leaves)


# --- errors: PyTorch's exception type and key phrase ---------------------------------------------
ERROR_CASES = {
    "index_tensor_out_of_range": lambda lib: lib.zeros(3, 4)[:, lib.tensor([[0, 9]])],
    "index_list_out_of_range": lambda lib: lib.zeros(3, 4)[[0, 7]],
    "index_second_tensor_out_of_range": lambda lib: lib.zeros(2, 3, 4)[:, lib.tensor([0]), lib.tensor([-9])],
    "index_float_tensor": lambda lib: lib.zeros(3)[lib.tensor([1.0])],
    "gather_out_of_range": lambda lib: lib.zeros(3, 4).gather(1, lib.tensor([[0, 5]])),
    "gather_index_too_big": lambda lib: lib.zeros(3, 4).gather(1, lib.tensor([[0, 1]] * 4)),
    "gather_wrong_rank": lambda lib: lib.zeros(3, 4).gather(1, lib.tensor([0, 1])),
    "gather_float_index": lambda lib: lib.zeros(3, 4).gather(1, lib.tensor([[0.0, 1.0]])),
    "gather_wrong_dim": lambda lib: lib.zeros(3, 4).gather(2, lib.tensor([[0, 1]])),
    "scatter_out_of_range": lambda lib: lib.zeros(3, 4).scatter(1, lib.tensor([[0, 5]]), 1.0),
    "scatter_src_too_small": lambda lib: lib.zeros(3, 4).scatter(1, lib.tensor([[0, 1]]), lib.ones(1, 1)),
    "scatter_dtype": lambda lib: lib.zeros(3, 4).scatter(1, lib.tensor([[0, 1]]), lib.ones(1, 2, dtype=lib.float64)),
    "scatter_bad_reduce": lambda lib: lib.zeros(3, 4).scatter(1, lib.tensor([[0, 1]]), 2.0, reduce="max"),
    "index_select_matrix_index": lambda lib: lib.zeros(3, 4).index_select(1, lib.tensor([[0, 1]])),
    "index_select_float_index": lambda lib: lib.zeros(3, 4).index_select(1, lib.tensor([0.0])),
    "index_add_count": lambda lib: lib.zeros(3, 4).index_add(0, lib.tensor([0, 1]), lib.ones(3, 4)),
    "index_add_out_of_range": lambda lib: lib.zeros(3, 4).index_add(0, lib.tensor([0, 7]), lib.ones(2, 4)),
    "masked_select_not_bool": lambda lib: lib.zeros(3, 4).masked_select(lib.tensor([1, 0, 0, 0])),
    "masked_select_shapes": lambda lib: lib.zeros(3, 4).masked_select(lib.tensor([True, False])),
    "topk_too_many": lambda lib: lib.zeros(3, 4).topk(5),
    "sort_wrong_dim": lambda lib: lib.zeros(3, 4).sort(dim=2),
    "split_sizes_sum": lambda lib: lib.zeros(4, 6).split([1, 2], 0),
    "chunk_zero": lambda lib: lib.zeros(4).chunk(0),
    "unfold_too_big": lambda lib: lib.zeros(4, 6).unfold(1, 7, 1),
    "repeat_too_few": lambda lib: lib.zeros(4, 6).repeat(2),
    "tril_vector": lambda lib: lib.zeros(4).tril(),
    "bmm_not_3d": lambda lib: lib.bmm(lib.ones(2, 3), lib.ones(2, 3, 4)),
    "bmm_sizes": lambda lib: lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 5, 4)),
    "bmm_dtypes": lambda lib: lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 4, 4, dtype=lib.float64)),
    "baddbmm_input_shape": lambda lib: lib.baddbmm(lib.ones(2, 3), lib.ones(2, 3, 4), lib.ones(2, 4, 3)),
    "cross_no_size_3": lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4)),
    "outer_matrix": lambda lib: lib.outer(lib.ones(3), lib.ones(2, 2)),
    "einsum_sizes": lambda lib: lib.einsum("ij,jk", lib.ones(2, 3), lib.ones(4, 2)),
    "einsum_too_few_operands": lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 3)),
    "frac_int": lambda lib: lib.tensor([1, 2]).frac(),
    "sin_int_in_place": lambda lib: lib.tensor([1, 2]).sin_(),
    "norm_int": lambda lib: lib.tensor([1, 2]).norm(),
    "std_int": lambda lib: lib.tensor([1, 2]).std(),
    "ceil_bool": lambda lib: lib.tensor([True, False]).ceil(),
    "round_bool": lambda lib: lib.tensor([True, False]).round(),
    "round_decimals_int": lambda lib: lib.tensor([1, 2]).round(decimals=1),
    "topk_bool": lambda lib: lib.tensor([True, False]).topk(1),
    "cross_bool": lambda lib: lib.cross(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool), dim=0),
    "unsqueeze_leaf": lambda lib: lib.zeros(2, requires_grad=True).unsqueeze_(0),
    "out_requires_grad": lambda lib: lib.add(lib.ones(2, requires_grad=True), 1, out=lib.zeros(2)),
    "out_dtype": lambda lib: lib.add(lib.ones(2), lib.ones(2), out=lib.zeros(2, dtype=lib.long)),
    "multinomial_too_many": lambda lib: lib.multinomial(lib.tensor([0.1, 0.5, 0.4]), 5),
    "multinomial_negative": lambda lib: lib.multinomial(lib.tensor([-0.1, 1.0]), 1),
    "multinomial_zero_sum": lambda lib: lib.multinomial(lib.tensor([0.0, 0.0]), 1),
    "multinomial_3d": lambda lib: lib.multinomial(lib.tensor([[[0.0, 1.0]]]), 1),
    "multinomial_int": lambda lib: lib.multinomial(lib.tensor([0, 1]), 1),
    "random_range": lambda lib: lib.zeros(3).random_(5, 2),
    "exponential_rate": lambda lib: lib.empty(2).exponential_(-1),
    "bernoulli_probability": lambda lib: lib.bernoulli(lib.tensor([1.5])),
    "normal_std": lambda lib: lib.normal(lib.zeros(2), -1.0),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_errors_as_pytorch(case):
    program = ERROR_CASES[case]
    with pytest.raises(Exception) as want:
        program(torch)
    with pytest.raises(type(want.value)) as got:
        program(gt)
    key = str(want.value).split("\n")[0].replace("torch.", "glasstorch.")
    assert key[:60] in str(got.value), f"{got.value!r} lacks {key!r}"


def test_a_list_holding_sequences_is_read_as_a_tuple_with_pytorchs_warning():
    x = gt.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
        picked = x[[[0, 2], [1, 3]]]
    assert picked.tolist() == [1.0, 11.0]


# --- random numbers: shapes, dtypes, ranges, statistics, generators -----------------------------------
def test_generator_seeds_and_state_reproduce_draws():
    g = gt.Generator().manual_seed(2147483647)
    assert isinstance(g, gt.Generator) and g.initial_seed() == 2147483647 and str(g.device) == "cpu"
    state = g.get_state()
    assert state.dtype == gt.uint8  # a ByteTensor, as PyTorch's
    first = gt.randn((27, 27), generator=g)
    g.set_state(state)
    assert gt.equal(first, gt.randn((27, 27), generator=g))
    again = gt.Generator().manual_seed(2147483647)
    assert gt.equal(first, gt.randn((27, 27), generator=again))
    fresh = gt.Generator()
    assert fresh.seed() == fresh.initial_seed() != 2147483647


def test_a_generator_leaves_the_global_stream_alone():
    gt.manual_seed(0)
    expected = gt.rand(3)
    gt.manual_seed(0)
    gt.multinomial(gt.ones(4), 2, generator=gt.Generator().manual_seed(1))
    assert gt.equal(gt.rand(3), expected)


def test_multinomial_with_replacement_follows_the_probabilities():
    g = gt.Generator().manual_seed(2147483647)
    p = gt.tensor([0.1, 0.0, 0.6, 0.3])
    draws = gt.multinomial(p, num_samples=20000, replacement=True, generator=g)
    assert draws.dtype == gt.int64 and draws.shape == (20000,)
    frequencies = np.bincount(draws.numpy(), minlength=4) / 20000
    np.testing.assert_allclose(frequencies, [0.1, 0.0, 0.6, 0.3], atol=0.015)


def test_multinomial_rows_and_unnormalised_weights():
    g = gt.Generator().manual_seed(3)
    weights = gt.tensor([[0.0, 5.0, 0.0], [2.0, 0.0, 0.0]])
    assert gt.multinomial(weights, 4, replacement=True, generator=g).tolist() == [[1] * 4, [0] * 4]


def test_multinomial_without_replacement_never_repeats_and_favours_heavy_weights():
    g = gt.Generator().manual_seed(5)
    weights = gt.tensor([[1.0, 1.0, 1.0, 1.0, 50.0]] * 2000)
    draws = gt.multinomial(weights, 5, generator=g).numpy()
    assert all(sorted(row) == [0, 1, 2, 3, 4] for row in draws[:50])
    assert (draws[:, 0] == 4).mean() > 0.85  # 50 / 54 of first draws


def test_normal_forms_bernoulli_and_fills():
    g = gt.Generator().manual_seed(7)
    mean = gt.full((20000,), 2.0)
    sample = gt.normal(mean, 3.0, generator=g)
    assert abs(sample.mean().item() - 2.0) < 0.1 and abs(sample.std().item() - 3.0) < 0.1
    assert gt.normal(0.0, gt.ones(2, 3)).shape == (2, 3)
    assert gt.normal(2, 3, size=(1, 4)).dtype == gt.float32
    coins = gt.bernoulli(gt.full((20000,), 0.25), generator=g)
    assert coins.dtype == gt.float32 and set(coins.unique().tolist()) == {0.0, 1.0}
    assert abs(coins.mean().item() - 0.25) < 0.02
    ints = gt.zeros(1000, dtype=gt.long).random_(5, generator=g)
    assert ints.dtype == gt.int64 and ints.min().item() == 0 and ints.max().item() == 4
    between = gt.zeros(1000).random_(2, 5)
    assert set(between.unique().tolist()) == {2.0, 3.0, 4.0}
    assert gt.zeros(4, dtype=gt.bool).random_().dtype == gt.bool
    waits = gt.empty(20000).exponential_(2.0, generator=g)
    assert waits.min().item() >= 0 and abs(waits.mean().item() - 0.5) < 0.02
    assert 2 <= gt.empty(100).uniform_(2, 3).min().item() and gt.empty(100).normal_(0, 1).shape == (100,)


SAMPLERS = {
    "normal_tensor_mean": lambda lib, x: lib.normal(x, 1.0),
    "normal_tensor_std": lambda lib, x: lib.normal(0.0, x.abs() + 1),
    "normal_both_tensors": lambda lib, x: lib.normal(x, x.abs() + 1),
    "bernoulli": lambda lib, x: lib.bernoulli(x.sigmoid()),
    "normal_": lambda lib, x: (x * 1).normal_(),
    "uniform_": lambda lib, x: (x * 1).uniform_(),
    "exponential_": lambda lib, x: (x * 1).exponential_(),
    "random_to": lambda lib, x: (x * 1).random_(3),
    "random_from_to": lambda lib, x: (x * 1).random_(1, 3),
    "random_full_range": lambda lib, x: (x * 1).random_(),
    "bernoulli_tensor_p": lambda lib, x: (x * 1).bernoulli_(lib.tensor(0.5)),
    "bernoulli_": lambda lib, x: (x * 1).bernoulli_(0.5),
}


@pytest.mark.parametrize("case", sorted(SAMPLERS))
def test_sampling_records_a_node_of_zero_gradient_named_as_pytorch(case):
    def program(lib):
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        out = SAMPLERS[case](lib, x)
        out.sum().backward()
        return grad_fn_name(out), x.grad

    got, want = run_both(program)
    assert got[0] == want[0]
    assert_same(got[1], want[1], "zero gradient")


def test_scatter_add_with_a_source_larger_than_the_index_gradchecks():
    """PyTorch's backward fails here ("invalid gradient"); glasstorch gives the unread part 0."""
    index = gt.tensor([[0], [0]])
    base = gt.tensor(data((3, 4), dtype=np.float64), requires_grad=True)
    src = gt.tensor(data((3, 4), 1, dtype=np.float64), requires_grad=True)
    assert gradcheck(lambda a, b: gt.scatter_add(a, 1, index, b), (base, src))


# --- dtype rules: every op on every dtype gives PyTorch's dtype and values, or PyTorch's error type ----
DTYPE_OPS = {
    **{name: (lambda name: lambda lib, x: getattr(x, name)())(name) for name in (
        "log10", "log2", "log1p", "expm1", "asin", "acos", "atan", "ceil", "floor", "round", "trunc", "frac", "sign",
        "rsqrt", "square", "reciprocal", "norm", "std", "prod", "argsort", "unique", "nonzero", "msort")},
    "cumsum": lambda lib, x: x.cumsum(0), "cumprod": lambda lib, x: x.cumprod(0), "logsumexp": lambda lib, x: x.logsumexp(0),
    "sort": lambda lib, x: x.sort().values, "topk": lambda lib, x: x.topk(2).values, "roll": lambda lib, x: x.roll(1),
    "flip": lambda lib, x: x.flip(0), "tril": lambda lib, x: x.reshape(2, 2).tril(), "repeat": lambda lib, x: x.repeat(2),
    "unfold": lambda lib, x: x.unfold(0, 2, 1), "atan2": lambda lib, x: lib.atan2(x, x), "outer": lambda lib, x: lib.outer(x, x),
    "cross": lambda lib, x: lib.cross(x[:3], x[1:], dim=0), "gather": lambda lib, x: x.gather(0, lib.tensor([1, 0])),
    "index_select": lambda lib, x: x.index_select(0, lib.tensor([1, 0])), "masked_select": lambda lib, x: x.masked_select(x > 1),
    "repeat_interleave": lambda lib, x: x.repeat_interleave(2), "scatter_add": lambda lib, x: x.scatter_add(0, lib.tensor([0, 0]), x),
}
DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(DTYPE_OPS))
def test_dtype_rules_as_pytorch(op, dtype):
    def program(lib):
        x = lib.tensor([1, 2, 0, 3], dtype=getattr(lib, dtype))
        try:
            result = DTYPE_OPS[op](lib, x)
        except Exception as error:  # noqa: BLE001 - the error's type is what we compare
            return type(error).__name__
        return str(result.dtype).split(".")[-1], result.double().numpy()

    got, want = run_both(program)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want, "error types"
    else:
        assert got[0] == want[0], "dtype"
        np.testing.assert_allclose(got[1], want[1], rtol=1e-2, equal_nan=True)


# --- the ops along a dim, on shapes drawn by hypothesis ----------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import array_shapes  # noqa: E402

ALONG_DIM = {
    "cumsum": lambda lib, x, d, r: x.cumsum(d),
    "cumprod": lambda lib, x, d, r: x.cumprod(d),
    "prod": lambda lib, x, d, r: x.prod(d, keepdim=True),
    "logsumexp": lambda lib, x, d, r: x.logsumexp(d),
    "norm": lambda lib, x, d, r: x.norm(dim=d),
    "std": lambda lib, x, d, r: x.std(d, correction=0),
    "flip": lambda lib, x, d, r: x.flip(d),
    "roll": lambda lib, x, d, r: x.roll(int(r.integers(-3, 4)), d),
    "sort": lambda lib, x, d, r: tuple(x.sort(d, descending=bool(r.integers(2)))),
    "topk": lambda lib, x, d, r: tuple(x.topk(int(r.integers(1, x.shape[d] + 1)), d)),
    "split": lambda lib, x, d, r: x.split(int(r.integers(1, x.shape[d] + 1)), d),
    "unfold": lambda lib, x, d, r: x.unfold(d, int(r.integers(1, x.shape[d] + 1)), int(r.integers(1, 3))),
    "repeat_interleave": lambda lib, x, d, r: x.repeat_interleave(int(r.integers(0, 3)), dim=d),
    "index_select": lambda lib, x, d, r: x.index_select(d, lib.tensor(r.integers(0, x.shape[d], 4))),
    "gather": lambda lib, x, d, r: x.gather(d, lib.tensor(r.integers(0, x.shape[d], x.shape))),
    "scatter_add": lambda lib, x, d, r: x.scatter_add(d, lib.tensor(r.integers(0, x.shape[d], x.shape)), x * 2),
    "index_add": lambda lib, x, d, r: x.index_add(d, lib.tensor(r.integers(0, x.shape[d], x.shape[d])), x, alpha=0.5),
}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), data_=st.data())
@pytest.mark.parametrize("op", sorted(ALONG_DIM))
def test_ops_along_a_dim_on_drawn_shapes(op, shape, data_):
    dim = data_.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    seed = data_.draw(st.integers(0, 2**16), label="seed")
    inputs = [data(shape, seed)]
    function = lambda lib, x: ALONG_DIM[op](lib, x, dim, np.random.default_rng(seed))  # noqa: E731
    got, want = run_both(_program(inputs, function))
    assert_same(got["out"], want["out"], "output")
    assert got["grad_fn"] == want["grad_fn"]
    assert_same(got["grads"], want["grads"], "gradients")
    leaves = (gt.tensor(inputs[0].astype(np.float64), requires_grad=True),)
    assert gradcheck(lambda x: tuple(o for o in _as_outputs(function(gt, x)) if o.is_floating_point()), leaves)


def _as_outputs(out):
    return out if isinstance(out, (tuple, list)) else (out,)


def test_the_default_generator_is_what_manual_seed_seeds():
    assert gt.manual_seed(5) is gt.default_generator and gt.initial_seed() == 5
    state = gt.default_generator.get_state()
    first = gt.rand(3)
    gt.set_rng_state(state)
    assert gt.equal(gt.rand(3), first)


def test_scatter_with_reduce_and_a_tensor_source_warns_as_pytorch():
    with pytest.warns(UserWarning, match="reduce argument of torch.scatter with Tensor src is deprecated"):
        gt.zeros(3).scatter_(0, gt.tensor([0, 0]), gt.tensor([1.0, 2.0]), reduce="add")


def test_scatter_with_reduce_records_pytorchs_node_without_a_derivative():
    def program(lib):
        x = lib.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = lib.zeros(3).scatter(0, lib.tensor([0, 0]), x[:2] * 1, reduce="add")
        name = grad_fn_name(out)
        try:
            out.sum().backward()
        except RuntimeError as error:
            return name, "not implemented" in str(error)
        return name, False

    got, want = run_both(program)
    assert got == want == ("NotImplemented", True)



def test_factories_take_size_as_a_keyword_as_d2l_writes_them():
    for name in ("rand", "randn", "zeros", "ones", "empty"):
        assert getattr(gt, name)(size=(2, 3)).shape == getattr(torch, name)(size=(2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        gt.zeros(2, size=(2, 3))


def test_a_float_given_with_dtype_float64_is_not_rounded_through_float32():
    # PyTorch converts Python floats straight to the requested dtype
    assert gt.tensor([0.3, 1e-30], dtype=gt.float64).tolist() == torch.tensor([0.3, 1e-30], dtype=torch.float64).tolist()
    assert gt.tensor([[0.1]], dtype=gt.float64).item() == 0.1
    assert gt.tensor([0.1]).dtype is gt.float32 and gt.tensor([1.7], dtype=gt.int64).tolist() == [1]
