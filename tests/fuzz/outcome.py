"""What running one program on one library produced, in a form both libraries share.

Every value a step binds is encoded canonically: a tensor as its dtype, shape, elements as
exact bits (``float.hex``), requires_grad, is_leaf, grad_fn name and, where the step asks for
it, its printed repr; containers element by element; a graph node by its name. An exception
is its type name and message, plus, for scalargrad, whether a ``raise`` statement of
scalargrad raised it (deliberate) or Python did (a raw error: ``ZeroDivisionError`` from a
division, ``AttributeError`` from a missing attribute, ``TypeError`` from an operator...).
"""

from __future__ import annotations

import dis
import functools
import os
from dataclasses import dataclass, field

__all__ = ["ErrorRecord", "StepRecord", "Outcome", "encode", "error_record", "encode_float"]

_HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class ErrorRecord:
    """An exception as the comparator sees it."""

    type: str
    message: str
    deliberate: bool = True  # raised by a ``raise`` statement of the library (always so for PyTorch)
    site: str = ""  # innermost frame of the library that was running: file:function:line
    unsupported: bool = False  # scalargrad's "not supported" error, a known missing feature

    def key(self) -> tuple:
        return (self.type, self.message)

    def to_json(self) -> dict:
        return {"type": self.type, "message": self.message, "deliberate": self.deliberate, "site": self.site,
                "unsupported": self.unsupported}

    @classmethod
    def from_json(cls, d: dict | None) -> ErrorRecord | None:
        return None if d is None else cls(**d)


@dataclass
class StepRecord:
    """One executed step: the encoded value it bound, its warnings, its (guarded) error."""

    index: int
    obs: object = None
    warnings: list = field(default_factory=list)
    error: ErrorRecord | None = None


@dataclass
class Outcome:
    """A whole run: one record per executed step, the exception that ended it (if any)."""

    library: str
    records: list[StepRecord] = field(default_factory=list)
    error: ErrorRecord | None = None
    error_step: int | None = None
    died: str | None = None  # the run's process died (isolate.Died: a signal's name, "timeout"): no records

    def to_json(self) -> dict:
        """Plain data, for an outcome computed in a forked child (``isolate.forked``)."""
        return {"library": self.library, "error": self.error.to_json() if self.error else None,
                "error_step": self.error_step, "died": self.died,
                "records": [[r.index, r.obs, r.warnings, r.error.to_json() if r.error else None]
                            for r in self.records]}

    @classmethod
    def from_json(cls, d: dict) -> Outcome:
        out = cls(d["library"], error=ErrorRecord.from_json(d["error"]), error_step=d["error_step"], died=d["died"])
        out.records = [StepRecord(i, obs, warnings, ErrorRecord.from_json(e)) for i, obs, warnings, e in d["records"]]
        return out

    def record(self, index: int) -> StepRecord | None:
        for r in self.records:
            if r.index == index:
                return r
        return None


def encode_float(x: float) -> str:
    """Exact bits; every nan is ``nan`` (its sign and payload are not part of PyTorch's contract)."""
    return "nan" if x != x else float.hex(x)


def _flat(v) -> list:
    if isinstance(v, list):
        out = []
        for e in v:
            out.extend(_flat(e))
        return out
    return [v]


def _element(x):
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return encode_float(x)
    return repr(x)


def _attempt(fn):
    """What ``fn()`` returns, or its exception's type (an observation never ends a program)."""
    try:
        return fn()
    except Exception as e:
        return f"<{type(e).__name__}>"


def _values(x) -> list:
    # an exception here is the step's (PyTorch's storage-less ZeroTensor raises when read)
    return [_element(e) for e in _flat(x.tolist())]


def encode(x, lib, show: bool = False, depth: int = 0):
    """The canonical, JSON-ready form of a value bound by a step."""
    if depth > 6:
        return ["deep", type(x).__name__]
    if isinstance(x, lib.Tensor):
        fn = x.grad_fn
        rec = {
            "dtype": str(x.dtype),
            "shape": list(x.shape),
            "val": _values(x),
            "rg": bool(x.requires_grad),
            "leaf": bool(x.is_leaf),
            "fn": None if fn is None else fn.name(),
            "param": isinstance(x, lib.nn.Parameter),
            "stride": _attempt(lambda: list(x.stride())),
            "offset": _attempt(x.storage_offset),
            "contig": _attempt(x.is_contiguous),
        }
        if fn is not None:
            rec["next"] = _attempt(lambda: [[None if n is None else n.name(), k] for n, k in fn.next_functions])
        if show:
            rec["repr"] = _attempt(lambda: repr(x))
        return rec
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return ["int", x]
    if isinstance(x, float):
        return ["float", encode_float(x)]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ["named", type(x).__name__, repr(x)]
    if isinstance(x, (list, tuple)):
        return [type(x).__name__, [encode(e, lib, show, depth + 1) for e in x]]
    if isinstance(x, dict):
        return ["dict", type(x).__name__, [[str(k), encode(v, lib, show, depth + 1)] for k, v in x.items()]]
    if hasattr(x, "next_functions") and hasattr(x, "name"):
        return ["node", x.name()]
    if isinstance(x, lib.nn.Module):
        return ["module", repr(x)]
    return ["object", type(x).__name__]


_RAISES = ("RAISE_VARARGS", "RERAISE")


@functools.lru_cache(maxsize=4096)
def _raising_opcode(code, offset: int) -> str:
    for ins in dis.get_instructions(code):
        if ins.offset == offset:
            return ins.opname
    return ""


_BACKTRACE = "\nException raised from "


def error_record(exc: BaseException, package_dir: str | None) -> ErrorRecord:
    """``exc`` as an ErrorRecord. ``package_dir``: the library's source directory, to tell a
    ``raise`` statement of the library (deliberate) from an error Python raised inside it
    or at the call (raw); None for a library whose errors all count as deliberate."""
    message = str(exc)
    if package_dir is None:
        # a c10::Error rethrown with its what() (unflatten's "got an unexpected error") carries
        # the C++ backtrace of this build: frame addresses and paths, which no library can
        # reproduce; the message PyTorch wrote is what comes before it
        message = message.split(_BACKTRACE, 1)[0]
    rec = ErrorRecord(type(exc).__name__, message)
    rec.unsupported = type(exc).__name__ == "Unsupported"
    if package_dir is None:
        return rec
    tb = exc.__traceback__
    innermost = None
    site = None
    while tb is not None:
        innermost = tb
        fname = tb.tb_frame.f_code.co_filename
        if fname.startswith(package_dir):
            site = tb
        tb = tb.tb_next
    if site is not None:
        code = site.tb_frame.f_code
        rel = os.path.relpath(code.co_filename, os.path.dirname(package_dir))
        rec.site = f"{rel}:{code.co_name}:{site.tb_lineno}"
    # deliberate: the innermost frame is the library's own code, stopped at a raise statement
    rec.deliberate = (innermost is not None and innermost is site
                      and _raising_opcode(innermost.tb_frame.f_code, innermost.tb_lasti) in _RAISES)
    return rec
