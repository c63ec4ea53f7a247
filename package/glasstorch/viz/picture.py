"""``GraphPicture``: what every glasstorch drawing returns.

torchviz's ``make_dot`` (torchviz/dot.py) returns a bare ``graphviz.Digraph``. That shows in
Jupyter, but only as an SVG whose text depends on the installed ``dot`` and fonts, and it raises
a traceback when the ``dot`` program is missing. A ``GraphPicture`` wraps the Digraph and adds:

* ``_repr_mimebundle_``: Jupyter gets the SVG to show *and* the DOT source as ``text/plain``. nbval
  compares ``text/plain`` exactly and sanitizes SVG away, so a notebook's pictures are checked
  through their DOT source, which is identical on every machine.
* without ``dot``: the DOT source with a one-line hint how to install Graphviz, never a traceback.
* ``save(path)``: the picture as an SVG or PNG file.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Collection

try:
    import graphviz
except ImportError as error:  # the Python bindings are a dependency; say how to get them
    raise ImportError(
        "glasstorch.viz draws with the `graphviz` Python package: pip install graphviz "
        "(or conda install -c conda-forge python-graphviz graphviz)"
    ) from error

try:  # graphviz >= 0.20 exports it at the top; older versions only in graphviz.backend.execute
    ExecutableNotFound = graphviz.ExecutableNotFound
except AttributeError:  # pragma: no cover - depends on the installed graphviz version
    from graphviz.backend.execute import ExecutableNotFound

SVG = "image/svg+xml"
TEXT = "text/plain"

NO_DOT_HINT = (
    "# Graphviz's `dot` program was not found, so here is the picture's DOT source. To see the "
    "picture, install Graphviz: `apt-get install graphviz`, `brew install graphviz` or "
    "`conda install -c conda-forge graphviz`."
)


def render(digraph: "graphviz.Digraph", format: str) -> bytes:  # noqa: A002 - graphviz's name
    """Run ``dot`` on the picture. The one place glasstorch calls Graphviz's program."""
    return digraph.pipe(format=format)


class GraphPicture:
    """A Graphviz picture that Jupyter shows, nbval compares by its DOT source, and you can save.

    ``summary`` is a short description for ``repr`` ("5 Nodes, 2 leaves"): deterministic, with
    no addresses, so that printing a picture in a notebook gives the same text everywhere.
    """

    def __init__(self, digraph: "graphviz.Digraph", summary: str) -> None:
        self.digraph = digraph
        self.summary = summary

    @property
    def source(self) -> str:
        """The DOT text: the same for the same graph, on every run and machine."""
        return self.digraph.source

    def svg(self) -> str:
        """The picture as SVG text (needs Graphviz's ``dot``)."""
        return render(self.digraph, "svg").decode("utf-8")

    def save(self, path: str | Path, format: str | None = None) -> Path:  # noqa: A002
        """Write the picture to ``path`` as ``format`` ("svg", "png", "pdf", ...; by default
        the file's suffix, else "svg"). Returns the path. Needs Graphviz's ``dot``."""
        path = Path(path)
        if format is None:
            format = path.suffix.lstrip(".").lower() or "svg"
        if format not in graphviz.FORMATS:
            raise ValueError(f"unknown picture format {format!r}: use 'svg', 'png' or another Graphviz format")
        path.write_bytes(render(self.digraph, format))
        return path

    def _repr_mimebundle_(self, include: Collection[str] | None = None,
                          exclude: Collection[str] | None = None, **kwargs: Any) -> dict[str, str]:
        """What Jupyter displays: the SVG and the DOT source; only the source (with a hint)
        when ``dot`` is not installed."""
        bundle = {TEXT: self.source}
        wanted = (include is None or SVG in include) and (exclude is None or SVG not in exclude)
        if wanted:
            try:
                bundle[SVG] = self.svg()
            except ExecutableNotFound:
                bundle[TEXT] = NO_DOT_HINT + "\n" + self.source
        return bundle

    def __repr__(self) -> str:
        return f"<GraphPicture: {self.summary}>"
