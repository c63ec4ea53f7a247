"""Tests of glasstorch.viz: the autograd-graph picture, checked on its DOT text.

The DOT text needs no Graphviz program, so almost everything here runs anywhere; the few tests
that render with ``dot`` skip with a reason when it is not installed.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import glasstorch
from glasstorch.autograd.engine import execution_order
from glasstorch.course.chapter_map import BUILDS_ON, CHAPTERS, PARTS, chapter_map, stacking_edges
from glasstorch.viz import GraphPicture, draw_graph, make_dot, style
from glasstorch.viz.picture import NO_DOT_HINT

HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's `dot` program is not installed "
                               "(apt-get install graphviz): rendering is not tested")
PACKAGE = Path(__file__).resolve().parent.parent / "package"


# --- reading DOT text back --------------------------------------------------------------------

ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^\s\]]+)')
NODE = re.compile(r"^\s*(\w+) \[(.*)\]$")
EDGE = re.compile(r"^\s*(\w+) -> (\w+)(?: \[(.*)\])?$")


# one sample box of a legend (style.graph_label): fill, border, outline, text
SAMPLE = re.compile(r'<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" BGCOLOR="([^"]+)" '
                    r'COLOR="([^"]+)"(?: STYLE="([^"]+)")?><TR><TD><FONT [^>]*>([^<]*)</FONT>')


def attrs(text: str | None) -> dict:
    return {key: value.strip('"') for key, value in ATTR.findall(text or "")}


def legend_samples(source: str) -> dict[str, dict]:
    """The legend's sample boxes, read from the graph's label: {text: {fillcolor, color, outline}}."""
    return {html.unescape(text): {"fillcolor": fill, "color": border, "outline": outline}
            for fill, border, outline, text in SAMPLE.findall(source)}


def svg_size(picture: GraphPicture, **graph_attrs: str) -> tuple[float, float]:
    """The rendered picture's width and height in points (needs ``dot``)."""
    picture.digraph.graph_attr.update(graph_attrs)
    found = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', picture.svg())
    return float(found[1]), float(found[2])


class Dot:
    """The boxes and edges of a DOT text (the legend is in the graph's label: not a box)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.nodes: dict[str, dict] = {}
        self.edges: list[tuple[str, str, dict]] = []
        for line in source.splitlines():
            if m := EDGE.match(line):
                self.edges.append((m[1], m[2], attrs(m[3])))
            elif (m := NODE.match(line)) and m[1] not in ("graph", "node", "edge"):
                self.nodes[m[1]] = attrs(m[2])

    def label(self, node_id: str) -> str:
        return self.nodes[node_id]["label"]

    def with_label(self, label: str) -> list[str]:
        return [i for i, a in self.nodes.items() if a["label"] == label]

    def one(self, label: str) -> str:
        found = self.with_label(label)
        assert len(found) == 1, f"expected one box labelled {label!r}, found {len(found)} in\n{self.source}"
        return found[0]

    def out(self, node_id: str, **only) -> list[str]:
        return [b for a, b, e in self.edges if a == node_id and all(e.get(k) == v for k, v in only.items())]

    def kind_of(self, node_id: str) -> str:
        for kind, wanted in style.KINDS.items():
            if all(self.nodes[node_id].get(k) == v for k, v in wanted.items()):
                return kind
        raise AssertionError(f"{node_id} {self.nodes[node_id]} has no kind's style")


def seed_graph():
    """The seeds' example: a = w + x; b = w + 1; y = a * b."""
    w = glasstorch.tensor([1.0], requires_grad=True)
    x = glasstorch.tensor([2.0], requires_grad=True)
    a = glasstorch.add(w, x)
    b = glasstorch.add(w, 1)
    y = glasstorch.mul(a, b)
    return w, x, a, b, y


def adds(dot: Dot) -> tuple[str, str]:
    """(the Add of w + x, the Add of w + 1): the first has two next edges, the second one."""
    found = [i for i, a in dot.nodes.items() if "AddBackward0" in a["label"]]
    assert len(found) == 2, dot.source
    two, one = sorted(found, key=lambda i: -len(dot.out(i, style=None)))
    return two, one


# --- the picture of the seeds' example ------------------------------------------------------------

def test_seed_example_has_exactly_the_expected_boxes_and_edges():
    w, x, a, b, y = seed_graph()
    dot = Dot(draw_graph(y, params={"w": w, "x": x}).source)

    out, mul = dot.one("(1,)"), dot.one("MulBackward0")
    leaf_w, leaf_x = dot.one("w\\n(1,)"), dot.one("x\\n(1,)")
    add_wx, add_w1 = adds(dot)
    acc = dot.with_label("AccumulateGrad")
    assert len(dot.nodes) == 8 and len(acc) == 2
    acc_w = next(i for i in acc if dot.out(i) == [leaf_w])
    acc_x = next(i for i in acc if dot.out(i) == [leaf_x])
    expected = {(out, mul), (mul, add_wx), (mul, add_w1), (add_wx, acc_w), (add_wx, acc_x),
                (add_w1, acc_w), (acc_w, leaf_w), (acc_x, leaf_x)}
    edges = [(a_, b_) for a_, b_, _ in dot.edges]
    assert sorted(edges) == sorted(expected)  # each once, nothing else: `w + 1` has one next edge
    # boxes are numbered n0, n1, ... as the graph is walked from the output, never by id()
    assert sorted(dot.nodes, key=lambda i: int(i[1:])) == [f"n{i}" for i in range(8)]
    assert out == "n0" and mul == "n1"


def test_kinds_are_styled_and_told_apart_by_shape_and_colour():
    w, x, a, b, y = seed_graph()
    dot = Dot(draw_graph(y, params={"w": w, "x": x, "a": a}, show_saved=True).source)
    assert dot.kind_of(dot.one("w\\n(1,)")) == "leaf"
    assert dot.kind_of(dot.one("x\\n(1,)")) == "leaf"
    assert dot.kind_of(dot.one("(1,)")) == "output"
    assert dot.kind_of(dot.one("a\\n(1,)")) == "tensor"
    assert dot.kind_of(dot.one("MulBackward0")) == "node"
    assert all(dot.kind_of(i) == "node" for i in dot.with_label("AccumulateGrad"))
    assert dot.kind_of(dot.one("self: a\\n(1,) = 3.")) == "saved"
    # every pair of kinds differs in its fill colour and in its outline (shape, style, borders)
    kinds = list(style.KINDS.values())
    outline = [(k["shape"], k["style"], k.get("peripheries")) for k in kinds]
    assert len({k["fillcolor"] for k in kinds}) == len(kinds)
    assert len(set(outline)) == len(kinds)


def test_legend_shows_the_kinds_drawn_and_can_be_turned_off():
    w, x, a, b, y = seed_graph()
    source = draw_graph(y, params={"w": w, "x": x}).source
    samples = legend_samples(source)
    assert list(samples) == [style.LEGEND_TEXT[kind] for kind in ("output", "node", "leaf")]
    for kind in ("output", "node", "leaf"):
        sample = samples[style.LEGEND_TEXT[kind]]
        assert (sample["fillcolor"], sample["color"]) == (style.KINDS[kind]["fillcolor"], style.KINDS[kind]["color"])
    assert samples["Node (grad_fn)"]["outline"] == "rounded"  # the samples are drawn like the boxes
    assert 'CELLSPACING="2" CELLPADDING="0" COLOR="#43a047"' in source  # the output's double border
    assert "legend · arrows: gradient flow" in source
    # nothing saved is drawn, so the legend does not list it
    assert "saved tensor" in legend_samples(draw_graph(y, show_saved=True).source)
    assert "legend" not in draw_graph(y, legend=False).source


def test_legend_is_the_graphs_label_above_the_picture_not_boxes_in_it():
    w, x, a, b, y = seed_graph()
    dot = Dot(draw_graph(y, params={"w": w, "x": x}, show_saved=True).source)
    graph = attrs(next(line for line in dot.source.splitlines() if line.strip().startswith("graph [")))
    assert graph["labelloc"] == "t" and graph["label"].startswith("<")
    assert not any(node.startswith("legend") for node in dot.nodes) and "cluster" not in dot.source


def test_named_non_leaf_tensors_sit_beside_the_node_that_made_them():
    w, x, a, b, y = seed_graph()
    dot = Dot(draw_graph(y, params={"w": w, "x": x, "a": a, "b": b, "y": y}).source)
    add_wx, add_w1 = adds(dot)
    box_a, box_b = dot.one("a\\n(1,)"), dot.one("b\\n(1,)")
    assert dot.out(box_a) == [add_wx] and dot.out(box_b) == [add_w1]
    assert [e["style"] for s, _, e in dot.edges if s in (box_a, box_b)] == ["dotted", "dotted"]
    for box, node in ((box_a, add_wx), (box_b, add_w1)):
        assert re.search(rf"{{\s*rank=same\s*{node}\s*{box} \[", dot.source), "not on the Node's rank"
    out = dot.one("y\\n(1,)")  # the output is named, once, and stays an output
    assert dot.kind_of(out) == "output" and dot.out(out) == [dot.one("MulBackward0")]


def test_names_given_as_pairs_like_named_parameters():
    w, x, a, b, y = seed_graph()
    pairs = iter([("w", w), ("x", x)])
    assert draw_graph(y, pairs).source == draw_graph(y, {"w": w, "x": x}).source


def test_several_outputs_in_one_picture():
    w, x, a, b, y = seed_graph()
    z = glasstorch.exp(a)
    dot = Dot(draw_graph([y, z], params={"y": y, "z": z}).source)
    assert dot.out(dot.one("y\\n(1,)")) == [dot.one("MulBackward0")]
    assert dot.out(dot.one("z\\n(1,)")) == [dot.one("ExpBackward0")]
    add_wx, _ = adds(dot)
    assert dot.out(dot.one("ExpBackward0")) == [add_wx]  # z and y share a's Add
    assert len(dot.with_label("AccumulateGrad")) == 2


def test_same_nodes_and_order_as_real_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison is skipped")

    def breadth_first_names(root) -> list[str]:
        seen, queue = [root], [root]
        while queue:
            for node, _ in queue.pop(0).next_functions:
                if node is not None and all(node is not s for s in seen):
                    seen.append(node)
                    queue.append(node)
        return [type(node).__name__ for node in seen]  # name() says torch::autograd::AccumulateGrad

    tw, tx = torch.tensor([1.0], requires_grad=True), torch.tensor([2.0], requires_grad=True)
    ty = ((tw + tx) * (tw + 1)).exp().sum()
    w, x, a, b, y = seed_graph()
    gy = glasstorch.exp(y).sum()
    dot = Dot(draw_graph(gy).source)
    drawn = [dot.label(i) for i in dot.nodes if dot.kind_of(i) == "node"]
    assert drawn == breadth_first_names(ty.grad_fn)


# --- determinism ------------------------------------------------------------------------------

def test_dot_is_identical_for_two_separately_built_graphs():
    options = dict(show_saved=True, show_order=True, title="y")
    first = seed_graph()
    second = seed_graph()
    one = draw_graph(first[4], {"w": first[0], "x": first[1], "a": first[2]}, **options).source
    two = draw_graph(second[4], {"w": second[0], "x": second[1], "a": second[2]}, **options).source
    assert one == two
    w, x, a, b, y = first
    for obj in (w, x, a, y, y.grad_fn, a.grad_fn, b.grad_fn, a.grad_fn._next[0]):
        assert str(id(obj)) not in one and hex(id(obj)) not in one


SCRIPT = """
import glasstorch
from glasstorch.viz import draw_graph
w = glasstorch.tensor([1.], requires_grad=True); x = glasstorch.tensor([2.], requires_grad=True)
a = glasstorch.add(w, x); b = glasstorch.add(w, 1); y = glasstorch.mul(a, b)
print(draw_graph(y, params={"w": w, "x": x, "a": a}, show_saved=True, show_order=True).source, end="")
"""


def test_dot_is_identical_across_processes():
    def run(hash_seed: str) -> str:
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(PACKAGE))
        return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                              check=True).stdout

    w, x, a, b, y = seed_graph()
    here = draw_graph(y, params={"w": w, "x": x, "a": a}, show_saved=True, show_order=True).source
    assert run("1") == run("2") == here


# --- options ------------------------------------------------------------------------------------

def test_show_order_numbers_nodes_as_the_engine_runs_them():
    w, x, a, b, y = seed_graph()
    dot = Dot(draw_graph(y, params={"w": w, "x": x}, show_order=True).source)
    order = execution_order([y.grad_fn])
    position = {id(node): i for i, node in enumerate(order, 1)}
    add_wx, add_w1 = adds(dot)
    acc_w = next(i for i in dot.nodes if dot.out(i) == [dot.one("w\\n(1,)")])
    acc_x = next(i for i in dot.nodes if dot.out(i) == [dot.one("x\\n(1,)")])
    expected = {
        dot.one(f"{position[id(y.grad_fn)]}: MulBackward0"): y.grad_fn,
        add_wx: a.grad_fn, add_w1: b.grad_fn,
        acc_w: y.grad_fn._next[0]._next[0], acc_x: a.grad_fn._next[1],
    }
    for box, node in expected.items():
        assert dot.label(box) == f"{position[id(node)]}: {node.name()}"
    assert dot.label(add_w1).startswith("2:")  # b's Add was created later, so it runs first
    assert "1: " not in draw_graph(y).source


def test_show_saved_shows_values_then_freed_after_backward():
    w, x, a, b, y = seed_graph()
    before = Dot(draw_graph(y, params={"a": a}, show_saved=True).source)
    mul = before.one("MulBackward0")
    saved = before.out(mul, style="dashed")
    assert sorted(before.label(i) for i in saved) == ["other\\n(1,) = 2.", "self: a\\n(1,) = 3."]
    assert all(before.kind_of(i) == "saved" for i in saved)
    plain = Dot(draw_graph(y).source)
    assert not any(plain.kind_of(i) == "saved" for i in plain.nodes)

    y.backward(retain_graph=True)  # kept: still shown with values
    assert draw_graph(y, params={"a": a}, show_saved=True).source == before.source
    y.backward()
    after = Dot(draw_graph(y, params={"a": a}, show_saved=True).source)
    freed = after.out(after.one("MulBackward0"), style="dashed")
    assert [after.label(i) for i in freed] == ["saved tensors\\nfreed"]
    assert after.kind_of(freed[0]) == "saved" and "= 3." not in after.source


def test_show_saved_names_a_saved_output_result():
    x = glasstorch.tensor([0.0, 1.0], requires_grad=True)
    e = glasstorch.exp(x)
    dot = Dot(draw_graph(e, params={"e": e}, show_saved=True).source)
    assert [dot.label(i) for i in dot.out(dot.one("ExpBackward0"), style="dashed")] == ["result: e\\n(2,)"]


def test_hooks_and_retain_grad_are_marked():
    w, x, a, b, y = seed_graph()
    w.register_hook(lambda grad: None)
    a.register_hook(lambda grad: None)
    handle = a.register_hook(lambda grad: grad * 2)
    b.retain_grad()  # b is not named: its mark goes on the Node that made it
    y.retain_grad()
    dot = Dot(draw_graph(y, params={"w": w, "x": x, "a": a}).source)
    assert dot.kind_of(dot.one("w\\n(1,)\\n⚓ 1 hook")) == "leaf"
    assert dot.kind_of(dot.one("a\\n(1,)\\n⚓ 2 hooks")) == "tensor"
    assert dot.kind_of(dot.one("(1,)\\nretain_grad")) == "output"
    _, add_w1 = adds(dot)
    assert dot.label(add_w1) == "AddBackward0\\nretain_grad"
    assert dot.with_label("x\\n(1,)") and dot.with_label("MulBackward0")  # no marks where none
    handle.remove()
    assert "a\\n(1,)\\n⚓ 1 hook" in draw_graph(y, params={"a": a}).source
    plain = draw_graph(y, params={"w": w, "a": a}, show_hooks=False).source
    assert "⚓" not in plain and "retain_grad" not in plain


def chain(n: int):
    x = glasstorch.tensor([0.5], requires_grad=True)
    h = x
    for i in range(n):
        h = glasstorch.mul(h, 1.01) if i % 2 else glasstorch.sin(h)
    return x, h


def test_max_nodes_collapses_a_long_chain():
    x, h = chain(200)  # 200 Nodes and x's AccumulateGrad
    dot = Dot(draw_graph(h, params={"x": x}).source)
    nodes = [i for i in dot.nodes if dot.kind_of(i) == "node"]
    more = [i for i in dot.nodes if dot.kind_of(i) == "more"]
    assert len(nodes) == 60 and len(more) == 1
    assert dot.label(more[0]) == "… 141 more nodes\\n(max_nodes=60)"
    assert [a for a, b, _ in dot.edges if b == more[0]] == [nodes[-1]]  # the chain runs into it
    assert not dot.with_label("x\\n(1,)")  # the leaf is past the cut
    small = Dot(draw_graph(h, max_nodes=5).source)
    assert [small.label(i) for i in small.nodes if small.kind_of(i) == "more"] == ["… 196 more nodes\\n(max_nodes=5)"]
    # a Node whose two inputs are both past the cut gets one edge into "… more", not two
    u = glasstorch.mul(glasstorch.exp(x), glasstorch.sin(x))
    cut = Dot(draw_graph(u, max_nodes=1, legend=False).source)
    assert [(cut.label(a), cut.label(b)) for a, b, _ in cut.edges] == [
        ("(1,)", "MulBackward0"), ("MulBackward0", "… 3 more nodes\\n(max_nodes=1)")]
    full = Dot(draw_graph(h, params={"x": x}, max_nodes=1000).source)
    assert sum(full.kind_of(i) == "node" for i in full.nodes) == 201
    assert full.with_label("x\\n(1,)") and not any(full.kind_of(i) == "more" for i in full.nodes)


def test_rankdir_and_title():
    w, x, a, b, y = seed_graph()
    assert "rankdir=TB" in draw_graph(y).source
    source = draw_graph(y, rankdir="LR", title="y = (w + x) * (w + 1)", legend=False).source
    assert "rankdir=LR" in source and 'label="y = (w + x) * (w + 1)"' in source
    with_legend = draw_graph(y, title="y < 2 & more").source  # the title above the legend, escaped
    assert f'<FONT POINT-SIZE="{style.TITLE_FONT_SIZE}" COLOR="{style.EDGE}">y &lt; 2 &amp; more</FONT>' in with_legend
    assert with_legend.index("y &lt; 2") < with_legend.index("legend ·")
    with pytest.raises(ValueError, match="rankdir"):
        draw_graph(y, rankdir="sideways")


def test_bad_arguments_get_clear_errors():
    w, x, a, b, y = seed_graph()
    with pytest.raises(TypeError, match="a tensor or a list of tensors"):
        draw_graph(3.0)
    with pytest.raises(TypeError, match=r"params\['w'\] must be a tensor"):
        draw_graph(y, params={"w": 1.0})
    with pytest.raises(ValueError, match="max_nodes"):
        draw_graph(y, max_nodes=0)


def test_outputs_that_are_leaves_or_need_no_grad():
    s = glasstorch.tensor(2.0, requires_grad=True)
    dot = Dot(draw_graph(s, params={"s": s}, legend=False).source)
    box = dot.one("s\\n()")
    assert dot.kind_of(box) == "output" and dot.label(dot.out(box)[0]) == "AccumulateGrad"
    constant = Dot(draw_graph(glasstorch.tensor([1.0, 2.0]), legend=False).source)
    assert [constant.label(i) for i in constant.nodes] == ["(2,)\\nrequires_grad=False"]


def test_make_dot_has_torchviz_signature():
    w, x, a, b, y = seed_graph()
    assert make_dot(y, params={"w": w, "x": x}).source == draw_graph(y, params={"w": w, "x": x}).source
    assert make_dot(y, show_saved=True).source == draw_graph(y, show_saved=True).source
    dot = Dot(make_dot(y, show_attrs=True).source)
    _, add_w1 = adds(dot)
    assert dot.label(add_w1) == "AddBackward0\\nalpha: 1"
    assert "alpha: 1" not in make_dot(y).source
    scaled = glasstorch.add(w, x, alpha=1.23456789)
    assert "AddBackward0\\nalpha: 1.23456789" in make_dot(scaled, show_attrs=True).source
    short = make_dot(scaled, show_attrs=True, max_attr_chars=6).source
    assert "alpha: 1.2..." in short  # a long value is cut
    summed = glasstorch.ones(2, 3, requires_grad=True).sum(0)
    kept = make_dot(summed, show_attrs=True, max_attr_chars=6).source
    assert "SumBackward1\\ndim: (0,)\\nkeepdim: False\\nself_sym_sizes: (2, 3)" in kept  # short ones are kept


# --- the picture object -------------------------------------------------------------------------

def test_repr_is_short_and_deterministic():
    w, x, a, b, y = seed_graph()
    picture = draw_graph(y)
    assert isinstance(picture, GraphPicture)
    assert repr(picture) == "<GraphPicture: autograd graph of 5 Nodes, 2 leaves>"
    assert repr(draw_graph(chain(200)[1])) == "<GraphPicture: autograd graph of 201 Nodes, 1 leaf, 60 drawn>"


@needs_dot
def test_mimebundle_has_the_svg_and_the_dot_source():
    w, x, a, b, y = seed_graph()
    picture = draw_graph(y, params={"w": w, "x": x})
    bundle = picture._repr_mimebundle_()
    assert bundle["text/plain"] == picture.source
    svg = bundle["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and svg.rstrip().endswith("</svg>")
    assert ">MulBackward0</text>" in svg
    assert set(picture._repr_mimebundle_(exclude=["image/svg+xml"])) == {"text/plain"}


def test_mimebundle_without_dot_is_the_source_with_a_hint(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no `dot` to be found
    w, x, a, b, y = seed_graph()
    picture = draw_graph(y)
    bundle = picture._repr_mimebundle_()
    assert set(bundle) == {"text/plain"}
    assert bundle["text/plain"] == NO_DOT_HINT + "\n" + picture.source
    assert "\n" not in NO_DOT_HINT and "install Graphviz" in NO_DOT_HINT


@needs_dot
def test_save_writes_png_and_svg(tmp_path):
    w, x, a, b, y = seed_graph()
    picture = draw_graph(y, params={"w": w, "x": x})
    png = picture.save(tmp_path / "seed.png")
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    svg = picture.save(tmp_path / "seed.picture", format="svg")
    assert "<svg" in svg.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="unknown picture format"):
        picture.save(tmp_path / "seed.xyz")


def test_style_is_one_consistent_palette():
    # dark text on every fill, so the boxes read on light and dark pages alike
    assert style.NODE_ATTRS["fontcolor"] == style.TEXT
    for kind in style.KINDS.values():
        assert kind["style"].count("filled") == 1
        fill = int(kind["fillcolor"][1:], 16)
        assert min(fill >> 16, (fill >> 8) & 255, fill & 255) >= 0xB0, f"{kind} fill is not light"
        assert kind["color"] != kind["fillcolor"]  # a visible border


@needs_dot
def test_legend_takes_no_width_beside_the_picture():
    w, x, a, b, y = seed_graph()
    params = {"w": w, "x": x, "a": a, "b": b, "y": y}
    unlimited = {"size": "100,100"}  # the natural size, before any fitting to the page
    with_legend = svg_size(draw_graph(y, params=params, show_saved=True), **unlimited)
    without = svg_size(draw_graph(y, params=params, show_saved=True, legend=False), **unlimited)
    assert with_legend[0] == without[0] and with_legend[1] > without[1]


def test_chapter_map_stacks_the_parts_with_invisible_edges():
    # each part's last chapters (those nothing in their part builds on) lead to the next part
    assert stacking_edges() == [("08", "09"), ("11", "15"), ("12", "15"), ("14", "15")]
    dot = Dot(chapter_map().source)
    assert [(a, b) for a, b, e in dot.edges if e.get("style") == "invis"] == [
        (f"c{a}", f"c{b}") for a, b in stacking_edges()]
    assert len(dot.edges) == len(BUILDS_ON) + len(stacking_edges())


@needs_dot
def test_chapter_map_parts_sit_one_below_the_other_within_the_books_column():
    svg = chapter_map().svg()
    # each chapter box's first line of text: its vertical position (SVG y grows downwards)
    text_y = {number: float(y) for number, y in re.findall(
        r'<title>c(\d\d)</title>.*?<text [^>]*y="([\d.-]+)"', svg, flags=re.S)}
    assert set(text_y) == {c.number for c in CHAPTERS}
    rows = [[text_y[c.number] for c in CHAPTERS if c.part == part] for part in sorted(PARTS)]
    for upper, lower in zip(rows, rows[1:]):
        assert max(upper) < min(lower)
    width = float(re.search(r'<svg width="([\d.]+)pt"', svg)[1])
    assert width < 7.2 * 72  # drawn at its natural size: not shrunk by the "size" limit


# --- values and gradients in the boxes (micrograd's picture) --------------------------------------

def test_show_values_and_grads_fill_in_after_backward():
    w, x, a, b, y = seed_graph()  # y = (x + w) * (w + 1), w = 1, x = 2
    a.retain_grad()
    params = {"w": w, "x": x, "a": a}
    before = Dot(draw_graph(y, params=params, show_values=True, show_grads=True).source)
    assert before.with_label("w\\n(1,)\\ndata [1.]\\ngrad None")
    assert before.with_label("a\\n(1,)\\ndata [3.]\\ngrad None\\nretain_grad")
    y.backward()
    after = Dot(draw_graph(y, params=params, show_values=True, show_grads=True).source)
    # dy/dw = (w + 1) + (x + w) = 5, dy/dx = w + 1 = 2, dy/da = b = 2; y's own grad is not kept
    assert after.with_label("w\\n(1,)\\ndata [1.]\\ngrad [5.]")
    assert after.with_label("x\\n(1,)\\ndata [2.]\\ngrad [2.]")
    assert after.with_label("a\\n(1,)\\ndata [3.]\\ngrad [2.]\\nretain_grad")
    assert after.with_label("(1,)\\ndata [6.]\\ngrad None")


def test_show_values_shortens_a_large_tensor_and_is_off_by_default():
    big = glasstorch.arange(10.0).reshape(2, 5).requires_grad_()
    drawn = Dot(draw_graph(big.sum(), params={"big": big}, show_values=True).source)
    assert drawn.with_label("big\\n(2, 5)\\ndata [0., 1., 2., 3., …]")
    assert drawn.with_label("()\\ndata 45.")
    plain = Dot(draw_graph(big.sum(), params={"big": big}).source)
    assert plain.with_label("big\\n(2, 5)") and not any("\\ndata " in plain.label(i) for i in plain.nodes)


# --- any scalar engine's values: the value protocol (_prev, _op), chapter 03 ----------------------

class Scalar:
    """A minimal scalar engine's value, as micrograd's and chapter 03's: data, grad, _prev, _op."""

    def __init__(self, data, _prev=(), _op="", label=""):
        self.data, self.grad = float(data), 0.0
        self._prev, self._op, self.label = tuple(_prev), _op, label

    def __add__(self, other):
        return Scalar(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return Scalar(self.data * other.data, (self, other), "*")


def scalar_graph():
    """L = (a * b + c) * f with a = 3, b = -2, c = 8, f = -4, as in chapter 03."""
    a, b, c, f = Scalar(3.0), Scalar(-2.0), Scalar(8.0), Scalar(-4.0)
    e = a * b
    d = e + c
    return a, b, c, f, e, d, d * f


def test_values_are_drawn_as_values_and_operations_with_gradient_flow_edges():
    a, b, c, f, e, d, L = scalar_graph()
    names = {"a": a, "b": b, "c": c, "f": f, "e": e, "d": d, "L": L}
    dot = Dot(draw_graph(L, params=names).source)
    box = {name: dot.one(name) for name in names}
    ops = {op: dot.with_label(op) for op in ("*", "+")}
    assert len(ops["*"]) == 2 and len(ops["+"]) == 1 and len(dot.nodes) == 10
    op_of = {name: dot.out(box[name]) for name in names}  # each computed value points at its operation
    assert all(len(op_of[n]) == 1 for n in ("L", "d", "e")) and not any(op_of[n] for n in "abcf")
    assert dot.label(op_of["L"][0]) == "*" and dot.out(op_of["L"][0]) == [box["d"], box["f"]]
    assert dot.label(op_of["d"][0]) == "+" and dot.out(op_of["d"][0]) == [box["e"], box["c"]]
    assert dot.label(op_of["e"][0]) == "*" and dot.out(op_of["e"][0]) == [box["a"], box["b"]]
    assert len(dot.edges) == 9  # 3 value -> op, 6 op -> input: nothing else
    assert dot.kind_of(box["L"]) == "output" and {dot.kind_of(box[n]) for n in "de"} == {"tensor"}
    assert {dot.kind_of(box[n]) for n in "abcf"} == {"leaf"}
    assert all(dot.kind_of(i) == "node" for i in ops["*"] + ops["+"])
    assert sorted(dot.nodes, key=lambda i: int(i[1:])) == [f"n{i}" for i in range(10)] and box["L"] == "n0"
    assert legend_samples(dot.source).keys() == {"output value", "operation", "computed value", "leaf value"}
    assert repr(draw_graph(L)) == "<GraphPicture: graph of 7 values, 3 operations, 4 leaves>"


def test_values_show_data_and_grad_and_their_labels():
    a, b, c, f, e, d, L = scalar_graph()
    a.label, e.label = "a", "e"
    b.grad = -12.0
    dot = Dot(draw_graph(L, params={"L": L, "b": b}, show_values=True, show_grads=True).source)
    assert dot.with_label("L\\ndata -8.\\ngrad 0.") and dot.with_label("b\\ndata -2.\\ngrad -12.")
    assert dot.with_label("a\\ndata 3.\\ngrad 0.") and dot.with_label("e\\ndata -6.\\ngrad 0.")  # their label
    plain = Dot(draw_graph(L, legend=False).source)
    assert plain.with_label("a") and not any("data" in plain.label(i) for i in plain.nodes)
    assert len(plain.with_label("Scalar")) == 5  # nameless values: the class's name
    c.grad = None  # an engine that keeps no gradient here
    assert Dot(draw_graph(L, show_grads=True).source).with_label("grad None")


def test_a_value_used_twice_gets_two_edges_and_the_picture_is_deterministic():
    a = Scalar(3.0, label="a")
    twice = a + a
    dot = Dot(draw_graph(twice).source)
    (op,) = dot.out("n0")  # the output a + a points at its operation
    assert dot.label(op) == "+" and dot.out(op) == [dot.one("a"), dot.one("a")]  # as next_functions
    assert draw_graph(scalar_graph()[-1]).source == draw_graph(scalar_graph()[-1]).source


def test_a_long_chain_of_values_is_walked_without_recursion_and_collapsed():
    x = Scalar(1.0, label="x")
    y = x
    for _ in range(5000):
        y = y * Scalar(1.0001)
    picture = draw_graph(y, max_nodes=10)
    assert repr(picture) == "<GraphPicture: graph of 10001 values, 5000 operations, 5001 leaves, 10 drawn>"
    dot = Dot(picture.source)
    more = [i for i in dot.nodes if dot.label(i).startswith(style.MORE_MARK)]
    assert len(more) == 1 and dot.label(more[0]) == f"{style.MORE_MARK} 9991 more values\\n(max_nodes=10)"


def test_values_get_clear_errors_for_what_only_tensors_have():
    a, b, c, f, e, d, L = scalar_graph()
    for option in ("show_saved", "show_order", "show_attrs"):
        with pytest.raises(ValueError, match=f"{option} needs glasstorch tensors"):
            draw_graph(L, **{option: True})
    with pytest.raises(TypeError, match="either tensors or values"):
        draw_graph([L, glasstorch.tensor(1.0, requires_grad=True)])
    with pytest.raises(TypeError, match=r"params\['w'\] must be a value"):
        draw_graph(L, params={"w": glasstorch.tensor(1.0)})
    with pytest.raises(ValueError, match="rankdir"):
        draw_graph(L, rankdir="sideways")
    with pytest.raises(TypeError, match="a tensor or a list of tensors"):
        draw_graph(object())  # neither a tensor nor a value
    two = Dot(draw_graph([L, e], params={"L": L, "e": e}, legend=False).source)
    assert {two.kind_of(two.one("L")), two.kind_of(two.one("e"))} == {"output"}
