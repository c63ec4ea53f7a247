"""Containers: Modules that hold other Modules (or Parameters) in a list or a dict.

Mirrors torch/nn/modules/container.py. A container adds no machinery of its own: it files each
element in ``_modules`` (or ``_parameters``) under a key — ``"0"``, ``"1"``, ... for the lists, the
user's key for the dicts — and everything ``Module`` does (``named_modules``, ``state_dict``,
``to()``, the repr) follows from that. The list and dict methods are thin translations between
positions or keys and those attribute names.

* ``Sequential``: a list whose ``forward`` feeds each module's output to the next.
* ``ModuleList`` / ``ModuleDict``: a list / dict of submodules, with no ``forward``.
* ``ParameterList`` / ``ParameterDict``: a list / dict whose tensors become Parameters.

Simplified here: no ``Container`` (deprecated in PyTorch), no TorchScript wrappers; tensors print
without a device in ``ParameterList``/``ParameterDict`` reprs because glasstorch tensors are always
on the CPU (PyTorch adds `` (cuda:0)`` for GPU tensors). Three places where PyTorch corrupts the
container on bad input refuse it before changing anything instead (the docstrings say which):
``ModuleList.insert`` with an index outside ``[0, len]``, ``ParameterList.append`` of a value that
cannot become a Parameter, and ``ParameterDict[key] = value`` with an invalid key.
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections import abc as container_abcs
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import Any, TypeVar

from ..._tensor import Tensor
from ..._typename import typename
from ..parameter import Parameter
from .module import Module

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]

_V = TypeVar("_V")


def _addindent(s_: str, numSpaces: int) -> str:  # noqa: N803 - PyTorch's name
    """Indent every line but the first, blank lines included.

    PyTorch keeps this copy for ``ModuleList.__repr__``; module.py's version has since learnt to
    leave blank lines empty, this one has not, so a ModuleList prints blank lines as two spaces."""
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(numSpaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)


def _renumbered(modules: Iterable[Module]) -> dict:
    """``{"0": m0, "1": m1, ...}``: a list's ``_modules`` after a deletion, keys without gaps.
    (PyTorch builds an OrderedDict here; a plain dict keeps insertion order too.)"""
    return {str(i): module for i, module in enumerate(modules)}


def _tensor_line(p: Tensor, type_name: str) -> str:
    """``Parameter containing: [glasstorch.float32 of size 2x3]``: how the parameter containers
    print a tensor — its kind, type and shape, never its values."""
    size_str = "x".join(str(size) for size in p.size())
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"{kind} containing: [{type_name} of size {size_str}]"



def _abs_string_index(idx: int, length: int) -> str:
    """The key of position ``idx`` in a list-like container: ``-1`` -> ``str(length - 1)``."""
    idx = operator.index(idx)
    if not -length <= idx < length:
        raise IndexError(f"index {idx} is out of range")
    if idx < 0:
        idx += length
    return str(idx)

class Sequential(Module):
    """A sequential container: ``forward`` passes its input to the first module, that module's
    output to the second, and so on, and returns the last output.

    Build it from modules, ``Sequential(a, b, c)`` (keys ``"0"``, ``"1"``, ``"2"``), or from an
    ``OrderedDict`` of named modules, ``Sequential(OrderedDict(conv=..., relu=...))``."""

    def __init__(self, *args: Module | OrderedDict) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator: Iterable[_V], idx: int) -> _V:
        """The ``idx``-th item of ``iterator`` (negative counts from the end). Works on keys and
        on values, so it also serves named Sequentials."""
        size = len(self)
        idx = operator.index(idx)  # TypeError for a float or a str, as a list gives
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx: int | slice) -> Module:
        """An int gives the module; a slice gives a new Sequential of the same class holding the
        same module objects under their original keys (``"1"``, ``"2"`` — not renumbered)."""
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx: int, module: Module) -> None:
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        # positions must stay 0..n-1; note that this renumbers named keys too, as PyTorch does
        self._modules = _renumbered(self._modules.values())

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def __add__(self, other: "Sequential") -> "Sequential":
        """A new (plain) Sequential holding both containers' modules, renumbered from 0."""
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iadd__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other: Any) -> None:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other: int) -> "Sequential":
        """``seq * 3``: the same module objects three times over (shared, not copied)."""
        self._check_factor(other)
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    def __rmul__(self, other: int) -> "Sequential":
        return self.__mul__(other)

    def __imul__(self, other: int) -> "Sequential":
        """In place; like PyTorch it reads the keys ``"0"``..``"n-1"``, so a named Sequential
        raises KeyError."""
        self._check_factor(other)
        len_original = len(self)
        for copy in range(1, other):
            for i in range(len_original):
                self.add_module(str(i + copy * len_original), self._modules[str(i)])
        return self

    def pop(self, key: int | slice) -> Module:
        """Remove the module at ``key`` and return it (a Sequential for a slice)."""
        v = self[key]
        del self[key]
        return v

    def append(self, module: Module) -> "Sequential":
        """Add ``module`` at the end, under the key ``str(len(self))``."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        """Put ``module`` before position ``index`` (``-len <= index <= len``), shifting the rest
        one key up. It writes ``_modules`` directly: no registration hooks, as in PyTorch."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> "Sequential":
        """Append every module of ``sequential`` (any iterable of modules)."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input: Any) -> Any:  # noqa: A002 - PyTorch's name
        """Chain the modules: each one's output is the next one's input."""
        for module in self:
            input = module(input)  # noqa: A001
        return input


class ModuleList(Module):
    """Holds submodules in a list, under the keys ``"0"``, ``"1"``, ... It indexes like a Python
    list, and its modules are registered, so ``parameters()``, ``to()``, ``state_dict()`` see them.
    It has no ``forward``: you decide how to call its modules."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def _get_abs_string_index(self, idx: int) -> str:
        return _abs_string_index(idx, len(self))

    def __getitem__(self, idx: int | slice) -> Module:
        """An int gives the module; a slice gives a new list of the same class, renumbered."""
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._get_abs_string_index(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        # close the gap: the modules after the deleted ones move down one key
        self._modules = _renumbered(self._modules.values())

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        """A new (plain) ModuleList with this list's modules, then ``other``'s."""
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        """Runs of consecutive modules that print the same are shown once:
        ``(0-2): 3 x Linear(in_features=2, out_features=2, bias=True)``."""
        list_of_reprs = [repr(item) for item in self]
        if not list_of_reprs:
            return self._get_name() + "()"
        # [start, end] of each run of equal reprs, and the repr the run repeats
        start_end_indices = [[0, 0]]
        repeated_blocks = [list_of_reprs[0]]
        for i, r in enumerate(list_of_reprs[1:], 1):
            if r == repeated_blocks[-1]:
                start_end_indices[-1][1] += 1
                continue
            start_end_indices.append([i, i])
            repeated_blocks.append(r)
        lines = []
        for (start_id, end_id), block in zip(start_end_indices, repeated_blocks):
            local_repr = f"({start_id}): {block}"
            if start_id != end_id:
                local_repr = f"({start_id}-{end_id}): {end_id - start_id + 1} x {block}"
            lines.append(_addindent(local_repr, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index``, shifting the rest one key up.

        Like PyTorch it writes ``_modules`` directly (no type check, no registration hooks).
        Unlike PyTorch it accepts only ``0 <= index <= len``, and checks before changing anything:
        PyTorch shifts every module and then fails with ``KeyError: '-1'`` on a negative index
        (leaving a duplicated module behind), and files an index past the end under a gap key."""
        index = operator.index(index)
        n = len(self._modules)
        if index < 0:
            raise KeyError(f"ModuleList.insert needs 0 <= index <= len(self), got {index} "
                           "(PyTorch raises KeyError: '-1' here, after shifting the modules)")
        if index > n:
            raise IndexError(f"index {index} is out of range")
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> "ModuleList":
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int | slice) -> Module:
        """Remove the module at ``key`` and return it (a ModuleList for a slice)."""
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        """Append every module of the iterable ``modules``."""
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    # no forward: calling a ModuleList is Module's "missing the required forward" error


class ModuleDict(Module):
    """Holds submodules in a dict, in insertion order; each key is the module's attribute name,
    so keys must be strings without ``"."``. It has no ``forward``."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove ``key`` and return its module."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> container_abcs.KeysView:
        return self._modules.keys()

    def items(self) -> container_abcs.ItemsView:
        return self._modules.items()

    def values(self) -> container_abcs.ValuesView:
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add (or replace) modules from a mapping or from an iterable of ``(key, module)`` pairs,
        in the argument's own order."""
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, container_abcs.Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                _check_pair("ModuleDict", j, m)
                self[m[0]] = m[1]

    # no forward: calling a ModuleDict is Module's "missing the required forward" error


def _check_pair(owner: str, j: int, pair: Any) -> None:
    """Element ``j`` of an ``update`` sequence must be a ``(key, value)`` pair. The messages are
    PyTorch's, missing space in "isint" included, so they can be searched for."""
    if not isinstance(pair, container_abcs.Iterable):
        raise TypeError(f"{owner} update sequence element #{j} should be Iterable; is" + type(pair).__name__)
    if not len(pair) == 2:
        raise ValueError(f"{owner} update sequence element #{j} has length {len(pair)}; 2 is required")


class ParameterList(Module):
    """Holds parameters in a list, under the attribute names ``"0"``, ``"1"``, ...

    Assigning a plain Tensor — through the constructor, ``append``, ``extend`` or ``[i] =`` —
    wraps it in a Parameter, so it is registered. Other objects are stored as they are (a Module
    becomes a submodule, anything else an ordinary attribute)."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0  # the list's length: its elements may live in three different places
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx: int) -> str:
        return _abs_string_index(idx, len(self))

    def __getitem__(self, idx: int | slice) -> Any:
        """An int gives the element; a slice gives a new list of the same class."""
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        # every way of adding an element ends here, so this is the one place that wraps tensors
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, idx, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> "ParameterList":
        """Add ``value`` at the end (a Tensor becomes a Parameter).

        The length grows first, so that ``__setitem__`` accepts the new index. PyTorch leaves it
        grown when the value is refused (an integer tensor cannot be a Parameter), and the list
        then has a missing last element; here the length is put back."""
        new_idx = len(self)
        self._size += 1
        try:
            self[new_idx] = value
        except Exception:
            self._size -= 1
            raise
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        """Append every element of the iterable ``values``."""
        # a Tensor is iterable, but unpacking it into rows is never what is meant here
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        """One line per element, ``(0): Parameter containing: [glasstorch.float32 of size 2]``:
        the dtype and shape, never the values."""
        child_lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                child_lines.append(f"  ({k}): " + _tensor_line(p, str(p.dtype)))
            else:
                child_lines.append(f"  ({k}): Object of type: " + type(p).__name__)
        return "\n".join(child_lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Holds parameters in a dict, in insertion order; each key is the attribute name, so it
    must be a string. Assigning a plain Tensor wraps it in a Parameter.

    ``update`` (and the constructor) with a plain ``dict`` adds its items in *sorted key order*,
    as PyTorch does; an ``OrderedDict``, a ParameterDict or a sequence of pairs keeps its order."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}  # the dict's keys, in order (the values are attributes)
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: str) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                            "non-string keys.")
        return key  # the key itself, so that named_parameters() shows it

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` (a Tensor becomes a Parameter).

        PyTorch records the key before setting the attribute, so a refused key (not a string, or
        containing ``"."``) stays behind in ``keys()``; here it is recorded only once accepted."""
        # every way of adding an entry ends here, so this is the one place that wraps tensors
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def copy(self) -> "ParameterDict":
        """A new ParameterDict holding the same objects (an OrderedDict keeps the order: a plain
        dict would be sorted by ``update``)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, after storing ``default`` there if the key is missing."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry."""
        for k in self._keys.copy():
            del self[k]

    def pop(self, key: str) -> Any:
        """Remove ``key`` and return its value."""
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last inserted ``(key, value)`` pair."""
        k, _ = self._keys.popitem()  # empty: dict's "popitem(): dictionary is empty" KeyError
        self._keys[k] = None  # back in, for a moment: self[k] and del self[k] look it up
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> "ParameterDict":
        """A new ParameterDict with ``default`` under every key of ``keys``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> container_abcs.KeysView:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        """Add (or replace) entries from a mapping or an iterable of ``(key, value)`` pairs; a
        plain ``dict``'s items are added in sorted key order."""
        if not isinstance(parameters, container_abcs.Iterable):
            # "ParametersDict" is PyTorch's spelling
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, container_abcs.Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                _check_pair("ParameterDict", j, p)
                self[p[0]] = p[1]

    def extra_repr(self) -> str:
        """One line per entry, ``(bias): Parameter containing: [glasstorch.FloatTensor of size 2]``.
        Unlike ParameterList, PyTorch names the legacy tensor type here, not the dtype."""
        child_lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                child_lines.append(f"  ({k}): " + _tensor_line(p, typename(p)))
            else:
                child_lines.append(f"  ({k}): Object of type: " + type(p).__name__)
        return "\n".join(child_lines)

    def __call__(self, input: Any) -> Any:  # noqa: A002 - PyTorch's name
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: "ParameterDict") -> "ParameterDict":
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: "ParameterDict") -> "ParameterDict":
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: "ParameterDict") -> "ParameterDict":
        self.update(other)
        return self
