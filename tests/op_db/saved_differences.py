"""Where glasstorch's Node saves other state than PyTorch's (``grad_fn._saved_<name>``): {entry id:
why}. The saved-state check (``test_ops_vs_torch.py::test_saved_state_as_pytorch``) skips these
with the reason. Measured with the op table's first runs of that check: 64 of 764 entries.
"""
from __future__ import annotations

FACTORISATION = ("PyTorch's Node also saves the factorisation it computed (LU, pivots, L, U, the sizes of S); "
                 "glasstorch's backward recomputes what it needs from the input and the outputs")
NUMBER_TYPE = ("a number saved as a float where PyTorch keeps the int its default was written with "
               "(alpha=1, max_val=6) or the float where the caller gave an int")
CORRECTION = ("PyTorch saves correction=1 and the reduced dims as a tuple even when not given; glasstorch "
              "saves None and ()")
DIMS = "a dim list saved in another form (counted otherwise, or for the flattened input)"

SAVED_DIFFERENCES = {
    **{f"indexing:index_reduce-{reduce}": "the index is saved as given (PyTorch: a 0-dim view) and the source "
                                          "not at all (glasstorch's backward keeps its own copy)"
       for reduce in ("amax", "amax_exclude_self", "amin", "amin_exclude_self", "mean", "mean_exclude_self",
                      "prod", "prod_exclude_self")},
    **{entry: FACTORISATION for entry in (
        "linalg:det", "linalg:linalg.det", "linalg_functions:linalg.slogdet", "linalg_functions:slogdet",
        "linalg:linalg.solve", "linalg:linalg.solve-left_false", "linalg:linalg.solve-vector",
        "linalg_functions:linalg.solve_ex", "linalg:lu", "linalg:linalg.lu", "linalg:linalg.lu_factor",
        "linalg:svd", "linalg:svd-some_false", "linalg:linalg.svd", "linalg:linalg.svdvals", "linalg:cholesky",
        "linalg:cholesky-upper", "linalg_functions:linalg.eigh", "linalg_functions:linalg.eigh-upper",
        "linalg_functions:linalg.matrix_power-minus2", "linalg:addbmm", "linalg:addbmm-beta_alpha")},
    **{entry: NUMBER_TYPE for entry in (
        "nn_functional:nn.functional.elu", "nn_functional:nn.functional.elu-inplace",
        "nn_functional:nn.functional.selu", "nn_functional:nn.functional.selu-inplace",
        "nn_functional:nn.functional.relu6", "nn_functional:nn.functional.relu6-inplace",
        "linalg_functions:linalg.matrix_norm-fro", "linalg_functions:linalg.norm", "reductions:norm")},
    **{entry: CORRECTION for entry in (
        "reductions:var", "reductions:var-0-dim", "reductions:std", "reductions:std-dim", "reductions:var_mean",
        "reductions:std_mean", "reductions:logsumexp-0-dim", "reductions:nanmean", "reductions:nanmean-dim")},
    **{entry: DIMS for entry in ("shapes:flip", "shapes:inner", "shapes:tensordot", "shapes:tensor_split-indices",
                                 "reductions:var-dim", "reductions:logsumexp")},
    "nn_functional:nn.functional.ctc_loss": "the forward's alpha table (result1) is saved with other values in the "
                                            "entries past each target's length",
    "nn_functional:nn.functional.linear_cross_entropy": "NllLossBackward0's saved total_weight differs (by 1 in "
                                                        "the samples measured): glasstorch takes the reference "
                                                        "path, not PyTorch's chunked one",
    "nn_functional:nn.functional.rrelu-eval": "in eval mode PyTorch saves an (unused) noise tensor; glasstorch None",
    "nn_functional:nn.functional.rrelu-eval-inplace": "in eval mode PyTorch saves an (unused) noise tensor; "
                                                      "glasstorch None",
    "nn_functional:nn.functional.prelu": "the weight is saved as given (C,); PyTorch saves its (C, 1) view",
    "nn_functional:nn.functional.embedding_bag": "PyTorch's Node also saves the offsets, bag sizes and maximum "
                                                 "indices it computed (result1..3)",
    "nn_functional:nn.functional.cross_entropy": "the mean's divisor is saved as a float tensor; PyTorch's is the "
                                                 "int64 count of weights",
    "nn_functional:nn.functional.nll_loss": "the mean's divisor is saved as a float tensor; PyTorch's is the int64 "
                                            "count of weights",
    "nn_conv_pool:nn.functional.conv2d": "output_padding saved with one entry per spatial dim; PyTorch saves the "
                                         "[0] it was given",
    "nn_conv_pool:nn.functional.conv3d": "output_padding saved with one entry per spatial dim; PyTorch saves the "
                                         "[0] it was given",
}
