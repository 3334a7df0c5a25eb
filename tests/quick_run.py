"""The contributor's quick run: which tests a plain ``pytest`` runs, and how many examples.

A plain ``pytest`` (no paths, no ``-m``, no ``--slow``, ``CI`` unset: ``conftest._quick_run``)
runs every test file, but less of each, so that it finishes in about three minutes on a busy
2-core machine; ``--slow``, ``CI=true``, a ``-m`` expression or naming files or ids runs
everything as before (CI collects and runs exactly the same tests either way):

- the ``slow`` end-to-end tests (the corpus, the wheel, the command line in child interpreters,
  the catalogue under ``scalargrad run`` and PyTorch, the fuzzer's campaign, the documents
  judged in child processes) are left out, but for the first case of those marked
  ``quick_sample``: a cheap representative of a file that would otherwise contribute nothing;
- a parametrized sweep runs a covering sample (``covering_sample``): its first case, then each
  later case, in collection order, that brings the value of some parameter (an op, a dtype, a
  size, a family, a case kind, a fixture's parameter) no case kept so far had. Every value of
  every parameter is still run at least once, in some combination; the full cross product is
  CI's. The sample is the same on every run (collection order is the source order);
- a hypothesis test runs at most ``QUICK_EXAMPLES`` examples (CI: each test's own
  ``max_examples``);
- the SymPy proof of every backward pass (``conftest._sympy_checks_every_backward``) proves the
  first backward pass of one test in ``QUICK_PROOF_EVERY`` (``proves``: a fixed sample, by a
  hash of the test's id; CI: every test's first three). Most of a typical test's time is its
  proof; the explicit proofs (``assert_grads``, ``sympy_check`` in the tests) are all run.

The deselected tests are reported as such in pytest's summary line.
"""

from __future__ import annotations

import zlib

QUICK_EXAMPLES = 10
"""Examples per hypothesis test in the quick run."""

QUICK_PROOF_EVERY = 4
"""One test in this many has its first backward pass proved by the autouse fixture in the quick run."""


def proves(item) -> bool:
    """Does the quick run prove this test's first backward pass? The same tests on every run
    and machine (a CRC of the test's id, not Python's salted ``hash``)."""
    return zlib.crc32(item.nodeid.encode("utf-8")) % QUICK_PROOF_EVERY == 0


def _sweep_key(item) -> tuple:
    """The test function a parametrized item is a case of (its module, class and name)."""
    parent = item.parent
    return (parent.nodeid if parent is not None else "", getattr(item, "originalname", item.name))


def _features(item) -> set:
    """The parameter values of one case: (which ``parametrize`` of the test, the id of its value
    there), a fixture's parameter included. (pytest numbers a direct parameter's ``indices`` by
    case, not by value, so the ids tell the values apart.)"""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return set()
    ids = getattr(callspec, "_idlist", None)
    if ids is None:  # another pytest: the whole id, every case its own value
        return {(0, callspec.id)}
    return set(enumerate(ids))


def covering_sample(items: list) -> list:
    """The items to keep: every item that is not a case of a parametrized test, and of each
    parametrized test its first case and every later one that brings a parameter value not yet
    covered (in ``items``' order, so the sample is deterministic)."""
    seen: dict = {}
    keep = []
    for item in items:
        features = _features(item)
        if not features:
            keep.append(item)
            continue
        covered = seen.setdefault(_sweep_key(item), set())
        if not features <= covered:
            covered |= features
            keep.append(item)
    return keep


def _fewer_examples(item) -> None:
    """At most ``QUICK_EXAMPLES`` examples for a hypothesis test (its other settings kept)."""
    fn = getattr(item, "function", None) or getattr(item, "obj", None)
    if fn is None or not getattr(fn, "is_hypothesis_test", False):
        return
    from hypothesis import settings

    current = getattr(fn, "_hypothesis_internal_use_settings", None)
    if current is None or current.max_examples <= QUICK_EXAMPLES:
        return
    fn._hypothesis_internal_use_settings = settings(current, max_examples=QUICK_EXAMPLES)


def select(config, items: list) -> None:
    """Narrow ``items`` (in place) to the quick run's, reporting the rest as deselected."""
    keep = []
    sampled = set()
    for item in items:
        if not item.get_closest_marker("slow"):
            keep.append(item)
        elif item.get_closest_marker("quick_sample") and _sweep_key(item) not in sampled:
            sampled.add(_sweep_key(item))
            keep.append(item)
    keep = covering_sample(keep)
    kept = set(map(id, keep))
    dropped = [item for item in items if id(item) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    for item in keep:
        _fewer_examples(item)
