"""Plausible wrong answers to chapter 06's exercises: each must be caught by its check."""
import itertools
import weakref

import glasstorch as torch
from glasstorch.autograd.engine import execute
from glasstorch.autograd.graph import grad_accumulator, gradient_edge


# -- 06.removable_handle --------------------------------------------------------------------------

def _extra(extra_dict):
    if extra_dict is None:
        return []
    return extra_dict if isinstance(extra_dict, list) else [extra_dict]


class HandleWithLengthId:
    """Uses len(hooks_dict) as the id: after a removal, a new hook takes a living hook's key."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = len(hooks_dict)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in _extra(extra_dict))

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class HandleWithStrongReference:
    """Keeps the dict itself: a forgotten handle keeps a dead tensor's hooks alive."""

    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dicts = [hooks_dict, *_extra(extra_dict)]
        self.id = next(HandleWithStrongReference.next_id)

    def remove(self):
        for hooks in self.hooks_dicts:
            if self.id in hooks:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class HandleRemovingTwiceFails:
    """del without checking: a second remove() raises KeyError."""

    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(HandleRemovingTwiceFails.next_id)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in _extra(extra_dict))

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class HandleIgnoringExtraDict:
    """Removes the hook from its own dict only."""

    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(HandleIgnoringExtraDict.next_id)

    def remove(self):
        hooks = self.hooks_dict_ref()
        if hooks is not None and self.id in hooks:
            del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


# -- 06.call_tensor_pre_hooks ---------------------------------------------------------------------

def _run_hooks(node, grad):
    hooks = node._tensor_pre_hooks
    for hook in tuple(hooks.values()) if hooks else ():
        result = hook(grad)
        if result is not None:
            if result.shape != grad.shape:
                raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has changed the size of value")
            grad = result
    return grad


def _retained(node):
    return node._retain_grad_ref() if node._retain_grad_ref is not None else None


def _store(tensor, grad):
    tensor._grad = grad.detach().clone() if tensor._grad is None else tensor._grad + grad


def hook_step_retain_first(node, grad):
    """PyTorch 1.x's order: stores the retained gradient before the hooks change it."""
    tensor = _retained(node)
    if tensor is not None:
        _store(tensor, grad)
    return _run_hooks(node, grad)


def hook_step_without_copy(node, grad):
    """Stores the engine's gradient tensor itself as the first retained .grad."""
    grad = _run_hooks(node, grad)
    tensor = _retained(node)
    if tensor is not None:
        tensor._grad = grad if tensor._grad is None else tensor._grad + grad
    return grad


def hook_step_overwrites(node, grad):
    """Stores the latest gradient instead of accumulating it."""
    grad = _run_hooks(node, grad)
    tensor = _retained(node)
    if tensor is not None:
        tensor._grad = grad.detach().clone()
    return grad


def hook_step_each_hook_sees_the_original(node, grad):
    """Calls every hook with the incoming gradient and keeps the last replacement."""
    result = grad
    for hook in tuple(node._tensor_pre_hooks.values()) if node._tensor_pre_hooks else ():
        replaced = hook(grad)
        if replaced is not None:
            result = replaced
    tensor = _retained(node)
    if tensor is not None:
        _store(tensor, result)
    return result


def hook_step_iterates_the_live_dict(node, grad):
    """Loops over the hooks dict itself: a hook that removes itself breaks the loop."""
    for hook in (node._tensor_pre_hooks or {}).values():
        result = hook(grad)
        if result is not None:
            if result.shape != grad.shape:
                raise RuntimeError("hook has changed the size of value")
            grad = result
    tensor = _retained(node)
    if tensor is not None:
        _store(tensor, grad)
    return grad


def hook_step_without_shape_check(node, grad):
    """Accepts whatever a hook returns."""
    for hook in tuple(node._tensor_pre_hooks.values()) if node._tensor_pre_hooks else ():
        result = hook(grad)
        if result is not None:
            grad = result
    tensor = _retained(node)
    if tensor is not None:
        _store(tensor, grad)
    return grad


def hook_step_trusts_the_weakref(node, grad):
    """Assumes the retained tensor is still alive."""
    grad = _run_hooks(node, grad)
    if node._retain_grad_ref is not None:
        _store(node._retain_grad_ref(), grad)
    return grad


# -- 06.grad --------------------------------------------------------------------------------------

def _as_tuple(value):
    return (value,) if isinstance(value, torch.Tensor) else tuple(value)


def _roots(outputs, grad_outputs):
    grad_outputs = [None] * len(outputs) if grad_outputs is None else _as_tuple(grad_outputs)
    roots, grads = [], []
    for index, (output, given) in enumerate(zip(outputs, grad_outputs)):
        node = gradient_edge(output)
        if node is None:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not have a grad_fn")
        if given is None:
            if output.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            given = torch.ones_like(output)
        roots.append(node)
        grads.append(given)
    return roots, grads


def _targets(inputs):
    for tensor in inputs:
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    return [t.grad_fn if t.grad_fn is not None else grad_accumulator(t) for t in inputs]


def grad_via_backward(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                      allow_unused=False):
    """Runs backward(inputs=...) and reads .grad, putting the old .grad back afterwards."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    saved = [t._grad for t in inputs]
    for t in inputs:
        t._grad = None
    torch.autograd.backward(outputs, grad_outputs, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)
    result = tuple(t._grad for t in inputs)
    for t, old in zip(inputs, saved):
        t._grad = old
    return result


def grad_in_capture_order(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                          allow_unused=False):
    """Returns the captured gradients in the order the engine reached them."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    roots, grads = _roots(outputs, grad_outputs)
    targets = _targets(inputs)
    captured = execute(roots, grads, keep_graph=create_graph if retain_graph is None else retain_graph,
                       create_graph=create_graph, inputs=targets)
    return tuple(captured.values())


def grad_ignoring_allow_unused(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                               allow_unused=False):
    """Gives None for an unused input without being asked to."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    roots, grads = _roots(outputs, grad_outputs)
    targets = _targets(inputs)
    captured = execute(roots, grads, keep_graph=create_graph if retain_graph is None else retain_graph,
                       create_graph=create_graph, inputs=targets)
    return tuple(captured.get(node) for node in targets)


def grad_never_retains(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                       allow_unused=False):
    """retain_graph defaults to False even with create_graph=True."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    roots, grads = _roots(outputs, grad_outputs)
    targets = _targets(inputs)
    captured = execute(roots, grads, keep_graph=bool(retain_graph), create_graph=create_graph,
                       inputs=targets)
    result = []
    for index, node in enumerate(targets):
        if node not in captured and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {index} appears to not have been used in the graph.")
        result.append(captured.get(node))
    return tuple(result)


def grad_ones_for_any_output(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                             allow_unused=False):
    """Starts every output with ones, whatever its size: a vector output silently gets summed."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    given = [None] * len(outputs) if grad_outputs is None else _as_tuple(grad_outputs)
    roots = []
    for index, output in enumerate(outputs):
        node = gradient_edge(output)
        if node is None:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not have a grad_fn")
        roots.append(node)
    grads = [torch.ones_like(out) if g is None else g for out, g in zip(outputs, given)]
    targets = _targets(inputs)
    captured = execute(roots, grads, keep_graph=create_graph if retain_graph is None else retain_graph,
                       create_graph=create_graph, inputs=targets)
    result = []
    for index, node in enumerate(targets):
        if node not in captured and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {index} appears to not have been used in the graph.")
        result.append(captured.get(node))
    return tuple(result)


WRONG = {
    "06.removable_handle": [HandleWithLengthId, HandleWithStrongReference, HandleRemovingTwiceFails,
                            HandleIgnoringExtraDict],
    "06.call_tensor_pre_hooks": [hook_step_retain_first, hook_step_without_copy, hook_step_overwrites,
                                 hook_step_each_hook_sees_the_original, hook_step_iterates_the_live_dict,
                                 hook_step_without_shape_check, hook_step_trusts_the_weakref],
    "06.grad": [grad_via_backward, grad_in_capture_order, grad_ignoring_allow_unused, grad_never_retains,
                grad_ones_for_any_output],
}
