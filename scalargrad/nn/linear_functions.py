"""``F.bilinear``: y = x1^T A x2 + b, composed of tensor ops as ATen's ``_trilinear`` composes it.

For each output feature k, ``y_k = sum_ij x1_i A_kij x2_j + b_k``: x1 (*, in1) times the weight
laid out (in1, out * in2) is one matrix product, then each (out, in2) block times x2 is a batched
product, viewed to (*, out) (``ViewBackward0``, as PyTorch's) before the bias is added
(``AddBackward0``). The products are machine-dependent in PyTorch (MKL).
"""

from __future__ import annotations

from .._tensor.tensor import Tensor

__all__ = ["bilinear"]


def _check(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """ATen's checks, in its order and words."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.size(i)} and {input2.size(i)}")
    if input1.size(-1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.size(-1)} but "
                           f"expected {weight.size(1)}")
    if input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.size(-1)} but "
                           f"expected {weight.size(2)}")
    if bias is not None and bias.size(-1) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.size(-1)} but "
                           f"expected {weight.size(0)}")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x1^T A x2 + b over the last dimension of ``input1`` (*, in1) and ``input2`` (*, in2), with
    ``weight`` (out, in1, in2) and ``bias`` (out): the result is (*, out)."""
    _check(input1, input2, weight, bias)
    out, in1, in2 = weight.shape
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    left = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out * in2)).reshape(-1, out, in2)
    y = left.bmm(x2.unsqueeze(2)).view(*lead, out)
    return y if bias is None else y + bias
