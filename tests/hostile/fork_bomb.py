"""Starts processes until something stops it (here at most 400, each sleeping 30 s, so that it ends
even where nothing stops it)."""
import subprocess

children = [subprocess.Popen(["sleep", "30"]) for _ in range(400)]
