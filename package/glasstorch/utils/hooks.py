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


class BackwardHook:
    """What makes ``Module.register_full_backward_hook`` work (PyTorch's class of the same name).

    Around one call of the module it wraps the input and the output tensor in identity Nodes
    (``BackwardHookFunctionBackward``). During backward the output's Node fires first: it records
    ``grad_output`` and runs the backward pre-hooks. The input's Node fires when the gradient has
    flowed through the whole module: it calls the user hooks with ``grad_input`` and the recorded
    ``grad_output``. Non-tensor arguments appear as ``None`` in both tuples.

    Simplified: one input and one output tensor may carry gradient (PyTorch: any number).
    """

    def __init__(self, module: Any, user_hooks: list, user_pre_hooks: list) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _pack_with_none(self, indices: list, values: tuple, size: int) -> tuple:
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _unpack_none(self, indices: list, values: tuple) -> tuple:
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn: Any) -> None:
        def hook(grad_input: tuple, _: tuple) -> tuple | None:
            if self.grad_outputs is None:
                return None  # the output's gradient never reached us (not part of this backward)
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn: Any, args: tuple) -> tuple:
        from ..autograd.grad_mode import is_grad_enabled
        from ..nn.modules._functions import BackwardHookFunction

        tensors_idx = [i for i, arg in enumerate(args) if hasattr(arg, "_data")]
        with_grad = [i for i in tensors_idx if args[i].requires_grad]
        if not (with_grad and is_grad_enabled()):
            return args, None
        if len(with_grad) > 1:
            raise NotImplementedError(
                f"glasstorch's full backward hooks support one tensor that requires grad on each side of a "
                f"module; {type(self.module).__name__} got {len(with_grad)}. (PyTorch supports several.)")
        arg_list = list(args)
        arg_list[with_grad[0]] = new_tensor = BackwardHookFunction.apply(args[with_grad[0]])
        fn(new_tensor.grad_fn)
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, with_grad

    def setup_input_hook(self, args: tuple) -> tuple:
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args: Any) -> Any:
        def fn(grad_fn: Any) -> None:
            def hook(_: tuple, grad_output: tuple) -> tuple | None:
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                    if hook_grad_outputs is None:
                        continue
                    if len(hook_grad_outputs) != len(self.grad_outputs):
                        raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                           f"got {len(hook_grad_outputs)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    self._fire_without_input_grads()
                return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        args = args if is_tuple else (args,)
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]

    def _fire_without_input_grads(self) -> None:
        """No input requires grad (a network's first layer): the hooks fire at the output."""
        import warnings

        warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                      "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                      "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                      stacklevel=5)
        grad_inputs = self._pack_with_none([], [], self.n_inputs)
        for user_hook in self.user_hooks:
            res = user_hook(self.module, grad_inputs, self.grad_outputs)
            if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                   "return None or None for all gradients.")
        self.grad_outputs = None
