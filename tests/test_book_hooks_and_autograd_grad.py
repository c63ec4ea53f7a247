"""Chapter 06 (Hooks on tensors, retain_grad and autograd.grad) against real PyTorch.

This is the comparison that used to close book/06_hooks_and_autograd_grad.ipynb (issue 16 moved
it here); the chapter keeps one short "Compare with PyTorch" cell. ``worked_example(lib)`` runs
the seeds' worked example step by step, every printed number, and ``hook_facts(lib)`` the chapter's
other programs (a hook's return value, the order of several hooks, removal, hooks on leaves, the
non-leaf .grad warning, higher derivatives, allow_unused), with ``lib`` = glasstorch or torch; the
tests assert that the two libraries agree, and that PyTorch 2.x stores 8 where the seed printed 6.
"""
import warnings

import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 06's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def values(*tensors):
    return [None if t is None else t.item() for t in tensors]


def worked_example(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = lib.tensor([2], dtype=float, requires_grad=True)
        y = lib.tensor([6], dtype=float, requires_grad=True)
        y_ = y / 2
        z = x ** 2 + y_ * 2
        rows = {}
        z.backward(retain_graph=True)
        rows["backward"] = values(x.grad, y.grad, y_.grad, z.grad)
        rows["autograd.grad"] = values(*lib.autograd.grad(z, [x, y, y_], retain_graph=True))
        rows["leaves after autograd.grad"] = values(x.grad, y.grad)
        y_.retain_grad()
        z.backward(retain_graph=True)
        rows["retain_grad, backward"] = values(x.grad, y.grad, y_.grad, z.grad)
        x.grad.zero_()
        z.backward(retain_graph=True)
        rows["x.grad.zero_(), backward"] = values(x.grad, y.grad, y_.grad, z.grad)
        printed = []
        h1 = y_.register_hook(lambda grad: printed.append(grad.item()))
        h2 = y_.register_hook(lambda grad: 2 * grad)
        z.backward()
        rows["two hooks: printed, y, y_"] = printed + values(y.grad, y_.grad)
        h1.remove()
        h2.remove()
    return rows


def hook_facts(lib):
    facts = {}
    a = lib.tensor([1., 2.], requires_grad=True)
    h = a * 3
    seen = []
    h.register_hook(lambda grad: seen.append(grad.tolist()))
    (h ** 2).sum().backward()
    facts["observing hook: sees, a.grad"] = (seen, a.grad.tolist())

    a = lib.tensor([1., 2.], requires_grad=True)
    h = a * 3
    h.register_hook(lambda grad: grad.clamp(-10, 10))
    (h ** 2).sum().backward()
    facts["clipping hook: a.grad"] = a.grad.tolist()

    a = lib.tensor([1., 2.], requires_grad=True)
    h = a * 3
    seen = []
    h.register_hook(lambda grad: seen.append(("A", grad.tolist())))
    handle_b = h.register_hook(lambda grad: grad * 2)
    handle_c = h.register_hook(lambda grad: seen.append(("C", grad.tolist())))
    (h ** 2).sum().backward(retain_graph=True)
    facts["three hooks: seen, a.grad"] = (seen, a.grad.tolist())
    handle_b.remove()
    handle_c.remove()
    (h ** 2).sum().backward()
    facts["after removing B and C: a.grad"] = a.grad.tolist()

    w = lib.tensor(1., requires_grad=True)
    w.register_hook(lambda grad: grad * 10)
    (w * 2).backward()
    facts["hook on a leaf: w.grad"] = w.grad.item()
    try:
        lib.tensor(1.).register_hook(print)
    except RuntimeError as e:
        facts["hook on a tensor without grad"] = str(e)

    a = lib.tensor([1., 2.], requires_grad=True)
    h = a * 3
    (h ** 2).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        facts["non-leaf .grad"] = h.grad
    facts["its warning"] = str(caught[0].message).split(". ")[0]

    x2 = lib.tensor([2], dtype=float, requires_grad=True)
    y2 = lib.tensor([6], dtype=float, requires_grad=True)
    y2_ = y2 / 2
    z2 = x2 ** 2 + y2_ * 2
    y2_.retain_grad()
    incoming = []
    y2_.register_hook(lambda grad: incoming.append(grad.item()))
    y2_.register_hook(lambda grad: 2 * grad)
    z2.backward()
    facts["retain_grad registered first: incoming, retained"] = (incoming, y2_.grad.item())

    t = lib.tensor(2., requires_grad=True)
    (dy_dx,) = lib.autograd.grad(t ** 3, t)
    facts["autograd.grad: dy/dx, x.grad"] = (dy_dx.item(), t.grad)
    (first,) = lib.autograd.grad(t ** 3, t, create_graph=True)
    (second,) = lib.autograd.grad(first, t, create_graph=True)
    (third,) = lib.autograd.grad(second, t)
    facts["x**3: 1st, 2nd, 3rd derivative"] = values(first, second, third)
    facts["first derivative has a grad_fn"] = first.grad_fn is not None
    unused = lib.tensor(1., requires_grad=True)
    y = t ** 3
    try:
        lib.autograd.grad(y, [t, unused], retain_graph=True)
    except RuntimeError as e:
        facts["unused input"] = str(e)
    facts["allow_unused=True"] = values(*lib.autograd.grad(y, [t, unused], allow_unused=True))
    return facts


def test_the_worked_example_prints_pytorchs_numbers():
    ours, theirs = worked_example(glasstorch), worked_example(torch)
    assert ours == theirs
    assert theirs["two hooks: printed, y, y_"] == [2.0, 5.0, 8.0], "PyTorch 2.x: 8, where the seed printed 6"


def test_the_chapters_hooks_behave_as_pytorchs():
    ours, theirs = hook_facts(glasstorch), hook_facts(torch)
    assert ours.keys() == theirs.keys()
    different = {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}
    assert not different, f"glasstorch and PyTorch differ (ours, theirs): {different}"
