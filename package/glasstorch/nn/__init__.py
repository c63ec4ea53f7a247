"""``glasstorch.nn``: Parameter, Module and the layers built on it (mirrors torch/nn/)."""
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .modules import *  # noqa: F401,F403
from .modules import Module
from . import functional, init, utils
