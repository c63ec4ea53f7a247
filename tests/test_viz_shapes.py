"""Tests of glasstorch.viz.shapes: the gradient's shape written on each arrow (chapter 05's pictures).

Checked on the DOT text, which needs no Graphviz program: which boxes and arrows there are, what
each arrow says (the reduction, the shapes multiplied out), and the numbers it carries, against
glasstorch's own ``sum_to_size`` and, where PyTorch is installed, against PyTorch's gradients.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import glasstorch
from glasstorch.viz import GraphPicture, draw_broadcast_gradient, draw_matmul_gradient

EDGE = re.compile(r"^\s*(\w+) -> (\w+) \[label=<(.*)>\]$", re.MULTILINE)
BOX = re.compile(r"^\s*(\w+) \[label=<(.*)>(.*)\]$", re.MULTILINE)
NUMBER_CELL = re.compile(r'FIXEDSIZE="TRUE">([^<]*)</TD>')
TEXT_CELL = re.compile(r'<TD ALIGN="LEFT">([^<]*)</TD>')


def arrows(picture: GraphPicture) -> dict[tuple[str, str], str]:
    return {(tail, head): label for tail, head, label in EDGE.findall(picture.source)}


def boxes(picture: GraphPicture) -> dict[str, str]:
    return {name: label for name, label, _ in BOX.findall(picture.source)}


def lines_of(label: str) -> list[str]:
    return TEXT_CELL.findall(label)


def numbers_of(label: str) -> list[float]:
    return [float(text) for text in NUMBER_CELL.findall(label) if text]


# --- broadcasting --------------------------------------------------------------------------------

def test_the_chapters_picture_sums_the_broadcast_axis():
    picture = draw_broadcast_gradient((3, 1), (3, 4))
    assert isinstance(picture, GraphPicture)
    assert repr(picture) == "<GraphPicture: the gradient of (3, 1) + (3, 4)>"
    assert set(arrows(picture)) == {("out", "op"), ("op", "a"), ("op", "b")}, "arrows follow the gradient"
    assert "AddBackward0" in boxes(picture)["op"]
    edges = arrows(picture)
    assert lines_of(edges["out", "op"]) == ["grad_out (3, 4)"]
    assert numbers_of(edges["out", "op"]) == [1.0] * 12, "by default the gradient of out.sum(): ones"
    assert lines_of(edges["op", "a"]) == ["sum_to_size(3, 1)", "sum over dim 1 (kept as 1)", "(3, 4) → (3, 1)"]
    assert numbers_of(edges["op", "a"]) == [4.0, 4.0, 4.0], "each 4 is a row of four 1s, summed"
    assert lines_of(edges["op", "b"]) == ["as it is, (3, 4)"]
    assert numbers_of(edges["op", "b"]) == [1.0] * 12


def test_the_dot_text_is_the_same_on_every_call():
    assert draw_broadcast_gradient().source == draw_broadcast_gradient().source
    assert draw_matmul_gradient().source == draw_matmul_gradient().source


SHAPES = [((3, 1), (3, 4)), ((3, 4), (3, 1)), ((4,), (3, 4)), ((1, 4), (3, 1)), ((2,), (2,)), ((), (2, 3)),
          ((4,), (2, 3, 4)), ((1,), (5,))]


@pytest.mark.parametrize("input_shape, other_shape", SHAPES)
def test_each_arrow_carries_the_output_gradient_summed_to_its_tensors_shape(input_shape, other_shape):
    out_shape = np.broadcast_shapes(input_shape, other_shape)
    grad_out = np.arange(1, int(np.prod(out_shape)) + 1, dtype=np.float32).reshape(out_shape)
    picture = draw_broadcast_gradient(input_shape, other_shape, grad_output=grad_out.tolist())
    edges = arrows(picture)
    for name, shape in (("a", input_shape), ("b", other_shape)):
        expected = glasstorch.tensor(grad_out).sum_to_size(*shape) if shape else glasstorch.tensor(grad_out.sum())
        label = edges["op", name]
        if len(shape) in (1, 2):
            assert numbers_of(label) == expected.reshape(-1).tolist(), f"the numbers on the arrow to {name}"
        lead = len(out_shape) - len(shape)
        gone = list(range(lead))
        kept = [lead + i for i, size in enumerate(shape) if size == 1 and out_shape[lead + i] != 1]
        text = lines_of(label)
        if not gone and not kept:
            assert text == [f"as it is, {tuple(shape)}"]
        else:
            assert text[0] == f"sum_to_size{tuple(shape)}"
            assert (f"sum over dim {', '.join(map(str, gone))} (gone)" in text) == bool(gone), text
            assert (f"sum over dim {', '.join(map(str, kept))} (kept as 1)" in text) == bool(kept), text
            assert text[-1] == f"{tuple(out_shape)} → {tuple(shape)}"


@pytest.mark.parametrize("input_shape, other_shape", [((3, 1), (3, 4)), ((4,), (3, 4)), ((1, 4), (3, 1))])
def test_the_numbers_are_pytorchs_gradients(input_shape, other_shape):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with its "
                                "gradients is skipped (pip install torch==2.13.0)")
    out_shape = np.broadcast_shapes(input_shape, other_shape)
    grad_out = np.arange(int(np.prod(out_shape)), dtype=np.float32).reshape(out_shape) - 3
    a = torch.zeros(input_shape, requires_grad=True)
    b = torch.zeros(other_shape, requires_grad=True)
    (a + b).backward(torch.tensor(grad_out))
    edges = arrows(draw_broadcast_gradient(input_shape, other_shape, grad_output=grad_out))
    assert numbers_of(edges["op", "a"]) == a.grad.reshape(-1).tolist()
    assert numbers_of(edges["op", "b"]) == b.grad.reshape(-1).tolist()


def test_small_tensors_are_grids_and_large_ones_only_their_shape():
    small = boxes(draw_broadcast_gradient((3, 1), (3, 4)))
    assert small["a"].count('FIXEDSIZE="TRUE">') == 3, "a (3, 1) box: a grid of three cells"
    assert small["b"].count('FIXEDSIZE="TRUE">') == 12
    large = draw_broadcast_gradient((7, 1), (7, 8))
    assert "FIXEDSIZE" not in boxes(large)["b"] and "(7, 8)" in boxes(large)["b"]
    assert numbers_of(arrows(large)["op", "a"]) == [], "a 7-long column is too long to draw"
    assert lines_of(arrows(large)["op", "a"])[0] == "sum_to_size(7, 1)"


def test_bad_shapes_and_gradients_are_clear_errors():
    with pytest.raises(RuntimeError, match="must match the size"):
        draw_broadcast_gradient((3, 2), (3, 4))
    with pytest.raises(ValueError, match="positive integers"):
        draw_broadcast_gradient((3, 0), (3, 4))
    with pytest.raises(ValueError, match=r"output's shape \(3, 4\)"):
        draw_broadcast_gradient((3, 1), (3, 4), grad_output=[1.0, 2.0])
    with pytest.raises(ValueError, match="positive integers"):
        draw_matmul_gradient(2, -3, 4)
    with pytest.raises(ValueError, match="positive integers"):
        draw_matmul_gradient(2, 3.5, 4)


# --- the matrix product --------------------------------------------------------------------------

def test_the_matmul_picture_writes_the_shapes_on_the_arrows():
    picture = draw_matmul_gradient(2, 3, 4)
    assert repr(picture) == "<GraphPicture: the gradients of (2, 3) @ (3, 4)>"
    assert "MmBackward0" in boxes(picture)["op"]
    assert "A  (2, 3)" in boxes(picture)["A"] and "B  (3, 4)" in boxes(picture)["B"]
    assert "out = A @ B  (2, 4)" in boxes(picture)["out"]
    edges = arrows(picture)
    assert lines_of(edges["out", "op"]) == ["grad_out  m×p = 2×4"]
    assert lines_of(edges["op", "A"]) == ["grad_A = grad_out @ Bᵀ", "m×n = m×p · p×n", "2×3 = 2×4 · 4×3",
                                          "shape of A.grad: (2, 3)"]
    assert lines_of(edges["op", "B"]) == ["grad_B = Aᵀ @ grad_out", "n×p = n×m · m×p", "3×4 = 3×2 · 2×4",
                                          "shape of B.grad: (3, 4)"]


@pytest.mark.parametrize("m, n, p", [(1, 1, 1), (5, 2, 3), (2, 7, 1)])
def test_the_matmul_shapes_follow_the_sizes(m, n, p):
    edges = arrows(draw_matmul_gradient(m, n, p))
    assert f"{m}×{n} = {m}×{p} · {p}×{n}" in lines_of(edges["op", "A"])
    assert f"{n}×{p} = {n}×{m} · {m}×{p}" in lines_of(edges["op", "B"])
    assert f"shape of A.grad: {(m, n)}" in lines_of(edges["op", "A"])
    assert f"shape of B.grad: {(n, p)}" in lines_of(edges["op", "B"])


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's `dot` program is not installed "
                    "(apt-get install graphviz): rendering is not tested")
def test_both_pictures_render():
    for picture in (draw_broadcast_gradient(), draw_broadcast_gradient((4,), (2, 3, 4)), draw_matmul_gradient()):
        assert picture.svg().lstrip().startswith("<?xml") and "<svg" in picture.svg()
