"""Chapter 17 (the capstone), run in glasstorch and in PyTorch 2.13: what the chapter shows must be
what PyTorch does. The chapter keeps one short comparison (ten training steps); this is the full
one (skipped, with the reason, where PyTorch is not installed): the whole twelve-epoch run on the
digits, epoch by epoch, with the same initial weights and batches and dropout off; the seeds' Net
failing on 8x8 digits with the same error; the log_softmax warning; log_softmax + nll_loss as
cross_entropy of the logits; the full backward hook on the first layer (its warning, grad_input
None)."""
import warnings

import numpy as np
import pytest

import glasstorch

torch = pytest.importorskip("torch", reason="compares with PyTorch 2.13 (pip install torch==2.13.0)")
sklearn_datasets = pytest.importorskip("sklearn.datasets", reason="the chapter's data are scikit-learn's digits")
LIBS = {"glasstorch": glasstorch, "torch": torch}


def both(program):
    return program(glasstorch), program(torch)


def net_class(lib, seed_net=False):
    """Section 2's Net (or, with seed_net, the seeds' Net for 28x28 MNIST), written with `lib`."""
    nn, G = lib.nn, lib.nn.functional
    padding, features = (0, 320) if seed_net else (2, 80)

    class Net(nn.Module):
        def __init__(self, p=0.5):
            super().__init__()
            self.p = p
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5, padding=padding)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5, padding=padding)
            self.conv2_drop = nn.Dropout2d(p)
            self.fc1 = nn.Linear(features, 50)
            self.fc2 = nn.Linear(50, 10)

        def forward(self, x):
            x = G.relu(G.max_pool2d(self.conv1(x), 2))
            x = G.relu(G.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, features)
            x = G.relu(self.fc1(x))
            x = G.dropout(x, p=self.p, training=self.training)
            return G.log_softmax(self.fc2(x), dim=1)
    return Net


def digits():
    """The chapter's data: standardised 8x8 digits, and its 80/20 split (glasstorch's random_split)."""
    data = sklearn_datasets.load_digits()
    X = (data.images / 16.0).astype(np.float32)[:, None]
    X = (X - X.mean()) / X.std()
    dataset = glasstorch.utils.data.TensorDataset(glasstorch.tensor(X), glasstorch.tensor(data.target))
    train_set, test_set = glasstorch.utils.data.random_split(dataset, [0.8, 0.2],
                                                             generator=glasstorch.Generator().manual_seed(0))
    return (X[train_set.indices], data.target[train_set.indices], X[test_set.indices], data.target[test_set.indices])


def side_by_side(lib, initial_state, orders, X_tr, y_tr, X_te, y_te):
    model = net_class(lib)(p=0.0)
    model.load_state_dict({k: lib.tensor(v) for k, v in initial_state.items()})
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    X_tr, y_tr, X_te, y_te = (lib.tensor(a) for a in (X_tr, y_tr, X_te, y_te))
    losses, accuracies = [], []
    for order in orders:
        model.train()
        total = 0.0
        for start in range(0, len(order), 32):
            rows = lib.tensor(order[start:start + 32])
            optimizer.zero_grad()
            loss = lib.nn.functional.nll_loss(model(X_tr[rows]), y_tr[rows])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
        losses.append(total / len(order))
        model.eval()
        with lib.no_grad():
            accuracies.append((model(X_te).argmax(1) == y_te).float().mean().item())
    return np.array(losses), np.array(accuracies)


def test_the_whole_training_run_agrees_epoch_by_epoch():
    X_tr, y_tr, X_te, y_te = digits()
    glasstorch.manual_seed(0)
    initial_state = {k: v.numpy().copy() for k, v in net_class(glasstorch)(p=0.0).state_dict().items()}
    rng = np.random.default_rng(0)
    orders = [rng.permutation(len(X_tr)) for _ in range(12)]
    ours = side_by_side(glasstorch, initial_state, orders, X_tr, y_tr, X_te, y_te)
    theirs = side_by_side(torch, initial_state, orders, X_tr, y_tr, X_te, y_te)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4)
    assert abs(ours[1][-1] - theirs[1][-1]) < 1e-9, (ours[1][-1], theirs[1][-1])
    assert ours[1][-1] > 0.99, "without dropout the chapter says the run ends above 99%"


def seed_net_on_small_digits(lib):
    lib.manual_seed(0)
    try:
        net_class(lib, seed_net=True)()(lib.zeros(2, 1, 8, 8))
    except RuntimeError as e:
        return str(e)
    return None


def test_the_seeds_net_fails_on_8x8_digits_with_the_same_error():
    ours, theirs = both(seed_net_on_small_digits)
    assert ours == theirs and "Kernel size can't be greater than actual input size" in ours


def implicit_dim_warning(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = lib.nn.functional.log_softmax(lib.zeros(2, 10))
    return [str(w.message) for w in caught], tuple(out.shape)


def test_log_softmax_without_dim_warns_in_the_same_words():
    ours, theirs = both(implicit_dim_warning)
    assert ours == theirs and len(ours[0]) == 1


def losses_of_logits(lib):
    logits = lib.tensor(np.random.RandomState(0).randn(64, 10).astype(np.float32) * 3)
    target = lib.tensor(np.random.RandomState(1).randint(0, 10, size=64))
    F = lib.nn.functional
    return F.nll_loss(F.log_softmax(logits, dim=1), target).item(), F.cross_entropy(logits, target).item()


def test_log_softmax_then_nll_loss_is_cross_entropy_of_the_logits():
    ours, theirs = both(losses_of_logits)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    assert abs(ours[0] - ours[1]) < 1e-6


def first_layer_hook(lib):
    lib.manual_seed(0)
    model = net_class(lib)()
    seen = []
    model.conv1.register_full_backward_hook(lambda module, grad_input, grad_output:
                                            seen.append((grad_input, tuple(grad_output[0].shape))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = model(lib.zeros(4, 1, 8, 8))
        lib.nn.functional.nll_loss(out, lib.tensor([0, 1, 2, 3])).backward()
    return [str(w.message) for w in caught], seen[0][0], seen[0][1]


def test_the_first_layers_backward_hook_warns_and_gets_no_input_gradient():
    ours, theirs = both(first_layer_hook)
    assert ours == theirs
    assert ours[1] == (None,) and ours[2] == (4, 10, 8, 8)
    assert len(ours[0]) == 1 and ours[0][0].startswith("Full backward hook is firing")
