"""Chapter 12 (Module hooks and __call__) against real PyTorch: the chapter's programs, run with both libraries.

This is the comparison that used to close book/12_module_hooks_and_call.ipynb (issue 16 moved it here); the chapter keeps
one short "Compare with PyTorch" cell. ``chapter_results(lib)`` runs the chapter's key lines with
``lib`` = glasstorch or torch and returns what it observed (the source notes' four hook experiments printout for printout, every other hook of the chapter, the hook timelines, and every warning given along the way); the test asserts that the two
libraries agree on every entry. Strings are compared with ``glasstorch`` read as ``torch``.
"""
import contextlib
import io
import warnings

import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: chapter 12's comparisons with real PyTorch are skipped "
                    "(pip install torch==2.13.0)")

import glasstorch  # noqa: E402
from glasstorch.viz import record_hooks  # noqa: E402
from course_support import assert_same_observations  # noqa: E402


def forward_hook_fn(module, input, output):
    print(module)
    print('feature input:', input)
    print('feature output:', output)


def backward_hook_fn(module, grad_input, grad_output):
    print(module)
    print('gradient input:', grad_input)
    print('gradient output:', grad_output)

pytestmark = pytest.mark.torch


def chapter_results(lib):
    nn = lib.nn
    results, caught_warnings = {}, []

    def printed(program):
        buffer = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buffer):
            warnings.simplefilter("always")
            program()
        caught_warnings.extend(f"{w.category.__name__}: {w.message}".replace("glasstorch", "torch") for w in caught)
        return buffer.getvalue().replace("glasstorch", "torch")

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(1, 2, bias=False)
            self.fc2 = nn.Linear(2, 1, bias=False)
            self.fc1.weight = nn.Parameter(lib.tensor([[2.], [2.]]))
            self.fc2.weight = nn.Parameter(lib.tensor([2., 2.]))

        def forward(self, x):
            return self.fc2(self.fc1(x))

    def notes_example(on_children, full):
        def program():
            model = Net()
            for m in (model.children() if on_children else [model]):
                m.register_forward_hook(forward_hook_fn)
                (m.register_full_backward_hook if full else m.register_backward_hook)(backward_hook_fn)
            x = lib.tensor([2.], requires_grad=True)
            model(x).backward()
            print(x.grad)
        return program

    for full in (False, True):
        for on_children in (True, False):
            key = f"notes: {'full' if full else 'legacy'} hooks on {'children' if on_children else 'the model'}"
            results[key] = printed(notes_example(on_children, full))

    def post_hook_by_hand():
        out = Net()(lib.tensor([2.], requires_grad=True))
        out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: print(grad_inputs, grad_outputs))
        out.backward()
    results["post-hook on out.grad_fn"] = printed(post_hook_by_hand)

    def step_by_step():
        class Scale(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(lib.tensor([3.]))
            def forward(self, x):
                print("forward", x)
                return self.w * x
        scale = Scale()
        scale.register_forward_pre_hook(lambda m, args: print("pre", args))
        scale.register_forward_hook(lambda m, args, output: print("hook", output))
        scale.register_full_backward_pre_hook(lambda m, grad_output: print("backward pre", grad_output))
        scale.register_full_backward_hook(lambda m, grad_input, grad_output: print("backward", grad_input))
        x = lib.tensor([2.], requires_grad=True)
        y = scale(x)
        print("returned", y)
        y.backward()
        print(x.grad)
    results["__call__ step by step"] = printed(step_by_step)

    def forward_hooks():
        lin = nn.Linear(2, 1, bias=False)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor([[1., 10.]]))
        x = lib.tensor([1., 2.])
        print(lin(x))
        lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        print(lin(x))
        lin.register_forward_pre_hook(lambda m, args: args[0] + 1)
        print(lin(x))
        lin.register_forward_hook(lambda m, args, output: output.clamp(max=10.))
        print(lin(x))
        lin.forward(x)
        class Multiply(nn.Module):
            def forward(self, x, *, factor=1.0):
                return x * factor
        multiply = Multiply()
        multiply.register_forward_pre_hook(lambda m, a, k: (a, {**k, "factor": 10.0}), with_kwargs=True)
        multiply.register_forward_hook(lambda m, a, k, out: print(a, k, out), with_kwargs=True)
        print(multiply(lib.tensor([1.]), factor=2.0))
        multiply.register_forward_pre_hook(lambda m, a, k: a, with_kwargs=True)
        try:
            multiply(lib.tensor([1.]))
        except RuntimeError as e:
            print(e)
    results["pre-hooks, forward hooks, with_kwargs"] = printed(forward_hooks)

    def order_and_errors():
        order = []
        identity = nn.Identity()
        identity.register_forward_hook(lambda m, a, o: order.append("A"))
        identity.register_forward_hook(lambda m, a, o: order.append("B"))
        identity.register_forward_hook(lambda m, a, o: order.append("C"), prepend=True)
        identity(lib.tensor(1.))
        print(order)
        class Broken(nn.Module):
            def forward(self, x):
                raise ValueError("forward failed")
        broken = Broken()
        broken.register_forward_hook(lambda m, a, o: print("ordinary"))
        broken.register_forward_hook(lambda m, a, o: print("always", o), always_call=True)
        try:
            broken(lib.tensor(1.))
        except ValueError as e:
            print(e)
        class Forgot(nn.Module):
            pass
        try:
            Forgot()(lib.ones(2))
        except NotImplementedError as e:
            print(e)
        layer = nn.Linear(1, 1)
        layer.register_backward_hook(backward_hook_fn)
        try:
            layer.register_full_backward_hook(backward_hook_fn)
        except RuntimeError as e:
            print(e)
        lin = nn.Linear(2, 1)
        with lin.register_forward_hook(lambda m, a, o: print("inside")):
            lin(lib.ones(2))
        lin(lib.ones(2))
        print(len(lin._forward_hooks))
    results["order, always_call, errors, handles"] = printed(order_and_errors)

    def backward_hooks():
        layer = nn.Linear(2, 1)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor([[1., 10.]]))
            layer.bias.fill_(0.5)
        layer.register_backward_hook(lambda m, grad_input, grad_output: print(grad_input))
        batch = lib.tensor([[1., 2.]], requires_grad=True)
        layer(batch).sum().backward()
        for hook_kind in ("full", "pre"):
            layer = nn.Linear(2, 1, bias=False)
            with lib.no_grad():
                layer.weight.copy_(lib.tensor([[1., 2.]]))
            x = lib.tensor([1., 1.], requires_grad=True)
            if hook_kind == "full":
                layer.register_full_backward_hook(lambda m, gi, go: (gi[0] * 100,))
            else:
                layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
            layer(x).sum().backward()
            print(x.grad, layer.weight.grad)
        layer.register_full_backward_hook(lambda m, gi, go: print(gi, go))
        layer(lib.tensor([1., 1.])).sum().backward()
    results["legacy on Linear, full hook, pre-hook"] = printed(backward_hooks)

    def timelines():
        model = Net()
        with record_hooks(model, name="model") as timeline:
            model(lib.tensor([2.], requires_grad=True)).backward()
        print(timeline)
        with record_hooks(model, name="model") as timeline:
            model(lib.tensor([2.])).backward()
        print(timeline)
    results["record_hooks timelines"] = printed(timelines)

    def global_hooks():
        small = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
        with lib.nn.modules.module.register_module_forward_hook(lambda m, a, o: print(type(m).__name__)):
            small(lib.ones(2, 4))
        small(lib.ones(2, 4))
    results["global hooks"] = printed(global_hooks)

    def mlp_table():
        mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
        with lib.no_grad():
            for p in mlp.parameters():
                p.copy_((((lib.arange(p.numel()) * 7) % 11 - 5) / 10).reshape(p.shape))
        activations, grad_norms = {}, {}
        for name, layer in mlp.named_children():
            layer.register_forward_hook(lambda m, a, o, name=name: activations.update({name: o.detach()}))
            layer.register_full_backward_hook(
                lambda m, gi, go, name=name: grad_norms.update({name: go[0].pow(2).sum().sqrt().item()}))
        mlp(lib.linspace(-1, 1, 12).reshape(3, 4)).pow(2).mean().backward()
        for name in activations:
            print(name, tuple(activations[name].shape), round((activations[name] == 0).float().mean().item(), 4),
                  round(grad_norms[name], 4))
    results["MLP activations and gradient norms"] = printed(mlp_table)
    results["warnings, in order"] = caught_warnings
    return results


@pytest.fixture(scope="module")
def results():
    return chapter_results(glasstorch), chapter_results(torch)


def test_both_libraries_observe_the_same_things(results):
    assert_same_observations(*results)


def test_the_comparison_covers_the_chapter(results):
    assert len(results[0]) >= 8
