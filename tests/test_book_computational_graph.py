"""Chapter 04 (The computational graph) against real PyTorch: the chapter's graph, built by both libraries.

This is the comparison that used to close book/04_computational_graph.ipynb (issue 16 moved it
here); the chapter keeps one short "Compare with PyTorch" cell. ``graph_facts(lib)`` builds the
running example y = (x + w)(w + 1) and the chapter's other graphs with ``lib`` = glasstorch or
torch and returns what it observed (Node names, next_functions, the one shared AccumulateGrad,
creation order, leaves, requires_grad propagation, saved tensors, the leaf error); the test asserts
that the two libraries agree on every entry.
"""
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 04's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def sequence_nr(node):
    number = node._sequence_nr
    return number() if callable(number) else number  # PyTorch: a method; glasstorch: an attribute


def edges(node):
    return [None if n is None else (type(n).__name__, i) for n, i in node.next_functions]


def chain(node):
    names = []
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def graph_facts(lib):
    w = lib.tensor([1.], requires_grad=True)
    x = lib.tensor([2.], requires_grad=True)
    a = lib.add(w, x)
    b = lib.add(w, 1)
    y = lib.mul(a, b)
    tensors = {"a": a, "b": b, "y": y}
    c = lib.tensor([3.])
    facts = {
        "y, a, b grad_fn": [t.grad_fn.name() for t in (y, a, b)],
        "sum(), sum(0)": [w.sum().grad_fn.name(), w.sum(0).grad_fn.name()],
        "y edges": edges(y.grad_fn),
        "a edges": edges(a.grad_fn),
        "b edges": edges(b.grad_fn),
        "y's edges are a's and b's Nodes": (y.grad_fn.next_functions[0][0] is a.grad_fn,
                                            y.grad_fn.next_functions[1][0] is b.grad_fn),
        "AccumulateGrad.variable is the leaf": [n.variable is t for (n, _), t in zip(a.grad_fn.next_functions, (w, x))],
        "one AccumulateGrad for w": a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0],
        "creation order": sorted(tensors, key=lambda n: sequence_nr(tensors[n].grad_fn)),
        "chain of w*2, three times": chain((w * 2 * 2 * 2).grad_fn),
        "is_leaf w x a b y": [t.is_leaf for t in (w, x, a, b, y)],
        "requires_grad a b y": [t.requires_grad for t in (a, b, y)],
        "w*c, c*2, c*c, y*c: requires_grad": [t.requires_grad for t in (w * c, c * 2, c * c, y * c)],
        "c*2: grad_fn": (c * 2).grad_fn,
        "_saved_self, _saved_other": [y.grad_fn._saved_self.tolist(), y.grad_fn._saved_other.tolist()],
        "AddBackward0 saves no tensor": hasattr(a.grad_fn, "_saved_self"),
        "w * c saves": [None if s is None else s.tolist() for s in ((w * c).grad_fn._saved_self,
                                                                     (w * c).grad_fn._saved_other)],
    }
    try:
        y.requires_grad = False
    except RuntimeError as e:
        facts["y.requires_grad = False"] = str(e)
    plain = lib.tensor([1.0])
    facts["a = tensor([1.]); b = a + 1: is_leaf, grad_fn"] = (plain.is_leaf, (plain + 1).is_leaf, (plain + 1).grad_fn)
    ones = lib.ones(2, 2, requires_grad=True)
    facts["ones.grad_fn, (ones+2).grad_fn"] = [ones.grad_fn, (ones + 2).grad_fn.name()]
    y.backward()
    facts["w.grad, x.grad"] = [w.grad.tolist(), x.grad.tolist()]
    return facts


def test_the_chapters_graph_is_pytorchs():
    ours, theirs = graph_facts(glasstorch), graph_facts(torch)
    assert ours.keys() == theirs.keys()
    different = {fact: (ours[fact], theirs[fact]) for fact in ours if ours[fact] != theirs[fact]}
    assert not different, f"glasstorch and PyTorch differ (ours, theirs): {different}"
