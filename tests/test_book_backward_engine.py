"""Chapter 05 (Backward: the engine) against real PyTorch: the chapter's programs, run with both libraries.

This is the comparison that used to close book/05_backward_engine.ipynb (``chapter_03(lib)``
before the renumbering; issue 16 moved it here); the chapter keeps one short "Compare with
PyTorch" cell. ``engine_facts(lib)`` runs the chapter's key lines with ``lib`` = glasstorch or
torch and returns what it observed (the seeds' numbers, the order the engine runs the Nodes in,
accumulation, retain_grad, freed saved tensors and the second-backward error, gradient=, the
version counter and the in-place errors, word for word, broadcasting and matrix-product gradients);
the test asserts that the two libraries agree on every entry.
"""
import warnings

import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 05's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def message(make) -> str:
    try:
        make()
    except RuntimeError as e:
        return str(e).replace("glasstorch", "torch")
    return "no error"


def engine_facts(lib):
    result = {}
    w = lib.tensor([1.], requires_grad=True)
    x = lib.tensor([2.], requires_grad=True)
    a = lib.add(w, x)
    b = lib.add(w, 1)
    y = lib.mul(a, b)
    order = []
    for name, t in {"w": w, "x": x, "a": a, "b": b, "y": y}.items():
        t.register_hook(lambda grad, name=name: order.append(name))
    with lib.no_grad():  # playing the engine by hand
        grad_a, grad_b = y.grad_fn(lib.tensor([1.]))
    result["MulBackward0 by hand"] = (grad_a.tolist(), grad_b.tolist())
    y.backward(retain_graph=True)
    result["w.grad, x.grad"] = (w.grad.item(), x.grad.item())
    result["is_leaf"] = (w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result["a.grad, b.grad, y.grad"] = (a.grad, b.grad, y.grad)
    result["warnings reading them"] = [c.category.__name__ for c in caught]
    result["order of the Nodes"] = "".join(order)
    y.backward()
    result["w.grad after 2 backwards"] = w.grad.item()
    result["third backward"] = message(y.backward)
    result["saved tensor after backward"] = message(lambda: y.grad_fn._saved_self)

    u = lib.tensor(1., requires_grad=True)
    h = u
    for _ in range(10):
        h = h + h
    h.backward()
    result["ladder h = h + h, 10 times"] = u.grad.item()
    t = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
    h = t
    for _ in range(100_000):
        h = h * 1.00001
    h.backward()
    result["100,000 multiplications"] = round(t.grad.item(), 9)

    x3 = lib.tensor(3., requires_grad=True)
    (x3 * x3).backward()
    result["x * x: x.grad"] = x3.grad.item()

    w2 = lib.tensor([1.], requires_grad=True)
    x2 = lib.tensor([2.], requires_grad=True)
    a2 = x2 + w2
    a2.retain_grad()
    (a2 * (w2 + 1)).backward()
    result["retain_grad: a.grad, retains_grad"] = (a2.grad.tolist(), a2.retains_grad)

    v = lib.tensor([2.], requires_grad=True)
    z = v * lib.tensor([1., 2., 3.])
    result["non-scalar backward()"] = message(z.backward)
    z.backward(gradient=lib.tensor([1., 0.1, 0.01]))
    result["gradient= (v^T J)"] = round(v.grad.item(), 6)

    counter = lib.zeros(3)
    versions = [counter._version]
    counter.add_(1)
    versions.append(counter._version)
    counter[0] = 5
    versions.append(counter._version)
    result["_version after add_, setitem"] = versions

    q = lib.tensor([1., 2.], requires_grad=True)
    s = q * 1
    square = s ** 2
    s.add_(1)
    result["in-place on a saved input"] = message(lambda: square.sum().backward())
    s = q * 1
    e_s = s.exp()
    s.add_(1)
    e_s.add_(1)
    result["in-place on a saved output"] = message(lambda: e_s.sum().backward()).split(", is at")[0]
    s = q * 1
    s.add_(1)
    (s ** 2).sum().backward()
    result["in-place before saving"] = (q.grad.tolist(), s.grad_fn.name())
    result["leaf in-place"] = message(lambda: q.add_(1))

    col = lib.ones(3, 1, requires_grad=True)
    mat = lib.ones(3, 4, requires_grad=True)
    (col + mat).sum().backward()
    result["(3, 1) + (3, 4): grad shapes, values"] = (list(col.grad.shape), col.grad.reshape(-1).tolist(),
                                                      list(mat.grad.shape))
    A = lib.ones(2, 3, requires_grad=True)
    B = lib.ones(3, 4, requires_grad=True)
    mm = A @ B
    mm.sum().backward()
    result["A @ B: grad_fn, grad shapes"] = (mm.grad_fn.name(), list(A.grad.shape), list(B.grad.shape))
    return result


def test_the_chapters_engine_is_pytorchs():
    ours, theirs = engine_facts(glasstorch), engine_facts(torch)
    assert ours.keys() == theirs.keys()
    different = {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}
    assert not different, f"glasstorch and PyTorch differ (ours, theirs): {different}"


def test_the_errors_are_pytorch_2_13s_words():
    facts = engine_facts(torch)
    assert facts["third backward"].startswith("Trying to backward through the graph a second time (or directly "
                                              "access saved tensors after they have already been freed).")
    assert "Specify retain_graph=True" in facts["third backward"]
    assert facts["in-place on a saved input"].endswith(
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")
