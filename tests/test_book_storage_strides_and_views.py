"""Chapter 02 (storage, strides and views) against PyTorch 2.13: every behaviour the chapter shows,
run in glasstorch and in torch, must match. Errors are compared by their messages, with the
library's name ("glasstorch."/"torch.") made the same. The chapter's pictures are drawn from
both libraries' tensors and must give the same DOT text."""
from __future__ import annotations

from typing import Any, Callable

import pytest

import glasstorch as gt
from glasstorch.viz import draw_storage

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0): the chapter's "
                                            "behaviours are compared with it")


def outcome(action: Callable[[], Any]) -> Any:
    """What ``action()`` returns, or its error as (type, message) with the library's name removed."""
    try:
        return action()
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).replace("glasstorch.", "").replace("torch.", "")


def geometry(t: Any) -> tuple:
    return tuple(t.shape), t.stride(), t.storage_offset()


def matrix(lib: Any) -> Any:
    return lib.tensor([[0., 1., 2., 3.], [4., 5., 6., 7.], [8., 9., 10., 11.]])


def section_1(lib: Any) -> dict:
    x = matrix(lib)
    return {"geometry": geometry(x), "nbytes": x.untyped_storage().nbytes(), "element_size": x.element_size(),
            "x[2, 1]": x[2, 1].item(), "new (2, 3, 4) strides": lib.zeros(2, 3, 4).stride()}


def section_2(lib: Any) -> dict:
    x = matrix(lib)
    row, col, xt = x[1], x[:, 1], x.t()
    facts = {name: geometry(t) for name, t in {"x[1]": row, "x[:, 1]": col, "x.t()": xt}.items()}
    facts["x.t() shares the storage"] = xt.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    facts["x[1] bytes after x"] = row.data_ptr() - x.data_ptr()
    facts["clone shares the storage"] = x.clone().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    row[0] = 100.
    facts["x after row[0] = 100"] = x.tolist()
    facts["row._is_view(), row._base is x"] = (row._is_view(), row._base is x)
    facts["x._is_view(), x._base"] = (x._is_view(), x._base)
    xt = x.t()
    z = xt[0]
    facts["z._base is x.t(), z._base is x"] = (z._base is xt, z._base is x)
    return facts


def section_3(lib: Any) -> dict:
    x = lib.arange(12.).view(3, 4)
    c = lib.arange(12.).view(2, 3, 2)
    s = lib.arange(8.)
    v = lib.tensor([1., 2., 3.])
    e = v.expand(4, 3)
    facts = {
        "permute, transpose": (c.stride(), c.permute(2, 0, 1).stride(), c.transpose(0, 2).stride()),
        "narrow": geometry(x.narrow(1, 1, 2)),
        "diagonal": (geometry(x.diagonal()), x.diagonal().tolist()),
        "unfold": (s.unfold(0, 4, 2).tolist(), s.unfold(0, 4, 2).stride()),
        "expand": (e.tolist(), e.stride(), e.numel(), e.untyped_storage().nbytes()),
        "expand add_": outcome(lambda: e.add_(1)),
        "as_strided = t": lib.equal(x.as_strided((4, 3), (1, 4)), x.t()),
        "as_strided = unfold": lib.equal(s.as_strided((3, 4), (2, 1)), s.unfold(0, 4, 2)),
        "as_strided = expand": lib.equal(v.as_strided((4, 3), (0, 1)), v.expand(4, 3)),
        "x[[0, 2]]._is_view()": x[[0, 2]]._is_view(),
        "x[0:3:2]": (x[0:3:2]._is_view(), x[0:3:2].stride()),
    }
    return facts


def section_4(lib: Any) -> dict:
    x = lib.arange(12.).view(3, 4)
    facts = {name: (t.stride(), t.is_contiguous())
             for name, t in {"x": x, "x.t()": x.t(), "x[:2]": x[:2], "x[:, :2]": x[:, :2]}.items()}
    facts["x.t().view(-1)"] = outcome(lambda: x.t().view(-1))
    flat = x.t().reshape(-1)
    facts["x.t().reshape(-1)"] = (flat.tolist(), flat._is_view(),
                                  flat.untyped_storage().data_ptr() != x.untyped_storage().data_ptr())
    facts["x.reshape(2, 6)._is_view()"] = x.reshape(2, 6)._is_view()
    tc = x.t().contiguous()
    facts["contiguous"] = (tc.stride(), tc._is_view(), x.contiguous() is x, tc.view(-1).tolist())
    facts["x[:2].view(-1)"] = outcome(lambda: x[:2].view(-1).tolist())
    facts["x[:, :2].view(-1)"] = outcome(lambda: x[:, :2].view(-1))
    return facts


def section_5(lib: Any) -> dict:
    x = lib.arange(12.).view(3, 4)
    first_row = x[0]
    before = (x._version, first_row._version)
    first_row.mul_(10)
    facts = {"versions": (before, (x._version, first_row._version)), "x[0]": x[0].tolist()}
    w = lib.tensor([0., 1., 2., 3.], requires_grad=True)
    y = w.exp()
    y[0].mul_(2)
    facts["backward after y[0].mul_(2)"] = outcome(lambda: y.sum().backward())
    return facts


def section_6(lib: Any) -> dict:
    w = lib.tensor([1., 2., 3., 4.], requires_grad=True)
    y = w * 2
    middle = y[1:3]
    facts = {"y before": repr(y).replace("glasstorch", "torch"), "middle before": type(middle.grad_fn).__name__}
    middle.mul_(10)
    facts["y after"] = repr(y)
    facts["middle after"] = type(middle.grad_fn).__name__
    facts["y.grad_fn next"] = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
    y.sum().backward()
    facts["w.grad"] = w.grad.tolist()
    return facts


def section_7(lib: Any) -> dict:
    w = lib.tensor([1., 2., 3.], requires_grad=True)

    def assign() -> None:
        w[0] = 0.

    facts = {"w[0] = 0.": outcome(assign), "w.mul_(2)": outcome(lambda: w.mul_(2))}
    with lib.no_grad():
        w[0] = 0.
    facts["after no_grad"] = (w.tolist(), w.is_leaf, w.grad_fn)
    return facts


def check_yourself(lib: Any) -> dict:
    a = lib.zeros(4, 6)
    b = a[1:, ::2]
    x = lib.arange(12.).view(3, 4)

    def shares(t: Any) -> bool:
        return t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()

    w = lib.tensor([1., 2., 3.], requires_grad=True)
    y = w * 2
    y[0].zero_()
    name = type(y.grad_fn).__name__
    y.sum().backward()
    return {
        "(2, 3, 5) strides": lib.zeros(2, 3, 5).stride(),
        "b = a[1:, ::2]": geometry(b),
        "shares memory with x": {name: shares(t) for name, t in {
            "x.t()": x.t(), "x.reshape(12)": x.reshape(12), "x.t().reshape(12)": x.t().reshape(12),
            "x[:, [0, 1]]": x[:, [0, 1]], "x.expand(2, 3, 4)": x.expand(2, 3, 4), "x.detach()": x.detach()}.items()},
        "e + 1 of an expand": (lib.ones(3).expand(4, 3) + 1).tolist(),
        "zero_ through a view": (name, w.grad.tolist()),
    }


def flattens_as_view(t: Any) -> bool:
    """The chapter's solution of its exercise."""
    dims = [(n, s) for n, s in zip(t.shape, t.stride()) if n != 1]
    return all(stride == next_size * next_stride
               for (_, stride), (next_size, next_stride) in zip(dims, dims[1:]))


def exercise_tensors(lib: Any) -> dict:
    base = lib.arange(24.).view(2, 3, 4)
    return {"base": base, "base.t() of a matrix": base[0].t(), "base[:, :2]": base[:, :2],
            "base[1]": base[1], "base[:, 1:2]": base[:, 1:2], "base[..., ::2]": base[..., ::2],
            "base.permute(1, 0, 2)": base.permute(1, 0, 2), "base[:, :1, :]": base[:, :1, :],
            "ones(3).expand(2, 3)": lib.ones(3).expand(2, 3), "base[0, 0]": base[0, 0],
            "ones(1).expand(1, 5)": lib.ones(1).expand(1, 5), "base[:1, :, 1]": base[:1, :, 1],
            "base[0, :, 1]": base[0, :, 1]}


def the_exercise(lib: Any) -> dict:
    def works(t: Any) -> bool:
        try:
            t.view(-1)
            return True
        except RuntimeError:
            return False

    return {name: (works(t), flattens_as_view(t)) for name, t in exercise_tensors(lib).items()}


SECTIONS = {"1 a row of cells": section_1, "2 views": section_2, "3 gallery": section_3,
            "4 view and reshape": section_4, "5 version counter": section_5, "6 CopySlices": section_6,
            "7 a view of a leaf": section_7, "check yourself": check_yourself, "the exercise": the_exercise}


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_the_chapter_section_behaves_as_pytorch(section):
    ours, theirs = SECTIONS[section](gt), SECTIONS[section](torch)
    assert list(ours) == list(theirs)
    for fact in ours:
        assert ours[fact] == theirs[fact], f"{section}, {fact}: glasstorch {ours[fact]!r}, PyTorch {theirs[fact]!r}"


def test_the_exercise_solution_agrees_with_view():
    for name, (works, predicted) in the_exercise(torch).items():
        assert works == predicted, f"{name}: view(-1) {'works' if works else 'fails'} in PyTorch"


PICTURES = {  # the chapter's draw_storage calls, on tensors of either library
    "x": lambda lib: ([matrix(lib)], ["x"], {}),
    "x and three views": lambda lib: (lambda x: ([x, x[1], x[:, 1], x.t()], ["x", "x[1]", "x[:, 1]", "x.t()"], {}))(matrix(lib)),
    "permute": lambda lib: (lambda c: ([c, c.permute(2, 0, 1)], ["c", "c.permute(2, 0, 1)"], {"label": "order"}))(
        lib.arange(12.).view(2, 3, 2)),
    "narrow and diagonal": lambda lib: (lambda x: ([x, x.narrow(1, 1, 2), x.diagonal()], ["x", "n", "d"], {}))(
        lib.arange(12.).view(3, 4)),
    "unfold": lambda lib: (lambda s: ([s, s.unfold(0, 4, 2)], ["s", "u"], {}))(lib.arange(8.)),
    "expand": lambda lib: (lambda v: ([v, v.expand(4, 3)], ["v", "e"], {}))(lib.tensor([1., 2., 3.])),
    "the transpose in reading order": lambda lib: (lambda x: ([x, x.t()], ["x", "x.t()"], {"label": "order"}))(
        lib.arange(12.).view(3, 4)),
}


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_the_chapter_pictures_are_the_same_for_pytorch_tensors(name):
    pictures = []
    for lib in (gt, torch):
        tensors, names, options = PICTURES[name](lib)
        pictures.append(draw_storage(*tensors, names=names, **options).source)
    assert pictures[0] == pictures[1]
