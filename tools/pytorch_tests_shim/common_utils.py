"""A small stand-in for ``torch.testing._internal.common_utils`` (tools/pytorch_tests.py).

PyTorch's own test files import their TestCase, decorators and flags from this module. The real
one imports half of PyTorch (numpy, dynamo, CUDA helpers), so the harness loads this one in its
place, under real PyTorch as under scalargrad: a test counts only if real PyTorch passes it
under this same shim. ``assertEqual`` follows PyTorch's: tensors equal in shape (and dtype unless
``exact_dtype=False``) and close within the dtype's default tolerances (float32 1.3e-6 / 1e-5,
float64 1e-7 / 1e-7, integers and bools exact), NaNs equal; a number against a one-element
tensor with the number's tolerances; sequences and mappings item by item; anything else by
``==``. A name this shim does not define is a stand-in that fails the test that uses it
(``ShimMissing``), so such a test fails under PyTorch too and is reported out of scope.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import math
import os
import random
import sys
import tempfile
import unittest
import warnings
from collections.abc import Mapping, Sequence

import torch

SEED = 1234
IS_WINDOWS = IS_MACOS = IS_S390X = IS_PPC = IS_FBCODE = IS_SANDCASTLE = IS_ARM64 = IS_JETSON = False
IS_LINUX = True
TEST_CUDA = TEST_MPS = TEST_XPU = TEST_WITH_ROCM = TEST_WITH_ASAN = TEST_WITH_TSAN = TEST_WITH_UBSAN = False
TEST_WITH_TORCHDYNAMO = TEST_WITH_TORCHINDUCTOR = TEST_WITH_CROSSREF = TEST_WITH_SLOW = False
TEST_WITH_AOT_EAGER = TEST_WITH_SLOW_GRADCHECK = TEST_MKL = TEST_SCIPY = TEST_PRIVATEUSE1 = False
try:
    import numpy as _numpy  # noqa: F401 - PyTorch sets TEST_NUMPY when numpy imports
    TEST_NUMPY = True
except ImportError:
    TEST_NUMPY = False
TEST_CUDA_GRAPH = TEST_MULTIGPU = TEST_CUDNN = TEST_WITH_DEV_DBG_ASAN = IS_REMOTE_GPU = TEST_Z3 = False
NO_MULTIPROCESSING_SPAWN = True
GRADCHECK_NONDET_TOL = 1e-12
TEST_SKIP_FAST = False

gradcheck = torch.autograd.gradcheck
gradgradcheck = torch.autograd.gradgradcheck


class ShimMissing(Exception):
    """The test used a part of common_utils (or another internal test module) the shim lacks."""


class _StandIn:
    """What the shim answers for a name it does not define: false, a no-op decorator when applied
    to a function (the function then fails with ShimMissing when run), else it fails on use."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __bool__(self) -> bool:
        return False

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _StandIn(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and getattr(args[0], "__name__", "").startswith("test"):
            fn, name = args[0], self._name

            @functools.wraps(fn)
            def missing(*a, **k):
                raise ShimMissing(f"the harness's common_utils shim lacks {name}")
            return missing
        if len(args) == 1 and not kwargs and isinstance(args[0], type):
            return args[0]
        return _StandIn(f"{self._name}(...)")

    def __iter__(self):
        raise ShimMissing(f"the harness's common_utils shim lacks {self._name}")

    def __enter__(self):
        raise ShimMissing(f"the harness's common_utils shim lacks {self._name}")

    def __exit__(self, *exc):
        return False


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return _StandIn(name)


# ---------------------------------------------------------------- comparison (assertEqual)

_PRECISIONS = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def _tolerance(dtype) -> tuple[float, float]:
    return _PRECISIONS.get(str(dtype).replace("torch.", ""), (0.0, 0.0))


def _close(a, b, rtol: float, atol: float, equal_nan: bool) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if a == b:
        return True
    if isinstance(a, complex) or isinstance(b, complex):
        return abs(a - b) <= atol + rtol * abs(b)
    if math.isnan(a) or math.isnan(b):
        return equal_nan and math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= atol + rtol * abs(b)


def _flat(t) -> list:
    return t.detach().reshape(-1).tolist()


def _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype) -> str | None:
    if tuple(x.shape) != tuple(y.shape):
        return f"The values for attribute 'shape' do not match: {tuple(x.shape)} != {tuple(y.shape)}."
    if exact_dtype and x.dtype != y.dtype:
        return f"The values for attribute 'dtype' do not match: {x.dtype} != {y.dtype}."
    if rtol is None:
        (r1, a1), (r2, a2) = _tolerance(x.dtype), _tolerance(y.dtype)
        rtol, atol = max(r1, r2), max(a1, a2)
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(_flat(x), _flat(y))) if not _close(a, b, rtol, atol, equal_nan)]
    if bad:
        i, a, b = bad[0]
        return (f"Tensor-likes are not close! Mismatched elements: {len(bad)} / {x.numel()}; "
                f"first at flat index {i}: {a} != {b} (rtol {rtol}, atol {atol})")
    return None


def _number_of(v):
    if isinstance(v, torch.Tensor):
        if v.numel() != 1:
            return None
        v = v.item()
    return int(v) if isinstance(v, bool) else v


def _sequence_types() -> tuple:
    # PyTorch's assertEqual compares these containers item by item, as Sequences and Mappings
    nn = torch.nn
    return (Sequence, nn.Sequential, nn.ModuleList, nn.ParameterList)


def _mapping_types() -> tuple:
    nn = torch.nn
    return (Mapping, nn.ModuleDict, nn.ParameterDict)


def _compare(x, y, rtol, atol, equal_nan, exact_dtype, path="") -> str | None:
    where = f" (at {path})" if path else ""
    Sequence, Mapping = _sequence_types(), _mapping_types()  # PyTorch's wider kinds of container
    if x is None or y is None:
        return None if x is None and y is None else f"None mismatch{where}: {x!r} != {y!r}"
    tx, ty = isinstance(x, torch.Tensor), isinstance(y, torch.Tensor)
    if tx and isinstance(y, Sequence) and not isinstance(y, str):
        y, ty = torch.as_tensor(y, dtype=x.dtype), True
    elif ty and isinstance(x, Sequence) and not isinstance(x, str):
        x, tx = torch.as_tensor(x, dtype=y.dtype), True
    if tx and ty:
        m = _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype)
        return None if m is None else m + where
    numbers = (int, float, complex)
    if (isinstance(x, numbers) and (ty or isinstance(y, numbers))) or (isinstance(y, numbers) and tx):
        a, b = _number_of(x), _number_of(y)
        if a is None or b is None:
            return f"Only single element tensor-likes can be compared against a number{where}."
        if rtol is None:
            kinds = {type(a), type(b)}
            rtol, atol = (0.0, 0.0) if kinds <= {int} else (1.3e-6, 1e-5)
        return None if _close(a, b, rtol, atol, equal_nan) else f"Scalars are not close{where}: {a} != {b}"
    if isinstance(x, str) or isinstance(y, str):
        return None if x == y else f"{x!r} != {y!r}{where}"
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        if set(x.keys()) != set(y.keys()):
            return f"keys differ{where}: {sorted(map(str, x))} != {sorted(map(str, y))}"
        for k in x:
            m = _compare(x[k], y[k], rtol, atol, equal_nan, exact_dtype, f"{path}[{k!r}]")
            if m:
                return m
        return None
    if isinstance(x, Sequence) and isinstance(y, Sequence):
        if len(x) != len(y):
            return f"lengths differ{where}: {len(x)} != {len(y)}"
        for i, (a, b) in enumerate(zip(x, y)):
            m = _compare(a, b, rtol, atol, equal_nan, exact_dtype, f"{path}[{i}]")
            if m:
                return m
        return None
    if tx or ty:
        return f"cannot compare {type(x).__name__} with {type(y).__name__}{where}"
    return None if x == y else f"{x!r} != {y!r}{where}"


class TestCase(unittest.TestCase):
    """PyTorch's TestCase as far as the selected tests use it."""

    precision = 1e-5
    rel_tol = 0.0
    _do_cuda_memory_leak_check = False
    _do_cuda_non_default_stream = False

    def setUp(self) -> None:
        torch.manual_seed(SEED)
        random.seed(SEED)

    def assertEqual(self, x, y, msg=None, *, atol=None, rtol=None, equal_nan=True, exact_dtype=True,
                    exact_device=False, exact_layout=False, exact_stride=False, exact_is_coalesced=False):
        if (atol is None) != (rtol is None):
            raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, "
                             f"but got no {'rtol' if rtol is None else 'atol'}.")
        problem = _compare(x, y, rtol, atol, equal_nan, exact_dtype)
        if problem is not None:
            if callable(msg):
                problem = msg(problem)
            elif msg:
                problem = f"{problem}\n{msg}"
            raise self.failureException(problem)

    def assertNotEqual(self, x, y, msg=None, *, atol=None, rtol=None, **kwargs):
        try:
            self.assertEqual(x, y, msg, atol=atol, rtol=rtol, **kwargs)
        except self.failureException:
            return
        raise self.failureException(msg or f"{x!r} == {y!r}")

    def assertEqualIgnoreType(self, *args, **kwargs):
        return self.assertEqual(*args, exact_dtype=False, **kwargs)

    def assertExpectedInline(self, actual, expect, skip=0):
        self.assertEqual(str(actual).strip(), str(expect).strip())

    def assertExpected(self, s, subname=None):
        raise ShimMissing("assertExpected needs PyTorch's expect files")

    def assertExpectedRaisesInline(self, exc_type, callable, expect, *args, **kwargs):
        try:
            callable(*args, **kwargs)
        except exc_type as e:
            self.assertExpectedInline(str(e), expect)
            return
        self.fail("Did not raise when expected to")

    @contextlib.contextmanager
    def _assertNotWarn(self, msg=""):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            yield
        self.assertTrue(len(ws) == 0, msg or f"unexpected warnings: {[str(w.message) for w in ws]}")

    def assertNotWarn(self, callable=None, msg=""):
        """PyTorch's: ``assertNotWarn(fn, msg)`` calls fn and fails on any warning."""
        if callable is None:
            return self._assertNotWarn(msg)
        with self._assertNotWarn(msg):
            callable()

    @contextlib.contextmanager
    def assertWarnsOnceRegex(self, category, regex=""):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            yield
        import re
        found = [w for w in ws if issubclass(w.category, category) and re.search(regex, str(w.message))]
        self.assertTrue(found, f"{category.__name__} matching {regex!r} not raised")

    def assertObjectIn(self, obj, iterable):
        self.assertTrue(any(id(obj) == id(x) for x in iterable), f"{obj!r} not found by identity")

    def assertLeaksNoCudaTensors(self, name=None):
        return contextlib.nullcontext()


class TemporaryFileName:
    """A temporary file's name, the file closed (PyTorch's TemporaryFileName)."""

    def __init__(self, *args, **kwargs):
        self._dir = tempfile.TemporaryDirectory()

    def __enter__(self) -> str:
        return os.path.join(self._dir.name, "tmp")

    def __exit__(self, *exc):
        self._dir.cleanup()
        return False


# ---------------------------------------------------------------- decorators and helpers

def _identity_factory(*args, **kwargs):
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda fn: fn


skipIfTorchDynamo = skipIfCrossRef = skipIfRocm = skipIfNoLapack = skipIfTorchInductor = _identity_factory
xfailIfTorchDynamo = skipIfMps = skipIfXpu = skipIfHpu = skipCUDANonDefaultStreamIf = _identity_factory
markDynamoStrictTest = skipIfNoSciPy = skipIfWindows = skipIfMacOS = skipIfNoNumpy = _identity_factory
skipIfRocmVersionLessThan = skipIfSlowGradcheckEnv = serialTest = wrapDeterministicFlagAPITest = _identity_factory
suppress_warnings = skipIfNoXPU = skipIfTorchVersionLessThan = _identity_factory
slowTest = unittest.skip("slow test (PyTorch runs it only with PYTORCH_TEST_WITH_SLOW)")
skipIfNoDill = unittest.skip("needs dill")


def run_tests(*args, **kwargs) -> None:
    """The harness runs the tests itself."""


def load_tests(loader, standard_tests, pattern):
    return standard_tests


def set_rng_seed(seed: int) -> None:
    torch.manual_seed(seed)
    random.seed(seed)


@contextlib.contextmanager
def freeze_rng_state():
    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)


@contextlib.contextmanager
def disable_gc():
    if gc.isenabled():
        gc.disable()
        try:
            yield
        finally:
            gc.enable()
    else:
        yield


@contextlib.contextmanager
def set_default_dtype(dtype):
    """The default dtype set for the block (or, as a decorator, the test), restored after."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


@contextlib.contextmanager
def set_warn_always_context(new_val: bool):
    old = torch.is_warn_always_enabled()
    torch.set_warn_always(new_val)
    try:
        yield
    finally:
        torch.set_warn_always(old)


class subtest:
    """One value of a parametrize with its own name and decorators."""

    def __init__(self, arg_values, name=None, decorators=None):
        self.arg_values, self.name, self.decorators = arg_values, name, decorators or []


def _plain(value) -> bool:
    kinds = (str, int, float, bool, torch.dtype, getattr(torch, "layout", torch.dtype))
    return value is None or isinstance(value, kinds)


def _value_name(value) -> str:
    if isinstance(value, (torch.dtype, getattr(torch, "layout", torch.dtype))):
        return str(value).replace("torch.", "")
    if isinstance(value, type) or callable(value):
        return getattr(value, "__name__", str(value))
    return str(value).replace(".", "_")


class parametrize:
    """``@parametrize("x", values)``: instantiate_parametrized_tests makes one test per value,
    named as PyTorch names them (test_f_x_1)."""

    def __init__(self, arg_str, arg_values, name_fn=None):
        self.arg_names = [s.strip() for s in arg_str.split(",") if s.strip()]
        self.arg_values, self.name_fn = list(arg_values), name_fn

    def __call__(self, fn):
        fn.__dict__.setdefault("_parametrize", []).append(self)
        return fn

    def expand(self):
        for index, v in enumerate(self.arg_values):
            decorators = []
            if isinstance(v, subtest):
                decorators, name, v = v.decorators, v.name, v.arg_values
            else:
                name = None
            values = list(v) if len(self.arg_names) > 1 else [v]
            if name is None:
                if self.name_fn is not None:
                    name = self.name_fn(*values)
                else:  # PyTorch's default: name_value for plain values, name<index> for others
                    name = "_".join(f"{n}_{_value_name(x)}" if _plain(x) else f"{n}{index}"
                                    for n, x in zip(self.arg_names, values))
            yield name, dict(zip(self.arg_names, values)), decorators


class swap(parametrize):
    """``@swap([True, False])``: one test per value of
    ``torch.__future__.set_swap_module_params_on_conversion`` (PyTorch's SwapTensorsGuard: the
    previous value is read first and put back after), named ``test_f_swap_True``."""

    def __init__(self, swap_values):
        super().__init__("swap", swap_values)

    def expand(self):
        for value in self.arg_values:
            yield f"swap_{value}", {}, [_swap_guard(value)]


def _swap_guard(value):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            previous = torch.__future__.get_swap_module_params_on_conversion()
            if value is not None:
                torch.__future__.set_swap_module_params_on_conversion(value)
            try:
                return fn(*args, **kwargs)
            finally:
                torch.__future__.set_swap_module_params_on_conversion(previous)
        return wrapper
    return decorate


def instantiate_parametrized_tests(cls):
    for attr in list(vars(cls)):
        fn = getattr(cls, attr)
        params = getattr(fn, "_parametrize", None)
        if not attr.startswith("test") or not params:
            continue
        delattr(cls, attr)
        variants = [("", {}, [])]
        for p in reversed(params):
            variants = [(f"{n}_{pn}" if n else pn, {**kw, **pkw}, d + pd)
                        for n, kw, d in variants for pn, pkw, pd in p.expand()]
        for name, kwargs, decorators in variants:
            def test(self, _fn=fn, _kw=kwargs):
                return _fn(self, **_kw)
            for dec in decorators:
                test = dec(test)
            test.__name__ = f"{attr}_{name}"
            setattr(cls, test.__name__, test)
    return cls


def instantiate_device_type_tests(generic_test_class, scope, except_for=None, only_for=None, **kwargs):
    """CPU only: ``TestXDeviceType`` becomes ``TestXDeviceTypeCPU`` whose tests take device='cpu'."""
    excluded = [except_for] if isinstance(except_for, str) else list(except_for or [])
    wanted = [only_for] if isinstance(only_for, str) else list(only_for or ["cpu"])
    if "cpu" in excluded or "cpu" not in wanted:
        return None
    name = generic_test_class.__name__ + "CPU"
    attrs = {}
    for attr in dir(generic_test_class):
        fn = getattr(generic_test_class, attr)
        if attr.startswith("test") and callable(fn):
            def test(self, _fn=fn):
                return _fn(self, "cpu")
            attrs[f"{attr}_cpu"] = test
    cls = type(name, (TestCase,), attrs)
    for attr in dir(generic_test_class):
        if not attr.startswith("test") and not attr.startswith("__"):
            try:
                setattr(cls, attr, getattr(generic_test_class, attr))
            except (AttributeError, TypeError):
                pass
    cls.__module__ = scope.get("__name__", cls.__module__)
    scope[name] = cls
    return cls


def _assertGradAndGradgradChecks(test_case, apply_fn, inputs, **kwargs):
    test_case.assertTrue(gradcheck(apply_fn, inputs, **kwargs))
    test_case.assertTrue(gradgradcheck(apply_fn, inputs, **kwargs))


def noncontiguous_like(t):
    return t.clone()


_ = sys
