"""Chapter 15 (layers and the functional twin), run in glasstorch and in PyTorch 2.13: what the
chapter shows must be what PyTorch does. The chapter keeps one short comparison; this is the full
one (skipped, with the reason, where PyTorch is not installed): the notes' SimpleNet and Model with
the same weights, im2col, output sizes, pooling, the classes' families, the log_softmax warning,
reprs, the initialisation bounds, dropout's properties, the normalisation grids and batch norm's
running statistics."""
import math
import warnings

import numpy as np
import pytest

import glasstorch

torch = pytest.importorskip("torch", reason="compares with PyTorch 2.13 (pip install torch==2.13.0)")
LIBS = {"glasstorch": glasstorch, "torch": torch}


def both(program):
    return program(glasstorch), program(torch)


def own_methods(cls):
    return sorted(k for k, v in vars(cls).items() if callable(v) and (k == "__init__" or not k.startswith("__")))


def im2col(lib):
    image = np.arange(16.).reshape(4, 4)
    kernel = np.array([[1., 0.], [0., -1.]])
    return lib.nn.functional.conv2d(lib.tensor(image).reshape(1, 1, 4, 4), lib.tensor(kernel).reshape(1, 1, 2, 2)).tolist()


def test_the_im2col_example_gives_the_same_numbers():
    ours, theirs = both(im2col)
    assert ours == theirs == [[[[-5.0] * 3] * 3]]


SIZES = [(7, 3, 1, 0, 1), (7, 3, 1, 1, 1), (7, 3, 2, 0, 1), (7, 3, 2, 1, 1), (8, 3, 2, 1, 1), (7, 3, 1, 0, 2),
         (32, 5, 1, 0, 1)]


def output_sizes(lib):
    fn = lib.nn.functional
    sizes = [tuple(fn.conv2d(lib.zeros(1, 1, h, h), lib.zeros(1, 1, k, k), stride=s, padding=p, dilation=d).shape)
             for h, k, s, p, d in SIZES]
    img = lib.zeros(1, 1, 7, 7)
    same_valid = [tuple(lib.nn.Conv2d(1, 1, 3, padding=mode)(img).shape) for mode in ("same", "valid")]
    return sizes, same_valid


def test_output_sizes_follow_the_formula_in_both():
    ours, theirs = both(output_sizes)
    assert ours == theirs
    assert [s[-1] for s in ours[0]] == [(h + 2 * p - d * (k - 1) - 1) // s + 1 for h, k, s, p, d in SIZES]


def pooling(lib):
    fn = lib.nn.functional
    grid = lib.tensor(np.random.RandomState(1).permutation(25).reshape(1, 1, 5, 5).astype(np.float32))
    values, indices = fn.max_pool2d(grid, 2, return_indices=True)
    g = grid.clone().requires_grad_()
    fn.max_pool2d(g, 2).sum().backward()
    return (values.tolist(), indices.tolist(), fn.avg_pool2d(grid, 2).tolist(),
            fn.max_pool2d(grid, 2, ceil_mode=True).tolist(), g.grad.tolist())


def test_pooling_ceil_mode_indices_and_gradient_agree():
    ours, theirs = both(pooling)
    assert ours == theirs
    assert len(ours[3][0][0][0]) == 3, "ceil_mode keeps the partial window: a third column"


FAMILIES = ("Conv1d", "Conv2d", "Conv3d", "MaxPool1d", "MaxPool2d", "MaxPool3d")


def families(lib):
    mros = [[c.__name__ for c in cls.__mro__[:cls.__mro__.index(lib.nn.Module) + 1]]
            for cls in (getattr(lib.nn, name) for name in FAMILIES)]
    return mros, own_methods(lib.nn.Conv2d), own_methods(lib.nn.MaxPool2d)


def test_layers_of_a_family_share_the_same_base_classes():
    ours, theirs = both(families)
    assert ours == theirs
    assert ours[0][1] == ["Conv2d", "_ConvNd", "Module"]


def log_softmax_warning(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.nn.functional.log_softmax(lib.zeros(1, 10))
    return [(w.category, str(w.message)) for w in caught]


def test_log_softmax_without_dim_warns_in_the_same_words():
    ours, theirs = both(log_softmax_warning)
    assert ours == theirs and len(ours) == 1


def reprs(lib):
    nn = lib.nn
    return [repr(m).replace("torch", "glasstorch") for m in (
        nn.Conv2d(1, 2, 3, padding=1), nn.Conv2d(1, 1, 3, padding="same"), nn.Linear(3, 2),
        nn.MaxPool2d(2, return_indices=True), nn.Dropout(0.5), nn.Dropout2d(0.5),
        nn.BatchNorm2d(4), nn.LayerNorm([4, 2, 2]), nn.GroupNorm(2, 4))]


def test_the_layers_print_the_same():
    ours, theirs = both(reprs)
    assert ours == theirs


def init_bounds(lib):
    lib.manual_seed(0)
    found = []
    for layer in [lib.nn.Linear(576, 10), lib.nn.Conv2d(1, 6, 3), lib.nn.Conv2d(6, 16, 3), lib.nn.Conv2d(20, 20, 5)]:
        bound = 1 / math.sqrt(layer.weight[0].numel())
        found.append((layer.weight[0].numel(), layer.weight.abs().max().item() <= bound,
                      layer.weight.abs().max().item() > 0.9 * bound, layer.bias.abs().max().item() <= bound))
    return found


def test_weights_and_biases_lie_within_one_over_sqrt_fan_in():
    ours, theirs = both(init_bounds)
    assert ours == theirs
    assert all(inside and reached and bias_inside for _, inside, reached, bias_inside in ours)


def dropout_properties(lib):
    lib.manual_seed(0)
    ones = lib.ones(8, 16, 4, 4)
    d1, d2 = lib.nn.Dropout(0.5)(ones), lib.nn.Dropout2d(0.5)(ones)

    def mixed(y):
        maps = y.reshape(128, 16)
        return int(((maps == 0).any(dim=1) & (maps != 0).any(dim=1)).sum().item())

    evaluation = lib.nn.Dropout2d(0.5).eval()
    return (sorted(set(d1.flatten().tolist())), sorted(set(d2.flatten().tolist())), mixed(d1) > 100, mixed(d2),
            0.35 < (d1 == 0).float().mean().item() < 0.65, bool(lib.equal(evaluation(ones), ones)))


def test_dropout_and_dropout2d_have_the_same_properties():
    ours, theirs = both(dropout_properties)
    assert ours == theirs == ([0.0, 2.0], [0.0, 2.0], True, 0, True, True)


def norm_grids(lib):
    x = lib.tensor(np.random.RandomState(3).randn(3, 4, 2, 2).astype(np.float32))
    nudged = x.clone()
    nudged[0, 0, 0, 0] += 1.0
    norms = [lib.nn.BatchNorm2d(4), lib.nn.LayerNorm([4, 2, 2]), lib.nn.GroupNorm(2, 4), lib.nn.GroupNorm(4, 4)]
    return [((m(nudged) - m(x)).abs() > 1e-6).any(dim=3).any(dim=2).tolist() for m in norms]


def test_the_same_outputs_move_when_one_input_moves():
    ours, theirs = both(norm_grids)
    assert ours == theirs
    batch_norm = ours[0]
    assert [row[0] for row in batch_norm] == [True, True, True], "batch norm couples the samples"


def batch_norm_state(lib):
    x = lib.tensor(np.random.RandomState(3).randn(3, 4, 2, 2).astype(np.float32))
    bn = lib.nn.BatchNorm2d(4)
    train_out = bn(x)
    bn.eval()
    return (sorted(n for n, _ in bn.named_buffers()), bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
            bn.num_batches_tracked.item(), train_out.detach().numpy(), bn(x).detach().numpy())


def test_batch_norm_keeps_the_same_running_statistics():
    ours, theirs = both(batch_norm_state)
    assert ours[0] == theirs[0] and ours[3] == theirs[3] == 1
    for a, b in zip(ours[1:3] + ours[4:], theirs[1:3] + theirs[4:]):
        np.testing.assert_allclose(a, b, atol=1e-5)


def seed_networks(lib, state_dicts=None):
    """The notes' SimpleNet (seed 001) and Model (seed 003), written with `lib`, loaded with the
    given weights; their outputs on one batch, shapes, grad_fn names and reprs."""
    nn, F = lib.nn, lib.nn.functional

    class SimpleNet(nn.Module):
        def __init__(self):
            super(SimpleNet, self).__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc = nn.Linear(16*6*6, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, 16*6*6)
            return self.fc(x)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 20, 5)
            self.conv2 = nn.Conv2d(20, 20, 5)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            return F.relu(self.conv2(x))

    nets = [SimpleNet(), Model()]
    if state_dicts is not None:
        for net, sd in zip(nets, state_dicts):
            net.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
    x = lib.tensor(np.random.RandomState(0).randn(2, 1, 32, 32).astype(np.float32))
    outs = [net(x) for net in nets]
    return nets, [(o.detach().numpy(), tuple(o.shape), o.grad_fn.name(), repr(n)) for n, o in zip(nets, outs)]


def test_the_notes_networks_compute_the_same_with_the_same_weights():
    torch.manual_seed(0)
    theirs_nets, _ = seed_networks(torch)
    weights = [{k: v.numpy() for k, v in net.state_dict().items()} for net in theirs_nets]
    _, ours = seed_networks(glasstorch, weights)
    _, theirs = seed_networks(torch, weights)
    for (out, shape, grad_fn, text), (out_t, shape_t, grad_fn_t, text_t) in zip(ours, theirs):
        assert (shape, grad_fn, text) == (shape_t, grad_fn_t, text_t)
        np.testing.assert_allclose(out, out_t, atol=1e-5)
    assert [o[1] for o in ours] == [(2, 10), (2, 20, 24, 24)]


def functional_twin(lib):
    lib.manual_seed(0)
    conv = lib.nn.Conv2d(1, 2, kernel_size=3, padding=1)
    x = lib.arange(16.).reshape(1, 1, 4, 4)
    y_layer = conv(x)
    y_function = lib.nn.functional.conv2d(x, conv.weight, conv.bias, stride=conv.stride, padding=conv.padding,
                                          dilation=conv.dilation, groups=conv.groups)
    return (bool(lib.equal(y_layer, y_function)), y_layer.grad_fn.name(), conv.kernel_size, conv.stride,
            conv.padding, [(n, tuple(p.shape)) for n, p in conv.named_parameters()])


def test_a_layer_is_its_function_with_its_arguments():
    ours, theirs = both(functional_twin)
    assert ours == theirs
    assert ours[0] and ours[1] == "ConvolutionBackward0"


def module_list_has_no_forward(lib):
    blocks = lib.nn.ModuleList([lib.nn.Linear(2, 2)])
    try:
        blocks(lib.zeros(1, 2))
    except NotImplementedError as e:
        return type(e).__name__
    return None


def test_module_list_has_no_forward_in_both():
    ours, theirs = both(module_list_has_no_forward)
    assert ours == theirs == "NotImplementedError"
