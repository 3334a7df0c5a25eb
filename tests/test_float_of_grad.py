"""``float(t)`` of a tensor that requires grad: PyTorch warns once per process (ATen's
``TORCH_WARN_ONCE`` in ``item()``), when grad mode is on; ``t.item()``, ``int(t)``, ``bool(t)``
and ``format(t)`` do not warn. Against live PyTorch: each conversion with ``set_warn_always``
on (every warn-once site warns each time), and the once in one fresh process each."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import scalargrad

CONVERSIONS = [
    lambda L, x, leaf: float(x),
    lambda L, x, leaf: "%1.3f" % x,  # noqa: UP031 (the printf conversion calls __float__)
    lambda L, x, leaf: math.exp(leaf),
    lambda L, x, leaf: complex(x),
    lambda L, x, leaf: float(L.nn.Parameter(L.tensor([2.5]))),
    lambda L, x, leaf: x.item(),
    lambda L, x, leaf: int(x),
    lambda L, x, leaf: "{:.2f}".format(x),  # noqa: UP032 (format calls __format__)
    lambda L, x, leaf: bool(x),
    lambda L, x, leaf: float(x.detach()),
    lambda L, x, leaf: x.tolist(),
    lambda L, x, leaf: float(L.tensor(1.5)),
    lambda L, x, leaf: float(x * 0 + leaf.sum()),
]


def _seen(L) -> list:
    x = L.tensor(2.0, requires_grad=True) * 3
    leaf = L.tensor([1.5], requires_grad=True)
    out = []
    L.set_warn_always(True)
    try:
        for convert in CONVERSIONS:
            for grad in (True, False):
                with warnings.catch_warnings(record=True) as caught, L.set_grad_enabled(grad):
                    warnings.simplefilter("always")
                    value = convert(L, x, leaf)
                out.append((value, [(w.category.__name__, str(w.message), w.filename) for w in caught]))
    finally:
        L.set_warn_always(False)
    return out


def test_each_conversion_warns_as_pytorchs(torch_ref):
    want = _seen(torch_ref)
    assert _seen(scalargrad) == want
    assert sum(bool(w) for _, w in want) == 6  # float, %, math.exp, complex, Parameter, a sum; with grad mode on


PROGRAM = """
import warnings
import torch
x = torch.tensor(2.0, requires_grad=True) * 3
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x.item(), int(x), "{:.2f}".format(x), bool(x), float(x.detach())
    with torch.no_grad():
        float(x)
    float(x)
    float(x * 2)
print([(w.category.__name__, str(w.message), w.lineno) for w in caught])
"""


def test_the_warning_once_per_process(torch_ref, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM, encoding="utf-8")
    outs = [subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300).stdout
            for cmd in ([sys.executable, str(prog)], [sys.executable, "-m", "scalargrad", "run", str(prog)])]
    assert outs[0] == outs[1] and outs[0].count("requires_grad=True to a scalar") == 1
