"""Plausible wrong answers to chapter 07's exercises: each must be caught by its check."""
import functools

from glasstorch._tensor import _wrap
from glasstorch.autograd.grad_mode import _GradMode


# -- 07.detach ------------------------------------------------------------------------------------

def detach_like_data(tensor):
    """What `.data` does: shares memory but gets a fresh version counter."""
    return _wrap(tensor._data)


def detach_copying(tensor):
    """Copies the values: an in-place change through the result no longer reaches the original."""
    result = _wrap(tensor._data.copy())
    result._version_counter = tensor._version_counter
    return result


def detach_in_place(tensor):
    """Cuts the original itself out of its graph instead of returning a new tensor."""
    tensor.grad_fn = None
    tensor._requires_grad = False
    return tensor


def detach_keeping_class(tensor):
    """Keeps the original's class: a detached Parameter would still be a Parameter."""
    result = _wrap(tensor._data, type(tensor))
    result._version_counter = tensor._version_counter
    return result


# -- 07.no_grad -----------------------------------------------------------------------------------

class _Decorator:
    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad_exit_switches_on(_Decorator):
    """__exit__ switches recording on instead of restoring the previous mode."""
    def __enter__(self):
        _GradMode.enabled = False

    def __exit__(self, *exc_info):
        _GradMode.enabled = True


class no_grad_shared_instance(_Decorator):
    """The decorator enters `self` on every call: a recursion overwrites the saved mode."""
    def __enter__(self):
        self.prev = _GradMode.enabled
        _GradMode.enabled = False

    def __exit__(self, *exc_info):
        _GradMode.enabled = self.prev

    def clone(self):
        return self


class no_grad_without_finally(no_grad_shared_instance):
    """The wrapper calls __enter__ and __exit__ by hand: an exception skips __exit__."""
    def clone(self):
        return self.__class__()

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            context = self.clone()
            context.__enter__()
            result = func(*args, **kwargs)
            context.__exit__(None, None, None)
            return result
        return wrapper


class no_grad_without_wraps(no_grad_without_finally):
    """Right context manager, but the wrapper hides the function's name and docstring."""
    def __call__(self, func):
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper


class no_grad_swallowing(no_grad_without_finally):
    """__exit__ returns True, which tells Python to swallow the exception."""
    def __exit__(self, *exc_info):
        _GradMode.enabled = self.prev
        return True


# -- 07.set_grad_enabled --------------------------------------------------------------------------

class set_grad_enabled_only_in_enter(_Decorator):
    """Switches the mode in __enter__ only, so the plain call `set_grad_enabled(False)` does nothing."""
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = _GradMode.enabled
        _GradMode.enabled = self.mode

    def __exit__(self, *exc_info):
        _GradMode.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class set_grad_enabled_decorating_switches(_Decorator):
    """Right as a function and a context manager, but decorating leaves the mode switched."""
    def __init__(self, mode):
        self.prev = _GradMode.enabled
        self.mode = mode
        _GradMode.enabled = mode

    def __enter__(self):
        _GradMode.enabled = self.mode

    def __exit__(self, *exc_info):
        _GradMode.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class set_grad_enabled_clone_self(set_grad_enabled_decorating_switches):
    """Restores the mode in __call__, but enters the same object on every call."""
    def __call__(self, func):
        _GradMode.enabled = self.prev
        return super().__call__(func)

    def clone(self):
        return self


class set_grad_enabled_exit_switches_on(set_grad_enabled_clone_self):
    """__exit__ switches recording on instead of restoring the mode saved by __init__."""
    def __exit__(self, *exc_info):
        _GradMode.enabled = True

    def clone(self):
        return self.__class__(self.mode)


# -- 07.requires_grad_ ----------------------------------------------------------------------------

def requires_grad_via_setter(tensor, requires_grad=True):
    """The property's setter refuses a non-leaf even for True, which PyTorch accepts as a no-op."""
    tensor.requires_grad = requires_grad
    return tensor


def requires_grad_checking_dtype_always(tensor, requires_grad=True):
    """Refuses an integer tensor even when the flag is switched off."""
    if not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if tensor.grad_fn is not None:
        if requires_grad:
            return tensor
        raise RuntimeError("you can only change requires_grad flags of leaf variables.")
    tensor._requires_grad = bool(requires_grad)
    return tensor


def requires_grad_without_leaf_check(tensor, requires_grad=True):
    """Switches a computed tensor's flag off silently: its history would say otherwise."""
    if requires_grad and not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    tensor._requires_grad = bool(requires_grad)
    return tensor


def requires_grad_returning_none(tensor, requires_grad=True):
    """Right checks, but returns nothing: `torch.zeros(3).requires_grad_()` would be None."""
    if requires_grad and not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if tensor.grad_fn is not None:
        if requires_grad:
            return None
        raise RuntimeError("you can only change requires_grad flags of leaf variables.")
    tensor._requires_grad = bool(requires_grad)


WRONG = {
    "07.detach": [detach_like_data, detach_copying, detach_in_place, detach_keeping_class],
    "07.no_grad": [no_grad_exit_switches_on, no_grad_shared_instance, no_grad_without_finally,
                   no_grad_without_wraps, no_grad_swallowing],
    "07.set_grad_enabled": [set_grad_enabled_only_in_enter, set_grad_enabled_decorating_switches,
                            set_grad_enabled_clone_self, set_grad_enabled_exit_switches_on],
    "07.requires_grad_": [requires_grad_via_setter, requires_grad_checking_dtype_always,
                          requires_grad_without_leaf_check, requires_grad_returning_none],
}
