"""tools/setup_env.py: two make commands started together on a fresh clone must not both build .venv;
bubblewrap (the grader's sandbox) is installed with apt where it may be, else noted."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETUP_ENV = ROOT / "tools" / "setup_env.py"


def _load_setup_env():
    spec = importlib.util.spec_from_file_location("setup_env", SETUP_ENV)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOLDER = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("setup_env", sys.argv[1])
setup_env = importlib.util.module_from_spec(spec); spec.loader.exec_module(setup_env)
with setup_env.one_setup_at_a_time(setup_env.Path(sys.argv[2])):
    print("held", flush=True)
    time.sleep(float(sys.argv[3]))
"""


def test_a_second_setup_waits_for_the_first_and_says_so(tmp_path, capsys):
    setup_env = _load_setup_env()
    lock = tmp_path / ".venv.lock"
    hold = 1.5
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(SETUP_ENV), str(lock), str(hold)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        with setup_env.one_setup_at_a_time(lock):
            waited = time.monotonic() - start
            assert holder.poll() is not None, "entered while the other set-up still held the lock"
    finally:
        holder.wait(timeout=30)
    assert waited > 0.5  # (the holder slept 1.5 s after saying "held")
    assert "another set-up of .venv is running" in capsys.readouterr().out


def test_an_uncontended_setup_enters_at_once_and_quietly(tmp_path, capsys):
    setup_env = _load_setup_env()
    with setup_env.one_setup_at_a_time(tmp_path / ".venv.lock"):
        pass
    with setup_env.one_setup_at_a_time(tmp_path / ".venv.lock"):  # released on leaving
        pass
    assert capsys.readouterr().out == ""


def test_a_missing_bubblewrap_is_installed_with_apt_or_noted(monkeypatch, capsys):
    setup_env = _load_setup_env()
    monkeypatch.setattr(setup_env.sys, "platform", "linux")
    monkeypatch.setattr(setup_env.shutil, "which", lambda name: None)
    installed = []
    monkeypatch.setattr(setup_env, "apt_install", lambda package: installed.append(package) or True)
    monkeypatch.setattr(setup_env, "can_apt", lambda: True)
    setup_env.ensure_bwrap()
    assert installed == ["bubblewrap"]  # (and, still not on PATH here, the note follows)
    monkeypatch.setattr(setup_env, "can_apt", lambda: False)
    setup_env.ensure_bwrap()
    assert installed == ["bubblewrap"] and "apt-get install -y bubblewrap" in capsys.readouterr().out


def test_bubblewrap_is_not_asked_for_off_linux(monkeypatch, capsys):
    setup_env = _load_setup_env()
    monkeypatch.setattr(setup_env.sys, "platform", "darwin")
    monkeypatch.setattr(setup_env, "apt_install", lambda package: pytest.fail("apt on macOS"))
    setup_env.ensure_bwrap()
    assert capsys.readouterr().out == ""
