"""Chapter 11 (apply, _apply, dtypes and modes) against real PyTorch: the chapter's programs, run with both libraries.

This is the comparison that used to close book/11_apply_dtypes_and_modes.ipynb (issue 16 moved it here); the chapter keeps
one short "Compare with PyTorch" cell. ``chapter_results(lib)`` runs the chapter's key lines with
``lib`` = glasstorch or torch and returns what it observed (apply's printout and order, _apply's order and identities, dtypes after each conversion, to(), cuda(), train/eval flags, Dropout and BatchNorm in both modes, freezing, zero_grad); the test asserts that the two
libraries agree on every entry. Strings are compared with ``glasstorch`` read as ``torch``.
"""
import contextlib
import io

import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 11's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402
from course_support import assert_same_observations  # noqa: E402

pytestmark = pytest.mark.torch


def chapter_results(lib):
    nn, F = lib.nn, lib.nn.functional
    def normalised(text):
        return str(text).replace("glasstorch", "torch")
    result = {}

    @lib.no_grad()
    def init_weights(m):
        print(m)
        if type(m) == nn.Linear:
            m.weight.fill_(1.0)
            print(m.weight)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print(nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)).apply(init_weights))
    result["apply(init_weights) printout"] = normalised(printed.getvalue())

    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Dropout(0.5), nn.Linear(3, 1)))
    names = {m: name or "(root)" for name, m in model.named_modules()}
    visited = []
    model.apply(lambda m: visited.append(names[m]))
    result["apply order"] = visited
    def fill(m):
        if type(m) == nn.Linear:
            m.weight.fill_(1.0)
    try:
        model.apply(fill)
    except RuntimeError as e:
        result["apply without no_grad"] = str(e)

    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    model(lib.tensor([[1., 2.], [3., 5.]])).pow(2).sum().backward()
    label = {}
    for name, p in model.named_parameters():
        label[id(p)], label[id(p.grad)] = name, name + ".grad"
    for name, b in model.named_buffers():
        label[id(b)] = name
    seen = []
    model._apply(lambda t: seen.append(label[id(t)]) or t)
    result["_apply order"] = seen
    weight, grad = model[0].weight, model[0].weight.grad
    running_mean, count = model[1].running_mean, model[1].num_batches_tracked
    model.double()
    result["double(): same weight, grad, running_mean, count"] = (
        model[0].weight is weight, model[0].weight.grad is grad,
        model[1].running_mean is running_mean, model[1].num_batches_tracked is count)

    lin = nn.Linear(2, 1)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1., 2.]]))
        lin.bias.fill_(0.5)
    optimizer = lib.optim.SGD(lin.parameters(), lr=0.1)
    lin.double()
    lin(lib.tensor([[1., 1.]], dtype=lib.float64)).sum().backward()
    optimizer.step()
    result["SGD built before double()"] = (lin.weight.tolist(), lin.bias.tolist())

    bn = nn.BatchNorm1d(2)
    rows = []
    for step in ("double", "half", "bfloat16", "float"):
        getattr(bn, step)()
        rows.append((step, normalised(bn.running_mean.dtype), normalised(bn.num_batches_tracked.dtype)))
    for dtype in (lib.float64, lib.float16):
        bn.to(dtype)
        rows.append(("to", normalised(bn.running_mean.dtype), normalised(bn.num_batches_tracked.dtype)))
    bn.type(lib.float64)
    rows.append(("type", normalised(bn.running_mean.dtype), normalised(bn.num_batches_tracked.dtype)))
    result["BatchNorm dtypes"] = rows
    lin = nn.Linear(1, 1)
    with lib.no_grad():
        lin.weight.fill_(0.1)
    result["0.1 after half().float()"] = lin.half().float().weight.item()

    linear = nn.Linear(2, 2)
    with lib.no_grad():
        linear.weight.copy_(lib.tensor([[0.1913, -0.3420], [-0.5113, -0.2325]]))
    steps = []
    for args, kwargs in [((lib.double,), {}), ((), {"dtype": lib.half, "non_blocking": True}),
                         ((lib.device("cpu"),), {})]:
        same = linear.to(*args, **kwargs) is linear
        steps.append((same, normalised(linear.weight.dtype), linear.weight.tolist()))
    result["to(): the docstring's example"] = steps
    result["to(tensor), to(device, dtype)"] = (
        normalised(linear.to(lib.zeros(1, dtype=lib.float64)).weight.dtype),
        normalised(linear.to("cpu", lib.float32).weight.dtype))
    try:
        linear.to(lib.int64)
    except TypeError as e:
        result["to(int64)"] = normalised(e)
    try:
        linear.cuda()
    except (RuntimeError, AssertionError) as e:
        result["cuda() raises"] = True
    result["cuda.is_available()"] = lib.cuda.is_available()

    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Dropout(0.5), nn.Linear(3, 1)))
    flags = [[m.training for m in model.modules()]]
    model.eval()
    flags.append([m.training for m in model.modules()])
    model[2].train()
    flags.append([m.training for m in model.modules()])
    result["training flags"] = flags
    try:
        model.train("False")
    except ValueError as e:
        result["train('False')"] = str(e)

    dropout = nn.Dropout(0.5)
    y = dropout(lib.ones(100_000))
    zeroed = (y == 0).float().mean().item()
    dropout.eval()
    x = lib.ones(10)
    result["Dropout: ~half zeroed, values, eval is identity"] = (
        abs(zeroed - 0.5) < 0.01, sorted(set(y.tolist())), dropout(x) is x)
    class TwoDropouts(nn.Module):
        def forward(self, x):
            return F.dropout(x, p=0.5, training=self.training), F.dropout(x, p=0.5)
    right, wrong = TwoDropouts().eval()(lib.ones(1000))
    result["F.dropout in eval: with / without training="] = (right.tolist() == [1.0] * 1000,
                                                              wrong.tolist() == [1.0] * 1000)

    bn = nn.BatchNorm1d(2)
    x = lib.tensor([[0., 10.], [1., 20.], [3., 40.], [4., 50.]])
    def buffers():
        return normalised(f"{bn.running_mean} {bn.running_var} {bn.num_batches_tracked}")
    stats = [buffers()]
    train_out = bn(x).detach()
    stats.append(buffers())
    bn.eval()
    eval_out = bn(x).detach()
    stats.append(buffers())
    result["BatchNorm buffers printed: new, train, eval"] = stats
    result["BatchNorm running stats, float32 values"] = bn.running_mean.tolist() + bn.running_var.tolist()
    result["BatchNorm outputs (4 decimals)"] = [[[round(v, 4) for v in row] for row in out.tolist()]
                                               for out in (train_out, eval_out)]
    bn.train()
    try:
        bn(lib.tensor([[1., 2.]]))
    except ValueError as e:
        result["BatchNorm: a batch of one"] = normalised(e)

    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)).eval()
    out = model(lib.ones(1, 2))
    with lib.no_grad():
        out_no_grad = model(lib.ones(1, 2))
    result["eval(): requires_grad, grad_fn; and with no_grad"] = (
        out.requires_grad, type(out.grad_fn).__name__, out_no_grad.requires_grad, out_no_grad.grad_fn)

    def count_nodes(tensor):
        counts, stack, seen = {}, [tensor.grad_fn], set()
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            counts[type(node).__name__] = counts.get(type(node).__name__, 0) + 1
            stack.extend(next_node for next_node, _ in node.next_functions)
        return counts.get("AccumulateGrad", 0), counts.get("ReluBackward0", 0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    x = lib.ones(4, 2)
    before = count_nodes(model(x).sum())
    model[0].requires_grad_(False)
    loss = model(x).sum()
    after = count_nodes(loss)
    loss.backward()
    result["freezing: (AccumulateGrad, ReluBackward0) nodes"] = (before, after)
    result["freezing: which parameters got a grad"] = [name for name, p in model.named_parameters()
                                                      if p.grad is not None]

    model = nn.Linear(2, 1)
    model(lib.ones(1, 2)).sum().backward()
    model.zero_grad()
    none = model.weight.grad
    model(lib.ones(1, 2)).sum().backward()
    model.zero_grad(set_to_none=False)
    result["zero_grad(), zero_grad(set_to_none=False)"] = (none, model.weight.grad.tolist())
    return result


@pytest.fixture(scope="module")
def results():
    return chapter_results(glasstorch), chapter_results(torch)


def test_both_libraries_observe_the_same_things(results):
    assert_same_observations(*results)


def test_the_comparison_covers_the_chapter(results):
    assert len(results[0]) >= 20
