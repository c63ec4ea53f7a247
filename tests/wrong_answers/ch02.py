"""Plausible wrong answers to chapter 02's exercises: each must be caught by its check."""
import glasstorch as torch


# -- 02.contiguous_strides --------------------------------------------------------------------------

def strides_column_by_column(shape):
    """Column-major (Fortran) order: the first dim gets stride 1."""
    strides, step = [], 1
    for size in shape:
        strides.append(step)
        step *= max(size, 1)
    return tuple(strides)


def strides_including_own_size(shape):
    """stride[d] = size[d] * size[d+1] * ...: counts the dim's own size too."""
    strides, step = [], 1
    for size in reversed(shape):
        step *= max(size, 1)
        strides.append(step)
    return tuple(reversed(strides))


def strides_with_zero_sizes(shape):
    """Multiplies the sizes as they are: a dim of size 0 makes the strides before it 0."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def strides_not_reversed(shape):
    """Computes from the last dim but forgets to put the strides back in the shape's order."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(strides)


# -- 02.unfold --------------------------------------------------------------------------------------

def _geometry(x, dimension, size, step):
    d = dimension % x.dim()
    count = (x.shape[d] - size) // step + 1
    return d, count


def unfold_contiguous_strides(x, dimension, size, step):
    """Uses the strides a new tensor of x's shape would have, not x's own strides."""
    d, count = _geometry(x, dimension, size, step)
    strides, run = [], 1
    for n in reversed(x.shape):
        strides.append(run)
        run *= n
    strides = strides[::-1]
    shape = list(x.shape[:d]) + [count] + list(x.shape[d + 1:]) + [size]
    stride = strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]]
    return x.as_strided(shape, stride, x.storage_offset())


def unfold_offset_zero(x, dimension, size, step):
    """Starts the window at the first cell of the storage instead of x's first element."""
    d, count = _geometry(x, dimension, size, step)
    strides = list(x.stride())
    shape = list(x.shape[:d]) + [count] + list(x.shape[d + 1:]) + [size]
    stride = strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]]
    return x.as_strided(shape, stride, 0)


def unfold_one_window_short(x, dimension, size, step):
    """Counts (length - size) // step windows: forgets the first one."""
    d = dimension % x.dim()
    count = (x.shape[d] - size) // step
    strides = list(x.stride())
    shape = list(x.shape[:d]) + [count] + list(x.shape[d + 1:]) + [size]
    stride = strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]]
    return x.as_strided(shape, stride, x.storage_offset())


def unfold_strides_swapped(x, dimension, size, step):
    """Gives the windows' dim the element step and the window's elements the window step."""
    d, count = _geometry(x, dimension, size, step)
    strides = list(x.stride())
    shape = list(x.shape[:d]) + [count] + list(x.shape[d + 1:]) + [size]
    stride = strides[:d] + [strides[d]] + strides[d + 1:] + [strides[d] * step]
    return x.as_strided(shape, stride, x.storage_offset())


def unfold_by_copying(x, dimension, size, step):
    """The right values, stacked from slices: a copy, not a view of x."""
    d, count = _geometry(x, dimension, size, step)
    windows = [x.narrow(d, i * step, size) for i in range(count)]
    return torch.stack(windows, dim=d).movedim(d + 1, -1)


def unfold_calls_unfold(x, dimension, size, step):
    """Calls Tensor.unfold itself: right on its own, but it is what the exercise asks to write."""
    return x.unfold(dimension, size, step)


# -- 02.shares_memory -------------------------------------------------------------------------------

def _cells(t):
    found = {t.storage_offset()}
    for n, s in zip(t.shape, t.stride()):
        found = {c + i * s for c in found for i in range(n)}
    return found if t.numel() else set()


def shares_same_storage(a, b):
    """Same storage means shared memory (but x[0] and x[1] share no cell)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def shares_if_one_is_a_view(a, b):
    """Asks _base: misses detach(), and says yes for two views that never meet."""
    base_a = a._base if a._base is not None else a
    base_b = b._base if b._base is not None else b
    return base_a is base_b and (a._is_view() or b._is_view())


def shares_if_same_first_element(a, b):
    """Compares data_ptr(): only the first elements' addresses."""
    return a.data_ptr() == b.data_ptr()


def shares_if_ranges_meet(a, b):
    """Same storage and the [first cell, last cell] ranges intersect: wrong for interleaved windows."""
    if not shares_same_storage(a, b) or not a.numel() or not b.numel():
        return False
    ca, cb = _cells(a), _cells(b)
    return min(ca) <= max(cb) and min(cb) <= max(ca)


def shares_if_cells_meet_any_storage(a, b):
    """Compares the cell numbers but not the storages: two separate tensors seem to share."""
    return bool(_cells(a) & _cells(b))


WRONG = {
    "02.contiguous_strides": [strides_column_by_column, strides_including_own_size, strides_with_zero_sizes,
                              strides_not_reversed],
    "02.unfold": [unfold_contiguous_strides, unfold_offset_zero, unfold_one_window_short, unfold_strides_swapped,
                  unfold_by_copying, unfold_calls_unfold],
    "02.shares_memory": [shares_same_storage, shares_if_one_is_a_view, shares_if_same_first_element,
                         shares_if_ranges_meet, shares_if_cells_meet_any_storage],
}
