"""Data types: glasstorch's ``dtype`` objects and PyTorch's type-promotion rules.

Mirrors ``torch/_C`` dtypes (``torch.float32`` ...), the legacy type strings of ``Tensor.type()``
(``'torch.FloatTensor'``) and the promotion rules of ``torch.result_type`` (see PyTorch's
"Tensor Attributes" notes). Each glasstorch dtype wraps a numpy dtype; bfloat16 comes from the
``ml_dtypes`` numpy extension, because numpy has no bfloat16 of its own.
"""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np


class dtype:
    """A tensor's element type, e.g. ``glasstorch.float32``. Compare with ``is`` or ``==``."""

    __slots__ = ("name", "numpy_dtype", "legacy_name", "is_floating_point", "_category")

    def __init__(self, name: str, numpy_dtype, legacy_name: str, category: int) -> None:
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.legacy_name = legacy_name  # the class name in .type(): 'FloatTensor'
        # 0 = bool, 1 = integer, 2 = floating point: promotion never goes down a category.
        self._category = category
        self.is_floating_point = category == 2

    @property
    def itemsize(self) -> int:
        return self.numpy_dtype.itemsize

    def __repr__(self) -> str:
        return f"glasstorch.{self.name}"

    def __reduce__(self):  # pickle a dtype as the module-level singleton it is
        return (_dtype_by_name, (self.name,))


bool = dtype("bool", np.bool_, "BoolTensor", 0)  # noqa: A001 - PyTorch's name
uint8 = dtype("uint8", np.uint8, "ByteTensor", 1)
int8 = dtype("int8", np.int8, "CharTensor", 1)
int16 = dtype("int16", np.int16, "ShortTensor", 1)
int32 = dtype("int32", np.int32, "IntTensor", 1)
int64 = dtype("int64", np.int64, "LongTensor", 1)
float16 = dtype("float16", np.float16, "HalfTensor", 2)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, "BFloat16Tensor", 2)
float32 = dtype("float32", np.float32, "FloatTensor", 2)
float64 = dtype("float64", np.float64, "DoubleTensor", 2)

# PyTorch's aliases
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
_BY_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_LEGACY_NAME = {d.legacy_name: d for d in ALL_DTYPES}

_default_dtype = float32


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


def get_default_dtype() -> dtype:
    """The dtype of ``glasstorch.tensor(1.5)`` and of ``glasstorch.Tensor(...)``: float32."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Change the default floating-point dtype (PyTorch allows float32 and float64 here too)."""
    global _default_dtype
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The glasstorch dtype for a numpy dtype, with PyTorch's error for the ones it lacks."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np_dtype}. The only supported types are: "
            "float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def canonical(value) -> dtype:
    """Accept what PyTorch accepts as a dtype: a glasstorch dtype, or Python's ``float``,
    ``int``, ``bool`` (meaning float64, int64, bool), or a numpy dtype."""
    if isinstance(value, dtype):
        return value
    python_types = {builtins.float: float64, builtins.int: int64, builtins.bool: bool}
    if value in python_types:
        return python_types[value]
    try:
        return from_numpy_dtype(np.dtype(value))
    except TypeError:
        raise TypeError(f"argument 'dtype' must be glasstorch.dtype, not {type(value).__name__}") from None


def from_type_string(name: str) -> dtype:
    """``'glasstorch.FloatTensor'`` (or ``'torch.FloatTensor'``) -> ``glasstorch.float32``."""
    short_name = name.rsplit(".", 1)[-1]
    if short_name not in _BY_LEGACY_NAME:
        raise ValueError(f"invalid type: '{name}'")
    return _BY_LEGACY_NAME[short_name]


# --- type promotion ------------------------------------------------------------------------
# PyTorch ranks the operands of an elementwise op in three priorities: tensors with dimensions,
# then zero-dimensional tensors, then Python numbers. The result takes the highest category
# (bool < integer < float) present at any priority, and within that category the widest dtype
# of the highest-priority operands that have it. A Python float is the default dtype, so
# int64_tensor * 2.5 is float32 in PyTorch (numpy alone would say float64).

def _python_scalar_dtype(value) -> dtype:
    # this module's ``bool`` and ``int`` are dtypes (PyTorch's names), so ask ``builtins``
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    return _default_dtype


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without losing their category."""
    if a is b:
        return a
    return _BY_NUMPY[_promote_numpy(a, b)]


def _promote_numpy(a: dtype, b: dtype) -> np.dtype:
    # Across categories the higher one wins as it is: int64 with float32 is float32 in PyTorch
    # (numpy would widen to float64 to hold every int64 exactly).
    if a._category != b._category:
        return (a if a._category > b._category else b).numpy_dtype
    # float16 with bfloat16 is float32 in PyTorch; numpy/ml_dtypes agree except for this pair.
    if {a, b} == {float16, bfloat16}:
        return np.dtype(np.float32)
    return np.promote_types(a.numpy_dtype, b.numpy_dtype)


def result_type(*operands) -> dtype:
    """The dtype of an elementwise op on ``operands`` (tensors or Python numbers), as in PyTorch."""
    best = [None, None, None]  # per priority: dimensioned tensors, 0-d tensors, Python numbers
    for operand in operands:
        if hasattr(operand, "_data"):
            d = _BY_NUMPY[operand._data.dtype]
            slot = 0 if operand._data.ndim else 1
        else:
            d, slot = _python_scalar_dtype(operand), 2
        best[slot] = d if best[slot] is None else promote_types(best[slot], d)
    result = None
    for d in best:
        if d is None:
            continue
        if result is None or d._category > result._category:
            # a lower-priority operand of a higher category decides the category; for a
            # Python number that means the default dtype of that category
            result = d
    return result


# --- the values an elementwise op computes with ---------------------------------------------
_BFLOAT16 = bfloat16.numpy_dtype
_WIDE_FLOATS = (float32.numpy_dtype, float64.numpy_dtype)


def promoted_values(*operands, floating: builtins.bool = False) -> tuple:
    """The operands' values (a tensor's numpy array; a Python number as it is, which numpy treats
    as "weak", as PyTorch does) converted to PyTorch's ``result_type``, ready for a numpy ufunc.
    ``floating=True`` for ops such as true division whose result is always floating point.

    Fast path (measured: nearly every call of a training step is one of these, and ``result_type``
    costs more than the arithmetic on small tensors): where numpy already computes in PyTorch's
    dtype (two arrays of one dtype, a float array with a bool mask or with a Python number), the
    values are returned without asking ``result_type``."""
    if len(operands) == 2:  # a binary op: the fast path
        x, y = getattr(operands[0], "_data", operands[0]), getattr(operands[1], "_data", operands[1])
        if _numpy_agrees(x, y, floating):
            return x, y
    values = tuple([getattr(v, "_data", v) for v in operands])
    result = result_type(*operands)
    if floating and not result.is_floating_point:
        result = get_default_dtype()
    target = result.numpy_dtype
    if target == _BFLOAT16:  # numpy's bfloat16 (ml_dtypes) turns bfloat16 * 2.5 into float32: give it a bfloat16 number
        values = tuple(v if isinstance(v, np.ndarray) else np.asarray(v, target) for v in values)
    # a numpy scalar (np.float64(2.0)) counts as the Python number it is, as in PyTorch; numpy would keep its width
    return tuple(v.astype(target) if isinstance(v, (np.ndarray, np.generic)) and v.dtype != target else v for v in values)


def _numpy_agrees(x, y, floating: builtins.bool) -> builtins.bool:
    """Does numpy compute ``ufunc(x, y)`` in PyTorch's result dtype as it is?"""
    if type(x) is np.ndarray:
        if type(y) is np.ndarray:
            if x.dtype is y.dtype or x.dtype == y.dtype:
                return not floating or x.dtype.kind == "f"
            return (y.dtype == np.bool_ and x.dtype in _WIDE_FLOATS) or (x.dtype == np.bool_ and y.dtype in _WIDE_FLOATS)
        return (type(y) is builtins.float or type(y) is builtins.int) and x.dtype in _WIDE_FLOATS
    return (type(x) is builtins.float or type(x) is builtins.int) and type(y) is np.ndarray and y.dtype in _WIDE_FLOATS
