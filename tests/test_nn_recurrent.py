"""RNN, LSTM, GRU and their cells against PyTorch 2.13: the same weights (copied through
state_dict) give the same outputs, hidden states and gradients; names, reprs and errors match."""
from __future__ import annotations

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.autograd import gradcheck
from test_nn_vs_torch import outcomes, same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)


def twins(name, *args, **kwargs):
    """A torch module and a glasstorch module with torch's weights."""
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    ours = getattr(gt.nn, name)(*args, **kwargs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: gt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def both(array):
    return gt.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


def flat(result):
    if isinstance(result, (tuple, list)):
        return [x for r in result for x in flat(r)]
    return [result]


def check_same(ours, theirs, inputs, tol=2e-6):
    """Forward values, and the gradients of every input and parameter for one random cotangent."""
    got, want = flat(ours(*inputs[0])), flat(theirs(*inputs[1]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=tol, atol=tol)
    weights = [rng.standard_normal(tuple(w.shape)).astype(np.float32) for w in want]
    sum(gt.sum(g * gt.tensor(c)) for g, c in zip(got, weights)).backward()
    sum(torch.sum(w * torch.tensor(c)) for w, c in zip(want, weights)).backward()
    for g, w in zip(flat(inputs[0]) + list(ours.parameters()), flat(inputs[1]) + list(theirs.parameters())):
        if w.grad is not None:
            np.testing.assert_allclose(g.grad.numpy(), w.grad.numpy(), rtol=1e-5, atol=1e-5)


CONFIGS = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("RNN", {"num_layers": 2, "bias": False}),
    ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}), ("GRU", {"batch_first": True}),
    ("LSTM", {}), ("LSTM", {"num_layers": 3, "bidirectional": True, "batch_first": True}),
    ("LSTM", {"proj_size": 2}), ("LSTM", {"num_layers": 2, "dropout": 0.5}),
]


@pytest.mark.parametrize("name, kwargs", CONFIGS)
def test_layer_matches_torch(name, kwargs):
    ours, theirs = twins(name, 3, 4, **kwargs)
    ours.eval(), theirs.eval()  # dropout between layers: off in eval, as in PyTorch
    x = rng.standard_normal((5, 2, 3)).astype(np.float32)
    check_same(ours, theirs, ([both(x)[0]], [both(x)[1]]))


@pytest.mark.parametrize("name, kwargs", [("RNN", {}), ("GRU", {"bidirectional": True}), ("LSTM", {"num_layers": 2}),
                                          ("LSTM", {"batch_first": True, "proj_size": 3})])
def test_layer_with_initial_state_and_unbatched(name, kwargs):
    ours, theirs = twins(name, 3, 4, **kwargs)
    layers = ours.num_layers * (2 if ours.bidirectional else 1)
    h_size = ours.proj_size or ours.hidden_size
    x = rng.standard_normal((2, 6, 3) if ours.batch_first else (6, 2, 3)).astype(np.float32)
    h = rng.standard_normal((layers, 2, h_size)).astype(np.float32)
    c = rng.standard_normal((layers, 2, 4)).astype(np.float32)
    (xg, xt), (hg, ht), (cg, ct) = both(x), both(h), both(c)
    state = ((hg, cg), (ht, ct)) if name == "LSTM" else (hg, ht)
    check_same(ours, theirs, ([xg, state[0]], [xt, state[1]]))
    # one unbatched sequence (L, H_in), its state (layers, H)
    (xg, xt), (hg, ht), (cg, ct) = both(x[0]), both(h[:, 0]), both(c[:, 0])
    state = ((hg, cg), (ht, ct)) if name == "LSTM" else (hg, ht)
    check_same(ours, theirs, ([xg, state[0]], [xt, state[1]]))


@pytest.mark.parametrize("name, kwargs", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                          ("GRUCell", {}), ("LSTMCell", {}), ("LSTMCell", {"bias": False})])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(name, kwargs, batched):
    ours, theirs = twins(name, 3, 4, **kwargs)
    shape = (2,) if batched else ()
    x = rng.standard_normal((*shape, 3)).astype(np.float32)
    h = rng.standard_normal((*shape, 4)).astype(np.float32)
    (xg, xt), (hg, ht), (cg, ct) = both(x), both(h), both(h * 0.5)
    check_same(ours, theirs, ([xg], [xt]))
    state = ((hg, cg), (ht, ct)) if name == "LSTMCell" else (hg, ht)
    check_same(ours, theirs, ([xg, state[0]], [xt, state[1]]))


def test_names_reprs_and_init():
    def program(lib):
        nn = lib.nn
        modules = [nn.RNN(3, 4), nn.RNN(3, 4, 2, nonlinearity="relu", bias=False, dropout=0.2),
                   nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True, proj_size=2),
                   nn.GRU(3, 4, bidirectional=True), nn.RNNCell(3, 4, nonlinearity="relu"),
                   nn.LSTMCell(3, 4, bias=False), nn.GRUCell(3, 4)]
        return [(repr(m), [(k, tuple(v.shape)) for k, v in m.state_dict().items()]) for m in modules]

    same_in_both(program)
    gt.manual_seed(0)
    lstm = gt.nn.LSTM(10, 25)
    values = np.concatenate([p.detach().numpy().ravel() for p in lstm.parameters()])
    assert np.abs(values).max() <= 1 / 5 and values.std() > 0.1  # uniform(-1/sqrt(25), 1/sqrt(25))


def test_wrong_inputs_raise_as_torch():
    def program(lib):
        results = []
        calls = [
            lambda: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 4, 3)),
            lambda: lib.nn.RNN(3, 4)(lib.ones(3)),
            lambda: lib.nn.GRU(3, 4)(lib.ones(2, 3, 4, 3)),
            lambda: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 4)),
            lambda: lib.nn.RNN(3, 4)(lib.ones(5, 2, 3), lib.zeros(1, 3, 4)),
            lambda: lib.nn.RNN(3, 4)(lib.ones(5, 2, 3), lib.zeros(2, 4)),
            lambda: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 1, 4))),
            lambda: lib.nn.LSTM(3, 4)(lib.ones(5, 3), (lib.zeros(1, 1, 4), lib.zeros(1, 1, 4))),
            lambda: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3, dtype=lib.float64)),
            lambda: lib.nn.RNNCell(3, 4)(lib.ones(1, 2, 3)),
            lambda: lib.nn.LSTMCell(3, 4)(lib.ones(2, 3), (lib.ones(1, 1, 4), lib.ones(2, 4))),
            lambda: lib.nn.GRUCell(3, 4)(lib.ones(2, 3), lib.ones(1, 1, 4)),
            lambda: lib.nn.GRU(3, 4, proj_size=2),
            lambda: lib.nn.RNN(3, 4, nonlinearity="sigmoid"),
            lambda: lib.nn.LSTM(3, 4, dropout=2),
            lambda: lib.nn.LSTM(3, 4, proj_size=4),
            lambda: lib.nn.LSTM(3, 0),
        ]
        results += outcomes(calls)
        return results

    same_in_both(program)


PACKED_CONFIGS = [
    ("RNN", {}, True), ("RNN", {"num_layers": 2, "nonlinearity": "relu"}, False),
    ("GRU", {"bidirectional": True}, True), ("GRU", {"num_layers": 2, "batch_first": True}, False),
    ("LSTM", {}, False), ("LSTM", {"num_layers": 2, "bidirectional": True}, True), ("LSTM", {"proj_size": 2}, True),
]


def _packed_program(name, kwargs, with_state, lengths, enforce_sorted):
    """A layer on a packed batch (sequences of ``lengths``): padded output, lengths, final state, and
    the gradients of the input, the initial state and every weight."""
    batch, steps = len(lengths), max(lengths)
    x_values = rng.standard_normal((batch, steps, 3))
    layer_seed = int(rng.integers(1 << 30))

    def program(lib):
        lib.manual_seed(0)
        layer = getattr(lib.nn, name)(3, 4, dtype=lib.float64, **kwargs)
        weights = np.random.default_rng(layer_seed)
        for parameter in layer.parameters():
            parameter.data = lib.tensor(weights.standard_normal(tuple(parameter.shape)))
        x = lib.tensor(x_values, requires_grad=True)
        padded_input = x if kwargs.get("batch_first") else x.transpose(0, 1)
        packed = lib.nn.utils.rnn.pack_padded_sequence(padded_input, lengths, batch_first=kwargs.get("batch_first", False),
                                                       enforce_sorted=enforce_sorted)
        directions = 2 if kwargs.get("bidirectional") else 1
        shape = (kwargs.get("num_layers", 1) * directions, batch)
        h0 = lib.tensor(weights.standard_normal(shape + (kwargs.get("proj_size") or 4,)), requires_grad=True)
        state = None
        if with_state:
            state = (h0, lib.tensor(weights.standard_normal(shape + (4,)))) if name == "LSTM" else h0
        output, final = layer(packed, state)
        padded, out_lengths = lib.nn.utils.rnn.pad_packed_sequence(output, batch_first=True)
        finals = list(final) if name == "LSTM" else [final]
        loss = (padded * lib.tensor(weights.standard_normal(tuple(padded.shape)))).sum()
        loss = loss + sum((f * lib.tensor(weights.standard_normal(tuple(f.shape)))).sum() for f in finals)
        loss.backward()
        return {"kind": type(output).__name__, "batch_sizes": output.batch_sizes.tolist(), "padded": padded.detach(),
                "lengths": out_lengths.tolist(), "finals": [f.detach() for f in finals], "x.grad": x.grad,
                "h0.grad": h0.grad if with_state else None,
                "weights.grad": {n: p.grad for n, p in layer.named_parameters()}}

    return program


@pytest.mark.parametrize("name, kwargs, with_state", PACKED_CONFIGS)
@pytest.mark.parametrize("lengths, enforce_sorted", [([4, 2, 1], True), ([2, 4, 1, 3], False), ([3, 3], True)])
def test_packed_sequence_matches_torch(name, kwargs, with_state, lengths, enforce_sorted):
    """Each sequence stops at its own length: outputs past it are padding, and the final state is
    the one after its last real step (for the reverse direction, after step 0); the state comes
    back in the caller's batch order."""
    from test_vs_torch import assert_same, run_both

    got, want = run_both(_packed_program(name, kwargs, with_state, lengths, enforce_sorted))
    assert_same(got, want)


def test_packed_sequence_differs_from_the_padded_batch():
    """The point of packing: a short sequence's final state is not the state after the padding.
    (Without the per-step batch sizes, glasstorch would return the padded run's state.)"""
    gt.manual_seed(0)
    layer = gt.nn.GRU(2, 3)
    x = gt.randn(4, 2, 2)
    packed = gt.nn.utils.rnn.pack_padded_sequence(x, [4, 2])
    _, final_packed = layer(packed)
    _, final_padded = layer(x)
    _, final_short = layer(x[:2, 1:2])
    np.testing.assert_allclose(final_packed[0, 1].detach().numpy(), final_short[0, 0].detach().numpy(), rtol=1e-6)
    assert not np.allclose(final_packed[0, 1].detach().numpy(), final_padded[0, 1].detach().numpy())
    np.testing.assert_allclose(final_packed[0, 0].detach().numpy(), final_padded[0, 0].detach().numpy(), rtol=1e-6)


def test_packed_sequence_with_a_wrong_state_raises_as_torch():
    def program(lib):
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2, 3), [3, 1])
        calls = [lambda: lib.nn.GRU(3, 4)(packed, lib.zeros(1, 3, 4)),
                 lambda: lib.nn.RNN(2, 4)(packed)]
        return outcomes(calls)

    same_in_both(program)


def test_packed_lstm_checks_the_state_that_pytorch_does_not():
    """PyTorch 2.13's LSTM skips check_forward_args for a packed batch with a given state and runs
    with a cell state of the wrong size; glasstorch refuses it with the unpacked path's message."""
    packed = gt.nn.utils.rnn.pack_padded_sequence(gt.ones(3, 2, 3), [3, 1])
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 4\), got \[2, 2, 4\]"):
        gt.nn.LSTM(3, 4)(packed, (gt.zeros(1, 2, 4), gt.zeros(2, 2, 4)))


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_gradcheck_float64(name):
    """Backward through time, checked by finite differences: the input, the first layer's
    recurrent weight and the reverse direction's bias."""
    gt.manual_seed(0)
    layer = getattr(gt.nn, name)(2, 2, num_layers=2, bidirectional=True, dtype=gt.float64)
    x = gt.randn(3, 1, 2, dtype=gt.float64, requires_grad=True)
    assert gradcheck(lambda x: layer(x)[0], (x,))
    for name in ("weight_hh_l0", "bias_ih_l1_reverse"):
        weight = getattr(layer, name).detach().clone().requires_grad_()
        assert gradcheck(lambda w, name=name: _with_weight(layer, name, w, x), (weight,))


def _with_weight(layer, name, value, x):
    """layer(x) with the parameter ``name`` replaced by ``value`` (a differentiable function of value)."""
    saved = layer._parameters[name]
    layer._parameters[name] = value
    try:
        return layer(x)[0]
    finally:
        layer._parameters[name] = saved


def test_lstm_tagger_tutorial():
    """nlp/sequence_models_tutorial.py, run with both libraries from the same weights."""
    training_data = [("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
                     ("Everybody read that book".split(), ["NN", "V", "DET", "NN"])]
    word_to_ix = {}
    for sent, _ in training_data:
        for word in sent:
            word_to_ix.setdefault(word, len(word_to_ix))
    tag_to_ix = {"DET": 0, "NN": 1, "V": 2}

    def tutorial(lib, state):  # the tutorial's code, starting from the weights ``state``
        nn, F = lib.nn, lib.nn.functional

        def prepare_sequence(seq, to_ix):
            return lib.tensor([to_ix[w] for w in seq], dtype=lib.long)

        class LSTMTagger(nn.Module):
            def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
                super().__init__()
                self.hidden_dim = hidden_dim
                self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
                self.lstm = nn.LSTM(embedding_dim, hidden_dim)
                self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

            def forward(self, sentence):
                embeds = self.word_embeddings(sentence)
                lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
                tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
                return F.log_softmax(tag_space, dim=1)

        model = LSTMTagger(6, 6, len(word_to_ix), len(tag_to_ix))
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        loss_function = nn.NLLLoss()
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(30):
            for sentence, tags in training_data:
                model.zero_grad()
                sentence_in = prepare_sequence(sentence, word_to_ix)
                targets = prepare_sequence(tags, tag_to_ix)
                loss = loss_function(model(sentence_in), targets)
                loss.backward()
                optimizer.step()
        with lib.no_grad():
            return model(prepare_sequence(training_data[0][0], word_to_ix)).numpy()

    state = _initial_state(torch, len(word_to_ix))
    want = tutorial(torch, state)
    got = tutorial(gt, state)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert (got.argmax(1) == want.argmax(1)).all()


def _initial_state(lib, vocab_size):
    lib.manual_seed(3)
    layers = {"word_embeddings": lib.nn.Embedding(vocab_size, 6), "lstm": lib.nn.LSTM(6, 6),
              "hidden2tag": lib.nn.Linear(6, 3)}
    return {f"{name}.{k}": v.numpy().copy() for name, m in layers.items() for k, v in m.state_dict().items()}
