"""How a tensor prints: a numpy port of PyTorch's ``torch/_tensor_str.py``.

Read it next to ``torch/_tensor_str.py``: the names (``PRINT_OPTS``,
``_Formatter``, ``_vector_str``, ``_tensor_str_with_formatter``,
``get_summarized_data``, ``_add_suffixes``) and the rules are the same, so the
output is character for character what PyTorch prints for a CPU tensor.

What is simplified, compared with PyTorch:

* Only dense CPU tensors of real dtypes (bool, integers, float16, bfloat16,
  float32, float64). Complex, sparse, quantized, nested, meta, functorch and
  forward-AD (``tangent=``) tensors are left out, and so is the ``device=``
  suffix.
* The tensor arrives as a numpy array plus a few facts that the caller knows
  (its dtype name, whether to show it, its grad_fn). PyTorch's ``_str_intern``
  reads these from the tensor itself; here ``tensor_repr`` takes them as
  arguments.
* PyTorch converts to double to do its arithmetic and formats each element as
  a Python number. We convert floating arrays to float64 once, up front: every
  float16, bfloat16 and float32 value is exactly representable in float64, so
  each element is formatted from its exact value, as in PyTorch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

# The profiles of set_printoptions. "full" never summarizes: no tensor has
# more than infinitely many elements.
_PROFILES: dict[str, dict[str, float]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set options for printing (the same options and defaults as PyTorch).

    Args:
        precision: digits after the decimal point for floats (default 4).
        threshold: tensors with more elements than this are summarized with
            ``...`` (default 1000).
        edgeitems: how many items are kept at each end of a summarized
            dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``, applied first; the
            other arguments override it.
        sci_mode: True or False forces scientific notation on or off; None
            lets ``_Formatter`` decide.
    """
    if profile is not None:
        # Like PyTorch, an unknown profile name is silently ignored.
        for name, value in _PROFILES.get(profile, {}).items():
            setattr(PRINT_OPTS, name, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    # Unlike the others, sci_mode is always assigned: any call to
    # set_printoptions without sci_mode=... goes back to automatic mode.
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for set_printoptions()."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Change the print options inside a ``with`` block only."""
    old_kwargs = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old_kwargs)


def _is_floating(dtype: np.dtype) -> bool:
    # numpy does not count ml_dtypes' bfloat16 as np.floating, so ask for it.
    return np.issubdtype(dtype, np.floating) or dtype == ml_dtypes.bfloat16


def _exact_values(values: np.ndarray) -> np.ndarray:
    """Floats as float64, so that .tolist() and .item() give Python floats
    with the exact value (float64 holds every float16/bfloat16/float32
    value); bools and integers already give Python bools and ints."""
    return values.astype(np.float64) if _is_floating(values.dtype) else values


class _Formatter:
    """Decides how every element of one tensor is printed, so that they all
    line up: a common width, and for floats one common style out of

    * int mode: every finite value is a whole number: ``5.`` (the dot says
      "this is a float", the digits after it would all be zero);
    * sci mode: ``1.2346e+08``, when the values are very large (> 1e8), very
      small (< 1e-4), or span more than three orders of magnitude;
    * fixed mode: ``1.2346``, with ``PRINT_OPTS.precision`` digits.
    """

    def __init__(self, values: np.ndarray) -> None:
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        flat = values.reshape(-1)
        if not self.floating_dtype:
            self._widen_to_fit(flat)
            return

        # Zeros, nan and inf say nothing about the scale of the numbers, so
        # only the other values choose the style and the width.
        nonzero_finite_vals = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite_vals.size == 0:
            # no valid number: keep int mode, and a width of 1
            return

        nonzero_finite_abs = np.abs(nonzero_finite_vals)
        nonzero_finite_min = float(nonzero_finite_abs.min())
        nonzero_finite_max = float(nonzero_finite_abs.max())

        self.int_mode = bool(np.all(nonzero_finite_vals == np.ceil(nonzero_finite_vals)))

        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = (
                nonzero_finite_max / nonzero_finite_min > 1000.0
                or nonzero_finite_max > 1.0e8
                or nonzero_finite_min < 1.0e-4
            )
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        self._widen_to_fit(nonzero_finite_vals)

    def _widen_to_fit(self, values: np.ndarray) -> None:
        for value in values.tolist():
            self.max_width = max(self.max_width, len(self._unpadded(value)))

    def _unpadded(self, value: float | int | bool) -> str:
        if not self.floating_dtype:
            return f"{value}"
        if self.sci_mode:
            return f"{value:.{PRINT_OPTS.precision}e}"
        if self.int_mode:
            # nan and inf get no dot: "nan." would look like a typo.
            return f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        return f"{value:.{PRINT_OPTS.precision}f}"

    def width(self) -> int:
        return self.max_width

    def format(self, value: float | int | bool) -> str:
        """The element as text, right-aligned to the common width."""
        return self._unpadded(value).rjust(self.max_width)


def _scalar_str(values: np.ndarray, formatter: _Formatter) -> str:
    return formatter.format(values.item())


def _vector_str(values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    # length includes spaces and comma between elements
    element_length = formatter.width() + 2
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    edgeitems = PRINT_OPTS.edgeitems
    if summarize and not edgeitems:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edgeitems:
        data = (
            [formatter.format(val) for val in values[:edgeitems].tolist()]
            + [" ..."]
            + [formatter.format(val) for val in values[-edgeitems:].tolist()]
        )
    else:
        data = [formatter.format(val) for val in values.tolist()]

    # " ..." counts as one element when the row is cut into lines.
    data_lines = [data[i : i + elements_per_line] for i in range(0, len(data), elements_per_line)]
    lines = [", ".join(line) for line in data_lines]
    # Continuation lines start under the first element, one past the "[".
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(
    values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter
) -> str:
    dim = values.ndim

    if dim == 0:
        return _scalar_str(values, formatter)

    if dim == 1:
        return _vector_str(values, indent, summarize, formatter)

    # Each sub-tensor is printed one column further right, after our "[".
    def sub_str(i: int) -> str:
        return _tensor_str_with_formatter(values[i], indent + 1, summarize, formatter)

    edgeitems = PRINT_OPTS.edgeitems
    if summarize and values.shape[0] > 2 * edgeitems:
        length = values.shape[0]
        slices = (
            [sub_str(i) for i in range(edgeitems)]
            + ["..."]
            + [sub_str(i) for i in range(length - edgeitems, length)]
        )
    else:
        slices = [sub_str(i) for i in range(values.shape[0])]

    # Matrices are separated by one blank line, 3-d blocks by two, and so on.
    tensor_str = ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices)
    return "[" + tensor_str + "]"


def _tensor_str(values: np.ndarray, indent: int) -> str:
    """The bracketed contents, for a tensor printed `indent` columns in."""
    if values.size == 0:
        return "[]"

    summarize = values.size > PRINT_OPTS.threshold
    values = _exact_values(values)
    # A summarized tensor is formatted to fit only the elements that are shown.
    formatter = _Formatter(get_summarized_data(values) if summarize else values)
    return _tensor_str_with_formatter(values, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int, force_newline: bool) -> str:
    tensor_strs = [tensor_str]
    # As in PyTorch, this counts 2 more than the length of the last line, so a
    # suffix moves to a new line a little before the line is really full.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        # measured as PyTorch's "torch.float64": the line breaks where PyTorch's does, although
        # "glasstorch." is longer (the doctest examples' layouts stay PyTorch's)
        suffix_len = len(suffix.replace("glasstorch.", "torch."))
        if force_newline or last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def get_summarized_data(values: np.ndarray) -> np.ndarray:
    """Only the elements a summarized print shows (edgeitems at each end of
    every dimension), so that they alone decide the formatting."""
    dim = values.ndim
    edgeitems = PRINT_OPTS.edgeitems
    if dim == 0:
        return values
    if dim == 1:
        if values.shape[0] > 2 * edgeitems:
            # With edgeitems == 0, values[-0:] is the whole vector, as in PyTorch.
            return np.concatenate((values[:edgeitems], values[-edgeitems:]))
        return values
    if not edgeitems:
        return np.empty((0,) * dim, dtype=values.dtype)
    if values.shape[0] > 2 * edgeitems:
        length = values.shape[0]
        kept = list(range(edgeitems)) + list(range(length - edgeitems, length))
    else:
        kept = list(range(values.shape[0]))
    return np.stack([get_summarized_data(values[i]) for i in kept])


def _dtype_is_implied_by_values(dtype: np.dtype) -> bool:
    # PyTorch hides int64 and bool because the elements show the dtype
    # (no dot: int64; True/False: bool). An empty tensor has no elements, so
    # there it shows them; only the default float dtype stays hidden.
    return dtype == np.int64 or dtype == np.bool_


def tensor_repr(
    values: np.ndarray,
    *,
    dtype_name: str,
    show_dtype: bool,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
) -> str:
    """The repr of a tensor, as PyTorch's ``_str_intern`` writes it.

    Args:
        values: the tensor's data.
        dtype_name: printed as ``dtype=<dtype_name>``, e.g. "glasstorch.float64".
        show_dtype: whether a non-empty tensor shows its dtype (PyTorch hides
            the default float dtype, int64 and bool).
        requires_grad: shown as ``requires_grad=True`` if there is no grad_fn.
        grad_fn_name: e.g. "MulBackward0", shown as ``grad_fn=<MulBackward0>``.
        prefix: what comes before the contents; continuation lines are
            indented to line up after it.
    """
    values = np.asarray(values)
    indent = len(prefix)
    suffixes = []

    if values.size == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior
        if values.ndim != 1:
            suffixes.append("size=" + str(tuple(values.shape)))
        if show_dtype or _dtype_is_implied_by_values(values.dtype):
            suffixes.append("dtype=" + dtype_name)
        tensor_str = "[]"
    else:
        # With edgeitems=0 the contents are a bare "...": show the shape.
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(values.shape)))
        if show_dtype:
            suffixes.append("dtype=" + dtype_name)
        tensor_str = _tensor_str(values, indent)

    # A tensor with a grad_fn always requires grad, so saying it is redundant.
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)
