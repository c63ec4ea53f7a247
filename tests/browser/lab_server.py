"""A JupyterLab server for the tests: loopback only, a random token, its own settings, stopped
(with its kernels) when the `with` block ends, whatever happened inside it.

It runs with the tests' own interpreter (``sys.executable -m jupyterlab``), so the kernels it
offers are the ones this environment registered, `glasstorch` among them.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

START_TIMEOUT = 90.0  # seconds; a cold start on a busy 2-core machine takes about 10
STOP_TIMEOUT = 15.0

# Settings a learner would not miss in a test run: no news feed or update check (requests to the
# internet) and no toast asking whether to fetch them.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
}


@dataclass(frozen=True)
class LabServer:
    base_url: str  # http://127.0.0.1:PORT/
    token: str
    log: Path

    def url(self, path: str) -> str:
        """The URL of ``path`` (e.g. 'lab/tree/x.ipynb') with the token, for the browser."""
        return f"{self.base_url}{path}?token={self.token}"

    def api(self, path: str, method: str = "GET") -> bytes:
        request = urllib.request.Request(
            self.base_url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_user_settings(settings_dir: Path) -> None:
    for name, values in USER_SETTINGS.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def lab_command(root_dir: Path, state_dir: Path, port: int, token: str) -> list[str]:
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",  # fail rather than move to a port the tests do not know
        f"--IdentityProvider.token={token}",
        "--expose-app-in-browser",  # window.jupyterapp: the tests read the notebook's model through it
        f"--ServerApp.root_dir={root_dir}",
        f"--LabApp.user_settings_dir={state_dir / 'user-settings'}",
        f"--LabApp.workspaces_dir={state_dir / 'workspaces'}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI machines run as root
    return command


def wait_until_ready(server: LabServer, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with code {process.returncode}:\n{server.log_tail()}")
        try:
            server.api("api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.25)
    raise RuntimeError(f"JupyterLab did not answer within {START_TIMEOUT:.0f} s:\n{server.log_tail()}")


def stop(server: LabServer, process: subprocess.Popen) -> None:
    """Ask the server to shut down (it stops its kernels first); kill it if it does not."""
    if process.poll() is None:
        with contextlib.suppress(OSError, urllib.error.URLError):
            server.api("api/shutdown", method="POST")
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)
    # Kernels run in sessions of their own, but each one polls its parent and exits when it is gone.


@contextlib.contextmanager
def run_lab(root_dir: Path, state_dir: Path) -> Iterator[LabServer]:
    """Start JupyterLab on ``root_dir``; its settings, runtime files and log go in ``state_dir``."""
    state_dir.mkdir(parents=True, exist_ok=True)
    write_user_settings(state_dir / "user-settings")
    port, token = free_port(), secrets.token_hex(16)
    server = LabServer(f"http://127.0.0.1:{port}/", token, state_dir / "lab.log")
    # Keep the user's own Jupyter configuration out of the test, and its runtime files in state_dir.
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(state_dir / "config"),
               JUPYTER_RUNTIME_DIR=str(state_dir / "runtime"))
    with server.log.open("w") as log:
        process = subprocess.Popen(
            lab_command(root_dir, state_dir, port, token),
            cwd=root_dir, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        wait_until_ready(server, process)
        yield server
    finally:
        stop(server, process)
