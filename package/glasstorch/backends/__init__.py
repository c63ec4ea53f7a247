"""``glasstorch.backends``: which compute backends exist. Mirrors torch/backends/. glasstorch
computes with numpy on the CPU, so there is no CUDA, cuDNN or MPS; code that checks first, as
tutorials do (``"mps" if torch.backends.mps.is_available() else "cpu"``), picks the CPU."""
from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
