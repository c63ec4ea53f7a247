"""Tests of the containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
(glasstorch/nn/modules/container.py, mirroring torch/nn/modules/container.py).

Two kinds of test:

* unit tests with hand-written expectations, which run everywhere;
* differential tests (marked ``torch``): each program is written once as ``def program(lib)`` and
  run with glasstorch and with real PyTorch; what they return (reprs, names, keys, values, error
  types and messages) must be equal once glasstorch's ``glasstorch.`` is read as ``torch.``.

The layers inside the containers are small modules defined here (``Affine``, ``Tag``), built the
same way on ``lib.nn.Module`` for both libraries, so the containers are tested on their own.
"""
from __future__ import annotations

import copy
import warnings
from collections import OrderedDict
from types import SimpleNamespace

import numpy as np
import pytest

import glasstorch
import glasstorch.nn as nn
from glasstorch.testing import real_torch

torch = real_torch()
needs_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)"
)


# --- the same small layers for both libraries ---------------------------------------------------
_LAYERS: dict = {}


def layers(lib) -> SimpleNamespace:
    """``Affine`` (two parameters, a buffer, an extra_repr) and ``Tag`` (no parameters), defined on
    ``lib.nn.Module``: identical source, so their reprs and names must agree between libraries."""
    if lib in _LAYERS:
        return _LAYERS[lib]

    class Affine(lib.nn.Module):
        def __init__(self, n: int = 2, scale: float = 1.0) -> None:
            super().__init__()
            self.n = n
            self.weight = lib.nn.Parameter(lib.full((n,), float(scale)))
            self.bias = lib.nn.Parameter(lib.zeros(n))
            self.register_buffer("calls", lib.zeros(1))

        def extra_repr(self) -> str:
            return f"n={self.n}"

        def forward(self, x):
            return x * self.weight + self.bias

    class Tag(lib.nn.Module):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def extra_repr(self) -> str:
            return self.name

        def forward(self, x):
            return x + 1

    class BlankLines(lib.nn.Module):
        def extra_repr(self) -> str:
            return "a\n\nb"

    _LAYERS[lib] = SimpleNamespace(Affine=Affine, Tag=Tag, BlankLines=BlankLines)
    return _LAYERS[lib]


L = layers(glasstorch)


def outcome(fn):
    """``("ok", what fn returned)`` or ``(exception type name, message)``: errors as data."""
    try:
        return "ok", fn()
    except Exception as error:  # noqa: BLE001 - the exception is what we compare
        return type(error).__name__, str(error)


def error_of(fn) -> tuple[str, str]:
    kind, message = outcome(fn)
    assert kind != "ok", f"expected an error, got {message!r}"
    return kind, message


def summary(module) -> dict:
    """What a container looks like from outside: its repr and the names Module's traversals give."""
    return {
        "repr": repr(module),
        "modules": [name for name, _ in module.named_modules()],
        "parameters": [name for name, _ in module.named_parameters()],
        "state_dict": list(module.state_dict().keys()),
        "len": len(module) if hasattr(type(module), "__len__") else None,
    }


# =================================================================================================
# unit tests: hand-written expectations
# =================================================================================================
class TestSequential:
    def test_keys_from_positions_and_from_ordered_dict(self):
        assert list(nn.Sequential(L.Tag("a"), L.Tag("b"))._modules) == ["0", "1"]
        named = nn.Sequential(OrderedDict(first=L.Tag("a"), second=L.Tag("b")))
        assert list(named._modules) == ["first", "second"]
        assert named.first.name == "a"

    def test_a_plain_dict_is_not_taken_for_named_modules(self):
        # like PyTorch, only an OrderedDict is unpacked; a dict is "a module" and refused
        with pytest.raises(TypeError, match="dict is not a Module subclass"):
            nn.Sequential({"a": L.Tag("a")})

    def test_forward_chains_the_modules(self):
        seq = nn.Sequential(L.Affine(2, 3.0), L.Tag("plus one"), L.Affine(2, 2.0))
        assert seq(glasstorch.tensor([1.0, 2.0])).tolist() == [8.0, 14.0]

    def test_empty_sequential_returns_its_input(self):
        x = glasstorch.tensor([1.0])
        assert nn.Sequential()(x) is x

    def test_int_and_negative_indexing(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        seq = nn.Sequential(a, b, c)
        assert seq[0] is a and seq[2] is c and seq[-1] is c and seq[-3] is a

    def test_index_out_of_range(self):
        seq = nn.Sequential(L.Tag("a"), L.Tag("b"))
        with pytest.raises(IndexError, match="^index 2 is out of range$"):
            seq[2]
        with pytest.raises(IndexError, match="^index -3 is out of range$"):
            seq[-3]

    def test_index_of_the_wrong_type(self):
        with pytest.raises(TypeError, match="'str' object cannot be interpreted as an integer"):
            nn.Sequential(L.Tag("a"))["a"]

    def test_slice_keeps_keys_and_module_objects(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        part = nn.Sequential(a, b, c)[1:]
        assert type(part) is nn.Sequential
        assert list(part._modules) == ["1", "2"]  # not renumbered, as in PyTorch
        assert part[0] is b and part[1] is c

    def test_slice_of_a_subclass_is_that_subclass(self):
        class MySequential(nn.Sequential):
            pass

        assert type(MySequential(L.Tag("a"), L.Tag("b"))[::2]) is MySequential

    def test_setitem_replaces_and_registers(self):
        seq = nn.Sequential(L.Tag("a"), L.Tag("b"))
        new = L.Affine()
        seq[-1] = new
        assert seq[1] is new and [n for n, _ in seq.named_parameters()] == ["1.weight", "1.bias"]
        with pytest.raises(IndexError, match="index 2 is out of range"):
            seq[2] = L.Tag("c")

    def test_setitem_of_a_non_module_is_refused(self):
        seq = nn.Sequential(L.Tag("a"))
        with pytest.raises(TypeError, match="cannot assign 'int' as child module '0'"):
            seq[0] = 5

    def test_delitem_renumbers_even_named_keys(self):
        seq = nn.Sequential(OrderedDict(a=L.Tag("a"), b=L.Tag("b"), c=L.Tag("c")))
        del seq[0]
        assert list(seq._modules) == ["0", "1"] and seq[0].name == "b"

    def test_delitem_slice_and_negative(self):
        seq = nn.Sequential(*(L.Tag(str(i)) for i in range(5)))
        del seq[1:4]
        assert [m.name for m in seq] == ["0", "4"] and list(seq._modules) == ["0", "1"]
        del seq[-1]
        assert [m.name for m in seq] == ["0"]
        with pytest.raises(IndexError, match="index 1 is out of range"):
            del seq[1]

    def test_len_and_iter(self):
        mods = [L.Tag("a"), L.Tag("b")]
        seq = nn.Sequential(*mods)
        assert len(seq) == 2 and list(seq) == mods

    def test_append_insert_extend_return_self(self):
        seq = nn.Sequential(L.Tag("a"))
        assert seq.append(L.Tag("b")) is seq
        assert seq.insert(0, L.Tag("first")) is seq
        assert seq.insert(-1, L.Tag("before last")) is seq
        assert seq.insert(len(seq), L.Tag("end")) is seq
        assert seq.extend([L.Tag("x"), L.Tag("y")]) is seq
        assert [m.name for m in seq] == ["first", "a", "before last", "b", "end", "x", "y"]
        assert list(seq._modules) == [str(i) for i in range(7)]

    def test_insert_errors(self):
        seq = nn.Sequential(L.Tag("a"))
        with pytest.raises(IndexError, match="^Index out of range: 2$"):
            seq.insert(2, L.Tag("b"))
        with pytest.raises(IndexError, match="^Index out of range: -2$"):
            seq.insert(-2, L.Tag("b"))
        with pytest.raises(AssertionError, match="module should be of type"):
            seq.insert(0, "not a module")

    def test_pop_int_and_slice(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        seq = nn.Sequential(a, b, c)
        assert seq.pop(1) is b
        assert list(seq) == [a, c]
        popped = seq.pop(slice(0, 1))
        assert isinstance(popped, nn.Sequential) and list(popped) == [a] and list(seq) == [c]

    def test_add_and_iadd(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        left, right = nn.Sequential(a, b), nn.Sequential(c)
        both = left + right
        assert list(both) == [a, b, c] and list(both._modules) == ["0", "1", "2"] and len(left) == 2
        left += right
        assert list(left) == [a, b, c]

    def test_add_needs_a_sequential(self):
        seq = nn.Sequential()
        with pytest.raises(ValueError, match="add operator supports only objects of Sequential class, but "
                                             "<class 'list'> is given."):
            seq + []  # noqa: B018
        with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
            seq += nn.ModuleList()

    def test_mul_repeats_the_same_objects(self):
        a, b = L.Tag("a"), L.Tag("b")
        seq = nn.Sequential(a, b)
        for tripled in (seq * 3, 3 * seq):
            assert list(tripled) == [a, b] * 3 and list(tripled._modules) == [str(i) for i in range(6)]
        assert len(seq) == 2
        seq *= 2
        assert list(seq) == [a, b, a, b]
        # shared modules appear once in the traversal
        assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]

    def test_mul_errors(self):
        seq = nn.Sequential(L.Tag("a"))
        with pytest.raises(TypeError, match="unsupported operand type"):
            seq * 2.0  # noqa: B018
        with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
            seq * 0  # noqa: B018
        with pytest.raises(ValueError, match="Non-positive multiplication factor -1"):
            seq *= -1

    def test_imul_of_a_named_sequential_fails_like_pytorch(self):
        seq = nn.Sequential(OrderedDict(a=L.Tag("a")))
        with pytest.raises(KeyError, match="'0'"):
            seq *= 2

    def test_dir_hides_numeric_keys_but_shows_names(self):
        assert "0" not in dir(nn.Sequential(L.Tag("a")))
        assert "conv" in dir(nn.Sequential(OrderedDict(conv=L.Tag("a"))))
        assert "append" in dir(nn.Sequential())

    def test_repr(self):
        seq = nn.Sequential(L.Affine(3), nn.Sequential(L.Tag("inner")))
        assert repr(seq) == ("Sequential(\n  (0): Affine(n=3)\n  (1): Sequential(\n    (0): Tag(inner)\n  )\n)")
        assert repr(nn.Sequential()) == "Sequential()"

    def test_module_machinery_sees_the_children(self):
        seq = nn.Sequential(L.Affine(2), L.Tag("t"), L.Affine(3))
        assert list(seq.state_dict()) == ["0.weight", "0.bias", "0.calls", "2.weight", "2.bias", "2.calls"]
        seq.double()
        assert seq[2].weight.dtype == glasstorch.float64
        seq.eval()
        assert not any(m.training for m in seq.modules())


class TestModuleList:
    def test_construction(self):
        mods = [L.Tag("a"), L.Tag("b")]
        ml = nn.ModuleList(mods)
        assert list(ml) == mods and list(ml._modules) == ["0", "1"] and len(ml) == 2
        assert len(nn.ModuleList()) == 0
        assert list(nn.ModuleList(m for m in mods)) == mods  # any iterable

    def test_construction_errors(self):
        with pytest.raises(TypeError, match="^ModuleList.extend should be called with an iterable, but got int$"):
            nn.ModuleList(5)
        with pytest.raises(TypeError, match="^int is not a Module subclass$"):
            nn.ModuleList([5])

    def test_indexing(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        ml = nn.ModuleList([a, b, c])
        assert ml[0] is a and ml[-1] is c and ml[-3] is a
        with pytest.raises(IndexError, match="^index 3 is out of range$"):
            ml[3]
        with pytest.raises(IndexError, match="^index -4 is out of range$"):
            ml[-4]
        with pytest.raises(TypeError, match="'str' object cannot be interpreted as an integer"):
            ml["0"]
        with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
            ml[1.0]

    def test_slice_is_renumbered(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        part = nn.ModuleList([a, b, c])[1:]
        assert type(part) is nn.ModuleList and list(part) == [b, c] and list(part._modules) == ["0", "1"]

    def test_setitem(self):
        ml = nn.ModuleList([L.Tag("a"), L.Tag("b")])
        new = L.Tag("new")
        ml[-2] = new
        assert ml[0] is new
        with pytest.raises(IndexError, match="index 2 is out of range"):
            ml[2] = new

    def test_delitem_renumbers(self):
        ml = nn.ModuleList([L.Tag(str(i)) for i in range(6)])
        del ml[1]
        del ml[-1]
        assert [m.name for m in ml] == ["0", "2", "3", "4"] and list(ml._modules) == ["0", "1", "2", "3"]
        del ml[::2]
        assert [m.name for m in ml] == ["2", "4"] and list(ml._modules) == ["0", "1"]

    def test_append_extend_iadd_add(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        ml = nn.ModuleList()
        assert ml.append(a) is ml
        assert ml.extend([b]) is ml
        ml += [c]
        assert list(ml) == [a, b, c]
        combined = ml + [a]
        assert type(combined) is nn.ModuleList and list(combined) == [a, b, c, a] and len(ml) == 3
        with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got Tag"):
            ml.extend(a)

    def test_add_of_a_subclass_is_a_plain_module_list(self):
        class MyList(nn.ModuleList):
            pass

        assert type(MyList() + MyList()) is nn.ModuleList

    def test_insert(self):
        ml = nn.ModuleList([L.Tag("a"), L.Tag("b")])
        assert ml.insert(1, L.Tag("mid")) is None
        ml.insert(0, L.Tag("first"))
        ml.insert(4, L.Tag("last"))
        assert [m.name for m in ml] == ["first", "a", "mid", "b", "last"]
        assert list(ml._modules) == ["0", "1", "2", "3", "4"]

    def test_insert_refuses_bad_indices_before_changing_anything(self):
        # PyTorch raises KeyError: '-1' only after shifting (and duplicating) the modules
        ml = nn.ModuleList([L.Tag("a"), L.Tag("b")])
        with pytest.raises(KeyError, match="-1"):
            ml.insert(-1, L.Tag("x"))
        with pytest.raises(IndexError, match="index 3 is out of range"):
            ml.insert(3, L.Tag("x"))
        assert [m.name for m in ml] == ["a", "b"] and list(ml._modules) == ["0", "1"]

    def test_pop(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        ml = nn.ModuleList([a, b, c])
        assert ml.pop(0) is a and list(ml) == [b, c] and list(ml._modules) == ["0", "1"]
        assert list(ml.pop(slice(None))) == [b, c] and len(ml) == 0
        with pytest.raises(IndexError, match="index 0 is out of range"):
            ml.pop(0)

    def test_compact_repr_groups_runs_of_equal_reprs(self):
        ml = nn.ModuleList([L.Affine(1), L.Affine(1), L.Affine(2), L.Affine(1), L.Affine(1), L.Affine(1)])
        assert repr(ml) == ("ModuleList(\n  (0-1): 2 x Affine(n=1)\n  (2): Affine(n=2)\n"
                            "  (3-5): 3 x Affine(n=1)\n)")
        assert repr(nn.ModuleList()) == "ModuleList()"

    def test_compact_repr_of_multi_line_children(self):
        ml = nn.ModuleList([nn.Sequential(L.Tag("t")), nn.Sequential(L.Tag("t"))])
        assert repr(ml) == "ModuleList(\n  (0-1): 2 x Sequential(\n    (0): Tag(t)\n  )\n)"

    def test_repr_indents_blank_lines_as_pytorch_does(self):
        # container.py's own _addindent, unlike module.py's, indents blank lines too
        assert repr(nn.ModuleList([L.BlankLines()])) == "ModuleList(\n  (0): BlankLines(\n    a\n    \n    b\n  )\n)"
        assert repr(nn.Sequential(L.BlankLines())) == "Sequential(\n  (0): BlankLines(\n    a\n\n    b\n  )\n)"

    def test_has_no_forward(self):
        with pytest.raises(NotImplementedError, match=r'Module \[ModuleList\] is missing the required "forward"'):
            nn.ModuleList([L.Tag("a")])(glasstorch.ones(1))

    def test_dir_hides_numeric_keys(self):
        assert "0" not in dir(nn.ModuleList([L.Tag("a")])) and "append" in dir(nn.ModuleList())

    def test_registered_inside_a_model(self):
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([L.Affine(2) for _ in range(2)])

        names = [n for n, _ in Model().named_parameters()]
        assert names == ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias"]


class TestModuleDict:
    def test_construction_keeps_order(self):
        a, b = L.Tag("a"), L.Tag("b")
        for source in ({"z": a, "y": b}, OrderedDict(z=a, y=b), [("z", a), ("y", b)], [["z", a], ["y", b]],
                       nn.ModuleDict({"z": a, "y": b})):
            md = nn.ModuleDict(source)
            assert list(md.keys()) == ["z", "y"] and md["z"] is a and md["y"] is b

    def test_dict_api(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        md = nn.ModuleDict({"a": a, "b": b})
        md["c"] = c
        assert len(md) == 3 and list(md) == ["a", "b", "c"] and "c" in md and "d" not in md
        assert list(md.values()) == [a, b, c] and list(md.items()) == [("a", a), ("b", b), ("c", c)]
        md["a"] = c  # replacing keeps the position
        assert list(md) == ["a", "b", "c"] and md["a"] is c
        assert md.pop("b") is b and list(md) == ["a", "c"]
        del md["a"]
        assert list(md) == ["c"] and md.c is c
        md.clear()
        assert len(md) == 0 and list(md.named_modules()) == [("", md)]

    def test_update_overwrites_and_appends(self):
        a, b, c = L.Tag("a"), L.Tag("b"), L.Tag("c")
        md = nn.ModuleDict({"a": a, "b": b})
        assert md.update([("b", c), ("new", a)]) is None
        assert list(md.items()) == [("a", a), ("b", c), ("new", a)]

    def test_missing_key(self):
        md = nn.ModuleDict()
        with pytest.raises(KeyError, match="'nope'"):
            md["nope"]
        with pytest.raises(KeyError, match="'nope'"):
            del md["nope"]
        with pytest.raises(KeyError, match="'nope'"):
            md.pop("nope")

    def test_update_errors(self):
        md = nn.ModuleDict()
        with pytest.raises(TypeError, match="^ModuleDict.update should be called with an iterable of key/value "
                                            "pairs, but got int$"):
            md.update(5)
        with pytest.raises(TypeError, match="^ModuleDict update sequence element #1 should be Iterable; isint$"):
            md.update([("a", L.Tag("a")), 5])
        with pytest.raises(ValueError, match="^ModuleDict update sequence element #0 has length 3; 2 is required$"):
            md.update([("a", L.Tag("a"), "extra")])

    def test_key_and_value_errors(self):
        md = nn.ModuleDict()
        with pytest.raises(KeyError, match='module name can.*t contain ".", got: a.b'):
            md["a.b"] = L.Tag("a")
        with pytest.raises(KeyError, match="module name can.*t be empty string"):
            md[""] = L.Tag("a")
        with pytest.raises(TypeError, match="module name should be a string. Got int"):
            md[1] = L.Tag("a")
        with pytest.raises(TypeError, match="int is not a Module subclass"):
            md["a"] = 1
        with pytest.raises(KeyError, match="attribute 'training' already exists"):
            md["training"] = L.Tag("a")
        assert len(md) == 0

    def test_has_no_forward(self):
        with pytest.raises(NotImplementedError, match=r'Module \[ModuleDict\] is missing the required "forward"'):
            nn.ModuleDict()(1)

    def test_state_dict_and_repr(self):
        md = nn.ModuleDict({"enc": L.Affine(2), "act": L.Tag("relu")})
        assert list(md.state_dict()) == ["enc.weight", "enc.bias", "enc.calls"]
        assert repr(md) == "ModuleDict(\n  (enc): Affine(n=2)\n  (act): Tag(relu)\n)"


class TestParameterList:
    def test_tensors_become_parameters(self):
        t = glasstorch.ones(2)
        p = nn.Parameter(glasstorch.zeros(3))
        pl = nn.ParameterList([t, p])
        assert isinstance(pl[0], nn.Parameter) and pl[0].requires_grad and pl[1] is p
        assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
        with glasstorch.no_grad():
            t.add_(1.0)  # the Parameter shares the tensor's memory, as in PyTorch
        assert pl[0].tolist() == [2.0, 2.0]

    def test_other_objects_are_kept_as_they_are(self):
        tag = L.Tag("t")
        pl = nn.ParameterList(["text", None, tag])
        assert pl[0] == "text" and pl[1] is None and pl[2] is tag
        assert list(pl.named_parameters()) == [] and [n for n, _ in pl.named_modules()] == ["", "2"]

    def test_len_iter_append_extend_iadd(self):
        pl = nn.ParameterList()
        assert len(pl) == 0
        assert pl.append(glasstorch.ones(1)) is pl
        assert pl.extend([glasstorch.ones(2)]) is pl
        pl += (glasstorch.ones(3),)
        assert [p.shape[0] for p in pl] == [1, 2, 3] and len(pl) == 3

    def test_extend_errors(self):
        pl = nn.ParameterList()
        with pytest.raises(TypeError, match="^ParameterList.extend should be called with an iterable, but got int$"):
            pl.extend(5)
        with pytest.raises(TypeError, match="but got Tensor$"):
            pl.extend(glasstorch.ones(3))  # a tensor is iterable, but never unpacked here

    def test_indexing(self):
        pl = nn.ParameterList([glasstorch.ones(1), glasstorch.ones(2), glasstorch.ones(3)])
        assert pl[-1] is pl[2] and pl[-3] is pl[0]
        with pytest.raises(IndexError, match="^index 3 is out of range$"):
            pl[3]
        with pytest.raises(TypeError, match="'str' object cannot be interpreted as an integer"):
            pl["0"]

    def test_slice_holds_the_same_parameters(self):
        pl = nn.ParameterList([glasstorch.ones(1), glasstorch.ones(2), glasstorch.ones(3)])
        part = pl[::2]
        assert type(part) is nn.ParameterList and len(part) == 2 and part[0] is pl[0] and part[1] is pl[2]

    def test_setitem_wraps_and_replaces(self):
        pl = nn.ParameterList([glasstorch.ones(1)])
        pl[0] = glasstorch.zeros(2)
        assert isinstance(pl[0], nn.Parameter) and pl[0].tolist() == [0.0, 0.0]
        with pytest.raises(TypeError, match=r"cannot assign 'str' as parameter '0' \(torch.nn.Parameter or None"):
            pl[0] = "not a tensor"  # a registered parameter's name takes only a Parameter or None
        pl[-1] = None
        assert pl[0] is None and list(pl.named_parameters()) == []
        with pytest.raises(IndexError, match="index 1 is out of range"):
            pl[1] = glasstorch.ones(1)

    def test_a_refused_value_leaves_the_list_unchanged(self):
        # PyTorch's append grows the length first and leaves it grown when Parameter() refuses
        pl = nn.ParameterList([glasstorch.ones(1)])
        with pytest.raises(RuntimeError, match="(?i)only Tensors of floating point"):
            pl.append(glasstorch.ones(2, dtype=glasstorch.int64))
        assert len(pl) == 1 and len(list(pl)) == 1

    def test_extra_repr_prints_dtype_and_shape(self):
        pl = nn.ParameterList([glasstorch.ones(2), glasstorch.ones(2, 3).double(), "x", None])
        assert repr(pl) == ("ParameterList(\n"
                            "    (0): Parameter containing: [glasstorch.float32 of size 2]\n"
                            "    (1): Parameter containing: [glasstorch.float64 of size 2x3]\n"
                            "    (2): Object of type: str\n"
                            "    (3): Object of type: NoneType\n)")
        assert repr(nn.ParameterList()) == "ParameterList()"
        assert "[glasstorch.float32 of size ]" in repr(nn.ParameterList([glasstorch.tensor(1.0)]))

    def test_cannot_be_called(self):
        with pytest.raises(RuntimeError, match="^ParameterList should not be called.$"):
            nn.ParameterList()(1)

    def test_dir_hides_numeric_names(self):
        assert "0" not in dir(nn.ParameterList([glasstorch.ones(1)]))

    def test_conversion_and_state_dict(self):
        pl = nn.ParameterList([glasstorch.ones(2)])
        param = pl[0]
        pl.double()
        assert pl[0] is param and pl[0].dtype == glasstorch.float64
        assert list(pl.state_dict()) == ["0"]


class TestParameterDict:
    def test_plain_dict_is_sorted_ordered_dict_is_not(self):
        t = glasstorch.ones(1)
        assert list(nn.ParameterDict({"b": t, "a": t})) == ["a", "b"]
        assert list(nn.ParameterDict(OrderedDict(b=t, a=t))) == ["b", "a"]
        assert list(nn.ParameterDict([("b", t), ("a", t)])) == ["b", "a"]

    def test_tensors_become_parameters(self):
        pd = nn.ParameterDict({"w": glasstorch.ones(2), "note": "text"})
        assert isinstance(pd["w"], nn.Parameter) and pd["note"] == "text"
        assert [n for n, _ in pd.named_parameters()] == ["w"] and list(pd.state_dict()) == ["w"]

    def test_dict_api(self):
        pd = nn.ParameterDict()
        pd["a"] = glasstorch.ones(1)
        pd["b"] = glasstorch.ones(2)
        assert len(pd) == 2 and "a" in pd and "z" not in pd
        assert list(pd.keys()) == ["a", "b"] and list(reversed(pd)) == ["b", "a"]
        assert [k for k, _ in pd.items()] == ["a", "b"] and [v.shape[0] for v in pd.values()] == [1, 2]
        assert pd.get("a") is pd["a"] and pd.get("z") is None and pd.get("z", 7) == 7
        b = pd["b"]
        assert pd.pop("b") is b and list(pd) == ["a"] and "b" not in dict(pd.named_parameters())
        del pd["a"]
        assert len(pd) == 0 and list(pd.parameters()) == []

    def test_setdefault(self):
        pd = nn.ParameterDict({"a": glasstorch.ones(1)})
        a = pd["a"]
        assert pd.setdefault("a", glasstorch.zeros(5)) is a
        new = pd.setdefault("b", glasstorch.zeros(2))
        assert isinstance(new, nn.Parameter) and pd["b"] is new
        assert pd.setdefault("c") is None and list(pd) == ["a", "b", "c"]

    def test_popitem_clear(self):
        pd = nn.ParameterDict(OrderedDict(a=glasstorch.ones(1), b=glasstorch.ones(2)))
        b = pd["b"]
        key, value = pd.popitem()
        assert key == "b" and value is b and list(pd) == ["a"]
        pd.clear()
        assert len(pd) == 0 and list(pd.named_parameters()) == []
        with pytest.raises(KeyError, match="dictionary is empty"):
            pd.popitem()

    def test_copy_fromkeys_and_or(self):
        pd = nn.ParameterDict(OrderedDict(b=glasstorch.ones(1), a=glasstorch.ones(2)))
        dup = pd.copy()
        assert dup is not pd and list(dup) == ["b", "a"] and dup["a"] is pd["a"]
        shared = nn.Parameter(glasstorch.zeros(1))
        fresh = pd.fromkeys(["x", "y"], shared)
        assert list(fresh) == ["x", "y"] and fresh["x"] is shared and fresh["y"] is shared
        wrapped = pd.fromkeys(["x", "y"], glasstorch.zeros(1))  # a plain tensor is wrapped once per key
        assert isinstance(wrapped["x"], nn.Parameter) and wrapped["x"] is not wrapped["y"]
        other = nn.ParameterDict({"c": glasstorch.ones(3)})
        assert list(pd | other) == ["b", "a", "c"] and list(pd) == ["b", "a"]
        assert list(other.__ror__(pd)) == ["b", "a", "c"]
        pd |= other
        assert list(pd) == ["b", "a", "c"]

    def test_key_errors(self):
        pd = nn.ParameterDict()
        with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key as it is not a "
                                            "string \\(type is 'int'\\)"):
            pd[1] = glasstorch.ones(1)
        with pytest.raises(KeyError, match='parameter name can.*t contain "."'):
            pd["a.b"] = glasstorch.ones(1)
        with pytest.raises(AttributeError, match="'ParameterDict' object has no attribute 'missing'"):
            pd["missing"]
        with pytest.raises(KeyError, match="'missing'"):
            del pd["missing"]

    def test_a_refused_key_leaves_the_dict_unchanged(self):
        # PyTorch records the key before the assignment fails, leaving a ghost key behind
        pd = nn.ParameterDict()
        for bad_key in (1, "a.b", "forward"):
            with pytest.raises((TypeError, KeyError)):
                pd[bad_key] = glasstorch.ones(1)
        assert len(pd) == 0 and list(pd.keys()) == []

    def test_update_errors(self):
        pd = nn.ParameterDict()
        with pytest.raises(TypeError, match="^ParametersDict.update should be called with an iterable of key/value "
                                            "pairs, but got int$"):
            pd.update(5)
        with pytest.raises(TypeError, match="^ParameterDict update sequence element #0 should be Iterable; isint$"):
            pd.update([5])
        with pytest.raises(ValueError, match="^ParameterDict update sequence element #0 has length 1; 2 is required$"):
            pd.update([("a",)])

    def test_extra_repr_prints_the_legacy_type_name(self):
        pd = nn.ParameterDict(OrderedDict(w=glasstorch.ones(2, 3), d=glasstorch.ones(1).double(), s="x"))
        assert repr(pd) == ("ParameterDict(\n"
                            "    (w): Parameter containing: [glasstorch.FloatTensor of size 2x3]\n"
                            "    (d): Parameter containing: [glasstorch.DoubleTensor of size 1]\n"
                            "    (s): Object of type: str\n)")

    def test_cannot_be_called(self):
        with pytest.raises(RuntimeError, match="^ParameterDict should not be called.$"):
            nn.ParameterDict()(1)


class TestTogether:
    def build(self):
        return nn.ModuleDict({
            "body": nn.Sequential(L.Affine(2, 2.0), nn.ModuleList([L.Affine(2), L.Tag("t")])),
            "extra": nn.Sequential(OrderedDict(scale=L.Affine(2, 3.0))),
        })

    def test_nested_names(self):
        model = self.build()
        assert [n for n, _ in model.named_modules()] == ["", "body", "body.0", "body.1", "body.1.0", "body.1.1",
                                                         "extra", "extra.scale"]
        assert list(model.state_dict())[:3] == ["body.0.weight", "body.0.bias", "body.0.calls"]
        assert model.get_parameter("extra.scale.weight").tolist() == [3.0, 3.0]

    def test_state_dict_round_trip(self):
        source, target = self.build(), self.build()
        with glasstorch.no_grad():
            source["body"][1][0].weight.fill_(5.0)
        result = target.load_state_dict(source.state_dict())
        assert not result.missing_keys and not result.unexpected_keys
        assert target["body"][1][0].weight.tolist() == [5.0, 5.0]

    def test_deepcopy(self):
        model = self.build()
        twin = copy.deepcopy(model)
        assert repr(twin) == repr(model) and twin["body"][0] is not model["body"][0]
        assert [n for n, _ in twin.named_parameters()] == [n for n, _ in model.named_parameters()]

    def test_gradients_flow_through_a_sequential(self):
        seq = nn.Sequential(L.Affine(2, 2.0), L.Affine(2, 3.0))
        seq(glasstorch.tensor([1.0, 2.0])).sum().backward()
        assert seq[0].weight.grad.tolist() == [3.0, 6.0] and seq[1].weight.grad.tolist() == [2.0, 4.0]

    def test_hooks_on_a_container(self):
        seq = nn.Sequential(L.Tag("a"), L.Tag("b"))
        seen = []
        seq.register_forward_hook(lambda module, args, out: seen.append(out.tolist()))
        seq[0].register_forward_pre_hook(lambda module, args: seen.append("pre"))
        seq(glasstorch.tensor([0.0]))
        assert seen == ["pre", [2.0]]


# =================================================================================================
# differential tests: the same program in glasstorch and in PyTorch
# =================================================================================================
def program_sequential_basics(lib):
    Affine, Tag = layers(lib).Affine, layers(lib).Tag
    seq = lib.nn.Sequential(Affine(2, 3.0), Tag("plus one"), lib.nn.Sequential(Affine(2, 2.0), Tag("inner")))
    named = lib.nn.Sequential(OrderedDict(first=Affine(3), second=Tag("x")))
    out = seq(lib.tensor([1.0, 2.0]))
    return {"seq": summary(seq), "named": summary(named), "out": out.tolist(), "dir": [k for k in dir(named)
                                                                                      if k in ("first", "0")]}


def program_sequential_indexing(lib):
    Tag = layers(lib).Tag
    seq = lib.nn.Sequential(*(Tag(str(i)) for i in range(5)))
    named = lib.nn.Sequential(OrderedDict(a=Tag("a"), b=Tag("b"), c=Tag("c")))
    results = {}
    for idx in (0, 4, -1, -5, 5, -6, "a", 1.5, None, slice(1, 3), slice(None, None, -2), slice(10, 20)):
        results[repr(idx)] = outcome(lambda: repr(seq[idx]))
        results["named " + repr(idx)] = outcome(lambda: (repr(named[idx]), list(named[idx]._modules)
                                                         if isinstance(idx, slice) else None))
    return results


def program_sequential_mutation(lib):
    Tag = layers(lib).Tag
    seq = lib.nn.Sequential(*(Tag(str(i)) for i in range(6)))
    steps = []

    def step(label, fn):
        steps.append((label, outcome(fn), repr(seq), list(seq._modules)))

    def assign(idx, module):
        seq[idx] = module

    def delete(idx):
        del seq[idx]

    step("set -1", lambda: assign(-1, Tag("new last")))
    step("set 9", lambda: assign(9, Tag("x")))
    step("set int", lambda: assign(0, 3))
    step("del 1", lambda: delete(1))
    step("del -1", lambda: delete(-1))
    step("del slice", lambda: delete(slice(0, 4, 2)))
    step("del 7", lambda: delete(7))
    step("append", lambda: repr(seq.append(Tag("appended"))))
    step("append int", lambda: seq.append(3))
    step("insert 0", lambda: repr(seq.insert(0, Tag("front"))))
    step("insert -1", lambda: repr(seq.insert(-1, Tag("before last"))))
    step("insert len", lambda: repr(seq.insert(len(seq), Tag("at end"))))
    step("insert 99", lambda: seq.insert(99, Tag("x")))
    step("insert -99", lambda: seq.insert(-99, Tag("x")))
    step("insert str", lambda: seq.insert(0, "x"))
    step("extend", lambda: repr(seq.extend([Tag("e1"), Tag("e2")])))
    step("pop 0", lambda: repr(seq.pop(0)))
    step("pop slice", lambda: repr(seq.pop(slice(1, 3))))
    step("pop 50", lambda: seq.pop(50))
    named = lib.nn.Sequential(OrderedDict(a=Tag("a"), b=Tag("b"), c=Tag("c")))
    del named[1]
    steps.append(("named del", repr(named), list(named._modules)))
    return steps


def program_sequential_operators(lib):
    Tag = layers(lib).Tag
    a, b, c = Tag("a"), Tag("b"), Tag("c")
    seq = lib.nn.Sequential(a, b)
    named = lib.nn.Sequential(OrderedDict(x=c))
    results = {
        "add": outcome(lambda: repr(seq + named)),
        "add keys": list((seq + named)._modules),
        "add list": outcome(lambda: seq + [c]),
        "add modulelist": outcome(lambda: seq + lib.nn.ModuleList([c])),
        "mul": outcome(lambda: summary(seq * 3)),
        "rmul": outcome(lambda: repr(2 * seq)),
        "mul float": outcome(lambda: seq * 2.0),
        "mul zero": outcome(lambda: seq * 0),
        "mul neg": outcome(lambda: -1 * seq),
        "named mul": outcome(lambda: list((named * 2)._modules)),
    }

    def iadd(left, right):
        left += right
        return repr(left), list(left._modules)

    def imul(left, factor):
        left *= factor
        return repr(left), list(left._modules)

    results["iadd"] = outcome(lambda: iadd(lib.nn.Sequential(a), named))
    results["named iadd"] = outcome(lambda: iadd(lib.nn.Sequential(OrderedDict(y=a)), seq))
    results["iadd list"] = outcome(lambda: iadd(lib.nn.Sequential(a), [b]))
    results["imul"] = outcome(lambda: imul(lib.nn.Sequential(a, b), 3))
    results["imul named"] = outcome(lambda: imul(lib.nn.Sequential(OrderedDict(y=a)), 2))
    results["imul zero"] = outcome(lambda: imul(lib.nn.Sequential(a), 0))
    return results


def program_sequential_errors(lib):
    Tag = layers(lib).Tag
    return {
        "int arg": outcome(lambda: lib.nn.Sequential(5)),
        "dict arg": outcome(lambda: lib.nn.Sequential({"a": Tag("a")})),
        "dotted name": outcome(lambda: lib.nn.Sequential(OrderedDict([("a.b", Tag("a"))]))),
        "empty name": outcome(lambda: lib.nn.Sequential(OrderedDict([("", Tag("a"))]))),
        "taken name": outcome(lambda: lib.nn.Sequential(OrderedDict([("forward", Tag("a"))]))),
        "empty forward": outcome(lambda: lib.nn.Sequential()(lib.tensor([1.0])).tolist()),
        "empty getitem": outcome(lambda: lib.nn.Sequential()[0]),
    }


def program_sequential_slice_subclass(lib):
    Tag = layers(lib).Tag

    class Stack(lib.nn.Sequential):
        pass

    stack = Stack(Tag("a"), Tag("b"), Tag("c"))
    return [type(stack[1:]).__name__, repr(stack[::2]), list(stack[::2]._modules), type(stack + stack).__name__,
            type(stack * 2).__name__]


def program_module_list(lib):
    Affine, Tag = layers(lib).Affine, layers(lib).Tag
    ml = lib.nn.ModuleList([Affine(1), Affine(1), Affine(2), Tag("t"), Tag("t"), Tag("t"), Affine(1)])
    results = {"summary": summary(ml), "empty": repr(lib.nn.ModuleList())}
    for idx in (0, -1, 6, 7, -8, "0", 1.5, slice(2, 5), slice(None, None, -3)):
        results[repr(idx)] = outcome(lambda: repr(ml[idx]))
    results["slice keys"] = list(ml[2:5]._modules)
    nested = lib.nn.ModuleList([lib.nn.Sequential(Tag("s"), Affine(2)) for _ in range(3)] + [lib.nn.ModuleList()])
    results["nested"] = repr(nested)
    results["blank lines"] = repr(lib.nn.ModuleList([layers(lib).BlankLines()] * 2))
    results["shared"] = summary(lib.nn.ModuleList([ml[0]] * 3))
    results["call"] = outcome(lambda: ml(lib.ones(1)))
    results["int arg"] = outcome(lambda: lib.nn.ModuleList(5))
    results["int item"] = outcome(lambda: lib.nn.ModuleList([Tag("a"), 5]))
    results["dir"] = [k for k in dir(ml) if k.isdigit() or k in ("append", "extend", "insert", "pop")]
    return results


def program_module_list_mutation(lib):
    Tag = layers(lib).Tag
    ml = lib.nn.ModuleList([Tag(str(i)) for i in range(6)])
    steps = []

    def step(label, fn):
        steps.append((label, outcome(fn), repr(ml), list(ml._modules)))

    def assign(idx, module):
        ml[idx] = module

    def delete(idx):
        del ml[idx]

    def iadd(modules):
        nonlocal ml
        ml += modules
        return len(ml)

    step("set -2", lambda: assign(-2, Tag("new")))
    step("set 6", lambda: assign(6, Tag("x")))
    step("set str", lambda: assign(0, "x"))
    step("del 0", lambda: delete(0))
    step("del -1", lambda: delete(-1))
    step("del slice", lambda: delete(slice(None, None, 2)))
    step("del 9", lambda: delete(9))
    step("append", lambda: repr(ml.append(Tag("app"))))
    step("extend", lambda: repr(ml.extend(Tag(str(i)) for i in range(2))))
    step("extend int", lambda: ml.extend(3))
    step("iadd", lambda: iadd([Tag("iadd")]))
    step("insert 0", lambda: ml.insert(0, Tag("front")))
    step("insert 2", lambda: ml.insert(2, Tag("middle")))
    step("insert len", lambda: ml.insert(len(ml), Tag("end")))
    step("pop 1", lambda: repr(ml.pop(1)))
    step("pop -1", lambda: repr(ml.pop(-1)))
    step("pop slice", lambda: repr(ml.pop(slice(0, 2))))
    step("pop 40", lambda: ml.pop(40))
    step("add", lambda: (repr(ml + [Tag("added")]), type(ml + ml).__name__, list((ml + ml)._modules)))
    step("add int", lambda: ml + 3)
    return steps


def program_module_dict(lib):
    Affine, Tag = layers(lib).Affine, layers(lib).Tag
    results = {}
    for label, source in (("dict", {"z": Affine(1), "a": Tag("a")}), ("ordered", OrderedDict(z=Affine(1), a=Tag("a"))),
                          ("pairs", [("z", Affine(1)), ["a", Tag("a")]])):
        md = lib.nn.ModuleDict(source)
        results[label] = summary(md)
        results[label + " copy"] = list(lib.nn.ModuleDict(md).keys())
    md = lib.nn.ModuleDict({"enc": Affine(2), "act": Tag("act")})
    md["dec"] = Affine(3)
    md["enc"] = Tag("replaced")
    results["after set"] = (summary(md), "dec" in md, "nope" in md, list(md), [type(v).__name__ for v in md.values()],
                            [k for k, _ in md.items()], len(md))
    results["pop"] = (repr(md.pop("act")), list(md.keys()))
    del md["dec"]
    results["del"] = list(md)
    results["update"] = outcome(lambda: md.update([("b", Tag("b")), ("enc", Tag("e"))]))
    results["after update"] = repr(md)
    md.clear()
    results["clear"] = summary(md)
    results["errors"] = [
        outcome(lambda: md["missing"]),
        outcome(lambda: md.pop("missing")),
        outcome(lambda: md.__delitem__("missing")),
        outcome(lambda: md.update(5)),
        outcome(lambda: md.update(None)),
        outcome(lambda: md.update([5])),
        outcome(lambda: md.update([("a",)])),
        outcome(lambda: md.update([("a", Tag("a"), Tag("b"))])),
        outcome(lambda: md.__setitem__("a.b", Tag("a"))),
        outcome(lambda: md.__setitem__("", Tag("a"))),
        outcome(lambda: md.__setitem__(3, Tag("a"))),
        outcome(lambda: md.__setitem__("a", 3)),
        outcome(lambda: md.__setitem__("training", Tag("a"))),
        outcome(lambda: md(1)),
        outcome(lambda: lib.nn.ModuleDict(5)),
    ]
    results["after errors"] = list(md)
    return results


def program_parameter_list(lib):
    Tag = layers(lib).Tag
    pl = lib.nn.ParameterList([lib.ones(2), lib.nn.Parameter(lib.zeros(3, 1)), lib.ones(2, 3).double(), "x", None,
                               Tag("mod"), lib.tensor(1.0)])
    results = {
        "summary": summary(pl),
        "kinds": [type(p).__name__ for p in pl],
        "requires_grad": [p.requires_grad for p in pl if isinstance(p, lib.Tensor)],
        "empty": repr(lib.nn.ParameterList()),
        "no grad": repr(lib.nn.ParameterList([lib.nn.Parameter(lib.ones(1), requires_grad=False)])),
        "dir": [k for k in dir(pl) if k.isdigit() or k in ("append", "extend")],
    }
    for idx in (0, -1, 6, 7, -8, "0", slice(1, 4), slice(None, None, -2)):
        results[repr(idx)] = outcome(lambda: repr(pl[idx]))
    results["slice type"] = type(pl[1:3]).__name__
    results["call"] = outcome(lambda: pl(1))
    results["int arg"] = outcome(lambda: lib.nn.ParameterList(5))
    return results


def program_parameter_list_mutation(lib):
    pl = lib.nn.ParameterList([lib.ones(1)])
    steps = []

    def step(label, fn):
        steps.append((label, outcome(fn), repr(pl), [n for n, _ in pl.named_parameters()]))

    def assign(idx, value):
        pl[idx] = value
        return type(pl[idx]).__name__

    def iadd(values):
        nonlocal pl
        pl += values
        return len(pl)

    step("append", lambda: repr(pl.append(lib.zeros(2))))
    step("extend", lambda: repr(pl.extend([lib.zeros(3), "s"])))
    step("extend int", lambda: pl.extend(3))
    step("extend tensor", lambda: pl.extend(lib.ones(3)))
    step("iadd", lambda: iadd((lib.ones(4),)))
    step("set 0 tensor", lambda: assign(0, lib.ones(5)))
    step("set -1 string", lambda: assign(-1, "str"))
    step("set 1 None", lambda: assign(1, None))
    step("set 1 param", lambda: assign(1, lib.nn.Parameter(lib.ones(6))))
    step("set 10", lambda: assign(10, lib.ones(1)))
    step("set str", lambda: assign("a", lib.ones(1)))
    return steps


def program_parameter_dict(lib):
    results = {}
    for label, source in (("dict", {"b": lib.ones(2), "a": lib.ones(2, 3).double(), "c": "x"}),
                          ("ordered", OrderedDict(b=lib.ones(2), a=lib.nn.Parameter(lib.ones(1)))),
                          ("pairs", [("b", lib.ones(2)), ["a", None]])):
        pd = lib.nn.ParameterDict(source)
        results[label] = (summary(pd), [type(v).__name__ for v in pd.values()])
    pd = lib.nn.ParameterDict(OrderedDict(w=lib.ones(2), b=lib.zeros(2)))
    pd["s"] = lib.tensor(2.0)
    pd["w"] = lib.ones(3)
    results["after set"] = (summary(pd), list(pd), list(reversed(pd)), "w" in pd, "zz" in pd, list(pd.keys()),
                            [k for k, _ in pd.items()], len(pd))
    results["get"] = (repr(pd.get("s")), pd.get("zz"), pd.get("zz", 3))
    results["setdefault"] = (repr(pd.setdefault("w", lib.ones(9))), repr(pd.setdefault("new", lib.ones(1))),
                             pd.setdefault("none"), list(pd))
    results["pop"] = (repr(pd.pop("b")), list(pd))
    results["popitem"] = (pd.popitem(), list(pd))
    del pd["new"]
    results["del"] = list(pd)
    results["copy"] = summary(pd.copy())
    results["fromkeys"] = summary(pd.fromkeys(["x", "y"], lib.ones(1)))
    other = lib.nn.ParameterDict({"o": lib.ones(4)})
    results["or"] = (repr(pd | other), repr(other.__ror__(pd)))
    pd |= other
    results["ior"] = repr(pd)
    pd.update({"z": lib.ones(1), "m": lib.ones(1)})
    results["update dict sorted"] = list(pd)
    pd.clear()
    results["clear"] = summary(pd)
    return results


def program_parameter_dict_errors(lib):
    pd = lib.nn.ParameterDict({"a": lib.ones(1)})
    return [
        outcome(lambda: pd["missing"]),
        outcome(lambda: pd[1]),
        outcome(lambda: pd.__delitem__("missing")),
        outcome(lambda: pd.pop("missing")),
        outcome(lambda: pd.update(5)),
        outcome(lambda: pd.update([5])),
        outcome(lambda: pd.update([("a", lib.ones(1), 1)])),
        outcome(lambda: pd.__setitem__(1, lib.ones(1))),
        outcome(lambda: pd.__setitem__("a.b", lib.ones(1))),
        outcome(lambda: pd.__setitem__("training", lib.ones(1))),
        outcome(lambda: pd(1)),
        outcome(lambda: lib.nn.ParameterDict().popitem()),
        outcome(lambda: lib.nn.ParameterDict(5)),
        outcome(lambda: pd.__setitem__("int", lib.ones(1, dtype=lib.int64))),
    ]


def program_containers_in_a_model(lib):
    Affine, Tag = layers(lib).Affine, layers(lib).Tag

    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = lib.nn.Sequential(OrderedDict(scale=Affine(2, 2.0), tag=Tag("stem")))
            self.blocks = lib.nn.ModuleList([Affine(2, 0.5) for _ in range(2)])
            self.heads = lib.nn.ModuleDict({"left": Affine(2), "right": Affine(2, -1.0)})
            self.extras = lib.nn.ParameterList([lib.ones(2)])
            self.table = lib.nn.ParameterDict({"t": lib.ones(1)})

        def forward(self, x):
            x = self.stem(x)
            for block in self.blocks:
                x = block(x)
            return self.heads["left"](x) + self.heads["right"](x) * self.extras[0] + self.table["t"]

    model = Model()
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out = model(x)
    out.sum().backward()
    model.eval()
    return {
        "summary": summary(model),
        "buffers": [n for n, _ in model.named_buffers()],
        "children": [n for n, _ in model.named_children()],
        "out": out.tolist(),
        "grads": {n: p.grad.tolist() for n, p in model.named_parameters()},
        "x grad": x.grad.tolist(),
        "training": [m.training for m in model.modules()],
        "get": repr(model.get_submodule("heads.right")),
    }


def program_linear_layers(lib):
    """With the library's own Linear and ReLU (when they exist), weights set from numpy."""
    seq = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
    rng = np.random.default_rng(0)
    state = {k: lib.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32)) for k, v in seq.state_dict().items()}
    seq.load_state_dict(state)
    out = seq(lib.tensor([[0.5, -1.0], [2.0, 0.25]]))
    return {
        "summary": summary(seq),
        "out": np.round(np.array(out.tolist()), 5).tolist(),
        "list": repr(lib.nn.ModuleList([lib.nn.Linear(2, 2) for _ in range(3)] + [lib.nn.ReLU()])),
        "slice": repr(seq[:2]),
    }


PROGRAMS = [
    program_sequential_basics, program_sequential_indexing, program_sequential_mutation,
    program_sequential_operators, program_sequential_errors, program_sequential_slice_subclass,
    program_module_list, program_module_list_mutation, program_module_dict,
    program_parameter_list, program_parameter_list_mutation, program_parameter_dict,
    program_parameter_dict_errors, program_containers_in_a_model,
]
if hasattr(nn, "Linear") and hasattr(nn, "ReLU"):
    PROGRAMS.append(program_linear_layers)


def run(program, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return outcome(lambda: program(lib))


def as_torch(value):
    """A result in PyTorch's spelling: ``glasstorch.float32`` -> ``torch.float32``. Applied to both
    results, because some glasstorch messages keep PyTorch's ``torch.nn.Parameter`` (its key phrase)."""
    if isinstance(value, str):
        return value.replace("glasstorch.", "torch.")
    if isinstance(value, (list, tuple)):
        return type(value)(as_torch(v) for v in value)
    if isinstance(value, dict):
        return {as_torch(k): as_torch(v) for k, v in value.items()}
    return value


def first_difference(got, want, where="result"):
    """The path to the first place where two results differ, for a readable failure."""
    if isinstance(got, dict) and isinstance(want, dict) and got.keys() == want.keys():
        for key in want:
            found = first_difference(got[key], want[key], f"{where}[{key!r}]")
            if found:
                return found
    elif isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)) and len(got) == len(want):
        for i, (g, w) in enumerate(zip(got, want)):
            found = first_difference(g, w, f"{where}[{i}]")
            if found:
                return found
    if got != want:
        return f"{where}:\n  glasstorch: {got!r}\n  torch:      {want!r}"
    return None


# Where glasstorch deliberately differs (container.py's docstring says so): the error message, with
# the same exception type. Keyed by (program, label); each entry is checked, not skipped.
DOCUMENTED_MESSAGE_DIFFERENCES: dict = {}  # none at present


@pytest.mark.torch
@needs_torch
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__.removeprefix("program_"))
def test_same_as_pytorch(program):
    got_kind, got = run(program, glasstorch)
    want_kind, want = run(program, torch)
    assert want_kind == "ok", f"the program fails in real PyTorch: {want_kind}: {want}"
    assert got_kind == "ok", f"the program fails in glasstorch: {got_kind}: {got}"
    assert want, "the program returned nothing to compare"
    got, want = as_torch(got), as_torch(want)
    for (name, index), how in DOCUMENTED_MESSAGE_DIFFERENCES.items():
        if name == program.__name__:
            assert how == "case" and got[index][0] == want[index][0]
            assert got[index][1].lower() == want[index][1].lower() and got[index][1] != want[index][1]
            got, want = list(got), list(want)
            got[index] = want[index] = "compared above"
    assert got == want, first_difference(got, want)


@pytest.mark.torch
@needs_torch
def test_module_list_insert_differs_from_pytorch_only_where_pytorch_corrupts_the_list():
    """The documented difference: PyTorch's ModuleList.insert(-1, m) raises KeyError only after
    shifting the modules; glasstorch raises the same exception type and leaves the list as it was."""
    results = {}
    for lib in (glasstorch, torch):
        Tag = layers(lib).Tag
        ml = lib.nn.ModuleList([Tag("a"), Tag("b")])
        kind, _message = outcome(lambda: ml.insert(-1, Tag("x")))
        results[lib.__name__] = (kind, [m.name for m in ml])
    assert results["glasstorch"] == ("KeyError", ["a", "b"])
    assert results["torch"][0] == "KeyError" and results["torch"][1] != ["a", "b"]


@pytest.mark.torch
@needs_torch
def test_refused_parameter_dict_key_is_recorded_by_pytorch_only():
    """The documented difference: PyTorch keeps a refused key in ``keys()``; glasstorch does not."""
    lengths = {}
    for lib in (glasstorch, torch):
        pd = lib.nn.ParameterDict()
        kind, message = outcome(lambda: pd.__setitem__("a.b", lib.ones(1)))
        lengths[lib.__name__] = (kind, message, len(pd))
    assert lengths["glasstorch"] == ("KeyError", lengths["torch"][1], 0)
    assert lengths["torch"][2] == 1
