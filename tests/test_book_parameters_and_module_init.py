"""Chapter 09 (Parameters and Module.__init__) against real PyTorch: the chapter's programs, run with both libraries.

This is the comparison that used to close book/09_parameters_and_module_init.ipynb (issue 16 moved it here); the chapter keeps
one short "Compare with PyTorch" cell. ``chapter_results(lib)`` runs the chapter's key lines with
``lib`` = glasstorch or torch and returns what it observed (the attributes of a fresh module, buffers, the routing of ``__setattr__``, every error message, the plain dict pitfall, dotted lookups, the GaussianModel before and after the fix); the test asserts that the two
libraries agree on every entry. Strings are compared with ``glasstorch`` read as ``torch``.
"""

import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 09's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402
from course_support import assert_same_observations  # noqa: E402


def where(module, name):
    """Which of the module's dictionaries holds ``name``."""
    for place in ("_parameters", "_buffers", "_modules", "__dict__"):
        if name in getattr(module, place):
            return place
    return "nowhere"

pytestmark = pytest.mark.torch


def chapter_results(lib):
    nn = lib.nn
    result = {}

    def error(fn):
        try:
            fn()
        except Exception as e:
            return type(e).__name__ + ": " + str(e).replace("glasstorch", "torch")
        return "no error"

    p = nn.Parameter(lib.ones(2) * 3)
    result["Parameter: leaf, grad, class of p*2"] = (p.is_leaf, p.requires_grad, type(p * 2).__name__)
    result["Module.__init__ attributes"] = list(vars(nn.Module()))

    class WithoutSuper(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 2)
    result["no super().__init__()"] = error(WithoutSuper)

    class BatchNorm(nn.Module):
        def __init__(self, num_features):
            super().__init__()
            self.register_buffer("running_mean", lib.zeros(num_features))
            self.register_buffer("running_variance", lib.ones(num_features))
    result["seed 003: type(buf), buf.size()"] = [
        f"{type(buf)} {buf.size()}".replace("glasstorch", "torch") for buf in BatchNorm(3).buffers()]

    t = nn.Buffer(lib.ones(2), persistent=False)
    result["nn.Buffer: type, mark, isinstance"] = (
        str(type(t)).replace("glasstorch", "torch"), t._is_buffer, t.persistent,
        isinstance(t, nn.Buffer), isinstance(lib.ones(2), nn.Buffer))
    state = nn.Module()
    state.kept = nn.Buffer(lib.zeros(2))
    state.mask = t
    result["nn.Buffer: registered"] = (list(state._buffers), sorted(state._non_persistent_buffers_set),
                                       list(state.state_dict()))

    class Demo(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("running_mean", lib.zeros(2))
    d = Demo()
    d.weight = nn.Parameter(lib.ones(2))
    d.fc = nn.Linear(2, 2)
    d.running_mean = lib.ones(2)
    d.stats = nn.Buffer(lib.zeros(2))
    d.cache = lib.ones(2)
    result["routing"] = [where(d, n) for n in ("weight", "fc", "running_mean", "stats", "cache")]
    result["tensor -> parameter name"] = error(lambda: setattr(d, "weight", lib.ones(2)))
    result["int -> module name"] = error(lambda: setattr(d, "fc", 3))
    result["list -> buffer name"] = error(lambda: setattr(d, "running_mean", [0.]))
    result["Linear -> parameter name"] = error(lambda: setattr(d, "weight", nn.Linear(1, 1)))
    del d.running_mean
    result["after del"] = (list(d._parameters), list(d._buffers), list(d._modules))

    m = nn.Module()
    m.flag = True
    for name, value in [(1, nn.Parameter(lib.zeros(1))), ("a.b", nn.Parameter(lib.zeros(1))),
                        ("", nn.Parameter(lib.zeros(1))), ("flag", nn.Parameter(lib.zeros(1))),
                        ("w", lib.zeros(1))]:
        result[f"register_parameter({name!r})"] = error(lambda: m.register_parameter(name, value))
    computed = lib.ones(2, requires_grad=True) * 2
    computed.__class__ = nn.Parameter
    result["register_parameter(non-leaf)"] = error(lambda: m.register_parameter("w", computed))
    m.register_buffer("mask", lib.ones(1), persistent=False)
    m.register_buffer("kept", lib.ones(1))
    m.offsets = nn.Buffer(lib.zeros(1), persistent=False)
    result["non-persistent buffers"] = (sorted(m._non_persistent_buffers_set), list(m.state_dict()))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.some_dict = {"keys": nn.Linear(10, 20)}
    net = Net()
    result["plain dict: parameters"] = len(list(net.parameters()))
    setattr(net, "some_name", net.some_dict["keys"])
    result["after setattr"] = [n for n, _ in net.named_parameters()]
    result["register_parameter(module)"] = error(lambda: net.register_parameter("x", nn.Linear(1, 1)))
    result["ModuleDict(int keys)"] = error(lambda: nn.ModuleDict({1: nn.Linear(1, 1)}))

    A = nn.Module()
    A.net_b = nn.Module()
    A.net_b.linear = nn.Linear(100, 200)
    A.net_b.bn = nn.BatchNorm1d(200)
    result["get_parameter"] = list(A.get_parameter("net_b.linear.weight").shape)
    result["get_buffer"] = list(A.get_buffer("net_b.bn.running_mean").shape)
    result["get_submodule(missing)"] = error(lambda: A.get_submodule("net_b.net_d"))
    result["get_parameter(buffer)"] = error(lambda: A.get_parameter("net_b.bn.running_mean"))

    class BuggyGaussian(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_parameter("mean", nn.Parameter(lib.zeros(1)))
            self.pdf = lib.distributions.Normal(self.state_dict()["mean"], lib.tensor([1.0]))
        def forward(self, x):
            return -self.pdf.log_prob(x)

    class Gaussian(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_parameter("mean", nn.Parameter(lib.zeros(1)))
            self.register_buffer("std", lib.tensor([1.0]))
        def forward(self, x):
            return -lib.distributions.Normal(self.mean, self.std).log_prob(x)

    x = lib.tensor([1., 2., 3.])
    buggy = BuggyGaussian()
    shift = lib.zeros(1, requires_grad=True)
    buggy(x + shift).mean().backward()
    result["buggy: mean.grad, shift.grad"] = (buggy.mean.grad, shift.grad.tolist())
    model = Gaussian()
    for step in range(50):
        model.mean.grad = None
        loss = model(x).mean()
        loss.backward()
        if step == 0:
            result["fixed: first loss, mean.grad"] = (round(loss.item(), 4), model.mean.grad.tolist())
        with lib.no_grad():
            model.mean -= 0.1 * model.mean.grad
    result["fixed: mean after 50 steps"] = round(model.mean.item(), 4)
    return result


@pytest.fixture(scope="module")
def results():
    return chapter_results(glasstorch), chapter_results(torch)


def test_both_libraries_observe_the_same_things(results):
    assert_same_observations(*results)


def test_the_comparison_covers_the_chapter(results):
    assert len(results[0]) >= 20
