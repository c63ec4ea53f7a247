"""``torch.backends.mps``: Apple's Metal backend (torch/backends/mps/__init__.py). Not in glasstorch."""


def is_available() -> bool:
    """Is an MPS device usable? Never in glasstorch."""
    return False


def is_built() -> bool:
    """Was this build made with MPS support? No."""
    return False
