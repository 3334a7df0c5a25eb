"""torch.testing.assert_close (and the deprecated assert_allclose): whether it passes, the
exception's type and its whole message are PyTorch 2.13's, for tensors of each dtype, 0-dim
tensors, Python numbers, None and bools, nested sequences and mappings, custom tolerances and
messages, and the argument errors."""

from __future__ import annotations

import warnings

import pytest

import scalargrad


def cases(L):
    t = L.tensor
    return [
        (t([1.0, 2.0, 3.0]), t([1.0, 2.5, 3.0]), {}), (t([[1.0, 2.0], [3.0, 4.0]]), t([[1.0, 2.0], [3.0, 4.1]]), {}),
        (t(1.0), t(1.1), {}), (t([1, 2]), t([1, 3]), {}), (t([1.0, 2.0]), t([1.0, 2.0], dtype=L.float64), {}),
        (t([1.0, 2.0]), t([1.0, 2.0, 3.0]), {}), (1.0, 1.1, {}), (1, 2, {}), (1.0, 1.0 + 1e-9, {}),
        ([1.0, t(2.0)], [1.0, t(2.5)], {}), ({"a": t(1.0), "b": [t([1.0, 5.0])]}, {"a": t(1.0), "b": [t([1.0, 6.0])]},
                                               {}),
        ({"a": 1}, {"b": 1}, {}), ([1, 2], [1, 2, 3], {}), (None, 1, {}), (True, False, {}),
        (t([float("nan")]), t([float("nan")]), {}), (t([float("nan")]), t([float("nan")]), dict(equal_nan=True)),
        (t([1.0, 2.0]), [1.0, 2.0], {}), (t([1e-9, 1.0]), t([0.0, 1.0]), {}),
        (t([1.0, float("inf")]), t([1.0, float("inf")]), {}), ("a", "b", {}),
        (t([True, False]), t([True, True]), {}),
        (t([1.0, 2.0]), t([1.0, 2.0], dtype=L.float64), dict(check_dtype=False)),
        (t([1.0, 2.0]), t([1.0, 3.0]), dict(rtol=0, atol=0.5, msg="custom")),
        (t([1.0, 2.0]), t([1.0, 3.0]), dict(rtol=0.1)), (t([1.0, 2.0]), t([1.0, 3.0]), dict(rtol=0.5, atol=0.0)),
        (t([1.0, 2.0]), t([1.0, 3.0]), dict(msg=lambda m: "before\n" + m)),
        (t([[1.0, 2.0], [3.0, 4.0]]), t([[1.0, 2.0], [3.0, 4.0]]).t().contiguous().t(), dict(check_stride=True)),
        (t([3.0, -7.0, 0.0, 5.0]), t([3.5, -7.0, 1e-4, 4.0]), {}),
        (t([[1, 2], [3, 4]], dtype=L.int32), t([[1, 2], [3, 9]], dtype=L.int64), dict(check_dtype=False)),
    ]


def outcome(L, a, b, kwargs):
    try:
        L.testing.assert_close(a, b, **kwargs)
    except Exception as e:
        return type(e).__name__, str(e)
    return "passed", ""


def test_outcomes_and_messages_are_pytorchs(torch_ref):
    ours = [outcome(scalargrad, *c) for c in cases(scalargrad)]
    theirs = [outcome(torch_ref, *c) for c in cases(torch_ref)]
    for i, (o, t) in enumerate(zip(ours, theirs)):
        assert o == t, i


def test_assert_allclose_warns_and_uses_its_own_tolerances(torch_ref):
    def run(L):
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for a, b in [(L.tensor([1.0, 2.0]), [1.0, 2.0001]), (L.tensor([1.0, 2.0]), [1.0, 2.01]), (1.0, 1.0)]:
                try:
                    L.testing.assert_allclose(a, b)
                    out.append("passed")
                except AssertionError as e:
                    out.append(str(e))
        return out, [(x.category.__name__, str(x.message)) for x in w]

    assert run(scalargrad) == run(torch_ref)


def test_a_near_miss_by_hand():
    scalargrad.testing.assert_close(scalargrad.tensor(1.0), scalargrad.tensor(1.0 + 1e-6))  # within 1.3e-6 + 1e-5
    with pytest.raises(AssertionError, match=r"^Scalars are not close!\n\nExpected 1\.0 but got 1\.5\."):
        scalargrad.testing.assert_close(1.5, 1.0)
