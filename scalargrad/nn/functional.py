"""``torch.nn.functional``: activations, dropout, linear, losses.

relu, sigmoid and tanh are the op table's; the other activations are in ``activation_functions``,
the losses in ``loss_functions`` (each loss with a derivative in PyTorch is one node,
``MseLossBackward0``...), re-exported here. Dropout draws from
scalargrad's reproduction of PyTorch's CPU generator, so a seeded program drops the same
elements as under PyTorch.
"""

from __future__ import annotations

from .._base import dtypes, rng
from .._base.dtypes import TensorType
from .._base.missing_api import missing_attribute
from .._ops import arithmetic as AR
from .._ops import unary as UN
from .._tensor import complex_numbers, products
from .._tensor.arguments import not_tensor
from .._tensor.elementwise import binary, unary
from .._tensor.inplace import inplace
from .._tensor.tensor import Tensor, leaf

__all__ = ["relu", "sigmoid", "tanh", "dropout", "dropout2d", "linear"]


def _tensor(x, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise not_tensor(x, fn, 'input', 1)
    return x


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # PyTorch's parameter names
    """max(input, 0); ``inplace`` changes ``input`` itself."""
    x = _tensor(input, "relu")
    if inplace:
        return _inplace(x, lambda t: unary(UN.Relu, t))
    return unary(UN.Relu, x)


def _inplace(x, fn):
    return inplace(x, fn)


def sigmoid(input: Tensor) -> Tensor:
    """1 / (1 + exp(-input))."""
    return unary(UN.Sigmoid, _tensor(input, "sigmoid"))


def tanh(input: Tensor) -> Tensor:
    """tanh(input)."""
    return unary(UN.Tanh, _tensor(input, "tanh"))


from .dropout_functions import (  # noqa: E402 - attention composes dropout too
    _check_p,
    alpha_dropout,
    dropout,
    dropout1d,
    dropout3d,
    feature_alpha_dropout,
)

__all__ += ["alpha_dropout", "dropout1d", "dropout3d", "feature_alpha_dropout"]

_DROPOUT2D_DIM = (
    "dropout2d: Received a {}-D input to dropout2d, which is deprecated and will result in an error in a future "
    "release. To retain the behavior and silence this warning, please use dropout instead. Note that dropout2d "
    "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and an "
    "optional batch dimension (i.e. 3D or 4D inputs).")
_DROPOUT2D_3D = (
    "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
    "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
    "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
    "channel-wise dropout behavior, please switch to using dropout1d instead.")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (dimension 1) with probability ``p``, scaling the others by 1 / (1 - p):
    ``input * noise`` with noise of shape (N, C, 1, ...) drawn as ``bernoulli_(1 - p)`` (MulBackward0)."""
    import warnings

    _check_p(p)
    x = _tensor(input, "dropout2d")
    nd = x._t.ndim
    if nd not in (3, 4):
        warnings.warn(_DROPOUT2D_DIM.format(nd), stacklevel=2)
    if nd == 3:
        warnings.warn(_DROPOUT2D_3D, stacklevel=2)
    if not training or p == 0 or x._t.numel == 0:
        return x
    if nd < 2 and p != 1:  # ATen checks it making the noise, which p = 1 needs not
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(x._t.shape[:2]) + (1,) * (nd - 2)
    t = TensorType(x._t.dtype, shape)
    n = t.numel
    if p == 1:
        vals = [0.0] * n
    else:
        keep = rng.bernoulli_mask(n, p)
        scale = rng.dropout_scale(p) if x._t.dtype is dtypes.float32 else 1.0 / (1.0 - p)
        vals = [scale if k else 0.0 for k in keep]
    noise = leaf(vals, t)
    if inplace:
        return _inplace(x, lambda y: binary(AR.Mul, y, noise))
    return binary(AR.Mul, x, noise)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias (see ``_tensor/products.linear``)."""
    return products.linear(input, weight, bias)


from .activation_functions import (  # noqa: E402 - the activations live in their own module
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    gumbel_softmax,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    logsigmoid,
    mish,
    prelu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)

__all__ += ["celu", "celu_", "elu", "elu_", "gelu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "hardtanh_",
            "leaky_relu", "leaky_relu_", "logsigmoid", "mish", "relu6", "relu_", "selu", "selu_", "silu", "softplus",
            "softmax", "softmin", "log_softmax", "gumbel_softmax", "prelu", "rrelu", "rrelu_", "glu",
            "softshrink", "softsign", "tanhshrink", "threshold", "threshold_"]


from .loss_functions import (  # noqa: E402 - the losses live in their own module
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)

__all__ += ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "huber_loss", "l1_loss",
            "mse_loss", "nll_loss", "smooth_l1_loss"]


from .more_loss_functions import (  # noqa: E402 - the composed losses live in their own module
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    kl_div,
    linear_cross_entropy,
    margin_ranking_loss,
    multilabel_soft_margin_loss,
    pairwise_distance,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)

__all__ += ["cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "kl_div", "margin_ranking_loss",
            "multilabel_soft_margin_loss", "pairwise_distance", "poisson_nll_loss", "triplet_margin_loss",
            "triplet_margin_with_distance_loss", "linear_cross_entropy", "soft_margin_loss"]


from .sparse_functions import embedding, embedding_bag, one_hot  # noqa: E402

__all__ += ["embedding", "embedding_bag", "one_hot"]


from .linear_functions import bilinear  # noqa: E402

__all__ += ["bilinear"]


from .convolution_functions import (  # noqa: E402
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)

__all__ += ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


from .pooling_functions import (  # noqa: E402 - the pooling functions live in their own module
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
)

__all__ += ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
            "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "avg_pool1d", "avg_pool2d", "max_pool1d",
            "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices", "adaptive_avg_pool3d",
            "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool3d", "max_pool3d",
            "max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d",
            "max_unpool3d"]


from .fold_functions import fold, unfold  # noqa: E402
from .grid_sampling_functions import affine_grid, grid_sample  # noqa: E402
from .padding_functions import pad  # noqa: E402
from .shuffle_functions import channel_shuffle, native_channel_shuffle, pixel_shuffle, pixel_unshuffle  # noqa: E402
from .upsampling_functions import interpolate  # noqa: E402

__all__ += ["affine_grid", "grid_sample"]
__all__ += ["fold", "unfold", "pad", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle",
            "interpolate"]


from .margin_losses import multi_margin_loss, multilabel_margin_loss  # noqa: E402
from .normalization_functions import (  # noqa: E402
    batch_norm,
    cosine_similarity,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    normalize,
    rms_norm,
)

__all__ += ["batch_norm", "cosine_similarity", "group_norm", "instance_norm", "layer_norm", "local_response_norm",
            "normalize", "rms_norm", "multi_margin_loss", "multilabel_margin_loss"]


from .attention_functions import canonical_mask as _canonical_mask  # noqa: E402, F401 - PyTorch's private name
from .attention_functions import (  # noqa: E402 - attention is composed of the functions above
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from .attention_functions import none_or_dtype as _none_or_dtype  # noqa: E402, F401 - PyTorch's private name

__all__ += ["multi_head_attention_forward", "scaled_dot_product_attention"]


complex_numbers.register_namespace(globals(), "torch.nn.functional.")  # complex operands: refused by name


def __getattr__(name: str):
    return missing_attribute("torch.nn.functional", name)
