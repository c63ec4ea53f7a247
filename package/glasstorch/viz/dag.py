"""Draw the autograd graph of a tensor: ``draw_graph`` and torchviz's ``make_dot``.

Mirrors torchviz's ``make_dot`` (torchviz/dot.py), the picture learners already know: one box per
backward Node (``MulBackward0``), one ``AccumulateGrad`` per leaf that requires grad, the leaf
tensors (named through ``params``) and the output, and, on request, what each Node saved.

What it adds, for a course:

* **Edges follow the gradient**: from the output down to the leaves, along ``next_functions``, the
  way the engine walks the graph. (torchviz draws them the other way, input to op.)
* Named **non-leaf** tensors: ``params={"a": a}`` puts a box ``a`` beside the Node that made ``a``.
* Kinds told apart by **shape and colour**, with a legend (``viz/style.py`` holds the palette).
* ``show_order``: each Node numbered by the order backward runs it (``engine.execution_order``,
  the engine's own scheduler, not a copy of it).
* ``show_hooks``: a mark on tensors with hooks and on tensors that called ``retain_grad()``.
* ``show_saved`` says **freed** once backward has released what a Node saved.
* **Deterministic DOT**: boxes are named n0, n1, ... in the order the graph is walked, never by
  ``id()``, so the same graph gives the same text on every run, and a notebook can be checked by
  comparing it. ``max_nodes`` keeps big graphs readable by collapsing the rest into one box.
* **Any scalar engine's values**, not only glasstorch tensors: an object that names its inputs and
  its operation the way micrograd's ``Value`` does (``_prev`` and ``_op``, the *value protocol*
  below) is drawn as micrograd draws it, one box per value and one per operation, with the edges
  following the gradient as in the rest of the course. Chapter 03 draws its own ``Value`` so.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Mapping, Sequence

import graphviz
import numpy as np

from .._tensor import Tensor
from ..autograd.engine import execution_order
from ..autograd.graph import AccumulateGrad, Node, SavedTensor, gradient_edge
from . import style
from .picture import GraphPicture

RANKDIRS = ("TB", "LR", "BT", "RL")


def draw_graph(
    roots: Tensor | Sequence[Tensor],
    params: Mapping[str, Tensor] | None = None,
    *,
    show_saved: bool = False,
    show_order: bool = False,
    show_hooks: bool = True,
    show_attrs: bool = False,
    show_values: bool = False,
    show_grads: bool = False,
    legend: bool = True,
    title: str | None = None,
    rankdir: str = "TB",
    max_nodes: int = 60,
    max_attr_chars: int = 50,
) -> GraphPicture:
    """Draw the autograd graph that ends in ``roots`` (a tensor, or a list of tensors).

    >>> pic = draw_graph(y, params={"w": w, "x": x})   # shows itself in Jupyter
    >>> print(pic.source)                               # the DOT text; pic.save("graph.png")

    params       names for tensors: leaves (``{"w": w}``) and non-leaf tensors you want to see
                 (``{"a": a}``); an unnamed tensor shows only its shape.
    show_saved   each Node's saved tensors (shape, and the value of a one-element tensor);
                 "freed" once backward has released them.
    show_order   number each Node by the order backward would run it: 1, 2, 3, ...
    show_hooks   mark tensors with hooks (register_hook) and those that called retain_grad().
    show_attrs   each Node's other attributes (alpha, shapes, ...), cut to ``max_attr_chars``.
    show_values  each tensor box shows its value: a small tensor in full, a larger one as its
                 first numbers (micrograd's picture, for the real graph).
    show_grads   each tensor box shows its ``.grad`` once backward has filled it (a leaf's, or a
                 non-leaf's that called ``retain_grad()``); "grad None" before.
    legend       a small legend of the box kinds.
    title        a line of text above the picture.
    rankdir      "TB" (output on top, leaves at the bottom) or "LR" (output on the left):
                 a wide, shallow graph (many leaves) reads better left to right.
    max_nodes    draw at most this many Nodes (those nearest the output); the rest become one
                 "… N more nodes" box.

    ``roots`` may also be values of a scalar autograd engine (micrograd's ``Value``, chapter 03's):
    any object that follows the value protocol (``is_value``): ``_prev``, the values it was computed
    from (empty for a leaf), and ``_op``, the name of the operation that made it ("" for a leaf);
    ``data`` and ``grad`` are shown by show_values and show_grads, and a ``label`` string names the
    value when ``params`` does not. Such a graph has no saved tensors, hooks or engine order, so
    show_saved, show_order and show_attrs are refused for it. Keep ``_prev`` a tuple (micrograd
    keeps a set, whose order changes from run to run) for a DOT text that is the same every run.
    """
    if _are_values(roots):
        return _draw_values(roots, params, show_saved=show_saved, show_order=show_order, show_attrs=show_attrs,
                            show_values=show_values, show_grads=show_grads, legend=legend, title=title,
                            rankdir=rankdir, max_nodes=max_nodes)
    outputs = _as_tensors(roots)
    params = dict(params) if params is not None else {}  # also takes pairs: model.named_parameters()
    names = _names_by_id(params)
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    if not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a positive integer, got {max_nodes!r}")

    root_nodes = list(dict.fromkeys(n for n in map(gradient_edge, outputs) if n is not None))
    every_node = _walk(root_nodes)
    drawn_nodes = every_node[:max_nodes]  # breadth first: the Nodes nearest the output
    order = {node: i for i, node in enumerate(execution_order(root_nodes), 1)} if show_order else {}

    drawer = _Drawer(names, title=title, rankdir=rankdir, show_hooks=show_hooks, show_saved=show_saved,
                     show_attrs=show_attrs, show_values=show_values, show_grads=show_grads,
                     max_attr_chars=max_attr_chars, order=order)
    drawer.draw(outputs, drawn_nodes, hidden=len(every_node) - len(drawn_nodes), params=params)
    drawer.draw_label(legend)

    leaves = sum(isinstance(node, AccumulateGrad) for node in every_node)
    summary = f"autograd graph of {_count(len(every_node), 'Node')}, {_count(leaves, 'leaf', 'leaves')}"
    if len(drawn_nodes) < len(every_node):
        summary += f", {len(drawn_nodes)} drawn"
    return GraphPicture(drawer.dot, summary)


def make_dot(
    var: Tensor | Sequence[Tensor],
    params: Mapping[str, Tensor] | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    max_attr_chars: int = 50,
) -> GraphPicture:
    """torchviz's ``make_dot``, same signature: ``draw_graph`` with its default picture.

    Differences from torchviz: edges point the way gradients flow (torchviz: input to op),
    ``show_attrs`` lists a Node's non-tensor attributes, and the result is a ``GraphPicture``
    (its ``.digraph`` is the ``graphviz.Digraph`` torchviz would return)."""
    return draw_graph(var, params, show_attrs=show_attrs, show_saved=show_saved, max_attr_chars=max_attr_chars)


# --- reading the graph ----------------------------------------------------------------------

def _as_tensors(roots: Any) -> list[Tensor]:
    """The outputs to draw, each once, in the order given."""
    tensors = [roots] if isinstance(roots, Tensor) else list(roots) if isinstance(roots, (list, tuple)) else None
    if tensors is None or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"draw_graph expects a tensor or a list of tensors (or values with _prev and _op), "
                        f"got {type(roots).__name__}")
    return list({id(t): t for t in tensors}.values())


def _names_by_id(params: Mapping[str, Tensor]) -> dict[int, str]:
    """``{id(tensor): name}``. id() is only a key here (the tensors are alive in ``params``); it
    never reaches the picture. As in torchviz, a tensor given two names shows the last one."""
    names = {}
    for name, tensor in params.items():
        if not isinstance(tensor, Tensor):
            raise TypeError(f"params[{name!r}] must be a tensor, got {type(tensor).__name__}")
        names[id(tensor)] = str(name)
    return names


def _walk(roots: Sequence[Node]) -> list[Node]:
    """Every Node reachable from the roots, each once, breadth first (a loop, not recursion, so
    a chain of thousands of operations is no problem). The picture numbers boxes in this order."""
    seen = dict.fromkeys(roots)  # a dict is an ordered set
    queue = deque(seen)
    while queue:
        for next_node in queue.popleft()._next:
            if next_node is not None and next_node not in seen:
                seen[next_node] = None
                queue.append(next_node)
    return list(seen)


def _shape(tensor_or_array: Any) -> str:
    """A shape written as a tuple, as torchviz does: (1,), (2, 3), () for a 0-d tensor."""
    return str(tuple(int(n) for n in tensor_or_array.shape))


def _value(array: Any) -> str:
    """A one-element array's value, short: 3. for a float, as PyTorch prints it."""
    value = array.reshape(()).item()
    if isinstance(value, float):
        text = f"{value:.4g}"
        return text + "." if text.lstrip("-").isdigit() else text
    return str(value)


def _numbers(array: Any, most: int = 4) -> str:
    """A tensor's values, short enough for a box: [1., 2.5] in full up to ``most`` numbers,
    else the first ones and "…" (a 0-d tensor as its number)."""
    if array.ndim == 0:
        return _value(array)
    flat = array.reshape(-1)
    shown = [_value(flat[i:i + 1]) for i in range(min(most, flat.size))]
    return "[" + ", ".join(shown) + (", …]" if flat.size > most else "]")


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _hook_marks(hooks: Mapping | None, retains_grad: bool) -> list[str]:
    count = len(hooks) if hooks else 0  # a removed hook leaves an empty dict behind
    marks = [f"{style.HOOK_MARK} {_count(count, 'hook')}"] if count else []
    if retains_grad:
        marks.append(style.RETAIN_GRAD_MARK)
    return marks


def _join(lines: Iterable[str]) -> str:
    # "\n" as DOT's own escape (backslash, n): each label stays on one line of the DOT text
    return "\\n".join(line for line in lines if line)


# --- drawing --------------------------------------------------------------------------------

class _Drawer:
    """Builds the Digraph. Gives each box its id (n0, n1, ...) the first time it is drawn or
    pointed at, which makes the DOT text depend only on the graph's shape."""

    def __init__(self, names: dict[int, str], *, title: str | None, rankdir: str, show_hooks: bool,
                 show_saved: bool, show_attrs: bool, max_attr_chars: int, order: dict,
                 show_values: bool = False, show_grads: bool = False) -> None:
        self.dot = graphviz.Digraph("autograd", graph_attr=dict(style.GRAPH_ATTRS, rankdir=rankdir),
                                    node_attr=style.NODE_ATTRS, edge_attr=style.EDGE_ATTRS)
        self.title = title
        self.names = names
        self.show_hooks, self.show_saved, self.show_attrs = show_hooks, show_saved, show_attrs
        self.show_values, self.show_grads = show_values, show_grads
        self.max_attr_chars = max(max_attr_chars, 3)  # as torchviz: room for the "..."
        self.order = order
        self.kinds: list[str] = []  # the kinds drawn, for the legend
        self._ids: dict[int, str] = {}
        self._alive: list[Any] = []  # keeps every object with an id alive, so no id() is reused
        self._count = 0
        self._more_id: str | None = None  # the "… N more nodes" box, made when first needed
        self.drawn: set = set()

    def id_of(self, obj: Any) -> str:
        if id(obj) not in self._ids:
            self._ids[id(obj)] = self.new_id()
            self._alive.append(obj)
        return self._ids[id(obj)]

    def new_id(self) -> str:
        self._count += 1
        return f"n{self._count - 1}"

    def box(self, box_id: str, label: str, kind: str, graph: Any = None) -> None:
        (graph or self.dot).node(box_id, label, **style.node_style(kind))
        if kind not in self.kinds:
            self.kinds.append(kind)

    # -- the whole picture ------------------------------------------------------------------
    def draw(self, outputs: list[Tensor], nodes: list[Node], hidden: int, params: Mapping[str, Tensor]) -> None:
        self.drawn = set(nodes)
        output_ids = {id(t) for t in outputs}
        # named non-leaf tensors, by the Node that made them (each tensor once: compared by
        # identity, since == between tensors compares their values)
        named_of: dict[Node, list[Tensor]] = {}
        for tensor in {id(t): t for t in params.values()}.values():
            if tensor.grad_fn in self.drawn and id(tensor) not in output_ids:
                named_of.setdefault(tensor.grad_fn, []).append(tensor)
        # the drawn tensors each Node made: its outputs among the roots, and its named tensors
        made_by: dict[Node, list[Tensor]] = {node: list(tensors) for node, tensors in named_of.items()}
        for tensor in outputs:
            if tensor.grad_fn is not None:
                made_by.setdefault(tensor.grad_fn, []).append(tensor)

        for tensor in outputs:
            self.draw_tensor(tensor, "output")
            node = gradient_edge(tensor)
            if node is not None:
                self.dot.edge(self.id_of(tensor), self.id_of(node) if node in self.drawn else self.more_id())
        for node in nodes:
            # A non-leaf tensor's hooks live on its grad_fn (as in PyTorch), but a learner looks
            # for them on the tensor: the Node carries them only when no tensor of its is drawn.
            self.draw_node(node, show_marks=node not in made_by)
            self.draw_named(node, named_of.get(node, ()))
            if self.show_saved:
                self.draw_saved(node, made_by.get(node, ()))
            if isinstance(node, AccumulateGrad):
                self.draw_tensor(node.variable, "leaf")
                self.dot.edge(self.id_of(node), self.id_of(node.variable))
            to_more = False
            for next_node in node._next:
                if next_node is None:  # an input that needs no gradient (a number, a constant)
                    continue
                if next_node in self.drawn:
                    self.dot.edge(self.id_of(node), self.id_of(next_node))
                elif not to_more:  # one edge into "… more" is enough
                    self.dot.edge(self.id_of(node), self.more_id())
                    to_more = True
        if hidden:
            label = f"{style.MORE_MARK} {_count(hidden, 'more node')}\\n(max_nodes={len(nodes)})"
            self.box(self.more_id(), label, "more")

    def more_id(self) -> str:
        """The one "… N more nodes" box that stands for every Node not drawn."""
        if self._more_id is None:
            self._more_id = self.new_id()
        return self._more_id

    def draw_tensor(self, tensor: Tensor, kind: str, graph: Any = None) -> None:
        if id(tensor) in self._ids:
            return  # already drawn: an output that is also a leaf keeps its output box
        lines = [self.names.get(id(tensor), ""), _shape(tensor)]
        if self.show_values:
            lines.append(f"data {_numbers(tensor._data)}")
        if self.show_grads:
            lines.append("grad None" if tensor._grad is None else f"grad {_numbers(tensor._grad._data)}")
        if self.show_hooks:
            if tensor.grad_fn is None:
                lines += _hook_marks(tensor._backward_hooks, False)
            else:
                lines += _hook_marks(tensor.grad_fn._tensor_pre_hooks, tensor._retains_grad)
        if kind == "output" and not tensor.requires_grad:
            lines.append("requires_grad=False")  # no graph behind it: say why nothing is drawn
        self.box(self.id_of(tensor), _join(lines), kind, graph)

    def draw_named(self, node: Node, named: Sequence[Tensor]) -> None:
        """Named non-leaf tensors sit beside the Node that made them, on the same rank."""
        if not named:
            return
        with self.dot.subgraph() as beside:
            beside.attr(rank="same")
            beside.node(self.id_of(node))
            for tensor in named:
                self.draw_tensor(tensor, "tensor", beside)
        for tensor in named:
            self.dot.edge(self.id_of(tensor), self.id_of(node), style="dotted", arrowhead="none")

    def draw_node(self, node: Node, show_marks: bool) -> None:
        name = node.name()
        if node in self.order:
            name = f"{self.order[node]}: {name}"
        lines = [name]
        if self.show_attrs:
            lines += self.attr_lines(node)
        if self.show_hooks and show_marks and not isinstance(node, AccumulateGrad):
            # (an AccumulateGrad's hooks are its leaf's: they are marked on the leaf's box)
            ref = node._retain_grad_ref
            retained = ref is not None and ref() is not None and ref()._retains_grad
            lines += _hook_marks(node._tensor_pre_hooks, retained)
        self.box(self.id_of(node), _join(lines), "node")

    def attr_lines(self, node: Node) -> list[str]:
        """What else a Node keeps for its backward (torchviz's show_attrs): alpha, dim, sizes ..."""
        lines = []
        for name in type(node)._declared_fields:
            value = getattr(node, name)
            if name.endswith("_") or value is None:
                continue  # saved tensors are drawn as boxes of their own (show_saved)
            text = str(value)
            if len(text) > self.max_attr_chars:
                text = text[: self.max_attr_chars - 3] + "..."
            lines.append(f"{name}: {text}")
        return lines

    def draw_saved(self, node: Node, made: Sequence[Tensor]) -> None:
        """The tensors a Node saved, as torchviz's orange boxes; "freed" after backward. They hang
        below their Node (a row beside it would make the dashed edges arc over each other).
        ``made``: the drawn tensors this Node made, to name a saved output ("result: y")."""
        saved = node.named_saved_tensors()
        if any(value.data is None for _, value in saved):  # backward released them
            box_id = self.new_id()
            self.box(box_id, "saved tensors\\nfreed", "saved")
            self.dot.edge(self.id_of(node), box_id, style="dashed", arrowhead="none")
            return
        for name, value in saved:
            if value.version_counter is None:
                continue  # a number, not a tensor
            # PyTorch's names: _saved_self, _saved_other, _saved_result (the Node's own output)
            label = name.rstrip("_")
            # a saved output keeps only its data (see SavedTensor): find its tensor by that
            tensor = value.tensor if value.tensor is not None else next(
                (t for t in made if t._data is value.data), None)
            if tensor is not None and id(tensor) in self.names:
                label += f": {self.names[id(tensor)]}"
            if value.data.size == 1:
                detail = f"{_shape(value.data)} = {_value(value.data)}"
            else:
                detail = _shape(value.data)
            self.box(self.id_of(value), _join([label, detail]), "saved")
            self.dot.edge(self.id_of(node), self.id_of(value), style="dashed", arrowhead="none")

    def draw_label(self, legend: bool) -> None:
        """The title, and a legend of the kinds drawn (the "… more" box explains itself)."""
        kinds = [(kind, style.LEGEND_TEXT[kind]) for kind in style.LEGEND_TEXT if kind in self.kinds] if legend else []
        self.dot.graph_attr.update(style.graph_label(self.title, kinds, "arrows: gradient flow"))


# --- graphs of scalar values: the value protocol (micrograd's Value, chapter 03's) ------------

VALUE_LEGEND_TEXT = {"output": "output value", "node": "operation", "tensor": "computed value",
                     "leaf": "leaf value"}


def is_value(obj: Any) -> bool:
    """Does ``obj`` follow the value protocol: ``_prev`` (the values it was computed from) and
    ``_op`` (the name of the operation that made it)? micrograd's ``Value`` does, as chapter 03's."""
    return not isinstance(obj, Tensor) and hasattr(obj, "_prev") and hasattr(obj, "_op")


def _are_values(roots: Any) -> bool:
    """Are the roots values (one, or a non-empty list of them)? A mix with tensors is an error."""
    items = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    values = [is_value(item) for item in items]
    if any(values) and not all(values):
        raise TypeError("draw_graph draws either tensors or values (objects with _prev and _op), not both at once")
    return bool(items) and all(values)


def _value_inputs(value: Any) -> list:
    """The values ``value`` was computed from, in their order (each as often as it was used)."""
    return list(value._prev or ())


def _walk_values(roots: Sequence[Any]) -> list:
    """Every value reachable from the roots through ``_prev``, each once, breadth first (a loop:
    a chain of thousands of operations is no problem). Kept by ``id``: a value class may define
    ``__eq__`` and ``__hash__`` as arithmetic, or not at all."""
    seen = {id(root): root for root in roots}
    queue = deque(seen.values())
    while queue:
        for value in _value_inputs(queue.popleft()):
            if id(value) not in seen:
                seen[id(value)] = value
                queue.append(value)
    return list(seen.values())


def _scalar_text(number: Any) -> str:
    """A value's data or grad, short: a number as the tensor boxes write one, else its str()."""
    try:
        return _numbers(np.asarray(number))
    except (TypeError, ValueError):
        text = str(number)
        return text if len(text) <= 20 else text[:19] + "…"


def _draw_values(roots: Any, params: Mapping[str, Any] | None, *, show_saved: bool, show_order: bool,
                 show_attrs: bool, show_values: bool, show_grads: bool, legend: bool, title: str | None,
                 rankdir: str, max_nodes: int) -> GraphPicture:
    """``draw_graph`` for values: one box per value, one per operation (micrograd's picture),
    edges from each value to its operation and on to the operation's inputs (gradient flow)."""
    for option, asked in (("show_saved", show_saved), ("show_order", show_order), ("show_attrs", show_attrs)):
        if asked:
            raise ValueError(f"{option} needs glasstorch tensors: a graph of values has no Nodes with saved "
                             "tensors, attributes or an engine order")
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    if not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a positive integer, got {max_nodes!r}")
    outputs = list({id(v): v for v in (roots if isinstance(roots, (list, tuple)) else [roots])}.values())
    names = {}
    for name, value in (dict(params) if params is not None else {}).items():
        if not is_value(value):
            raise TypeError(f"params[{name!r}] must be a value (an object with _prev and _op) when "
                            f"drawing values, got {type(value).__name__}")
        names[id(value)] = str(name)

    every_value = _walk_values(outputs)
    drawn = every_value[:max_nodes]
    drawer = _Drawer(names, title=title, rankdir=rankdir, show_hooks=False, show_saved=False, show_attrs=False,
                     max_attr_chars=50, order={}, show_values=show_values, show_grads=show_grads)
    drawn_ids = {id(v) for v in drawn}
    output_ids = {id(v) for v in outputs}
    for value in drawn:
        kind = "output" if id(value) in output_ids else "tensor" if _value_inputs(value) else "leaf"
        drawer.box(drawer.id_of(value), _value_label(value, names, show_values, show_grads), kind)
        inputs = _value_inputs(value)
        if not inputs:
            continue
        op_id = drawer.new_id()
        drawer.box(op_id, str(value._op) or "op", "node")
        drawer.dot.edge(drawer.id_of(value), op_id)
        to_more = False
        for argument in inputs:  # a value used twice (a + a) gets two edges, as next_functions has
            if id(argument) in drawn_ids:
                drawer.dot.edge(op_id, drawer.id_of(argument))
            elif not to_more:
                drawer.dot.edge(op_id, drawer.more_id())
                to_more = True
    hidden = len(every_value) - len(drawn)
    if hidden:
        label = f"{style.MORE_MARK} {_count(hidden, 'more value')}\\n(max_nodes={len(drawn)})"
        drawer.box(drawer.more_id(), label, "more")
    kinds = [(kind, text) for kind, text in VALUE_LEGEND_TEXT.items() if kind in drawer.kinds] if legend else []
    drawer.dot.graph_attr.update(style.graph_label(title, kinds, "arrows: gradient flow"))

    operations = sum(1 for v in every_value if _value_inputs(v))
    leaves = len(every_value) - operations
    summary = (f"graph of {_count(len(every_value), 'value')}, {_count(operations, 'operation')}, "
               f"{_count(leaves, 'leaf', 'leaves')}")
    if hidden:
        summary += f", {len(drawn)} drawn"
    return GraphPicture(drawer.dot, summary)


def _value_label(value: Any, names: Mapping[int, str], show_values: bool, show_grads: bool) -> str:
    """A value's box: its name (``params``, else its ``label``), then data and grad on request."""
    label = getattr(value, "label", "")
    lines = [names.get(id(value)) or (label if isinstance(label, str) else "")]
    if show_values:
        lines.append(f"data {_scalar_text(getattr(value, 'data', None))}")
    if show_grads:
        grad = getattr(value, "grad", None)
        lines.append("grad None" if grad is None else f"grad {_scalar_text(grad)}")
    return _join(lines) or type(value).__name__
