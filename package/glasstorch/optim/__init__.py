"""``glasstorch.optim``: optimizers and learning-rate schedulers. Mirrors torch/optim/__init__.py.

    optimizer.py     Optimizer: param_groups, state, zero_grad, state_dict / load_state_dict
    sgd.py           SGD (momentum, dampening, Nesterov, weight decay, maximize)
    adam.py          Adam (amsgrad, weight decay, maximize)
    adamw.py         AdamW (Adam with decoupled weight decay)
    nadam.py         NAdam (Adam with Nesterov momentum)
    rmsprop.py       RMSprop;  adagrad.py  Adagrad;  adadelta.py  Adadelta;  _muon.py  Muon
    lr_scheduler.py  LRScheduler, LambdaLR, StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR,
                     PolynomialLR, CyclicLR, OneCycleLR, SequentialLR, ChainedScheduler, ReduceLROnPlateau

Simplified: PyTorch has a few more optimizers (LBFGS, Adamax, ASGD, Rprop, ...) and schedulers.
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from ._muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Muon", "NAdam", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
