"""Plausible wrong answers to chapter 13's exercises: each must be caught by its check."""
import itertools
from collections import OrderedDict

import glasstorch as torch
from glasstorch.nn.modules.module import _IncompatibleKeys


# -- 13._save_to_state_dict ------------------------------------------------------------------------

def save_with_non_persistent(self, destination, prefix, keep_vars):
    """Saves every buffer, the non-persistent ones too."""
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None:
            destination[prefix + name] = buf if keep_vars else buf.detach()


def save_clones(self, destination, prefix, keep_vars):
    """Copies the values: the state dict no longer shares the model's memory."""
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach().clone()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach().clone()


def save_ignores_keep_vars(self, destination, prefix, keep_vars):
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf.detach()


def save_whole_subtree(self, destination, prefix, keep_vars):
    """Writes the children's tensors too (state_dict already recurses)."""
    for name, param in self.named_parameters():
        destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self.named_buffers():
        destination[prefix + name] = buf if keep_vars else buf.detach()


# -- 13.state_dict ---------------------------------------------------------------------------------

def state_dict_without_dot(self, *, destination=None, prefix="", keep_vars=False):
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = {"version": self._version}
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name, keep_vars=keep_vars)
    return destination


def state_dict_from_named_members(self, *, destination=None, prefix="", keep_vars=False):
    """named_parameters() then named_buffers(): another order, no repeats, non-persistent buffers in."""
    destination = OrderedDict() if destination is None else destination
    for name, tensor in itertools.chain(self.named_parameters(), self.named_buffers()):
        destination[prefix + name] = tensor if keep_vars else tensor.detach()
    return destination


def state_dict_without_metadata(self, *, destination=None, prefix="", keep_vars=False):
    if destination is None:
        destination = OrderedDict()
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
    return destination


def state_dict_merges_new_dicts(self, *, destination=None, prefix="", keep_vars=False):
    """Each child makes its own dictionary, merged with update(): the children's _metadata is lost."""
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = {"version": self._version}
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            destination.update(module.state_dict(prefix=prefix + name + ".", keep_vars=keep_vars))
    return destination


def state_dict_metadata_unconditionally(self, *, destination=None, prefix="", keep_vars=False):
    """Assumes every destination has _metadata: a plain dict passed in fails."""
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    destination._metadata[prefix[:-1]] = {"version": self._version}
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
    return destination


# -- 13._load_from_state_dict ----------------------------------------------------------------------

def _own(module):
    persistent = {k: v for k, v in module._buffers.items() if k not in module._non_persistent_buffers_set}
    return {k: v for k, v in itertools.chain(module._parameters.items(), persistent.items()) if v is not None}


def _size_message(key, given, expected):
    return (f"size mismatch for {key}: copying a param with shape {given.shape} from checkpoint, "
            f"the shape in current model is {expected.shape}.")


def load_from_never_unexpected(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                               error_msgs):
    """Copies and reports missing keys, but never looks for unexpected ones."""
    for name, param in _own(self).items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        if state_dict[key].shape != param.shape:
            error_msgs.append(_size_message(key, state_dict[key], param))
            continue
        with torch.no_grad():
            param.copy_(state_dict[key])


def load_from_assigns(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    """Puts new Parameters in place of the module's: an optimizer keeps the old ones."""
    for name, param in _own(self).items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        if state_dict[key].shape != param.shape:
            error_msgs.append(_size_message(key, state_dict[key], param))
            continue
        if name in self._parameters:
            self._parameters[name] = torch.nn.Parameter(state_dict[key].clone(), param.requires_grad)
        else:
            self._buffers[name] = state_dict[key].clone()
    if strict:
        for key in state_dict:
            if key.startswith(prefix):
                head, *rest = key[len(prefix):].split(".", 1)
                if (rest and head not in self._modules) or (not rest and head not in _own(self)):
                    unexpected_keys.append(key)


def load_from_raises_on_mismatch(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
    """Raises at the first mismatch: the rest of the model is never loaded."""
    for name, param in _own(self).items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        if state_dict[key].shape != param.shape:
            raise RuntimeError(_size_message(key, state_dict[key], param))
        with torch.no_grad():
            param.copy_(state_dict[key])
    if strict:
        for key in state_dict:
            if key.startswith(prefix):
                head, *rest = key[len(prefix):].split(".", 1)
                if (rest and head not in self._modules) or (not rest and head not in _own(self)):
                    unexpected_keys.append(key)


def load_from_expects_every_buffer(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                   unexpected_keys, error_msgs):
    """Expects the non-persistent buffers too: `mask` is reported missing."""
    own = {k: v for k, v in itertools.chain(self._parameters.items(), self._buffers.items()) if v is not None}
    for name, param in own.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        if state_dict[key].shape != param.shape:
            error_msgs.append(_size_message(key, state_dict[key], param))
            continue
        with torch.no_grad():
            param.copy_(state_dict[key])
    if strict:
        for key in state_dict:
            if key.startswith(prefix):
                head, *rest = key[len(prefix):].split(".", 1)
                if (rest and head not in self._modules) or (not rest and head not in own):
                    unexpected_keys.append(key)


def load_from_flat_unexpected(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
    """Calls every key under the prefix unexpected unless it is an own entry: the children's keys too."""
    for name, param in _own(self).items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        if state_dict[key].shape != param.shape:
            error_msgs.append(_size_message(key, state_dict[key], param))
            continue
        with torch.no_grad():
            param.copy_(state_dict[key])
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key[len(prefix):] not in _own(self):
                unexpected_keys.append(key)


# -- 13.load_state_dict ----------------------------------------------------------------------------

def _raise_if(self, strict, missing_keys, unexpected_keys, error_msgs):
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            self.__class__.__name__, "\n\t".join(error_msgs)))


def load_without_copy(self, state_dict, strict=True):
    """Hands the caller's own dictionary to the modules: a pre-hook that renames keys changes it."""
    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None)

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                     unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                load(child, local_state_dict, prefix + name + ".")

    load(self, state_dict)
    _raise_if(self, strict, missing_keys, unexpected_keys, error_msgs)
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def load_without_metadata(self, state_dict, strict=True):
    """Never hands the modules their versions."""
    missing_keys, unexpected_keys, error_msgs = [], [], []
    state_dict = OrderedDict(state_dict)

    def load(module, local_state_dict, prefix=""):
        module._load_from_state_dict(local_state_dict, prefix, {}, True, missing_keys, unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}, child_prefix)

    load(self, state_dict)
    _raise_if(self, strict, missing_keys, unexpected_keys, error_msgs)
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def load_strict_false_forgives_everything(self, state_dict, strict=True):
    """With strict=False, returns without raising even for size mismatches."""
    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                     unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}, child_prefix)

    load(self, state_dict)
    if strict:
        _raise_if(self, strict, missing_keys, unexpected_keys, error_msgs)
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def load_unexpected_first(self, state_dict, strict=True):
    """Puts the Unexpected line before the Missing one."""
    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                     unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}, child_prefix)

    load(self, state_dict)
    if strict:
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys)))
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            self.__class__.__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def load_returns_plain_tuple(self, state_dict, strict=True):
    """Returns (missing_keys, unexpected_keys), a plain tuple without the field names."""
    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                     unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}, child_prefix)

    load(self, state_dict)
    _raise_if(self, strict, missing_keys, unexpected_keys, error_msgs)
    return missing_keys, unexpected_keys


WRONG = {
    "13._save_to_state_dict": [save_with_non_persistent, save_clones, save_ignores_keep_vars, save_whole_subtree],
    "13.state_dict": [state_dict_without_dot, state_dict_from_named_members, state_dict_without_metadata,
                      state_dict_merges_new_dicts, state_dict_metadata_unconditionally],
    "13._load_from_state_dict": [load_from_never_unexpected, load_from_assigns, load_from_raises_on_mismatch,
                                 load_from_expects_every_buffer, load_from_flat_unexpected],
    "13.load_state_dict": [load_without_copy, load_without_metadata, load_strict_false_forgives_everything,
                           load_unexpected_first, load_returns_plain_tuple],
}
