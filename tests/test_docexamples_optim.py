"""optim.Muon (PyTorch 2.9+; its docstring example trains the 2-D weights with Muon and the rest
with AdamW), added for PyTorch's docstring examples (issue 14): the same steps as PyTorch 2.13 from
the same parameters and data (agreeing to bfloat16's precision in the Newton-Schulz iteration),
state, and PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import glasstorch as gt

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

from test_nn_vs_torch import outcomes  # noqa: E402

RNG = np.random.default_rng(0)
W_WIDE = RNG.standard_normal((4, 6)).astype(np.float32)
W_TALL = RNG.standard_normal((6, 3)).astype(np.float32)
BIAS = RNG.standard_normal(3).astype(np.float32)
X = RNG.standard_normal((8, 6)).astype(np.float32)


@pytest.mark.parametrize("options", [{}, {"nesterov": False, "weight_decay": 0.0}, {"adjust_lr_fn": "match_rms_adamw"},
                                     {"momentum": 0.5, "ns_steps": 3, "lr": 0.05}],
                         ids=["default", "plain_momentum", "match_rms_adamw", "few_steps"])
def test_muon_steps_as_pytorch(options):
    results = []
    for lib in (gt, torch):
        wide, tall = lib.nn.Parameter(lib.tensor(W_WIDE)), lib.nn.Parameter(lib.tensor(W_TALL))
        bias = lib.nn.Parameter(lib.tensor(BIAS))
        muon = lib.optim.Muon([wide, tall], **{"lr": 0.02, **options})
        adamw = lib.optim.AdamW([bias], lr=3e-4, weight_decay=0.01)
        for _ in range(4):
            muon.zero_grad()
            adamw.zero_grad()
            hidden = (lib.tensor(X) @ wide.T).tanh()          # (8, 4)
            out = hidden @ lib.tensor(W_TALL[:4]) + bias      # (8, 3)
            loss = (out @ tall.T).pow(2).mean()               # (8, 6)
            loss.backward()
            muon.step()
            adamw.step()
        results.append([wide.detach().numpy(), tall.detach().numpy(), bias.detach().numpy(),
                        muon.state[wide]["momentum_buffer"].numpy(), sorted(muon.state[tall])])
    for got, want in zip(*results):
        if isinstance(want, list):
            assert got == want
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_muon_defaults_and_errors_as_pytorch():
    w = {lib: lib.nn.Parameter(lib.ones(2, 3)) for lib in (gt, torch)}
    assert {k: v for k, v in gt.optim.Muon([w[gt]]).defaults.items()} == dict(torch.optim.Muon([w[torch]]).defaults)
    calls = [lambda l: l.optim.Muon([l.nn.Parameter(l.ones(3))]),
             lambda l: l.optim.Muon([l.nn.Parameter(l.ones(2, 2))], lr=-1.0),
             lambda l: l.optim.Muon([l.nn.Parameter(l.ones(2, 2))], momentum=-0.5),
             lambda l: l.optim.Muon([l.nn.Parameter(l.ones(2, 2))], weight_decay=-0.1),
             lambda l: l.optim.Muon([l.nn.Parameter(l.ones(2, 2))], adjust_lr_fn="fast")]
    for call in calls:
        got, want = (outcomes([lambda lib=lib: call(lib)])[0] for lib in (gt, torch))
        assert want != "no error"
        assert got[0] == want[0] and got[1].replace("glasstorch.", "torch.") == want[1], (got, want)
