"""Settings a program sets and reads back that change no result in scalargrad: the intra-op and
inter-op thread counts (``torch.set_num_threads``...) and the float32 matmul precision
(``torch.set_float32_matmul_precision``). scalargrad computes in one thread and its products in
float32 as PyTorch's CPU kernels do at any precision setting (TF32 is a GPU format)."""

from __future__ import annotations

import os
import warnings

from .program_frame import program_stacklevel

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads",
           "get_float32_matmul_precision", "set_float32_matmul_precision"]

# PyTorch starts with one intra-op and one inter-op thread per core
_state: dict = {"threads": os.cpu_count() or 1, "interop": os.cpu_count() or 1, "interop_set": False,
                "precision": "highest"}


def _positive_int(what: str, n) -> int:
    if n.__class__ is not int:
        raise RuntimeError(f"{what} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{what} expects a positive integer")
    return n


def get_num_threads() -> int:
    """The number of threads PyTorch would use for intra-op parallelism (this machine's cores)."""
    return _state["threads"]


def set_num_threads(num: int) -> None:
    """Set the number ``get_num_threads`` reports (a positive int, PyTorch's checks)."""
    _state["threads"] = _positive_int("set_num_threads", num)


def get_num_interop_threads() -> int:
    return _state["interop"]


def set_num_interop_threads(num: int) -> None:
    """Set the inter-op thread count once, as PyTorch allows (a second call is refused)."""
    n = _positive_int("set_num_interop_threads", num)
    if _state["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state["interop"], _state["interop_set"] = n, True


def get_float32_matmul_precision() -> str:
    return _state["precision"]


def set_float32_matmul_precision(precision: str) -> None:
    """'highest', 'high' or 'medium'; anything else warns and changes nothing, as in PyTorch."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning,
                      stacklevel=program_stacklevel())
        return
    _state["precision"] = precision
