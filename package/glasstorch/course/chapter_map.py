"""The map of the course: every chapter, grouped by part, with an arrow for "builds on".

Chapter 00 draws it with ``chapter_map()``. The list below is the syllabus (``SYLLABUS.md``) in
data form; the picture uses the palette of ``glasstorch.viz.style`` and is a ``GraphPicture``, so
Jupyter shows it and nbval compares its DOT source, which is the same on every machine.
"""
from __future__ import annotations

from typing import NamedTuple


class Chapter(NamedTuple):
    number: str   # the notebook's prefix in book/: "04"
    title: str
    part: int     # 0 for the welcome, then Parts I, II, III


PARTS = {
    1: "Part I: tensors and autograd",
    2: "Part II: nn.Module internals",
    3: "Part III: building and training networks",
}

CHAPTERS = (  # titles wrapped by hand ("\n"), so that the map fits a notebook's width
    Chapter("00", "Welcome", 0),
    Chapter("01", "Tensors", 1),
    Chapter("02", "Storage, strides\nand views", 1),
    Chapter("03", "Autograd\nfrom scratch", 1),
    Chapter("04", "The computational\ngraph", 1),
    Chapter("05", "Backward:\nthe engine", 1),
    Chapter("06", "Hooks on tensors,\nretain_grad,\nautograd.grad", 1),
    Chapter("07", "detach, no_grad,\ndynamic graphs", 1),
    Chapter("08", "Autograd beyond\nthe basics", 1),
    Chapter("09", "Parameters and\nModule.__init__", 2),
    Chapter("10", "Walking the\nmodule tree", 2),
    Chapter("11", "apply, _apply,\ndtypes and modes", 2),
    Chapter("12", "Module hooks\nand __call__", 2),
    Chapter("13", "state_dict and\nloading", 2),
    Chapter("14", "Checkpoints\non disk", 2),
    Chapter("15", "Layers and the\nfunctional twin", 3),
    Chapter("16", "Optimizers and\nschedules", 3),
    Chapter("17", "Capstone:\na digit classifier", 3),
)

# (earlier, later): the later chapter builds on the earlier one.
BUILDS_ON = (
    ("00", "01"),
    ("01", "02"),
    ("01", "03"),
    ("03", "04"),   # the graph a tiny engine builds, now PyTorch's
    ("02", "05"),   # in-place changes through views, the version counter
    ("04", "05"),
    ("05", "06"),
    ("05", "07"),
    ("05", "08"),
    ("06", "08"),   # hooks on Nodes, post-accumulate hooks
    ("07", "08"),   # custom Functions, grad modes
    ("04", "09"),   # a Parameter is a leaf tensor
    ("09", "10"),
    ("10", "11"),
    ("07", "11"),   # init under no_grad
    ("09", "12"),
    ("06", "12"),   # backward hooks: tensor hooks there, hooks on Nodes here
    ("10", "13"),   # state_dict walks the tree with dotted prefixes
    ("11", "15"),   # Dropout and BatchNorm follow train()/eval()
    ("05", "16"),   # optimizers read .grad
    ("13", "14"),
    ("14", "16"),   # ... and their state is part of a checkpoint
    ("15", "17"),
    ("16", "17"),
    ("12", "17"),
)

# Each part takes the colours (not the shapes) of one kind of the viz palette.
_PART_COLOURS = {0: "more", 1: "leaf", 2: "tensor", 3: "output"}


def stacking_edges() -> list[tuple[str, str]]:
    """Invisible (earlier, later) edges that put each part below the one before it: from every
    chapter of a part that no chapter of the same part builds on, to the next part's first
    chapter. The parts then stack in reading order, each frame on rows of its own: the map is as
    narrow as one part (it fits a book's column) and no frame reaches into another's."""
    edges = []
    numbers = sorted(PARTS)
    for part, next_part in zip(numbers, numbers[1:]):
        chapters = [c.number for c in CHAPTERS if c.part == part]
        built_on = {earlier for earlier, later in BUILDS_ON if later in chapters}
        first_next = next(c.number for c in CHAPTERS if c.part == next_part)
        edges += [(number, first_next) for number in chapters if number not in built_on]
    return edges


def chapter_map(rankdir: str = "TB"):
    """The chapters as a graph: a box per chapter inside a frame per part, an arrow from each
    chapter to those that build on it. Returns a ``glasstorch.viz.GraphPicture``."""
    import graphviz

    from ..viz import style
    from ..viz.picture import GraphPicture

    graph_attrs = dict(style.GRAPH_ATTRS, rankdir=rankdir, ranksep="0.4", nodesep="0.2")
    dot = graphviz.Digraph("chapters", graph_attr=graph_attrs, node_attr=style.NODE_ATTRS,
                           edge_attr=style.EDGE_ATTRS)

    def box(graph, chapter: Chapter) -> None:
        colours = style.KINDS[_PART_COLOURS[chapter.part]]
        label = f"{chapter.number}  {chapter.title}".replace("\n", "\\n")
        graph.node(f"c{chapter.number}", label, shape="box", style="rounded,filled",
                   fillcolor=colours["fillcolor"], color=colours["color"])

    for chapter in CHAPTERS:
        if chapter.part == 0:
            box(dot, chapter)
    for part, title in PARTS.items():
        with dot.subgraph(name=f"cluster_part{part}") as cluster:
            cluster.attr(label=title, style="rounded,filled", fillcolor=style.LEGEND_FILL,
                         color=style.LEGEND_BORDER, fontcolor=style.TEXT, labelloc="t")
            for chapter in CHAPTERS:
                if chapter.part == part:
                    box(cluster, chapter)
    for earlier, later in BUILDS_ON:
        dot.edge(f"c{earlier}", f"c{later}")
    for earlier, later in stacking_edges():
        dot.edge(f"c{earlier}", f"c{later}", style="invis")
    summary = f"chapter map: {len(CHAPTERS)} chapters in {len(PARTS)} parts, {len(BUILDS_ON)} arrows"
    return GraphPicture(dot, summary)
