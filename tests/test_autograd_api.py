"""The autograd API around the engine, against PyTorch 2.13: autograd.functional, inference_mode,
anomaly mode, saved-tensor hooks, post-accumulate-grad hooks and the extensions of
autograd.Function (setup_context, once_differentiable, mark_dirty, mark_non_differentiable,
set_materialize_grads)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.autograd import gradcheck
from test_nn_vs_torch import outcomes, same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
X, Y = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))


def close(a, b):
    """Nested tuples of tensors compared as numbers (shapes included)."""
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y)
        return
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


# --- autograd.functional ---------------------------------------------------------------------------

def functions(lib):
    return {
        "exp_reducer": (lambda x: x.exp().sum(1), (lib.tensor(X),)),
        "pow_adder": (lambda x, y: 2 * x + 3 * y ** 2, (lib.tensor(X), lib.tensor(Y))),
        "two_outputs": (lambda x, y: ((x * y).sum(), x.tanh() * y), (lib.tensor(X), lib.tensor(Y))),
        "scalar": (lambda x: (x ** 3).sum() + (x[0] * x[1]).sum(), lib.tensor(X)),
        "pairwise": (lambda x, y: (x.exp() * y).sum() + (x * x * y).sum(), (lib.tensor(X), lib.tensor(Y))),
    }


@pytest.mark.parametrize("name", ["exp_reducer", "pow_adder", "two_outputs", "scalar", "pairwise"])
def test_jacobian(name):
    f, inputs = functions(gt)[name]
    g, tinputs = functions(torch)[name]
    close(gt.autograd.functional.jacobian(f, inputs), torch.autograd.functional.jacobian(g, tinputs))
    close(gt.autograd.functional.jacobian(f, inputs, vectorize=True, strategy="forward-mode"),
          torch.autograd.functional.jacobian(g, tinputs, vectorize=True, strategy="forward-mode"))


@pytest.mark.parametrize("name", ["scalar", "pairwise"])
def test_hessian_hvp_vhp(name):
    f, inputs = functions(gt)[name]
    g, tinputs = functions(torch)[name]
    F, T = gt.autograd.functional, torch.autograd.functional
    close(F.hessian(f, inputs), T.hessian(g, tinputs))
    v = tuple(rng.standard_normal(t.shape) for t in (tinputs if isinstance(tinputs, tuple) else (tinputs,)))
    gv = tuple(gt.tensor(a) for a in v) if isinstance(inputs, tuple) else gt.tensor(v[0])
    tv = tuple(torch.tensor(a) for a in v) if isinstance(tinputs, tuple) else torch.tensor(v[0])
    close(F.hvp(f, inputs, gv), T.hvp(g, tinputs, tv))
    close(F.vhp(f, inputs, gv), T.vhp(g, tinputs, tv))


@pytest.mark.parametrize("name", ["exp_reducer", "pow_adder", "two_outputs"])
def test_vjp_jvp(name):
    f, inputs = functions(gt)[name]
    g, tinputs = functions(torch)[name]
    F, T = gt.autograd.functional, torch.autograd.functional
    touts = g(*tinputs)
    u = tuple(torch.tensor(rng.standard_normal(o.shape)) for o in (touts if isinstance(touts, tuple) else (touts,)))
    tu = u if isinstance(touts, tuple) else u[0]
    gu = tuple(gt.tensor(a.numpy()) for a in u) if isinstance(touts, tuple) else gt.tensor(u[0].numpy())
    close(F.vjp(f, inputs, gu), T.vjp(g, tinputs, tu))
    v = tuple(rng.standard_normal(t.shape) for t in tinputs)
    close(F.jvp(f, inputs, tuple(gt.tensor(a) for a in v) if len(v) > 1 else gt.tensor(v[0])),
          T.jvp(g, tinputs, tuple(torch.tensor(a) for a in v) if len(v) > 1 else torch.tensor(v[0])))


def test_functional_create_graph_and_errors():
    def program(lib):
        F = lib.autograd.functional
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        jac = F.jacobian(lambda t: t ** 3, x, create_graph=True)
        (second,) = lib.autograd.grad(jac.sum(), x)
        results = [jac.requires_grad, second]
        calls = [lambda: F.vjp(lambda t: t * 2, x),
                 lambda: F.jvp(lambda t: t * 2, x, lib.ones(3)),
                 lambda: F.jacobian(lambda t: t * 2, [x]),
                 lambda: F.hessian(lambda t: t * 2, x),
                 lambda: F.jacobian(lambda t, s: t * 2, (x, lib.ones(2)), strict=True),
                 lambda: F.jacobian(lambda t: t, x, strategy="forward-mode"),
                 lambda: F.vhp(lambda t: (t * 2, t), x, lib.ones(2)),
                 lambda: F.hvp(lambda t: t.sum(), (x, x), (lib.ones(2),))]
        results += outcomes(calls)
        return results

    same_in_both(program)


# --- inference_mode --------------------------------------------------------------------------------

def test_inference_mode():
    def program(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            a = x * 2
            states = [lib.is_inference_mode_enabled(), lib.is_grad_enabled(), a.is_inference(), a.requires_grad]
            with lib.inference_mode(False):
                states += [lib.is_inference_mode_enabled(), lib.ones(1).is_inference()]
        states += [lib.is_inference_mode_enabled(), x.is_inference(), (a * 2).is_inference()]

        @lib.inference_mode()
        def predict(t):
            return t * 3

        @lib.inference_mode
        def bare(t):
            return t * 3

        states += [predict(x).is_inference(), bare(x).requires_grad]
        try:
            (a * x).sum().backward()
        except RuntimeError as error:
            states.append(str(error))
        return states

    same_in_both(program)



def test_inference_tensors_refused_outside_inference_mode():
    """What inference mode skips, and the errors that follow: no version counter (reading it, or an
    in-place change outside the mode, is refused), no view tracking, no requires_grad later."""
    def program(lib):
        with lib.inference_mode():
            a = lib.ones(4)
            view = a[:2]
            inside = [view._is_view(), view._base is None, view.is_inference()]
            a.add_(1)  # in place inside the mode: allowed
            normal = lib.ones(3)
            normal.mul_(2)  # a normal tensor changed in inference mode: its counter moves
            normal_view = normal[:1]
            inside += [normal._version, normal_view._is_view(), normal_view.is_inference()]
        outside = [a[:2].is_inference(), a[:2]._is_view(), (a * 2).is_inference(), a.clone().is_inference()]
        w = lib.ones(4, requires_grad=True)
        calls = [lambda: a._version, lambda: a.add_(1), lambda: a.zero_(), lambda: a.__setitem__(0, 5.),
                 lambda: a[:2].mul_(2), lambda: setattr(a, "requires_grad", True), lambda: a.requires_grad_(),
                 lambda: a.requires_grad_(False), lambda: (w * a).sum().backward(), lambda: (w + a).sum().backward(),
                 lambda: (w * a.clone()).sum().backward()]
        return inside, outside, outcomes(calls)

    same_in_both(program)


def test_no_grad_keeps_version_counters_and_views():
    def program(lib):
        with lib.no_grad():
            a = lib.ones(4)
            view = a[:2]
            view.add_(1)
        return [view._is_view(), view._base is a, a._version, a.is_inference()]

    same_in_both(program)


# --- anomaly mode ------------------------------------------------------------------------------------

def test_anomaly_mode_names_the_forward_call():
    def program(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                x = lib.tensor([0.0, 1.0], requires_grad=True)
                y = (x / x).sum()  # the line the warning must point at
                try:
                    y.backward()
                    message = "no error"
                except RuntimeError as error:
                    message = str(error)
                state = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
        texts = [str(w.message) for w in caught]
        return (message, state, lib.is_anomaly_enabled(), texts[0],
                texts[1].startswith("Error detected in DivBackward0. Traceback of forward call that caused the error:"),
                "y = (x / x).sum()  # the line the warning must point at" in texts[1])

    same_in_both(program)


def test_anomaly_hint_in_the_inplace_error_and_check_nan_off():
    def program(lib):
        results = []
        for mode in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with lib.autograd.set_detect_anomaly(mode, check_nan=False):
                    x = lib.tensor([1.0, 2.0], requires_grad=True)
                    y = x.exp()
                    z = y * 2
                    y.add_(1)
                    try:
                        z.sum().backward()
                    except RuntimeError as error:
                        results.append(str(error))
                    w = lib.tensor([0.0], requires_grad=True)
                    (w / w).sum().backward()  # check_nan=False: no error
                    results.append(bool(lib.isnan(w.grad).all()))
        return results

    same_in_both(program)


# --- saved tensor hooks -----------------------------------------------------------------------------

def test_saved_tensors_hooks_pack_and_unpack():
    def program(lib):
        log = []

        def pack(t):
            log.append(("pack", tuple(t.shape)))
            return t.detach().numpy().copy()  # anything may be stored

        def unpack(array):
            log.append(("unpack", array.shape))
            return lib.tensor(array)

        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.exp() * x
        log.append("backward")
        y.sum().backward()
        try:
            y.sum().backward()
        except RuntimeError as error:
            log.append(str(error)[:40])
        return log, x.grad.numpy().round(12).tolist()

    got = same_in_both(program)
    assert ("unpack", (2,)) in got[0]


def test_saved_tensors_hooks_can_change_what_backward_sees():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 10):
            y = x * x
        y.sum().backward()
        with lib.autograd.graph.save_on_cpu():
            z = (x * x).sum()
        z.backward()
        return x.grad

    same_in_both(program)


# --- post accumulate grad hooks ------------------------------------------------------------------------

def test_post_accumulate_grad_hook():
    def program(lib):
        seen = []
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        handle = p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        (p * 3).sum().backward()
        (p * p).sum().backward()
        handle.remove()
        (p * 3).sum().backward()
        for bad in (lambda: (p * 2).register_post_accumulate_grad_hook(print),
                    lambda: lib.ones(2).register_post_accumulate_grad_hook(print)):
            try:
                bad()
            except RuntimeError as error:
                seen.append(str(error))
        return seen

    same_in_both(program)


def test_post_accumulate_grad_hook_as_optimizer_step():
    """The PyTorch tutorial's pattern: step each parameter as soon as its gradient is ready."""
    def program(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        model.load_state_dict({"weight": lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]),
                               "bias": lib.tensor([0.1, 0.2])})
        optimizers = {p: lib.optim.SGD([p], lr=0.1) for p in model.parameters()}

        def step(p):
            optimizers[p].step()
            optimizers[p].zero_grad()

        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step)
        for _ in range(3):
            model(lib.tensor([[1.0, 2.0, 3.0]])).pow(2).sum().backward()
        return {k: v.numpy().round(5).tolist() for k, v in model.state_dict().items()}

    same_in_both(program)


# --- autograd.Function extensions --------------------------------------------------------------------

def test_setup_context_and_once_differentiable():
    def program(lib):
        from_fn = lib.autograd.function

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]
                ctx.save_for_backward(inputs[0])

            @staticmethod
            @from_fn.once_differentiable
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * ctx.k * x * 0 + grad * ctx.k, None

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = Scale.apply(x, 3.0)
        results = [type(y.grad_fn).__name__]
        y.sum().backward()
        results.append(x.grad)
        z = Scale.apply(x * x, 2.0)
        (g,) = lib.autograd.grad(z.sum(), x, create_graph=True)
        results.append(g)
        upstream = lib.tensor([1.0, 1.0], requires_grad=True)
        (g2,) = lib.autograd.grad(Scale.apply(x, 2.0), x, upstream, create_graph=True)
        results.append((g2.requires_grad, type(g2.grad_fn).__name__, repr(g2).split("grad_fn=")[1]))
        try:
            g2.sum().backward()
        except RuntimeError as error:
            results.append(str(error))
        return results

    same_in_both(program)


def test_mark_dirty_and_mark_non_differentiable():
    def program(lib):
        class AddOneInPlace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        class Sort(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                values, indices = x.sort()
                ctx.mark_non_differentiable(indices)
                ctx.save_for_backward(indices)
                return values, indices

            @staticmethod
            def backward(ctx, grad_values, grad_indices):
                (indices,) = ctx.saved_tensors
                seen.append(grad_indices if grad_indices is None else (grad_indices.tolist(), str(grad_indices.dtype)))
                return lib.zeros_like(grad_values).scatter(0, indices, grad_values * lib.tensor([1.0, 2.0, 3.0]))

        class SortNoMaterialize(Sort):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return Sort.forward(ctx, x)

        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = AddOneInPlace.apply(y)
        results = [z is y, y._version, type(y.grad_fn).__name__]
        z.sum().backward()
        results.append(x.grad)
        try:
            AddOneInPlace.apply(x)
        except RuntimeError as error:
            results.append(str(error))
        for function in (Sort, SortNoMaterialize):
            t = lib.tensor([3.0, 1.0, 2.0], requires_grad=True)
            values, indices = function.apply(t)
            results += [values.requires_grad, indices.requires_grad, indices.grad_fn is None]
            values.sum().backward()
            results.append(t.grad)
        return results, seen

    same_in_both(program)


def test_gradcheck_through_a_setup_context_function():
    class Cube(gt.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    x = gt.randn(4, dtype=gt.float64, requires_grad=True)
    assert gradcheck(Cube.apply, (x,))


def test_numpy_inside_a_function_forward():
    """PyTorch's mark_dirty example: forward runs under no_grad, where numpy() of an input that
    requires grad is allowed (outside, it is refused)."""
    def program(lib):
        class Inplace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x_npy = x.numpy()  # shares storage with x
                x_npy += 1
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output

        a = lib.tensor(1.0, requires_grad=True, dtype=lib.double).clone()
        b = a * a
        Inplace.apply(a)
        try:
            b.backward()
            first = "no error"
        except RuntimeError as error:
            first = str(error).split(";")[0]
        try:
            lib.ones(2, requires_grad=True).numpy()
            second = "no error"
        except RuntimeError as error:
            second = str(error)
        return first, second, a.item()

    same_in_both(program)
