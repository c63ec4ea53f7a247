"""Chapter 01 (Tensors) against real PyTorch: the chapter's claims, run with both libraries.

This is the comparison that used to close book/01_tensors.ipynb (issue 16 moved it here); the
chapter keeps one short "Compare with PyTorch" cell. ``chapter_claims(lib)`` runs the chapter's key
lines with ``lib`` = glasstorch or torch and returns what it observed (inferred dtypes and legacy
type strings, conversions, type promotion, the errors of integer gradients, string dtypes, float
indices and numpy() of a tensor that requires grad, memory shared with numpy); the tests assert
that the two libraries agree on every entry. Names are compared without the library's prefix.
"""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 01's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def plain(value) -> str:
    """A dtype or type name without the library's prefix: 'glasstorch.float32' -> 'float32'."""
    return str(value).rsplit(".", 1)[-1]


def error(make) -> str:
    try:
        make()
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return type(e).__name__
    return "no error"


def message(make) -> str:
    try:
        make()
    except Exception as e:  # noqa: BLE001
        return str(e).replace("glasstorch", "torch")
    return "no error"


def chapter_claims(lib):
    ints = lib.tensor([1, 2, 3])
    v = lib.tensor([1.7, -1.7])
    half = lib.tensor([1., 2.], dtype=lib.float16)
    small = lib.tensor([1, 2], dtype=lib.int32)
    labels = lib.LongTensor([0, 2, 1])
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    y = w * 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y_grad = y.grad
    y.sum().backward()
    d = w.data
    array = np.array([1.0, 2.0, 3.0])
    shared, copied = lib.from_numpy(array), lib.tensor(array)
    array[0] = 100.0
    return {
        "tensor([1, 2, 3]).type()": plain(ints.type()),
        "tensor([1., 2., 3.]).type()": plain(lib.tensor([1., 2., 3.]).type()),
        "tensor([True, False]).dtype": plain(lib.tensor([True, False]).dtype),
        "Tensor([1, 2, 3]).type()": plain(lib.Tensor([1, 2, 3]).type()),
        "Tensor([1, 2, 3]).requires_grad": lib.Tensor([1, 2, 3]).requires_grad,
        "Tensor(2, 3).shape": list(lib.Tensor(2, 3).shape),
        "tensor([1, 2.5]).dtype": plain(lib.tensor([1, 2.5]).dtype),
        "tensor(np.array([1., 2.])).dtype": plain(lib.tensor(np.array([1.0, 2.0])).dtype),
        "get_default_dtype()": plain(lib.get_default_dtype()),
        "LongTensor([0, 2, 1])": (labels.tolist(), plain(labels.type())),
        "isinstance(labels, Long/FloatTensor)": (isinstance(labels, lib.LongTensor),
                                                 isinstance(labels, lib.FloatTensor)),
        "tensor([1.7, -1.7]).long()": v.long().tolist(),
        "type('torch.DoubleTensor')": plain(v.type("torch.DoubleTensor").dtype),
        "float() is v, to(float32) is v, double() is v": (v.float() is v, v.to(lib.float32) is v, v.double() is v),
        "long is int64": lib.long is lib.int64,
        "ints.type_as(Tensor([.5]))": plain(ints.type_as(lib.Tensor([0.5])).dtype),
        "ints * 2.5": f"{plain((ints * 2.5).dtype)} {(ints * 2.5).tolist()}",
        "ints / 2": f"{plain((ints / 2).dtype)} {(ints / 2).tolist()}",
        "ints // 2": f"{plain((ints // 2).dtype)} {(ints // 2).tolist()}",
        "int32 * tensor(5)": plain((small * lib.tensor(5)).dtype),
        "int32 * tensor([5])": plain((small * lib.tensor([5])).dtype),
        "float16 * 0-d float64": plain((half * lib.tensor(2.0, dtype=lib.float64)).dtype),
        "int64 * float32 tensors": plain((ints * lib.tensor([1., 2., 3.])).dtype),
        "float64 + float32 tensors": plain((lib.tensor([0.5], dtype=lib.float64) + lib.tensor([0.5])).dtype),
        "result_type(ints, 2.5)": plain(lib.result_type(ints, 2.5)),
        "promote_types(int64, float32)": plain(lib.promote_types(lib.int64, lib.float32)),
        "w: requires_grad, grad, grad_fn, is_leaf": (w.requires_grad, None, w.grad_fn, w.is_leaf),
        "y = w * 3: grad_fn, is_leaf": (y.grad_fn.name(), y.is_leaf),
        "y.grad: value, warns": (y_grad, [str(c.category.__name__) for c in caught]),
        "w.grad after y.sum().backward()": w.grad.tolist(),
        "w.data: requires_grad, is_leaf": (d.requires_grad, d.is_leaf),
        "from_numpy shares, tensor copies": (shared.tolist(), copied.tolist()),
        "int tensor requires_grad": message(lambda: lib.tensor([1], requires_grad=True)),
        "int tensor requires_grad_()": message(lambda: lib.tensor([1]).requires_grad_()),
        "computed tensor requires_grad = False": message(lambda: setattr(y, "requires_grad", False)),
        "dtype='torch.LongTensor'": error(lambda: lib.tensor([1], dtype="torch.LongTensor")),
        "index with float tensor": message(lambda: ints[lib.tensor([0.0])]),
        "numpy() of requires_grad": message(lambda: lib.ones(1, requires_grad=True).numpy()),
    }


def test_the_chapters_claims_hold_in_pytorch():
    ours, theirs = chapter_claims(glasstorch), chapter_claims(torch)
    assert ours.keys() == theirs.keys()
    different = {claim: (ours[claim], theirs[claim]) for claim in ours if ours[claim] != theirs[claim]}
    assert not different, f"glasstorch and PyTorch differ (ours, theirs): {different}"


def test_integer_labels_give_pytorchs_loss_and_float_labels_fail():
    logits = [[2.0, 0.5, -1.0], [0.1, 1.5, 0.3]]

    def nll_loss(lib, log_probs, target):  # the chapter's two lines
        rows = lib.arange(len(target))
        return -log_probs[rows, target].mean()

    ours = nll_loss(glasstorch, glasstorch.tensor(logits).log_softmax(dim=1), glasstorch.tensor([0, 1]))
    theirs = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor([0, 1]))
    assert abs(ours.item() - theirs.item()) < 1e-6
    with pytest.raises(RuntimeError, match="expected target dtype to be Long"):
        torch.nn.functional.cross_entropy(torch.tensor(logits), torch.Tensor([0, 1]))
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        nll_loss(glasstorch, glasstorch.tensor(logits).log_softmax(dim=1), glasstorch.Tensor([0, 1]))
    # a float target of the logits' shape is read as class probabilities (soft labels)
    soft = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor([[1., 0., 0.], [0., 1., 0.]]))
    assert abs(soft.item() - theirs.item()) < 1e-6
