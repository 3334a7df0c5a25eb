"""Parameter names from PyTorch's signatures (issue 23): every function, method and class
scalargrad provides takes the keywords PyTorch's takes (``torch.matmul(input=..., other=...)``).

The comparison is ``signatures.py`` (PyTorch's generated stubs and ``inspect``). Outside the
core layers there must be no difference; the core layers' (``_ops``, ``_tensor``,
``_autograd``), which another engineer is reworking, are listed in
``signature_differences.json`` and must be exactly those: one fixed or one new fails the test
(``python tests/signatures.py --write`` rewrites the list).
"""

from __future__ import annotations

import signatures


def test_keywords_and_positions_as_pytorchs(torch_ref):
    rows = signatures.table(torch_ref)
    outside = {k: v[1] for k, v in rows.items() if v[0] != "core"}
    assert outside == {}
    core = {k: v[1] for k, v in rows.items() if v[0] == "core"}
    assert core == signatures.recorded()


def test_the_issues_example_is_listed_for_the_core():
    # torch.matmul(input=..., other=...): scalargrad's matmul names its parameters a, b
    assert signatures.recorded()["torch.matmul"] == ["input", "other", "out"]
