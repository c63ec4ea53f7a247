"""``torch.backends.cuda`` (torch/backends/cuda/__init__.py). glasstorch has no CUDA.
(PyTorch has no ``torch.backends.cuda.is_available``: use ``torch.cuda.is_available()``.)"""


def is_built() -> bool:
    """Was this build made with CUDA support? No."""
    return False
