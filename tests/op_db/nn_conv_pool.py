"""nn.functional: convolutions, pooling, padding, upsampling, fold/unfold."""
from __future__ import annotations

from .core import ErrorInput, OpInfo, SampleInput  # noqa: F401

OPS: list = []
