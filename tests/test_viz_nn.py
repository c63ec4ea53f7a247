"""Tests of the nn.Module pictures: ``draw_module_tree`` and ``record_hooks`` / ``HookTimeline``.

Checked on the DOT text and on the recorded events, which need no Graphviz program; the few
tests that render with ``dot`` skip with a reason when it is not installed, and the comparisons
with real PyTorch skip when it is not installed.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

import glasstorch
from glasstorch import nn
from glasstorch.testing import real_torch
from glasstorch.viz import GraphPicture, HookEvent, HookTimeline, draw_module_tree, record_hooks, style
from glasstorch.viz.hook_timeline import describe
from glasstorch.viz.module_tree import NOT_IN_STATE_DICT
from test_viz import legend_samples, svg_size

HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's `dot` program is not installed "
                               "(apt-get install graphviz): rendering is not tested")
PACKAGE = Path(__file__).resolve().parent.parent / "package"


# --- reading DOT text back --------------------------------------------------------------------

ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^\s\]]+)')
HTML_NODE = re.compile(r"^\s*(\w+) \[label=<(.*)> (.*)\]$")
NODE = re.compile(r"^\s*(\w+) \[(.*)\]$")
EDGE = re.compile(r"^\s*(\w+) -> (\w+)(?: \[(.*)\])?$")
TAG = re.compile(r"<[^>]+>")
BOX = re.compile(r"^\s*e(\d+) \[label", flags=re.M)  # the number of each event box, in DOT order


def attrs(text: str | None) -> dict:
    return {key: value.strip('"') for key, value in ATTR.findall(text or "")}


class Dot:
    """The boxes (in the order written) and edges of a DOT text, and the legend's samples. HTML-like
    labels are kept raw in ``html`` and read as table rows by ``rows``."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.legend = legend_samples(source)
        self.nodes: dict[str, dict] = {}
        self.edges: list[tuple[str, str, dict]] = []
        for line in source.splitlines():
            if m := EDGE.match(line):
                self.edges.append((m[1], m[2], attrs(m[3])))
            elif m := HTML_NODE.match(line):
                self.nodes[m[1]] = dict(attrs(m[3]), html=m[2])
            elif (m := NODE.match(line)) and m[1] not in ("graph", "node", "edge"):
                self.nodes[m[1]] = attrs(m[2])

    def rows(self, node_id: str) -> list[list[str]]:
        """The table's rows as cell texts, tags removed and entities decoded."""
        table = self.nodes[node_id]["html"]
        return [[html.unescape(TAG.sub("", cell)) for cell in re.findall(r"<TD[^>]*>(.*?)</TD>", row)]
                for row in re.findall(r"<TR>(.*?)</TR>", table)]

    def header(self, node_id: str) -> str:
        return self.rows(node_id)[0][0]

    def with_header(self, header: str) -> str:
        found = [i for i in self.nodes if "html" in self.nodes[i] and self.header(i) == header]
        assert len(found) == 1, f"expected one box headed {header!r}, found {len(found)} in\n{self.source}"
        return found[0]

    def out(self, node_id: str) -> list[str]:
        return [b for a, b, _ in self.edges if a == node_id]

    def into(self, node_id: str) -> list[tuple[str, dict]]:
        return [(a, e) for a, b, e in self.edges if b == node_id]


# --- models, written once for glasstorch and for PyTorch --------------------------------------

def make_models(torch):
    """Small modules built from Parameter and register_buffer (no layer classes needed), for the
    framework ``torch`` (glasstorch or PyTorch): the same classes, names and shapes in both."""
    class Affine(torch.nn.Module):
        def __init__(self, n_in: int, n_out: int) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(n_in, n_out))
            self.bias = torch.nn.Parameter(torch.zeros(n_out))

        def forward(self, x):
            return torch.matmul(x, self.weight) + self.bias

    class Act(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x)

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = Affine(3, 4)
            self.act = Act()
            self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
            self.register_buffer("cache", torch.zeros(4), persistent=False)

        def forward(self, x):
            return self.act(self.fc(x))

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.block = Block()
            self.head = Affine(4, 2)
            self.scale = torch.nn.Parameter(torch.ones(1), requires_grad=False)

        def forward(self, x):
            return self.head(self.block(x)) * self.scale

    class Twice(torch.nn.Module):
        """One layer called twice, and registered under two names: a DAG, not a tree."""

        def __init__(self) -> None:
            super().__init__()
            self.fc = Affine(3, 3)
            self.again = self.fc
            self.out = Affine(3, 1)

        def forward(self, x):
            return self.out(self.fc(self.fc(x)))

    class Chain(torch.nn.Module):
        def __init__(self, n: int) -> None:
            super().__init__()
            for i in range(n):
                self.add_module(str(i), Affine(4, 4) if i % 2 == 0 else Act())

    return SimpleNamespace(Affine=Affine, Act=Act, Block=Block, Net=Net, Twice=Twice, Chain=Chain)


G = make_models(glasstorch)


@pytest.fixture
def torch():
    """Real PyTorch, imported only by the tests that compare with it (a subprocess that imports
    this file stays fast)."""
    module = real_torch()
    if module is None:
        pytest.skip("PyTorch is not installed: the comparison is skipped")
    return module


# === draw_module_tree ==========================================================================

def test_one_box_per_module_in_named_modules_order_with_readable_ids():
    net = G.Net()
    dot = Dot(draw_module_tree(net, name="model").source)
    assert list(dot.nodes) == ["m", "m_block", "m_block_fc", "m_block_act", "m_head"]
    assert [name for name, _ in net.named_modules()] == ["", "block", "block.fc", "block.act", "head"]
    headers = [dot.header(i) for i in dot.nodes]
    assert headers == ["model: Net", "block: Block", "fc: Affine", "act: Act", "head: Affine"]
    assert "<B>block</B>: Block" in dot.nodes["m_block"]["html"]  # the attribute name stands out
    assert Dot(draw_module_tree(net).source).header("m") == "Net"  # an unnamed root: its class


def test_edges_follow_registration_order():
    dot = Dot(draw_module_tree(G.Net()).source)
    assert [(a, b) for a, b, _ in dot.edges] == [("m", "m_block"), ("m", "m_head"),
                                                 ("m_block", "m_block_fc"), ("m_block", "m_block_act")]
    assert all(e == {} for _, _, e in dot.edges)  # nothing shared: no labels on the arrows
    assert "ordering=out" in dot.source  # and dot keeps that order among siblings


def test_parameter_and_buffer_rows():
    dot = Dot(draw_module_tree(G.Net()).source)
    assert dot.rows("m")[1:] == [["scale", "(1,)", "requires_grad=False"]]
    # only a frozen parameter says so: the default, requires_grad=True, is not written
    assert dot.rows("m_block_fc")[1:] == [["weight", "(3, 4)", ""], ["bias", "(4,)", ""]]
    # a dtype other than float32 is written; the non-persistent buffer says so
    assert dot.rows("m_block")[1:] == [["steps", "() int64", "buffer"], ["cache", "(4,)", NOT_IN_STATE_DICT]]
    assert dot.rows("m_block_act") == [["act: Act"]]
    # parameter rows have the parameter colour, buffer rows the buffer colour
    leaf_fill, tensor_fill = style.KINDS["leaf"]["fillcolor"], style.KINDS["tensor"]["fillcolor"]
    assert dot.nodes["m_block_fc"]["html"].count(f'BGCOLOR="{leaf_fill}"') == 6
    assert dot.nodes["m_block"]["html"].count(f'BGCOLOR="{tensor_fill}"') == 6
    assert leaf_fill not in dot.nodes["m_block"]["html"]


def test_non_persistent_buffers_are_marked_exactly_when_missing_from_state_dict():
    net = G.Net()
    dot = Dot(draw_module_tree(net).source)
    marked = {f"block.{row[0]}" for row in dot.rows("m_block")[1:] if row[2] == NOT_IN_STATE_DICT}
    all_buffers = {name for name, _ in net.named_buffers()}
    assert marked == all_buffers - set(net.state_dict()) == {"block.cache"}
    assert "<I>cache</I>" in dot.nodes["m_block"]["html"] and "<I>steps</I>" not in dot.nodes["m_block"]["html"]


def test_none_parameters_and_tied_weights():
    net = G.Net()
    net.head.bias = None  # as Linear(bias=False): registered, but None
    net.block.fc.register_parameter("tied", net.head.weight)  # one tensor, two registrations
    dot = Dot(draw_module_tree(net).source)
    # named_modules meets block.fc first, so block.fc.tied owns the tensor and head.weight says so
    assert dot.rows("m_block_fc")[3] == ["tied", "(4, 2)", ""]
    assert dot.rows("m_head")[1:] == [["weight", "(4, 2)", "same tensor as block.fc.tied"], ["bias", "None", ""]]


def test_a_shared_module_is_drawn_once_with_an_arrow_from_each_registration():
    twice = G.Twice()
    assert [name for name, _ in twice.named_modules()] == ["", "fc", "out"]  # listed once
    dot = Dot(draw_module_tree(twice).source)
    assert list(dot.nodes) == ["m", "m_fc", "m_out"]
    into_fc = dot.into("m_fc")
    assert [(a, e.get("label")) for a, e in into_fc] == [("m", "fc"), ("m", "again")]
    assert dot.into("m_out") == [("m", {})]  # not shared: no label
    assert dot.rows("m_fc")[1] == ["shared: registered 2 times"]
    assert "shared" not in str(dot.rows("m_out"))


def test_a_module_shared_by_two_parents():
    net = G.Net()
    net.head.register_module("borrowed", net.block.act)
    dot = Dot(draw_module_tree(net).source)
    assert [a for a, _ in dot.into("m_block_act")] == ["m_block", "m_head"]
    assert [e["label"] for _, e in dot.into("m_block_act")] == ["act", "borrowed"]
    assert sum(dot.header(i) == "act: Act" for i in dot.nodes) == 1


def test_long_children_lists_collapse_in_the_middle():
    chain = G.Chain(12)
    dot = Dot(draw_module_tree(chain, max_children=4).source)
    assert list(dot.nodes) == ["m", "m_0", "m_1", "m_10", "m_11", "m__more"]
    assert dot.out("m") == ["m_0", "m_1", "m__more", "m_10", "m_11"]  # the more box in the middle
    more = dot.nodes["m__more"]
    assert more["label"] == "… 8 more: 2 … 9\\nAffine ×4, Act ×4"
    assert all(more[k] == v for k, v in style.KINDS["more"].items())
    assert repr(draw_module_tree(chain, max_children=4)) == (
        "<GraphPicture: module tree of Chain: 13 modules, 12 parameters, 0 buffers, 5 drawn>")
    odd = Dot(draw_module_tree(chain, max_children=3).source)
    assert odd.out("m") == ["m_0", "m_1", "m__more", "m_11"]  # ceil(k/2) first, floor(k/2) last
    one = Dot(draw_module_tree(chain, max_children=1).source)
    assert one.out("m") == ["m_0", "m__more"] and one.nodes["m__more"]["label"].startswith("… 11 more: 1 … 11")
    assert len(Dot(draw_module_tree(chain).source).nodes) == 13  # None: everything
    assert len(Dot(draw_module_tree(chain, max_children=12).source).nodes) == 13  # fits: nothing collapses
    assert "m__more" not in draw_module_tree(chain, max_children=12).source


def test_collapsed_children_hide_their_subtrees_but_not_a_module_shared_with_a_drawn_part():
    outer = nn.Module()
    for i in range(5):
        outer.add_module(f"b{i}", G.Block())
    outer.b4.add_module("shared_act", outer.b2.act)  # b2 is collapsed, its act is shared with b4
    dot = Dot(draw_module_tree(outer, max_children=2).source)
    assert dot.out("m") == ["m_b0", "m__more", "m_b4"]
    assert not any(i.startswith("m_b1") or i.startswith("m_b3") for i in dot.nodes)
    assert dot.nodes["m__more"]["label"] == "… 3 more: b1 … b3\\nBlock ×3"
    # drawn once, with the id of its first name (b2.act) and an arrow only from the drawn parent
    assert [a for a, _ in dot.into("m_b2_act")] == ["m_b4"]
    assert dot.header("m_b2_act") == "act: Act"


def test_show_parameters_and_show_buffers_can_be_turned_off():
    net = G.Net()
    bare = Dot(draw_module_tree(net, show_parameters=False, show_buffers=False).source)
    assert all(len(bare.rows(i)) == 1 for i in bare.nodes)
    no_params = Dot(draw_module_tree(net, show_parameters=False).source)
    assert no_params.rows("m_block")[1:] == [["steps", "() int64", "buffer"], ["cache", "(4,)", NOT_IN_STATE_DICT]]
    assert len(no_params.rows("m_block_fc")) == 1
    no_buffers = Dot(draw_module_tree(net, show_buffers=False).source)
    assert len(no_buffers.rows("m_block")) == 1 and len(no_buffers.rows("m_block_fc")) == 3


def test_legend_lists_the_kinds_drawn():
    source = draw_module_tree(G.Net()).source
    legend = legend_samples(source)
    assert list(legend) == ["module", "parameter", "buffer"]
    for text, kind in (("module", "node"), ("parameter", "leaf"), ("buffer", "tensor")):
        assert (legend[text]["fillcolor"], legend[text]["color"]) == (style.KINDS[kind]["fillcolor"],
                                                                      style.KINDS[kind]["color"])
    assert "legend · arrows: parent → submodule" in source
    assert list(legend_samples(draw_module_tree(G.Act()).source)) == ["module"]
    assert "collapsed children" in legend_samples(draw_module_tree(G.Chain(6), max_children=2).source)
    assert "legend" not in draw_module_tree(G.Net(), legend=False).source


def test_ids_never_clash_and_names_are_escaped():
    odd = nn.Module()
    odd.add_module("a_b", G.Act())
    odd.add_module("a", nn.Module())
    odd.a.add_module("b", G.Act())  # "a.b" and "a_b" would both make m_a_b
    odd.add_module("x<&>", G.Act())
    dot = Dot(draw_module_tree(odd).source)
    assert list(dot.nodes) == ["m", "m_a_b", "m_a", "m_a_b_2", "m_x___"]
    assert dot.header("m_a_b_2") == "b: Act" and dot.header("m_x___") == "x<&>: Act"
    assert "<B>x&lt;&amp;&gt;</B>" in dot.nodes["m_x___"]["html"]


def test_rankdir_title_and_bad_arguments():
    assert "rankdir=LR" in draw_module_tree(G.Net()).source  # the default: as wide as the model is deep
    source = draw_module_tree(G.Net(), rankdir="TB", title="a small net", legend=False).source
    assert "rankdir=TB" in source and 'label="a small net"' in source
    assert ">a small net</FONT>" in draw_module_tree(G.Net(), title="a small net").source  # above the legend
    with pytest.raises(ValueError, match="rankdir"):
        draw_module_tree(G.Net(), rankdir="up")
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="max_children"):
            draw_module_tree(G.Net(), max_children=bad)
    with pytest.raises(TypeError, match="expects an nn.Module"):
        draw_module_tree(glasstorch.ones(2))


def test_module_tree_repr():
    picture = draw_module_tree(G.Net())
    assert isinstance(picture, GraphPicture)
    assert repr(picture) == "<GraphPicture: module tree of Net: 5 modules, 5 parameters, 2 buffers>"


def test_module_tree_dot_is_deterministic():
    one, two = G.Net(), G.Net()
    assert draw_module_tree(one, name="model").source == draw_module_tree(two, name="model").source
    source = draw_module_tree(one).source
    for module in one.modules():
        assert str(id(module)) not in source and hex(id(module)) not in source
    assert not re.search(r"0x[0-9a-f]{6,}", source)


TREE_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
import glasstorch
from test_viz_nn import make_models
from glasstorch.viz import draw_module_tree
G = make_models(glasstorch)
print(draw_module_tree(G.Net(), name="model").source + draw_module_tree(G.Twice()).source, end="")
"""


def test_module_tree_dot_is_identical_across_processes():
    script = TREE_SCRIPT.format(tests=str(Path(__file__).resolve().parent))

    def run(hash_seed: str) -> str:
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(PACKAGE))
        return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              check=True).stdout

    here = draw_module_tree(G.Net(), name="model").source + draw_module_tree(G.Twice()).source
    assert run("1") == run("2") == here


def test_with_glasstorch_layers():
    if not hasattr(nn, "Linear") or not hasattr(nn, "Sequential"):
        pytest.skip("glasstorch.nn.Linear or Sequential is not written yet")
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2, bias=False))
    dot = Dot(draw_module_tree(model, name="model").source)
    assert list(dot.nodes) == ["m", "m_0", "m_1", "m_2"]
    assert [dot.header(i) for i in dot.nodes] == ["model: Sequential", "0: Linear", "1: ReLU", "2: Linear"]
    assert dot.rows("m_0")[1:] == [["weight", "(4, 3)", ""], ["bias", "(4,)", ""]]
    assert dot.rows("m_2")[1:] == [["weight", "(2, 4)", ""], ["bias", "None", ""]]


def test_module_tree_of_the_same_pytorch_model_is_the_same_picture(torch):
    """The picture reads only nn.Module's own dictionaries, so PyTorch's model draws the same."""
    T = make_models(torch)
    for build in ("Net", "Twice"):
        ours, theirs = getattr(G, build)(), getattr(T, build)()
        assert draw_module_tree(theirs, name="model").source == draw_module_tree(ours, name="model").source
    assert (draw_module_tree(T.Chain(9), max_children=4).source
            == draw_module_tree(G.Chain(9), max_children=4).source)


@needs_dot
def test_module_tree_renders_to_svg():
    picture = draw_module_tree(G.Twice(), name="model")
    svg = picture._repr_mimebundle_()["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and svg.rstrip().endswith("</svg>")
    assert ">model</text>" in svg and ">again</text>" in svg  # the root and the shared arrow's label
    odd = nn.Module()
    odd.add_module("x<&>", G.Act())
    assert ">x&lt;&amp;&gt;</text>" in draw_module_tree(odd).svg()  # escaped names render


# === record_hooks / HookTimeline ==============================================================

def run_net(torch, models, **options):
    """Record one forward and backward of models.Net."""
    net = models.Net()
    with record_hooks(net, **options) as timeline:
        net(torch.ones(2, 3)).sum().backward()
    return net, timeline


NET_ORDER = [
    ("forward_pre", ""), ("forward_pre", "block"), ("forward_pre", "block.fc"), ("forward", "block.fc"),
    ("forward_pre", "block.act"), ("forward", "block.act"), ("forward", "block"),
    ("forward_pre", "head"), ("forward", "head"), ("forward", ""),
    # backward: the model's and block's inputs need no gradient, so their backward hooks fire as soon
    # as their output's gradient is known, before the modules inside them
    ("backward_pre", ""), ("backward", ""), ("backward_pre", "head"), ("backward", "head"),
    ("backward_pre", "block"), ("backward", "block"), ("backward_pre", "block.act"), ("backward", "block.act"),
    ("backward_pre", "block.fc"), ("backward", "block.fc"),
]


def test_event_order_for_a_two_level_model():
    net, timeline = run_net(glasstorch, G)
    assert all(isinstance(e, HookEvent) for e in timeline.events)
    assert [(e.kind, e.module) for e in timeline.events] == NET_ORDER
    assert [e.lane for e in timeline.events] == ["forward"] * 10 + ["backward"] * 10
    classes = {e.module: e.cls for e in timeline.events}
    assert classes == {"": "Net", "block": "Block", "block.fc": "Affine", "block.act": "Act", "head": "Affine"}


def position(events, kind, module) -> int:
    return next(i for i, e in enumerate(events) if (e.kind, e.module) == (kind, module))


def test_pre_hooks_first_children_nested_backward_reversed():
    _, timeline = run_net(glasstorch, G)
    events = timeline.events
    for name in ("", "block", "block.fc", "block.act", "head"):
        assert position(events, "forward_pre", name) < position(events, "forward", name)
        assert position(events, "backward_pre", name) < position(events, "backward", name)
    for parent, child in (("", "block"), ("", "head"), ("block", "block.fc"), ("block", "block.act")):
        assert position(events, "forward_pre", parent) < position(events, "forward_pre", child)
        assert position(events, "forward", child) < position(events, "forward", parent)
    # leaves in forward order, then their backward pre-hooks in the reverse order
    leaves = ["block.fc", "block.act", "head"]
    assert sorted(leaves, key=lambda n: position(events, "forward_pre", n)) == leaves
    assert sorted(leaves, key=lambda n: position(events, "backward_pre", n)) == leaves[::-1]


def test_event_details_describe_shapes():
    _, timeline = run_net(glasstorch, G)
    details = {(e.kind, e.module): e.detail for e in timeline.events}
    assert details[("forward_pre", "block.fc")] == "args: (2, 3)"
    assert details[("forward", "block.fc")] == "output: (2, 4)"
    assert details[("backward_pre", "head")] == "grad_output: (2, 2)"
    assert details[("backward", "head")] == "grad_input: (2, 4)"
    assert details[("backward", "block.fc")] == "grad_input: None"  # x does not require grad


def test_describe():
    assert describe(glasstorch.ones(2, 3)) == "(2, 3)"
    assert describe(glasstorch.zeros((), dtype=glasstorch.int64)) == "() int64"
    assert describe((glasstorch.ones(1), None, [3, "a"])) == "[(1,), None, [3, 'a']]"
    assert describe({"h": glasstorch.ones(2)}) == "{h: (2,)}"
    assert describe(object()) == "object"  # never an address
    assert describe("x" * 30) == "str"


def test_hooks_are_removed_afterwards():
    net, timeline = run_net(glasstorch, G)
    for module in net.modules():
        assert not module._forward_hooks and not module._forward_pre_hooks
        assert not module._backward_hooks and not module._backward_pre_hooks
        assert module._is_full_backward_hook is None  # legacy hooks may still be registered
    count = len(timeline.events)
    net(glasstorch.ones(2, 3)).sum().backward()
    assert len(timeline.events) == count
    net.head.register_backward_hook(lambda *args: None)  # allowed again: the model is as it was


def test_hooks_are_removed_when_the_block_raises():
    net = G.Net()
    with pytest.raises(RuntimeError, match="inside"):
        with record_hooks(net) as timeline:
            net(glasstorch.ones(2, 3))
            raise RuntimeError("inside the block")
    assert len(timeline.events) == 10
    assert all(not m._forward_hooks and not m._backward_hooks for m in net.modules())


def test_users_hooks_fire_between_the_recorders_events_and_can_note():
    net = G.Net()
    box: dict = {}
    net.head.register_forward_pre_hook(lambda m, args: box["t"].note("my pre-hook on head"))
    net.head.register_forward_hook(lambda m, args, out: box["t"].note("my hook on head"))
    net.head.register_full_backward_hook(lambda m, gi, go: box["t"].note("my backward hook on head"))
    with record_hooks(net) as timeline:
        box["t"] = timeline
        out = net(glasstorch.ones(2, 3))
        timeline.note("between forward and backward")
        out.sum().backward()
        timeline.note("after backward")
        timeline.note("said to be forward", lane="forward")
    events = timeline.events
    notes = [(e.detail, e.lane) for e in events if e.kind == "note"]
    assert notes == [("my pre-hook on head", "forward"), ("my hook on head", "forward"),
                     ("between forward and backward", "forward"), ("my backward hook on head", "backward"),
                     ("after backward", "backward"), ("said to be forward", "forward")]
    at = {e.detail: i for i, e in enumerate(events)}
    assert position(events, "forward_pre", "head") < at["my pre-hook on head"] < at["my hook on head"] \
        < position(events, "forward", "head")
    assert position(events, "backward_pre", "head") < at["my backward hook on head"] \
        < position(events, "backward", "head")
    assert len(net.head._forward_hooks) == 1 and len(net.head._backward_hooks) == 1  # the user's stay
    with pytest.raises(ValueError, match="lane"):
        timeline.note("x", lane="sideways")


def test_the_no_input_grad_warning_is_silenced_only_while_recording():
    def backward_with_own_hook(net):
        handle = net.register_full_backward_hook(lambda *args: None)
        net(glasstorch.ones(2, 3)).sum().backward()
        handle.remove()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net = G.Net()
        with record_hooks(net):
            backward_with_own_hook(net)  # the warning's situation, for the recorder's hooks and ours
        assert not [w for w in caught if "Full backward hook is firing" in str(w.message)]
        backward_with_own_hook(net)  # the filter is gone with the block
        assert [w for w in caught if "Full backward hook is firing" in str(w.message)]


def test_modules_with_legacy_backward_hooks_are_skipped_with_a_note():
    net = G.Net()
    legacy_calls = []
    net.head.register_backward_hook(lambda m, gi, go: legacy_calls.append(len(gi)))
    with record_hooks(net) as timeline, pytest.warns(FutureWarning, match="non-full backward hook"):
        net(glasstorch.ones(2, 3)).sum().backward()  # (PyTorch warns about legacy hooks too)
    first = timeline.events[0]
    assert (first.kind, first.module, first.cls) == ("note", "head", "Affine")
    assert "legacy backward hooks" in first.detail and "register_backward_hook" in first.detail
    assert [(e.kind, e.module) for e in timeline.events[1:]] == [
        step for step in NET_ORDER if not (step[0].startswith("backward") and step[1] == "head")]
    assert legacy_calls  # the user's legacy hook still ran
    assert net.head._is_full_backward_hook is False and len(net.head._backward_hooks) == 1


def test_forward_only_and_backward_only():
    _, forward_only = run_net(glasstorch, G, backward=False)
    assert [(e.kind, e.module) for e in forward_only.events] == NET_ORDER[:10]
    _, backward_only = run_net(glasstorch, G, forward=False)
    assert [(e.kind, e.module) for e in backward_only.events] == NET_ORDER[10:]
    with pytest.raises(TypeError, match="expects an nn.Module"):
        with record_hooks(lambda x: x):
            pass


NET_LISTING = """\
forward
   1.  forward pre-hook   model: Net        args: (2, 3)
   2.  forward pre-hook   block: Block      args: (2, 3)
   3.  forward pre-hook   block.fc: Affine  args: (2, 3)
   4.  forward hook       block.fc: Affine  output: (2, 4)
   5.  forward pre-hook   block.act: Act    args: (2, 4)
   6.  forward hook       block.act: Act    output: (2, 4)
   7.  forward hook       block: Block      output: (2, 4)
   8.  forward pre-hook   head: Affine      args: (2, 4)
   9.  forward hook       head: Affine      output: (2, 2)
  10.  forward hook       model: Net        output: (2, 2)
backward
  11.  backward pre-hook  model: Net        grad_output: (2, 2)
  12.  backward hook      model: Net        grad_input: None
  13.  backward pre-hook  head: Affine      grad_output: (2, 2)
  14.  backward hook      head: Affine      grad_input: (2, 4)
  15.  backward pre-hook  block: Block      grad_output: (2, 4)
  16.  backward hook      block: Block      grad_input: None
  17.  backward pre-hook  block.act: Act    grad_output: (2, 4)
  18.  backward hook      block.act: Act    grad_input: (2, 4)
  19.  backward pre-hook  block.fc: Affine  grad_output: (2, 4)
  20.  backward hook      block.fc: Affine  grad_input: None"""


def test_text_listing():
    _, timeline = run_net(glasstorch, G, name="model")
    assert str(timeline) == NET_LISTING
    assert repr(timeline) == "<HookTimeline: 20 events>"
    assert str(HookTimeline()) == "(no hooks fired)"
    _, unnamed = run_net(glasstorch, G)
    assert str(unnamed).splitlines()[1] == "   1.  forward pre-hook   Net               args: (2, 3)"
    noted = HookTimeline()
    noted.note("hello")
    assert str(noted) == "forward\n  1.  note  hello"


# --- the timeline picture ------------------------------------------------------------------------

def test_timeline_picture_numbers_events_in_lanes():
    _, timeline = run_net(glasstorch, G, name="model")
    picture = timeline.draw()
    dot = Dot(picture.source)
    assert list(dot.nodes) == [f"e{i}" for i in range(1, 21)]
    assert dot.nodes["e1"]["label"] == "1. forward pre-hook\\nmodel: Net\\nargs: (2, 3)"
    assert dot.nodes["e20"]["label"] == "20. backward hook\\nblock.fc: Affine\\ngrad_input: None"
    # consecutive events are joined; the step into the backward lane does not stack the lanes
    assert [(a, b) for a, b, _ in dot.edges] == [(f"e{i}", f"e{i + 1}") for i in range(1, 20)]
    assert dot.edges[9][2] == {"constraint": "false", "style": "dashed"}
    assert all(e == {} for i, (_, _, e) in enumerate(dot.edges) if i != 9)
    forward, backward = picture.source.split("subgraph cluster_backward_1")
    assert "subgraph cluster_forward_1" in forward and "label=forward" in forward
    assert BOX.findall(forward) == [str(i) for i in range(1, 11)]
    assert BOX.findall(backward.split("cluster_legend")[0]) == [str(i) for i in range(11, 21)]
    assert repr(picture) == "<GraphPicture: hook timeline: 20 events (10 forward, 10 backward)>"


def test_timeline_boxes_are_styled_by_kind():
    _, timeline = run_net(glasstorch, G)
    timeline.note("a note")
    dot = Dot(timeline.draw().source)
    expected = {"e1": "leaf", "e4": "output", "e11": "tensor", "e12": "node", "e21": "saved"}
    for box, kind in expected.items():
        assert all(dot.nodes[box].get(k) == v for k, v in style.KINDS[kind].items()), box
    assert dot.nodes["e21"]["label"] == "21. note\\na note"
    assert list(dot.legend) == ["forward pre-hook", "forward hook", "backward pre-hook", "backward hook", "note"]
    for text, kind in zip(dot.legend, ("leaf", "output", "tensor", "node", "saved")):  # as the boxes
        assert dot.legend[text]["fillcolor"] == style.KINDS[kind]["fillcolor"]
    assert "legend" not in timeline.draw(legend=False).source


def test_timeline_frames_nest_children_inside_parents():
    _, timeline = run_net(glasstorch, G)
    source = timeline.draw().source
    # the model's frame holds block's frame, which holds fc's and act's; head's frame follows block's
    frames = re.findall(r"subgraph (cluster_call_e\d+)|^\s*(e\d+) \[label|(})", source.split("cluster_backward_1")[0],
                        flags=re.M)
    tokens = [a or b or c for a, b, c in frames]
    expected = ["cluster_call_e1", "e1", "cluster_call_e2", "e2", "cluster_call_e3", "e3", "e4", "}",
                "cluster_call_e5", "e5", "e6", "}", "e7", "}", "cluster_call_e8", "e8", "e9", "}", "e10", "}", "}"]
    assert tokens == expected
    assert "cluster_call" not in timeline.draw(nest=False).source


def test_timeline_that_does_not_nest_is_drawn_flat():
    net = G.Net()

    def fail(module, args):
        raise ValueError("stop")

    net.block.act.register_forward_pre_hook(fail)
    with record_hooks(net, backward=False) as timeline:
        with pytest.raises(ValueError):
            net(glasstorch.ones(2, 3))
    assert [(e.kind, e.module) for e in timeline.events] == NET_ORDER[:5]  # act's pre-hook: then it raised
    source = timeline.draw().source
    assert "cluster_call" not in source and BOX.findall(source) == ["1", "2", "3", "4", "5"]


def test_two_passes_make_two_runs_of_lanes():
    net = G.Net()
    with record_hooks(net) as timeline:
        for _ in range(2):
            net(glasstorch.ones(2, 3)).sum().backward()
    source = timeline.draw().source
    for cluster in ("cluster_forward_1", "cluster_backward_1", "cluster_forward_2", "cluster_backward_2"):
        assert f"subgraph {cluster} " in source
    assert 'label="forward (2)"' in source
    assert source.count("constraint=false") == 3
    assert "hook timeline: 40 events (20 forward, 20 backward)" in repr(timeline.draw())


def test_timeline_dot_is_deterministic_and_escapes_notes():
    sources = []
    for _ in range(2):
        _, timeline = run_net(glasstorch, G)
        timeline.note('a "quoted" \\ note\nsecond line')
        sources.append(timeline.draw(title="hooks").source)
    assert sources[0] == sources[1]
    assert not re.search(r"0x[0-9a-f]{6,}", sources[0])
    assert 'label="21. note\\na \\"quoted\\" \\\\ note\\nsecond line"' in sources[0]
    with pytest.raises(ValueError, match="rankdir"):
        HookTimeline().draw(rankdir="diagonal")


@needs_dot
def test_timeline_renders_to_svg():
    _, timeline = run_net(glasstorch, G, name="model")
    timeline.note('a "quoted" \\ note')
    svg = timeline.draw().svg()
    assert svg.lstrip().startswith("<?xml") and svg.rstrip().endswith("</svg>")
    assert ">1. forward pre&#45;hook</text>" in svg and ">backward</text>" in svg
    assert ">a &quot;quoted&quot; \\ note</text>" in svg


# --- the same recorder on real PyTorch --------------------------------------------------------------

def test_same_events_as_pytorch(torch):
    """The recorder uses only nn.Module's hook API: on a PyTorch model it records PyTorch's order,
    and glasstorch fires its hooks in the same order with the same shapes."""
    T = make_models(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and neither prints the no-input-grad warning
        _, ours = run_net(glasstorch, G, name="model")
        _, theirs = run_net(torch, T, name="model")
    assert theirs.events == ours.events
    assert str(theirs) == NET_LISTING


def test_same_events_as_pytorch_for_a_module_called_twice(torch):
    def run(torch, models):
        model = models.Twice()
        x = torch.ones(2, 3, requires_grad=True)  # now the model's input needs a gradient too
        with record_hooks(model) as timeline:
            model(x).sum().backward()
        return timeline

    ours, theirs = run(glasstorch, G), run(torch, make_models(torch))
    assert theirs.events == ours.events
    steps = [(e.kind, e.module) for e in ours.events]
    assert steps.count(("forward_pre", "fc")) == 2 and steps.count(("backward", "fc")) == 2
    # the model's own backward hook now waits for the whole graph inside it
    assert steps[-1] == ("backward", "")


def test_legacy_hooks_are_skipped_the_same_way_in_pytorch(torch):
    def run(torch, models):
        net = models.Net()
        net.head.register_backward_hook(lambda *args: None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's legacy hooks warn about their own use
            with record_hooks(net) as timeline:
                net(torch.ones(2, 3)).sum().backward()
        return timeline, net

    (ours, g_net), (theirs, t_net) = run(glasstorch, G), run(torch, make_models(torch))
    assert theirs.events == ours.events and ours.events[0].kind == "note"
    assert t_net.head._is_full_backward_hook is False and not t_net.block._backward_hooks


def test_hook_event_is_a_plain_record():
    event = HookEvent("forward", "fc", "Linear", "output: (2, 4)", "forward")
    assert event == HookEvent("forward", "fc", "Linear", "output: (2, 4)", "forward")
    with pytest.raises(AttributeError):
        event.kind = "note"  # frozen: a timeline is a record of what happened


@needs_dot
def test_module_tree_legend_takes_no_width_beside_the_tree():
    unlimited = {"size": "100,100"}  # the natural size, before any fitting to the page
    with_legend = svg_size(draw_module_tree(G.Net(), name="net"), **unlimited)
    without = svg_size(draw_module_tree(G.Net(), name="net", legend=False), **unlimited)
    assert with_legend[0] == without[0] and with_legend[1] > without[1]
