"""Writes a forged answer into the grader's pipe, which its parent process (the notebook's run)
holds open: /proc/<parent>/fd/N is there for any process of the same user to open."""
import json
import os

forged = json.dumps({"steps": {}, "observations": {}}).encode()
opened = []
parent = os.getppid()
try:
    fds = os.listdir(f"/proc/{parent}/fd")
except OSError:
    fds = []
for fd in fds:
    try:
        target = os.readlink(f"/proc/{parent}/fd/{fd}")
        if target.startswith("pipe:"):
            with open(f"/proc/{parent}/fd/{fd}", "wb") as pipe:
                pipe.write(forged)
            opened.append(fd)
    except OSError:
        pass
raise RuntimeError(f"wrote a forged answer into {len(opened)} pipes of the notebook's run")
