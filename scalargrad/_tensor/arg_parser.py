"""PyTorch's argument parser's refusal of a call that none of an op's Python signatures takes,
in one place: the TypeError ``torch/csrc/utils/python_arg_parser.cpp`` and
``invalid_arguments.cpp`` raise, for an op that declares its signatures as PyTorch lists them
(``"(Tensor input, Number other, *, Tensor out = None)"``).

It runs only after a call has failed (``parsed``): where PyTorch's parser refuses the arguments,
PyTorch raises before anything is computed, so its message replaces whatever scalargrad's own
checks said; where the parser takes them, scalargrad's error stands. The successful call pays
nothing.

The rules, as PyTorch 2.13 applies them:
- one signature: the first argument it cannot bind is named (``argument 'other' (position 1)
  must be Tensor, not str``), or the count is wrong (``takes 1 positional argument but 2 were
  given``, ``missing 1 required positional arguments``, ``got an unexpected keyword argument``);
- several: when exactly one of them takes that many arguments, as for one signature; else the
  listing "received an invalid combination of arguments - got (...), but expected one of:",
  each signature followed, when it has as many entries as arguments were given (a ``*`` counts),
  by the types that did not match marked ``!type!`` (``Number`` matches no Python type there,
  ``float`` an int or a float, ``Tensor`` a tensor).
"""

from __future__ import annotations

import functools

from .._base import dtypes
from .._base.numpy_types import is_numpy_scalar, numpy_type_name
from .tensor import Tensor

__all__ = ["Signature", "refusal", "parsed", "method_signatures", "is_scalar"]

_MISSING = object()
# keywords PyTorch's parser also takes under NumPy's names
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}
# torch functions whose Tensor parameters also bind a Python number (should_allow_numbers_as_tensors)
_NUMBERS_AS_TENSORS = frozenset(
    n + s for n in ("add", "div", "divide", "mul", "multiply", "sub", "subtract", "true_divide", "floor_divide")
    for s in ("", "_", "_out")) | {"to", "_to_copy", "copy_"}


class _Param:
    __slots__ = ("type", "name", "optional", "allow_none", "keyword_only")

    def __init__(self, piece: str, keyword_only: bool) -> None:
        decl, eq, default = piece.partition(" = ")
        self.type, _, self.name = decl.rpartition(" ")
        self.optional = bool(eq)
        self.allow_none = default == "None"
        self.keyword_only = keyword_only


class Signature:
    """One of an op's Python signatures, in the form PyTorch lists it (``FunctionSignature::toString``)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.params: list[_Param] = []
        keyword_only = False
        for piece in text[1:-1].split(", ") if text != "()" else ():
            if piece == "*":
                keyword_only = True
            else:
                self.params.append(_Param(piece, keyword_only))
        self.min_args = sum(not p.optional for p in self.params)
        self.max_args = len(self.params)
        self.max_pos_args = sum(not p.keyword_only for p in self.params)


def method_signatures(texts: tuple) -> tuple:
    """The Tensor method's listing of a torch function's ``texts``: ``self`` is the tensor (a
    signature whose first parameter is ``Number self`` has no method) and methods take no ``out``."""
    out = []
    for text in texts:
        pieces = text[1:-1].split(", ")
        if pieces[0] != "Tensor input":
            continue
        pieces = [p for p in pieces[1:] if p != "Tensor out = None"]
        if pieces and pieces[-1] == "*":
            pieces.pop()
        out.append("(" + ", ".join(pieces) + ")")
    return tuple(out)


def is_scalar(x) -> bool:
    """A Python or NumPy number (``THPUtils_checkScalar``)."""
    return isinstance(x, (int, float, complex)) or is_numpy_scalar(x)


def _binds(p: _Param, x, numbers_as_tensors: bool) -> bool:
    """``FunctionParameter::check`` for the types the declared signatures use; any other type
    binds (no refusal is made up)."""
    t = p.type
    if t == "Tensor":
        return isinstance(x, Tensor) or numbers_as_tensors and is_scalar(x)
    if t in ("Number", "complex", "float"):  # Scalar falls through complex to double
        if is_scalar(x) and (t != "float" or not isinstance(x, complex)):
            return True
        return isinstance(x, Tensor) and not x.requires_grad and x.dim() == 0
    if t == "int":
        if isinstance(x, int) and x.__class__ is not bool:
            return True
        return isinstance(x, Tensor) and not x.requires_grad and x.dim() == 0 and \
            not x.dtype.is_floating_point and x.dtype is not dtypes.bool
    if t == "bool":
        return x.__class__ is bool
    if t == "str":
        return isinstance(x, str)
    return True


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _parse(name: str, sig: Signature, args: tuple, kwargs: dict) -> str | None:
    """``FunctionSignature::parse``: None when ``sig`` takes the call, else the message its
    raising form gives."""
    nargs = len(args)
    if nargs > sig.max_pos_args:
        return _extra_args(name, sig, nargs)
    numbers = name in _NUMBERS_AS_TENSORS
    arg_pos, remaining = 0, len(kwargs)
    for i, p in enumerate(sig.params):
        is_kwd = False
        if arg_pos < nargs:
            if p.keyword_only:
                return _extra_args(name, sig, nargs)
            obj = args[arg_pos]
        else:
            obj = kwargs.get(p.name, _MISSING)
            for alias in _NUMPY_NAMES.get(p.name, ()):
                if obj is _MISSING:
                    obj = kwargs.get(alias, _MISSING)
            is_kwd = True
        if obj is _MISSING and p.optional or obj is None and p.allow_none:
            pass
        elif obj is _MISSING:
            missing = [f'"{q.name}"' for q in sig.params[i:] if not q.optional]
            # PyTorch's message says "arguments" for one and "argument" for several
            return (f"{name}() missing {len(missing)} required positional argument{'s' if len(missing) == 1 else ''}: "
                    f"{', '.join(missing)}")
        elif not _binds(p, obj, numbers):
            where = "" if is_kwd else f" (position {arg_pos + 1})"
            return f"{name}(): argument '{p.name}'{where} must be {p.type}, not {numpy_type_name(obj)}"
        if not is_kwd:
            arg_pos += 1
        elif obj is not _MISSING:
            remaining -= 1
    if remaining > 0:
        names = [p.name for p in sig.params]
        for k in kwargs:
            if k not in names:
                return f"{name}() got an unexpected keyword argument '{k}'"
            if names.index(k) < nargs:
                return f"{name}() got multiple values for argument '{k}'"
        return "invalid keyword arguments"
    return None


def _extra_args(name: str, sig: Signature, nargs: int) -> str:
    if sig.min_args != sig.max_pos_args:
        return (f"{name}() takes from {sig.min_args} to {sig.max_pos_args} positional arguments but "
                f"{nargs} were given")
    return (f"{name}() takes {_plural(sig.max_pos_args, 'positional argument')} but {nargs} "
            f"{'was' if nargs == 1 else 'were'} given")


def _type_desc(x) -> str:
    if isinstance(x, (tuple, list)):  # "tuple of (int,)", "list of [float]"
        inner = ", ".join(numpy_type_name(e) for e in x)
        return f"{type(x).__name__} of " + (f"({inner}{',' if len(x) == 1 else ''})" if isinstance(x, tuple)
                                             else f"[{inner}]")
    return numpy_type_name(x)


def _matches(type_name: str, x) -> bool:
    """invalid_arguments.cpp's match of a listed type with an argument's type name."""
    got = numpy_type_name(x)
    if type_name == "float":
        return got in ("float", "int")
    return got == type_name


def _invalid_args(name: str, texts: tuple, args: tuple, kwargs: dict) -> str:
    """``format_invalid_args`` for several signatures (entries split at ", ", so ``*`` is one;
    a parameter with a default is named by its default there and never matches a keyword)."""
    got = [numpy_type_name(a) for a in args] + [f"{k}={numpy_type_name(v)}" for k, v in reversed(kwargs.items())]
    lines = [f"{name}() received an invalid combination of arguments - got "
             f"({', '.join(got)}{'' if args or not kwargs else ', '}), but expected one of:"]
    n = len(args) + len(kwargs)
    for text in texts:
        lines.append(f" * {text}")
        entries = [e.rpartition(" ") for e in text[1:-1].split(", ")]  # (type, " ", name)
        if len(entries) != n:
            continue
        start = max(len(entries) - len(kwargs), 0)
        unmatched = [k for k in reversed(kwargs) if k not in [e[2] for e in entries[start:]]]
        if unmatched:
            lines.append("      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched))
            continue
        desc = []
        for i in range(n):
            kw = entries[i][2] if i >= len(args) else None
            x = kwargs[kw] if kw is not None else args[i]
            mark = "" if _matches(entries[i][0], x) else "!"
            desc.append(f"{mark}{kw + '=' if kw else ''}{_type_desc(x)}{mark}")
        tail = "" if args or not kwargs else ", "
        lines.append(f"      didn't match because some of the arguments have invalid types: ({', '.join(desc)}{tail})")
    return "\n".join(lines) + "\n"


def refusal(name: str, texts: tuple, args: tuple, kwargs: dict) -> TypeError | None:
    """PyTorch's TypeError for ``name(*args, **kwargs)`` (a method's ``args`` without self) when
    none of the signatures ``texts`` takes the call, else None (``PythonArgParser::raw_parse``)."""
    sigs = [Signature(t) for t in texts]
    if len(sigs) == 1:
        msg = _parse(name, sigs[0], args, kwargs)
        return None if msg is None else TypeError(msg)
    if any(_parse(name, s, args, kwargs) is None for s in sigs):
        return None
    n = len(args) + len(kwargs)
    plausible = [s for s in sigs if s.min_args <= n <= s.max_args]
    if len(plausible) == 1:
        msg = _parse(name, plausible[0], args, kwargs)
        if msg is not None:
            return TypeError(msg)
    return TypeError(_invalid_args(name, texts, args, kwargs))


def parsed(fn, name: str, texts: tuple, method: bool = False):
    """``fn`` whose failure is PyTorch's parser's refusal when the parser refuses its arguments
    (``method``: the first argument is self, not listed)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception:
            err = refusal(name, texts, args[1:] if method else args, kwargs)
            if err is None:
                raise
            raise err from None

    return call
