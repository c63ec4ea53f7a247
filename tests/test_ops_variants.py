"""The other ways of calling each op of the op table (tests/op_db), against real PyTorch 2.13:
the Tensor method, the in-place twin (``x.add_``), ``out=``, integer and bool inputs, and the
calls that must fail (same exception type, PyTorch's key phrase)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: comparisons with real PyTorch are skipped "
                                            "(pip install torch==2.13.0)")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import glasstorch  # noqa: E402
from op_db import EXAMPLES, OP_DB  # noqa: E402
from op_db.running import (bind, differentiable_outputs, draw_sample, resolve, skip_unless_applies,  # noqa: E402
                           tensors_in, weighted_loss)
from pytorch_oracle import assert_same, grad_fn_name, run, run_both, torch_name  # noqa: E402

pytestmark = pytest.mark.torch


def _ids(ops):
    return [pytest.param(info, id=info.id) for info in ops]


@pytest.mark.parametrize("info", _ids(op for op in OP_DB if op.method))
@EXAMPLES
@given(data=st.data())
def test_method_matches_function(info, data):
    """``x.name(*args)`` returns what ``lib.name(x, *args)`` does, in both libraries."""
    skip_unless_applies(info, "method", pytest.skip)
    sample = draw_sample(data, info)

    def program(lib):
        bound = bind(lib, info, sample, "float32", requires_grad=False)
        input, args, kwargs = bound.arguments()
        return {"method": tensors_in(getattr(input, info.method_name)(*args, **kwargs), lib),
                "function": tensors_in(bound.call(), lib)}

    got, want = run_both(program)
    assert_same(got, want, "method and function", tolerances=info.tolerances)


ALIAS_CASES = [pytest.param(info, alias, id=f"{info.id}-{alias}") for info in OP_DB for alias in info.aliases]


@pytest.mark.parametrize(("info", "alias"), ALIAS_CASES)
@EXAMPLES
@given(data=st.data())
def test_alias(info, alias, data):
    """``lib.<alias>`` (``special.expit``) is the same function under another name, in both libraries."""
    sample = draw_sample(data, info)

    def program(lib):
        bound = bind(lib, info, sample, "float32", requires_grad=False)
        input, args, kwargs = bound.arguments()
        return {"alias": tensors_in(resolve(lib, alias)(input, *args, **kwargs), lib),
                "function": tensors_in(bound.call(), lib)}

    got, want = run_both(program)
    assert_same(got, want, "alias and function", tolerances=info.tolerances)


@pytest.mark.parametrize("info", _ids(op for op in OP_DB if op.inplace))
@EXAMPLES
@given(data=st.data())
def test_inplace_variant(info, data):
    """On a non-leaf copy of the input, broadcast to the result's shape (an in-place op cannot
    grow its tensor): returns the tensor itself, bumps its version, records PyTorch's Node, and the
    gradient reaching the leaves is PyTorch's."""
    skip_unless_applies(info, "inplace", pytest.skip)
    sample = draw_sample(data, info)

    def program(lib):
        bound = bind(lib, info, sample, "float32")
        input, args, kwargs = bound.arguments()
        target = input.broadcast_to(bound.call().shape).clone()
        version = target._version
        result = getattr(target, info.inplace)(*args, **kwargs)
        loss = weighted_loss(differentiable_outputs(result, lib), lib)
        if loss is not None:
            loss.backward()
        return {"is_self": result is target, "bumped": target._version > version, "out": target,
                "grad_fn": grad_fn_name(target), "grads": [leaf.grad for leaf in bound.leaves]}

    got, want = run_both(program)
    assert got["is_self"] and got["bumped"], "an in-place op returns its input and bumps its version"
    assert_same(got, want, "in place", tolerances=info.tolerances)


@pytest.mark.parametrize("info", _ids(op for op in OP_DB if op.supports_out))
@EXAMPLES
@given(data=st.data())
def test_out_variant(info, data):
    """``out=`` of size 0 is resized and written; the call returns it."""
    skip_unless_applies(info, "out", pytest.skip)
    sample = draw_sample(data, info)

    def program(lib):
        bound = bind(lib, info, sample, "float32", requires_grad=False)
        expected = bound.call()
        out = lib.empty(0, dtype=expected.dtype)
        result = bound.call(out=out)
        return {"is_out": result is out, "out": out, "expected": expected}

    got, want = run_both(program)
    assert got["is_out"], "out= returns the out tensor"
    assert_same(got, want, "out=", tolerances=info.tolerances)


OTHER_DTYPE_CASES = [pytest.param(info, dtype, id=f"{info.id}-{dtype}") for info in OP_DB for dtype in info.other_dtypes]


@pytest.mark.parametrize(("info", "dtype"), OTHER_DTYPE_CASES)
@EXAMPLES
@given(data=st.data())
def test_integer_and_bool_inputs(info, dtype, data):
    """PyTorch's type promotion (``exp`` of an int64 tensor is float32) or PyTorch's error."""
    sample = draw_sample(data, info)

    def program(lib):
        return tensors_in(bind(lib, info, sample, dtype, requires_grad=False).call(), lib)

    (got_kind, got), (want_kind, want) = run(program, glasstorch), run(program, torch)
    if want_kind == "error":
        assert got_kind == "error", f"PyTorch raises {type(want).__name__}: {want}; glasstorch returned {got}"
        assert type(got).__name__ == type(want).__name__, f"{type(got).__name__}: {got} (PyTorch: {want})"
    else:
        assert got_kind == "ok", f"glasstorch raised {type(got).__name__}: {got}"
        assert_same(got, want, dtype)


ERROR_CASES = [pytest.param(info, i, id=f"{info.id}-{i}") for info in OP_DB for i in range(len(info.error_inputs()))]


@pytest.mark.parametrize(("info", "index"), ERROR_CASES)
def test_error_inputs(info, index):
    error_input = info.error_inputs()[index]

    def program(lib):
        return bind(lib, info, error_input.sample, "float32", requires_grad=False).call()

    for lib in (torch, glasstorch):
        kind, error = run(program, lib)
        assert kind == "error", f"{lib.__name__} accepted it and returned {error}"
        assert isinstance(error, error_input.error), f"{lib.__name__} raised {type(error).__name__}: {error}"
        assert torch_name(error_input.match) in torch_name(str(error)), f"{lib.__name__}'s message: {error}"
