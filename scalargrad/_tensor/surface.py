"""The public surface of tensors: Tensor methods (and their in-place variants) and the functions
of the ``torch`` namespace, bound once at import.

This module only binds: each family of the tensor layer lists its own spellings in its
``install(method, function)`` (an elementwise op's come from its declaration in the op table,
``elementwise.install``), and ``install`` below calls them in order. ``FUNCTIONS`` is what
``scalargrad/__init__.py`` re-exports as ``torch.*``; the spelling test walks the table and checks
every declared spelling exists on its surface.
"""

from __future__ import annotations

import types

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from . import (
    arithmetic,
    attributes,
    comparison,
    conversion,
    convolution,
    einsum,
    elementwise,
    factories,
    fill,
    indexing,
    joins,
    legacy,
    moments,
    normalization,
    norms,
    pointwise,
    pooling,
    products,
    reductions,
    rounding,
    scans,
    scatter,
    selection,
    softmax,
    views,
)
from .arguments import check_input
from .tensor import Tensor, leaf
from .torch_names import TENSOR_ATTRIBUTES

__all__ = ["FUNCTIONS", "bind_method", "bind_function", "install"]

FUNCTIONS: dict = {}
"""name -> function of the torch namespace."""

# the families, in the order their spellings are bound (a later one may read an earlier one's)
FAMILIES = (elementwise, arithmetic, comparison, pointwise, reductions, views, joins, indexing, attributes,
            conversion, fill, factories, softmax, products, rounding, norms, scans, selection, scatter, einsum,
            moments, convolution, pooling, normalization, legacy)


def _named(fn, name: str, qualname: str):
    """``fn`` under ``name``: a copy of a Python function (one function may be bound under several
    names), anything else as it is."""
    if isinstance(fn, types.FunctionType):
        new = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__doc__ = fn.__doc__
        new.__module__ = fn.__module__
        new.__annotations__ = dict(fn.__annotations__)
        new.__dict__.update(fn.__dict__)
        new.__qualname__ = qualname
        return new
    return fn


def bind_method(name: str, fn) -> None:
    """``Tensor.<name>``."""
    setattr(Tensor, name, _named(fn, name, "Tensor." + name))


def bind_function(name: str, fn, checked: bool = True) -> None:
    """``torch.<name>``; ``checked``: refusing a first argument that is not a tensor in PyTorch's
    words (factories take no tensor)."""
    FUNCTIONS[name] = _input_checked(name, _named(fn, name, name)) if checked else fn


def _input_checked(name: str, fn):
    """``fn`` refusing a first argument that is not a tensor in PyTorch's words (``torch.sum(1.)``:
    "sum(): argument 'input' (position 1) must be Tensor, not float"). The check runs only
    when ``fn`` fails, so a well-typed call pays one frame."""

    def function(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AttributeError as e:
            x = args[0] if args else kwargs.get("input", e)
            if isinstance(e, Unsupported) or x is e or isinstance(x, (Tensor, list, tuple)):
                raise
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(x).__name__}") from None

    function.__name__ = function.__qualname__ = name
    function.__doc__ = fn.__doc__
    function.__wrapped__ = fn
    return function


# torch's in-place functions (``torch.relu_(x)`` is ``x.relu_()``), PyTorch 2.13's list
_TORCH_INPLACE = ("abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
                  "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "celu_", "clamp_",
                  "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_",
                  "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_", "i0_", "index_put_",
                  "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_",
                  "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "selu_", "sigmoid_", "sin_",
                  "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "threshold_", "trunc_", "xlogy_", "zero_")


# the in-place functions with a Tensor and a Number overload: PyTorch's refusal lists both
_OVERLOADS = {"clamp_": "min = None, {0} max = None", "clip_": "min = None, {0} max = None", "fill_": "value",
              "clamp_min_": "min", "clamp_max_": "max"}


def _install_inplace_functions() -> None:
    """``torch.relu_(x)``, ``torch.sigmoid_(x)``...: the Tensor method, for each one Tensor has."""
    probe = leaf(0.0, TensorType(dtypes.float32, ()))
    for name in _TORCH_INPLACE:
        if name in FUNCTIONS:
            continue
        try:
            getattr(probe, name)
        except AttributeError:  # not implemented (Unsupported): so is torch.<name>
            continue

        def function(input, *args, _n=name, **kwargs):  # PyTorch's name
            if not isinstance(input, Tensor) and _n in _OVERLOADS:
                got = ", ".join(type(a).__name__ for a in (input,) + args)
                sigs = "".join(f"\n * (Tensor input, {kind} {_OVERLOADS[_n].format(kind)})"
                               for kind in ("Tensor", "Number"))
                raise TypeError(f"{_n}() received an invalid combination of arguments - got ({got}), but expected "
                                f"one of:{sigs}\n")
            check_input(_n, input)
            return getattr(input, _n)(*args, **kwargs)

        bind_function(name, function)


def _unsupported_attribute(name: str):
    def get(self):
        raise Unsupported(f"Tensor.{name}")

    return property(get, doc=f"``Tensor.{name}``: not implemented by scalargrad (raises Unsupported).")


def install_unsupported() -> None:
    """Every public attribute of PyTorch's Tensor that scalargrad lacks raises ``Unsupported``
    naming it (an AttributeError, so ``hasattr`` is False), as a property: no ``__getattr__``
    on Tensor, which would slow every attribute access of the graph's hot paths."""
    for name in TENSOR_ATTRIBUTES:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _unsupported_attribute(name))


def install() -> None:
    """Put the surface on Tensor and into FUNCTIONS (once, at import)."""
    for family in FAMILIES:
        family.install(bind_method, bind_function)
    _install_inplace_functions()
    install_unsupported()


install()
