"""Pictures of glasstorch's internals, drawn with Graphviz.

``draw_graph(y, params={"w": w})`` draws the autograd graph behind ``y``; ``make_dot`` is the same
picture under torchviz's name and signature (torchviz/dot.py), for code written for torchviz.
Both return a ``GraphPicture``: Jupyter shows it, nbval compares its DOT source, ``save`` writes
an SVG or PNG. ``style`` holds the palette every picture shares.
"""
from .dag import draw_graph, make_dot
from .picture import GraphPicture

__all__ = ["draw_graph", "make_dot", "GraphPicture"]
