"""Where glasstorch builds another graph *below* an op's output than PyTorch does (the output's own
Node is the same; the op table checks that everywhere): {entry id: why}. The whole-graph check
(``test_ops_vs_torch.py::test_same_graph_as_pytorch``) skips these with the reason.

Most come from one simplification. Inside its C++ composite functions PyTorch adds or multiplies
by a number with the Scalar overload of the op (``AddBackward1``, ``MulBackward1``: one edge); in
Python, ``x + 1.0`` records ``AddBackward0`` with a second, empty edge, and glasstorch records that
everywhere, composite or not.
"""
from __future__ import annotations

SCALAR_OVERLOAD = ("PyTorch's C++ composite adds or multiplies by a number with the Scalar overload "
                   "(AddBackward1/MulBackward1, one edge); glasstorch records AddBackward0/MulBackward0 with "
                   "an empty edge, as PyTorch does for the same Python code")
ORDER = "the same Nodes, composed in another order (operands or the chain's association)"
BATCHED_MATMUL = ("the sample's A A^T + nI (made in the entry's op) is a batched matmul: glasstorch records one "
                  "MatmulBackward0, PyTorch UnsafeViewBackward0 over BmmBackward0 (ops/linalg.py says why)")

GRAPH_DIFFERENCES = {
    "nn_functional:nn.functional.cross_entropy-label_smoothing": SCALAR_OVERLOAD,
    "nn_functional:nn.functional.cross_entropy-probabilities": SCALAR_OVERLOAD,
    "nn_functional:nn.functional.poisson_nll_loss": SCALAR_OVERLOAD,
    "nn_functional:nn.functional.margin_ranking_loss": SCALAR_OVERLOAD,
    "nn_functional:nn.functional.hinge_embedding_loss": SCALAR_OVERLOAD + " (1 - x: RsubBackward1 here)",
    "nn_functional:nn.functional.cosine_embedding_loss": SCALAR_OVERLOAD + " (1 - x: RsubBackward1 here)",
    "nn_functional:nn.functional.triplet_margin_loss": SCALAR_OVERLOAD,
    "nn_functional:nn.functional.triplet_margin_with_distance_loss": SCALAR_OVERLOAD,
    "nn_functional:nn.functional.pairwise_distance": SCALAR_OVERLOAD,
    "nn_functional:nn.functional.rms_norm": SCALAR_OVERLOAD + "; x * x where PyTorch squares with pow",
    "nn_functional:nn.functional.soft_margin_loss": "the target is an edge of the Node (empty: it needs no "
                                                    "gradient); PyTorch's Node has no edge for it",
    "nn_functional:nn.functional.ctc_loss": "the target lengths are an (empty) edge of CtcLossBackward0; "
                                            "PyTorch's Node has none for them",
    "nn_functional:nn.functional.kl_div": "target * log(target) as a clamp and a log; PyTorch calls xlogy",
    "nn_functional:nn.functional.normalize": "the norm clamped with clamp(min=) (ClampBackward1); PyTorch "
                                             "calls clamp_min (ClampMinBackward0)",
    "nn_functional:nn.functional.cosine_similarity": "the inputs are broadcast before their norms are taken; "
                                                     "PyTorch broadcasts after",
    "nn_functional:nn.functional.prelu": "the weight enters PreluKernelBackward0 as it is; PyTorch views it "
                                         "as (C, 1, ...) first",
    "nn_functional:nn.functional.bilinear": "composed of matmul, mul and sum; PyTorch calls its trilinear "
                                            "kernel (TrilinearBackward0)",
    "nn_functional:nn.functional.linear_cross_entropy": "the reference path composes linear and "
                                                        "cross_entropy; PyTorch's chunked path differs",
    "reductions:quantile": "sorting and interpolation composed with other Nodes below the final squeeze",
    "reductions:nanquantile": "sorting and interpolation composed with other Nodes below the final squeeze",
    "reductions:gradient": "the finite differences composed with other slices and Nodes than PyTorch's",
    "reductions:gradient-coordinates": "the finite differences composed with other slices and Nodes than "
                                       "PyTorch's",
    "reductions:cov": "the centring and weighting composed in another order",
    "reductions:corrcoef": "the centring and weighting composed in another order (it calls cov)",
    "shapes:kron": "the outer product formed by broadcasting views (PyTorch: a permute and reshape)",
    "shapes:tensordot": "the contraction reshaped and transposed in another order",
    "indexing:index_put": "the values are broadcast before they are written (PyTorch: inside the kernel)",
    "linalg:trapezoid-x": ORDER,
    "linalg:trapezoid-x_full": ORDER,
    "linalg:cumulative_trapezoid-x": ORDER,
    "linalg:cumulative_trapezoid-x_full": ORDER,
    "linalg_functions:linalg.matrix_norm-nuc": "keepdim restores each reduced dim with its own unsqueeze; "
                                               "PyTorch with one",
    "linalg_functions:linalg.matrix_norm-2": "keepdim restores each reduced dim with its own unsqueeze; "
                                             "PyTorch with one",
    "linalg_functions:linalg.matrix_norm-minus2": "keepdim restores each reduced dim with its own unsqueeze; "
                                                  "PyTorch with one",
    "linalg_functions:linalg.multi_dot-three": ORDER,
    "linalg_functions:linalg.multi_dot-vector_ends": ORDER,
    "linalg:chain_matmul": ORDER,
    "linalg:logdet": BATCHED_MATMUL,
    "linalg:linalg.cholesky": BATCHED_MATMUL,
    "linalg:linalg.cholesky-upper": BATCHED_MATMUL,
    "linalg:cholesky": BATCHED_MATMUL,
    "linalg:cholesky-upper": BATCHED_MATMUL,
    "linalg_functions:linalg.cholesky_ex": BATCHED_MATMUL,
    "nn_conv_pool:nn.functional.multi_head_attention_forward": "a batched product's result is viewed over a "
                                                               "clone (ViewBackward0) where PyTorch's matmul "
                                                               "records UnsafeViewBackward0",
    "shapes:cartesian_prod": "a one-element input is reshaped as a view (ViewBackward0); PyTorch records "
                             "ReshapeAliasBackward0",
    "linalg_functions:linalg.tensorsolve": "a permuted input is reshaped as ViewBackward0 over a copy; PyTorch "
                                           "records ReshapeAliasBackward0",
    "shapes:repeat_interleave-int": "a 1-D input is unsqueezed before the expand where PyTorch views it",
    "nn_functional:nn.functional.linear": "a 1-D input is unsqueezed for the product where PyTorch views it",
    "shapes:inner": "with a 1-D operand, tensordot's mm where PyTorch multiplies and sums",
    "shapes:vander": "increasing=True: the powers joined with cat where PyTorch writes them in place (CopySlices)",
    "shapes:combinations": "the combinations picked with index_select; PyTorch masks an expanded grid "
                           "(MaskedSelectBackward0)",
    "nn_functional:nn.functional.local_response_norm": "the window average is a mean over unfolded windows; "
                                                       "PyTorch calls avg_pool3d",
}
