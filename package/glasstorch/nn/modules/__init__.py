"""The layers: one file per family, named as in torch/nn/modules/."""
from .module import Module
from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import MSELoss
