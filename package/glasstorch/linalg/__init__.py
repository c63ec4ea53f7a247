"""``glasstorch.linalg``: the linear-algebra namespace of ``torch/linalg/__init__.py``.

The functions live with the other matrix ops in ``ops/linalg.py``; this module gives them PyTorch's
public names (``torch.linalg.det`` is ``torch.det``;
``torch.linalg.svd`` returns (U, S, Vh), the older ``torch.svd`` (U, S, V)).
"""
from ..ops.linalg import det, linalg_svd as svd, svdvals

__all__ = ["det", "svd", "svdvals"]
