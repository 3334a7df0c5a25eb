"""What quantized tensors do: ``torch.quantize_per_tensor`` and ``quantize_per_channel`` with PyTorch 2.13's
checks and errors, ``torch.dequantize``, the parameters' accessors on a dense tensor (PyTorch's refusals), the
ops that only move stored integers (views, indexing, clone), ``torch.equal`` and ``==``/``!=`` (on the
dequantized values, as PyTorch compares them). The tensor itself, its arithmetic of one number and its
print are in ``quantized.py``; everything not here is refused there, by name.

Per-channel tensors move only as a whole (clone, detach, contiguous): PyTorch turns an index of one
into a per-tensor tensor and refuses most views of one; scalargrad refuses them all by name. Float
zero points (``per_channel_affine_float_qparams``) and the packed dtypes (``quint4x2``, ``quint2x4``)
are refused by name.
"""

from __future__ import annotations

import functools
import math
import warnings

from .._base import dtypes, warn_once
from .._base.dtypes import QUANTIZED_INT, float32, round_f32
from .._base.errors import Unsupported
from .._base.grad_mode import state as grad_state
from .._base.program_frame import program_stacklevel
from . import joins
from . import quantized as Q
from .quantized import (
    HINT,
    QuantizedRead,
    QuantizedTensor,
    new_quantized,
    per_channel_affine,
    per_tensor_affine,
    quantize_values,
)
from .tensor import Tensor, flat

__all__ = ["quantize_per_tensor", "quantize_per_channel", "quantize_per_tensor_dynamic", "dequantize", "install",
           "DISPATCH", "dispatching"]

_DEPRECATED = ("torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor creation functions "
               "that produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are deprecated and will "
               "be removed in a future PyTorch release. Please see https://github.com/pytorch/pytorch/issues/184982 "
               "for more information. (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/quantized/Quantizer.cpp:111.)")


_MISSING = object()  # an argument not given


def _warn_deprecated() -> None:
    """PyTorch 2.13's once-per-process warning at the first quantized tensor made."""
    if warn_once.first_time("quantized creation"):
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=program_stacklevel())


def _check_input(x, what: str) -> Tensor:
    if isinstance(x, QuantizedTensor):
        raise QuantizedRead(f"torch.{what}")
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x


def _check_dtype(dt) -> None:
    """A quantized dtype scalargrad makes: quint8, qint8 or qint32."""
    if not isinstance(dt, dtypes.dtype):
        raise TypeError(f"argument 'dtype' must be torch.dtype, not {type(dt).__name__}")
    if dt in (dtypes.quint4x2, dtypes.quint2x4):
        raise Unsupported(f"quantized tensors of {dt!r} (sub-byte values packed in bytes)", HINT)
    if dt not in QUANTIZED_INT:
        raise RuntimeError(f"ScalarType {dt.short} is not supported in new_qtensor.")


def _check_zero_point(zp: int, dt, what: str) -> None:
    lo, hi = Q.limits(dt)
    if zp > hi:
        raise RuntimeError(f"{what} zero_point {zp} is above upper bound.")
    if zp < lo:
        raise RuntimeError(f"{what} zero_point {zp} is below lower bound.")


def _scalar(t, what: str):
    """A one-element tensor's number (PyTorch's ``item()``)."""
    n = t.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return flat(t)[0]


_OVERLOADS = (("(Tensor input, Tensor scale, Tensor zero_point, torch.dtype dtype)", ("Tensor", "Tensor", "Tensor")),
              ("(Tensor input, float scale, int zero_point, torch.dtype dtype)", ("Tensor", "float", "int")),
              ("(tuple of Tensors tensors, Tensor scales, Tensor zero_points, torch.dtype dtype)",
               ("tuple", "Tensor", "Tensor")))


def _kind(x) -> str:
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, (list, tuple)):
        return "tuple" if all(isinstance(e, Tensor) for e in x) else "other"
    if isinstance(x, bool):
        return "bool"
    return "int" if isinstance(x, int) else "float" if isinstance(x, float) else type(x).__name__


def _matches(kind: str, want: str) -> bool:
    return kind == want or (want == "float" and kind == "int")


def _invalid_combination(args: tuple, complete: bool) -> TypeError:
    """PyTorch's parser refusal of quantize_per_tensor's arguments, each overload's mismatches marked."""
    names = [("list" if isinstance(a, list) else "tuple" if isinstance(a, tuple) else "Tensor"
              if isinstance(a, Tensor) else type(a).__name__) for a in args]
    got = ", ".join(names[:3] + (["torch.dtype"] if complete else []))
    text = f"quantize_per_tensor() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    for sig, wants in _OVERLOADS:
        text += f" * {sig}\n"
        if complete:
            marks = [n if _matches(_kind(a), w) else f"!{n}!" for a, n, w in zip(args, names, wants)]
            text += ("      didn't match because some of the arguments have invalid types: ("
                     + ", ".join(marks + ["torch.dtype"]) + ")\n")
    return TypeError(text)


# ---------------------------------------------------------------- making quantized tensors


def quantize_per_tensor(input=_MISSING, scale=_MISSING, zero_point=_MISSING, dtype=_MISSING, *, tensors=_MISSING,
                        scales=_MISSING, zero_points=_MISSING):  # PyTorch's parameter names, every overload's
    """``torch.quantize_per_tensor``: a float32 tensor as ``dtype``'s integers with one scale and
    zero point (numbers, or one-element tensors); a list of tensors with a tensor of scales and
    one of zero points gives a tuple."""
    input = tensors if input is _MISSING else input
    scale = scales if scale is _MISSING else scale
    zero_point = zero_points if zero_point is _MISSING else zero_point
    args = (input, scale, zero_point, dtype)
    if any(a is _MISSING for a in args[:3]):
        raise _invalid_combination(tuple(a for a in args[:3] if a is not _MISSING), False)
    if not isinstance(dtype, dtypes.dtype):
        raise _invalid_combination(args[:3], False)
    kinds = tuple(_kind(a) for a in args[:3])
    if not any(all(_matches(k, w) for k, w in zip(kinds, wants)) for _, wants in _OVERLOADS):
        raise _invalid_combination(args, True)
    if kinds[0] == "tuple":
        scales, zps = flat(scale), flat(zero_point)
        out = []
        for i, x in enumerate(input):
            if i >= len(scales) or i >= len(zps):
                raise IndexError(f"select(): index {i} out of range for tensor of size [{min(len(scales), len(zps))}]"
                                 " at dimension 0")
            out.append(_per_tensor(x, float(scales[i]), int(zps[i]), dtype))
        return tuple(out)
    if kinds[1] == "Tensor":
        scale, zero_point = float(_scalar(scale, "scale")), int(_scalar(zero_point, "zero_point"))
    return _per_tensor(input, float(scale), zero_point, dtype)


def _per_tensor(x, scale: float, zp: int, dt) -> QuantizedTensor:
    x = _check_input(x, "quantize_per_tensor")
    if x.dtype is not float32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {x.dtype.short}")
    _check_dtype(dt)
    _check_zero_point(zp, dt, "quantize_tensor_per_tensor_affine")
    _warn_deprecated()
    ints = quantize_values(flat(x), dt, scale, zp, fused=dt.itemsize == 1)
    return new_quantized(_stored(ints, x, dt), dt, per_tensor_affine, scale, zp)


def _stored(ints: list, x: Tensor, dt) -> Tensor:
    """The stored integers (row-major ``ints``) in ``x``'s memory format."""
    return Q.in_format(ints, x, QUANTIZED_INT[dt])


def quantize_per_tensor_dynamic(input, dtype, reduce_range):  # PyTorch's parameter names
    """``torch.quantize_per_tensor_dynamic``: ``quantize_per_tensor`` with the scale and zero point
    ATen's ``quant_utils::ChooseQuantizationParams`` picks from the elements' min and max (float16:
    the tensor as float16)."""
    x = _check_input(input, "quantize_per_tensor_dynamic")
    if dtype is dtypes.float16:
        return x.to(dtypes.float16)
    if dtype not in (dtypes.qint8, dtypes.quint8):
        raise RuntimeError(f"dtype {dtype.short}not supported")
    lo, hi = Q.limits(dtype)
    if reduce_range:  # the x86 engine (fbgemm) honours it; QNNPACK's would not
        lo, hi = int(lo / 2), int(hi / 2)  # C++'s division: toward zero
    scale, zp = _choose_parameters(float(x.min()), float(x.max()), lo, hi)
    return _per_tensor(x, scale, zp, dtype)


_SMALL_SCALE = round_f32(6.1e-5)  # ATen's SMALL_SCALE_THRESHOLD, a float (fp16's smallest normal, about)


def _choose_parameters(mn: float, mx: float, qmin: int, qmax: int) -> tuple:
    """ATen's ``quant_utils::ChooseQuantizationParams`` (no sparsity, no power-of-two scale): the
    double scale spanning [min(mn, 0), max(mx, 0)] and the zero point nudged to an integer."""
    if not mn <= mx:
        raise RuntimeError("In ChooseQuantizationParams, min should be less than or equal to max")
    mn, mx = min(mn, 0.0), max(mx, 0.0)
    scale = (mx - mn) / (qmax - qmin)  # in double, from float32 bounds
    s32 = round_f32(scale)
    if s32 == 0.0 or round_f32(1.0 / s32) == math.inf:
        scale = 0.1
    if scale < _SMALL_SCALE:
        org = round_f32(scale)
        scale = _SMALL_SCALE
        if mn == 0.0:
            mx = round_f32(_SMALL_SCALE * (qmax - qmin))
        elif mx == 0.0:
            mn = round_f32(-_SMALL_SCALE * (qmax - qmin))
        else:
            amplifier = round_f32(_SMALL_SCALE / org)
            mn, mx = round_f32(mn * amplifier), round_f32(mx * amplifier)
    from_min, from_max = qmin - mn / scale, qmax - mx / scale
    initial = from_min if abs(qmin) - abs(mn / scale) < abs(qmax) - abs(mx / scale) else from_max
    if initial != initial:  # an infinite element: nan, which x86's conversion makes INT_MIN (refused below)
        return scale, -(1 << 31)
    zp = qmin if initial < qmin else qmax if initial > qmax else round(initial)  # nearbyint: ties to even
    return scale, zp


def quantize_per_channel(input, scales, zero_points, axis, dtype):  # PyTorch's parameter names
    """``torch.quantize_per_channel``: a float32 tensor as ``dtype``'s integers with one scale and
    zero point per index along ``axis`` (1-D tensors of them)."""
    for pos, name, v in ((1, "input", input), (2, "scales", scales), (3, "zero_points", zero_points)):
        if not isinstance(v, Tensor):
            raise TypeError(f"quantize_per_channel(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")
    x = _check_input(input, "quantize_per_channel")
    _check_dtype(dtype)
    if isinstance(scales, QuantizedTensor) or isinstance(zero_points, QuantizedTensor):
        raise QuantizedRead("torch.quantize_per_channel")
    if zero_points.dtype.is_floating_point:
        raise Unsupported("quantize_per_channel with float zero points (torch.per_channel_affine_float_qparams)",
                          HINT)
    if not scales.dtype.is_floating_point:
        raise RuntimeError("scale tensor must be floating point")
    if scales.ndim != 1:
        raise RuntimeError("scale tensor must have dimension 1")
    if zero_points.ndim != 1:
        raise RuntimeError("zero_points tensor must have dimension 1")
    if scales.numel() != zero_points.numel():
        raise RuntimeError("number of elements in scales and zero_points must match")
    if x.dtype is not float32:
        raise RuntimeError(f"quantize_tensor_per_channel_affine expects a Float Tensor, got {x.dtype.short}")
    shape = tuple(x.shape)
    if not 0 <= axis < len(shape):
        raise RuntimeError(f"Channel axis out of range in per channel affine quantization. Got: {axis}Expected: "
                           f"[0, {len(shape)})")
    n = shape[axis]
    if scales.numel() != n:
        raise RuntimeError(f"length of scales must equal to channel, expected {n} got, {scales.numel()}")
    sv, zv = [float(s) for s in flat(scales)], [int(z) for z in flat(zero_points)]
    for z in zv:
        _check_zero_point(z, dtype, "quantize_tensor_per_channel_affine")
    _warn_deprecated()
    inner = 1
    for d in shape[axis + 1:]:
        inner *= d
    xs = flat(x)
    ints = []
    for i, v in enumerate(xs):
        c = (i // inner) % n
        ints += quantize_values([v], dtype, sv[c], zv[c], fused=False)
    s_t, z_t = Q.per_channel_parameters(sv, zv)
    return new_quantized(_stored(ints, x, dtype), dtype, per_channel_affine, s_t, z_t, axis)


# ---------------------------------------------------------------- dequantize, and the accessors on any tensor


def dequantize(input=_MISSING, *, tensors=_MISSING):  # PyTorch's parameter names, both overloads'
    """``torch.dequantize``: a quantized tensor's real numbers (float32); a dense tensor as float32;
    a list or tuple of tensors with a quantized one: a tuple."""
    tensors = input if tensors is _MISSING else tensors
    if isinstance(tensors, (list, tuple)) and all(isinstance(t, Tensor) for t in tensors):
        if not any(isinstance(t, QuantizedTensor) for t in tensors):
            raise NotImplementedError(_no_kernel_message("dequantize.tensors"))
        return tuple(_dequantize_one(t) for t in tensors)
    if not isinstance(tensors, Tensor):
        got = type(tensors).__name__
        raise TypeError(f"dequantize() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n * (Tensor input)\n      didn't match because some of the arguments have invalid "
                        f"types: (!{got}!)\n * (tuple of Tensors tensors)\n      didn't match because some of the "
                        f"arguments have invalid types: (!{got}!)\n")
    return _dequantize_one(tensors)


def _dequantize_one(t: Tensor) -> Tensor:
    if isinstance(t, QuantizedTensor):
        return t.dequantize()
    if t.requires_grad and grad_state.enabled:
        # PyTorch's result requires grad through a node without a derivative (NotImplemented)
        raise Unsupported("dequantize of a tensor that requires grad", "PyTorch records a node without a derivative "
                          "(NotImplemented) there, which scalargrad does not")
    return t.to(float32)  # PyTorch's dense dequantize: the tensor as float (itself when float32)


def _no_kernel(op: str):
    """PyTorch's refusal of a quantized tensor's accessor on a dense tensor (no CPU kernel)."""

    def refuse(self, *args, **kwargs):
        if isinstance(self, QuantizedTensor):
            return getattr(QuantizedTensor, op)(self, *args, **kwargs)
        if not isinstance(self, Tensor):
            raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}")
        raise NotImplementedError(_no_kernel_message(op))

    refuse.__name__ = op
    return refuse


def _no_kernel_message(op: str) -> str:
    """The first line of PyTorch's dispatcher error for an op without a CPU (dense) kernel."""
    return (f"Could not run 'aten::{op}' with arguments from the 'CPU' backend. This could be because the operator "
            "doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
            "custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
            f"https://fburl.com/ptmfixes for possible resolutions. 'aten::{op}' is only available for these "
            f"backends: [{_BACKENDS}].")


# the dispatch keys PyTorch 2.13 lists for a quantized-only op (its CPU build)
_BACKENDS = ("Meta, QuantizedCPU, BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, "
             "Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, "
             "AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, AutogradLazy, "
             "AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, AutogradPrivateUse3, "
             "AutogradMeta, AutogradNestedTensor, Tracer, AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, "
             "AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, FuncTorchVmapMode, Batched, "
             "VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PreDispatch, "
             "PythonDispatcher")


# ---------------------------------------------------------------- moving stored integers


def _moved(op: str):
    """The quantized tensor whose stored integers are ``op`` of this one's (a view where the
    dense op makes a view): the same dtype and parameters. Per-channel tensors move only whole."""

    def move(self, *args, **kwargs):
        if self._qs is not per_tensor_affine and op not in ("clone", "detach", "contiguous"):
            raise Unsupported(f"Tensor.{op} on a per-channel quantized tensor", HINT)
        for a in args:
            if isinstance(a, QuantizedTensor):
                raise QuantizedRead(f"Tensor.{op}")
        out = getattr(self._ir, op)(*args, **kwargs)
        if isinstance(out, Tensor):
            return new_quantized(out, self._dt, self._qs, self._scale, self._zp, self._axis)
        return tuple(new_quantized(o, self._dt, self._qs, self._scale, self._zp, self._axis) for o in out)

    move.__name__ = op
    return move


_MOVES = ("view", "reshape", "flatten", "transpose", "t", "permute", "unsqueeze", "squeeze", "contiguous", "select",
          "narrow", "expand", "__getitem__", "chunk", "split", "unbind", "clone", "detach", "flip", "index_select")


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter([self[i] for i in range(len(self))])


def _deepcopy(self, memo):
    return self.clone()


def _data(self):
    return self.detach()


# ---------------------------------------------------------------- equality


def equal(self, other) -> bool:
    """``torch.equal``: the same dtype, scheme, parameters, shape and stored integers (a quantized
    tensor never equals a dense one)."""
    if not (isinstance(self, QuantizedTensor) and isinstance(other, QuantizedTensor)):
        return False
    if self._dt is not other._dt or self._qs is not other._qs or tuple(self.shape) != tuple(other.shape):
        return False
    if self._qs is per_tensor_affine:
        same = self._scale == other._scale and self._zp == other._zp
    else:
        same = self._axis == other._axis and flat(self._scale) == flat(other._scale) \
            and flat(self._zp) == flat(other._zp)
    return same and flat(self._ir) == flat(other._ir)


def _compare(op: str):
    """``q == other``, ``q != other``: on the dequantized values (PyTorch's quantized eq/ne)."""

    def compare(self, other):
        a = self.dequantize()
        b = other.dequantize() if isinstance(other, QuantizedTensor) else other
        return getattr(a, op)(b)

    compare.__name__ = op
    return compare


def _reflected_equal(dense, q) -> bool:
    return False


def _joined(op: str, stack: bool):
    """``torch.cat``/``stack`` of quantized tensors: per tensor, one dtype and the same scale and
    zero point, their stored integers joined (PyTorch requantizes tensors of other parameters to the
    first one's: refused by name)."""

    def join(tensors, dim=0, *, out=None):
        if out is not None:
            raise Unsupported(f"torch.{op}(out=...) of quantized tensors", HINT)
        tensors = list(tensors)
        first = tensors[0]
        for t in tensors:
            if not isinstance(t, QuantizedTensor):
                raise NotImplementedError(_no_kernel_message("qscheme"))
        if first._qs is not per_tensor_affine:
            raise RuntimeError("Only per-tensor quantization is supported in 'cat'!")
        for t in tensors[1:]:
            if t._dt is not first._dt:
                raise RuntimeError("All dtypes must be the same.")
            if t._qs is not per_tensor_affine:
                _need_per_tensor(t)
            if (t._scale, t._zp) != (first._scale, first._zp):
                raise Unsupported(f"torch.{op} of quantized tensors with different scales or zero points (PyTorch "
                                  "requantizes them to the first one's)", HINT)
        joined = (joins.stack if stack else joins.cat)([t._ir for t in tensors], dim)
        return new_quantized(joined, first._dt, per_tensor_affine, first._scale, first._zp)

    join.__name__ = op
    return join


def _need_per_tensor(q: QuantizedTensor) -> None:
    q.q_scale()  # PyTorch's error for a per-channel tensor


def dispatching(dense, quantized_fn, reflected=None):
    """A ``torch.<op>`` that sends a quantized first operand (or a list starting with one) to
    ``quantized_fn`` (and a quantized second one to ``reflected(second, first)`` where there is one)."""

    @functools.wraps(dense)
    def function(*args, **kwargs):
        if args:
            first = args[0]
            if first.__class__ is QuantizedTensor or (first.__class__ in (list, tuple) and first
                                                      and first[0].__class__ is QuantizedTensor):
                return quantized_fn(*args, **kwargs)
            if reflected is not None and len(args) > 1 and args[1].__class__ is QuantizedTensor:
                return reflected(args[1], args[0])
        return dense(*args, **kwargs)

    return function


_ACCESSORS = ("int_repr", "q_scale", "q_zero_point", "q_per_channel_scales", "q_per_channel_zero_points",
              "q_per_channel_axis", "qscheme")

_TORCH_MOVES = ("reshape", "flatten", "transpose", "t", "permute", "unsqueeze", "squeeze", "select", "narrow", "chunk",
                "split", "unbind", "clone", "detach", "flip", "index_select")
DISPATCH = {**{op: _moved(op) for op in _TORCH_MOVES}, "equal": equal,
            "eq": _compare("eq"), "ne": _compare("ne"), "numel": QuantizedTensor.numel,
            "is_floating_point": QuantizedTensor.is_floating_point, "is_complex": QuantizedTensor.is_complex,
            **{op: _joined(op, False) for op in ("cat", "concat", "concatenate")}, "stack": _joined("stack", True)}
"""torch functions that take a quantized first operand (surface.install wraps them with ``dispatching``)."""
REFLECTED = {"equal": _reflected_equal}


def install(method, function) -> None:
    """Bind the quantized dtypes, schemes and constructors (``torch.*``), ``dequantize`` and the
    accessors every tensor has (a dense one refusing as PyTorch does); then close the class."""
    for op in _MOVES:
        setattr(QuantizedTensor, op, _moved(op))
    for name, fn in (("__iter__", _iter), ("__deepcopy__", _deepcopy), ("equal", equal), ("eq", _compare("eq")),
                     ("ne", _compare("ne")), ("__eq__", _compare("eq")), ("__ne__", _compare("ne"))):
        setattr(QuantizedTensor, name, fn)
    QuantizedTensor.data = property(_data)
    QuantizedTensor.__hash__ = Tensor.__hash__
    for name in _ACCESSORS:
        method(name, _no_kernel(name))
        if name != "qscheme":
            function(name, _no_kernel(name), checked=False)
    method("dequantize", _dequantize_one)
    function("dequantize", dequantize, checked=False)
    function("quantize_per_tensor", quantize_per_tensor, checked=False)
    function("quantize_per_channel", quantize_per_channel, checked=False)
    function("quantize_per_tensor_dynamic", quantize_per_tensor_dynamic, checked=False)
    for dt in (dtypes.quint8, dtypes.qint8, dtypes.qint32, dtypes.quint4x2, dtypes.quint2x4):
        function(dt.name, dt, checked=False)
    for qs in Q.QSCHEMES:
        function(qs.name, qs, checked=False)
    function("qscheme", Q.qscheme, checked=False)
    Q.finish()
