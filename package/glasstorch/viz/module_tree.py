"""Draw an ``nn.Module`` as the tree (or DAG) of its submodules: ``draw_module_tree``.

What ``print(model)`` shows as indented text, drawn: one box per module, in ``named_modules()``
order, labelled ``fc1: Linear`` (the attribute name it was registered under, and its class), with
a small table of the module's *own* parameters and buffers, and an arrow from each parent to each
child in registration order (``_modules``). It reads the same dictionaries PyTorch's
torch/nn/modules/module.py keeps: ``_modules``, ``_parameters``, ``_buffers`` and
``_non_persistent_buffers_set``, so it draws a real PyTorch model too.

What the text of ``print(model)`` hides and the picture shows:

* a module registered twice (shared layers) is **one box with two incoming arrows**: the model is
  a DAG, not a tree, and ``named_modules()`` lists the module once;
* a parameter registered in two modules (tied weights) says which name owns it;
* a **non-persistent** buffer says, in italics, that it is not in ``state_dict()``;
* a **frozen** parameter (``requires_grad=False``), and a dtype other than float32.

Readable at a book's width: the tree grows left to right by default (``rankdir="LR"``: as wide as
the model is deep, not as wide as its widest layer), the legend sits above it, only what is not
the default is written (a frozen parameter, not every trainable one), and ``max_children``
collapses the middle of a long ``Sequential`` into one "… N more" box. Box ids come from the dotted names (``m_block_0``),
never from ``id()``, so the DOT text is the same on every run.
"""
from __future__ import annotations

import math
import re
from html import escape
from typing import Any

import graphviz

from . import style
from .dag import RANKDIRS, _count, _shape
from .picture import GraphPicture

# The three kinds of things in the picture, in the palette's terms: a module is a box of work
# like a backward Node (grey, rounded); a parameter is a leaf that gets a .grad (blue); a buffer is
# a tensor that gets none (violet).
MODULE_KIND = "node"
PARAMETER_KIND = "leaf"
BUFFER_KIND = "tensor"
LEGEND_TEXT = {MODULE_KIND: "module", PARAMETER_KIND: "parameter", BUFFER_KIND: "buffer",
               "more": "collapsed children"}
NOT_IN_STATE_DICT = "buffer, not in state_dict"
SHARED_MARK = "shared"
# a module's children as (drawn first, collapsed into "… N more", drawn last): (name, module) pairs
_Split = tuple[list, list, list]


def draw_module_tree(
    module: Any,
    *,
    name: str | None = None,
    show_parameters: bool = True,
    show_buffers: bool = True,
    max_children: int | None = None,
    rankdir: str = "LR",
    legend: bool = True,
    title: str | None = None,
) -> GraphPicture:
    """Draw ``module``'s submodules, parameters and buffers.

    >>> draw_module_tree(model, name="model")      # shows itself in Jupyter; .source is the DOT

    name             what to call the root box ("model: Net"); by default only its class.
    show_parameters  list each module's own parameters: name, shape, dtype (if not float32),
                     and "requires_grad=False" for a frozen one.
    show_buffers     list each module's own buffers; a non-persistent one in italics.
    max_children     draw at most this many children of any module: the first and last ones, and
                     one "… N more" box for those in the middle (and everything below them).
    rankdir          "LR" (root on the left, children in a column) or "TB" (root on top).
    legend           a small legend of the box kinds.
    title            a line of text above the picture.
    """
    if not callable(getattr(module, "named_modules", None)):
        raise TypeError(f"draw_module_tree expects an nn.Module, got {type(module).__name__}")
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    if max_children is not None and (isinstance(max_children, bool) or not isinstance(max_children, int)
                                     or max_children < 1):
        raise ValueError(f"max_children must be a positive integer or None, got {max_children!r}")

    modules = list(module.named_modules())  # each module once, under its first name
    shown = _shown_children(modules, max_children)
    drawn = _reachable(module, shown)
    drawer = _TreeDrawer(rankdir=rankdir, title=title, show_parameters=show_parameters, show_buffers=show_buffers)
    drawer.draw(modules, drawn, shown, root_name=name)
    drawer.draw_label(legend)
    return GraphPicture(drawer.dot, _summary(modules, drawn))


# --- reading the model ----------------------------------------------------------------------

def _children(module: Any) -> list[tuple[str, Any]]:
    """Every registration in ``_modules``, in order, duplicates included (``named_children()``
    would drop a module registered twice, and that is what the picture should show)."""
    return [(name, child) for name, child in module._modules.items() if child is not None]


def _shown_children(modules: list[tuple[str, Any]], max_children: int | None) -> dict[int, _Split]:
    """``{id(module): (head, collapsed, tail)}`` of its children. With ``max_children=k`` and more
    children than that, the first ceil(k/2) and the last floor(k/2) are drawn and the middle ones
    collapse. id() is only a key here: every module is alive in ``modules``."""
    shown = {}
    for _, module in modules:
        children = _children(module)
        if max_children is None or len(children) <= max_children:
            shown[id(module)] = (children, [], [])
        else:
            head, tail = math.ceil(max_children / 2), max_children // 2
            middle_end = len(children) - tail
            shown[id(module)] = (children[:head], children[head:middle_end], children[middle_end:])
    return shown


def _drawn_children(split: _Split) -> list[tuple[str, Any]]:
    return split[0] + split[2]


def _reachable(root: Any, shown: dict[int, _Split]) -> set[int]:
    """The ids of the modules reachable from the root through drawn (not collapsed) children."""
    seen, stack = {id(root)}, [root]
    while stack:
        for _, child in _drawn_children(shown[id(stack.pop())]):
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return seen


def _summary(modules: list[tuple[str, Any]], drawn: set[int]) -> str:
    params = {id(p) for _, m in modules for p in m._parameters.values() if p is not None}
    buffers = {id(b) for _, m in modules for b in m._buffers.values() if b is not None}
    root_class = type(modules[0][1]).__name__
    text = (f"module tree of {root_class}: {_count(len(modules), 'module')}, {_count(len(params), 'parameter')}, "
            f"{_count(len(buffers), 'buffer')}")
    if len(drawn) < len(modules):
        text += f", {len(drawn)} drawn"
    return text


def _dtype_name(tensor: Any) -> str:
    """'int64' for glasstorch.int64 and torch.int64 alike; '' for float32, the default."""
    name = str(tensor.dtype).rsplit(".", 1)[-1]
    return "" if name == "float32" else name


def _node_id_base(dotted_name: str) -> str:
    """'block.0' -> 'm_block_0': readable, stable, and a valid DOT id without quotes."""
    return "m" + "".join("_" + re.sub(r"[^0-9A-Za-z_]", "_", part) for part in dotted_name.split(".") if part)


class _Ids:
    """Hands out DOT ids from readable bases, adding _2, _3 ... when two bases clash (a child
    named 'a_b' and a grandchild 'a.b' both make 'm_a_b'). Called in a fixed order, so the same
    model always gets the same ids."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def take(self, base: str) -> str:
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        return candidate


# --- drawing --------------------------------------------------------------------------------

def _cell(text: str, fill: str, align: str = "LEFT") -> str:
    return f'<TD ALIGN="{align}" BGCOLOR="{fill}">{text}</TD>'


def _small(text: str) -> str:
    return f'<FONT POINT-SIZE="{style.SMALL_FONT_SIZE}">{text}</FONT>'


class _TreeDrawer:
    """Builds the Digraph: one HTML-like label per module (a header row and one row per tensor)."""

    def __init__(self, *, rankdir: str, title: str | None, show_parameters: bool, show_buffers: bool) -> None:
        # ordering=out: children keep their registration order along the column (or row)
        graph_attrs = dict(style.GRAPH_ATTRS, rankdir=rankdir, ordering="out")
        self.dot = graphviz.Digraph("modules", graph_attr=graph_attrs, node_attr=style.NODE_ATTRS,
                                    edge_attr=style.EDGE_ATTRS)
        self.show_parameters, self.show_buffers = show_parameters, show_buffers
        self.title = title
        self.kinds: list[str] = [MODULE_KIND]
        self.ids = _Ids()
        self.owner: dict[int, str] = {}  # id(parameter) -> the dotted name it was first seen under

    def draw(self, modules: list[tuple[str, Any]], drawn: set[int], shown: dict, root_name: str | None) -> None:
        node_ids = {id(m): self.ids.take(_node_id_base(name)) for name, m in modules if id(m) in drawn}
        incoming = self._incoming(modules, drawn, shown)
        for dotted, module in modules:
            for pname, param in module._parameters.items():  # tied weights: the first name owns it
                if param is not None:
                    self.owner.setdefault(id(param), f"{dotted}.{pname}" if dotted else pname)
        for dotted, module in modules:
            if id(module) not in drawn:
                continue
            attr_name = root_name if not dotted else dotted.rsplit(".", 1)[-1]
            self.draw_module(node_ids[id(module)], module, attr_name, dotted, incoming[id(module)])
        for dotted, module in modules:
            if id(module) in drawn:
                self.draw_edges(node_ids, module, shown[id(module)], incoming)

    @staticmethod
    def _incoming(modules: list[tuple[str, Any]], drawn: set[int], shown: dict) -> dict[int, int]:
        """How many drawn arrows point at each module: more than one means it is shared."""
        incoming = dict.fromkeys(drawn, 0)
        for _, module in modules:
            if id(module) in drawn:
                for _, child in _drawn_children(shown[id(module)]):
                    incoming[id(child)] += 1
        return incoming

    def draw_module(self, node_id: str, module: Any, attr_name: str | None, dotted: str, incoming: int) -> None:
        cls = escape(type(module).__name__)
        header = f"<B>{escape(attr_name)}</B>: {cls}" if attr_name else f"<B>{cls}</B>"
        fill = style.KINDS[MODULE_KIND]["fillcolor"]
        rows = [f'<TR><TD COLSPAN="3" ALIGN="LEFT">{header}</TD></TR>']
        if incoming > 1:  # the arrows say under which names
            mark = _small(f"{SHARED_MARK}: registered {incoming} times")
            rows.append(f'<TR><TD COLSPAN="3" ALIGN="LEFT">{mark}</TD></TR>')
        if self.show_parameters:
            rows += [self.parameter_row(dotted, pname, p) for pname, p in module._parameters.items()]
        if self.show_buffers:
            rows += [self.buffer_row(module, bname, b) for bname, b in module._buffers.items()]
        table = (f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2" BGCOLOR="{fill}">'
                 + "".join(rows) + "</TABLE>")
        self.dot.node(node_id, f"<{table}>", **style.node_style(MODULE_KIND))

    def parameter_row(self, dotted: str, pname: str, param: Any) -> str:
        fill = style.KINDS[PARAMETER_KIND]["fillcolor"]
        self._uses(PARAMETER_KIND)
        if param is None:  # Linear(bias=False) registers bias as None
            return "<TR>" + _cell(escape(pname), fill) + _cell("None", fill) + _cell("", fill) + "</TR>"
        here = f"{dotted}.{pname}" if dotted else pname
        owner = self.owner[id(param)]
        if owner != here:
            note = f"same tensor as {escape(owner)}"
        else:  # only the exception is written: a column of "requires_grad" would only add width
            note = "" if param.requires_grad else "requires_grad=False"
        shape = " ".join(filter(None, [_shape(param), _dtype_name(param)]))
        # (an empty <FONT></FONT> is a syntax error for dot)
        return "<TR>" + _cell(escape(pname), fill) + _cell(shape, fill) + _cell(note and _small(note), fill) + "</TR>"

    def buffer_row(self, module: Any, bname: str, buffer: Any) -> str:
        fill = style.KINDS[BUFFER_KIND]["fillcolor"]
        self._uses(BUFFER_KIND)
        shape = "None" if buffer is None else " ".join(filter(None, [_shape(buffer), _dtype_name(buffer)]))
        if bname in module._non_persistent_buffers_set:
            note = f"<I>{NOT_IN_STATE_DICT}</I>"
            name = f"<I>{escape(bname)}</I>"
        else:
            note, name = "buffer", escape(bname)
        return "<TR>" + _cell(name, fill) + _cell(shape, fill) + _cell(_small(note), fill) + "</TR>"

    def draw_edges(self, node_ids: dict[int, str], module: Any, split: _Split, incoming: dict[int, int]) -> None:
        """Arrows to the children in registration order, the "… N more" box in the middle."""
        head, hidden, tail = split
        parent_id = node_ids[id(module)]
        for child_name, child in head:
            self.draw_edge(parent_id, node_ids[id(child)], child_name, incoming[id(child)])
        if hidden:
            self.draw_more(parent_id, hidden)
        for child_name, child in tail:
            self.draw_edge(parent_id, node_ids[id(child)], child_name, incoming[id(child)])

    def draw_edge(self, parent_id: str, child_id: str, child_name: str, incoming: int) -> None:
        if incoming > 1:  # a shared module's arrows say under which name each parent registered it
            self.dot.edge(parent_id, child_id, label=child_name, fontsize=style.SMALL_FONT_SIZE, fontcolor=style.EDGE)
        else:
            self.dot.edge(parent_id, child_id)

    def draw_more(self, parent_id: str, hidden: list[tuple[str, Any]]) -> None:
        """One box for the collapsed middle children: how many, which names, which classes."""
        more_id = self.ids.take(f"{parent_id}__more")
        classes: dict[str, int] = {}
        for _, child in hidden:
            classes[type(child).__name__] = classes.get(type(child).__name__, 0) + 1
        names = hidden[0][0] if len(hidden) == 1 else f"{hidden[0][0]} … {hidden[-1][0]}"
        kinds = ", ".join(f"{cls} ×{n}" for cls, n in classes.items())
        label = f"{style.MORE_MARK} {len(hidden)} more: {names}\\n{kinds}"
        self.dot.node(more_id, label, **style.node_style("more"))
        self.dot.edge(parent_id, more_id, style="dashed")
        self._uses("more")

    def _uses(self, kind: str) -> None:
        if kind not in self.kinds:
            self.kinds.append(kind)

    def draw_label(self, legend: bool) -> None:
        """The title, and a legend of the kinds drawn."""
        kinds = [(kind, LEGEND_TEXT[kind]) for kind in LEGEND_TEXT if kind in self.kinds] if legend else []
        self.dot.graph_attr.update(style.graph_label(self.title, kinds, "arrows: parent → submodule"))
