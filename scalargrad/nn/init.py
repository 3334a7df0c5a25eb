"""``torch.nn.init``: fill a tensor in place, under no_grad, as PyTorch 2.13 does.

The random ones draw from scalargrad's reproduction of PyTorch's CPU generator through
``Tensor.uniform_`` / ``Tensor.normal_``, with PyTorch's arguments (fans, gains, bounds computed
in the same double arithmetic), so a seeded program gets PyTorch's numbers. ``trunc_normal_`` is
PyTorch 2.13's rejection sampling (redraws of ``normal_`` while any element falls outside
[a, b]; for a narrow interval, uniform proposals accepted by a log test).
"""

from __future__ import annotations

import math
import warnings

from .._base import ieee
from .._base.grad_mode import no_grad
from .._base.missing_api import missing_attribute
from .._tensor.factories import empty
from .._tensor.linalg_qr import linalg_qr
from .._tensor.random_factories import randperm
from .._tensor.storage import write
from .._tensor.tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
           "uniform", "normal", "constant", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse"]


def _no_grad_uniform_(tensor: Tensor, a: float, b: float, generator=None) -> Tensor:
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor: Tensor, mean: float, std: float, generator=None) -> Tensor:
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (``leaky_relu``'s from its negative slope ``param``)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Numbers drawn uniformly from [a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Numbers drawn from N(mean, std^2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Numbers drawn from N(mean, std^2) truncated to [a, b]."""

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
                      "incorrect.", stacklevel=2)
    dt = tensor._t.dtype
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo, hi = dt.round(a), dt.round(b)
            tensor.normal_(mean, std, generator=generator)
            vals = _values(tensor)
            while True:
                mask = [x < lo or x > hi for x in vals]
                if not any(mask):
                    break
                fresh = _values(_like(tensor).normal_(mean, std, generator=generator))
                vals = [f if m else x for x, f, m in zip(vals, fresh, mask)]
            write(tensor, vals if tensor._t.ndim else vals[0])
        else:
            _trunc_by_uniform(tensor, mean, std, a, b, generator)
        return tensor


def _trunc_by_uniform(tensor: Tensor, mean: float, std: float, a: float, b: float, generator) -> None:
    """The narrow-interval branch: uniform proposals on [a, b], each accepted when
    log(u) <= -(x - mean)^2 / (2 std^2) - log_peak (every step rounded to the dtype, as the
    in-place tensor ops compute it)."""
    dt = tensor._t.dtype
    r = dt.round
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    rm, rs, rl = r(mean), r(std), r(log_peak)

    def score(xs):  # candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        out = []
        for x in xs:
            z = r(ieee.div(r(x - rm), rs))
            out.append(r(r(r(z * z) * -0.5) - rl))
        return out

    def rejected(cands):  # accept_buf.uniform_().log_().gt(candidates)
        us = _values(_like(tensor).uniform_(generator=generator))
        return [r(ieee.log(u)) > s for u, s in zip(us, cands)]

    tensor.uniform_(a, b, generator=generator)
    result = _values(tensor)
    pending = rejected(score(result))
    while any(pending):
        cands = _values(_like(tensor).uniform_(a, b, generator=generator))
        result = [c if p else x for x, c, p in zip(result, cands, pending)]
        fresh = rejected(score(cands))
        pending = [f if p else p for p, f in zip(pending, fresh)]
    write(tensor, result if tensor._t.ndim else result[0])


def _values(t: Tensor) -> list:
    return list(t._val) if t._t.ndim else [t._val]


def _like(t: Tensor) -> Tensor:
    return empty(tuple(t._t.shape), dtype=t._t.dtype)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Every element ``val``."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Every element 1."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Every element 0."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (a 2-D tensor)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    n, m = tensor._t.shape
    vals = [tensor._t.dtype.round(1 if i == j else 0) for i in range(n) for j in range(m)]
    with no_grad():
        write(tensor, vals)
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The Dirac delta of a convolution weight (3, 4 or 5 dimensions): convolving with it keeps
    as many input channels as possible."""
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                centre = tuple(s // 2 for s in sizes[2:])
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple:
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


_calculate_fan_in_and_fan_out = calculate_fan_in_and_fan_out  # PyTorch's spelling, which programs call


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Uniform on [-a, a], a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot)."""
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def zero_element_noop(tensor: Tensor, stacklevel: int = 3) -> bool:
    """Whether ``tensor`` has no element, with PyTorch's warning that the kaiming initialisers then
    do nothing (``stacklevel`` counted from here: 3 is the initialiser's caller)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=stacklevel)
        return True
    return False


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """Uniform on [-bound, bound], bound = gain * sqrt(3 / fan) (He)."""
    if zero_element_noop(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """N(0, std^2), std = gain / sqrt(fan) (He)."""
    if zero_element_noop(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix, as PyTorch 2.13 makes it: a normal (rows, rest) sample
    (transposed when wide), its QR decomposition's Q times the signs of R's diagonal, written
    into ``tensor`` (trailing dims flattened) and scaled by ``gain``."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened.t_()
    q, r = linalg_qr(flattened)
    q *= r.diag(0).sign()  # Q made uniform (Mezzadri, math-ph/0609050)
    if rows < cols:
        q.t_()
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """A sparse matrix, as PyTorch 2.13 makes it: normal values with ``std``, then in each column
    the rows of the first ``ceil(sparsity * rows)`` entries of a ``randperm`` (of the default
    generator, as PyTorch's: ``generator`` draws the values only) set to zero."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            zero_indices = randperm(rows)[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"{old_name}(...): deprecated, see torch.nn.init.{new_name}."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.nn.init", name)
