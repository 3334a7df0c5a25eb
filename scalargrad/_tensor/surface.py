"""The public surface of tensors: Tensor methods (and their in-place variants) and the functions
of the ``torch`` namespace, bound once at import.

This module only binds: each family of the tensor layer lists its own spellings in its
``install(method, function)`` (an elementwise op's come from its declaration in the op table,
``elementwise.install``), and ``install`` below calls them in order. ``FUNCTIONS`` is what
``scalargrad/__init__.py`` re-exports as ``torch.*``; the spelling test walks the table and checks
every declared spelling exists on its surface.
"""

from __future__ import annotations

import functools
import inspect
import types

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.numpy_types import plain_arguments
from .._base.out_keyword import OUT_KEYWORD, OUT_SEVERAL
from . import (
    arithmetic,
    attributes,
    bessel,
    combinatorics,
    comparison,
    complex_numbers,
    complex_ops,
    contractions,
    conversion,
    convolution,
    correlation,
    counting,
    distances,
    dtype_views,
    einsum,
    elementwise,
    factories,
    fake_quantize,
    fill,
    finite_differences,
    gamma,
    indexing,
    integration,
    joins,
    legacy,
    linalg,
    linalg_composites,
    logarithms,
    medians,
    memory_formats,
    moments,
    nan_reductions,
    normalization,
    norms,
    numpy_bridge,
    padding,
    pointwise,
    pooling,
    predicates,
    products,
    quantiles,
    quantized_ops,
    random_factories,
    ranges,
    raw_storage,
    reductions,
    rounding,
    sampling,
    scans,
    scatter,
    scatter_reduce,
    selection,
    shuffle,
    softmax,
    sparse_ops,
    views,
)
from .arguments import check_input
from .out_argument import call_with_out
from .quantized import QuantizedRead
from .sparse import SparseRead
from .tensor import Tensor, leaf
from .torch_names import TENSOR_ATTRIBUTES

__all__ = ["FUNCTIONS", "bind_method", "bind_function", "install"]

FUNCTIONS: dict = {}
"""name -> function of the torch namespace."""

# the families, in the order their spellings are bound (a later one may read an earlier one's)
FAMILIES = (elementwise, arithmetic, comparison, pointwise, reductions, views, dtype_views, joins, indexing, attributes,
            conversion, fill, memory_formats, factories, random_factories, ranges, softmax, products, rounding, norms,
            scans, selection, scatter, scatter_reduce, einsum, moments, convolution, pooling, padding, shuffle,
            normalization, legacy,
            numpy_bridge, counting, logarithms, predicates, nan_reductions, sampling, medians, linalg,
            linalg_composites, combinatorics,
            integration, quantiles, correlation, finite_differences, gamma, bessel, raw_storage, complex_numbers,
            complex_ops, contractions, distances, fake_quantize, sparse_ops, quantized_ops)
# sparse_ops and quantized_ops last: each closes its tensor's class over every dunder bound before it


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
    setattr(Tensor, name, _numpy_names(name, _named(fn, name, "Tensor." + name)))


def bind_function(name: str, fn, checked: bool = True) -> None:
    """``torch.<name>``; ``checked``: refusing a first argument that is not a tensor in PyTorch's
    words (factories take no tensor)."""
    FUNCTIONS[name] = _input_checked(name, _numpy_names(name, _named(fn, name, name))) if checked else fn


# Python-defined in PyTorch (torch/_tensor.py, torch/functional.py): no NumPy names there
_PYTHON_DEFINED = frozenset({"norm", "split", "unique", "unique_consecutive", "stft", "istft", "unflatten",
                             "tensordot", "cdist", "chain_matmul"})
_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def _numpy_names(name: str, fn):
    """``fn`` taking NumPy's ``axis`` and ``keepdims`` for its ``dim`` and ``keepdim``, as
    PyTorch's argument parser does for its C++-bound functions and methods (``x.sum(axis=1)``);
    ``fn`` itself when it has neither parameter. A name given twice is left to fail."""
    if name in _PYTHON_DEFINED:
        return fn
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return fn
    aliases = tuple((a, p, params.index(p)) for a, p in _NUMPY_NAMES if p in params)
    if not aliases:
        return fn

    @functools.wraps(fn)
    def numpy_named(*args, **kwargs):
        if kwargs:
            for alias, real, at in aliases:
                if alias in kwargs and real not in kwargs and len(args) <= at:
                    kwargs[real] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return numpy_named


def _input_checked(name: str, fn):
    """``fn`` refusing a first argument that is not a tensor in PyTorch's words (``torch.sum(1.)``:
    "sum(): argument 'input' (position 1) must be Tensor, not float"), and taking ``out=`` where
    PyTorch's function does (``out_argument``). The check runs only when ``fn`` fails, so a
    well-typed call pays one frame."""
    takes_out = name in OUT_KEYWORD
    rule, several = getattr(fn, "elementwise_out", None), name in OUT_SEVERAL
    signature, first = _as_pytorchs(fn, takes_out)
    overload = getattr(fn, "out_overload", None)  # the parser's check of the overload that takes out

    def function(*args, **kwargs):
        if kwargs:
            if overload is not None and "out" in kwargs:
                overload(args, kwargs)
            if first and "input" in kwargs:  # PyTorch's name for the tensor, ours another
                kwargs[first] = kwargs.pop("input")
            if "out" in kwargs:
                out = kwargs.pop("out")
                if not takes_out:
                    raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
                if out is not None:
                    return call_with_out(name, function, args, kwargs, out, rule, several)
        try:
            return fn(*args, **kwargs)
        except AttributeError as e:
            x = args[0] if args else kwargs.get(first or "input", e)
            if isinstance(e, (SparseRead, QuantizedRead)):  # a sparse or quantized operand reached the dense kernel
                raise e.named("torch." + name) from None
            if isinstance(e, Unsupported) or x is e or isinstance(x, (Tensor, list, tuple)):
                raise
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(x).__name__}") from None
        except TypeError as e:
            plain = plain_arguments(args, kwargs)  # NumPy scalars, read as PyTorch's parser reads them
            if plain is None:
                raise
            refused = e
        try:
            return fn(*plain[0], **plain[1])
        except TypeError:
            raise refused from None  # the first refusal, naming the arguments as given

    function.__name__ = function.__qualname__ = name
    function.__doc__ = fn.__doc__
    function.__wrapped__ = fn
    function.__signature__ = signature
    return function


def _as_pytorchs(fn, takes_out: bool) -> tuple:
    """``fn``'s signature as PyTorch's parser reads the call, and the name to which a keyword
    ``input`` goes: the first parameter is PyTorch's ``input`` (``torch.flatten(input=x)``; ours
    may be ``x`` or ``self``), and ``out`` is keyword-only where PyTorch's function takes it.
    (None, None) where ``fn`` has no signature to read (inspect's own, from ``__wrapped__``)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None, None
    params = list(sig.parameters.values())
    first = None
    if params and params[0].name in _OUR_INPUT_NAMES and params[0].kind is params[0].POSITIONAL_OR_KEYWORD \
            and "input" not in sig.parameters:
        first = params[0].name
        params[0] = params[0].replace(name="input")
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params)
    if takes_out and "out" not in sig.parameters and not takes_any:
        params.append(inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    elif not first:
        return None, None
    return sig.replace(parameters=params), first


# the names our functions give the tensor PyTorch calls ``input`` (others, such as ``tensors``, are PyTorch's)
_OUR_INPUT_NAMES = frozenset({"x", "self"})


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
    for name, fn in sparse_ops.DISPATCH.items():  # torch.mm(sparse, dense) and the like
        dense = FUNCTIONS.get(name) or (FUNCTIONS["mm"] if name == "spmm" else None)
        if dense is not None:
            FUNCTIONS[name] = sparse_ops.dispatching(dense, fn, sparse_ops.REFLECTED.get(name))
    for name in ("mm", "matmul"):  # dense.mm(sparse), dense.matmul(sparse): as torch.mm(dense, sparse)
        setattr(Tensor, name, sparse_ops.dispatching(getattr(Tensor, name), sparse_ops.DISPATCH[name],
                                                     sparse_ops.REFLECTED[name]))
    for name, fn in quantized_ops.DISPATCH.items():  # torch.flatten(quantized), torch.equal and the like
        FUNCTIONS[name] = quantized_ops.dispatching(FUNCTIONS[name], fn, quantized_ops.REFLECTED.get(name))
    install_unsupported()
    _install_numpy_names()


# PyTorch's argument parser takes NumPy's names for two parameters of every function it parses
# (``x.sum(axis=0)``, ``x.mean(1, keepdims=True)``); the functions PyTorch writes in Python do not
_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))
_PYTHON_METHODS = frozenset({"norm", "split", "unflatten", "unique", "unique_consecutive", "stft", "istft"})
_PYTHON_FUNCTIONS = frozenset({"norm", "split", "unique", "unique_consecutive", "stft", "istft"})


def _with_numpy_names(name: str, fn, python_defined: frozenset):
    """``fn`` taking ``axis=``/``keepdims=`` for its ``dim``/``keepdim``, if it has them and
    PyTorch's is not written in Python (``python_defined``)."""
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
    if code is None or name in python_defined:
        return fn
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if "dim" not in params and "keepdim" not in params:
        return fn

    def function(*args, **kwargs):
        if kwargs:
            for alias, real in _NUMPY_NAMES:
                if alias in kwargs:
                    if real in kwargs:
                        raise TypeError(f"{name}() got an unexpected keyword argument '{alias}'")
                    kwargs[real] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    function.__name__, function.__qualname__, function.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    function.__wrapped__ = fn
    return function


def _install_numpy_names() -> None:
    for name, fn in list(vars(Tensor).items()):
        if not name.startswith("_") and callable(fn) and not isinstance(fn, type):
            wrapped = _with_numpy_names(name, fn, _PYTHON_METHODS)
            if wrapped is not fn:
                setattr(Tensor, name, wrapped)
    for name, fn in list(FUNCTIONS.items()):
        if callable(fn) and not isinstance(fn, type):
            FUNCTIONS[name] = _with_numpy_names(name, fn, _PYTHON_FUNCTIONS)


install()
