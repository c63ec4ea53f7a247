"""nn.Module, Parameter, init and distributions: behaviour that needs no PyTorch to check.

(The differential tests, where PyTorch decides what is right, are in test_nn_vs_torch.py and
test_nn_layers.py.)
"""
from __future__ import annotations

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import glasstorch as torch
from glasstorch import nn
from glasstorch.nn.modules.module import _IncompatibleKeys


def test_parameter_is_a_leaf_that_requires_grad_and_shares_memory():
    data = torch.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert p.is_leaf and p.requires_grad and isinstance(p, torch.Tensor)
    data[0] = 5.0
    assert p[0].item() == 5.0  # the same memory, as Tensor._make_subclass gives
    assert repr(p) == "Parameter containing:\ntensor([5., 2.], requires_grad=True)"


def test_parameter_from_a_computed_tensor_is_a_leaf_and_inside_no_grad_still_requires_grad():
    x = torch.ones(2, requires_grad=True) * 3
    with torch.no_grad():
        p = nn.Parameter(x)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None


def test_parameter_errors_and_options():
    assert not nn.Parameter(torch.ones(1), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(torch.tensor([1, 2]))
    with pytest.raises(TypeError, match="must be Tensor"):
        nn.Parameter([1.0])


def test_parameter_copies_stay_parameters():
    p = nn.Parameter(torch.tensor([1.0]))
    for clone in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(clone) is nn.Parameter and clone.requires_grad and clone.tolist() == [1.0]
        assert clone._data is not p._data


def test_ops_on_a_parameter_give_plain_tensors():
    p = nn.Parameter(torch.ones(2))
    assert type(p * 2) is torch.Tensor and type(p.detach()) is torch.Tensor


def test_module_init_rejects_arguments():
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        nn.Module(x=1)
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        nn.Module(1)


def test_cuda_raises_a_clear_error():
    lin = nn.Linear(1, 1)
    for call in (lin.cuda, lambda: lin.to("cuda"), lambda: lin.to("cuda:0"), lambda: lin.cuda(0), lambda: lin.to(0),
                 lambda: torch.ones(1).to(0), lambda: torch.ones(1).to(torch.device("cuda"), torch.float64)):
        with pytest.raises(RuntimeError, match="no CUDA device"):
            call()
    assert lin.to("cpu") is lin and lin.cpu() is lin


def test_to_rejects_bad_arguments():
    lin = nn.Linear(1, 1)
    with pytest.raises(TypeError, match="only accepts floating point"):
        lin.to(torch.int32)
    with pytest.raises(TypeError, match="unexpected keyword"):
        lin.to(colour="red")
    with pytest.raises(TypeError, match="invalid combination"):
        lin.to([1])


def test_incompatible_keys_repr():
    assert repr(_IncompatibleKeys([], [])) == "<All keys matched successfully>"
    assert repr(_IncompatibleKeys(["a"], [])) == "_IncompatibleKeys(missing_keys=['a'], unexpected_keys=[])"  # PyTorch 2.13 prints the class name
    assert str(_IncompatibleKeys([], ["b"])) == "_IncompatibleKeys(missing_keys=[], unexpected_keys=['b'])"


def test_setstate_fills_attributes_missing_from_old_pickles():
    lin = nn.Linear(2, 1)
    state = lin.__getstate__()
    for name in ("_forward_hooks_always_called", "_state_dict_pre_hooks", "_backward_pre_hooks",
                 "_non_persistent_buffers_set", "_is_full_backward_hook", "_load_state_dict_post_hooks"):
        state.pop(name)
    old = nn.Linear.__new__(nn.Linear)
    old.__setstate__(state)
    out = old(torch.ones(1, 2))  # __call__ reads the hook dictionaries: they are back
    assert out.shape == (1, 1) and old._non_persistent_buffers_set == set()
    assert old._is_full_backward_hook is None
    assert list(old.state_dict()) == ["weight", "bias"]


def test_hook_handles_remove_and_work_as_context_managers():
    lin = nn.Linear(1, 1)
    calls = []
    with lin.register_forward_hook(lambda m, a, o: calls.append("fwd")):
        lin(torch.ones(1))
    lin(torch.ones(1))
    handle = lin.register_forward_pre_hook(lambda m, a, k: calls.append("pre"), with_kwargs=True)
    assert handle.id in lin._forward_pre_hooks_with_kwargs
    handle.remove()
    assert not lin._forward_pre_hooks and not lin._forward_pre_hooks_with_kwargs
    assert calls == ["fwd"]


def test_forward_pre_hook_with_kwargs_must_return_a_pair():
    lin = nn.Linear(1, 1)
    lin.register_forward_pre_hook(lambda m, args, kwargs: "oops", with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args, new_kwargs\)"):
        lin(torch.ones(1))


def test_always_call_hook_errors_become_warnings():
    class Broken(nn.Module):
        def forward(self, x):
            raise ValueError("the real error")

    m = Broken()

    def failing_hook(module, args, output):
        raise KeyError("hook error")

    m.register_forward_hook(failing_hook, always_call=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="the real error"):
            m(torch.ones(1))
    assert any("always_call=True" in str(w.message) for w in caught)


def test_full_backward_hook_with_two_grad_inputs_says_it_is_simplified():
    class Add(nn.Module):
        def forward(self, a, b):
            return a + b

    m = Add()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(NotImplementedError, match="one tensor that requires grad"):
        m(torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True))
    # one grad-requiring tensor among several arguments is fine; the others get None
    seen = []
    m._backward_hooks.clear()
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    m(torch.ones(1, requires_grad=True), torch.ones(1)).sum().backward()
    assert seen[0][1] is None and seen[0][0].tolist() == [1.0]


def test_backward_hook_returning_the_wrong_number_of_gradients():
    lin = nn.Linear(1, 1)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    out = lin(torch.ones(1, requires_grad=True))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        out.sum().backward()


def test_node_post_hook_can_replace_grad_inputs_and_checks_their_number():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] * 0 + 7, None))
    y.sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]
    z = torch.ones(1, requires_grad=True) * 2
    z.grad_fn.register_hook(lambda gi, go: (gi[0],) * 3)
    with pytest.raises(RuntimeError, match="incorrect number of values"):
        z.sum().backward()


def test_state_dict_positional_arguments_warn():
    lin = nn.Linear(1, 1)
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        sd = lin.state_dict(None, "p.")
    assert list(sd) == ["p.weight", "p.bias"]


def test_state_dict_post_hook_from_public_api_must_return_none():
    lin = nn.Linear(1, 1)
    lin.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        lin.state_dict()


def test_private_state_dict_hook_may_replace_the_state_dict():
    lin = nn.Linear(1, 1)
    lin._register_state_dict_hook(lambda m, sd, prefix, meta: {"replaced": True})
    assert lin.state_dict() == {"replaced": True}


def test_load_post_hook_may_clear_the_keys_so_strict_passes():
    lin = nn.Linear(1, 1)

    def forgive(module, keys):
        keys.missing_keys.clear()

    lin.register_load_state_dict_post_hook(forgive)
    assert repr(lin.load_state_dict({}, strict=True)) == "<All keys matched successfully>"
    lin.register_load_state_dict_post_hook(lambda m, keys: "a value")
    with pytest.raises(AssertionError, match="not expected to return new values"):
        lin.load_state_dict({}, strict=False)


def test_load_state_dict_copies_in_place_and_keeps_parameter_identity():
    source, target = nn.Linear(2, 2), nn.Linear(2, 2)
    weight = target.weight
    target.load_state_dict(source.state_dict())
    assert target.weight is weight and np.array_equal(weight.detach().numpy(), source.weight.detach().numpy())
    weight_version = weight._version
    assert weight_version > 0  # the copy is an in-place change, counted by the version counter


# --- nn.init ------------------------------------------------------------------------------------
def test_calculate_gain():
    assert nn.init.calculate_gain("relu") == math.sqrt(2)
    assert nn.init.calculate_gain("tanh") == 5 / 3
    assert nn.init.calculate_gain("conv2d") == 1
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("swish")
    with pytest.raises(ValueError, match="not a valid number"):
        nn.init.calculate_gain("leaky_relu", "x")


def test_fan_in_fan_out():
    assert nn.init._calculate_fan_in_and_fan_out(torch.empty(20, 6, 5, 5)) == (150, 500)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init._calculate_fan_in_and_fan_out(torch.empty(3))
    with pytest.raises(ValueError, match="Mode fan_both not supported"):
        nn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan_both")


def test_linear_init_bounds_are_one_over_sqrt_fan_in():
    torch.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    for p in (lin.weight, lin.bias):
        values = p.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
        assert values.max() > 0.9 * bound and values.min() < -0.9 * bound  # fills the whole range


@pytest.mark.parametrize("init, expected_std", [
    (lambda t: nn.init.xavier_normal_(t), math.sqrt(2 / (200 + 100))),
    (lambda t: nn.init.kaiming_normal_(t, nonlinearity="relu"), math.sqrt(2) / math.sqrt(200)),
    (lambda t: nn.init.xavier_uniform_(t), math.sqrt(2 / (200 + 100))),
    (lambda t: nn.init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(2) / math.sqrt(200)),
])
def test_initialisations_have_their_standard_deviation(init, expected_std):
    torch.manual_seed(1)
    t = init(torch.empty(100, 200))
    assert abs(float(t.detach().numpy().std()) - expected_std) < 0.03 * expected_std


def test_init_works_on_parameters_without_recording():
    p = nn.Parameter(torch.empty(3, 3))
    nn.init.eye_(p)
    nn.init.constant_(p, 0.5)
    assert p.grad_fn is None and p.tolist() == [[0.5] * 3] * 3
    nn.init.ones_(p)
    nn.init.zeros_(p)
    assert p.sum().item() == 0
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        nn.init.eye_(torch.empty(2, 2, 2))


# --- distributions ------------------------------------------------------------------------------
def test_normal_log_prob_gradients_flow_to_loc_and_scale():
    loc = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    scale = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda m, s: torch.distributions.Normal(m, s).log_prob(
        torch.tensor([1.5], dtype=torch.float64)), (loc, scale))
    d = torch.distributions.Normal(loc, scale)
    expected = -((1.5 - 0.5) ** 2) / 8 - math.log(2.0) - 0.5 * math.log(2 * math.pi)
    assert abs(d.log_prob(1.5).item() - expected) < 1e-12


def test_normal_sample_and_rsample():
    torch.manual_seed(0)
    loc = torch.zeros(2, requires_grad=True)
    d = torch.distributions.Normal(loc, torch.ones(2))
    assert d.sample().grad_fn is None and d.sample((5,)).shape == (5, 2)
    assert d.rsample().grad_fn is not None
    draws = d.sample((20000,)).numpy()
    assert abs(draws.mean()) < 0.03 and abs(draws.std() - 1) < 0.03
    with pytest.raises(ValueError, match="GreaterThan"):
        torch.distributions.Normal(0.0, -1.0)
