"""``glasstorch.linalg``: the linear-algebra namespace of ``torch/linalg/__init__.py``.

The functions live with the other matrix ops in ``ops/linalg.py``; this module gives them PyTorch's
public names (``torch.linalg.det`` is ``torch.det``;
``torch.linalg.svd`` returns (U, S, Vh), the older ``torch.svd`` (U, S, V)); inv, solve, cholesky
and solve_triangular live in ``ops/linalg_solve.py``.
"""
from ..ops.linalg import det, linalg_svd as svd, svdvals
from ..ops.linalg_solve import LinAlgError, cholesky, inv, solve, solve_triangular
from ..ops.linalg_lu import linalg_lu as lu, linalg_lu_solve as lu_solve, lu_factor
from ..ops.linalg_norms import cond, matrix_norm, norm, vector_norm
from ..ops.linalg_decompositions import (cholesky_ex, eigh, eigvalsh, inv_ex, linalg_qr as qr,
                                         linalg_slogdet as slogdet, lstsq, matrix_rank, pinv, solve_ex, tensorinv,
                                         tensorsolve)
from ..ops.linalg_functions import cross, diagonal, matrix_exp, matrix_power, multi_dot, vander, vecdot

__all__ = ["LinAlgError", "cholesky", "det", "inv", "lu", "lu_factor", "lu_solve", "solve", "solve_triangular", "svd",
           "svdvals",
           # norms, decompositions and matrix functions (ops/linalg_norms.py, linalg_decompositions.py,
           # linalg_functions.py)
           "cholesky_ex", "cond", "cross", "diagonal", "eigh", "eigvalsh", "inv_ex", "lstsq", "matrix_exp",
           "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve_ex",
           "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]
