"""The built HTML book (`make book` -> _build/html) must work with no network.

This test builds nothing: it checks the last build, and skips when there is none. It fails when a
page loads a script, stylesheet, font or image from http(s) (a CDN), when a local file a page needs
is missing, when math has no local MathJax, when a notebook's Graphviz picture is missing from its
page, or when the search index is missing.
"""

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
HTML = ROOT / "_build" / "html"
BUILT = (HTML / "index.html").exists()

pytestmark = pytest.mark.skipif(
    not BUILT, reason="the HTML book was not built (run `make book`; this test checks _build/html)"
)

REMOTE = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)  # http://, https:// and protocol-relative //
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)""", re.IGNORECASE)
CSS_IMPORT = re.compile(r"""@import\s+['"]([^'"]+)""", re.IGNORECASE)
# <link rel=...> values that only name a related page; every other <link> loads something.
NAVIGATION_RELS = {"canonical", "alternate", "index", "search", "next", "prev", "author", "license", "help"}
CHAPTERS = sorted(p for p in BOOK.glob("[0-9]*.ipynb"))


class ResourceCollector(HTMLParser):
    """Collects every URL a page loads by itself: scripts, stylesheets, icons, images, frames, CSS url()."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: "list[tuple[str, str]]" = []  # (what, url)
        self.svg_count = 0
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg":
            self.svg_count += 1
        if tag == "script" and attrs.get("src"):
            self.loads.append(("<script src>", attrs["src"]))
        elif tag == "link" and attrs.get("href"):
            rels = set((attrs.get("rel") or "").lower().split())
            if not rels or not rels <= NAVIGATION_RELS:
                self.loads.append((f"<link rel={' '.join(sorted(rels))}>", attrs["href"]))
        elif tag in ("img", "iframe", "source", "audio", "video", "embed") and attrs.get("src"):
            self.loads.append((f"<{tag} src>", attrs["src"]))
        elif tag == "object" and attrs.get("data"):
            self.loads.append(("<object data>", attrs["data"]))
        if tag == "style":
            self.in_style = True
        if attrs.get("style"):
            self.loads += [("style url()", url) for url in CSS_URL.findall(attrs["style"])]

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            self.loads += [("<style> url()", url) for url in CSS_URL.findall(data)]
            self.loads += [("<style> @import", url) for url in CSS_IMPORT.findall(data)]


def read_page(path: Path) -> ResourceCollector:
    collector = ResourceCollector()
    collector.feed(path.read_text(encoding="utf-8"))
    return collector


def local_target(page: Path, url: str) -> "Path | None":
    """The file a relative URL points to, or None for data:, javascript: and fragment-only URLs."""
    parts = urlsplit(url)
    if parts.scheme or not parts.path:
        return None
    return (page.parent / unquote(parts.path)).resolve()


def html_pages() -> "list[Path]":
    # _static/*.html are the theme's Jinja templates copied verbatim, not pages.
    return sorted(p for p in HTML.rglob("*.html") if p.relative_to(HTML).parts[0] not in ("_static", "_sources"))


def test_pages_load_nothing_from_the_network():
    remote = []
    for page in html_pages():
        for what, url in read_page(page).loads:
            if REMOTE.match(url):
                remote.append(f"{page.relative_to(HTML)}: {what} {url}")
    assert not remote, "the book loads these from the network (it must work offline):\n" + "\n".join(remote)


def test_stylesheets_load_nothing_from_the_network():
    remote = []
    for css in sorted(HTML.rglob("*.css")):
        text = css.read_text(encoding="utf-8", errors="replace")
        for url in CSS_URL.findall(text) + CSS_IMPORT.findall(text):
            if REMOTE.match(url):
                remote.append(f"{css.relative_to(HTML)}: {url}")
    assert not remote, "stylesheets load these from the network:\n" + "\n".join(remote)


def test_local_scripts_and_stylesheets_exist():
    missing = []
    for page in html_pages():
        for what, url in read_page(page).loads:
            target = local_target(page, url)
            if target is not None and not REMOTE.match(url) and not target.exists():
                missing.append(f"{page.relative_to(HTML)}: {what} {url}")
    assert not missing, "pages refer to files the build does not contain:\n" + "\n".join(missing)


def test_math_uses_the_local_mathjax():
    pages_with_math = [p for p in html_pages() if 'class="math' in p.read_text(encoding="utf-8")]
    if not pages_with_math:
        pytest.skip("no page of the book contains math")
    for page in pages_with_math:
        scripts = [url for what, url in read_page(page).loads if what == "<script src>" and "mathjax" in url.lower()]
        assert scripts, f"{page.relative_to(HTML)} has math but loads no MathJax"
        for url in scripts:
            assert not REMOTE.match(url), f"{page.relative_to(HTML)} loads MathJax from {url}"
            assert local_target(page, url).exists(), f"{page.relative_to(HTML)}: missing {url}"
    fonts = HTML / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2"
    assert fonts.is_dir() and any(fonts.iterdir()), "MathJax's fonts were not copied into _static/mathjax"


def test_search_index_exists():
    index = HTML / "searchindex.js"
    assert index.exists() and index.stat().st_size > 0, "searchindex.js missing: Sphinx search cannot work"
    search_page = HTML / "search.html"
    assert search_page.exists(), "search.html missing"
    loads = [url for _what, url in read_page(search_page).loads]
    assert any("searchtools.js" in url for url in loads), "search.html does not load searchtools.js"
    text = index.read_text(encoding="utf-8")
    assert "glasstorch" in text.lower(), "the search index does not contain the book's own name"


def svg_outputs(notebook: Path) -> int:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(
        1
        for cell in cells
        for output in cell.get("outputs", [])
        if "image/svg+xml" in output.get("data", {})
    )


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_page_shows_its_graphviz_pictures(notebook: Path):
    page = HTML / f"{notebook.stem}.html"
    built = (page if page.exists() else HTML / "index.html").stat().st_mtime
    if notebook.stat().st_mtime > built:
        pytest.skip(f"{notebook.name} changed after the last book build (run `make book` again)")
    if not page.exists():
        pytest.fail(f"{notebook.name} has no page in the book: is it in book/index.md's toctree?")
    expected = svg_outputs(notebook)
    collector = read_page(page)
    # myst-nb either inlines an SVG or writes it to _images/ and shows it with <img>.
    svg_images = [
        url for what, url in collector.loads
        if what == "<img src>" and urlsplit(url).path.endswith(".svg") and local_target(page, url).exists()
    ]
    shown = collector.svg_count + len(svg_images)
    assert shown >= expected, (
        f"{notebook.name} stores {expected} SVG pictures but its page shows {shown} "
        "(stale build? run `make book` again)"
    )
