"""Differential tests of glasstorch._tensor_str against real PyTorch.

Every expected string comes from ``repr()`` of a real torch tensor holding the
same values; none is written by hand or produced by the code under test.

Dtype names: glasstorch prints ``dtype=glasstorch.float64`` where PyTorch
prints ``dtype=torch.float64``. Most tests pass glasstorch names and compare
with PyTorch's repr after replacing "torch." by "glasstorch.". But the longer
name can move a suffix onto a new line where PyTorch's shorter one fits, so
the tests that sweep the line-wrapping boundary, and the property tests (which
hit it by chance), pass PyTorch's own names ("torch.float64") and compare the
strings verbatim.
"""

import math

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: the comparison with real PyTorch is skipped"
)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import array_shapes, arrays  # noqa: E402

from glasstorch._tensor_str import (  # noqa: E402
    get_printoptions,
    printoptions,
    set_printoptions,
    tensor_repr,
)

pytestmark = pytest.mark.torch

NUMPY_DTYPES = {
    "bool": np.bool_,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float32": np.float32,
    "float64": np.float64,
}
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
# PyTorch hides the dtype of the default float dtype, int64 and bool.
HIDDEN_DTYPES = ("float32", "int64", "bool")

nan, inf = math.nan, math.inf


@pytest.fixture(autouse=True)
def default_print_options():
    """Each test starts and ends with the default options, in both libraries."""
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")


# --- helpers ------------------------------------------------------------------


def array(values, dtype: str) -> np.ndarray:
    # Floats go through float64, so that bfloat16 values are rounded by ml_dtypes.
    as_numpy = np.array(values, dtype=np.float64 if dtype in FLOAT_DTYPES else None)
    return as_numpy.astype(NUMPY_DTYPES[dtype])


def to_torch(arr: np.ndarray) -> "torch.Tensor":
    if arr.dtype == ml_dtypes.bfloat16:
        # torch cannot read ml_dtypes arrays; float32 holds every bfloat16 exactly.
        return torch.tensor(arr.astype(np.float32)).to(torch.bfloat16)
    return torch.tensor(arr)


def to_numpy(t: "torch.Tensor") -> np.ndarray:
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    return t.numpy()


def ours(t: "torch.Tensor", *, namespace: str = "glasstorch", prefix: str = "tensor(") -> str:
    """glasstorch's repr of the values of the torch tensor `t`."""
    dtype = str(t.dtype).removeprefix("torch.")
    grad_fn_name = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    return tensor_repr(
        to_numpy(t),
        dtype_name=f"{namespace}.{dtype}",
        show_dtype=dtype not in HIDDEN_DTYPES,
        requires_grad=t.requires_grad,
        grad_fn_name=grad_fn_name,
        prefix=prefix,
    )


def assert_like_torch(t: "torch.Tensor") -> None:
    """Same repr as PyTorch's, with glasstorch dtype names."""
    assert ours(t) == repr(t).replace("torch.", "glasstorch.")


def assert_exactly_torch(t: "torch.Tensor") -> None:
    """Same repr as PyTorch's, character for character, with torch names."""
    assert ours(t, namespace="torch") == repr(t)


# --- hand-picked cases --------------------------------------------------------

CASES = {
    # (values, dtype)
    "integer-valued float": ([5.0], "float32"),
    "0-d float": (16.0, "float32"),
    "0-d fraction": (0.5, "float32"),
    "0-d int": (7, "int64"),
    "0-d bool": (True, "bool"),
    "0-d nan": (nan, "float32"),
    "0-d negative zero": (-0.0, "float64"),
    "0-d large": (1e10, "float64"),
    "0-d float16": (0.1, "float16"),
    "0-d bfloat16": (-3.140625, "bfloat16"),
    "float64 shows dtype": ([1.5, 2.25], "float64"),
    "float64 integers": ([1.0, -2.0, 30.0], "float64"),
    "int32": ([1, -20, 300], "int32"),
    "int64 wide": ([1, -(2**62), 2**40], "int64"),
    "bool": ([True, False, True], "bool"),
    "bool matrix": ([[True, False], [False, False]], "bool"),
    "float16": ([0.1, 1000.0, -2.5], "float16"),
    "float16 extremes": ([65504.0, 6e-8, -1.0], "float16"),
    "bfloat16": ([0.1, 3.14159, 100.0], "bfloat16"),
    "bfloat16 integers": ([1.0, 256.0, 257.0], "bfloat16"),
    "nan inf -inf": ([nan, inf, -inf], "float32"),
    "nan with fractions": ([nan, 1.5, -2.25], "float32"),
    "inf with integers": ([inf, 1.0, 2.0], "float32"),
    "only zeros and nan": ([0.0, nan, -0.0], "float32"),
    "all zeros": ([[0.0, 0.0], [0.0, 0.0]], "float64"),
    "negative zero with fraction": ([-0.0, 1.5], "float32"),
    "negative zero with integers": ([-0.0, 1.0, 20.0], "float32"),
    "very large": ([1e10, 1.0], "float32"),
    "very large integers": ([1e9, 2e9], "float64"),
    "just below 1e8": ([99999999.0, 1.0], "float64"),
    "very small": ([1e-5, 1.0], "float32"),
    "just below 1e-4": ([5e-5, 0.01], "float32"),
    "just above 1e-4": ([2e-4, 0.01], "float32"),
    "tiny alone": ([1e-8], "float64"),
    "extreme float64": ([1e300, -1e-300], "float64"),
    "subnormal float64": ([5e-324, 1.0], "float64"),
    "ratio exactly 1000": ([1.0, 1000.0], "float32"),
    "ratio above 1000": ([0.5, 100.0, 1000.0], "float32"),
    "mixed magnitudes": ([0.001, 1.0, 1000.5], "float32"),
    "rounding": ([1.23456789, -9.87654321, 0.00015], "float64"),
    "negative fractions": ([-1.5, 2.25, -30.125], "float32"),
    "long float row wraps": (np.arange(50) / 7, "float32"),
    "long int row wraps": (np.arange(100), "int64"),
    "long float64 row wraps": (np.arange(30) * 1.5, "float64"),
    "long sci row wraps": (np.arange(1, 40) * 1e9, "float32"),
    "matrix": (np.arange(12).reshape(3, 4) - 5, "int32"),
    "3-d": (np.arange(24).reshape(2, 3, 4), "int64"),
    "3-d floats": (np.arange(24).reshape(2, 3, 4) / 3, "float16"),
    "4-d": (np.arange(120).reshape(2, 3, 4, 5) / 3, "float32"),
    "4-d wide rows": (np.arange(2 * 2 * 2 * 30).reshape(2, 2, 2, 30) * 1.25, "float64"),
    "size-1 dims": (np.ones((1, 1, 3)), "float32"),
    "1001 elements": (np.arange(1001), "int64"),
    "exactly 1000 elements": (np.arange(1000) / 3, "float32"),
    "summarized matrix": (np.arange(2000).reshape(40, 50) / 7, "float32"),
    "summarized matrix, few columns": (np.arange(2000).reshape(1000, 2), "int32"),
    "summarized 3-d": (np.arange(1210).reshape(10, 11, 11) * 0.5, "float64"),
    "summarized 4-d": (np.arange(1296).reshape(6, 6, 6, 6), "int64"),
    "hidden items don't count": (np.r_[1.5, 2, 3, np.full(1000, 1e9), 4, 5, 6.5], "float32"),
    "summarized bool": (np.arange(1200) % 3 == 0, "bool"),
}


@pytest.mark.parametrize(("values", "dtype"), CASES.values(), ids=CASES.keys())
def test_matches_torch(values, dtype):
    assert_like_torch(to_torch(array(values, dtype)))


EMPTY_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 4), (1, 1, 0, 2)]


@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_empty_tensor(shape, dtype):
    assert_like_torch(to_torch(np.zeros(shape, NUMPY_DTYPES[dtype])))


def test_requires_grad():
    assert_like_torch(torch.tensor([1.0, 2.0], requires_grad=True))


def test_grad_fn():
    assert_like_torch(torch.tensor(2.0, requires_grad=True) * 8)


def test_grad_fn_with_dtype():
    assert_like_torch(torch.tensor([1.5, 2.0], dtype=torch.float64, requires_grad=True).sum())


def test_empty_with_requires_grad():
    assert_like_torch(torch.zeros(0, 3, requires_grad=True))


@pytest.mark.parametrize("n", range(1, 40))
def test_suffixes_wrap_like_torch(n):
    """Sweep the length of the last line across the linewidth: the suffixes
    stay on it, or move to a new line, exactly where PyTorch moves them."""
    float64_values = torch.arange(n, dtype=torch.float64) * 1.5
    assert_exactly_torch(float64_values.requires_grad_())
    assert_exactly_torch(float64_values * 2)  # dtype= then grad_fn=<MulBackward0>
    float32_values = torch.arange(n, dtype=torch.float32) * 1.5
    assert_like_torch(float32_values.requires_grad_())
    assert_like_torch(float32_values * 2)


@pytest.mark.parametrize("shape", [(3, 10), (2, 2, 30), (0, 2)], ids=str)
def test_subclass_prefix(shape):
    """A subclass prints its own name; continuation lines follow that prefix."""

    class MyTensor(torch.Tensor):
        pass

    t = torch.arange(math.prod(shape), dtype=torch.float64).reshape(shape) / 3
    expected = repr(t.as_subclass(MyTensor)).replace("torch.", "glasstorch.")
    assert ours(t, prefix="MyTensor(") == expected


def test_parameter_repr():
    """nn.Parameter's repr is "Parameter containing:" then the tensor's repr."""
    param = torch.nn.Parameter(torch.arange(30.0).reshape(3, 10))
    assert "Parameter containing:\n" + ours(param) == repr(param)


# --- print options ------------------------------------------------------------

OPTION_SAMPLES = [
    torch.tensor([1.23456, 2.5, -3.0]),
    torch.tensor([1e-8, 1.0, 1e10], dtype=torch.float64),
    torch.tensor([1.0, 2.0, 3.0]),
    torch.tensor([0.0, -0.0, nan]),
    torch.arange(2000).reshape(40, 50) / 7,
    torch.arange(30),
    torch.tensor(3.14159),
]


def assert_all_samples_like_torch():
    # Verbatim names: a small linewidth or a long line makes the dtype suffix
    # wrap for "glasstorch.float64" where "torch.float64" still fits.
    for t in OPTION_SAMPLES:
        assert_exactly_torch(t)


@pytest.mark.parametrize(
    "options",
    [
        {"precision": 2},
        {"precision": 0},
        {"precision": 8},
        {"sci_mode": True},
        {"sci_mode": False},
        {"profile": "short"},
        {"profile": "full"},
        {"profile": "short", "precision": 6},
        {"threshold": 5},
        {"threshold": 5, "edgeitems": 1},
        {"threshold": 5, "edgeitems": 0},
        {"linewidth": 40},
        {"linewidth": 1},
    ],
    ids=str,
)
def test_set_printoptions(options):
    torch.set_printoptions(**options)
    set_printoptions(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert_all_samples_like_torch()


def test_set_printoptions_resets_sci_mode():
    """Any call without sci_mode goes back to automatic sci mode."""
    for set_options in (torch.set_printoptions, set_printoptions):
        set_options(sci_mode=False)
        set_options(precision=2)  # says nothing about sci_mode: back to automatic
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert_all_samples_like_torch()


def test_printoptions_context_manager():
    options = {"precision": 1, "sci_mode": True}
    with torch._tensor_str.printoptions(**options), printoptions(**options):
        assert get_printoptions() == torch._tensor_str.get_printoptions()
        assert_all_samples_like_torch()
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert_all_samples_like_torch()


# --- property tests -----------------------------------------------------------

LARGE_SHAPES = [(1001,), (1500,), (40, 30), (3, 400), (11, 10, 10), (2, 3, 7, 30)]
LARGEST_FLOAT = {"float16": 6e4, "bfloat16": 1e38, "float32": 1e38, "float64": 1e300}
SPECIAL_FLOATS = st.sampled_from([nan, inf, -inf, 0.0, -0.0])


def shapes(draw) -> tuple[int, ...]:
    # About one example in eight is large enough to be summarized.
    if draw(st.integers(0, 7)) == 0:
        return draw(st.sampled_from(LARGE_SHAPES))
    return draw(array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7))


def elements(draw, dtype: str) -> st.SearchStrategy:
    if dtype == "bool":
        return st.booleans()
    if dtype in ("int32", "int64"):
        limit = draw(st.sampled_from([100, int(np.iinfo(dtype).max)]))
        return st.integers(-limit, limit)
    largest = LARGEST_FLOAT[dtype]
    distributions = {
        "integers": st.integers(-1000, 1000).map(float),
        "small": st.floats(-10, 10),
        "tiny": st.floats(-1e-3, 1e-3),
        "huge": st.floats(-largest, largest),
    }
    floats = distributions[draw(st.sampled_from(list(distributions)))]
    return st.one_of(floats, SPECIAL_FLOATS) if draw(st.booleans()) else floats


@st.composite
def numpy_tensors(draw) -> np.ndarray:
    """Arrays of 0-4 dims with sides 0-7 (or a few summarized shapes), of all
    dtypes, with integer, small, tiny, huge and special (nan, inf) values."""
    shape = shapes(draw)
    dtype = draw(st.sampled_from(list(NUMPY_DTYPES)))
    # Drawn as bool, int64 or float64, then cast to the dtype; the limits of
    # elements() keep every value in range (floats are rounded).
    drawn_dtype = {"bool": np.bool_, "int32": np.int64, "int64": np.int64}.get(dtype, np.float64)
    element_strategy = elements(draw, dtype)
    if math.prod(shape) <= 100:
        values = draw(arrays(drawn_dtype, shape, elements=element_strategy))
    else:
        # Drawing thousands of elements one by one is slow: repeat 64 of them.
        values = np.resize(draw(arrays(drawn_dtype, 64, elements=element_strategy)), shape)
    return values.astype(NUMPY_DTYPES[dtype])


def property_settings(max_examples: int) -> settings:
    # The autouse fixture runs once around all the examples, not around each:
    # that is enough, as the examples change options only inside context
    # managers. No example database: nothing is written into the repository.
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )


@property_settings(max_examples=500)
@given(numpy_tensors())
def test_random_tensors_match_torch(arr):
    assert_exactly_torch(to_torch(arr))


@property_settings(max_examples=300)
@given(
    arr=numpy_tensors(),
    options=st.fixed_dictionaries(
        {
            "precision": st.integers(0, 8),
            "threshold": st.sampled_from([0, 5, 50, 1000, inf]),
            "edgeitems": st.integers(0, 4),
            "linewidth": st.integers(10, 120),
            "sci_mode": st.sampled_from([None, True, False]),
        }
    ),
)
def test_random_tensors_and_options_match_torch(arr, options):
    with torch._tensor_str.printoptions(**options), printoptions(**options):
        assert_exactly_torch(to_torch(arr))
