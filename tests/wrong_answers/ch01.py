"""Plausible wrong answers to chapter 01's exercises: each must be caught by its check."""
import numpy as np

import glasstorch as torch


# -- 01.infer -------------------------------------------------------------------------------------

def infer_without_copy(data):
    """Right dtypes, but hands back the caller's numpy array itself: torch.tensor would share memory."""
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data)
    array = np.array(data)
    if array.dtype.kind == "f":
        return array.astype(torch.get_default_dtype().numpy_dtype)
    return array.astype(np.int64) if array.dtype.kind in "iu" else array


def infer_float32_always(data):
    """Writes float32 into the code instead of reading the default dtype."""
    if isinstance(data, (np.ndarray, np.generic)):
        return np.array(data)
    array = np.array(data)
    if array.dtype.kind == "f":
        return array.astype(np.float32)
    return array.astype(np.int64) if array.dtype.kind in "iu" else array


def infer_bools_as_ints(data):
    """Treats bools as integers (Python says True == 1, after all)."""
    if isinstance(data, (np.ndarray, np.generic)):
        return np.array(data)
    array = np.array(data)
    if array.dtype.kind == "f":
        return array.astype(torch.get_default_dtype().numpy_dtype)
    return array.astype(np.int64)


def infer_converts_numpy_too(data):
    """Applies the Python-number rules to numpy arrays as well: float64 arrays become float32."""
    array = np.array(data)
    if array.dtype.kind == "f":
        return array.astype(torch.get_default_dtype().numpy_dtype)
    return array.astype(np.int64) if array.dtype.kind in "iu" else array


# -- 01.result_type -------------------------------------------------------------------------------

def _python_dtype(value, float_dtype=None):
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    return float_dtype or torch.get_default_dtype()


def _category(dtype):
    return 0 if dtype is torch.bool else 2 if dtype.is_floating_point else 1


def result_type_without_priorities(*operands):
    """numpy-like: promotes every operand's dtype, whatever its dimensions."""
    result = None
    for operand in operands:
        dtype = operand.dtype if isinstance(operand, torch.Tensor) else _python_dtype(operand)
        result = dtype if result is None else torch.promote_types(result, dtype)
    return result


def result_type_python_float_is_float64(*operands):
    """Right priorities, but a Python float counts as float64, as in numpy."""
    best = [None, None, None]
    for operand in operands:
        if isinstance(operand, torch.Tensor):
            dtype, slot = operand.dtype, 0 if operand.dim() else 1
        else:
            dtype, slot = _python_dtype(operand, torch.float64), 2
        best[slot] = dtype if best[slot] is None else torch.promote_types(best[slot], dtype)
    result = None
    for dtype in best:
        if dtype is not None and (result is None or _category(dtype) > _category(result)):
            result = dtype
    return result


def result_type_highest_priority_wins(*operands):
    """Forgets the category rule: the highest-priority operands decide alone (int tensor * 2.5 -> int64)."""
    best = [None, None, None]
    for operand in operands:
        if isinstance(operand, torch.Tensor):
            dtype, slot = operand.dtype, 0 if operand.dim() else 1
        else:
            dtype, slot = _python_dtype(operand), 2
        best[slot] = dtype if best[slot] is None else torch.promote_types(best[slot], dtype)
    return next(dtype for dtype in best if dtype is not None)


def result_type_category_default(*operands):
    """When a lower priority lifts the category, takes that category's default dtype (float32),
    even for a 0-d tensor, which should count with its own dtype."""
    best = [None, None, None]
    for operand in operands:
        if isinstance(operand, torch.Tensor):
            dtype, slot = operand.dtype, 0 if operand.dim() else 1
        else:
            dtype, slot = _python_dtype(operand), 2
        best[slot] = dtype if best[slot] is None else torch.promote_types(best[slot], dtype)
    result = None
    for dtype in best:
        if dtype is None:
            continue
        if result is None:
            result = dtype
        elif _category(dtype) > _category(result):
            result = torch.get_default_dtype() if dtype.is_floating_point else torch.int64
    return result


# -- 01.broadcast_shapes --------------------------------------------------------------------------

def _message(size_a, size_b, dim):
    return (f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
            f"at non-singleton dimension {dim}")


def broadcast_aligned_left(shape_a, shape_b):
    """Pads the shorter shape on the right: (2, 3, 4) with (4,) compares 2 with 4."""
    ndim = max(len(shape_a), len(shape_b))
    a = tuple(shape_a) + (1,) * (ndim - len(shape_a))
    b = tuple(shape_b) + (1,) * (ndim - len(shape_b))
    result = []
    for i, (m, n) in enumerate(zip(a, b)):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(_message(m, n, i))
        result.append(n if m == 1 else m)
    return tuple(result)


def broadcast_takes_the_max(shape_a, shape_b):
    """Takes the larger size in each dimension and never raises (nor lets 1 stretch to 0)."""
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    return tuple(max(m, n) for m, n in zip(a, b))


def broadcast_leftmost_clash(shape_a, shape_b):
    """Right result, but checks from the first dimension and reports the leftmost clash."""
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    result = []
    for i in range(ndim):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(_message(a[i], b[i], i))
        result.append(b[i] if a[i] == 1 else a[i])
    return tuple(result)


def broadcast_own_dimension(shape_a, shape_b):
    """Counts the dimension in the message from the end of the shapes instead of in the aligned
    result (dimension -1, or the shorter operand's own index)."""
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    result = [0] * ndim
    for i in reversed(range(ndim)):
        if a[i] == b[i] or b[i] == 1:
            result[i] = a[i]
        elif a[i] == 1:
            result[i] = b[i]
        else:
            own = i - (ndim - min(len(shape_a), len(shape_b)))
            raise RuntimeError(_message(a[i], b[i], own))
    return tuple(result)


def broadcast_value_error(shape_a, shape_b):
    """numpy's function: the right shapes, but numpy's ValueError instead of PyTorch's RuntimeError."""
    return tuple(np.broadcast_shapes(tuple(shape_a), tuple(shape_b)))


WRONG = {
    "01.infer": [infer_without_copy, infer_float32_always, infer_bools_as_ints, infer_converts_numpy_too],
    "01.result_type": [result_type_without_priorities, result_type_python_float_is_float64,
                       result_type_highest_priority_wins, result_type_category_default],
    "01.broadcast_shapes": [broadcast_aligned_left, broadcast_takes_the_max, broadcast_leftmost_clash,
                            broadcast_own_dimension, broadcast_value_error],
}
