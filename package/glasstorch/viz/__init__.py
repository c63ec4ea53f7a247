"""Pictures of glasstorch's internals, drawn with Graphviz.

``draw_graph(y, params={"w": w})`` draws the autograd graph behind ``y``; ``make_dot`` is the same
picture under torchviz's name and signature (torchviz/dot.py), for code written for torchviz.
Both return a ``GraphPicture``: Jupyter shows it, nbval compares its DOT source, ``save`` writes
an SVG or PNG. ``style`` holds the palette every picture shares.

For ``nn.Module``: ``draw_module_tree(model)`` draws the submodules with their parameters and
buffers; ``with record_hooks(model) as timeline: ...`` records the order in which module hooks
fire, ``print(timeline)`` lists it and ``timeline.draw()`` draws it.
"""
from .dag import draw_graph, make_dot
from .hook_timeline import HookEvent, HookTimeline, record_hooks
from .memory import draw_storage
from .module_tree import draw_module_tree
from .picture import GraphPicture
from .shapes import draw_broadcast_gradient, draw_matmul_gradient  # noqa: F401 - shapes on the arrows

__all__ = ["draw_graph", "make_dot", "GraphPicture", "draw_module_tree", "record_hooks", "HookTimeline",
           "HookEvent", "draw_storage"]
