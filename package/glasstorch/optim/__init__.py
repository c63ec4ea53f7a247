"""``glasstorch.optim``: optimizers and learning-rate schedulers. Mirrors torch/optim/__init__.py.

    optimizer.py     Optimizer: param_groups, state, zero_grad, state_dict / load_state_dict
    sgd.py           SGD (momentum, dampening, Nesterov, weight decay, maximize)
    adam.py          Adam (amsgrad, weight decay, maximize)
    adamw.py         AdamW (Adam with decoupled weight decay)
    lr_scheduler.py  LRScheduler, LambdaLR, StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR

Simplified: PyTorch has a dozen more optimizers (Adagrad, RMSprop, LBFGS ...) and schedulers.
"""
from . import lr_scheduler
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD", "lr_scheduler"]
