"""One palette for every glasstorch picture: the autograd DAG, the module tree, the hook timeline.

torchviz's ``make_dot`` (torchviz/dot.py) colours by kind: lightblue leaves, orange saved tensors,
green outputs, grey backward functions. glasstorch keeps those colour families, so a picture looks
familiar, and adds what torchviz leaves out:

* every kind also has its own *shape*, so the picture still reads in grey print or for a reader
  who does not tell the colours apart;
* every box is *filled* with a light colour and has a darker border of the same hue, and all text
  is near-black: the boxes read the same in JupyterLab's light and dark themes (the background
  shows only between boxes, and edges are a mid-grey that shows on both).

The pictures ask for these attributes by kind (``node_style("leaf")``), never spell colours
themselves: change a colour here and every picture follows.
"""
from __future__ import annotations

FONT = "Helvetica"
FONT_SIZE = "12"
SMALL_FONT_SIZE = "10"  # saved tensors, legend: secondary information
TITLE_FONT_SIZE = "14"

TEXT = "#1a1a1a"  # near-black: always drawn on a light fill
EDGE = "#808080"  # mid-grey: visible on a white and on a dark page
LEGEND_FILL = "#f7f7f7"
LEGEND_BORDER = "#b0b0b0"

# The marks added to a box's label (strings, so tests and other pictures can look for them).
HOOK_MARK = "⚓"
RETAIN_GRAD_MARK = "retain_grad"
MORE_MARK = "…"

# kind -> Graphviz node attributes. fill: light; border ("color"): the darker tone of the same hue.
KINDS: dict[str, dict[str, str]] = {
    # a tensor whose .grad backward fills: blue as in torchviz; square box
    "leaf": {"shape": "box", "style": "filled", "fillcolor": "#cfe2ff", "color": "#2f5d9e"},
    # a backward function (grad_fn, AccumulateGrad): grey as in torchviz; rounded box
    "node": {"shape": "box", "style": "rounded,filled", "fillcolor": "#e4e4e4", "color": "#5c5c5c"},
    # a tensor we start backward from: green as in torchviz; double border
    "output": {"shape": "box", "style": "filled", "peripheries": "2", "fillcolor": "#cdebc9",
               "color": "#43a047"},
    # a named non-leaf tensor: violet; dashed box (it keeps no .grad unless retain_grad())
    "tensor": {"shape": "box", "style": "filled,dashed", "fillcolor": "#e8dcf6", "color": "#6a4c9c"},
    # a tensor a Node saved for its backward: orange as in torchviz; folded-corner note, small
    "saved": {"shape": "note", "style": "filled", "fillcolor": "#ffdcb5", "color": "#b85c00",
              "fontsize": SMALL_FONT_SIZE},
    # what was left out of a large picture: pale, dashed
    "more": {"shape": "box", "style": "rounded,dashed,filled", "fillcolor": "#f4f4f4", "color": "#8c8c8c"},
}

# What the legend says about each kind.
LEGEND_TEXT: dict[str, str] = {
    "output": "output tensor",
    "node": "Node (grad_fn)",
    "tensor": "non-leaf tensor",
    "leaf": "leaf tensor",
    "saved": "saved tensor",
}

# Defaults for a whole picture. The sizes keep a 12 pt label readable when a notebook shows the
# picture about 800 px wide (Graphviz's "size" is in inches at 72 px per inch: 11 in ~ 800 px);
# only larger pictures are scaled down, and ``max_nodes`` keeps those few.
GRAPH_ATTRS: dict[str, str] = {
    "size": "11,100",  # only the width is limited: a tall chain stays readable (scrolls)
    "ranksep": "0.35",
    "nodesep": "0.25",
    "fontname": FONT,
    "fontsize": FONT_SIZE,
    "fontcolor": EDGE,  # the title sits on the page background: mid-grey reads on both themes
    "bgcolor": "transparent",
}
NODE_ATTRS: dict[str, str] = {
    "fontname": FONT,
    "fontsize": FONT_SIZE,
    "fontcolor": TEXT,
    "height": "0.3",
    "margin": "0.12,0.05",
    "penwidth": "1.2",
}
EDGE_ATTRS: dict[str, str] = {
    "color": EDGE,
    "arrowsize": "0.7",
    "penwidth": "1.2",
}


def node_style(kind: str) -> dict[str, str]:
    """The Graphviz attributes of a box of this kind (a copy: callers may add to it)."""
    return dict(KINDS[kind])
