"""nn.functional: activations, losses, normalization, embeddings, distances."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput  # noqa: F401

OPS: list = []
