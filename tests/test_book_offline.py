"""The built HTML book (`make book` -> _build/html) must work with no network, and have its features.

This test builds nothing: it checks the last build (or the site named by the environment variable
GLASSTORCH_BOOK_HTML), and skips when there is none. It fails when a page loads a script,
stylesheet, font or image from http(s) (a CDN), when a local file a page needs is missing, when
math has no local MathJax, when a notebook's Graphviz picture is missing from its page, or when the
search index is missing; and when a feature of the site is missing: the chapter map on the landing
page, navigation (sidebar, search, previous/next), copy buttons, the "run this chapter" notes, the
exercise pages, the links from show_source output to the package's source pages, the picture CSS.
"""

import json
import os
import re
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
EXERCISES = ROOT / "exercises"
HTML = Path(os.environ.get("GLASSTORCH_BOOK_HTML", ROOT / "_build" / "html")).resolve()
BUILT = (HTML / "index.html").exists()

pytestmark = pytest.mark.skipif(
    not BUILT, reason=f"the HTML book was not built (run `make book`; this test checks {HTML})"
)

REMOTE = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)  # http://, https:// and protocol-relative //
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)""", re.IGNORECASE)
CSS_IMPORT = re.compile(r"""@import\s+['"]([^'"]+)""", re.IGNORECASE)
# <link rel=...> values that only name a related page; every other <link> loads something.
NAVIGATION_RELS = {"canonical", "alternate", "index", "search", "next", "prev", "author", "license", "help"}
CHAPTERS = sorted(p for p in BOOK.glob("[0-9]*.ipynb"))
EXERCISE_NOTEBOOKS = sorted(EXERCISES.glob("[0-9]*.ipynb"))
EXERCISE_PAGES = "_exercises"  # where book/_ext/glasstorch_book/exercise_pages.py puts them


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


@lru_cache(maxsize=None)  # pages do not change during a test run; several tests read each
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
    # (the Chinese edition's own copies under zh_CN/ too)
    return sorted(p for p in HTML.rglob("*.html") if not {"_static", "_sources"} & set(p.relative_to(HTML).parts))


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


def page_of_current(notebook: Path, page: Path) -> None:
    """Skip when the notebook changed since the build (its page shows the old one); fail when it has no page."""
    built = (page if page.exists() else HTML / "index.html").stat().st_mtime
    if notebook.stat().st_mtime > built:
        pytest.skip(f"{notebook.relative_to(ROOT)} changed after the last book build (run `make book` again)")
    if not page.exists():
        pytest.fail(f"{notebook.relative_to(ROOT)} has no page {page.relative_to(HTML)} in the book: "
                    "is it in book/index.md's toctrees?")


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
    page_of_current(notebook, page)
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


# --- the site's features (book/_ext/glasstorch_book, book/_static/glasstorch.css) -----------------

VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Outline(HTMLParser):
    """A page's links, pictures and forms, each link and picture with the classes around it."""

    def __init__(self) -> None:
        super().__init__()
        self.open: "list[tuple[str, set[str]]]" = []  # (tag, classes) of the open elements
        self.links: "list[tuple[str, set[str]]]" = []  # (href, classes of the link and its ancestors)
        self.images: "list[tuple[str, set[str]]]" = []
        self.forms: "list[str]" = []  # action URLs

    def around(self, classes: "set[str]") -> "set[str]":
        return classes.union(*(open_classes for _tag, open_classes in self.open))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        href = attrs.get("href") or attrs.get("xlink:href")  # inline SVG links use xlink:href
        if tag == "a" and href:
            self.links.append((href, self.around(classes)))
        elif tag == "img" and attrs.get("src"):
            self.images.append((attrs["src"], self.around(classes)))
        elif tag == "form" and attrs.get("action"):
            self.forms.append(attrs["action"])
        if tag not in VOID_TAGS:
            self.open.append((tag, classes))

    def handle_startendtag(self, tag, attrs):  # <path ... />: nothing stays open
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self.open.pop()

    def handle_endtag(self, tag):
        for depth in range(len(self.open) - 1, -1, -1):  # close up to the matching open tag
            if self.open[depth][0] == tag:
                del self.open[depth:]
                break

    def links_in(self, css_class: str) -> "list[str]":
        return [href for href, classes in self.links if css_class in classes]


@lru_cache(maxsize=None)
def outline(page: Path) -> Outline:
    parser = Outline()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def chapter_page(notebook: Path) -> Path:
    return HTML / f"{notebook.stem}.html"


def exercise_page(notebook: Path) -> Path:
    return HTML / EXERCISE_PAGES / f"{notebook.stem}.html"


def reading_order() -> "list[Path]":
    """The book's pages as the previous/next links chain them: landing page, chapters, exercises."""
    chapters = [chapter_page(notebook) for notebook in CHAPTERS]
    return [HTML / "index.html"] + chapters + [exercise_page(notebook) for notebook in EXERCISE_NOTEBOOKS]


def target_of(page: Path, href: str) -> "Path | None":
    target = local_target(page, href)
    return target if target is not None and target.is_file() else None


def element_text(page: Path, css_class: str) -> "str | None":
    """The text of the first <div> with this class (the notes hold no nested <div>), or None."""
    html = page.read_text(encoding="utf-8")
    match = re.search(rf'<div class="[^"]*\b{css_class}\b[^"]*">(.*?)</div>', html, re.DOTALL)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1))) if match else None


def test_landing_page_map_is_a_picture_linking_every_chapter():
    index = HTML / "index.html"
    assert re.search(r'<figure class="glasstorch-chapter-map">\s*<svg\b', index.read_text(encoding="utf-8")), (
        "index.html has no chapter map picture (the {chapter-map} directive, inline SVG)"
    )
    linked = {target_of(index, href) for href in outline(index).links_in("glasstorch-chapter-map")}
    missing = [n.name for n in CHAPTERS if chapter_page(n).resolve() not in linked]
    assert not missing, f"the chapter map on index.html has no box linking to: {missing}"


@pytest.mark.parametrize("page", reading_order(), ids=lambda p: p.relative_to(HTML).as_posix())
def test_page_has_sidebar_search_and_previous_next(page: Path):
    assert page.exists(), f"{page.relative_to(HTML)} was not built (stale build? run `make book` again)"
    parts = outline(page)
    sidebar = {target_of(page, href) for href in parts.links_in("bd-sidebar-primary")}
    # (the sidebar links the page being read as "#")
    missing = [p.name for p in reading_order()[1:] if p != page and p.resolve() not in sidebar]
    assert not missing, f"{page.relative_to(HTML)}: the sidebar does not list {missing}"
    assert any(target_of(page, action) == HTML / "search.html" for action in parts.forms), (
        f"{page.relative_to(HTML)} has no search box (a form sending to search.html)"
    )
    order = reading_order()
    position = order.index(page)
    for css_class, neighbour in (("left-prev", position - 1), ("right-next", position + 1)):
        if 0 <= neighbour < len(order):
            targets = [target_of(page, href) for href in parts.links_in(css_class)]
            assert order[neighbour].resolve() in targets, (
                f"{page.relative_to(HTML)}: the {css_class} link should lead to {order[neighbour].relative_to(HTML)}"
            )


def test_code_cells_have_copy_buttons_that_strip_prompts():
    for notebook in CHAPTERS:
        loads = [url for _what, url in read_page(chapter_page(notebook)).loads]
        for asset in ("copybutton.js", "copybutton.css"):
            assert any(url.split("?")[0].endswith(asset) for url in loads), f"{notebook.stem}.html lacks {asset}"
    script = (HTML / "_static" / "copybutton.js").read_text(encoding="utf-8")
    selector = re.search(r"COPYBUTTON_SELECTOR = '([^']*)'", script)
    assert selector and "highlight" in selector.group(1), "copybutton.js has no selector for code cells"
    prompts = re.search(r"formatCopyText\(text, '([^']*)', (true|false)", script)
    assert prompts and ">>> " in prompts.group(1) and prompts.group(2) == "true", (
        "the copy buttons do not strip prompts (copybutton_prompt_text, copybutton_prompt_is_regexp in conf.py)"
    )


def assert_note(notebook: Path, page: Path, css_class: str, title: str, expected: tuple) -> None:
    """``page`` (built from the current ``notebook``) has its note, which says each of ``expected``."""
    page_of_current(notebook, page)
    note = element_text(page, css_class)
    assert note is not None, f"{page.name} has no '{title}' note"
    for phrase in expected:
        assert phrase in note, f"{page.name}: the '{title}' note does not say {phrase!r}: {note}"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_page_says_how_to_run_its_notebook(notebook: Path):
    page = chapter_page(notebook)
    assert_note(notebook, page, "glasstorch-run-note", "Run this chapter",
                ("Run this chapter", "make lab", f"book/{notebook.name}", "download"))
    html = page.read_text(encoding="utf-8")
    first_cell = html.find('class="cell docutils container"')
    assert first_cell == -1 or html.find("glasstorch-run-note") < first_cell, f"{page.name}: the note is not on top"


@pytest.mark.parametrize("notebook", EXERCISE_NOTEBOOKS, ids=[p.stem for p in EXERCISE_NOTEBOOKS])
def test_each_exercise_notebook_has_its_page_not_executed(notebook: Path):
    page = exercise_page(notebook)
    assert_note(notebook, page, "glasstorch-exercise-note", "Work on this exercise",
                (f"exercises/{notebook.name}", "make lab", "check cell", "make grade"))
    html = page.read_text(encoding="utf-8")
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code_cells = sum(c["cell_type"] == "code" and "remove-cell" not in c["metadata"].get("tags", []) for c in cells)
    assert html.count('class="cell_input') == code_cells, f"{page.name} does not show its {code_cells} code cells"
    assert "cell_output" not in html, f"{page.name} shows outputs: the exercise was executed (its stubs raise)"


def show_source_headers(notebook: Path) -> int:
    """How many `# glasstorch/<file>.py` headers show_source printed in the stored outputs."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    text = "".join(
        "".join(output.get("text", "")) for cell in cells for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    )
    return len(re.findall(r"^# glasstorch/[\w/]+\.py(?:  \(PyTorch: |$)", text, re.MULTILINE))


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_source_headers_link_to_the_package_source_pages(notebook: Path):
    page = chapter_page(notebook)
    page_of_current(notebook, page)
    links = outline(page).links_in("glasstorch-source-link")
    expected = show_source_headers(notebook)
    assert len(links) >= expected, f"{page.name}: {expected} show_source headers but {len(links)} source links"
    for href in links:
        target = target_of(page, href)
        assert target is not None and target.is_relative_to(HTML / "package" / "glasstorch"), (
            f"{page.name}: source link {href} leads to no generated source page"
        )
        source = target.read_text(encoding="utf-8")
        fragment = urlsplit(href).fragment
        assert not fragment or f'id="{fragment}"' in source, f"{page.name}: {href} points to no line of the file"
        assert 'class="linenos"' in source, f"{target.name} shows no line numbers"


def css_rules(css: str) -> "list[tuple[str, str]]":
    """(selector, declarations) of every rule, comments removed (at-rules' contents included)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    return [(sel.strip(), body) for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css)]


def test_pictures_fit_the_column_and_read_in_the_dark_theme():
    stylesheet = HTML / "_static" / "glasstorch.css"
    for page in reading_order():
        loads = [url.split("?")[0] for _what, url in read_page(page).loads]
        assert any(target_of(page, url) == stylesheet for url in loads), f"{page.name} does not load glasstorch.css"
    rules = css_rules(stylesheet.read_text(encoding="utf-8"))
    fit = [body for sel, body in rules if "cell_output img" in sel and "data-theme" not in sel]
    assert any("max-width" in body and "height: auto" in body for body in fit), "no rule fits pictures to the column"
    dark = [body for sel, body in rules if 'html[data-theme="dark"]' in sel and "cell_output img" in sel]
    assert any("background-color" in body for body in dark), "no dark-theme background behind output pictures"


def test_output_pictures_open_at_full_size():
    for notebook in CHAPTERS:
        page = chapter_page(notebook)
        for src, classes in outline(page).images:
            if "cell_output" in classes:
                assert "glasstorch-picture-link" in classes, f"{page.name}: picture {src} is not a link to its file"
