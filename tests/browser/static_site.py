"""Serve a directory over HTTP on loopback, in a thread, for as long as a `with` block lasts.

The book is opened through http://127.0.0.1 rather than file:// because that is how a reader
meets it once it is published, and because file:// pages behave differently (search's index
loading, MathJax's fonts, same-origin rules).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # the browser reports failed requests to the tests; no log on stderr


@contextlib.contextmanager
def serve_directory(directory: Path) -> Iterator[str]:
    """Yield the base URL (ending in '/') of an HTTP server for ``directory`` on a free port."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="book-http", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
