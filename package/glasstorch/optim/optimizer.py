"""``Optimizer``: the base class of every optimizer. Mirrors torch/optim/optimizer.py.

An optimizer holds two things, and everything else is bookkeeping around them:

* ``param_groups``: a list of dicts. Each has ``'params'`` (a list of tensors) and the options
  (``lr``, ``momentum`` ...) for those tensors; an option a group does not give comes from
  ``defaults``. Learning-rate schedulers work by rewriting ``group['lr']``.
* ``state``: a ``defaultdict(dict)`` keyed by the parameter tensor itself (tensors hash by
  identity), holding what the algorithm remembers between steps (a momentum buffer, Adam's
  moving averages and step count). It is filled lazily, at a parameter's first step.

``state_dict()`` replaces every tensor key by an integer index, numbered in order over all
groups, so a checkpoint does not depend on object identity; ``load_state_dict()`` zips those
indices back onto the new optimizer's parameters, in the same order.

Simplified here: no step hooks or state-dict hooks (``register_step_pre_hook`` ...), no profiler
wrapping of ``step``, no foreach/fused/capturable/differentiable implementations (each optimizer
runs its single-tensor "for-loop" update, which is what PyTorch also runs on the CPU unless told
otherwise), and ``lr`` must be a Python number (PyTorch also accepts a one-element tensor).
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any, Callable

from .. import dtypes
from .._tensor import Tensor
from .._typename import typename

__all__ = ["Optimizer", "required"]

StateDict = dict  # {'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}


class _RequiredParameter:
    """Marks an option every param group must give itself (it has no default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _get_scalar_dtype() -> dtypes.dtype:
    """The dtype of a step counter (Adam's ``state['step']``): float32, or float64 when that is
    the default dtype."""
    return dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32


def _check_implementation_flags(foreach: bool | None, fused: bool | None, capturable: bool = False,
                                differentiable: bool = False) -> None:
    """glasstorch runs the single-tensor update only. ``foreach=True`` is accepted: it selects a
    faster implementation of the same arithmetic, so the answer does not change. The others
    change what the step does (fused kernels, CUDA-graph capture, a differentiable step)."""
    for name, value in (("fused", fused), ("capturable", capturable), ("differentiable", differentiable)):
        if value:
            raise RuntimeError(
                f"glasstorch implements only the single-tensor ('for-loop') optimizer update: {name}=True is not "
                f"supported. Leave {name} at its default (the result is the same as PyTorch's default CPU path)."
            )


class Optimizer:
    """Base class for all optimizers.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs (``named_parameters()``), or
            of dicts, each a parameter group: ``{'params': [...], 'lr': ...}``.
        defaults: the options a group gets when it does not specify them.

    Give parameters as an ordered collection (a list, ``model.parameters()``): ``state_dict()``
    identifies them by their position.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict] | Iterable[tuple], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]  # a plain list of tensors is one group
        for param_group in param_groups:
            self.add_param_group(param_group)

    # --- pickling and copying (also what load_state_dict installs its result through) -------
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # --- the parameters ---------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters, with its own options, to ``param_groups``.

        Useful when fine-tuning: unfreeze a layer and give it to the optimizer with its own lr.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            # the order of a set changes from run to run, and state_dict() relies on the order
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        # named_parameters() gives (name, tensor) pairs: keep the names beside the tensors
        extracted_param_tensors = []
        extracted_param_names = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                extracted_param_names.append(param[0])
                extracted_param_tensors.append(param[1])
            else:
                extracted_param_tensors.append(param)
        param_group["params"] = extracted_param_tensors
        if len(extracted_param_names) != 0:
            if len(extracted_param_names) == len(extracted_param_tensors):
                param_group["param_names"] = extracted_param_names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            # a non-leaf gets no .grad from backward (unless it retains it): nothing to step with
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set: set[Tensor] = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {current_group_txt} to the optimizer"
                )
        # one tensor in two groups would be stepped twice, with two sets of options
        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors.

        ``set_to_none=True`` (the default) drops each ``.grad``: the next backward allocates a
        fresh one, and ``step()`` skips a parameter whose ``.grad`` is None (a zero gradient, by
        contrast, is a real step: momentum and weight decay still move the parameter).
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        # a gradient computed with create_graph=True has a history: cut it first
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step (update every parameter that has a ``.grad``).

        Args:
            closure: a function that re-evaluates the model and returns the loss; optional for
                most optimizers.
        """
        raise NotImplementedError

    # --- checkpoints ------------------------------------------------------------------------
    def state_dict(self) -> StateDict:
        """The optimizer's state as a dict: ``{'state': ..., 'param_groups': ...}``.

        Every parameter is replaced by its index, counting through the groups in order (group 0's
        parameters are 0, 1, ..., the next group's continue from there). ``state`` maps those
        indices to the per-parameter state dicts; each group keeps its options and lists its
        parameters' indices under ``'params'``. The state dicts and their tensors are the
        optimizer's own objects, not copies (as in PyTorch): ``deepcopy`` (or save) the result
        before stepping on if you want a snapshot.
        """
        param_mappings: dict[int, int] = {}  # id(param) -> index
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {id(p): i for i, p in enumerate(group["params"], start_index) if id(p) not in param_mappings}
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        # state not keyed by a tensor (old checkpoints) passes through unchanged
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    @staticmethod
    def _process_value_according_to_param_policy(param: Tensor, value: Tensor, key: Any = None) -> Tensor:
        """A loaded state tensor, made to fit ``param``.

        Floating-point state is assumed to have the parameter's dtype (a float64 checkpoint loaded
        for float32 parameters is cast down), except ``step``: a step count cast to float16 would
        stop counting at 2048 (pytorch/pytorch#74424). A tensor of the right dtype is used as it is,
        not copied. (PyTorch also moves the tensor to the parameter's device, and casts ``step``
        to float32 for fused or capturable groups.)
        """
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Load the optimizer state from ``state_dict`` (as returned by :meth:`state_dict`).

        The saved groups are matched with this optimizer's groups by position, and the saved
        parameter indices with this optimizer's parameters by position within them. The options
        of each group (``lr`` ...) are replaced by the saved ones.
        """
        state_dict = state_dict.copy()  # shallow copy, as Module.load_state_dict

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])  # written into below
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )

        # saved index -> this optimizer's parameter, by position
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )

        def _cast(param: Tensor, value: Any, key: Any = None) -> Any:
            """``value`` with its tensors made to fit ``param``, containers rebuilt."""
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, key)
            if isinstance(value, dict):
                return {k: _cast(param, v, key=k) for k, v in value.items()}
            # (PyTorch rebuilds any Iterable, strings included, which turns a str into garbage)
            if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(_cast(param, v) for v in value)
            return value

        # state of the parameters, cast to fit them; anything else is copied as it is
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v)
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]  # the saved options, this optimizer's tensors
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        # through __setstate__, so that subclasses fill in options older checkpoints lack
        self.__setstate__({"state": state, "param_groups": param_groups})
