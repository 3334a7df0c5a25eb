"""``float_power`` / ``Tensor.float_power(_)`` (``_tensor/arithmetic.py``): ATen's composite,
pow in double over ``.to(float64)`` of each tensor operand.

The cases' powers are exact in double (integer and half-integer results, squares, reciprocals of
powers of two), so values and gradients are compared with live PyTorch exactly on every
processor, with the node names, the dtypes and the in-place refusal.
"""

from __future__ import annotations

import scalargrad as sg


def _float_powers(L):
    out = []
    a = L.arange(1, 5)
    out.append(L.float_power(a, L.tensor([2, -3, 4, -5])).tolist())
    out.append(L.float_power(a, 2).tolist())
    out.append(str(L.float_power(L.tensor([1.5, 2.0]), 2).dtype))
    x = L.tensor([1.5, 2.0, 4.0], requires_grad=True)
    for y in (L.float_power(x, 2), L.float_power(2, x), x.float_power(L.tensor([1.0, 0.5, -1.0])),
              L.float_power(x, L.tensor(3))):
        out.append((y.tolist(), y.grad_fn.name(), [f.name() if f else None for f, _ in y.grad_fn.next_functions]))
    (L.float_power(x, 2) * L.tensor([1.0, 2.0, 3.0], dtype=L.float64)).sum().backward()
    out.append((x.grad.tolist(), str(x.grad.dtype)))
    try:
        L.zeros(2).float_power_(2)
    except RuntimeError as e:
        out.append(str(e))
    z = L.full((2,), 2.0, dtype=L.float64)
    out.append((z.float_power_(L.tensor([2, 3])) is z, z.tolist()))
    return out


def test_float_power_is_torchs(torch_ref):
    assert _float_powers(sg) == _float_powers(torch_ref)
