"""Chapter 07 (detach, no_grad, and dynamic versus static graphs) against real PyTorch.

This is the comparison that used to close book/07_detach_no_grad_dynamic_graphs.ipynb
(``chapter_05(lib)`` before the renumbering; issue 16 moved it here); the chapter keeps one short
"Compare with PyTorch" cell. ``chapter_facts(lib)`` runs the chapter's key lines with ``lib`` =
glasstorch or torch and returns what it observed (a detached path, ``.data`` versus ``detach()``
and the version counter, grad modes and their decorator form, ``requires_grad_``, custom Functions
and their Node names, the dynamic graph of one Python function); the test asserts that the two
libraries agree on every entry.
"""
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 07's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def f(x):
    h = x
    while h < 10:
        h = h * 2
    if h > 15:
        h = h - 5
    else:
        h = h ** 2
    return h


def message(make) -> str:
    try:
        make()
    except RuntimeError as e:
        return str(e).split(": [")[0].replace("glasstorch", "torch")
    return "no error"


def chapter_facts(lib):
    result = {}
    w = lib.tensor([1.], requires_grad=True)
    x = lib.tensor([2.], requires_grad=True)
    a = lib.add(w, x)
    a_detached = a.detach()
    result["a.detach(): is_leaf, requires_grad, grad_fn"] = (a_detached.is_leaf, a_detached.requires_grad,
                                                             a_detached.grad_fn)
    y = lib.mul(a_detached, lib.add(w, 1))
    y.backward()
    result["detach: w.grad, x.grad"] = (w.grad.item(), x.grad)

    w = lib.tensor([1.], requires_grad=True)
    x = lib.tensor([2.], requires_grad=True)
    a_detached = lib.add(w, x).detach().requires_grad_()
    lib.mul(a_detached, lib.add(w, 1)).backward()
    result["detach().requires_grad_(): a, w, x grads"] = (a_detached.grad.item(), w.grad.item(), x.grad)

    s = lib.tensor([1., 2.], requires_grad=True) * 1
    s.detach()[0] = 10.
    s.data[1] = 20.
    result["writes through detach() and .data"] = s.tolist()

    q = lib.tensor([1., 2.], requires_grad=True)
    s = q * 1
    square = s ** 2
    s.detach().zero_()
    result["detach().zero_(): version, backward"] = (s._version, message(lambda: square.sum().backward()))
    s = q * 1
    square = s ** 2
    s.data.zero_()
    square.sum().backward()
    result[".data.zero_(): version, q.grad"] = (s._version, q.grad.tolist())

    w = lib.tensor([1., 2.], requires_grad=True)
    with lib.no_grad():
        inside = (w * 2).requires_grad, lib.is_grad_enabled()
        with lib.enable_grad():
            enabled = (w * 2).requires_grad
    result["no_grad, enable_grad"] = (inside, enabled, lib.is_grad_enabled())
    flags = []
    for is_train in (True, False):
        with lib.set_grad_enabled(is_train):
            flags.append((w * 2).requires_grad)
    lib.set_grad_enabled(False)
    flags.append((w * 2).requires_grad)
    lib.set_grad_enabled(True)
    flags.append((w * 2).requires_grad)
    result["set_grad_enabled: with, call"] = flags
    (w ** 2).sum().backward()
    with lib.no_grad():
        w -= 0.1 * w.grad
    result["SGD step under no_grad"] = ([round(v, 6) for v in w.tolist()], w.is_leaf, w._version)

    @lib.no_grad()
    def fill_with_ones(tensor):
        return tensor.fill_(1.0)
    v = lib.tensor([3., 4.], requires_grad=True)
    result["@no_grad() fill_"] = (fill_with_ones(v).tolist(), v.requires_grad, lib.is_grad_enabled())

    frozen = lib.tensor([1., 2.], requires_grad=True)
    frozen.requires_grad_(False)
    trained = lib.tensor([3., 4.], requires_grad=True)
    out = (frozen * trained).sum()
    out.backward()
    result["requires_grad_(False): frozen, trained grads"] = (frozen.grad, trained.grad.tolist())
    result["requires_grad_ of a computed tensor"] = message(lambda: out.requires_grad_(False))

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    class ClippedReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input, ceiling):
            ctx.save_for_backward(input)
            ctx.ceiling = ceiling
            return input.clamp(0, ceiling)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * ((input > 0) & (input < ctx.ceiling)), None

    v = lib.tensor([0., 1.], dtype=lib.float64, requires_grad=True)
    e = Exp.apply(v)
    e.sum().backward()
    result["Exp: grad_fn name, grad"] = (type(e.grad_fn).__name__, [round(g, 6) for g in v.grad.tolist()])
    result["Exp: saved after backward"] = message(lambda: e.grad_fn.saved_tensors).split(" (or")[0]
    xr = lib.tensor([-1., 0.5, 2., 7.], requires_grad=True)
    yr = ClippedReLU.apply(xr, 6.0)
    yr.sum().backward()
    result["ClippedReLU: name, needs_input_grad, x.grad"] = (type(yr.grad_fn).__name__,
                                                             tuple(yr.grad_fn.needs_input_grad), xr.grad.tolist())
    x64 = lib.tensor([0., 1.], dtype=lib.float64, requires_grad=True)
    result["gradcheck(Exp)"] = lib.autograd.gradcheck(Exp.apply, (x64,))

    for value in (3., 0.5):
        t = lib.tensor(value, requires_grad=True)
        out = f(t)
        out.backward()
        result[f"f({value}), df/dx, grad_fn"] = (out.item(), t.grad.item(), out.grad_fn.name())
    t = lib.tensor(3., requires_grad=True)
    result["a new graph on every call"] = f(t).grad_fn is f(t).grad_fn
    return result


def test_the_chapters_programs_behave_as_in_pytorch():
    ours, theirs = chapter_facts(glasstorch), chapter_facts(torch)
    assert ours.keys() == theirs.keys()
    different = {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}
    assert not different, f"glasstorch and PyTorch differ (ours, theirs): {different}"
