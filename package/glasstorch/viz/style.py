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
themselves: change a colour here and every picture follows. ``graph_label`` writes every picture's
title and legend the same way.
"""
from __future__ import annotations

from html import escape
from typing import Sequence

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

# Defaults for a whole picture. A browser draws 1 pt as 4/3 px, so Graphviz's "size" of 7.2 in
# (518 pt) shows as about 690 px: the book's text column (688 px), and a notebook cell on a laptop.
# A picture laid out wider is scaled down to that width, its text with it (a 10 pt label stays
# 11 px or larger only down to a scale of 0.83), so the pictures avoid width instead: trees grow
# left to right, the legend sits above the picture (``graph_label``), only what is not the default
# is written, and ``max_nodes`` / ``max_children`` collapse the middle of large graphs. The height
# is not limited: a tall chain stays readable and scrolls.
GRAPH_ATTRS: dict[str, str] = {
    "size": "7.2,100",
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


def graph_label(title: str | None = None, legend: Sequence[tuple[str, str]] = (),
                caption: str = "") -> dict[str, str]:
    """Graph attributes for what goes above a picture: its ``title``, and a legend with one sample
    box per ``(kind, text)`` of ``legend`` in a single row, under a ``caption`` ("arrows: ...").

    The legend is the graph's own label (an HTML-like table), not boxes in the layout: it takes no
    room beside the picture, never moves a box, and is at most a row of five short words wide
    (about 420 pt, inside the book's column). The samples copy each kind's fill, border and
    outline (rounded, dashed, double); a "note" kind shows as a plain box."""
    if not legend:
        return {"label": title, "labelloc": "t", "fontsize": TITLE_FONT_SIZE} if title else {}
    heading = escape(f"legend · {caption}" if caption else "legend")
    samples = "".join(f"<TD>{_sample(kind, text)}</TD>" for kind, text in legend)
    table = (f'<TABLE BORDER="1" STYLE="rounded" COLOR="{LEGEND_BORDER}" BGCOLOR="{LEGEND_FILL}" CELLBORDER="0" '
             f'CELLSPACING="5" CELLPADDING="0"><TR><TD COLSPAN="{len(legend)}">{_small_text(heading)}</TD></TR>'
             f"<TR>{samples}</TR></TABLE>")
    if title:  # the title above the legend's frame
        title_text = f'<FONT POINT-SIZE="{TITLE_FONT_SIZE}" COLOR="{EDGE}">{escape(title)}</FONT>'
        table = f'<TABLE BORDER="0" CELLSPACING="2"><TR><TD>{title_text}</TD></TR><TR><TD>{table}</TD></TR></TABLE>'
    return {"label": f"<{table}>", "labelloc": "t"}


def _small_text(text: str) -> str:
    return f'<FONT POINT-SIZE="{SMALL_FONT_SIZE}" COLOR="{TEXT}">{text}</FONT>'


def _sample(kind: str, text: str) -> str:
    """A legend's sample of a kind: its text in a table drawn like the kind's boxes."""
    attrs = KINDS[kind]
    outline = ",".join(word for word in ("rounded", "dashed") if word in attrs["style"])
    outline = f' STYLE="{outline}"' if outline else ""
    sample = (f'<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" BGCOLOR="{attrs["fillcolor"]}" '
              f'COLOR="{attrs["color"]}"{outline}><TR><TD>{_small_text(escape(text))}</TD></TR></TABLE>')
    if attrs.get("peripheries") == "2":  # a second border around the first, as dot draws it
        sample = (f'<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="2" CELLPADDING="0" COLOR="{attrs["color"]}">'
                  f"<TR><TD>{sample}</TD></TR></TABLE>")
    return sample
