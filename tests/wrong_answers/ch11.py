"""Plausible wrong answers to chapter 11's exercises: each must be caught by its check."""
from glasstorch import nn


# -- 11.apply --------------------------------------------------------------------------------------

def apply_parent_first(self, fn):
    """Pre-order, like modules(): the module before its children."""
    fn(self)
    for module in self.children():
        module.apply(fn)
    return self


def apply_one_level(self, fn):
    """Calls fn on the direct children only, not on their descendants."""
    for module in self.children():
        fn(module)
    fn(self)
    return self


def apply_via_modules(self, fn):
    """modules() reversed: looks post-order, but the order of siblings is reversed and a shared
    module is visited once."""
    for module in reversed(list(self.modules())):
        fn(module)
    return self


def apply_returns_none(self, fn):
    for module in self.children():
        module.apply(fn)
    fn(self)


# -- 11._apply -------------------------------------------------------------------------------------

def _apply_new_parameters(self, fn, recurse=True):
    """Replaces every Parameter by a new object: an optimizer built before keeps the old ones."""
    import glasstorch as torch
    if recurse:
        for module in self.children():
            module._apply(fn)
    for key, param in self._parameters.items():
        if param is None:
            continue
        with torch.no_grad():
            new = nn.Parameter(fn(param), param.requires_grad)
            if param.grad is not None:
                new.grad = fn(param.grad)
        self._parameters[key] = new
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self


def _apply_forgets_grad(self, fn, recurse=True):
    import glasstorch as torch
    if recurse:
        for module in self.children():
            module._apply(fn)
    for param in self._parameters.values():
        if param is not None:
            with torch.no_grad():
                param.data = fn(param)
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self


def _apply_no_recursion(self, fn, recurse=True):
    import glasstorch as torch
    for param in self._parameters.values():
        if param is not None:
            with torch.no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self


def _apply_children_last(self, fn, recurse=True):
    """Its own tensors first, then the children."""
    import glasstorch as torch
    for param in self._parameters.values():
        if param is not None:
            with torch.no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    if recurse:
        for module in self.children():
            module._apply(fn)
    return self


def _apply_buffers_in_place(self, fn, recurse=True):
    """Stores buffers with .data = as well: running_mean stays the same object (PyTorch replaces it)."""
    import glasstorch as torch
    if recurse:
        for module in self.children():
            module._apply(fn)
    for param in self._parameters.values():
        if param is not None:
            with torch.no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
    for buf in self._buffers.values():
        if buf is not None:
            buf.data = fn(buf)
    return self


def _apply_without_no_grad(self, fn, recurse=True):
    """Right results, but fn runs with autograd recording (PyTorch converts under no_grad)."""
    if recurse:
        for module in self.children():
            module._apply(fn)
    for param in self._parameters.values():
        if param is not None:
            param.data = fn(param)
            if param.grad is not None:
                param.grad.data = fn(param.grad)
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self


def _apply_no_none_check(self, fn, recurse=True):
    import glasstorch as torch
    if recurse:
        for module in self.children():
            module._apply(fn)
    for param in self._parameters.values():
        with torch.no_grad():
            param.data = fn(param)
            if param.grad is not None:
                param.grad.data = fn(param.grad)
    for key, buf in self._buffers.items():
        self._buffers[key] = fn(buf)
    return self


# -- 11.train --------------------------------------------------------------------------------------

def train_no_check(self, mode=True):
    self.training = mode
    for module in self.children():
        module.train(mode)
    return self


def train_equality_check(self, mode=True):
    """`mode not in (True, False)` lets 0 and 1 through (0 == False)."""
    if mode not in (True, False):
        raise ValueError("training mode is expected to be boolean")
    self.training = mode
    for module in self.children():
        module.train(mode)
    return self


def train_no_recursion(self, mode=True):
    if not isinstance(mode, bool):
        raise ValueError("training mode is expected to be boolean")
    self.training = mode
    return self


def train_sets_flags_directly(self, mode=True):
    """Right flags on ordinary modules, but bypasses a child's own train()."""
    if not isinstance(mode, bool):
        raise ValueError("training mode is expected to be boolean")
    for module in self.modules():
        module.training = mode
    return self


def train_returns_none(self, mode=True):
    if not isinstance(mode, bool):
        raise ValueError("training mode is expected to be boolean")
    self.training = mode
    for module in self.children():
        module.train(mode)


WRONG = {
    "11.apply": [apply_parent_first, apply_one_level, apply_via_modules, apply_returns_none],
    "11._apply": [_apply_new_parameters, _apply_forgets_grad, _apply_no_recursion, _apply_children_last,
                  _apply_buffers_in_place, _apply_without_no_grad, _apply_no_none_check],
    "11.train": [train_no_check, train_equality_check, train_no_recursion, train_sets_flags_directly,
                 train_returns_none],
}
