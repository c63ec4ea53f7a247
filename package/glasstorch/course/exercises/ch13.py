"""Chapter 13 exercises: ``state_dict`` (``_save_to_state_dict`` and the recursive walk that calls
it) and ``load_state_dict`` (``_load_from_state_dict`` and the driver that walks the tree and
reports the errors). The checkpoint recipe that resumes training is chapter 14's.

The four methods are plugged into ``nn.Module`` for every case, so that the recursion (and
``BatchNorm``'s own ``_load_from_state_dict``, which calls ``super()``) runs the learner's code. The
observations are dictionaries (keys in order, then values), the error messages line by line,
the ``_IncompatibleKeys`` returned and the model's values after loading.
"""
from __future__ import annotations

import os
import tempfile
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

import glasstorch
from glasstorch import nn

from ..checking import Case, exercise
from ._harness import plugged_cases, random_seed, seeded
from .ch11 import module_names

# -- the chapter's network and what to observe of a state dict ------------------------------------


class Net(nn.Module):
    """Chapter 13's example: a small feature extractor, a linear head, a non-persistent buffer.
    (Its class name appears in load_state_dict's error messages, as in the chapter.)"""

    def __init__(self, hidden: int = 4) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Linear(3, hidden), nn.BatchNorm1d(hidden), nn.ReLU())
        self.fc = nn.Linear(hidden, 2)
        self.register_buffer("mask", glasstorch.ones(hidden), persistent=False)  # __init__ rebuilds it

    def forward(self, x: glasstorch.Tensor) -> glasstorch.Tensor:
        return self.fc(self.features(x) * self.mask)


def _net(seed: int, hidden: int = 4) -> Net:
    net = seeded(seed, lambda: Net(hidden))
    with glasstorch.no_grad():  # running statistics that are not the initial zeros and ones
        net(glasstorch.randn(8, 3))
    return net


def _renamed(seed: int) -> Net:
    """The chapter's "newer code": the head is called ``head`` instead of ``fc``."""
    net = _net(seed)
    net.head = net.fc
    del net.fc
    return net


class _Buffers(nn.Module):
    """A persistent and a non-persistent buffer between two parameters."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(glasstorch.full((2,), 2.0))
        self.register_buffer("table", glasstorch.arange(3.0), persistent=False)
        self.register_buffer("count", glasstorch.tensor(7))
        self.shift = nn.Parameter(glasstorch.zeros(2))


class _WithGap(nn.Module):
    """A child slot set to ``None``, and a Linear without bias (``bias`` is ``None``)."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(2, 2, bias=False)
        self.register_module("gap", None)
        self.last = nn.Linear(2, 1)


def _shared() -> nn.Module:
    shared = nn.Linear(2, 2)
    return nn.Sequential(shared, nn.ReLU(), shared)


def _metadata(state_dict: Any) -> Any:
    metadata = getattr(state_dict, "_metadata", None)
    return "no _metadata attribute" if metadata is None else {key: dict(value) for key, value in metadata.items()}


# -- 13._save_to_state_dict -----------------------------------------------------------------------

def _observe_save_linear(save: Callable, seed: int, keep_vars: bool) -> dict:
    lin = seeded(seed, lambda: nn.Linear(3, 2))
    destination: dict = {}
    lin._save_to_state_dict(destination, "fc.", keep_vars)
    observed = {"the entries": dict(destination),
                "requires_grad of each": [value.requires_grad for value in destination.values()],
                "each is the Parameter itself": [value is param for value, param in
                                                 zip(destination.values(), (lin.weight, lin.bias))]}
    if not keep_vars and "fc.weight" in destination:
        destination["fc.weight"].fill_(5.0)  # a detached tensor: no autograd, the same memory
        observed["the layer's weight after writing 5 into the saved one"] = lin.weight
    return observed


def _observe_save_module(save: Callable, seed: int, which: str, prefix: str) -> dict:
    builders: dict[str, Callable[[], nn.Module]] = {
        "BatchNorm1d": lambda: nn.BatchNorm1d(3), "buffers": _Buffers, "gap": _WithGap, "Net": Net,
        "Sequential": lambda: nn.Sequential(nn.Linear(2, 2), nn.ReLU()),
        "no running stats": lambda: nn.BatchNorm1d(2, track_running_stats=False),
    }
    module = seeded(seed, builders[which])
    destination: dict = {}
    module._save_to_state_dict(destination, prefix, False)
    return dict(destination)


def _observe_save_inside(save: Callable, seed: int) -> dict:
    net = _net(seed)
    state = net.state_dict()
    return {"net.state_dict()": dict(state), "_metadata": _metadata(state)}


def _save_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "_save_to_state_dict")

    return [
        case("a Linear under prefix 'fc.': detached tensors over the layer's memory", _observe_save_linear,
             random_seed(rng), False,
             hint="store param.detach(): a new tensor without history that shares the parameter's memory "
                  "(not a copy: clone() would break the chapter's 'state_dict is a view' rule)."),
        case("keep_vars=True: the Parameters themselves", _observe_save_linear, random_seed(rng), True,
             hint="with keep_vars=True, store the parameter (or buffer) itself, not param.detach()."),
        case("a BatchNorm1d under 'features.1.': parameters first, then buffers", _observe_save_module,
             random_seed(rng), "BatchNorm1d", "features.1.",
             hint="each key is prefix + name; first the loop over self._parameters, then the one over "
                  "self._buffers."),
        case("a non-persistent buffer is left out", _observe_save_module, random_seed(rng), "buffers", "m.",
             hint="skip the buffers whose name is in self._non_persistent_buffers_set."),
        case("None entries are skipped: a child slot and a bias set to None", _observe_save_module,
             random_seed(rng), "gap", "", hint="skip parameters and buffers that are None."),
        case("None buffers: a BatchNorm without running statistics", _observe_save_module, random_seed(rng),
             "no running stats", "bn."),
        case("only the module's own tensors, not its children's", _observe_save_module, random_seed(rng),
             "Sequential", "",
             hint="_save_to_state_dict writes this module's own _parameters and _buffers only; "
                  "state_dict() calls it again for every child, with a longer prefix."),
        case("inside glasstorch: net.state_dict() with your _save_to_state_dict at every level",
             _observe_save_inside, random_seed(rng)),
    ]


exercise(
    id="13._save_to_state_dict",
    entry="_save_to_state_dict",
    title="Module._save_to_state_dict: this module's own entries, under a prefix",
    cases=_save_cases,
    reference=nn.Module._save_to_state_dict,
    hint="for every parameter that is not None, destination[prefix + name] = param if keep_vars else "
         "param.detach(); then the same for every buffer that is not None and not in "
         "self._non_persistent_buffers_set.",
)


# -- 13.state_dict --------------------------------------------------------------------------------

_MODELS: dict[str, Callable[[int], nn.Module]] = {
    "the chapter's Net": _net,
    "a Linear shared by two positions": lambda seed: seeded(seed, _shared),
    "a child slot set to None": lambda seed: seeded(seed, _WithGap),
    "a single BatchNorm1d": lambda seed: seeded(seed, lambda: nn.BatchNorm1d(2)),
}


def _observe_state_dict(state_dict: Callable, seed: int, model_name: str) -> dict:
    model = _MODELS[model_name](seed)
    state = model.state_dict()
    return {"type": type(state).__name__, "entries": dict(state), "_metadata": _metadata(state)}


def _observe_keep_vars(state_dict: Callable, seed: int) -> dict:
    net = _net(seed)
    kept = net.state_dict(keep_vars=True)
    detached = net.state_dict()
    return {"keep_vars=True: the Parameter objects":
            [kept[name] is param for name, param in net.named_parameters()],
            "keep_vars=False: requires_grad": [value.requires_grad for value in detached.values()]}


def _observe_destination(state_dict: Callable, seed: int) -> dict:
    """A destination and a prefix passed in: a plain dict (no ``_metadata``) that already holds an
    entry, as when several models are saved into one dictionary."""
    net = _net(seed)
    destination = {"epoch": glasstorch.tensor(3)}
    returned = net.state_dict(destination=destination, prefix="model.")
    return {"entries": dict(destination), "returned the destination itself": returned is destination}


def _observe_file_round_trip(state_dict: Callable, seed: int) -> dict:
    """Save net.state_dict() to a file, load it into a fresh Net: the values and the versions
    come back."""
    net, fresh = _net(seed), _net(seed + 1)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net.pt")
        glasstorch.save(net.state_dict(), path)
        loaded = glasstorch.load(path)
    result = fresh.load_state_dict(loaded)
    return {"loaded keys": list(loaded), "loaded _metadata": _metadata(loaded),
            "load_state_dict returned": str(result), "the fresh model now": dict(fresh.state_dict())}


def _state_dict_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "state_dict")

    return [
        case("the chapter's Net: every entry, in order, and _metadata", _observe_state_dict, random_seed(rng),
             "the chapter's Net",
             hint="self._save_to_state_dict(destination, prefix, keep_vars) writes this module's own "
                  "entries; then call module.state_dict(destination=destination, prefix=prefix + name + '.', "
                  "keep_vars=keep_vars) for each child in self._modules, in order."),
        case("a module used twice is saved under both names", _observe_state_dict, random_seed(rng),
             "a Linear shared by two positions",
             hint="go through self._modules.items(), not named_children() or named_parameters(): those "
                  "skip repeats, and state_dict must not (load_state_dict asks each position for its keys)."),
        case("a child slot set to None", _observe_state_dict, random_seed(rng), "a child slot set to None",
             hint="skip a child that is None."),
        case("one module without children: a BatchNorm1d (version 2)", _observe_state_dict, random_seed(rng),
             "a single BatchNorm1d",
             hint="when destination is None, make an OrderedDict and give it an attribute _metadata = "
                  "OrderedDict(); each call records destination._metadata[prefix[:-1]] = "
                  "{'version': self._version}."),
        case("keep_vars is passed down to every module", _observe_keep_vars, random_seed(rng),
             hint="pass keep_vars on to every child's state_dict and to _save_to_state_dict."),
        case("a plain dict as destination, with prefix 'model.'", _observe_destination, random_seed(rng),
             hint="write into the destination you are given and return it; record the version only "
                  "if the destination has a _metadata attribute (a plain dict has none)."),
        case("inside glasstorch: save to a file, load into a fresh Net", _observe_file_round_trip, random_seed(rng)),
    ]


exercise(
    id="13.state_dict",
    entry="state_dict",
    title="Module.state_dict: the recursive walk with a growing prefix",
    cases=_state_dict_cases,
    reference=nn.Module.state_dict,
    hint="make the OrderedDict (with _metadata) if no destination is given, record this module's "
         "version, call self._save_to_state_dict, recurse into every child that is not None with prefix "
         "+ name + '.', and return the destination.",
)


# -- 13._load_from_state_dict and 13.load_state_dict: loading and what it reports ---------------

def _report(model: nn.Module, state: dict, strict: bool = True) -> dict:
    """Load ``state`` into ``model``: what was returned (or the error, line by line), whether the
    Parameters are still the same objects, and the model's values afterwards."""
    params_before = list(model.parameters())
    raised: Any = "nothing"
    returned: Any = "nothing (it raised)"
    try:
        result = model.load_state_dict(state, strict=strict)
        returned = {"type": type(result).__name__, "missing_keys": list(result.missing_keys),
                    "unexpected_keys": list(result.unexpected_keys), "repr": str(result)}
    except RuntimeError as error:
        raised = [line.rstrip() for line in str(error).splitlines()]
    return {"RuntimeError raised, line by line": raised, "returned": returned,
            "the same Parameter objects": [a is b for a, b in zip(params_before, model.parameters())],
            "the model's values afterwards": dict(model.state_dict())}


def _checkpoint(seed: int, kind: str) -> OrderedDict:
    """A state dict written by the chapter's Net, altered in one of the chapter's ways."""
    state = _net(seed).state_dict()
    if kind == "with extra keys":
        state["features.0.scale"] = glasstorch.ones(3)     # under a child: no such parameter there
        state["classifier.weight"] = glasstorch.ones(2, 4)  # no child called classifier
        state["temperature"] = glasstorch.tensor(2.0)       # at the root
    elif kind == "without fc.bias":
        del state["fc.bias"]
    return state


def _observe_load(load: Callable, seed: int, target: str, kind: str, strict: bool) -> dict:
    models: dict[str, Callable[[int], nn.Module]] = {
        "Net": _net, "Net with the head renamed": _renamed, "Net(hidden=5)": lambda s: _net(s, hidden=5)}
    return _report(models[target](seed + 1), _checkpoint(seed, kind), strict)


def _observe_old_batchnorm(load: Callable, seed: int, version: int) -> dict:
    """The chapter's old checkpoint: a BatchNorm1d state dict without num_batches_tracked."""
    old = seeded(seed, lambda: nn.BatchNorm1d(3)).state_dict()
    del old["num_batches_tracked"]
    old._metadata[""]["version"] = version
    return _report(seeded(seed + 1, lambda: nn.BatchNorm1d(3)), old)


# -- 13._load_from_state_dict ---------------------------------------------------------------------

def _observe_load_direct(load: Callable, seed: int) -> dict:
    """Called by hand on one Linear, as load_state_dict would call it under the prefix 'fc.'."""
    lin = seeded(seed, lambda: nn.Linear(3, 2))
    state = {"fc.weight": glasstorch.full((2, 3), 0.5), "fc.scale": glasstorch.ones(2),
             "fc.inner.weight": glasstorch.ones(1), "head.bias": glasstorch.zeros(2)}
    missing: list = []
    unexpected: list = []
    errors: list = []
    lin._load_from_state_dict(state, "fc.", {}, True, missing, unexpected, errors)
    return {"missing_keys": missing, "unexpected_keys": unexpected, "error_msgs": errors,
            "weight": lin.weight, "the state dict it was handed, keys": list(state)}


def _load_from_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "_load_from_state_dict")

    unexpected_hint = ("look at every key of state_dict that starts with prefix: the rest of the key, "
                       "split once at '.', is either one name (it must be one of this module's own "
                       "parameters or persistent buffers) or 'child.more' (the child must be in "
                       "self._modules); otherwise the key is unexpected.")
    return [
        case("called by hand on a Linear under 'fc.': one missing, two unexpected, one ignored",
             _observe_load_direct, random_seed(rng), hint=unexpected_hint),
        case("a matching checkpoint: every value copied into the same Parameters", _observe_load,
             random_seed(rng), "Net", "as saved", True,
             hint="copy each value in place with param.copy_(input_param) under torch.no_grad(): the "
                  "Parameters must stay the same objects (an optimizer holds them). Only persistent "
                  "buffers are expected in a checkpoint."),
        case("strict: a renamed head gives missing and unexpected keys", _observe_load, random_seed(rng),
             "Net with the head renamed", "as saved", True,
             hint="a key prefix + name that is not in state_dict goes into missing_keys (when strict)."),
        case("strict=False: the same keys, returned instead of raised", _observe_load, random_seed(rng),
             "Net with the head renamed", "as saved", False),
        case("a checkpoint without fc.bias", _observe_load, random_seed(rng), "Net", "without fc.bias", True),
        case("unexpected keys under a child, under a missing child, and at the root", _observe_load,
             random_seed(rng), "Net", "with extra keys", True, hint=unexpected_hint),
        case("shape mismatches (hidden=5): reported, and everything else still loaded", _observe_load,
             random_seed(rng), "Net(hidden=5)", "as saved", True,
             hint="compare input_param.shape with param.shape before copying; on a mismatch append "
                  "f'size mismatch for {key}: copying a param with shape {input_param.shape} from "
                  "checkpoint, the shape in current model is {param.shape}.' to error_msgs and go on "
                  "with the next entry (do not raise: load_state_dict reports all errors at the end)."),
        case("an old BatchNorm checkpoint (version 1): BatchNorm's own _load_from_state_dict fills in "
             "num_batches_tracked, then calls yours", _observe_old_batchnorm, random_seed(rng), 1),
    ]


exercise(
    id="13._load_from_state_dict",
    entry="_load_from_state_dict",
    title="Module._load_from_state_dict: copy this module's entries, report what does not fit",
    cases=_load_from_cases,
    reference=nn.Module._load_from_state_dict,
    hint="for each own parameter and persistent buffer (not None): key = prefix + name; missing -> "
         "missing_keys; wrong shape -> a 'size mismatch for ...' line in error_msgs; else copy_ under "
         "no_grad. Then (strict) every key under prefix that names neither an own entry nor a child goes "
         "into unexpected_keys.",
)


# -- 13.load_state_dict ---------------------------------------------------------------------------

def _observe_handed(load: Callable, seed: int) -> dict:
    """Load pre-hooks on every module record what each one is handed (chapter 13, section 6)."""
    net = _net(seed + 1)
    names = module_names(net)
    handed: dict = {}

    def record(module: nn.Module, state: dict, prefix: str, local_metadata: dict, *rest: Any) -> None:
        handed[names[module]] = {"prefix": prefix, "keys": sorted(state), "local_metadata": dict(local_metadata)}

    for module in net.modules():
        module.register_load_state_dict_pre_hook(record)
    net.load_state_dict(_net(seed).state_dict())
    return handed


def _observe_renaming_hook(load: Callable, seed: int) -> dict:
    """The chapter's exercise: a load pre-hook renames fc.* to head.*, on load_state_dict's copy."""
    old_checkpoint = _net(seed).state_dict()
    new_net = _renamed(seed + 1)

    def fc_to_head(state: dict, prefix: str, *rest: Any) -> None:
        for key in list(state):
            if key.startswith(prefix + "fc."):
                state[prefix + "head." + key[len(prefix + "fc."):]] = state.pop(key)

    new_net._register_load_state_dict_pre_hook(fc_to_head)
    report = _report(new_net, old_checkpoint)
    report["the caller's dict afterwards"] = list(old_checkpoint)
    return report


def _observe_transfer(load: Callable, seed: int) -> dict:
    """A pretrained backbone: into net.features strictly, and into the whole net with a prefix."""
    backbone = seeded(seed, lambda: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU()))
    net = _net(seed + 1)
    observed = {"into net.features": _report(net.features, backbone.state_dict())}
    with_prefix = {"features." + key: value for key, value in backbone.state_dict().items()}
    observed["into net, keys prefixed, strict=False"] = _report(_net(seed + 2), with_prefix, strict=False)
    return observed


def _load_cases(rng: np.random.Generator) -> list[Case]:
    case = plugged_cases(nn.Module, "load_state_dict")

    message_hint = ("collect everything first, raise once at the end: with strict=True put "
                    "'Unexpected key(s) in state_dict: \"a\", \"b\". ' and then 'Missing key(s) in "
                    "state_dict: ... ' at the front of error_msgs (insert(0, ...), so Missing comes first); "
                    "if error_msgs is not empty, raise RuntimeError('Error(s) in loading state_dict for "
                    "Net:\\n\\t' + '\\n\\t'.join(error_msgs)), with the class name from "
                    "self.__class__.__name__.")
    return [
        case("a matching checkpoint: _IncompatibleKeys with two empty lists", _observe_load, random_seed(rng),
             "Net", "as saved", True,
             hint="return _IncompatibleKeys(missing_keys, unexpected_keys): its repr is "
                  "<All keys matched successfully> when both lists are empty."),
        case("strict=True: one RuntimeError lists the missing and the unexpected keys", _observe_load,
             random_seed(rng), "Net with the head renamed", "as saved", True, hint=message_hint),
        case("strict=False: the lists are returned", _observe_load, random_seed(rng), "Net with the head renamed",
             "as saved", False,
             hint="with strict=False, missing and unexpected keys are not errors: return them."),
        case("strict=True with extra keys at three levels", _observe_load, random_seed(rng), "Net",
             "with extra keys", True, hint=message_hint),
        case("a size mismatch is an error even with strict=False", _observe_load, random_seed(rng), "Net(hidden=5)",
             "as saved", False,
             hint="strict only decides about missing and unexpected keys; the other error_msgs (size "
                  "mismatches) always raise."),
        case("each module is handed its own subtree's entries and its own version", _observe_handed,
             random_seed(rng),
             hint="for each child, recurse with prefix + name + '.' and only the entries whose key starts "
                  "with that prefix; hand each module its own entry of _metadata (metadata.get(prefix[:-1], "
                  "{})) as local_metadata."),
        case("a load pre-hook renames keys: your caller's dictionary is not changed", _observe_renaming_hook,
             random_seed(rng),
             hint="work on a copy, OrderedDict(state_dict), and give the copy the original's _metadata: "
                  "pre-hooks may edit what they are handed, the caller's dictionary must stay as it was."),
        case("_metadata decides: a version-2 BatchNorm checkpoint without num_batches_tracked",
             _observe_old_batchnorm, random_seed(rng), 2,
             hint="read metadata = getattr(state_dict, '_metadata', None) and hand every module its entry: "
                  "without its version, BatchNorm takes the checkpoint for an old one (version 1) and "
                  "forgives the missing key."),
        case("the same checkpoint as version 1 loads", _observe_old_batchnorm, random_seed(rng), 1),
        case("inside glasstorch: a pretrained backbone into net.features, and into net with a prefix",
             _observe_transfer, random_seed(rng)),
    ]


exercise(
    id="13.load_state_dict",
    entry="load_state_dict",
    title="Module.load_state_dict: walk the tree, collect the problems, raise once",
    cases=_load_cases,
    reference=nn.Module.load_state_dict,
    hint="copy the dict (keep its _metadata), walk the tree calling module._load_from_state_dict(local "
         "entries, prefix, local metadata, True, missing_keys, unexpected_keys, error_msgs), then add the "
         "Missing/Unexpected lines when strict, raise one RuntimeError if there is any error, and return "
         "_IncompatibleKeys(missing_keys, unexpected_keys).",
)
