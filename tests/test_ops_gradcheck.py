"""Every differentiable op of the op table (tests/op_db), checked by finite differences in float64.

gradcheck compares the Jacobian autograd computes with the one central differences measure, so
no expected value comes from the backward formula under test; gradgradcheck does the same for the
backward of the backward (``create_graph=True``), which the book's second derivatives need.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import glasstorch
from glasstorch.testing import gradcheck, gradgradcheck
from op_db import EXAMPLES, OP_DB
from op_db.running import bind, differentiable_outputs, draw_sample, skip_unless_applies

GRAD_OPS = [info for info in OP_DB if info.supports_grad]
GRADGRAD_OPS = [info for info in GRAD_OPS if info.supports_gradgrad]


def _function_and_leaves(info, data):
    bound = bind(glasstorch, info, draw_sample(data, info), "float64")
    assert bound.leaves, f"{info.id}: the sample has no float input to differentiate"

    def function(*leaves):
        return tuple(differentiable_outputs(bound.call(leaves), glasstorch))

    return function, bound.leaves


@pytest.mark.parametrize("info", GRAD_OPS, ids=str)
@EXAMPLES
@given(data=st.data())
def test_gradcheck(info, data):
    skip_unless_applies(info, "gradcheck", pytest.skip)
    function, leaves = _function_and_leaves(info, data)
    assert gradcheck(function, leaves, **info.gradcheck_tolerances)


@pytest.mark.parametrize("info", GRADGRAD_OPS, ids=str)
@EXAMPLES
@given(data=st.data())
def test_gradgradcheck(info, data):
    skip_unless_applies(info, "gradgradcheck", pytest.skip)
    function, leaves = _function_and_leaves(info, data)
    assert gradgradcheck(function, leaves, **info.gradcheck_tolerances)
