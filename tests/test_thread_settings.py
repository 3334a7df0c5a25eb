"""torch.get/set_num_threads, get/set_num_interop_threads and the float32 matmul precision:
settings a program sets and reads back, with PyTorch's checks (each case in a fresh interpreter:
the inter-op count may be set once per process)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import warnings
    import {lib} as torch

    def attempt(f):
        try:
            return repr(f())
        except Exception as e:
            return type(e).__name__ + ": " + str(e)

    print(torch.get_num_threads() >= 1, torch.get_num_interop_threads() >= 1)
    for n in (0, -1, 2.0, "a", True):
        print(attempt(lambda: torch.set_num_threads(n)))
    print(attempt(lambda: torch.set_num_threads(3)), torch.get_num_threads())
    print(attempt(lambda: torch.set_num_interop_threads(0)))
    print(attempt(lambda: torch.set_num_interop_threads(3)), torch.get_num_interop_threads())
    print(attempt(lambda: torch.set_num_interop_threads(2)), torch.get_num_interop_threads())
    print(torch.get_float32_matmul_precision())
    print(attempt(lambda: torch.set_float32_matmul_precision(1)))
    for p in ("high", "medium", "highest"):
        torch.set_float32_matmul_precision(p)
        print(torch.get_float32_matmul_precision())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.set_float32_matmul_precision("bad")
    print(torch.get_float32_matmul_precision(), [(c.category.__name__, str(c.message)) for c in w])
""")


def _run(lib: str) -> str:
    proc = subprocess.run([sys.executable, "-c", PROGRAM.format(lib=lib)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_thread_and_precision_settings_are_pytorchs(torch_ref):
    assert _run("scalargrad") == _run("torch")


def test_settings_without_pytorch():
    out = _run("scalargrad").splitlines()
    assert out[0] == "True True"
    assert out[1:6] == ["RuntimeError: set_num_threads expects a positive integer"] * 2 + [
        f"RuntimeError: set_num_threads expects an int, but got {t}" for t in ("float", "str", "bool")]
    assert out[6] == "None 3"
    assert out[8:10] == ["None 3", "RuntimeError: Error: cannot set number of interop threads after parallel work "
                         "has started or set_num_interop_threads called 3"]
    assert out[10:-1] == ["highest", "RuntimeError: set_float32_matmul_precision expects a str, but got int", "high",
                        "medium", "highest"]
    assert out[-1].startswith("highest [('UserWarning', \"bad is not one of 'highest', 'high', or 'medium'; the "
                              "currentsetFloat32MatmulPrecision call has no effect.")
