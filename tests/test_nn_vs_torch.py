"""nn.Module against real PyTorch: the same module programs, run with both libraries.

Each program takes the library (``glasstorch`` or ``torch``) as ``lib`` and returns what it
observed: names and their order, state_dict keys, hook calls and their arguments, reprs,
exception types and messages. Printed names are normalised (``torch.`` -> ``glasstorch.``).
"""
from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)"
)

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def normalise(value):
    """Reprs and messages as glasstorch prints them; tensors as numpy arrays; recursively."""
    if isinstance(value, str):
        text = re.sub(r"0x[0-9a-f]+", "0x", value)
        return re.sub(r"(?<!glass)torch\.", "glasstorch.", text)
    if isinstance(value, (torch.Tensor, glasstorch.Tensor)):
        return ("tensor", value.detach().numpy().tolist(), normalise(str(value.dtype)))
    if isinstance(value, dict):
        return {normalise(k): normalise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(normalise(v) for v in value)
    if isinstance(value, BaseException):
        return (type(value).__name__, normalise(str(value)))
    return value


def run(program, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return normalise(program(lib))
        except Exception as error:  # noqa: BLE001 - the exception is what we compare
            return ("raised", normalise(error))


def outcomes(calls) -> list:
    """What each call did: "no error", or its exception's type and message (compared between the
    two libraries: the same error type and PyTorch's words)."""
    results = []
    for call in calls:
        try:
            call()
            results.append("no error")
        except Exception as error:  # noqa: BLE001 - any error is an outcome to compare
            results.append((type(error).__name__, str(error)))
    return results


def same_in_both(program) -> object:
    got, want = run(program, glasstorch), run(program, torch)
    assert got == want
    return got


def two_layer(lib, bias: bool = True):
    """A small tree: a Sequential inside a Module, a buffer, a shared Linear."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 3, bias=bias)
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("scratch", lib.ones(1), persistent=False)

        def forward(self, x):
            return self.fc(x).relu()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
            self.shared = self.head[0]  # the same Linear under two names
            self.scale = nn.Parameter(lib.tensor(2.0))

        def forward(self, x):
            return self.head(self.block(x)) * self.scale

    torch_like = Net()
    # fixed values, so that numbers agree between the libraries
    with lib.no_grad():
        for i, p in enumerate(torch_like.parameters()):
            p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) * 0.1 - 0.2 + 0.05 * i)
    return torch_like


# --- registration -----------------------------------------------------------------------------
def test_init_state_has_pytorchs_attributes():
    names = ["training", "_parameters", "_buffers", "_non_persistent_buffers_set", "_backward_pre_hooks",
             "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs", "_forward_pre_hooks",
             "_forward_pre_hooks_with_kwargs", "_state_dict_hooks", "_state_dict_pre_hooks",
             "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "_modules"]
    got = same_in_both(lambda lib: [type(vars(lib.nn.Module())[n]).__name__ for n in names])
    assert got[0] == "bool"


ASSIGN_BEFORE_INIT = {
    "parameter": lambda lib, m: setattr(m, "w", lib.nn.Parameter(lib.ones(1))),
    "module": lambda lib, m: setattr(m, "sub", lib.nn.Linear(1, 1)),
    "buffer": lambda lib, m: m.register_buffer("b", lib.ones(1)),
    "register_parameter": lambda lib, m: m.register_parameter("w", None),
}


@pytest.mark.parametrize("case", sorted(ASSIGN_BEFORE_INIT))
def test_assigning_before_super_init_raises(case):
    def program(lib):
        class Early(lib.nn.Module):
            def __init__(self):
                ASSIGN_BEFORE_INIT[case](lib, self)
                super().__init__()

        Early()

    kind, (error_type, message) = same_in_both(program)
    assert kind == "raised" and error_type == "AttributeError" and "before Module.__init__() call" in message


REGISTRATION_ERRORS = {
    "param_name_not_str": lambda lib, m: m.register_parameter(1, None),
    "param_name_dot": lambda lib, m: m.register_parameter("a.b", None),
    "param_name_empty": lambda lib, m: m.register_parameter("", None),
    "param_name_exists": lambda lib, m: m.register_parameter("training", None),
    "param_not_parameter": lambda lib, m: m.register_parameter("w", lib.ones(1)),
    "param_non_leaf": lambda lib, m: m.register_parameter("w", _non_leaf_parameter(lib)),
    "buffer_name_not_str": lambda lib, m: m.register_buffer(1, lib.ones(1)),
    "buffer_name_dot": lambda lib, m: m.register_buffer("a.b", lib.ones(1)),
    "buffer_name_empty": lambda lib, m: m.register_buffer("", lib.ones(1)),
    "buffer_name_exists": lambda lib, m: m.register_buffer("forward", lib.ones(1)),
    "buffer_not_tensor": lambda lib, m: m.register_buffer("b", [1.0]),
    "module_not_module": lambda lib, m: m.add_module("sub", lib.ones(1)),
    "module_name_not_str": lambda lib, m: m.add_module(3, lib.nn.ReLU()),
    "module_name_dot": lambda lib, m: m.add_module("a.b", lib.nn.ReLU()),
    "module_name_empty": lambda lib, m: m.add_module("", lib.nn.ReLU()),
    "module_name_exists": lambda lib, m: m.add_module("train", lib.nn.ReLU()),
    "tensor_to_parameter_name": lambda lib, m: (m.register_parameter("w", None), setattr(m, "w", lib.ones(1))),
    "tensor_to_module_name": lambda lib, m: (m.add_module("sub", None), setattr(m, "sub", lib.ones(1))),
    "number_to_buffer_name": lambda lib, m: (m.register_buffer("b", None), setattr(m, "b", 3)),
    "missing_attribute": lambda lib, m: m.nothing_here,
}


def _non_leaf_parameter(lib):
    p = lib.nn.Parameter(lib.ones(1))
    q = p * 2
    q.__class__ = lib.nn.Parameter  # a Parameter that is not a leaf: only possible by force
    return q


@pytest.mark.parametrize("case", sorted(REGISTRATION_ERRORS))
def test_registration_errors(case):
    kind, _ = same_in_both(lambda lib: REGISTRATION_ERRORS[case](lib, lib.nn.Module()))
    assert kind == "raised"


def test_setattr_routes_values_to_the_three_dictionaries():
    def program(lib):
        m = lib.nn.Module()
        m.p = lib.nn.Parameter(lib.ones(1))
        m.sub = lib.nn.ReLU()
        m.register_buffer("buf", lib.zeros(2))
        m.buf = lib.ones(2)  # a tensor assigned to a buffer's name replaces the buffer
        m.plain = lib.ones(3)  # any other tensor is a plain attribute
        m.p = None  # None may replace a parameter (it stays registered, as None)
        seen = (list(m._parameters), list(m._modules), list(m._buffers), "plain" in vars(m), m.buf)
        m.sub = lib.nn.Parameter(lib.ones(1))  # a Parameter under a module's name moves it
        del m.buf
        return seen + (list(m._parameters), list(m._modules), list(m._buffers))

    same_in_both(program)


def test_get_submodule_parameter_buffer_and_their_errors():
    def program(lib):
        net = two_layer(lib)
        found = [net.get_submodule("block.fc").extra_repr(), net.get_parameter("head.2.bias"),
                 net.get_buffer("block.running"), net.get_submodule("") is net]
        for call in (lambda: net.get_submodule("block.nope"), lambda: net.get_submodule("scale.x"),
                     lambda: net.get_parameter("block.running"), lambda: net.get_buffer("block.fc"),
                     lambda: net.get_parameter("head.9.weight"), lambda: net.get_buffer("head.0.weight")):
            try:
                call()
            except Exception as error:  # noqa: BLE001
                found.append(error)
        return found

    same_in_both(program)


# --- traversal --------------------------------------------------------------------------------
def test_named_members_names_and_order():
    def program(lib):
        net = two_layer(lib)
        return {
            "modules": [name for name, _ in net.named_modules()],
            "modules_dup": [name for name, _ in net.named_modules(remove_duplicate=False)],
            "modules_prefix": [name for name, _ in net.named_modules(prefix="net")],
            "children": [name for name, _ in net.named_children()],
            "params": [name for name, _ in net.named_parameters()],
            "params_dup": [name for name, _ in net.named_parameters(remove_duplicate=False)],
            "params_local": [name for name, _ in net.named_parameters(recurse=False)],
            "params_prefix": [name for name, _ in net.named_parameters(prefix="model")],
            "buffers": [name for name, _ in net.named_buffers()],
            "n_parameters": len(list(net.parameters())),
            "n_modules": len(list(net.modules())),
            "n_children": len(list(net.children())),
        }

    got = same_in_both(program)
    assert "shared" not in got["modules"] and "shared" in got["modules_dup"]


def test_repr_and_dir():
    def program(lib):
        net = two_layer(lib, bias=False)
        names = [n for n in dir(net) if not n.startswith("_") and n in ("block", "head", "scale", "shared")]
        return repr(net), repr(lib.nn.Module()), names, "0" in dir(net.head)

    text = same_in_both(program)[0]
    assert "(head): Sequential(" in text


# --- _apply and modes ---------------------------------------------------------------------------
def test_apply_visits_children_before_self():
    def program(lib):
        visited = []
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Linear(2, 1)))
        net.apply(lambda m: visited.append(type(m).__name__))
        return visited

    assert same_in_both(program) == ["Linear", "ReLU", "Linear", "Sequential", "Sequential"]


CONVERSIONS = {
    "double": lambda lib, m: m.double(),
    "half": lambda lib, m: m.half(),
    "bfloat16": lambda lib, m: m.bfloat16(),
    "float_after_double": lambda lib, m: m.double().float(),
    "to_dtype": lambda lib, m: m.to(lib.float64),
    "to_dtype_keyword": lambda lib, m: m.to(dtype=lib.float16),
    "to_tensor": lambda lib, m: m.to(lib.ones(1, dtype=lib.float64)),
    "to_cpu_and_dtype": lambda lib, m: m.to("cpu", lib.float64),
    "type_double": lambda lib, m: m.type(lib.float64),
    "cpu": lambda lib, m: m.cpu(),
    "to_int_dtype": lambda lib, m: m.to(lib.int64),
}


@pytest.mark.parametrize("case", sorted(CONVERSIONS))
def test_conversions_change_every_tensor_in_place(case):
    def program(lib):
        bn = lib.nn.BatchNorm1d(2)
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), bn)
        weight = net[0].weight
        net(lib.ones(3, 2)).sum().backward()
        result = CONVERSIONS[case](lib, net)
        return (result is net, net[0].weight is weight, str(weight.dtype), str(weight.grad.dtype),
                [str(b.dtype) for b in net.buffers()], weight.requires_grad)

    same_in_both(program)


def test_train_eval_recursion_and_its_error():
    def program(lib):
        net = two_layer(lib)
        flags = [[m.training for m in net.modules()]]
        net.eval()
        flags.append([m.training for m in net.modules()])
        net.block.train()
        flags.append([m.training for m in net.modules()])
        try:
            net.train("yes")
        except ValueError as error:
            flags.append(error)
        return flags

    same_in_both(program)


def test_requires_grad_and_zero_grad():
    def program(lib):
        net = two_layer(lib)
        net(lib.ones(4, 2)).sum().backward()
        seen = [net.head[2].bias.grad]
        net.zero_grad(set_to_none=False)
        seen.append(net.head[2].bias.grad)
        net.zero_grad()
        seen.append(net.head[2].bias.grad is None)
        net.block.requires_grad_(False)
        seen.append([name for name, p in net.named_parameters() if p.requires_grad])
        return seen

    same_in_both(program)


# --- calling and hooks --------------------------------------------------------------------------
def test_forward_hook_call_order_and_replacement():
    def program(lib):
        calls = []
        net = two_layer(lib)
        lin = net.head[2]
        h1 = lin.register_forward_pre_hook(lambda m, args: calls.append(("pre", len(args))))
        lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))  # replaces the input
        lin.register_forward_pre_hook(lambda m, args, kwargs: calls.append(("pre_kw", sorted(kwargs))),
                                      with_kwargs=True)
        lin.register_forward_pre_hook(lambda m, args: calls.append("first"), prepend=True)
        lin.register_forward_hook(lambda m, args, out: calls.append(("fwd", out.shape[-1])))
        lin.register_forward_hook(lambda m, args, out: out + 100)  # replaces the output
        lin.register_forward_hook(lambda m, args, kwargs, out: calls.append(("fwd_kw", out)), with_kwargs=True)
        out = net(lib.ones(2, 2))
        h1.remove()
        net(lib.ones(1, 2))
        return calls, out

    same_in_both(program)


def test_global_hooks_run_before_module_hooks():
    def program(lib):
        calls = []
        module_api = lib.nn.modules.module
        handles = [module_api.register_module_forward_pre_hook(lambda m, a: calls.append(("gpre", type(m).__name__))),
                   module_api.register_module_forward_hook(lambda m, a, o: calls.append(("gfwd", type(m).__name__)))]
        try:
            lin = lib.nn.Linear(1, 1)
            lin.register_forward_pre_hook(lambda m, a: calls.append(("pre", type(m).__name__)))
            lin.register_forward_hook(lambda m, a, o: calls.append(("fwd", type(m).__name__)))
            lin(lib.ones(1))
        finally:
            for handle in handles:
                handle.remove()
        lin(lib.ones(1))  # removed: no more global calls
        return calls

    same_in_both(program)


def test_always_call_hook_runs_when_forward_raises():
    def program(lib):
        calls = []

        class Broken(lib.nn.Module):
            def forward(self, x):
                raise ValueError("broken forward")

        m = Broken()
        m.register_forward_hook(lambda mod, a, o: calls.append(("always", o)), always_call=True)
        m.register_forward_hook(lambda mod, a, o: calls.append("never"))
        try:
            m(lib.ones(1))
        except ValueError as error:
            calls.append(error)
        return calls

    assert same_in_both(program)[0] == ("always", None)


def test_forward_not_implemented():
    kind, (error_type, message) = same_in_both(lambda lib: lib.nn.Module()(lib.ones(1)))
    assert error_type == "NotImplementedError" and 'missing the required "forward" function' in message


def seed_net(lib):
    """The source notes' two-Linear network with fixed weights (seed 002)."""
    nn = lib.nn

    class net(nn.Module):  # noqa: N801 - the notes' name
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(1, 2, bias=False)
            self.fc2 = nn.Linear(2, 1, bias=False)
            self.fc1.weight = nn.Parameter(lib.tensor([[2.], [2.]]))
            self.fc2.weight = nn.Parameter(lib.tensor([2., 2.]))

        def forward(self, x):
            return self.fc2(self.fc1(x))

    return net()


@pytest.mark.parametrize("full", [True, False], ids=["full", "legacy"])
@pytest.mark.parametrize("on", ["children", "composite"])
def test_seed_backward_hooks(full, on):
    def program(lib):
        calls = []
        model = seed_net(lib)

        def forward_hook_fn(module, input, output):
            calls.append(("forward", repr(module), input, output, repr(output)))

        def backward_hook_fn(module, grad_input, grad_output):
            calls.append(("backward", module._get_name(), grad_input, grad_output))

        for m in (model.children() if on == "children" else [model]):
            m.register_forward_hook(forward_hook_fn)
            (m.register_full_backward_hook if full else m.register_backward_hook)(backward_hook_fn)
        x = lib.tensor([2.], requires_grad=True)
        model(x).backward()
        return calls, x.grad

    calls, x_grad = same_in_both(program)
    assert x_grad[1] == [8.0] and [c[0] for c in calls].count("backward") == (2 if on == "children" else 1)


def test_full_backward_pre_hook_and_hook_may_replace_gradients():
    def program(lib):
        calls = []
        lin = lib.nn.Linear(2, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor([[1., 2.], [3., 4.]]))
        lin.register_full_backward_pre_hook(lambda m, go: calls.append(("pre", go)) or (go[0] * 10,))
        lin.register_full_backward_hook(lambda m, gi, go: calls.append(("hook", gi, go)) or (gi[0] + 1,))
        x = lib.tensor([[1., 1.]], requires_grad=True)
        lin(x).sum().backward()
        return calls, x.grad, lin.weight.grad

    same_in_both(program)


def test_full_backward_hook_when_no_input_requires_grad():
    def program(lib):
        calls = []
        lin = lib.nn.Linear(2, 1)
        lin.register_full_backward_hook(lambda m, gi, go: calls.append((gi, go)))
        lin(lib.ones(1, 2)).sum().backward()
        return calls

    assert same_in_both(program)[0][0] == (None,)


def test_mixing_legacy_and_full_backward_hooks_is_an_error():
    def program(lib):
        errors = []
        for first, second in (("register_backward_hook", "register_full_backward_hook"),
                              ("register_full_backward_hook", "register_backward_hook")):
            m = lib.nn.Linear(1, 1)
            getattr(m, first)(lambda *a: None)
            try:
                getattr(m, second)(lambda *a: None)
            except RuntimeError as error:
                errors.append(error)
        return errors

    assert len(same_in_both(program)) == 2


# --- state_dict ------------------------------------------------------------------------------------
def test_state_dict_keys_order_values_and_metadata():
    def program(lib):
        net = two_layer(lib)
        sd = net.state_dict()
        kept = net.state_dict(keep_vars=True)
        return (type(sd).__name__, list(sd), sd["head.0.weight"].requires_grad, kept["scale"] is net.scale,
                dict(sd._metadata), list(net.state_dict(prefix="model.")), sd["block.running"])

    got = same_in_both(program)
    # a non-persistent buffer is left out; a module under two names is saved under both
    assert "block.scratch" not in got[1] and "shared.weight" in got[1]


def test_state_dict_hooks():
    def program(lib):
        calls = []
        net = two_layer(lib)
        net.block.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(("pre", prefix)))
        net.block.register_state_dict_post_hook(lambda m, sd, prefix, meta: calls.append(("post", prefix, len(sd))))
        net.state_dict()
        return calls

    same_in_both(program)


LOAD_CASES = {
    "round_trip": lambda lib, sd: sd,
    "missing": lambda lib, sd: {k: v for k, v in sd.items() if k != "head.2.bias"},
    "unexpected": lambda lib, sd: {**sd, "head.9.weight": lib.ones(1), "extra": lib.ones(1)},
    "both": lambda lib, sd: {**{k: v for k, v in sd.items() if not k.startswith("block")}, "nope": lib.ones(1)},
    "shape_mismatch": lambda lib, sd: {**sd, "head.2.weight": lib.ones(2, 2)},
    "not_a_tensor": lambda lib, sd: {**sd, "scale": 3.0},
    "zero_dim_from_one_element": lambda lib, sd: {**sd, "scale": lib.tensor([5.0])},
}


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "lenient"])
@pytest.mark.parametrize("case", sorted(LOAD_CASES))
def test_load_state_dict(case, strict):
    def program(lib):
        source, target = two_layer(lib), two_layer(lib)
        with lib.no_grad():
            for p in source.parameters():
                p.add_(1.0)
        state = LOAD_CASES[case](lib, source.state_dict())
        result = target.load_state_dict(state, strict=strict)
        return (repr(result), result.missing_keys, result.unexpected_keys, list(target.state_dict().values()))

    same_in_both(program)


def test_load_state_dict_assign_and_hooks():
    def program(lib):
        calls = []
        source, target = two_layer(lib), two_layer(lib)
        target.block.register_load_state_dict_pre_hook(
            lambda m, sd, prefix, *rest: calls.append(("pre", prefix, sorted(k for k in sd if k.startswith(prefix)))))
        target.register_load_state_dict_post_hook(lambda m, keys: calls.append(("post", keys.missing_keys)))
        state = source.state_dict()
        target.load_state_dict(state, assign=True)
        with lib.no_grad():
            state["head.0.bias"].add_(100.0)  # assign=True: the module now holds the checkpoint's memory
        return (calls, target.scale is not source.scale, type(target.scale).__name__, target.scale.requires_grad,
                target.head[0].bias)

    same_in_both(program)


def test_load_state_dict_rejects_non_mappings():
    kind, (error_type, message) = same_in_both(lambda lib: lib.nn.Linear(1, 1).load_state_dict([1, 2]))
    assert error_type == "TypeError" and "Expected state_dict to be dict-like" in message


def test_batchnorm_version_1_checkpoint_loads_without_num_batches_tracked():
    def program(lib):
        bn = lib.nn.BatchNorm1d(2)
        state = bn.state_dict()
        del state["num_batches_tracked"]
        state._metadata[""] = {"version": 1}
        return repr(bn.load_state_dict(state))

    assert same_in_both(program) == "<All keys matched successfully>"


def test_modules_pickle_with_their_registrations():
    def program(lib):
        net = two_layer(lib)
        clone = pickle.loads(pickle.dumps(net))
        return repr(clone), list(clone.state_dict()), clone.head[0] is clone.shared

    same_in_both(program)


def test_numbers_of_a_forward_and_backward_match():
    def program(lib):
        net = two_layer(lib)
        x = lib.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2))
        out = net(x)
        out.sum().backward()
        return out.detach(), [p.grad for p in net.parameters()]

    got = run(program, glasstorch)
    want = run(program, torch)
    np.testing.assert_allclose(np.array(got[0][1]), np.array(want[0][1]), rtol=1e-6)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(np.array(g[1]), np.array(w[1]), rtol=1e-5, atol=1e-7)


def test_legacy_backward_hooks_warn_as_pytorch_does():
    """``_maybe_warn_non_full_backward_hook``: the FutureWarnings say where a legacy hook misleads."""
    def program(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = seed_net(lib)
            for m in [*model.children(), model]:
                m.register_backward_hook(lambda *args: None)
            model(lib.tensor([2.], requires_grad=True)).backward()
            lin = lib.nn.Linear(2, 2)
            lin.register_backward_hook(lambda *args: None)
            lin(lib.ones(3, 2))
        return [(w.category.__name__, str(w.message)) for w in caught]

    got, want = program(glasstorch), program(torch)
    assert got == want and len(got) == 4


def test_buffer_assignment_registers_a_buffer():
    def program(lib):
        m = lib.nn.Module()
        m.kept = lib.nn.Buffer(lib.ones(2))
        m.scratch = lib.nn.Buffer(lib.zeros(1), persistent=False)
        m.kept = lib.ones(2) * 3  # a plain tensor under a buffer's name stays a buffer
        return (list(m._buffers), list(m.state_dict()), isinstance(m.kept, lib.nn.Buffer),
                isinstance(lib.ones(1), lib.nn.Buffer), repr(type(m.kept)))

    same_in_both(program)


def test_tensor_conversions_that_modules_rely_on():
    def program(lib):
        results = [str(lib.ones(2).to(None, lib.float64).dtype), str(lib.ones(2).to("cpu", None).dtype),
                   str(lib.ones(3).to(lib.zeros(3, dtype=lib.float64)).dtype)]  # a template of several elements
        try:
            lib.nn.Linear(2, 2).type(lib.int64)  # .data = an integer tensor, on a Parameter
        except RuntimeError as error:
            results.append(error)
        return results

    assert len(same_in_both(program)) == 4
