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

import scalargrad


def test_keywords_and_positions_as_pytorchs(torch_ref):
    rows = signatures.table(torch_ref)
    outside = {k: v[1] for k, v in rows.items() if v[0] != "core"}
    assert outside == {}
    core = {k: v[1] for k, v in rows.items() if v[0] == "core"}
    assert core == signatures.recorded()


def test_the_issues_example_takes_pytorchs_keywords(torch_ref):
    # torch.matmul(input=..., other=...): scalargrad's matmul named its parameters a, b; out=
    # is taken too (``_tensor/out_argument.py``), so nothing of matmul's is left listed
    assert "torch.matmul" not in signatures.recorded()
    results = []
    for lib in (scalargrad, torch_ref):
        a, b, v = lib.tensor([[1.0, 2.0], [3.0, 4.0]]), lib.tensor([[0.5], [-1.0]]), lib.tensor([2.0, 3.0])
        results.append([lib.matmul(input=a, other=b).tolist(), lib.mm(input=a, mat2=b).tolist(),
                        lib.mv(input=a, vec=v).tolist(), lib.dot(input=v, tensor=v).item(),
                        lib.outer(input=v, vec2=v).tolist(), lib.inner(input=v, other=v).item(),
                        a.matmul(other=b).tolist(), a.mm(mat2=b).tolist(), v.dot(tensor=v).item(),
                        v.ger(vec2=v).tolist()])
    assert results[0] == results[1]


def test_torch_functions_take_input_by_its_name(torch_ref):
    # ours name the tensor x or self; PyTorch's parser calls it input (torch.flatten(input=x)),
    # and a call naming both is refused by both
    results = []
    for lib in (scalargrad, torch_ref):
        x = lib.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
        results.append([lib.flatten(input=x).tolist(), lib.transpose(input=x, dim0=0, dim1=1).tolist(),
                        lib.std(input=x, dim=1).tolist(), lib.unsqueeze(input=x, dim=0).shape,
                        lib.max(input=x).item(), lib.clone(input=x).tolist(), lib.squeeze(input=x).shape])
        try:
            lib.flatten(x, input=x)
        except TypeError:
            results[-1].append("refused")
    assert results[0] == results[1]
