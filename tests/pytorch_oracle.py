"""Running one program in glasstorch and in real PyTorch, and comparing what each returned.

A program is written once as a function of the library module (``def program(lib):``) and run
twice. Real PyTorch is the oracle: no expected value is written by hand. Shared by the op table's
tests (``tests/op_db``) and the differential tests (``test_vs_torch.py`` and its neighbours).
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np

import glasstorch

try:
    import torch
except ImportError:  # the modules that compare import it with pytest.importorskip first
    torch = None

TORCH_MISSING = "PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)"


def run(program: Callable, lib: Any, *args: Any) -> tuple[str, Any]:
    """Run ``program(lib, *args)``; return ``("ok", result)`` or ``("error", exception)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", program(lib, *args)
        except Exception as error:  # noqa: BLE001 - the exception is what we compare
            return "error", error


def run_both(program: Callable, *args: Any) -> tuple[Any, Any]:
    """The program's results in glasstorch and in PyTorch; either one failing fails the test."""
    got_kind, got = run(program, glasstorch, *args)
    want_kind, want = run(program, torch, *args)
    if want_kind == "error":
        raise AssertionError(f"the program fails in real PyTorch: {type(want).__name__}: {want}")
    if got_kind == "error":
        raise AssertionError(f"the program fails in glasstorch: {type(got).__name__}: {got}") from got
    return got, want


def torch_name(text: str) -> str:
    """PyTorch's printed names as glasstorch prints them."""
    return text.replace("torch.", "glasstorch.")


def grad_fn_name(t: Any) -> str | None:
    if t.grad_fn is None:
        return None
    if isinstance(t, torch.Tensor):
        return type(t.grad_fn).__name__
    return t.grad_fn.name()


def _node_name(node: Any) -> str:
    return node.name() if isinstance(node, glasstorch.autograd.Node) else type(node).__name__


def graph_names(grad_fn: Any, depth: int = 6) -> Any:
    """The graph below ``grad_fn`` as nested (name, (children...)), ``depth`` levels deep; None for
    an input that needs no gradient."""
    if grad_fn is None:
        return None
    if depth == 0:
        return (_node_name(grad_fn), "...")
    return (_node_name(grad_fn), tuple(graph_names(node, depth - 1) for node, _ in grad_fn.next_functions))


def as_numpy(t: Any) -> np.ndarray:
    """Values as a float64/int/bool numpy array (bfloat16 has no numpy dtype in PyTorch)."""
    t = t.detach()
    if isinstance(t, torch.Tensor):
        if t.dtype in (torch.bfloat16, torch.float16):
            t = t.double()
        return t.numpy()
    array = t.numpy()
    if array.dtype.kind == "V" or str(array.dtype) in ("bfloat16", "float16"):
        array = array.astype(np.float64)
    return array


TOLERANCES = {  # rtol, atol by dtype
    "float64": (1e-12, 1e-14),
    "float32": (2e-6, 1e-6),
    "float16": (1e-3, 1e-4),
    "bfloat16": (1e-2, 1e-3),
}


def assert_same_tensor(got: Any, want: Any, where: str = "tensor", *, autograd: bool = True,
                       tolerances: dict | None = None) -> None:
    """Same dtype, shape, autograd flags and values (within the dtype's tolerance, or
    ``tolerances[dtype]`` where an op's entry in the table widens it)."""
    assert isinstance(got, glasstorch.Tensor), f"{where}: glasstorch returned {type(got).__name__}, not a Tensor"
    assert str(got.dtype) == torch_name(str(want.dtype)), f"{where}: dtype {got.dtype} != {want.dtype}"
    assert tuple(got.shape) == tuple(want.shape), f"{where}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    if autograd:
        assert got.requires_grad == want.requires_grad, f"{where}: requires_grad"
        assert got.is_leaf == want.is_leaf, f"{where}: is_leaf"
    g, w = as_numpy(got), as_numpy(want)
    name = str(want.dtype).replace("torch.", "")
    if name in TOLERANCES:
        rtol, atol = (tolerances or {}).get(name, TOLERANCES[name])
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def assert_same(got: Any, want: Any, where: str = "result", *, tolerances: dict | None = None) -> None:
    """Compare nested results: tensors, tuples/lists/dicts, strings (torch. -> glasstorch.), numbers."""
    if isinstance(want, torch.Tensor):
        assert_same_tensor(got, want, where, tolerances=tolerances)
    elif isinstance(want, dict):
        assert set(got) == set(want), where
        for key in want:
            assert_same(got[key], want[key], f"{where}[{key!r}]", tolerances=tolerances)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want), f"{where}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{i}]", tolerances=tolerances)
    elif isinstance(want, str):
        assert got == torch_name(want), f"{where}: {got!r} != {torch_name(want)!r}"
    elif isinstance(want, torch.dtype):
        assert str(got) == torch_name(str(want)), where
    elif isinstance(want, torch.Size):
        assert tuple(got) == tuple(want), where
    elif isinstance(want, float) and math.isnan(want):
        assert math.isnan(got), where
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


# --- what a Node saved for backward (grad_fn._saved_<name>; tests/test_saved_names.py) ---------------
def pytorch_saved_state(grad_fn: Any) -> dict:
    """``{name: value}`` of every ``_saved_*`` attribute of a PyTorch Node."""
    return {name: getattr(grad_fn, name) for name in dir(grad_fn) if name.startswith("_saved_")}


def signed(value: Any) -> Any:
    """PyTorch shows a saved int64 as an unsigned 64-bit number: read it back signed."""
    if isinstance(value, (tuple, list)):
        return type(value)(signed(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2**63:
        return value - 2**64
    return value


def assert_same_saved(got: Any, want: Any, where: str, ranks: tuple = ()) -> None:
    """glasstorch's saved value against PyTorch's. ``ranks``: for a saved dim, the ranks it may
    count in; PyTorch saves a dim as the caller wrote it (-1), glasstorch counts it from the front
    (the same dim: 1 of a 2-D tensor)."""
    want = signed(want)
    if isinstance(want, torch.Tensor) and isinstance(got, (int, float)) and want.dim() == 0:
        # a Python number saved as a tensor: PyTorch wraps it in a 0-d tensor, glasstorch keeps the
        # number (autograd/graph.py, SavedTensor)
        assert got == want.item(), f"{where}: {got!r} != {want.item()!r}"
    elif isinstance(want, torch.Tensor):
        assert isinstance(got, glasstorch.Tensor), f"{where}: {type(got).__name__}, not a Tensor"
        assert str(got.dtype) == torch_name(str(want.dtype)), f"{where}: dtype {got.dtype} != {want.dtype}"
        assert tuple(got.shape) == tuple(want.shape), f"{where}: shape {tuple(got.shape)} != {tuple(want.shape)}"
        rtol, atol = TOLERANCES.get(str(want.dtype).replace("torch.", ""), (0, 0))
        np.testing.assert_allclose(as_numpy(got), as_numpy(want), rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(want, (tuple, list)):  # sizes (torch.Size is a tuple), or a list of tensors
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_saved(g, w, f"{where}[{i}]", ranks)
    elif want is None or isinstance(want, bool):
        assert got is want, f"{where}: {got!r} != {want!r}"
    elif isinstance(want, int) and want < 0 and isinstance(got, int) and any(got == want + r for r in ranks):
        pass  # the same dim, counted from the front
    else:  # an int, a float or a str, as a Python int/float/str (not a numpy scalar)
        assert type(got) is type(want) and got == want, f"{where}: {got!r} ({type(got).__name__}) != {want!r}"
