"""``RemovableHandle``: what every ``register_*hook`` returns. Mirrors ``torch/utils/hooks.py``."""
from __future__ import annotations

import itertools
import weakref
from typing import Any


class RemovableHandle:
    """A handle that removes a hook from the dictionary it was registered in.

    The hook lives in ``hooks_dict[handle.id]``; the handle keeps only a weak reference to the
    dictionary, so a handle never keeps a tensor's or module's hooks alive.
    """

    next_id = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle.next_id)
        # PyTorch uses extra_dict to remove the same id from companion dictionaries
        # (e.g. Module._forward_hooks_with_kwargs); a single dict or a list of them.
        if extra_dict is None:
            extra = []
        elif isinstance(extra_dict, list):
            extra = extra_dict
        else:
            extra = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks_dict = ref()
            if hooks_dict is not None and self.id in hooks_dict:
                del hooks_dict[self.id]

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.remove()
