"""torch.as_strided_scatter / Tensor.as_strided_scatter against live PyTorch: a copy of the input
(dense strides kept) with ``src`` written at strided memory positions; data movement, so bit for
bit; ATen's errors; a graph refused by name."""

from __future__ import annotations

import pytest

import scalargrad
from scalargrad.errors import Unsupported

CASES = [
    "torch.as_strided_scatter(torch.zeros(3, 3), torch.arange(4).reshape(2, 2) + 1, (2, 2), (1, 2))",
    "torch.as_strided_scatter(torch.zeros(3, 3), torch.arange(4.).reshape(2, 2), (2, 2), (1, 2), 1)",
    "torch.zeros(3, 3).as_strided_scatter(torch.ones(2, 2), (2, 2), (1, 2), storage_offset=2)",
    "torch.as_strided_scatter(torch.zeros(3, 3).t(), torch.arange(4.).reshape(2, 2), (2, 2), (1, 2))",
    "torch.as_strided_scatter(torch.zeros(2, 3).t(), torch.tensor([7., 8.]), (2,), (2,))",
    "torch.as_strided_scatter(torch.zeros(6, dtype=torch.int64), torch.tensor([1.7, -2.5]), (2,), (3,), 1)",
    "torch.as_strided_scatter(torch.zeros(4), torch.zeros(0, 2), (0, 2), (9, 1), 3)",
    "torch.as_strided_scatter(torch.zeros(2, 2), torch.tensor(5.), (), (), 3)",
]


def _run(L, src: str):
    try:
        out = eval(src, {"torch": L})
    except Exception as e:  # the type and message are compared
        return f"{type(e).__name__}: {e}"
    return repr(out), out.stride(), out.dtype.__repr__().split(".")[-1], out.reshape(-1).tolist()


@pytest.mark.parametrize("src", CASES + [
    "torch.as_strided_scatter(torch.zeros(3, 3), torch.ones(2, 2), (2, 2), (1, 10))",
    "torch.as_strided_scatter(torch.zeros(3, 3), torch.ones(2, 2), (2, 3), (1, 2))",
    "torch.as_strided_scatter(torch.zeros(3, 3), torch.ones(2, 2), (2, 2), (0, 1))",
    "torch.as_strided_scatter(torch.zeros(3, 3), torch.ones(2, 2), (2, 2), (1, 2), -1)",
    "torch.as_strided_scatter(torch.zeros(3, 3), torch.ones(2, 2), (2, 2), (1,))",
])
def test_as_strided_scatter_is_pytorchs(torch_ref, src):
    assert _run(scalargrad, src) == _run(torch_ref, src)


@pytest.mark.parametrize("src", [
    "torch.as_strided_scatter(torch.zeros(3, 4)[:, :2], torch.ones(2), (2,), (3,))",
    "torch.as_strided_scatter(torch.zeros(2, 3)[1:], torch.ones(2), (2,), (2,))",
    "torch.as_strided_scatter(torch.zeros(3, 4)[:2], torch.ones(2), (2,), (7,))",
])
def test_a_part_of_a_storage_is_refused_by_name(src):
    """ATen's output is a copy of the input's whole storage, positions counted in it: refused."""
    with pytest.raises(Unsupported, match="not all of its storage"):
        eval(src, {"torch": scalargrad})


def test_a_graph_is_refused_by_name():
    x = scalargrad.zeros(4, requires_grad=True)
    with pytest.raises(Unsupported, match="AsStridedScatterBackward0"):
        scalargrad.as_strided_scatter(x, scalargrad.ones(2), (2,), (2,))
    with scalargrad.no_grad():
        assert scalargrad.as_strided_scatter(x, scalargrad.ones(2), (2,), (2,)).tolist() == [1.0, 0.0, 1.0, 0.0]
