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

__all__ = ["batch_norm", "layer_norm", "normalize", "cosine_similarity", "rms_norm"]


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
