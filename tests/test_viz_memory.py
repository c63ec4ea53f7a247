"""Tests of ``glasstorch.viz.draw_storage``: the storage drawn as a row of cells, and under it, for
each tensor, which cells it reads and which of its elements reads each one.

The checks read the picture's DOT text back (no Graphviz program needed) and judge it with the
*values*: the storage holds 0, 1, 2, ... so the element that a cell says reads it must hold that
cell's number. A picture that put an element in the wrong cell, dropped one, or forgot the
storage offset or a stride fails here, whatever the drawing code computed.
"""
from __future__ import annotations

import html
import re
import shutil

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.viz import GraphPicture, draw_storage
from glasstorch.viz.memory import MAX_LINES, cells_read

HAS_DOT = shutil.which("dot") is not None
TAG = re.compile(r"<[^>]+>")


def table_rows(picture: GraphPicture) -> list[list[str]]:
    """The table's rows, each a list of cell texts (tags removed, <BR/> read as newlines)."""
    source = picture.source
    rows = []
    for row in re.findall(r"<TR>(.*?)</TR>", source):
        cells = re.findall(r"<TD[^>]*>(.*?)</TD>", row)
        rows.append([html.unescape(TAG.sub("", cell.replace("<BR/>", "\n"))) for cell in cells])
    return rows


def sections(picture: GraphPicture) -> dict[str, list[list[str]]]:
    """{heading: the rows under it}. A heading is a row of one cell ("x · size [..] ...")."""
    found: dict[str, list[list[str]]] = {}
    heading = None
    for row in table_rows(picture):
        if len(row) == 1 and " · " in row[0]:
            heading = row[0]
            found[heading] = []
        else:
            found[heading].append(row)
    return found


def readers(picture: GraphPicture, name: str) -> list[list[str]]:
    """For each storage cell, the labels of ``name``'s elements that read it."""
    [heading] = [h for h in sections(picture) if h.startswith(f"{name} · ")]
    [cells] = sections(picture)[heading]
    return [cell.split("\n") if cell else [] for cell in cells]


def element(tensor, label: str):
    index = tuple(int(i) for i in label.split(",")) if label != "()" else ()
    return tensor[index].item()


VIEWS = {  # name -> a tensor sharing the storage of arange(24.) seen as (2, 3, 4)
    "x": lambda x: x,
    "x.t() of a matrix": lambda x: x[1].view(3, 4).t(),
    "x[1]": lambda x: x[1],
    "x[:, 1]": lambda x: x[:, 1],
    "x[..., ::2]": lambda x: x[..., ::2],
    "permute": lambda x: x.permute(2, 0, 1),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "diagonal": lambda x: x[0].diagonal(),
    "diagonal offset": lambda x: x[1].diagonal(1),
    "unfold": lambda x: x.view(-1)[3:].unfold(0, 4, 3),
    "expand": lambda x: x[0, :, :1].expand(3, 4),
    "as_strided overlapping": lambda x: x.as_strided((4, 3), (2, 1), 5),
    "a number": lambda x: x[1, 2, 3],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_each_cell_lists_exactly_the_elements_that_hold_it(name):
    base = gt.arange(24.0)  # cell k holds the value k
    x = base.view(2, 3, 4)
    view = VIEWS[name](x)
    picture = draw_storage(base, view, names=["base", "v"])
    cells = readers(picture, "v")
    assert len(cells) == 24
    listed = [(label, k) for k, labels in enumerate(cells) for label in labels]
    labels = [label for label, _ in listed]
    assert len(labels) == len(set(labels)) == view.numel(), "every element is listed, once"
    for label, k in listed:
        assert element(view, label) == k, f"{name}: cell {k} says element [{label}] reads it, which holds {element(view, label)}"


@pytest.mark.parametrize("name", ["x.t() of a matrix", "x[..., ::2]", "permute", "unfold", "as_strided overlapping"])
def test_order_labels_follow_the_row_by_row_reading_order(name):
    base = gt.arange(24.0)
    view = VIEWS[name](base.view(2, 3, 4))
    cells = readers(draw_storage(base, view, names=["base", "v"], label="order"), "v")
    flat = view.reshape(-1)  # the values in row-by-row order (a copy when it must)
    listed = {int(label): k for k, labels in enumerate(cells) for label in labels}
    assert sorted(listed) == list(range(view.numel()))
    assert all(flat[n].item() == k for n, k in listed.items())


def test_random_windows_by_as_strided():
    rng = np.random.default_rng(0)
    base = gt.arange(30.0)
    for _ in range(25):
        ndim = int(rng.integers(1, 4))
        size = tuple(int(n) for n in rng.integers(1, 4, size=ndim))
        stride = tuple(int(s) for s in rng.integers(0, 5, size=ndim))
        reach = sum((n - 1) * s for n, s in zip(size, stride))
        offset = int(rng.integers(0, 30 - reach))
        view = base.as_strided(size, stride, offset)
        cells = readers(draw_storage(base, view, names=["base", "v"]), "v")
        for k, labels in enumerate(cells):
            for label in labels:
                if not label.startswith("+"):
                    assert element(view, label) == k
        assert {k for k, labels in enumerate(cells) if labels} == set(view.reshape(-1).tolist())


def test_the_storage_row_shows_cell_numbers_and_values():
    x = gt.tensor([[0.5, -1.0], [2.0, 3.0]])
    rows = table_rows(draw_storage(x, names=["x"]))
    assert rows[0] == ["storage · 4 cells of float32"]
    assert rows[1] == ["0", "1", "2", "3"]
    assert rows[2] == ["0.5", "-1", "2", "3"]
    assert rows[3] == ["x · size [2, 2] · stride [2, 1] · offset 0"]
    assert [r[0] for r in table_rows(draw_storage(x, show_values=False))][:3] == ["storage · 4 cells of float32", "0", "tensor 0 · size [2, 2] · stride [2, 1] · offset 0"]


def test_a_cell_read_by_many_elements_lists_them_and_counts_the_rest():
    x = gt.tensor([7.0, 8.0])
    wide = x.expand(10, 2)  # every cell read by 10 elements: stride 0
    assert wide.stride() == (0, 1)
    cells = readers(draw_storage(x, wide, names=["x", "e"]), "e")
    assert cells[0] == ["0,0", "1,0", "2,0", f"+{10 - MAX_LINES + 1}"]
    assert cells[1][:2] == ["0,1", "1,1"]


def test_headings_give_the_window_of_each_tensor():
    base = gt.arange(12.0)
    view = base.view(3, 4).t()[1:]
    heads = list(sections(draw_storage(base, view, names=["b", "b.view(3, 4).t()[1:]"])))
    assert "b.view(3, 4).t()[1:] · size [3, 3] · stride [1, 4] · offset 1" in heads
    assert "b · size [12] · stride [1] · offset 0" in heads


def test_the_first_tensor_may_itself_be_a_window():
    base = gt.arange(10.0)
    tail = base[6:]
    cells = readers(draw_storage(tail, tail[::2], names=["tail", "every other"]), "every other")
    assert cells == [[], [], [], [], [], [], ["0"], [], ["1"], []]
    rows = table_rows(draw_storage(tail, names=["tail"]))
    assert rows[2] == [str(i) for i in range(10)]  # the whole storage, not only the window


def test_a_picture_is_deterministic_and_says_what_it_shows():
    base = gt.arange(6.0)
    one = draw_storage(base, base.view(2, 3).t(), names=["x", "x.t()"], title="a transpose")
    two = draw_storage(base, base.view(2, 3).t(), names=["x", "x.t()"], title="a transpose")
    assert one.source == two.source
    assert "0x" not in one.source
    assert repr(one) == "<GraphPicture: storage of 6 cells, 2 tensors (1 sharing it)>"
    assert "a transpose" in one.source


def test_a_zero_dim_tensor_and_a_tensor_without_elements():
    base = gt.arange(4.0)
    cells = readers(draw_storage(base, base[2], base[:0], names=["b", "s", "e"]), "s")
    assert cells == [[], [], ["()"], []]
    assert readers(draw_storage(base, base[:0], names=["b", "e"]), "e") == [[], [], [], []]


def test_bad_calls_say_what_is_wrong():
    x = gt.arange(4.0)
    with pytest.raises(TypeError, match="at least one tensor"):
        draw_storage()
    with pytest.raises(ValueError, match="does not share the storage"):
        draw_storage(x, x.clone(), names=["x", "x.clone()"])
    with pytest.raises(ValueError, match="2 tensors but 1 names"):
        draw_storage(x, x[1:], names=["x"])
    with pytest.raises(ValueError, match="label must be one of"):
        draw_storage(x, label="address")
    with pytest.raises(ValueError, match="element size"):
        draw_storage(x, x.view(gt.int16), names=["x", "x.view(int16)"])


def test_cells_read_is_the_address_formula():
    x = gt.arange(24.0).view(2, 3, 4)
    for view in (x, x.transpose(0, 2), x[1, ::2], x[:, 1:, 2]):
        assert cells_read(view) == [int(v) for v in view.reshape(-1).tolist()]


def test_real_pytorch_tensors_give_the_same_picture():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
    for lib_views in ((lambda lib: lib.arange(12.0)),):
        ours, theirs = lib_views(gt), lib_views(torch)
        make = lambda b: [b, b.view(3, 4).t(), b.view(3, 4)[:, 1].expand(2, 3), b.unfold(0, 4, 2)]
        names = ["x", "t", "e", "u"]
        assert draw_storage(*make(ours), names=names).source == draw_storage(*make(theirs), names=names).source


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's `dot` program is not installed (apt-get install graphviz)")
def test_it_renders_as_svg():
    base = gt.arange(8.0)
    svg = draw_storage(base, base.view(2, 4).t(), names=["x", "x.t()"]).svg()
    assert svg.lstrip().startswith("<?xml") and "x.t() · size [4, 2]" in html.unescape(svg)
