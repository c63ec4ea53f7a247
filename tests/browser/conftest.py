"""Fixtures of the browser tests: headless Chromium, the built book on a loopback HTTP server, and
a JupyterLab server on a temporary folder, each started once per test module.

Not once per session: while playwright's sync API is alive it marks its asyncio loop as running
between calls, so `asyncio.run()` in any later test (nbclient, the grader, nbval's kernels) would
fail. Module scope stops it as soon as the browser tests are done (one more Chromium start: ~1 s).

Each fixture first checks what it needs (browser_env) and skips, or under
GLASSTORCH_REQUIRE_BROWSER=1 fails, with a reason that says what to install or run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import pytest

from browser_env import (
    CHROMIUM_ARGS, TIMEOUT_MS, VIEWPORT, book_html, chromium_executable, require_lab_kernel, require_playwright,
)
from lab_server import LabServer, run_lab
from static_site import serve_directory

if TYPE_CHECKING:  # playwright is imported only once we know it is installed
    from playwright.sync_api import Browser, BrowserContext


@pytest.fixture(scope="module")
def browser() -> Iterator["Browser"]:
    require_playwright()
    executable = chromium_executable()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def new_context(browser: "Browser") -> "BrowserContext":
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    return context


@dataclass(frozen=True)
class BookSite:
    directory: Path  # the built HTML
    base_url: str  # where it is served, ending in '/'

    def url(self, page: Path | str) -> str:
        """The URL of a page, given as a path in the site or relative to it."""
        path = Path(page)
        relative = path.relative_to(self.directory) if path.is_absolute() else path
        return self.base_url + relative.as_posix()


@pytest.fixture(scope="module")
def book_site() -> Iterator[BookSite]:
    directory = book_html()
    with serve_directory(directory) as base_url:
        yield BookSite(directory, base_url)


@pytest.fixture(scope="module")
def book_context(browser: "Browser", book_site: BookSite) -> Iterator["BrowserContext"]:
    """One context for every visit of the book: the pages are read one after another."""
    context = new_context(browser)
    yield context
    context.close()


@pytest.fixture(scope="module")
def lab_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder JupyterLab serves; tests copy the notebooks they open into it (never the repo's)."""
    return tmp_path_factory.mktemp("lab-root")


@pytest.fixture(scope="module")
def lab(lab_root: Path, tmp_path_factory: pytest.TempPathFactory, browser: "Browser") -> Iterator[LabServer]:
    # `browser` first: without one there is no point in starting JupyterLab
    require_lab_kernel()
    with run_lab(lab_root, tmp_path_factory.mktemp("lab-state")) as server:
        yield server


@pytest.fixture
def lab_context(browser: "Browser", lab: LabServer) -> Iterator["BrowserContext"]:
    """A fresh context per Lab test: its own local storage, so no state passes between tests."""
    context = new_context(browser)
    yield context
    context.close()
