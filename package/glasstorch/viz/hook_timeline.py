"""Record which module hooks fire, in which order, during a forward and backward pass.

    with record_hooks(model) as timeline:
        out = model(x)
        out.sum().backward()
    print(timeline)          # one numbered line per event
    timeline.draw()          # the same, as a picture: a forward lane and a backward lane

``record_hooks`` registers four hooks on every module of ``model.named_modules()``, the four kinds
torch/nn/modules/module.py offers: a forward pre-hook, a forward hook, a full backward pre-hook and
a full backward hook. Each appends a ``HookEvent``. On leaving the ``with`` block it removes them
again through their handles, so the model is left as it was found. It uses only ``nn.Module``'s
public hook API, so the same recorder runs on a real PyTorch model, and the two timelines can be
compared line by line.

Where the recorder's own hooks sit among yours: its *pre*-hooks are registered with
``prepend=True`` and its other hooks last, so on each module your hooks fire between the
recorder's pre and post events. ``timeline.note("...")`` from inside your hooks adds an event of
your own to the timeline, in the lane of the recorder's latest event.

What it shows that surprises: a module whose inputs need no gradient (the first layer, and the
model itself when ``x`` does not require grad) has its full backward hook fire as soon as the
gradient of its *output* is known, before the modules inside it. PyTorch warns "Full backward hook
is firing when gradients are computed with respect to module outputs since no inputs require
gradients" each time; inside ``record_hooks`` that one warning is silenced (for your own full
backward hooks too), because it is exactly what the timeline shows.

Left out: a module that already has legacy ``register_backward_hook`` hooks cannot also take full
backward hooks (PyTorch raises "Cannot use both regular backward hooks and full backward hooks"):
its backward is not recorded, and a note in the timeline says so. glasstorch's full backward hooks
support one input tensor that requires grad per module (PyTorch: several); for a module called
with more, record with ``backward=False``. As in PyTorch, backward hooks see a module's gradients
only if its output is a tensor or a tuple of tensors (a dict output gets a warning and no events).
"""
from __future__ import annotations

import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import graphviz

from . import style
from .dag import RANKDIRS, _count, _join, _shape
from .picture import GraphPicture

FORWARD, BACKWARD = "forward", "backward"
LANES = (FORWARD, BACKWARD)
# event kind -> what the listing and the picture call it; "note" is your own event
KIND_TEXT = {
    "forward_pre": "forward pre-hook",
    "forward": "forward hook",
    "backward_pre": "backward pre-hook",
    "backward": "backward hook",
    "note": "note",
}
KIND_LANE = {"forward_pre": FORWARD, "forward": FORWARD, "backward_pre": BACKWARD, "backward": BACKWARD}
OPENS = {"forward_pre", "backward_pre"}  # the event that starts a module's part of a pass ...
CLOSES = {"forward": "forward_pre", "backward": "backward_pre"}  # ... and the one that ends it
# each kind as a box of the shared palette: pre-hooks and hooks differ in shape and colour, and
# a note is a folded note
KIND_STYLE = {"forward_pre": "leaf", "forward": "output", "backward_pre": "tensor", "backward": "node",
              "note": "saved"}
NO_INPUT_GRAD_WARNING = "Full backward hook is firing when gradients are computed with respect to module outputs"
LEGACY_NOTE = "has legacy backward hooks (register_backward_hook): its backward is not recorded"


@dataclass(frozen=True)
class HookEvent:
    """One hook call. ``module`` is the dotted name from ``named_modules()`` ("" is the model
    itself, "block.0" a grandchild); ``cls`` its class name; ``detail`` the shapes the hook saw
    ("args: (2, 3)", "grad_input: None") or, for a note, your text; ``lane`` "forward" or
    "backward"."""

    kind: str
    module: str
    cls: str
    detail: str
    lane: str


class HookTimeline:
    """The events one ``record_hooks`` block saw, in firing order: ``events``, ``str()``, ``draw()``."""

    def __init__(self, root_name: str | None = None) -> None:
        self.events: list[HookEvent] = []
        self.root_name = root_name
        self._lane = FORWARD  # the lane of the recorder's latest event: where a note goes

    def record(self, kind: str, module: str, cls: str, detail: str) -> None:
        """Append an event of the recorder's own hooks (``kind`` one of KIND_LANE)."""
        self._lane = KIND_LANE[kind]
        self.events.append(HookEvent(kind, module, cls, detail, self._lane))

    def note(self, label: str, *, lane: str | None = None) -> None:
        """Append your own event: call it from your hooks to see where they ran. It goes in the
        lane of the recorder's latest event unless you say ``lane="forward"`` or ``"backward"``."""
        if lane is not None and lane not in LANES:
            raise ValueError(f"lane must be 'forward' or 'backward', got {lane!r}")
        self.events.append(HookEvent("note", "", "", str(label), lane or self._lane))

    def who(self, event: HookEvent) -> str:
        """'fc1: Linear'; the model itself is 'model: Net' if named, else 'Net'; '' for a note."""
        if not event.cls:
            return event.module
        name = event.module or self.root_name
        return f"{name}: {event.cls}" if name else event.cls

    def __str__(self) -> str:
        if not self.events:
            return "(no hooks fired)"
        width = len(str(len(self.events)))
        kind_width = max(len(KIND_TEXT[e.kind]) for e in self.events)
        who_width = max(len(self.who(e)) for e in self.events)
        lines, lane = [], None
        for number, event in enumerate(self.events, 1):
            if event.lane != lane:  # a heading where the lane changes
                lane = event.lane
                lines.append(lane)
            columns = [f"{number:>{width}}.", f"{KIND_TEXT[event.kind]:<{kind_width}}"]
            if event.kind != "note":
                columns.append(f"{self.who(event):<{who_width}}")
            columns.append(event.detail)
            lines.append(("  " + "  ".join(columns)).rstrip())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<HookTimeline: {_count(len(self.events), 'event')}>"

    def draw(self, *, rankdir: str = "TB", nest: bool = True, legend: bool = True,
             title: str | None = None) -> GraphPicture:
        """The events as numbered boxes in firing order, coloured by kind, in a forward and a
        backward lane side by side. ``nest``: each module's part of a pass (its pre-hook to its
        hook) is a frame, so a child's events sit inside its parent's."""
        if rankdir not in RANKDIRS:
            raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
        drawer = _TimelineDrawer(self, rankdir=rankdir, nest=nest, title=title)
        drawer.draw()
        drawer.draw_label(legend)
        return GraphPicture(drawer.dot, self.summary())

    def summary(self) -> str:
        counts = {lane: sum(e.lane == lane and e.kind != "note" for e in self.events) for lane in LANES}
        notes = sum(e.kind == "note" for e in self.events)
        text = (f"hook timeline: {_count(len(self.events), 'event')} "
                f"({counts[FORWARD]} forward, {counts[BACKWARD]} backward")
        return text + (f", {_count(notes, 'note')})" if notes else ")")


@contextmanager
def record_hooks(model: Any, *, name: str | None = None, forward: bool = True,
                 backward: bool = True) -> Iterator[HookTimeline]:
    """Record every module hook call inside the ``with`` block; yields the ``HookTimeline``.

    model     an ``nn.Module`` (glasstorch's or PyTorch's): every module of ``named_modules()``
              gets the recorder's hooks, and loses them again when the block ends.
    name      what to call the model itself in the listing and the picture ("model: Net").
    forward   record forward pre-hooks and forward hooks.
    backward  record full backward pre-hooks and full backward hooks.
    """
    if not callable(getattr(model, "named_modules", None)):
        raise TypeError(f"record_hooks expects an nn.Module, got {type(model).__name__}")
    timeline = HookTimeline(name)
    handles: list[Any] = []
    touched: list[Any] = []  # modules whose _is_full_backward_hook we set (restored on exit)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=NO_INPUT_GRAD_WARNING, category=UserWarning)
            for module_name, module in model.named_modules():
                if forward:
                    handles += _register_forward(timeline, module_name, module)
                if backward:
                    handles += _register_backward(timeline, module_name, module, touched)
            yield timeline
    finally:
        for handle in reversed(handles):
            handle.remove()
        for module in touched:
            # PyTorch leaves the flag True after the last full backward hook is removed, which
            # would forbid legacy hooks on the model from now on; put back what we found
            if not module._backward_hooks:
                module._is_full_backward_hook = None


def describe(value: Any) -> str:
    """A short, deterministic description of what a hook saw: a tensor's shape (and its dtype
    unless float32), None, a short number or string, nested lists in brackets; never values."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        dtype = str(value.dtype).rsplit(".", 1)[-1]
        return _shape(value) + ("" if dtype == "float32" else f" {dtype}")
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {describe(v)}" for k, v in value.items()) + "}"
    if value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 20):
        return repr(value)
    return type(value).__name__


def _describe_all(values: Any) -> str:
    """The items of a tuple of arguments or gradients, without the brackets; '()' if none."""
    if isinstance(values, tuple):
        return ", ".join(describe(v) for v in values) if values else "()"
    return describe(values)


def _register_forward(timeline: HookTimeline, module_name: str, module: Any) -> list[Any]:
    cls = type(module).__name__

    def record_forward_pre(mod: Any, args: tuple) -> None:
        timeline.record("forward_pre", module_name, cls, "args: " + _describe_all(args))

    def record_forward(mod: Any, args: tuple, output: Any) -> None:
        timeline.record("forward", module_name, cls, "output: " + describe(output))

    # prepend the pre-hook, append the hook: the module's own hooks fire between the two events
    return [module.register_forward_pre_hook(record_forward_pre, prepend=True),
            module.register_forward_hook(record_forward)]


def _register_backward(timeline: HookTimeline, module_name: str, module: Any, touched: list) -> list[Any]:
    cls = type(module).__name__

    def record_backward_pre(mod: Any, grad_output: tuple) -> None:
        timeline.record("backward_pre", module_name, cls, "grad_output: " + _describe_all(grad_output))

    def record_backward(mod: Any, grad_input: tuple, grad_output: tuple) -> None:
        timeline.record("backward", module_name, cls, "grad_input: " + _describe_all(grad_input))

    was_unset = getattr(module, "_is_full_backward_hook", None) is None
    try:  # first the hook that refuses a module with legacy hooks, then the pre-hook
        handle = module.register_full_backward_hook(record_backward)
    except RuntimeError as error:
        if "Cannot use both regular backward hooks and full backward hooks" not in str(error):
            raise
        timeline.events.append(HookEvent("note", module_name, cls, LEGACY_NOTE, FORWARD))
        return []
    if was_unset:
        touched.append(module)
    return [handle, module.register_full_backward_pre_hook(record_backward_pre, prepend=True)]


# --- the picture ----------------------------------------------------------------------------

def _segments(events: list[HookEvent]) -> list[list[int]]:
    """Runs of consecutive events in the same lane, as lists of indices: forward, backward, and
    again forward, backward for a second pass in the same block."""
    runs: list[list[int]] = []
    for i, event in enumerate(events):
        if runs and events[runs[-1][-1]].lane == event.lane:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _spans(events: list[HookEvent], run: list[int]) -> dict[int, int] | None:
    """``{index of a pre event: index of its matching post event}`` when the run's events nest
    like brackets (a child's pair inside its parent's); None when they do not (a forward that
    raised): the run is then drawn flat."""
    spans, stack = {}, []
    for i in run:
        kind, module = events[i].kind, events[i].module
        if kind in OPENS:
            stack.append(i)
        elif kind in CLOSES:
            if not stack or events[stack[-1]].module != module or events[stack[-1]].kind != CLOSES[kind]:
                return None
            spans[stack.pop()] = i
    return spans if not stack else None


class _TimelineDrawer:
    """Builds the Digraph: boxes e1, e2, ... numbered as the events fired, an arrow from each to
    the next, one cluster per lane run, and (``nest``) one frame per module's pre/post pair."""

    def __init__(self, timeline: HookTimeline, *, rankdir: str, nest: bool, title: str | None) -> None:
        self.dot = graphviz.Digraph("hooks", graph_attr=dict(style.GRAPH_ATTRS, rankdir=rankdir),
                                    node_attr=style.NODE_ATTRS, edge_attr=style.EDGE_ATTRS)
        self.timeline, self.events, self.nest, self.title = timeline, timeline.events, nest, title
        self.kinds: list[str] = []

    def draw(self) -> None:
        seen_lanes: dict[str, int] = {}
        for run in _segments(self.events):
            lane = self.events[run[0]].lane
            seen_lanes[lane] = seen_lanes.get(lane, 0) + 1
            label = lane if seen_lanes[lane] == 1 else f"{lane} ({seen_lanes[lane]})"
            with self.dot.subgraph(name=f"cluster_{lane}_{seen_lanes[lane]}") as cluster:
                cluster.attr(label=label, style="rounded", color=style.LEGEND_BORDER, fontcolor=style.EDGE)
                spans = _spans(self.events, run) if self.nest else None
                self.draw_run(cluster, run, spans or {})
        for i in range(1, len(self.events)):
            if self.events[i].lane == self.events[i - 1].lane:
                self.dot.edge(f"e{i}", f"e{i + 1}")
            else:  # into the next lane: no rank constraint, so the lanes stand side by side
                self.dot.edge(f"e{i}", f"e{i + 1}", style="dashed", constraint="false")

    def draw_run(self, graph: Any, run: list[int], spans: dict[int, int]) -> None:
        """The run's boxes; a pre event with a matching post opens a frame around both and what
        fired between them (recursively)."""
        position = 0
        while position < len(run):
            i = run[position]
            if i in spans:
                end = run.index(spans[i], position)
                with graph.subgraph(name=f"cluster_call_e{i + 1}") as frame:
                    frame.attr(label="", style="rounded,dashed", color=style.LEGEND_BORDER)
                    self.draw_event(frame, i)
                    self.draw_run(frame, run[position + 1:end], spans)
                    self.draw_event(frame, spans[i])
                position = end + 1
            else:
                self.draw_event(graph, i)
                position += 1

    def draw_event(self, graph: Any, i: int) -> None:
        event = self.events[i]
        lines = [f"{i + 1}. {KIND_TEXT[event.kind]}", self.timeline.who(event), event.detail]
        kind = KIND_STYLE[event.kind]
        graph.node(f"e{i + 1}", _join(_escape(line) for line in lines), **style.node_style(kind))
        if event.kind not in self.kinds:
            self.kinds.append(event.kind)

    def draw_label(self, legend: bool) -> None:
        """The title, and a legend of the kinds of events drawn."""
        kinds = [(KIND_STYLE[kind], KIND_TEXT[kind]) for kind in KIND_TEXT if kind in self.kinds] if legend else []
        self.dot.graph_attr.update(style.graph_label(self.title, kinds, "arrows: firing order"))


def _escape(text: str) -> str:
    """A line of a DOT label: backslashes doubled and line breaks as DOT's own, so a note's text
    shows as written and stays on one line of the DOT text."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")
