"""Utilities shared by the package (PyTorch: ``torch/utils``)."""
