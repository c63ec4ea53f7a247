"""``glasstorch.linalg``: the linear-algebra namespace of ``torch/linalg/__init__.py``.

The functions live with the other matrix ops in ``ops/linalg.py``; this module gives them PyTorch's
public names (``torch.linalg.det`` is ``torch.det``;
``torch.linalg.svd`` returns (U, S, Vh), the older ``torch.svd`` (U, S, V)); inv, solve, cholesky
and solve_triangular live in ``ops/linalg_solve.py``.
"""
from ..ops.linalg import det, linalg_svd as svd, svdvals
from ..ops.linalg_solve import LinAlgError, cholesky, inv, solve, solve_triangular
from ..ops.linalg_lu import linalg_lu as lu, linalg_lu_solve as lu_solve, lu_factor

__all__ = ["LinAlgError", "cholesky", "det", "inv", "lu", "lu_factor", "lu_solve", "solve", "solve_triangular", "svd",
           "svdvals"]
