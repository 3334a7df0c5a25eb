"""``out=`` (``_tensor/out_argument.py``): torch functions write their result into the tensor
given, as PyTorch's out= variants do: the basics tutorial's ``torch.mul(t, t, out=z3)``, the
blitz's ``torch.add(x, y, out=result)``. Compared with live PyTorch on exact ops (no
machine-dependent kernel: integer-valued products and sums), and by hand without it."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import scalargrad as sg
from scalargrad._base.out_keyword import OUT_KEYWORD, OUT_SEVERAL
from scalargrad.errors import Unsupported

CASES = [
    "torch.add(y, y, out=torch.empty(2))",
    "torch.mul(x, x, out=torch.empty(0))",
    "torch.add(y, 1e-9, out=torch.zeros(2, dtype=torch.float64))",  # float32 sum, then widened
    "torch.add(y, y, out=torch.zeros(2, dtype=torch.long))",
    "torch.abs(i, out=torch.zeros(3, dtype=torch.float64))",  # abs keeps its input's dtype: refused
    "torch.sqrt(torch.tensor([1, 4, 9]), out=torch.zeros(3, dtype=torch.float64))",  # computes in float32: cast
    "torch.sqrt(y, out=torch.zeros(2, dtype=torch.long))",
    "torch.heaviside(y, y, out=torch.zeros(2, dtype=torch.float64))",
    "torch.eq(y, y, out=torch.zeros(2))",
    "torch.lt(y, 2, out=torch.zeros(2, dtype=torch.long))",
    "torch.matmul(x, x, out=torch.empty(2, 2))",
    "torch.mm(x, x, out=torch.empty(2, 2))",
    "torch.matmul(x, y, out=torch.empty(2))",
    "torch.max(x, 0, out=(torch.empty(2), torch.empty(2, dtype=torch.long)))",
    "torch.sort(x, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])",
    "torch.sum(x, 0, out=torch.empty(2))",
    "torch.cat([y, y], out=torch.empty(4))",
    "torch.stack([y, y], out=torch.empty(2, 2))",
    "torch.chunk(y, 2, out=y)",
    "torch.chunk(y, 2, out=None)",
    "torch.add(y, y, out=None)",
    "torch.add(y, y, out=[1])",
    "torch.add(x, x, out=torch.empty(3))",
    "torch.clamp(x, 0, 2, out=torch.empty(2, 2))",
    "torch.argmax(x, out=torch.empty((), dtype=torch.long))",
    "torch.neg(y, out=torch.empty(2))",
    "torch.add(torch.ones(2, requires_grad=True), 1, out=torch.empty(2))",
    "torch.add(y, 1, out=torch.empty(2, requires_grad=True))",
    # the autograd refusal comes before the function's own checks (fuzz newer:2213:173)
    "torch.cat([torch.ones(2, requires_grad=True), x], out=torch.empty(4))",
    "torch.stack([torch.ones(3, requires_grad=True), y], out=torch.empty(4))",
    "torch.tril(torch.ones(2, requires_grad=True), out=torch.empty(2))",
    # ... unless the function is not differentiable (comparisons): its own error first (newer:9403:1197)
    "torch.eq(torch.ones(2, requires_grad=True), torch.ones(3), out=torch.zeros(3))",
    "torch.lt(torch.ones(2, requires_grad=True), y, out=torch.zeros(2, dtype=torch.bool))",
    # an out that is also an input is never resized: ATen's shape error (newer:9403:143), before the dtype's
    "torch.add(x.reshape(4, 1), y.reshape(1, 2), out=y)",
    "torch.mul(y.reshape(1, 2), x.reshape(4, 1), out=y)",
    "torch.eq(x.reshape(4, 1), y, out=y)",
    "torch.add(x.reshape(4, 1), i[:2], out=i[:2])",
    "torch.add(torch.ones(2, 1), i, out=i)",
    "torch.add(y, 1, out=y)",
    # an out of another dtype refused in the kernels' words (newer:9403:112, :184, :901)
    "torch.clamp(x, -1, 1, out=torch.zeros(2, 2, dtype=torch.long))",
    "torch.clip(y, max=1, out=torch.zeros(2, dtype=torch.float64))",
    "torch.clamp(i, 0, 1, out=torch.zeros(3))",
    "torch.max(x, 0, out=(torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.long)))",
    "torch.min(x, 1, out=(torch.zeros(2), torch.zeros(2)))",
    "torch.sort(x, out=(torch.zeros(2, 2), torch.zeros(2, 2)))",
    "torch.tril(x, out=torch.zeros(2, 2, dtype=torch.long))",
    "torch.triu(x, out=torch.zeros(2, 2, dtype=torch.float64))",
    # div casts into out as every binary op (fuzz newer:10061 was Unsupported)
    "torch.div(y, 2, out=torch.zeros(2, dtype=torch.long))",
    "torch.div(y, 3.0, out=torch.zeros(2, dtype=torch.float64))",
    "torch.divide(i, 2, rounding_mode='floor', out=torch.zeros(3, dtype=torch.int32))",
    "torch.true_divide(i, 2, out=torch.zeros(3, dtype=torch.float16))",
    # mean sums in out's dtype, as with dtype= (fuzz newer:10061:246 was Unsupported)
    "torch.mean(torch.tensor([0.1, 0.2, 0.7, 1 / 3]), 0, out=torch.zeros((), dtype=torch.float64))",
    "torch.mean(torch.tensor([0.1, 0.2, 0.7], dtype=torch.float64), out=torch.zeros(()))",
    "torch.mean(x, 1, keepdim=True, out=torch.zeros(2, 1, dtype=torch.float64))",
]


def outcome(torch, case: str):
    x = torch.tensor([[3.0, 1.0], [2.0, 5.0]])
    y, i = torch.tensor([1.0, 2.0]), torch.tensor([1, -2, 3])
    namespace = {"torch": torch, "x": x, "y": y, "i": i}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = eval(case, namespace)
        except (TypeError, RuntimeError) as e:
            return type(e).__name__, str(e).splitlines()[0]
    return repr(result), [str(w.message) for w in caught], repr(y)


@pytest.mark.parametrize("case", CASES)
def test_out_is_pytorchs(case, torch_ref):
    assert outcome(sg, case) == outcome(torch_ref, case)


def _memory(torch):
    out = []
    y = torch.tensor([1.0, 2.0])
    z = torch.zeros(2)
    r = torch.add(y, y, out=z)
    out.append((r is z, z.tolist(), z._version))
    b = torch.zeros(2, 3)
    torch.mul(y.reshape(2, 1), 2, out=b[:, 1:2])  # a view: its base sees the write
    out.append(b.tolist())
    w = y.clone()
    torch.add(w, w, out=w)  # over an input, element for element
    out.append((w.tolist(), w._version))
    w = torch.tensor([1.0, 2.0, 3.0])
    try:
        torch.mul(w[1:], 2, out=w[:2])  # over part of an input
    except RuntimeError as e:
        out.append(str(e))
    out.append(w.tolist())
    w = torch.tensor([1.0, 2.0, 3.0, 4.0])
    torch.mul(w[:2], 2, out=w[2:])  # another part of the same memory
    out.append(w.tolist())
    e = torch.zeros(1).expand(2)
    try:
        torch.add(y, 1, out=e)
    except RuntimeError as err:
        out.append(str(err))
    with torch.no_grad():
        a, o = torch.ones(2, requires_grad=True), torch.empty(2)
        torch.mul(a, 3, out=o)
        out.append((o.tolist(), o.requires_grad))
    z = torch.zeros(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.add(y, y, out=z)
    out.append(([w.filename for w in caught] == [__file__], z.tolist()))
    return out


def test_memory_versions_and_the_warnings_line_are_pytorchs(torch_ref):
    assert _memory(sg) == _memory(torch_ref)


def _not_differentiable(torch):
    # comparisons, logical ops and argmax have no derivative: out= takes inputs that require grad,
    # and even an out that does (a leaf, written outside the graph)
    out = []
    x, y = torch.tensor([1.0, 0.0, 2.0]), torch.tensor([0.0, 0.0, 3.0])
    for name in ("logical_and", "logical_or", "logical_xor"):
        o = torch.empty(3)
        getattr(torch, name)(x, y, out=o)
        out.append(o.tolist())
    o = torch.empty(3, dtype=torch.long)
    torch.logical_not(x, out=o)
    out.append(o.tolist())
    xr = torch.tensor([1.0, 0.0], requires_grad=True)
    out.append(torch.logical_and(xr, xr, out=torch.empty(2)).tolist())
    out.append(torch.eq(xr, xr, out=torch.empty(2)).tolist())
    o = torch.logical_not(xr, out=torch.empty(2, requires_grad=True))
    out.append((o.tolist(), o.requires_grad, o.grad_fn, o._version))
    out.append(torch.argmax(xr, out=torch.empty((), dtype=torch.long)).item())
    try:
        torch.sign(xr, out=torch.empty(2))  # sign is differentiable (a zero gradient)
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_functions_without_a_derivative_take_out_beside_grad(torch_ref):
    assert _not_differentiable(sg) == _not_differentiable(torch_ref)


# ---------------------------------------------------------------- without PyTorch


def test_the_result_is_out_itself_written_once():
    y, z = sg.tensor([1.0, 2.0]), sg.zeros(2)
    r = sg.add(y, y, out=z)
    assert r is z and z.tolist() == [2.0, 4.0] and z._version == 1


def test_nothing_is_written_when_a_check_fails():
    y = sg.tensor([1.0, 2.0])
    z = sg.zeros(3, dtype=sg.long)  # float32 cannot be cast into int64: refused before the resize
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        sg.add(y, y, out=z)
    assert z.shape == (3,) and z.tolist() == [0, 0, 0] and z._version == 0
    m = sg.zeros((), dtype=sg.float64)  # a reduction's out of another dtype: its own rule, refused by name
    with pytest.raises(Unsupported, match=r"torch.sum\(out=...\) of another dtype"):
        sg.sum(y, 0, out=m)
    assert m.item() == 0.0 and m._version == 0


def test_a_view_is_not_resized():
    base = sg.zeros(4)
    with pytest.raises(Unsupported, match="shares its memory"):
        sg.add(sg.ones(2, 2), 1, out=base[:2])
    assert base.tolist() == [0.0] * 4


def test_the_signature_names_out_where_pytorch_takes_it():
    import inspect

    assert "out" in inspect.signature(sg.sum).parameters
    assert "out" not in inspect.signature(sg.chunk).parameters
    assert {"add", "mul", "matmul", "cat", "sum", "max", "sort"} <= OUT_KEYWORD
    assert {"max", "sort", "topk"} <= OUT_SEVERAL and "mul" not in OUT_SEVERAL


def test_the_list_of_functions_is_pytorchs(torch_ref):
    import pytorch_api  # tests/, beside this file

    text = pytorch_api.render_out(pytorch_api.out_functions(torch_ref), torch_ref.__version__)
    assert Path(sg.__file__).parent.joinpath("_base", "out_keyword.py").read_text() == text


def test_out_none_is_pytorchs_default():
    a, b = sg.tensor([1.0, 5.0]), sg.tensor([3.0, 2.0])
    assert sg.maximum(a, b, out=None).tolist() == [3.0, 5.0]
    assert sg.zeros(2, out=None).tolist() == [0.0, 0.0]


def test_normals_out_is_refused_by_name_and_left_unchanged():
    # torch.normal's four overloads draw into out by rules not written here yet: never ignored
    out = sg.tensor([7.0, 7.0])
    with pytest.raises(Unsupported, match=r"^torch\.normal\(out=\.\.\.\) is not supported: .*out\.copy_"):
        sg.normal(0.0, 1.0, (2,), out=out)
    assert out.tolist() == [7.0, 7.0] and out._version == 0


FACTORIES = [
    "torch.zeros(2, out=torch.empty(2, dtype=torch.float64))",
    "torch.ones(2, 3, out=torch.empty(0, dtype=torch.long))",
    "torch.rand(2, 2, out=torch.empty(2, 2))",  # the tensors tutorial's torch.rand(2, 2, out=c)
    "torch.randn(3, out=torch.empty(3, dtype=torch.float64))",  # drawn in out's dtype
    "torch.randn(3, out=torch.empty(1))",
    "torch.randn(size=(2,), out=torch.empty(2))",
    "torch.zeros(2, out=torch.empty(2, requires_grad=True))",
    "torch.zeros(2, dtype=torch.float64, out=torch.empty(2))",
]


@pytest.mark.parametrize("case", FACTORIES)
def test_a_factory_writes_into_out_as_pytorch(case, torch_ref):
    def run(torch):
        torch.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                made = repr(eval(case, {"torch": torch}))
            except RuntimeError as e:
                made = str(e)
        return made, [str(w.message) for w in caught], torch.rand(1).item()  # the generator's state after

    assert run(sg) == run(torch_ref)


WHERE_CASES = ["torch.where(y > 1, y, 0., out=torch.zeros(2))", "torch.where(y > 1, 1, y, out=torch.zeros(2))",
               "torch.where(y > 1, 1., 2., out=torch.zeros(2))", "torch.where(y > 1, y, 0., out=None)",
               "torch.where(1, y, y, out=torch.zeros(2))", "torch.where(y > 1, input=y, other=0., out=torch.zeros(2))",
               "torch.where(y > 1, y, y, out=torch.zeros(2))", "torch.where(y > 1, y, 0.)",
               "torch.where(y > 1, y)", "torch.where(y > 1, y, out=torch.zeros(2))", "torch.where(y > 1, y, out=None)",
               "torch.where(y > 1, out=torch.zeros(2))", "torch.where(y > 1, other=y)"]


def _where_outcomes(torch) -> list:
    y = torch.tensor([1.0, 2.0])
    out = []
    for case in WHERE_CASES:
        try:
            out.append(eval(case, {"torch": torch, "y": y}).tolist())
        except TypeError as e:
            out.append(str(e))
    return out


def test_where_with_out_takes_tensors_only(torch_ref):
    # issue 22: torch.where(c, x, 0., out=t) computed where PyTorch refuses it: where's only
    # overload with out takes three tensors (the ones with a number take no out), so PyTorch's
    # parser names the first number; with input or other missing, its list of overloads
    assert _where_outcomes(sg) == _where_outcomes(torch_ref)


OVERLAP_CASES = ["torch.cat([x, y], out=y)", "torch.cat([x, y], out=x[:2])", "torch.concat([m, m], out=m)",
                 "torch.median(m, 0, out=(m, i))", "torch.nanmedian(m, 0, out=(m, i))"]


def _overlaps(torch) -> list:
    out = []
    for case in OVERLAP_CASES:
        x, y = torch.tensor([1.75, 2.5, 3.0]), torch.tensor([1.0, 1.5, -0.25])
        m, i = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.zeros(2, dtype=torch.int64)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PyTorch's resize warning before its refusal
                eval(case, {"torch": torch, "x": x, "y": y, "m": m, "i": i})
            out.append("computed")
        except RuntimeError as e:
            out.append(str(e))  # PyTorch has resized out by then: its values are not compared
    return out


def test_out_that_is_an_input_is_refused(torch_ref):
    # issue 22 (fuzz newer:2213:563): out= the input itself (no view) was not seen as sharing its
    # memory: torch.cat([x, y], out=y) computed where ATen's overlap check refuses it, and
    # torch.sum(m, 0, out=m) wrote the sum where PyTorch resizes m before reading it
    assert _overlaps(sg) == _overlaps(torch_ref)
    m = sg.tensor([[1.0, 2.0], [3.0, 4.0]])
    for call in (lambda: sg.sum(m, 0, out=m), lambda: sg.cumsum(m, 0, out=m), lambda: sg.mm(m, m, out=m)):
        with pytest.raises(Unsupported, match="shares memory with an input"):
            call()
    assert m.tolist() == [[1.0, 2.0], [3.0, 4.0]]
