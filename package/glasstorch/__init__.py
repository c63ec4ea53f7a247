"""glasstorch: a readable numpy re-implementation of PyTorch's tensor, autograd and nn internals."""

__version__ = "0.1.0"
