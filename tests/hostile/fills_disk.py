"""Writes a file until something stops it (here 600 MB, in its current folder)."""
chunk = b"\0" * (1 << 20)
with open("filler.bin", "wb") as filler:
    for _ in range(600):
        filler.write(chunk)
