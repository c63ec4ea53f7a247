"""``{chapter-map}``: the course map of chapter 00, drawn on the landing page with a link per box.

The picture is ``glasstorch.course.chapter_map()`` (the parts, the "builds on" arrows and the
palette of glasstorch.viz.style), so the book and chapter 00 show the same map. The book adds a
link and a tooltip (the chapter's title) to each box and inlines the SVG, so the links work and
the text is the page's. The map's chapter list must match book/NN_*.ipynb: a chapter missing from
the map, or a box with no chapter, is a build warning (an error under -W), so a new chapter cannot
be forgotten.
"""
from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.writers.html5 import HTML5Translator

from glasstorch.course.chapter_map import CHAPTERS, chapter_map
from glasstorch.viz.picture import ExecutableNotFound

from .layout import chapter_notebooks

logger = logging.getLogger(__name__)

_XML_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.DOTALL)  # <?xml ...?>, <!DOCTYPE ...>, comments


class chapter_map_node(nodes.General, nodes.Element):
    """Where the map goes; drawn when the HTML is written (links depend on the page)."""


def chapter_docnames() -> dict[str, str]:
    """{"04": "04_computational_graph", ...} from the notebooks in book/."""
    return {notebook.name[:2]: notebook.stem for notebook in chapter_notebooks()}


def mismatches() -> list[str]:
    """What differs between the map's chapters and the notebooks in book/."""
    on_map = {chapter.number for chapter in CHAPTERS}
    in_book = chapter_docnames()
    problems = [f"book/{in_book[n]}.ipynb is not on the chapter map: add it to "
                "glasstorch.course.chapter_map.CHAPTERS" for n in sorted(set(in_book) - on_map)]
    problems += [f"the chapter map shows chapter {n}, but book/ has no {n}_*.ipynb"
                 for n in sorted(on_map - set(in_book))]
    return problems


class ChapterMap(SphinxDirective):
    """```{chapter-map}``` in a MyST page: the course map, every box a link to its chapter."""

    def run(self) -> list[nodes.Node]:
        node = chapter_map_node()
        self.set_source_info(node)
        for problem in mismatches():
            logger.warning(problem, location=node)
        return [node]


def svg_with_links(translator: HTML5Translator) -> str:
    """The map as inline SVG, each chapter's box linking to its page relative to this one."""
    builder, env = translator.builder, translator.builder.env
    picture = chapter_map()
    for number, docname in chapter_docnames().items():
        title = env.titles[docname].astext() if docname in env.titles else docname
        # Declaring a node again only adds attributes to the box chapter_map() drew.
        picture.digraph.node(f"c{number}", URL=builder.get_relative_uri(builder.current_docname, docname),
                             target="_self", tooltip=title)
    return _XML_PROLOGUE.sub("", picture.svg(), count=1)


def visit_html(translator: HTML5Translator, node: chapter_map_node) -> None:
    try:
        svg = svg_with_links(translator)
    except ExecutableNotFound:
        logger.warning("the chapter map needs Graphviz's `dot` program: install Graphviz (see README)",
                       location=node)
        raise nodes.SkipNode
    # No role="img": that would hide the boxes' links from screen readers.
    label = "The chapters of the course, by part; each box links to its chapter"
    svg = svg.replace("<svg ", f'<svg aria-label="{label}" ', 1)
    translator.body.append(f'<figure class="glasstorch-chapter-map">\n{svg}\n</figure>\n')
    raise nodes.SkipNode


def skip(translator, node: chapter_map_node) -> None:
    """Other builders (LaTeX, text): the toctree next to the map lists the chapters anyway."""
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict:
    app.add_node(chapter_map_node, html=(visit_html, None), latex=(skip, None), text=(skip, None),
                 man=(skip, None), texinfo=(skip, None))
    app.add_directive("chapter-map", ChapterMap)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
