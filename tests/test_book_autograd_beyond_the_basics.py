"""Chapter 08 (autograd beyond the basics): its key behaviours in glasstorch and in PyTorch 2.13,
which must agree. Anomaly mode naming the forward line, inference_mode against no_grad, saved
tensor hooks (what is saved, float16 packing), activation checkpointing (fewer saved tensors,
the same gradients), Node hooks and post-accumulate-grad hooks, the full custom Function, double
backward, Hessian-vector products, a gradient penalty, autograd.functional."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from test_nn_vs_torch import outcomes, run

import glasstorch

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
import torch.utils.checkpoint  # noqa: E402,F401

pytestmark = pytest.mark.torch


def rounded(value):
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, (list, tuple)):
        return type(value)(rounded(v) for v in value)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


def same_in_both(program):
    got, want = rounded(run(program, glasstorch)), rounded(run(program, torch))
    assert got == want
    return got


def test_anomaly_mode_names_the_sqrt_line():
    def program(lib):
        x = lib.tensor([4., -1., 9.], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught, lib.autograd.set_detect_anomaly(True):
            warnings.simplefilter("always")
            h = x.sqrt()  # the line anomaly mode must name
            loss = (h * 2).sum()
            try:
                loss.backward()
                error = None
            except RuntimeError as e:
                error = str(e)
        message = next(str(w.message) for w in caught if "Error detected" in str(w.message))
        lines = [line.strip() for line in message.splitlines()]
        return error, lines[0], any(line.startswith("h = x.sqrt()") for line in lines)

    error, first, names_the_line = same_in_both(program)
    assert error == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert first.startswith("Error detected in SqrtBackward0") and names_the_line


def test_where_hides_a_nan_gradient():
    def program(lib):
        x = lib.tensor([4., -1., 9.], requires_grad=True)
        out = lib.where(x > 0, x.sqrt(), 0.).sum()
        out.backward()
        return out.item(), [v if v == v else "nan" for v in x.grad.tolist()]

    same_in_both(program)


def test_inference_mode_against_no_grad():
    def program(lib):
        w = lib.ones(4, requires_grad=True)
        with lib.no_grad():
            a = w * 2
            a_view = a[:2]
        with lib.inference_mode():
            b = w * 2
            b_view = b[:2]
        facts = [(t.requires_grad, t.is_inference(), v._is_view()) for t, v in ((a, a_view), (b, b_view))]
        calls = [lambda: b._version, lambda: (w * b).sum().backward(), lambda: b.add_(1),
                 lambda: (w * b.clone()).sum().backward(), lambda: a.add_(1)]
        return facts, a._version, outcomes(calls)

    same_in_both(program)


def test_what_saved_tensors_hooks_see_and_half_precision_packing():
    def program(lib):
        seen = []

        def pack(t):
            seen.append((tuple(t.shape), str(t.dtype).split(".")[1]))
            return t

        x = lib.tensor([1., 2., 3.], requires_grad=True)
        w = lib.tensor([0.5, -1., 2.], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = (x.exp() * w).sum()
        y.backward()

        def pack_half(t):
            return t.dtype, t.half()

        def unpack_half(packed):
            return packed[1].to(packed[0])

        x16 = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=lib.float32, requires_grad=True)
        weight = lib.tensor(np.linspace(-0.5, 0.7, 16).reshape(4, 4), dtype=lib.float32, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack_half, unpack_half):
            loss = (x16 @ weight).tanh().pow(2).sum()
        loss.backward()
        return seen, x.grad, w.grad, loss.item(), float((weight.grad.abs()).max())

    same_in_both(program)


def test_checkpointing_the_chapters_blocks():
    def program(lib):
        counts, grads = {}, {}
        weights = [(np.linspace(-0.3, 0.3, 32 * 8).reshape(32, 8) * (k + 1), np.linspace(-0.2, 0.2, 8 * 32).reshape(8, 32))
                   for k in range(3)]
        for use in (False, True):
            blocks = []
            for w1, w2 in weights:
                first, second = lib.nn.Linear(8, 32).double(), lib.nn.Linear(32, 8).double()
                with lib.no_grad():
                    first.weight.copy_(lib.tensor(w1))
                    first.bias.zero_()
                    second.weight.copy_(lib.tensor(w2))
                    second.bias.fill_(0.1)
                blocks.append(lib.nn.Sequential(first, lib.nn.GELU(), second, lib.nn.Tanh()))
            starts = []
            for block in blocks:
                block.register_forward_pre_hook(lambda m, i: starts.append(1))
            packed = []
            h = lib.tensor(np.linspace(-1, 1, 32).reshape(4, 8), requires_grad=True)
            x = h
            with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
                for block in blocks:
                    h = lib.utils.checkpoint.checkpoint(block, h, use_reentrant=False) if use else block(h)
            h.pow(2).sum().backward()
            counts[use] = (len(packed), len(starts))
            grads[use] = [x.grad.tolist()] + [p.grad.tolist() for b in blocks for p in b.parameters()]
        same = all(np.allclose(g, h, rtol=0, atol=0) for g, h in zip(grads[False], grads[True]))
        return counts, grads[True], same

    counts, _, same = same_in_both(program)
    assert counts == {False: (18, 3), True: (3, 6)} and same


def test_node_hooks_and_an_optimizer_step_in_backward():
    def program(lib):
        order = []
        a = lib.tensor([2.], requires_grad=True)
        b = a * 3
        b.register_hook(lambda g: order.append(("tensor hook", g.tolist())))
        b.grad_fn.register_prehook(lambda go: order.append(("pre-hook", [g.tolist() for g in go])))
        b.grad_fn.register_hook(lambda gi, go: order.append(
            ("hook", [None if g is None else g.tolist() for g in gi], [g.tolist() for g in go])))
        (b * b).sum().backward()

        def model_and_data():
            model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
            with lib.no_grad():
                for k, p in enumerate(model.parameters()):
                    p.copy_(lib.tensor(np.linspace(-0.5, 0.5, p.numel()).reshape(tuple(p.shape)) * (k + 1),
                                       dtype=lib.float32))
            x = lib.tensor(np.linspace(-1, 1, 15).reshape(5, 3), dtype=lib.float32)
            return model, x, lib.tensor(np.linspace(0, 1, 5).reshape(5, 1), dtype=lib.float32)

        model, x, y = model_and_data()

        def step(param):
            with lib.no_grad():
                param.add_(param.grad, alpha=-0.1)
            param.grad = None

        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step)
        for _ in range(3):
            ((model(x) - y) ** 2).mean().backward()
        reference, x, y = model_and_data()
        optimizer = lib.optim.SGD(reference.parameters(), lr=0.1)
        for _ in range(3):
            optimizer.zero_grad()
            ((reference(x) - y) ** 2).mean().backward()
            optimizer.step()
        same = all(np.allclose(p.detach().numpy(), q.detach().numpy()) for p, q in
                   zip(model.parameters(), reference.parameters()))
        return order, a.grad, same, [p.grad for p in model.parameters()]

    order, _, same, grads = same_in_both(program)
    assert same and grads == [None] * 4 and [o[0] for o in order] == ["tensor hook", "pre-hook", "hook"]


def functions(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

    class SortWithIndices(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.sort()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])
            ctx.save_for_backward(output[1])
            ctx.set_materialize_grads(False)

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            grad = lib.zeros_like(grad_values)
            grad[indices] = grad_values
            return grad, grad_indices is None

    class Double_(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.mul_(2)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_dirty(inputs[0])

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2

    return Cube, SortWithIndices, Double_


def test_the_full_custom_function():
    def program(lib):
        Cube, SortWithIndices, Double_ = functions(lib)
        x = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
        checks = (lib.autograd.gradcheck(Cube.apply, (x,)), lib.autograd.gradgradcheck(Cube.apply, (x,)))
        s = lib.tensor([3., 1., 2.], requires_grad=True)
        values, indices = SortWithIndices.apply(s)
        (values * lib.tensor([1., 10., 100.])).sum().backward()
        a = lib.tensor([1., 2.], requires_grad=True)
        b = a * 1
        out = Double_.apply(b)
        b.sum().backward()
        return (checks, values, indices, indices.requires_grad, s.grad, out is b, b.grad_fn.name(), b._version,
                a.grad, outcomes([lambda: Double_.apply(a)]))

    same_in_both(program)


def test_once_differentiable_refuses_a_second_derivative():
    def program(lib):
        from_numpy = lib.from_numpy
        once = (glasstorch.autograd.function.once_differentiable if lib is glasstorch
                else torch.autograd.function.once_differentiable)

        class NumpyExp(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return from_numpy(np.exp(x.detach().numpy()))

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(output)

            @staticmethod
            @once
            def backward(ctx, grad_output):
                (result,) = ctx.saved_tensors
                return from_numpy(grad_output.numpy() * result.numpy())

        x = lib.tensor([0., 1.], dtype=lib.float64, requires_grad=True)
        v = lib.ones(2, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(NumpyExp.apply(x), x, grad_outputs=v, create_graph=True)
        return g.detach(), g.requires_grad, outcomes([lambda: g.sum().backward()])

    same_in_both(program)


def test_higher_order_gradients():
    def program(lib):
        x = lib.tensor(2., requires_grad=True)
        (first,) = lib.autograd.grad(x ** 3, x, create_graph=True)
        names = [first.grad_fn.name()]
        first.backward()
        y = lib.tensor(2., requires_grad=True)
        (no_graph,) = lib.autograd.grad(y ** 3, y)

        def f(t):
            return (t ** 3).sum() + t[0] * t[1] * t[2]

        z = lib.tensor([1., 2., 3.], requires_grad=True)
        v = lib.tensor([1., 0., -1.])
        (grad,) = lib.autograd.grad(f(z), z, create_graph=True)
        (hv,) = lib.autograd.grad((grad * v).sum(), z)
        functional = lib.autograd.functional
        return (first, names, x.grad, no_graph.requires_grad, no_graph.grad_fn, hv, functional.hvp(f, z, v)[1],
                functional.hessian(f, z), functional.jacobian(lambda t: t ** 2, z))

    same_in_both(program)


def test_gradient_penalty_reaches_the_weights():
    def program(lib):
        critic = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Tanh(), lib.nn.Linear(3, 1)).double()
        with lib.no_grad():
            for k, p in enumerate(critic.parameters()):
                p.copy_(lib.tensor(np.linspace(-0.8, 0.9, p.numel()).reshape(tuple(p.shape)) / (k + 1)))
        samples = lib.tensor(np.linspace(-1, 1, 10).reshape(5, 2), requires_grad=True)
        (grad_x,) = lib.autograd.grad(critic(samples).sum(), samples, create_graph=True)
        penalty = ((grad_x.pow(2).sum(1).sqrt() - 1) ** 2).mean()
        penalty.backward()
        return penalty, [p.grad for p in critic.parameters()]

    same_in_both(program)


def test_checkpoint_warns_without_use_reentrant():
    def program(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.utils.checkpoint.checkpoint(lambda t: t.sin(), lib.ones(2, requires_grad=True))
        return [(w.category.__name__, re.sub(r"\s+", " ", str(w.message))) for w in caught]

    [(category, message)] = same_in_both(program)
    assert category == "UserWarning" and "use_reentrant parameter should be passed explicitly" in message
