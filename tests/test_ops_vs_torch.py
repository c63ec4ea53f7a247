"""Every op of the op table (tests/op_db) against real PyTorch 2.13: the same sample in both
libraries, then values, dtypes, shapes, ``requires_grad``, ``grad_fn`` names and gradients compared.

The gradient compared is that of a weighted sum of the outputs (fixed weights), so every element's
gradient counts. Where glasstorch records another Node on purpose, the entry says which
(``grad_fn_difference``) and the test asserts both names, so a change on either side is noticed.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: comparisons with real PyTorch are skipped "
                                            "(pip install torch==2.13.0)")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from op_db import EXAMPLES, OP_DB  # noqa: E402
import glasstorch  # noqa: E402
from op_db.running import (bind, differentiable_outputs, draw_sample, skip_unless_applies,  # noqa: E402
                           tensors_in, weighted_loss)
from pytorch_oracle import (assert_same, assert_same_saved, grad_fn_name, graph_names, pytorch_saved_state,  # noqa: E402
                            run_both)

pytestmark = pytest.mark.torch

CASES = [pytest.param(info, dtype, id=f"{info.id}-{dtype}") for info in OP_DB for dtype in info.dtypes]


def _forward_and_backward(info, sample, dtype):
    def program(lib):
        bound = bind(lib, info, sample, dtype, requires_grad=info.supports_grad)
        result = bound.call()
        outputs = tensors_in(result, lib)
        loss = weighted_loss(differentiable_outputs(result, lib), lib)
        if loss is not None:
            loss.backward()
        return {"out": outputs, "grad_fn": [grad_fn_name(t) for t in outputs],
                "grads": [leaf.grad for leaf in bound.leaves]}

    return program


@pytest.mark.parametrize(("info", "dtype"), CASES)
@EXAMPLES
@given(data=st.data())
def test_same_values_and_gradients_as_pytorch(info, dtype, data):
    skip_unless_applies(info, "vs_torch", pytest.skip)
    got, want = run_both(_forward_and_backward(info, draw_sample(data, info), dtype))
    assert_same(got["out"], want["out"], "output", tolerances=info.tolerances)
    assert_same(got["grads"], want["grads"], "gradients", tolerances=info.tolerances)
    if info.grad_fn_difference:
        glasstorch_name, pytorch_name = info.grad_fn_difference
        assert want["grad_fn"][0] == pytorch_name, "PyTorch's Node changed: update the entry's grad_fn_difference"
        assert got["grad_fn"][0] == glasstorch_name
    else:
        assert got["grad_fn"] == want["grad_fn"], "grad_fn names"


GRAPH_CASES = [pytest.param(info, id=info.id) for info in OP_DB if info.supports_grad and not info.grad_fn_difference]


@pytest.mark.parametrize("info", GRAPH_CASES)
@EXAMPLES
@given(data=st.data())
def test_same_graph_as_pytorch(info, data):
    """Every Node below each output, six levels down, in order: an op composed of others must be
    composed as PyTorch composes it (the differences are listed, with their reasons, in
    op_db/graph_differences.py)."""
    skip_unless_applies(info, "graph", pytest.skip)
    sample = draw_sample(data, info)

    def program(lib):
        outputs = tensors_in(bind(lib, info, sample, "float64").call(), lib)
        return [graph_names(t.grad_fn) for t in outputs]

    got, want = run_both(program)
    assert got == want


@pytest.mark.parametrize("info", [pytest.param(info, id=info.id) for info in OP_DB
                                  if info.supports_grad and not info.grad_fn_difference])
@EXAMPLES
@given(data=st.data())
def test_saved_state_as_pytorch(info, data):
    """What each output's Node saved for backward, as PyTorch shows it (``grad_fn._saved_self``,
    ``_saved_dim`` ...): every name PyTorch's Node has, glasstorch's has too, with the same value.
    tests/test_saved_names.py says how PyTorch's encodings are read; a dim may be counted from
    the front (glasstorch) or the back (PyTorch keeps the caller's -1)."""
    skip_unless_applies(info, "saved", pytest.skip)
    sample = draw_sample(data, info)
    nodes, ranks = {}, set()
    for lib in (torch, glasstorch):
        bound = bind(lib, info, sample, "float64")
        outputs = tensors_in(bound.call(), lib)
        nodes[lib] = [t.grad_fn for t in outputs]
        ranks |= {t.dim() for t in tensors_in([bound.input, *bound.args], lib) + outputs}
    ranks |= {r + 1 for r in ranks}
    for i, (want, got) in enumerate(zip(nodes[torch], nodes[glasstorch])):
        if want is None or got is None:
            continue  # (which outputs have a Node: test_same_values_and_gradients_as_pytorch)
        for name, value in pytorch_saved_state(want).items():
            assert hasattr(got, name), f"output {i}: {got.name()} has no {name}"
            assert_same_saved(getattr(got, name), value, f"output {i}: {got.name()}.{name}", tuple(ranks))
