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
from program_outcome import outcome

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


# each keyword as PyTorch's parser takes it (checked live: which one each method names)
KEYWORDS = """
x = torch.arange(6.0).reshape(2, 3)
col = torch.ones(3, 1)
out = [x.view(size=(3, 2)), x.view(size=[6]), x.reshape(shape=(3, 2)),
       x.permute(dims=(1, 0)), torch.permute(x, dims=(1, 0)), x.repeat(repeats=(2, 1)), x.repeat(repeats=[1, 2]),
       col.expand(size=(3, 2)), col.expand(3, 2, implicit=True), x.flip(dims=(0,)), x.split(split_size=1),
       torch.split(tensor=x, split_size_or_sections=[1, 1]), x.swapaxes(axis0=0, axis1=1),
       x.clone().swapaxes_(axis0=0, axis1=1), x.clone().swapdims_(dim0=0, dim1=1),
       x.clone().transpose_(dim0=1, dim1=0), torch.swapaxes(x, axis0=1, axis1=0), x.max(other=x.flip(1)),
       x.min(other=x.flip(0)), torch.max(x, other=x.flip(1)), torch.min(input=x, other=x.flip(0)),
       torch.reshape(x, shape=(3, 2)), torch.addmm(input=torch.zeros(2, 2), mat1=x, mat2=x.t()),
       torch.searchsorted(torch.tensor([1.0, 2.0]), self=1.5)]
torch.manual_seed(0)
out.append(torch.empty(3).uniform_(-1, to=2))
a = torch.tensor([1.0, 2.0], requires_grad=True)
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.autograd.backward((a * a).sum(), grad_variables=torch.tensor(2.0))
out += [a.grad, [str(m.message) for m in w]]
for call in (lambda: x.permute(1, dims=(1, 0)), lambda: x.view(size=6), lambda: x.reshape(2, shape=(3, 2)),
             lambda: torch.autograd.backward(a.sum(), torch.tensor(1.0), grad_variables=torch.tensor(1.0)),
             lambda: torch.searchsorted(torch.tensor([1.0, 2.0]))):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
        out.append("no error")
    except (TypeError, RuntimeError) as e:
        out.append(type(e).__name__)
"""


def test_varargs_methods_take_pytorchs_keywords(torch_ref):
    assert outcome(scalargrad, KEYWORDS) == outcome(torch_ref, KEYWORDS)
    # the keyword is taken: a dtype view (tests/test_small_ops.py)
    assert scalargrad.ones(2).view(dtype=scalargrad.int32).tolist() == torch_ref.ones(2).view(
        dtype=torch_ref.int32).tolist()


def test_what_the_stubs_list_and_pytorch_refuses(torch_ref):
    # NOT_TAKEN: every name there is refused by PyTorch's CPU build when used, so none is a difference
    t = torch_ref
    a, v, b = t.ones(2, 2), t.ones(2), t.ones(1, 2, 2)
    calls = {
        "torch.Tensor.add": lambda: a.add(a, out=t.empty(2, 2)), "torch.Tensor.sub": lambda: a.sub(a, out=a),
        "torch.Tensor.mul": lambda: a.mul(a, out=a), "torch.Tensor.true_divide": lambda: a.true_divide(a, out=a),
        "torch.Tensor.floor_divide": lambda: a.floor_divide(a, out=a),
        "torch.Tensor.requires_grad_": lambda: a.clone().requires_grad_(mode=True),
        "torch.Tensor.uniform_": lambda: a.clone().uniform_(from_=0.0),
        "torch.where": lambda: t.where(a > 0, self=a, other=a),
        "torch.addmm": lambda: t.addmm(self=a, mat1=a, mat2=a), "torch.addr": lambda: t.addr(self=a, vec1=v, vec2=v),
        "torch.addmv": lambda: t.addmv(self=v, mat=a, vec=v),
        "torch.addbmm": lambda: t.addbmm(self=a, batch1=b, batch2=b),
        "torch.baddbmm": lambda: t.baddbmm(self=b, batch1=b, batch2=b),
        "torch.mm": lambda: t.mm(a, a, t.float32), "torch.bmm": lambda: t.bmm(b, b, t.float32),
    }
    out_dtype = {"torch.addmm": lambda: t.addmm(a, a, a, out_dtype=t.float32),
                 "torch.baddbmm": lambda: t.baddbmm(b, b, b, out_dtype=t.float32),
                 "torch.mm": lambda: t.mm(a, a, out_dtype=t.float32),
                 "torch.bmm": lambda: t.bmm(b, b, out_dtype=t.float32)}
    assert set(calls) == set(signatures.NOT_TAKEN)
    for name, call in [*calls.items(), *out_dtype.items()]:
        try:
            call()
        except (TypeError, NotImplementedError):
            continue
        raise AssertionError(f"PyTorch took {name}'s listed keyword")
