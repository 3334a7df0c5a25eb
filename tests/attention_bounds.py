"""Measure the bounds of tests/test_attention.py and tests/test_transformer.py: the largest
|x - reference| / max(1, |reference|) of scalargrad's and PyTorch's float32 values and gradients, the
reference being PyTorch's float64 run of the same cases. ``python tests/attention_bounds.py``
(with PyTorch installed); run it under ``ATEN_CPU_CAPABILITY=default`` and ``MKL_CBWR=COMPATIBLE`` too.
"""

from __future__ import annotations

import warnings

import test_attention as A
import test_transformer as T
import torch

import scalargrad


def _dev(a: list, b: list) -> float:
    return max([abs(x - y) / max(1.0, abs(y)) for x, y in zip(a, b)] or [0.0])


def measure() -> dict:
    worst = {"scalargrad": [0.0, 0.0], "torch": [0.0, 0.0]}
    torch.manual_seed(1)
    x, mem = torch.randn(4, 2, 6).tolist(), torch.randn(4, 2, 6).tolist()
    for kw in A.MHA_CONFIGS:
        for fw in A.FORWARDS:
            ref = A._mha_run(torch, kw, x, mem, fw, torch.float64)
            for name, L in (("scalargrad", scalargrad), ("torch", torch)):
                o, w, g = A._mha_run(L, kw, x, mem, fw)
                values = _dev(A._flat(o), A._flat(ref[0]))
                if w is not None:
                    values = max(values, _dev(A._flat(w), A._flat(ref[1])))
                worst[name][0] = max(worst[name][0], values)
                worst[name][1] = max([worst[name][1]] + [_dev(a, b) for a, b in zip(g, ref[2])])
    torch.manual_seed(3)
    data = {"src": torch.randn(5, 2, 8).tolist(), "tgt": torch.randn(4, 2, 8).tolist(),
            "pad": [[False] * 4 + [True], [False] * 5]}
    for what, kw in T.CONFIGS:
        for train in (False, True):
            ref = T._run(torch, what, kw, data, train, torch.float64)
            for name, L in (("scalargrad", scalargrad), ("torch", torch)):
                o, g = T._run(L, what, kw, data, train)
                worst[name][0] = max(worst[name][0], _dev(T._flat(o), T._flat(ref[0])))
                worst[name][1] = max([worst[name][1]] + [_dev(a, b) for a, b in zip(g, ref[1])])
    return worst


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for who, (values, grads) in measure().items():
        print(f"{who}: values within {values:.2e}, gradients within {grads:.2e}")
