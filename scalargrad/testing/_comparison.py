"""``torch.testing.assert_close``: PyTorch 2.13's comparison, pair by pair, in its words.

Inputs are matched recursively (sequences item by item, mappings key by key), then each pair of
leaves is compared by the first kind that takes it: both None, both bools, both Python numbers
(ints exactly, floats within float64's tolerances), or tensors (one a subclass of the other's
type): shape, layout, device and dtype first, then the values with ``isclose`` after promoting to
a common dtype. The messages, the default tolerances per dtype and "The failure occurred for item
[1]['a']" are PyTorch's.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib

from .._base import dtypes
from .._base.errors import Unsupported
from .._tensor.surface import FUNCTIONS
from .._tensor.tensor import Tensor

__all__ = ["assert_close"]

# (rtol, atol) by dtype; any other dtype compares exactly
_DTYPE_PRECISIONS = {dtypes.float16: (0.001, 1e-05), dtypes.bfloat16: (0.016, 1e-05),
                     dtypes.float32: (1.3e-06, 1e-05), dtypes.float64: (1e-07, 1e-07)}
_NUMBER_DTYPES = {int: dtypes.int64, float: dtypes.float64}


class _Failure(Exception):
    """A comparison that failed: the error to raise, and where (the item path)."""

    def __init__(self, kind: type, msg: str, id: tuple = ()) -> None:
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def to_error(self, msg=None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.kind(msg)


class _NotMine(Exception):
    """This kind of pair does not take these inputs: the next kind is tried."""


def _tolerances(*dts, rtol, atol, id: tuple) -> tuple:
    if (rtol is None) ^ (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                   f"{'rtol' if rtol is None else 'atol'}.", id)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(dt, (0.0, 0.0)) for dt in dts])
    return max(rtols), max(atols)


def _mismatch(default: str, identifier, extra: str, abs_diff, atol, rel_diff, rtol, abs_idx=None, rel_idx=None):
    equality = rtol == 0 and atol == 0

    def diff(kind: str, value, idx, tol) -> str:
        if idx is None:
            msg = f"{kind.title()} difference: {value}"
        else:
            msg = f"Greatest {kind} difference: {value} at index {idx}"
        return msg + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff("absolute", abs_diff, abs_idx, atol) + diff("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch(actual, expected, rtol, atol, identifier=None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch("Scalars", identifier, f"Expected {expected} but got {actual}.", abs_diff, atol, rel_diff, rtol)


def _tensor_mismatch(actual: Tensor, expected: Tensor, matches: Tensor, rtol, atol) -> str:
    shape = tuple(matches.shape)

    def unravel(flat: int) -> tuple:
        index = []
        for size in shape[::-1]:
            flat, mod = divmod(flat, size)
            index.append(mod)
        return tuple(index[::-1])

    n = matches.numel()
    mismatched = n - int(FUNCTIONS["sum"](matches))
    extra = f"Mismatched elements: {mismatched} / {n} ({mismatched / n:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:
        a, e = a.to(dtypes.int64), e.to(dtypes.int64)
    abs_diff = FUNCTIONS["abs"](a - e)
    abs_diff[m] = 0
    max_abs, abs_at = FUNCTIONS["max"](abs_diff, 0)
    rel_diff = abs_diff / FUNCTIONS["abs"](e)
    rel_diff[m] = 0
    max_rel, rel_at = FUNCTIONS["max"](rel_diff, 0)
    return _mismatch("Tensor-likes", None, extra, max_abs.item(), atol, max_rel.item(), rtol,
                     unravel(int(abs_at)), unravel(int(rel_at)))


class _NonePair:
    def __init__(self, actual, expected, id, **options) -> None:
        if not (actual is None or expected is None):
            raise _NotMine
        self.actual, self.expected, self.id = actual, expected, id

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            raise _Failure(AssertionError, f"None mismatch: {self.actual} is not {self.expected}", self.id)


class _BooleanPair:
    def __init__(self, actual, expected, id, **options) -> None:
        if not (isinstance(actual, bool) and isinstance(expected, bool)):
            raise _NotMine
        self.actual, self.expected, self.id = actual, expected, id

    def compare(self) -> None:
        if self.actual is not self.expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}", self.id)


class _NumberPair:
    def __init__(self, actual, expected, id, rtol=None, atol=None, equal_nan=False, **options) -> None:
        if not (isinstance(actual, (int, float, complex)) and isinstance(expected, (int, float, complex))):
            raise _NotMine
        for x in (actual, expected):
            if isinstance(x, complex):
                raise Unsupported("torch.testing.assert_close of complex numbers")
        self.actual, self.expected, self.id = actual, expected, id
        self.rtol, self.atol = _tolerances(*[_NUMBER_DTYPES[type(x)] for x in (actual, expected)], rtol=rtol,
                                           atol=atol, id=id)
        self.equal_nan = equal_nan

    def compare(self) -> None:
        a, e = self.actual, self.expected
        if a == e:
            return
        if self.equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return
        abs_diff = abs(a - e)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(e):
            return
        raise _Failure(AssertionError, _scalar_mismatch(a, e, self.rtol, self.atol), self.id)


class _TensorLikePair:
    def __init__(self, actual, expected, id, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **options) -> None:
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _NotMine
        actual, expected = (x if isinstance(x, Tensor) else self._as_tensor(x) for x in (actual, expected))
        self.actual, self.expected, self.id = actual, expected, id
        self.rtol, self.atol = _tolerances(actual.dtype, expected.dtype, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    @staticmethod
    def _as_tensor(x) -> Tensor:
        try:
            return FUNCTIONS["as_tensor"](x)
        except Exception:
            raise _NotMine from None

    def _attribute(self, name: str, a, e) -> None:
        raise _Failure(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.", self.id)

    def compare(self) -> None:
        a, e = self.actual, self.expected
        if a.shape != e.shape:
            self._attribute("shape", a.shape, e.shape)
        if self.check_stride and a.stride() != e.stride():
            self._attribute("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            self._attribute("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            self._attribute("dtype", a.dtype, e.dtype)
        if a.dtype != e.dtype:
            common = dtypes.promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        matches = FUNCTIONS["isclose"](a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if FUNCTIONS["all"](matches):
            return
        if a.shape == ():
            msg = _scalar_mismatch(a.item(), e.item(), self.rtol, self.atol)
        else:
            msg = _tensor_mismatch(a, e, matches, self.rtol, self.atol)
        raise _Failure(AssertionError, msg, self.id)


_PAIRS = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _pairs(actual, expected, id: tuple = (), **options) -> list:
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and not isinstance(actual, str) and isinstance(expected, seq) and \
            not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           id)
        return [p for i in range(len(actual)) for p in _pairs(actual[i], expected[i], (*id, i), **options)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\nMissing keys in the actual "
                                           f"mapping: {sorted(e_keys - a_keys)}\nAdditional keys in the actual "
                                           f"mapping: {sorted(a_keys - e_keys)}", id)
        keys = a_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [p for k in keys for p in _pairs(actual[k], expected[k], (*id, k), **options)]
    for kind in _PAIRS:
        try:
            return [kind(actual, expected, id, **options)]
        except _NotMine:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                              f"{type(expected)}.", id)


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False, msg=None) -> None:
    """Raise PyTorch's error (an AssertionError with its message, or ``msg``) unless ``actual``
    and ``expected`` are close: |actual - expected| <= atol + rtol * |expected|, elementwise."""
    __tracebackhide__ = True
    try:
        pairs = _pairs(actual, expected, allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                       equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                       check_layout=check_layout, check_stride=check_stride)
    except _Failure as failure:
        raise failure.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None
