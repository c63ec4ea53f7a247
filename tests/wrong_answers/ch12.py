"""Plausible wrong answers to chapter 12's exercises: each must be caught by its check."""
import itertools
import weakref
from collections import OrderedDict

from glasstorch.utils import hooks


# -- 12._call_impl ---------------------------------------------------------------------------------

def _call_impl_no_wrap(self, *args, **kwargs):
    """Takes a pre-hook's single returned value as the new args without wrapping it in a tuple."""
    for hook_id, hook in self._forward_pre_hooks.items():
        if hook_id in self._forward_pre_hooks_with_kwargs:
            result = hook(self, args, kwargs)
            if result is not None:
                args, kwargs = result
        else:
            result = hook(self, args)
            if result is not None:
                args = result
    output = self.forward(*args, **kwargs)
    for hook_id, hook in self._forward_hooks.items():
        if hook_id in self._forward_hooks_with_kwargs:
            result = hook(self, args, kwargs, output)
        else:
            result = hook(self, args, output)
        if result is not None:
            output = result
    return output


def _call_impl_ignores_hook_results(self, *args, **kwargs):
    """Runs every hook, but never lets one replace the output."""
    for hook_id, hook in self._forward_pre_hooks.items():
        if hook_id in self._forward_pre_hooks_with_kwargs:
            result = hook(self, args, kwargs)
            if result is not None:
                args, kwargs = result
        else:
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    output = self.forward(*args, **kwargs)
    for hook_id, hook in self._forward_hooks.items():
        if hook_id in self._forward_hooks_with_kwargs:
            hook(self, args, kwargs, output)
        else:
            hook(self, args, output)
    return output


def _call_impl_hooks_see_original_args(self, *args, **kwargs):
    """The forward hooks receive the arguments of the call, not those the pre-hooks made."""
    call_args = args
    for hook_id, hook in self._forward_pre_hooks.items():
        if hook_id in self._forward_pre_hooks_with_kwargs:
            result = hook(self, args, kwargs)
            if result is not None:
                args, kwargs = result
        else:
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    output = self.forward(*args, **kwargs)
    for hook_id, hook in self._forward_hooks.items():
        result = (hook(self, call_args, kwargs, output) if hook_id in self._forward_hooks_with_kwargs
                  else hook(self, call_args, output))
        if result is not None:
            output = result
    return output


def _call_impl_ignores_with_kwargs(self, *args, **kwargs):
    """Calls every hook the plain way."""
    for hook in self._forward_pre_hooks.values():
        result = hook(self, args)
        if result is not None:
            args = result if isinstance(result, tuple) else (result,)
    output = self.forward(*args, **kwargs)
    for hook in self._forward_hooks.values():
        result = hook(self, args, output)
        if result is not None:
            output = result
    return output


def _call_impl_unchecked_pair(self, *args, **kwargs):
    """Unpacks a with_kwargs pre-hook's result without checking that it is a pair."""
    for hook_id, hook in self._forward_pre_hooks.items():
        if hook_id in self._forward_pre_hooks_with_kwargs:
            result = hook(self, args, kwargs)
            if result is not None:
                args, kwargs = result[0], (result[1] if len(result) > 1 else kwargs)
        else:
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    output = self.forward(*args, **kwargs)
    for hook_id, hook in self._forward_hooks.items():
        if hook_id in self._forward_hooks_with_kwargs:
            result = hook(self, args, kwargs, output)
        else:
            result = hook(self, args, output)
        if result is not None:
            output = result
    return output


# -- 12.register_forward_hook ----------------------------------------------------------------------

def register_without_extra_dict(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    """remove() then leaves the options behind."""
    handle = hooks.RemovableHandle(self._forward_hooks)
    self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)
    return handle


def register_ignores_prepend(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    handle = hooks.RemovableHandle(self._forward_hooks,
                                   extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
    self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


def register_prepend_new_dict(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    """Prepends by building a new dictionary: the handles made so far point at the old one."""
    handle = hooks.RemovableHandle(self._forward_hooks,
                                   extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
    if prepend:
        self._forward_hooks = OrderedDict([(handle.id, hook), *self._forward_hooks.items()])
    else:
        self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


def register_stores_false_flags(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    """Records the options whatever their value: `_call_impl` tests membership, not the value."""
    handle = hooks.RemovableHandle(self._forward_hooks,
                                   extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
    self._forward_hooks[handle.id] = hook
    self._forward_hooks_with_kwargs[handle.id] = with_kwargs
    self._forward_hooks_always_called[handle.id] = always_call
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)
    return handle


# -- 12.RemovableHandle ----------------------------------------------------------------------------

class HandleWithLenId:
    """The id is the dictionary's size: after a removal, the next hook gets an id already in use."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = len(hooks_dict)
        extra = [] if extra_dict is None else extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class HandleStrongReference:
    """Holds the dictionary itself: a handle keeps a module's hooks alive."""

    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict = hooks_dict
        self.id = next(HandleStrongReference.next_id)
        self.extra = [] if extra_dict is None else extra_dict if isinstance(extra_dict, list) else [extra_dict]

    def remove(self):
        for d in (self.hooks_dict, *self.extra):
            if self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class HandleRemoveTwiceFails:
    """remove() deletes without checking: a second remove() raises KeyError."""

    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(HandleRemoveTwiceFails.next_id)
        extra = [] if extra_dict is None else extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class HandleIgnoresExtraDict:
    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(HandleIgnoresExtraDict.next_id)

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None and self.id in d:
            del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class HandleWithoutExit:
    """A context manager that forgets to remove the hook at the end of the with block."""

    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(HandleWithoutExit.next_id)
        extra = [] if extra_dict is None else extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        pass


WRONG = {
    "12._call_impl": [_call_impl_no_wrap, _call_impl_ignores_hook_results, _call_impl_hooks_see_original_args,
                      _call_impl_ignores_with_kwargs, _call_impl_unchecked_pair],
    "12.register_forward_hook": [register_without_extra_dict, register_ignores_prepend, register_prepend_new_dict,
                                 register_stores_false_flags],
    "12.RemovableHandle": [HandleWithLenId, HandleStrongReference, HandleRemoveTwiceFails, HandleIgnoresExtraDict,
                           HandleWithoutExit],
}
