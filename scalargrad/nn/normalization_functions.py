"""``nn.functional.batch_norm`` and ``layer_norm`` (re-exported by ``nn.functional``): one
NativeBatchNormBackward0 / NativeLayerNormBackward0 node each (see ``_tensor/normalization``);
``normalize``, which PyTorch composes in Python from norm, clamp_min, expand_as and a division
(so its graph is theirs: DivBackward0 over LinalgVectorNormBackward0); ``cosine_similarity``,
torch's (``_tensor/norms``: ATen's composite over the same norm); ``rms_norm``, ATen's composite
(MulBackward0 over RsqrtBackward0 over AddBackward1 over MeanBackward1 over PowBackward0), which
2.13's CPU kernel computes too (the same values with and without a graph)."""

from __future__ import annotations

from .._base import dtypes
from .._ops import arithmetic as AR
from .._tensor import normalization as NORM
from .._tensor import norms as NORMS
from .._tensor.elementwise import with_number
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor
from .padding_functions import pad
from .pooling_functions import avg_pool2d, avg_pool3d

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm", "normalize",
           "cosine_similarity", "rms_norm"]


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel by the batch's statistics (training; the running ones are updated
    in place with ``momentum``) or by the running statistics (evaluation)."""
    if training:
        size = list(input.shape)
        prod = size[0]
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.size()}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return NORM.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions, then scale and shift."""
    return NORM.layer_norm(input, normalized_shape, weight, bias, eps)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``input`` divided by its ``p``-norm over ``dim`` (kept as a size-1 dimension), the norm
    first raised to ``eps``: PyTorch's composition, step for step, so the value, the graph and
    the gradient (through a norm below ``eps``: none to the norm) are those of these ops."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return FUNCTIONS["div"](input, denom, out=out)  # torch.div: its checks of out


def _verify_batch_size(size) -> None:
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each sample's ``num_groups`` groups of channels, then scale and shift per
    channel: one NativeGroupNormBackward0 node (see ``_tensor/normalization``)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    if num_groups <= 0:  # before PyTorch's Python check divides by it
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return NORM.group_norm(input, num_groups, weight, bias, eps)


def _verify_spatial_size(size) -> None:
    prod = 1
    for s in list(size)[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def _repeat_if_defined(t: Tensor | None, b: int) -> Tensor | None:
    return t.repeat(b) if t is not None else None


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) plane by its own statistics (``use_input_stats``) or by
    the running ones: ATen's composite, a batch norm of the input viewed as (1, N * C, *) with
    the parameters and running statistics repeated N times (RepeatBackward0), the running ones
    then the mean over the batch of the updated copies; the output a view (ViewBackward0)."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    shape = list(input.shape)
    if len(shape) < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(len(shape), 1)}, "
                         f"{max(len(shape), 1) - 1}], but got 1)")
    b, c = shape[0], shape[1]
    shape[1] = b * c
    shape[0] = 1
    weight_ = _repeat_if_defined(weight, b)
    bias_ = _repeat_if_defined(bias, b)
    running_mean_ = _repeat_if_defined(running_mean, b)
    running_var_ = _repeat_if_defined(running_var, b)
    out = NORM.batch_norm(input.contiguous().view(shape), running_mean_, running_var_, weight_, bias_,
                          use_input_stats, momentum, eps)
    if running_mean is not None:
        running_mean.detach().copy_(running_mean_.view(b, c).mean(0, False))
    if running_var is not None:
        running_var.detach().copy_(running_var_.view(b, c).mean(0, False))
    return out.view(input.shape)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``input / (k + alpha * mean of the squares over ``size`` neighbouring channels) ** beta``:
    PyTorch's composition (the squares zero-padded across channels and averaged by avg_pool2d
    or avg_pool3d), op for op, so the graph ends in DivBackward0."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between x1 and x2 (broadcast) along ``dim``, each norm raised to ``eps``."""
    return NORMS.cosine_similarity(x1, x2, dim, eps)


def _shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """Each row of the last ``len(normalized_shape)`` dims divided by its root mean square:
    ``x * rsqrt(mean(x ** 2) + eps)`` (times ``weight``), ``eps`` by default the machine epsilon of
    the computing dtype; half precision computed in float32 and cast back (ATen's rms_norm_composite)."""
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_shape(weight.shape)} and normalized_shape = {_shape(ns)}")
    shape = tuple(input.shape)
    if len(shape) < len(ns):
        raise ValueError(f"Input tensor must have at least {len(ns)} dimensions, but got {len(shape)}")
    if shape[len(shape) - len(ns):] != ns:  # PyTorch's words: "[*" and the sizes, no comma after the star
        raise RuntimeError(f"Given normalized_shape={_shape(ns)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in ns)}], but got input of size{_shape(shape)}")
    dt = input.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{dt.short}'")
    opmath = dtypes.float32 if dt in (dtypes.float16, dtypes.bfloat16) else dt
    x = input.to(opmath)
    if eps is None:
        eps = 1.1920928955078125e-07 if opmath is dtypes.float32 else 2.220446049250313e-16  # numeric_limits
    dims = [len(shape) - i - 1 for i in range(len(ns))]
    rstd = with_number(AR.AddScalar, x.pow(2).mean(dims, keepdim=True), eps).rsqrt()  # .add_(eps): add.Scalar
    out = x.mul(rstd)
    if weight is not None:
        out = out.mul(weight)
    return out.type_as(input)
