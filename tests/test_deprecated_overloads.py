"""PyTorch's deprecated positional overloads (``p.add_(-lr, grad)``, ``torch.addcmul(x, 0.5, a,
b)``, ``torch.addmm(1, bias, 1, x, w)``): the same result, node and warning text as PyTorch, and
the warning once per process for all of them (``_tensor/deprecated_overloads.py``)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _operands(lib):
    x = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = lib.tensor([0.25, 3.0, -1.5])
    z = lib.tensor([2.0, 0.5, 4.0])
    m = lib.tensor([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]])
    b = lib.tensor([[0.5, -1.0], [2.0, 1.0]])
    return x, y, z, m, b


# each case: (what it spells, the call); numbers exact in float32 so values compare bit for bit
CASES = {
    "torch.add(input, alpha, other)": lambda lib, x, y, z, m, b: lib.add(x, 2, y),
    "torch.sub(input, alpha, other)": lambda lib, x, y, z, m, b: lib.sub(x, 0.5, y),
    "torch.add(input, alpha, other=)": lambda lib, x, y, z, m, b: lib.add(x, 2, other=y),
    "Tensor.add(alpha, other)": lambda lib, x, y, z, m, b: x.add(-3, y),
    "Tensor.sub_(alpha, other)": lambda lib, x, y, z, m, b: x.clone().sub_(2, y),
    "Tensor.add_(alpha, other) (old optimizers)": lambda lib, x, y, z, m, b: y.clone().add_(-0.5, z),
    "torch.addcmul(input, value, t1, t2)": lambda lib, x, y, z, m, b: lib.addcmul(x, 0.5, y, z),
    "torch.addcdiv(input, value, t1, t2)": lambda lib, x, y, z, m, b: lib.addcdiv(x, 2, y, z),
    "Tensor.addcmul_(value, t1, t2)": lambda lib, x, y, z, m, b: x.clone().addcmul_(-1, y, z),
    "Tensor.addcdiv(value, t1, t2)": lambda lib, x, y, z, m, b: y.addcdiv(0.5, z, y),
    "torch.addmm(beta, input, alpha, mat1, mat2)": lambda lib, x, y, z, m, b: lib.addmm(1, b, 1, m, m.t()),
    "torch.addmm(beta, input, mat1, mat2)": lambda lib, x, y, z, m, b: lib.addmm(1, b, m, m.t()),
    "torch.addmv(beta, input, alpha, mat, vec)": lambda lib, x, y, z, m, b: lib.addmv(1, z[:2], 1, m, x),
    "torch.addbmm(beta, input, batch1, batch2)": lambda lib, x, y, z, m, b: lib.addbmm(1, b, m[None], m.t()[None]),
    "torch.baddbmm(beta, input, alpha, b1, b2)": lambda lib, x, y, z, m, b: lib.baddbmm(1, b[None], 1, m[None],
                                                                                        m.t()[None]),
    "torch.addr(beta, input, vec1, vec2)": lambda lib, x, y, z, m, b: lib.addr(1, b, z[:2], y[1:]),
    "Tensor.addmm(beta, alpha, mat1, mat2)": lambda lib, x, y, z, m, b: b.addmm(1, 1, m, m.t()),
    "Tensor.addmv_(beta, mat, vec)": lambda lib, x, y, z, m, b: z[:2].clone().addmv_(1, m, y),
}


def _run(lib, case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = CASES[case](lib, *_operands(lib))
    return out, [str(w.message) for w in caught if w.category is UserWarning]


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_old_form_computes_and_warns_as_pytorch(torch_ref, case):
    # with set_warn_always, PyTorch's TORCH_WARN_ONCE (and scalargrad's) warns on every call
    results = []
    for lib in (torch_ref, scalargrad):
        lib.set_warn_always(True)
        try:
            results.append(_run(lib, case))
        finally:
            lib.set_warn_always(False)
    (want, want_warnings), (got, got_warnings) = results
    assert got.tolist() == want.tolist()
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    assert got_warnings == want_warnings and len(got_warnings) == 1


def test_pytorch_warns_once_for_all_old_forms(torch_ref):
    # what PyTorch does in a fresh process: an addmv in the old form warns, an addbmm and an
    # add_ after it do not (one TORCH_WARN_ONCE serves every deprecated overload)
    program = ("import warnings, {lib} as torch\n"
               "warnings.simplefilter('always')\n"
               "m = torch.ones(2, 3)\n"
               "with warnings.catch_warnings(record=True) as w:\n"
               "    warnings.simplefilter('always')\n"
               "    torch.addmv(1, torch.ones(2), 1, m, torch.ones(3))\n"
               "    torch.addbmm(1, torch.ones(2, 2), m[None], m.t()[None])\n"
               "    torch.ones(2).add_(2, torch.ones(2))\n"
               "print([str(x.message).splitlines()[0] for x in w])\n")
    outputs = [subprocess.run([sys.executable, "-c", program.format(lib=lib)], capture_output=True, text=True,
                              check=True).stdout for lib in ("torch", "scalargrad")]
    assert outputs[0] == "['This overload of addmv is deprecated:']\n"
    assert outputs[1] == outputs[0]


def test_other_calls_keep_their_own_errors(torch_ref):
    x = scalargrad.ones(2)
    with pytest.raises(TypeError, match=r"add\(\) takes 2 positional arguments but 4 were given"):
        scalargrad.add(x, 2, x, x)
    # an old-form scale other than 1 in the add-product family is refused by name, not computed
    with pytest.raises(Unsupported, match="addmm with beta or alpha other than 1"):
        scalargrad.addmm(2, scalargrad.ones(2, 2), scalargrad.ones(2, 3), scalargrad.ones(3, 2))
    # an alias has no old form in PyTorch (subtract(x, 2, y) is its parser's TypeError)
    with pytest.raises(TypeError):
        scalargrad.subtract(x, 2, x)
    with pytest.raises(TypeError):
        torch_ref.subtract(torch_ref.ones(2), 2, torch_ref.ones(2))
