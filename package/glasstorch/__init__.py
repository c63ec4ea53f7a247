"""glasstorch: PyTorch's tensor, autograd and nn internals, re-implemented readably on numpy.

``import glasstorch as torch`` runs ordinary PyTorch code about tensors, autograd and modules.
Where to read what (each file names the PyTorch file it mirrors):

    _tensor.py         Tensor and its attributes          (torch/_tensor.py)
    dtypes.py          dtypes and type promotion
    _creation.py       tensor, zeros, ones, arange, rand ...
    ops/               every differentiable op: forward and backward side by side
    autograd/graph.py  Node (grad_fn), AccumulateGrad, saved tensors
    autograd/engine.py the backward engine
    nn/                Parameter, Module (nn/modules/module.py), layers, init, functional
    optim/             Optimizer, SGD, Adam, AdamW, learning-rate schedules
    distributions/     Normal
    serialization.py   save and load in PyTorch's own .pt format (_weights_only_unpickler.py: loading runs no code)
    viz/               pictures: the autograd graph, the module tree, the hook timeline
"""
from . import dtypes
from . import _tensor
from ._tensor import LEGACY_TENSOR_TYPES, Size, Tensor, device, is_tensor
from .dtypes import (bfloat16, bool, double, dtype, float, float16, float32, float64, get_default_dtype, half,
                     int, int8, int16, int32, int64, long, set_default_dtype, short, uint8)
from .dtypes import promote_types, result_type as _result_type
from ._tensor_str import get_printoptions, printoptions, set_printoptions
from ._typename import typename
from ._creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace, ones,
                        ones_like, rand, rand_like, randint, randn, randn_like, randperm, tensor, zeros, zeros_like)
from ._finfo import finfo, iinfo
from ._creation_more import asarray, can_cast, empty_permuted, empty_strided, frombuffer, is_nonzero, poisson
from ._creation_more import dim_order as _dim_order, new_empty_strided as _new_empty_strided, resize_ as _resize_

# Tensor methods in PyTorch
Tensor.new_empty_strided, Tensor.resize_, Tensor.dim_order = _new_empty_strided, _resize_, _dim_order
from math import e, inf, nan, pi  # noqa: F401  torch.pi, torch.inf, ... are Python floats too
from .random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .ops import *  # noqa: F401,F403  add, mul, matmul, sum, cat, where, ...
from .ops import abs, all, any, max, min, pow, sum  # noqa: A004 - PyTorch's names shadow builtins here
from . import autograd
from . import linalg  # glasstorch.linalg.det, as torch.linalg
from . import special  # glasstorch.special.erfinv, as torch.special
from . import functional  # torch/functional.py's names, as torch.functional
from .functional import broadcast_shapes, broadcast_tensors, tensordot  # noqa: F401
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .autograd import inference_mode, is_inference_mode_enabled, set_detect_anomaly  # noqa: F401
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from .utils import hooks as _hooks  # noqa: F401
from . import accelerator, backends, distributions, nn
from ._variable_functions import *  # noqa: F401,F403  torch.conv2d, torch.dropout, ... (ATen's names of F's ops)
from . import optim
from .utils import data as _utils_data  # noqa: F401  (glasstorch.utils.data, as torch.utils.data)
from .serialization import load, save

__version__ = "0.1.0"

# the legacy per-dtype types: glasstorch.FloatTensor, glasstorch.LongTensor, ...
globals().update(LEGACY_TENSOR_TYPES)


def result_type(tensor1, tensor2) -> dtype:
    """The dtype of an elementwise op on the two operands (PyTorch's promotion rules)."""
    return _result_type(tensor1, tensor2)


def numel(input: Tensor) -> int:
    return input.numel()


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def detach(input: Tensor) -> Tensor:
    return input.detach()


class _Cuda:
    """``glasstorch.cuda``: there is no GPU here; code that checks first keeps working."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def manual_seed(seed: int) -> None:
        """Seed the GPUs' generators: without a GPU, silently ignored (as in PyTorch)."""

    manual_seed_all = manual_seed


def set_default_device(device) -> None:
    """The device factory functions put new tensors on (torch/__init__.py). glasstorch computes
    on the CPU only: ``'cpu'`` (or None, the default) is accepted, another device is refused."""
    from ._tensor import _check_device

    if device is not None:
        _check_device(device)


def get_default_device() -> "device":
    """The device new tensors go to: always the CPU in glasstorch."""
    return _tensor.CPU


cuda = _Cuda()
