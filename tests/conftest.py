"""Shared test helpers: PyTorch (optional) as the source of truth, SymPy as the proof.

Every backward pass run by any test is proved with SymPy by default: the autouse fixture
``_sympy_checks_every_backward`` runs each test inside ``symbolic.check_every_backward()``
and fails the test if autograd and SymPy disagree on any gradient of its first
``SYMPY_CHECKS_PER_TEST`` backward passes (a hook that changes a
gradient on purpose, a PyTorch convention at a kink, or a custom Function without a symbolic
form is reported, not failed). A test that breaks derivative rules on purpose, or whose graph
is too large to prove in reasonable time, opts out with ``@pytest.mark.no_sympy_check``.

Checking a gradient? Use the ``assert_grads`` fixture: ``assert_grads(z, {x: 0.6000000238418579})``
asserts autograd's gradients (exactly, or within ``rel``/``abs``) AND proves them with SymPy
(``scalargrad.symbolic.sympy_check``), so every gradient test is also a symbolic check.
"""

from __future__ import annotations

import os
from contextlib import nullcontext

import pytest
import quick_run

import kernel_record

try:  # the conformance tests compare with PyTorch and skip without it
    import torch as _torch
except ImportError:  # pragma: no cover - depends on the environment
    _torch = None


SYMPY_CHECKS_PER_TEST = 3
SYMPY_CHECKS_QUICK = 1  # in the quick run (tests/quick_run.py): the first backward pass of a sample of tests
# the fixtures that hand a test live PyTorch (test_random's ``torch``, test_run_conformance's
# ``runs`` of every catalogue program under PyTorch)
LIVE_FIXTURES = {"torch_ref", "torch", "runs"}


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="also run the slow end-to-end tests (the default when CI is set; README \"Development\")")
    kernel_record.addoption(parser)


def _quick_run(config) -> bool:
    """The contributor's default: a plain ``pytest`` (no paths, no -m, no --slow, CI unset)
    leaves out the ``slow`` end-to-end tests and runs a sample of each parametrized sweep
    (``quick_run``); naming tests, ``--slow`` or CI runs everything."""
    source = getattr(config, "args_source", None)  # pytest 7.2+
    return not (config.getoption("--slow") or os.environ.get("CI") or config.option.markexpr
                or source is None or source.name != "TESTPATHS")


def pytest_report_header(config):
    if _quick_run(config):
        return ("the quick run: the slow end-to-end tests are left out, each parametrized sweep runs a covering "
                f"sample, each hypothesis test {quick_run.QUICK_EXAMPLES} examples (--slow or CI=true runs everything)")
    return None


def pytest_configure(config):
    config.addinivalue_line("markers", "no_sympy_check: do not prove this test's backward passes with SymPy")
    # --kernel-record / --kernel-rerun: which ATen ops each live test calls, and the selection of
    # the tests that can come out differently under another kernel set (tests/kernel_record.py)
    kernel_record.configure(config)


def pytest_collection_modifyitems(config, items):
    if _quick_run(config):
        quick_run.select(config, items)
    # every test that takes PyTorch as the truth compares with the live kernels of this machine:
    # CI runs these again under other processors' kernel sets (.ci/run, README "Development")
    # (and the "torch" instance of a fixture parametrized over both libraries, such as ``lib``,
    # which asserts PyTorch's own figures of PyTorch)
    for item in items:
        callspec = getattr(item, "callspec", None)
        if LIVE_FIXTURES.intersection(getattr(item, "fixturenames", ())) or (
                callspec is not None and any(isinstance(v, str) and v == "torch" for v in callspec.params.values())):
            item.add_marker(pytest.mark.live_torch)



@pytest.fixture(autouse=True)
def _sympy_checks_every_backward(request):
    if request.node.get_closest_marker("no_sympy_check"):
        yield
        return
    if kernel_record.proved_in_the_main_run(request.node):
        # CI's kernel rerun of a test whose scalargrad side takes no PyTorch value: it computes
        # what the main run computed and proved. Checked: the backward calls the main run proved
        # must have the same values here (else the marker is wrong and this run is unproved)
        with kernel_record.BackwardDigest(SYMPY_CHECKS_PER_TEST).observing() as digest:
            yield
        if digest.hexdigest() != kernel_record.main_run_digest(request.node):
            pytest.fail("scalargrad_side_takes_no_torch_value: scalargrad's backward calls computed other values "
                        "than in the main run, whose SymPy proof therefore does not cover this run", pytrace=False)
        return
    from scalargrad.symbolic import check_every_backward

    # the first backward passes of each test are proved (in the quick run, the first one of a
    # fixed sample of the tests: quick_run.proves); a hypothesis test's hundred examples would
    # otherwise make the suite last hours (their ops are proved rule by rule anyway)
    limit = SYMPY_CHECKS_PER_TEST
    if _quick_run(request.config):
        if not quick_run.proves(request.node):
            yield
            return
        limit = SYMPY_CHECKS_QUICK
    digest = None
    if request.node.get_closest_marker("scalargrad_side_takes_no_torch_value") and kernel_record.recording(
            request.config):  # the main run: what the reruns compare with (kernel_record.BackwardDigest)
        digest = kernel_record.BackwardDigest(limit)
    with check_every_backward(limit=limit) as checks, (digest.observing() if digest else nullcontext()):
        yield
    if digest is not None:
        request.node.scalargrad_digest = digest.hexdigest()
    # a backward that raised (a version error the test expects, say) leaves no report: any
    # report not ok is a disagreement between autograd and SymPy, or a crash of the checker
    bad = [r for r in checks if not r.ok]
    if bad:
        pytest.fail("SymPy disagrees with autograd in this test's backward pass(es):\n"
                    + "\n".join(str(r) for r in bad), pytrace=False)


_FUSES: list = []


@pytest.fixture(autouse=True)
def _scalargrad_computes_as_the_live_kernels(request):
    """A live-PyTorch test compares with ATen's kernels as this machine runs them: where they do
    not fuse multiply-adds (ATen's generic code, ``ATEN_CPU_CAPABILITY=default``; a probe tells,
    ``faithfulness.fuses``), scalargrad rounds each product first too for the test
    (``faithfulness.product_first``)."""
    if _torch is None or request.node.get_closest_marker("live_torch") is None:
        yield
        return
    from faithfulness import fuses, product_first

    if not _FUSES:
        _FUSES.append(fuses(_torch))
    if _FUSES[0]:
        yield
        return
    vector_kernels = request.node.get_closest_marker("vector_kernels")
    if vector_kernels is not None and not vector_kernels.kwargs.get("reference"):
        pytest.skip("models ATen's AVX2/AVX512 vector kernels bit for bit; PyTorch runs its generic code here "
                    f"(CPU capability {_torch.backends.cpu.get_cpu_capability()}), whose other roundings "
                    "(scalar libm in normal_, other vector widths) scalargrad does not model")
    with product_first():
        yield


@pytest.fixture
def torch_ref():
    """Real PyTorch, or skip the test."""
    if _torch is None:
        pytest.skip("PyTorch is not installed (pip install -e '.[conformance]')")
    return _torch


@pytest.fixture
def assert_grads():
    """``assert_grads(output, {input: expected, ...}, rel=None, abs=None, symbols=None)``.

    Computes ``autograd.grad(output, inputs, retain_graph=True)`` (``.grad`` untouched),
    asserts each gradient equals its expected figure (exactly unless ``rel``/``abs`` are
    given; an expected None means "not used"), then runs ``sympy_check`` on the same inputs
    and fails with its report unless SymPy agrees. Returns the ``SymbolicReport``.
    """
    from scalargrad.autograd import grad
    from scalargrad.symbolic import sympy_check

    def check(output, expected: dict, rel=None, abs=None, symbols=None):  # pytest's name
        inputs = list(expected)
        got = grad(output, inputs, retain_graph=True, allow_unused=True)
        for i, (g, want) in enumerate(zip(got, expected.values())):
            value = None if g is None else g.item()
            if want is None or (rel is None and abs is None):
                assert value == want, f"input {i}: autograd gives {value!r}, expected {want!r}"
            else:
                assert value == pytest.approx(want, rel=rel, abs=abs), f"input {i}: autograd gives {value!r}"
        return sympy_check(output, inputs, symbols=symbols, raise_on_mismatch=True)

    return check
