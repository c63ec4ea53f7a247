"""Shapes on the arrows: how each gradient gets the shape of the tensor it belongs to.

Two pictures for the backward chapter, drawn like ``draw_graph`` (arrows follow the gradient, from
the output down to the leaves; the palette of ``viz/style.py``), with what travels on each arrow
written beside it:

* ``draw_broadcast_gradient((3, 1), (3, 4))``: ``a + b`` where ``a`` was broadcast. The gradient
  arrives with the output's shape; the arrow to ``a`` sums it back to ``a``'s shape
  (``sum_to_size``, which PyTorch's engine does in ``InputMetadata::reduce_grad``), and shows the
  numbers, so that a 4 reads as the sum of four 1s.
* ``draw_matmul_gradient(2, 3, 4)``: ``A @ B`` with ``A`` m×n and ``B`` n×p. The vector-Jacobian
  products of ``MmBackward0`` (``tools/autograd/derivatives.yaml``: ``mm_mat1_backward``,
  ``mm_mat2_backward``), ``grad_A = grad_out @ Bᵀ`` and ``grad_B = Aᵀ @ grad_out``, with their
  shapes multiplied out on the arrows.

Both run the operation and its backward in glasstorch and draw what came out (the Node's name, the
gradients' shapes and values), so the picture cannot disagree with the engine. Both return a
``GraphPicture``; box ids are fixed names, so the DOT text is the same on every run.
"""
from __future__ import annotations

from html import escape
from typing import Sequence

import graphviz
import numpy as np

from .. import _creation  # zeros, ones_like, as_tensor: the tensors a user would make
from . import style
from .picture import GraphPicture

GRID_LIMIT = 6  # a tensor is drawn as a grid of cells when it is 1-d or 2-d and no side is longer
TIMES = "×"


def draw_broadcast_gradient(input_shape: Sequence[int] = (3, 1), other_shape: Sequence[int] = (3, 4),
                            grad_output=None) -> GraphPicture:
    """Draw ``out = a + b`` with ``a`` of ``input_shape`` and ``b`` of ``other_shape``, and the
    gradients backward sends to each: the output's gradient, summed over every dimension along
    which an input was broadcast (``grad.sum_to_size(input.shape)``).

    grad_output  the gradient arriving at ``out`` (a tensor, array or nested list of the output's
                 shape); by default ones, the gradient of ``out.sum()``.
    """
    a = _creation.zeros(*_sizes(input_shape, "input_shape"), requires_grad=True)
    b = _creation.zeros(*_sizes(other_shape, "other_shape"), requires_grad=True)
    out = a + b  # PyTorch's broadcasting error for shapes that do not fit
    grad_out = _creation.ones_like(out) if grad_output is None else _creation.as_tensor(grad_output, dtype=out.dtype)
    if tuple(grad_out.shape) != tuple(out.shape):
        raise ValueError(f"grad_output must have the output's shape {tuple(out.shape)}, got {tuple(grad_out.shape)}")
    out.backward(grad_out)

    dot = _digraph("broadcast_gradient")
    _tensor_box(dot, "out", "out = a + b", tuple(out.shape), "output")
    _box(dot, "op", _html(escape(out.grad_fn.name())), "node")
    _tensor_box(dot, "a", "a", tuple(a.shape), "leaf")
    _tensor_box(dot, "b", "b", tuple(b.shape), "leaf")
    dot.edge("out", "op", label=_arrow_label(["grad_out " + _shape(out.shape)], grad_out._data))
    for name, leaf in (("a", a), ("b", b)):
        dot.edge("op", name, label=_arrow_label(_reduction_lines(tuple(out.shape), tuple(leaf.shape)),
                                                  leaf.grad._data))
    dot.attr(**style.graph_label(title="broadcasting in forward, a sum in backward",
                                 legend=[("output", "output"), ("node", "Node (grad_fn)"), ("leaf", "leaf")],
                                 caption="arrows: gradient flow, labelled with what they carry"))
    summary = f"the gradient of {_shape(a.shape)} + {_shape(b.shape)}"
    return GraphPicture(dot, summary)


def draw_matmul_gradient(m: int = 2, n: int = 3, p: int = 4) -> GraphPicture:
    """Draw ``out = A @ B`` with ``A`` of shape (m, n) and ``B`` of shape (n, p), and the two
    vector-Jacobian products its backward computes, with their shapes on the arrows:
    ``grad_A = grad_out @ Bᵀ`` (m×n = m×p · p×n) and ``grad_B = Aᵀ @ grad_out`` (n×p = n×m · m×p)."""
    m, n, p = _sizes((m, n, p), "m, n, p")
    A = _creation.zeros(m, n, requires_grad=True)
    B = _creation.zeros(n, p, requires_grad=True)
    out = A @ B
    out.backward(_creation.ones_like(out))
    sizes = {"m": m, "n": n, "p": p}

    def written(letters: str) -> str:  # "mn" -> "2×3"
        return TIMES.join(str(sizes[letter]) for letter in letters)

    def product(result: str, left: str, right: str) -> list[str]:
        """'m×n = m×p · p×n', then the same in numbers."""
        return [f"{_x(result)} = {_x(left)} · {_x(right)}",
                f"{written(result)} = {written(left)} · {written(right)}"]

    dot = _digraph("matmul_gradient")
    _tensor_box(dot, "out", "out = A @ B", tuple(out.shape), "output")
    _box(dot, "op", _html(escape(out.grad_fn.name())), "node")
    _tensor_box(dot, "A", "A", tuple(A.shape), "leaf")
    _tensor_box(dot, "B", "B", tuple(B.shape), "leaf")
    dot.edge("out", "op", label=_arrow_label([f"grad_out  {_x('mp')} = {written('mp')}"]))
    dot.edge("op", "A", label=_arrow_label(["grad_A = grad_out @ Bᵀ"] + product("mn", "mp", "pn")
                                             + [f"shape of A.grad: {_shape(A.grad.shape)}"]))
    dot.edge("op", "B", label=_arrow_label(["grad_B = Aᵀ @ grad_out"] + product("np", "nm", "mp")
                                             + [f"shape of B.grad: {_shape(B.grad.shape)}"]))
    dot.attr(**style.graph_label(title="a matrix product's vector-Jacobian products",
                                 legend=[("output", "output"), ("node", "Node (grad_fn)"), ("leaf", "leaf")],
                                 caption="arrows: gradient flow, labelled with their shapes"))
    return GraphPicture(dot, f"the gradients of ({m}, {n}) @ ({n}, {p})")


# --- the pieces ---------------------------------------------------------------------------------

def _sizes(shape: Sequence[int], what: str) -> tuple[int, ...]:
    sizes = tuple(shape)
    if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s > 0 for s in sizes):
        raise ValueError(f"{what} must be positive integers, got {sizes}")
    return tuple(int(s) for s in sizes)


def _reduction_lines(out_shape: tuple[int, ...], shape: tuple[int, ...]) -> list[str]:
    """What the engine does to the output's gradient before it reaches a tensor of ``shape``."""
    lead = len(out_shape) - len(shape)
    dropped = list(range(lead))  # dimensions the input did not have: summed away
    kept = [lead + i for i, size in enumerate(shape) if size == 1 and out_shape[lead + i] != 1]  # keepdim
    if not dropped and not kept:
        return [f"as it is, {_shape(shape)}"]
    lines = [f"sum_to_size{_shape(shape)}"]
    if dropped:
        lines.append(f"sum over dim {_dims(dropped)} (gone)")
    if kept:
        lines.append(f"sum over dim {_dims(kept)} (kept as 1)")
    lines.append(f"{_shape(out_shape)} → {_shape(shape)}")
    return lines


def _dims(dims: list[int]) -> str:
    return ", ".join(map(str, dims))


def _shape(shape: Sequence[int]) -> str:
    return str(tuple(int(s) for s in shape))


def _x(letters: str) -> str:
    return TIMES.join(letters)


def _digraph(name: str) -> graphviz.Digraph:
    return graphviz.Digraph(name, graph_attr=dict(style.GRAPH_ATTRS, rankdir="TB"),
                            node_attr=style.NODE_ATTRS, edge_attr=dict(style.EDGE_ATTRS, fontname=style.FONT,
                                                                       fontsize=style.SMALL_FONT_SIZE,
                                                                       fontcolor=style.TEXT))


def _box(dot: graphviz.Digraph, box_id: str, label: str, kind: str) -> None:
    dot.node(box_id, label, **style.node_style(kind))


def _html(inner: str) -> str:
    return f"<{inner}>"


def _tensor_box(dot: graphviz.Digraph, box_id: str, title: str, shape: tuple[int, ...], kind: str) -> None:
    """A tensor: its name and shape, and a grid with one cell per element when it is small."""
    rows = [f"<TR><TD>{escape(title)}  {escape(_shape(shape))}</TD></TR>"]
    grid = _grid(shape)
    if grid:
        rows.append(f"<TR>{grid}</TR>")
    _box(dot, box_id, _html(f'<TABLE BORDER="0" CELLSPACING="2" CELLPADDING="0">{"".join(rows)}</TABLE>'), kind)


def _grid(shape: tuple[int, ...], values: np.ndarray | None = None) -> str:
    """A table cell holding the tensor's grid of cells (empty, or with ``values``), or "" when the
    tensor is not 1-d or 2-d or is too long to draw. The cell has a fixed size, so that a (3, 1)
    column stays a narrow column under a wider title."""
    if len(shape) not in (1, 2) or max(shape) > GRID_LIMIT:
        return ""
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    table = np.zeros((rows, cols)) if values is None else np.asarray(values, dtype=float).reshape(rows, cols)
    texts = [["" if values is None else _number(v) for v in row] for row in table]
    width = max([10] + [7 * len(text) + 8 for row in texts for text in row])
    height = 10 if values is None else 16
    cell = f'<TD WIDTH="{width}" HEIGHT="{height}" FIXEDSIZE="TRUE">'
    cells = "".join("<TR>" + "".join(f"{cell}{text}</TD>" for text in row) + "</TR>" for row in texts)
    grid = f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="0" COLOR="{style.EDGE}">{cells}</TABLE>'
    return (f'<TD FIXEDSIZE="TRUE" WIDTH="{cols * width + 4}" HEIGHT="{rows * height + 4}" CELLPADDING="0">'
            f"{grid}</TD>")


def _number(value: float) -> str:
    return f"{value:g}"


def _arrow_label(lines: list[str], values: np.ndarray | None = None) -> str:
    """An arrow's label: lines of text, then the numbers it carries as a grid (when small)."""
    rows = [f'<TR><TD ALIGN="LEFT">{escape(line)}</TD></TR>' for line in lines]
    if values is not None:
        grid = _grid(tuple(values.shape), values)
        if grid:
            rows.append(f"<TR>{grid}</TR>")
    # on a light card of its own: an arrow's label sits on the page, which may be dark
    return _html(f'<TABLE BORDER="1" STYLE="rounded" COLOR="{style.LEGEND_BORDER}" BGCOLOR="{style.LEGEND_FILL}" CELLBORDER="0" '
                 f'CELLSPACING="1" CELLPADDING="1">{"".join(rows)}</TABLE>')
