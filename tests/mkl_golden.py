"""PyTorch's matrix products as MKL computed them on one recorded machine (``mkl_golden.json``).

MKL picks its sgemm / sgemv / sdot kernel by processor (vendor, vector width, microarchitecture),
so the order in which a product adds its terms, and with it the last bit, is the capture
machine's. scalargrad models that order (``scalargrad/kernel_order.py``); tests/test_multi_element_tensors.py
checks the model bit for bit against these recorded figures, which are the same wherever the
tests run, and compares with live PyTorch bit for bit only on the machine recorded here
(``is_capture_machine``), elsewhere within rounding bounds.

``python tests/mkl_golden.py`` re-captures the file (needs torch).
"""

from __future__ import annotations

import json
import math
import os
import random
import struct
from pathlib import Path

GOLDEN = Path(__file__).with_name("mkl_golden.json")

# the shapes of tests/test_multi_element_tensors.py's product test: (n, k, m) for a (n x k) @ b (k x m); "vm" is
# a (k,) @ b (k x m), "dot" a (k,) @ b (k,)
PRODUCT_DIMS = [(1, 1, 1), (1, 3, 1), (2, 3, 4), (1, 4, 3), (3, 5, 2), (4, 4, 4), (1, 8, 5), (6, 2, 3)]
KINDS = ["mm", "vm", "dot"]
MAGNITUDES = [1e-6, 1e-3, 0.1, 1.0, 10.0, 1e3, 1e5, 1e9]
DRAWS = 3
# nn.Linear(k, m) on torch.randn(n, k) after manual_seed(seed): the shapes kernel_order models
LINEAR = [(n, k, m, seed) for n in (2, 3, 4) for k in (2, 3, 5, 8, 9, 16) for m in (2, 3) for seed in (0, 7)]


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def shapes(kind: str, dims: tuple) -> tuple[tuple, tuple]:
    n, k, m = dims
    return {"mm": (n, k), "vm": (k,), "dot": (k,)}[kind], {"mm": (k, m), "vm": (k, m), "dot": (k,)}[kind]


def product_cases() -> list[dict]:
    """The inputs: float32 values over eight magnitudes, from a seeded stdlib generator."""
    cases = []
    for dims in PRODUCT_DIMS:
        for kind in KINDS:
            sa, sb = shapes(kind, dims)
            for d in range(DRAWS):
                rng = random.Random(f"{dims} {kind} {d}")

                def values(shape, rng=rng):
                    return [_f32(rng.uniform(-10, 10) * rng.choice(MAGNITUDES)) for _ in range(math.prod(shape))]

                cases.append({"kind": kind, "dims": list(dims), "a": values(sa), "b": values(sb)})
    return cases


def machine(torch) -> dict:
    """What decides MKL's code path: the processor (Linux /proc/cpuinfo), ATen's vector
    capability, and the PyTorch and MKL versions."""
    info = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("vendor_id", "cpu family", "model", "model name") and key not in info:
                    info[key] = value.strip()
    except OSError:
        pass
    config = torch.__config__.show()
    mkl = config.split("Math Kernel Library Version ")[1].split(" ")[0] if "Math Kernel Library" in config else None
    return {"vendor": info.get("vendor_id"), "family": info.get("cpu family"), "model": info.get("model"),
            "model_name": info.get("model name"), "capability": torch.backends.cpu.get_cpu_capability(),
            "torch": torch.__version__, "mkl": mkl}


def load() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def is_capture_machine(torch) -> bool:
    """Is this the recorded processor model, with the same PyTorch, MKL and capability, and MKL
    free to pick its kernel for it (no ``MKL_CBWR``, as when the figures were recorded)?"""
    here = machine(torch)
    return here["vendor"] is not None and here == load()["machine"] and not os.environ.get("MKL_CBWR")


def _flat(t) -> list:
    return [float(v) for v in t.reshape(-1).tolist()]


def capture() -> None:  # pragma: no cover - needs torch, run by hand
    import torch

    torch.set_num_threads(1)
    products = []
    for case in product_cases():
        sa, sb = shapes(case["kind"], tuple(case["dims"]))
        a = torch.tensor(case["a"]).reshape(sa).requires_grad_()
        b = torch.tensor(case["b"]).reshape(sb).requires_grad_()
        y = a @ b
        (y.sum() if y.dim() else y).backward()
        products.append(dict(case, y=_flat(y), a_grad=_flat(a.grad), b_grad=_flat(b.grad)))
    linear = []
    for n, k, m, seed in LINEAR:
        torch.manual_seed(seed)
        lin = torch.nn.Linear(k, m)
        x = torch.randn(n, k)
        linear.append({"n": n, "k": k, "m": m, "seed": seed, "y": _flat(lin(x).detach())})
    lines = ["{", f' "machine": {json.dumps(machine(torch))},', ' "products": [']
    lines += [f"  {json.dumps(p)}," for p in products]
    lines[-1] = lines[-1].rstrip(",")
    lines += [" ],", ' "linear": [']
    lines += [f"  {json.dumps(f)}," for f in linear]
    lines[-1] = lines[-1].rstrip(",")
    lines += [" ]", "}"]
    GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")  # one case a line
    print(f"wrote {GOLDEN}: {len(products)} products, {len(linear)} nn.Linear forwards on {machine(torch)}")


if __name__ == "__main__":  # pragma: no cover
    capture()
