"""Activation checkpointing: ``checkpoint(function, *args, use_reentrant=False)`` keeps only the
*inputs* of ``function`` for backward, and runs ``function`` a second time, during backward, to
get back the tensors its operations would have saved. Memory for time.

Mirrors torch/utils/checkpoint.py. The non-reentrant variant (``use_reentrant=False``, the one
PyTorch recommends) is two pairs of saved-tensor hooks (autograd/saved_tensor_hooks.py):

* during the forward, every tensor an operation inside ``function`` saves is replaced by its
  *position* (0, 1, 2, ...): the pack hook keeps the number, not the tensor;
* during backward, the first unpack runs ``function`` again, with grad mode on, the random number
  generator as it was and another pack hook that files each tensor saved by the recomputation
  under its position; every unpack then takes its tensor from there, once.

The inputs themselves are saved as any op saves a tensor (PyTorch's ``NoopSaveInputs``), so an
outer ``saved_tensors_hooks`` sees them, and changing one in place before backward is caught.

The reentrant variant (``use_reentrant=True``, still the default in PyTorch 2.13, with a warning)
is an ``autograd.Function`` that runs ``function`` under ``no_grad`` and, in its backward, runs it
again with grad mode on and calls ``autograd.backward`` inside backward.

Simplified: PyTorch keeps the recomputed tensors per backward call (its graph task id) and also
takes ``context_fn`` and ``debug``; glasstorch recomputes whenever a tensor it needs has already
been handed out, and raises for ``context_fn`` and ``debug``. A reentrant ``function`` may return
one differentiable tensor (glasstorch's Nodes have one output).
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable

from .._tensor import Tensor
from ..autograd import backward
from ..autograd.function import Function
from ..autograd.grad_mode import _GradMode, enable_grad
from ..autograd.graph import SavedTensor
from ..autograd.saved_tensor_hooks import saved_tensors_hooks
from ..random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward saved (PyTorch's ``CheckpointError``)."""


class _StopRecomputationError(Exception):
    """Raised by the recomputation's pack hook once every tensor needed is back (early stop)."""


def noop_context_fn() -> tuple:
    return contextlib.nullcontext(), contextlib.nullcontext()


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


_DEBUG_TIP = ("\nTip: To see a more detailed error message, either pass `debug=True` to "
              "`torch.utils.checkpoint.checkpoint(...)` (PyTorch; glasstorch has no debug mode).")


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable = noop_context_fn, determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs: Any) -> Any:
    """Run ``function(*args, **kwargs)`` without keeping what its operations save for backward;
    backward runs it again to get those tensors back. Pass ``use_reentrant`` explicitly
    (``False`` is the variant PyTorch recommends)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
            "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if context_fn is not noop_context_fn or debug is not False:
        raise NotImplementedError("glasstorch's checkpoint takes neither `context_fn` nor `debug`.")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpoint_without_reentrant(function, preserve_rng_state, determinism_check == "default",
                                         early_stop, *args, **kwargs)


# --- the non-reentrant variant ---------------------------------------------------------------------

class _Frame:
    """What one checkpointed call keeps for backward: how to run it again, and the tensors that
    run saves, filed by position (PyTorch: ``_CheckpointFrame``)."""

    def __init__(self, recompute: Callable, check_metadata: bool, early_stop: bool) -> None:
        self.recompute = recompute
        self.check_metadata = check_metadata
        self.early_stop = early_stop
        self.metadata: list = []  # (shape, dtype) of each tensor the forward saved, by position
        self.recomputed: dict = {}  # position -> the tensor the recomputation saved there

    def pack(self, tensor: Any) -> int:
        """Forward: keep the tensor's position (and its shape and dtype), not the tensor."""
        self.metadata.append((tuple(tensor.shape), tensor.dtype))
        return len(self.metadata) - 1

    def unpack(self, position: int) -> Any:
        """Backward: the tensor saved at ``position``, recomputing the function if it is not there."""
        if position not in self.recomputed:
            self._recompute_all()
        return self.recomputed.pop(position)  # handed out once: the frame keeps nothing after

    def _recompute_all(self) -> None:
        self.recomputed, counter = {}, [0]

        def pack_recomputed(tensor: Any) -> Any:
            position = counter[0]
            counter[0] += 1
            if position >= len(self.metadata):
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation than "
                                      "during the original forward pass.\n" + _DEBUG_TIP)
            self.recomputed[position] = tensor.detach() if tensor.requires_grad else tensor
            if self.early_stop and counter[0] == len(self.metadata):
                raise _StopRecomputationError  # everything backward needs is back: skip the rest
            return tensor

        previous, _GradMode.enabled = _GradMode.enabled, True  # enable_grad, whatever backward runs under
        try:
            with saved_tensors_hooks(pack_recomputed, lambda tensor: tensor):
                self.recompute()
        except _StopRecomputationError:
            pass
        finally:
            _GradMode.enabled = previous
        self._check_recomputed(counter[0])

    def _check_recomputed(self, count: int) -> None:
        if count != len(self.metadata):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.metadata)}\n"
                f"Number of tensors saved during recomputation: {count}.\n" + _DEBUG_TIP)
        if not self.check_metadata:
            return
        different = ""
        for position, saved in enumerate(self.metadata):
            tensor = self.recomputed.get(position)
            if tensor is not None and (tuple(tensor.shape), tensor.dtype) != saved:
                recomputed = (tuple(tensor.shape), tensor.dtype)
                different += (f"tensor at position {position}:\nsaved metadata: {_describe(saved)}\n"
                              f"recomputed metadata: {_describe(recomputed)}\n")
        if different:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                  f"different metadata than during the forward pass.\n{different}.\n" + _DEBUG_TIP)


def _describe(metadata: tuple) -> str:
    shape, dtype = metadata
    return f"{{'shape': glasstorch.Size({list(shape)}), 'dtype': {dtype}, 'device': device(type='cpu')}}"


def _checkpoint_without_reentrant(function: Callable, preserve_rng_state: bool, check_metadata: bool,
                                  early_stop: bool, *args: Any, **kwargs: Any) -> Any:
    rng_state = get_rng_state() if preserve_rng_state else None
    # the inputs are saved as an op saves its inputs: seen by outer hooks, checked for in-place changes
    # (only while recording: under no_grad or inference_mode nothing will be recomputed)
    recording = _GradMode.enabled
    saved_inputs = [SavedTensor(arg) if recording and _is_tensor(arg) else arg for arg in args]

    def recompute() -> None:
        inputs = [saved.unpack(None) if isinstance(saved, SavedTensor) else saved for saved in saved_inputs]
        if rng_state is None:
            function(*inputs, **kwargs)
            return
        current = get_rng_state()
        set_rng_state(rng_state)  # the same random numbers as the forward (a Dropout's mask)
        try:
            function(*inputs, **kwargs)
        finally:
            set_rng_state(current)

    frame = _Frame(recompute, check_metadata, early_stop)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


# --- the reentrant variant -------------------------------------------------------------------------

def _check_backward_validity(inputs: tuple) -> None:
    if not any(inp.requires_grad for inp in inputs if _is_tensor(inp)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


class CheckpointFunction(Function):
    """The reentrant variant: ``function`` runs under ``no_grad`` (Function.apply), and again in backward."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        _check_backward_validity(args)
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = get_rng_state()
        ctx.inputs = [None if _is_tensor(arg) else arg for arg in args]
        ctx.tensor_indices = [i for i, arg in enumerate(args) if _is_tensor(arg)]
        ctx.save_for_backward(*(arg for arg in args if _is_tensor(arg)))
        return run_function(*args)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> tuple:
        inputs = list(ctx.inputs)
        for position, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[position] = tensor
        current = get_rng_state()
        if ctx.preserve_rng_state:
            set_rng_state(ctx.fwd_cpu_state)
        detached = [arg.detach().requires_grad_(arg.requires_grad) if _is_tensor(arg) else arg for arg in inputs]
        try:
            with enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            set_rng_state(current)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        with_grad = [out for out in outputs if _is_tensor(out) and out.requires_grad]
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward(with_grad[0], grad_output)  # a backward inside backward: "reentrant"
        return (None, None) + tuple(arg.grad if _is_tensor(arg) else None for arg in detached)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """Cut ``functions`` (an ``nn.Sequential`` or a list of modules) into ``segments`` pieces and
    checkpoint each but the last, whose activations backward needs first anyway."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start: int, end: int, functions: list) -> Callable:
        def forward(input: Any) -> Any:
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
