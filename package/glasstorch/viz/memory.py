"""Draw a tensor's memory: ``draw_storage(x, x.t(), names=["x", "x.t()"])``.

A tensor is a window over a storage (``c10/core/TensorImpl.h``: sizes, strides and a storage
offset over a ``c10::Storage``). The picture draws the storage as one row of numbered cells with
their values, and under it one row per tensor: the cells that tensor reads are filled with its
colour, and each says *which* element of the tensor reads it (its index ``i,j``, or with
``label="order"`` its place in the tensor's row-by-row reading order: 0, 1, 2, ...). A cell that
several elements read (a dim of stride 0, from ``expand``) lists them all; a cell no one reads
stays empty. The row's heading gives the window: size, stride and storage offset.

Element ``[i, j, ...]`` of a tensor lives in cell ``storage_offset + i*stride[0] + j*stride[1] + ...``:
that sum is the whole picture. It reads only ``shape``, ``stride()``, ``storage_offset()``,
``untyped_storage()`` and ``as_strided``, so it draws real PyTorch tensors too.

The picture is one Graphviz box holding an HTML-like table (a ``GraphPicture``, as every glasstorch
picture): Jupyter shows it, nbval compares its DOT text, which is the same on every machine.
"""
from __future__ import annotations

import itertools
from html import escape
from typing import Any, Sequence

import graphviz

from . import style
from .picture import GraphPicture

# The colours of the tensors' rows, in order (the palette's kinds: the first tensor blue, ...).
ROW_KINDS = ("leaf", "tensor", "output", "saved", "node")
LABELS = ("index", "order")
MAX_LINES = 4  # at most this many readers listed in one cell; then "+N"
EMPTY_BORDER = "#d0d0d0"
CELL_WIDTH = "26"


def cells_read(tensor: Any) -> list[int]:
    """The storage cell of each element of ``tensor``, in row-by-row order:
    ``storage_offset + sum(index[d] * stride[d])``."""
    strides, offset = tensor.stride(), tensor.storage_offset()
    return [offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*(range(n) for n in tensor.shape))]


def draw_storage(*tensors: Any, names: Sequence[str] | None = None, label: str = "index",
                 show_values: bool = True, title: str | None = None) -> GraphPicture:
    """Draw the storage the ``tensors`` share, and which cells each of them reads.

    >>> x = torch.arange(6.).view(2, 3)
    >>> draw_storage(x, x.t(), names=["x", "x.t()"])

    names        what to call each tensor ("x", "x.t()"); by default "tensor 0", "tensor 1", ...
    label        "index": a read cell shows the element's index (``1,2``); "order": its place in
                 the tensor's row-by-row order (what ``flatten()`` or ``view(-1)`` would read).
    show_values  the row of values under the cell numbers (the storage's elements).
    title        a line of text above the picture.
    """
    if not tensors:
        raise TypeError("draw_storage needs at least one tensor")
    if label not in LABELS:
        raise ValueError(f"label must be one of {', '.join(map(repr, LABELS))}, got {label!r}")
    names = [f"tensor {i}" for i in range(len(tensors))] if names is None else [str(n) for n in names]
    if len(names) != len(tensors):
        raise ValueError(f"got {len(tensors)} tensors but {len(names)} names")
    first = tensors[0]
    storage = first.untyped_storage()
    itemsize = first.element_size()
    for name, tensor in zip(names, tensors):
        if tensor.untyped_storage().data_ptr() != storage.data_ptr():
            raise ValueError(f"{name} does not share the storage of {names[0]}: draw tensors that share memory "
                             "(a tensor and its views)")
        if tensor.element_size() != itemsize:
            raise ValueError(f"{name} has elements of {tensor.element_size()} bytes, {names[0]} of {itemsize}: "
                             "draw tensors of one element size")
    count = storage.nbytes() // itemsize
    values = first.detach().as_strided((count,), (1,), 0).tolist() if show_values else None

    rows = [_heading(f"storage · {count} cells of {_dtype_name(first)}", count),
            "<TR>" + "".join(_cell(str(i), small=True) for i in range(count)) + "</TR>"]
    if values is not None:
        rows.append("<TR>" + "".join(_cell(_number(v), border=style.LEGEND_BORDER) for v in values) + "</TR>")
    for position, (name, tensor) in enumerate(zip(names, tensors)):
        kind = style.KINDS[ROW_KINDS[position % len(ROW_KINDS)]]
        rows.append(_heading(_window(name, tensor), count))
        readers = _readers(tensor, count, label)
        rows.append("<TR>" + "".join(
            _cell(_lines(readers[i]), fill=kind["fillcolor"], border=kind["color"]) if readers[i]
            else _cell("", border=EMPTY_BORDER) for i in range(count)) + "</TR>")
    table = ('<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="2" CELLPADDING="3">' + "".join(rows) + "</TABLE>")

    dot = graphviz.Digraph("storage")
    dot.attr("graph", **style.GRAPH_ATTRS)
    dot.attr("node", **style.NODE_ATTRS)
    if title:
        dot.attr("graph", **style.graph_label(title))
    dot.node("storage", f"<{table}>", shape="plain")
    views = len(tensors) - 1
    summary = f"storage of {count} cells, {len(tensors)} tensor{'s' if len(tensors) != 1 else ''}"
    return GraphPicture(dot, summary + (f" ({views} sharing it)" if views else ""))


def _readers(tensor: Any, count: int, label: str) -> list[list[str]]:
    """For each storage cell, the texts of the tensor's elements that read it."""
    readers: list[list[str]] = [[] for _ in range(count)]
    indices = itertools.product(*(range(n) for n in tensor.shape))
    for order, (index, cell) in enumerate(zip(indices, cells_read(tensor))):
        if not 0 <= cell < count:  # as_strided refuses such a window; a tensor cannot have one
            raise ValueError(f"element {index} would read cell {cell}, outside the storage of {count} cells")
        readers[cell].append(str(order) if label == "order" else ",".join(map(str, index)) or "()")
    return readers


def _window(name: str, tensor: Any) -> str:
    return (f"{name} · size {list(tensor.shape)} · stride {list(tensor.stride())} · "
            f"offset {tensor.storage_offset()}")


def _lines(texts: list[str]) -> str:
    shown = texts if len(texts) <= MAX_LINES else texts[:MAX_LINES - 1] + [f"+{len(texts) - MAX_LINES + 1}"]
    return "<BR/>".join(escape(text) for text in shown)


def _heading(text: str, count: int) -> str:
    return (f'<TR><TD COLSPAN="{count}" BORDER="0" ALIGN="LEFT">'
            f'<FONT POINT-SIZE="{style.SMALL_FONT_SIZE}" COLOR="{style.EDGE}">{escape(text)}</FONT></TD></TR>')


def _cell(text: str, *, small: bool = False, fill: str | None = None, border: str | None = None) -> str:
    attrs = f' WIDTH="{CELL_WIDTH}"'
    if small:
        attrs += ' BORDER="0"'
        text = f'<FONT POINT-SIZE="{style.SMALL_FONT_SIZE}" COLOR="{style.EDGE}">{text}</FONT>'
    if fill:
        attrs += f' BGCOLOR="{fill}"'
    if border:
        attrs += f' COLOR="{border}"'
    return f"<TD{attrs}>{text}</TD>"


def _number(value: Any) -> str:
    """3.0 -> "3", 0.5 -> "0.5", True -> "True": short, as a cell is narrow."""
    if isinstance(value, float):
        return f"{value:g}"
    return escape(str(value))


def _dtype_name(tensor: Any) -> str:
    """'float32' for glasstorch.float32 and torch.float32 alike."""
    return str(tensor.dtype).rsplit(".", 1)[-1]
