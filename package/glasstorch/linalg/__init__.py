"""``glasstorch.linalg``: the linear-algebra namespace of ``torch/linalg/__init__.py``.

The functions live with the other matrix ops in ``ops/linalg.py``; this module gives them PyTorch's
public names (``torch.linalg.det`` is ``torch.det``).
"""
from ..ops.linalg import det

__all__ = ["det"]
