"""Which live-PyTorch tests can come out differently on another processor: a record and a selection.

CI runs the ``live_torch`` tests a second, third and fourth time under other processors' kernel
sets (``ATEN_CPU_CAPABILITY=default``, ``=avx2``, ``MKL_CBWR=COMPATIBLE``; ``.ci/run``). A test
can only come out differently there if something it computes does:

- a PyTorch op whose result depends on the kernels (a vector width, a fused multiply-add, a
  transcendental, a summation order, MKL). The main run records, with PyTorch's profiler, every
  ATen op each live test and each of its fixtures calls, forward and backward (the profiler sees
  every op the dispatcher runs, an op without a kernel of its own and the ops it decomposes into,
  without changing what PyTorch runs);
- scalargrad's fused multiply-adds, which the conftest rounds product-first where PyTorch does
  not fuse (``faithfulness.product_first``, under ``ATEN_CPU_CAPABILITY=default``): the main run
  records whether any was called.

A test is *kernel-independent* when it completed in the main run and every op it called is in
``EXACT_FAMILIES``/``EXACT_OPS`` (data movement, comparisons, exact operations, and those that
round once, the same in ATen's scalar and vector code: ``mul``, ``div``, ``add``/``sub`` with
alpha 1) or has only integer or boolean tensors, and nothing it did escaped the record. Such a
test runs the same ops on the same values under every setting (its code is deterministic, every
PyTorch result it sees is the same), so it takes the same path to the same outcome: the reruns
leave it out. Everything else is run again, conservatively: an op not listed, a subprocess, a
fork or a thread it started (their PyTorch is not recorded), a look at the CPU capability, a
module's or session's fixture first set up outside the record (and every test, if the test
modules' imports call an op not listed), a hypothesis test that is not derandomized (its examples
differ between runs; under ``CI`` Hypothesis's "ci" profile derandomizes every test, so a
derandomized one draws the same examples in both runs and is judged by its ops as any other),
a test that skipped or was not recorded (a new test, a changed id), and, under
``ATEN_CPU_CAPABILITY=default``, one that reached scalargrad's fused multiply-adds.

``pytest --kernel-record=PATH`` writes the record; ``pytest --kernel-rerun=PATH --kernel-setting=
NAME -m live_torch`` runs only the tests that can differ under NAME (from a record made by the same
checkout).

CI uses it (``.ci/run``): the main run records, the three reruns select. It records with the
profiler, not a ``TorchDispatchMode``: under one PyTorch decomposes some composite ops otherwise
(``matmul`` of a 3-D tensor that requires grad with a batch of one folds into ``mm`` instead of
``bmm``), which would change what the main run checks; tests/test_kernel_record.py checks that
the record leaves that graph as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest

from scalargrad._autograd import engine

# ATen ops whose result is the same on every processor and kernel set: no arithmetic, or
# arithmetic that is exact or rounds once, where ATen's scalar and vector loops compute the same
# IEEE operation (BinaryOpsKernel.cpp: mul_kernel, div_true_kernel). Nothing that sums (sum, mean,
# mm, softmax...), no transcendental, no random draw but the integer ones, no fmod (``remainder``,
# ``floor_divide``, ``div`` with a rounding mode: the AVX512 fmod gives nan for
# remainder(24.8, 2**-126), the generic code 0). tests/test_kernel_record.py checks the list on
# PyTorch under each setting. One difference is allowed: which nan (its sign and payload) comes
# out of max/min/maximum/minimum and the conversions where an input is nan (ATen's vector code
# propagates another one); IEEE leaves it open, nothing prints it, scalargrad does not model it.
# The profiler names an op without its overload: every overload of these (data movement,
# comparisons, exact ops):
EXACT_FAMILIES = frozenset(f"aten::{name}" for name in """
    empty empty_strided empty_like new_empty new_empty_strided zeros zeros_like new_zeros ones ones_like
    new_ones full full_like new_full fill fill_ zero_ scalar_tensor copy copy_ _copy_from
    _copy_from_and_resize clone _to_copy lift_fresh lift_fresh_copy detach detach_ alias
    _local_scalar_dense view _unsafe_view _reshape_alias reshape expand expand_copy permute transpose t
    select slice unsqueeze squeeze as_strided unfold diagonal narrow split split_with_sizes unbind cat
    stack flip roll repeat index index_select gather masked_fill masked_fill_ masked_select where nonzero
    constant_pad_nd set_ resize_ resize_as_ select_backward
    slice_backward select_scatter slice_scatter as_strided_scatter diagonal_backward expand_as
    eq ne lt le gt ge isnan isinf isposinf isneginf signbit logical_not logical_and logical_or
    logical_xor any all equal
    abs neg sign sgn floor ceil trunc clamp clamp_ clamp_min clamp_max maximum minimum max min amax amin
    argmax argmin sort topk relu relu_ threshold threshold_backward reciprocal mul mul_
    random_ randperm
""".split())
# ... and these only with the arguments that keep them exact (``_op_name`` names the others with
# what makes them kernel-dependent): add/sub/rsub with alpha 1 (with another alpha the vector
# code fuses ``a + alpha * b``), div without a rounding mode, round without decimals (it
# multiplies), index_put without accumulate (it adds)
_ALPHA_OPS = frozenset({"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::rsub"})
_ARGUMENTS = {"aten::div": (2, "rounding mode"), "aten::div_": (2, "rounding mode"),
              "aten::round": (1, "decimals"), "aten::round_": (1, "decimals")}
_ACCUMULATE = frozenset({"aten::index_put", "aten::index_put_", "aten::_index_put_impl_"})
EXACT_OPS = _ALPHA_OPS | set(_ARGUMENTS) | _ACCUMULATE
# the profiler's records that are not ops: an autograd node (its work is in the ATen ops it
# calls, recorded beside it), the autograd engine's scopes, the autograd-level view of detach
_NODE = re.compile(r"[A-Za-z0-9_]+Backward[0-9]*|detach_?|torch::autograd::AccumulateGrad|"
                   r"autograd::engine::evaluate_function: .*")
_INTEGRAL = frozenset({"bool", "unsigned char", "signed char", "short int", "int", "long int"})
# ops whose result on integer or boolean tensors is an integer tensor (exact), unless a float
# number or a dtype argument (the last one of a reduction) makes it compute in floating point.
# The profiler shows an op's inputs, not its output: ``sqrt`` or ``div`` of integers promotes to
# float inside the op, so an op not listed here is recorded whatever its inputs' dtypes
_INTEGER_OPS = frozenset(f"aten::{name}" for name in """
    sum nansum cumsum cumsum_ prod cumprod cumprod_ mm bmm addmm dot vdot mv addmv baddbmm addbmm
    add add_ sub sub_ rsub mul mul_ remainder remainder_ fmod fmod_ floor_divide floor_divide_ bincount
    count_nonzero diff trace kthvalue mode median nanmedian index_add index_add_ scatter_add scatter_add_
    scatter_reduce scatter_reduce_ cummax cummin bitwise_and bitwise_or bitwise_xor bitwise_not
    bitwise_left_shift bitwise_right_shift __and__ __or__ __xor__ __lshift__ __rshift__ _unique _unique2
    unique_dim unique_consecutive gcd lcm
""".split())
_DTYPE_LAST = frozenset(f"aten::{name}" for name in "sum nansum cumsum cumsum_ prod cumprod cumprod_".split())


def exact(op: str) -> bool:
    """Is the recorded op one whose result is the same on every processor?"""
    if op.endswith(")"):  # an op with what makes it kernel-dependent: add(alpha), index_put_(accumulate)
        return False
    return op in EXACT_OPS or op in EXACT_FAMILIES


# the conftest's own probe of which kernels PyTorch runs (``faithfulness.fuses``): what it
# decides is recorded as the test's use of scalargrad's fused multiply-adds instead
_SETTING_FIXTURES = {"_scalargrad_computes_as_the_live_kernels"}
NEEDS_FMA_SETTING = "ATEN_CPU_CAPABILITY=default"
_ANNOTATION = "kernel_record: "  # the profiler's label of a fixture's set-up


def _composite(torch, name: str) -> bool:
    """An op with no kernel of its own in any overload (CompositeImplicitAutograd: ``to``,
    ``matmul``, ``linear``): it computes only through the ops it calls, which the profiler records
    beside it (the profiler names no overload: one overload with a kernel makes it an op)."""
    namespace, _, base = name.partition("::")
    packet = getattr(getattr(torch.ops, namespace, None), base, None) if namespace == "aten" else None
    overloads = packet.overloads() if packet is not None else []
    kernels = []
    for overload in overloads:
        qualified = name if overload == "default" else f"{name}.{overload}"
        try:
            kernels.append([torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key)
                            for key in ("CompositeImplicitAutograd", "CPU")])
        except RuntimeError:  # TorchScript's alone (to.prim_Device): the dispatcher never runs it
            continue
    return bool(kernels) and all(composite and not cpu for composite, cpu in kernels)


def _op_name(torch, event, composite: dict) -> str | None:
    """The name a profiler event is recorded under, or None where it cannot depend on the kernels:
    not an op (a label, an autograd node), an op without a kernel of its own, or one of
    ``_INTEGER_OPS`` on integers or booleans alone."""
    name = event.name()
    if event.is_user_annotation() or _NODE.fullmatch(name):
        return None
    if name not in composite:
        composite[name] = _composite(torch, name)
    if composite[name]:
        return None
    arguments, types = event.concrete_inputs(), event.dtypes()
    if name in _ALPHA_OPS and (len(arguments) != 3 or arguments[2] != 1):
        return name + "(alpha)"
    if name in _ARGUMENTS and len(types) != _ARGUMENTS[name][0]:
        return f"{name}({_ARGUMENTS[name][1]})"
    if name in _ACCUMULATE and (len(arguments) < 4 or arguments[3] is not False):
        return name + "(accumulate)"  # it adds
    if name in _INTEGER_OPS and _integral(types, arguments, name in _DTYPE_LAST):
        return None
    return name


def _integral(types: list[str], arguments: list, dtype_last: bool) -> bool:
    """Does an op of ``_INTEGER_OPS`` compute on integers alone here?"""
    tensors = [t for t in types if t not in ("", "Scalar", "ScalarList")]
    if not tensors or not all(t in _INTEGRAL for t in tensors):
        return False
    if any(isinstance(a, (float, complex)) for a in arguments):  # 0.5 * integers: a float result
        return False
    return not (dtype_last and arguments and arguments[-1] is not None)  # sum(dtype=torch.float32)


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Without the line Kineto writes on the process's stderr at each start and stop of the
    profiler (two lines a live test in CI's log)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class Recording:
    """``with Recording(torch) as ops:`` the names of the ATen ops run inside, forward and
    backward, as PyTorch's profiler sees them (it records without changing what PyTorch runs, as
    a ``TorchDispatchMode`` does: under one, ``matmul`` of a 3-D tensor that requires grad with
    a batch of one folds into ``mm`` instead of ``bmm``). ``ops`` is filled at exit; ``within``
    maps each fixture label (``label(name)``) to the ops run inside it."""

    _composite: dict[str, bool] = {}

    def __init__(self, torch):
        self.torch = torch
        self.ops: set[str] = set()
        self.within: dict[str, set[str]] = {}

    def __enter__(self):
        profiler = self.torch.autograd
        config = profiler.ProfilerConfig(profiler.ProfilerState.KINETO, True, False, False, False, False,
                                         self.torch._C._profiler._ExperimentalConfig())
        activities = {profiler.ProfilerActivity.CPU}
        with _quiet_stderr():
            profiler._prepare_profiler(config, activities)
            profiler._enable_profiler(config, activities)
        return self

    def __exit__(self, *exc):
        with _quiet_stderr():
            events = self.torch.autograd._disable_profiler().events()
        labels = [(e.name()[len(_ANNOTATION):], e.start_ns(), e.end_ns()) for e in events
                  if e.is_user_annotation() and e.name().startswith(_ANNOTATION)]
        for event in events:
            name = _op_name(self.torch, event, self._composite)
            if name is None:
                continue
            start, end = event.start_ns(), event.end_ns()
            inside = [label for label, first, last in labels if first <= start and end <= last]
            for label in inside:
                self.within.setdefault(label, set()).add(name)
            if "probe" not in inside:
                self.ops.add(name)
        return False

    def label(self, what: str):
        """A profiler label around a fixture's set-up: its ops are found in ``within[what]``."""
        return self.torch.autograd.profiler.record_function(_ANNOTATION + what)


_SETTING_VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_")


def _watched(function, escaped, what: str):
    def watched(*args, **kwargs):
        escaped(what)
        return function(*args, **kwargs)

    return watched


class _Entry:
    """What one test or fixture did: its ops, whether it reached scalargrad's fused multiply-adds,
    and what escaped the record (a subprocess, a fork, a thread)."""

    def __init__(self):
        self.ops: set[str] = set()
        self.fma = False
        self.escaped: set[str] = set()


def _draws_afresh(item) -> bool:
    """Is this a hypothesis test that can draw other examples in another run? Not one whose
    settings derandomize it (Hypothesis's "ci" profile, which it loads where ``CI`` is set as in
    CI's main run and reruns, or ``derandomize=True``): its examples come from a seed hashed from
    the test's code, with no example database, so a rerun whose every PyTorch result is the same
    draws the same examples in the same order."""
    test = getattr(item, "obj", None)
    if not getattr(test, "is_hypothesis_test", False):
        return False
    chosen = getattr(test, "_hypothesis_internal_use_settings", None)
    return not (chosen is not None and chosen.derandomize and chosen.database is None
                and getattr(test, "_hypothesis_internal_use_seed", None) is None)


class Recorder:
    """``--kernel-record=PATH``: record every live test's ops, write them at the session's end."""

    def __init__(self, path: str):
        import torch

        self.path = path
        self.torch = torch
        self.tests: dict[str, dict] = {}
        self.fixtures: dict[str, _Entry] = {}
        self.collection = _Entry()  # the test modules' imports
        self.current: list[_Entry] = []
        self.completed: set[str] = set()
        self.recording: Recording | None = None  # the live test's, while it runs
        self._watch_escapes()

    def _watch_escapes(self):
        """What a test can learn of the kernels, or compute with PyTorch, beside the ATen ops the
        profiler sees: the CPU capability it reads (mkl_golden.is_capture_machine reads it and
        MKL_CBWR), subprocesses, forks and threads."""
        recorder = self

        def escaped(what):
            if recorder.current:
                recorder.current[-1].escaped.add(what)

        popen_init = subprocess.Popen.__init__

        def init(self, *args, **kwargs):
            escaped("started a subprocess")
            popen_init(self, *args, **kwargs)

        subprocess.Popen.__init__ = init
        os.register_at_fork(before=lambda: escaped("forked"))
        thread_start = threading.Thread.start

        def start(self, *args, **kwargs):
            escaped("started a thread")
            return thread_start(self, *args, **kwargs)

        threading.Thread.start = start
        # the kernel set, read from PyTorch (its capability, its build and capability report) or
        # from the environment the reruns change
        for owner, name in ((self.torch.backends.cpu, "get_cpu_capability"), (self.torch._C, "_get_cpu_capability"),
                            (self.torch.__config__, "show")):
            setattr(owner, name, _watched(getattr(owner, name), escaped, "read the CPU capability"))
        environ_get = os._Environ.__getitem__

        def getitem(self, key):
            if isinstance(key, str) and key.startswith(_SETTING_VARIABLES):
                escaped("read the kernel settings from the environment")
            return environ_get(self, key)

        os._Environ.__getitem__ = getitem

    def _push(self, entry: _Entry) -> ExitStack:
        stack = ExitStack()
        self.current.append(entry)
        stack.callback(self.current.pop)
        return stack

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        # what a test module (and any helper it imports first) computes with PyTorch as it is
        # imported: every test collected from then on may use it
        if not isinstance(collector, pytest.Module):
            yield
            return
        with Recording(self.torch) as recording, self._push(self.collection):
            yield
        self.collection.ops |= recording.ops

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.argname in _SETTING_FIXTURES and self.recording:
            with self.recording.label("probe"), self._push(_Entry()):  # its probe's ops are not the test's
                yield
            return
        if fixturedef.scope == "function":  # set up for this test alone: its ops are the test's
            yield
            return
        # a module's or session's fixture: its ops belong to every test that uses it
        entry = self.fixtures.setdefault(fixturedef.argname, _Entry())
        if not self.recording:
            entry.escaped.add("uses a fixture first set up outside the record")  # for a test not live
            yield
            return
        with self.recording.label(fixturedef.argname), self._push(entry):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        # an unrecorded test is left out of the record, so every rerun runs it
        if item.get_closest_marker("live_torch") is None or item.get_closest_marker("unrecorded") is not None:
            yield
            return
        from faithfulness import fmas_used

        entry = _Entry()

        def used():
            if self.current:
                self.current[-1].fma = True

        with Recording(self.torch) as recording, fmas_used(used), self._push(entry):
            self.recording = recording
            try:
                yield
            finally:
                self.recording = None
        entry.ops = recording.ops
        for name, ops in recording.within.items():
            if name in self.fixtures:
                self.fixtures[name].ops |= ops
        fixtures = [self.fixtures[name] for name in item.fixturenames if name in self.fixtures]
        self.tests[item.nodeid] = {
            "completed": item.nodeid in self.completed,
            "hypothesis": _draws_afresh(item),
            "ops": sorted(set().union(entry.ops, *(f.ops for f in fixtures))),
            "fma": entry.fma or any(f.fma for f in fixtures),
            "escaped": sorted(set().union(entry.escaped, *(f.escaped for f in fixtures))),
            # what scalargrad's proved backward calls computed, set by the conftest's SymPy fixture
            "scalargrad_digest": getattr(item, "scalargrad_digest", None),
        }

    def pytest_runtest_logreport(self, report):
        # completed: the call ran to its end or to its failure (not a skip, not a setup error)
        if report.when == "call" and not report.skipped:
            self.completed.add(report.nodeid)

    def pytest_sessionfinish(self, session):
        collection = {"ops": sorted(self.collection.ops), "escaped": sorted(self.collection.escaped)}
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump({"collection": collection, "tests": self.tests}, f, indent=0, sort_keys=True)


def reasons_to_rerun(entry: dict | None, setting: str) -> list[str]:
    """Why a test could come out differently under ``setting``: empty if it cannot."""
    if entry is None:
        return ["not in the record"]
    why = []
    if not entry["completed"]:
        why.append("did not complete in the recorded run")
    if entry["hypothesis"]:
        why.append("hypothesis draws other examples each run (not derandomized)")
    why += entry["escaped"]
    why += [f"calls {op}" for op in entry["ops"] if not exact(op)]
    if entry["fma"] and setting == NEEDS_FMA_SETTING:
        why.append("reaches scalargrad's fused multiply-adds (rounded product-first there)")
    return why


class Selection:
    """``--kernel-rerun=PATH --kernel-setting=NAME``: deselect the kernel-independent tests."""

    def __init__(self, path: str, setting: str):
        with open(path, encoding="utf-8") as f:
            found = json.load(f)
        self.record = found["tests"]
        self.setting = setting
        self.left_out = 0
        # PyTorch computing as the test modules are imported feeds any test: then every one runs
        collection = found["collection"]
        self.collection = [f"the test modules' imports call {op}" for op in collection["ops"] if not exact(op)]
        self.collection += [f"the test modules' imports {what}" for what in collection["escaped"]]

    @pytest.hookimpl(trylast=True)  # after the conftest has marked the live tests
    def pytest_collection_modifyitems(self, config, items):
        keep, drop = [], []
        for item in items:
            independent = (not self.collection and item.get_closest_marker("live_torch") is not None
                           and not _draws_afresh(item)  # derandomized here too, as where it was recorded
                           and not reasons_to_rerun(self.record.get(item.nodeid), self.setting))
            (drop if independent else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
        self.left_out = len(drop)

    def proved_in_the_main_run(self, item) -> bool:
        """May this rerun leave out the SymPy proof of ``item``'s backward passes? Yes for a test
        marked ``scalargrad_side_takes_no_torch_value`` that completed in the recorded run: its
        scalargrad side is deterministic and takes no PyTorch value, and scalargrad reads no kernel
        setting (test_kernel_record checks its sources), so it computes here what the main run
        computed and proved; not under ``NEEDS_FMA_SETTING`` if it reached scalargrad's fused
        multiply-adds, which the conftest rounds product-first there (other values to prove).
        The marker is checked, not trusted: the rerun digests the backward calls the main run
        proved (``BackwardDigest``) and the conftest fails the test if they differ."""
        entry = self.record.get(item.nodeid)
        if item.get_closest_marker("scalargrad_side_takes_no_torch_value") is None or entry is None:
            return False
        return (entry["completed"] and entry.get("scalargrad_digest") is not None
                and not (entry["fma"] and self.setting == NEEDS_FMA_SETTING))

    def main_run_digest(self, item) -> str:
        """The digest of ``item``'s proved backward calls in the main run (``BackwardDigest``)."""
        return self.record[item.nodeid]["scalargrad_digest"]

    def pytest_report_header(self, config):
        return (f"kernel selection for {self.setting}: of {len(self.record)} recorded live tests, those whose "
                "every PyTorch op is the same on every processor are left out")

    def pytest_terminal_summary(self, terminalreporter):
        for reason in self.collection:
            terminalreporter.write_line(f"kernel selection: none left out, {reason}")
        terminalreporter.write_line(
            f"kernel selection ({self.setting}): {self.left_out} live tests left out, every op they call is "
            "the same on every processor (tests/kernel_record.py)")


def addoption(parser) -> None:
    group = parser.getgroup("kernel selection")
    group.addoption("--kernel-record", metavar="PATH",
                    help="record which ATen ops each live_torch test calls (tests/kernel_record.py)")
    group.addoption("--kernel-rerun", metavar="PATH",
                    help="with a record: run only the live_torch tests whose outcome can depend on the kernels")
    group.addoption("--kernel-setting", metavar="NAME=VALUE", default="",
                    help="the environment setting the rerun is under (ATEN_CPU_CAPABILITY=default...)")


class BackwardDigest:
    """An observer of scalargrad's backward calls (``engine.observers``): a digest of the first
    ``limit`` calls, the ones the SymPy fixture proves. Each call's roots and incoming gradients,
    and its graph as a walk from the roots sees it: every node's name and every leaf's values, all
    at full precision (``repr`` of a float round-trips; -0.0 and nan included). A rerun that
    digests the same calls ran the same graphs on the same values as the main run. A graph of
    more than ``NODES`` nodes is not digested (``hexdigest`` gives None: the rerun proves it)."""

    NODES = 20_000

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.calls = 0
        self.whole = True
        self._hash = hashlib.sha256()

    def __call__(self, roots, grads, keep_graph, create_graph, inputs, accumulate):
        if self.calls < self.limit:
            self.calls += 1
            values = [[v.tolist() if hasattr(v, "tolist") else v for v in vs] for vs in (roots, grads)]
            self._hash.update(repr((values, keep_graph, create_graph, accumulate, self._graph(roots))).encode())
        return None

    def _graph(self, roots) -> list:
        """The nodes below ``roots`` in a depth-first walk (each once), with the leaves' values."""
        seen: set = set()
        stack = [getattr(r, "grad_fn", None) for r in reversed(roots)]
        walk = [[r.tolist() for r in roots if getattr(r, "grad_fn", None) is None and hasattr(r, "tolist")]]
        while stack:
            node = stack.pop()
            if node is None:
                walk.append(None)
                continue
            if id(node) in seen:
                walk.append(("seen", node.name()))
                continue
            seen.add(id(node))
            if len(seen) > self.NODES:
                self.whole = False
                return walk
            leaf = getattr(node, "variable", None)
            walk.append((node.name(), None if leaf is None else leaf.tolist()))
            stack.extend(next_node for next_node, _ in reversed(node.next_functions))
        return walk

    def hexdigest(self) -> str | None:
        return f"{self.calls}:{self._hash.hexdigest()}" if self.whole else None

    @contextmanager
    def observing(self) -> Iterator[BackwardDigest]:
        engine.observers.append(self)
        try:
            yield self
        finally:
            engine.observers.remove(self)


def recording(config) -> bool:
    """Is this the main run's ``--kernel-record``?"""
    return config.pluginmanager.get_plugin("kernel-record") is not None


def proved_in_the_main_run(item) -> bool:
    """In a rerun (``--kernel-rerun``): is ``item``'s SymPy proof the main run's already
    (``Selection.proved_in_the_main_run``)? Always False outside the reruns."""
    selection = item.config.pluginmanager.get_plugin("kernel-rerun")
    return selection is not None and selection.proved_in_the_main_run(item)


def main_run_digest(item) -> str:
    """The main run's ``BackwardDigest`` of ``item`` (one ``proved_in_the_main_run``)."""
    return item.config.pluginmanager.get_plugin("kernel-rerun").main_run_digest(item)


def configure(config) -> None:
    record, rerun = config.getoption("--kernel-record"), config.getoption("--kernel-rerun")
    if record:
        config.pluginmanager.register(Recorder(record), "kernel-record")
    if rerun:
        config.pluginmanager.register(Selection(rerun, config.getoption("--kernel-setting")), "kernel-rerun")
