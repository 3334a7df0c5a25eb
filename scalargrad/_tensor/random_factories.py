"""The random factories: ``rand``, ``randn``, ``normal``, ``randint``, ``randperm`` and their
``*_like`` variants, drawn as PyTorch's CPU generator draws them (``_base/rng``, bit for bit).
"""

from __future__ import annotations

import math

from .._base import dtypes, rng
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled
from .._base.layout import is_contiguous
from .factories import (
    check_dtype,
    factory_device,
    factory_options,
    from_values,
    laid_out,
    like_device,
    like_options,
    meta_factory,
    refuse_out,
    shape_arg,
    sizes,
    written_into,
)
from .operands import broadcast_shapes, check_size
from .storage import dual_memory
from .tensor import Tensor, defaults
from .views import gather_index

__all__ = ["install", "rand", "randn", "normal", "randint", "randperm", "randint_like", "rand_like", "randn_like"]


def _float_dtype(dtype, what: str):
    dt = check_dtype(dtype, what) or defaults["dtype"]
    if not dt.is_floating_point:
        # ATen's dispatch macro names the kernel a dtype lacks with a NotImplementedError
        raise NotImplementedError(f"\"{'check_uniform_bounds' if what == 'rand' else 'normal_kernel_cpu'}\" not "
                                  f"implemented for '{dt.short}'")
    return dt


def rand(*shape, size=None, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False) -> Tensor:
    """Uniform numbers in [0, 1), drawn as PyTorch's CPU generator draws them."""
    if out is not None:
        return written_into(out, "rand", lambda dt: rand(*shape, size=size, generator=generator, dtype=dt), dtype)
    factory_options("rand", layout, pin_memory)
    meta = factory_device(device, meta=True)
    shape = sizes(shape, size, "rand")
    dt = _float_dtype(dtype, "rand")
    if meta:  # no numbers drawn: PyTorch's meta kernel leaves the generator alone
        return meta_factory(shape, dt, requires_grad, "rand")
    return from_values(rng.uniform(math.prod(shape), dt.name, generator=generator), shape, dt, requires_grad, "rand")


def randn(*shape, size=None, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False) -> Tensor:
    """Standard normal numbers, drawn as PyTorch's CPU generator draws them."""
    if out is not None:
        return written_into(out, "randn", lambda dt: randn(*shape, size=size, generator=generator, dtype=dt), dtype)
    factory_options("randn", layout, pin_memory)
    meta = factory_device(device, meta=True)
    shape = sizes(shape, size, "randn")
    if isinstance(dtype, dtypes.dtype) and dtype.is_complex and not meta:
        return _complex_randn(shape, check_dtype(dtype, "randn"), generator, requires_grad)
    dt = _float_dtype(dtype, "randn")
    if meta:  # no numbers drawn: PyTorch's meta kernel leaves the generator alone
        return meta_factory(shape, dt, requires_grad, "randn")
    return from_values(rng.normal(math.prod(shape), dt.name, generator=generator), shape, dt, requires_grad, "randn")


def _complex_randn(shape: tuple, dt, generator, requires_grad) -> Tensor:
    """A complex randn, as ATen's normal_ draws it: the real view's 2n numbers, real and imaginary
    parts interleaved, each of variance 1/2 (std ``1 / sqrt(2)``, a double)."""
    vals = rng.normal(2 * math.prod(shape), dt.to_real().name, 0.0, 1.0 / math.sqrt(2.0), generator=generator)
    return from_values([complex(a, b) for a, b in zip(vals[::2], vals[1::2])], shape, dt, requires_grad, "randn")


_NORMAL_OVERLOADS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n")
_NORMAL_FACTORY_KEYWORDS = frozenset({"dtype", "layout", "device", "pin_memory", "requires_grad"})


def _normal_misuse(args: tuple, kwargs: dict) -> TypeError:
    def kind(x) -> str:
        if isinstance(x, Tensor):
            return "Tensor"
        if isinstance(x, dtypes.dtype):
            return "torch.dtype"
        return type(x).__name__

    got = [kind(a) for a in args] + [f"{k}={kind(v)}" for k, v in sorted(kwargs.items())]
    return TypeError(f"normal() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                     f"one of:\n{_NORMAL_OVERLOADS}")


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, Tensor)


def _check_std_tensor(std: Tensor) -> None:
    vals = std._val if std._t.ndim else [std._val]
    if any(not v >= 0 for v in vals):  # a NaN fails as in PyTorch's ``std.min().ge(0)``
        raise RuntimeError("normal expects all elements of std >= 0.0")


def normal(*args, **kwargs) -> Tensor:
    """``torch.normal``, PyTorch's four overloads: ``(Tensor mean, Tensor std)``, ``(Tensor
    mean, float std=1)``, ``(float mean, Tensor std)`` and ``(float mean, float std, size, *,
    dtype, requires_grad...)``. As ATen computes it: with a float ``std`` and ``mean`` the
    generator's ``normal_(mean, std)``; a tensor ``mean`` adds itself to ``normal_(0, std)``; a
    tensor ``std`` multiplies ``normal_(0, 1)`` and then the mean (a 0-dim tensor of the result's
    dtype) is added. The result has ``mean``'s shape, ``std``'s, or their broadcast. A mean or
    std that requires grad (PyTorch's NormalBackward1-3, a zero gradient) is refused by name."""
    names = ("mean", "std", "size")
    if len(args) > 3:
        raise _normal_misuse(args, kwargs)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound or k not in (*names, "generator", "out", *_NORMAL_FACTORY_KEYWORDS):
            raise _normal_misuse(args, kwargs)
        bound[k] = v
    if "mean" not in bound:
        raise TypeError('normal() missing 1 required positional arguments: "mean"')
    mean, std, size = bound.get("mean"), bound.get("std", 1.0), bound.get("size")
    generator = bound.get("generator")
    refuse_out(bound.get("out"), "normal")
    factory_options("normal", bound.get("layout"), bound.get("pin_memory", False))
    factory = size is not None or any(k in bound for k in _NORMAL_FACTORY_KEYWORDS)
    if _is_number(mean) and _is_number(std):
        if not isinstance(size, (tuple, list, dtypes.Size)) or (not factory and "std" not in bound):
            raise _normal_misuse(args, kwargs)
        shape = shape_arg((size,), "normal")
        factory_device(bound.get("device"))
        dt = _float_dtype(bound.get("dtype"), "normal")
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        vals = rng.normal(math.prod(shape), dt.name, mean, std, generator=generator)
        return from_values(vals, shape, dt, bound.get("requires_grad", False), "normal")
    tensors = [x for x in (mean, std) if isinstance(x, Tensor)]
    if factory or not tensors or not all(isinstance(x, Tensor) or _is_number(x) for x in (mean, std)):
        raise _normal_misuse(args, kwargs)
    for x in tensors:  # named by what the operand carries: a gradient to record, or a tangent
        if x._rg and is_grad_enabled() or dual_memory() and dual_memory()[2](x) is not None:
            what = "requires grad" if x._rg and is_grad_enabled() else "has a forward-mode tangent"
            raise Unsupported(f"torch.normal with a mean or std that {what}",
                              "its NormalBackward node (a zero gradient) is not implemented yet")
    if isinstance(mean, Tensor) and not isinstance(std, Tensor):  # (Tensor mean, float std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        dt = _float_dtype(mean._t.dtype, "normal")
        out = from_values(rng.normal(mean._t.numel, dt.name, 0.0, std, generator=generator), mean._t.shape, dt)
        return out.add_(mean)
    _check_std_tensor(std)
    if not isinstance(mean, Tensor):  # (float mean, Tensor std)
        dt = _float_dtype(std._t.dtype, "normal")
        out = from_values(rng.normal(std._t.numel, dt.name, 0.0, 1.0, generator=generator), std._t.shape, dt)
        return out.mul_(std).add_(from_values([mean], (), dt))
    shape = broadcast_shapes(mean._t.shape, std._t.shape)
    dt = _float_dtype(mean._t.dtype, "normal")
    out = from_values(rng.normal(math.prod(shape), dt.name, 0.0, 1.0, generator=generator), shape, dt)
    return out.mul_(std).add_(mean)


def randint(low, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            pin_memory=False, requires_grad=False) -> Tensor:
    """Integers in [low, high) (``randint(high, size)`` too), drawn as PyTorch's generator does."""
    factory_options("randint", layout, pin_memory)
    if out is not None:
        return written_into(out, "randint", lambda dt: randint(low, high, size, generator=generator, dtype=dt), dtype)
    factory_device(device)
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    shape = shape_arg((tuple(size),), "randint")
    dt = check_dtype(dtype, "randint") or dtypes.int64
    vals = rng.randint(low, high, math.prod(shape), generator=generator)
    return from_values(vals, shape, dt, requires_grad, "randint")


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False) -> Tensor:
    """A random permutation of 0..n-1, drawn as PyTorch's CPU ``randperm`` (int64 unless asked)."""
    factory_options("randperm", layout, pin_memory)
    if out is not None:
        return written_into(out, "randperm", lambda dt: randperm(n, generator=generator, dtype=dt), dtype)
    if n.__class__ is bool or not isinstance(n, int):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    check_size((n,))
    dt = check_dtype(dtype, "randperm") or dtypes.int64
    factory_device(device)
    if dt is dtypes.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if not dt.is_floating_point:
        dtypes.check_fits(dt, max(n - 1, 0))
    vals = rng.randperm(n, generator=generator)
    return from_values(vals, (n,), dt, requires_grad, "randperm")


def randint_like(input, low, high=None, *, generator=None, memory_format=None, dtype=None, layout=None, device=None,
                 pin_memory=False, requires_grad=False) -> Tensor:
    """Integers in [low, high) (``randint_like(input, high)`` too) in ``input``'s shape and dtype
    and layout, drawn as ``randint`` draws them, in memory order (``_laid_out_draws``)."""
    strides = like_options("randint_like", input, layout, pin_memory, memory_format)
    like_device(device, input)
    if high is None:
        low, high = 0, low
    dt = check_dtype(dtype, "randint_like") or input._t.dtype
    shape = tuple(input._t.shape)
    vals = rng.randint(low, high, math.prod(shape), generator=generator)
    return _laid_out_draws(vals, shape, strides, dt, requires_grad, "randint_like")


def _laid_out_draws(vals: list, shape: tuple, strides, dt, requires_grad, what: str) -> Tensor:
    """A new tensor of ``shape`` laid out with ``strides`` (None: contiguous) holding ``vals``,
    which the generator drew in memory order: ATen's random kernels walk a dense output as it
    lies in memory, so a channels-last ``rand_like`` holds its numbers in NHWC order."""
    if strides is not None:
        vals = [vals[i] for i in gather_index(shape, strides, 0)]
    return laid_out(from_values(vals, shape, dt, requires_grad, what), strides)


def rand_like(input, *, generator=None, memory_format=None, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False) -> Tensor:
    strides = like_options("rand_like", input, layout, pin_memory, memory_format)
    like_device(device, input)
    dt = _float_dtype(dtype or input._t.dtype, "rand")
    shape = tuple(input._t.shape)
    vals = rng.uniform(math.prod(shape), dt.name, generator=generator)
    return _laid_out_draws(vals, shape, strides, dt, requires_grad, "rand_like")


def randn_like(input, *, generator=None, memory_format=None, dtype=None, layout=None, device=None, pin_memory=False,
               requires_grad=False) -> Tensor:
    """Normal numbers in ``input``'s shape, dtype and layout: a layout other than contiguous
    takes ``normal_``'s scalar path (``rng.normal(contiguous=False)``), as in ATen."""
    strides = like_options("randn_like", input, layout, pin_memory, memory_format)
    like_device(device, input)
    dt = _float_dtype(dtype or input._t.dtype, "randn")
    shape = tuple(input._t.shape)
    dense = strides is None or is_contiguous(shape, strides)  # ATen's is_contiguous: size-1 dims take any stride
    vals = rng.normal(math.prod(shape), dt.name, generator=generator, contiguous=dense)
    return _laid_out_draws(vals, shape, strides, dt, requires_grad, "randn_like")


def install(method, function) -> None:
    for name in __all__[1:]:
        function(name, globals()[name], checked=False)
