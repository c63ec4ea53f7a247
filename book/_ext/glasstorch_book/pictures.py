"""Every picture a notebook output shows opens at full size when clicked.

The book's CSS fits pictures to the column (book/_static/glasstorch.css); the widest graphs then
show their smallest labels small. A click opens the picture's own file (in _images/, offline) at
its natural size. myst-nb writes an output picture as ``<img alt="P" src="P" />`` (its file path as
alt text), which tells it from an author's image in the text; only those are wrapped in a link.
"""
from __future__ import annotations

import re

from sphinx.application import Sphinx

OUTPUT_IMAGE = re.compile(r'<img alt="(?P<src>[^"]*_images/[^"]+)" src="(?P=src)" />')
LINK = '<a class="glasstorch-picture-link" href="{src}" title="Open the picture at full size">{img}</a>'


def link_output_images(app: Sphinx, page: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context: wrap each output picture in a link to its file."""
    if doctree is None or "body" not in context:
        return
    context["body"] = OUTPUT_IMAGE.sub(lambda m: LINK.format(src=m["src"], img=m[0]), context["body"])


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", link_output_images)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
