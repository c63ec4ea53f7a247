"""What the browser tests need, where it is, and what happens when it is missing.

Each requirement (Python playwright, a Chromium executable, the built book, the `glasstorch`
kernel) is looked up once. When one is missing the tests skip with a reason that says what to
install or run; with GLASSTORCH_REQUIRE_BROWSER=1 (set by .ci/run) they fail instead, so a CI
machine can never pass by skipping them.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"  # git-ignored; CI keeps it as the tests' artefacts
KERNEL_NAME = "glasstorch"  # registered by tools/setup_env.py, named by every notebook

VIEWPORT = {"width": 1280, "height": 900}  # a laptop screen
TIMEOUT_MS = 30_000  # for any single wait on a page

REQUIRE = os.environ.get("GLASSTORCH_REQUIRE_BROWSER", "") not in ("", "0")

# Debian's Chromium as the tests run it: headless, as root (hence no sandbox), and quiet: no
# background requests to Google's services, which would fail offline and slow the start.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]


def unavailable(reason: str) -> NoReturn:
    """Skip the calling test with ``reason``, or fail it when the browser tests are required."""
    if REQUIRE:
        pytest.fail(f"{reason} [GLASSTORCH_REQUIRE_BROWSER=1: the browser tests must run here]", pytrace=False)
    pytest.skip(reason)


def require_playwright() -> None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable(
            "Python playwright is not installed: `.venv/bin/pip install playwright` (it is in the "
            "`test` extra, which `make test` installs). Do not run `playwright install`: the tests "
            "use the system's Chromium"
        )


def load_setup_env() -> ModuleType:
    """tools/setup_env.py, which installs Chromium: the tests look for it the same way."""
    spec = importlib.util.spec_from_file_location("glasstorch_setup_env", ROOT / "tools" / "setup_env.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chromium_executable() -> str:
    """The Chromium to drive: $GLASSTORCH_CHROMIUM, else the first Chromium or Chrome on PATH."""
    setup_env = load_setup_env()
    found = setup_env.find_chromium()
    if not found:
        unavailable(f"no Chromium found on PATH or in $GLASSTORCH_CHROMIUM: {setup_env.CHROMIUM_INSTALL}")
    return found


def book_html() -> Path:
    """The built HTML book: $GLASSTORCH_BOOK_HTML, by default <repo>/_build/html."""
    html = Path(os.environ.get("GLASSTORCH_BOOK_HTML") or ROOT / "_build" / "html")
    if not (html / "index.html").is_file():
        unavailable(f"the HTML book is not built ({html}/index.html is missing): run `make book` first")
    return html


def require_lab_kernel() -> None:
    """JupyterLab and the `glasstorch` kernelspec, as this interpreter sees them."""
    if importlib.util.find_spec("jupyterlab") is None:
        unavailable("JupyterLab is not installed in this interpreter: run `make setup`")
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        unavailable(
            f"the Jupyter kernel `{KERNEL_NAME}` is not registered: run `make setup` (or `python -m "
            f"ipykernel install --sys-prefix --name {KERNEL_NAME} --display-name 'Python (glasstorch)'`)"
        )


def artifact_path(name: str) -> Path:
    """Where a test saves an artefact (a screenshot) named ``name``."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
