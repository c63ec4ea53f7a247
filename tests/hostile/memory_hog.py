"""Takes memory until something stops it: 3 GiB, every page touched (a grader machine with less
would start swapping, or the OOM killer would pick a victim: the grader, a classmate's kernel)."""
blocks = []
for _ in range(12):
    block = bytearray(256 << 20)
    block[::4096] = b"\1" * len(range(0, len(block), 4096))
    blocks.append(block)
