"""The built book in a real browser: every page of the site, served on loopback, opened in
headless Chromium as a reader would.

Each page is visited once (the `visits` fixture) and what the browser saw is recorded; the tests
then check one aspect each over every page: requests, console errors, images, inline SVG, math.
The pages are whatever the build produced, so a new chapter or page is covered without a change here.
"""

from __future__ import annotations

import io
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from browser_env import ROOT, TIMEOUT_MS, artifact_path

pytestmark = pytest.mark.browser

SEARCH_TERM = "GaussianModel"  # a class only chapter 09 defines
SEARCH_CHAPTER = next(ROOT.glob("book/09_*.ipynb"))
GRAPH_CHAPTER = next(ROOT.glob("book/04_*.ipynb"))
# A Graphviz picture in a cell's output: an <img> of an SVG file, or an SVG inlined in the page.
GRAPH_PICTURE = ".cell_output img[src$='.svg'], .cell_output svg"
SLOW_REQUEST_S = 10  # a request of a local file still running after this long will not end
PAGES_AT_ONCE = 2  # tabs loading side by side; more did not help on a busy 2-core machine
ICON = ".svg-inline--fa"  # the theme's Font Awesome icons: many hidden on purpose (menus, theme switch)

# Runs in the page once it has loaded: opens every <details> (collapsed content must render too),
# waits for every image, then reports what did not render.
INSPECT_PAGE = """async () => {
    document.querySelectorAll('details').forEach(d => { d.open = true; });
    const images = [...document.querySelectorAll('img')];
    images.forEach(img => { img.loading = 'eager'; });  // lazy images below the fold load too
    await Promise.all(images.filter(img => !img.complete).map(img => new Promise(done => {
        img.addEventListener('load', done); img.addEventListener('error', done);
    })));
    const box = el => el.getBoundingClientRect();
    const describe = el => el.id || el.getAttribute('class') || el.outerHTML.slice(0, 80);
    const maths = [...document.querySelectorAll('.math')];
    return {
        brokenImages: images.filter(img => !(img.complete && img.naturalWidth > 0))
                            .map(img => img.getAttribute('src')),
        emptySvgs: [...document.querySelectorAll('main svg:not(ICON)')]
                   .filter(svg => !svg.parentElement.closest('svg'))  // outermost only
                   .filter(svg => !(box(svg).width > 0 && box(svg).height > 0)).map(describe),
        math: maths.length,
        untypesetMath: maths.filter(m => !m.querySelector('mjx-container'))
                            .map(m => m.textContent.trim().slice(0, 60)),
        mathErrors: [...document.querySelectorAll('mjx-merror')].map(e => e.textContent.slice(0, 60)),
    };
}""".replace("ICON", ICON)

# What a page still loads after its `load` event: MathJax typesets (its startup promise resolves
# once the page is done) and then fetches its fonts.
SETTLED = """async () => {
    if (window.MathJax?.startup?.promise) await window.MathJax.startup.promise;
    await document.fonts.ready;
}"""


@dataclass
class PageVisit:
    name: str
    failed_requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    empty_svgs: list[str] = field(default_factory=list)
    math: int = 0
    untypeset_math: list[str] = field(default_factory=list)
    math_errors: list[str] = field(default_factory=list)


def site_pages(directory: Path) -> list[Path]:
    """Every page of the site (_static holds the theme's templates, _sources the page sources)."""
    return sorted(
        path for path in directory.rglob("*.html")
        if not {"_static", "_sources"} & set(path.relative_to(directory).parts)  # zh_CN/_static too
    )


class Tab:
    """A browser tab that visits pages one after another and records, for the page it is on, what
    went wrong. Reusing tabs spares a new renderer process per page."""

    def __init__(self, context) -> None:
        self.page = context.new_page()
        self.seen = PageVisit("(none yet)")
        self.in_flight: set = set()  # requests sent and not yet finished
        record = self.record
        self.page.on("request", lambda request: self.in_flight.add(request))
        self.page.on("requestfinished", lambda request: self.in_flight.discard(request))
        self.page.on("requestfailed", lambda request: self.in_flight.discard(request))
        self.page.on("requestfailed", lambda request: record("failed_requests", f"{request.url} ({request.failure})"))
        self.page.on("response", lambda response: response.status >= 400 and record(
            "failed_requests", f"{response.url} (HTTP {response.status})"))
        self.page.on("console", lambda message: message.type == "error" and record(
            "console_errors", f"{message.text} (at {message.location.get('url', '?')})"))
        self.page.on("pageerror", lambda error: record("console_errors", f"uncaught {error}"))

    def record(self, attribute: str, problem: str) -> None:
        getattr(self.seen, attribute).append(problem)

    def start(self, url: str, name: str) -> None:
        """Navigate to ``url``; returns once the navigation has begun, so tabs can load side by side."""
        self.seen = PageVisit(name)
        self.page.goto(url, wait_until="commit")

    def finish(self) -> PageVisit:
        """Wait until the page has settled, inspect it, and return what was seen."""
        self.page.wait_for_load_state("load")
        self.page.evaluate(SETTLED)
        found = self.page.evaluate(INSPECT_PAGE)
        self.wait_for_requests()
        seen = self.seen
        seen.broken_images, seen.empty_svgs = found["brokenImages"], found["emptySvgs"]
        seen.math, seen.untypeset_math, seen.math_errors = found["math"], found["untypesetMath"], found["mathErrors"]
        return seen


    def wait_for_requests(self) -> None:
        """Let the requests a page makes after `load` (its favicon, say) end before the tab moves
        on, which would abort them; one still running after a while is a problem of its own."""
        deadline = time.monotonic() + SLOW_REQUEST_S
        while self.in_flight and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)
        for request in self.in_flight:
            self.record("failed_requests", f"{request.url} (still loading after {SLOW_REQUEST_S} s)")


@pytest.fixture(scope="module")
def visits(book_site, book_context) -> list[PageVisit]:
    """Every page, visited once, PAGES_AT_ONCE at a time (each tab has its own renderer process,
    so they load in parallel while the test inspects the oldest)."""
    pages = site_pages(book_site.directory)
    assert pages, f"no HTML page in {book_site.directory}"
    tabs = [Tab(book_context) for _ in range(min(PAGES_AT_ONCE, len(pages)))]
    done: list[PageVisit] = []
    loading: deque = deque()
    for number, path in enumerate(pages):
        tab = tabs[number % len(tabs)]
        if tab in loading:  # the oldest page still loading: finish it before reusing its tab
            done.append(loading.popleft().finish())
        tab.start(book_site.url(path), path.relative_to(book_site.directory).as_posix())
        loading.append(tab)
    done += [tab.finish() for tab in loading]
    for tab in tabs:
        tab.page.close()
    return done


def assert_none(visits: list[PageVisit], attribute: str, what: str, per_page: int = 5) -> None:
    """Fail listing, page by page, the problems recorded under ``attribute`` (``what`` they are)."""
    lines = []
    for seen in visits:
        problems = getattr(seen, attribute)
        lines += [f"  {seen.name}: {problem}" for problem in problems[:per_page]]
        if len(problems) > per_page:
            lines.append(f"  {seen.name}: ... and {len(problems) - per_page} more")
    if lines:
        pytest.fail(f"{what}:\n" + "\n".join(lines), pytrace=False)


def test_every_chapter_is_a_page_of_the_site(book_site):
    built = {path.stem for path in site_pages(book_site.directory)}
    chapters = {path.stem for path in ROOT.glob("book/[0-9][0-9]_*.ipynb")}
    assert chapters <= built, f"chapters without a page in {book_site.directory}: {sorted(chapters - built)}"


def test_every_request_succeeds(visits):
    assert_none(visits, "failed_requests", "requests that failed (the book must be complete and offline)")


def test_no_console_errors(visits):
    assert_none(visits, "console_errors", "errors in the browser's console")


def test_every_image_loads(visits):
    assert_none(visits, "broken_images", "images that did not load")


def test_every_inline_svg_is_drawn(visits):
    assert_none(visits, "empty_svgs", "inline SVG pictures with an empty bounding box")


def test_math_is_typeset(visits):
    with_math = [seen.name for seen in visits if seen.math]
    assert with_math, "no page of the site contains math: is dollarmath still enabled in book/conf.py?"
    assert_none(visits, "untypeset_math", "math MathJax did not typeset (is its local copy loading?)")
    assert_none(visits, "math_errors", "math MathJax could not parse")


def test_search_finds_a_term_of_chapter_09(book_site, book_context):
    from playwright.sync_api import expect

    assert SEARCH_TERM in SEARCH_CHAPTER.read_text(encoding="utf-8"), (
        f"{SEARCH_CHAPTER.name} no longer mentions {SEARCH_TERM}: choose another term of the chapter"
    )
    page = book_context.new_page()
    try:
        page.goto(book_site.url(f"search.html?q={SEARCH_TERM}"))
        hit = page.locator(f"#search-results a[href^='{SEARCH_CHAPTER.stem}.html']")
        expect(hit.first).to_be_visible(timeout=TIMEOUT_MS)
    finally:
        page.close()


def assert_is_a_picture(png: Path, min_width: int = 100, min_height: int = 50) -> None:
    """``png`` is a PNG of a real picture: big enough, and more than one flat colour."""
    from PIL import Image  # Pillow comes with matplotlib (course extra)

    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), f"{png} is not a PNG"
    with Image.open(io.BytesIO(data)) as image:
        assert image.width >= min_width and image.height >= min_height, f"{png} is only {image.size}"
        extremes = image.convert("L").getextrema()
    assert extremes[1] - extremes[0] > 64, f"{png} is nearly one flat colour {extremes}: nothing drawn?"


def test_screenshot_of_chapter_04_dag(book_site, book_context):
    page = book_context.new_page()
    try:
        page.goto(book_site.url(f"{GRAPH_CHAPTER.stem}.html"), wait_until="load")
        picture = page.locator(GRAPH_PICTURE).first
        picture.scroll_into_view_if_needed()
        shot = artifact_path("book_04_dag.png")
        picture.screenshot(path=str(shot))
    finally:
        page.close()
    assert_is_a_picture(shot)


def test_chinese_search_finds_the_glossary(book_site, book_context):
    """The Chinese edition's search is segmented by jieba: 叶子节点 (leaf tensor) finds the glossary."""
    from playwright.sync_api import expect

    if not (book_site.directory / "zh_CN" / "search.html").exists():
        pytest.fail("the Chinese edition was not built (make book builds it into _build/html/zh_CN)")
    page = book_context.new_page()
    try:
        page.goto(book_site.url("zh_CN/search.html?q=叶子节点"))
        expect(page.locator("#search-results a[href^='glossary.html']").first).to_be_visible(timeout=TIMEOUT_MS)
    finally:
        page.close()


def test_the_language_links_lead_to_the_same_page_and_back(book_site, book_context):
    page = book_context.new_page()
    try:
        page.goto(book_site.url(f"{GRAPH_CHAPTER.stem}.html"), wait_until="load")
        page.locator("p.glasstorch-edition a").click()
        page.wait_for_load_state("load")
        assert page.url.endswith(f"/zh_CN/{GRAPH_CHAPTER.stem}.html"), page.url
        assert page.locator("html").get_attribute("lang") in ("zh-CN", "zh_CN")
        page.locator("p.glasstorch-edition a").click()
        page.wait_for_load_state("load")
        assert page.url.endswith(f"/{GRAPH_CHAPTER.stem}.html") and "/zh_CN/" not in page.url, page.url
    finally:
        page.close()
