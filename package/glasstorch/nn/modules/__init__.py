"""The layers: one file per family, named as in torch/nn/modules/."""
from .module import Module
from .activation import (CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, MultiheadAttention, PReLU, ReLU, ReLU6, Sigmoid, SiLU, Softmax,
                         Softmax2d, Softmin, Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold)
from .activation import RReLU
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from .channelshuffle import ChannelShuffle
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, LazyConv1d, LazyConv2d,
                   LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .lazy import LazyModuleMixin
from .linear import Bilinear, Identity, LazyLinear, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss, HingeEmbeddingLoss,
                   HuberLoss, KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, MultiLabelSoftMarginLoss, NLLLoss,
                   PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss)
from .loss import CTCLoss, MultiLabelMarginLoss, MultiMarginLoss
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
                      MaxPool1d, MaxPool2d, MaxPool3d)
from .pooling import FractionalMaxPool2d, FractionalMaxPool3d
from .pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxUnpool1d,
                      MaxUnpool2d, MaxUnpool3d)
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                          TransformerEncoderLayer)
